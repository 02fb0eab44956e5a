//! The streamed workload, as a plain benchmark binary next to Boost.Bloom's anchor
//! (`../shared/anchors/boost-bloom/bench.cpp`), whose workload, seeds and JSON field names it
//! follows, so that the two can be run back to back and put side by side. Boost.Bloom's filter
//! also runs in this process, as the contender `boost-fmb32x8` (`boost/shim.rs`), where
//! `build.rs` found its headers; the binary says so when it is left out.
//!
//! * Per N: N distinct random `u64` keys and 10M distinct negatives, disjoint from the keys,
//!   drawn exactly as bench.cpp draws them (Xoshiro256++ seeded by SplitMix64 from
//!   `seed ^ N * 0x9E3779B97F4A7C15`, duplicates replaced the same way), so keys, negatives and
//!   false-positive counts are bit-identical to the anchor's at the same seed. Positive queries
//!   stream from memory in random order over the inserted keys (a sample of 10M when N is
//!   larger).
//! * 10 bits per key: every contender gets `ceil(N * 10 / 256)` blocks of 256 bits (Boost's
//!   rounding), u64 keys hashed by each contender's own hasher.
//! * Answers are checked once, outside the timed loops: no false negative, the false positives
//!   over all negatives, and the same answers key by key, from the contender's own loop and
//!   from its batches.
//! * Timed, in rounds that interleave the contenders (median of the rounds, each round the
//!   median of its slices of 16384 keys, see [`timed_slices`]; each contender's round starts
//!   with an untimed pass of lookups that brings its filter back into the caches): single-key lookups
//!   of 1M positives and 1M negatives (`hits += contains(&k) as u64`, no branch on the answer),
//!   the hashing alone, batched lookups in chunks of 1024 keys, and the build (one key at a
//!   time, and as one batch), allocation and zeroing included.
//! * The **gather floor** (`floor`): hash a key with the default hasher, prefetch its block as
//!   many keys ahead as the batch loops do, and read one word of one random 32-byte block per
//!   key, on memory allocated as filters allocate it and written before (untouched memory is
//!   read from the kernel's zero page; the binary checks in `/proc/self/smaps` that the floor's
//!   memory is resident, and prints whether it and a filter's are on huge pages). No batched
//!   lookup can beat it; every row shows its distance to it.
//!
//! A plain binary rather than criterion: the workload is defined by its query stream (1M keys
//! per sample streamed from memory, never the same slice twice in a row) and by interleaving
//! the contenders inside each round, neither of which criterion's per-function sampling does,
//! and the output must match bench.cpp's fields.
//!
//! ```text
//! cargo bench -p splitbloom-bench --bench workload
//! SPLITBLOOM_WORKLOAD_SIZES=1e8 cargo bench -p splitbloom-bench --bench workload   # ~3 GB
//! ```
//!
//! Environment: `SPLITBLOOM_WORKLOAD_SIZES` (default `1e4,1e6,1e7`; 10^8 only when listed),
//! `SPLITBLOOM_WORKLOAD_REPS` (default 5), `SPLITBLOOM_WORKLOAD_ONLY` (comma-separated
//! contender names), `SPLITBLOOM_WORKLOAD_JSON` (also write the rows as JSON there).
//! `SPLITBLOOM_WORKLOAD_PLOT=out.svg` with `SPLITBLOOM_WORKLOAD_PLOT_FROM=a.json,b.json,...`
//! measures nothing: it draws the per-CPU plot from such JSON files, this bench's and
//! Boost.Bloom's anchor's (`support/workload_plot.rs`).

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::hint::black_box;
use std::time::Instant;

use splitbloom::{__kernel_testing as raw, Filter, Kernel, Xxh3};

#[cfg(boost_bloom)]
#[path = "boost/shim.rs"]
mod boost_bloom;
#[path = "support/env.rs"]
mod env;
#[path = "support/opaque.rs"]
mod opaque;
#[path = "support/workload_plot.rs"]
mod workload_plot;

use env::{cpu_model, env_or, parse_count};
use opaque::opaque_u64;

const BITS_PER_KEY: f64 = 10.0;
const NEGATIVES: usize = 10_000_000;
const POS_CAP: usize = 10_000_000;
const LOOKUPS: usize = 1_000_000;
const BATCH_CHUNK: usize = 1024;
const SEED: u64 = 24301;
/// Boost.Bloom's contender, named as its own benchmark names it in its JSON rows.
const BOOST: &str = "boost-fmb32x8";

/// Xoshiro256++ seeded with SplitMix64, written out so that the keys match bench.cpp's bit for
/// bit (its `below` is Lemire's multiply-shift with rejection, also copied in shape).
struct Xoshiro256pp([u64; 4]);

