//! The `SBLW` layout of a [`WindowFilter`](crate::WindowFilter): a 64-byte header followed by
//! every generation's planes, in memory order. This file is the codec over plain data; the
//! filter type calls it. The byte table, with known answers, is in `docs/FORMAT.md`.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `SBLW` ([`WINDOW_MAGIC`]) |
//! | 4 | 2 | version `1` |
//! | 6 | 1 | hasher id |
//! | 7 | 1 | layout id: 3 = planes of 256 bits (32-bit lanes), 4 = planes of 128 bits (16-bit lanes) |
//! | 8 | 8 | seed |
//! | 16 | 8 | block indices `z` (planes per generation), 1 ..= 2^32 |
//! | 24 | 8 | keys each generation is sized for, at least 1 |
//! | 32 | 4 | generations `G`, 1 ..= 64 |
//! | 36 | 4 | the newest generation's slot, below `G` |
//! | 40 | 8 | rotations so far |
//! | 48 | 8 | reserved, `0` |
//! | 56 | 8 | XXH3-64 (seed 0) of bytes 0..56 followed by the planes |
//! | 64 | z·G·P/8 | the planes of `P` bits: slot `g` of block index `i` at `64 + (P/8)·(i·G + g)`, each eight little-endian lanes of `P/8` bits |

use alloc::vec::Vec;

use xxhash_rust::xxh3::Xxh3Default;

use super::{RawHeader, for_each_payload_chunk};
use crate::error::Error;
use crate::hash::HasherKind;
use crate::layout::split_block::MAX_BLOCKS;
use crate::layout::window::{MAX_GENERATIONS, Plane};

/// The first four bytes of a serialized [`WindowFilter`](crate::WindowFilter).
///
/// ```
/// let bytes = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?.to_bytes();
/// assert_eq!(bytes[..4], splitbloom::format::WINDOW_MAGIC);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const WINDOW_MAGIC: [u8; 4] = *b"SBLW";

/// The size of a serialized window's header: one 64-byte line, so the planes after it keep the
/// buffer's alignment.
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
    pub(crate) plane: Plane,
    pub(crate) newest: usize,
    pub(crate) rotations: u64,
}

/// The checked header bytes (all but the checksum) of `header`.
fn checked_bytes(header: &WindowHeader) -> [u8; CHECKED_BYTES] {
    let mut bytes = [0; CHECKED_BYTES];
    bytes[..4].copy_from_slice(&WINDOW_MAGIC);
    bytes[4..6].copy_from_slice(&super::VERSION.to_le_bytes());
    bytes[6] = header.hasher.id();
    bytes[7] = window_layout_id(header.plane);
    bytes[8..16].copy_from_slice(&header.seed.to_le_bytes());
    bytes[16..24].copy_from_slice(&(header.num_blocks as u64).to_le_bytes());
    bytes[24..32].copy_from_slice(&(header.items_per_generation as u64).to_le_bytes());
    bytes[32..36].copy_from_slice(&(header.generations as u32).to_le_bytes());
    bytes[36..40].copy_from_slice(&(header.newest as u32).to_le_bytes());
    bytes[40..48].copy_from_slice(&header.rotations.to_le_bytes());
    bytes
}

/// The layout id (header byte 7) of a window whose planes are `plane`.
pub(crate) const fn window_layout_id(plane: Plane) -> u8 {
    match plane {
        Plane::Bits256 => 3,
        Plane::Bits128 => 4,
    }
}

/// The plane of window layout id `id`, or `None` for an id that is not a window's.
const fn plane_of_layout_id(id: u8) -> Option<Plane> {
    match id {
        3 => Some(Plane::Bits256),
        4 => Some(Plane::Bits128),
        _ => None,
    }
}

/// The full header (checksum included) of a window with these planes.
fn header_bytes(header: &WindowHeader, words: &[u32]) -> [u8; WINDOW_HEADER_BYTES] {
    let checked = checked_bytes(header);
    let mut state = Xxh3Default::new();
    state.update(&checked);
    for_each_payload_chunk(words, lane_bytes(header.plane), |chunk| state.update(chunk));
    let mut bytes = [0; WINDOW_HEADER_BYTES];
    bytes[..CHECKED_BYTES].copy_from_slice(&checked);
    bytes[CHECKED_BYTES..].copy_from_slice(&state.digest().to_le_bytes());
    bytes
}

/// The size of a plane's lane, the unit of its byte order: 2 or 4 bytes.
const fn lane_bytes(plane: Plane) -> usize {
    plane.words() / 2
}

/// Serializes a window: its header, then its planes as little-endian lanes.
pub(crate) fn window_to_bytes(header: &WindowHeader, words: &[u32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(WINDOW_HEADER_BYTES + core::mem::size_of_val(words));
    bytes.extend_from_slice(&header_bytes(header, words));
    for_each_payload_chunk(words, lane_bytes(header.plane), |chunk| {
        bytes.extend_from_slice(chunk)
    });
    bytes
}

/// Streams [`window_to_bytes`] to `writer`.
#[cfg(feature = "std")]
pub(crate) fn window_write_to(
    header: &WindowHeader,
    words: &[u32],
    mut writer: impl std::io::Write,
) -> std::io::Result<()> {
    writer.write_all(&header_bytes(header, words))?;
    let mut result = Ok(());
    for_each_payload_chunk(words, lane_bytes(header.plane), |chunk| {
        if result.is_ok() {
            result = writer.write_all(chunk);
        }
    });
    result
}

/// Validates `bytes` as exactly one serialized window: every field in range, the length the
/// header announces, the checksum. Returns the header and the block bytes. Nothing is
/// allocated, so hostile bytes cost only the time to read them.
pub(crate) fn parse_window(bytes: &[u8]) -> Result<(WindowHeader, &[u8]), Error> {
    let raw = RawHeader::<WINDOW_HEADER_BYTES>::read(bytes, WINDOW_MAGIC)?;
    let field = |at: usize| raw.u64_at(at);
    let u32_at =
        |at: usize| u32::from_le_bytes(raw.bytes[at..at + 4].try_into().unwrap_or_default());
    let plane = plane_of_layout_id(raw.bytes[7]).ok_or(Error::UnknownLayout(raw.bytes[7]))?;
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
    // z ≤ 2^32, G ≤ 64 and a plane is at most 32 bytes, so the length fits in a u64.
    let plane_bytes = plane.words() as u64 * 4;
    let expected = WINDOW_HEADER_BYTES as u64 + num_blocks * generations as u64 * plane_bytes;
    let payload = super::exact_length(bytes, expected, WINDOW_HEADER_BYTES)?;
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
        plane,
        newest,
        rotations: field(40),
    };
    Ok((header, payload))
}
