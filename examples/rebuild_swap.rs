//! Cache-penetration protection with a filter that is rebuilt and swapped in while readers read.
//!
//! `cargo run --release --example rebuild_swap` (runs for about two seconds)
//!
//! A key-value store (here a `HashMap` behind a lock, standing in for a database) sits behind a
//! Bloom filter: a lookup of a key the filter says is absent never reaches the store, which is
//! what stops floods of requests for nonexistent keys ("cache penetration"). Three kinds of
//! threads share it:
//!
//! * **Readers** load the current filter with `ArcSwap::load` (lock-free, never blocks) and only
//!   go to the store when the filter says "maybe".
//! * **A writer** adds keys to the store and, under the same store lock, to the current filter:
//!   an [`AtomicFilter`], so inserting through the shared `Arc` needs no lock of its own. It also
//!   deletes keys from the store; their bits stay in the filter (Bloom filters cannot delete), so
//!   false positives creep up.
//! * **A rebuilder** periodically builds a fresh filter from the store (the source of truth),
//!   sized for the store as it is now, and swaps it in atomically (`ArcSwap::store`). Readers
//!   holding the old filter finish with it; the old one is freed when the last reader drops it.
//!   The scan and the swap hold the store's read lock, so no write can fall between them and be
//!   missing from the new filter.
//!
//! Every reader checks the one thing that must never happen: a key it knows was written (and not
//! deleted) reported absent by the filter.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use splitbloom::AtomicFilter;

/// How long the demonstration runs.
const RUN_TIME: Duration = Duration::from_secs(2);
/// How often the filter is rebuilt.
const REBUILD_EVERY: Duration = Duration::from_millis(400);
/// Keys in the store before the threads start.
const PRELOADED: u64 = 200_000;
/// The false-positive rate each rebuilt filter is sized for.
const FPR: f64 = 0.01;

/// The store and the filter in front of it.
struct Service {
    /// The source of truth.
    store: RwLock<HashMap<u64, String>>,
    /// The filter readers consult first; replaced wholesale by each rebuild.
    filter: ArcSwap<AtomicFilter>,
    /// Keys below this were written by the writer (published with `Release`).
    written_below: AtomicU64,
    /// Lookups the filter answered alone (certainly absent).
    filtered: AtomicU64,
    /// Lookups that reached the store and found nothing (false positives).
    false_positives: AtomicU64,
    /// Lookups that reached the store and found the key.
    hits: AtomicU64,
}

/// Keys divisible by this are deleted a while after being written; others live forever.
const DELETED_EVERY: u64 = 3;
/// How far behind the newest key deletions run.
const DELETE_LAG: u64 = 20_000;

impl Service {
    /// A filter holding every key of `store`, with room for the keys written until the next
    /// rebuild.
    fn build_filter(store: &HashMap<u64, String>) -> AtomicFilter {
        let capacity = (store.len() * 2).max(1_000);
        let filter = AtomicFilter::with_fpr(capacity, FPR).expect("capacity and rate are valid");
        for key in store.keys() {
            filter.insert(key);
        }
        filter
    }

