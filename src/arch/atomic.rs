//! Blocks of atomic lanes, and conversions between plain and atomic blocks without copying.
//!
//! [`AtomicBlock`] has exactly the layout of [`Block`] (eight 32-bit lanes, 32-byte aligned;
//! `AtomicU32` has the size, alignment and bit validity of `u32`), so a `Vec` of one can take
//! over the allocation of a `Vec` of the other. That is what makes
//! [`Filter::into_atomic`](crate::Filter::into_atomic) and
//! [`AtomicFilter::into_filter`](crate::AtomicFilter::into_filter) free: no second copy of a
//! possibly huge bitset, and no moment with two of them in memory. The only `unsafe` is the
//! reinterpretation of the allocation, kept here with the rest of the crate's `unsafe` code.

use alloc::vec::Vec;
use core::mem::{ManuallyDrop, align_of, size_of};
use core::sync::atomic::AtomicU32;

use crate::block::{Block, LANES};

/// One block whose lanes can be updated through a shared reference.
#[repr(C, align(32))]
pub(crate) struct AtomicBlock(pub(crate) [AtomicU32; LANES]);

// The conversions below rely on these; a target where they fail does not compile.
const _: () = assert!(size_of::<AtomicU32>() == size_of::<u32>());
const _: () = assert!(align_of::<AtomicU32>() == align_of::<u32>());
const _: () = assert!(size_of::<AtomicBlock>() == size_of::<Block>());
const _: () = assert!(align_of::<AtomicBlock>() == align_of::<Block>());

/// Reinterprets a `Vec` of `From` as a `Vec` of `To`, keeping the allocation.
///
/// # Safety
///
/// * `From` and `To` must have the same size and alignment (so the allocation's layout is the
///   one `Vec<To>` expects when it frees it).
/// * Every bit pattern that is a valid `From` must be a valid `To`.
unsafe fn reinterpret_vec<From, To>(vec: Vec<From>) -> Vec<To> {
    let mut vec = ManuallyDrop::new(vec);
    let (pointer, length, capacity) = (vec.as_mut_ptr(), vec.len(), vec.capacity());
    // SAFETY: the pointer, length and capacity come from a live `Vec<From>` that will never be
    // used or dropped again (`ManuallyDrop`); the caller guarantees `To` has the layout of
    // `From`, so the allocation fits `capacity` values of `To` with the alignment it was made
    // with, and that the first `length` values are valid `To`s.
    unsafe { Vec::from_raw_parts(pointer.cast::<To>(), length, capacity) }
}

/// Plain blocks to atomic blocks, in place.
pub(crate) fn into_atomic_blocks(blocks: Vec<Block>) -> Vec<AtomicBlock> {
    // SAFETY: the layouts match (asserted above) and `AtomicU32` has the bit validity of `u32`,
    // so every `Block` is a valid `AtomicBlock`.
    unsafe { reinterpret_vec(blocks) }
}

/// Atomic blocks back to plain blocks, in place. Taking the `Vec` by value proves no other
/// thread can still be writing to it.
pub(crate) fn into_plain_blocks(blocks: Vec<AtomicBlock>) -> Vec<Block> {
    // SAFETY: the layouts match (asserted above), an `AtomicU32` holds a valid `u32`, and owning
    // the `Vec` means no shared reference (hence no concurrent access) outlives this call.
    unsafe { reinterpret_vec(blocks) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::Ordering;

    #[test]
    fn round_trip_keeps_every_bit() {
        let blocks: Vec<Block> = (0..100u32)
            .map(|i| {
                Block(core::array::from_fn(|lane| {
                    i.wrapping_mul(0x9e37_79b9) ^ lane as u32
                }))
            })
            .collect();
        let atomic = into_atomic_blocks(blocks.clone());
        for (plain, atomic) in blocks.iter().zip(&atomic) {
            for (word, lane) in plain.0.iter().zip(&atomic.0) {
                assert_eq!(*word, lane.load(Ordering::Relaxed));
            }
        }
        atomic[7].0[3].fetch_or(1 << 31, Ordering::Relaxed);
        let back = into_plain_blocks(atomic);
        assert_eq!(back.len(), blocks.len());
        assert_eq!(back[7].0[3], blocks[7].0[3] | 1 << 31);
        assert_eq!(back[8].0, blocks[8].0);
        assert!(into_plain_blocks(into_atomic_blocks(Vec::new())).is_empty());
    }
}
