//! The AVX2 kernel's window primitives: a key's mask built once, then its generations' planes
//! tested two at a time: two 128-bit planes in a ymm (one compare and byte mask for both), or
//! one 256-bit plane with `vptest`. Four generations of 128-bit planes, one 64-byte line, are
//! two vector tests.

use core::arch::x86_64::{
    __m128i, __m256i, _mm_andnot_si128, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128,
    _mm_testz_si128, _mm256_andnot_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi64,
    _mm256_or_si256, _mm256_packus_epi32, _mm256_permute4x64_epi64, _mm256_set1_epi32,
    _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_sllv_epi32, _mm256_srli_epi32,
    _mm256_testz_si256,
};

use super::super::primitives::{SplitBlockKernel, WindowKernel};
use super::super::x86::{self, load};
use super::{Avx2, COMPILED_WITH_FEATURES};
use crate::layout::split_block::LANES;
use crate::layout::window::{Generations, Plane};

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
        Plane::Bits256 => x86::contains_any_256(group, x),
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
                // SAFETY: `self` proves AVX2 is available.
                unsafe { insert128(block, x) };
            }
        }
    }
}

/// The assembly that builds `{x}`'s split-block mask in `ymm0` from the salts and the `1` at
/// `{constants}`, the salted products shifted right by `$shift` (27, or 28 for a 128-bit
/// plane's lanes before they are packed), using `ymm1`.
macro_rules! salted_mask_asm {
    ($shift:literal) => {
        concat!(
            "vmovd xmm0, {x:e}\n",
            "vpbroadcastd ymm0, xmm0\n",
            "vpmulld ymm0, ymm0, ymmword ptr [rip + {constants}]\n",
            "vpsrld ymm0, ymm0, ",
            $shift,
            "\n",
            "vpbroadcastd ymm1, dword ptr [rip + {constants} + 32]\n",
            "vpsllvd ymm0, ymm1, ymm0\n",
        )
    };
}

/// The assembly of one 256-bit plane's test at `{group} + $offset` against the mask in
/// `ymm0`: `{found}` ORed with 1 when the plane has every lane's bit (`vptest`'s carry), using
/// `ymm1` and `{other}`, whose upper bits are zero.
macro_rules! plane_256_asm {
    ($offset:literal) => {
        concat!(
            "vmovdqu ymm1, ymmword ptr [{group} + ",
            $offset,
            "]\n",
            "vptest ymm1, ymm0\n",
            "setc {other:l}\n",
            "or {found:e}, {other:e}\n",
        )
    };
}

/// The assembly of two 128-bit planes' test at `{group} + $offset` against the plane mask in
/// both halves of `ymm0`: each plane's missing bits ORed across its quadwords, compared with
/// zero (`ymm3`) and ORed into `ymm4`, whose quadwords are then all ones where a plane is
/// whole; using `ymm1` and `ymm2`.
macro_rules! planes_128_asm {
    ($offset:literal) => {
        concat!(
            "vmovdqu ymm1, ymmword ptr [{group} + ",
            $offset,
            "]\n",
            "vpandn ymm1, ymm1, ymm0\n",
            "vpshufd ymm2, ymm1, 0x4e\n",
            "vpor ymm1, ymm1, ymm2\n",
            "vpcmpeqq ymm1, ymm1, ymm3\n",
            "vpor ymm4, ymm4, ymm1\n",
        )
    };
}

/// The single-key assembly of a window shape, for `x86::window_contains_hash_inline`: `$test` leaves
/// `{found}` 0 or 1 (it starts zeroed, as does `{other}`), then `vzeroupper`. Every register
/// `ymm0`-`ymm15` is declared clobbered, for `vzeroupper` (see the split-block kernel's
/// `contains_hash_inline`).
///
/// # Safety
///
/// As for `probe_asm!`: the CPU has AVX2, and `$test` reads only the key's group at `$group`.
macro_rules! window_probe_asm {
    ($x:expr, $group:expr, $found:ident, [$($test:expr),* $(,)?]) => {
        core::arch::asm!(
            "xor {found:e}, {found:e}",
            "xor {other:e}, {other:e}",
            $($test,)*
            "vzeroupper",
            x = in(reg) $x,
            group = in(reg) $group,
            constants = sym crate::arch::x86::INLINE_CONSTANTS,
            found = out(reg) $found,
            other = out(reg) _,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _,
            out("xmm5") _, out("xmm6") _, out("xmm7") _, out("xmm8") _, out("xmm9") _,
            out("xmm10") _, out("xmm11") _, out("xmm12") _, out("xmm13") _, out("xmm14") _,
            out("xmm15") _,
            options(pure, readonly, nostack),
        )
    };
}

/// The single-key test of a group of one or two whole lines as inline assembly, for
/// `x86::window_contains_hash_inline`. It ends with `vzeroupper` and declares `ymm0`-`ymm15`
/// clobbered (see the split-block kernel's `contains_hash_inline`).
impl x86::WindowProbeAsm for Avx2 {
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
        // SAFETY: `token` proves the CPU has AVX2, which every instruction here needs. The asm
        // reads the `lines` 64-byte lines at `group`, the key's group among `words`
        // (`x86::window_group`), and 36 bytes at `INLINE_CONSTANTS` (a static, addressed
        // RIP-relative); VEX loads need no alignment. It writes `ymm0`-`ymm4` and the upper halves
        // of `ymm0`-`ymm15` (`vzeroupper`), all declared clobbered, `found`, `other` and the flags
        // (no `preserves_flags`), and touches no stack.
        unsafe {
            // The 128-bit plane mask in both halves of `ymm0`, and the registers the planes'
            // tests start from: `ymm3` zero, `ymm4` no whole plane yet.
            macro_rules! mask_128_asm {
                () => {
                    concat!(
                        salted_mask_asm!("28"),
                        "vpackusdw ymm0, ymm0, ymm0\n",
                        "vpermq ymm0, ymm0, 0x88\n",
                        "vpxor xmm3, xmm3, xmm3\n",
                        "vpxor xmm4, xmm4, xmm4\n",
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
                        planes_128_asm!("0"),
                        planes_128_asm!("32"),
                        // ZF = 0 when some plane is whole.
                        "vptest ymm4, ymm4\n",
                        "setnz {found:l}\n",
                    ]
                ),
                _ => window_probe_asm!(
                    x,
                    group,
                    found,
                    [
                        mask_128_asm!(),
                        planes_128_asm!("0"),
                        planes_128_asm!("32"),
                        planes_128_asm!("64"),
                        planes_128_asm!("96"),
                        "vptest ymm4, ymm4\n",
                        "setnz {found:l}\n",
                    ]
                ),
            }
            // SAFETY: `found` was zeroed, then set to 0 or 1 (`setc` and `or`, or `setnz`).
            core::hint::assert_unchecked(found <= 1);
        }
        found != 0
    }
}
