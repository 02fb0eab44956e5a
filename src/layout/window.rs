//! The window layout ([`WindowFilter`](crate::WindowFilter)): `G` generations of split-block
//! filters side by side, a block index's `G` blocks together, so one key's generations are one
//! memory access.
//!
//! Slot `g` of block index `i` is block `i·G + g`. A key lies at the split-block location of
//! one generation ([`block_index`] among the blocks per generation, and the in-block hash); it
//! is present when any generation's block has every bit of its mask, and an insert writes the
//! newest generation's slot.

use super::Policy;
use super::split_block::{BlockAndKey, LANES, MAX_BLOCKS, block_index};

/// The most generations a [`WindowFilter`](crate::WindowFilter) may have: a lookup reads all
/// of one block index's generations, `G × 32` bytes, which past 64 would be more than 32
/// cache lines for one key. Defined here, with the layout, so that `Error` can name it
/// without importing `math`; public as `splitbloom::math::MAX_GENERATIONS`.
///
/// ```
/// use splitbloom::{WindowFilter, math::MAX_GENERATIONS};
/// assert!(WindowFilter::with_fpr(100, 0.01, MAX_GENERATIONS + 1).is_err());
/// ```
pub const MAX_GENERATIONS: usize = 64;

/// The window layout as a [`Policy`]: its shape and the slot inserts write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Generations {
    /// Blocks per generation: the block index ranges over these.
    pub(crate) num_blocks: usize,
    /// `G`, 1 to [`MAX_GENERATIONS`].
    pub(crate) generations: usize,
    /// The slot inserts write, below `G`.
    pub(crate) newest: usize,
}

impl Generations {
    /// The `G` blocks of block index `index`, oldest slot first.
    #[inline(always)]
    pub(crate) fn slots(self, index: usize) -> core::ops::Range<usize> {
        index * self.generations..(index + 1) * self.generations
    }
}

/// The promise of [`Policy`]: `accepts` holds only for `len = num_blocks × G` with
/// `num_blocks` of 1 to 2^32 and `newest < G`; then `block_index(hash, num_blocks)` is below
/// `num_blocks`, so every slot of its block index, `index × G + g` for `g < G`, is below `len`,
/// and `lines` returns two of them.
impl Policy for Generations {
    type Block = [u32; LANES];
    type Location = BlockAndKey;
    /// As for the split-block layout: the ring's full depth.
    const PREFETCH_DISTANCE: usize = 128;

    #[inline(always)]
    fn accepts(self, len: usize) -> bool {
        (1..=MAX_BLOCKS).contains(&self.num_blocks)
            && (1..=MAX_GENERATIONS).contains(&self.generations)
            && self.newest < self.generations
            && self.num_blocks.checked_mul(self.generations) == Some(len)
    }

    #[inline(always)]
    fn locate(self, hash: u64, _len: usize) -> BlockAndKey {
        BlockAndKey {
            block: block_index(hash, self.num_blocks) as u32,
            x: hash as u32,
        }
    }

    #[inline(always)]
    fn lines(self, at: BlockAndKey) -> [usize; 2] {
        let slots = self.slots(at.block as usize);
        [slots.start, slots.end - 1]
    }
}
