//! Key hashing: three [`BuildHasher`]s with a stable, documented output, so a filter built in
//! one process answers correctly in another (and, through the on-disk format, in another
//! program).
//!
//! # Which hasher
//!
//! | hasher | id | when |
//! |---|---:|---|
//! | [`Xxh3`] | 4 | the default of every filter, on every target and under every build flag |
//! | [`GxHash`] | 6 | opt-in, for long keys: XXH3 under 16 bytes, gxhash from 16 up; needs AES at compile time |
//! | [`ParquetHash`] | 3 | Parquet's XXH64, for filters that Parquet readers use |
//!
//! A filter built from the same keys has the same bytes whichever binary built it, and every
//! build reads every other build's files (gxhash's only where it can compute gxhash). A
//! dependent crate gets [`Xxh3`] without any feature or flag. To pick another hasher, name it:
//! `Filter::with_fpr_and_hasher(n, fpr, hasher)`, `FilterRef::<H>::from_bytes_with_hasher_type(..)`.
//!
//! # One rule for strings
//!
//! **A string or byte-string key hashes as its bytes, with every hasher.** `insert("alice")`,
//! `insert(&"alice")`, `insert(&String::from("alice"))`, `insert(&b"alice"[..])`,
//! `insert(&vec)` and `insert(b"alice")` (a `[u8; N]`) all give the hash of
//! `insert_bytes(b"alice")`, as do `Box<str>`, `Cow<str>` and references to any of these: the
//! hashers drop the framing words std's [`Hash`] adds around the bytes (the length before a
//! `[u8]`, the `0xff` after a `str`), so what std does or may do with them reaches no filter.
//! Use whichever form is at hand; persisted filters can be queried from any language with the
//! byte contract below. `tests/suite/hashing_contract.rs` checks the rule for every key type
//! and hasher.
//!
//! # The byte contract (stable, reproducible in any language)
//!
//! [`FilterHasher::hash_bytes`], and the `insert_bytes` / `contains_bytes` entry points of every
//! filter type, hash exactly the given bytes (`seed` is the filter's seed, stored in its
//! header):
//!
//! * [`Xxh3`]: `h = XXH3_64_withSeed(bytes, seed)`. With the default seed 0 that is
//!   `XXH3_64bits(bytes)`, e.g. `xxhsum -H3` or Python's `xxhash.xxh3_64_intdigest`.
//! * [`GxHash`]: `h = XXH3_64_withSeed(bytes, seed)` when `len < 16`, else `h =
//!   gxhash64(bytes, seed ^ len)`, where `len` is the number of bytes and gxhash64 is gxhash
//!   3.x's `gxhash64(input, seed as i64)`. Two distinct keys can only collide as any two 64-bit
//!   hashes do: keys of one side are distinct inputs of one function, and the two functions are
//!   unrelated.
//! * [`ParquetHash`]: `h = XXH64(bytes, seed)`: Parquet's hash of a `BYTE_ARRAY` value.
//!
//! The 64-bit `h` then picks block `((h >> 32) · z) >> 32` and the lane bits from `h as u32`
//! (see [`format`](crate::format)).
//!
//! # Other keys: what `insert(&key)` means for `key: impl Hash`
//!
//! `insert(&key)`, `contains(&key)` and the batch forms hash `key` through Rust's [`Hash`]
//! trait: `h = hasher.hash_one(&key)`. Each hasher defines what each [`Hasher`] call does
//! (below); which calls a type makes is up to its `Hash` impl. Integers (`u8` ..= `u128`,
//! `i8` ..= `i128`, `usize`/`isize` as 64-bit, `bool`, `char`), and tuples and derived structs
//! of them and of strings, are stable: `Hash` feeds each integer to the matching `write_*`
//! call, which the language has always done. Arrays and slices of integers other than bytes are
//! hashed by std as one byte write of their *native-endian* bytes, so they are stable only
//! between targets of the same endianness.
//!
//! ## The hasher of [`Xxh3`] and [`GxHash`]
//!
//! Described here for [`Xxh3`]; for [`GxHash`] read its byte hash (above, with the state as the
//! seed) wherever `XXH3_64_withSeed(bytes, state)` is written. With `fold(a, b)` the XOR of the
//! low and high 64-bit halves of the 128-bit product `a · b` (all arithmetic modulo 2^64):
//!
//! Every integer write (`write_u8` ..= `write_u64`, `write_usize`, and the signed, `bool` and
//! `char` writes, which std forwards to them) is one 64-bit *word*, zero-extended;
//! `write_u128` is two words, low half first. The hasher keeps a state (starting at `seed`)
//! and at most one buffered word `w`. *Folding* `w` into the state is `state = fold(a, rotl(a,
//! 32) ^ 0x9e3779b97f4a7c15)` where `a = state ^ w ^ 0x243f6a8885a308d3` and `rotl` rotates left
//! (the constant keeps state 0 and word 0 from folding to 0; the rotated second factor lets a
//! key's high bits reach every output bit):
//!
//! * a word: if a word is buffered, it is folded in; then the new word is buffered,
//!   **except** the value `0xff` directly after a byte write (std's `str` terminator), which
//!   is dropped;
//! * `write(bytes)`: a buffered word `w` is folded in if `w != bytes.len()` and dropped if
//!   `w == bytes.len()` (std's `[u8]` length prefix); then `state = XXH3_64_withSeed(bytes,
//!   state)`;
//! * `finish`: a buffered word is folded in; the result is the state.
//!
//! So one integer key `k` is `fold(a, rotl(a, 32) ^ 0x9e3779b97f4a7c15)` with `a = seed ^ k ^
//! 0x243f6a8885a308d3`: one 64×64→128-bit multiply in all; a tuple of `n` integers costs `n`
//! multiplies, each word folded into a state that depends on all the words before it (order
//! matters). A string or byte-string key is exactly `XXH3_64_withSeed(bytes, seed)`, the byte
//! contract.
//!
//! **Distinct keys stay distinct.** Only integer words are ever dropped, never bytes, and only
//! a word whose value is fixed by its neighbour (the length of the byte write it precedes, or
//! `0xff` right after a byte write). Two values of one type could only collide structurally if
//! their `Hash` impls made the same calls except for the presence of such a word; std's
//! impls never do that (a type's field layout decides where each word is, and the words that
//! decide layout, such as enum discriminants and collection lengths, are kept unless they
//! equal the next write's length, which the writes that follow still determine). Every other
//! collision is a collision of XXH3 or of the folded multiply, as for any 64-bit hash.
//!
//! ## The hasher of [`ParquetHash`]
//!
//! Streaming XXH64 with the seed: a byte write feeds its bytes, an integer write its
//! little-endian bytes (so `insert(&42i64)` is Parquet's `INT64` hash), and the same two framing
//! words are dropped (see [`ParquetHasher`]).
//!
//! ```
//! use core::hash::BuildHasher;
//! use splitbloom::{FilterHasher, Xxh3};
//! // The same key, seed and algorithm give the same hash in every process and every build.
//! assert_eq!(Xxh3::with_seed(5).hash_one("key"), Xxh3::with_seed(5).hash_one("key"));
//! // The default's byte contract is XXH3 itself, and a string hashes as its bytes.
//! let xxh3 = xxhash_rust::xxh3::xxh3_64_with_seed(b"key", 5);
//! assert_eq!(Xxh3::with_seed(5).hash_bytes(b"key"), xxh3);
//! assert_eq!(Xxh3::with_seed(5).hash_one("key"), xxh3);
//! ```

