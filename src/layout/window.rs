//! The window layout ([`WindowFilter`](crate::WindowFilter)): `G` generations side by side, a
//! block index's `G` generations together, so one key's generations are one memory access,
//! tested together.
//!
//! Each generation of a block index is a *plane* of `P` bits, 256 or 128: eight lanes of
//! `P / 8` bits, one bit per lane per key. A key's block index is [`block_index`] over the
//! blocks per generation `z`, its in-block hash `x` the hash's low 32 bits, and lane `i` of its
//! plane gets bit `(x · SALT[i]) >> (32 − log2(P / 8))`: with 256-bit planes (32-bit lanes)
//! exactly the split-block mask, with 128-bit planes (16-bit lanes) its top four bits. A key
//! is present when any generation's plane has every bit of its mask, and an insert writes the
//! newest generation's plane.
//!
//! Plane `g` of block index `i` is plane `i·G + g` of the window: the `G` planes of an index
//! are `G·P/8` contiguous bytes. With 128-bit planes four generations are one 64-byte line,
//! one vector test on AVX-512; with 256-bit planes two are. Smaller planes hold fewer keys at
//! the same rate (their load varies more), so they cost memory: the sizing
//! ([`math::window`](crate::math::window)) takes 128-bit planes only where they save lines
//! for at most [`PLANE_ALLOWANCE`](crate::math::window::PLANE_ALLOWANCE) more memory.

use super::Policy;
use super::split_block::{BlockAndKey, LANES, MAX_BLOCKS, SALT, block_index};

/// The most generations a [`WindowFilter`](crate::WindowFilter) may have: a lookup reads all
/// of one block index's generations, up to `G × 32` bytes, which past 64 would be more than 32
/// cache lines for one key. Defined here, with the layout, so that `Error` can name it
/// without importing `math`; public as `splitbloom::math::MAX_GENERATIONS`.
///
/// ```
/// use splitbloom::{WindowFilter, math::MAX_GENERATIONS};
/// assert!(WindowFilter::with_fpr(100, 0.01, MAX_GENERATIONS + 1).is_err());
/// ```
pub const MAX_GENERATIONS: usize = 64;

/// The size of a generation's plane: how many bits each generation of a block index has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Plane {
    /// 128 bits: eight 16-bit lanes; four generations in a 64-byte line.
    Bits128,
    /// 256 bits: eight 32-bit lanes, a split-block block; two generations in a line.
    Bits256,
}

impl Plane {
    /// The plane's size in 32-bit words.
    #[inline(always)]
    pub(crate) const fn words(self) -> usize {
        match self {
            Plane::Bits128 => 4,
            Plane::Bits256 => 8,
        }
    }

    /// The plane's size in bits.
    pub(crate) const fn bits(self) -> usize {
        self.words() * 32
    }

    /// The plane of `bits` bits, if it is one.
    pub(crate) const fn from_bits(bits: usize) -> Option<Plane> {
        match bits {
            128 => Some(Plane::Bits128),
            256 => Some(Plane::Bits256),
            _ => None,
        }
    }
}

/// The window layout as a [`Policy`]: its shape and the slot inserts write. The blocks the
/// kernels see are the window's 32-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Generations {
    /// Block indices: each key's index is one of these, as in a split-block filter.
    pub(crate) num_blocks: usize,
    /// `G`, 1 to [`MAX_GENERATIONS`].
    pub(crate) generations: usize,
    /// The size of a generation's plane.
    pub(crate) plane: Plane,
    /// The slot inserts write, below `G`.
    pub(crate) newest: usize,
}

impl Generations {
    /// The 32-bit words one block index's `G` planes take.
    #[inline(always)]
    pub(crate) fn group_words(self) -> usize {
        self.generations * self.plane.words()
    }

    /// The words of block index `index`'s planes, oldest slot first.
    #[inline(always)]
    pub(crate) fn group(self, index: usize) -> core::ops::Range<usize> {
        let words = self.group_words();
        index * words..(index + 1) * words
    }

    /// The words of the whole window.
    pub(crate) fn total_words(self) -> Option<usize> {
        self.num_blocks.checked_mul(self.group_words())
    }

