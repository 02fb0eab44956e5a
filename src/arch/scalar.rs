//! The scalar kernel: each layout's reference (`crate::layout`) behind the same token
//! interface as the SIMD kernels. No `unsafe`, runs everywhere; every other kernel is tested
//! against it.

use super::primitives::{SplitBlockKernel, WideKernel, WindowKernel};
use super::quotient::QuotientKernel;
use crate::layout::quotient::{self, Block, BucketEnds, Width};
use crate::layout::split_block::{self, LANES};
use crate::layout::wide::{self, WORDS};
use crate::layout::window::{self, Plane};

/// Token of the scalar kernel; always constructible.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl SplitBlockKernel for Scalar {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        split_block::mask(x)
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        split_block::insert(block, x)
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        split_block::contains(block, x)
    }
}

impl WideKernel for Scalar {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        wide::insert_block(block, x)
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        wide::missing_in_block(block, x) != 0
    }
}

impl WindowKernel for Scalar {
    #[inline(always)]
    fn contains_any(self, group: &[u32], plane: Plane, x: u32) -> bool {
        window::contains_any(group, plane, x)
    }

    #[inline(always)]
    fn insert_plane(self, words: &mut [u32], plane: Plane, x: u32) {
        window::plane_insert(words, plane, x);
    }

    #[inline(always)]
    fn insert(self, group: &mut [u32], plane: Plane, slot: usize, x: u32) -> bool {
        window::insert(group, plane, slot, x)
    }
}

impl QuotientKernel for Scalar {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        quotient::one_hot(quotient::bucket_bounds::<W>(metadata, bucket))
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        quotient::tag_matches::<W>(block, tag)
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        quotient::shift_in::<W>(block, slot, tag);
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        quotient::shift_out::<W>(block, slot);
    }
}

// The one entry point every operation runs through (see `kernel_entry_point!`).
crate::arch::kernel_entry_point!(Scalar, Scalar, #[inline(never)]);
