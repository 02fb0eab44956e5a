//! Blocks of 4-bit counters for `CountingFilter`, held in the same lazily zeroed [`Blocks`]
//! storage as a filter's bits, so that a new counting filter, too, becomes resident only as
//! its blocks are written.
//!
//! [`Blocks`]: super::Blocks

use super::blocks::BlockStorage;
use crate::layout::split_block::LANES;

/// One block of counters: lane `i`'s counter for bit `b` is bits `4b..4b + 4` of `self.0[i]`.
/// 128 bytes, aligned to a 64-byte cache line so a block spans exactly two.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct CounterBlock(pub(crate) [u128; LANES]);

const _: () = assert!(size_of::<CounterBlock>() == 128);

// SAFETY: `CounterBlock` is `#[repr(C, align(64))] [u128; 8]`: all-zero is a valid value (every
// counter 0), every bit pattern is a valid array of integers, and 64 is below the 2 MiB bound.
unsafe impl BlockStorage for CounterBlock {}