    /// This layout with its shape as constants when it is one of the shapes the kernels
    /// specialise, so that an operation chooses its loop once ([`with_shape!`]).
    #[inline(always)]
    pub(crate) fn shape(self) -> Shape {
        let Generations {
            num_blocks, newest, ..
        } = self;
        match (self.plane, self.generations) {
            (Plane::Bits256, 2) => Shape::Two256(Fixed { num_blocks, newest }),
            (Plane::Bits128, 3) => Shape::Three128(Fixed { num_blocks, newest }),
            (Plane::Bits128, 4) => Shape::Four128(Fixed { num_blocks, newest }),
            (Plane::Bits256, 4) => Shape::Four256(Fixed { num_blocks, newest }),
            (Plane::Bits128, 8) => Shape::Eight128(Fixed { num_blocks, newest }),
            _ => Shape::Any(self),
        }
    }
}

/// The first and the last word a batch prefetches for a group of `words` words at word
/// `start` of 64-byte aligned memory: one line when the group is a whole fraction of a line
/// (groups never straddle lines then), the first word of its last line when it is whole lines,
/// its last word otherwise.
#[inline(always)]
fn lines_of_group(start: usize, words: usize) -> [usize; 2] {
    const LINE_WORDS: usize = 16;
    if LINE_WORDS.is_multiple_of(words) {
        [start, start]
    } else if words.is_multiple_of(LINE_WORDS) {
        [start, start + words - LINE_WORDS]
    } else {
        [start, start + words - 1]
    }
}

/// A window layout whose shape is constants: `G` generations of planes of `PLANE_WORDS` words
/// (4 or 8). The kernels' loops over one of these know a group's size, its lines and its plane
/// size at compile time, where [`Generations`] computes them per key; the bytes and answers
/// are [`Generations`]' exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fixed<const PLANE_WORDS: usize, const G: usize> {
    /// Block indices, as in [`Generations`].
    pub(crate) num_blocks: usize,
    /// The slot inserts write, below `G`.
    pub(crate) newest: usize,
}

impl<const PLANE_WORDS: usize, const G: usize> Fixed<PLANE_WORDS, G> {
    /// The plane of `PLANE_WORDS` words.
    pub(crate) const PLANE: Plane = match PLANE_WORDS {
        4 => Plane::Bits128,
        8 => Plane::Bits256,
        _ => panic!("a plane is 4 or 8 words"),
    };
    /// The words of one block index's `G` planes.
    pub(crate) const GROUP_WORDS: usize = PLANE_WORDS * G;

    /// The same layout with its shape as values.
    #[inline(always)]
    pub(crate) fn generations(self) -> Generations {
        Generations {
            num_blocks: self.num_blocks,
            generations: G,
            plane: Self::PLANE,
            newest: self.newest,
        }
    }

    /// The first word of block index `index`'s planes.
    #[inline(always)]
    pub(crate) fn group_start(index: u32) -> usize {
        index as usize * Self::GROUP_WORDS
    }
}

/// The promise of [`Policy`], as for [`Generations`], whose `accepts` this is: `lines` returns
/// words of the group.
impl<const PLANE_WORDS: usize, const G: usize> Policy for Fixed<PLANE_WORDS, G> {
    type Block = u32;
    type Location = BlockAndKey;
    const PREFETCH_DISTANCE: usize = Generations::PREFETCH_DISTANCE;

    #[inline(always)]
    fn accepts(self, len: usize) -> bool {
        self.generations().accepts(len)
    }

    #[inline(always)]
    fn locate(self, hash: u64, len: usize) -> BlockAndKey {
        self.generations().locate(hash, len)
    }

    #[inline(always)]
    fn lines(self, at: BlockAndKey) -> [usize; 2] {
        lines_of_group(Self::group_start(at.block), Self::GROUP_WORDS)
    }
}

