//! The window layout's operations (`WindowFilter`), compiled per kernel: [`WindowEntryPoints`]
//! is what a window calls, and each operation runs the loops of `generic.rs`
//! (`contains_any_*`, `insert_newest_*`) inside the kernel's entry point ([`Token::run`]) with
//! the kernel's target features. The kernel's block test then inlines into the loop over a key's
//! `G` generations, which computes the key's mask once, instead of one call into the kernel
//! per generation.

use core::hash::{BuildHasher, Hash};

#[cfg(doc)]
use super::Token;
use super::generic::PreHashed;
use crate::block::LANES;

/// The window operations a filter calls, one call each. `blocks` holds `num_blocks × G`
/// blocks, block index `i`'s `G` generations side by side from block `i·G`; `shape` is
/// `(num_blocks, G)`.
pub(crate) trait WindowEntryPoints: Copy {
    /// Whether a pre-hashed key is in any of the `generations`.
    fn window_contains_hash(
        self,
        blocks: &[[u32; LANES]],
        shape: (usize, usize),
        hash: u64,
    ) -> bool;
    /// Inserts a pre-hashed key into generation `newest`; `true` when some generation already
    /// held it.
    fn window_insert_hash(
        self,
        blocks: &mut [[u32; LANES]],
        shape: (usize, usize),
        newest: usize,
        hash: u64,
    ) -> bool;
    /// Writes into `out[i]` whether `keys[i]` may be in the window (equal lengths), hashing and
    /// prefetching `distance` keys ahead (0: none).
    fn window_contains_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &[[u32; LANES]],
        shape: (usize, usize),
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    );
    /// Inserts every key of `keys` into generation `newest`, hashing and prefetching
    /// `distance` keys ahead.
    fn window_insert_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &mut [[u32; LANES]],
        shape: (usize, usize),
        newest: usize,
        hasher: &S,
        keys: &[K],
        distance: usize,
    );

    /// [`window_contains_keys`](WindowEntryPoints::window_contains_keys) for pre-hashed keys.
    #[inline(always)]
    fn window_contains_hashes(
        self,
        blocks: &[[u32; LANES]],
        shape: (usize, usize),
        hashes: &[u64],
        out: &mut [bool],
        distance: usize,
    ) {
        self.window_contains_keys(blocks, shape, &PreHashed, hashes, out, distance);
    }

    /// [`window_insert_keys`](WindowEntryPoints::window_insert_keys) for pre-hashed keys.
    #[inline(always)]
    fn window_insert_hashes(
        self,
        blocks: &mut [[u32; LANES]],
        shape: (usize, usize),
        newest: usize,
        hashes: &[u64],
        distance: usize,
    ) {
        self.window_insert_keys(blocks, shape, newest, &PreHashed, hashes, distance);
    }
}

/// The window's operations, each run inside a kernel's entry point ([`Token::run`]) with
/// the loops of `generic.rs`, so the kernel's block test inlines into the loop over a key's
/// generations.
mod operations {
    use core::hash::{BuildHasher, Hash};

    use super::super::generic::{
        contains_any_hash_with, contains_any_keys_with, insert_newest_hash_with,
        insert_newest_keys_with,
    };
    use super::super::{BlockKernel, Operation, OperationOn};
    use crate::block::LANES;

    /// Whether a pre-hashed key is in any generation.
    pub(crate) struct ContainsHash<'a> {
        pub(crate) blocks: &'a [[u32; LANES]],
        pub(crate) shape: (usize, usize),
        pub(crate) hash: u64,
    }

    impl Operation for ContainsHash<'_> {
        type Output = bool;
    }

    impl<Kn: BlockKernel> OperationOn<Kn> for ContainsHash<'_> {
        #[inline(always)]
        fn run_on(self, kernel: Kn) -> bool {
            contains_any_hash_with(kernel, self.blocks, self.shape, self.hash)
        }
    }

    /// Inserts a pre-hashed key into generation `newest`.
    pub(crate) struct InsertHash<'a> {
        pub(crate) blocks: &'a mut [[u32; LANES]],
        pub(crate) shape: (usize, usize),
        pub(crate) newest: usize,
        pub(crate) hash: u64,
    }

    impl Operation for InsertHash<'_> {
        type Output = bool;
    }

    impl<Kn: BlockKernel> OperationOn<Kn> for InsertHash<'_> {
        #[inline(always)]
        fn run_on(self, kernel: Kn) -> bool {
            insert_newest_hash_with(kernel, self.blocks, self.shape, self.newest, self.hash)
        }
    }

    /// Answers a batch of keys, hashing and prefetching `distance` keys ahead.
    pub(crate) struct ContainsKeys<'a, S, K> {
        pub(crate) blocks: &'a [[u32; LANES]],
        pub(crate) shape: (usize, usize),
        pub(crate) hasher: &'a S,
        pub(crate) keys: &'a [K],
        pub(crate) out: &'a mut [bool],
        pub(crate) distance: usize,
    }

    impl<S, K> Operation for ContainsKeys<'_, S, K> {
        type Output = ();
    }

    impl<Kn: BlockKernel, S: BuildHasher, K: Hash> OperationOn<Kn> for ContainsKeys<'_, S, K> {
        #[inline(always)]
        fn run_on(self, kernel: Kn) {
            let Self {
                blocks,
                shape,
                hasher,
                keys,
                out,
                distance,
            } = self;
            contains_any_keys_with(kernel, blocks, shape, hasher, keys, out, distance);
        }
    }

    /// Inserts a batch of keys into generation `newest`, hashing and prefetching `distance`
    /// keys ahead.
    pub(crate) struct InsertKeys<'a, S, K> {
        pub(crate) blocks: &'a mut [[u32; LANES]],
        pub(crate) shape: (usize, usize),
        pub(crate) newest: usize,
        pub(crate) hasher: &'a S,
        pub(crate) keys: &'a [K],
        pub(crate) distance: usize,
    }

    impl<S, K> Operation for InsertKeys<'_, S, K> {
        type Output = ();
    }

    impl<Kn: BlockKernel, S: BuildHasher, K: Hash> OperationOn<Kn> for InsertKeys<'_, S, K> {
        #[inline(always)]
        fn run_on(self, kernel: Kn) {
            let Self {
                blocks,
                shape,
                newest,
                hasher,
                keys,
                distance,
            } = self;
            insert_newest_keys_with(kernel, blocks, shape, newest, hasher, keys, distance);
        }
    }
}
pub(crate) use operations::{ContainsHash, ContainsKeys, InsertHash, InsertKeys};

