//! The AVX-512 kernel's split-block primitives, and the single-key lookup and insert as
//! inline assembly ([`contains_hash_inline`], [`insert_hash_inline`]) whose test is `vptestmd`
//! into a mask register.

use core::arch::x86_64::{_mm256_or_si256, _mm256_test_epi32_mask};

use super::super::primitives::SplitBlockKernel;
use super::super::x86::{self, load, mask_vector, probe_asm, store};
use super::{Avx512, COMPILED_WITH_FEATURES};
use crate::layout::split_block::{LANES, block_index};

/// `mask` for the token. Requires AVX2, BMI2, AVX-512F, AVX-512VL and AVX-512DQ.
#[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq")]
#[inline]
fn mask(x: u32) -> [u32; LANES] {
    x86::mask(x)
}

/// `insert` for the token. Requires AVX2, BMI2, AVX-512F, AVX-512VL and AVX-512DQ.
#[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq")]
#[inline]
fn insert(block: &mut [u32; LANES], x: u32) -> bool {
    let mask = mask_vector(x);
    let words = load(block);
    store(block, _mm256_or_si256(words, mask));
    // One bit per lane in `mask`: a lane tests non-zero exactly when its bit is already set.
    _mm256_test_epi32_mask(words, mask) == 0xff
}

/// `contains` for the token: the AVX2 kernel's `vptest`, which has no EVEX form. Where this
/// inlines (the batch loops, and every lookup of a caller compiled with the kernel's features)
/// no `vzeroupper` is at stake, and `vptestmd` into a mask register, which the assembly of
/// [`contains_hash_inline`] needs, measured slower (BENCHMARKS.md, "Workload"). Requires AVX2,
/// BMI2, AVX-512F, AVX-512VL and AVX-512DQ.
#[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq")]
#[inline]
fn contains(block: &[u32; LANES], x: u32) -> bool {
    x86::contains(block, x)
}

/// The assembly that builds the mask of `{x}` in `ymm16` from the salts and the `1` at
/// `{constants}`, for [`probe_asm!`]; the caller's test then sets `k1` lane i when the block
/// has lane i's bit.
macro_rules! mask_asm {
    () => {
        concat!(
            "vpbroadcastd ymm16, {x:e}\n",
            "vpmulld ymm16, ymm16, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm16, ymm16, 27\n",
            "vpbroadcastd ymm17, dword ptr [rip + {constants} + 32]\n",
            "vpsllvd ymm16, ymm17, ymm16",
        )
    };
}

/// The single-key lookup of `hash` in `blocks` ([`block_index`], then [`contains`]) with the
/// probe as inline assembly (a `#[target_feature]` function would not inline into a caller
/// compiled without AVX-512, and the call would cost as much as the probe; see
/// the AVX2 kernel's `contains_hash_inline`).
///
/// Every vector register it uses is one of `ymm16`, `ymm17` (EVEX only) and the mask register
/// `k1`. Those are outside the state that makes legacy SSE code pay a transition penalty after
/// AVX code, so unlike the AVX2 version it needs no `vzeroupper`, which also means it clobbers
/// nothing a caller keeps in `ymm0`-`ymm15`. The three registers are declared clobbered (a
/// clobber of `zmm16` covers `xmm16`/`ymm16`); `tests/caller_registers.rs` keeps values live in
/// `zmm16` and up across every entry point. The block is the memory operand of `vptestmd`.
///
/// A caller compiled with these features needs no assembly: there [`contains`] inlines.
#[inline(always)]
fn contains_hash_inline(token: Avx512, blocks: &[[u32; LANES]], hash: u64) -> bool {
    if COMPILED_WITH_FEATURES {
        return SplitBlockKernel::contains(
            token,
            &blocks[block_index(hash, blocks.len())],
            hash as u32,
        );
    }
    let offset = x86::block_offset(hash, blocks.len());
    let found: u64;
    // SAFETY: `token` proves the CPU has AVX2, AVX-512F, AVX-512VL and AVX-512DQ, which the
    // instructions here need (EVEX encodings of 256-bit operations and `vptestmd` into `k1`: F
    // and VL; `kortestb`: DQ). The asm reads the 32 bytes at `offset` in `blocks` (one of its
    // blocks: see `x86::block_offset`) and 36 bytes at `INLINE_CONSTANTS` (a static, addressed
    // RIP-relative); EVEX loads need no alignment. It writes `zmm16`, `zmm17` and `k1`,
    // declared clobbered, `found` and the flags (not preserved: no `preserves_flags`), and
    // touches no stack.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_ptr(),
            offset,
            found,
            [
                mask_asm!(),
                // k1 lane i = 1 when the block's lane i has the mask's one bit.
                "vptestmd k1, ymm16, ymmword ptr [{blocks} + {offset}]",
                // CF = 1 when the low eight bits of k1 (one per lane) are all ones.
                "kortestb k1, k1"
            ],
            [],
            ["zmm16", "zmm17", "k1"],
            pure,
            readonly,
            nostack
        );
    }
    found != 0
}

