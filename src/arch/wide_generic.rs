//! The wide layout's kernels (`WideFilter`), written once: [`WideKernel`] is the two block
//! primitives each kernel file (`wide_scalar.rs`, `wide_portable.rs`, `wide_avx2.rs`,
//! `wide_avx512.rs`, `wide_neon.rs`) implements for its token, and `wide_entry_points!`
//! compiles the operations a filter calls (single keys, and batches that prefetch both blocks of each key
//! `distance` keys ahead) as one function each with the kernel's target features, so the
//! primitives inline into them. The layout itself (block choice, second probe, masks) is the
//! scalar reference of [`wide_block`](crate::wide_block); every kernel reproduces it bit for bit.

use core::hash::{BuildHasher, Hash};

use super::generic::{PREFETCH_DISTANCE, PreHashed};
use super::prefetch;
use crate::wide_block::{self, WORDS};

/// Keys whose blocks a wide batch prefetches ahead, at most: fewer than the split-block loops'
/// [`PREFETCH_DISTANCE`], since a two-probe key has two lines in flight. Measured with
/// `cargo bench -p splitbloom-bench --bench wide` (10^6 keys, Xeon model 167, two runs each):
/// batched lookups at 1e-4 take 3.76-3.80 ns at 32, 3.70-3.79 at 16, 3.84-3.86 at 64 and
/// 4.00-4.01 at 128; at 1e-3 (one probe) 2.30-2.32 at 32 against 2.38-2.42 at 128.
pub(crate) const WIDE_PREFETCH_DISTANCE: usize = 32;

/// The prefetch distance of the wide batch operations on a filter of `num_blocks` blocks: the
/// split-block rule's choice of prefetching or not (counted in its 32-byte units, two per wide
/// block), at most [`WIDE_PREFETCH_DISTANCE`] keys ahead.
#[inline]
pub(crate) fn wide_prefetch_distance(num_blocks: usize) -> usize {
    super::prefetch_distance(2 * num_blocks).min(WIDE_PREFETCH_DISTANCE)
}

/// The block primitives of the wide layout, identical in every kernel to
/// [`wide_block`](crate::wide_block)'s.
pub(crate) trait WideKernel: Copy {
    /// ORs the mask of `x` into `block`; `true` when every bit was already set.
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool;
    /// Whether some bit of the mask of `x` is clear in `block` (branch-free).
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool;
}

/// The wide operations a filter calls, one call each (see [`wide_entry_points!`]).
pub(crate) trait WideEntryPoints: Copy {
    /// Inserts a pre-hashed key with `probes` probes; `true` when all its bits were set.
    fn wide_insert_hash(self, blocks: &mut [[u64; WORDS]], probes: u8, hash: u64) -> bool;
    /// Whether a pre-hashed key may be present.
    fn wide_contains_hash(self, blocks: &[[u64; WORDS]], probes: u8, hash: u64) -> bool;
    /// Inserts every key of `keys`, hashed with `hasher`, each `distance` keys before its
    /// insert, when its blocks are prefetched (0: no prefetching).
    fn wide_insert_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &mut [[u64; WORDS]],
        probes: u8,
        hasher: &S,
        keys: &[K],
        distance: usize,
    );
    /// Writes into `out[i]` whether `keys[i]` may be present (equal lengths), hashing and
    /// prefetching `distance` keys ahead.
    fn wide_contains_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &[[u64; WORDS]],
        probes: u8,
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    );

    /// Inserts every pre-hashed key, prefetching `distance` keys ahead (0: none).
    #[inline(always)]
    fn wide_insert_hashes(
        self,
        blocks: &mut [[u64; WORDS]],
        probes: u8,
        hashes: &[u64],
        distance: usize,
    ) {
        self.wide_insert_keys(blocks, probes, &PreHashed, hashes, distance);
    }

    /// Writes into `out[i]` whether `hashes[i]` may be present (equal lengths), prefetching
    /// `distance` keys ahead.
    #[inline(always)]
    fn wide_contains_hashes(
        self,
        blocks: &[[u64; WORDS]],
        probes: u8,
        hashes: &[u64],
        out: &mut [bool],
        distance: usize,
    ) {
        self.wide_contains_keys(blocks, probes, &PreHashed, hashes, out, distance);
    }
}

