//! The AVX-512 kernel's window primitives: a key's plane mask broadcast across a zmm (four
//! 128-bit planes or two 256-bit ones), its generations tested a 64-byte line at a time with
//! one `vptestmq`, the last partial line loaded under a mask. Four generations of 128-bit
//! planes, or two of 256-bit ones, are one line and one test.

use core::arch::x86_64::{
    __m128i, __m512i, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128, _mm256_cvtepi32_epi16,
    _mm256_set1_epi32, _mm256_sllv_epi32, _mm256_srli_epi32, _mm512_andnot_si512,
    _mm512_broadcast_i32x4, _mm512_loadu_si512, _mm512_maskz_loadu_epi64, _mm512_min_epu64,
    _mm512_or_si512, _mm512_set1_epi64, _mm512_shuffle_epi32, _mm512_testn_epi64_mask,
};

use super::super::primitives::{SplitBlockKernel, WindowKernel};
use super::super::x86;
use super::{Avx512, COMPILED_WITH_FEATURES};
use crate::layout::split_block::LANES;
use crate::layout::window::{Generations, Plane};

/// The 128-bit plane mask of `x`: eight 16-bit lanes, narrowed from 32-bit ones (exact: each
/// is below 2^16).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn mask128(x: u32) -> __m128i {
    let shifts = _mm256_srli_epi32::<28>(x86::salted(x));
    _mm256_cvtepi32_epi16(_mm256_sllv_epi32(_mm256_set1_epi32(1), shifts))
}

/// What each 128-bit plane of `words` (a line) lacks of `mask` (the plane mask in every
/// plane), ORed across the plane: both quadwords of a plane are zero exactly when it holds
/// every bit of the mask. Requires AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
fn lacking128(words: __m512i, mask: __m512i) -> __m512i {
    let missing = _mm512_andnot_si512(words, mask);
    // Each quadword ORed with its neighbour in the same 128 bits.
    _mm512_or_si512(missing, _mm512_shuffle_epi32::<0b01_00_11_10>(missing))
}

