//! AtomicFilter: concurrent builds equal sequential ones, and readers racing writers never miss
//! a key whose insert completed.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use rand::RngExt;
use splitbloom::{AtomicFilter, Filter, Kernel};

const KEYS: usize = 1_000_000;

/// A sequential build with the scalar reference kernel.
fn sequential(keys: &[u64], blocks: usize) -> Filter {
    let mut filter = Filter::with_num_blocks(blocks)
        .unwrap()
        .with_kernel(Kernel::Scalar)
        .unwrap();
    for key in keys {
        filter.insert(key);
    }
    filter
}

#[test]
fn four_threads_build_the_sequential_filter_bit_for_bit() {
    let (keys, _) = common::members_and_strangers(1, KEYS, 0);
    let blocks = Filter::with_fpr(KEYS, 0.01).unwrap().num_blocks();
    let expected = sequential(&keys, blocks);
    for kernel in Kernel::available() {
        let filter = Filter::with_num_blocks(blocks)
            .unwrap()
            .with_kernel(kernel)
            .unwrap()
            .into_atomic();
        std::thread::scope(|scope| {
            // Interleaved shares, so the threads hit the same blocks and words all the time.
            for thread in 0..4 {
                let (filter, keys) = (&filter, &keys);
                scope.spawn(move || {
                    for key in keys.iter().skip(thread).step_by(4) {
                        filter.insert(key);
                    }
                });
            }
        });
        let built = filter.into_filter();
        assert!(built == expected, "kernel {kernel}: bits differ");
    }
}

#[test]
fn small_filter_under_heavy_contention_loses_no_bit() {
    // 256 blocks (8 KiB, in L1) written by four threads released together, many times over: a
    // lost update (a plain load-OR-store instead of an atomic OR) shows up as missing bits.
    let (keys, _) = common::members_and_strangers(2, 10_000, 0);
    let mut expected = Filter::with_num_blocks(256).unwrap();
    expected.insert_hash_batch(&keys);
    for round in 0..50 {
        let filter = AtomicFilter::with_num_blocks(256).unwrap();
        let start = Barrier::new(4);
        std::thread::scope(|scope| {
            for share in keys.chunks(2_500) {
                let (filter, start) = (&filter, &start);
                scope.spawn(move || {
                    start.wait();
                    filter.insert_hash_batch(share);
                });
            }
        });
        assert!(filter.into_filter() == expected, "round {round}");
    }
}

#[test]
fn single_thread_answers_match_filter() {
    let (keys, strangers) = common::members_and_strangers(3, 20_000, 20_000);
    for kernel in Kernel::available() {
        let mut plain = Filter::with_num_blocks(500)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        let atomic = Filter::with_num_blocks(500)
            .unwrap()
            .with_kernel(kernel)
            .unwrap()
            .into_atomic();
        for key in &keys {
            assert_eq!(
                atomic.insert(key),
                plain.insert(key),
                "{kernel} insert {key}"
            );
        }
        for key in keys.iter().chain(&strangers) {
            assert_eq!(atomic.contains(key), plain.contains(key), "{kernel} {key}");
        }
        let mut out = vec![false; strangers.len()];
        atomic.contains_hash_batch(&strangers, &mut out);
        let mut expected = vec![false; strangers.len()];
        plain.contains_hash_batch(&strangers, &mut expected);
        assert_eq!(out, expected);
        assert!(
            expected.iter().any(|&hit| hit),
            "some hashes must be false positives"
        );
        assert!(atomic.snapshot() == plain);
        assert!(atomic.into_filter() == plain);
    }
}

