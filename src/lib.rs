//! # splitbloom
//!
//! A split-block Bloom filter that answers "definitely not in the set" or "probably in the set"
//! at close to memory speed, with the bit layout of Parquet's SBBF (shared by Impala, Kudu,
//! Arrow, Spark and DuckDB).
//!
//! ```
//! use splitbloom::Filter;
//!
//! let mut filter = Filter::with_fpr(10_000, 0.01)?; // 10,000 keys, 1% false positives
//! filter.insert("alice");
//! filter.insert(&42u64);
//! assert!(filter.contains("alice"));
//! assert!(filter.contains(&42u64));
//! assert!(!filter.contains("bob")); // false means certainly absent
//! # Ok::<(), splitbloom::Error>(())
//! ```
//!
//! ## Design
//!
//! A filter is `z` blocks of 256 bits, each eight 32-bit lanes. A key's 64-bit hash `h`
//! chooses block `((h >> 32) · z) >> 32` (multiply-high, so `z` need not be a power of two) and
//! its low 32 bits `x` set exactly one bit in every lane: bit `(x · SALT[i]) >> 27` of lane `i`,
//! with the eight [`SALT`]s of the Parquet specification. An insert or a lookup therefore
//! touches one 32-byte block (half a cache line) and is one vector multiply, one shift, one
//! variable shift and one OR or test.
//!
//! * **Kernels** ([`Kernel`]): `scalar` (the reference, plain Rust), `portable` (`wide`),
//!   `avx2` (x86_64 intrinsics, detected at run time) and `neon` (aarch64). A filter picks
//!   [`Kernel::best`] once, at construction, and holds the choice by value; each operation is
//!   then one direct call into code compiled for the kernel (for AVX2's single-key lookup, inline
//!   assembly and no call at all). Every kernel produces the same bits and answers as `scalar`;
//!   the test suite checks each against it.
//! * **Batches** ([`Filter::insert_batch`], [`Filter::contains_batch`] and their pre-hashed
//!   forms): one call into the kernel per batch. On filters larger than the L2 cache each key is
//!   hashed and its block prefetched (into L2 on x86_64) 128 keys before it is probed, so a
//!   batch keeps many memory accesses in flight: 4.8 ns per key at 10^8 keys on Zen 4,
//!   against 21 ns one key at a time (`benches/results.md`).
//! * **Hashing** ([`hash`]): keys go through a [`BuildHasher`](core::hash::BuildHasher) with a
//!   stable, documented output: [`Xxh3Hash`] on every target and under every build flag, so
//!   every build writes and reads the same filter bytes ([`GxHash`] is an opt-in). Persisted
//!   string and byte keys go through the byte-key contract ([`Filter::insert_bytes`],
//!   [`Filter::contains_bytes`], [`Filter::hash_bytes`]), whose framing the [`hash`] module
//!   documents for other languages; pre-hashed values go through [`Filter::insert_hash`] and
//!   [`Filter::contains_hash`], as storage engines that hash keys themselves need.
//! * **Variants**: [`AtomicFilter`] (inserts from many threads at once through `&self`,
//!   lock-free), [`CountingFilter`] (4-bit saturating counters, so keys can be removed) and
//!   [`ScalableFilter`] (a chain of filters that grows and keeps its false-positive target), all
//!   with the block choice, lane bits and hashing of [`Filter`].
//! * **Sizing** ([`math`]): from the split-block formula, not the classic Bloom formula, which
//!   under-sizes a blocked filter.
//! * **Storage** ([`format`](mod@format)): a documented little-endian format with a
//!   checksummed 32-byte header; [`FilterRef`] answers straight from stored bytes without
//!   copying them.
//! * **Parquet** ([`parquet`]): Parquet's value hashing, sizing and `BloomFilterHeader`, so a
//!   filter can be taken from, or put into, a Parquet column chunk.
//! * **Shrinking** ([`Filter::fold`], [`Filter::fold_to_fpr`]): halve a filter once the real
//!   key count is known; the result equals the filter built at the smaller size.
//!
//! ## Crate features
//!
//! * `std` (default): run-time CPU feature detection and the `SPLITBLOOM_KERNEL` override.
//!   Without it the crate is `no_std` + `alloc`, and kernels are chosen from the target
//!   features the crate is compiled with.
//! * `cli`: the `splitbloom` command-line tool (`cargo run --release --features cli -- bench`).
//! * `parquet`: `cli` plus `splitbloom parquet-info` (Parquet footers read by the `parquet`
//!   crate).
//! * `serde`: `Serialize`/`Deserialize` for [`Filter`] and [`FilterRef`], as the bytes of
//!   [`format`](mod@format).
//!
//! ## Safety
//!
//! `unsafe` code lives only in two modules, and the crate denies `unsafe_code` everywhere else:
//! the kernels (`src/arch/`), where each kernel is a token type that can only be constructed
//! once its CPU feature has been detected, so holding one proves its `#[target_feature]`
//! functions may be called; and the block storage (`src/storage/`: the aligned, lazily zeroed
//! allocation and its zero-copy atomic view). Inline assembly declares every register it
//! changes, so callers compiled with AVX keep their vector registers
//! (`tests/suite/caller_registers.rs`).

#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(clippy::undocumented_unsafe_blocks)]
// `unsafe` is refused everywhere but in the one module that needs it.
#![deny(unsafe_code)]

extern crate alloc;

#[allow(
    unsafe_code,
    reason = "SIMD intrinsics and the inline-assembly lookup: each `unsafe` block carries its \
              SAFETY argument"
)]
mod arch;
// Needs 32-bit atomic read-modify-write, which a few embedded targets lack.
#[cfg(target_has_atomic = "32")]
mod atomic;
mod block;
mod counting;
mod error;
mod filter;
mod fold;
pub mod format;
pub mod hash;
mod kernel;
mod lookup;
pub mod math;
pub mod parquet;
mod scalable;
#[allow(
    unsafe_code,
    reason = "the block allocator (alloc_zeroed, alignment, huge-page hint) and the zero-copy \
              atomic view of blocks: each `unsafe` block carries its SAFETY argument"
)]
mod storage;

#[doc(hidden)]
pub use arch::testing as __kernel_testing;
#[cfg(target_has_atomic = "32")]
pub use atomic::AtomicFilter;
pub use block::{BLOCK_BYTES, LANES, SALT, block_index, mask};
pub use counting::CountingFilter;
pub use error::Error;
pub use filter::Filter;
pub use format::FilterRef;
pub use hash::{DEFAULT_SEED, DefaultHasher, FilterHasher, GxHash, HasherKind, Xxh3Hash};
pub use kernel::{Kernel, UnknownKernel};
pub use scalable::{ScalableFilter, ScalableParameters};

/// The README's code blocks, compiled and run as doctests so the README never lies.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
