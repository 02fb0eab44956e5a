//! Every available kernel against the scalar reference, on every output: the primitives on
//! random valid blocks (bounds of every bucket, matches, the bytes every shift leaves), and the
//! operations on random sequences of inserts, copies, removals and lookups, single and batched,
//! up to and past full (answers, and the bytes every write leaves).

use super::*;
use crate::arch::Dispatch;
use crate::arch::PreHashed;
use crate::arch::dispatch::every_kernel;
use crate::kind::Kernel;
use crate::layout::quotient::{
    self as reference, BLOCK_BYTES, EMPTY_BLOCK, Tag8, Tag16, bucket_bounds, is_valid, one_hot,
};

struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: u32) -> u32 {
        (self.next() % u64::from(bound)) as u32
    }
}

/// A random valid block holding `tags` tags in random buckets, with tag values drawn from a
/// few (so that buckets often hold a tag twice) or from all.
fn random_block<W: Width>(random: &mut Random, tags: u32, few: bool) -> Block {
    let mut buckets: Vec<u32> = (0..tags).map(|_| random.below(W::BUCKETS)).collect();
    buckets.sort_unstable();
    let mut block = EMPTY_BLOCK;
    let mut metadata = W::metadata(&block);
    for (slot, &bucket) in buckets.iter().enumerate() {
        // The tag's one goes before its bucket's zero, after the tags before it.
        metadata = metadata.insert_one(slot as u32 + bucket);
        let value = if few {
            random.below(4)
        } else {
            random.next() as u32
        };
        let tag = W::tag(u64::from(value));
        W::set_slot(&mut block, slot as u32, tag);
    }
    W::set_metadata(&mut block, metadata);
    assert!(is_valid::<W>(&block), "{block:?}");
    block
}

fn kernels() -> impl Iterator<Item = (Kernel, Dispatch)> {
    Kernel::ALL
        .into_iter()
        .filter_map(|kernel| Some((kernel, Dispatch::new(kernel)?)))
}

fn primitives_match_the_reference<W: Width>() {
    let mut random = Random(0x5eed_0000 + u64::from(W::TAG_BITS));
    for (name, dispatch) in kernels() {
        for round in 0..400 {
            let tags = match round % 5 {
                0 => 0,
                1 => W::SLOTS,
                2 => W::SLOTS - 1,
                _ => random.below(W::SLOTS + 1),
            };
            let block = random_block::<W>(&mut random, tags, round % 2 == 0);
            let metadata = W::metadata(&block);
            for bucket in 0..W::BUCKETS {
                let got = every_kernel!(dispatch, k => k.bucket_range::<W>(metadata, bucket));
                assert_eq!(
                    got,
                    one_hot(bucket_bounds::<W>(metadata, bucket)),
                    "{name} bounds {bucket}"
                );
            }
            for value in [0, 1, 2, 3, random.next()] {
                let tag = W::tag(value);
                let got = every_kernel!(dispatch, k => k.tag_matches::<W>(&block, tag));
                assert_eq!(
                    got,
                    reference::tag_matches::<W>(&block, tag),
                    "{name} matches"
                );
            }
            for slot in 0..W::SLOTS + 2 {
                let tag = W::tag(random.next());
                let (mut got, mut want) = (block, block);
                every_kernel!(dispatch, k => k.shift_in::<W>(&mut got, slot, tag));
                reference::shift_in::<W>(&mut want, slot, tag);
                assert_eq!(got, want, "{name} shift_in {slot}");
                let (mut got, mut want) = (block, block);
                every_kernel!(dispatch, k => k.shift_out::<W>(&mut got, slot));
                reference::shift_out::<W>(&mut want, slot);
                assert_eq!(got, want, "{name} shift_out {slot}");
            }
        }
    }
}

#[test]
fn every_kernel_primitive_matches_the_reference() {
    primitives_match_the_reference::<Tag8>();
    primitives_match_the_reference::<Tag16>();
}

