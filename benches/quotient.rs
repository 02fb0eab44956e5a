//! `QuotientFilter` against the filters that can remove keys (the Vector Quotient Filter's own
//! C code, the `cuckoofilter` crate, `CountingFilter`) and against `Filter` at the same rate, in
//! one process: memory per key at the measured false-positive rate, and the time of inserts,
//! lookups of present keys (hits) and of absent keys (misses), and removals.
//!
//! * Per size `2^L` slots (VQF's own driver: `L` = 18 and 24), `0.85·2^L` random 64-bit keys,
//!   given to every filter as their hashes (VQF takes a hash; `QuotientFilter`, `Filter` and
//!   `CountingFilter` through `_hash`; the cuckoo crate hashes them itself with XXH3, its only
//!   way in). The quotient filters have VQF's number of slots; `Filter` is sized for the rate
//!   the 8-bit quotient filter measures, `CountingFilter` for 1%.
//! * Each round builds every filter afresh, in turn, and times single-key inserts (copies: VQF
//!   and the cuckoo filter are multisets), hits, misses (as many random absent keys) and
//!   removals of every key, each loop accumulating answers without a branch; then the same
//!   with the batch calls where a filter has them. Each figure is the median over the rounds,
//!   in ns per key.
//! * The answers are checked once outside the timed loops: every inserted key is found, every
//!   removal succeeds.
//!
//! ```text
//! cargo bench -p splitbloom-bench --bench quotient
//! ```
//!
//! Environment: `SPLITBLOOM_QUOTIENT_LOGS` (default `18,24`), `SPLITBLOOM_QUOTIENT_ROUNDS`
//! (default 5). VQF comes from `../shared/anchors/vqf` (`benches/build.rs`); without it the
//! benchmark says so and leaves it out.
//!
//! `SPLITBLOOM_QUOTIENT_THREADS=T` measures instead what many writers get without a
//! concurrent type: inserts of the same keys (`2^L` slots, 85%) by one thread in batches, and by
//! `T` threads through one `Mutex<QuotientFilter>` (single keys, and batches of 1024 under the
//! lock), and into `T` filters, one per thread, each key routed to one by its hash (single
//! keys and batches). Wall-clock ns per key over all threads, medians.

use cuckoofilter::CuckooFilter;
use splitbloom::{CountingFilter, Filter, QuotientFilter, TagBits};

#[path = "support/env.rs"]
mod env;
#[path = "support/rounds.rs"]
mod rounds;

use env::{cpu_model, env_or, parse_count};
use rounds::{keys, median, time};

/// A filter that can remove keys (or not), as the benchmark drives it. Batches default to
/// loops of single calls, for the filters without them.
trait Contender: Sized {
    const NAME: &'static str;
    /// An empty filter for `items` keys in `slots` slots.
    fn build(slots: usize, items: usize, rate: f64) -> Self;
    fn insert(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
    /// `None` when the filter cannot remove keys.
    fn remove(&mut self, key: u64) -> Option<bool>;
    fn bytes(&self) -> usize;
    /// Whether the filter has batch calls (else the batch columns are left empty).
    const BATCHES: bool = false;
    fn insert_batch(&mut self, keys: &[u64]) {
        keys.iter().for_each(|&key| self.insert(key));
    }
    fn count_batch(&self, keys: &[u64], out: &mut [bool]) -> usize {
        let _ = out;
        keys.iter().filter(|&&key| self.contains(key)).count()
    }
    fn remove_batch(&mut self, keys: &[u64]) -> usize {
        keys.iter()
            .filter(|&&key| self.remove(key) == Some(true))
            .count()
    }
}

/// A quotient filter with VQF's number of slots (`(slots + 48) / 48` blocks of 48), or of 16-bit
/// tags for the keys at its design load.
struct Quotient<const SIXTEEN: bool>(QuotientFilter);

impl<const SIXTEEN: bool> Contender for Quotient<SIXTEEN> {
    const NAME: &'static str = if SIXTEEN {
        "QuotientFilter, 16-bit tags"
    } else {
        "QuotientFilter, 8-bit tags"
    };
    const BATCHES: bool = true;

