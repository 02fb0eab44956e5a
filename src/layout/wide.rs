//! The wide layout ([`WideFilter`](crate::WideFilter)) and its scalar reference kernel.
//!
//! Everything a faster kernel must reproduce bit for bit lives here, in plain Rust with no
//! `unsafe`. A block is one 64-byte cache line of eight little-endian `u64` words; a key sets
//! one bit in each word of one block (one probe) or of two blocks (two probes):
//!
//! ```text
//! probe 0:  b₀ = (hi32(h)·z) >> 32,  x₀ = lo32(h)
//! probe 1:  g₁ = lo64(h·C) ⊕ hi64(h·C)  (128-bit product, C = 0x9E3779B97F4A7C15)
//!           b₁ = (b₀ & !63) | ((b₀ + 1) & 63),  x₁ = lo32(g₁)
//! bits:     word j of block b_p gets bit (x_p·SALT[j] mod 2^32) >> 26
//! ```
//!
//! The block index and the in-block bits come from disjoint halves of a 64-bit word, as in the
//! split-block layout, and the bits are Parquet's multiply-shift with one more bit (64-bit
//! words). The second probe's bits need 32 more hash bits, independent of the first's: they
//! come from one folded 128-bit multiply, which mixes every input bit into both halves. The
//! second block is the next one after the first, wrapping inside the first one's group of 64
//! (one 4 KiB page): the two lines are neighbours, so a lookup's second miss overlaps its first
//! (half the time they are the two halves of one 128-byte pair, which the CPU's adjacent-line
//! prefetcher fetches together). Neighbouring blocks share keys, which costs 2-4% memory over
//! two independent blocks; the rate is the exact formula of [`math::wide`](crate::math::wide).

use super::Policy;
use crate::layout::split_block::SALT;

/// Words in one wide block.
pub(crate) const WORDS: usize = 8;

/// The multiplier that derives the second probe's hash word: 2^64 divided by the golden ratio,
/// odd, so the 128-bit product loses no input bit.
pub(crate) const SECOND_PROBE_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// Bytes in one wide block (one cache line on x86-64 and most aarch64 cores).
pub const WIDE_BLOCK_BYTES: usize = 64;

/// Blocks per group for two probes: a key's second block lies in its first block's group of
/// 64 blocks, one 4 KiB page.
pub const GROUP_BLOCKS: usize = 64;

/// The largest number of wide blocks: the first block is picked by the high 32 bits of the
/// hash, so at most 2^32 blocks are reachable.
pub const MAX_WIDE_BLOCKS: usize = if usize::BITS > 32 {
    1 << 32
} else {
    (isize::MAX as usize) / WIDE_BLOCK_BYTES
};

/// Whether a filter of `num_blocks` blocks may use `probes` probes: one probe needs at least
/// one block, two need whole groups of [`GROUP_BLOCKS`]; both at most [`MAX_WIDE_BLOCKS`].
///
/// ```
/// use splitbloom::math::wide::is_valid_shape;
/// assert!(is_valid_shape(3, 1));
/// assert!(!is_valid_shape(100, 2));
/// assert!(is_valid_shape(128, 2));
/// ```
pub fn is_valid_shape(num_blocks: usize, probes: u8) -> bool {
    let size_ok = num_blocks > 0 && num_blocks <= MAX_WIDE_BLOCKS;
    match probes {
        1 => size_ok,
        2 => size_ok && num_blocks.is_multiple_of(GROUP_BLOCKS),
        _ => false,
    }
}

/// The wide layout: a key's eight bits in one 64-byte block, or in two
/// neighbouring ones ([`probes`](Wide::probes)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wide {
    /// Blocks each key sets its bits in: 1 or 2.
    probes: u8,
}

impl Wide {
    /// One block per key.
    pub(crate) const ONE_PROBE: Wide = Wide { probes: 1 };

    /// The layout with `probes` blocks per key, or `None` unless it is 1 or 2.
    ///
    /// ```
    /// use splitbloom::layout::Wide;
    /// assert_eq!(Wide::with_probes(2).map(Wide::probes), Some(2));
    /// assert!(Wide::with_probes(3).is_none());
    /// ```
    pub const fn with_probes(probes: u8) -> Option<Wide> {
        match probes {
            1 | 2 => Some(Wide { probes }),
            _ => None,
        }
    }

    /// Blocks each key sets its bits in: 1 or 2.
    pub const fn probes(self) -> u8 {
        self.probes
    }
}

