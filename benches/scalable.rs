//! `ScalableFilter` grown from a first stage of 10^4 keys to 10^6 keys at 1% (7 stages): the
//! whole build key at a time (`insert_hash`), through the batch path (`insert_hash_batch`) and
//! through the batch path that answers each key (`insert_hash_batch_answers`, what a Redis
//! `BF.MADD` needs); then lookups of 10^6 keys, half present, key at a time and batched.
//!
//! `cargo bench -p splitbloom-bench --bench scalable`
//!
//! Every build starts from an empty filter, so each iteration adds the same stages; the keys
//! are random 64-bit hashes, a tenth of them repeated within the batch.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use splitbloom::ScalableFilter;

const INITIAL: usize = 10_000;
const KEYS: usize = 1_000_000;

fn keys() -> Vec<u64> {
    let mut rng = StdRng::seed_from_u64(43);
    let mut keys: Vec<u64> = (0..KEYS).map(|_| rng.random()).collect();
    for index in (10..KEYS).step_by(10) {
        keys[index] = keys[rng.random_range(0..index)];
    }
    keys
}

fn empty() -> ScalableFilter {
    ScalableFilter::with_fpr(INITIAL, 0.01).unwrap()
}

fn scalable_inserts(c: &mut Criterion) {
    let keys = keys();
    let mut group = c.benchmark_group("scalable/insert 1e6 from 1e4");
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(20);
    group.bench_function("insert_hash", |b| {
        b.iter_batched_ref(
            empty,
            |filter| {
                for &key in &keys {
                    black_box(filter.insert_hash(key).unwrap());
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("insert_hash_batch", |b| {
        b.iter_batched_ref(
            empty,
            |filter| filter.insert_hash_batch(&keys).unwrap(),
            BatchSize::LargeInput,
        )
    });
    let mut answers = vec![false; KEYS];
    group.bench_function("insert_hash_batch_answers", |b| {
        b.iter_batched_ref(
            empty,
            |filter| {
                filter
                    .insert_hash_batch_answers(&keys, &mut answers)
                    .unwrap();
                black_box(&answers);
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn scalable_lookups(c: &mut Criterion) {
    let keys = keys();
    let mut filter = empty();
    filter.insert_hash_batch(&keys).unwrap();
    let mut rng = StdRng::seed_from_u64(44);
    let probes: Vec<u64> = (0..KEYS)
        .map(|index| {
            if index % 2 == 0 {
                keys[rng.random_range(0..KEYS)]
            } else {
                rng.random()
            }
        })
        .collect();
    println!(
        "{} stages, {} bytes, {} keys",
        filter.num_stages(),
        filter.size_in_bytes(),
        filter.len()
    );
    let mut group = c.benchmark_group(format!(
        "scalable/lookup 1e6 in {} stages",
        filter.num_stages()
    ));
    group.throughput(Throughput::Elements(KEYS as u64));
    group.bench_function("contains_hash", |b| {
        b.iter(|| {
            probes
                .iter()
                .filter(|&&key| filter.contains_hash(key))
                .count()
        })
    });
    let mut out = vec![false; KEYS];
    group.bench_function("contains_hash_batch", |b| {
        b.iter(|| {
            filter.contains_hash_batch(&probes, &mut out);
            black_box(&out);
        })
    });
    group.finish();
}

criterion_group!(benches, scalable_inserts, scalable_lookups);
criterion_main!(benches);
