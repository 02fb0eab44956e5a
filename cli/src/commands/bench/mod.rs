//! `splitbloom bench`: a self-contained workload that times every available kernel.
//!
//! Keys are random `u64`s from a bijective mixer of a counter, so the negatives (counters
//! `n..2n`) are guaranteed disjoint from the inserted keys (counters `0..n`). Each figure is the
//! median of several samples, each sample long enough (about 20 ms) to swamp timer overhead.
//! Lookups accumulate answers without branching, and the number of hits is checked outside the
//! timed loop, so a broken filter cannot look fast.
//!
//! The run ends with a verdict: the kernel this CPU uses, the spread of its samples, the
//! measured false-positive rate against `math`'s prediction (with its sampling error), and its
//! time per lookup against the other kernels of the same run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use std::hash::BuildHasher;

use splitbloom::{Filter, FilterHasher, Kernel, math};

use crate::hashers::{Xxh3, hasher_name};
use crate::json;
use crate::print::out;

mod verdict;
use verdict::Verdict;

/// Options of `splitbloom bench`.
#[derive(clap::Args)]
pub struct Options {
    /// Numbers of keys to test, comma-separated (`1e4,1e7`); the default is one size that fits
    /// in the CPU's caches and one that does not.
    #[arg(
        long,
        value_name = "COUNTS",
        value_delimiter = ',',
        default_values_t = [10_000u64, 10_000_000],
        value_parser = crate::numbers::parse_count
    )]
    items: Vec<u64>,
    /// Bits per key of every filter (10 gives about 1% false positives).
    #[arg(long, value_name = "BITS", default_value_t = 10.0)]
    bits_per_key: f64,
    /// Only this kernel: scalar, portable, avx2, avx512 or neon (default: every kernel
    /// available on this CPU).
    #[arg(long)]
    kernel: Option<Kernel>,
    /// Timed samples per figure (each about 20 ms); the median is reported, and the verdict
    /// gives the spread.
    #[arg(long, value_name = "COUNT", default_value_t = 5, value_parser = crate::numbers::parse_usize_count)]
    samples: usize,
    /// Use the batch APIs: hash 1024 keys into a buffer, then `insert_hash_batch` /
    /// `contains_hash_batch` (hashing still included in the time).
    #[arg(long)]
    batch: bool,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
    /// Leave out the string keys (1M URLs and 1M 8-byte ids through the byte-key contract,
    /// `insert_bytes` / `contains_bytes`), which the table and `--json` include by default.
    #[arg(long)]
    no_strings: bool,
}

/// Keys hashed per batch call in `--batch` mode.
const BATCH: usize = 1024;

