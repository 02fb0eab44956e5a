//! The AVX2 kernel of the quotient layout: the block as two ymm registers, one compare per
//! half for the tag matches, slot shifts in registers (a cross-lane `alignr` and blends), and
//! `x86.rs`'s `pdep` bucket ranges.

use core::arch::x86_64::{
    __m256i, _mm256_alignr_epi8, _mm256_blendv_epi8, _mm256_cmpeq_epi8, _mm256_cmpeq_epi16,
    _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_packs_epi16,
    _mm256_permute2x128_si256, _mm256_permute4x64_epi64, _mm256_set1_epi8, _mm256_set1_epi16,
    _mm256_setr_epi8, _mm256_storeu_si256,
};

use super::Avx2;
use crate::arch::quotient::QuotientKernel;
use crate::arch::x86;
use crate::layout::quotient::{Block, BucketEnds, Width};

/// The block as two ymm registers: bytes 0..32 and 32..64.
#[target_feature(enable = "avx2")]
#[inline]
fn load(block: &Block) -> (__m256i, __m256i) {
    let at = block.as_ptr().cast::<__m256i>();
    // SAFETY: `block` is 64 readable bytes, and the loads read bytes 0..32 and 32..64 of it;
    // `loadu` needs no alignment.
    unsafe { (_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1))) }
}

/// Stores two ymm registers as the block's bytes 0..32 and 32..64.
#[target_feature(enable = "avx2")]
#[inline]
fn store(block: &mut Block, (low, high): (__m256i, __m256i)) {
    let at = block.as_mut_ptr().cast::<__m256i>();
    // SAFETY: `block` is 64 writable bytes under an exclusive borrow, and the stores write
    // bytes 0..32 and 32..64 of it; `storeu` needs no alignment.
    unsafe {
        _mm256_storeu_si256(at, low);
        _mm256_storeu_si256(at.add(1), high);
    }
}

/// The slots holding `tag`, bit `i` for slot `i`: one compare per 32 bytes and a byte mask
/// (16-bit compares packed to bytes, in slot order, first).
#[target_feature(enable = "avx2")]
#[inline]
fn tag_matches<W: Width>(block: &Block, tag: u64) -> u64 {
    let (low, high) = load(block);
    if W::TAG_BITS == 8 {
        let tag = _mm256_set1_epi8(tag as i8);
        let low = _mm256_movemask_epi8(_mm256_cmpeq_epi8(low, tag)) as u32;
        let high = _mm256_movemask_epi8(_mm256_cmpeq_epi8(high, tag)) as u32;
        (u64::from(low) | u64::from(high) << 32) >> W::METADATA_BYTES
    } else {
        let tag = _mm256_set1_epi16(tag as i16);
        // Words 0..8 and 16..24, then 8..16 and 24..32 after the pack; the permute puts the
        // four quarters back in word order.
        let packed =
            _mm256_packs_epi16(_mm256_cmpeq_epi16(low, tag), _mm256_cmpeq_epi16(high, tag));
        let words = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
        u64::from(_mm256_movemask_epi8(words) as u32) >> (W::METADATA_BYTES / 2)
    }
}

/// The byte indices of the block's two halves, for the blends.
#[target_feature(enable = "avx2")]
#[inline]
fn byte_indices() -> (__m256i, __m256i) {
    let low = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    );
    let high = _mm256_setr_epi8(
        32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54,
        55, 56, 57, 58, 59, 60, 61, 62, 63,
    );
    (low, high)
}

/// The bytes of the block with index above `after`, as two byte masks.
#[target_feature(enable = "avx2")]
#[inline]
fn above(after: i8) -> (__m256i, __m256i) {
    let (low, high) = byte_indices();
    let after = _mm256_set1_epi8(after);
    (
        _mm256_cmpgt_epi8(low, after),
        _mm256_cmpgt_epi8(high, after),
    )
}

