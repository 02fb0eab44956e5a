//! The AVX-512 wide kernel: the eight bit positions from one 256-bit multiply, the whole
//! 512-bit mask from one zero-extension and one variable shift, one zmm load and one test.
//!
//! The `#[target_feature]` functions here are safe to call only where the [`Avx512`] token's
//! features are present; the token proves it.

use core::arch::x86_64::{
    __m512i, _mm256_mullo_epi32, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_srli_epi32,
    _mm512_andnot_si512, _mm512_cvtepu32_epi64, _mm512_loadu_si512, _mm512_or_si512,
    _mm512_set1_epi64, _mm512_sllv_epi64, _mm512_storeu_si512, _mm512_test_epi64_mask,
};

use super::avx512::Avx512;
use super::wide_generic::{WideKernel, wide_entry_points};
use crate::block::SALT;
use crate::wide_block::WORDS;

/// The mask of `x` in one zmm.
#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn mask(x: u32) -> __m512i {
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
    _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_cvtepu32_epi64(shifts))
}

/// `insert` for the token. Requires AVX2 and AVX-512F.
#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn insert(block: &mut [u64; WORDS], x: u32) -> bool {
    let mask = mask(x);
    // SAFETY: `block` is a valid exclusive reference to 64 bytes; `loadu`/`storeu` need no
    // alignment.
    let words = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    // SAFETY: as above.
    unsafe { _mm512_storeu_si512(block.as_mut_ptr().cast(), _mm512_or_si512(words, mask)) };
    let missing = _mm512_andnot_si512(words, mask);
    _mm512_test_epi64_mask(missing, missing) == 0
}

/// `missing` for the token. Requires AVX2 and AVX-512F.
#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn missing(block: &[u64; WORDS], x: u32) -> bool {
    // SAFETY: `block` is a valid reference to 64 readable bytes; `loadu` needs no alignment.
    let words = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    let missing = _mm512_andnot_si512(words, mask(x));
    _mm512_test_epi64_mask(missing, missing) != 0
}

/// The primitives as the wide entry points use them. A value exists only inside those entry
/// points, each an `unsafe fn` that requires AVX2 and AVX-512F and is compiled with them, so holding
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

// The entry points make the token without detection: each is an `unsafe fn` that requires the
// token's features and is compiled with them (see `wide_entry_points!`).
wide_entry_points!(Avx512, Features, #[inline], #[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq")]);
