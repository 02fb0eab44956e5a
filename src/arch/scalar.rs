//! The scalar kernel: the reference implementation of [`crate::block`] behind the same token
//! interface as the SIMD kernels. No `unsafe`, runs everywhere.

use super::{BlockKernel, entry_points};
use crate::block::{self, LANES};

/// Token of the scalar kernel; always constructible.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl BlockKernel for Scalar {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        block::mask(x)
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        block::insert(block, x)
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        block::contains(block, x)
    }
}

entry_points!(Scalar, Scalar, #[inline(never)]);

// The one entry point every operation runs through (see `kernel_entry_point!`).
crate::arch::kernel_entry_point!(Scalar, Scalar, #[inline(never)]);
