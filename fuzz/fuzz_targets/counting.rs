//! Fuzz target `counting`: runs `fuzz_checks::counting` from tests/fuzz_checks/mod.rs, the same
//! check the stable corpus replay test (tests/fuzz_corpus.rs) runs.
#![no_main]

#[path = "../../tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::counting(data));
