//! splitbloom's own on-disk format, as codecs over plain slices: the header, the checksum and
//! the bitset's bytes. [`Filter`](crate::Filter) reads and writes it (an owned copy),
//! [`FilterRef`](crate::FilterRef) views it in place (the caller's bytes, e.g. an mmap'd file
//! or a block-cache entry); this module names neither.
//!
//! # Layout (version 1)
//!
//! A serialized filter is a 32-byte header followed by the bitset. Every integer is
//! little-endian, whatever the host.
//!
//! | offset | size | field | value |
//! |---:|---:|---|---|
//! | 0 | 4 | magic | the ASCII bytes `SBLM` (`53 42 4C 4D`) |
//! | 4 | 2 | version | `1` ([`VERSION`]); readers refuse newer versions |
//! | 6 | 1 | hasher id | [`HasherKind::id`]: 3 = Parquet XXH64, 4 = XXH3 (the default), 6 = gxhash; 1, 2 and 5 are reserved |
//! | 7 | 1 | layout id | 0 = split-block ([`Filter`](crate::Filter)), 1 = wide with one probe per key, 2 = wide with two ([`WideFilter`](crate::WideFilter)), 5 = quotient with 8-bit tags, 6 = with 16-bit tags ([`QuotientFilter`](crate::QuotientFilter)); readers refuse other ids |
//! | 8 | 8 | seed | the hasher's seed ([`FilterHasher::seed`]) |
//! | 16 | 8 | number of blocks `z` | 1 ..= 2^32 ([`MAX_BLOCKS`]); wide with two probes: a multiple of 64 |
//! | 24 | 8 | checksum | XXH3-64 (seed 0) of bytes 0..24 followed by the bitset |
//! | 32 | 32·z | bitset (layout 0) | block after block, each eight `u32` lanes, lane 0 first |
//! | 32 | 64·z | bitset (layouts 1, 2) | block after block, each eight `u64` words, word 0 first |
//! | 32 | 64·z | blocks (layouts 5, 6) | block after block, each its metadata then its tag slots (`docs/FORMAT.md`) |
//!
//! Byte 7 was a flags byte that had to be 0, so every split-block file is unchanged and a
//! reader that predates the wide layout refuses a wide file instead of misreading it. The
//! probes per key are part of the layout id because they change where a key's bits are and the
//! 32-byte header has no other free byte.
//!
//! The total length is exactly `32 + 32·z` bytes for the split-block layout, `32 + 64·z` for
//! the wide one. What follows describes the split-block layout; the wide one (block and bit
//! formulas, known answers) is specified in `docs/FORMAT.md`. The bitset is the Parquet SBBF bitset
//! byte for byte: lane `i` of block `b` is the little-endian `u32` at byte `32 + 32·b + 4·i`,
//! and a key with 64-bit hash `h` is present when, for every lane `i`, bit
//! `((h as u32) · SALT[i]) >> 27` is set in block `((h >> 32) · z) >> 32` (see
//! [`SALT`](crate::SALT), [`block_index`](crate::block_index)). How a key becomes `h` is given
//! by the hasher id and seed. For keys inserted through the byte-key contract
//! (`insert_bytes`, which the `splitbloom` CLI uses), with `seed` from the header and `fold(a,
//! b)` the XOR of the two 64-bit halves of the 128-bit product `a · b`:
//!
//! | id | hasher | `h` of key bytes `k` |
//! |---:|---|---|
//! | 3 | Parquet XXH64 | `XXH64(k, seed)` |
//! | 4 | XXH3 (the default) | `XXH3_64_withSeed(k, seed)` |
//! | 6 | gxhash (opt-in, builds with AES) | `XXH3_64_withSeed(k, seed)` if `len(k) < 16`, else `gxhash64(k, seed ^ len(k))` |
//!
//! Ids 1, 2 and 5 are reserved and never written; reading a filter with one is an error.
//!
//! The [`hash`](crate::hash) module gives the details (and what `insert(&key)` hashes for other
//! key types, e.g. integers); `docs/FORMAT.md` has known answers to test another
//! implementation against.
//!
//! A [`WindowFilter`](crate::WindowFilter) is a 64-byte header ([`WINDOW_MAGIC`] `SBLW`, its
//! shape and ring position) followed by every generation's blocks; the byte table is in
//! `docs/FORMAT.md`.
//!
//! A [`ScalableFilter`](crate::ScalableFilter) is a 64-byte header ([`SCALABLE_MAGIC`] `SBLS`, its parameters and
//! stage count) followed by its stages, each a complete filter in this layout; the byte table
//! is on [`ScalableHeader`].
//!
//! ```
//! use splitbloom::{Filter, FilterRef, format::Header};
//! let mut filter = Filter::with_fpr(1000, 0.01)?;
//! filter.insert("key");
//! let bytes = filter.to_bytes();
//! assert_eq!(&bytes[..4], b"SBLM");
//! assert_eq!(Header::parse(&bytes)?.num_blocks, filter.num_blocks());
//! let view: FilterRef = FilterRef::from_bytes(&bytes)?; // zero-copy
//! assert!(view.contains("key"));
//! # Ok::<(), splitbloom::Error>(())
//! ```
//!
//! # Why it is shaped this way
//!
//! * The header is 32 bytes, one block, so the bitset starts 32-byte aligned whenever the
//!   buffer does (mmap'd files, page-aligned cache entries): [`FilterRef`](crate::FilterRef) then reads it in
//!   place. It needs only 4-byte alignment; on a misaligned buffer or a big-endian host it
//!   copies the words instead, so it never fails or misreads because of where the bytes are.
//! * The checksum covers the header fields too, so a flipped seed or block count is detected,
//!   not silently turned into false negatives. XXH3 runs at memory speed.
//! * Every check runs before any allocation, and the only allocation is the size of the
//!   validated input, so hostile bytes cannot make a reader allocate more than they occupy.
//! * A filter whose hasher this build cannot compute (gxhash without AES) or which was built
//!   with another hasher than the reader's type is an error, never silent wrong answers.
//! * [`FilterRef::from_bytes`](crate::FilterRef::from_bytes) reads every byte to verify the
//!   checksum, at memory speed (BENCHMARKS.md has the figures).
//!   Callers that already verified the bytes (a block cache checksumming its blocks) use
//!   [`FilterRef::from_trusted_bytes`](crate::FilterRef::from_trusted_bytes) instead: the header and length are still checked, so it
//!   never panics or reads out of bounds, and on a little-endian host with an aligned buffer it
//!   is O(1); on corrupt bytes its answers may be wrong.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use xxhash_rust::xxh3::Xxh3Default;

