//! Fuzz target `differential`: runs `splitbloom_fuzz_checks::differential` (fuzz/checks), the
//! same check the stable corpus replay in the main crate's test suite runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| splitbloom_fuzz_checks::differential(data));
