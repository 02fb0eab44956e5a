//! The portable kernel of the quotient layout: `wide`'s 128-bit compares (SSE2 on x86_64,
//! NEON on aarch64, scalar code elsewhere) for the tag matches, the word-parallel select of
//! [`select`](super::select) for the bucket bounds, and the reference's slot shifts. No
//! `unsafe`.

use wide::{u8x16, u16x8};

use super::{QuotientKernel, select};
use crate::arch::portable::Portable;
use crate::quotient_block::{self as reference, BLOCK_BYTES, Block, BucketEnds, Width};

/// The block's bytes as four 16-byte vectors.
#[inline(always)]
fn chunks(block: &Block) -> &[[u8; 16]; BLOCK_BYTES / 16] {
    let (chunks, _) = block.as_chunks::<16>();
    chunks.try_into().unwrap_or(&[[0; 16]; BLOCK_BYTES / 16])
}

impl QuotientKernel for Portable {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        select::bucket_range::<W>(metadata, bucket)
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        let tag: u64 = tag.into();
        let mut bits = 0u64;
        if W::TAG_BITS == 8 {
            let tag = u8x16::splat(tag as u8);
            for (at, chunk) in chunks(block).iter().enumerate() {
                let equal = u8x16::from(*chunk).simd_eq(tag).to_bitmask();
                bits |= u64::from(equal) << (16 * at);
            }
        } else {
            let tag = u16x8::splat(tag as u16);
            for (at, chunk) in chunks(block).iter().enumerate() {
                let words: [u16; 8] =
                    core::array::from_fn(|i| u16::from_le_bytes([chunk[2 * i], chunk[2 * i + 1]]));
                let equal = u16x8::from(words).simd_eq(tag).to_bitmask();
                bits |= u64::from(equal) << (8 * at);
            }
        }
        // The metadata's bytes (16, or 4 words) come first.
        bits >> (8 * W::METADATA_BYTES as u32 / W::TAG_BITS)
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
