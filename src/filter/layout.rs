//! [`Layout`]: the policy parameter of [`BloomFilter`](crate::BloomFilter) and
//! [`BloomFilterRef`](crate::BloomFilterRef), as Boost.Bloom's block policies are the parameter
//! of its `filter`. A layout says how a key's hash becomes bits in blocks; everything else (the
//! reads, the writes, the batches, the memory, the bytes, the set operations and the
//! statistics) is written once for every layout.
//!
//! Two layouts implement it: [`SplitBlock`] (Parquet's, [`Filter`](crate::Filter)) and
//! [`Wide`] (64-byte blocks for low rates, [`WideFilter`](crate::WideFilter)). The trait is
//! sealed: a layout needs a primitive in every kernel, its sizing formula and a layout id in
//! the format, which only this crate can give it.

use core::fmt::Debug;
use core::hash::Hash;

use crate::arch::BloomLayout;
use crate::error::Error;
use crate::filter::view::block_fpr;
use crate::format::Header;
use crate::kind::LayoutKind;
use crate::layout::split_block::{Block, LANES, SplitBlock};
use crate::layout::wide::{WORDS, Wide, WideBlock, second_block};
use crate::math;
use crate::storage::BlockStorage;

/// A layout of a Bloom filter's bits: the policy parameter `L` of
/// [`BloomFilter<S, L>`](crate::BloomFilter). Implemented by [`SplitBlock`] and [`Wide`]; sealed.
///
/// ```
/// use splitbloom::layout::{SplitBlock, Wide};
/// use splitbloom::{Layout, LayoutKind, WideFilter};
/// assert_eq!(SplitBlock::KIND, LayoutKind::SplitBlock);
/// assert_eq!((Wide::BLOCK_BYTES, SplitBlock::BLOCK_BYTES), (64, 32));
/// let filter = WideFilter::with_fpr(1000, 1e-5)?;
/// assert_eq!((filter.layout().probes(), filter.layout().id()), (2, 2));
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub trait Layout:
    sealed::Sealed + Copy + Debug + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// The word a block is made of: `u32` lanes (split-block) or `u64` words (wide), stored
    /// little-endian.
    type Word: bytemuck::Pod + Eq + Debug + Send + Sync;

    /// The layout's label, as a serialized header names it.
    const KIND: LayoutKind;

    /// The size of one block in bytes.
    const BLOCK_BYTES: usize;

    /// The blocks each key sets its bits in: 1, or 2 for a wide filter below 0.1%.
    fn probes(self) -> u8;

    /// The layout id of a serialized filter's header (byte 7, see [`format`](crate::format)):
    /// 0 for the split-block layout, the probes per key for the wide one.
    fn id(self) -> u8;

    /// The layout value whose [`id`](Layout::id) is `id`, or `None` for an id of another
    /// layout (or none): what a reader of headers, or a store that keeps the id beside the
    /// bits, builds the filter's layout from.
    ///
    /// ```
    /// use splitbloom::Layout;
    /// use splitbloom::layout::{SplitBlock, Wide};
    /// assert_eq!(Wide::from_id(2).map(|wide| wide.probes()), Some(2));
    /// assert_eq!(Wide::from_id(0), None);
    /// assert_eq!(SplitBlock::from_id(0), Some(SplitBlock));
    /// ```
    fn from_id(id: u8) -> Option<Self>;
}

pub(crate) mod sealed {
    use super::*;

    /// What only this crate can give a layout (see the module docs).
    #[allow(
        private_bounds,
        reason = "the kernels' operations are the crate's own; the trait is sealed"
    )]
    pub trait Sealed: BloomLayout {
        /// The aligned block the memory holds (its bytes are one `Policy::Block`).
        type Storage: BlockStorage + bytemuck::Pod;
        /// The size of a word, for byte order.
        const WORD_BYTES: usize;
        /// The type name `Debug` shows for the owned filter.
        const NAME: &'static str;
        /// The type name `Debug` shows for the view of its bytes.
        const REF_NAME: &'static str;
        /// The rate `FromIterator` sizes for.
        const DEFAULT_FPR: f64;

        /// The block count and layout value for `items` keys at a rate of at most `fpr`.
        fn for_fpr(items: usize, fpr: f64) -> Result<(usize, Self), Error>;
        /// The largest filter of this layout, for keys past what any rate can be sized for.
        fn largest() -> (usize, Self);
        /// Whether `num_blocks` blocks of this layout value are what
        /// [`for_fpr`](Sealed::for_fpr) gives `items` keys at `fpr`, in time that does not
        /// depend on the arguments (a scalable filter's reader checks every stage with it).
        fn is_sized_for(self, num_blocks: usize, items: usize, fpr: f64) -> bool;
        /// Errors unless `num_blocks` blocks are a shape this layout value can have.
        fn check_shape(self, num_blocks: usize) -> Result<(), Error>;
        /// The layout value a validated header describes, or [`Error::LayoutMismatch`].
        fn from_header(header: &Header) -> Result<Self, Error>;
        /// The chance that a uniformly random hash is reported present, from the blocks' bits
        /// as 32-bit words (every layout's blocks are whole 32-bit words, aligned to them).
        fn estimated_fpr(self, words: &[u32]) -> f64;
        /// Distinct keys estimated from the fill ratio.
        fn estimated_items(self, fill_ratio: f64, num_blocks: usize) -> f64;
    }
}