use crate::error::Error;
use crate::hash::{FilterHasher, HasherKind};
use crate::kind::{LayoutKind, TagBits};
use crate::math::MAX_BLOCKS;
use crate::math::quotient::MAX_QUOTIENT_BLOCKS;
use crate::math::wide::{MAX_WIDE_BLOCKS, is_valid_shape};

mod quotient;
mod scalable;
mod window;

pub(crate) use quotient::quotient_to_bytes;
#[cfg(feature = "std")]
pub(crate) use quotient::quotient_write_to;
pub(crate) use quotient::{count_tags, validate_quotient};
pub(crate) use scalable::scalable_header;
pub use scalable::{ScalableHeader, ScalableParameters};
#[cfg(feature = "std")]
pub(crate) use window::window_write_to;
pub use window::{WINDOW_HEADER_BYTES, WINDOW_MAGIC};
pub(crate) use window::{WindowHeader, parse_window, window_to_bytes};

/// The first four bytes of every serialized filter.
///
/// ```
/// let bytes = splitbloom::Filter::with_num_blocks(1)?.to_bytes();
/// assert_eq!(bytes[..4], splitbloom::format::MAGIC);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const MAGIC: [u8; 4] = *b"SBLM";

/// The format version this build writes, and the newest it reads.
///
/// ```
/// let bytes = splitbloom::Filter::with_num_blocks(1)?.to_bytes();
/// assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), splitbloom::format::VERSION);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const VERSION: u16 = 1;

/// The size of the header in bytes: one block, so the bitset keeps the buffer's alignment.
///
/// ```
/// let filter = splitbloom::Filter::with_num_blocks(3)?;
/// assert_eq!(filter.to_bytes().len(), splitbloom::format::HEADER_BYTES + 3 * 32);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const HEADER_BYTES: usize = 32;

/// Bytes of the header covered by the checksum (all but the checksum itself).
const CHECKED_HEADER_BYTES: usize = 24;

