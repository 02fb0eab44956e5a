//! The AVX2 kernel's window primitives: a key's mask built once, then its generations' planes
//! tested two at a time: two 128-bit planes in a ymm (one compare and byte mask for both), or
//! one 256-bit plane with `vptest`. Four generations of 128-bit planes, one 64-byte line, are
//! two vector tests.

use core::arch::x86_64::{
    __m128i, __m256i, _mm_andnot_si128, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128,
    _mm_testz_si128, _mm256_andnot_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi64,
    _mm256_or_si256, _mm256_packus_epi32, _mm256_permute4x64_epi64, _mm256_set1_epi32,
    _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_sllv_epi32, _mm256_srli_epi32,
    _mm256_testc_si256, _mm256_testz_si256,
};

use super::super::primitives::{SplitBlockKernel, WindowKernel};
use super::super::x86::{self, load};
use super::Avx2;
use crate::layout::split_block::LANES;
use crate::layout::window::Plane;

/// The 128-bit plane mask of `x` (eight 16-bit lanes) twice, in both halves of a ymm: the
/// salted multiply, a shift to four bits, a variable shift of `1` in 32-bit lanes, then the
/// lanes packed to 16 bits (exact: each is below 2^16) and their halves put in order.
#[target_feature(enable = "avx2")]
#[inline]
fn mask128_twice(x: u32) -> __m256i {
    let shifts = _mm256_srli_epi32::<28>(x86::salted(x));
    let bits = _mm256_sllv_epi32(_mm256_set1_epi32(1), shifts);
    // Quadwords [v0..v3, v0..v3, v4..v7, v4..v7] become [v0..v3, v4..v7, v0..v3, v4..v7].
    _mm256_permute4x64_epi64::<0b10_00_10_00>(_mm256_packus_epi32(bits, bits))
}

/// Whether any plane of `group` holds every bit of `x`'s mask. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn contains_any(group: &[u32], plane: Plane, x: u32) -> bool {
    match plane {
        Plane::Bits256 => {
            let mask = x86::mask_vector(x);
            let (planes, _) = group.as_chunks::<LANES>();
            planes.iter().fold(false, |found, plane| {
                found | (_mm256_testc_si256(load(plane), mask) != 0)
            })
        }
        Plane::Bits128 => {
            let mask = mask128_twice(x);
            let zero = _mm256_setzero_si256();
            let (pairs, rest) = group.as_chunks::<8>();
            // Quadwords equal to zero (all ones) where a plane lacks nothing: each plane's
            // missing bits ORed across its two quadwords, then compared with zero.
            let whole = pairs.iter().fold(zero, |whole, pair| {
                let missing = _mm256_andnot_si256(load(pair), mask);
                let planes =
                    _mm256_or_si256(missing, _mm256_shuffle_epi32::<0b01_00_11_10>(missing));
                _mm256_or_si256(whole, _mm256_cmpeq_epi64(planes, zero))
            });
            let mut found = _mm256_testz_si256(whole, whole) == 0;
            if let Some(last) = rest.first_chunk::<4>() {
                // SAFETY: `last` is 16 readable bytes; `loadu` needs no alignment.
                let words = unsafe { _mm_loadu_si128(last.as_ptr().cast()) };
                let missing = _mm_andnot_si128(words, _mm256_castsi256_si128(mask));
                found |= _mm_testz_si128(missing, missing) != 0;
            }
            found
        }
    }
}

/// ORs `x`'s 128-bit plane mask into `plane` (four words). Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn insert128(plane: &mut [u32; 4], x: u32) {
    let mask: __m128i = _mm256_castsi256_si128(mask128_twice(x));
    // SAFETY: `plane` is 16 readable and writable bytes; `loadu`/`storeu` need no alignment.
    unsafe {
        let words = _mm_loadu_si128(plane.as_ptr().cast());
        _mm_storeu_si128(plane.as_mut_ptr().cast(), _mm_or_si128(words, mask));
    }
}

impl WindowKernel for Avx2 {
    #[inline(always)]
    fn contains_any(self, group: &[u32], plane: Plane, x: u32) -> bool {
        // SAFETY: `self` proves AVX2 is available.
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
                // SAFETY: `self` proves AVX2 is available.
                unsafe { insert128(block, x) };
            }
        }
    }
}
