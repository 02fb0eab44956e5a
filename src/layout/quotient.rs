//! The quotient layout ([`QuotientFilter`](crate::QuotientFilter)) and its scalar reference:
//! where a key's tag may live, how a block records which bucket each tag belongs to, and how a
//! tag is added to or taken out of a block. Every kernel must reproduce these answers and
//! these bytes; plain Rust, no `unsafe`.
//!
//! A block is one 64-byte cache line, kept as its bytes (so it reads the same on every host and
//! needs no alignment): metadata first, then the tag slots.
//!
//! | tags | metadata | slots | buckets | slot `i` |
//! |---|---|---|---|---|
//! | 8 bits ([`Tag8`]) | bytes 0..16: one little-endian 128-bit word | 48 | 80 | byte `16 + i` |
//! | 16 bits ([`Tag16`]) | bytes 0..8: one little-endian 64-bit word | 28 | 36 | `u16` LE at byte `8 + 2i` |
//!
//! The metadata, read from bit 0 up, is for each bucket in turn one `1` per tag of the bucket
//! followed by a `0`; the bits after the last bucket's `0` are all `0`. A block of `n` tags
//! therefore has `n` one bits, the tags of bucket `q` are the slots `start(q)..end(q)`
//! (`end(q)` is the position of the `q`-th zero minus `q`), and the tags sit in the slots in
//! bucket order; slots `n..` hold 0. An all-zero block is empty, so a new filter's memory can
//! stay untouched until written. This is the unary bucket encoding of the vector quotient
//! filter (Pandey, Conway, Durie, Bender, Farach-Colton and Johnson, SIGMOD 2021), with the
//! bits inverted; its slot and bucket counts fill one cache line exactly:
//! `8·48 + 48 + 80 = 512` and `16·28 + 28 + 36 = 512` bits.
//!
//! A key with hash `h` has a tag `t` (the low bits of `h`), a bucket `q` (the next bits, by
//! multiply-high) and two candidate blocks among `z`: the primary `b₁` (the high 32 bits, by
//! multiply-high, as every filter of the family picks its block) and the alternate
//! `b₂ = (c(t) − b₁) mod z`, with `c(t)` a multiply-high of a Weyl sequence of the tag. Its tag
//! goes into bucket `q` of either block. The alternate of the alternate is the primary again,
//! so a stored tag can move to its other block knowing only its block and tag: that is what
//! lets an insert into two full blocks make room by moving one tag out (see [`Location`]).

use core::fmt::Debug;

use bytemuck::{Pod, Zeroable};

use super::Policy;
use crate::math::quotient::MAX_QUOTIENT_BLOCKS;

/// Bytes in one block: one cache line.
pub(crate) const BLOCK_BYTES: usize = 64;

/// A block as the kernels see it: its bytes, in file order.
pub(crate) type Block = [u8; BLOCK_BYTES];

/// The multiplier of the tag's Weyl sequence, `c(t) = ⌊((t + 1)·M mod 2^64)·R / 2^64⌋`: 2^64
/// divided by the golden ratio, which spreads consecutive tags' offsets evenly over the buckets.
pub(crate) const ALTERNATE_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// A block of owned storage: the same bytes, aligned to a cache line.
#[derive(Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
#[repr(C, align(64))]
pub(crate) struct QuotientBlock(pub(crate) Block);

/// The metadata word of a block: `u128` with 8-bit tags, `u64` with 16-bit tags.
pub(crate) trait MetadataBits: Copy + Eq + Debug {
    /// Bits in the word.
    const BITS: u32;
    /// Bit `position`.
    fn bit(self, position: u32) -> bool;
    /// The number of one bits: the tags the block holds.
    fn tags(self) -> u32;
    /// The number of zero bits above the highest one (all of them for 0).
    fn leading_zeros(self) -> u32;
    /// The word with every bit flipped: the bucket ends as ones.
    fn ends(self) -> Self;
    /// Bits 0..64.
    fn low(self) -> u64;
    /// Bits 64..128 (0 for a 64-bit word).
    fn high(self) -> u64;
    /// The word with a `1` inserted at `position` and the bits from there moved up by one (the
    /// top bit falls off); unchanged when `position` is out of range.
    fn insert_one(self, position: u32) -> Self;
    /// The word with bit `position` removed, the bits above it moved down by one and a `0`
    /// entering at the top; unchanged when `position` is out of range.
    fn remove_bit(self, position: u32) -> Self;
}

