//! splitbloom's own on-disk format: bytes ⇄ [`Filter`] (owned copy) and [`FilterRef`]
//! (zero-copy view of the caller's bytes, e.g. an mmap'd file or a block-cache entry).
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
//! | 6 | 1 | hasher id | [`HasherKind::id`]: 1 = gxhash, 2 = XXH3 (folded), 3 = Parquet XXH64, 4 = XXH3 (plain) |
//! | 7 | 1 | flags | `0`; readers refuse unknown flags |
//! | 8 | 8 | seed | the hasher's seed ([`FilterHasher::seed`]) |
//! | 16 | 8 | number of blocks `z` | 1 ..= 2^32 ([`MAX_BLOCKS`]) |
//! | 24 | 8 | checksum | XXH3-64 (seed 0) of bytes 0..24 followed by the bitset |
//! | 32 | 32·z | bitset | block after block, each eight `u32` lanes, lane 0 first |
//!
//! The total length is exactly `32 + 32·z` bytes. The bitset is the Parquet SBBF bitset
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
//! | 1 | gxhash (opt-in) | `fold(gxhash64(pad16(k), s'), 0xd6e8feb86659fd93)`; see [`GxBytes`](crate::hash) |
//! | 2 | XXH3, folded (the default before id 4) | `fold(XXH3_64_withSeed(k, seed ^ 0x243f6a8885a308d3), 0xd6e8feb86659fd93)` |
//! | 3 | Parquet XXH64 | `XXH64(k, seed)` |
//! | 4 | XXH3, plain (the default) | `XXH3_64_withSeed(k, seed)` |
//!
//! The [`hash`](crate::hash) module gives the details (and what `insert(&key)` hashes for other
//! key types, e.g. integers); the README has known answers to test another implementation
//! against.
//!
//! A [`ScalableFilter`] is a 64-byte header ([`SCALABLE_MAGIC`] `SBLS`, its parameters and
//! stage count) followed by its stages, each a complete filter in this layout; the byte table
//! is on [`ScalableFilter::to_bytes`]'s `impl` block below.
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
//!   buffer does (mmap'd files, page-aligned cache entries): [`FilterRef`] then reads it in
//!   place. It needs only 4-byte alignment; on a misaligned buffer or a big-endian host it
//!   copies the words instead, so it never fails or misreads because of where the bytes are.
//! * The checksum covers the header fields too, so a flipped seed or block count is detected,
//!   not silently turned into false negatives. XXH3 runs at memory speed.
//! * Every check runs before any allocation, and the only allocation is the size of the
//!   validated input, so hostile bytes cannot make a reader allocate more than they occupy.
//! * A filter whose hasher this build cannot compute (gxhash without AES) or which was built
//!   with another hasher than the reader's type is an error, never silent wrong answers.
//! * [`FilterRef::from_bytes`] reads every byte to verify the checksum (23-35 ms for 125 MiB).
//!   Callers that already verified the bytes (a block cache checksumming its blocks) use
//!   [`FilterRef::from_trusted_bytes`] instead: the header and length are still checked, so it
//!   never panics or reads out of bounds, and on a little-endian host with an aligned buffer it
//!   is O(1); on corrupt bytes its answers may be wrong.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;
use core::hash::{BuildHasher, Hash};

use xxhash_rust::xxh3::Xxh3Default;