/// A window layout as the shape the kernels run it with: one of the shapes
/// [`num_blocks_for_fpr`](crate::math::window::num_blocks_for_fpr) gives for up to eight
/// generations, as constants, or any other as values.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape {
    /// Two generations of 256-bit planes: one line.
    Two256(Fixed<8, 2>),
    /// Three generations of 128-bit planes: 48 bytes.
    Three128(Fixed<4, 3>),
    /// Four generations of 128-bit planes: one line.
    Four128(Fixed<4, 4>),
    /// Four generations of 256-bit planes: two lines.
    Four256(Fixed<8, 4>),
    /// Eight generations of 128-bit planes: two lines.
    Eight128(Fixed<4, 8>),
    /// Any other shape.
    Any(Generations),
}

/// Evaluates `$body` with `$layout` bound to the window layout `$generations` as its
/// [`Shape`]: one `match` per operation, so that each shape's loop is compiled with its
/// constants.
macro_rules! with_shape {
    ($generations:expr, $layout:ident => $body:expr) => {
        match $generations.shape() {
            $crate::layout::window::Shape::Two256($layout) => $body,
            $crate::layout::window::Shape::Three128($layout) => $body,
            $crate::layout::window::Shape::Four128($layout) => $body,
            $crate::layout::window::Shape::Four256($layout) => $body,
            $crate::layout::window::Shape::Eight128($layout) => $body,
            $crate::layout::window::Shape::Any($layout) => $body,
        }
    };
}
pub(crate) use with_shape;

/// The promise of [`Policy`]: `accepts` holds only for `len` of at least `z × G × words per
/// plane` with `z` of 1 to 2^32 and `newest < G` (the words past the last group, a whole
/// unit's padding, are never addressed); then `block_index(hash, z)` is below `z`, so every word
/// of its index's group is below `len`, and `lines` returns words of the group.
impl Policy for Generations {
    type Block = u32;
    type Location = BlockAndKey;
    /// As for the split-block layout: the ring's full depth.
    const PREFETCH_DISTANCE: usize = 128;

    #[inline(always)]
    fn accepts(self, len: usize) -> bool {
        (1..=MAX_BLOCKS).contains(&self.num_blocks)
            && (1..=MAX_GENERATIONS).contains(&self.generations)
            && self.newest < self.generations
            && self.total_words().is_some_and(|words| words <= len)
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
        lines_of_group(self.group(at.block as usize).start, self.group_words())
    }
}

/// The 16-bit-lane mask of in-block hash `x`, for 128-bit planes: bit `(x · SALT[i]) >> 28` of
/// lane `i`.
#[inline(always)]
pub(crate) fn mask16(x: u32) -> [u16; LANES] {
    core::array::from_fn(|i| 1u16 << (x.wrapping_mul(SALT[i]) >> 28))
}

/// `x`'s mask as a plane's words (the first four for a 128-bit plane, whose other words are
/// zero): what an insert ORs into the newest plane.
#[cfg(target_has_atomic = "64")]
#[inline(always)]
pub(crate) fn plane_mask(kind: Plane, x: u32) -> [u32; LANES] {
    match kind {
        Plane::Bits256 => super::split_block::mask(x),
        Plane::Bits128 => {
            let words: [u32; 4] = bytemuck::cast(mask16(x));
            [words[0], words[1], words[2], words[3], 0, 0, 0, 0]
        }
    }
}

/// Whether every bit of `x`'s mask is set in the plane `plane` (its words), branch-free.
#[inline(always)]
pub(crate) fn plane_contains(plane: &[u32], kind: Plane, x: u32) -> bool {
    match kind {
        Plane::Bits256 => {
            let lanes: &[u32; LANES] = plane.try_into().expect("a 256-bit plane is 8 words");
            super::split_block::contains(lanes, x)
        }
        Plane::Bits128 => {
            let words: &[u32; 4] = plane.try_into().expect("a 128-bit plane is 4 words");
            let lanes: [u16; LANES] = bytemuck::cast(*words);
            let mut missing = 0;
            for (lane, bit) in lanes.iter().zip(mask16(x)) {
                missing |= bit & !lane;
            }
            missing == 0
        }
    }
}