/// The single-key insert of `hash` into `blocks` ([`block_index`], then [`insert`]) as inline
/// assembly, for the reason and with the registers of [`contains_hash_inline`]. Returns `true`
/// when every bit of the key was already set, as [`insert`] does.
///
/// A caller compiled with these features needs no assembly: there [`insert`] inlines.
#[inline(always)]
fn insert_hash_inline(token: Avx512, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
    if COMPILED_WITH_FEATURES {
        let index = block_index(hash, blocks.len());
        return SplitBlockKernel::insert(token, &mut blocks[index], hash as u32);
    }
    let offset = x86::block_offset(hash, blocks.len());
    let present: u64;
    // SAFETY: `token` proves the CPU has AVX2, AVX-512F, AVX-512VL and AVX-512DQ, which the
    // instructions here need (EVEX encodings of 256-bit operations, `vmovdqu32` and `vptestmd`
    // into `k1`: F and VL; `kortestb`: DQ). The asm reads and then writes the 32 bytes at
    // `offset` in `blocks` (one of its blocks: see `x86::block_offset`), which the exclusive
    // borrow lets it write, and reads 36 bytes at `INLINE_CONSTANTS` (a static, addressed
    // RIP-relative); EVEX loads and stores need no alignment. It writes `zmm16`, `zmm17` and
    // `k1`, declared clobbered, `present` and the flags (not preserved: no `preserves_flags`),
    // and touches no stack.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_mut_ptr(),
            offset,
            present,
            [
                mask_asm!(),
                // The old block into ymm17, tested (k1 lane i = 1 when lane i already has the
                // mask's one bit), then ORed with the mask and stored.
                "vmovdqu32 ymm17, ymmword ptr [{blocks} + {offset}]",
                "vptestmd k1, ymm16, ymm17",
                "vpord ymm17, ymm17, ymm16",
                "vmovdqu32 ymmword ptr [{blocks} + {offset}], ymm17",
                "kortestb k1, k1"
            ],
            [],
            ["zmm16", "zmm17", "k1"],
            nostack
        );
    }
    present != 0
}

impl SplitBlockKernel for Avx512 {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        // SAFETY: `self` proves AVX2, BMI2, AVX-512F, AVX-512VL and AVX-512DQ are available.
        unsafe { mask(x) }
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        // SAFETY: `self` proves AVX2, BMI2, AVX-512F, AVX-512VL and AVX-512DQ are available.
        unsafe { insert(block, x) }
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        // SAFETY: `self` proves AVX2, BMI2, AVX-512F, AVX-512VL and AVX-512DQ are available.
        unsafe { contains(block, x) }
    }

    #[inline(always)]
    fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
        contains_hash_inline(self, blocks, hash)
    }

    #[inline(always)]
    fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
        insert_hash_inline(self, blocks, hash)
    }
}