use crate::arch::Dispatch;
use crate::block::{BLOCK_BYTES, LANES};
use crate::error::Error;
use crate::hash::{DefaultHasher, FilterHasher, HasherKind};
use crate::math::MAX_BLOCKS;
use crate::{Filter, Kernel, ScalableFilter, ScalableParameters, lookup};

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
/// use splitbloom::{FilterHasher, Xxh3Hash, format::Header};
/// let filter = splitbloom::Filter::with_num_blocks_and_hasher(4, Xxh3Hash::with_seed(7))?;
/// let header = Header::parse(&filter.to_bytes())?;
/// assert_eq!((header.hasher, header.seed, header.num_blocks), (Xxh3Hash::KIND, 7, 4));
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
    /// The number of 32-byte blocks (at least 1, at most [`MAX_BLOCKS`]).
    pub num_blocks: usize,
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
        let truncated = || Error::Truncated {
            needed: HEADER_BYTES as u64,
            available: bytes.len(),
        };
        let magic: [u8; 4] = bytes
            .get(..4)
            .ok_or_else(truncated)?
            .try_into()
            .unwrap_or_default();
        if magic != MAGIC {
            return Err(Error::WrongMagic { found: magic });
        }
        let header: &[u8; HEADER_BYTES] = bytes
            .get(..HEADER_BYTES)
            .and_then(|header| header.try_into().ok())
            .ok_or_else(truncated)?;
        let u64_at = |at: usize| {
            let mut word = [0; 8];
            word.copy_from_slice(&header[at..at + 8]);
            u64::from_le_bytes(word)
        };
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version == 0 || version > VERSION {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: VERSION,
            });
        }
        if header[7] != 0 {
            return Err(Error::UnsupportedFlags(header[7]));
        }
        let hasher = HasherKind::from_id(header[6]).ok_or(Error::UnknownHasher(header[6]))?;
        let num_blocks = u64_at(16);
        if num_blocks == 0 {
            return Err(Error::ZeroBlocks);
        }
        if num_blocks > MAX_BLOCKS as u64 {
            return Err(Error::TooLarge {
                blocks: num_blocks as f64,
            });
        }
        Ok(Header {
            version,
            hasher,
            seed: u64_at(8),
            num_blocks: num_blocks as usize,
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
        HEADER_BYTES as u64 + self.num_blocks as u64 * BLOCK_BYTES as u64
    }

    /// Errors unless a reader using hasher type `S` can answer for this filter.
    fn check_hasher<S: FilterHasher>(&self) -> Result<(), Error> {
        if !self.hasher.is_available() {
            Err(Error::HasherUnavailable(self.hasher))
        } else if self.hasher == S::KIND {
            Ok(())
        } else {
            Err(Error::HasherKindMismatch {
                expected: S::KIND,
                found: self.hasher,
            })
        }
    }
}

/// Validates `bytes` as exactly one serialized filter readable with hasher type `S`; returns
/// the header and the bitset bytes.
fn validate<S: FilterHasher>(bytes: &[u8]) -> Result<(Header, &[u8]), Error> {
    let header = Header::parse(bytes)?;
    let payload = checked_length(&header, bytes)?;
    let computed = checksum(&bytes[..CHECKED_HEADER_BYTES], payload);
    if computed != header.checksum {
        return Err(Error::ChecksumMismatch {
            stored: header.checksum,
            computed,
        });
    }
    header.check_hasher::<S>()?;
    Ok((header, payload))
}

/// The bitset bytes, once `bytes` is exactly as long as `header` announces (O(1): the bitset
/// itself is not read).
fn checked_length<'a>(header: &Header, bytes: &'a [u8]) -> Result<&'a [u8], Error> {
    let expected = header.serialized_len();
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
    Ok(&bytes[HEADER_BYTES..])
}

/// XXH3-64 (seed 0) of the checked header bytes followed by the bitset bytes.
fn checksum(header: &[u8], payload: &[u8]) -> u64 {
    let mut state = Xxh3Default::new();
    state.update(header);
    state.update(payload);
    state.digest()
}

/// The first 24 header bytes (all but the checksum).
fn checked_header(kind: HasherKind, seed: u64, num_blocks: usize) -> [u8; CHECKED_HEADER_BYTES] {
    let mut header = [0; CHECKED_HEADER_BYTES];
    header[..4].copy_from_slice(&MAGIC);
    header[4..6].copy_from_slice(&VERSION.to_le_bytes());
    header[6] = kind.id();
    header[7] = 0;
    header[8..16].copy_from_slice(&seed.to_le_bytes());
    header[16..24].copy_from_slice(&(num_blocks as u64).to_le_bytes());
    header
}

/// Feeds the bitset to `sink` as little-endian bytes: in one piece on little-endian hosts, a
/// block at a time elsewhere.
fn for_each_payload_chunk(blocks: &[[u32; LANES]], mut sink: impl FnMut(&[u8])) {
    if cfg!(target_endian = "little") {
        sink(bytemuck::cast_slice(blocks));
    } else {
        for_each_block_as_le_bytes(blocks, sink);
    }
}

/// The byte-order-independent path of [`for_each_payload_chunk`], one block at a time.
fn for_each_block_as_le_bytes(blocks: &[[u32; LANES]], mut sink: impl FnMut(&[u8])) {
    for block in blocks {
        let mut bytes = [0u8; BLOCK_BYTES];
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(block) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        sink(&bytes);
    }
}

