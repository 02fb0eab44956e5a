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

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hasher};

use xxhash_rust::xxh64::{Xxh64, xxh64};

use crate::block::BLOCK_BYTES;
use crate::error::Error;
use crate::format::{FilterRef, decode_into, view_payload};
use crate::hash::{FilterHasher, HasherKind};
use crate::{Filter, math};

/// The seed Parquet uses for XXH64.
///
/// ```
/// use splitbloom::{FilterHasher, parquet::{ParquetHash, SEED}};
/// assert_eq!(ParquetHash::default().seed(), SEED);
/// ```
pub const SEED: u64 = 0;

/// The smallest bitset Parquet readers accept, in bytes (one block).
///
/// ```
/// assert_eq!(splitbloom::parquet::MIN_BITSET_BYTES, splitbloom::BLOCK_BYTES);
/// ```
pub const MIN_BITSET_BYTES: usize = 32;

/// The largest bitset Parquet readers accept, in bytes (128 MiB).
///
/// ```
/// assert_eq!(splitbloom::parquet::MAX_BITSET_BYTES, 1 << 27);
/// ```
pub const MAX_BITSET_BYTES: usize = 128 * 1024 * 1024;

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

/// The 64-bit hash Parquet computes for `value`, for [`Filter::insert_hash`] and
/// [`Filter::contains_hash`].
///
/// ```
/// // XXH64 with seed 0 of the empty input.
/// assert_eq!(splitbloom::parquet::hash(""), 17_241_709_254_077_376_921);
/// ```
#[inline]
pub fn hash<V: ParquetValue + ?Sized>(value: &V) -> u64 {
    value.parquet_hash()
}

/// The hasher of Parquet bloom filters: XXH64 over the bytes written to it.
///
/// Its [`Hasher`] feeds integers to XXH64 as little-endian bytes, so
/// `filter.insert(&42i64)` hashes like Parquet's `INT64` (and `i32` like `INT32`). Rust's
/// [`Hash`](core::hash::Hash) for strings and slices adds a terminator or a length, which
/// Parquet does not: use [`Filter::insert_value`] and [`Filter::contains_value`] (or
/// [`hash`]) for strings, byte arrays and floats.
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

/// The size of a Parquet bloom filter for a number of distinct values and a target
/// false-positive rate, and the rate it really gives.
///
/// The number of blocks comes from splitbloom's split-block formula (see [`math`]), then is
/// rounded up to a power of two number of bytes and clamped to 32 B ..= 128 MiB as Parquet
/// readers require. [`fpr`](Sizing::fpr) is the rate at that size: at most the target, unless
/// the 128 MiB cap was hit.
///
/// ```
/// use splitbloom::parquet::Sizing;
/// let sizing = Sizing::for_items(1_000_000, 0.01)?;
/// assert!(sizing.num_bytes.is_power_of_two());
/// assert!(sizing.fpr <= 0.01);
/// // arrow-rs's formula asks for 9,681,526 bits here, too few for a blocked filter at 1%;
/// // after rounding to a power of two both land on 2 MiB.
/// assert_eq!(sizing.num_bytes, 2 * 1024 * 1024);
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Sizing {
    /// Bitset size in bytes: a power of two from [`MIN_BITSET_BYTES`] to [`MAX_BITSET_BYTES`].
    pub num_bytes: usize,
    /// The number of distinct values sized for.
    pub items: u64,
    /// The false-positive rate with `items` distinct values at this size.
    pub fpr: f64,
}

