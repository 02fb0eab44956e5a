//! Fuzz target `quotient`: runs `splitbloom_fuzz_checks::quotient` (fuzz/checks), the same
//! check the stable corpus replay in fuzz/checks/tests/corpus.rs runs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| splitbloom_fuzz_checks::quotient(data));