/// The full header (checksum included) of a filter with this hasher and bitset.
fn header_bytes(kind: HasherKind, seed: u64, blocks: &[[u32; LANES]]) -> [u8; HEADER_BYTES] {
    let checked = checked_header(kind, seed, blocks.len());
    let mut state = Xxh3Default::new();
    state.update(&checked);
    for_each_payload_chunk(blocks, |chunk| state.update(chunk));
    let mut header = [0; HEADER_BYTES];
    header[..CHECKED_HEADER_BYTES].copy_from_slice(&checked);
    header[CHECKED_HEADER_BYTES..].copy_from_slice(&state.digest().to_le_bytes());
    header
}

/// Serializes a bitset with its hasher identity: the one writer behind every `to_bytes`.
fn to_bytes(kind: HasherKind, seed: u64, blocks: &[[u32; LANES]]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES + blocks.len() * BLOCK_BYTES);
    bytes.extend_from_slice(&header_bytes(kind, seed, blocks));
    for_each_payload_chunk(blocks, |chunk| bytes.extend_from_slice(chunk));
    bytes
}

/// Streams a serialized bitset to `writer`: the one writer behind every `write_to`.
#[cfg(feature = "std")]
fn write_to(
    kind: HasherKind,
    seed: u64,
    blocks: &[[u32; LANES]],
    mut writer: impl std::io::Write,
) -> std::io::Result<()> {
    writer.write_all(&header_bytes(kind, seed, blocks))?;
    let mut result = Ok(());
    for_each_payload_chunk(blocks, |chunk| {
        if result.is_ok() {
            result = writer.write_all(chunk);
        }
    });
    result
}

/// Decodes a little-endian bitset into `blocks` (same length in bytes).
pub(crate) fn decode_into(payload: &[u8], blocks: &mut [[u32; LANES]]) {
    for (block, bytes) in blocks.iter_mut().zip(payload.chunks_exact(BLOCK_BYTES)) {
        for (word, bytes) in block.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
    }
}

/// Views a validated little-endian bitset in place when the host and alignment allow, else
/// copies it.
pub(crate) fn view_payload(payload: &[u8]) -> Result<Cow<'_, [[u32; LANES]]>, Error> {
    if cfg!(target_endian = "little")
        && let Ok(blocks) = bytemuck::try_cast_slice::<u8, [u32; LANES]>(payload)
    {
        return Ok(Cow::Borrowed(blocks));
    }
    let num_blocks = payload.len() / BLOCK_BYTES;
    let mut blocks = Vec::new();
    blocks
        .try_reserve_exact(num_blocks)
        .map_err(|_| Error::AllocationFailed {
            bytes: payload.len(),
        })?;
    blocks.resize(num_blocks, [0; LANES]);
    decode_into(payload, &mut blocks);
    Ok(Cow::Owned(blocks))
}

impl<S: FilterHasher> Filter<S> {
    /// The filter in splitbloom's format (see the [`format`](self) module for the layout).
    ///
    /// ```
    /// use splitbloom::Filter;
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert("key");
    /// let bytes = filter.to_bytes();
    /// let copy: Filter = Filter::from_bytes(&bytes)?;
    /// assert!(copy.contains("key"));
    /// assert_eq!(copy.to_bytes(), bytes);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        to_bytes(S::KIND, self.hasher().seed(), self.words())
    }

    /// The length of [`to_bytes`](Filter::to_bytes): 32 bytes of header plus the bitset.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(10)?;
    /// assert_eq!(filter.serialized_len(), 32 + 320);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        HEADER_BYTES + self.size_in_bytes()
    }

    /// Writes [`to_bytes`](Filter::to_bytes) to `writer` without building it in memory first.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(2)?;
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        write_to(S::KIND, self.hasher().seed(), self.words(), writer)
    }

    /// Reads a filter written by [`to_bytes`](Filter::to_bytes) into an owned copy.
    ///
    /// `bytes` must hold exactly one filter, built with hasher type `S` (the seed comes from
    /// the bytes). Every problem is an [`Error`]: wrong magic, unknown version or flags,
    /// truncated or over-long input, zero or too many blocks, checksum mismatch, unknown or
    /// unavailable hasher, hasher kind other than `S`'s. Nothing is allocated before the
    /// input has been validated.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, Xxh3Hash};
    /// let bytes = Filter::with_num_blocks_and_hasher(8, Xxh3Hash::default())?.to_bytes();
    /// let filter = Filter::<Xxh3Hash>::from_bytes(&bytes)?;
    /// assert_eq!(filter.num_blocks(), 8);
    /// let mut corrupt = bytes.clone();
    /// corrupt[40] ^= 1;
    /// assert!(matches!(
    ///     Filter::<Xxh3Hash>::from_bytes(&corrupt),
    ///     Err(Error::ChecksumMismatch { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (header, payload) = validate::<S>(bytes)?;
        let mut filter =
            Filter::with_num_blocks_and_hasher(header.num_blocks, S::try_with_seed(header.seed)?)?;
        decode_into(payload, filter.words_mut());
        Ok(filter)
    }
}

