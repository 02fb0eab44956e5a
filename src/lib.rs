//! # splitbloom
//!
//! A Bloom filter is a compact set that answers "certainly not in the set" or "probably in the
//! set": about 10.5 bits per key for 1% false positives, and never a false negative. Use one in
//! front of an expensive lookup (a disk read, a network call, the probe side of a join), to
//! drop duplicates from a stream, or to skip Parquet row groups. It cannot list its keys or
//! answer exactly; for that, use a `HashSet`.
//!
//! splitbloom is a *split-block* Bloom filter: every key touches one 32-byte block, so an
//! insert or a lookup costs one memory access, computed with SIMD on the CPU's best kernel,
//! chosen at run time. Its bits are those of Parquet's SBBF (shared by Impala, Kudu, Arrow,
//! Spark and DuckDB), and the same keys give the same bytes on every target and build.
//!
//! ## Quick start
//!
//! ```
//! use splitbloom::{Filter, FilterRef};
//!
//! let mut filter = Filter::with_fpr(10_000, 0.01)?; // 10,000 keys, 1% false positives
//! assert!(filter.insert("alice"));   // `true`: newly inserted, as `HashSet::insert` says
//! assert!(!filter.insert("alice"));  // `false`: already present
//! filter.insert(&42u64);             // any `Hash` key
//! assert!(filter.contains("alice") && filter.contains(&42u64));
//! assert!(!filter.contains("bob"));  // `false` means certainly absent
//!
//! // Drop duplicates from a stream, the std way.
//! let mut seen = Filter::with_fpr(1_000, 0.001)?;
//! let unique: Vec<_> = ["a", "b", "a", "c"].into_iter().filter(|word| seen.insert(word)).collect();
//! assert_eq!(unique, ["a", "b", "c"]);
//!
//! // Persist it, and answer straight from the stored bytes (e.g. an mmap'd file).
//! let bytes = filter.to_bytes();
//! let stored = FilterRef::from_bytes(&bytes)?; // checks the checksum, copies nothing
//! assert!(stored.contains("alice"));
//! # Ok::<(), splitbloom::Error>(())
//! ```
//!
//! ## Which one to pick
//!
//! | you need | pick |
//! |---|---|
//! | a set of about `n` keys, one writer | [`Filter::with_fpr`]`(n, fpr)` |
//! | many threads inserting into one live filter | [`AtomicFilter`] (or one [`Filter`] per thread, then [`Filter::union`]) |
//! | to remove keys | [`QuotientFilter`]: a short tag per key in one of two 64-byte blocks, 11.2 bits per key at 0.44% (19.3 at 2.3·10^-5), where [`CountingFilter`] (4-bit counters) needs 42.1 at 1%; `CountingFilter` when readers need a plain [`Filter`] (`to_filter()`) or the filter must never refuse a key |
//! | an unknown number of keys | [`ScalableFilter`]: grows, keeps its false-positive target |
//! | keys that expire: "seen in the last G periods" | [`WindowFilter`]: `G` generations, `rotate()` forgets the oldest, keys older than the window answer like absent ones; at G = 3 and 1%, 1.26 times the memory of a `Filter` of the same keys (0.63 times a double-buffered pair) and 2.6-2.7 times its lookup time (BENCHMARKS.md, "Window") |
//! | answers from stored bytes without copying them | [`FilterRef`]; [`WideFilterRef`] for a [`WideFilter`]'s |
//! | a Parquet column chunk's bloom filter | [`parquet`], with [`ParquetHash`](parquet::ParquetHash) |
//!
//! * **Hasher**: keep the default, [`Xxh3`] (XXH3, hasher id 4), on every target. The
//!   opt-in [`GxHash`] (gxhash, id 6) is faster on long keys but exists only in builds with
//!   AES enabled at compile time (`-C target-feature=+aes`); elsewhere reading its filters is
//!   [`Error::HasherUnavailable`]. [`ParquetHash`](parquet::ParquetHash) (XXH64, id 3) is
//!   Parquet's. The [`hash`] module defines each exactly.
//! * **Kernel**: nothing to choose. Each filter takes [`Kernel::best`] when it is built;
//!   `with_kernel` or the `SPLITBLOOM_KERNEL` environment variable force one, for tests and
//!   benchmarks. Every kernel gives the same bits and answers.
//! * **Size**: give the number of keys and the false-positive rate ([`Filter::with_fpr`],
//!   sized with the split-block formula of [`math`]), or bits per key
//!   ([`Filter::with_bits_per_key`]). Sized generously, a filter can be halved later
//!   ([`Filter::fold_to_fpr`]) once the real count is known.
//! * **Layout**: [`Filter`] is the Parquet layout, best near 1%. For targets of 0.1% and
//!   below, [`WideFilter`] (64-byte blocks, one or two neighbouring ones per key,
//!   [`math::wide`]) needs 1.08-1.14x the classic optimum's memory where `Filter` needs
//!   1.17-2.25x; its lookups are as fast as `Filter`'s at 0.1% (one line) and take 1.4-1.9x
//!   as long below (two lines).
//!
//! ## Keys
//!
//! Insert any key with `insert(&key)`. A string or byte-string key (`str`, `String`, `[u8]`,
//! `Vec<u8>`, `[u8; N]` and the smart pointers to them) is hashed as exactly its bytes with
//! every hasher, so `insert("k")` and `insert_bytes(b"k")` are the same key, and another
//! program can reproduce its hash from the [byte-key contract](hash); `insert_bytes` takes any
//! `AsRef<[u8]>` type. Other types are hashed through their `Hash` impl, as a `HashSet` hashes
//! them; a key that is already a well-mixed 64-bit hash goes through
//! [`Filter::insert_hash`] and [`Filter::contains_hash`], as storage engines that hash keys
//! themselves need.
//!
//! ## Batches
//!
//! [`Filter::insert_batch`], [`Filter::contains_batch`] and [`Filter::count_contained`] (and
//! their pre-hashed and byte-key forms) make one call into the kernel per batch. On filters
//! larger than the CPU's caches each key is hashed and its block prefetched well before it is
//! probed, so many memory accesses are in flight at once: several times faster than one key
//! at a time. `BENCHMARKS.md` has the figures, with the commands that measured them.
//!
//! ## Persisting
//!
//! `to_bytes` and `write_to` write a documented little-endian format with a checksummed
//! 32-byte header ([`format`](mod@format); the byte-level specification, with known-answer
//! vectors, is `docs/FORMAT.md`). `from_bytes` reads it back and checks every byte; bad input
//! is an [`Error`], never a panic. [`FilterRef`] answers from the bytes in place. A filter
//! built with another hasher is read with `from_bytes_with_hasher_type`, the hasher named as
//! the type parameter (`Filter::<ParquetHash>::from_bytes_with_hasher_type(&bytes)`): its seed
//! comes from the bytes. `write_to` returns the writer's `std::io::Error`, and `?` converts it
//! to an [`Error`] (and an [`Error`] to a `std::io::Error`), so both fit one function.
//!
//! Sizes and counts are `usize`, as for a `Vec`: they size memory and count the elements of
//! slices, and a count a filter returns can never exceed what a slice holds. A `u64` from a
//! file or a database converts with `usize::try_from`, which fails only where memory could not
//! hold the filter anyway. The on-disk fields are `u64`, the same on every target.
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
//!   `avx2` and `avx512` (x86_64, detected at run time: AVX2 with BMI2 and POPCNT; AVX-512F,
//!   VL, DQ and BW, 256 bits wide for the Bloom layouts) and `neon` (aarch64). A filter holds its kernel by value, and each
//!   operation is one direct call into code compiled for it. The test suite checks every
//!   kernel's every output against `scalar`.
//! * **Variants**: [`AtomicFilter`], [`CountingFilter`], [`ScalableFilter`] and
//!   [`WindowFilter`] (with [`AtomicWindowFilter`]) share the block choice, lane bits and
//!   hashing of [`Filter`]; every read and every write is written once for all of them.
//! * **Removal** ([`QuotientFilter`]): a filter of another family, a vector quotient filter
//!   (Pandey et al., SIGMOD 2021) in 64-byte blocks of tags and bucket metadata
//!   ([`math::quotient`], `docs/FORMAT.md`), with the kernels' contract, the hashing, the
//!   storage, the format header and the family's reads and writes.
//! * **Sizing** ([`math`]): from the split-block formula, not the classic Bloom formula, which
//!   under-sizes a blocked filter.
//! * **Shrinking** ([`Filter::fold`], [`Filter::fold_to_fpr`]): halving a filter gives exactly
//!   the filter built at the smaller size.
//!
//! ## The filter family: every type, every operation
//!
//! The types share one vocabulary, written once (reads in `src/filter/view.rs`, writes in
//! `src/filter/write.rs`) and checked against [`Filter`] for every type by
//! `tests/suite/api_matrix.rs`. "—" marks an operation that does not apply, with the reason.
//!
//! | operation | [`Filter`] | [`FilterRef`] | [`AtomicFilter`] | [`CountingFilter`] | [`ScalableFilter`] | [`QuotientFilter`] |
//! |---|---|---|---|---|---|---|
//! | `with_fpr`, `with_bits_per_key`, `with_num_blocks`, `…_and_hasher` | ✓ | — read from bytes, never built | ✓ | ✓ | `with_fpr`, `with_parameters`: stages are sized by the parameters | `with_fpr`, `with_capacity`, `with_num_blocks(n, tag_bits)`: sized by load, not bits |
//! | `insert`, `insert_hash`, `insert_bytes` (`true` when new) | ✓ `&mut` | — read-only | ✓ `&self` | ✓ | ✓ `Result`: a new stage can fail | ✓ `Result`: a full filter refuses (`Error::Full`); `insert_copy…` add another copy |
//! | `insert_batch`, `insert_hash_batch`, `insert_bytes_batch` | ✓ | — | ✓ `&self` | ✓ | ✓ `Result` | ✓ `Result`, stops at the key that does not fit; `insert_copy_batch` |
//! | `remove`, `remove_hash`, `remove_bytes`, `remove_batch`, `count_estimate` | — bits are shared by keys | — | — | ✓ | — | ✓ one copy; `count` for `count_estimate` |
//! | `contains`, `contains_hash`, `contains_bytes`, `hash_bytes` | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `contains_batch`, `contains_hash_batch`, `contains_bytes_batch` (one length check) | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `count_contained`, `count_contained_hashes`, `count_contained_bytes` | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `to_bytes`, `write_to`, `from_bytes`, `from_bytes_with_hasher_type` | ✓ | ✓ (+ `from_trusted_bytes`) | ✓ a snapshot, same format | — no counting format: it would need its own magic, version and fuzzing; ship [`CountingFilter::to_filter`]'s bytes | ✓ the `SBLS` container | ✓ `SBLM` layout ids 5 and 6; [`QuotientFilterRef`] views them |
//! | `serde` | ✓ | ✓ | — use `to_bytes` | — | — use `to_bytes` | — use `to_bytes` |
//! | `kernel`, `with_kernel`, `hasher` | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |
//! | `num_blocks`, `size_in_bytes` | ✓ | ✓ | ✓ | ✓ (128 bytes a block) | `size_in_bytes`; blocks per stage via `stages()` | ✓ (64 bytes a block) |
//! | `fill_ratio`, `estimated_fpr` | ✓ | ✓ | ✓ | — counters: use `to_filter()` | `estimated_fpr`; fill per stage | `estimated_fpr`; `len`, `load`, `capacity` are exact |
//! | `union`, `intersect`, `fold`, `fold_to_fpr` | ✓ `Result` | — read-only | — `into_filter()` first | — counters do not combine as sets | — stages differ in size | — tags do not combine as bits do |
//! | `Clone`, `Debug`, `PartialEq` | ✓ | ✓ | ✓ (`Clone` is a snapshot) | ✓ | ✓ | ✓ |
//! | `Extend` | ✓ | — | ✓ | ✓ | ✓ panics only when a new stage cannot be made | — an insert can be refused |
//! | `FromIterator` | ✓ sized for the keys at 1% | — | — collect a `Filter`, then `into_atomic()` | — a counting filter is sized for its workload | ✓ grows from the size hint, 1% | — sized for its workload |
//! | `\|=`, `&=` | — | — | — | — | — | — |
//!
//! There is no `|=` or `&=`: two filters of different sizes or hashers cannot be combined, and
//! an operator could only panic on them. [`Filter::union`] and [`Filter::intersect`] return
//! that as an [`Error`].
//!
//! The writes are plain methods, each calling one shared function. The reads, the
//! constructors and the accessors are generated for all five types by one macro each
//! (`src/filter/view.rs`, `src/filter/shared.rs`), so that no type can drift from the others. A
//! mistake in such a call is still reported at your call site; only rustc's "defined here" note
//! points into the macro.
//!
//! ## Where each concern lives
//!
//! `filter.insert(&key)` goes through five layers, each importing only the ones before it:
//!
//! 1. **Hasher** (`src/hash/`): the filter's `S: BuildHasher` turns the key into a 64-bit `h`;
//!    [`FilterHasher::hash_bytes`] is the byte-key contract another program can reproduce.
//! 2. **Block index** (`src/block.rs`): [`block_index`], the layout ([`SALT`], [`mask`],
//!    [`LANES`], [`BLOCK_BYTES`]) and the scalar oracle every kernel is tested against.
//! 3. **Dispatch** (`src/arch/dispatch.rs`): the kernel chosen once, at construction; batch
//!    loops and prefetching in `src/arch/generic.rs`.
//! 4. **Kernel** (`src/arch/{scalar,portable,avx2,avx512,neon}.rs`): the key's eight-lane mask,
//!    ORed into or tested against the block.
//! 5. **Block** (`src/storage/`): aligned, lazily zeroed memory (huge pages for large filters)
//!    and the atomic view [`AtomicFilter`] writes through.
//!
//! | where | what |
//! |---|---|
//! | `src/filter/` | the family: `owned.rs` ([`Filter`]), `view.rs` (every read), `write.rs` (every write), `shared.rs` (constructors and accessors), `persist.rs`, `filter_ref.rs`, `atomic.rs`, `counting.rs`, `scalable/`, `fold.rs`, `serde.rs` |
//! | `src/format/` | the `SBLM` and `SBLS` codecs over plain slices: header, checksum, bitset bytes; names no filter type |
//! | `src/parquet/` | Parquet values as the bytes Parquet hashes, the `BloomFilterHeader` codec, sizing |
//! | `src/math.rs` | false-positive rates and sizing from the split-block formula |
//! | `src/error.rs` | [`Error`] |
//! | `cli/`, `benches/`, `interop/`, `redis/` (packages of their own), `fuzz/`, `tests/`, `examples/` | the `splitbloom` command-line tool, benchmarks, tests against arrow-rs, the Redis module, fuzzing, tests, examples |
//!
//! ## Crate features
//!
//! * `std` (default): run-time CPU feature detection, the `SPLITBLOOM_KERNEL` override and
//!   `write_to`. Without it the crate is `no_std` + `alloc`, and kernels are chosen from the
//!   target features the crate is compiled with.
//! * `serde`: `Serialize`/`Deserialize` for [`Filter`] and [`FilterRef`], as the bytes of
//!   [`format`](mod@format).
//!
//! ## Safety
//!
//! The crate denies `unsafe_code` except where it must be, and each exception is allowed at
//! its module with the reason: the kernels (`src/arch/`), where each kernel is a token type
//! that can only be constructed once its CPU feature has been detected, so holding one proves
//! its `#[target_feature]` functions may be called; and the block storage (`src/storage/`: the
//! aligned, lazily zeroed allocation and its zero-copy atomic view). `src/arch/` also holds
//! XXH3's long-input loop in AVX2 and AVX-512 (`xxh3_long.rs`), called right after detecting
//! them, and castaway's `unsafe` marker trait `LifetimeFree` for the three hashers
//! (`type_cast.rs`), so that filters recognise them at compile time; its one requirement, that
//! the type has no lifetime parameters, holds for each. Every `unsafe` block carries its
//! `SAFETY` argument. Inline assembly declares every register it changes, so callers compiled
//! with AVX keep their vector registers (`tests/caller_registers.rs`).

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
mod error;
mod filter;
pub mod format;
pub mod hash;
mod kind;
pub mod layout;
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
pub use error::Error;
#[cfg(target_has_atomic = "32")]
pub use filter::AtomicFilter;
#[cfg(target_has_atomic = "64")]
pub use filter::{AtomicWindowFilter, WindowWriter};
pub use filter::{
    BloomFilter, BloomFilterRef, CountingFilter, Filter, FilterRef, Layout, QuotientFilter,
    QuotientFilterRef, ScalableFilter, WideFilter, WideFilterRef, WindowFilter,
};
pub use layout::split_block::{BLOCK_BYTES, LANES, SALT, block_index, mask};
// Defined with the `SBLS` codec, whose header stores it; documented here, beside `ScalableFilter`.
#[doc(inline)]
pub use format::ScalableParameters;
pub use hash::{DEFAULT_SEED, FilterHasher, GxHash, Xxh3};
pub use kind::{HasherKind, Kernel, LayoutKind, TagBits, UnknownKernel};

/// The README's code blocks, compiled and run as doctests so the README never lies.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