#[cfg(test)]
mod tests {
    use super::WindowEntryPoints;
    use crate::arch::Dispatch;
    use crate::block::{self, LANES, block_index};
    use crate::hash::{Xxh3, hash_key};
    use crate::kind::Kernel;

    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// The window's reference, from the split-block reference of `crate::block` alone: a key
    /// is present when any generation of its block index holds every bit.
    fn reference_contains(blocks: &[[u32; LANES]], shape: (usize, usize), hash: u64) -> bool {
        let (num_blocks, generations) = shape;
        let first = block_index(hash, num_blocks) * generations;
        blocks[first..first + generations]
            .iter()
            .any(|block| block::contains(block, hash as u32))
    }

    /// Every available kernel against the reference on every output (single and batch
    /// answers, the answers of inserts and the bits they leave), for window sizes from one
    /// generation to the most, blocks of random density, batches of odd length with and
    /// without prefetching, keys hashed inside the loops. The blocks are sparse and every other
    /// key is planted in one generation chosen at random, so most present keys are present in
    /// exactly one generation and a kernel that skips any one generation fails.
    #[test]
    fn every_kernel_matches_the_reference() {
        let mut state = 0x0fed_cba9_8765_4321_u64;
        let hasher = Xxh3::default();
        for kernel in Kernel::ALL {
            let Some(dispatch) = Dispatch::new(kernel) else {
                continue;
            };
            for generations in [1usize, 2, 3, 4, 5, 8, 17, crate::block::MAX_GENERATIONS] {
                for density in [2u32, 4] {
                    let num_blocks = 37;
                    let shape = (num_blocks, generations);
                    let mut blocks = vec![[0u32; LANES]; num_blocks * generations];
                    for word in blocks.iter_mut().flatten() {
                        for _ in 0..density {
                            *word |= (next(&mut state) & next(&mut state)) as u32;
                        }
                    }
                    let keys: Vec<u64> = (0..1_001).map(|_| next(&mut state)).collect();
                    let hashes: Vec<u64> = keys.iter().map(|k| hash_key(&hasher, k)).collect();
                    // Every other key planted in one generation of its index, chosen at
                    // random: present there and (nearly always) nowhere else.
                    for &hash in hashes.iter().step_by(2) {
                        let first = block_index(hash, num_blocks) * generations;
                        let generation = next(&mut state) as usize % generations;
                        block::insert(&mut blocks[first + generation], hash as u32);
                    }
                    let want: Vec<bool> = hashes
                        .iter()
                        .map(|&hash| reference_contains(&blocks, shape, hash))
                        .collect();
                    assert!(want.iter().any(|&w| w) && want.iter().any(|&w| !w));
                    for (&hash, &want) in hashes.iter().zip(&want) {
                        let got = dispatch.window_contains_hash(&blocks, shape, hash);
                        assert_eq!(got, want, "{kernel} G={generations} single {hash:#x}");
                    }
                    for distance in [0, 8, 128] {
                        let mut out = vec![false; keys.len()];
                        dispatch.window_contains_keys(
                            &blocks, shape, &hasher, &keys, &mut out, distance,
                        );
                        assert_eq!(out, want, "{kernel} G={generations} keys {distance}");
                        let mut out = vec![false; keys.len()];
                        dispatch
                            .window_contains_hashes(&blocks, shape, &hashes, &mut out, distance);
                        assert_eq!(out, want, "{kernel} G={generations} hashes {distance}");
                    }
                    let newest = generations / 2;
                    let mut reference = blocks.clone();
                    let mut single = blocks.clone();
                    for &hash in &hashes {
                        let present = reference_contains(&reference, shape, hash);
                        let first = block_index(hash, num_blocks) * generations;
                        block::insert(&mut reference[first + newest], hash as u32);
                        let got = dispatch.window_insert_hash(&mut single, shape, newest, hash);
                        assert_eq!(got, present, "{kernel} G={generations} insert {hash:#x}");
                    }
                    assert!(single == reference, "{kernel} G={generations} insert bits");
                    for distance in [0, 8, 128] {
                        let mut batch = blocks.clone();
                        dispatch.window_insert_keys(
                            &mut batch, shape, newest, &hasher, &keys, distance,
                        );
                        assert!(batch == reference, "{kernel} G={generations} key inserts");
                        let mut batch = blocks.clone();
                        dispatch.window_insert_hashes(&mut batch, shape, newest, &hashes, distance);
                        assert!(batch == reference, "{kernel} G={generations} hash inserts");
                    }
                }
            }
        }
    }
}