/// A read-only filter answering straight from serialized bytes (an mmap'd file, a block-cache
/// entry) without copying them.
///
/// It answers exactly like the [`Filter`] that was serialized, with the same kernels and the
/// same lookup code. Bytes are viewed in place when the host is little-endian and the bitset
/// is 4-byte aligned (always, when the buffer is: the header is 32 bytes); otherwise they are
/// copied once, which [`is_zero_copy`](FilterRef::is_zero_copy) reports.
///
/// ```
/// use splitbloom::{Filter, FilterRef};
/// let mut filter = Filter::with_fpr(1000, 0.01)?;
/// filter.insert("key");
/// let bytes = filter.to_bytes();
/// let view: FilterRef = FilterRef::from_bytes(&bytes)?;
/// assert!(view.contains("key"));
/// assert_eq!(view.num_blocks(), filter.num_blocks());
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct FilterRef<'a, S = DefaultHasher> {
    blocks: Cow<'a, [[u32; LANES]]>,
    kernel: Dispatch,
    hasher: S,
}

impl<'a, S> FilterRef<'a, S> {
    /// A view of validated blocks with `hasher`, on the best kernel.
    pub(crate) fn from_parts(blocks: Cow<'a, [[u32; LANES]]>, hasher: S) -> Self {
        FilterRef {
            blocks,
            kernel: Dispatch::best(),
            hasher,
        }
    }
}

impl<'a, S: FilterHasher> FilterRef<'a, S> {
    /// Validates `bytes` like [`Filter::from_bytes`] (checksum included) and views them.
    ///
    /// ```
    /// use splitbloom::{Error, FilterRef};
    /// assert!(matches!(
    ///     FilterRef::<splitbloom::Xxh3Hash>::from_bytes(b"not a filter"),
    ///     Err(Error::WrongMagic { .. })
    /// ));
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        let (header, payload) = validate::<S>(bytes)?;
        Ok(FilterRef::from_parts(
            view_payload(payload)?,
            S::try_with_seed(header.seed)?,
        ))
    }

    /// Views bytes the caller has already verified (e.g. a block cache that checksums its
    /// blocks), without the checksum pass of [`from_bytes`](FilterRef::from_bytes): O(1) on a
    /// little-endian host with a 4-byte aligned buffer (the bitset is read in place), instead
    /// of reading every byte.
    ///
    /// The header is still fully checked (magic, version, flags, hasher, block count) and the
    /// length must match it exactly, so this never panics, never reads out of bounds and never
    /// allocates more than the input. What is skipped is the proof that the bitset is the one
    /// that was written: on corrupted bytes the answers may be wrong, false negatives
    /// included. Use [`from_bytes`](FilterRef::from_bytes) for bytes from disk or network
    /// that nothing else verified.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, FilterRef};
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert_bytes(b"key");
    /// let bytes = filter.to_bytes();
    /// let view: FilterRef = FilterRef::from_trusted_bytes(&bytes)?;
    /// assert!(view.contains_bytes(b"key"));
    /// // The header and length are still checked; the bitset is not.
    /// assert!(matches!(FilterRef::<splitbloom::DefaultHasher>::from_trusted_bytes(&bytes[..40]), Err(Error::Truncated { .. })));
    /// let mut corrupt = bytes.clone();
    /// corrupt[40] ^= 1;
    /// assert!(FilterRef::<splitbloom::DefaultHasher>::from_trusted_bytes(&corrupt).is_ok());
    /// assert!(FilterRef::<splitbloom::DefaultHasher>::from_bytes(&corrupt).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_trusted_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        let header = Header::parse(bytes)?;
        let payload = checked_length(&header, bytes)?;
        header.check_hasher::<S>()?;
        Ok(FilterRef::from_parts(
            view_payload(payload)?,
            S::try_with_seed(header.seed)?,
        ))
    }

    /// Re-serializes the view: the same bytes it was read from.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.to_bytes(), bytes);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        to_bytes(S::KIND, self.hasher.seed(), &self.blocks)
    }

    /// An owned, mutable copy.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// let mut filter = view.to_filter()?;
    /// filter.insert("new");
    /// assert!(filter.contains("new"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_filter(&self) -> Result<Filter<S>, Error> {
        let mut filter =
            Filter::with_num_blocks_and_hasher(self.blocks.len(), self.hasher.clone())?
                .with_kernel(self.kernel())?;
        filter.words_mut().copy_from_slice(&self.blocks);
        Ok(filter)
    }
}