    fn build(slots: usize, items: usize, _: f64) -> Self {
        Quotient(if SIXTEEN {
            QuotientFilter::with_capacity(items, TagBits::Sixteen).unwrap()
        } else {
            QuotientFilter::with_num_blocks((slots + 48) / 48, TagBits::Eight).unwrap()
        })
    }
    fn insert(&mut self, key: u64) {
        self.0.insert_copy_hash(key).unwrap();
    }
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(key)
    }
    fn remove(&mut self, key: u64) -> Option<bool> {
        Some(self.0.remove_hash(key))
    }
    fn bytes(&self) -> usize {
        self.0.size_in_bytes()
    }
    fn insert_batch(&mut self, keys: &[u64]) {
        self.0.insert_copy_hash_batch(keys).unwrap();
    }
    fn count_batch(&self, keys: &[u64], out: &mut [bool]) -> usize {
        self.0.contains_hash_batch(keys, out);
        out.iter().filter(|&&hit| hit).count()
    }
    fn remove_batch(&mut self, keys: &[u64]) -> usize {
        self.0.remove_hash_batch(keys)
    }
}

/// The split-block filter, sized for the rate the 8-bit quotient filter measures.
struct Bloom(Filter);

impl Contender for Bloom {
    const NAME: &'static str = "Filter (no removal)";
    const BATCHES: bool = true;

    fn build(_: usize, items: usize, rate: f64) -> Self {
        Bloom(Filter::with_fpr(items, rate).unwrap())
    }
    fn insert(&mut self, key: u64) {
        self.0.insert_hash(key);
    }
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(key)
    }
    fn remove(&mut self, _: u64) -> Option<bool> {
        None
    }
    fn bytes(&self) -> usize {
        self.0.size_in_bytes()
    }
    fn insert_batch(&mut self, keys: &[u64]) {
        self.0.insert_hash_batch(keys);
    }
    fn count_batch(&self, keys: &[u64], out: &mut [bool]) -> usize {
        self.0.contains_hash_batch(keys, out);
        out.iter().filter(|&&hit| hit).count()
    }
}

/// The counting filter at 1%.
struct Counting(CountingFilter);

impl Contender for Counting {
    const NAME: &'static str = "CountingFilter at 1%";
    const BATCHES: bool = true;

    fn build(_: usize, items: usize, _: f64) -> Self {
        Counting(CountingFilter::with_fpr(items, 0.01).unwrap())
    }
    fn insert(&mut self, key: u64) {
        self.0.insert_hash(key);
    }
    fn contains(&self, key: u64) -> bool {
        self.0.contains_hash(key)
    }
    fn remove(&mut self, key: u64) -> Option<bool> {
        Some(self.0.remove_hash(key))
    }
    fn bytes(&self) -> usize {
        self.0.size_in_bytes()
    }
    fn insert_batch(&mut self, keys: &[u64]) {
        self.0.insert_hash_batch(keys);
    }
    fn count_batch(&self, keys: &[u64], out: &mut [bool]) -> usize {
        self.0.contains_hash_batch(keys, out);
        out.iter().filter(|&&hit| hit).count()
    }
    fn remove_batch(&mut self, keys: &[u64]) -> usize {
        self.0.remove_hash_batch(keys)
    }
}

/// The `cuckoofilter` crate with `2^L` slots (buckets of four 8-bit fingerprints), hashing with
/// XXH3.
struct Cuckoo(CuckooFilter<xxhash_rust::xxh3::Xxh3>);

impl Contender for Cuckoo {
    const NAME: &'static str = "cuckoofilter 0.5 (XXH3)";

    fn build(slots: usize, _: usize, _: f64) -> Self {
        Cuckoo(CuckooFilter::with_capacity(slots))
    }
    fn insert(&mut self, key: u64) {
        self.0.add(&key).unwrap();
    }
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    fn remove(&mut self, key: u64) -> Option<bool> {
        Some(self.0.delete(&key))
    }
    fn bytes(&self) -> usize {
        self.0.memory_usage()
    }
}

