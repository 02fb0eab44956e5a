//! What every kernel shares, written once: the single-key operations (block index and probe),
//! the batch loops with their prefetching, and the identity hasher of pre-hashed batches. Each
//! kernel's entry points (`entry_points!`) instantiate these with its token, so the block
//! primitives inline into the loops with the kernel's target features.

use core::hash::{BuildHasher, Hash};

use super::{BlockKernel, prefetch};
use crate::block::{LANES, block_index};

/// How many keys ahead the batch loops hash and prefetch, on filters of at least
/// [`prefetch_min_blocks`] blocks; also the size of their rings of block indices and in-block
/// hashes in flight (1 KiB of stack). A power of two.
///
/// Tuned on AMD Zen 4 (AVX2 kernel, criterion `insert_batch` / `contains_batch` of 1024 keys,
/// hashing included, huge pages granted) together with the prefetch hint (see
/// [`prefetch`](prefetch::prefetch)): into L2, ns per key at 10^7 / 10^8 keys,
///
/// | distance | batch insert | batched lookup |
/// |---:|---|---|
/// | 16 | – / 8.8 | – / 9.2 |
/// | 24 | – / 7.4 | – / 7.8 |
/// | 32 | 4.5 / 6.1 | 4.9 / 6.3 |
/// | 64 | 3.4-3.5 / 4.6-4.9 | 3.6-3.7 / 4.8-5.4 |
/// | 128 | 3.1-3.4 / 4.3-4.5 | 3.3-3.5 / 4.5-4.8 |
/// | 256 | 3.3 / 4.5 | 3.4 / 6.6 |
///
/// whereas prefetching into L1 was best at 16 (10.6 / 11.1 ns at 10^8) and got worse beyond.
/// At 10^6 keys (in L3) every combination measured 2.4-3.0 ns, within the noise. AMD Zen 5,
/// which prefetches into L1 at this distance, is in [`prefetch`](super::prefetch)'s docs.
pub(crate) const PREFETCH_DISTANCE: usize = 128;

/// The smallest filter, in blocks, whose batch operations prefetch: half of one core's L2
/// cache, detected at run time (see [`cache`](super::cache)). Smaller filters are probed
/// without prefetching: their blocks stay in L2 and the extra instructions only cost (measured
/// on Zen 4, whose L2 is 1 MiB: a lookup takes 1.6 ns instead of 1.2-1.3 ns at 10^4 and 10^5
/// keys; at 10^6 keys, 1.25 MB, prefetching already gains, 1.8 vs 2.1 ns).
///
/// Half, not all of it: the L2 also holds the keys streaming through a batch, so a filter that
/// fits it on paper still misses. Measured on an Intel Xeon (Emerald Rapids, 2 MiB L2) in the
/// workload bench, batched lookups at 10^6 keys (1.25 MB) took 2.6-3.5 ns with prefetching
/// against 3.1-4.9 without; at 6 * 10^5 keys (750 KB) prefetching still cost, 2.4 vs 2.2 ns.
///
/// Not the L3: on an AMD Zen 5 VM whose L3 was uncontended, prefetching cost up to 1.4x from
/// 1 MiB to 12.5 MB (pre-hashed lookups, 1.45 against 1.93 ns at 10^7 keys) and gained 3.3x
/// past the 32 MiB L3, but on the Zen 4 VM the same 12.5 MB already gained 4x: how much of a
/// shared L3 a process gets is up to its neighbours, and a missed prefetch costs more than a
/// useless one (README, "Per CPU", Zen 5).
#[inline]
pub(crate) fn prefetch_min_blocks() -> usize {
    super::cache::caches().l2 / 2 / crate::block::BLOCK_BYTES
}

/// The prefetch distance the batch operations use on a filter of `num_blocks` blocks: 0 (no
/// prefetching) below [`prefetch_min_blocks`], [`PREFETCH_DISTANCE`] above.
///
/// The distance itself does not follow the cache sizes: it must cover the latency of a miss
/// (L3 or DRAM, 50-120 ns on the CPUs measured) at the rate a batch probes (1-3 ns per key),
/// which both Zen 4 and Intel Xeon need the full ring for (see the README's prefetch tables).
#[inline]
pub(crate) fn prefetch_distance(num_blocks: usize) -> usize {
    if num_blocks >= prefetch_min_blocks() {
        PREFETCH_DISTANCE
    } else {
        0
    }
}

