//! Insert throughput of `AtomicFilter` with one and two threads, next to the plain `Filter`
//! (one thread, and one private filter per thread merged with `union`).
//!
//! `cargo bench -p splitbloom-bench --bench atomic`
//!
//! Each sample inserts the same 10^6 random `u64` keys (hashing included) into a fresh filter
//! sized for them at 1% (1.3 MB); with two threads each inserts every other key. Building the
//! empty filter is outside the timed part. Throughput is keys per second over the whole build.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use splitbloom::{AtomicFilter, Filter};

const KEYS: usize = 1_000_000;

/// Inserts `keys` into `filter` from `threads` threads, each taking every `threads`-th key.
fn build_atomic(filter: &AtomicFilter, keys: &[u64], threads: usize) {
    if threads == 1 {
        for key in keys {
            filter.insert(key);
        }
        return;
    }
    std::thread::scope(|scope| {
        for thread in 0..threads {
            scope.spawn(move || {
                for key in keys.iter().skip(thread).step_by(threads) {
                    filter.insert(key);
                }
            });
        }
    });
}

/// Inserts every `step`-th key of `keys`, from `first`, into `filter`.
fn fill(filter: &mut Filter, keys: &[u64], first: usize, step: usize) {
    for key in keys.iter().skip(first).step_by(step) {
        filter.insert(key);
    }
}

/// Two threads fill a private filter each; the union is the filter of all keys.
fn build_union(mut left: Filter, mut right: Filter, keys: &[u64]) -> Filter {
    std::thread::scope(|scope| {
        scope.spawn(|| fill(&mut right, keys, 1, 2));
        fill(&mut left, keys, 0, 2);
    });
    left.union(&right).unwrap();
    left
}

fn empty() -> Filter {
    Filter::with_fpr(KEYS, 0.01).unwrap()
}

fn insert_throughput(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7);
    let keys: Vec<u64> = (0..KEYS).map(|_| rng.random()).collect();

    // Verify once, outside the timed loop: every way of building gives the sequential filter.
    let mut expected = empty();
    fill(&mut expected, &keys, 0, 1);
    for threads in [1, 2] {
        let filter = empty().into_atomic();
        build_atomic(&filter, &keys, threads);
        assert!(filter.into_filter() == expected, "{threads} threads");
    }
    assert!(build_union(empty(), empty(), &keys) == expected);

    let mut group = c.benchmark_group("insert 10^6 keys");
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(30);
    group.bench_function("Filter, 1 thread", |b| {
        b.iter_batched_ref(
            empty,
            |filter| {
                fill(filter, &keys, 0, 1);
                black_box(filter.as_words()[0]);
            },
            BatchSize::LargeInput,
        )
    });
    for threads in [1, 2] {
        group.bench_function(format!("AtomicFilter, {threads} thread(s)"), |b| {
            b.iter_batched_ref(
                || empty().into_atomic(),
                |filter| {
                    build_atomic(filter, &keys, threads);
                    black_box(filter.num_blocks());
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.bench_function("Filter per thread + union, 2 threads", |b| {
        b.iter_batched(
            || (empty(), empty()),
            |(left, right)| build_union(left, right, &keys),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, insert_throughput);
criterion_main!(benches);