/// The Vector Quotient Filter's own C code (8-bit tags, AVX-512 where the CPU has it),
/// compiled by `build.rs` from `../shared/anchors/vqf`.
#[cfg(vqf)]
mod vqf {
    use std::ffi::c_void;
    use std::ptr::NonNull;

    /// The head of VQF's `vqf_filter`: its metadata (`vqf_filter.h`), then the blocks.
    #[repr(C)]
    pub struct Head {
        total_size_in_bytes: u64,
        key_remainder_bits: u64,
        range: u64,
        nblocks: u64,
        nelts: u64,
        nslots: u64,
    }

    #[link(name = "vqf", kind = "static")]
    #[link(name = "stdc++")]
    unsafe extern "C" {
        fn vqf_init(nslots: u64) -> *mut Head;
        fn vqf_insert(filter: *mut Head, hash: u64) -> bool;
        fn vqf_remove(filter: *mut Head, hash: u64) -> bool;
        fn vqf_is_present(filter: *mut Head, hash: u64) -> bool;
        fn free(pointer: *mut c_void);
    }

    /// A VQF filter, freed on drop (`vqf_init` allocates it with `malloc`).
    pub struct Vqf(NonNull<Head>);

    impl super::Contender for Vqf {
        const NAME: &'static str = "VQF (C, 8-bit tags)";

        fn build(slots: usize, _: usize, _: f64) -> Self {
            // SAFETY: `vqf_init` takes any slot count and returns a filter or null.
            let filter = unsafe { vqf_init(slots as u64) };
            Vqf(NonNull::new(filter).expect("VQF could not allocate"))
        }
        fn insert(&mut self, key: u64) {
            // SAFETY: a live filter from `vqf_init`, used by one thread.
            assert!(unsafe { vqf_insert(self.0.as_ptr(), key) }, "VQF full");
        }
        fn contains(&self, key: u64) -> bool {
            // SAFETY: as above; a lookup does not write to the filter.
            unsafe { vqf_is_present(self.0.as_ptr(), key) }
        }
        fn remove(&mut self, key: u64) -> Option<bool> {
            // SAFETY: as above.
            Some(unsafe { vqf_remove(self.0.as_ptr(), key) })
        }
        fn bytes(&self) -> usize {
            // SAFETY: the filter starts with its metadata, written by `vqf_init`.
            unsafe { self.0.as_ref().total_size_in_bytes as usize }
        }
    }

    impl Drop for Vqf {
        fn drop(&mut self) {
            // SAFETY: allocated by `vqf_init` with `malloc`, freed once.
            unsafe { free(self.0.as_ptr().cast()) };
        }
    }
}

/// Medians of one contender: single-key (insert, hit, miss, remove) and batched, in ns per key.
struct Timings {
    bits_per_key: f64,
    rate: f64,
    single: [f64; 4],
    batch: Option<[f64; 4]>,
}