#[test]
fn readers_racing_writers_see_every_completed_insert() {
    const WRITERS: usize = 2;
    const PER_WRITER: usize = 200_000;
    let (keys, _) = common::members_and_strangers(4, WRITERS * PER_WRITER, 0);
    // Sized for a tenth of the keys, so the filter is crowded and lanes are shared heavily.
    let filter = AtomicFilter::with_fpr(keys.len() / 10, 0.01).unwrap();
    // How many keys of its share each writer has finished inserting (published with Release).
    let progress: Vec<AtomicUsize> = (0..WRITERS).map(|_| AtomicUsize::new(0)).collect();
    let done = AtomicBool::new(false);
    let checked = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for reader in 0..2u64 {
            let (filter, keys, progress, done, checked) =
                (&filter, &keys, &progress, &done, &checked);
            scope.spawn(move || {
                let mut rng = common::rng(100 + reader);
                while !done.load(Ordering::Acquire) {
                    for (writer, finished) in progress.iter().enumerate() {
                        // Acquire pairs with the writer's Release: the inserts of keys below
                        // `finished` happened before this point.
                        let finished = finished.load(Ordering::Acquire);
                        if finished == 0 {
                            continue;
                        }
                        let share = &keys[writer * PER_WRITER..][..PER_WRITER];
                        // The most recently completed key and a random earlier one.
                        for key in [share[finished - 1], share[rng.random_range(0..finished)]] {
                            assert!(filter.contains(&key), "false negative for {key}");
                            checked.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
        let writers: Vec<_> = (0..WRITERS)
            .map(|writer| {
                let (filter, keys, progress, checked) = (&filter, &keys, &progress, &checked);
                scope.spawn(move || {
                    let share = &keys[writer * PER_WRITER..][..PER_WRITER];
                    for (index, key) in share.iter().enumerate() {
                        filter.insert(key);
                        progress[writer].store(index + 1, Ordering::Release);
                        if index % 1000 == 999 {
                            // On a loaded machine the readers might otherwise not run until the
                            // writers are done: give them a (bounded) chance to check.
                            let seen = checked.load(Ordering::Relaxed);
                            for _ in 0..1000 {
                                if checked.load(Ordering::Relaxed) > seen {
                                    break;
                                }
                                std::thread::yield_now();
                            }
                        }
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        done.store(true, Ordering::Release);
    });
    assert!(keys.iter().all(|key| filter.contains(key)));
    let checked = checked.load(Ordering::Relaxed);
    assert!(
        checked > 1000,
        "the readers must have run alongside the writers: {checked}"
    );
}

#[test]
fn shared_behind_an_arc_with_spawned_threads() {
    let filter = Arc::new(AtomicFilter::with_fpr(10_000, 0.01).unwrap());
    let handles: Vec<_> = (0..2u64)
        .map(|thread| {
            let filter = Arc::clone(&filter);
            std::thread::spawn(move || {
                for key in (thread * 5_000)..((thread + 1) * 5_000) {
                    filter.insert(&key);
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let filter = Arc::try_unwrap(filter).unwrap().into_filter();
    assert!((0..10_000u64).all(|key| filter.contains(&key)));
    let mut expected = Filter::with_fpr(10_000, 0.01).unwrap();
    for key in 0..10_000u64 {
        expected.insert(&key);
    }
    assert!(filter == expected);
}

#[test]
fn snapshot_while_writers_continue_holds_earlier_keys() {
    let (keys, _) = common::members_and_strangers(5, 100_000, 0);
    let (early, late) = keys.split_at(50_000);
    let filter = AtomicFilter::with_fpr(100_000, 0.01).unwrap();
    filter.insert_hash_batch(early);
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| filter.insert_hash_batch(late));
        let snapshot = filter.snapshot();
        assert!(early.iter().all(|&hash| snapshot.contains_hash(hash)));
        writer.join().unwrap();
    });
    let snapshot = filter.snapshot();
    assert!(keys.iter().all(|&hash| snapshot.contains_hash(hash)));
    assert!(snapshot == filter.into_filter());
}

#[test]
fn conversions_round_trip_without_changing_bits() {
    let mut filter = Filter::with_num_blocks(33).unwrap();
    for key in 0..500u64 {
        filter.insert(&key);
    }
    let copy = filter.clone();
    let atomic: AtomicFilter = filter.into();
    assert_eq!(atomic.num_blocks(), 33);
    assert_eq!(atomic.size_in_bytes(), 33 * 32);
    assert_eq!(atomic.kernel(), copy.kernel());
    let back: Filter = atomic.into();
    assert!(back == copy);
}
