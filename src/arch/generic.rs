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
/// It must cover the latency of a miss (L3 or DRAM) at the rate a batch probes: it is the
/// distance at which batches out of DRAM were fastest, prefetching into L2 (BENCHMARKS.md,
/// "Prefetch"). Into L1, some CPUs are fastest at a much shorter one, which is one reason L2
/// is the default level (see [`prefetch`]).
pub(crate) const PREFETCH_DISTANCE: usize = 128;

/// The smallest filter, in blocks, whose batch operations prefetch: half of one core's L2
/// cache, detected at run time (see [`cache`](super::cache)). Smaller filters are probed
/// without prefetching: their blocks stay in L2, and the hashing ahead and the prefetch
/// instructions only cost.
///
/// Half, not all of it: the L2 also holds the keys streaming through a batch, so a filter that
/// fits it on paper still misses. Not the L3: how much of a shared L3 a process gets is up to
/// its neighbours, and a missed prefetch costs more than a useless one (BENCHMARKS.md,
/// "Prefetch").
#[inline]
pub(crate) fn prefetch_min_blocks() -> usize {
    super::cache::caches().l2 / 2 / crate::block::BLOCK_BYTES
}

/// The prefetch distance the batch operations use on a filter of `num_blocks` blocks: 0 (no
/// prefetching) below [`prefetch_min_blocks`], [`PREFETCH_DISTANCE`] above.
///
/// The distance itself does not follow the cache sizes: it must cover the latency of a miss,
/// which is about the same wherever the filter misses the L2.
#[inline]
pub(crate) fn prefetch_distance(num_blocks: usize) -> usize {
    if num_blocks >= prefetch_min_blocks() {
        PREFETCH_DISTANCE
    } else {
        0
    }
}

/// Where the blocks of one block index lie, for the batch loops' prefetches: index `i`'s blocks
/// start at block `i · stride`, and the loops prefetch the blocks `first` and `last` places
/// after that start (once when they are equal). A `Filter` has one block per index; a window
/// filter has its `G` generations side by side.
#[derive(Clone, Copy)]
pub(crate) struct Span {
    /// Blocks per block index.
    pub(crate) stride: usize,
    /// The first block to prefetch, from the index's start.
    pub(crate) first: usize,
    /// The last block to prefetch, from the index's start.
    pub(crate) last: usize,
}

impl Span {
    /// One block per index: the split-block layout.
    pub(crate) const ONE: Span = Span {
        stride: 1,
        first: 0,
        last: 0,
    };
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
    span: Span,
    hasher: &S,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, usize, u32),
) {
    if distance == 0 {
        // Two keys per iteration, each whole (hashed, then visited): LLVM unrolls this loop
        // itself only when it schedules for a specific CPU (`-C target-cpu=native`), not for
        // the generic x86-64 of a dependent's default build. Not four: unrolled by four, LLVM's
        // SLP pass vectorized the block indices in native builds, which made batches in cache
        // slower (BENCHMARKS.md, "Workload").
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
            visit_ring::<true, S, K>(blocks, num_blocks, span, hasher, keys, distance, visit);
        }
        prefetch::Level::L2 => {
            visit_ring::<false, S, K>(blocks, num_blocks, span, hasher, keys, distance, visit);
        }
    }
}

