//! [`QuotientBlock`] as block storage, so a [`QuotientFilter`](crate::QuotientFilter) lives in
//! the same lazily zeroed, huge-page-aware memory as every other filter: an all-zero block is
//! an empty one.

use core::mem::{align_of, size_of};

use super::blocks::BlockStorage;
use crate::layout::quotient::QuotientBlock;

// SAFETY: `QuotientBlock` is `#[repr(C, align(64))] [u8; 64]`: 64 bytes, valid when zero and
// for every bit pattern, aligned far below a huge page.
unsafe impl BlockStorage for QuotientBlock {}

const _: () = assert!(size_of::<QuotientBlock>() == 64 && align_of::<QuotientBlock>() == 64);
