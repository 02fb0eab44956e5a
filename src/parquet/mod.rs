//! Parquet split-block Bloom filters: hashing, sizing and the `BloomFilterHeader`.
//!
//! A Parquet column chunk may carry a Bloom filter: a Thrift-compact `BloomFilterHeader`
//! followed by an SBBF bitset, which is exactly splitbloom's bitset (same salts, same block
//! choice, little-endian words). What Parquet fixes on top is how values are hashed and how
//! large the bitset may be:
//!
//! * **Hashing** ([`hash`], [`ParquetValue`]): XXH64 with seed 0 over the value's *plain
//!   encoding*: `INT32`/`INT64`/`FLOAT`/`DOUBLE` as little-endian bytes, `BYTE_ARRAY` (strings,
//!   binary) as the raw bytes without a length prefix, `FIXED_LEN_BYTE_ARRAY` as is. A filter
//!   that holds such hashes is a `Filter<`[`ParquetHash`]`>`, so splitbloom's own format
//!   records the hasher too.
//! * **Sizing** ([`Sizing`]): a power-of-two number of bytes from 32 B to 128 MiB (Arrow C++
//!   readers reject anything else), chosen with splitbloom's split-block formula; the false
//!   positive rate the chosen size really gives is reported, not the target.
//! * **Header** ([`header_bytes`], [`read_header`]): `BloomFilterHeader { 1: i32 numBytes,
//!   2: BloomFilterAlgorithm BLOCK, 3: BloomFilterHash XXHASH, 4: BloomFilterCompression
//!   UNCOMPRESSED }` in the Thrift compact protocol. The reader skips unknown fields, refuses
//!   other algorithms, hashes and compressions, and turns every malformed byte sequence into
//!   an [`Error`].
//!
//! ```
//! use splitbloom::Filter;
//! use splitbloom::parquet::{ParquetHash, Sizing};
//!
//! let sizing = Sizing::for_items(1000, 0.01)?;
//! let mut filter = sizing.filter()?;
//! filter.insert_value("alice");
//! filter.insert_value(&42i64);
//! let column_chunk_filter = filter.to_parquet_bytes()?; // header + bitset, as stored in Parquet
//! let (read, _len) = Filter::<ParquetHash>::from_parquet_bytes(&column_chunk_filter)?;
//! assert!(read.contains_value("alice") && read.contains_value(&42i64));
//! # Ok::<(), splitbloom::Error>(())
//! ```

mod sizing;
mod thrift;
mod value;

use alloc::vec::Vec;

use crate::Filter;
use crate::FilterRef;
use crate::error::Error;
use crate::format::{decode_into, view_payload};
use crate::hash::FilterHasher;
pub use crate::hash::parquet::SEED;
pub use crate::hash::{ParquetHash, ParquetHasher};
use crate::layout::split_block::{BLOCK_BYTES, SplitBlock};
use sizing::check_parquet_size;
pub use sizing::{MAX_BITSET_BYTES, MIN_BITSET_BYTES, Sizing};
use thrift::split_header;
pub use thrift::{header_bytes, read_header};
pub use value::{ParquetValue, hash};

