//! The split-block layout ([`SplitBlock`]) and its scalar reference.
//!
//! Everything every other kernel must reproduce bit for bit lives here, written in plain
//! Rust with no `unsafe`: the eight Parquet salts, how a 64-bit hash picks a block, and how
//! the hash's low 32 bits become one bit in each of the block's eight 32-bit lanes.
//! The layout is the one of the Parquet split-block Bloom filter (SBBF) specification,
//! which Impala, Kudu, Arrow, Spark and DuckDB share.

use super::Policy;

/// Number of 32-bit lanes in a block.
///
/// ```
/// assert_eq!(splitbloom::mask(7).len(), splitbloom::LANES);
/// ```
pub const LANES: usize = 8;

/// Size of one block in bytes (256 bits).
///
/// ```
/// assert_eq!(splitbloom::Filter::with_num_blocks(2)?.size_in_bytes(), 2 * splitbloom::BLOCK_BYTES);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub const BLOCK_BYTES: usize = 32;

/// The largest number of blocks a filter may have: the block index is computed from the high 32
/// bits of the hash, so more than 2^32 blocks could not all be reached (and 2^32 blocks are
/// already 128 GiB). Defined here, with the layout, so that `Error` can name it without
/// importing `math`; public as `splitbloom::math::MAX_BLOCKS`.
///
/// ```
/// use splitbloom::{Filter, math::MAX_BLOCKS};
/// assert!(Filter::with_num_blocks(MAX_BLOCKS + 1).is_err());
/// ```
pub const MAX_BLOCKS: usize = if usize::BITS > 32 {
    1 << 32
} else {
    (isize::MAX as usize) / BLOCK_BYTES
};

/// The eight odd multipliers of the Parquet SBBF specification; lane `i` of a block gets bit
/// `(x * SALT[i]) >> 27` of a key whose in-block hash is `x`.
///
/// ```
/// assert_eq!(splitbloom::SALT[0], 0x47b6_137b);
/// ```
pub const SALT: [u32; LANES] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// The split-block layout: one 32-byte block per key, the block chosen by
/// [`block_index`] and the bits by [`mask`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SplitBlock;

/// Where a key lies in the split-block layout: its block and its in-block hash (the hash's
/// low 32 bits). A block index fits 32 bits: it is a 64-bit product shifted right by 32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BlockAndKey {
    /// The block, below the filter's block count.
    pub(crate) block: u32,
    /// The in-block hash.
    pub(crate) x: u32,
}

/// The promise of [`Policy`]: `block_index(hash, len)` is below `len` for every `len` of 1 to
/// 2^32 (a value below 2^32 times `len`, shifted right by 32), which `accepts` requires, and
/// `lines` returns that block.
impl Policy for SplitBlock {
    type Block = [u32; LANES];
    type Location = BlockAndKey;
    /// 128 keys: the distance at which batches out of DRAM were fastest, prefetching into L2
    /// (BENCHMARKS.md, "Prefetch").
    const PREFETCH_DISTANCE: usize = 128;

    #[inline(always)]
    fn accepts(self, len: usize) -> bool {
        len != 0 && len <= MAX_BLOCKS
    }

    #[inline(always)]
    fn locate(self, hash: u64, len: usize) -> BlockAndKey {
        BlockAndKey {
            block: block_index(hash, len) as u32,
            x: hash as u32,
        }
    }

    #[inline(always)]
    fn lines(self, at: BlockAndKey) -> [usize; 2] {
        [at.block as usize; 2]
    }
}

/// One 256-bit block: eight little 32-bit lanes, aligned to 32 bytes so that a block never
/// straddles two cache lines.
#[derive(Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(32))]
pub struct Block(pub(crate) [u32; LANES]);

/// The block that hash `hash` selects among `num_blocks` blocks: the high 32 bits of the hash
/// scaled to `0..num_blocks` with a multiply-high, so the block count need not be a power of two.
///
/// ```
/// use splitbloom::block_index;
/// assert_eq!(block_index(0, 10), 0);
/// assert_eq!(block_index(u64::MAX, 10), 9);
/// assert_eq!(block_index(0x8000_0000_0000_0000, 10), 5);
/// ```
#[inline(always)]
pub fn block_index(hash: u64, num_blocks: usize) -> usize {
    // `num_blocks` is at most 2^32 (enforced by every constructor), so the product fits in u64.
    (((hash >> 32) * num_blocks as u64) >> 32) as usize
}

/// The eight-lane bit mask of in-block hash `x`: exactly one bit set in each lane.
///
/// This is the reference every SIMD kernel is tested against.
///
/// ```
/// let mask = splitbloom::mask(0x1234_5678);
/// assert!(mask.iter().all(|lane| lane.count_ones() == 1));
/// ```
#[inline(always)]
pub fn mask(x: u32) -> [u32; LANES] {
    core::array::from_fn(|i| 1u32 << (x.wrapping_mul(SALT[i]) >> 27))
}

/// Sets the bits of `x` in `block`; returns `true` when all of them were already set.
#[inline(always)]
pub(crate) fn insert(block: &mut [u32; LANES], x: u32) -> bool {
    let mask = mask(x);
    let mut missing = 0;
    for (word, bit) in block.iter_mut().zip(mask) {
        missing |= bit & !*word;
        *word |= bit;
    }
    missing == 0
}

/// Whether every bit of `x` is set in `block`, without an early exit (branch-free).
#[inline(always)]
pub(crate) fn contains(block: &[u32; LANES], x: u32) -> bool {
    let mask = mask(x);
    let mut missing = 0;
    for (word, bit) in block.iter().zip(mask) {
        missing |= bit & !word;
    }
    missing == 0
}
