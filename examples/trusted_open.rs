//! Opening a 125 MiB filter both ways: `FilterRef::from_bytes` (verifies the checksum over
//! every byte) and `FilterRef::from_trusted_bytes` (for bytes the caller already verified,
//! e.g. a block cache that checksums its blocks: O(1)).
//!
//! ```text
//! cargo run --release --example trusted_open
//! ```
//!
//! Prints the median and minimum of 15 opens each way. The lookups that follow are identical.

use std::time::{Duration, Instant};

use splitbloom::{Filter, FilterRef, Xxh3};

/// Median and minimum of `runs` timings of `open`.
fn time(runs: usize, mut open: impl FnMut() -> bool) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            assert!(std::hint::black_box(open()));
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[runs / 2], times[0])
}

fn main() -> Result<(), splitbloom::Error> {
    let num_blocks = 125 << 20 >> 5; // 125 MiB of 32-byte blocks
    let mut filter = Filter::with_num_blocks(num_blocks)?;
    let keys: Vec<String> = (0..1_000_000).map(|i| format!("key-{i}")).collect();
    filter.insert_bytes_batch(&keys);
    let bytes = filter.to_bytes();
    println!("filter: {} bytes ({} MiB)", bytes.len(), bytes.len() >> 20);

    let (verified_median, verified_min) = time(15, || {
        FilterRef::<Xxh3>::from_bytes(&bytes).is_ok_and(|view| view.contains_bytes(b"key-7"))
    });
    let (trusted_median, trusted_min) = time(15, || {
        FilterRef::<Xxh3>::from_trusted_bytes(&bytes)
            .is_ok_and(|view| view.is_zero_copy() && view.contains_bytes(b"key-7"))
    });
    println!("from_bytes (verified):     median {verified_median:?}, min {verified_min:?}");
    println!("from_trusted_bytes:        median {trusted_median:?}, min {trusted_min:?}");
    Ok(())
}
