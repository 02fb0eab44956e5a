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
//!   `avx2` and `avx512` (x86_64 intrinsics, detected at run time: AVX2 with BMI2; AVX-512F, VL
//!   and DQ, 256 bits wide) and `neon` (aarch64). A filter picks
//!   [`Kernel::best`] once, at construction, and holds the choice by value; each operation is
//!   then one direct call into code compiled for the kernel (for the AVX2 and AVX-512 kernels'
//!   single-key lookup and insert, inline assembly and no call at all). Every kernel produces
//!   the same bits and answers as `scalar`; the test suite checks each against it.
//! * **Batches** ([`Filter::insert_batch`], [`Filter::contains_batch`] and their pre-hashed
//!   forms): one call into the kernel per batch. On filters of at least half the L2 cache each
//!   key is hashed and its block prefetched 128 keys before it is probed (on x86_64 into L2,
//!   or into L1 on AMD Zen 5, chosen at run time), so a batch keeps many memory accesses in
//!   flight: 4.8 ns per key at 10^8 keys on Zen 4,
//!   against 21 ns one key at a time (`benches/results.md`); 13.7 against 29.3 ns on Zen 3 and
//!   8.7 against 17.5 ns on an Intel Xeon (the README's "Per CPU" section).
//! * **Hashing** ([`hash`]): keys go through a [`BuildHasher`](core::hash::BuildHasher) with a
//!   stable, documented output: [`Xxh3Plain`] (hasher id 4) on every target and under every
//!   build flag, so every build writes and reads the same filter bytes. [`Xxh3Hash`] (id 2, the
//!   previous default) reads older files; [`GxHybrid`] (id 6) is the opt-in gxhash where the
//!   target has AES: XXH3 under 16 bytes, gxhash from 16 up, where gxhash is the faster
//!   ([`GxPlain`], id 5, gxhash at every length, and [`GxHash`], id 1, read the files written
//!   with them). Persisted string and byte
//!   keys go through the byte-key contract ([`Filter::insert_bytes`],
//!   [`Filter::contains_bytes`], [`Filter::hash_bytes`]): for the default, exactly
//!   `XXH3_64_withSeed(key, seed)`, which any XXH3 implementation reproduces. An integer key
//!   costs one folded multiply. Pre-hashed values go through [`Filter::insert_hash`] and
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
//! ## The filter family: every type, every operation
//!
//! The types share one vocabulary, written once (`src/filter/view.rs`) and checked against
//! [`Filter`] for every type by `tests/suite/api_matrix.rs`. "—" marks an operation that does not
//! apply, with the reason.
//!
//! | operation | [`Filter`] | [`FilterRef`] | [`AtomicFilter`] | [`CountingFilter`] | [`ScalableFilter`] |
//! |---|---|---|---|---|---|
//! | `with_fpr`, `with_bits_per_key`, `with_num_blocks`, `…_and_hasher` | ✓ | — read from bytes, never built | ✓ | ✓ | `with_fpr`, `with_parameters`: stages are sized by the parameters |
//! | `insert`, `insert_hash`, `insert_bytes` | ✓ `&mut` | — read-only | ✓ `&self` | ✓ | ✓ `Result`: a new stage can fail |
//! | `insert_batch`, `insert_hash_batch`, `insert_bytes_batch` | ✓ | — | ✓ `&self` | ✓ | ✓ `Result` |
//! | `remove`, `remove_hash`, `remove_bytes`, `remove_batch`, `count_estimate` | — bits are shared by keys | — | — | ✓ | — |
//! | `contains`, `contains_hash`, `contains_bytes`, `hash_bytes` | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `contains_batch`, `contains_hash_batch`, `contains_bytes_batch` (one length check) | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `count_contained`, `count_contained_hashes` | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `to_bytes`, `write_to`, `from_bytes`, `from_bytes_with_hasher` | ✓ | ✓ (+ `from_trusted_bytes`) | ✓ a snapshot, same format | — no counting format: it would need its own magic, version and fuzzing; ship [`CountingFilter::to_filter`]'s bytes | ✓ the `SBLS` container |
//! | `serde` | ✓ | ✓ | — use `to_bytes` | — | — use `to_bytes` |
//! | `kernel`, `with_kernel`, `hasher` | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `num_blocks`, `size_in_bytes` | ✓ | ✓ | ✓ | ✓ (128 bytes a block) | `size_in_bytes`; blocks per stage via `stages()` |
//! | `fill_ratio`, `estimated_fpr` | ✓ | ✓ | ✓ | — counters: use `to_filter()` | `estimated_fpr`; fill per stage |
//! | `union`, `intersect`, `fold`, `fold_to_fpr` | ✓ `Result` | — read-only | — `into_filter()` first | — counters do not combine as sets | — stages differ in size |
//! | `Clone`, `Debug`, `PartialEq` | ✓ | ✓ | ✓ (`Clone` is a snapshot) | ✓ | ✓ |
//! | `Extend` | ✓ | — | ✓ | ✓ | ✓ panics only when a new stage cannot be made |
//! | `FromIterator` | ✓ sized for the keys at 1% | — | — collect a `Filter`, then `into_atomic()` | — a counting filter is sized for its workload | ✓ grows from the size hint, 1% |
//! | `\|=`, `&=` | — | — | — | — | — |
//!
//! There is no `|=` or `&=`: two filters of different sizes or hashers cannot be combined, and
//! an operator could only panic on them. [`Filter::union`] and [`Filter::intersect`] return
//! that as an [`Error`]. Sizes and counts are `usize` everywhere; `u64` appears only in
//! on-disk fields.
//!
//! ## Architecture: a key's path, and where each concern lives
//!
//! `filter.insert(&key)` ([`Filter`], `src/filter/mod.rs`) goes through five rooms:
//!
//! 1. **Hasher** (`src/hash/`, one file per hasher, the shared `Hasher` framing in `mod.rs`):
//!    the filter's `S: BuildHasher` turns the key into a 64-bit `h` ([`Xxh3Plain`] by default,
//!    `xxh3.rs`; [`GxHybrid`], [`GxPlain`] and [`GxHash`], `gxhash.rs`; [`Xxh3Hash`], `xxh3.rs`;
//!    [`ParquetHash`](parquet::ParquetHash), `parquet.rs`; XXH3's inputs over 240 bytes in
//!    AVX2 or AVX-512 chosen at run time, `xxh3_long.rs`); [`FilterHasher::hash_bytes`] is the
//!    byte-key contract another program can reproduce.
//! 2. **Block index** (`src/block.rs`): [`block_index`] picks block `((h >> 32) · z) >> 32`;
//!    this file also holds the layout ([`SALT`], [`mask`], [`LANES`], [`BLOCK_BYTES`]), the
//!    scalar oracle every kernel is tested against, and `MAX_BLOCKS`.
//! 3. **Dispatch** (`src/arch/dispatch.rs`): the filter holds a `Dispatch`, chosen once at
//!    construction ([`Kernel::best`], or `with_kernel`, or `SPLITBLOOM_KERNEL`), and each
//!    operation is one direct call into that kernel's entry points (`EntryPoints` and the
//!    `entry_points!` macro in `src/arch/mod.rs`; batch loops and prefetching in
//!    `src/arch/generic.rs` and `src/arch/prefetch.rs`; the cache sizes that decide when
//!    batches prefetch, detected once, in `src/arch/cache.rs`).
//! 4. **Kernel** (`src/arch/{scalar,portable,avx2,avx512,neon}.rs`): computes the key's eight-lane
//!    mask from the low 32 bits of `h` and ORs it into, or tests it against, the block. The
//!    public label is [`Kernel`] (`src/kernel.rs`, a leaf that imports nothing); the "adding
//!    a kernel" checklist is in `src/arch/mod.rs`.
//! 5. **Block** (`src/storage/`): 32-byte blocks in aligned, lazily zeroed memory (huge pages
//!    for large filters), and the atomic view [`AtomicFilter`] writes through.
//!
//! The other rooms:
//!
//! | where | what |
//! |---|---|
//! | `src/filter/` | the family: `mod.rs` ([`Filter`]), `view.rs` (every read, written once over a `Probe` each type provides, and the macros that write the shared methods), `filter_ref.rs`, `atomic.rs`, `counting.rs`, `scalable.rs`, `fold.rs` (union, intersect, fold) |
//! | `src/format/` | the `SBLM` format: `mod.rs` (constants, [`format::Header`], the one header reader, the codec over plain slices; names no filter type), `serde.rs`, `scalable.rs` (the `SBLS` container) |
//! | `src/parquet/` | `value.rs` (Parquet values as the bytes Parquet hashes), `thrift.rs` (the `BloomFilterHeader` codec), `sizing.rs`; the hasher itself is in `src/hash/parquet.rs` |
//! | `src/math.rs` | false-positive rates and sizing from the split-block formula |
//! | `src/error.rs` | [`Error`] |
//! | `src/bin/splitbloom/` | the CLI (feature `cli`) |
//! | `benches/` (own package), `fuzz/`, `redis/`, `tests/`, `examples/` | benchmarks, fuzzing, the Redis module, tests, examples |
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
//! `unsafe` code lives only in three modules, and the crate denies `unsafe_code` everywhere
//! else: the kernels (`src/arch/`), where each kernel is a token type that can only be
//! constructed once its CPU feature has been detected, so holding one proves its
//! `#[target_feature]` functions may be called; the block storage (`src/storage/`: the
//! aligned, lazily zeroed allocation and its zero-copy atomic view); and XXH3's long-input
//! loop in AVX2 and AVX-512 (`src/hash/xxh3_long.rs`), called right after detecting them, with
//! xxhash-rust's own loop elsewhere. Besides those, `src/hash/mod.rs` implements castaway's
//! `unsafe` marker trait `LifetimeFree` for three hashers (`Xxh3Plain`, `GxPlain`,
//! `GxHybrid`), so that filters can recognise them at compile time; its one requirement, that
//! the type has no lifetime parameters, holds for each. Inline assembly declares every register it
//! changes, so callers compiled with AVX keep their vector registers
//! (`tests/caller_registers.rs`).