impl<S> FilterRef<'_, S> {
    /// Whether a pre-hashed key may be present: `false` means certainly absent.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(16)?;
    /// filter.insert_hash(42 << 40 | 7);
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert!(view.contains_hash(42 << 40 | 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        lookup::contains_hash(self.kernel, &self.blocks, hash)
    }

    /// Writes into `out[i]` whether `hashes[i]` may be present, with the loop inside the kernel.
    ///
    /// # Panics
    ///
    /// When `out.len() != hashes.len()`.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert_hash(5 << 40);
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// let mut out = [false; 2];
    /// view.contains_hash_batch(&[5 << 40, 6 << 40], &mut out);
    /// assert!(out[0]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        lookup::contains_hash_batch(self.kernel, &self.blocks, hashes, out);
    }

    /// The same view running on `kernel`; errors when this CPU cannot run it.
    ///
    /// ```
    /// use splitbloom::{FilterRef, Kernel};
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: FilterRef = FilterRef::from_bytes(&bytes)?.with_kernel(Kernel::Scalar)?;
    /// assert_eq!(view.kernel(), Kernel::Scalar);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Self, Error> {
        self.kernel = Dispatch::new(kernel).ok_or(Error::KernelUnavailable(kernel))?;
        Ok(self)
    }

    /// The kernel this view runs on.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert!(view.kernel().is_available());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.kernel.kernel()
    }

    /// The hasher keys go through (kind and seed from the bytes).
    ///
    /// ```
    /// use splitbloom::{Filter, FilterHasher, FilterRef, Xxh3Hash};
    /// let bytes = Filter::with_num_blocks_and_hasher(2, Xxh3Hash::with_seed(5))?.to_bytes();
    /// assert_eq!(FilterRef::<Xxh3Hash>::from_bytes(&bytes)?.hasher().seed(), 5);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Whether the view reads the caller's bytes in place (`false`: they were copied, because
    /// the bitset was not 4-byte aligned or the host is big-endian).
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes(); // a Vec: aligned
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.is_zero_copy(), cfg!(target_endian = "little"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn is_zero_copy(&self) -> bool {
        matches!(self.blocks, Cow::Borrowed(_))
    }

    /// The number of 32-byte blocks.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(3)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.num_blocks(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The fraction of bits that are set, from 0 to 1 (see [`Filter::fill_ratio`]).
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(3)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.fill_ratio(), 0.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        lookup::fill_ratio(&self.blocks)
    }

    /// The false-positive rate of the filter as it is (see [`Filter::estimated_fpr`]).
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(3)?;
    /// filter.insert("x");
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.estimated_fpr(), filter.estimated_fpr());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        lookup::estimated_fpr(&self.blocks)
    }
}

impl<S: FilterHasher> FilterRef<'_, S> {
    /// Writes [`to_bytes`](FilterRef::to_bytes) to `writer`.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// let mut out = Vec::new();
    /// view.write_to(&mut out)?;
    /// assert_eq!(out, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        write_to(S::KIND, self.hasher.seed(), &self.blocks, writer)
    }
}

impl<S: BuildHasher> FilterRef<'_, S> {
    /// Whether `key` may be present: `false` means certainly absent.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert("present");
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert!(view.contains("present"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline(always)]
    pub fn contains<K: Hash + ?Sized>(&self, key: &K) -> bool {
        self.contains_hash(self.hasher.hash_one(key))
    }
}

