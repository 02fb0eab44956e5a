//! The AVX-512 kernel's window primitives: a key's plane mask broadcast across a zmm (four
//! 128-bit planes or two 256-bit ones), its generations tested a 64-byte line at a time with
//! one `vptestmq`, the last partial line loaded under a mask. Four generations of 128-bit
//! planes, or two of 256-bit ones, are one line and one test.

use core::arch::x86_64::{
    __m128i, __m512i, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128, _mm256_cvtepi32_epi16,
    _mm256_set1_epi32, _mm256_sllv_epi32, _mm256_srli_epi32, _mm512_andnot_si512,
    _mm512_broadcast_i32x4, _mm512_broadcast_i64x4, _mm512_loadu_si512, _mm512_maskz_loadu_epi64,
    _mm512_min_epu64, _mm512_or_si512, _mm512_set1_epi64, _mm512_shuffle_epi32,
    _mm512_shuffle_i64x2, _mm512_testn_epi64_mask,
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

/// `x`'s plane mask in every plane of a line: four 128-bit planes or two 256-bit ones.
/// Requires AVX2, AVX-512F and AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn line_mask(plane: Plane, x: u32) -> __m512i {
    match plane {
        Plane::Bits128 => _mm512_broadcast_i32x4(mask128(x)),
        Plane::Bits256 => _mm512_broadcast_i64x4(x86::mask_vector(x)),
    }
}

/// The bits of `mask` that `words` (a line) lacks, ORed across each plane: every quadword of a
/// plane is zero exactly when that plane holds every bit of the mask. Requires AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
fn lacking(words: __m512i, mask: __m512i, plane: Plane) -> __m512i {
    let missing = _mm512_andnot_si512(words, mask);
    // Each quadword ORed with its neighbour in the same 128 bits.
    let pairs = _mm512_or_si512(missing, _mm512_shuffle_epi32::<0b01_00_11_10>(missing));
    match plane {
        Plane::Bits128 => pairs,
        // Each 128 bits ORed with its neighbour in the same 256 bits.
        Plane::Bits256 => {
            _mm512_or_si512(pairs, _mm512_shuffle_i64x2::<0b10_11_00_01>(pairs, pairs))
        }
    }
}

/// Whether any plane of `group` holds every bit of `x`'s mask: each line's planes reduced to
/// what they lack, the lines merged with an unsigned minimum (a plane's zero survives it), then
/// one test. Whole lines are plain loads; the last partial line is loaded under a mask, its
/// other quadwords zero, whose planes lack every bit of the mask. With the shape a constant
/// (`Fixed`), the loop and the masks fold away. Requires AVX2, AVX-512F and AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn contains_any(group: &[u32], plane: Plane, x: u32) -> bool {
    let mask = line_mask(plane, x);
    let (lines, rest) = group.as_chunks::<16>();
    let mut lacks = _mm512_set1_epi64(-1);
    for line in lines {
        // SAFETY: `line` is 64 readable bytes; `loadu` needs no alignment.
        let words = unsafe { _mm512_loadu_si512(line.as_ptr().cast()) };
        lacks = _mm512_min_epu64(lacks, lacking(words, mask, plane));
    }
    if !rest.is_empty() {
        // The quadwords of the partial line (a plane is four or eight words, so `rest` is whole
        // quadwords).
        let loaded = (1u8 << (rest.len() / 2)) - 1;
        // SAFETY: the mask selects only quadwords of `rest`, and a masked load reads no other
        // byte nor faults on one; it needs no alignment.
        let words = unsafe { _mm512_maskz_loadu_epi64(loaded, rest.as_ptr().cast()) };
        lacks = _mm512_min_epu64(lacks, lacking(words, mask, plane));
    }
    _mm512_testn_epi64_mask(lacks, lacks) != 0
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
    fn insert_plane(self, words: &mut [u32], plane: Plane, x: u32) {
        match plane {
            Plane::Bits256 => {
                let block: &mut [u32; LANES] = words.try_into().expect("8 words");
                SplitBlockKernel::insert(self, block, x);
            }
            Plane::Bits128 => {
                let block: &mut [u32; 4] = words.try_into().expect("4 words");
                // SAFETY: `self` proves AVX2, AVX-512F and AVX-512VL are available.
                unsafe { insert128(block, x) };
            }
        }
    }
}
