//! How Parquet hashes a value: XXH64 over its plain encoding ([`ParquetValue`], [`hash`]).

use alloc::vec::Vec;

use xxhash_rust::xxh64::xxh64;

use crate::hash::parquet::SEED;

/// A value of a Parquet physical type, hashed the way Parquet hashes it: XXH64 with seed 0 over
/// its plain encoding.
///
/// | Rust type | Parquet physical type | bytes hashed |
/// |---|---|---|
/// | `i32`, `u32` | `INT32` | 4, little-endian |
/// | `i64`, `u64` | `INT64` | 8, little-endian |
/// | `f32` | `FLOAT` | 4, little-endian IEEE 754 |
/// | `f64` | `DOUBLE` | 8, little-endian IEEE 754 |
/// | `str`, `String`, `[u8]`, `Vec<u8>` | `BYTE_ARRAY` | the bytes, no length prefix |
/// | `[u8; N]` | `FIXED_LEN_BYTE_ARRAY` | the `N` bytes |
///
/// Logical types follow their physical type: an `INT(8)` or `DATE` column stores `INT32`, so
/// hash it as `i32`. Floats are hashed by bit pattern: `0.0` and `-0.0` differ.
///
/// ```
/// use splitbloom::parquet::ParquetValue;
/// assert_eq!(7i32.parquet_hash(), xxhash_rust::xxh64::xxh64(&7i32.to_le_bytes(), 0));
/// assert_eq!("ab".parquet_hash(), b"ab".parquet_hash());
/// ```
pub trait ParquetValue {
    /// XXH64 with `seed` of the value's plain encoding.
    fn xxh64_with_seed(&self, seed: u64) -> u64;

    /// XXH64 with Parquet's seed (0) of the value's plain encoding.
    #[inline]
    fn parquet_hash(&self) -> u64 {
        self.xxh64_with_seed(SEED)
    }
}

/// Implements [`ParquetValue`] for numbers, hashed as their little-endian bytes.
macro_rules! little_endian_values {
    ($($number:ty),*) => {$(
        impl ParquetValue for $number {
            #[inline]
            fn xxh64_with_seed(&self, seed: u64) -> u64 {
                xxh64(&self.to_le_bytes(), seed)
            }
        }
    )*};
}

little_endian_values!(i32, u32, i64, u64, f32, f64);

impl ParquetValue for [u8] {
    #[inline]
    fn xxh64_with_seed(&self, seed: u64) -> u64 {
        xxh64(self, seed)
    }
}

impl<const N: usize> ParquetValue for [u8; N] {
    #[inline]
    fn xxh64_with_seed(&self, seed: u64) -> u64 {
        xxh64(self, seed)
    }
}

impl ParquetValue for str {
    #[inline]
    fn xxh64_with_seed(&self, seed: u64) -> u64 {
        xxh64(self.as_bytes(), seed)
    }
}

impl ParquetValue for alloc::string::String {
    #[inline]
    fn xxh64_with_seed(&self, seed: u64) -> u64 {
        self.as_str().xxh64_with_seed(seed)
    }
}

impl ParquetValue for Vec<u8> {
    #[inline]
    fn xxh64_with_seed(&self, seed: u64) -> u64 {
        self.as_slice().xxh64_with_seed(seed)
    }
}

impl<T: ParquetValue + ?Sized> ParquetValue for &T {
    #[inline]
    fn xxh64_with_seed(&self, seed: u64) -> u64 {
        (**self).xxh64_with_seed(seed)
    }
}

/// The 64-bit hash Parquet computes for `value`, for [`Filter::insert_hash`](crate::Filter::insert_hash) and
/// [`Filter::contains_hash`](crate::Filter::contains_hash).
///
/// ```
/// // XXH64 with seed 0 of the empty input.
/// assert_eq!(splitbloom::parquet::hash(""), 17_241_709_254_077_376_921);
/// ```
#[inline]
pub fn hash<V: ParquetValue + ?Sized>(value: &V) -> u64 {
    value.parquet_hash()
}
