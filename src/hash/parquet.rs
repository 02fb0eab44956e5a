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
/// Its [`Hasher`] feeds integers to XXH64 as little-endian bytes, so `filter.insert(&42i64)`
/// hashes like Parquet's `INT64` (and `i32` like `INT32`), and, as for every hasher of this
/// crate, a string or byte-string key hashes as its bytes alone (std's length prefix and `str`
/// terminator dropped), so `filter.insert("text")` hashes like Parquet's `BYTE_ARRAY` "text".
/// Floats, and values whose Parquet type is not their Rust type, go through
/// [`Filter::insert_value`](crate::Filter::insert_value) and
/// [`Filter::contains_value`](crate::Filter::contains_value) (or [`hash`](crate::parquet::hash)).
///
/// ```
/// use splitbloom::parquet::{self, ParquetHash};
/// use core::hash::BuildHasher;
/// assert_eq!(ParquetHash::default().hash_one(42i64), parquet::hash(&42i64));
/// assert_eq!(ParquetHash::default().hash_one("text"), parquet::hash("text"));
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
    const KIND: HasherKind = HasherKind::Parquet;

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
        ParquetHasher {
            state: Xxh64::new(self.seed),
            length: None,
            after_bytes: false,
        }
    }
}

/// The [`Hasher`] of [`ParquetHash`]: streaming XXH64, integers as little-endian bytes, std's
/// framing words around a byte write dropped.
///
/// Framed as the other hashers are (see the [module docs](crate::hash)): a `write_usize` is
/// held back until the next call, and dropped if that call writes exactly that many bytes
/// (std's `[u8]` length prefix); a `write_u8(0xff)` directly after a byte write is dropped
/// (std's `str` terminator). Every other integer is fed as its little-endian bytes.
///
/// ```
/// use core::hash::{BuildHasher, Hasher};
/// let mut hasher = splitbloom::parquet::ParquetHash::default().build_hasher();
/// hasher.write(b"abc");
/// assert_eq!(hasher.finish(), splitbloom::parquet::hash(b"abc"));
/// ```
#[derive(Clone)]
pub struct ParquetHasher {
    state: Xxh64,
    /// A `write_usize` not yet fed, which the next byte write may show to be a length prefix.
    length: Option<u64>,
    /// Whether the last call was a byte write.
    after_bytes: bool,
}

impl ParquetHasher {
    /// Feeds a held-back `write_usize`, if any, as its eight little-endian bytes.
    fn flush(&mut self) {
        if let Some(value) = self.length.take() {
            self.state.update(&value.to_le_bytes());
        }
    }

    /// Feeds an integer's little-endian bytes, after any held-back one.
    fn integer(&mut self, bytes: &[u8]) {
        self.flush();
        self.state.update(bytes);
        self.after_bytes = false;
    }
}

impl Hasher for ParquetHasher {
    fn write(&mut self, bytes: &[u8]) {
        if self.length != Some(bytes.len() as u64) {
            self.flush();
        }
        self.length = None;
        self.state.update(bytes);
        self.after_bytes = true;
    }

    fn write_u8(&mut self, value: u8) {
        if self.after_bytes && u64::from(value) == super::framing::STR_TERMINATOR {
            self.after_bytes = false;
            return;
        }
        self.integer(&[value]);
    }

    fn write_u16(&mut self, value: u16) {
        self.integer(&value.to_le_bytes());
    }

    fn write_u32(&mut self, value: u32) {
        self.integer(&value.to_le_bytes());
    }

    fn write_u64(&mut self, value: u64) {
        self.integer(&value.to_le_bytes());
    }

    fn write_u128(&mut self, value: u128) {
        self.integer(&value.to_le_bytes());
    }

    fn write_usize(&mut self, value: usize) {
        self.flush();
        self.length = Some(value as u64);
        self.after_bytes = false;
    }

    fn finish(&self) -> u64 {
        match self.length {
            Some(value) => {
                let mut state = self.state.clone();
                state.update(&value.to_le_bytes());
                state.digest()
            }
            None => self.state.digest(),
        }
    }
}