use core::hash::{BuildHasher, Hasher};

use crate::error::Error;
pub use crate::kind::HasherKind;

#[macro_use]
mod framing;
mod gxhash;
pub(crate) mod parquet;
#[allow(
    unsafe_code,
    reason = "castaway's `unsafe` marker trait for the three hashers, a promise about lifetimes"
)]
mod type_cast;
mod xxh3;
#[allow(
    unsafe_code,
    reason = "XXH3's long-input loop in AVX2 and AVX-512 intrinsics, called right after detecting \
              them: each `unsafe` block carries its SAFETY argument"
)]
mod xxh3_long;

pub use gxhash::{GxHash, GxHasher};
pub use parquet::{ParquetHash, ParquetHasher};
pub use xxh3::{Xxh3, Xxh3Hasher};

/// The seed of [`Xxh3::default()`]: zero.
///
/// ```
/// use splitbloom::{DEFAULT_SEED, FilterHasher, Xxh3};
/// assert_eq!(Xxh3::default().seed(), DEFAULT_SEED);
/// ```
pub const DEFAULT_SEED: u64 = 0;

/// A [`BuildHasher`] with a stable identity (kind and seed) and a byte contract, as filters
/// need. Implemented by exactly the three hashers of this module: [`Xxh3`], [`GxHash`] and
/// [`ParquetHash`].
///
/// For each of them a string or byte-string key hashes as its bytes (the
/// [rule for strings](self#one-rule-for-strings)): `hasher.hash_one("key") ==
/// hasher.hash_bytes(b"key")`.
///
/// ```
/// use splitbloom::{FilterHasher, Xxh3};
/// use core::hash::BuildHasher;
/// let hasher = Xxh3::try_with_seed(42)?;
/// assert_eq!(hasher.seed(), 42);
/// assert_eq!(hasher.hash_one(7u64), Xxh3::with_seed(42).hash_one(7u64));
/// assert_eq!(hasher.hash_one("key"), hasher.hash_bytes(b"key"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub trait FilterHasher: BuildHasher + Clone + PartialEq {
    /// The algorithm.
    const KIND: HasherKind;
    /// A hasher of this kind with `seed`, or [`Error::HasherUnavailable`] when this build
    /// cannot compute it (only [`GxHash`], without AES at compile time).
    ///
    /// ```
    /// use splitbloom::{Error, FilterHasher, GxHash, HasherKind, Xxh3};
    /// assert_eq!(Xxh3::try_with_seed(7)?.seed(), 7);
    /// match GxHash::try_with_seed(7) {
    ///     Ok(hasher) => assert_eq!(hasher.seed(), 7),
    ///     Err(error) => assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHash)),
    /// }
    /// # Ok::<(), Error>(())
    /// ```
    fn try_with_seed(seed: u64) -> Result<Self, Error>;
    /// The seed.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, Xxh3};
    /// assert_eq!(Xxh3::try_with_seed(3)?.seed(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    fn seed(&self) -> u64;
    /// The 64-bit hash of exactly `bytes`, as the [byte contract](self#the-byte-contract-stable-reproducible-in-any-language)
    /// defines it: the same as one [`Hasher::write`] of `bytes` on a fresh hasher, then
    /// [`Hasher::finish`], and as `hash_one` of a string or byte-string key with these bytes.
    ///
    /// ```
    /// use core::hash::{BuildHasher, Hasher};
    /// use splitbloom::{FilterHasher, Xxh3};
    /// let hasher = Xxh3::with_seed(5);
    /// let mut state = hasher.build_hasher();
    /// state.write(b"user:42");
    /// assert_eq!(hasher.hash_bytes(b"user:42"), state.finish());
    /// assert_eq!(
    ///     hasher.hash_bytes(b"user:42"),
    ///     xxhash_rust::xxh3::xxh3_64_with_seed(b"user:42", 5)
    /// );
    /// ```
    fn hash_bytes(&self, bytes: &[u8]) -> u64;
}

