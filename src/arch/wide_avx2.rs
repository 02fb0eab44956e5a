//! The AVX2 wide kernel: one 256-bit multiply and shift give the eight bit positions, two
//! zero-extensions and variable shifts the two halves of the 512-bit mask, and one `vptest`
//! answers.
//!
//! The `#[target_feature]` functions here are safe to call only where AVX2 is present; the
//! [`Avx2`] token proves it.

use core::arch::x86_64::{
    __m256i, _mm256_andnot_si256, _mm256_castsi256_si128, _mm256_cvtepu32_epi64,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_or_si256,
    _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_setr_epi32, _mm256_sllv_epi64, _mm256_srli_epi32,
    _mm256_storeu_si256, _mm256_testz_si256,
};

use super::avx2::Avx2;
use super::wide_generic::{WideKernel, wide_entry_points};
use crate::block::SALT;
use crate::wide_block::WORDS;

/// The mask of `x` as two ymm halves (words 0..4 and 4..8).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mask(x: u32) -> (__m256i, __m256i) {
    let salt = _mm256_setr_epi32(
        SALT[0] as i32,
        SALT[1] as i32,
        SALT[2] as i32,
        SALT[3] as i32,
        SALT[4] as i32,
        SALT[5] as i32,
        SALT[6] as i32,
        SALT[7] as i32,
    );
    let shifts = _mm256_srli_epi32::<26>(_mm256_mullo_epi32(_mm256_set1_epi32(x as i32), salt));
    let one = _mm256_set1_epi64x(1);
    let low = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(shifts));
    let high = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(shifts));
    (_mm256_sllv_epi64(one, low), _mm256_sllv_epi64(one, high))
}

/// The block's two halves.
#[target_feature(enable = "avx2")]
#[inline]
fn load(block: &[u64; WORDS]) -> (__m256i, __m256i) {
    // SAFETY: `block` is a valid reference to 64 readable bytes; `loadu` needs no alignment.
    unsafe {
        (
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block.as_ptr().add(4).cast()),
        )
    }
}

/// `insert` for the token. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn insert(block: &mut [u64; WORDS], x: u32) -> bool {
    let (mask_low, mask_high) = mask(x);
    let (low, high) = load(block);
    let missing = _mm256_or_si256(
        _mm256_andnot_si256(low, mask_low),
        _mm256_andnot_si256(high, mask_high),
    );
    // SAFETY: `block` is a valid exclusive reference to 64 writable bytes; `storeu` needs no
    // alignment.
    unsafe {
        _mm256_storeu_si256(block.as_mut_ptr().cast(), _mm256_or_si256(low, mask_low));
        _mm256_storeu_si256(
            block.as_mut_ptr().add(4).cast(),
            _mm256_or_si256(high, mask_high),
        );
    }
    _mm256_testz_si256(missing, missing) != 0
}

/// `missing` for the token. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn missing(block: &[u64; WORDS], x: u32) -> bool {
    let (mask_low, mask_high) = mask(x);
    let (low, high) = load(block);
    let missing = _mm256_or_si256(
        _mm256_andnot_si256(low, mask_low),
        _mm256_andnot_si256(high, mask_high),
    );
    _mm256_testz_si256(missing, missing) == 0
}

/// The primitives as the wide entry points use them. A value exists only inside those entry
/// points, each an `unsafe fn` that requires AVX2 and is compiled with them, so holding
/// one proves the features are present.
#[derive(Clone, Copy)]
struct Features;

impl WideKernel for Features {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        // SAFETY: a `Features` exists only where its features are present (see above).
        unsafe { insert(block, x) }
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        // SAFETY: a `Features` exists only where its features are present (see above).
        unsafe { missing(block, x) }
    }
}

// The entry points make the token without detection: each is an `unsafe fn` that requires
// AVX2 and BMI2 and is compiled with them (see `wide_entry_points!`).
wide_entry_points!(Avx2, Features, #[inline], #[target_feature(enable = "avx2,bmi2")]);