/// A bijective 64-bit mixer (the SplitMix64 finalizer): distinct inputs give distinct keys.
fn key(counter: u64) -> u64 {
    let mut z = counter.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Nanoseconds per operation over the samples of one figure.
#[derive(Clone, Copy)]
struct Spread {
    min: f64,
    median: f64,
    max: f64,
}

/// The median of [`time_per_op`].
fn median_time_per_op(samples: usize, ops: usize, pass: impl FnMut()) -> f64 {
    time_per_op(samples, ops, pass).median
}

/// Nanoseconds per operation of `pass`, which performs `ops` operations per call, over
/// `samples` samples.
fn time_per_op(samples: usize, ops: usize, mut pass: impl FnMut()) -> Spread {
    let mut results: Vec<f64> = (0..samples.max(1))
        .map(|_| {
            let start = Instant::now();
            let mut passes = 0u32;
            while passes == 0 || start.elapsed() < Duration::from_millis(20) {
                pass();
                passes += 1;
            }
            start.elapsed().as_nanos() as f64 / (f64::from(passes) * ops as f64)
        })
        .collect();
    results.sort_by(f64::total_cmp);
    Spread {
        min: results[0],
        median: results[results.len() / 2],
        max: results[results.len() - 1],
    }
}

/// The keys of counters `first..first + count`, in a vector allocated fallibly: `--items` is
/// user input, and an allocation the machine cannot satisfy is an error, not an abort.
fn keys(first: u64, count: u64) -> Result<Vec<u64>, String> {
    let too_many = || {
        format!(
            "--items {count}: cannot allocate the {} bytes of benchmark keys; use a smaller --items",
            crate::print::approx_number(count as f64 * 8.0)
        )
    };
    let length = usize::try_from(count).map_err(|_| too_many())?;
    first.checked_add(count).ok_or_else(too_many)?;
    let mut keys = Vec::new();
    keys.try_reserve_exact(length).map_err(|_| too_many())?;
    keys.extend((first..first + count).map(key));
    Ok(keys)
}

/// One row of the table.
struct Row {
    kernel: Kernel,
    items: u64,
    bytes: usize,
    insert_ns: Spread,
    hit_ns: Spread,
    miss_ns: Spread,
    measured_fpr: f64,
    predicted_fpr: f64,
    /// Lookups of keys never inserted: the sample size of `measured_fpr`.
    strangers: usize,
}

impl Row {
    /// The median time of a lookup, hits and misses weighed alike.
    fn lookup_ns(&self) -> f64 {
        self.lookup_spread().median
    }

    /// The spread of a lookup's time, hits and misses weighed alike.
    fn lookup_spread(&self) -> Spread {
        let mean = |hit: f64, miss: f64| (hit + miss) / 2.0;
        Spread {
            min: mean(self.hit_ns.min, self.miss_ns.min),
            median: mean(self.hit_ns.median, self.miss_ns.median),
            max: mean(self.hit_ns.max, self.miss_ns.max),
        }
    }
}

fn measure(kernel: Kernel, items: u64, options: &Options) -> Result<Row, String> {
    let samples = options.samples;
    let mut filter = Filter::with_bits_per_key(usize::try_from(items).unwrap_or(usize::MAX), options.bits_per_key)
        .and_then(|filter| filter.with_kernel(kernel))
        .map_err(|error| match error {
            splitbloom::Error::TooLarge { blocks } => format!(
                "--items {items} --bits-per-key {}: a filter of about {} blocks exceeds the maximum of {} blocks",
                crate::print::short_number(options.bits_per_key),
                crate::print::approx_number(blocks),
                math::MAX_BLOCKS
            ),
            error => error.to_string(),
        })?;
    let members = keys(0, items)?;
    let strangers = keys(items, items)?;
    let ops = members.len();

    let batch = options.batch;
    let insert_ns = time_per_op(samples, ops, || {
        if batch {
            let mut hashes = [0u64; BATCH];
            for chunk in members.chunks(BATCH) {
                let hashes = &mut hashes[..chunk.len()];
                for (hash, member) in hashes.iter_mut().zip(chunk) {
                    *hash = filter.hasher().hash_one(member);
                }
                filter.insert_hash_batch(hashes);
            }
        } else {
            for member in &members {
                black_box(filter.insert(member));
            }
        }
    });
    let count = |keys: &[u64]| -> usize {
        if batch {
            let (mut hashes, mut found) = ([0u64; BATCH], [false; BATCH]);
            let mut hits = 0;
            for chunk in keys.chunks(BATCH) {
                let (hashes, found) = (&mut hashes[..chunk.len()], &mut found[..chunk.len()]);
                for (hash, key) in hashes.iter_mut().zip(chunk) {
                    *hash = filter.hasher().hash_one(key);
                }
                filter.contains_hash_batch(hashes, found);
                hits += splitbloom::__kernel_testing::count_true(found);
            }
            hits
        } else {
            keys.iter()
                .map(|key| usize::from(filter.contains(key)))
                .sum()
        }
    };
    let hits: usize = count(&members);
    if hits != members.len() {
        return Err(format!(
            "{kernel}: {} false negatives",
            members.len() - hits
        ));
    }
    let false_positives: usize = count(&strangers);
    let hit_ns = time_per_op(samples, ops, || {
        black_box(count(black_box(&members)));
    });
    let miss_ns = time_per_op(samples, ops, || {
        black_box(count(black_box(&strangers)));
    });
    Ok(Row {
        kernel,
        items,
        bytes: filter.size_in_bytes(),
        insert_ns,
        hit_ns,
        miss_ns,
        measured_fpr: false_positives as f64 / strangers.len() as f64,
        predicted_fpr: math::fpr_for_keys_per_block(items as f64 / filter.num_blocks() as f64),
        strangers: strangers.len(),
    })
}

/// Runs the benchmark and prints the table and the verdict (or, with `--json`, one JSON
/// object).
pub fn run(options: &Options) -> Result<(), String> {
    let kernels: Vec<Kernel> = match options.kernel {
        Some(kernel) if !kernel.is_available() => {
            return Err(format!("the {kernel} kernel is not available on this CPU"));
        }
        Some(kernel) => vec![kernel],
        None => Kernel::available().collect(),
    };
    if options.json {
        let mut rows = Vec::new();
        for &items in &options.items {
            for &kernel in &kernels {
                rows.push(measure(kernel, items, options)?);
            }
        }
        let strings = measure_strings(options)?;
        let verdict = Verdict::of(&rows);
        out!(
            "{{\"bits_per_key\":{},\"samples\":{},\"batch\":{},\"hasher\":\"{}\",\"rows\":[{}],\"strings\":[{}],\"verdict\":{}}}",
            json::number(options.bits_per_key),
            options.samples,
            options.batch,
            hasher_name(Xxh3::KIND),
            rows.iter().map(json_row).collect::<Vec<_>>().join(","),
            strings
                .iter()
                .map(json_string_row)
                .collect::<Vec<_>>()
                .join(","),
            verdict.map_or("null".to_owned(), |verdict| verdict.json()),
        )?;
        return Ok(());
    }
    out!(
        "splitbloom bench: {} bits/key, random u64 keys hashed with the default hasher, median of {} samples{}",
        crate::print::short_number(options.bits_per_key),
        options.samples,
        if options.batch {
            ", batch APIs (1024 keys per call)"
        } else {
            ""
        }
    )?;
    out!(
        "{:<9} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "kernel",
        "keys",
        "bytes",
        "insert",
        "hit",
        "miss",
        "fpr",
        "predicted"
    )?;
    out!(
        "{:<9} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "",
        "",
        "",
        "ns/op",
        "ns/op",
        "ns/op",
        "%",
        "%"
    )?;
    let mut rows = Vec::new();
    for &items in &options.items {
        for &kernel in &kernels {
            let row = measure(kernel, items, options)?;
            out!(
                "{:<9} {:>12} {:>12} {:>10.2} {:>10.2} {:>10.2} {:>10.3} {:>10.3}",
                row.kernel.name(),
                row.items,
                row.bytes,
                row.insert_ns.median,
                row.hit_ns.median,
                row.miss_ns.median,
                100.0 * row.measured_fpr,
                100.0 * row.predicted_fpr
            )?;
            rows.push(row);
        }
    }
    print_string_rows(options, &measure_strings(options)?)?;
    match Verdict::of(&rows) {
        Some(verdict) => verdict.print(options.samples),
        None => Ok(()),
    }
}

/// One row as a JSON object; rates are fractions, times nanoseconds per operation.
fn json_row(row: &Row) -> String {
    let spread = |name: &str, spread: Spread| {
        format!(
            "\"{name}\":{},\"{name}_min\":{},\"{name}_max\":{}",
            json::number(spread.median),
            json::number(spread.min),
            json::number(spread.max)
        )
    };
    format!(
        "{{\"kernel\":\"{}\",\"items\":{},\"bytes\":{},{},{},{},\"measured_fpr\":{},\"predicted_fpr\":{}}}",
        row.kernel.name(),
        row.items,
        row.bytes,
        spread("insert_ns", row.insert_ns),
        spread("hit_ns", row.hit_ns),
        spread("miss_ns", row.miss_ns),
        json::number(row.measured_fpr),
        json::number(row.predicted_fpr)
    )
}

/// Keys of each string workload of [`measure_strings`].
const STRING_KEYS: usize = 1_000_000;

/// One string workload: its name and its member and stranger keys (disjoint).
struct StringWorkload {
    name: &'static str,
    members: Vec<Vec<u8>>,
    strangers: Vec<Vec<u8>>,
}

/// The string workloads: URLs (about 30-40 bytes) and 8-byte ids, `STRING_KEYS` each.
fn string_workloads() -> [StringWorkload; 2] {
    let url = |i: u64| format!("https://example.com/{:x}/item/{i}", key(i) >> 44).into_bytes();
    let id = |i: u64| key(i).to_le_bytes().to_vec();
    let n = STRING_KEYS as u64;
    [
        StringWorkload {
            name: "urls",
            members: (0..n).map(url).collect(),
            strangers: (n..2 * n).map(url).collect(),
        },
        StringWorkload {
            name: "8-byte ids",
            members: (0..n).map(id).collect(),
            strangers: (n..2 * n).map(id).collect(),
        },
    ]
}

/// One string workload's figures: nanoseconds per operation, the false-positive rate as a
/// fraction.
struct StringRow {
    name: &'static str,
    average_len: f64,
    insert_ns: f64,
    hit_ns: f64,
    miss_ns: f64,
    batched_hit_ns: f64,
    measured_fpr: f64,
}

/// Times the byte-key contract (`insert_bytes`, `contains_bytes`, `contains_bytes_batch`) on
/// the string workloads with the best kernel and the default hasher; nothing with
/// `--no-strings`. Every member is checked present before anything is timed.
fn measure_strings(options: &Options) -> Result<Vec<StringRow>, String> {
    if options.no_strings {
        return Ok(Vec::new());
    }
    let mut rows = Vec::new();
    for workload in string_workloads() {
        let mut filter = Filter::with_bits_per_key(STRING_KEYS, options.bits_per_key)
            .map_err(|error| error.to_string())?;
        let ops = workload.members.len();
        let insert_ns = median_time_per_op(options.samples, ops, || {
            for member in &workload.members {
                black_box(filter.insert_bytes(member));
            }
        });
        let count = |keys: &[Vec<u8>]| -> usize {
            keys.iter()
                .map(|key| usize::from(filter.contains_bytes(key)))
                .sum()
        };
        if count(&workload.members) != ops {
            return Err(format!(
                "string workload {}: false negatives",
                workload.name
            ));
        }
        let false_positives = count(&workload.strangers);
        let hit_ns = median_time_per_op(options.samples, ops, || {
            black_box(count(black_box(&workload.members)));
        });
        let miss_ns = median_time_per_op(options.samples, ops, || {
            black_box(count(black_box(&workload.strangers)));
        });
        let mut answers = vec![false; BATCH];
        let batched_hit_ns = median_time_per_op(options.samples, ops, || {
            for chunk in workload.members.chunks(BATCH) {
                let answers = &mut answers[..chunk.len()];
                filter.contains_bytes_batch(chunk, answers);
                black_box(&answers);
            }
        });
        rows.push(StringRow {
            name: workload.name,
            average_len: workload.members.iter().map(Vec::len).sum::<usize>() as f64 / ops as f64,
            insert_ns,
            hit_ns,
            miss_ns,
            batched_hit_ns,
            measured_fpr: false_positives as f64 / ops as f64,
        });
    }
    Ok(rows)
}

/// The string keys' table, after the `u64` one (nothing when `rows` is empty).
fn print_string_rows(options: &Options, rows: &[StringRow]) -> Result<(), String> {
    if rows.is_empty() {
        return Ok(());
    }
    out!("")?;
    out!(
        "string keys through the byte-key contract (insert_bytes / contains_bytes), {} keys, {} bits/key, kernel {}",
        STRING_KEYS,
        crate::print::short_number(options.bits_per_key),
        Kernel::best()
    )?;
    out!(
        "{:<11} {:>8} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "keys",
        "bytes",
        "insert",
        "hit",
        "miss",
        "batched hit",
        "fpr"
    )?;
    out!(
        "{:<11} {:>8} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "",
        "avg",
        "ns/op",
        "ns/op",
        "ns/op",
        "ns/op",
        "%"
    )?;
    for row in rows {
        out!(
            "{:<11} {:>8.1} {:>10.2} {:>10.2} {:>10.2} {:>12.2} {:>10.3}",
            row.name,
            row.average_len,
            row.insert_ns,
            row.hit_ns,
            row.miss_ns,
            row.batched_hit_ns,
            100.0 * row.measured_fpr
        )?;
    }
    Ok(())
}

/// One string workload as a JSON object, in the units of [`json_row`].
fn json_string_row(row: &StringRow) -> String {
    format!(
        "{{\"keys\":\"{}\",\"count\":{},\"average_bytes\":{},\"kernel\":\"{}\",\"insert_ns\":{},\"hit_ns\":{},\"miss_ns\":{},\"batched_hit_ns\":{},\"measured_fpr\":{}}}",
        row.name,
        STRING_KEYS,
        row.average_len,
        Kernel::best().name(),
        row.insert_ns,
        row.hit_ns,
        row.miss_ns,
        row.batched_hit_ns,
        row.measured_fpr
    )
}