/// Errors unless the header holds layout `kind`.
fn check_kind(header: &Header, kind: LayoutKind) -> Result<(), Error> {
    if header.layout == kind {
        Ok(())
    } else {
        Err(Error::LayoutMismatch {
            expected: kind,
            found: header.layout,
        })
    }
}

impl Layout for SplitBlock {
    type Word = u32;
    const KIND: LayoutKind = LayoutKind::SplitBlock;
    const BLOCK_BYTES: usize = 32;

    fn probes(self) -> u8 {
        1
    }

    fn id(self) -> u8 {
        0
    }

    fn from_id(id: u8) -> Option<Self> {
        (id == 0).then_some(SplitBlock)
    }
}

impl sealed::Sealed for SplitBlock {
    type Storage = Block;
    const WORD_BYTES: usize = 4;
    const NAME: &'static str = "Filter";
    const REF_NAME: &'static str = "FilterRef";
    const DEFAULT_FPR: f64 = 0.01;

    fn for_fpr(items: usize, fpr: f64) -> Result<(usize, Self), Error> {
        Ok((math::num_blocks_for_fpr(items, fpr)?, SplitBlock))
    }

    fn largest() -> (usize, Self) {
        (math::MAX_BLOCKS, SplitBlock)
    }

    /// Two evaluations of the rate, not a search.
    fn is_sized_for(self, num_blocks: usize, items: usize, fpr: f64) -> bool {
        math::is_num_blocks_for_fpr(items, fpr, num_blocks)
    }

    fn check_shape(self, num_blocks: usize) -> Result<(), Error> {
        math::check_num_blocks(num_blocks)
    }

    fn from_header(header: &Header) -> Result<Self, Error> {
        check_kind(header, LayoutKind::SplitBlock).map(|()| SplitBlock)
    }

    /// The product of the lanes' fill, averaged over blocks.
    fn estimated_fpr(self, words: &[u32]) -> f64 {
        let (blocks, _) = words.as_chunks::<LANES>();
        let total: f64 = blocks.iter().map(block_fpr).sum();
        total / blocks.len() as f64
    }

    fn estimated_items(self, fill_ratio: f64, num_blocks: usize) -> f64 {
        math::keys_per_block_for_fill(fill_ratio) * num_blocks as f64
    }
}

impl Layout for Wide {
    type Word = u64;
    const KIND: LayoutKind = LayoutKind::Wide;
    const BLOCK_BYTES: usize = 64;

    fn probes(self) -> u8 {
        Wide::probes(self)
    }

    fn id(self) -> u8 {
        Wide::probes(self)
    }

    fn from_id(id: u8) -> Option<Self> {
        Wide::with_probes(id)
    }
}

impl sealed::Sealed for Wide {
    type Storage = WideBlock;
    const WORD_BYTES: usize = 8;
    const NAME: &'static str = "WideFilter";
    const REF_NAME: &'static str = "WideFilterRef";
    const DEFAULT_FPR: f64 = 1e-3;

    fn for_fpr(items: usize, fpr: f64) -> Result<(usize, Self), Error> {
        let (num_blocks, probes) = math::wide::num_blocks_for_fpr(items, fpr)?;
        let layout =
            Wide::with_probes(probes).ok_or(Error::InvalidWideShape { num_blocks, probes })?;
        Ok((num_blocks, layout))
    }

    fn largest() -> (usize, Self) {
        (math::wide::MAX_WIDE_BLOCKS, Wide::ONE_PROBE)
    }

    /// The sizing itself: a bisection of at most 64 steps per probe count.
    fn is_sized_for(self, num_blocks: usize, items: usize, fpr: f64) -> bool {
        Self::for_fpr(items, fpr) == Ok((num_blocks, self))
    }

    fn check_shape(self, num_blocks: usize) -> Result<(), Error> {
        if num_blocks == 0 {
            return Err(Error::ZeroBlocks);
        }
        if num_blocks > math::wide::MAX_WIDE_BLOCKS {
            return Err(Error::TooLarge {
                blocks: num_blocks as f64,
            });
        }
        if !math::wide::is_valid_shape(num_blocks, self.probes()) {
            return Err(Error::InvalidWideShape {
                num_blocks,
                probes: self.probes(),
            });
        }
        Ok(())
    }

    fn from_header(header: &Header) -> Result<Self, Error> {
        check_kind(header, LayoutKind::Wide)?;
        Wide::with_probes(header.probes).ok_or(Error::UnknownLayout(header.probes))
    }

    /// The product of the words' fill in a block, averaged over the first blocks, times the
    /// same product for the second block of each with two probes (the two in-block hashes are
    /// independent).
    fn estimated_fpr(self, words: &[u32]) -> f64 {
        // A 64-bit word is two 32-bit ones, in either order: its bits are their bits.
        let (blocks, _) = words.as_chunks::<{ 2 * WORDS }>();
        let block_fpr = |block: &[u32; 2 * WORDS]| -> f64 {
            block
                .as_chunks::<2>()
                .0
                .iter()
                .map(|[low, high]| f64::from(low.count_ones() + high.count_ones()) / 64.0)
                .product()
        };
        let total: f64 = (0..blocks.len())
            .map(|first| {
                let rate = block_fpr(&blocks[first]);
                if self.probes() == 2 {
                    rate * block_fpr(&blocks[second_block(first)])
                } else {
                    rate
                }
            })
            .sum();
        total / blocks.len() as f64
    }

    fn estimated_items(self, fill_ratio: f64, num_blocks: usize) -> f64 {
        math::wide::items_for_fill(fill_ratio, num_blocks, self.probes())
    }
}