impl Xoshiro256pp {
    fn new(mut state: u64) -> Self {
        let mut s = [0; 4];
        for word in &mut s {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            *word = z ^ (z >> 31);
        }
        Xoshiro256pp(s)
    }

    fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        let mut m = u128::from(self.next()) * u128::from(n);
        if (m as u64) < n {
            let t = n.wrapping_neg() % n;
            while (m as u64) < t {
                m = u128::from(self.next()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }
}

/// Keys, negatives and the positive query stream of one size (bench.cpp's `make_workload`).
struct Workload {
    keys: Vec<u64>,
    negatives: Vec<u64>,
    positives: Vec<u64>,
}

impl Workload {
    fn new(n: usize) -> Workload {
        let mut rng = Xoshiro256pp::new(SEED ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let total = n + NEGATIVES;
        let mut all: Vec<u64> = (0..total).map(|_| rng.next()).collect();
        loop {
            let mut sorted = all.clone();
            sorted.sort_unstable();
            let duplicates: HashSet<u64> = sorted
                .windows(2)
                .filter(|pair| pair[0] == pair[1])
                .map(|pair| pair[0])
                .collect();
            drop(sorted);
            if duplicates.is_empty() {
                break;
            }
            // Keep the first occurrence of each duplicated value, then top up.
            let mut seen = HashSet::new();
            all.retain(|x| !duplicates.contains(x) || seen.insert(*x));
            while all.len() < total {
                all.push(rng.next());
            }
        }
        let negatives = all.split_off(n);
        let keys = all;
        let positives = if n <= POS_CAP {
            let copies = LOOKUPS.div_ceil(n).max(1);
            let mut stream = Vec::with_capacity(n * copies);
            for _ in 0..copies {
                let start = stream.len();
                stream.extend_from_slice(&keys);
                for i in (2..=n).rev() {
                    let j = rng.below(i as u64) as usize;
                    stream.swap(start + i - 1, start + j);
                }
            }
            stream
        } else {
            (0..POS_CAP)
                .map(|_| keys[rng.below(n as u64) as usize])
                .collect()
        };
        Workload {
            keys,
            negatives,
            positives,
        }
    }
}

/// The `len`-key window of round `round` (bench.cpp's `window`).
fn window(queries: &[u64], len: usize, round: usize) -> &[u64] {
    if queries.len() <= len {
        return queries;
    }
    let count = queries.len() / len;
    let start = (round % count) * len;
    &queries[start..start + len]
}

/// The contenders' operations. Optional ones return `None` where the contender has no such
/// operation (peers have no batch API).
trait Contender: Sized {
    fn build_single(blocks: usize, keys: &[u64]) -> Self;
    fn build_batch(_blocks: usize, _keys: &[u64]) -> Option<Self> {
        None
    }
    fn contains(&self, key: u64) -> bool;
    /// How many of `queries` the filter may contain, one key at a time (`hits +=
    /// contains(key)`, no branch on the answer). A contender compiled in another language runs
    /// this loop there, so that no call crosses the language boundary per key.
    #[inline(always)]
    fn count_contained(&self, queries: &[u64]) -> u64 {
        let mut hits = 0u64;
        for key in queries {
            hits += u64::from(self.contains(*key));
        }
        hits
    }
    /// Whether the batch API exists (`contains_batch` is only called then).
    const BATCH: bool = false;
    fn contains_batch(&self, _keys: &[u64], _out: &mut [bool]) {}
    /// The contender's hash of `key`, as its lookups compute it.
    fn hash(&self, key: u64) -> Option<u64>;
    fn size_bytes(&self) -> usize;
    /// The address of the filter's memory, for splitbloom (see [`residency`]).
    fn memory_address(&self) -> Option<usize> {
        None
    }
}

/// splitbloom with the kernel chosen by `KERNEL` (an index into `Kernel::ALL`).
struct Splitbloom<const KERNEL: usize>(Filter);

impl<const KERNEL: usize> Splitbloom<KERNEL> {
    fn empty(blocks: usize) -> Filter {
        Filter::with_num_blocks(blocks)
            .and_then(|filter| {
                filter.with_kernel(Kernel::ALL.get(KERNEL).copied().expect("kernel index"))
            })
            .expect("filter")
    }
}

impl<const KERNEL: usize> Contender for Splitbloom<KERNEL> {
    fn build_single(blocks: usize, keys: &[u64]) -> Self {
        let mut filter = Self::empty(blocks);
        for key in keys {
            filter.insert(key);
        }
        Splitbloom(filter)
    }
    fn build_batch(blocks: usize, keys: &[u64]) -> Option<Self> {
        let mut filter = Self::empty(blocks);
        filter.insert_batch(keys);
        Some(Splitbloom(filter))
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    const BATCH: bool = true;
    #[inline(always)]
    fn contains_batch(&self, keys: &[u64], out: &mut [bool]) {
        self.0.contains_batch(keys, out);
    }
    #[inline(always)]
    fn hash(&self, key: u64) -> Option<u64> {
        Some(self.0.hasher().hash_one(key))
    }
    fn size_bytes(&self) -> usize {
        self.0.size_in_bytes()
    }
    fn memory_address(&self) -> Option<usize> {
        Some(self.0.as_words().as_ptr() as usize)
    }
}

/// sbbf-rs-safe takes hashes; its README hashes keys with XXH3, as here.
struct SbbfRs(sbbf_rs_safe::Filter);

impl Contender for SbbfRs {
    fn build_single(blocks: usize, keys: &[u64]) -> Self {
        // bits per key × keys = the same number of 256-bit blocks as the others.
        let mut filter = SbbfRs(sbbf_rs_safe::Filter::new(256, blocks));
        for &key in keys {
            filter
                .0
                .insert_hash(xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes()));
        }
        filter
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0
            .contains_hash(xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes()))
    }
    #[inline(always)]
    fn hash(&self, key: u64) -> Option<u64> {
        Some(xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes()))
    }
    fn size_bytes(&self) -> usize {
        self.0.as_bytes().len()
    }
}

/// fastbloom with the same number of bits (not blocked: several cache lines per key).
struct Fastbloom(fastbloom::BloomFilter, usize);

impl Contender for Fastbloom {
    fn build_single(blocks: usize, keys: &[u64]) -> Self {
        let bits = blocks * 256;
        let mut filter = fastbloom::BloomFilter::with_num_bits(bits).expected_items(keys.len());
        for key in keys {
            filter.insert(key);
        }
        Fastbloom(filter, bits / 8)
    }
    #[inline(always)]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    fn hash(&self, _key: u64) -> Option<u64> {
        None
    }
    fn size_bytes(&self) -> usize {
        self.1
    }
}