/// The decoded header of a serialized filter.
///
/// [`Header::parse`] lets a caller inspect bytes before reading them, e.g. to learn the total
/// length of a filter stored inside a larger buffer, or which hasher type to read it with.
///
/// ```
/// use splitbloom::{FilterHasher, Xxh3, format::Header};
/// let filter = splitbloom::Filter::with_num_blocks_and_hasher(4, Xxh3::with_seed(7))?;
/// let header = Header::parse(&filter.to_bytes())?;
/// assert_eq!((header.hasher, header.seed, header.num_blocks), (Xxh3::KIND, 7, 4));
/// assert_eq!(header.serialized_len(), 32 + 4 * 32);
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// The format version.
    pub version: u16,
    /// The hasher the filter's keys went through.
    pub hasher: HasherKind,
    /// The hasher's seed.
    pub seed: u64,
    /// The number of blocks (at least 1, at most [`MAX_BLOCKS`]): 32 bytes each in the
    /// split-block layout, 64 in the wide one.
    pub num_blocks: usize,
    /// The layout of the bitset (header byte 7).
    pub layout: LayoutKind,
    /// The blocks each key sets its bits in: 1 for the split-block layout, 1 or 2 for the
    /// wide one; for the quotient layout, 2, the blocks a key's tag may be in.
    pub probes: u8,
    /// The tag width of the quotient layout; `None` for the Bloom layouts.
    pub tag_bits: Option<TagBits>,
    /// The stored checksum.
    pub checksum: u64,
}

impl Header {
    /// Decodes and validates the header at the start of `bytes`; the bytes after it are not
    /// looked at (neither their length nor the checksum).
    ///
    /// ```
    /// use splitbloom::{Error, format::Header};
    /// assert!(matches!(Header::parse(b"PAR1"), Err(Error::WrongMagic { .. })));
    /// assert!(matches!(Header::parse(b"SBLM"), Err(Error::Truncated { .. })));
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<Header, Error> {
        let raw = RawHeader::<HEADER_BYTES>::read(bytes, MAGIC)?;
        let (header, version) = (raw.bytes, raw.version);
        let u64_at = |at| raw.u64_at(at);
        let (layout, probes, tag_bits) =
            layout_from_id(header[7]).ok_or(Error::UnknownLayout(header[7]))?;
        let hasher = HasherKind::from_id(header[6]).ok_or(Error::UnknownHasher(header[6]))?;
        let num_blocks = u64_at(16);
        if num_blocks == 0 {
            return Err(Error::ZeroBlocks);
        }
        let most = match layout {
            LayoutKind::SplitBlock => MAX_BLOCKS,
            LayoutKind::Wide => MAX_WIDE_BLOCKS,
            LayoutKind::Quotient => MAX_QUOTIENT_BLOCKS,
        };
        if num_blocks > most as u64 {
            return Err(Error::TooLarge {
                blocks: num_blocks as f64,
            });
        }
        // At most `most`, which is a `usize`.
        let num_blocks = num_blocks as usize;
        if layout == LayoutKind::Wide && !is_valid_shape(num_blocks, probes) {
            return Err(Error::InvalidWideShape { num_blocks, probes });
        }
        Ok(Header {
            version,
            hasher,
            seed: u64_at(8),
            num_blocks,
            layout,
            probes,
            tag_bits,
            checksum: u64_at(24),
        })
    }

    /// The length in bytes of the whole serialized filter: header and bitset.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let header = splitbloom::format::Header::parse(&bytes)?;
    /// assert_eq!(header.serialized_len(), bytes.len() as u64);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn serialized_len(&self) -> u64 {
        HEADER_BYTES as u64 + self.num_blocks as u64 * self.layout.block_bytes() as u64
    }

    /// Errors unless a reader using hasher type `S` can answer for this filter.
    pub(crate) fn check_hasher<S: FilterHasher>(&self) -> Result<(), Error> {
        check_hasher::<S>(self.hasher)
    }
}

/// Errors unless a reader using hasher type `S` can answer for bytes built with `found`: the
/// one check of every reader of every container.
pub(crate) fn check_hasher<S: FilterHasher>(found: HasherKind) -> Result<(), Error> {
    if !found.is_available() {
        Err(Error::HasherUnavailable(found))
    } else if found == S::KIND {
        Ok(())
    } else {
        Err(Error::HasherKindMismatch {
            expected: S::KIND,
            found,
        })
    }
}

