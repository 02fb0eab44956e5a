//! The quotient layout's record (`SBLM` layout ids 5 and 6, [`QuotientFilter`](crate::QuotientFilter)):
//! the filter header, then `z` blocks of 64 bytes, each its metadata and tag slots exactly as
//! the layout keeps them in memory (`docs/FORMAT.md` has the byte table, the placement rule and
//! known answers). A codec over plain slices of blocks; it names no filter type.

use alloc::vec::Vec;

use super::{Header, validate};
use crate::error::Error;
use crate::hash::{FilterHasher, HasherKind};
use crate::kind::{LayoutKind, TagBits};
use crate::layout::quotient::{Block, Tag8, Tag16, Width, is_valid, len};

/// The layout id (header byte 7) of the quotient layout with `tag_bits` tags: 5 or 6.
pub(crate) const fn quotient_layout_id(tag_bits: TagBits) -> u8 {
    match tag_bits {
        TagBits::Eight => 5,
        TagBits::Sixteen => 6,
    }
}

/// Serializes quotient blocks of `tag_bits` tags with their hasher identity (a block is bytes:
/// no byte order to fix).
pub(crate) fn quotient_to_bytes(
    kind: HasherKind,
    seed: u64,
    tag_bits: TagBits,
    blocks: &[Block],
) -> Vec<u8> {
    super::to_bytes(kind, seed, quotient_layout_id(tag_bits), blocks, 1)
}

/// Streams serialized quotient blocks to `writer`.
#[cfg(feature = "std")]
pub(crate) fn quotient_write_to(
    kind: HasherKind,
    seed: u64,
    tag_bits: TagBits,
    blocks: &[Block],
    writer: impl std::io::Write,
) -> std::io::Result<()> {
    super::write_to(kind, seed, quotient_layout_id(tag_bits), blocks, 1, writer)
}

/// What a valid serialized quotient filter holds: its header, tag width, blocks (the input's
/// own bytes) and the number of tags in them.
pub(crate) struct QuotientRecord<'a> {
    pub(crate) header: Header,
    pub(crate) tag_bits: TagBits,
    pub(crate) blocks: &'a [Block],
    pub(crate) len: usize,
}

/// Validates `bytes` as exactly one serialized quotient filter readable with hasher type `S`
/// (every check of the `SBLM` header, the length and the checksum, then every block's
/// metadata), without allocating.
pub(crate) fn validate_quotient<S: FilterHasher>(
    bytes: &[u8],
) -> Result<QuotientRecord<'_>, Error> {
    let (header, payload) = validate(bytes)?;
    if header.layout != LayoutKind::Quotient {
        return Err(Error::LayoutMismatch {
            expected: LayoutKind::Quotient,
            found: header.layout,
        });
    }
    header.check_hasher::<S>()?;
    // The layout ids of `LayoutKind::Quotient` all have a tag width.
    let tag_bits = header.tag_bits.unwrap_or(TagBits::Eight);
    let (blocks, _) = payload.as_chunks::<64>();
    let len = match tag_bits {
        TagBits::Eight => count_tags::<Tag8>(blocks)?,
        TagBits::Sixteen => count_tags::<Tag16>(blocks)?,
    };
    Ok(QuotientRecord {
        header,
        tag_bits,
        blocks,
        len,
    })
}

/// The tags of `blocks`, once every block is valid; the first invalid block's error otherwise.
pub(crate) fn count_tags<W: Width>(blocks: &[Block]) -> Result<usize, Error> {
    let mut tags = 0;
    for (index, block) in blocks.iter().enumerate() {
        if !is_valid::<W>(block) {
            return Err(Error::InvalidQuotientBlock { block: index });
        }
        tags += len::<W>(block) as usize;
    }
    Ok(tags)
}