/// Whether `hash` may be present, with `kernel`'s primitives: both probes tested, then one
/// branch-free answer.
#[inline(always)]
pub(crate) fn contains_hash_with<K: WideKernel>(
    kernel: K,
    blocks: &[[u64; WORDS]],
    probes_per_key: u8,
    hash: u64,
) -> bool {
    let (first, x) = wide_block::first_probe(hash, blocks.len());
    let mut missing = kernel.missing(&blocks[first], x);
    if probes_per_key == 2 {
        let (second, x) = wide_block::second_probe(hash, first);
        missing |= kernel.missing(&blocks[second], x);
    }
    !missing
}

/// Inserts `hash` with `kernel`'s primitives; `true` when all its bits were already set.
#[inline(always)]
pub(crate) fn insert_hash_with<K: WideKernel>(
    kernel: K,
    blocks: &mut [[u64; WORDS]],
    probes_per_key: u8,
    hash: u64,
) -> bool {
    let (first, x) = wide_block::first_probe(hash, blocks.len());
    let mut present = kernel.insert(&mut blocks[first], x);
    if probes_per_key == 2 {
        let (second, x) = wide_block::second_probe(hash, first);
        present &= kernel.insert(&mut blocks[second], x);
    }
    present
}

/// Prefetches both blocks a key of `hash` may touch among the `num_blocks` blocks at `blocks`
/// (the second only with two probes), into L1 when `L1`, else L2 ([`prefetch::prefetch`]).
/// `blocks` only locates them and is never dereferenced.
#[inline(always)]
fn prefetch_key<const L1: bool>(
    blocks: *const [u64; WORDS],
    num_blocks: usize,
    probes_per_key: u8,
    hash: u64,
) {
    let (first, _) = wide_block::first_probe(hash, num_blocks);
    prefetch::prefetch::<L1, _>(blocks.wrapping_add(first));
    if probes_per_key == 2 {
        let (second, _) = wide_block::second_probe(hash, first);
        prefetch::prefetch::<L1, _>(blocks.wrapping_add(second));
    }
}

/// Calls `visit(i, hash)` for every key `i` in order with its hash, as the split-block batch
/// loops visit theirs (`arch::generic`): with a `distance` above 0, each key is hashed
/// `distance` keys before its visit and its blocks among the `num_blocks` at `blocks`
/// prefetched then (into the level [`prefetch::level`] chose for this CPU), so the hashing of
/// later keys overlaps the memory latency of earlier ones. The hashes in flight wait in a ring
/// on the stack; it holds whole hashes, since a second probe is derived from all 64 bits.
/// `distance` is rounded up to a power of two and capped at [`PREFETCH_DISTANCE`], the ring's
/// size. `blocks` is never dereferenced, so `visit` may write the blocks.
#[inline(always)]
fn visit_prefetching<S: BuildHasher, K: Hash>(
    blocks: *const [u64; WORDS],
    num_blocks: usize,
    probes_per_key: u8,
    hasher: &S,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, u64),
) {
    if distance == 0 {
        for (index, key) in keys.iter().enumerate() {
            visit(index, crate::hash::hash_key(hasher, key));
        }
        return;
    }
    let at = (blocks, num_blocks, probes_per_key);
    // The hint is chosen once per batch, so each loop has its prefetch instruction inline.
    match prefetch::level() {
        prefetch::Level::L1 => visit_ring::<true, S, K>(at, hasher, keys, distance, visit),
        prefetch::Level::L2 => visit_ring::<false, S, K>(at, hasher, keys, distance, visit),
    }
}

/// [`visit_prefetching`] for a `distance` above 0, with prefetches into L1 when `L1`, else L2.
#[inline(always)]
fn visit_ring<const L1: bool, S: BuildHasher, K: Hash>(
    (blocks, num_blocks, probes_per_key): (*const [u64; WORDS], usize, u8),
    hasher: &S,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, u64),
) {
    const RING: usize = PREFETCH_DISTANCE;
    const { assert!(RING.is_power_of_two()) };
    let distance = distance.min(RING).next_power_of_two();
    // `& (RING - 1)` is implied by the mask (distance <= RING); it lets the compiler see that
    // every ring index is in bounds.
    let mask = (distance - 1) & (RING - 1);
    let mut ring = [0u64; RING];
    let prepare = |key: &K| {
        let hash = crate::hash::hash_key(hasher, key);
        prefetch_key::<L1>(blocks, num_blocks, probes_per_key, hash);
        hash
    };
    let (first, later) = keys.split_at(distance.min(keys.len()));
    for (slot, key) in first.iter().enumerate() {
        ring[slot & mask] = prepare(key);
    }
    for (index, key) in later.iter().enumerate() {
        let slot = index & mask;
        let hash = ring[slot];
        ring[slot] = prepare(key);
        visit(index, hash);
    }
    for index in later.len()..keys.len() {
        visit(index, ring[index & mask]);
    }
}