/// The byte-key contract (see [`hash`](crate::hash)): keys given as exactly their bytes, the
/// same hashes as [`Filter::insert_bytes`].
impl<S: FilterHasher> FilterRef<'_, S> {
    /// The hash [`contains_bytes`](FilterRef::contains_bytes) gives `key`: exactly its bytes.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.hash_bytes(b"key"), filter.hash_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn hash_bytes(&self, key: &[u8]) -> u64 {
        self.hasher.hash_bytes(key)
    }

    /// Whether the key made of exactly `key`'s bytes may be present: `false` means certainly
    /// absent.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes(b"present");
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert!(view.contains_bytes(b"present"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash_bytes(key))
    }

    /// Writes into `out[i]` whether `keys[i]` (exactly its bytes) may be present.
    ///
    /// # Panics
    ///
    /// When `out.len() != keys.len()`.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes(b"apple");
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// let mut out = [false; 2];
    /// view.contains_bytes_batch(&["apple", "kiwi"], &mut out);
    /// assert!(out[0]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn contains_bytes_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [bool]) {
        assert_eq!(
            keys.len(),
            out.len(),
            "contains_bytes_batch: `out` must have one slot per key"
        );
        crate::hash::for_each_hashed_chunk(&self.hasher, keys, |first, hashes| {
            self.contains_hash_batch(hashes, &mut out[first..first + hashes.len()]);
        });
    }
}

/// Shows the shape and statistics, not the bits.
///
/// ```
/// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
/// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
/// assert!(format!("{view:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for FilterRef<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterRef")
            .field("num_blocks", &self.blocks.len())
            .field("zero_copy", &self.is_zero_copy())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .field("fill_ratio", &self.fill_ratio())
            .finish()
    }
}

/// `serde` support: a filter serializes as the bytes of [`Filter::to_bytes`] (a byte string in
/// formats that have one, a sequence of numbers in others), and deserializes with every check
/// of [`Filter::from_bytes`].
#[cfg(feature = "serde")]
mod serde_bytes {
    use alloc::borrow::Cow;
    use alloc::vec::Vec;
    use core::fmt;
    use core::marker::PhantomData;

    use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
    use serde::ser::{Serialize, Serializer};

    use super::{Filter, FilterHasher, FilterRef};

    impl<S: FilterHasher> Serialize for Filter<S> {
        fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            serializer.serialize_bytes(&self.to_bytes())
        }
    }

    impl<S: FilterHasher> Serialize for FilterRef<'_, S> {
        fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            serializer.serialize_bytes(&self.to_bytes())
        }
    }

    /// Receives the serialized bytes, borrowed when the format can lend them.
    struct BytesVisitor<T>(PhantomData<T>);

    /// What a visitor builds from the bytes it receives.
    trait FromSerializedBytes<'de>: Sized {
        fn from_borrowed(bytes: &'de [u8]) -> Result<Self, crate::Error>;
        fn from_transient(bytes: &[u8]) -> Result<Self, crate::Error>;
    }

    impl<'de, S: FilterHasher> FromSerializedBytes<'de> for Filter<S> {
        fn from_borrowed(bytes: &'de [u8]) -> Result<Self, crate::Error> {
            Filter::from_bytes(bytes)
        }
        fn from_transient(bytes: &[u8]) -> Result<Self, crate::Error> {
            Filter::from_bytes(bytes)
        }
    }

    impl<'de, S: FilterHasher> FromSerializedBytes<'de> for FilterRef<'de, S> {
        fn from_borrowed(bytes: &'de [u8]) -> Result<Self, crate::Error> {
            FilterRef::from_bytes(bytes)
        }
        fn from_transient(bytes: &[u8]) -> Result<Self, crate::Error> {
            let view = FilterRef::<S>::from_bytes(bytes)?;
            Ok(FilterRef::from_parts(
                Cow::Owned(view.blocks.into_owned()),
                view.hasher,
            ))
        }
    }

    impl<'de, T: FromSerializedBytes<'de>> Visitor<'de> for BytesVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the bytes of a serialized splitbloom filter")
        }

        fn visit_borrowed_bytes<E: de::Error>(self, bytes: &'de [u8]) -> Result<T, E> {
            T::from_borrowed(bytes).map_err(E::custom)
        }

        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<T, E> {
            T::from_transient(bytes).map_err(E::custom)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
            // The length hint comes from the input: cap the up-front reservation.
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(byte) = seq.next_element::<u8>()? {
                bytes.push(byte);
            }
            T::from_transient(&bytes).map_err(de::Error::custom)
        }
    }

    impl<'de, S: FilterHasher> Deserialize<'de> for Filter<S> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_bytes(BytesVisitor(PhantomData))
        }
    }

    impl<'de, S: FilterHasher> Deserialize<'de> for FilterRef<'de, S> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_bytes(BytesVisitor(PhantomData))
        }
    }
}

