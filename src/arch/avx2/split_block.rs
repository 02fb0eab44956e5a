//! The AVX2 kernel's split-block primitives: one 256-bit multiply, shift and variable shift
//! build the whole mask, one `vptest` answers a lookup; the single-key lookup and insert as
//! inline assembly ([`contains_hash_inline`], [`insert_hash_inline`]).

use core::arch::x86_64::{_mm256_or_si256, _mm256_testc_si256};

use super::super::primitives::SplitBlockKernel;
use super::super::x86::{self, load, mask_vector, probe_asm, store};
use super::{Avx2, COMPILED_WITH_FEATURES};
use crate::layout::split_block::{LANES, block_index};

/// `mask` for the token. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn mask(x: u32) -> [u32; LANES] {
    x86::mask(x)
}

/// `insert` for the token. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn insert(block: &mut [u32; LANES], x: u32) -> bool {
    let mask = mask_vector(x);
    let words = load(block);
    store(block, _mm256_or_si256(words, mask));
    // testc: 1 when every bit of `mask` is already set in `words`.
    _mm256_testc_si256(words, mask) != 0
}

/// `contains` for the token. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn contains(block: &[u32; LANES], x: u32) -> bool {
    x86::contains(block, x)
}

/// The assembly that builds the mask of `{x}` in `ymm0` from the salts and the `1` at
/// `{constants}`, loads the block at `{blocks} + {offset}` into `ymm1` and sets the carry flag
/// when the block has every bit of the mask (`vptest`), for [`probe_asm!`].
macro_rules! mask_and_test_asm {
    () => {
        concat!(
            "vmovd xmm0, {x:e}\n",
            "vpbroadcastd ymm0, xmm0\n",
            "vpmulld ymm0, ymm0, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm0, ymm0, 27\n",
            "vpbroadcastd ymm1, dword ptr [rip + {constants} + 32]\n",
            "vpsllvd ymm0, ymm1, ymm0\n",
            "vmovdqu ymm1, ymmword ptr [{blocks} + {offset}]\n",
            "vptest ymm1, ymm0",
        )
    };
}

/// The single-key lookup of `hash` in `blocks` ([`block_index`], then [`contains`]) with the
/// probe as inline assembly: a `#[target_feature]` function cannot inline into a caller compiled
/// without AVX2, so the lookup would cost a call, which costs as much as the probe itself
/// (BENCHMARKS.md, "Workload"). Assembly inlines anywhere; the token proves the CPU can run it.
/// It ends with `vzeroupper`, so that a caller compiled without AVX pays no SSE/AVX transition
/// penalty.
///
/// `vzeroupper` zeroes bits 128 and up of every register `ymm0`-`ymm15` (and `zmm0`-`zmm15`),
/// so the block declares all sixteen clobbered: a caller compiled with AVX (`-C
/// target-cpu=native`, `x86-64-v3`, or code inside a `#[target_feature(enable = "avx2")]`
/// function) may keep 256- or 512-bit values in them across this lookup, and the compiler must
/// save those or keep them elsewhere (`zmm16`-`zmm31`, which `vzeroupper` leaves alone). A
/// clobber of `xmmN` covers the whole register (LLVM tracks `xmmN`, `ymmN` and `zmmN` as one
/// register). The mask and the block therefore live in fixed registers, `ymm0` and `ymm1`.
/// `tests/caller_registers.rs` keeps ymm and zmm values live across every entry point.
///
/// A caller compiled with AVX2 needs neither the assembly nor its `vzeroupper`: there
/// [`contains`] inlines, and the compiler keeps the salts and the `1`s in registers across a
/// loop of lookups instead of loading them every time.
#[inline(always)]
fn contains_hash_inline(token: Avx2, blocks: &[[u32; LANES]], hash: u64) -> bool {
    if COMPILED_WITH_FEATURES {
        return SplitBlockKernel::contains(
            token,
            &blocks[block_index(hash, blocks.len())],
            hash as u32,
        );
    }
    let offset = x86::block_offset(hash, blocks.len());
    let found: u64;
    // SAFETY: `token` proves the CPU has AVX2, which every instruction here needs. The asm
    // reads the 32 bytes at `offset` in `blocks` (one of its blocks: see `x86::block_offset`)
    // and 36 bytes at `INLINE_CONSTANTS` (a static, addressed RIP-relative); VEX loads need no
    // alignment. It writes `ymm0`, `ymm1` and the upper halves of `ymm0`-`ymm15`
    // (`vzeroupper`), all declared clobbered below, `found` and the flags (not preserved: no
    // `preserves_flags`), and touches no stack.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_ptr(),
            offset,
            found,
            [mask_and_test_asm!()],
            ["vzeroupper"],
            [
                "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
            ],
            pure,
            readonly,
            nostack
        );
    }
    found != 0
}

/// The single-key insert of `hash` into `blocks` ([`block_index`], then [`insert`]) as inline
/// assembly, for the reason and with the registers and `vzeroupper` of
/// [`contains_hash_inline`]. Returns `true` when every bit of the key was already set, as
/// [`insert`] does.
///
/// A caller compiled with AVX2 needs no assembly: there [`insert`] inlines.
#[inline(always)]
fn insert_hash_inline(token: Avx2, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
    if COMPILED_WITH_FEATURES {
        let index = block_index(hash, blocks.len());
        return SplitBlockKernel::insert(token, &mut blocks[index], hash as u32);
    }
    let offset = x86::block_offset(hash, blocks.len());
    let present: u64;
    // SAFETY: `token` proves the CPU has AVX2, which every instruction here needs. The asm
    // reads and then writes the 32 bytes at `offset` in `blocks` (one of its blocks: see
    // `x86::block_offset`), which the exclusive borrow lets it write, and reads 36 bytes at
    // `INLINE_CONSTANTS` (a static, addressed RIP-relative); VEX loads and stores need no
    // alignment. It writes `ymm0`, `ymm1` and the upper halves of `ymm0`-`ymm15`
    // (`vzeroupper`), all declared clobbered below, `present` and the flags (not preserved: no
    // `preserves_flags`), and touches no stack.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_mut_ptr(),
            offset,
            present,
            [mask_and_test_asm!()],
            [
                "vpor ymm1, ymm1, ymm0",
                "vmovdqu ymmword ptr [{blocks} + {offset}], ymm1",
                "vzeroupper"
            ],
            [
                "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
            ],
            nostack
        );
    }
    present != 0
}

impl SplitBlockKernel for Avx2 {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        // SAFETY: `self` proves AVX2 is available.
        unsafe { mask(x) }
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        // SAFETY: `self` proves AVX2 is available.
        unsafe { insert(block, x) }
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        // SAFETY: `self` proves AVX2 is available.
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