    /// The read path: the filter first, the store only for "maybe".
    fn get(&self, key: u64) -> Option<String> {
        if !self.filter.load().contains(&key) {
            self.filtered.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let value = self.store.read().unwrap().get(&key).cloned();
        let counter = if value.is_some() {
            &self.hits
        } else {
            &self.false_positives
        };
        counter.fetch_add(1, Ordering::Relaxed);
        value
    }

    /// The write path: the store and the current filter, under the store's lock so that a
    /// rebuild sees either the key in the store or its own filter in `self.filter`.
    fn put(&self, key: u64, value: String) {
        let mut store = self.store.write().unwrap();
        store.insert(key, value);
        self.filter.load().insert(&key);
    }

    /// Deleting touches only the store: the filter keeps the key's bits until the next rebuild.
    fn delete(&self, key: u64) {
        self.store.write().unwrap().remove(&key);
    }

    /// Builds a filter from the store and swaps it in; returns (live keys, time taken).
    fn rebuild(&self) -> (usize, Duration) {
        let start = Instant::now();
        let store = self.store.read().unwrap();
        let fresh = Self::build_filter(&store);
        self.filter.store(Arc::new(fresh));
        (store.len(), start.elapsed())
    }
}

fn main() {
    let store: HashMap<u64, String> = (0..PRELOADED)
        .map(|key| (key, format!("value {key}")))
        .collect();
    let service = Service {
        filter: ArcSwap::from_pointee(Service::build_filter(&store)),
        store: RwLock::new(store),
        written_below: AtomicU64::new(PRELOADED),
        filtered: AtomicU64::new(0),
        false_positives: AtomicU64::new(0),
        hits: AtomicU64::new(0),
    };
    let stop = AtomicBool::new(false);
    let false_negatives = AtomicU64::new(0);
    let start = Instant::now();
    let (mut rebuilds, mut total_filtered, mut total_wasted) = (0, 0, 0);

    std::thread::scope(|scope| {
        // Readers: random keys, half of them never written, as a penetration attack would send.
        for reader in 0..2u64 {
            let (service, stop, false_negatives) = (&service, &stop, &false_negatives);
            scope.spawn(move || {
                let mut rng = StdRng::seed_from_u64(reader);
                while !stop.load(Ordering::Relaxed) {
                    let written = service.written_below.load(Ordering::Acquire);
                    let key = rng.random_range(0..2 * written);
                    let found = service.get(key);
                    let must_exist = key < written && !key.is_multiple_of(DELETED_EVERY);
                    if must_exist && found.is_none() {
                        false_negatives.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }

        // The writer: new keys at a steady pace, and deletions trailing behind.
        let (service_ref, stop_ref) = (&service, &stop);
        scope.spawn(move || {
            let mut next = PRELOADED;
            while !stop_ref.load(Ordering::Relaxed) {
                for _ in 0..200 {
                    service_ref.put(next, format!("value {next}"));
                    let old = next - DELETE_LAG;
                    if old.is_multiple_of(DELETED_EVERY) {
                        service_ref.delete(old);
                    }
                    next += 1;
                    service_ref.written_below.store(next, Ordering::Release);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });

        // The rebuilder, on this thread: rebuild, report what readers saw since the last one.
        while start.elapsed() < RUN_TIME {
            std::thread::sleep(REBUILD_EVERY);
            // Lookups of absent keys that still reached the store: false positives, plus keys
            // deleted since the last rebuild whose bits are still set.
            let wasted = service.false_positives.swap(0, Ordering::Relaxed);
            let filtered = service.filtered.swap(0, Ordering::Relaxed);
            (total_filtered, total_wasted) = (total_filtered + filtered, total_wasted + wasted);
            let (keys, took) = service.rebuild();
            rebuilds += 1;
            println!(
                "rebuild {rebuilds}: {keys} live keys in {:.1} ms; before it, {:.2}% of \
                 {} lookups of absent keys reached the store",
                took.as_secs_f64() * 1e3,
                100.0 * wasted as f64 / (filtered + wasted).max(1) as f64,
                filtered + wasted,
            );
        }
        stop.store(true, Ordering::Relaxed);
    });

    let written = service.written_below.load(Ordering::Relaxed);
    println!(
        "{:.1} s: {written} keys written, {rebuilds} rebuilds, {} lookups found their key; \
         {total_filtered} lookups of absent keys answered by the filter alone, {total_wasted} \
         reached the store; false negatives: {}",
        start.elapsed().as_secs_f64(),
        service.hits.load(Ordering::Relaxed),
        false_negatives.load(Ordering::Relaxed),
    );
    assert_eq!(
        false_negatives.load(Ordering::Relaxed),
        0,
        "a written key was reported absent"
    );
}