/// Calls `visit(i, block, x)` for every key `i` in order, where `block` is the index of the key's
/// block among `num_blocks` ([`block_index`] of its hash) and `x` the in-block hash (the hash's
/// low 32 bits), after prefetching the block of the key `distance` places later (into the cache
/// level [`prefetch::level`] chose for this CPU): each key is
/// hashed `distance` keys before its visit and its block prefetched then, so the hashing of
/// later keys overlaps the memory latency of earlier ones. The block indices and in-block hashes
/// in flight wait in two rings on the stack, so that the block index is computed once per key.
/// `blocks` only locates the blocks to prefetch and is never dereferenced.
///
/// Every `block` passed to `visit` is below `num_blocks` when `num_blocks` is not zero
/// ([`block_index`] maps into `0..num_blocks`), and every `i` is below `keys.len()`: the
/// batch loops rely on both to index without bounds checks.
///
/// `distance` 0 means no prefetching (each key is hashed just before its visit). Other values
/// are rounded up to a power of two (so the ring index is a mask) and capped at
/// [`PREFETCH_DISTANCE`], the rings' size. Pre-hashed batches use [`PreHashed`] as the hasher.
#[inline(always)]
fn visit_prefetching<S: BuildHasher, K: Hash>(
    blocks: *const [u32; LANES],
    num_blocks: usize,
    hasher: &S,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, usize, u32),
) {
    if distance == 0 {
        // Two keys per iteration, each whole (hashed, then visited). LLVM unrolls this loop
        // by two itself when it schedules for a specific CPU (`-C target-cpu=native`), not
        // for the generic x86-64 that a dependent crate's default build targets, even inside
        // a kernel's `#[target_feature]` entry point: there the batched lookup in cache took
        // 1.14-1.20 ns per key against 1.02-1.04 native, and 1.07-1.10 unrolled by hand,
        // with native unchanged (AMD Zen 5, avx512 kernel, workload bench at 10^4 keys). Not
        // four: unrolled by four (hashes first, or each key whole), the loop was vectorized
        // by LLVM's SLP pass in native builds (the four block indices through `vpmullq` and
        // lane extracts), and batched lookups and inserts in cache became 1.3-2x slower.
        let mut pairs = keys.chunks_exact(2);
        let mut index = 0;
        for pair in &mut pairs {
            let hash = crate::hash::hash_key(hasher, &pair[0]);
            visit(index, block_index(hash, num_blocks), hash as u32);
            let hash = crate::hash::hash_key(hasher, &pair[1]);
            visit(index + 1, block_index(hash, num_blocks), hash as u32);
            index += 2;
        }
        for key in pairs.remainder() {
            let hash = crate::hash::hash_key(hasher, key);
            visit(index, block_index(hash, num_blocks), hash as u32);
        }
        return;
    }
    // The hint is chosen once per batch, so each loop has its prefetch instruction inline.
    match prefetch::level() {
        prefetch::Level::L1 => {
            visit_ring::<true, S, K>(blocks, num_blocks, hasher, keys, distance, visit);
        }
        prefetch::Level::L2 => {
            visit_ring::<false, S, K>(blocks, num_blocks, hasher, keys, distance, visit);
        }
    }
}

/// [`visit_prefetching`] for a `distance` above 0, with prefetches into L1 when `L1`, else L2
/// ([`prefetch::prefetch`]).
#[inline(always)]
fn visit_ring<const L1: bool, S: BuildHasher, K: Hash>(
    blocks: *const [u32; LANES],
    num_blocks: usize,
    hasher: &S,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, usize, u32),
) {
    const RING: usize = PREFETCH_DISTANCE;
    const { assert!(RING.is_power_of_two()) };
    let distance = distance.min(RING).next_power_of_two();
    // `& (RING - 1)` is implied by the mask (distance <= RING); it lets the compiler see that
    // every ring index is in bounds.
    let mask = (distance - 1) & (RING - 1);
    // Key `i`'s block index and in-block hash wait in slot `i & mask` from its hashing until
    // its visit. A block index fits in 32 bits: it is a 64-bit product shifted right by 32.
    let mut ring_block = [0u32; RING];
    let mut ring_x = [0u32; RING];
    let prepare = |key: &K| {
        let hash = crate::hash::hash_key(hasher, key);
        let block = block_index(hash, num_blocks);
        prefetch::prefetch::<L1, _>(blocks.wrapping_add(block));
        (block as u32, hash as u32)
    };
    let (first, later) = keys.split_at(distance.min(keys.len()));
    for (slot, key) in first.iter().enumerate() {
        (ring_block[slot & mask], ring_x[slot & mask]) = prepare(key);
    }
    for (index, key) in later.iter().enumerate() {
        let slot = index & mask;
        let (block, x) = (ring_block[slot] as usize, ring_x[slot]);
        (ring_block[slot], ring_x[slot]) = prepare(key);
        visit(index, block, x);
    }
    for index in later.len()..keys.len() {
        let slot = index & mask;
        visit(index, ring_block[slot] as usize, ring_x[slot]);
    }
}

