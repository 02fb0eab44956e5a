//! The AVX2 kernel of the quotient layout: `pdep` bucket bounds, two 256-bit compares per
//! block and register slot shifts (`x86.rs`).

use super::{QuotientKernel, x86};
use crate::arch::avx2::Avx2;
use crate::quotient_block::{Block, BucketEnds, Width};

impl QuotientKernel for Avx2 {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { x86::bucket_range::<W>(metadata, bucket) }
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { x86::tag_matches::<W>(block, tag.into()) }
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { x86::shift_in::<W>(block, slot, tag.into()) }
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { x86::shift_out::<W>(block, slot) }
    }
}