macro_rules! metadata_bits {
    ($word:ty) => {
        impl MetadataBits for $word {
            const BITS: u32 = <$word>::BITS;

            #[inline(always)]
            fn bit(self, position: u32) -> bool {
                position < Self::BITS && (self >> position) & 1 == 1
            }

            #[inline(always)]
            fn tags(self) -> u32 {
                self.count_ones()
            }

            #[inline(always)]
            fn leading_zeros(self) -> u32 {
                <$word>::leading_zeros(self)
            }

            #[inline(always)]
            fn ends(self) -> Self {
                !self
            }

            #[inline(always)]
            fn low(self) -> u64 {
                self as u64
            }

            #[inline(always)]
            fn high(self) -> u64 {
                (u128::from(self) >> 64) as u64
            }

            #[inline(always)]
            fn insert_one(self, position: u32) -> Self {
                if position >= Self::BITS {
                    return self;
                }
                let below = (1 << position) - 1;
                (self & below) | ((self & !below) << 1) | (1 << position)
            }

            #[inline(always)]
            fn remove_bit(self, position: u32) -> Self {
                if position >= Self::BITS {
                    return self;
                }
                let below = (1 << position) - 1;
                (self & below) | ((self >> 1) & !below)
            }
        }
    };
}
metadata_bits!(u64);
metadata_bits!(u128);

/// A tag width: the shape of its blocks and how its tags and metadata are stored. A width is
/// also the layout's [`Policy`]: where a key's lines are, for the batch loops.
pub(crate) trait Width: Copy + Default + Debug + Send + Sync + 'static {
    /// Bits per tag.
    const TAG_BITS: u32;
    /// Tag slots per block.
    const SLOTS: u32;
    /// Buckets per block.
    const BUCKETS: u32;
    /// Bytes of metadata at the start of a block: slot 0 starts here.
    const METADATA_BYTES: usize;
    /// A tag.
    type Tag: Copy + Eq + Default + Debug + Into<u64> + Send + Sync;
    /// The metadata word.
    type Metadata: MetadataBits;

    /// The tag of `hash`: its low [`TAG_BITS`](Width::TAG_BITS) bits.
    fn tag(hash: u64) -> Self::Tag;
    /// The block's metadata word.
    fn metadata(block: &Block) -> Self::Metadata;
    /// Writes the block's metadata word.
    fn set_metadata(block: &mut Block, metadata: Self::Metadata);
    /// The tag in `slot` (below [`SLOTS`](Width::SLOTS)).
    fn slot(block: &Block, slot: u32) -> Self::Tag;
    /// Writes the tag in `slot` (below [`SLOTS`](Width::SLOTS)).
    fn set_slot(block: &mut Block, slot: u32, tag: Self::Tag);
}

/// 8-bit tags: 48 slots, 80 buckets, 128 bits of metadata.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tag8;

/// 16-bit tags: 28 slots, 36 buckets, 64 bits of metadata.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tag16;

impl Width for Tag8 {
    const TAG_BITS: u32 = 8;
    const SLOTS: u32 = 48;
    const BUCKETS: u32 = 80;
    const METADATA_BYTES: usize = 16;
    type Tag = u8;
    type Metadata = u128;

    #[inline(always)]
    fn tag(hash: u64) -> u8 {
        hash as u8
    }

    #[inline(always)]
    fn metadata(block: &Block) -> u128 {
        let mut bytes = [0; 16];
        bytes.copy_from_slice(&block[..16]);
        u128::from_le_bytes(bytes)
    }

    #[inline(always)]
    fn set_metadata(block: &mut Block, metadata: u128) {
        block[..16].copy_from_slice(&metadata.to_le_bytes());
    }