/// `hasher.hash_one(key)`, inlined into every caller: the one way a filter hashes a key.
///
/// std's `BuildHasher::hash_one` is not always inlined for byte-string keys, and a call keeps
/// the hasher's state in memory; inlined, the state stays in registers.
///
/// For a `str`, `[u8]`, `String` or `Vec<u8>` key and one of the three hashers of this module,
/// this is [`FilterHasher::hash_bytes`] of the key's bytes, the whole byte hash inline, as
/// `contains_bytes` computes it: the same value (the [rule for strings](self#one-rule-for-strings)),
/// decided at compile time, and faster than std's `<str as Hash>::hash`, which can inline only
/// the shortest of XXH3's paths (`BENCHMARKS.md`, "Hashing"). Other key types, references to
/// strings (`&&str`) among them, take std's `Hash`, which gives the same hash.
#[inline(always)]
#[expect(
    clippy::manual_hash_one,
    reason = "the point: `hash_one` itself is not inlined (see above)"
)]
pub(crate) fn hash_key<S: BuildHasher, K: core::hash::Hash + ?Sized>(hasher: &S, key: &K) -> u64 {
    if let Some(bytes) = byte_string(key)
        && let Some(hash) = contract_hash_bytes(hasher, bytes)
    {
        return hash;
    }
    let mut state = hasher.build_hasher();
    key.hash(&mut state);
    state.finish()
}