impl Sizing {
    /// The Parquet-valid size for `items` distinct values at false-positive rate `fpr`.
    ///
    /// Errors when `fpr` is not strictly between 0 and 1. Zero items give the smallest size.
    ///
    /// ```
    /// use splitbloom::parquet::Sizing;
    /// assert_eq!(Sizing::for_items(0, 0.01)?.num_bytes, 32);
    /// assert_eq!(Sizing::for_items(u64::MAX, 0.01)?.num_bytes, 128 << 20);
    /// assert!(Sizing::for_items(10, 0.0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn for_items(items: u64, fpr: f64) -> Result<Sizing, Error> {
        math::check_fpr(fpr)?;
        let max_blocks = MAX_BITSET_BYTES / BLOCK_BYTES;
        let blocks =
            match math::num_blocks_for_fpr(usize::try_from(items).unwrap_or(usize::MAX), fpr) {
                Ok(blocks) => blocks.min(max_blocks),
                Err(Error::ZeroItems) => 1,
                Err(Error::TooLarge { .. }) => max_blocks,
                Err(error) => return Err(error),
            };
        let num_bytes = (blocks * BLOCK_BYTES)
            .next_power_of_two()
            .clamp(MIN_BITSET_BYTES, MAX_BITSET_BYTES);
        Ok(Sizing {
            num_bytes,
            items,
            fpr: Self::fpr_at(num_bytes, items),
        })
    }

    /// The false-positive rate of a bitset of `num_bytes` bytes holding `items` distinct values.
    ///
    /// ```
    /// let rate = splitbloom::parquet::Sizing::fpr_at(1024, 320); // 25.6 bits per value
    /// assert!(rate > 0.0001 && rate < 0.001);
    /// ```
    pub fn fpr_at(num_bytes: usize, items: u64) -> f64 {
        let blocks = (num_bytes / BLOCK_BYTES).max(1);
        math::fpr_for_keys_per_block(items as f64 / blocks as f64)
    }

    /// The number of 32-byte blocks.
    ///
    /// ```
    /// assert_eq!(splitbloom::parquet::Sizing::for_items(0, 0.5)?.num_blocks(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.num_bytes / BLOCK_BYTES
    }

    /// An empty filter of this size, hashing like Parquet.
    ///
    /// ```
    /// let filter = splitbloom::parquet::Sizing::for_items(1000, 0.01)?.filter()?;
    /// assert_eq!(filter.size_in_bytes(), 2048);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn filter(&self) -> Result<Filter<ParquetHash>, Error> {
        Filter::with_num_blocks_and_hasher(self.num_blocks(), ParquetHash::default())
    }
}

/// Thrift compact protocol type codes (the low nibble of a field header).
mod compact {
    pub const BOOLEAN_TRUE: u8 = 1;
    pub const BOOLEAN_FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
}

/// The Parquet `BloomFilterHeader` for a bitset of `num_bytes` bytes: numBytes, BLOCK, XXHASH,
/// UNCOMPRESSED, in the Thrift compact protocol (15 to 19 bytes for Parquet-valid sizes).
///
/// Errors unless `num_bytes` is a positive multiple of 32 that fits Thrift's `i32` (what
/// [`read_header`] accepts).
///
/// ```
/// assert_eq!(
///     splitbloom::parquet::header_bytes(32)?,
///     [21, 64, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0]
/// );
/// assert!(splitbloom::parquet::header_bytes(33).is_err());
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub fn header_bytes(num_bytes: u32) -> Result<Vec<u8>, Error> {
    let value = i32::try_from(num_bytes)
        .ok()
        .filter(|&value| value > 0 && value % BLOCK_BYTES as i32 == 0)
        .ok_or(Error::InvalidParquetSize {
            bytes: u64::from(num_bytes),
        })?;
    let mut header = Vec::with_capacity(19);
    // Field 1 (delta 1), i32: numBytes as a zigzag varint.
    header.push(0x10 | compact::I32);
    let mut zigzag = ((value << 1) ^ (value >> 31)) as u32;
    while zigzag >= 0x80 {
        header.push((zigzag as u8) | 0x80);
        zigzag >>= 7;
    }
    header.push(zigzag as u8);
    // Fields 2, 3, 4 (delta 1 each): unions whose member 1 is an empty struct (BLOCK, XXHASH,
    // UNCOMPRESSED): struct header, member header, member stop, union stop.
    for _ in 0..3 {
        header.extend_from_slice(&[0x10 | compact::STRUCT, 0x10 | compact::STRUCT, 0, 0]);
    }
    header.push(0); // end of BloomFilterHeader
    Ok(header)
}

/// Nesting deeper than this in a header is refused rather than followed (stack safety).
const MAX_DEPTH: u32 = 16;

