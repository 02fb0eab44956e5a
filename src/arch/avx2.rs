//! The AVX2 kernel: one 256-bit multiply, shift and variable shift build the whole mask, one
//! `vptest` answers a lookup.
//!
//! The `#[target_feature]` functions here are safe to call only where AVX2 is present; the
//! [`Avx2`] token can only be built after detecting it, and every call goes through the token.

use core::arch::x86_64::{
    __m256i, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_or_si256, _mm256_set1_epi32,
    _mm256_setr_epi32, _mm256_sllv_epi32, _mm256_srli_epi32, _mm256_storeu_si256,
    _mm256_testc_si256,
};

use super::{BlockKernel, entry_points};
use crate::block::{LANES, SALT};

/// Token of the AVX2 kernel: a value of this type proves the CPU supports AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// The token, when this CPU has AVX2.
    #[inline]
    pub(crate) fn new() -> Option<Avx2> {
        #[cfg(feature = "std")]
        let available = std::is_x86_feature_detected!("avx2");
        // Without std there is no run-time detection: trust the compile-time target features.
        #[cfg(not(feature = "std"))]
        let available = cfg!(target_feature = "avx2");
        available.then_some(Avx2(()))
    }
}

/// The mask of `x` in a ymm register. Requires AVX2 (callers hold an [`Avx2`] token).
#[target_feature(enable = "avx2")]
#[inline]
fn mask_vector(x: u32) -> __m256i {
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
    let hashed = _mm256_mullo_epi32(_mm256_set1_epi32(x as i32), salt);
    _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32::<27>(hashed))
}

/// Loads a block. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn load(block: &[u32; LANES]) -> __m256i {
    // SAFETY: `block` is a valid reference to 32 readable bytes; `loadu` needs no alignment.
    unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
}

/// Stores a block. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn store(block: &mut [u32; LANES], words: __m256i) {
    // SAFETY: `block` is a valid exclusive reference to 32 writable bytes; `storeu` needs no
    // alignment.
    unsafe { _mm256_storeu_si256(block.as_mut_ptr().cast(), words) }
}

/// `mask` for the token. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
fn mask(x: u32) -> [u32; LANES] {
    let mut words = [0; LANES];
    store(&mut words, mask_vector(x));
    words
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
    _mm256_testc_si256(load(block), mask_vector(x)) != 0
}

/// The constants of [`contains_inline`], next to each other so that one pointer reaches both.
#[repr(C, align(32))]
struct InlineConstants {
    salt: [u32; LANES],
    one: u32,
}

static INLINE_CONSTANTS: InlineConstants = InlineConstants { salt: SALT, one: 1 };

/// [`contains`] as inline assembly, for the single-key lookup: a `#[target_feature]` function
/// cannot inline into a caller compiled without AVX2, so the lookup would cost a call, and on
/// Zen 4 the call and return cost as much as the probe itself. Assembly inlines anywhere; the
/// token proves the CPU can run it. Same instructions as [`contains`], then `vzeroupper`, so that
/// a caller compiled without AVX pays no SSE/AVX transition penalty.
///
/// `vzeroupper` zeroes bits 128 and up of every register `ymm0`-`ymm15` (and `zmm0`-`zmm15`),
/// so the block declares all sixteen clobbered: a caller compiled with AVX (`-C
/// target-cpu=native`, `x86-64-v3`, or code inside a `#[target_feature(enable = "avx2")]`
/// function) may keep 256- or 512-bit values in them across this lookup, and the compiler must
/// save those or keep them elsewhere (`zmm16`-`zmm31`, which `vzeroupper` leaves alone). A clobber
/// of `xmmN` covers the whole register (LLVM tracks `xmmN`, `ymmN` and `zmmN` as one register).
/// The mask and the block therefore live in fixed registers, `ymm0` and `ymm1`.
/// `tests/suite/caller_registers.rs` keeps ymm and zmm values live across every entry point.
#[inline(always)]
pub(super) fn contains_inline(_token: Avx2, block: &[u32; LANES], x: u32) -> bool {
    let found: u8;
    // SAFETY: `_token` proves the CPU has AVX2, which every instruction here needs. The asm
    // reads 32 bytes at `block` (a valid reference) and 36 bytes at `INLINE_CONSTANTS` (a
    // static); VEX loads need no alignment. It writes `ymm0`, `ymm1` and the upper halves of
    // `ymm0`-`ymm15` (`vzeroupper`), all declared clobbered below, `found` and the flags (not
    // preserved: no `preserves_flags`), and touches no stack.
    unsafe {
        core::arch::asm!(
            "vmovd xmm0, {x:e}",
            "vpbroadcastd ymm0, xmm0",
            "vpmulld ymm0, ymm0, ymmword ptr [{constants}]",
            "vpsrld ymm0, ymm0, 27",
            "vpbroadcastd ymm1, dword ptr [{constants} + 32]",
            "vpsllvd ymm0, ymm1, ymm0",
            "vmovdqu ymm1, ymmword ptr [{block}]",
            // CF = 1 when every bit of the mask (ymm0) is set in the block (ymm1).
            "vptest ymm1, ymm0",
            "setb {found}",
            "vzeroupper",
            x = in(reg) x,
            block = in(reg) block.as_ptr(),
            constants = in(reg) &raw const INLINE_CONSTANTS,
            found = out(reg_byte) found,
            out("xmm0") _,
            out("xmm1") _,
            out("xmm2") _,
            out("xmm3") _,
            out("xmm4") _,
            out("xmm5") _,
            out("xmm6") _,
            out("xmm7") _,
            out("xmm8") _,
            out("xmm9") _,
            out("xmm10") _,
            out("xmm11") _,
            out("xmm12") _,
            out("xmm13") _,
            out("xmm14") _,
            out("xmm15") _,
            options(pure, readonly, nostack),
        );
    }
    found != 0
}

impl BlockKernel for Avx2 {
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
}

// The entry points make the token without detection: each is an `unsafe fn` that requires
// AVX2 and is compiled with it (see `entry_points!`).
entry_points!(Avx2, Avx2(()), #[inline], #[target_feature(enable = "avx2")]);
