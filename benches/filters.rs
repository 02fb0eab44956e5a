//! Criterion benchmarks: splitbloom's kernels side by side with peer filters.
//!
//! Every contender gets the same workload: random `u64` keys from a seeded RNG (members have
//! their lowest bit clear, non-members set, so the two sets are disjoint), 10 bits per key,
//! hashing included. Groups:
//!
//! * `insert`: one key at a time into a filter sized for the keys (cycling through them), and
//!   for splitbloom also `insert_batch` (`-batch`);
//! * `lookup_positive` / `lookup_negative`: one key at a time, members / non-members;
//! * `lookup_batched`: splitbloom's `contains_batch` over members;
//! * `hash`: key hashing alone, in cache.
//!
//! Each figure is nanoseconds per key. Lookups add up their answers without branching, and
//! before any lookup is timed every member is checked present and the false-positive rate is
//! measured (printed, and saved for the report), so a broken filter cannot look fast.
//!
//! Modes, through the environment variable `SPLITBLOOM_BENCH`:
//!
//! * unset or `quick`: 10^4, 10^6 and 10^7 keys, short measurements (a few minutes on 2 cores);
//! * `full`: adds 10^8 keys (about 6 GB of memory with every peer) and measures longer;
//! * `prefetch`: the prefetch-distance sweep of the batch loops (not criterion; plain medians);
//! * `report`: reads the saved criterion results and writes the README table
//!   (`benches/results.md`) and the plot (`benches/performance.svg`).
//!
//! `SPLITBLOOM_BENCH_SIZES=10000,1000000` overrides the sizes, `SPLITBLOOM_BENCH_ONLY=
//! splitbloom-avx2,sbbf-rs-safe` restricts the contenders. See benches/report.sh.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use splitbloom::{Filter, Kernel};
use xorf::Filter as _;

#[path = "support/report.rs"]
mod report;

/// Bits per key of every filter.
const BITS_PER_KEY: usize = 10;
/// Keys handed to one call of a timed closure (batch operations take them as one batch).
const SLICE: usize = 1024;

/// The workload of one size.
struct Workload {
    members: Vec<u64>,
    strangers: Vec<u64>,
}

impl Workload {
    fn new(n: usize) -> Workload {
        let mut rng = StdRng::seed_from_u64(0x5eed ^ n as u64);
        let members = (0..n).map(|_| rng.random::<u64>() & !1).collect();
        let strangers = (0..n).map(|_| rng.random::<u64>() | 1).collect();
        Workload { members, strangers }
    }
}

/// The operations every contender supports (xorf's filter is static: built from all keys).
trait Contender {
    fn insert_key(&mut self, key: u64);
    fn contains_key(&self, key: u64) -> bool;
}

impl Contender for Filter {
    #[inline]
    fn insert_key(&mut self, key: u64) {
        self.insert(&key);
    }
    #[inline]
    fn contains_key(&self, key: u64) -> bool {
        self.contains(&key)
    }
}

/// sbbf-rs-safe takes hashes; its README hashes keys with XXH3, as here.
struct SbbfRs(sbbf_rs_safe::Filter);

impl Contender for SbbfRs {
    #[inline]
    fn insert_key(&mut self, key: u64) {
        self.0
            .insert_hash(xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes()));
    }
    #[inline]
    fn contains_key(&self, key: u64) -> bool {
        self.0
            .contains_hash(xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes()))
    }
}

impl Contender for fastbloom::BloomFilter {
    #[inline]
    fn insert_key(&mut self, key: u64) {
        self.insert(&key);
    }
    #[inline]
    fn contains_key(&self, key: u64) -> bool {
        self.contains(&key)
    }
}

impl Contender for parquet::bloom_filter::Sbbf {
    #[inline]
    fn insert_key(&mut self, key: u64) {
        self.insert(&key);
    }
    #[inline]
    fn contains_key(&self, key: u64) -> bool {
        self.check(&key)
    }
}

impl Contender for bloomfilter::Bloom<u64> {
    #[inline]
    fn insert_key(&mut self, key: u64) {
        self.set(&key);
    }
    #[inline]
    fn contains_key(&self, key: u64) -> bool {
        self.check(&key)
    }
}