fn measure<C: Contender>(
    slots: usize,
    present: &[u64],
    absent: &[u64],
    rounds: usize,
    rate: f64,
) -> Timings {
    let items = present.len();
    let (mut single, mut batch) = (vec![Vec::new(); 4], vec![Vec::new(); 4]);
    let mut rate_measured = 0.0;
    let mut bits_per_key = 0.0;
    let mut out = vec![false; 1024];
    for round in 0..rounds {
        let mut filter = C::build(slots, items, rate);
        single[0].push(time(items, || {
            present.iter().for_each(|&key| filter.insert(key));
            0
        }));
        single[1].push(time(items, || {
            present.iter().map(|&k| u64::from(filter.contains(k))).sum()
        }));
        let mut false_positives = 0;
        single[2].push(time(absent.len(), || {
            false_positives = absent.iter().map(|&k| u64::from(filter.contains(k))).sum();
            false_positives
        }));
        if round == 0 {
            assert!(
                present.iter().all(|&key| filter.contains(key)),
                "{}: a false negative",
                C::NAME
            );
            rate_measured = false_positives as f64 / absent.len() as f64;
            bits_per_key = (filter.bytes() * 8) as f64 / items as f64;
        }
        if filter.remove(present[0]).is_some() {
            filter.insert(present[0]);
            let mut removed = 0;
            single[3].push(time(items, || {
                removed = present
                    .iter()
                    .map(|&k| u64::from(filter.remove(k) == Some(true)))
                    .sum();
                removed
            }));
            assert_eq!(removed, items as u64, "{}: a removal failed", C::NAME);
        }
        drop(filter);
        if C::BATCHES {
            let mut filter = C::build(slots, items, rate);
            batch[0].push(time(items, || {
                present
                    .chunks(1024)
                    .for_each(|chunk| filter.insert_batch(chunk));
                0
            }));
            let mut count = |keys: &[u64]| {
                time(keys.len(), || {
                    keys.chunks(1024)
                        .map(|chunk| filter.count_batch(chunk, &mut out[..chunk.len()]) as u64)
                        .sum()
                })
            };
            batch[1].push(count(present));
            batch[2].push(count(absent));
            if filter.remove(present[0]).is_some() {
                filter.insert(present[0]);
                batch[3].push(time(items, || {
                    present
                        .chunks(1024)
                        .map(|chunk| filter.remove_batch(chunk) as u64)
                        .sum()
                }));
            }
        }
    }
    let medians = |values: Vec<Vec<f64>>| -> [f64; 4] {
        core::array::from_fn(|i| {
            if values[i].is_empty() {
                f64::NAN
            } else {
                median(values[i].clone())
            }
        })
    };
    Timings {
        bits_per_key,
        rate: rate_measured,
        single: medians(single),
        batch: C::BATCHES.then(|| medians(batch)),
    }
}

fn row(name: &str, timings: &Timings) {
    let cell = |value: f64| {
        if value.is_nan() {
            "—".to_string()
        } else {
            format!("{value:.1}")
        }
    };
    let [insert, hit, miss, remove] = timings.single.map(cell);
    let batch = timings
        .batch
        .map_or_else(|| "—".to_string(), |batch| batch.map(cell).join(" / "));
    println!(
        "| {name} | {:.2} | {:.3}% | {insert} / {hit} / {miss} / {remove} | {batch} |",
        timings.bits_per_key,
        100.0 * timings.rate,
    );
}

