//! The integration test suite, as one test binary with a module per concern.
//!
//! One binary instead of one per file: each configuration CI builds (native, per kernel,
//! x86-64-v3, without AES, under qemu) links the suite once rather than two dozen times against
//! the same dependencies. Run one module with a filter, e.g. `cargo test --test suite kernels::`.
//!
//! A test whose name contains `every_kernel` runs every available kernel itself (through
//! `with_kernel`), independently of the kernel new filters get. The CI runs that force another
//! kernel through `SPLITBLOOM_KERNEL` skip them (`--skip every_kernel`): they would repeat the
//! same work. A test that also uses the default kernel must not be named so.
//!
//! Three files stay binaries of their own: `tests/lazy_memory.rs` reads the process's resident
//! memory, which other tests' allocations would move, `tests/cross_build.rs` is run alone by
//! every configuration of `scripts/cross-build-matrix.sh`, and `tests/caller_registers.rs` is
//! also run in a release build.

mod common;

mod api_matrix;
mod atomic;
mod counting;
mod errors;
mod fold;
mod format;
mod fpr;
mod golden;
mod hash_known_answers;
mod hashing_contract;
mod kernels;
mod layout;
mod math_domain;
mod parquet;
mod platform;
mod properties;
mod quotient;
mod scalable;
mod scalable_format;
mod serde;
mod wide;
mod window;