impl Contender for HashSet<u64> {
    #[inline]
    fn insert_key(&mut self, key: u64) {
        self.insert(key);
    }
    #[inline]
    fn contains_key(&self, key: u64) -> bool {
        self.contains(&key)
    }
}

impl Contender for xorf::BinaryFuse8 {
    fn insert_key(&mut self, _key: u64) {
        unreachable!("BinaryFuse8 is built from all keys at once")
    }
    #[inline]
    fn contains_key(&self, key: u64) -> bool {
        self.contains(&key)
    }
}

/// Times `op` per key: each timed call gets the next slice of `keys` (cycling), and the counts
/// it returns are summed into a black box.
fn bench_per_key<T>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    keys: &[u64],
    state: &mut T,
    mut op: impl FnMut(&mut T, &[u64]) -> usize,
) {
    let mut cursor = 0;
    group.bench_function(id, |bencher| {
        bencher.iter_custom(|iters| {
            let mut remaining = iters as usize;
            let mut total = 0;
            let start = Instant::now();
            while remaining > 0 {
                let take = remaining.min(keys.len() - cursor).min(SLICE);
                total += op(state, black_box(&keys[cursor..cursor + take]));
                cursor = (cursor + take) % keys.len();
                remaining -= take;
            }
            let elapsed = start.elapsed();
            black_box(total);
            elapsed
        })
    });
}

/// How many of `keys` `set` reports present, one branch-free call at a time.
#[inline]
fn count_single<T: Contender>(set: &T, keys: &[u64]) -> usize {
    keys.iter()
        .map(|&key| usize::from(set.contains_key(key)))
        .sum()
}

/// Checks every member is present (no false negatives) and measures the false-positive rate;
/// saves it for the report. Runs outside any timed loop.
fn verify<T: Contender>(name: &str, set: &T, work: &Workload) -> f64 {
    let hits = count_single(set, &work.members);
    assert_eq!(
        hits,
        work.members.len(),
        "{name}: false negatives, refusing to time it"
    );
    let fpr = count_single(set, &work.strangers) as f64 / work.strangers.len() as f64;
    eprintln!(
        "verified {name} at {} keys: all members present, measured FPR {:.3}%",
        work.members.len(),
        100.0 * fpr
    );
    report::save_fpr(name, work.members.len(), fpr);
    fpr
}

/// Insert (unless static), verify, then time both lookups of one contender.
fn run_contender<T: Contender>(
    c: &mut Criterion,
    name: &str,
    work: &Workload,
    insertable: bool,
    mut set: T,
) {
    let n = work.members.len();
    if insertable {
        let mut group = c.benchmark_group("insert");
        bench_per_key(
            &mut group,
            BenchmarkId::new(name, n),
            &work.members,
            &mut set,
            |set, keys| {
                keys.iter().for_each(|&key| set.insert_key(key));
                keys.len()
            },
        );
        group.finish();
        // The timed loop may not have reached every key: make sure all are in.
        work.members.iter().for_each(|&key| set.insert_key(key));
    }
    verify(name, &set, work);
    for (group_name, keys) in [
        ("lookup_positive", &work.members),
        ("lookup_negative", &work.strangers),
    ] {
        let mut group = c.benchmark_group(group_name);
        bench_per_key(
            &mut group,
            BenchmarkId::new(name, n),
            keys,
            &mut &set,
            |set, keys| count_single(*set, keys),
        );
        group.finish();
    }
}

/// The batch paths of one splitbloom kernel: `insert_batch` and `contains_batch`.
fn run_batches(c: &mut Criterion, kernel: Kernel, work: &Workload) {
    let n = work.members.len();
    let name = format!("splitbloom-{kernel}-batch");
    let mut filter = splitbloom_filter(n, kernel);
    let mut group = c.benchmark_group("insert");
    bench_per_key(
        &mut group,
        BenchmarkId::new(&name, n),
        &work.members,
        &mut filter,
        |filter, keys| {
            filter.insert_batch(keys);
            keys.len()
        },
    );
    group.finish();
    filter.insert_batch(&work.members);
    let mut answers = vec![false; n];
    filter.contains_batch(&work.members, &mut answers);
    assert!(
        answers.iter().all(|&answer| answer),
        "{name}: false negative"
    );
    assert_eq!(filter.count_contained(&work.members), n);
    verify(&name, &filter, work);
    let mut group = c.benchmark_group("lookup_batched");
    let mut answers = [false; SLICE];
    bench_per_key(
        &mut group,
        BenchmarkId::new(format!("splitbloom-{kernel}"), n),
        &work.members,
        &mut &filter,
        |filter, keys| {
            let answers = &mut answers[..keys.len()];
            filter.contains_batch(keys, answers);
            answers.iter().map(|&answer| usize::from(answer)).sum()
        },
    );
    group.finish();
}