/// The batch lookup loop over `kernel`'s primitives: `out[i]` for `keys[i]`, for the first
/// `min(keys.len(), out.len())` keys (the callers pass equal lengths).
#[inline(always)]
pub(crate) fn contains_keys_with<W: WideKernel, S: BuildHasher, K: Hash>(
    kernel: W,
    blocks: &[[u64; WORDS]],
    probes_per_key: u8,
    hasher: &S,
    keys: &[K],
    out: &mut [bool],
    distance: usize,
) {
    let keys = &keys[..keys.len().min(out.len())];
    let out = &mut out[..keys.len()];
    let (at, num_blocks) = (blocks.as_ptr(), blocks.len());
    visit_prefetching(
        at,
        num_blocks,
        probes_per_key,
        hasher,
        keys,
        distance,
        |index, hash| {
            out[index] = contains_hash_with(kernel, blocks, probes_per_key, hash);
        },
    );
}

/// The batch insert loop over `kernel`'s primitives (see [`contains_keys_with`]).
#[inline(always)]
pub(crate) fn insert_keys_with<W: WideKernel, S: BuildHasher, K: Hash>(
    kernel: W,
    blocks: &mut [[u64; WORDS]],
    probes_per_key: u8,
    hasher: &S,
    keys: &[K],
    distance: usize,
) {
    let (at, num_blocks) = (blocks.as_ptr(), blocks.len());
    visit_prefetching(
        at,
        num_blocks,
        probes_per_key,
        hasher,
        keys,
        distance,
        |_, hash| {
            insert_hash_with(kernel, blocks, probes_per_key, hash);
        },
    );
}