/// The one header reader: the checks every header of the format shares, for the filter
/// header ([`Header`], `SBLM`) and the scalable container's (`SBLS`), so both refuse bad bytes
/// in the same order with the same errors.
pub(crate) struct RawHeader<'a, const N: usize> {
    /// The header's bytes: the first `N` of the input.
    pub(crate) bytes: &'a [u8; N],
    /// The format version (1 ..= [`VERSION`]).
    pub(crate) version: u16,
}

impl<'a, const N: usize> RawHeader<'a, N> {
    /// The first `N` bytes of `bytes`, once they start with `magic` and a version this build
    /// reads. The magic is checked first, so any input of four bytes or more that is not of
    /// this kind is [`Error::WrongMagic`], whatever its length.
    pub(crate) fn read(bytes: &'a [u8], magic: [u8; 4]) -> Result<Self, Error> {
        let truncated = || Error::Truncated {
            needed: N as u64,
            available: bytes.len(),
        };
        let found: [u8; 4] = bytes
            .get(..4)
            .ok_or_else(truncated)?
            .try_into()
            .unwrap_or_default();
        if found != magic {
            return Err(Error::WrongMagic {
                expected: magic,
                found,
            });
        }
        let header: &[u8; N] = bytes
            .get(..N)
            .and_then(|header| header.try_into().ok())
            .ok_or_else(truncated)?;
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version == 0 || version > VERSION {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: VERSION,
            });
        }
        Ok(RawHeader {
            bytes: header,
            version,
        })
    }

    /// The little-endian `u64` at byte `at` of the header.
    pub(crate) fn u64_at(&self, at: usize) -> u64 {
        let mut word = [0; 8];
        word.copy_from_slice(&self.bytes[at..at + 8]);
        u64::from_le_bytes(word)
    }
}

/// The layout, probes and tag width of layout id `id` (header byte 7), or `None` for an
/// unknown id.
const fn layout_from_id(id: u8) -> Option<(LayoutKind, u8, Option<TagBits>)> {
    match id {
        0 => Some((LayoutKind::SplitBlock, 1, None)),
        1 => Some((LayoutKind::Wide, 1, None)),
        2 => Some((LayoutKind::Wide, 2, None)),
        5 => Some((LayoutKind::Quotient, 2, Some(TagBits::Eight))),
        6 => Some((LayoutKind::Quotient, 2, Some(TagBits::Sixteen))),
        _ => None,
    }
}

/// Validates `bytes` as exactly one serialized filter, checksum included; returns the header
/// and the bitset bytes. The reader then checks the layout and the hasher against its type
/// (`Header::check_hasher`), in that order.
pub(crate) fn validate(bytes: &[u8]) -> Result<(Header, &[u8]), Error> {
    let header = Header::parse(bytes)?;
    let payload = checked_length(&header, bytes)?;
    let computed = checksum(&bytes[..CHECKED_HEADER_BYTES], payload);
    if computed != header.checksum {
        return Err(Error::ChecksumMismatch {
            stored: header.checksum,
            computed,
        });
    }
    Ok((header, payload))
}

/// The bitset bytes, once `bytes` is exactly as long as `header` announces (O(1): the bitset
/// itself is not read).
pub(crate) fn checked_length<'a>(header: &Header, bytes: &'a [u8]) -> Result<&'a [u8], Error> {
    exact_length(bytes, header.serialized_len(), HEADER_BYTES)
}

/// What follows a header of `header_bytes` bytes, once `bytes` is exactly `expected` bytes
/// long: truncated and overlong inputs are told apart.
pub(crate) fn exact_length(
    bytes: &[u8],
    expected: u64,
    header_bytes: usize,
) -> Result<&[u8], Error> {
    if (bytes.len() as u64) < expected {
        return Err(Error::Truncated {
            needed: expected,
            available: bytes.len(),
        });
    }
    if bytes.len() as u64 > expected {
        return Err(Error::LengthMismatch {
            expected,
            found: bytes.len(),
        });
    }
    Ok(&bytes[header_bytes..])
}

