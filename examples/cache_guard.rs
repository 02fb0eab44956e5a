//! Cache-penetration protection: a filter in front of a slow store turns away requests for
//! keys that do not exist before they cost a store round trip.
//!
//! `cargo run --release --example cache_guard` (about two seconds, mostly the unguarded pass)
//!
//! A cache answers repeated requests for existing keys, but a request for a key that does not
//! exist misses the cache every time and falls through to the store; a flood of them (a bug, a
//! scraper, an attack with random ids) overloads the store. A Bloom filter holding every key of
//! the store answers "certainly absent" for almost all of them in nanoseconds. It never turns
//! away an existing key (no false negatives); the few false positives cost one store read each.
//! Writes go to the store and the filter; deletes leave their bits behind (see the
//! `rebuild_swap` example for periodic rebuilds that clean them up).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use splitbloom::Filter;

const USERS: u64 = 100_000;
const REQUESTS: u64 = 10_000;
/// The simulated latency of one store read (a network round trip to a database).
const STORE_LATENCY: Duration = Duration::from_micros(50);

/// A store whose reads are slow.
struct SlowStore {
    rows: HashMap<u64, String>,
    reads: u64,
}

impl SlowStore {
    fn get(&mut self, id: u64) -> Option<&String> {
        self.reads += 1;
        std::thread::sleep(STORE_LATENCY);
        self.rows.get(&id)
    }
}

/// The store behind a filter of its keys.
struct Guarded {
    store: SlowStore,
    filter: Filter,
    turned_away: u64,
}

impl Guarded {
    fn new(store: SlowStore) -> Result<Guarded, splitbloom::Error> {
        // Room for growth: sized for twice the current keys at 0.1% false positives.
        let mut filter = Filter::with_fpr(2 * store.rows.len(), 0.001)?;
        for id in store.rows.keys() {
            filter.insert(id);
        }
        Ok(Guarded {
            store,
            filter,
            turned_away: 0,
        })
    }

    fn get(&mut self, id: u64) -> Option<&String> {
        if !self.filter.contains(&id) {
            self.turned_away += 1;
            return None;
        }
        self.store.get(id)
    }

    /// Writes reach the filter too, so a new key is never turned away.
    fn put(&mut self, id: u64, row: String) {
        self.filter.insert(&id);
        self.store.rows.insert(id, row);
    }
}

/// Request `i`: 90% ask for random ids that do not exist (far above the real ones), 10% for
/// existing users.
fn request(i: u64) -> (u64, bool) {
    let mixed = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    if i.is_multiple_of(10) {
        (mixed % USERS, true)
    } else {
        (USERS + (mixed >> 8), false)
    }
}

fn main() -> Result<(), splitbloom::Error> {
    let rows = (0..USERS).map(|id| (id, format!("user {id}"))).collect();
    let mut store = SlowStore { rows, reads: 0 };

    let start = Instant::now();
    for i in 0..REQUESTS {
        let (id, exists) = request(i);
        assert_eq!(store.get(id).is_some(), exists);
    }
    let unguarded = start.elapsed();
    println!(
        "unguarded: {REQUESTS} requests, {} store reads, {:.0} ms",
        store.reads,
        unguarded.as_secs_f64() * 1e3
    );

    store.reads = 0;
    let mut guarded = Guarded::new(store)?;
    guarded.put(USERS + 1, "a user created just now".to_owned());
    assert!(
        guarded.get(USERS + 1).is_some(),
        "new keys are found at once"
    );
    guarded.store.reads = 0;
    let start = Instant::now();
    for i in 0..REQUESTS {
        let (id, exists) = request(i);
        assert_eq!(guarded.get(id).is_some(), exists || id == USERS + 1);
    }
    let elapsed = start.elapsed();
    let existing = REQUESTS / 10;
    println!(
        "guarded:   {REQUESTS} requests, {} store reads ({} for existing users, {} false positives), {} turned away by the filter, {:.0} ms ({:.1}x faster)",
        guarded.store.reads,
        existing,
        guarded.store.reads - existing,
        guarded.turned_away,
        elapsed.as_secs_f64() * 1e3,
        unguarded.as_secs_f64() / elapsed.as_secs_f64()
    );
    Ok(())
}