/// The [`BuildHasher`] of pre-hashed batches: a `u64` key hashes to itself, so the batch loops
/// below serve both keys and hashes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PreHashed;

/// The [`Hasher`](core::hash::Hasher) of [`PreHashed`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PreHashedHasher(u64);

impl core::hash::Hasher for PreHashedHasher {
    #[inline(always)]
    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }

    /// Only `u64`s are hashed with [`PreHashed`]; other input is folded in so the result is
    /// still deterministic.
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl BuildHasher for PreHashed {
    type Hasher = PreHashedHasher;

    #[inline(always)]
    fn build_hasher(&self) -> PreHashedHasher {
        PreHashedHasher::default()
    }
}

/// The single-key insert, written once: the block index and the kernel's insert, compiled
/// together inside each kernel's entry point.
#[inline(always)]
pub(crate) fn insert_hash_with<K: BlockKernel>(
    kernel: K,
    blocks: &mut [[u32; LANES]],
    hash: u64,
) -> bool {
    let index = block_index(hash, blocks.len());
    kernel.insert(&mut blocks[index], hash as u32)
}

/// The single-key lookup, written once (see [`insert_hash_with`]).
#[inline(always)]
pub(crate) fn contains_hash_with<K: BlockKernel>(
    kernel: K,
    blocks: &[[u32; LANES]],
    hash: u64,
) -> bool {
    kernel.contains(&blocks[block_index(hash, blocks.len())], hash as u32)
}

/// The batch insert loop, written once: the keys are hashed, prefetched and inserted inside
/// the kernel's entry point, so that `kernel.insert` inlines with the right instructions (see
/// [`visit_prefetching`]).
#[inline(always)]
pub(crate) fn insert_keys_with<Kn: BlockKernel, S: BuildHasher, K: Hash>(
    kernel: Kn,
    blocks: &mut [[u32; LANES]],
    hasher: &S,
    keys: &[K],
    distance: usize,
) {
    let num_blocks = blocks.len();
    assert!(num_blocks > 0 || keys.is_empty(), "no block to insert into");
    let base = blocks.as_ptr();
    visit_prefetching(base, num_blocks, hasher, keys, distance, |_, block, x| {
        // SAFETY: `block < num_blocks = blocks.len()` (see `visit_prefetching`; `num_blocks`
        // is not zero when there is a key to visit).
        kernel.insert(unsafe { blocks.get_unchecked_mut(block) }, x);
    });
}

/// The batch lookup loop, written once (see [`insert_keys_with`]).
#[inline(always)]
pub(crate) fn contains_keys_with<Kn: BlockKernel, S: BuildHasher, K: Hash>(
    kernel: Kn,
    blocks: &[[u32; LANES]],
    hasher: &S,
    keys: &[K],
    out: &mut [bool],
    distance: usize,
) {
    assert_eq!(keys.len(), out.len(), "one answer slot per key");
    let num_blocks = blocks.len();
    assert!(num_blocks > 0 || keys.is_empty(), "no block to look up");
    visit_prefetching(
        blocks.as_ptr(),
        num_blocks,
        hasher,
        keys,
        distance,
        |index, block, x| {
            // SAFETY: `block < num_blocks = blocks.len()` (see `visit_prefetching`;
            // `num_blocks` is not zero when there is a key to visit), and `index <
            // keys.len() = out.len()` (asserted above).
            unsafe {
                *out.get_unchecked_mut(index) = kernel.contains(blocks.get_unchecked(block), x)
            };
        },
    );
}
