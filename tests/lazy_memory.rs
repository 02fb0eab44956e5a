//! A new filter's memory is zeroed lazily: allocating a large filter must not make its pages
//! resident before they are written, so that a filter between free and total memory is usable
//! under overcommit instead of getting the process OOM-killed, and startup costs nothing.
//!
//! Its own test binary, whose single test checks each filter type in turn, so that no other
//! test's allocations move the resident-set figure it reads.

#![cfg(target_os = "linux")]

use splitbloom::{BLOCK_BYTES, CountingFilter, Filter};

/// Resident memory of this process, in bytes, from `/proc/self/statm`.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // Every Linux target this crate is tested on uses 4 KiB base pages (x86_64, aarch64 under
    // qemu-user); a larger page size would only make the bound below looser.
    Some(pages * 4096)
}

/// Bytes of each new filter: far more than the bound on resident growth below.
const FILTER_BYTES: usize = 1 << 30;

#[test]
fn large_new_filters_are_not_resident_until_written() {
    if resident_bytes().is_none() {
        eprintln!("no /proc/self/statm here: nothing to measure");
        return;
    }
    a_large_new_filter_is_not_resident_until_written();
    a_large_new_counting_filter_is_not_resident_until_written();
}

fn a_large_new_filter_is_not_resident_until_written() {
    let before = resident_bytes().unwrap();
    let Ok(mut filter) = Filter::with_num_blocks(FILTER_BYTES / BLOCK_BYTES) else {
        eprintln!("this machine cannot reserve 1 GiB of address space: nothing to measure");
        return;
    };
    let after_allocation = resident_bytes().unwrap();
    let grown = after_allocation.saturating_sub(before);
    assert!(
        grown < 64 << 20,
        "allocating a 1 GiB filter made {} MiB resident",
        grown >> 20
    );
    // The memory is really there and zeroed: a few writes and reads work, and an untouched
    // region reads as zero.
    for key in 0..1000u64 {
        filter.insert(&key);
    }
    assert!((0..1000u64).all(|key| filter.contains(&key)));
    assert_eq!(
        filter.as_words()[filter.as_words().len() / 2..][..1024],
        [0; 1024]
    );
}

fn a_large_new_counting_filter_is_not_resident_until_written() {
    let before = resident_bytes().unwrap();
    // A counting block takes 128 bytes: four times a filter block.
    let Ok(mut filter) = CountingFilter::with_num_blocks(FILTER_BYTES / (4 * BLOCK_BYTES)) else {
        eprintln!("this machine cannot reserve 1 GiB of address space: nothing to measure");
        return;
    };
    assert_eq!(filter.size_in_bytes(), FILTER_BYTES);
    let grown = resident_bytes().unwrap().saturating_sub(before);
    assert!(
        grown < 64 << 20,
        "allocating a 1 GiB counting filter made {} MiB resident",
        grown >> 20
    );
    for key in 0..1000u64 {
        filter.insert(&key);
    }
    assert!((0..1000u64).all(|key| filter.contains(&key)));
    assert_eq!(filter.count_estimate(&7u64), 1);
}