/// [`visit_prefetching`] for a `distance` above 0, with prefetches into L1 when `L1`, else L2
/// ([`prefetch::prefetch`]).
#[inline(always)]
fn visit_ring<const L1: bool, S: BuildHasher, K: Hash>(
    blocks: *const [u32; LANES],
    num_blocks: usize,
    span: Span,
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
        let start = blocks.wrapping_add(block * span.stride);
        prefetch::prefetch::<L1, _>(start.wrapping_add(span.first));
        if span.last != span.first {
            prefetch::prefetch::<L1, _>(start.wrapping_add(span.last));
        }
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
    visit_prefetching(
        base,
        num_blocks,
        Span::ONE,
        hasher,
        keys,
        distance,
        |_, block, x| {
            // SAFETY: `block < num_blocks = blocks.len()` (see `visit_prefetching`; `num_blocks`
            // is not zero when there is a key to visit).
            kernel.insert(unsafe { blocks.get_unchecked_mut(block) }, x);
        },
    );
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
        Span::ONE,
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

/// Whether every bit of `x` is set in any one of `generations`: the lookup of a window filter,
/// whose generations of one block index lie side by side. Every generation is tested and the
/// answers ORed without an early exit, so a lookup does not mispredict on which generation
/// holds the key.
#[inline(always)]
pub(crate) fn contains_any_with<K: BlockKernel>(
    kernel: K,
    generations: &[[u32; LANES]],
    x: u32,
) -> bool {
    generations
        .iter()
        .fold(false, |found, block| found | kernel.contains(block, x))
}

/// The single-key lookup of a window filter: [`contains_any_with`] on the `generations` blocks
/// of `hash`'s block index in `blocks` (`num_blocks × generations` blocks, one index's
/// generations side by side). The shape is passed, not divided out of the length: a division
/// per lookup cost more than the rest of the probe.
#[inline(always)]
pub(crate) fn contains_any_hash_with<Kn: BlockKernel>(
    kernel: Kn,
    blocks: &[[u32; LANES]],
    (num_blocks, generations): (usize, usize),
    hash: u64,
) -> bool {
    let first = block_index(hash, num_blocks) * generations;
    contains_any_with(kernel, &blocks[first..first + generations], hash as u32)
}

/// The single-key insert of a window filter: sets the bits of `hash` in generation `newest` of
/// its block index; `true` when some generation already held every bit (before the insert).
#[inline(always)]
pub(crate) fn insert_newest_hash_with<Kn: BlockKernel>(
    kernel: Kn,
    blocks: &mut [[u32; LANES]],
    (num_blocks, generations): (usize, usize),
    newest: usize,
    hash: u64,
) -> bool {
    let first = block_index(hash, num_blocks) * generations;
    let present = contains_any_with(kernel, &blocks[first..first + generations], hash as u32);
    kernel.insert(&mut blocks[first + newest], hash as u32);
    present
}

/// The batch lookup of a window filter: `out[i]` is [`contains_any_hash_with`] for `keys[i]`,
/// hashed and prefetched (the first and last block of the key's generations) as the other
/// batch loops do ([`visit_prefetching`]). Panics unless `out.len() == keys.len()`.
#[inline(always)]
pub(crate) fn contains_any_keys_with<Kn: BlockKernel, S: BuildHasher, K: Hash>(
    kernel: Kn,
    blocks: &[[u32; LANES]],
    (num_blocks, generations): (usize, usize),
    hasher: &S,
    keys: &[K],
    out: &mut [bool],
    distance: usize,
) {
    assert_eq!(keys.len(), out.len(), "one answer slot per key");
    let span = Span {
        stride: generations,
        first: 0,
        last: generations - 1,
    };
    let base = blocks.as_ptr();
    visit_prefetching(
        base,
        num_blocks,
        span,
        hasher,
        keys,
        distance,
        |index, block, x| {
            let first = block * generations;
            out[index] = contains_any_with(kernel, &blocks[first..first + generations], x);
        },
    );
}

/// The batch insert of a window filter: every key into generation `newest`, hashed and its
/// block there prefetched as the other batch loops do ([`visit_prefetching`]).
#[inline(always)]
pub(crate) fn insert_newest_keys_with<Kn: BlockKernel, S: BuildHasher, K: Hash>(
    kernel: Kn,
    blocks: &mut [[u32; LANES]],
    (num_blocks, generations): (usize, usize),
    newest: usize,
    hasher: &S,
    keys: &[K],
    distance: usize,
) {
    let span = Span {
        stride: generations,
        first: newest,
        last: newest,
    };
    let base = blocks.as_ptr();
    visit_prefetching(
        base,
        num_blocks,
        span,
        hasher,
        keys,
        distance,
        |_, block, x| {
            kernel.insert(&mut blocks[block * generations + newest], x);
        },
    );
}
