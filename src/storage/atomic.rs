//! Blocks of atomic lanes, and conversions between plain and atomic blocks without copying.
//!
//! [`AtomicBlock`] has exactly the layout of [`Block`] (32 bytes, 32-byte aligned; an atomic
//! integer has the size and bit validity of its integer, and any bits are valid lanes), so a `Vec` of one can take
//! over the allocation of a `Vec` of the other. That is what makes
//! [`Filter::into_atomic`](crate::Filter::into_atomic) and
//! [`AtomicFilter::into_filter`](crate::AtomicFilter::into_filter) free: no second copy of a
//! possibly huge bitset, and no moment with two of them in memory. The only `unsafe` is the
//! reinterpretation of the allocation, kept here with the rest of the crate's `unsafe` code.

use core::mem::{align_of, size_of};
use core::sync::atomic::Ordering::Relaxed;

use super::blocks::{BlockStorage, Blocks};
use crate::layout::split_block::{Block, LANES};

// The atomic word: 64 bits where the target has 64-bit atomics, so an insert needs at most four
// atomic read-modify-writes instead of eight (each is a locked, serializing instruction: they
// dominate the cost of an insert); 32 bits elsewhere.
#[cfg(target_has_atomic = "64")]
type Word = core::sync::atomic::AtomicU64;
#[cfg(target_has_atomic = "64")]
type Plain = u64;
#[cfg(not(target_has_atomic = "64"))]
type Word = core::sync::atomic::AtomicU32;
#[cfg(not(target_has_atomic = "64"))]
type Plain = u32;

/// Atomic words per block.
const WORDS: usize = LANES * size_of::<u32>() / size_of::<Plain>();

/// One block whose lanes can be updated through a shared reference: the block's 32 bytes as
/// atomic words. Lanes map to words exactly as in memory (a `bytemuck` cast of the lane array),
/// whatever the byte order.
#[repr(C, align(32))]
pub(crate) struct AtomicBlock([Word; WORDS]);

impl AtomicBlock {
    /// The lanes as they are now, each word read atomically (`Relaxed`).
    #[inline(always)]
    pub(crate) fn load(&self) -> [u32; LANES] {
        let words: [Plain; WORDS] = core::array::from_fn(|word| self.0[word].load(Relaxed));
        bytemuck::cast(words)
    }

    /// ORs `mask` into the block; `true` when every bit of it was already set when read.
    ///
    /// Each word is read first (`Relaxed`) and written with an atomic `fetch_or` only when it
    /// misses some of its bits. The previous value `fetch_or` returns is not used, so x86 needs
    /// no compare-and-swap loop (a plain `lock or`). `Relaxed` is enough for bits that are only
    /// ever set: see the docs of [`AtomicFilter`](crate::AtomicFilter).
    #[inline(always)]
    pub(crate) fn insert(&self, mask: [u32; LANES]) -> bool {
        let mask: [Plain; WORDS] = bytemuck::cast(mask);
        let mut missing = 0;
        for (word, bits) in self.0.iter().zip(mask) {
            let absent = bits & !word.load(Relaxed);
            if absent != 0 {
                missing |= absent;
                word.fetch_or(bits, Relaxed);
            }
        }
        missing == 0
    }
}

// The conversions below rely on these; a target where they fail does not compile.
const _: () = assert!(size_of::<Word>() == size_of::<Plain>());
const _: () = assert!(align_of::<Word>() == size_of::<Plain>());
const _: () = assert!(size_of::<AtomicBlock>() == size_of::<Block>());
const _: () = assert!(align_of::<AtomicBlock>() == align_of::<Block>());

// SAFETY: `AtomicBlock` is `#[repr(C, align(32))]` over atomic integers, which have the size and
// bit validity of their integers (any bits are valid lanes); its size and alignment are asserted
// equal to `Block`'s just above. (This impl lives here, not in `blocks`, so that `blocks` never
// names this module, which exists only on targets with 32-bit atomics.)
unsafe impl BlockStorage for AtomicBlock {}

/// Plain blocks to atomic blocks, in place (the layouts match: see `BlockStorage`).
pub(crate) fn into_atomic_blocks(blocks: Blocks) -> Blocks<AtomicBlock> {
    blocks.cast()
}

/// Atomic blocks back to plain blocks, in place. Taking the storage by value proves no other
/// thread can still be writing to it.
pub(crate) fn into_plain_blocks(blocks: Blocks<AtomicBlock>) -> Blocks {
    blocks.cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_every_bit() {
        let mut blocks: Blocks = Blocks::zeroed_or_abort(100);
        for (i, block) in (0u32..).zip(blocks.iter_mut()) {
            *block = Block(core::array::from_fn(|lane| {
                i.wrapping_mul(0x9e37_79b9) ^ lane as u32
            }));
        }
        let atomic = into_atomic_blocks(blocks.clone());
        for (plain, atomic) in blocks.iter().zip(atomic.iter()) {
            assert_eq!(plain.0, atomic.load());
        }
        let mut mask = [0; LANES];
        mask[3] = 1 << 31;
        atomic[7].insert(mask);
        let back = into_plain_blocks(atomic);
        assert_eq!(back.len(), blocks.len());
        assert_eq!(back[7].0[3], blocks[7].0[3] | 1 << 31);
        assert_eq!(back[7].0[2], blocks[7].0[2]);
        assert_eq!(back[8].0, blocks[8].0);
        assert!(into_plain_blocks(into_atomic_blocks(Blocks::zeroed_or_abort(0))).is_empty());
    }

    #[test]
    fn insert_matches_the_scalar_block_insert() {
        let atomic = into_atomic_blocks(Blocks::zeroed_or_abort(1));
        let mut plain = Block::default();
        for x in (0..5_000u32).map(|i| i.wrapping_mul(0x2545_f491)) {
            let expected = crate::layout::split_block::insert(&mut plain.0, x);
            assert_eq!(
                atomic[0].insert(crate::layout::split_block::mask(x)),
                expected,
                "{x}"
            );
            assert_eq!(atomic[0].load(), plain.0);
        }
    }
}
