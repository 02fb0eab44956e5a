//! The scalar kernel of the quotient layout: `quotient_block`'s reference loops behind the
//! token, the oracle every other kernel is tested against.

use super::QuotientKernel;
use crate::arch::scalar::Scalar;
use crate::quotient_block::{self as reference, Block, BucketEnds, Width};

impl QuotientKernel for Scalar {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        reference::one_hot(reference::bucket_bounds::<W>(metadata, bucket))
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        reference::tag_matches::<W>(block, tag)
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        reference::shift_in::<W>(block, slot, tag);
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        reference::shift_out::<W>(block, slot);
    }
}
