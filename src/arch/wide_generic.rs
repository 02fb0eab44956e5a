//! The wide layout's kernels (`WideFilter`), written once: [`WideKernel`] is the two block
//! primitives each kernel file (`wide_scalar.rs`, `wide_portable.rs`, `wide_avx2.rs`,
//! `wide_avx512.rs`, `wide_neon.rs`) implements for its token, and `wide_entry_points!`
//! compiles the operations a filter calls (single keys, and batches that prefetch both blocks of each key
//! `distance` keys ahead) as one function each with the kernel's target features, so the
//! primitives inline into them. The layout itself (block choice, second probe, masks) is the
//! scalar reference of [`wide_block`](crate::wide_block); every kernel reproduces it bit for bit.

use super::prefetch::prefetch;
use crate::wide_block::{self, WORDS};

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
    /// Inserts every hash, prefetching `distance` keys ahead (0: none).
    fn wide_insert_hashes(
        self,
        blocks: &mut [[u64; WORDS]],
        probes: u8,
        hashes: &[u64],
        distance: usize,
    );
    /// Writes into `out[i]` whether `hashes[i]` may be present (equal lengths), prefetching
    /// `distance` keys ahead.
    fn wide_contains_hashes(
        self,
        blocks: &[[u64; WORDS]],
        probes: u8,
        hashes: &[u64],
        out: &mut [bool],
        distance: usize,
    );
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

/// Prefetches both blocks a key of `hash` may touch (the second only with two probes).
#[inline(always)]
fn prefetch_key(blocks: &[[u64; WORDS]], probes_per_key: u8, hash: u64) {
    let (first, _) = wide_block::first_probe(hash, blocks.len());
    prefetch::<true, _>(blocks[first].as_ptr());
    if probes_per_key == 2 {
        let (second, _) = wide_block::second_probe(hash, first);
        prefetch::<true, _>(blocks[second].as_ptr());
    }
}

/// The batch lookup loop over `kernel`'s primitives.
#[inline(always)]
pub(crate) fn contains_hashes_with<K: WideKernel>(
    kernel: K,
    blocks: &[[u64; WORDS]],
    probes_per_key: u8,
    hashes: &[u64],
    out: &mut [bool],
    distance: usize,
) {
    for (i, (&hash, answer)) in hashes.iter().zip(out.iter_mut()).enumerate() {
        if let Some(&ahead) = hashes.get(i + distance).filter(|_| distance > 0) {
            prefetch_key(blocks, probes_per_key, ahead);
        }
        *answer = contains_hash_with(kernel, blocks, probes_per_key, hash);
    }
}

/// The batch insert loop over `kernel`'s primitives.
#[inline(always)]
pub(crate) fn insert_hashes_with<K: WideKernel>(
    kernel: K,
    blocks: &mut [[u64; WORDS]],
    probes_per_key: u8,
    hashes: &[u64],
    distance: usize,
) {
    for (i, &hash) in hashes.iter().enumerate() {
        if let Some(&ahead) = hashes.get(i + distance).filter(|_| distance > 0) {
            prefetch_key(blocks, probes_per_key, ahead);
        }
        insert_hash_with(kernel, blocks, probes_per_key, hash);
    }
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
            pub(super) unsafe fn insert_hashes(blocks: &mut [[u64; WORDS]], probes: u8, hashes: &[u64], distance: usize) {
                generic::insert_hashes_with($token, blocks, probes, hashes, distance)
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn contains_hashes(blocks: &[[u64; WORDS]], probes: u8, hashes: &[u64], out: &mut [bool], distance: usize) {
                generic::contains_hashes_with($token, blocks, probes, hashes, out, distance)
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
            fn wide_insert_hashes(self, blocks: &mut [[u64; crate::wide_block::WORDS]], probes: u8, hashes: &[u64], distance: usize) {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { wide_entry::insert_hashes(blocks, probes, hashes, distance) }
            }

            #[inline(always)]
            fn wide_contains_hashes(self, blocks: &[[u64; crate::wide_block::WORDS]], probes: u8, hashes: &[u64], out: &mut [bool], distance: usize) {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { wide_entry::contains_hashes(blocks, probes, hashes, out, distance) }
            }
        }
    };
}
pub(crate) use wide_entry_points;

#[cfg(test)]
mod tests {
    use super::WideEntryPoints;
    use crate::arch::Dispatch;
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
                    for distance in [0, 8] {
                        dispatch.wide_contains_hashes(&blocks, probes, &hashes, &mut out, distance);
                        for (&hash, &answer) in hashes.iter().zip(&out) {
                            let want = wide_block::contains(&blocks, probes, hash);
                            assert_eq!(answer, want, "{kernel} batch {probes} {hash:#x}");
                            let single = dispatch.wide_contains_hash(&blocks, probes, hash);
                            assert_eq!(single, want, "{kernel} single {probes} {hash:#x}");
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
                }
            }
        }
    }
}
