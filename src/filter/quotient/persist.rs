//! A quotient filter's blocks in chunks, out and back in: what a store that cannot hold a whole
//! filter in one message sends (a Redis `SCANDUMP`/`LOADCHUNK` pair), each chunk costing its
//! own bytes. A block is bytes, so a chunk is the blocks as memory holds them and as `to_bytes`
//! writes them after its 32-byte header, on every target.

use core::ops::Range;

use super::QuotientFilter;
use crate::error::Error;
use crate::format::count_tags;
use crate::kind::TagBits;
use crate::layout::quotient::{BLOCK_BYTES, Block, Tag8, Tag16};

impl<S> QuotientFilter<S> {
    /// The bytes of the blocks in `range` (whole 64-byte blocks), as
    /// [`to_bytes`](QuotientFilter::to_bytes) writes them after its header: a chunk of a
    /// filter too large to send at once. Errors unless the range is whole blocks inside the
    /// filter.
    ///
    /// ```
    /// use splitbloom::{QuotientFilter, TagBits};
    /// let mut filter = QuotientFilter::with_num_blocks(4, TagBits::Eight)?;
    /// filter.insert("key")?;
    /// assert_eq!(filter.block_bytes(0..256)?, &filter.to_bytes()[32..]);
    /// assert!(filter.block_bytes(0..100).is_err()); // not whole blocks
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn block_bytes(&self, range: Range<usize>) -> Result<&[u8], Error> {
        Error::check_whole_units(range.start, range.end, self.size_in_bytes(), BLOCK_BYTES)?;
        let bytes: &[u8] = bytemuck::cast_slice(&self.blocks);
        Ok(&bytes[range])
    }

    /// Writes whole blocks (as [`block_bytes`](QuotientFilter::block_bytes) gives them) at byte
    /// `offset`: the restore of a filter made with
    /// [`with_num_blocks`](QuotientFilter::with_num_blocks), a chunk at a time. Every block is
    /// validated first, and [`len`](QuotientFilter::len) stays exact. Errors, changing nothing,
    /// unless the range is whole blocks inside the filter and every block is valid
    /// ([`Error::InvalidQuotientBlock`] names the first invalid one, counted from the filter's
    /// first block).
    ///
    /// ```
    /// use splitbloom::{QuotientFilter, TagBits};
    /// let mut filter = QuotientFilter::with_num_blocks(4, TagBits::Eight)?;
    /// filter.insert("key")?;
    /// let mut copy = QuotientFilter::with_num_blocks(4, TagBits::Eight)?;
    /// for start in (0..256).step_by(128) {
    ///     copy.load_block_bytes(start, filter.block_bytes(start..start + 128)?)?;
    /// }
    /// assert_eq!(copy, filter);
    /// assert_eq!(copy.len(), 1);
    /// assert!(copy.load_block_bytes(0, &[0xff; 64]).is_err()); // not a valid block
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn load_block_bytes(&mut self, offset: usize, bytes: &[u8]) -> Result<(), Error> {
        let end = offset.saturating_add(bytes.len());
        Error::check_whole_units(offset, end, self.size_in_bytes(), BLOCK_BYTES)?;
        let first = offset / BLOCK_BYTES;
        let (incoming, _) = bytes.as_chunks::<BLOCK_BYTES>();
        let tag_bits = self.tag_bits;
        let tags = |blocks: &[Block]| match tag_bits {
            TagBits::Eight => count_tags::<Tag8>(blocks),
            TagBits::Sixteen => count_tags::<Tag16>(blocks),
        };
        let added = tags(incoming).map_err(|error| match error {
            Error::InvalidQuotientBlock { block } => Error::InvalidQuotientBlock {
                block: first + block,
            },
            other => other,
        })?;
        // The blocks in memory were valid: every write keeps them so.
        let replaced = &mut self.blocks_mut()[first..first + incoming.len()];
        let removed = tags(replaced).unwrap_or(0);
        replaced.copy_from_slice(incoming);
        self.len = self.len - removed + added;
        Ok(())
    }
}