/// Median, min, max and every sample, in ns per key.
#[derive(Clone, Default)]
struct Samples(Vec<f64>);

impl Samples {
    fn sorted(&self) -> Vec<f64> {
        let mut sorted = self.0.clone();
        sorted.sort_by(f64::total_cmp);
        sorted
    }
    fn median(&self) -> Option<f64> {
        let sorted = self.sorted();
        let m = sorted.len();
        (m > 0).then(|| {
            if m % 2 == 1 {
                sorted[m / 2]
            } else {
                (sorted[m / 2 - 1] + sorted[m / 2]) / 2.0
            }
        })
    }
    fn json(&self, name: &str) -> String {
        let sorted = self.sorted();
        match self.median() {
            None => format!("\"{name}\": null"),
            Some(median) => format!(
                "\"{name}\": {{\"median\": {median:.6}, \"min\": {:.6}, \"max\": {:.6}, \"all\": [{}]}}",
                sorted[0],
                sorted[sorted.len() - 1],
                self.0
                    .iter()
                    .map(|x| format!("{x:.6}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Keys per timed slice of a lookup sample (a multiple of [`BATCH_CHUNK`]).
const SLICE: usize = 16 * BATCH_CHUNK;

/// Times `op` over `queries` one slice of [`SLICE`] keys at a time, returning the median ns per
/// key of the slices and the sum of `op`'s results. On a machine shared with other jobs a
/// sample of a million lookups is often cut by the scheduler; a slice takes tens of
/// microseconds, so the median slice is one that ran undisturbed, while the query stream and
/// the filter's cache state are those of the whole sample.
fn timed_slices(queries: &[u64], mut op: impl FnMut(&[u64]) -> u64) -> (f64, u64) {
    let mut times = Vec::with_capacity(queries.len() / SLICE + 1);
    let mut total = 0;
    for slice in queries.chunks(SLICE) {
        let start = Instant::now();
        total += black_box(op(black_box(slice)));
        times.push(start.elapsed().as_nanos() as f64 / slice.len() as f64);
    }
    (Samples(times).median().unwrap_or(f64::NAN), total)
}

/// Times `op`, returning ns per key and its result.
fn timed<R>(keys: usize, op: impl FnOnce() -> R) -> (f64, R) {
    let start = Instant::now();
    let result = black_box(op());
    (start.elapsed().as_nanos() as f64 / keys as f64, result)
}

#[inline(never)]
fn lookup_loop<C: Contender>(filter: &C, queries: &[u64]) -> u64 {
    filter.count_contained(queries)
}

#[inline(never)]
fn batch_loop<C: Contender>(filter: &C, queries: &[u64], out: &mut [bool]) -> u64 {
    let mut hits = 0u64;
    for chunk in queries.chunks(BATCH_CHUNK) {
        let out = &mut out[..chunk.len()];
        filter.contains_batch(chunk, out);
        hits += raw::count_true(out) as u64;
    }
    hits
}

#[inline(never)]
fn hash_loop<C: Contender>(filter: &C, queries: &[u64]) -> u64 {
    queries.iter().fold(0u64, |acc, &key| {
        acc.wrapping_add(opaque_u64(filter.hash(key).unwrap_or(0)))
    })
}

/// The gather floor: hash each key with the default hasher, prefetch its block `distance` keys
/// ahead (the batch loops' scheme, in chunks of [`BATCH_CHUNK`], into the cache level they
/// use), and read one word of it.
fn floor_loop(blocks: &[[u32; 8]], queries: &[u64], distance: usize) -> u64 {
    if raw::prefetch_level() == "l1" {
        floor_loop_into::<true>(blocks, queries, distance)
    } else {
        floor_loop_into::<false>(blocks, queries, distance)
    }
}

/// [`floor_loop`], prefetching into L1 when `L1`, else L2.
#[inline(never)]
fn floor_loop_into<const L1: bool>(blocks: &[[u32; 8]], queries: &[u64], distance: usize) -> u64 {
    const RING: usize = 256;
    let hasher = Xxh3::default();
    let num_blocks = blocks.len();
    let touch = |hash: u64| {
        u64::from(blocks[splitbloom::block_index(hash, num_blocks)][(hash & 7) as usize])
    };
    let mut acc = 0u64;
    if distance == 0 {
        for key in queries {
            acc = acc.wrapping_add(touch(hasher.hash_one(key)));
        }
        return acc;
    }
    let distance = distance.min(RING).next_power_of_two();
    let mask = distance - 1;
    let mut ring = [0u64; RING];
    for chunk in queries.chunks(BATCH_CHUNK) {
        let ahead = |key: &u64| {
            let hash = hasher.hash_one(key);
            raw::prefetch_block::<L1, _>(
                blocks
                    .as_ptr()
                    .wrapping_add(splitbloom::block_index(hash, num_blocks)),
            );
            hash
        };
        let (first, later) = chunk.split_at(distance.min(chunk.len()));
        for (slot, key) in ring.iter_mut().zip(first) {
            *slot = ahead(key);
        }
        for (index, key) in later.iter().enumerate() {
            let hash = core::mem::replace(&mut ring[index & mask], ahead(key));
            acc = acc.wrapping_add(touch(hash));
        }
        for index in later.len()..chunk.len() {
            acc = acc.wrapping_add(touch(ring[index & mask]));
        }
    }
    acc
}

/// The measured figures of one contender at one size (bench.cpp's `Row`).
#[derive(Default)]
struct Row {
    contender: String,
    n: usize,
    size_bytes: usize,
    blocks: usize,
    builds_per_sample: usize,
    build: Samples,
    bulk_build: Samples,
    pos: Samples,
    neg: Samples,
    hash: Samples,
    bpos: Samples,
    bneg: Samples,
    fp_pass: f64,
    fn_pass: f64,
    fp: u64,
    fnc: u64,
    negatives: usize,
    inconsistent: bool,
    floor: f64,
}

/// One contender's filter at one size, kept across the timed rounds.
struct Entry<C> {
    filter: C,
    row: Row,
}

/// What the timed rounds do to any contender.
trait Timed {
    fn build_round(&mut self, work: &Workload);
    fn timed_round(&mut self, work: &Workload, round: usize, out: &mut [bool]);
    fn row(&mut self) -> &mut Row;
    /// The address of the contender's filter memory, where it is ours.
    fn memory_address(&self) -> Option<usize>;
}

impl<C: Contender> Entry<C> {
    fn new(name: &str, n: usize, blocks: usize, work: &Workload) -> Entry<C> {
        let filter = C::build_single(blocks, &work.keys);
        let (fp_pass, fp) = timed(work.negatives.len(), || {
            lookup_loop(&filter, &work.negatives)
        });
        let (fn_pass, hits) = timed(work.keys.len(), || lookup_loop(&filter, &work.keys));
        let mut row = Row {
            contender: name.to_string(),
            n,
            size_bytes: filter.size_bytes(),
            blocks,
            builds_per_sample: LOOKUPS.div_ceil(n).max(1),
            fp_pass,
            fn_pass,
            fp,
            fnc: (work.keys.len() as u64) - hits,
            negatives: work.negatives.len(),
            ..Row::default()
        };
        // The loop's counts are those of `contains` called key by key from here.
        for queries in [&work.negatives, &work.keys] {
            let sample = &queries[..queries.len().min(LOOKUPS)];
            let by_key = sample.iter().filter(|&&key| filter.contains(key)).count();
            if by_key as u64 != lookup_loop(&filter, sample) {
                eprintln!("!!! {name} at N={n}: key-by-key answers differ from its lookup loop's");
                row.inconsistent = true;
            }
        }
        if C::BATCH {
            let batch = C::build_batch(blocks, &work.keys).expect("batch build");
            let mut out = vec![false; BATCH_CHUNK];
            let batch_fp = batch_loop(&batch, &work.negatives, &mut out);
            let batch_hits = batch_loop(&batch, &work.keys, &mut out);
            if batch_fp != fp || batch_hits != hits {
                eprintln!("!!! {name} at N={n}: batch answers differ from single-key answers");
                row.inconsistent = true;
            }
        }
        if row.fnc != 0 {
            eprintln!("!!! {name} at N={n}: {} FALSE NEGATIVES", row.fnc);
            row.inconsistent = true;
        }
        Entry { filter, row }
    }
}

impl<C: Contender> Timed for Entry<C> {
    fn build_round(&mut self, work: &Workload) {
        let per_sample = self.row.builds_per_sample;
        let keys = per_sample * work.keys.len();
        let blocks = self.row.blocks;
        let (single, built) = timed(keys, || {
            (0..per_sample)
                .map(|_| C::build_single(blocks, black_box(&work.keys)))
                .collect::<Vec<_>>()
        });
        drop(built);
        self.row.build.0.push(single);
        if C::BATCH {
            let (batch, built) = timed(keys, || {
                (0..per_sample)
                    .map(|_| C::build_batch(blocks, black_box(&work.keys)))
                    .collect::<Vec<_>>()
            });
            drop(built);
            self.row.bulk_build.0.push(batch);
        }
    }

    fn timed_round(&mut self, work: &Workload, round: usize, out: &mut [bool]) {
        let positives = window(&work.positives, LOOKUPS, round);
        let negatives = window(&work.negatives, LOOKUPS, round);
        let filter = &self.filter;
        let row = &mut self.row;
        // Untimed: one pass of lookups (over the inserted keys, in insertion order, so that no
        // timed query stream is warmed) brings the filter back into the caches after the other
        // contenders' rounds have evicted part of it, as Boost.Bloom's anchor, which runs one
        // filter alone, has it when its positives are timed. Without it the positives paid for
        // that refill and the negatives after them did not: at 10^7 keys every contender's hits
        // took 1.4-1.7x its misses in the same round.
        black_box(lookup_loop(filter, window(&work.keys, LOOKUPS, round)));
        let (pos, pos_hits) = timed_slices(positives, |keys| lookup_loop(filter, keys));
        let (neg, neg_hits) = timed_slices(negatives, |keys| lookup_loop(filter, keys));
        row.pos.0.push(pos);
        row.neg.0.push(neg);
        if pos_hits != positives.len() as u64 || neg_hits > row.fp {
            row.inconsistent = true;
        }
        if filter.hash(0).is_some() {
            let (hash, _) = timed_slices(negatives, |keys| hash_loop(filter, keys));
            row.hash.0.push(hash);
        }
        if C::BATCH {
            let (bpos, bpos_hits) = timed_slices(positives, |keys| batch_loop(filter, keys, out));
            let (bneg, bneg_hits) = timed_slices(negatives, |keys| batch_loop(filter, keys, out));
            row.bpos.0.push(bpos);
            row.bneg.0.push(bneg);
            if bpos_hits != pos_hits || bneg_hits != neg_hits {
                row.inconsistent = true;
            }
        }
    }

    fn row(&mut self) -> &mut Row {
        &mut self.row
    }
    fn memory_address(&self) -> Option<usize> {
        self.filter.memory_address()
    }
}

/// Whether `name` is selected by `SPLITBLOOM_WORKLOAD_ONLY` (unset: every contender).
fn selected(name: &str) -> bool {
    std::env::var("SPLITBLOOM_WORKLOAD_ONLY").map_or(true, |only| {
        only.split(',').any(|wanted| wanted.trim() == name)
    })
}

/// `1e4`, `10000`, `10k`, `1M` as a count.
/// The SBBF false-positive rate for `n` keys in `blocks` blocks (Poisson mixture over the block
/// loads, as bench.cpp computes it).
fn sbbf_fpr(blocks: usize, n: usize) -> f64 {
    let lambda = n as f64 / blocks as f64;
    let mut p = (-lambda).exp();
    let mut sum = 0.0;
    let imax = (lambda + 12.0 * lambda.sqrt() + 40.0) as usize;
    for i in 0..=imax {
        let fill = 1.0 - (31.0f64 / 32.0).powi(i as i32);
        sum += p * fill.powi(8);
        p *= lambda / (i as f64 + 1.0);
    }
    sum
}

fn add<C: Contender + 'static>(
    entries: &mut Vec<Box<dyn Timed>>,
    name: &str,
    n: usize,
    blocks: usize,
    work: &Workload,
) {
    if selected(name) {
        entries.push(Box::new(Entry::<C>::new(name, n, blocks, work)));
    }
}

/// Every selected contender at `n` keys, measured in interleaved rounds.
fn run_size(n: usize, reps: usize) -> Vec<Row> {
    let started = Instant::now();
    let work = Workload::new(n);
    eprintln!(
        "N={n}: workload ready in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    let blocks = ((n as f64 * BITS_PER_KEY) / 256.0).ceil() as usize;
    let mut entries: Vec<Box<dyn Timed>> = Vec::new();
    for (index, kernel) in Kernel::ALL.iter().enumerate() {
        if !kernel.is_available() {
            continue;
        }
        let name = format!("splitbloom-{kernel}");
        match index {
            0 => add::<Splitbloom<0>>(&mut entries, &name, n, blocks, &work),
            1 => add::<Splitbloom<1>>(&mut entries, &name, n, blocks, &work),
            2 => add::<Splitbloom<2>>(&mut entries, &name, n, blocks, &work),
            3 => add::<Splitbloom<3>>(&mut entries, &name, n, blocks, &work),
            4 => add::<Splitbloom<4>>(&mut entries, &name, n, blocks, &work),
            _ => eprintln!("{name}: not wired into this benchmark"),
        }
    }
    add::<SbbfRs>(&mut entries, "sbbf-rs-safe", n, blocks, &work);
    add::<Fastbloom>(&mut entries, "fastbloom", n, blocks, &work);
    #[cfg(boost_bloom)]
    add::<boost_bloom::BoostBloom>(&mut entries, BOOST, n, blocks, &work);

    let build_reps = if n <= 1_000_000 {
        5
    } else if n <= 10_000_000 {
        3
    } else {
        1
    };
    for _ in 0..build_reps {
        for entry in &mut entries {
            entry.build_round(&work);
        }
    }
    // The floor runs on memory allocated as filters allocate it, with the batches' distance,
    // and written first: freshly zeroed memory that is only read is all mapped to the kernel's
    // zero page (one 2 MiB huge zero page with transparent huge pages), so a floor read from it
    // hits the cache and the TLB whatever the size (at 10^8 it measured 4.3-6.1 ns/key instead
    // of 10.3).
    let mut memory = raw::FilterMemory::zeroed(blocks).expect("memory");
    for (index, block) in memory.iter_mut().enumerate() {
        block[index & 7] = 1;
    }
    let floor_pages = residency(memory.as_ptr() as usize);
    let filter_pages = entries
        .iter()
        .find_map(|entry| entry.memory_address())
        .map_or_else(|| "-".into(), residency);
    eprintln!("N={n}: floor memory {floor_pages}; splitbloom filter memory {filter_pages}");
    assert!(
        resident_bytes(memory.as_ptr() as usize).is_none_or(|rss| rss >= blocks * 32 / 4096 * 4096),
        "the floor's memory is not resident ({floor_pages}): it would be read from the zero page"
    );
    let distance = raw::prefetch_distance(blocks);
    let mut floors = Vec::new();
    let mut out = vec![false; BATCH_CHUNK];
    for round in 0..reps {
        for entry in &mut entries {
            entry.timed_round(&work, round, &mut out);
        }
        let negatives = window(&work.negatives, LOOKUPS, round);
        floors.push(timed_slices(negatives, |keys| floor_loop(&memory, keys, distance)).0);
    }
    let floor = Samples(floors).median().unwrap_or(f64::NAN);
    eprintln!(
        "N={n}: done in {:.1}s (floor {floor:.2} ns/key, prefetch distance {distance})",
        started.elapsed().as_secs_f64()
    );
    entries
        .into_iter()
        .map(|mut entry| {
            let row = entry.row();
            row.floor = floor;
            std::mem::take(row)
        })
        .collect()
}

fn fmt(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

fn ratio(value: Option<f64>, base: Option<f64>) -> String {
    match (value, base) {
        (Some(v), Some(b)) if b > 0.0 => format!("{:.2}x", v / b),
        _ => "-".into(),
    }
}

fn main() {
    if let Ok(out) = std::env::var("SPLITBLOOM_WORKLOAD_PLOT") {
        let from = std::env::var("SPLITBLOOM_WORKLOAD_PLOT_FROM").unwrap_or_default();
        let inputs: Vec<String> = from
            .split(',')
            .filter(|path| !path.is_empty())
            .map(String::from)
            .collect();
        if let Err(error) = workload_plot::draw(std::path::Path::new(&out), &inputs) {
            eprintln!("plot: {error}");
            std::process::exit(2);
        }
        println!("plot written to {out}");
        return;
    }
    let sizes = env_or(
        "SPLITBLOOM_WORKLOAD_SIZES",
        vec![10_000, 1_000_000, 10_000_000],
        |list| list.split(',').map(parse_count).collect(),
    );
    let reps = env_or("SPLITBLOOM_WORKLOAD_REPS", 5, parse_count).max(1);
    let cpu = cpu_model();
    let command: Vec<String> = std::env::args().collect();
    println!("cpu: {cpu}");
    println!(
        "kernels available: {} (best: {}); cache: {}; prefetch distance {} from {} blocks, into {}",
        Kernel::available()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(", "),
        Kernel::best(),
        raw::cache_summary(),
        raw::prefetch_distance(usize::MAX),
        raw::prefetch().1,
        raw::prefetch_level(),
    );
    #[cfg(boost_bloom)]
    {
        let mut rng = Xoshiro256pp::new(SEED);
        let keys: Vec<u64> = (0..100_000).map(|_| rng.next()).collect();
        assert!(
            boost_bloom::hash_matches(&keys),
            "the hash column's mulx64 is not Boost.Bloom's hash"
        );
        println!("{BOOST}: Boost.Bloom compiled into this process (g++ -O3 -march=native)");
    }
    #[cfg(not(boost_bloom))]
    println!(
        "{BOOST}: Boost.Bloom is left out: its headers were not found when this benchmark was \
         built (see benches/build.rs)"
    );
    let started = Instant::now();
    let mut rows = Vec::new();
    for &n in &sizes {
        rows.extend(run_size(n, reps));
    }
    println!(
        "\nns per key, median of {reps} interleaved rounds of {LOOKUPS} lookups (builds: 5 rounds \
         to 10^6, 3 to 10^7, 1 above); bbuild / bpos / bneg = insert_batch / contains_batch in \
         chunks of {BATCH_CHUNK}; floor = hash + prefetch + one read of a random block"
    );
    println!(
        "{:<20} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6} {:>7} {:>7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9} {:>3}",
        "contender",
        "N",
        "build",
        "bbuild",
        "pos",
        "neg",
        "hash",
        "bpos",
        "bneg",
        "floor",
        "bpos/fl",
        "bbld/fl",
        "pos/sbbf",
        "neg/sbbf",
        "FPR%",
        "FN"
    );
    for row in &rows {
        let sbbf = rows
            .iter()
            .find(|other| other.n == row.n && other.contender == "sbbf-rs-safe");
        println!(
            "{:<20} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6} {:>7} {:>7} {:>6.2} {:>8} {:>8} {:>8} {:>8} {:>9.4} {:>3}{}",
            row.contender,
            format!("1e{}", (row.n as f64).log10().round()),
            fmt(row.build.median()),
            fmt(row.bulk_build.median()),
            fmt(row.pos.median()),
            fmt(row.neg.median()),
            fmt(row.hash.median()),
            fmt(row.bpos.median()),
            fmt(row.bneg.median()),
            row.floor,
            ratio(row.bpos.median(), Some(row.floor)),
            ratio(row.bulk_build.median(), Some(row.floor)),
            ratio(row.pos.median(), sbbf.and_then(|s| s.pos.median())),
            ratio(row.neg.median(), sbbf.and_then(|s| s.neg.median())),
            100.0 * row.fp as f64 / row.negatives as f64,
            row.fnc,
            if row.inconsistent {
                "  !!INCONSISTENT"
            } else {
                ""
            },
        );
    }
    boost_ratios(&rows);
    println!("total runtime: {:.1}s", started.elapsed().as_secs_f64());
    if let Ok(path) = std::env::var("SPLITBLOOM_WORKLOAD_JSON") {
        std::fs::write(&path, json(&cpu, &command, &rows)).expect("write the JSON file");
        println!("json written to {path}");
    }
    if rows.iter().any(|row| row.inconsistent) {
        eprintln!("FAILED: false negatives or inconsistent answers (see above)");
        std::process::exit(2);
    }
}

/// Boost.Bloom's time over each splitbloom kernel's, measured in this process: above 1 where
/// splitbloom is faster. Its rows start with N, not a contender, so that readers of the main
/// table (`scripts/measure-cpu.sh`'s summary) do not take them for contenders' rows.
fn boost_ratios(rows: &[Row]) {
    let has = |prefix: &str| rows.iter().any(|row| row.contender.starts_with(prefix));
    if !has(BOOST) || !has("splitbloom-") {
        return;
    }
    println!("\n{BOOST}'s time / splitbloom's, in this process (above 1: splitbloom is faster)");
    println!(
        "{:<5} {:<20} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "N", "splitbloom", "build", "bbuild", "pos", "neg", "bpos", "bneg"
    );
    for row in rows
        .iter()
        .filter(|row| row.contender.starts_with("splitbloom-"))
    {
        let Some(boost) = rows
            .iter()
            .find(|other| other.n == row.n && other.contender == BOOST)
        else {
            continue;
        };
        let over =
            |measure: fn(&Row) -> &Samples| ratio(measure(boost).median(), measure(row).median());
        println!(
            "{:<5} {:<20} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
            format!("1e{}", (row.n as f64).log10().round()),
            row.contender,
            over(|row| &row.build),
            over(|row| &row.bulk_build),
            over(|row| &row.pos),
            over(|row| &row.neg),
            over(|row| &row.bpos),
            over(|row| &row.bneg),
        );
    }
}

/// The rows with bench.cpp's field names (plus `floor_ns_per_op`).
fn json(cpu: &str, command: &[String], rows: &[Row]) -> String {
    let quote = |text: &str| format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
    let mut out = format!(
        "{{\n  \"meta\": {{\"cpu\": {}, \"command\": {}, \"seed\": {SEED}, \"negatives\": {NEGATIVES}, \
         \"pos_cap\": {POS_CAP}, \"lookups_per_sample\": {LOOKUPS}, \"batch_chunk\": {BATCH_CHUNK}, \
         \"best_kernel\": {}, \"cache\": {}, \"prefetch_level\": {}}},\n  \"rows\": [\n",
        quote(cpu),
        quote(&command.join(" ")),
        quote(Kernel::best().name()),
        quote(&raw::cache_summary()),
        quote(raw::prefetch_level()),
    );
    let rows: Vec<String> = rows
        .iter()
        .map(|row| {
            let core = |s: &Samples| match (s.median(), row.hash.median()) {
                (Some(v), Some(h)) => format!("{:.6}", v - h),
                _ => "null".into(),
            };
            [
                format!("\"contender\": {}", quote(&row.contender)),
                format!("\"n\": {}", row.n),
                format!("\"bpk_target\": {BITS_PER_KEY}"),
                format!(
                    "\"bits_per_key_actual\": {:.6}",
                    row.size_bytes as f64 * 8.0 / row.n as f64
                ),
                format!("\"size_bytes\": {}", row.size_bytes),
                format!("\"params\": {}", quote(&format!("blocks={}", row.blocks))),
                row.build.json("build_ns_per_key"),
                row.bulk_build.json("bulk_build_ns_per_key"),
                format!("\"builds_per_sample\": {}", row.builds_per_sample),
                row.pos.json("pos_ns_per_op"),
                row.neg.json("neg_ns_per_op"),
                row.hash.json("hash_ns_per_op"),
                format!("\"neg_core_ns_per_op\": {}", core(&row.neg)),
                format!("\"pos_core_ns_per_op\": {}", core(&row.pos)),
                row.bpos.json("batch_pos_ns_per_op"),
                row.bneg.json("batch_neg_ns_per_op"),
                format!("\"batch_chunk\": {BATCH_CHUNK}"),
                format!("\"floor_ns_per_op\": {:.6}", row.floor),
                format!("\"fp_pass_ns_per_op\": {:.6}", row.fp_pass),
                format!("\"fn_pass_ns_per_op\": {:.6}", row.fn_pass),
                format!("\"negatives\": {}", row.negatives),
                format!("\"fp_count\": {}", row.fp),
                format!("\"fpr\": {:.9}", row.fp as f64 / row.negatives as f64),
                format!("\"expected_fpr\": {:.9}", sbbf_fpr(row.blocks, row.n)),
                format!("\"positives_checked\": {}", row.n),
                format!("\"fn_count\": {}", row.fnc),
                format!("\"inconsistent\": {}", row.inconsistent),
            ]
            .join(", ")
        })
        .map(|fields| format!("    {{{fields}}}"))
        .collect();
    out.push_str(&rows.join(",\n"));
    out.push_str("\n  ]\n}\n");
    out
}

/// The `Size`, `Rss` and `AnonHugePages` lines (kB) of the mapping of `/proc/self/smaps` that
/// holds `address`, or `-` where there is no such file: whether the filter's pages are
/// resident and on huge pages.
fn residency(address: usize) -> String {
    smaps_fields(address).map_or_else(
        || "-".into(),
        |fields| {
            fields
                .iter()
                .map(|(name, kb)| format!("{name} {kb} kB"))
                .collect::<Vec<_>>()
                .join(", ")
        },
    )
}

/// The resident bytes of the mapping that holds `address`; `None` without `/proc/self/smaps`.
fn resident_bytes(address: usize) -> Option<usize> {
    smaps_fields(address)?
        .into_iter()
        .find(|(name, _)| *name == "Rss")
        .map(|(_, kb)| kb * 1024)
}

fn smaps_fields(address: usize) -> Option<Vec<(&'static str, usize)>> {
    let text = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    let mut fields = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if let Some((start, end)) = first.split_once('-')
            && let (Ok(start), Ok(end)) = (
                usize::from_str_radix(start, 16),
                usize::from_str_radix(end, 16),
            )
        {
            inside = start <= address && address < end;
            continue;
        }
        for name in ["Size", "Rss", "AnonHugePages"] {
            if inside && first.strip_suffix(':') == Some(name) {
                fields.push((name, words.next()?.parse().ok()?));
            }
        }
    }
    Some(fields)
}
