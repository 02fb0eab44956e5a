//! Fuzz target `trusted_bytes`: `FilterRef::from_trusted_bytes` on arbitrary bytes never panics
//! or reads out of bounds, and agrees with `from_bytes` wherever that accepts the bytes. Runs
//! the check in tests/trusted_checks/mod.rs, which tests/trusted_open.rs also runs on stable.
#![no_main]

#[path = "../../tests/trusted_checks/mod.rs"]
mod trusted_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| trusted_checks::trusted_bytes(data));