    #[inline(always)]
    fn slot(block: &Block, slot: u32) -> u8 {
        block[Self::METADATA_BYTES + slot as usize]
    }

    #[inline(always)]
    fn set_slot(block: &mut Block, slot: u32, tag: u8) {
        block[Self::METADATA_BYTES + slot as usize] = tag;
    }
}

impl Width for Tag16 {
    const TAG_BITS: u32 = 16;
    const SLOTS: u32 = 28;
    const BUCKETS: u32 = 36;
    const METADATA_BYTES: usize = 8;
    type Tag = u16;
    type Metadata = u64;

    #[inline(always)]
    fn tag(hash: u64) -> u16 {
        hash as u16
    }

    #[inline(always)]
    fn metadata(block: &Block) -> u64 {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&block[..8]);
        u64::from_le_bytes(bytes)
    }

    #[inline(always)]
    fn set_metadata(block: &mut Block, metadata: u64) {
        block[..8].copy_from_slice(&metadata.to_le_bytes());
    }

    #[inline(always)]
    fn slot(block: &Block, slot: u32) -> u16 {
        let at = Self::METADATA_BYTES + 2 * slot as usize;
        u16::from_le_bytes([block[at], block[at + 1]])
    }

    #[inline(always)]
    fn set_slot(block: &mut Block, slot: u32, tag: u16) {
        let at = Self::METADATA_BYTES + 2 * slot as usize;
        block[at..at + 2].copy_from_slice(&tag.to_le_bytes());
    }
}

// Each layout fills its cache line exactly: tags, one one per slot, one zero per bucket.
const _: () = assert!(8 * 48 + 48 + 80 == 8 * BLOCK_BYTES as u32);
const _: () = assert!(16 * 28 + 28 + 36 == 8 * BLOCK_BYTES as u32);
const _: () = assert!(Tag8::METADATA_BYTES * 8 == 48 + 80 && Tag16::METADATA_BYTES * 8 == 28 + 36);

/// An empty block, of either width: all zero.
pub(crate) const EMPTY_BLOCK: Block = [0; BLOCK_BYTES];

/// The number of tags `block` holds.
#[inline(always)]
pub(crate) fn len<W: Width>(block: &Block) -> u32 {
    W::metadata(block).tags()
}

/// The two candidate places of a key: its bucket in its primary block or in its alternate
/// block, and its tag. The two blocks may be the same one (rarely).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Location<W: Width> {
    /// The primary block and the alternate block.
    pub(crate) blocks: [usize; 2],
    /// The bucket, the same in both blocks.
    pub(crate) bucket: u32,
    /// The tag.
    pub(crate) tag: W::Tag,
}

impl<W: Width> Location<W> {
    /// Whether the two candidate blocks are one (the tag's offset puts the alternate on the
    /// primary): such a key has one place, and its tags are counted once.
    #[inline(always)]
    pub(crate) fn one_place(&self) -> bool {
        self.blocks[0] == self.blocks[1]
    }
}

/// The alternate of block `block` among `num_blocks` for a tag `tag`:
/// `(c(tag) − block) mod num_blocks`, with `c(t) = ⌊((t + 1)·M mod 2^64)·z / 2^64⌋` (`M` is
/// [`ALTERNATE_MULTIPLIER`]). Applied twice it gives `block` back.
#[inline(always)]
pub(crate) fn alternate(block: u64, tag: u64, num_blocks: u64) -> u64 {
    let weyl = tag.wrapping_add(1).wrapping_mul(ALTERNATE_MULTIPLIER);
    let offset = ((u128::from(weyl) * u128::from(num_blocks)) >> 64) as u64;
    if offset >= block {
        offset - block
    } else {
        offset + (num_blocks - block)
    }
}

