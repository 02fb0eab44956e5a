//! Fuzz target `roundtrip`: runs `fuzz_checks::roundtrip` from tests/fuzz_checks/mod.rs, the same
//! check the stable corpus replay test (tests/fuzz_corpus.rs) runs.
#![no_main]

#[path = "../../tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::roundtrip(data));