/// One run of random operations on `num_blocks` blocks, on `dispatch` and on the scalar kernel
/// side by side: every answer and, after every write, every byte must agree; every block stays
/// valid.
fn operations_match_the_scalar_kernel<W: BatchWidth>(
    dispatch: Dispatch,
    num_blocks: usize,
    seed: u64,
) {
    let scalar = Dispatch::new(Kernel::Scalar).unwrap();
    let mut random = Random(seed);
    let mut blocks = vec![EMPTY_BLOCK; num_blocks];
    let mut oracle = blocks.clone();
    let capacity = num_blocks * W::SLOTS as usize;
    // Hashes drawn from a pool, so that the same key comes back for lookups, copies and
    // removals; the pool is larger than the filter, so it fills up and runs out of room.
    let pool: Vec<u64> = (0..capacity * 2).map(|_| random.next()).collect();
    let width = PhantomData::<W>;
    let mut full = 0;
    for step in 0..capacity * 12 {
        let hash = pool[random.below(pool.len() as u32) as usize];
        let name = dispatch.kernel();
        match random.below(10) {
            0..=3 => {
                let copy = random.below(2) == 0;
                let got = dispatch.run(Insert {
                    blocks: &mut blocks,
                    hash,
                    copy,
                    width,
                });
                let want = scalar.run(Insert {
                    blocks: &mut oracle,
                    hash,
                    copy,
                    width,
                });
                assert_eq!(got, want, "{name} insert, step {step}");
                full += usize::from(want.is_err());
            }
            4..=5 => {
                let got = dispatch.run(Remove {
                    blocks: &mut blocks,
                    hash,
                    width,
                });
                let want = scalar.run(Remove {
                    blocks: &mut oracle,
                    hash,
                    width,
                });
                assert_eq!(got, want, "{name} remove, step {step}");
            }
            6..=7 => {
                let got = dispatch.run(Contains {
                    blocks: &blocks,
                    hash,
                    width,
                });
                let want = scalar.run(Contains {
                    blocks: &oracle,
                    hash,
                    width,
                });
                assert_eq!(got, want, "{name} contains, step {step}");
                let got = dispatch.run(Count {
                    blocks: &blocks,
                    hash,
                    width,
                });
                let want = scalar.run(Count {
                    blocks: &oracle,
                    hash,
                    width,
                });
                assert_eq!(got, want, "{name} count, step {step}");
            }
            _ => {
                let first = random.below(pool.len() as u32 - 40) as usize;
                let keys = &pool[first..first + random.below(40) as usize];
                let distance = [0, 4, 32][random.below(3) as usize];
                let hasher = &PreHashed;
                let mut got = vec![false; keys.len()];
                let out = &mut got;
                dispatch.run(ContainsKeys {
                    blocks: &blocks,
                    hasher,
                    keys,
                    out,
                    distance,
                    width,
                });
                let want: Vec<bool> = keys
                    .iter()
                    .map(|&hash| {
                        scalar.run(Contains {
                            blocks: &oracle,
                            hash,
                            width,
                        })
                    })
                    .collect();
                assert_eq!(got, want, "{name} contains batch, step {step}");
                if random.below(3) == 0 {
                    let got = dispatch.run(RemoveKeys {
                        blocks: &mut blocks,
                        hasher,
                        keys,
                        distance,
                        width,
                    });
                    let want = keys
                        .iter()
                        .filter(|&&hash| {
                            scalar.run(Remove {
                                blocks: &mut oracle,
                                hash,
                                width,
                            })
                        })
                        .count();
                    assert_eq!(got, want, "{name} remove batch, step {step}");
                } else {
                    let copy = random.below(2) == 0;
                    let got = dispatch.run(InsertKeys {
                        blocks: &mut blocks,
                        hasher,
                        keys,
                        copy,
                        distance,
                        width,
                    });
                    // The batch's contract: the keys one at a time, up to the first that does
                    // not fit.
                    let mut want = Inserted {
                        added: 0,
                        full_at: None,
                    };
                    for (index, &hash) in keys.iter().enumerate() {
                        match scalar.run(Insert {
                            blocks: &mut oracle,
                            hash,
                            copy,
                            width,
                        }) {
                            Ok(new) => want.added += usize::from(new),
                            Err(()) => {
                                want.full_at = Some(index);
                                break;
                            }
                        }
                    }
                    assert_eq!(got, want, "{name} insert batch, step {step}");
                    full += usize::from(want.full_at.is_some());
                }
            }
        }
        assert!(blocks == oracle, "{name} bytes after step {step}");
    }
    assert!(blocks.iter().all(is_valid::<W>));
    // The pool is twice the capacity: the runs reach full and must see it.
    assert!(
        full > 0,
        "{} never full on {num_blocks} blocks",
        dispatch.kernel()
    );
}

#[test]
fn every_kernel_operation_matches_the_scalar_kernel() {
    for (_, dispatch) in kernels() {
        for (num_blocks, seed) in [(1, 1), (2, 2), (3, 3), (64, 4)] {
            operations_match_the_scalar_kernel::<Tag8>(dispatch, num_blocks, seed);
            operations_match_the_scalar_kernel::<Tag16>(dispatch, num_blocks, seed + 100);
        }
    }
}

#[test]
fn a_full_block_pair_makes_room_by_moving_a_tag() {
    // Two blocks: every key has both; fill them, then one more key must fail and change
    // nothing, unless a tag can move (it cannot: both blocks are all there is).
    let scalar = Dispatch::new(Kernel::Scalar).unwrap();
    let mut blocks = vec![EMPTY_BLOCK; 2];
    let width = PhantomData::<Tag16>;
    let mut hash = 0u64;
    let mut inserted = 0;
    while inserted < 2 * Tag16::SLOTS {
        hash = hash.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let copy = true;
        assert_eq!(
            scalar.run(Insert {
                blocks: &mut blocks,
                hash,
                copy,
                width
            }),
            Ok(true)
        );
        inserted += 1;
    }
    let before = blocks.clone();
    let copy = true;
    assert_eq!(
        scalar.run(Insert {
            blocks: &mut blocks,
            hash: !hash,
            copy,
            width
        }),
        Err(())
    );
    assert!(blocks == before);
    let _ = BLOCK_BYTES;
}