/// Inserts `keys` (copies) with `threads` threads in each way of the module docs' last
/// paragraph; prints a row of wall-clock ns per key.
fn writers(slots: usize, keys: &[u64], threads: usize, rounds: usize) {
    use std::sync::Mutex;
    let blocks = (slots + 48) / 48;
    let fresh = |blocks: usize| QuotientFilter::with_num_blocks(blocks, TagBits::Eight).unwrap();
    // A key's shard, from a remix of the key: the filter uses every bit of it.
    let shard_of =
        |key: u64| ((key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize * threads) >> 32;
    let shards: Vec<Vec<u64>> = (0..threads)
        .map(|shard| {
            keys.iter()
                .copied()
                .filter(|&k| shard_of(k) == shard)
                .collect()
        })
        .collect();
    let mut results = vec![Vec::new(); 5];
    for _ in 0..rounds {
        let mut one = fresh(blocks);
        results[0].push(time(keys.len(), || {
            keys.chunks(1024)
                .for_each(|chunk| one.insert_copy_hash_batch(chunk).unwrap());
            0
        }));
        for (column, batched) in [(1, false), (2, true)] {
            let shared = Mutex::new(fresh(blocks));
            results[column].push(time(keys.len(), || {
                std::thread::scope(|scope| {
                    for part in keys.chunks(keys.len().div_ceil(threads)) {
                        let shared = &shared;
                        scope.spawn(move || {
                            if batched {
                                for chunk in part.chunks(1024) {
                                    shared
                                        .lock()
                                        .unwrap()
                                        .insert_copy_hash_batch(chunk)
                                        .unwrap();
                                }
                            } else {
                                for &key in part {
                                    shared.lock().unwrap().insert_copy_hash(key).unwrap();
                                }
                            }
                        });
                    }
                });
                0
            }));
        }
        for (column, batched) in [(3, false), (4, true)] {
            results[column].push(time(keys.len(), || {
                std::thread::scope(|scope| {
                    for part in &shards {
                        scope.spawn(move || {
                            let mut own = fresh(blocks.div_ceil(threads) + 1);
                            if batched {
                                part.chunks(1024)
                                    .for_each(|c| own.insert_copy_hash_batch(c).unwrap());
                            } else {
                                part.iter()
                                    .for_each(|&key| own.insert_copy_hash(key).unwrap());
                            }
                            own.len() as u64
                        });
                    }
                });
                0
            }));
        }
    }
    let [a, b, c, d, e] = core::array::from_fn(|i| median(results[i].clone()));
    println!("| {threads} | {a:.1} | {b:.1} / {c:.1} | {d:.1} / {e:.1} |");
}

fn main() {
    if let Ok(threads) = std::env::var("SPLITBLOOM_QUOTIENT_THREADS") {
        let threads = parse_count(&threads);
        let rounds = env_or("SPLITBLOOM_QUOTIENT_ROUNDS", 5, parse_count);
        println!(
            "CPU: {}; {rounds} rounds, medians, wall-clock ns per key",
            cpu_model()
        );
        println!(
            "| threads | one thread, batches | one Mutex: single keys / batches | a filter per thread: single keys / batches |"
        );
        println!("|---|---|---|---|");
        for log in std::env::var("SPLITBLOOM_QUOTIENT_LOGS")
            .unwrap_or_else(|_| "24".into())
            .split(',')
        {
            let slots = 1usize << log.trim().parse::<u32>().expect("a power of two");
            writers(slots, &keys(7, slots * 85 / 100), threads, rounds);
        }
        return;
    }
    let logs: Vec<u32> = std::env::var("SPLITBLOOM_QUOTIENT_LOGS")
        .unwrap_or_else(|_| "18,24".into())
        .split(',')
        .map(|log| {
            log.trim()
                .parse()
                .expect("a list of powers of two, such as 18,24")
        })
        .collect();
    let rounds = env_or("SPLITBLOOM_QUOTIENT_ROUNDS", 5, parse_count);
    println!("CPU: {}; {rounds} rounds, medians, ns per key", cpu_model());
    #[cfg(not(vqf))]
    println!(
        "VQF is left out: its sources were not found when this benchmark was built (see benches/build.rs)"
    );
    for log in logs {
        let slots = 1usize << log;
        let items = slots * 85 / 100;
        let present = keys(u64::from(log), items);
        let absent = keys(u64::from(log) + 1000, items);
        println!("\n2^{log} slots, {items} keys (85%)\n");
        println!(
            "| filter | bits per key | measured rate | insert / hit / miss / remove | batched: insert / hit / miss / remove |"
        );
        println!("|---|---|---|---|---|");
        let quotient = measure::<Quotient<false>>(slots, &present, &absent, rounds, 0.0);
        row(Quotient::<false>::NAME, &quotient);
        #[cfg(vqf)]
        row(
            vqf::Vqf::NAME,
            &measure::<vqf::Vqf>(slots, &present, &absent, rounds, 0.0),
        );
        row(
            Quotient::<true>::NAME,
            &measure::<Quotient<true>>(slots, &present, &absent, rounds, 0.0),
        );
        row(
            Cuckoo::NAME,
            &measure::<Cuckoo>(slots, &present, &absent, rounds, 0.0),
        );
        row(
            Counting::NAME,
            &measure::<Counting>(slots, &present, &absent, rounds, 0.01),
        );
        let rate = quotient.rate;
        row(
            &format!("{} at {:.3}%", Bloom::NAME, 100.0 * rate),
            &measure::<Bloom>(slots, &present, &absent, rounds, rate),
        );
    }
}