// Compile-time check that views can be shared between threads (e.g. one mmap'd file probed by
// many readers).
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FilterRef<'static>>();
};

/// The first four bytes of a serialized [`ScalableFilter`].
///
/// ```
/// let bytes = splitbloom::ScalableFilter::with_fpr(100, 0.01)?.to_bytes();
/// assert_eq!(bytes[..4], splitbloom::format::SCALABLE_MAGIC);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const SCALABLE_MAGIC: [u8; 4] = *b"SBLS";

/// The size of a serialized [`ScalableFilter`]'s header: two blocks, so every stage after it
/// keeps the buffer's 32-byte alignment.
///
/// ```
/// let filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
/// let stage = filter.stages()[0].serialized_len();
/// assert_eq!(filter.to_bytes().len(), splitbloom::format::SCALABLE_HEADER_BYTES + stage);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const SCALABLE_HEADER_BYTES: usize = 64;

/// Bytes of the scalable header covered by its checksum (all but the checksum itself).
const SCALABLE_CHECKED_BYTES: usize = 56;

/// The scalable header (checksum included) of `filter`.
fn scalable_header<S>(filter: &ScalableFilter<S>) -> [u8; SCALABLE_HEADER_BYTES] {
    let parameters = filter.parameters();
    let mut header = [0; SCALABLE_HEADER_BYTES];
    header[..4].copy_from_slice(&SCALABLE_MAGIC);
    header[4..6].copy_from_slice(&VERSION.to_le_bytes());
    // Bytes 6..8 are reserved (zero).
    header[8..16].copy_from_slice(&parameters.initial_capacity.to_le_bytes());
    header[16..24].copy_from_slice(&parameters.fpr.to_bits().to_le_bytes());
    header[24..32].copy_from_slice(&parameters.growth_factor.to_bits().to_le_bytes());
    header[32..40].copy_from_slice(&parameters.tightening_ratio.to_bits().to_le_bytes());
    header[40..48].copy_from_slice(&filter.items_in_last_stage().to_le_bytes());
    header[48..56].copy_from_slice(&(filter.stages().len() as u64).to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&header[..SCALABLE_CHECKED_BYTES]);
    header[SCALABLE_CHECKED_BYTES..].copy_from_slice(&checksum.to_le_bytes());
    header
}