#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(clippy::undocumented_unsafe_blocks)]
// `unsafe` is refused everywhere but in the modules that need it (see "Safety" above).
#![deny(unsafe_code)]

extern crate alloc;

#[allow(
    unsafe_code,
    reason = "SIMD intrinsics and the inline-assembly lookup and insert: each `unsafe` block \
              carries its SAFETY argument"
)]
mod arch;
mod block;
mod error;
mod filter;
pub mod format;
pub mod hash;
mod kernel;
pub mod math;
pub mod parquet;
#[allow(
    unsafe_code,
    reason = "the block allocator (alloc_zeroed, alignment, huge-page hint) and the zero-copy \
              atomic view of blocks: each `unsafe` block carries its SAFETY argument"
)]
mod storage;

#[doc(hidden)]
pub use arch::testing as __kernel_testing;
pub use block::{BLOCK_BYTES, LANES, SALT, block_index, mask};
pub use error::Error;
#[cfg(target_has_atomic = "32")]
pub use filter::AtomicFilter;
pub use filter::{CountingFilter, Filter, FilterRef, ScalableFilter};
pub use format::ScalableParameters;
pub use hash::{
    DEFAULT_SEED, DefaultHasher, FilterHasher, GxHash, GxHybrid, GxPlain, HasherKind, Xxh3Hash,
    Xxh3Plain,
};
pub use kernel::{Kernel, UnknownKernel};

/// The README's code blocks, compiled and run as doctests so the README never lies.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
