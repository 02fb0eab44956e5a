//! Fuzz target `from_bytes`: runs `fuzz_checks::from_bytes` from tests/fuzz_checks/mod.rs, the same
//! check the stable corpus replay test (tests/fuzz_corpus.rs) runs.
#![no_main]

#[path = "../../tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::from_bytes(data));