/// Where a key lies in the wide layout: its first block and in-block hash, and its second
/// probe's in-block hash (unused with one probe). The second block follows from the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WideLocation {
    /// The first block, below the filter's block count.
    pub(crate) first: u32,
    /// The first probe's in-block hash.
    pub(crate) x0: u32,
    /// The second probe's in-block hash (0 with one probe).
    pub(crate) x1: u32,
}

impl WideLocation {
    /// The second block ([`second_block`] of the first).
    #[inline(always)]
    pub(crate) fn second(self) -> usize {
        second_block(self.first as usize)
    }
}

/// The promise of [`Policy`]: `accepts` is [`is_valid_shape`]: for one probe `len` is 1 to 2^32
/// and the first block, `block_index(hash, len)`, is below it; for two, `len` is also a whole
/// number of groups of 64, so the second block, in the first one's group, is below it too.
/// `lines` returns those two.
impl Policy for Wide {
    type Block = [u64; WORDS];
    type Location = WideLocation;
    /// 32 keys: fewer than the split-block layout's 128, since a two-probe key has two lines
    /// in flight. Measured with `cargo bench -p splitbloom-bench --bench wide` (10^6 keys, Xeon
    /// model 167, two runs each): batched lookups at 1e-4 take 3.76-3.80 ns at 32, 3.70-3.79 at
    /// 16, 3.84-3.86 at 64 and 4.00-4.01 at 128; at 1e-3 (one probe) 2.30-2.32 at 32 against
    /// 2.38-2.42 at 128.
    const PREFETCH_DISTANCE: usize = 32;

    #[inline(always)]
    fn accepts(self, len: usize) -> bool {
        is_valid_shape(len, self.probes)
    }

    #[inline(always)]
    fn locate(self, hash: u64, len: usize) -> WideLocation {
        let (first, x0) = first_probe(hash, len);
        let x1 = if self.probes == 2 {
            second_probe(hash, first).1
        } else {
            0
        };
        WideLocation {
            first: first as u32,
            x0,
            x1,
        }
    }

    #[inline(always)]
    fn lines(self, at: WideLocation) -> [usize; 2] {
        let first = at.first as usize;
        [first, if self.probes == 2 { at.second() } else { first }]
    }
}

/// One 512-bit block: eight 64-bit words, aligned to 64 bytes so that a block is one cache
/// line.
#[derive(Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
pub struct WideBlock(pub(crate) [u64; WORDS]);

/// The first probe of `hash` among `num_blocks` blocks: its block `b₀` and in-block hash `x₀`.
#[inline(always)]
pub(crate) fn first_probe(hash: u64, num_blocks: usize) -> (usize, u32) {
    (
        crate::layout::split_block::block_index(hash, num_blocks),
        hash as u32,
    )
}

/// The second block of a key whose first block is `first`: the next block of `first`'s group
/// of 64.
#[inline(always)]
pub(crate) fn second_block(first: usize) -> usize {
    (first & !63) | ((first + 1) & 63)
}

/// The second probe of `hash` whose first block is `first`: its block ([`second_block`]) and
/// in-block hash.
#[inline(always)]
pub(crate) fn second_probe(hash: u64, first: usize) -> (usize, u32) {
    let product = u128::from(hash) * u128::from(SECOND_PROBE_MULTIPLIER);
    let second_hash = (product as u64) ^ ((product >> 64) as u64);
    (second_block(first), second_hash as u32)
}

/// Both probes of `hash` among `num_blocks` blocks (a multiple of 64 when the second is used),
/// for the whole-key reference.
#[cfg(test)]
pub(crate) fn probes(hash: u64, num_blocks: usize) -> [(usize, u32); 2] {
    let first = first_probe(hash, num_blocks);
    [first, second_probe(hash, first.0)]
}

/// The eight-word bit mask of in-block hash `x`: one bit set in each word.
///
/// This is the reference every wide kernel is tested against.
#[inline(always)]
pub(crate) fn mask(x: u32) -> [u64; WORDS] {
    core::array::from_fn(|j| 1u64 << (x.wrapping_mul(SALT[j]) >> 26))
}

/// Sets the bits of `x` in `block`; returns `true` when all of them were already set.
#[inline(always)]
pub(crate) fn insert_block(block: &mut [u64; WORDS], x: u32) -> bool {
    let mut missing = 0;
    for (word, bit) in block.iter_mut().zip(mask(x)) {
        missing |= bit & !*word;
        *word |= bit;
    }
    missing == 0
}

