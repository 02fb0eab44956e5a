//! The `SBLW` layout of a [`WindowFilter`](crate::WindowFilter): a 64-byte header followed by
//! every generation's blocks, in memory order. This file is the codec over plain data; the
//! filter type calls it. The byte table, with known answers, is in `docs/FORMAT.md`.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `SBLW` ([`WINDOW_MAGIC`]) |
//! | 4 | 2 | version `1` |
//! | 6 | 1 | hasher id |
//! | 7 | 1 | flags, `0` |
//! | 8 | 8 | seed |
//! | 16 | 8 | blocks per generation `z`, 1 ..= 2^32 |
//! | 24 | 8 | keys each generation is sized for, at least 1 |
//! | 32 | 4 | generations `G`, 1 ..= 64 |
//! | 36 | 4 | the newest generation's slot, below `G` |
//! | 40 | 8 | rotations so far |
//! | 48 | 8 | reserved, `0` |
//! | 56 | 8 | XXH3-64 (seed 0) of bytes 0..56 followed by the blocks |
//! | 64 | 32·z·G | the blocks: slot `g` of block index `i` at `64 + 32·(i·G + g)` |

use alloc::vec::Vec;

use xxhash_rust::xxh3::Xxh3Default;

use super::{RawHeader, for_each_payload_chunk};
use crate::error::Error;
use crate::hash::HasherKind;
use crate::layout::split_block::{BLOCK_BYTES, LANES, MAX_BLOCKS};
use crate::layout::window::MAX_GENERATIONS;

/// The first four bytes of a serialized [`WindowFilter`](crate::WindowFilter).
///
/// ```
/// let bytes = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?.to_bytes();
/// assert_eq!(bytes[..4], splitbloom::format::WINDOW_MAGIC);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const WINDOW_MAGIC: [u8; 4] = *b"SBLW";

/// The size of a serialized window's header: two blocks, so the blocks after it keep the
/// buffer's 32-byte alignment.
///
/// ```
/// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
/// let bytes = window.to_bytes();
/// assert_eq!(bytes.len(), splitbloom::format::WINDOW_HEADER_BYTES + window.size_in_bytes());
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const WINDOW_HEADER_BYTES: usize = 64;

/// Bytes of the header covered by the checksum before the blocks (all but the checksum).
const CHECKED_BYTES: usize = 56;

/// What the header of a window holds, as plain data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WindowHeader {
    pub(crate) hasher: HasherKind,
    pub(crate) seed: u64,
    pub(crate) num_blocks: usize,
    pub(crate) items_per_generation: usize,
    pub(crate) generations: usize,
    pub(crate) newest: usize,
    pub(crate) rotations: u64,
}

/// The checked header bytes (all but the checksum) of `header`.
fn checked_bytes(header: &WindowHeader) -> [u8; CHECKED_BYTES] {
    let mut bytes = [0; CHECKED_BYTES];
    bytes[..4].copy_from_slice(&WINDOW_MAGIC);
    bytes[4..6].copy_from_slice(&super::VERSION.to_le_bytes());
    bytes[6] = header.hasher.id();
    bytes[8..16].copy_from_slice(&header.seed.to_le_bytes());
    bytes[16..24].copy_from_slice(&(header.num_blocks as u64).to_le_bytes());
    bytes[24..32].copy_from_slice(&(header.items_per_generation as u64).to_le_bytes());
    bytes[32..36].copy_from_slice(&(header.generations as u32).to_le_bytes());
    bytes[36..40].copy_from_slice(&(header.newest as u32).to_le_bytes());
    bytes[40..48].copy_from_slice(&header.rotations.to_le_bytes());
    bytes
}

/// Serializes a window: its header, then its blocks as little-endian words.
pub(crate) fn window_to_bytes(header: &WindowHeader, blocks: &[[u32; LANES]]) -> Vec<u8> {
    let checked = checked_bytes(header);
    let mut state = Xxh3Default::new();
    state.update(&checked);
    for_each_payload_chunk(blocks, 4, |chunk| state.update(chunk));
    let mut bytes = Vec::with_capacity(WINDOW_HEADER_BYTES + blocks.len() * BLOCK_BYTES);
    bytes.extend_from_slice(&checked);
    bytes.extend_from_slice(&state.digest().to_le_bytes());
    for_each_payload_chunk(blocks, 4, |chunk| bytes.extend_from_slice(chunk));
    bytes
}

/// Validates `bytes` as exactly one serialized window: every field in range, the length the
/// header announces, the checksum. Returns the header and the block bytes. Nothing is
/// allocated, so hostile bytes cost only the time to read them.
pub(crate) fn parse_window(bytes: &[u8]) -> Result<(WindowHeader, &[u8]), Error> {
    let raw = RawHeader::<WINDOW_HEADER_BYTES>::read(bytes, WINDOW_MAGIC)?;
    let field = |at: usize| raw.u64_at(at);
    let u32_at =
        |at: usize| u32::from_le_bytes(raw.bytes[at..at + 4].try_into().unwrap_or_default());
    let flags = raw.bytes[7];
    if flags != 0 {
        return Err(Error::UnsupportedFlags(flags));
    }
    let hasher = HasherKind::from_id(raw.bytes[6]).ok_or(Error::UnknownHasher(raw.bytes[6]))?;
    let num_blocks = field(16);
    if num_blocks == 0 {
        return Err(Error::ZeroBlocks);
    }
    if num_blocks > MAX_BLOCKS as u64 {
        return Err(Error::TooLarge {
            blocks: num_blocks as f64,
        });
    }
    let items = field(24);
    if items == 0 {
        return Err(Error::ZeroItems);
    }
    let generations = u32_at(32) as usize;
    if !(1..=MAX_GENERATIONS).contains(&generations) {
        return Err(Error::InvalidGenerations(generations));
    }
    let newest = u32_at(36) as usize;
    if newest >= generations {
        return Err(Error::InvalidWindowHeader(
            "the newest generation's slot is not below G",
        ));
    }
    if field(48) != 0 {
        return Err(Error::InvalidWindowHeader("the reserved field is not 0"));
    }
    // z ≤ 2^32 and G ≤ 64, so the length fits in a u64.
    let expected =
        WINDOW_HEADER_BYTES as u64 + num_blocks * generations as u64 * BLOCK_BYTES as u64;
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
    let payload = &bytes[WINDOW_HEADER_BYTES..];
    let mut state = Xxh3Default::new();
    state.update(&raw.bytes[..CHECKED_BYTES]);
    state.update(payload);
    let (stored, computed) = (field(56), state.digest());
    if stored != computed {
        return Err(Error::ChecksumMismatch { stored, computed });
    }
    // Every length above was checked against the input, which memory holds.
    let header = WindowHeader {
        hasher,
        seed: field(8),
        num_blocks: usize::try_from(num_blocks).map_err(|_| Error::TooLarge {
            blocks: num_blocks as f64,
        })?,
        items_per_generation: usize::try_from(items).unwrap_or(usize::MAX),
        generations,
        newest,
        rotations: field(40),
    };
    Ok((header, payload))
}