/// A cursor over Thrift compact bytes that never reads out of bounds.
struct CompactReader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl CompactReader<'_> {
    fn byte(&mut self) -> Result<u8, Error> {
        let byte = *self
            .bytes
            .get(self.position)
            .ok_or(Error::InvalidParquetHeader("the header is truncated"))?;
        self.position += 1;
        Ok(byte)
    }

    fn skip_bytes(&mut self, count: u64) -> Result<(), Error> {
        let remaining = self.bytes.len().saturating_sub(self.position);
        let count = usize::try_from(count)
            .ok()
            .filter(|&count| count <= remaining)
            .ok_or(Error::InvalidParquetHeader("the header is truncated"))?;
        self.position += count;
        Ok(())
    }

    /// An unsigned LEB128 varint of at most 64 bits (10 bytes, the last holding one bit).
    fn varint(&mut self) -> Result<u64, Error> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            let bits = u64::from(byte & 0x7f);
            // The 10th byte carries bit 63 only: anything more would be shifted out.
            if shift == 63 && bits > 1 {
                return Err(Error::InvalidParquetHeader("a varint overflows 64 bits"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Error::InvalidParquetHeader(
            "a varint is longer than 10 bytes",
        ))
    }

    fn zigzag(&mut self) -> Result<i64, Error> {
        let value = self.varint()?;
        Ok((value >> 1) as i64 ^ -((value & 1) as i64))
    }

    /// The next field's id and type, or `None` at the end of the struct.
    ///
    /// Thrift field ids are `i16`: an id given in full (delta 0) must fit one, and so must the
    /// previous id plus a delta; anything else is an error, not an overflow.
    fn field(&mut self, last_id: &mut i16) -> Result<Option<(i16, u8)>, Error> {
        let header = self.byte()?;
        if header == 0 {
            return Ok(None);
        }
        let delta = header >> 4;
        let id = if delta == 0 {
            i16::try_from(self.zigzag()?).ok()
        } else {
            last_id.checked_add(i16::from(delta))
        }
        .ok_or(Error::InvalidParquetHeader(
            "a field id does not fit Thrift's i16",
        ))?;
        *last_id = id;
        Ok(Some((id, header & 0x0f)))
    }

    /// Skips a value of compact type `kind`; `in_collection` says booleans take a byte.
    fn skip(&mut self, kind: u8, in_collection: bool, depth: u32) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(Error::InvalidParquetHeader(
                "the header is nested too deeply",
            ));
        }
        match kind {
            compact::BOOLEAN_TRUE | compact::BOOLEAN_FALSE => {
                if in_collection {
                    self.byte()?;
                }
            }
            compact::BYTE => {
                self.byte()?;
            }
            compact::I16 | compact::I32 | compact::I64 => {
                self.varint()?;
            }
            compact::DOUBLE => self.skip_bytes(8)?,
            compact::BINARY => {
                let length = self.varint()?;
                self.skip_bytes(length)?;
            }
            compact::LIST | compact::SET => {
                let header = self.byte()?;
                let size = match header >> 4 {
                    15 => self.varint()?,
                    short => u64::from(short),
                };
                for _ in 0..size {
                    // Every element takes at least one byte: a hostile size ends at the
                    // input's end, not in a long loop.
                    self.skip(header & 0x0f, true, depth + 1)?;
                }
            }
            compact::MAP => {
                let size = self.varint()?;
                if size > 0 {
                    let kinds = self.byte()?;
                    for _ in 0..size {
                        self.skip(kinds >> 4, true, depth + 1)?;
                        self.skip(kinds & 0x0f, true, depth + 1)?;
                    }
                }
            }
            compact::STRUCT => {
                let mut last_id = 0;
                while let Some((_, kind)) = self.field(&mut last_id)? {
                    self.skip(kind, false, depth + 1)?;
                }
            }
            _ => return Err(Error::InvalidParquetHeader("unknown Thrift type")),
        }
        Ok(())
    }

    /// Reads a Thrift union whose only accepted member is field 1, an empty struct.
    fn expect_first_member(&mut self, unsupported: &'static str) -> Result<(), Error> {
        let mut last_id = 0;
        let mut found = false;
        while let Some((id, kind)) = self.field(&mut last_id)? {
            if id != 1 || kind != compact::STRUCT {
                return Err(Error::InvalidParquetHeader(unsupported));
            }
            self.skip(kind, false, 1)?;
            found = true;
        }
        if found {
            Ok(())
        } else {
            Err(Error::InvalidParquetHeader(unsupported))
        }
    }
}