/// The bytes of `key` when `K` is `str`, `[u8]`, `String` or `Vec<u8>`; `None` for every other
/// type. Decided at compile time: each cast compares two type ids, which LLVM folds (castaway;
/// references such as `&str` cannot be cast, their lifetime not being `'static`).
#[inline(always)]
pub(crate) fn byte_string<K: ?Sized>(key: &K) -> Option<&[u8]> {
    if let Ok(text) = castaway::cast!(key, &str) {
        return Some(text.as_bytes());
    }
    if let Ok(bytes) = castaway::cast!(key, &[u8]) {
        return Some(bytes);
    }
    if let Ok(text) = castaway::cast!(key, &alloc::string::String) {
        return Some(text.as_bytes());
    }
    if let Ok(bytes) = castaway::cast!(key, &alloc::vec::Vec<u8>) {
        return Some(bytes);
    }
    None
}

/// `hasher.hash_bytes(bytes)` when `S` is one of the three hashers of this module; `None` for
/// every other `S` (a user's `BuildHasher`), decided at compile time. castaway needs the three
/// to implement its `LifetimeFree` marker, an `unsafe` promise kept in `type_cast.rs`.
#[inline(always)]
pub(crate) fn contract_hash_bytes<S>(hasher: &S, bytes: &[u8]) -> Option<u64> {
    if let Ok(hasher) = castaway::cast!(hasher, &Xxh3) {
        return Some(hasher.hash_bytes(bytes));
    }
    if let Ok(hasher) = castaway::cast!(hasher, &GxHash) {
        return Some(hasher.hash_bytes(bytes));
    }
    if let Ok(hasher) = castaway::cast!(hasher, &ParquetHash) {
        return Some(hasher.hash_bytes(bytes));
    }
    None
}

/// Keys of a byte-key batch hashed per chunk, before the chunk's hashes go through the
/// pre-hashed batch path: 8 KiB of hashes on the stack. Large, because each switch from hashing
/// to probing stalls the next chunk's hashing on cache misses as the keys' bytes stream in
/// (`BENCHMARKS.md`, "Kernels").
pub(crate) const BYTES_CHUNK: usize = 1024;

/// Calls `visit(first, hashes)` for consecutive chunks of `keys`, where `hashes` are the byte
/// contract hashes of `keys[first..first + hashes.len()]`; no allocation.
#[inline]
pub(crate) fn for_each_hashed_chunk<S: FilterHasher, K: AsRef<[u8]>>(
    hasher: &S,
    keys: &[K],
    mut visit: impl FnMut(usize, &[u64]),
) {
    let mut hashes = [0u64; BYTES_CHUNK];
    for (index, chunk) in keys.chunks(BYTES_CHUNK).enumerate() {
        let hashes = &mut hashes[..chunk.len()];
        for (hash, key) in hashes.iter_mut().zip(chunk) {
            *hash = hasher.hash_bytes(key.as_ref());
        }
        visit(index * BYTES_CHUNK, hashes);
    }
}

#[cfg(test)]
mod tests;