/// Serialization of [`ScalableFilter`]: a 64-byte header followed by every stage, oldest first,
/// each a complete filter in the format above (its own header, checksum and bitset).
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 4 | magic `SBLS` ([`SCALABLE_MAGIC`]) |
/// | 4 | 2 | version `1` |
/// | 6 | 2 | reserved, `0` |
/// | 8 | 8 | initial capacity (keys in stage 0) |
/// | 16 | 8 | target false-positive rate (IEEE 754 `f64` bits) |
/// | 24 | 8 | growth factor (`f64` bits) |
/// | 32 | 8 | tightening ratio (`f64` bits) |
/// | 40 | 8 | keys in the newest stage |
/// | 48 | 8 | number of stages (at least 1) |
/// | 56 | 8 | XXH3-64 (seed 0) of bytes 0..56 |
/// | 64 | … | the stages, back to back |
///
/// A reader checks each stage's size against the parameters and refuses stages that differ,
/// so a file cannot smuggle in a stage sized for other parameters. The check costs at most two
/// evaluations of the false-positive rate per stage, so reading takes time proportional to the
/// bytes.
impl<S: FilterHasher> ScalableFilter<S> {
    /// The filter in splitbloom's format: the scalable header, then each stage.
    ///
    /// ```
    /// use splitbloom::ScalableFilter;
    /// let mut filter = ScalableFilter::with_fpr(100, 0.01)?;
    /// for key in 0..1000u64 {
    ///     filter.insert(&key)?;
    /// }
    /// let bytes = filter.to_bytes();
    /// let copy: ScalableFilter = ScalableFilter::from_bytes(&bytes)?;
    /// assert_eq!(copy.len(), filter.len());
    /// assert!(copy.contains(&999u64));
    /// assert_eq!(copy.to_bytes(), bytes);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let stages: usize = self.stages().iter().map(Filter::serialized_len).sum();
        let mut bytes = Vec::with_capacity(SCALABLE_HEADER_BYTES + stages);
        bytes.extend_from_slice(&scalable_header(self));
        for stage in self.stages() {
            bytes.extend_from_slice(&stage.to_bytes());
        }
        bytes
    }

    /// Writes [`to_bytes`](ScalableFilter::to_bytes) to `writer`, a stage at a time.
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, mut writer: impl std::io::Write) -> std::io::Result<()> {
        writer.write_all(&scalable_header(self))?;
        for stage in self.stages() {
            stage.write_to(&mut writer)?;
        }
        Ok(())
    }

    /// Reads a filter written by [`to_bytes`](ScalableFilter::to_bytes). Every problem is an
    /// [`Error`], as for [`Filter::from_bytes`], plus invalid parameters, no stages, or stages
    /// whose sizes do not follow the parameters.
    ///
    /// ```
    /// use splitbloom::{Error, ScalableFilter};
    /// let bytes = ScalableFilter::with_fpr(100, 0.01)?.to_bytes();
    /// assert!(ScalableFilter::<splitbloom::DefaultHasher>::from_bytes(&bytes).is_ok());
    /// assert!(matches!(
    ///     ScalableFilter::<splitbloom::DefaultHasher>::from_bytes(&bytes[..70]),
    ///     Err(Error::Truncated { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let header: &[u8; SCALABLE_HEADER_BYTES] = bytes
            .get(..SCALABLE_HEADER_BYTES)
            .and_then(|header| header.try_into().ok())
            .ok_or(Error::Truncated {
                needed: SCALABLE_HEADER_BYTES as u64,
                available: bytes.len(),
            })?;
        let u64_at = |at: usize| {
            let mut word = [0; 8];
            word.copy_from_slice(&header[at..at + 8]);
            u64::from_le_bytes(word)
        };
        let magic = [header[0], header[1], header[2], header[3]];
        if magic != SCALABLE_MAGIC {
            return Err(Error::WrongMagic { found: magic });
        }
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version == 0 || version > VERSION {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: VERSION,
            });
        }
        if header[6] != 0 || header[7] != 0 {
            return Err(Error::UnsupportedFlags(header[6] | header[7]));
        }
        let computed = xxhash_rust::xxh3::xxh3_64(&header[..SCALABLE_CHECKED_BYTES]);
        if computed != u64_at(SCALABLE_CHECKED_BYTES) {
            return Err(Error::ChecksumMismatch {
                stored: u64_at(SCALABLE_CHECKED_BYTES),
                computed,
            });
        }
        let mut parameters = ScalableParameters::new(u64_at(8), f64::from_bits(u64_at(16)));
        parameters.growth_factor = f64::from_bits(u64_at(24));
        parameters.tightening_ratio = f64::from_bits(u64_at(32));
        let items_in_last_stage = u64_at(40);
        let num_stages = u64_at(48);
        // Every stage takes at least 64 bytes, which bounds the allocation by the input size.
        let mut rest = &bytes[SCALABLE_HEADER_BYTES..];
        let mut stages = Vec::new();
        stages
            .try_reserve(
                usize::try_from(num_stages)
                    .unwrap_or(usize::MAX)
                    .min(rest.len() / 64),
            )
            .map_err(|_| Error::AllocationFailed { bytes: rest.len() })?;
        for _ in 0..num_stages {
            let length = Header::parse(rest)?.serialized_len();
            let available = rest.len();
            let stage_bytes = usize::try_from(length)
                .ok()
                .and_then(|length| rest.get(..length))
                .ok_or(Error::Truncated {
                    needed: length,
                    available,
                })?;
            stages.push(Filter::<S>::from_bytes(stage_bytes)?);
            rest = &rest[stage_bytes.len()..];
        }
        if !rest.is_empty() {
            return Err(Error::LengthMismatch {
                expected: (bytes.len() - rest.len()) as u64,
                found: bytes.len(),
            });
        }
        ScalableFilter::from_stages(parameters, stages, items_in_last_stage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for_each_block_as_le_bytes(&blocks, |chunk| portable.extend_from_slice(chunk));
        let mut fast = Vec::new();
        for_each_payload_chunk(&blocks, |chunk| fast.extend_from_slice(chunk));
        assert_eq!(portable, fast);
        assert_eq!(&portable[..4], &blocks[0][0].to_le_bytes());
        let mut decoded = vec![[0u32; LANES]; blocks.len()];
        decode_into(&portable, &mut decoded);
        assert_eq!(decoded, blocks);
    }
}