fn splitbloom_filter(n: usize, kernel: Kernel) -> Filter {
    Filter::with_bits_per_key(n, BITS_PER_KEY as f64)
        .and_then(|filter| filter.with_kernel(kernel))
        .expect("filter")
}

/// Whether contender `name` is selected by `SPLITBLOOM_BENCH_ONLY` (comma-separated names;
/// unset: all). Unselected contenders are not even built, which matters at 10^8 keys.
fn selected(name: &str) -> bool {
    std::env::var("SPLITBLOOM_BENCH_ONLY").map_or(true, |only| {
        only.split(',').any(|wanted| wanted.trim() == name)
    })
}

/// Every selected contender at `n` keys, one at a time (so only one is in memory).
fn run_size(c: &mut Criterion, n: usize) {
    let work = Workload::new(n);
    for kernel in Kernel::available() {
        let name = format!("splitbloom-{kernel}");
        if selected(&name) {
            run_contender(c, &name, &work, true, splitbloom_filter(n, kernel));
            run_batches(c, kernel, &work);
        }
    }
    if selected("sbbf-rs-safe") {
        let filter = SbbfRs(sbbf_rs_safe::Filter::new(BITS_PER_KEY, n));
        run_contender(c, "sbbf-rs-safe", &work, true, filter);
    }
    if selected("fastbloom") {
        let filter = fastbloom::BloomFilter::with_num_bits(BITS_PER_KEY * n).expected_items(n);
        run_contender(c, "fastbloom", &work, true, filter);
    }
    if selected("parquet") {
        // Rounded up to a power of two bytes by parquet itself.
        let filter = parquet::bloom_filter::Sbbf::new_with_num_of_bytes(BITS_PER_KEY * n / 8);
        run_contender(c, "parquet", &work, true, filter);
    }
    if selected("bloomfilter") {
        let filter = bloomfilter::Bloom::<u64>::new(BITS_PER_KEY * n / 8, n).expect("bloomfilter");
        run_contender(c, "bloomfilter", &work, true, filter);
    }
    if selected("hashset") {
        run_contender(c, "hashset", &work, true, HashSet::with_capacity(n));
    }
    if selected("xorf-binaryfuse8") {
        let filter = xorf::BinaryFuse8::try_from(&work.members[..]).expect("xorf");
        run_contender(c, "xorf-binaryfuse8", &work, false, filter);
    }
}

/// Key hashing alone, in cache: splitbloom's default hasher and the hashes peers use.
fn run_hashing(c: &mut Criterion) {
    let keys = Workload::new(10_000).members;
    let mut group = c.benchmark_group("hash");
    let id = |name: &str| BenchmarkId::new(name, keys.len());
    let hashes = |keys: &[u64], hash: &dyn Fn(u64) -> u64| {
        keys.iter().fold(0u64, |acc, &key| acc ^ hash(key)) as usize
    };
    let default = splitbloom::Xxh3::default();
    bench_per_key(
        &mut group,
        id("splitbloom-default"),
        &keys,
        &mut (),
        |_, keys| keys.iter().fold(0, |acc, key| acc ^ default.hash_one(key)) as usize,
    );
    bench_per_key(&mut group, id("xxh3-bytes"), &keys, &mut (), |_, keys| {
        hashes(keys, &|key| xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes()))
    });
    let sip = std::collections::hash_map::RandomState::new();
    bench_per_key(&mut group, id("std-siphash"), &keys, &mut (), |_, keys| {
        keys.iter().fold(0, |acc, key| acc ^ sip.hash_one(key)) as usize
    });
    group.finish();
}

/// The sizes to run: `SPLITBLOOM_BENCH_SIZES`, or the mode's default.
fn sizes(full: bool) -> Vec<usize> {
    match std::env::var("SPLITBLOOM_BENCH_SIZES") {
        Ok(list) => list
            .split(',')
            .map(|size| {
                size.trim()
                    .parse()
                    .expect("SPLITBLOOM_BENCH_SIZES: numbers")
            })
            .collect(),
        Err(_) if full => vec![10_000, 1_000_000, 10_000_000, 100_000_000],
        Err(_) => vec![10_000, 1_000_000, 10_000_000],
    }
}

