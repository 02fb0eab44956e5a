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

use super::super::batch::ContainsHash;
use super::super::primitives::{SplitBlockKernel, WindowKernel};
use super::super::{Token, x86};
use super::{Avx512, COMPILED_WITH_FEATURES};
use crate::layout::split_block::LANES;
use crate::layout::window::{Fixed, Plane};

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
    fn contains_hash_fixed<const PLANE_WORDS: usize, const G: usize>(
        self,
        layout: Fixed<PLANE_WORDS, G>,
        words: &[u32],
        hash: u64,
    ) -> bool {
        contains_hash_inline(self, layout, words, hash)
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

/// The assembly that builds `{x}`'s mask for planes of `$plane_words` words (4 or 8) in every
/// plane of `zmm16`, from the salts and the `1` at `{constants}` (using `zmm17`).
macro_rules! line_mask_asm {
    (8) => {
        concat!(
            "vpbroadcastd ymm16, {x:e}\n",
            "vpmulld ymm16, ymm16, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm16, ymm16, 27\n",
            "vpbroadcastd ymm17, dword ptr [rip + {constants} + 32]\n",
            "vpsllvd ymm16, ymm17, ymm16\n",
            "vshufi64x2 zmm16, zmm16, zmm16, 0x44\n",
        )
    };
    (4) => {
        concat!(
            "vpbroadcastd ymm16, {x:e}\n",
            "vpmulld ymm16, ymm16, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm16, ymm16, 28\n",
            "vpbroadcastd ymm17, dword ptr [rip + {constants} + 32]\n",
            "vpsllvd ymm16, ymm17, ymm16\n",
            "vpmovdw xmm16, ymm16\n",
            "vshufi32x4 zmm16, zmm16, zmm16, 0\n",
        )
    };
}

/// The assembly of [`lacking`]: what each plane of the line at `{group} + $offset` lacks of the
/// mask in `zmm16`, into `$into`, each quadword of a plane zero when the plane is whole (using
/// `zmm19`).
macro_rules! lacking_asm {
    ($plane_words:tt, $offset:literal, $into:literal) => {
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
            fold_256_asm!($plane_words, $into),
        )
    };
}

/// The last step of [`lacking_asm!`] for 256-bit planes: each 128 bits ORed with its neighbour.
macro_rules! fold_256_asm {
    (4, $into:literal) => {
        ""
    };
    (8, $into:literal) => {
        concat!(
            "vshufi64x2 zmm19, ",
            $into,
            ", ",
            $into,
            ", 0xb1\n",
            "vporq ",
            $into,
            ", ",
            $into,
            ", zmm19\n",
        )
    };
}

/// The single-key lookup of a window of one or two lines per key as inline assembly, for
/// planes of `$plane_words` words: the mask in `zmm16`, each line's lacking planes in `zmm17`
/// (and `zmm18`, merged with an unsigned minimum), then `CF`... `ZF` clear when some quadword
/// is zero, that is some plane is whole. `$found` gets 0 or 1.
///
/// # Safety
///
/// As for `probe_asm!`: the CPU has AVX-512F, VL and DQ, and `$group` is the first of one or
/// two (`$lines`) 64 readable bytes.
macro_rules! window_probe_asm {
    ($plane_words:tt, $x:expr, $group:expr, $found:ident, [$($line:expr),*]) => {
        core::arch::asm!(
            "xor {found:e}, {found:e}",
            line_mask_asm!($plane_words),
            $($line,)*
            "vptestnmq k1, zmm17, zmm17",
            "kortestb k1, k1",
            "setnz {found:l}",
            x = in(reg) $x,
            group = in(reg) $group,
            constants = sym crate::arch::x86::INLINE_CONSTANTS,
            found = out(reg) $found,
            out("zmm16") _,
            out("zmm17") _,
            out("zmm18") _,
            out("zmm19") _,
            out("k1") _,
            options(pure, readonly, nostack),
        )
    };
}