/// XXH3-64 (seed 0) of the checked header bytes followed by the bitset bytes.
fn checksum(header: &[u8], payload: &[u8]) -> u64 {
    let mut state = Xxh3Default::new();
    state.update(header);
    state.update(payload);
    state.digest()
}

/// The first 24 header bytes (all but the checksum).
fn checked_header(
    kind: HasherKind,
    seed: u64,
    layout_id: u8,
    num_blocks: usize,
) -> [u8; CHECKED_HEADER_BYTES] {
    let mut header = [0; CHECKED_HEADER_BYTES];
    header[..4].copy_from_slice(&MAGIC);
    header[4..6].copy_from_slice(&VERSION.to_le_bytes());
    header[6] = kind.id();
    header[7] = layout_id;
    header[8..16].copy_from_slice(&seed.to_le_bytes());
    header[16..24].copy_from_slice(&(num_blocks as u64).to_le_bytes());
    header
}

/// Feeds the bitset to `sink` as little-endian bytes, its words `word` bytes each: in one
/// piece on little-endian hosts, a block at a time elsewhere.
pub(crate) fn for_each_payload_chunk<B: bytemuck::Pod>(
    blocks: &[B],
    word: usize,
    mut sink: impl FnMut(&[u8]),
) {
    if cfg!(target_endian = "little") {
        sink(bytemuck::cast_slice(blocks));
    } else {
        for_each_block_as_le_bytes(blocks, word, sink);
    }
}

/// The byte-order-independent path of [`for_each_payload_chunk`], one block at a time: each
/// word's bytes in little-endian order.
fn for_each_block_as_le_bytes<B: bytemuck::Pod>(
    blocks: &[B],
    word: usize,
    mut sink: impl FnMut(&[u8]),
) {
    for block in blocks {
        let mut copy = *block;
        swap_to_little_endian(bytemuck::bytes_of_mut(&mut copy), word);
        sink(bytemuck::bytes_of(&copy));
    }
}

/// Reverses the bytes of every `word`-byte word of `bytes` on a big-endian host (native order
/// to little-endian and back); nothing on a little-endian one.
pub(crate) fn swap_to_little_endian(bytes: &mut [u8], word: usize) {
    if cfg!(target_endian = "big") {
        for word in bytes.chunks_exact_mut(word) {
            word.reverse();
        }
    }
}

/// The full header (checksum included) of a filter with this hasher, layout id and bitset.
fn header_bytes<B: bytemuck::Pod>(
    kind: HasherKind,
    seed: u64,
    layout_id: u8,
    blocks: &[B],
    word: usize,
) -> [u8; HEADER_BYTES] {
    let checked = checked_header(kind, seed, layout_id, blocks.len());
    let mut state = Xxh3Default::new();
    state.update(&checked);
    for_each_payload_chunk(blocks, word, |chunk| state.update(chunk));
    let mut header = [0; HEADER_BYTES];
    header[..CHECKED_HEADER_BYTES].copy_from_slice(&checked);
    header[CHECKED_HEADER_BYTES..].copy_from_slice(&state.digest().to_le_bytes());
    header
}

/// Serializes a bitset of `word`-byte words with its hasher identity and layout id: the one
/// writer behind every filter's `to_bytes`.
pub(crate) fn to_bytes<B: bytemuck::Pod>(
    kind: HasherKind,
    seed: u64,
    layout_id: u8,
    blocks: &[B],
    word: usize,
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES + core::mem::size_of_val(blocks));
    bytes.extend_from_slice(&header_bytes(kind, seed, layout_id, blocks, word));
    for_each_payload_chunk(blocks, word, |chunk| bytes.extend_from_slice(chunk));
    bytes
}

/// Streams [`to_bytes`] to `writer`: the one writer behind every filter's `write_to`.
#[cfg(feature = "std")]
pub(crate) fn write_to<B: bytemuck::Pod>(
    kind: HasherKind,
    seed: u64,
    layout_id: u8,
    blocks: &[B],
    word: usize,
    mut writer: impl std::io::Write,
) -> std::io::Result<()> {
    writer.write_all(&header_bytes(kind, seed, layout_id, blocks, word))?;
    let mut result = Ok(());
    for_each_payload_chunk(blocks, word, |chunk| {
        if result.is_ok() {
            result = writer.write_all(chunk);
        }
    });
    result
}

