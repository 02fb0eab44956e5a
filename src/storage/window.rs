//! The memory of a window filter: whole 64-byte units of 32-bit words, aligned to a cache
//! line, so that a block index's generations (64 bytes for four 128-bit planes or two 256-bit
//! ones) never straddle a line they could fit in; and the same memory as atomic words for
//! `AtomicWindowFilter`, taken over without copying. (A larger alignment would keep four
//! 256-bit planes in one adjacent-line pair too, but allocators that round sizes up to the
//! alignment, such as the Redis module's, give only what their size classes give.)

use core::mem::{align_of, size_of};
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::AtomicU64;

use super::blocks::BlockStorage;
#[cfg(target_has_atomic = "64")]
use super::blocks::Blocks;

/// Words in one unit of a window's memory.
pub(crate) const UNIT_WORDS: usize = 16;

/// One unit of a window's memory: 64 bytes of 32-bit words, aligned to 64.
#[derive(Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
pub(crate) struct WindowUnit(pub(crate) [u32; UNIT_WORDS]);

// SAFETY: `WindowUnit` is `#[repr(C, align(64))] [u32; 16]`: 64 bytes, valid when zero and
// for every bit pattern, aligned far below a huge page.
unsafe impl BlockStorage for WindowUnit {}

const _: () = assert!(size_of::<WindowUnit>() == 64 && align_of::<WindowUnit>() == 64);

/// One unit of a window's memory as atomic 64-bit words (readers share it while one writer
/// inserts and rotates).
#[cfg(target_has_atomic = "64")]
#[repr(C, align(64))]
pub(crate) struct AtomicWindowUnit(pub(crate) [AtomicU64; UNIT_WORDS / 2]);

#[cfg(target_has_atomic = "64")]
const _: () = assert!(
    size_of::<AtomicWindowUnit>() == size_of::<WindowUnit>()
        && align_of::<AtomicWindowUnit>() == align_of::<WindowUnit>()
        && size_of::<AtomicU64>() == 8
);

// SAFETY: `AtomicWindowUnit` is `#[repr(C, align(64))]` over `AtomicU64`s, which have the
// size and bit validity of `u64` (any bits are valid words); its size and alignment are
// asserted equal to `WindowUnit`'s just above.
#[cfg(target_has_atomic = "64")]
unsafe impl BlockStorage for AtomicWindowUnit {}

/// A window's memory as atomic words, in place (the layouts match: see `BlockStorage`).
#[cfg(target_has_atomic = "64")]
pub(crate) fn into_atomic_units(units: Blocks<WindowUnit>) -> Blocks<AtomicWindowUnit> {
    units.cast()
}

/// Atomic words back to plain ones, in place. Taking the storage by value proves no other
/// thread can still be writing to it.
#[cfg(target_has_atomic = "64")]
pub(crate) fn into_plain_units(units: Blocks<AtomicWindowUnit>) -> Blocks<WindowUnit> {
    units.cast()
}

/// Every unit's atomic words, in order: the window's memory as one slice of 64-bit words.
#[cfg(target_has_atomic = "64")]
pub(crate) fn atomic_words(units: &[AtomicWindowUnit]) -> &[AtomicU64] {
    // SAFETY: `AtomicWindowUnit` is `repr(C)` over `[AtomicU64; 8]`, 64 bytes with no
    // padding (its size is asserted above), so `units` is `8 × units.len()` `AtomicU64`s back
    // to back, aligned, borrowed for as long as `units` is; shared references to atomics may
    // alias.
    unsafe {
        core::slice::from_raw_parts(
            units.as_ptr().cast::<AtomicU64>(),
            units.len() * (UNIT_WORDS / 2),
        )
    }
}