/// Sets the bits of `x`'s mask in the plane `plane` (its words).
#[inline(always)]
pub(crate) fn plane_insert(plane: &mut [u32], kind: Plane, x: u32) {
    match kind {
        Plane::Bits256 => {
            let lanes: &mut [u32; LANES] = plane.try_into().expect("a 256-bit plane is 8 words");
            super::split_block::insert(lanes, x);
        }
        Plane::Bits128 => {
            let words: &mut [u32; 4] = plane.try_into().expect("a 128-bit plane is 4 words");
            let mut lanes: [u16; LANES] = bytemuck::cast(*words);
            for (lane, bit) in lanes.iter_mut().zip(mask16(x)) {
                *lane |= bit;
            }
            *words = bytemuck::cast(lanes);
        }
    }
}

/// The chance that a uniformly random in-block hash finds every bit of its mask set in the
/// plane `plane` (its words): the product of the lanes' fill.
pub(crate) fn plane_fpr(plane: &[u32], kind: Plane) -> f64 {
    match kind {
        Plane::Bits256 => plane
            .iter()
            .map(|lane| f64::from(lane.count_ones()) / 32.0)
            .product(),
        Plane::Bits128 => {
            let lanes: &[u16] = bytemuck::cast_slice(plane);
            lanes
                .iter()
                .map(|lane| f64::from(lane.count_ones()) / 16.0)
                .product()
        }
    }
}

/// Whether any of the planes of `group` (one block index's generations) holds every bit of
/// `x`'s mask, each plane tested with no early exit: the reference every kernel reproduces.
#[inline(always)]
pub(crate) fn contains_any(group: &[u32], kind: Plane, x: u32) -> bool {
    group
        .chunks_exact(kind.words())
        .fold(false, |found, plane| found | plane_contains(plane, kind, x))
}

/// Sets `x`'s bits in the plane of slot `slot` of `group`; `true` when some plane already held
/// every bit (before the insert): the reference every kernel reproduces.
#[inline(always)]
pub(crate) fn insert(group: &mut [u32], kind: Plane, slot: usize, x: u32) -> bool {
    let present = contains_any(group, kind, x);
    let words = kind.words();
    plane_insert(&mut group[slot * words..(slot + 1) * words], kind, x);
    present
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers of the 16-bit mask, worked out from the formula: lane `i` holds bit
    /// `(x · SALT[i]) >> 28`.
    #[test]
    fn mask16_known_answers() {
        // x = 1: the salts' top nibbles.
        assert_eq!(
            mask16(1),
            SALT.map(|salt| 1u16 << (salt >> 28)),
            "x = 1 selects each salt's top four bits"
        );
        assert_eq!(mask16(1), [16, 16, 256, 1024, 128, 4, 512, 32]);
        assert_eq!(mask16(0), [1; LANES]);
        for x in [0x1234_5678u32, 0xdead_beef, u32::MAX] {
            let mask = mask16(x);
            assert!(mask.iter().all(|lane| lane.count_ones() == 1));
            // The 256-bit plane's lane bits with the lowest one dropped.
            for (i, lane) in mask.iter().enumerate() {
                let wide = super::super::split_block::mask(x)[i].trailing_zeros();
                assert_eq!(lane.trailing_zeros(), wide >> 1, "x = {x:#x}, lane {i}");
            }
        }
    }

    /// Each plane holds exactly its own keys: an insert into one slot is found there and sets
    /// eight bits in that plane only.
    #[test]
    fn an_insert_touches_its_slot_only() {
        for kind in [Plane::Bits128, Plane::Bits256] {
            for slot in 0..3 {
                let mut group = vec![0u32; 3 * kind.words()];
                assert!(!insert(&mut group, kind, slot, 0x9e37_79b9));
                assert!(insert(&mut group, kind, slot, 0x9e37_79b9));
                assert!(contains_any(&group, kind, 0x9e37_79b9));
                for (plane, words) in group.chunks_exact(kind.words()).enumerate() {
                    let bits: u32 = words.iter().map(|word| word.count_ones()).sum();
                    assert_eq!(bits, if plane == slot { 8 } else { 0 }, "{kind:?} {slot}");
                }
            }
        }
    }
}
