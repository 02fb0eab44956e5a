//! The Parquet `BloomFilterHeader` in the Thrift compact protocol: [`header_bytes`] writes it,
//! [`read_header`] reads it, skipping unknown fields and refusing every malformed input.

use alloc::vec::Vec;

use crate::error::Error;
use crate::layout::split_block::BLOCK_BYTES;

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

/// The largest bitset length a header can announce: the largest multiple of 32 that is an
/// `i32`, Thrift's type of `numBytes`.
const MAX_HEADER_BYTES: u64 = (i32::MAX as u64) / BLOCK_BYTES as u64 * BLOCK_BYTES as u64;

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
        .ok_or(Error::InvalidParquetBitsetLength {
            bytes: u64::from(num_bytes),
            max: Some(MAX_HEADER_BYTES),
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
            "numBytes is not a positive multiple of 32 of at most 2147483616 (the largest such i32)",
        ));
    }
    let num_bytes = usize::try_from(num_bytes).map_err(|_| Error::InvalidParquetBitsetLength {
        bytes: num_bytes.unsigned_abs(),
        max: Some(usize::MAX as u64),
    })?;
    Ok((num_bytes, reader.position))
}

/// Reads the header at the start of `bytes` and returns the bitset bytes it announces and the
/// total length consumed.
pub(super) fn split_header(bytes: &[u8]) -> Result<(&[u8], usize), Error> {
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
