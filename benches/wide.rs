//! `WideFilter` against `Filter` at the same key count and false-positive target, in one run:
//! memory (and its ratio to the classic optimum `n·ln(1/p)/ln²2` bits, RedisBloom's sizing),
//! the measured false-positive rate, and single-key and batched lookup times.
//!
//! * Per target: 10^6 random `u64` keys inserted into `Filter::with_fpr(n, p)` and
//!   `WideFilter::with_fpr(n, p)`; the false-positive rate measured on 10^7 absent keys.
//! * A query stream of 10^6 keys, half present, in random order. Timed in rounds that
//!   alternate the two filters; each figure is the median over the rounds of ns per key.
//!   Single-key lookups accumulate `contains(&k) as u64` (no branch on the answer); batched
//!   lookups run `contains_batch` over chunks of 1024 keys.
//!
//! ```text
//! cargo bench -p splitbloom-bench --bench wide
//! ```
//!
//! Environment: `SPLITBLOOM_WIDE_ITEMS` (default 1e6), `SPLITBLOOM_WIDE_ROUNDS` (default 15).

use splitbloom::{Filter, WideFilter};

#[path = "support/env.rs"]
mod env;
#[path = "support/rounds.rs"]
mod rounds;

use env::{cpu_model, env_or, parse_count};
use rounds::{keys, median, time};

fn main() {
    let items = env_or("SPLITBLOOM_WIDE_ITEMS", 1_000_000, parse_count);
    let rounds = env_or("SPLITBLOOM_WIDE_ROUNDS", 15, parse_count);
    println!(
        "CPU: {}; {items} keys, {rounds} rounds, medians",
        cpu_model()
    );
    println!(
        "| p | Filter bytes (x opt) | Filter FPR | WideFilter bytes (x opt, probes) | WideFilter FPR | single ns: Filter / Wide (ratio) | batch ns: Filter / Wide (ratio) |"
    );
    println!("|---|---|---|---|---|---|---|");
    let inserted = keys(1, items);
    let absent = keys(2, 10_000_000);
    let mut queries: Vec<u64> = keys(3, 1_000_000)
        .into_iter()
        .enumerate()
        .map(|(i, k)| {
            if i % 2 == 0 {
                inserted[k as usize % items]
            } else {
                k
            }
        })
        .collect();
    queries.rotate_left(1);
    for fpr in [1e-3f64, 1e-4, 1e-6] {
        let optimum = items as f64 * (1.0 / fpr).ln() / std::f64::consts::LN_2.powi(2) / 8.0;
        let mut split = Filter::with_fpr(items, fpr).unwrap();
        let mut wide = WideFilter::with_fpr(items, fpr).unwrap();
        split.insert_batch(&inserted);
        wide.insert_batch(&inserted);
        assert_eq!(wide.count_contained(&inserted), items, "no key missing");
        assert_eq!(split.count_contained(&inserted), items, "no key missing");
        let split_fpr = split.count_contained(&absent) as f64 / absent.len() as f64;
        let wide_fpr = wide.count_contained(&absent) as f64 / absent.len() as f64;
        // Both answer the same stream the same way up to false positives: checked once.
        let expected = split.count_contained(&queries);
        assert!(wide.count_contained(&queries).abs_diff(expected) < queries.len() / 100);
        let (mut single, mut batch) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
        let mut out = vec![false; 1024];
        for _ in 0..rounds {
            single[0].push(time(queries.len(), || {
                queries.iter().map(|k| u64::from(split.contains(k))).sum()
            }));
            single[1].push(time(queries.len(), || {
                queries.iter().map(|k| u64::from(wide.contains(k))).sum()
            }));
            batch[0].push(time(queries.len(), || {
                let mut hits = 0;
                for chunk in queries.chunks(1024) {
                    split.contains_batch(chunk, &mut out[..chunk.len()]);
                    hits += out.iter().filter(|&&x| x).count() as u64;
                }
                hits
            }));
            batch[1].push(time(queries.len(), || {
                let mut hits = 0;
                for chunk in queries.chunks(1024) {
                    wide.contains_batch(chunk, &mut out[..chunk.len()]);
                    hits += out.iter().filter(|&&x| x).count() as u64;
                }
                hits
            }));
        }
        let [s0, s1] = single.map(median);
        let [b0, b1] = batch.map(median);
        println!(
            "| {fpr:e} | {} ({:.3}x) | {split_fpr:.3e} | {} ({:.3}x, {}) | {wide_fpr:.3e} | {s0:.2} / {s1:.2} ({:.2}x) | {b0:.2} / {b1:.2} ({:.2}x) |",
            split.size_in_bytes(),
            split.size_in_bytes() as f64 / optimum,
            wide.size_in_bytes(),
            wide.size_in_bytes() as f64 / optimum,
            wide.probes(),
            s1 / s0,
            b1 / b0,
        );
    }
}
