//! The AVX-512 kernel of the quotient layout: the block in one zmm register, one compare of the
//! broadcast tag against all of it into a mask register, slot shifts by two shuffles and a
//! byte-masked move (AVX-512BW), and `x86.rs`'s `pdep` bucket ranges.

use core::arch::x86_64::{
    __m512i, _mm512_alignr_epi8, _mm512_alignr_epi64, _mm512_cmpeq_epi8_mask,
    _mm512_cmpeq_epi16_mask, _mm512_loadu_si512, _mm512_mask_mov_epi8, _mm512_set1_epi8,
    _mm512_set1_epi16, _mm512_setzero_si512, _mm512_storeu_si512,
};

use super::Avx512;
use crate::arch::quotient::QuotientKernel;
use crate::arch::x86;
use crate::layout::quotient::{Block, BucketEnds, Width};

/// The block in one zmm register. Requires AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
fn load(block: &Block) -> __m512i {
    // SAFETY: `block` is 64 readable bytes, all of which the load reads; it needs no alignment.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) }
}

/// Stores a zmm register as the block. Requires AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
fn store(block: &mut Block, bytes: __m512i) {
    // SAFETY: `block` is 64 writable bytes under an exclusive borrow, all of which the store
    // writes; it needs no alignment.
    unsafe { _mm512_storeu_si512(block.as_mut_ptr().cast::<__m512i>(), bytes) }
}

/// The first byte of `slot`, and the width of a slot in bytes.
fn slot_bytes<W: Width>(slot: u32) -> (u32, u32) {
    let width = W::TAG_BITS / 8;
    (W::METADATA_BYTES as u32 + slot * width, width)
}

/// `shift_in`: the block moved up by one slot across its four 16-byte lanes (each lane
/// `alignr`ed with the lane below it, which a 128-bit `valignq` brings alongside), then taken
/// above the slot and the tag written at it, by byte masks. Requires AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn shift_in<W: Width>(block: &mut Block, slot: u32, tag: u64) {
    if slot >= W::SLOTS {
        return;
    }
    let bytes = load(block);
    let below = _mm512_alignr_epi64::<6>(bytes, _mm512_setzero_si512());
    let (at, width) = slot_bytes::<W>(slot);
    let (moved, tags) = if W::TAG_BITS == 8 {
        (
            _mm512_alignr_epi8::<15>(bytes, below),
            _mm512_set1_epi8(tag as i8),
        )
    } else {
        (
            _mm512_alignr_epi8::<14>(bytes, below),
            _mm512_set1_epi16(tag as i16),
        )
    };
    // `at + width` is at most 64 (the last slot's end): the mask is then empty.
    let above = u64::MAX.checked_shl(at + width).unwrap_or(0);
    let with_tag = _mm512_mask_mov_epi8(bytes, u64::MAX << at, tags);
    store(block, _mm512_mask_mov_epi8(with_tag, above, moved));
}

/// `shift_out`: the block moved down by one slot (each lane `alignr`ed with the lane above),
/// taken from the slot up. Requires AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn shift_out<W: Width>(block: &mut Block, slot: u32) {
    if slot >= W::SLOTS {
        return;
    }
    let bytes = load(block);
    let above = _mm512_alignr_epi64::<2>(_mm512_setzero_si512(), bytes);
    let moved = if W::TAG_BITS == 8 {
        _mm512_alignr_epi8::<1>(above, bytes)
    } else {
        _mm512_alignr_epi8::<2>(above, bytes)
    };
    let (at, _) = slot_bytes::<W>(slot);
    store(block, _mm512_mask_mov_epi8(bytes, u64::MAX << at, moved));
}

/// The slots holding `tag`, bit `i` for slot `i`: one compare into a mask register. Requires
/// AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn tag_matches<W: Width>(block: &Block, tag: u64) -> u64 {
    let bytes = load(block);
    if W::TAG_BITS == 8 {
        _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(tag as i8)) >> W::METADATA_BYTES
    } else {
        let equal = _mm512_cmpeq_epi16_mask(bytes, _mm512_set1_epi16(tag as i16));
        u64::from(equal) >> (W::METADATA_BYTES / 2)
    }
}

impl QuotientKernel for Avx512 {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { x86::bucket_range::<W>(metadata, bucket) }
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { tag_matches::<W>(block, tag.into()) }
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { shift_in::<W>(block, slot, tag.into()) }
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        // SAFETY: `self` proves the CPU has AVX2, BMI2 and AVX-512 (F, VL, DQ, BW).
        unsafe { shift_out::<W>(block, slot) }
    }
}
