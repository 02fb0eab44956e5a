//! The AVX-512 kernel's wide primitives: the eight bit positions from one 256-bit multiply, the whole
//! 512-bit mask from one zero-extension and one variable shift, one zmm load and one test.
//!
//! A single-key lookup is also inline assembly ([`contains_hash_inline`]), as the split-block
//! kernel's is (`split_block.rs`): a `#[target_feature]` function does not
//! inline into a caller compiled without AVX-512, so each lookup was a call behind a jump
//! table over the kernels, in every iteration of a caller's loop. Inline, with every other
//! kernel behind one out-of-line call (`dispatch.rs`), the loop chooses the kernel once and
//! spends about twenty instructions per key (BENCHMARKS.md, "`WideFilter` for low targets").
//! The assembly uses only `zmm16`-`zmm18`, outside the SSE/AVX transition state, so it needs no
//! `vzeroupper`.

use core::arch::x86_64::{
    __m512i, _mm256_srli_epi32, _mm512_andnot_si512, _mm512_cvtepu32_epi64, _mm512_loadu_si512,
    _mm512_or_si512, _mm512_set1_epi64, _mm512_sllv_epi64, _mm512_storeu_si512,
    _mm512_test_epi64_mask,
};

use super::super::primitives::ContainsHash;
use super::super::primitives::WideKernel;
use super::super::{Token, x86};
use super::{Avx512, COMPILED_WITH_FEATURES};
use crate::layout::wide::{WORDS, Wide};

/// The mask of `x` in one zmm.
#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn mask(x: u32) -> __m512i {
    let shifts = _mm256_srli_epi32::<26>(x86::salted(x));
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

impl WideKernel for Avx512 {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        // SAFETY: `self` proves AVX2 and AVX-512F are available.
        unsafe { insert(block, x) }
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        // SAFETY: `self` proves AVX2 and AVX-512F are available.
        unsafe { missing(block, x) }
    }

    #[inline(always)]
    fn contains_hash(self, layout: Wide, blocks: &[[u64; WORDS]], hash: u64) -> bool {
        contains_hash_inline(self, layout, blocks, hash)
    }
}

/// The assembly that builds the 512-bit mask of `{x0}` in `zmm16` (the salts' multiply, the
/// shift to six bits, zero-extended to eight words) and leaves `zmm17` holding a `1` in every
/// word, then sets `k1` word j when word j of the block at `{block0}` has the mask's bit.
macro_rules! first_probe_asm {
    () => {
        concat!(
            "vpbroadcastd ymm16, {x0:e}\n",
            "vpmulld ymm16, ymm16, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm16, ymm16, 26\n",
            "vpmovzxdq zmm16, ymm16\n",
            "vpbroadcastq zmm17, qword ptr [rip + {constants} + 32]\n",
            "vpsllvq zmm16, zmm17, zmm16\n",
            "vptestmq k1, zmm16, zmmword ptr [{block0}]",
        )
    };
}

/// The single-key lookup of `hash` with `probes` probes, with the probes' tests as inline
/// assembly (see the module docs): a caller's loop of lookups overlaps their misses as the
/// split-block kernel's does.
///
/// Its vector registers are `zmm16`-`zmm18` (EVEX only) and the mask registers `k1` and `k2`,
/// all declared clobbered; `tests/caller_registers.rs` keeps values live in `zmm16` and up
/// across it. A caller compiled with the kernel's features needs no assembly: there the
/// entry point inlines.
#[inline(always)]
fn contains_hash_inline(token: Avx512, layout: Wide, blocks: &[[u64; WORDS]], hash: u64) -> bool {
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
        // SAFETY: `token` proves the CPU has AVX2, AVX-512F, AVX-512VL and AVX-512DQ, which
        // the instructions need (EVEX 256-bit operations: F and VL; `vpmovzxdq`, `vpsllvq`
        // and `vptestmq` on zmm: F; `kandb` and `kortestb`: DQ). The asm reads the 64 bytes at
        // `block0` and `block1`, blocks of `blocks` (`x86::wide_probes`), and 40 bytes
        // at `x86::WIDE_INLINE_CONSTANTS` (a static, addressed RIP-relative); EVEX loads need no
        // alignment. It writes `zmm16`-`zmm18`, `k1`, `k2` (declared clobbered), `found` and
        // the flags (no `preserves_flags`), and touches no stack.
        unsafe {
            core::arch::asm!(
                "xor {found:e}, {found:e}",
                first_probe_asm!(),
                "vpbroadcastd ymm18, {x1:e}",
                "vpmulld ymm18, ymm18, ymmword ptr [rip + {constants}]",
                "vpsrld ymm18, ymm18, 26",
                "vpmovzxdq zmm18, ymm18",
                "vpsllvq zmm18, zmm17, zmm18",
                "vptestmq k2, zmm18, zmmword ptr [{block1}]",
                "kandb k1, k1, k2",
                // CF = 1 when all sixteen bits were set.
                "kortestb k1, k1",
                "setc {found:l}",
                x0 = in(reg) x0,
                x1 = in(reg) x1,
                block0 = in(reg) block0,
                block1 = in(reg) block1,
                constants = sym crate::arch::x86::WIDE_INLINE_CONSTANTS,
                found = out(reg) found,
                out("zmm16") _,
                out("zmm17") _,
                out("zmm18") _,
                out("k1") _,
                out("k2") _,
                options(pure, readonly, nostack),
            );
        }
    } else {
        // SAFETY: as for two probes, with `block0` alone; it writes `zmm16`, `zmm17`, `k1`
        // (declared clobbered), `found` and the flags, and touches no stack.
        unsafe {
            core::arch::asm!(
                "xor {found:e}, {found:e}",
                first_probe_asm!(),
                // CF = 1 when all eight bits were set.
                "kortestb k1, k1",
                "setc {found:l}",
                x0 = in(reg) x0,
                block0 = in(reg) block0,
                constants = sym crate::arch::x86::WIDE_INLINE_CONSTANTS,
                found = out(reg) found,
                out("zmm16") _,
                out("zmm17") _,
                out("k1") _,
                options(pure, readonly, nostack),
            );
        }
    }
    // SAFETY: `found` was zeroed, then only its low byte set to 0 or 1 by `setc`.
    unsafe { core::hint::assert_unchecked(found <= 1) };
    found != 0
}