/// Where the key with hash `h` may be among `num_blocks` blocks (1 to 2^32) of width `W`: tag
/// `t = h mod 2^T`, bucket `q = ⌊((h mod 2^32) >> T)·B / 2^(32 − T)⌋`, primary block
/// `b₁ = ⌊(h >> 32)·z / 2^32⌋` (the family's block index), alternate block
/// [`alternate`]`(b₁, t, z)`.
#[inline(always)]
pub(crate) fn locate<W: Width>(hash: u64, num_blocks: usize) -> Location<W> {
    let tag = W::tag(hash);
    let primary = super::split_block::block_index(hash, num_blocks);
    let bucket =
        (u64::from(hash as u32 >> W::TAG_BITS) * u64::from(W::BUCKETS)) >> (32 - W::TAG_BITS);
    let other = alternate(primary as u64, tag.into(), num_blocks as u64);
    Location {
        blocks: [primary, other as usize],
        bucket: bucket as u32,
        tag,
    }
}

/// The batch loops' view of a width: a key's lines are its two blocks.
///
/// The promise of [`Policy`]: for every accepted `len` (1 to [`MAX_QUOTIENT_BLOCKS`]), both
/// blocks of [`locate`] are below `len` (the primary is a multiply-high of a 32-bit value by
/// `len`, the alternate a difference taken modulo `len`).
macro_rules! width_policy {
    ($Width:ty) => {
        impl Policy for $Width {
            type Block = Block;
            type Location = Location<$Width>;
            // Two lines per key in flight, so a quarter of the split-block distance.
            const PREFETCH_DISTANCE: usize = 32;

            #[inline(always)]
            fn accepts(self, len: usize) -> bool {
                (1..=MAX_QUOTIENT_BLOCKS).contains(&len)
            }

            #[inline(always)]
            fn locate(self, hash: u64, len: usize) -> Location<$Width> {
                locate::<$Width>(hash, len)
            }

            #[inline(always)]
            fn lines(self, at: Location<$Width>) -> [usize; 2] {
                at.blocks
            }
        }
    };
}
width_policy!(Tag8);
width_policy!(Tag16);

/// A bucket's slots as the kernels give them: one-hot words of its first slot and of the slot
/// after its last, so that the slots are `end − start` and the end is `end`'s trailing zeros.
pub(crate) type BucketEnds = (u64, u64);

/// The one-hot words of `start..end`.
#[inline(always)]
pub(crate) fn one_hot((start, end): (u32, u32)) -> BucketEnds {
    (1 << start.min(63), 1 << end.min(63))
}

/// The slots `start..end` of bucket `bucket` in a block with `metadata` (the reference every
/// kernel's `bucket_bounds` must match on valid metadata). On metadata with fewer zeros than
/// `bucket + 1` it answers with the slots after the last one, clamped to the block: wrong, but
/// in range.
pub(crate) fn bucket_bounds<W: Width>(metadata: W::Metadata, bucket: u32) -> (u32, u32) {
    let (mut ends, mut tags, mut start) = (0, 0, 0);
    for position in 0..W::Metadata::BITS {
        if metadata.bit(position) {
            tags += 1;
        } else {
            if ends == bucket {
                return (start.min(W::SLOTS), tags.min(W::SLOTS));
            }
            ends += 1;
            start = tags;
        }
    }
    (start.min(W::SLOTS), tags.min(W::SLOTS))
}

/// The bucket of every slot holding a tag (the number of zeros before its one), for the rare
/// insert that must move a tag to its other block. Slots past the block's tags get `BUCKETS`.
pub(crate) fn slot_buckets<W: Width>(metadata: W::Metadata) -> [u32; 48] {
    let mut buckets = [W::BUCKETS; 48];
    let (mut bucket, mut slot) = (0, 0);
    for position in 0..W::Metadata::BITS {
        if !metadata.bit(position) {
            bucket += 1;
        } else if slot < W::SLOTS as usize {
            buckets[slot] = bucket;
            slot += 1;
        }
    }
    buckets
}

/// The slots of `block` holding `tag`, as bits (bit `i` for slot `i`): the reference of every
/// kernel's `tag_matches`.
pub(crate) fn tag_matches<W: Width>(block: &Block, tag: W::Tag) -> u64 {
    (0..W::SLOTS)
        .filter(|&slot| W::slot(block, slot) == tag)
        .fold(0, |bits, slot| bits | 1 << slot)
}

