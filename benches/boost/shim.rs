//! Boost.Bloom's split-block filter, `filter<std::uint64_t, 1, fast_multiblock32<8>>`, as a
//! contender of the workload, through the C interface of `shim.cpp` (compiled by `build.rs`
//! from the Boost.Bloom headers beside this repository; see there for what it matches in Boost's
//! own benchmark). Its single-key loops run in C++, as Boost's benchmark runs them; its bulk
//! operations are Boost's range overloads, one call per chunk.

use std::ffi::c_void;
use std::ptr::NonNull;

#[link(name = "splitbloom_boost", kind = "static")]
#[link(name = "stdc++")]
unsafe extern "C" {
    fn splitbloom_boost_new(bits: usize) -> *mut c_void;
    fn splitbloom_boost_free(filter: *mut c_void);
    fn splitbloom_boost_capacity_bits(filter: *const c_void) -> usize;
    fn splitbloom_boost_hash(key: u64) -> u64;
    fn splitbloom_boost_may_contain(filter: *const c_void, key: u64) -> bool;
    fn splitbloom_boost_insert_each(filter: *mut c_void, keys: *const u64, count: usize);
    fn splitbloom_boost_count_each(filter: *const c_void, keys: *const u64, count: usize) -> u64;
    fn splitbloom_boost_insert_bulk(filter: *mut c_void, keys: *const u64, count: usize);
    fn splitbloom_boost_may_contain_bulk(
        filter: *const c_void,
        keys: *const u64,
        count: usize,
        out: *mut bool,
    );
}

/// A Boost.Bloom filter owned from Rust, freed on drop.
pub struct BoostBloom(NonNull<c_void>);

impl BoostBloom {
    /// An empty filter of exactly `blocks` blocks of 256 bits.
    fn empty(blocks: usize) -> BoostBloom {
        let bits = blocks.checked_mul(256).expect("bits");
        // SAFETY: takes any bit count; returns a filter or null when it cannot allocate.
        let filter =
            NonNull::new(unsafe { splitbloom_boost_new(bits) }).expect("Boost.Bloom filter");
        let filter = BoostBloom(filter);
        assert_eq!(filter.bits(), bits, "Boost.Bloom rounded the size");
        filter
    }

    fn bits(&self) -> usize {
        // SAFETY: a live filter from `splitbloom_boost_new`.
        unsafe { splitbloom_boost_capacity_bits(self.0.as_ptr()) }
    }
}

/// `mulx64`, the mixing step Boost.Bloom applies to `boost::hash<u64>` (the identity): the high
/// and low halves of the key times 0x9E3779B97F4A7C15, xored. Written here so that the hash loop
/// does not pay a call per key; [`hash_matches`] checks it against the filter's own.
pub fn mulx64(key: u64) -> u64 {
    let product = u128::from(key) * 0x9E37_79B9_7F4A_7C15;
    (product >> 64) as u64 ^ product as u64
}

/// Whether [`mulx64`] is the hash Boost.Bloom's code computes, on `keys`.
pub fn hash_matches(keys: &[u64]) -> bool {
    keys.iter()
        // SAFETY: a pure function of its argument.
        .all(|&key| mulx64(key) == unsafe { splitbloom_boost_hash(key) })
}

impl super::Contender for BoostBloom {
    fn build_single(blocks: usize, keys: &[u64]) -> Self {
        let filter = BoostBloom::empty(blocks);
        // SAFETY: a live filter, used by this thread only; `keys` is valid for its length.
        unsafe { splitbloom_boost_insert_each(filter.0.as_ptr(), keys.as_ptr(), keys.len()) };
        filter
    }
    fn build_batch(blocks: usize, keys: &[u64]) -> Option<Self> {
        let filter = BoostBloom::empty(blocks);
        // SAFETY: as in `build_single`.
        unsafe { splitbloom_boost_insert_bulk(filter.0.as_ptr(), keys.as_ptr(), keys.len()) };
        Some(filter)
    }
    fn contains(&self, key: u64) -> bool {
        // SAFETY: a live filter; a lookup does not write to it.
        unsafe { splitbloom_boost_may_contain(self.0.as_ptr(), key) }
    }
    fn count_contained(&self, queries: &[u64]) -> u64 {
        // SAFETY: as in `contains`; `queries` is valid for its length.
        unsafe { splitbloom_boost_count_each(self.0.as_ptr(), queries.as_ptr(), queries.len()) }
    }
    const BATCH: bool = true;
    fn contains_batch(&self, keys: &[u64], out: &mut [bool]) {
        assert!(out.len() >= keys.len(), "an answer for every key");
        // SAFETY: as in `contains`; `out` has room for an answer per key, and C++'s `bool` is
        // Rust's (one byte, 0 or 1).
        unsafe {
            splitbloom_boost_may_contain_bulk(
                self.0.as_ptr(),
                keys.as_ptr(),
                keys.len(),
                out.as_mut_ptr(),
            );
        }
    }
    #[inline(always)]
    fn hash(&self, key: u64) -> Option<u64> {
        Some(mulx64(key))
    }
    fn size_bytes(&self) -> usize {
        self.bits() / 8
    }
}

impl Drop for BoostBloom {
    fn drop(&mut self) {
        // SAFETY: from `splitbloom_boost_new`, freed once.
        unsafe { splitbloom_boost_free(self.0.as_ptr()) };
    }
}
