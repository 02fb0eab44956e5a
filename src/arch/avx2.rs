//! The AVX2 kernel: one 256-bit multiply, shift and variable shift build the whole mask, one
//! `vptest` answers a lookup.
//!
//! The batch loops are compiled with BMI2 as well, which every AVX2 CPU has (Intel since
//! Haswell, AMD since Excavator), so that the keys' hashes in them use `mulx` and `rorx` like a
//! `-C target-cpu=native` build. On AMD Zen 3 (issue 16's workload, 10^4 keys, default flags,
//! three alternations) batched `u64` lookups in cache went from 2.05-2.08 to 1.95-1.96 ns per
//! key; the batch build did not move.
//!
//! The `#[target_feature]` functions here are safe to call only where AVX2 (and, for the entry
//! points, BMI2) is present; the [`Avx2`] token can only be built after detecting both, and every
//! call goes through the token.

use core::arch::x86_64::{
    __m256i, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_or_si256, _mm256_set1_epi32,
    _mm256_setr_epi32, _mm256_sllv_epi32, _mm256_srli_epi32, _mm256_storeu_si256,
    _mm256_testc_si256,
};

use super::{BlockKernel, entry_points};
use crate::block::{LANES, SALT, block_index};

/// Token of the AVX2 kernel: a value of this type proves the CPU supports AVX2 and BMI2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// The token, when this CPU has AVX2 and BMI2.
    #[inline]
    pub(crate) fn new() -> Option<Avx2> {
        #[cfg(feature = "std")]
        let available =
            std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("bmi2");
        // Without std there is no run-time detection: trust the compile-time target features.
        #[cfg(not(feature = "std"))]
        let available = cfg!(all(target_feature = "avx2", target_feature = "bmi2"));
        available.then_some(Avx2(()))
    }
}

/// The mask of `x` in a ymm register. Requires AVX2 (callers hold an [`Avx2`] token, or the
/// AVX-512 kernel's, which implies AVX2).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mask_vector(x: u32) -> __m256i {
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
pub(super) fn load(block: &[u32; LANES]) -> __m256i {
    // SAFETY: `block` is a valid reference to 32 readable bytes; `loadu` needs no alignment.
    unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
}

/// Stores a block. Requires AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store(block: &mut [u32; LANES], words: __m256i) {
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

/// `contains` for the token. Requires AVX2. The AVX-512 kernel's `contains` is this one too.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn contains(block: &[u32; LANES], x: u32) -> bool {
    _mm256_testc_si256(load(block), mask_vector(x)) != 0
}

/// The constants of [`contains_hash_inline`], next to each other: the salts, then the `1` that is
/// shifted into each lane.
#[repr(C, align(32))]
struct InlineConstants {
    salt: [u32; LANES],
    one: u32,
}

static INLINE_CONSTANTS: InlineConstants = InlineConstants { salt: SALT, one: 1 };

/// The assembly of [`contains_hash_inline`] and [`insert_hash_inline`], written once: the
/// mask of `$x` into `ymm0` and the block at `$blocks + $offset` into `ymm1`, `$answer` = 1 when
/// the block already has every bit of the mask (else 0), then `$tail` (an insert's OR and
/// store) and `vzeroupper`. It declares every register the two change: `ymm0`, `ymm1` and the
/// upper halves of `ymm0`-`ymm15`.
///
/// `$answer` is a whole register, zeroed first (`xor`, which needs no execution unit) so that
/// `setc` into its low byte leaves exactly 0 or 1, and the macro tells the compiler so
/// (`assert_unchecked`). A caller's `hits += contains(&k) as u64` is then one `add` of that
/// register, where from a byte register the compiler first turned it into a bool (`cmp` and
/// `sbb`): one micro-op and one step of latency fewer per lookup. Measured on an Intel Granite
/// Rapids class Xeon (issue 16's twelfth stop), default builds before and after, alternated,
/// medians: in a dependent crate's loop of `u64` lookups (2M random queries, half hits, five
/// alternations) the AVX-512 kernel took 0.96x the time at 10^4 keys and 0.91x at 10^6 (1.82
/// against 1.89 ns, 2.25 against 2.47), and this AVX2 version 0.95x and 0.94x its ratio to
/// sbbf-rs-safe; `single_key_parts`' `Filter::contains` 0.98x at both sizes; the `workload`
/// bench level (1.02x at 10^6, within its noise).
macro_rules! probe_asm {
    ($x:expr, $blocks:expr, $offset:expr, $answer:ident, [$($tail:literal),*], $($option:ident),*) => {
        core::arch::asm!(
            "xor {answer:e}, {answer:e}",
            "vmovd xmm0, {x:e}",
            "vpbroadcastd ymm0, xmm0",
            "vpmulld ymm0, ymm0, ymmword ptr [rip + {constants}]",
            "vpsrld ymm0, ymm0, 27",
            "vpbroadcastd ymm1, dword ptr [rip + {constants} + 32]",
            "vpsllvd ymm0, ymm1, ymm0",
            "vmovdqu ymm1, ymmword ptr [{blocks} + {offset}]",
            // CF = 1 when every bit of the mask (ymm0) is set in the block (ymm1).
            "vptest ymm1, ymm0",
            "setb {answer:l}",
            $($tail,)*
            "vzeroupper",
            x = in(reg) $x,
            blocks = in(reg) $blocks,
            offset = in(reg) $offset,
            constants = sym INLINE_CONSTANTS,
            answer = out(reg) $answer,
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
            options($($option),*),
        );
        core::hint::assert_unchecked($answer <= 1);
    };
}