/// Moves the tags of slots `slot..SLOTS − 1` up by one slot and writes `tag` into `slot` (the
/// last slot's tag falls off): the reference of every kernel's `shift_in`. Does nothing when
/// `slot` is not a slot.
pub(crate) fn shift_in<W: Width>(block: &mut Block, slot: u32, tag: W::Tag) {
    if slot >= W::SLOTS {
        return;
    }
    for to in (slot + 1..W::SLOTS).rev() {
        W::set_slot(block, to, W::slot(block, to - 1));
    }
    W::set_slot(block, slot, tag);
}

/// Moves the tags of slots `slot + 1..` down by one slot, dropping the tag in `slot`, and
/// zeroes the last slot: the reference of every kernel's `shift_out`. Does nothing when `slot`
/// is not a slot.
pub(crate) fn shift_out<W: Width>(block: &mut Block, slot: u32) {
    if slot >= W::SLOTS {
        return;
    }
    for to in slot..W::SLOTS - 1 {
        W::set_slot(block, to, W::slot(block, to + 1));
    }
    W::set_slot(block, W::SLOTS - 1, W::Tag::default());
}

/// Whether `block` is a block of width `W` that this layout can hold: its metadata is the
/// unary encoding of at most [`SLOTS`](Width::SLOTS) tags in [`BUCKETS`](Width::BUCKETS)
/// buckets followed by zeros (no one after the last bucket's zero, which leaves at least
/// `BUCKETS` zeros), and every slot past its tags holds 0, so that each content has exactly one
/// encoding.
pub(crate) fn is_valid<W: Width>(block: &Block) -> bool {
    let metadata = W::metadata(block);
    let tags = metadata.tags();
    // Every one comes before the `BUCKETS`-th zero when the highest one does: the bits up to
    // and including it number `BITS - leading_zeros`, `tags` of them ones, the rest zeros.
    let zeros_below_highest_one =
        (W::Metadata::BITS - metadata.leading_zeros()).saturating_sub(tags);
    // At most `SLOTS` ones leave at least `BUCKETS` zeros.
    zeros_below_highest_one < W::BUCKETS
        && tags <= W::SLOTS
        && (tags..W::SLOTS).all(|slot| W::slot(block, slot) == W::Tag::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The validity rule read bit by bit, as its doc states it: no one after the `BUCKETS`-th
    /// zero, at most `SLOTS` ones, zeros in every slot past the tags.
    fn is_valid_bit_by_bit<W: Width>(block: &Block) -> bool {
        let metadata = W::metadata(block);
        let (mut ends, mut tags) = (0, 0);
        for position in 0..W::Metadata::BITS {
            if !metadata.bit(position) {
                ends += 1;
            } else if ends >= W::BUCKETS {
                return false;
            } else {
                tags += 1;
            }
        }
        tags <= W::SLOTS && (tags..W::SLOTS).all(|slot| W::slot(block, slot) == W::Tag::default())
    }

    /// The counting check agrees with the bit-by-bit rule on every block a few patterns make:
    /// valid encodings, one bit moved past the last bucket, too many tags, random words.
    #[test]
    fn validity_by_counting_is_the_rule_bit_by_bit() {
        fn check<W: Width>(seed: u64) {
            let mut state = seed;
            let mut next = || {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            };
            let bits = W::Metadata::BITS as usize;
            let metadata_bytes = bits / 8;
            let (mut valid, mut invalid) = (0, 0);
            for case in 0..20_000u32 {
                let mut block = EMPTY_BLOCK;
                let word = u128::from(next()) | u128::from(next()) << 64;
                let word = match case % 4 {
                    // Random words.
                    0 => word,
                    // A prefix of ones and zeros, then nothing: often valid.
                    1 => word & ((1u128 << (next() % bits as u64)) - 1),
                    // Sparse ones.
                    2 => {
                        word & u128::from(next()) & (u128::from(next()) | u128::from(next()) << 64)
                    }
                    // One bit near where the last bucket ends.
                    _ => 1u128 << ((W::BUCKETS as u64 + next() % 48) as u32).min(bits as u32 - 1),
                };
                block[..metadata_bytes].copy_from_slice(&word.to_le_bytes()[..metadata_bytes]);
                if case % 3 == 0 {
                    block[metadata_bytes..].fill(0);
                } else if case % 3 == 1 {
                    let last = block.len() - 1;
                    block[last] = next() as u8;
                }
                let expected = is_valid_bit_by_bit::<W>(&block);
                assert_eq!(is_valid::<W>(&block), expected, "{block:?}");
                if expected { valid += 1 } else { invalid += 1 }
            }
            assert!(
                valid > 1000 && invalid > 1000,
                "{valid} valid, {invalid} invalid"
            );
        }
        check::<Tag8>(1);
        check::<Tag16>(2);
    }

    #[test]
    fn the_alternate_of_the_alternate_is_the_primary() {
        for total in [1u64, 2, 80, 36, 80 * 1000 + 80, 36 << 32] {
            for tag in [0u64, 1, 255, 65535] {
                for bucket in [0, 1, total / 2, total - 1]
                    .into_iter()
                    .filter(|&b| b < total)
                {
                    let other = alternate(bucket, tag, total);
                    assert!(other < total);
                    assert_eq!(
                        alternate(other, tag, total),
                        bucket,
                        "{total} {tag} {bucket}"
                    );
                }
            }
        }
    }

    #[test]
    fn locations_stay_in_range() {
        for num_blocks in [1usize, 2, 3, 1000, 1 << 32] {
            for hash in [0u64, u64::MAX, 0x0123_4567_89ab_cdef, 1 << 63] {
                let eight = locate::<Tag8>(hash, num_blocks);
                let sixteen = locate::<Tag16>(hash, num_blocks);
                assert!(eight.blocks.iter().all(|&b| b < num_blocks));
                assert!(sixteen.blocks.iter().all(|&b| b < num_blocks));
                assert!(eight.bucket < 80 && sixteen.bucket < 36);
                assert_eq!(u64::from(eight.tag), hash & 0xff);
                assert_eq!(u64::from(sixteen.tag), hash & 0xffff);
            }
        }
    }

    #[test]
    fn metadata_bits_insert_and_remove() {
        let word = 0b1011u64;
        assert_eq!(word.insert_one(2), 0b10111);
        assert_eq!(word.insert_one(2).remove_bit(2), 0b1011);
        assert_eq!(0u128.insert_one(0).tags(), 1);
        assert_eq!(0u128.insert_one(0).remove_bit(0), 0);
        assert_eq!(word.insert_one(64), word);
        assert_eq!(word.remove_bit(64), word);
    }

    #[test]
    fn an_empty_block_is_valid_and_every_bucket_is_empty() {
        let block = EMPTY_BLOCK;
        assert!(is_valid::<Tag8>(&block) && is_valid::<Tag16>(&block));
        assert_eq!(len::<Tag8>(&block), 0);
        assert_eq!(bucket_bounds::<Tag8>(Tag8::metadata(&block), 79), (0, 0));
        assert!(!is_valid::<Tag8>(&[0xff; BLOCK_BYTES]));
        let mut block = EMPTY_BLOCK;
        Tag16::set_slot(&mut block, 3, 7);
        assert!(!is_valid::<Tag16>(&block));
    }

    #[test]
    fn bucket_bounds_follow_the_unary_encoding() {
        // Bucket 0 holds two tags, bucket 1 none, bucket 2 one: 1 1 0 0 1 0, then zeros.
        let metadata = 0b01_0011u64;
        assert_eq!(bucket_bounds::<Tag16>(metadata, 0), (0, 2));
        assert_eq!(bucket_bounds::<Tag16>(metadata, 1), (2, 2));
        assert_eq!(bucket_bounds::<Tag16>(metadata, 2), (2, 3));
        assert_eq!(bucket_bounds::<Tag16>(metadata, 3), (3, 3));
        assert_eq!(slot_buckets::<Tag16>(metadata)[..4], [0, 0, 2, 36]);
    }
}
