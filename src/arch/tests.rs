//! Every kernel against each layout's scalar reference, on every output: the answers of single
//! and batch lookups, the answers of inserts and the bits they leave. (The split-block
//! layout's are in `tests/suite/kernels.rs`, through `splitbloom::__kernel_testing`.)

use super::{BloomLayout, Dispatch, PreHashed};
use crate::hash::{Xxh3, hash_key};
use crate::kind::Kernel;
use crate::layout::Policy;
use crate::layout::split_block::{BlockAndKey, block_index};
use crate::layout::wide::{self, WORDS, Wide};
use crate::layout::window::{self, Fixed, Generations, Plane, with_shape};

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// The window layout of `num_blocks` block indices of `generations` planes of `plane`, with
/// inserts into slot `newest`.
fn window(num_blocks: usize, generations: usize, plane: Plane, newest: usize) -> Generations {
    Generations {
        num_blocks,
        generations,
        plane,
        newest,
    }
}

#[test]
fn every_kernel_matches_the_wide_reference() {
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
                    let layout = Wide::with_probes(probes).unwrap();
                    dispatch
                        .contains_keys(layout, &blocks, &PreHashed, &hashes, &mut out, distance);
                    for (&hash, &answer) in hashes.iter().zip(&out) {
                        let want = wide::contains(&blocks, probes, hash);
                        assert_eq!(answer, want, "{kernel} batch {probes} {hash:#x}");
                        let single = dispatch.contains_hash(layout, &blocks, hash);
                        assert_eq!(single, want, "{kernel} single {probes} {hash:#x}");
                    }
                    // Keys hashed inside the loop, an odd count so the ring's tail is
                    // partial.
                    let keys = &hashes[..1_999];
                    let hasher = Xxh3::default();
                    let out = &mut out[..keys.len()];
                    dispatch.contains_keys(layout, &blocks, &hasher, keys, out, distance);
                    for (key, &answer) in keys.iter().zip(out.iter()) {
                        let hash = crate::hash::hash_key(&hasher, key);
                        let want = wide::contains(&blocks, probes, hash);
                        assert_eq!(answer, want, "{kernel} keys {probes} {distance} {key:#x}");
                    }
                }
                let layout = Wide::with_probes(probes).unwrap();
                let mut reference = blocks.clone();
                let mut single = blocks.clone();
                let mut batch = blocks.clone();
                for &hash in &hashes {
                    let want = wide::insert(&mut reference, probes, hash);
                    let got = dispatch.insert_hash(layout, &mut single, hash);
                    assert_eq!(got, want, "{kernel} insert {probes} {hash:#x}");
                }
                dispatch.insert_keys(layout, &mut batch, &PreHashed, &hashes, 8);
                assert!(single == reference, "{kernel} insert bits {probes}");
                assert!(batch == reference, "{kernel} batch insert bits {probes}");
                let hasher = Xxh3::default();
                for distance in [0, 8, 128] {
                    let mut reference = blocks.clone();
                    for key in &hashes[..1_999] {
                        let hash = crate::hash::hash_key(&hasher, key);
                        wide::insert(&mut reference, probes, hash);
                    }
                    let mut batch = blocks.clone();
                    let keys = &hashes[..1_999];
                    dispatch.insert_keys(layout, &mut batch, &hasher, keys, distance);
                    assert!(
                        batch == reference,
                        "{kernel} key inserts {probes} {distance}"
                    );
                }
            }
        }
    }
}

/// The window's reference, from the plane references of `crate::layout::window`: a key is
/// present when any generation of its block index holds every bit.
fn reference_contains(words: &[u32], layout: Generations, hash: u64) -> bool {
    let group = &words[layout.group(block_index(hash, layout.num_blocks))];
    window::contains_any(group, layout.plane, hash as u32)
}

/// Every available kernel against the reference on every output (single and batch
/// answers, the answers of inserts and the bits they leave), for both plane sizes and window
/// sizes from one generation to the most (groups within a line, across lines, and of an odd
/// number of 128-bit planes, whose last plane is half a vector), planes of random density,
/// batches of odd length with and without prefetching, keys hashed inside the loops. Each
/// window runs both as values ([`Generations`]) and as the [`Shape`] the filters run it with,
/// so every shape with constants is checked against the general path's reference. The planes
/// are sparse and every other key is planted in one generation chosen at random, so most
/// present keys are present in exactly one generation and a kernel that skips any one
/// generation fails.
#[test]
fn every_kernel_matches_the_window_reference() {
    let mut state = 0x0fed_cba9_8765_4321_u64;
    let hasher = Xxh3::default();
    for kernel in Kernel::ALL {
        let Some(dispatch) = Dispatch::new(kernel) else {
            continue;
        };
        for plane in [Plane::Bits128, Plane::Bits256] {
            for generations in [1usize, 2, 3, 4, 5, 8, 17, window::MAX_GENERATIONS] {
                let layout = window(37, generations, plane, 0);
                let mut words = vec![0u32; layout.total_words().unwrap()];
                for word in &mut words {
                    for _ in 0..2 {
                        *word |= (next(&mut state) & next(&mut state) & next(&mut state)) as u32;
                    }
                }
                let keys: Vec<u64> = (0..1_001).map(|_| next(&mut state)).collect();
                let hashes: Vec<u64> = keys.iter().map(|k| hash_key(&hasher, k)).collect();
                // Every other key planted in one generation of its index, chosen at
                // random: present there and (nearly always) nowhere else.
                for &hash in hashes.iter().step_by(2) {
                    let group = layout.group(block_index(hash, layout.num_blocks));
                    let slot = next(&mut state) as usize % generations;
                    window::insert(&mut words[group], plane, slot, hash as u32);
                }
                let case = Case {
                    name: format!("{kernel} {plane:?} G={generations}"),
                    dispatch,
                    words,
                    keys,
                    hashes,
                };
                let newest = generations / 2;
                case.check(layout, newest);
                with_shape!(layout, shape => case.check(shape, newest));
            }
        }
    }
}