/// Whether any plane of `group` holds every bit of `x`'s mask. 256-bit planes are tested one
/// `vptest` each (`x86::contains_any_256`). 128-bit planes a line at a time: each line's
/// planes reduced to what they lack, the lines merged with an unsigned minimum (a plane's
/// zero survives it), then one test; whole lines are plain loads, and the last partial line
/// is loaded under a mask, its other quadwords zero, whose planes lack every bit of the mask.
/// With the shape a constant (`Fixed`), the loops and the masks fold away. Requires AVX2,
/// AVX-512F and AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn contains_any(group: &[u32], plane: Plane, x: u32) -> bool {
    if plane == Plane::Bits256 {
        return x86::contains_any_256(group, x);
    }
    let mask = _mm512_broadcast_i32x4(mask128(x));
    let (lines, rest) = group.as_chunks::<16>();
    let mut lacks = _mm512_set1_epi64(-1);
    for line in lines {
        // SAFETY: `line` is 64 readable bytes; `loadu` needs no alignment.
        let words = unsafe { _mm512_loadu_si512(line.as_ptr().cast()) };
        lacks = _mm512_min_epu64(lacks, lacking128(words, mask));
    }
    if !rest.is_empty() {
        // The quadwords of the partial line (a plane is two quadwords).
        let loaded = (1u8 << (rest.len() / 2)) - 1;
        // SAFETY: the mask selects only quadwords of `rest`, and a masked load reads no other
        // byte nor faults on one; it needs no alignment.
        let words = unsafe { _mm512_maskz_loadu_epi64(loaded, rest.as_ptr().cast()) };
        lacks = _mm512_min_epu64(lacks, lacking128(words, mask));
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

    /// Inline assembly for the shapes whose groups are one or two whole lines.
    #[inline(always)]
    fn contains_hash_inline(self, layout: Generations, words: &[u32], hash: u64) -> Option<bool> {
        x86::window_contains_hash_inline(self, layout, words, hash)
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

/// The assembly that builds `{x}`'s split-block mask (a 256-bit plane's) in `ymm16` from the
/// salts and the `1` at `{constants}`, shifted right by `$shift` (27, or 28 for a 128-bit
/// plane's lanes before they are narrowed), using `ymm17`.
macro_rules! salted_mask_asm {
    ($shift:literal) => {
        concat!(
            "vpbroadcastd ymm16, {x:e}\n",
            "vpmulld ymm16, ymm16, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm16, ymm16, ",
            $shift,
            "\n",
            "vpbroadcastd ymm17, dword ptr [rip + {constants} + 32]\n",
            "vpsllvd ymm16, ymm17, ymm16\n",
        )
    };
}

/// The assembly of one 256-bit plane's test at `{group} + $offset` against the mask in
/// `ymm16`: `{found}` ORed with 1 when the plane has every lane's bit (using `k1` and
/// `{other}`, whose upper bits are zero).
macro_rules! plane_256_asm {
    ($offset:literal) => {
        concat!(
            "vptestmd k1, ymm16, ymmword ptr [{group} + ",
            $offset,
            "]\n",
            // CF = 1 when every lane has its bit.
            "kortestb k1, k1\n",
            "setc {other:l}\n",
            "or {found:e}, {other:e}\n",
        )
    };
}

/// The assembly of [`lacking128`] for the line at `{group} + $offset` and the 128-bit plane
/// mask in every plane of `zmm16`, into `$into` (using `zmm19`).
macro_rules! lacking_128_asm {
    ($offset:literal, $into:literal) => {
        concat!(
            "vmovdqu64 ",
            $into,
            ", zmmword ptr [{group} + ",
            $offset,
            "]\n",
            "vpandnq ",
            $into,
            ", ",
            $into,
            ", zmm16\n",
            "vpshufd zmm19, ",
            $into,
            ", 0x4e\n",
            "vporq ",
            $into,
            ", ",
            $into,
            ", zmm19\n",
        )
    };
}

/// The single-key assembly of a window shape: `$test` leaves `{found}` 0 or 1 (it starts
/// zeroed, as does `{other}`); the registers every shape may use are declared clobbered.
///
/// # Safety
///
/// As for `probe_asm!`: the CPU has AVX-512F, VL and DQ, and `$test` reads only the key's
/// group at `$group`.
macro_rules! window_probe_asm {
    ($x:expr, $group:expr, $found:ident, [$($test:expr),* $(,)?]) => {
        core::arch::asm!(
            "xor {found:e}, {found:e}",
            "xor {other:e}, {other:e}",
            $($test,)*
            x = in(reg) $x,
            group = in(reg) $group,
            constants = sym crate::arch::x86::INLINE_CONSTANTS,
            found = out(reg) $found,
            other = out(reg) _,
            out("zmm16") _,
            out("zmm17") _,
            out("zmm18") _,
            out("zmm19") _,
            out("k1") _,
            options(pure, readonly, nostack),
        )
    };
}

/// The single-key test of a group of one or two whole lines as inline assembly, for
/// `x86::window_contains_hash_inline`. Its vector registers are `zmm16`-`zmm19` (EVEX only,
/// outside the SSE/AVX transition state, so no `vzeroupper`) and the mask register `k1`, all
/// declared clobbered; `tests/caller_registers.rs` runs every shape's lookup inside callers
/// that keep values in vector registers.
impl x86::WindowProbeAsm for Avx512 {
    const COMPILED_WITH_FEATURES: bool = COMPILED_WITH_FEATURES;

    #[inline(always)]
    unsafe fn probe_lines(
        self,
        x: u32,
        group: *const u32,
        plane_words: usize,
        lines: usize,
    ) -> bool {
        let found: u64;
        // SAFETY: `token` proves the CPU has AVX2, AVX-512F, AVX-512VL and AVX-512DQ, which the
        // instructions need (EVEX 256- and 512-bit operations and `vptestnmq` into `k1`: F and
        // VL; `kortestb`: DQ). The asm reads the `lines` 64-byte lines at `group`, the key's
        // group among `words` (`x86::window_group`), and 36 bytes at `INLINE_CONSTANTS` (a
        // static, addressed RIP-relative); EVEX loads need no alignment. It writes
        // `zmm16`-`zmm19` and `k1` (declared clobbered), `found` and the flags (no
        // `preserves_flags`), and touches no stack.
        unsafe {
            // The 128-bit plane mask: 32-bit lanes narrowed to 16 bits, broadcast to every plane.
            macro_rules! mask_128_asm {
                () => {
                    concat!(
                        salted_mask_asm!("28"),
                        "vpmovdw xmm16, ymm16\n",
                        "vshufi32x4 zmm16, zmm16, zmm16, 0\n",
                    )
                };
            }
            match (plane_words, lines) {
                (8, 1) => window_probe_asm!(
                    x,
                    group,
                    found,
                    [
                        salted_mask_asm!("27"),
                        plane_256_asm!("0"),
                        plane_256_asm!("32")
                    ]
                ),
                (8, _) => window_probe_asm!(
                    x,
                    group,
                    found,
                    [
                        salted_mask_asm!("27"),
                        plane_256_asm!("0"),
                        plane_256_asm!("32"),
                        plane_256_asm!("64"),
                        plane_256_asm!("96"),
                    ]
                ),
                (_, 1) => window_probe_asm!(
                    x,
                    group,
                    found,
                    [
                        mask_128_asm!(),
                        lacking_128_asm!("0", "zmm17"),
                        "vptestnmq k1, zmm17, zmm17",
                        // ZF = 0 when some plane lacks nothing.
                        "kortestb k1, k1",
                        "setnz {found:l}",
                    ]
                ),
                _ => window_probe_asm!(
                    x,
                    group,
                    found,
                    [
                        mask_128_asm!(),
                        lacking_128_asm!("0", "zmm17"),
                        lacking_128_asm!("64", "zmm18"),
                        "vpminuq zmm17, zmm17, zmm18",
                        "vptestnmq k1, zmm17, zmm17",
                        "kortestb k1, k1",
                        "setnz {found:l}",
                    ]
                ),
            }
            // SAFETY: `found` was zeroed, then only its low byte set to 0 or 1 by `setnz`.
            core::hint::assert_unchecked(found <= 1);
        }
        found != 0
    }
}