/// Reads a Parquet `BloomFilterHeader` at the start of `bytes`; returns the bitset's size in
/// bytes (numBytes) and the header's own length. The bitset follows the header.
///
/// Errors unless the header is well-formed Thrift compact, has all four fields, uses the
/// BLOCK algorithm, XXHASH and no compression, and numBytes is a positive multiple of 32.
/// Unknown fields are skipped.
///
/// ```
/// use splitbloom::parquet::read_header;
/// assert_eq!(read_header(&[21, 64, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0, 99])?, (32, 15));
/// assert!(read_header(&[21, 64, 28]).is_err());
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub fn read_header(bytes: &[u8]) -> Result<(usize, usize), Error> {
    let mut reader = CompactReader { bytes, position: 0 };
    let mut num_bytes = None;
    let (mut algorithm, mut hash, mut compression) = (false, false, false);
    let mut last_id = 0;
    while let Some((id, kind)) = reader.field(&mut last_id)? {
        match (id, kind) {
            (1, compact::I32) => num_bytes = Some(reader.zigzag()?),
            (2, compact::STRUCT) => {
                reader.expect_first_member("the algorithm is not BLOCK")?;
                algorithm = true;
            }
            (3, compact::STRUCT) => {
                reader.expect_first_member("the hash is not XXHASH")?;
                hash = true;
            }
            (4, compact::STRUCT) => {
                reader.expect_first_member("the bitset is compressed")?;
                compression = true;
            }
            (1..=4, _) => return Err(Error::InvalidParquetHeader("a field has the wrong type")),
            _ => reader.skip(kind, false, 1)?,
        }
    }
    let num_bytes = num_bytes.ok_or(Error::InvalidParquetHeader("numBytes is missing"))?;
    if !(algorithm && hash && compression) {
        return Err(Error::InvalidParquetHeader(
            "the algorithm, hash or compression is missing",
        ));
    }
    if num_bytes <= 0 || num_bytes > i64::from(i32::MAX) || num_bytes % BLOCK_BYTES as i64 != 0 {
        return Err(Error::InvalidParquetHeader(
            "numBytes is not a positive multiple of 32",
        ));
    }
    let num_bytes = usize::try_from(num_bytes).map_err(|_| Error::InvalidParquetSize {
        bytes: num_bytes.unsigned_abs(),
    })?;
    Ok((num_bytes, reader.position))
}

/// Errors unless `num_bytes` is a bitset size Parquet readers accept.
fn check_parquet_size(num_bytes: usize) -> Result<(), Error> {
    if num_bytes.is_power_of_two() && (MIN_BITSET_BYTES..=MAX_BITSET_BYTES).contains(&num_bytes) {
        Ok(())
    } else {
        Err(Error::InvalidParquetSize {
            bytes: num_bytes as u64,
        })
    }
}

/// Reads the header at the start of `bytes` and returns the bitset bytes it announces and the
/// total length consumed.
fn split_header(bytes: &[u8]) -> Result<(&[u8], usize), Error> {
    let (num_bytes, header_len) = read_header(bytes)?;
    let end = header_len as u64 + num_bytes as u64;
    let bitset = bytes
        .get(header_len..)
        .and_then(|rest| rest.get(..num_bytes))
        .ok_or(Error::Truncated {
            needed: end,
            available: bytes.len(),
        })?;
    // Both slices succeeded, so the sum is at most `bytes.len()`.
    Ok((bitset, header_len + bitset.len()))
}

impl Filter<ParquetHash> {
    /// Adds a value hashed the way Parquet hashes it (see [`ParquetValue`]); returns `true`
    /// when it was probably present already.
    ///
    /// ```
    /// let mut filter = splitbloom::parquet::Sizing::for_items(10, 0.01)?.filter()?;
    /// assert!(!filter.insert_value("a0"));
    /// assert!(filter.contains_value("a0"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_value<V: ParquetValue + ?Sized>(&mut self, value: &V) -> bool {
        self.insert_hash(value.xxh64_with_seed(self.hasher().seed))
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
        self.contains_hash(value.xxh64_with_seed(self.hasher().seed))
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
        if self.hasher().seed != SEED {
            return Err(Error::ParquetSeed(self.hasher().seed));
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
        decode_into(bitset, filter.words_mut());
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
        return Err(Error::InvalidParquetSize {
            bytes: bitset.len() as u64,
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
            view_payload(bitset)?,
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
        self.contains_hash(value.xxh64_with_seed(self.hasher().seed))
    }
}