/// One window's words and keys, checked on one kernel.
struct Case {
    name: String,
    dispatch: Dispatch,
    words: Vec<u32>,
    keys: Vec<u64>,
    hashes: Vec<u64>,
}

impl Case {
    /// Checks the window `read` on every output: its reads, and its inserts into slot
    /// `newest`.
    fn check<P>(&self, read: P, newest: usize)
    where
        P: BloomLayout + Policy<Block = u32, Location = BlockAndKey> + Reference,
    {
        let Case {
            name: case,
            dispatch,
            words,
            keys,
            hashes,
        } = self;
        let written = read.with_newest(newest);
        let (reference, generations) = (read.reference(), written.reference());
        let hasher = Xxh3::default();
        let want: Vec<bool> = hashes
            .iter()
            .map(|&hash| reference_contains(words, reference, hash))
            .collect();
        assert!(want.iter().any(|&w| w) && want.iter().any(|&w| !w));
        // The filters' single-key path, on the words and on them with a unit's padding after.
        let mut padded = words.clone();
        padded.extend([0; 16]);
        for (&hash, &want) in hashes.iter().zip(&want) {
            let got = dispatch.contains_hash(read, words, hash);
            assert_eq!(got, want, "{case} single {hash:#x}");
            let got = dispatch.window_contains_hash(reference, words, hash);
            assert_eq!(got, want, "{case} window single {hash:#x}");
            let got = dispatch.window_contains_hash(reference, &padded, hash);
            assert_eq!(got, want, "{case} window single, padded {hash:#x}");
        }
        for distance in [0, 8, 128] {
            let mut out = vec![false; keys.len()];
            dispatch.contains_keys(read, words, &hasher, keys, &mut out, distance);
            assert_eq!(out, want, "{case} keys {distance}");
            let mut out = vec![false; keys.len()];
            dispatch.contains_keys(read, words, &PreHashed, hashes, &mut out, distance);
            assert_eq!(out, want, "{case} hashes {distance}");
        }
        for (&hash, &want) in hashes.iter().zip(&want).take(200) {
            let group = &words[reference.group(block_index(hash, reference.num_blocks))];
            let got = dispatch.window_contains_any(group, reference.plane, hash as u32);
            assert_eq!(got, want, "{case} group {hash:#x}");
        }
        let (plane, newest) = (generations.plane, generations.newest);
        let mut reference = words.clone();
        let mut single = words.clone();
        for &hash in hashes {
            let group = generations.group(block_index(hash, generations.num_blocks));
            let present = window::insert(&mut reference[group], plane, newest, hash as u32);
            let got = dispatch.insert_hash(written, &mut single, hash);
            assert_eq!(got, present, "{case} insert {hash:#x}");
        }
        assert!(single == reference, "{case} insert bits");
        for distance in [0, 8, 128] {
            let mut batch = words.clone();
            dispatch.insert_keys(written, &mut batch, &hasher, keys, distance);
            assert!(batch == reference, "{case} key inserts");
            let mut batch = words.clone();
            dispatch.insert_keys(written, &mut batch, &PreHashed, hashes, distance);
            assert!(batch == reference, "{case} hash inserts");
        }
    }
}

/// A window layout's shape as values: the reference's view of it.
trait Reference {
    fn reference(self) -> Generations;
    fn with_newest(self, newest: usize) -> Self;
}

impl Reference for Generations {
    fn reference(self) -> Generations {
        self
    }

    fn with_newest(self, newest: usize) -> Self {
        Generations { newest, ..self }
    }
}

impl<const PLANE_WORDS: usize, const G: usize> Reference for Fixed<PLANE_WORDS, G> {
    fn reference(self) -> Generations {
        self.generations()
    }

    fn with_newest(self, newest: usize) -> Self {
        Fixed { newest, ..self }
    }
}