/// The single-key lookup of a window whose groups are one or two whole lines, with the test
/// as inline assembly, which inlines into a caller compiled without AVX-512 where the
/// kernel's entry point would cost a call per key (see the split-block kernel's
/// `contains_hash_inline`). Other shapes, and callers compiled with the kernel's features,
/// go through the entry point.
///
/// Its vector registers are `zmm16`-`zmm19` (EVEX only, outside the SSE/AVX transition state,
/// so no `vzeroupper`) and the mask register `k1`, all declared clobbered;
/// `tests/caller_registers.rs` keeps values live in `zmm16` and up across it.
#[inline(always)]
fn contains_hash_inline<const PLANE_WORDS: usize, const G: usize>(
    token: Avx512,
    layout: Fixed<PLANE_WORDS, G>,
    words: &[u32],
    hash: u64,
) -> bool {
    let lines = Fixed::<PLANE_WORDS, G>::GROUP_WORDS / 16;
    let whole_lines = Fixed::<PLANE_WORDS, G>::GROUP_WORDS.is_multiple_of(16);
    if COMPILED_WITH_FEATURES || !whole_lines || lines > 2 {
        return token.run(ContainsHash {
            layout,
            blocks: words,
            hash,
        });
    }
    let group = x86::window_group(layout, words, hash);
    let x = hash as u32;
    let found: u64;
    // SAFETY: `token` proves the CPU has AVX2, AVX-512F, AVX-512VL and AVX-512DQ, which the
    // instructions need (EVEX 256- and 512-bit operations and `vptestnmq` into `k1`: F and
    // VL; `kortestb`: DQ). The asm reads the `lines` 64-byte lines at `group`, the key's
    // group among `words` (`x86::window_group`), and 36 bytes at `INLINE_CONSTANTS` (a
    // static, addressed RIP-relative); EVEX loads need no alignment. It writes
    // `zmm16`-`zmm19` and `k1` (declared clobbered), `found` and the flags (no
    // `preserves_flags`), and touches no stack.
    unsafe {
        match (PLANE_WORDS, lines) {
            // Two 256-bit tests into `k1` and `k2`, one per plane, with no broadcast or fold.
            (8, 1) => core::arch::asm!(
                "xor {found:e}, {found:e}",
                "xor {other:e}, {other:e}",
                "vpbroadcastd ymm16, {x:e}",
                "vpmulld ymm16, ymm16, ymmword ptr [rip + {constants}]",
                "vpsrld ymm16, ymm16, 27",
                "vpbroadcastd ymm17, dword ptr [rip + {constants} + 32]",
                "vpsllvd ymm16, ymm17, ymm16",
                "vptestmd k1, ymm16, ymmword ptr [{group}]",
                "vptestmd k2, ymm16, ymmword ptr [{group} + 32]",
                // CF = 1 when a plane has every lane's bit.
                "kortestb k1, k1",
                "setc {found:l}",
                "kortestb k2, k2",
                "setc {other:l}",
                "or {found:e}, {other:e}",
                x = in(reg) x,
                group = in(reg) group,
                constants = sym crate::arch::x86::INLINE_CONSTANTS,
                found = out(reg) found,
                other = out(reg) _,
                out("zmm16") _,
                out("zmm17") _,
                out("k1") _,
                out("k2") _,
                options(pure, readonly, nostack),
            ),
            (8, _) => window_probe_asm!(
                8,
                x,
                group,
                found,
                [
                    lacking_asm!(8, "0", "zmm17"),
                    lacking_asm!(8, "64", "zmm18"),
                    "vpminuq zmm17, zmm17, zmm18"
                ]
            ),
            (_, 1) => window_probe_asm!(4, x, group, found, [lacking_asm!(4, "0", "zmm17")]),
            _ => window_probe_asm!(
                4,
                x,
                group,
                found,
                [
                    lacking_asm!(4, "0", "zmm17"),
                    lacking_asm!(4, "64", "zmm18"),
                    "vpminuq zmm17, zmm17, zmm18"
                ]
            ),
        }
        // SAFETY: `found` was zeroed, then only its low byte set to 0 or 1 by `setnz`.
        core::hint::assert_unchecked(found <= 1);
    }
    found != 0
}
