//! [`ParquetHash`] (hasher id 3): XXH64, as Parquet hashes values; it lives with the other
//! hashers, and [`crate::parquet`] re-exports it beside the rest of Parquet's rules.

use core::hash::{BuildHasher, Hasher};

use xxhash_rust::xxh64::{Xxh64, xxh64};

use super::{FilterHasher, HasherKind};
use crate::error::Error;

/// The seed Parquet uses for XXH64.
///
/// ```
/// use splitbloom::{FilterHasher, parquet::{ParquetHash, SEED}};
/// assert_eq!(ParquetHash::default().seed(), SEED);
/// ```
pub const SEED: u64 = 0;

/// The hasher of Parquet bloom filters: XXH64 over the bytes written to it.
///
/// Its [`Hasher`] feeds integers to XXH64 as little-endian bytes, so
/// `filter.insert(&42i64)` hashes like Parquet's `INT64` (and `i32` like `INT32`). Rust's
/// [`Hash`](core::hash::Hash) for strings and slices adds a terminator or a length, which
/// Parquet does not: use [`Filter::insert_value`](crate::Filter::insert_value) and [`Filter::contains_value`](crate::Filter::contains_value) (or
/// [`hash`](crate::parquet::hash)) for strings, byte arrays and floats.
///
/// ```
/// use splitbloom::parquet::{self, ParquetHash};
/// use core::hash::BuildHasher;
/// assert_eq!(ParquetHash::default().hash_one(42i64), parquet::hash(&42i64));
/// assert_ne!(ParquetHash::default().hash_one("text"), parquet::hash("text")); // see above
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParquetHash {
    seed: u64,
}

impl Default for ParquetHash {
    /// Parquet's seed, 0.
    fn default() -> Self {
        ParquetHash { seed: SEED }
    }
}

impl ParquetHash {
    /// The hasher with `seed` (Parquet itself uses 0, the [`Default`]).
    ///
    /// ```
    /// use splitbloom::{FilterHasher, parquet::ParquetHash};
    /// assert_eq!(ParquetHash::with_seed(3).seed(), 3);
    /// ```
    pub const fn with_seed(seed: u64) -> Self {
        ParquetHash { seed }
    }
}

impl FilterHasher for ParquetHash {
    const KIND: HasherKind = HasherKind::ParquetXxh64;

    fn try_with_seed(seed: u64) -> Result<Self, Error> {
        Ok(ParquetHash { seed })
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    /// XXH64 of `bytes` with the seed: Parquet's hash of a `BYTE_ARRAY` value.
    #[inline]
    fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        xxh64(bytes, self.seed)
    }
}

impl BuildHasher for ParquetHash {
    type Hasher = ParquetHasher;

    fn build_hasher(&self) -> ParquetHasher {
        ParquetHasher(Xxh64::new(self.seed))
    }
}

/// The [`Hasher`] of [`ParquetHash`]: streaming XXH64, integers as little-endian bytes.
///
/// ```
/// use core::hash::{BuildHasher, Hasher};
/// let mut hasher = splitbloom::parquet::ParquetHash::default().build_hasher();
/// hasher.write(b"abc");
/// assert_eq!(hasher.finish(), splitbloom::parquet::hash(b"abc"));
/// ```
#[derive(Clone)]
pub struct ParquetHasher(Xxh64);

impl Hasher for ParquetHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn write_u8(&mut self, value: u8) {
        self.0.update(&[value]);
    }

    fn write_u16(&mut self, value: u16) {
        self.0.update(&value.to_le_bytes());
    }

    fn write_u32(&mut self, value: u32) {
        self.0.update(&value.to_le_bytes());
    }

    fn write_u64(&mut self, value: u64) {
        self.0.update(&value.to_le_bytes());
    }

    fn write_u128(&mut self, value: u128) {
        self.0.update(&value.to_le_bytes());
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    fn finish(&self) -> u64 {
        self.0.digest()
    }
}
