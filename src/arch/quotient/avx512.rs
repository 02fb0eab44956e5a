//! The AVX-512 kernel of the quotient layout: one 512-bit compare of the broadcast tag against
//! the whole block into a mask register (AVX-512BW), with `x86.rs`'s `pdep` bucket bounds and
//! slot shifts.

use core::arch::x86_64::{
    __m512i, _mm512_cmpeq_epi8_mask, _mm512_cmpeq_epi16_mask, _mm512_loadu_si512, _mm512_set1_epi8,
    _mm512_set1_epi16,
};

use super::{QuotientKernel, x86};
use crate::arch::avx512::Avx512;
use crate::quotient_block::{Block, Width};

/// The slots holding `tag`, bit `i` for slot `i`: one compare into a mask register. Requires
/// AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn tag_matches<W: Width>(block: &Block, tag: u64) -> u64 {
    // SAFETY: `block` is 64 readable bytes, all of which the load reads; it needs no alignment.
    let bytes = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
    if W::TAG_BITS == 8 {
        _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(tag as i8)) >> W::METADATA_BYTES
    } else {
        let equal = _mm512_cmpeq_epi16_mask(bytes, _mm512_set1_epi16(tag as i16));
        u64::from(equal) >> (W::METADATA_BYTES / 2)
    }
}

impl QuotientKernel for Avx512 {
    #[inline(always)]
    fn bucket_bounds<W: Width>(self, metadata: W::Metadata, bucket: u32) -> (u32, u32) {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { x86::bucket_bounds::<W>(metadata, bucket) }
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { tag_matches::<W>(block, tag.into()) }
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { x86::shift_in::<W>(block, slot, tag.into()) }
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { x86::shift_out::<W>(block, slot) }
    }
}