/// The single-key lookup of `hash` in `blocks` ([`block_index`], then [`contains`]) with the
/// probe as inline assembly: a `#[target_feature]` function cannot inline into a caller compiled
/// without AVX2, so the lookup would cost a call, and on Zen 4 the call and return cost as much
/// as the probe itself. Assembly inlines anywhere; the token proves the CPU can run it. Same
/// instructions as [`contains`], then `vzeroupper`, so that a caller compiled without AVX pays
/// no SSE/AVX transition penalty.
///
/// The block is loaded from the slice's start plus the block's byte offset, and the index is
/// not bounds-checked: [`block_index`] maps into `0..blocks.len()` whenever `blocks` is not
/// empty, which is checked instead (a condition the compiler hoists out of a caller's loop,
/// unlike a bounds check), as in `avx512::contains_hash_inline`.
///
/// The constants are addressed RIP-relative through a `sym` operand, not through a pointer in
/// a register: a pointer to a static of another crate is loaded from the GOT, and callers'
/// loops reloaded it on every lookup (seen in a crate depending on splitbloom, notes of issue
/// 16). With `sym` the linker resolves the address; no register and no load are spent on it.
///
/// `vzeroupper` zeroes bits 128 and up of every register `ymm0`-`ymm15` (and `zmm0`-`zmm15`),
/// so the block declares all sixteen clobbered: a caller compiled with AVX (`-C
/// target-cpu=native`, `x86-64-v3`, or code inside a `#[target_feature(enable = "avx2")]`
/// function) may keep 256- or 512-bit values in them across this lookup, and the compiler must
/// save those or keep them elsewhere (`zmm16`-`zmm31`, which `vzeroupper` leaves alone). A clobber
/// of `xmmN` covers the whole register (LLVM tracks `xmmN`, `ymmN` and `zmmN` as one register).
/// The mask and the block therefore live in fixed registers, `ymm0` and `ymm1`.
/// `tests/caller_registers.rs` keeps ymm and zmm values live across every entry point.
///
/// A caller compiled with AVX2 (`-C target-cpu=native`, `x86-64-v3`) needs neither the
/// assembly nor its `vzeroupper`: there [`contains`] inlines, and the compiler keeps the salts
/// and the `1`s in registers across a loop of lookups instead of loading them every time.
#[inline(always)]
pub(super) fn contains_hash_inline(token: Avx2, blocks: &[[u32; LANES]], hash: u64) -> bool {
    let index = block_index(hash, blocks.len());
    if cfg!(target_feature = "avx2") {
        return token.contains(&blocks[index], hash as u32);
    }
    assert!(!blocks.is_empty(), "a filter has at least one block");
    let found: u64;
    // SAFETY: `token` proves the CPU has AVX2, which every instruction here needs. The asm
    // reads the 32 bytes of block `index` of `blocks` (`index < blocks.len()`: `blocks` is not
    // empty, and `block_index` then maps into `0..blocks.len()`, its result being a product of
    // a value below 2^32 and the length, shifted right by 32) and 36 bytes at
    // `INLINE_CONSTANTS` (a static, addressed RIP-relative); VEX loads need no alignment. It
    // writes `ymm0`, `ymm1` and the upper halves of `ymm0`-`ymm15` (`vzeroupper`), all
    // declared clobbered below, `found` and the flags (not preserved: no `preserves_flags`),
    // and touches no stack. `found` ends 0 or 1, as `assert_unchecked` states: it is zeroed,
    // then only its low byte is written, by `setb`.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_ptr(),
            index * size_of::<[u32; LANES]>(),
            found,
            [],
            pure,
            readonly,
            nostack
        );
    }
    found != 0
}

/// The single-key insert of `hash` into `blocks` ([`block_index`], then [`insert`]) as inline
/// assembly, for the reason and with the registers and `vzeroupper` of
/// [`contains_hash_inline`]: a call into the entry point cost a loop of `u64` inserts more than
/// twice the time of a `-C target-cpu=native` build, where [`insert`] inlines (see
/// `avx512::insert_hash_inline`). Returns `true` when every bit of the key was already set, as
/// [`insert`] does.
///
/// A caller compiled with AVX2 needs no assembly: there [`insert`] inlines.
#[inline(always)]
pub(super) fn insert_hash_inline(token: Avx2, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
    let index = block_index(hash, blocks.len());
    if cfg!(target_feature = "avx2") {
        return token.insert(&mut blocks[index], hash as u32);
    }
    assert!(!blocks.is_empty(), "a filter has at least one block");
    let present: u64;
    // SAFETY: `token` proves the CPU has AVX2, which every instruction here needs. The asm
    // reads and then writes the 32 bytes of block `index` of `blocks`, which the exclusive
    // borrow lets it write (`index < blocks.len()`: `blocks` is not empty, and `block_index`
    // then maps into `0..blocks.len()`, its result being a product of a value below 2^32 and
    // the length, shifted right by 32), and reads 36 bytes at `INLINE_CONSTANTS` (a static,
    // addressed RIP-relative); VEX loads and stores need no alignment. It writes `ymm0`,
    // `ymm1` and the upper halves of `ymm0`-`ymm15` (`vzeroupper`), all declared clobbered
    // below, `present` and the flags (not preserved: no `preserves_flags`), and touches no
    // stack. `present` ends 0 or 1, as `assert_unchecked` states: it is zeroed, then only its
    // low byte is written, by `setb`.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_mut_ptr(),
            index * size_of::<[u32; LANES]>(),
            present,
            [
                "vpor ymm1, ymm1, ymm0",
                "vmovdqu ymmword ptr [{blocks} + {offset}], ymm1"
            ],
            nostack
        );
    }
    present != 0
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
// AVX2 and BMI2 and is compiled with them (see `entry_points!`).
entry_points!(Avx2, Avx2(()), #[inline], #[target_feature(enable = "avx2,bmi2")]);
