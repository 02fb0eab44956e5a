//! Fuzz target `trusted_bytes`: `FilterRef::from_trusted_bytes` on arbitrary bytes never panics
//! or reads out of bounds, and agrees with `from_bytes` wherever that accepts the bytes. Runs
//! the check in fuzz/checks (`splitbloom_fuzz_checks::trusted_bytes`), which the main crate's
//! `trusted_open` tests also run on stable.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| splitbloom_fuzz_checks::trusted_bytes(data));
