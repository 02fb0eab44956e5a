//! The AVX-512 kernel's window primitives: a key's plane mask broadcast across a zmm (four
//! 128-bit planes or two 256-bit ones), its generations tested a 64-byte line at a time with
//! one `vptestmq`, the last partial line loaded under a mask. Four generations of 128-bit
//! planes, or two of 256-bit ones, are one line and one test.

use core::arch::x86_64::{
    __m128i, __m512i, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128, _mm256_cvtepi32_epi16,
    _mm256_set1_epi32, _mm256_sllv_epi32, _mm256_srli_epi32, _mm512_andnot_si512,
    _mm512_broadcast_i32x4, _mm512_broadcast_i64x4, _mm512_maskz_loadu_epi64,
    _mm512_test_epi64_mask,
};

use super::super::primitives::{SplitBlockKernel, WindowKernel};
use super::super::x86;
use super::Avx512;
use crate::layout::split_block::LANES;
use crate::layout::window::Plane;

/// The 128-bit plane mask of `x`: eight 16-bit lanes, narrowed from 32-bit ones (exact: each
/// is below 2^16).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn mask128(x: u32) -> __m128i {
    let shifts = _mm256_srli_epi32::<28>(x86::salted(x));
    _mm256_cvtepi32_epi16(_mm256_sllv_epi32(_mm256_set1_epi32(1), shifts))
}

/// Whether any plane of `group` holds every bit of `x`'s mask. Requires AVX2, AVX-512F and
/// AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn contains_any(group: &[u32], plane: Plane, x: u32) -> bool {
    let mask: __m512i = match plane {
        Plane::Bits128 => _mm512_broadcast_i32x4(mask128(x)),
        Plane::Bits256 => _mm512_broadcast_i64x4(x86::mask_vector(x)),
    };
    let mut found = false;
    for line in group.chunks(16) {
        // The quadwords of this (part of a) line; the others load as zero, whose planes lack
        // every bit of the mask, so they never answer `true`.
        let loaded: u8 = if line.len() == 16 {
            0xff
        } else {
            (1u8 << (line.len() / 2)) - 1
        };
        // SAFETY: the mask selects only quadwords of `line` (its length is a whole number of
        // quadwords, since a plane is four or eight words), and a masked load reads no other
        // byte nor faults on one; it needs no alignment.
        let words = unsafe { _mm512_maskz_loadu_epi64(loaded, line.as_ptr().cast()) };
        let missing = _mm512_andnot_si512(words, mask);
        // Bit q: quadword q lacks some bit of the mask.
        let lacking = _mm512_test_epi64_mask(missing, missing);
        let whole_planes = match plane {
            Plane::Bits128 => !(lacking | lacking >> 1) & 0x55,
            Plane::Bits256 => !(lacking | lacking >> 1 | lacking >> 2 | lacking >> 3) & 0x11,
        };
        found |= whole_planes != 0;
    }
    found
}

/// ORs `x`'s 128-bit plane mask into `plane` (four words). Requires AVX2, AVX-512F and
/// AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn insert128(plane: &mut [u32; 4], x: u32) {
    // SAFETY: `plane` is 16 readable and writable bytes; `loadu`/`storeu` need no alignment.
    unsafe {
        let words = _mm_loadu_si128(plane.as_ptr().cast());
        _mm_storeu_si128(plane.as_mut_ptr().cast(), _mm_or_si128(words, mask128(x)));
    }
}

impl WindowKernel for Avx512 {
    #[inline(always)]
    fn contains_any(self, group: &[u32], plane: Plane, x: u32) -> bool {
        // SAFETY: `self` proves AVX2, AVX-512F and AVX-512VL are available.
        unsafe { contains_any(group, plane, x) }
    }

    #[inline(always)]
    fn insert(self, group: &mut [u32], plane: Plane, slot: usize, x: u32) -> bool {
        let present = WindowKernel::contains_any(self, group, plane, x);
        let words = plane.words();
        let target = &mut group[slot * words..(slot + 1) * words];
        match plane {
            Plane::Bits256 => {
                let block: &mut [u32; LANES] = target.try_into().expect("8 words");
                SplitBlockKernel::insert(self, block, x);
            }
            Plane::Bits128 => {
                let block: &mut [u32; 4] = target.try_into().expect("4 words");
                // SAFETY: `self` proves AVX2, AVX-512F and AVX-512VL are available.
                unsafe { insert128(block, x) };
            }
        }
        present
    }
}
