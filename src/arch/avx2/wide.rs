//! The AVX2 kernel's wide primitives: one 256-bit multiply and shift give the eight bit
//! positions, two zero-extensions and variable shifts the two halves of the 512-bit mask, and
//! one compare answers.
//!
//! A single-key lookup is inline assembly ([`contains_hash_inline`]), as the AVX-512 wide
//! kernel's is and for the same reason (`avx512/wide.rs`). It ends with `vzeroupper`, as the
//! split-block AVX2 lookup does (`split_block.rs`), and declares `ymm0`-`ymm15` clobbered.

use core::arch::x86_64::{
    __m256i, _mm256_andnot_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi64,
    _mm256_cvtepu32_epi64, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_sllv_epi64,
    _mm256_srli_epi32, _mm256_storeu_si256, _mm256_testz_si256,
};

use super::super::primitives::ContainsHash;
use super::super::primitives::WideKernel;
use super::super::{Token, x86};
use super::{Avx2, COMPILED_WITH_FEATURES};
use crate::layout::wide::{WORDS, Wide};

/// The mask of `x` as two ymm halves (words 0..4 and 4..8).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mask(x: u32) -> (__m256i, __m256i) {
    let shifts = _mm256_srli_epi32::<26>(x86::salted(x));
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
///
/// The answer is a compare and a byte mask, not `vptest`: a batch loop ORs a key's two answers,
/// and from two `vptest`s the compiler builds two horizontal reductions of five instructions
/// each, which made two-probe batches 18% slower (`SPLITBLOOM_KERNEL=avx2 cargo bench -p
/// splitbloom-bench --bench wide`, 10^6 keys at 1e-4: 5.80-5.91 ns against 4.77-4.78).
#[target_feature(enable = "avx2")]
#[inline]
fn missing(block: &[u64; WORDS], x: u32) -> bool {
    let (mask_low, mask_high) = mask(x);
    let (low, high) = load(block);
    let missing = _mm256_or_si256(
        _mm256_andnot_si256(low, mask_low),
        _mm256_andnot_si256(high, mask_high),
    );
    _mm256_movemask_epi8(_mm256_cmpeq_epi64(missing, _mm256_setzero_si256())) != -1
}

impl WideKernel for Avx2 {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        // SAFETY: `self` proves AVX2 is available.
        unsafe { insert(block, x) }
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        // SAFETY: `self` proves AVX2 is available.
        unsafe { missing(block, x) }
    }

    #[inline(always)]
    fn contains_hash(self, layout: Wide, blocks: &[[u64; WORDS]], hash: u64) -> bool {
        contains_hash_inline(self, layout, blocks, hash)
    }
}

/// The assembly that leaves in `ymm0` the bits of the mask of `{$x}` that the block at
/// `{$block}` lacks, the mask's two halves built from one multiply by the salts as in [`mask`]
/// (`ymm1` holds a `1` in every word), then runs `$combine`. It changes `ymm0`, `ymm2`-`ymm4`.
macro_rules! missing_asm {
    ($x:literal, $block:literal, $combine:literal) => {
        concat!(
            "vmovd xmm0, {", $x, ":e}\n",
            "vpbroadcastd ymm0, xmm0\n",
            "vpmulld ymm0, ymm0, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm0, ymm0, 26\n",
            "vpmovzxdq ymm2, xmm0\n",
            "vextracti128 xmm0, ymm0, 1\n",
            "vpmovzxdq ymm0, xmm0\n",
            "vpsllvq ymm2, ymm1, ymm2\n",
            "vpsllvq ymm0, ymm1, ymm0\n",
            "vmovdqu ymm3, ymmword ptr [{", $block, "}]\n",
            "vmovdqu ymm4, ymmword ptr [{", $block, "} + 32]\n",
            "vpandn ymm2, ymm3, ymm2\n",
            "vpandn ymm0, ymm4, ymm0\n",
            "vpor ymm0, ymm0, ymm2\n",
            $combine,
        )
    };
}

/// The single-key lookup of `hash` with `probes` probes, its tests as inline assembly (see the
/// module docs).
///
/// Its registers are `ymm0`-`ymm5`, and `vzeroupper` zeroes the upper halves of `ymm0`-`ymm15`,
/// so all sixteen are declared clobbered (see `split_block.rs`'s `contains_hash_inline`). A caller compiled
/// with AVX2 and BMI2 needs no assembly: there the entry point inlines.
#[inline(always)]
fn contains_hash_inline(token: Avx2, layout: Wide, blocks: &[[u64; WORDS]], hash: u64) -> bool {
    if COMPILED_WITH_FEATURES {
        return token.run(ContainsHash {
            layout,
            blocks,
            hash,
        });
    }
    let ((block0, x0), second) = x86::wide_probes(blocks, layout, hash);
    let found: u64;
    if let Some((block1, x1)) = second {
        // SAFETY: `token` proves the CPU has AVX2, which every instruction here needs. The asm
        // reads the 64 bytes at `block0` and `block1`, blocks of `blocks` (`x86::wide_probes`),
        // and 40 bytes at `x86::WIDE_INLINE_CONSTANTS` (a static, addressed RIP-relative); VEX
        // loads need no alignment. It writes `ymm0`-`ymm5` and the upper halves of
        // `ymm0`-`ymm15` (`vzeroupper`), all declared clobbered, `found` and the flags (no
        // `preserves_flags`), and touches no stack.
        unsafe {
            core::arch::asm!(
                "xor {found:e}, {found:e}",
                "vpbroadcastq ymm1, qword ptr [rip + {constants} + 32]",
                missing_asm!("x0", "block0", "vmovdqa ymm5, ymm0"),
                missing_asm!("x1", "block1", "vpor ymm5, ymm5, ymm0"),
                // ZF = 1 when no bit is missing.
                "vptest ymm5, ymm5",
                "setz {found:l}",
                "vzeroupper",
                x0 = in(reg) x0,
                x1 = in(reg) x1,
                block0 = in(reg) block0,
                block1 = in(reg) block1,
                constants = sym x86::WIDE_INLINE_CONSTANTS,
                found = out(reg) found,
                out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _,
                out("xmm5") _, out("xmm6") _, out("xmm7") _, out("xmm8") _, out("xmm9") _,
                out("xmm10") _, out("xmm11") _, out("xmm12") _, out("xmm13") _, out("xmm14") _,
                out("xmm15") _,
                options(pure, readonly, nostack),
            );
        }
    } else {
        // SAFETY: as for two probes, with `block0` alone.
        unsafe {
            core::arch::asm!(
                "xor {found:e}, {found:e}",
                "vpbroadcastq ymm1, qword ptr [rip + {constants} + 32]",
                missing_asm!("x0", "block0", "vptest ymm0, ymm0"),
                "setz {found:l}",
                "vzeroupper",
                x0 = in(reg) x0,
                block0 = in(reg) block0,
                constants = sym x86::WIDE_INLINE_CONSTANTS,
                found = out(reg) found,
                out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _,
                out("xmm5") _, out("xmm6") _, out("xmm7") _, out("xmm8") _, out("xmm9") _,
                out("xmm10") _, out("xmm11") _, out("xmm12") _, out("xmm13") _, out("xmm14") _,
                out("xmm15") _,
                options(pure, readonly, nostack),
            );
        }
    }
    // SAFETY: `found` was zeroed, then only its low byte set to 0 or 1 by `setz`.
    unsafe { core::hint::assert_unchecked(found <= 1) };
    found != 0
}