/// Where criterion keeps its results (it honours `CARGO_TARGET_DIR`).
fn criterion_dir() -> PathBuf {
    // This package lives in benches/ of the workspace, whose target/ it shares.
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    );
    target.join("criterion")
}

/// Median ns/op of `pass` (which performs `ops` operations) over `samples` timed runs.
fn median_ns(samples: usize, ops: usize, mut pass: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            pass();
            start.elapsed().as_nanos() as f64 / ops as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[samples / 2]
}

/// The prefetch-distance sweep: the raw batch loops of the best kernel over pre-hashed keys, at
/// each size, for several distances (0 = no prefetching; the loops cap the distance at the
/// tuned one, the size of their ring), on memory allocated as filters allocate it (huge pages
/// where granted). The distances are interleaved over five rounds so that a noisy neighbour
/// hits them all alike; the median of the rounds is shown.
fn run_prefetch_sweep(sizes: &[usize]) {
    use splitbloom::__kernel_testing as raw;
    const DISTANCES: [usize; 6] = [0, 8, 16, 32, 64, 128];
    const ROUNDS: usize = 5;
    let kernel = Kernel::best();
    println!(
        "prefetch sweep, {kernel} kernel: pre-hashed batches of 512, ns/key, median of {ROUNDS} interleaved passes"
    );
    println!("keys        distance  insert  lookup");
    for &n in sizes {
        let work = Workload::new(n);
        let hasher = splitbloom::Xxh3::default();
        let hashes: Vec<u64> = work
            .members
            .iter()
            .map(|key| hasher.hash_one(key))
            .collect();
        let mut blocks =
            raw::FilterMemory::zeroed((n * BITS_PER_KEY).div_ceil(256)).expect("memory");
        let mut answers = [false; 512];
        let mut times = vec![(Vec::new(), Vec::new()); DISTANCES.len()];
        for _ in 0..ROUNDS {
            for (&distance, (inserts, lookups)) in DISTANCES.iter().zip(&mut times) {
                inserts.push(median_ns(1, n, || {
                    for chunk in hashes.chunks(512) {
                        raw::insert_hashes(kernel, &mut blocks, chunk, distance);
                    }
                }));
                let mut found = 0;
                lookups.push(median_ns(1, n, || {
                    for chunk in hashes.chunks(512) {
                        let answers = &mut answers[..chunk.len()];
                        raw::contains_hashes(kernel, &blocks, chunk, answers, distance);
                        found += answers.iter().map(|&a| usize::from(a)).sum::<usize>();
                    }
                }));
                assert_eq!(found, n, "{kernel}: false negatives");
            }
        }
        for (distance, (inserts, lookups)) in DISTANCES.iter().zip(&mut times) {
            inserts.sort_by(f64::total_cmp);
            lookups.sort_by(f64::total_cmp);
            let (insert, lookup) = (inserts[ROUNDS / 2], lookups[ROUNDS / 2]);
            println!("{n:<11} {distance:<9} {insert:>6.2}  {lookup:>6.2}");
        }
    }
}

fn main() {
    let mode = std::env::var("SPLITBLOOM_BENCH").unwrap_or_default();
    let full = mode == "full";
    match mode.as_str() {
        "prefetch" => {
            let sizes = std::env::var("SPLITBLOOM_BENCH_SIZES")
                .map_or_else(|_| vec![100_000_000], |_| sizes(false));
            return run_prefetch_sweep(&sizes);
        }
        "report" => return report::write(&criterion_dir()),
        "" | "quick" | "full" => {}
        other => panic!("SPLITBLOOM_BENCH={other}: expected quick, full, prefetch or report"),
    }
    let (warm_up, measure) = if full { (1.0, 3.0) } else { (0.3, 1.0) };
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs_f64(warm_up))
        .measurement_time(Duration::from_secs_f64(measure))
        .sample_size(10)
        .configure_from_args();
    run_hashing(&mut c);
    for n in sizes(full) {
        run_size(&mut c, n);
    }
    c.final_summary();
}