/// Decodes a little-endian bitset of `word`-byte words into `blocks` (the same length in
/// bytes).
pub(crate) fn decode_into<B: bytemuck::Pod>(payload: &[u8], blocks: &mut [B], word: usize) {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(blocks);
    bytes.copy_from_slice(payload);
    swap_to_little_endian(bytes, word);
}

/// Views a validated little-endian bitset (whole blocks) in place when the host and the
/// alignment allow (the block's alignment, its word's), else copies it.
pub(crate) fn view_payload<B: bytemuck::Pod>(
    payload: &[u8],
    word: usize,
) -> Result<Cow<'_, [B]>, Error> {
    if cfg!(target_endian = "little")
        && let Ok(blocks) = bytemuck::try_cast_slice::<u8, B>(payload)
    {
        return Ok(Cow::Borrowed(blocks));
    }
    let num_blocks = payload.len() / core::mem::size_of::<B>();
    let mut blocks = Vec::new();
    blocks
        .try_reserve_exact(num_blocks)
        .map_err(|_| Error::AllocationFailed {
            bytes: payload.len(),
        })?;
    blocks.resize(num_blocks, B::zeroed());
    decode_into(payload, &mut blocks, word);
    Ok(Cow::Owned(blocks))
}

/// The first four bytes of a serialized [`ScalableFilter`](crate::ScalableFilter).
///
/// ```
/// let bytes = splitbloom::ScalableFilter::with_fpr(100, 0.01)?.to_bytes();
/// assert_eq!(bytes[..4], splitbloom::format::SCALABLE_MAGIC);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const SCALABLE_MAGIC: [u8; 4] = *b"SBLS";

/// The size of a serialized [`ScalableFilter`](crate::ScalableFilter)'s header: two blocks, so every stage after it
/// keeps the buffer's 32-byte alignment.
///
/// ```
/// let filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
/// let stage = filter.stages()[0].serialized_len();
/// assert_eq!(filter.to_bytes().len(), splitbloom::format::SCALABLE_HEADER_BYTES + stage);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const SCALABLE_HEADER_BYTES: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::split_block::LANES;
    use crate::layout::wide::WORDS;

    /// The big-endian paths (word-by-word encode, copying decode) give the same bytes and
    /// words as the in-place little-endian paths, so they are checked on every host.
    #[test]
    fn byte_order_independent_paths_agree() {
        let blocks: Vec<[u32; LANES]> = (0u32..50)
            .map(|b| {
                core::array::from_fn(|i| {
                    b.wrapping_mul(0x9e37_79b9) ^ (i as u32) << 24 ^ 0x0102_0304
                })
            })
            .collect();
        let mut portable = Vec::new();
        for_each_block_as_le_bytes(&blocks, 4, |chunk| portable.extend_from_slice(chunk));
        let mut fast = Vec::new();
        for_each_payload_chunk(&blocks, 4, |chunk| fast.extend_from_slice(chunk));
        assert_eq!(portable, fast);
        assert_eq!(&portable[..4], &blocks[0][0].to_le_bytes());
        let mut decoded = vec![[0u32; LANES]; blocks.len()];
        decode_into(&portable, &mut decoded, 4);
        assert_eq!(decoded, blocks);

        let wide: Vec<[u64; WORDS]> = (0u64..20)
            .map(|b| core::array::from_fn(|i| b.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64))
            .collect();
        let mut portable = Vec::new();
        for_each_block_as_le_bytes(&wide, 8, |chunk| portable.extend_from_slice(chunk));
        let mut fast = Vec::new();
        for_each_payload_chunk(&wide, 8, |chunk| fast.extend_from_slice(chunk));
        assert_eq!(portable, fast);
        assert_eq!(&portable[8..16], &wide[0][1].to_le_bytes());
        let mut decoded = vec![[0u64; WORDS]; wide.len()];
        decode_into(&portable, &mut decoded, 8);
        assert_eq!(decoded, wide);
        // Misaligned by 4: copied, same words.
        let mut shifted = vec![0u8; 4];
        shifted.extend_from_slice(&portable);
        let viewed = view_payload::<[u64; WORDS]>(&shifted[4..], 8).unwrap();
        assert_eq!(&*viewed, &wide[..]);
    }
}