/// Implements [`WideEntryPoints`] for a kernel token: each operation one function compiled
/// with the kernel's attributes (its `#[target_feature]`s), an `unsafe fn` whose one
/// precondition is that the CPU has those features, called with the token as the proof.
macro_rules! wide_entry_points {
    ($Token:ident, $token:expr $(, #[$attr:meta])*) => {
        /// This kernel's wide entry points (see `crate::arch::wide_generic`).
        mod wide_entry {
            use super::*;
            use crate::arch::wide_generic as generic;
            use crate::wide_block::WORDS;

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn insert_hash(blocks: &mut [[u64; WORDS]], probes: u8, hash: u64) -> bool {
                generic::insert_hash_with($token, blocks, probes, hash)
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn contains_hash(blocks: &[[u64; WORDS]], probes: u8, hash: u64) -> bool {
                generic::contains_hash_with($token, blocks, probes, hash)
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn insert_keys<S: core::hash::BuildHasher, K: core::hash::Hash>(blocks: &mut [[u64; WORDS]], probes: u8, hasher: &S, keys: &[K], distance: usize) {
                generic::insert_keys_with($token, blocks, probes, hasher, keys, distance)
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn contains_keys<S: core::hash::BuildHasher, K: core::hash::Hash>(blocks: &[[u64; WORDS]], probes: u8, hasher: &S, keys: &[K], out: &mut [bool], distance: usize) {
                generic::contains_keys_with($token, blocks, probes, hasher, keys, out, distance)
            }
        }

        impl crate::arch::wide_generic::WideEntryPoints for $Token {
            #[inline(always)]
            fn wide_insert_hash(self, blocks: &mut [[u64; crate::wide_block::WORDS]], probes: u8, hash: u64) -> bool {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { wide_entry::insert_hash(blocks, probes, hash) }
            }

            #[inline(always)]
            fn wide_contains_hash(self, blocks: &[[u64; crate::wide_block::WORDS]], probes: u8, hash: u64) -> bool {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { wide_entry::contains_hash(blocks, probes, hash) }
            }

            #[inline(always)]
            fn wide_insert_keys<S: core::hash::BuildHasher, K: core::hash::Hash>(self, blocks: &mut [[u64; crate::wide_block::WORDS]], probes: u8, hasher: &S, keys: &[K], distance: usize) {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { wide_entry::insert_keys(blocks, probes, hasher, keys, distance) }
            }

            #[inline(always)]
            fn wide_contains_keys<S: core::hash::BuildHasher, K: core::hash::Hash>(self, blocks: &[[u64; crate::wide_block::WORDS]], probes: u8, hasher: &S, keys: &[K], out: &mut [bool], distance: usize) {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { wide_entry::contains_keys(blocks, probes, hasher, keys, out, distance) }
            }
        }
    };
}
pub(crate) use wide_entry_points;

#[cfg(test)]
mod tests {
    use super::WideEntryPoints;
    use crate::arch::Dispatch;
    use crate::hash::Xxh3;
    use crate::kind::Kernel;
    use crate::wide_block::{self, WORDS};

    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Every available kernel against the scalar reference on every output: the answers of
    /// single and batch lookups, the answers of inserts, and the bits they leave, on blocks of
    /// random density (sparse, half and nearly full), one and two probes, with and without
    /// prefetching.
    #[test]
    fn every_kernel_matches_the_scalar_reference() {
        let mut state = 0x0123_4567_89ab_cdef_u64;
        for kernel in Kernel::ALL {
            let Some(dispatch) = Dispatch::new(kernel) else {
                continue;
            };
            for probes in [1u8, 2] {
                for density in [1u32, 3, 6] {
                    let mut blocks = vec![[0u64; WORDS]; 128];
                    for word in blocks.iter_mut().flatten() {
                        for _ in 0..density {
                            *word |= next(&mut state) & next(&mut state);
                        }
                    }
                    let hashes: Vec<u64> = (0..2_000).map(|_| next(&mut state)).collect();
                    let mut out = vec![false; hashes.len()];
                    for distance in [0, 8, 128] {
                        dispatch.wide_contains_hashes(&blocks, probes, &hashes, &mut out, distance);
                        for (&hash, &answer) in hashes.iter().zip(&out) {
                            let want = wide_block::contains(&blocks, probes, hash);
                            assert_eq!(answer, want, "{kernel} batch {probes} {hash:#x}");
                            let single = dispatch.wide_contains_hash(&blocks, probes, hash);
                            assert_eq!(single, want, "{kernel} single {probes} {hash:#x}");
                        }
                        // Keys hashed inside the loop, an odd count so the ring's tail is
                        // partial.
                        let keys = &hashes[..1_999];
                        let hasher = Xxh3::default();
                        let out = &mut out[..keys.len()];
                        dispatch.wide_contains_keys(&blocks, probes, &hasher, keys, out, distance);
                        for (key, &answer) in keys.iter().zip(out.iter()) {
                            let hash = crate::hash::hash_key(&hasher, key);
                            let want = wide_block::contains(&blocks, probes, hash);
                            assert_eq!(answer, want, "{kernel} keys {probes} {distance} {key:#x}");
                        }
                    }
                    let mut reference = blocks.clone();
                    let mut single = blocks.clone();
                    let mut batch = blocks.clone();
                    for &hash in &hashes {
                        let want = wide_block::insert(&mut reference, probes, hash);
                        let got = dispatch.wide_insert_hash(&mut single, probes, hash);
                        assert_eq!(got, want, "{kernel} insert {probes} {hash:#x}");
                    }
                    dispatch.wide_insert_hashes(&mut batch, probes, &hashes, 8);
                    assert!(single == reference, "{kernel} insert bits {probes}");
                    assert!(batch == reference, "{kernel} batch insert bits {probes}");
                    let hasher = Xxh3::default();
                    for distance in [0, 8, 128] {
                        let mut reference = blocks.clone();
                        for key in &hashes[..1_999] {
                            let hash = crate::hash::hash_key(&hasher, key);
                            wide_block::insert(&mut reference, probes, hash);
                        }
                        let mut batch = blocks.clone();
                        let keys = &hashes[..1_999];
                        dispatch.wide_insert_keys(&mut batch, probes, &hasher, keys, distance);
                        assert!(
                            batch == reference,
                            "{kernel} key inserts {probes} {distance}"
                        );
                    }
                }
            }
        }
    }
}
