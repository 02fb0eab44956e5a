//! Cache-penetration protection with a sliding window instead of a rebuild every period.
//!
//! `cargo run --release --example window_guard` (well under a second)
//!
//! A store (here a `HashSet` of row ids, standing in for a database) sits behind a Bloom
//! filter, so that requests for ids that do not exist never reach it. Rows are deleted, and a
//! Bloom filter cannot delete, so the usual guard (`rebuild_swap.rs`) rebuilds a filter from a
//! full scan of the store every period and swaps it in: two filters, and a burst of work once a
//! period.
//!
//! Here the guard is one [`WindowFilter`] of two generations, each sized for the rows of one
//! period, and the work is spread out:
//!
//! * every write inserts its row id into the newest generation;
//! * a slow scan of the store re-inserts every live row once a period, a slice per tick;
//! * at the end of each period the window rotates, forgetting the generation two periods old.
//!
//! A live row is re-inserted at least once a period, so it is always in the newest or the
//! previous generation: the guard never answers "absent" for it (the example asserts this for
//! every live row, every tick). A deleted row is no longer re-inserted, so at most two
//! rotations later it answers like an id that never existed. Readers on other threads would
//! use [`WindowFilter::into_atomic`]: lock-free lookups while the one writer inserts and
//! rotates.

use std::collections::HashSet;

use splitbloom::WindowFilter;

/// Rows in the store at the start, and about as many throughout.
const ROWS: u64 = 50_000;
/// Ticks per period: the scan re-inserts `1 / TICKS` of the rows a tick.
const TICKS: usize = 10;
/// Periods simulated.
const PERIODS: usize = 8;
/// Rows created and deleted per tick.
const CHURN: u64 = 500;

fn main() -> Result<(), splitbloom::Error> {
    // One period holds every live row (re-inserted by the scan) plus the rows created in it.
    let per_period = (ROWS + CHURN * TICKS as u64) as usize;
    let mut guard = WindowFilter::with_fpr(per_period, 0.01, 2)?;
    let mut store: HashSet<u64> = (0..ROWS).collect();
    let mut next_id = ROWS;
    let mut deleted: Vec<(u64, usize)> = Vec::new(); // (id, period of deletion)
    for &id in &store {
        guard.insert(&id);
    }
    let mut scan: Vec<u64> = Vec::new();
    for period in 0..PERIODS {
        // The scan's snapshot of the store for this period, re-inserted a slice per tick.
        scan.clear();
        scan.extend(store.iter().copied());
        let slice = scan.len().div_ceil(TICKS);
        for tick in 0..TICKS {
            for _ in 0..CHURN {
                store.insert(next_id);
                guard.insert(&next_id);
                next_id += 1;
                // Delete the oldest surviving row.
                let oldest = next_id - ROWS - 1;
                if store.remove(&oldest) {
                    deleted.push((oldest, period));
                }
            }
            let end = (tick * slice + slice).min(scan.len());
            for id in &scan[(tick * slice).min(end)..end] {
                if store.contains(id) {
                    guard.insert(id);
                }
            }
            // The one thing that must never happen: a live row reported absent.
            let missing = store.iter().filter(|id| !guard.contains(*id)).count();
            assert_eq!(
                missing, 0,
                "period {period}, tick {tick}: live rows reported absent"
            );
        }
        guard.rotate();
        // Rows deleted before this period were last inserted in a generation the rotation
        // just forgot: they answer like ids that never existed.
        let forgotten: Vec<u64> = deleted
            .iter()
            .filter(|&&(_, when)| when < period)
            .map(|&(id, _)| id)
            .collect();
        let still_passing = guard.count_contained(&forgotten);
        let never: Vec<u64> = (u64::MAX - 20_000..u64::MAX).collect();
        println!(
            "period {period}: {} live rows, all found; {} rows deleted before this period, \
             {:.2}% still pass; ids never written: {:.2}% pass (planned rate of a full window {:.2}%)",
            store.len(),
            forgotten.len(),
            100.0 * still_passing as f64 / forgotten.len().max(1) as f64,
            100.0 * guard.count_contained(&never) as f64 / never.len() as f64,
            100.0 * guard.fpr(),
        );
    }
    println!(
        "memory: {} KiB for the window (two generations), against two filters for a \
         double-buffered rebuild",
        guard.size_in_bytes() / 1024
    );
    Ok(())
}