/// Which bits of `x` are missing from `block` (zero when all are set), branch-free.
#[inline(always)]
pub(crate) fn missing_in_block(block: &[u64; WORDS], x: u32) -> u64 {
    let mut missing = 0;
    for (word, bit) in block.iter().zip(mask(x)) {
        missing |= bit & !word;
    }
    missing
}

/// Whether every bit of `hash`'s `probes` probes is set in `blocks`, branch-free: the
/// whole-key reference every kernel's tests compare with.
#[cfg(test)]
pub(crate) fn contains(blocks: &[[u64; WORDS]], probes_per_key: u8, hash: u64) -> bool {
    let probes = probes(hash, blocks.len());
    let mut missing = missing_in_block(&blocks[probes[0].0], probes[0].1);
    if probes_per_key == 2 {
        missing |= missing_in_block(&blocks[probes[1].0], probes[1].1);
    }
    missing == 0
}

/// Sets every bit of `hash`'s `probes` probes in `blocks`; returns `true` when all of them were
/// already set: the whole-key reference every kernel's tests compare with.
#[cfg(test)]
pub(crate) fn insert(blocks: &mut [[u64; WORDS]], probes_per_key: u8, hash: u64) -> bool {
    let probes = probes(hash, blocks.len());
    let mut present = insert_block(&mut blocks[probes[0].0], probes[0].1);
    if probes_per_key == 2 {
        present &= insert_block(&mut blocks[probes[1].0], probes[1].1);
    }
    present
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One probe's known answer: the block and the bit of each word.
    type ProbeAnswer = (usize, [u32; 8]);

    /// Known answers of the layout (z = 1024, two probes; bits for words 0..7): the blocks and
    /// bits worked out from the formulas of the module docs.
    #[test]
    fn layout_known_answers() {
        let cases: [(u64, ProbeAnswer, u64, ProbeAnswer); 4] = [
            (
                0x0000_0000_0000_0001,
                (0, [17, 17, 34, 40, 28, 11, 39, 23]),
                0x9e37_79b9_7f4a_7c15,
                (1, [46, 17, 12, 44, 13, 63, 41, 51]),
            ),
            (
                0xef46_db37_51d8_e999,
                (957, [59, 1, 51, 57, 29, 45, 59, 61]),
                0x9f41_b91d_291a_8e2b,
                (958, [45, 35, 25, 12, 55, 18, 29, 49]),
            ),
            (
                0x0123_4567_89ab_cdef,
                (4, [37, 38, 61, 46, 9, 32, 25, 48]),
                0x0c27_a443_d5ff_218e,
                (5, [63, 29, 40, 60, 62, 1, 49, 10]),
            ),
            (
                u64::MAX,
                (1023, [46, 46, 29, 23, 35, 52, 24, 40]),
                u64::MAX,
                (960, [46, 46, 29, 23, 35, 52, 24, 40]),
            ),
        ];
        for (hash, (b0, bits0), g1, (b1, bits1)) in cases {
            let probes = probes(hash, 1024);
            assert_eq!(probes[0], (b0, hash as u32), "{hash:#x}");
            assert_eq!(probes[1], (b1, g1 as u32), "{hash:#x}");
            let positions = |x: u32| mask(x).map(|word| word.trailing_zeros());
            assert_eq!(positions(probes[0].1), bits0, "{hash:#x}");
            assert_eq!(positions(probes[1].1), bits1, "{hash:#x}");
        }
    }

    /// The second block is always the next block of the first one's group of 64.
    #[test]
    fn second_block_is_the_next_block_of_the_page() {
        let mut hash = 0x1234_5678_9abc_def1_u64;
        for _ in 0..100_000 {
            hash = hash.wrapping_mul(0x5851_f42d_4c95_7f2d).wrapping_add(1);
            let [(first, _), (second, _)] = probes(hash, 64 * 37);
            assert_eq!(first / 64, second / 64);
            assert_eq!(second % 64, (first + 1) % 64);
        }
    }

    #[test]
    fn insert_then_contains() {
        let mut blocks = [[0u64; WORDS]; 128];
        for probes in [1, 2] {
            for hash in [0u64, 1, 0xdead_beef_cafe_f00d, u64::MAX] {
                blocks.fill([0; WORDS]);
                assert!(!contains(&blocks, probes, hash));
                assert!(!insert(&mut blocks, probes, hash));
                assert!(insert(&mut blocks, probes, hash));
                assert!(contains(&blocks, probes, hash));
                let set: u32 = blocks.iter().flatten().map(|w| w.count_ones()).sum();
                assert_eq!(set, 8 * u32::from(probes));
            }
        }
    }
}