/// Byte-wise `if mask { b } else { a }` on both halves.
#[target_feature(enable = "avx2")]
#[inline]
fn blend(
    (a_low, a_high): (__m256i, __m256i),
    (b_low, b_high): (__m256i, __m256i),
    (mask_low, mask_high): (__m256i, __m256i),
) -> (__m256i, __m256i) {
    (
        _mm256_blendv_epi8(a_low, b_low, mask_low),
        _mm256_blendv_epi8(a_high, b_high, mask_high),
    )
}

/// The 64 bytes moved up by `16 − KEEP` bytes (zeros enter at byte 0), across both halves.
#[target_feature(enable = "avx2")]
#[inline]
fn shifted_up<const KEEP: i32>((low, high): (__m256i, __m256i)) -> (__m256i, __m256i) {
    // [0, low.0] and [low.1, high.0]: the bytes each 16-byte lane takes from below.
    let below_low = _mm256_permute2x128_si256::<0x08>(low, low);
    let below_high = _mm256_permute2x128_si256::<0x21>(low, high);
    (
        _mm256_alignr_epi8::<KEEP>(low, below_low),
        _mm256_alignr_epi8::<KEEP>(high, below_high),
    )
}

/// The 64 bytes moved down by `SHIFT` bytes (zeros enter at byte 63), across both halves.
#[target_feature(enable = "avx2")]
#[inline]
fn shifted_down<const SHIFT: i32>((low, high): (__m256i, __m256i)) -> (__m256i, __m256i) {
    // [low.1, high.0] and [high.1, 0]: the bytes each 16-byte lane takes from above.
    let above_low = _mm256_permute2x128_si256::<0x21>(low, high);
    let above_high = _mm256_permute2x128_si256::<0x81>(high, high);
    (
        _mm256_alignr_epi8::<SHIFT>(above_low, low),
        _mm256_alignr_epi8::<SHIFT>(above_high, high),
    )
}

/// `shift_in` for the AVX2 and AVX-512 kernels: the block moved up by one slot in registers,
/// then blended with the original below the slot and with the tag at it.
#[target_feature(enable = "avx2")]
#[inline]
fn shift_in<W: Width>(block: &mut Block, slot: u32, tag: u64) {
    if slot >= W::SLOTS {
        return;
    }
    let bytes = load(block);
    // The slot's first byte (at most 63), and the width of a slot in bytes.
    let at = (W::METADATA_BYTES as u32 + slot * W::TAG_BITS / 8) as i8;
    let (moved, tags, width) = if W::TAG_BITS == 8 {
        let tag = _mm256_set1_epi8(tag as i8);
        (shifted_up::<15>(bytes), (tag, tag), 1)
    } else {
        let tag = _mm256_set1_epi16(tag as i16);
        (shifted_up::<14>(bytes), (tag, tag), 2)
    };
    let with_tag = blend(bytes, tags, above(at - 1));
    store(block, blend(with_tag, moved, above(at + width - 1)));
}

/// `shift_out` for the AVX2 and AVX-512 kernels: the block moved down by one slot in registers,
/// blended with the original below the slot.
#[target_feature(enable = "avx2")]
#[inline]
fn shift_out<W: Width>(block: &mut Block, slot: u32) {
    if slot >= W::SLOTS {
        return;
    }
    let bytes = load(block);
    let at = (W::METADATA_BYTES as u32 + slot * W::TAG_BITS / 8) as i8;
    let moved = if W::TAG_BITS == 8 {
        shifted_down::<1>(bytes)
    } else {
        shifted_down::<2>(bytes)
    };
    store(block, blend(bytes, moved, above(at - 1)));
}

impl QuotientKernel for Avx2 {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { x86::bucket_range::<W>(metadata, bucket) }
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { tag_matches::<W>(block, tag.into()) }
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { shift_in::<W>(block, slot, tag.into()) }
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        // SAFETY: `self` proves the CPU has AVX2 and BMI2.
        unsafe { shift_out::<W>(block, slot) }
    }
}
