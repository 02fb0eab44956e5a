//! [`WideBlock`] as block storage, so a [`WideFilter`](crate::WideFilter) lives in the same
//! lazily zeroed, huge-page-aware memory as every other filter.

use core::mem::{align_of, size_of};

use super::blocks::BlockStorage;
use crate::layout::wide::WideBlock;

// SAFETY: `WideBlock` is `#[repr(C, align(64))] [u64; 8]`: 64 bytes, valid when zero and for
// every bit pattern, aligned far below a huge page.
unsafe impl BlockStorage for WideBlock {}

const _: () = assert!(size_of::<WideBlock>() == 64 && align_of::<WideBlock>() == 64);