impl Filter<ParquetHash> {
    /// Adds a value hashed the way Parquet hashes it (see [`ParquetValue`]); returns `true`
    /// when it was newly inserted, as [`Filter::insert`].
    ///
    /// ```
    /// let mut filter = splitbloom::parquet::Sizing::for_items(10, 0.01)?.filter()?;
    /// assert!(filter.insert_value("a0"));
    /// assert!(filter.contains_value("a0"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_value<V: ParquetValue + ?Sized>(&mut self, value: &V) -> bool {
        self.insert_hash(value.xxh64_with_seed(self.hasher().seed()))
    }

    /// Whether a value may be present, hashed the way Parquet hashes it.
    ///
    /// ```
    /// let mut filter = splitbloom::parquet::Sizing::for_items(10, 0.01)?.filter()?;
    /// filter.insert_value(&1.5f64);
    /// assert!(filter.contains_value(&1.5f64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn contains_value<V: ParquetValue + ?Sized>(&self, value: &V) -> bool {
        self.contains_hash(value.xxh64_with_seed(self.hasher().seed()))
    }

    /// The filter as a Parquet column chunk stores it: `BloomFilterHeader` then the bitset.
    ///
    /// Errors when the size is not a power of two from 32 B to 128 MiB, which Parquet readers
    /// require (build the filter with [`Sizing`]), or the hasher's seed is not Parquet's 0.
    ///
    /// ```
    /// use splitbloom::{Filter, parquet::ParquetHash};
    /// let filter = Filter::with_num_blocks_and_hasher(1, ParquetHash::default())?;
    /// assert_eq!(filter.to_parquet_bytes()?.len(), 15 + 32);
    /// let odd = Filter::with_num_blocks_and_hasher(3, ParquetHash::default())?;
    /// assert!(odd.to_parquet_bytes().is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_parquet_bytes(&self) -> Result<Vec<u8>, Error> {
        if self.hasher().seed() != SEED {
            return Err(Error::ParquetSeed(self.hasher().seed()));
        }
        check_parquet_size(self.size_in_bytes())?;
        let mut bytes = header_bytes(self.size_in_bytes() as u32)?;
        bytes.extend(self.to_parquet_bitset());
        Ok(bytes)
    }

    /// The bitset alone, as Parquet stores it after the header (little-endian words).
    ///
    /// ```
    /// let mut filter = splitbloom::parquet::Sizing::for_items(1, 0.5)?.filter()?;
    /// filter.insert_value("x");
    /// assert_eq!(filter.to_parquet_bitset().len(), 32);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_parquet_bitset(&self) -> Vec<u8> {
        self.as_words()
            .iter()
            .flat_map(|word| word.to_le_bytes())
            .collect()
    }

    /// Reads a Parquet bloom filter (header then bitset) from the start of `bytes`, as found
    /// at a column chunk's `bloom_filter_offset`; returns the filter and the number of bytes it
    /// took. Bytes after it are ignored.
    ///
    /// ```
    /// use splitbloom::{Filter, parquet::ParquetHash};
    /// let mut bytes = vec![21, 64, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0];
    /// bytes.extend([0xff; 32]);
    /// let (filter, len) = Filter::<ParquetHash>::from_parquet_bytes(&bytes)?;
    /// assert_eq!((filter.num_blocks(), len), (1, 47));
    /// assert!(filter.contains_value("anything")); // all bits set
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_parquet_bytes(bytes: &[u8]) -> Result<(Self, usize), Error> {
        let (bitset, consumed) = split_header(bytes)?;
        Ok((Self::from_parquet_bitset(bitset)?, consumed))
    }

    /// A filter from a bare Parquet bitset (no header): a positive multiple of 32 bytes.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, parquet::ParquetHash};
    /// assert_eq!(Filter::<ParquetHash>::from_parquet_bitset(&[0; 64])?.num_blocks(), 2);
    /// assert!(Filter::<ParquetHash>::from_parquet_bitset(&[0; 33]).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_parquet_bitset(bitset: &[u8]) -> Result<Self, Error> {
        let blocks = check_bitset_len(bitset)?;
        let mut filter = Filter::with_num_blocks_and_hasher(blocks, ParquetHash::default())?;
        decode_into(bitset, filter.words_mut(), 4);
        Ok(filter)
    }
}

/// The number of blocks of a bare bitset, or an error unless it is a positive multiple of 32
/// bytes.
fn check_bitset_len(bitset: &[u8]) -> Result<usize, Error> {
    if bitset.is_empty() {
        return Err(Error::ZeroBlocks);
    }
    if !bitset.len().is_multiple_of(BLOCK_BYTES) {
        return Err(Error::InvalidParquetBitsetLength {
            bytes: bitset.len() as u64,
            max: None,
        });
    }
    Ok(bitset.len() / BLOCK_BYTES)
}

impl<'a> FilterRef<'a, ParquetHash> {
    /// A view of a bare Parquet bitset (no header), in place when it is 4-byte aligned on a
    /// little-endian host.
    ///
    /// ```
    /// use splitbloom::{FilterRef, parquet::ParquetHash};
    /// let bitset = [0xffu8; 64];
    /// let view = FilterRef::<ParquetHash>::from_parquet_bitset(&bitset)?;
    /// assert!(view.contains_value("x"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_parquet_bitset(bitset: &'a [u8]) -> Result<Self, Error> {
        check_bitset_len(bitset)?;
        Ok(FilterRef::from_parts(
            view_payload(bitset, 4)?,
            SplitBlock,
            ParquetHash::default(),
        ))
    }

    /// A view of a Parquet bloom filter (header then bitset) at the start of `bytes`, and the
    /// number of bytes it took.
    ///
    /// ```
    /// use splitbloom::{FilterRef, parquet::{ParquetHash, Sizing}};
    /// let mut filter = Sizing::for_items(100, 0.01)?.filter()?;
    /// filter.insert_value(&7i32);
    /// let bytes = filter.to_parquet_bytes()?;
    /// let (view, len) = FilterRef::<ParquetHash>::from_parquet_bytes(&bytes)?;
    /// assert!(view.contains_value(&7i32) && len == bytes.len());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_parquet_bytes(bytes: &'a [u8]) -> Result<(Self, usize), Error> {
        let (bitset, consumed) = split_header(bytes)?;
        Ok((Self::from_parquet_bitset(bitset)?, consumed))
    }

    /// Whether a value may be present, hashed the way Parquet hashes it.
    ///
    /// ```
    /// use splitbloom::{FilterRef, parquet::ParquetHash};
    /// let view = FilterRef::<ParquetHash>::from_parquet_bitset(&[0; 32])?;
    /// assert!(!view.contains_value("x"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn contains_value<V: ParquetValue + ?Sized>(&self, value: &V) -> bool {
        self.contains_hash(value.xxh64_with_seed(self.hasher().seed()))
    }
}
