//! `WindowFilter` against `Filter` at the same total keys: single and batched lookups, the cost
//! of one rotation, and the work of one period against the double-buffered rebuild (a new
//! `Filter` built from the window's keys every period, swapped in beside the old one).
//!
//! `cargo bench -p splitbloom-bench --bench window`
//!
//! `window vs Filter`: windows of G = 2, 4 and 8 generations of 2·10^5 keys each at 1%, and
//! G = 4 at 0.1%, each against a `Filter` holding the same G·2·10^5 keys at the same rate;
//! lookups of 10^6 keys, half of them present, one at a time and as one batch, and a period's
//! work (a rotation, then one generation's keys inserted as a batch). The rest: G = 3
//! generations of 10^6 keys each at 1% over the window, against the `Filter` of the same 3·10^6
//! keys. Rotation clears one generation of the window (a third of its bits). The FPR of
//! forgotten and absent keys is printed once, outside the timed loops.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use splitbloom::{Filter, WindowFilter};

const PER_GENERATION: usize = 1_000_000;
const GENERATIONS: usize = 3;

/// Lookups in a window of `generations` × 2·10^5 keys at `fpr` against a `Filter` of the same
/// keys at the same rate, for the ratio of their times in one run.
fn window_against_filter(c: &mut Criterion) {
    const PER: usize = 200_000;
    for (generations, fpr) in [(2, 0.01), (4, 0.01), (4, 0.001), (8, 0.01)] {
        let mut rng = StdRng::seed_from_u64(40 + generations as u64);
        let keys: Vec<Vec<u64>> = (0..generations)
            .map(|_| (0..PER).map(|_| rng.random()).collect())
            .collect();
        let mut window = WindowFilter::with_fpr(PER, fpr, generations).unwrap();
        let mut filter = Filter::with_fpr(PER * generations, fpr).unwrap();
        for (index, generation) in keys.iter().enumerate() {
            if index > 0 {
                window.rotate();
            }
            window.insert_batch(generation);
            filter.insert_batch(generation);
        }
        let absent: Vec<u64> = (0..1_000_000).map(|_| rng.random()).collect();
        let probes: Vec<u64> = (0..1_000_000)
            .map(|index| {
                if index % 2 == 0 {
                    keys[index % generations][(index / 2) % PER]
                } else {
                    absent[index]
                }
            })
            .collect();
        for generation in &keys {
            assert_eq!(window.count_contained(generation), PER);
            assert_eq!(filter.count_contained(generation), PER);
        }
        let rate = |count: usize| 100.0 * count as f64 / absent.len() as f64;
        println!(
            "G = {generations}, {fpr}: window {} bytes ({}-bit planes), Filter {} bytes; \
             FPR of absent keys: window {:.3}%, Filter {:.3}%",
            window.size_in_bytes(),
            window.plane_bits(),
            filter.size_in_bytes(),
            rate(window.count_contained(&absent)),
            rate(filter.count_contained(&absent)),
        );
        let mut group = c.benchmark_group(format!("window vs Filter/G = {generations}, {fpr}"));
        group.throughput(Throughput::Elements(probes.len() as u64));
        group.sample_size(20);
        group.bench_function("Filter contains", |b| {
            b.iter(|| probes.iter().filter(|key| filter.contains(*key)).count())
        });
        group.bench_function("WindowFilter contains", |b| {
            b.iter(|| probes.iter().filter(|key| window.contains(*key)).count())
        });
        group.bench_function("Filter count_contained", |b| {
            b.iter(|| filter.count_contained(black_box(&probes)))
        });
        group.bench_function("WindowFilter count_contained", |b| {
            b.iter(|| window.count_contained(black_box(&probes)))
        });
        group.finish();
        // A period's work: forget the oldest generation, insert the next one's keys.
        let mut group = c.benchmark_group(format!("window period/G = {generations}, {fpr}"));
        group.throughput(Throughput::Elements(PER as u64));
        group.sample_size(20);
        group.bench_function("WindowFilter rotate, insert_batch", |b| {
            b.iter_batched_ref(
                || window.clone(),
                |window| {
                    window.rotate();
                    window.insert_batch(black_box(&keys[0]));
                    black_box(window.rotations())
                },
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

fn window_lookups(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(34);
    // Generation 0 is forgotten; generations 1 to 3 are the window.
    let generations: Vec<Vec<u64>> = (0..=GENERATIONS)
        .map(|_| (0..PER_GENERATION).map(|_| rng.random()).collect())
        .collect();
    let mut window = WindowFilter::with_fpr(PER_GENERATION, 0.01, GENERATIONS).unwrap();
    for (index, keys) in generations.iter().enumerate() {
        if index > 0 {
            window.rotate();
        }
        window.insert_batch(keys);
    }
    let mut filter = Filter::with_fpr(PER_GENERATION * GENERATIONS, 0.01).unwrap();
    for keys in &generations[1..] {
        filter.insert_batch(keys);
    }
    let absent: Vec<u64> = (0..PER_GENERATION).map(|_| rng.random()).collect();
    let probes: Vec<u64> = (0..PER_GENERATION)
        .map(|index| {
            if index % 2 == 0 {
                generations[1 + index % GENERATIONS][index]
            } else {
                absent[index]
            }
        })
        .collect();

    // Verify once, outside the timed loops: no key of the window is missed by either.
    for keys in &generations[1..] {
        assert_eq!(window.count_contained(keys), keys.len());
        assert_eq!(filter.count_contained(keys), keys.len());
    }
    let rate = |count: usize| 100.0 * count as f64 / PER_GENERATION as f64;
    println!(
        "window: {} MiB, Filter: {} MiB; FPR of forgotten keys {:.3}%, of absent keys {:.3}% \
         (window, planned {:.3}%); absent keys in the Filter {:.3}%",
        window.size_in_bytes() >> 20,
        filter.size_in_bytes() >> 20,
        rate(window.count_contained(&generations[0])),
        rate(window.count_contained(&absent)),
        100.0 * window.fpr(),
        rate(filter.count_contained(&absent)),
    );

    let mut group = c.benchmark_group("lookup 10^6 keys, 3*10^6 inserted");
    group.throughput(Throughput::Elements(probes.len() as u64));
    group.sample_size(20);
    group.bench_function("Filter contains", |b| {
        b.iter(|| probes.iter().filter(|key| filter.contains(*key)).count())
    });
    group.bench_function("WindowFilter contains (G = 3)", |b| {
        b.iter(|| probes.iter().filter(|key| window.contains(*key)).count())
    });
    group.bench_function("Filter count_contained", |b| {
        b.iter(|| filter.count_contained(black_box(&probes)))
    });
    group.bench_function("WindowFilter count_contained (G = 3)", |b| {
        b.iter(|| window.count_contained(black_box(&probes)))
    });
    group.finish();

    let mut group = c.benchmark_group("rotate");
    group.sample_size(20);
    group.bench_function("WindowFilter rotate (G = 3, 10^6 keys a generation)", |b| {
        b.iter_batched_ref(
            || window.clone(),
            |window| {
                window.rotate();
                black_box(window.rotations())
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();

    // What a period costs against the double-buffered rebuild users run today (the
    // cache-penetration guard): every period, build a new `Filter` from the source of truth
    // (the keys of the last G periods, here a `Vec`) and swap it in while the old one still
    // answers, so two filters are held at once. The window instead forgets a generation and
    // takes the period's new keys.
    let source: Vec<u64> = generations[1..].concat();
    println!(
        "memory: double buffer {:.2} MiB (two Filters of {} keys), window {:.2} MiB",
        2.0 * filter.size_in_bytes() as f64 / f64::from(1 << 20),
        source.len(),
        window.size_in_bytes() as f64 / f64::from(1 << 20),
    );
    let mut group = c.benchmark_group("one period, 10^6 new keys, 3*10^6 in the window");
    group.sample_size(10);
    group.throughput(Throughput::Elements(PER_GENERATION as u64));
    group.bench_function("double buffer: rebuild a Filter from 3*10^6 keys", |b| {
        b.iter(|| {
            let mut rebuilt = Filter::with_fpr(source.len(), 0.01).unwrap();
            rebuilt.insert_batch(black_box(&source));
            rebuilt
        })
    });
    group.bench_function("WindowFilter: rotate, insert_batch 10^6 keys", |b| {
        b.iter_batched_ref(
            || window.clone(),
            |window| {
                window.rotate();
                window.insert_batch(black_box(&generations[0]));
                black_box(window.rotations())
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, window_against_filter, window_lookups);
criterion_main!(benches);
