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
//! | a false-positive rate of 0.1% or below | [`WideFilter::with_fpr`]`(n, fpr)`: 64-byte blocks, 1.08-1.14x the classic optimum's memory where [`Filter`] needs 1.17-2.25x |
//! | many threads inserting into one live filter | [`AtomicFilter`] (or one [`Filter`] per thread, then [`Filter::union`]) |
//! | to remove keys | [`QuotientFilter`]: a short tag per key in one of two 64-byte blocks, 11.2 bits per key at 0.44% (19.3 at 2.3·10^-5), where [`CountingFilter`] (4-bit counters) needs 42.1 at 1%; `CountingFilter` when readers need a plain [`Filter`] (`to_filter()`) or the filter must never refuse a key. Remove only keys you inserted |
//! | an unknown number of keys | [`ScalableFilter`]: grows by stages and keeps its false-positive target; its inserts return a `Result`, since a new stage can fail to be made |
//! | keys that expire: "seen in the last G periods" | [`WindowFilter`]: `G` generations, `rotate()` forgets the oldest, keys older than the window answer like absent ones, no rebuild; [`AtomicWindowFilter`] for readers on other threads. Memory and lookup cost against a [`Filter`] of the same keys: BENCHMARKS.md, "Window" |
//! | answers from stored bytes without copying them | [`FilterRef`]; [`WideFilterRef`] for a [`WideFilter`]'s |
//! | a Parquet column chunk's bloom filter | [`parquet`], with [`ParquetHash`](parquet::ParquetHash) |
//!
//! Removal and expiry are different needs: a [`CountingFilter`] forgets a key when its owner
//! says so (and only a key that was inserted may be removed), a [`WindowFilter`] forgets every
//! key of a period at once when the period leaves the window.
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
//!   ([`Filter::fold_to_fpr`]) once the real count is known. A rate no filter of the type can
//!   reach is an [`Error::TooLargeForRate`] that names the keys, the rate and the limit.
//! * **Layout**: [`Filter`] is the Parquet layout, best near 1%. For targets of 0.1% and
//!   below, [`WideFilter`] ([`math::wide`]): its lookups are as fast as `Filter`'s at 0.1% (one
//!   line) and take 1.4-1.9x as long below (two lines).

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
//! * **Layouts are policies** ([`Layout`], [`layout`]): [`BloomFilter<S, L>`](BloomFilter) is
//!   written once, and its layout parameter says how a hash becomes bits in blocks, as
//!   Boost.Bloom's block policies do. [`Filter`] is `BloomFilter<S, SplitBlock>`,
//!   [`WideFilter`] is `BloomFilter<S, Wide>` (64-byte blocks of eight 64-bit words, one or two
//!   neighbouring blocks per key); [`BloomFilterRef`] views either from bytes, and
//!   [`ScalableFilter`] chains stages of either. The window layout ([`WindowFilter`]) keeps a
//!   block index's `G` generations side by side as planes of 128 or 256 bits, so a key's
//!   generations are one or two cache lines, tested together.
//! * **Kernels** ([`Kernel`]): `scalar` (the reference, plain Rust), `portable` (`wide`),
//!   `avx2` and `avx512` (x86_64, detected at run time: AVX2 with BMI2; AVX-512F, VL, DQ and
//!   BW; both with POPCNT) and `neon` (aarch64). Each implements one primitive per layout (the block test and
//!   insert); every operation (single keys, the prefetching batch loops) is written once over
//!   those primitives and runs inside the kernel's one entry point. A filter holds its kernel
//!   by value, and each operation is one direct call into code compiled for it. The test suite
//!   checks every kernel's every output against `scalar`.
//! * **Variants**: [`AtomicFilter`], [`CountingFilter`], [`ScalableFilter`] and
//!   [`WindowFilter`] (with [`AtomicWindowFilter`]) share the block choice, lane bits and
//!   hashing of [`Filter`]; every read and every write is written once for all of them.
//! * **Removal** ([`QuotientFilter`]): a filter of another family, a vector quotient filter
//!   (Pandey et al., SIGMOD 2021) in 64-byte blocks of tags and bucket metadata
//!   ([`math::quotient`], `docs/FORMAT.md`), with the kernels' contract, the hashing, the
//!   storage, the format header and the family's reads and writes.
//! * **Sizing** ([`math`]): from each layout's own false-positive formula, not the classic
//!   Bloom formula, which under-sizes a blocked filter.
//! * **Shrinking** ([`Filter::fold`], [`Filter::fold_to_fpr`]): halving a filter gives exactly
//!   the filter built at the smaller size.
//!
//! ## The filter family: every type, every operation
//!
//! The types share one vocabulary, written once (the reads by `read_methods!` over
//! `src/filter/view.rs`, the writes by `write_methods!` over `src/filter/write.rs`, the
//! constructors and accessors by `shared_methods!`) and checked type by type by
//! `tests/suite/api_matrix.rs`. A mistake in a call is still reported at your call site; only
//! rustc's "defined here" note points into the macro. [`Filter`] and [`WideFilter`] are one
//! type, [`BloomFilter`], and so are their views. "—" marks an operation that does not apply,
//! with the reason.
//!
//! | operation | [`Filter`], [`WideFilter`] | [`FilterRef`], [`WideFilterRef`] | [`AtomicFilter`] | [`CountingFilter`] | [`ScalableFilter`] | [`WindowFilter`] | [`AtomicWindowFilter`] | [`QuotientFilter`], [`QuotientFilterRef`] |
//! |---|---|---|---|---|---|---|---|---|
//! | `with_fpr`, `…_and_hasher` | ✓ | — read from bytes, never built | ✓ | ✓ | `with_fpr`, `with_parameters`, `with_layout` | ✓ `(items per generation, fpr, G)` | — `WindowFilter::into_atomic` | `with_fpr`, `with_capacity` (keys, tag bits) |
//! | `with_bits_per_key`, `with_num_blocks` | ✓ (`WideFilter::with_num_blocks(z, probes)`) | — | ✓ | ✓ | — stages are sized by the parameters | — the plane size and block count are chosen together from the rate | — | `with_num_blocks(z, tag_bits)`; sized by load, not bits per key |
//! | `insert`, `insert_hash`, `insert_bytes` (`true` when new) and their `_batch` forms, `Extend` | ✓ `&mut` | — read-only | ✓ `&self` | ✓ | ✓ `Result`: a new stage can fail (`Extend` panics then) | ✓ into the newest generation | ✓ through its one `writer()` | ✓ `Result`: a full filter refuses (`Error::Full`), `Extend` is left out; `insert_copy…` add another copy |
//! | `remove`, `remove_hash`, `remove_bytes`, `remove_batch`, `count_estimate` | — bits are shared by keys | — | — | ✓ | — | — keys leave by `rotate` | — | ✓ one copy; `count` for `count_estimate` |
//! | `contains`, `contains_hash`, `contains_bytes`, `hash_bytes` and their `_batch` and `count_contained` forms | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ any generation | ✓ during a `rotate` too | ✓ |
//! | `to_bytes`, `write_to`, `from_bytes`, `from_bytes_with_hasher_type` | ✓ | ✓ (+ `from_trusted_bytes`) | ✓ a snapshot, same format | — no counting format: it would need its own magic, version and fuzzing; ship [`CountingFilter::to_filter`]'s bytes | ✓ the `SBLS` container | ✓ the `SBLW` format | — `into_window` first | ✓ `SBLM` layout ids 5 and 6; `QuotientFilterRef` views them in place |
//! | `serde` | ✓ | ✓ | — use `to_bytes` | — | — use `to_bytes` | — use `to_bytes` | — | — use `to_bytes` |
//! | `kernel`, `with_kernel`, `hasher` | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | `kernel`, `hasher` | ✓ |
//! | `num_blocks`, `size_in_bytes` | ✓ | ✓ | ✓ | ✓ (128 bytes a block) | `size_in_bytes`; blocks per stage via `stages()` | ✓ (`num_blocks` block indices of `G` planes) | `num_blocks` | ✓ (64 bytes a block) |
//! | `fill_ratio`, `estimated_fpr`, `estimated_items` | ✓ | ✓ | ✓ | — counters: use `to_filter()` | `estimated_fpr`, `estimated_items`; fill per stage | ✓ (+ `generation_fill_ratios`) | — `into_window` first | `estimated_fpr`; `len`, `load`, `capacity` are exact |
//! | `union`, `intersect` | ✓ `Result` | — read-only | — `into_filter()` first | — counters do not combine as sets | — stages differ in size | — generations rotate apart | — | — tags do not combine as bits do |
//! | `fold`, `fold_to_fpr` | [`Filter`] only: a wide key's second block does not follow its first when the groups halve | — | — | — | — | — | — | — |
//! | `Clone`, `Debug`, `PartialEq` | ✓ | ✓ | ✓ (`Clone` is a snapshot) | ✓ | ✓ | ✓ | `Debug` | ✓ (the `Ref`: `Clone`, `Debug`) |
//! | `FromIterator` | ✓ sized for the keys at 1% (0.1% for `WideFilter`) | — | — collect a `Filter`, then `into_atomic()` | — a counting filter is sized for its workload | ✓ grows from the size hint, 1% | — a window is sized per generation | — | — sized for its workload, and an insert can be refused |
//! | `\|=`, `&=` | — | — | — | — | — | — | — | — |
//!
//! There is no `|=` or `&=`: two filters of different sizes or hashers cannot be combined, and
//! an operator could only panic on them. [`Filter::union`] and [`Filter::intersect`] return
//! that as an [`Error`].
//!
//! ## Where each concern lives
//!
//! `filter.insert(&key)` goes through five layers, each importing only the ones before it:
//!
//! 1. **Hasher** (`src/hash/`): the filter's `S: BuildHasher` turns the key into a 64-bit `h`;
//!    [`FilterHasher::hash_bytes`] is the byte-key contract another program can reproduce.
//! 2. **Layout** (`src/layout/`): where a hash's bits lie: `split_block.rs` ([`block_index`],
//!    [`SALT`], [`mask`], [`LANES`], [`BLOCK_BYTES`]), `wide.rs`, `window.rs`, each with the
//!    scalar reference every kernel is tested against.
//! 3. **Dispatch** (`src/arch/dispatch.rs`): the kernel chosen once, at construction; the
//!    operations every layout shares, with the batch loops and their prefetching, in
//!    `src/arch/batch.rs`.
//! 4. **Kernel** (`src/arch/{scalar,portable}.rs`, `src/arch/{avx2,avx512,neon}/`, one file per
//!    layout): the key's mask, ORed into or tested against its block.
//! 5. **Storage** (`src/storage/`): aligned, lazily zeroed memory (huge pages for large
//!    filters) and the atomic views [`AtomicFilter`] and [`AtomicWindowFilter`] write through.
//!
//! | where | what |
//! |---|---|
//! | `src/filter/` | the family: `bloom/` ([`BloomFilter`]: construction, inserts and lookups, statistics, bytes, `union`/`intersect`/`fold`), `layout.rs` (the [`Layout`] trait), `filter_ref.rs`, `view.rs` and `read_methods.rs` (every read), `write.rs` and `write_methods.rs` (every write), `shared.rs` (constructors and accessors), `atomic.rs`, `counting.rs`, `scalable/`, `window/`, `atomic_window.rs`, `quotient/` ([`QuotientFilter`] and [`QuotientFilterRef`], another family), `serde.rs` |
//! | `src/layout/` | the layouts: where a hash's bits (or a quotient filter's tag) lie, and their scalar references |
//! | `src/arch/` | the kernels and the one place that chooses among them (its module docs: adding a kernel, adding a layout) |
//! | `src/format/` | the `SBLM`, `SBLS` and `SBLW` codecs over plain slices: header, checksum, bitset bytes; names no filter type |
//! | `src/math/` | false-positive rates and sizing: the split-block formula (`lanes.rs`), the wide and window layouts', the quotient filter's (`quotient.rs`) |
//! | `src/hash/` | the hashers and the byte-key contract, XXH3's SIMD long-input loop |
//! | `src/storage/` | the blocks' memory |
//! | `src/parquet/` | Parquet values as the bytes Parquet hashes, the `BloomFilterHeader` codec, sizing |
//! | `src/error.rs`, `src/kind.rs` | [`Error`]; [`Kernel`], [`HasherKind`], [`LayoutKind`] |
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
//! aligned, lazily zeroed allocation and its zero-copy atomic view). `src/hash/` holds two
//! more: XXH3's long-input loop in AVX2 and AVX-512 (`xxh3_long.rs`), called right after
//! detecting them, and castaway's `unsafe` marker trait `LifetimeFree` for the three hashers
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
