//! Insert throughput of `AtomicFilter` with one and two threads, next to the plain `Filter`.
//!
//! `cargo bench --bench atomic`
//!
//! Each sample inserts the same 10^6 random `u64` keys (hashing included) into a fresh filter
//! sized for them at 1%; with two threads each inserts every other key. Building the empty filter
//! is outside the timed part. Throughput is keys per second over the whole build.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use splitbloom::{AtomicFilter, Filter};

const KEYS: usize = 1_000_000;

/// Inserts `keys` into `filter` from `threads` threads, each taking every `threads`-th key.
fn build(filter: &AtomicFilter, keys: &[u64], threads: usize) {
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

fn insert_throughput(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7);
    let keys: Vec<u64> = (0..KEYS).map(|_| rng.random()).collect();

    // Verify once, outside the timed loop: both thread counts build the sequential filter.
    let mut expected = Filter::with_fpr(KEYS as u64, 0.01).unwrap();
    for key in &keys {
        expected.insert(key);
    }
    for threads in [1, 2] {
        let filter = AtomicFilter::with_fpr(KEYS as u64, 0.01).unwrap();
        build(&filter, &keys, threads);
        assert!(filter.into_filter() == expected, "{threads} threads");
    }

    let mut group = c.benchmark_group("insert 10^6 keys");
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(30);
    group.bench_function("Filter, 1 thread", |b| {
        b.iter_batched_ref(
            || Filter::with_fpr(KEYS as u64, 0.01).unwrap(),
            |filter| {
                for key in &keys {
                    filter.insert(key);
                }
                black_box(filter.as_words()[0]);
            },
            BatchSize::LargeInput,
        )
    });
    for threads in [1, 2] {
        group.bench_function(format!("AtomicFilter, {threads} thread(s)"), |b| {
            b.iter_batched_ref(
                || AtomicFilter::with_fpr(KEYS as u64, 0.01).unwrap(),
                |filter| {
                    build(filter, &keys, threads);
                    black_box(filter.num_blocks());
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, insert_throughput);
criterion_main!(benches);
