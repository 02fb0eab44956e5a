//! The scalar wide kernel: the reference of [`wide_block`](crate::wide_block), as the
//! [`Scalar`] token's [`WideKernel`].

use super::scalar::Scalar;
use super::wide_generic::{WideKernel, wide_entry_points};
use crate::wide_block::{self, WORDS};

impl WideKernel for Scalar {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        wide_block::insert_block(block, x)
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        wide_block::missing_in_block(block, x) != 0
    }
}

wide_entry_points!(Scalar, Scalar, #[inline(never)]);
