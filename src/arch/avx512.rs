//! The AVX-512 kernel: the AVX2 kernel's 256-bit arithmetic in EVEX encoding (AVX-512F,
//! AVX-512VL and AVX-512DQ), with the single-key assembly's test done by `vptestmd` into a mask
//! register. No 512-bit operation is used, so CPUs that split zmm operations in two (AMD Zen 4)
//! run it at full width too.
//!
//! What it buys is the single-key lookup: EVEX instructions reach the registers `ymm16`-`ymm31`,
//! which are outside the SSE/AVX transition state, so the inline assembly of
//! [`contains_hash_inline`] needs no `vzeroupper` for callers compiled without AVX. On an Intel Xeon
//! (Emerald Rapids) `vzeroupper` in every lookup kept a loop of lookups from overlapping its
//! cache misses: the same probe took 0.6-0.7x the time out of L2 without it, and 0.85-0.9x in
//! L1, in a micro-benchmark (see the README's AVX-512 section). In issue 16's workload, timed on
//! warm filters, the two kernels' single-key lookups took the same time out of cache and
//! AVX-512 kept its lead in cache (0.85x at 10^4 keys). The batch loops are the AVX2 ones compiled with
//! AVX-512 enabled, and with BMI2, which every AVX-512 CPU has, so that the keys' hashes in
//! those loops use `mulx` (the hasher's folded multiply) like a `-C target-cpu=native` build.
//!
//! The `#[target_feature]` functions here are safe to call only where AVX2, AVX-512F,
//! AVX-512VL and AVX-512DQ are present; the [`Avx512`] token can only be built after detecting them, and
//! every call goes through the token.

use core::arch::x86_64::{_mm256_or_si256, _mm256_test_epi32_mask};

use super::avx2::{self, load, mask_vector, store};
use super::{BlockKernel, entry_points};
use crate::block::{LANES, SALT, block_index};

/// Token of the AVX-512 kernel: a value of this type proves the CPU supports AVX2, BMI2, AVX-512F,
/// AVX-512VL and AVX-512DQ (every AVX-512 CPU with VL has DQ: Intel since Skylake-SP, AMD
/// since Zen 4).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

impl Avx512 {
    /// The token, when this CPU has AVX2, BMI2, AVX-512F, AVX-512VL and AVX-512DQ.
    #[inline]
    pub(crate) fn new() -> Option<Avx512> {
        #[cfg(feature = "std")]
        let available = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("bmi2");
        // Without std there is no run-time detection: trust the compile-time target features.
        #[cfg(not(feature = "std"))]
        let available = COMPILED_WITH_FEATURES;
        available.then_some(Avx512(()))
    }
}

/// Whether this crate is compiled with every feature of the kernel (`-C target-cpu=native` on
/// an AVX-512 CPU, say): then the primitives inline anywhere and need no assembly.
const COMPILED_WITH_FEATURES: bool = cfg!(all(
    target_feature = "avx2",
    target_feature = "bmi2",
    target_feature = "avx512f",
    target_feature = "avx512vl",
    target_feature = "avx512dq"
));

/// `mask` for the token. Requires AVX2, BMI2, AVX-512F, AVX-512VL and AVX-512DQ.
#[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq")]
#[inline]
fn mask(x: u32) -> [u32; LANES] {
    let mut words = [0; LANES];
    store(&mut words, mask_vector(x));
    words
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

/// `contains` for the token: the AVX2 kernel's `vptest` (VEX-encoded; it has no EVEX form, so
/// the compiler keeps its operands in `ymm0`-`ymm15`). Requires AVX2, BMI2, AVX-512F, AVX-512VL
/// and AVX-512DQ.
///
/// Where this inlines (the batch loops, and every lookup of a caller compiled with the kernel's
/// features) no `vzeroupper` is at stake, and `vptestmd` into a mask register, which the
/// assembly of [`contains_hash_inline`] needs for `ymm16`, only costs: on AMD Zen 4 in a
/// `-C target-cpu=native` build, single-key hits took 1.10x (10^4 keys) and 1.12x (10^6) the
/// AVX2 kernel's time with it, medians of six processes, and 1.01x and 0.98x with `vptest`
/// (three), batches level (issue 16's tenth stop, README "Per CPU").
#[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq")]
#[inline]
fn contains(block: &[u32; LANES], x: u32) -> bool {
    avx2::contains(block, x)
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
/// mask of `$x` into `ymm16`, then `$body` (which sets `k1` lane i when the block at `$blocks +
/// $offset` has lane i's bit, and for an insert stores the block with the mask ORed in), then
/// `$answer` = 1 when all eight lanes of `k1` are set, else 0. It declares every register the
/// two change: `zmm16`, `zmm17` and `k1` (a clobber of `zmm16` covers `xmm16`/`ymm16`).
///
/// `$answer` is a whole register, zeroed first (`xor`, which needs no execution unit) so that
/// `setc` into its low byte leaves exactly 0 or 1, and the macro tells the compiler so
/// (`assert_unchecked`). A caller's `hits += contains(&k) as u64` is then one `add` of that
/// register; from a byte register the compiler had to turn it into a bool first (`cmp` and
/// `sbb`). See `avx2::probe_asm` for the measurements.
macro_rules! probe_asm {
    ($x:expr, $blocks:expr, $offset:expr, $answer:ident, [$($body:literal),*], $($option:ident),*) => {
        core::arch::asm!(
            "xor {answer:e}, {answer:e}",
            "vpbroadcastd ymm16, {x:e}",
            "vpmulld ymm16, ymm16, ymmword ptr [rip + {constants}]",
            "vpsrld ymm16, ymm16, 27",
            "vpbroadcastd ymm17, dword ptr [rip + {constants} + 32]",
            "vpsllvd ymm16, ymm17, ymm16",
            $($body,)*
            // CF = 1 when the low eight bits of k1 (one per lane) are all ones.
            "kortestb k1, k1",
            "setc {answer:l}",
            x = in(reg) $x,
            blocks = in(reg) $blocks,
            offset = in(reg) $offset,
            constants = sym INLINE_CONSTANTS,
            answer = out(reg) $answer,
            out("zmm16") _,
            out("zmm17") _,
            out("k1") _,
            options($($option),*),
        );
        core::hint::assert_unchecked($answer <= 1);
    };
}

/// The single-key lookup of `hash` in `blocks` ([`block_index`], then [`contains`]) with the
/// probe as inline assembly (a `#[target_feature]` function would not inline into a caller
/// compiled without AVX-512, and the call would cost as much as the probe; see
/// `avx2::contains_hash_inline`).
///
/// Every vector register it uses is one of `ymm16`, `ymm17` (EVEX only) and the mask register
/// `k1`. Those are outside the state that makes legacy SSE code pay a transition penalty after
/// AVX code, so unlike the AVX2 version it needs no `vzeroupper`, which also means it clobbers
/// nothing a caller keeps in `ymm0`-`ymm15`. The three registers are declared clobbered (a clobber
/// of `zmm16` covers `xmm16`/`ymm16`); `tests/caller_registers.rs` keeps values live in `zmm16`
/// and up across every entry point. The constants are addressed RIP-relative through `sym`.
///
/// The block is the memory operand of `vptestmd`, addressed as the slice's start plus the
/// block's byte offset, and the index is not bounds-checked: [`block_index`] maps into
/// `0..blocks.len()` whenever `blocks` is not empty, which is checked instead (a condition the
/// compiler hoists out of a caller's loop, unlike a bounds check). Measured on an Intel Xeon in
/// the workload bench, the loop of `u64` lookups went from 28 to 25 instructions per key (the bounds check and an `add` fewer).
///
/// A caller compiled with these features needs no assembly: there [`contains`] inlines.
#[inline(always)]
pub(super) fn contains_hash_inline(token: Avx512, blocks: &[[u32; LANES]], hash: u64) -> bool {
    let index = block_index(hash, blocks.len());
    if COMPILED_WITH_FEATURES {
        return token.contains(&blocks[index], hash as u32);
    }
    assert!(!blocks.is_empty(), "a filter has at least one block");
    let found: u64;
    // SAFETY: `token` proves the CPU has AVX2, AVX-512F, AVX-512VL and AVX-512DQ, which the
    // instructions here need (EVEX encodings of 256-bit operations and `vptestmd` into `k1`: F
    // and VL; `kortestb`: DQ). The asm reads the 32 bytes of block `index` of `blocks` (`index
    // < blocks.len()`: `blocks` is not empty, and `block_index` then maps into
    // `0..blocks.len()`, its result being a product of a value below 2^32 and the length,
    // shifted right by 32) and 36 bytes at `INLINE_CONSTANTS` (a static, addressed
    // RIP-relative); EVEX loads need no alignment. It writes `zmm16`, `zmm17` and `k1`,
    // declared clobbered, `found` and the flags (not preserved: no `preserves_flags`), and
    // touches no stack. `found` ends 0 or 1, as `assert_unchecked` states: it is zeroed, then
    // only its low byte is written, by `setc`.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_ptr(),
            index * size_of::<[u32; LANES]>(),
            found,
            // k1 lane i = 1 when the block's lane i has the mask's one bit.
            ["vptestmd k1, ymm16, ymmword ptr [{blocks} + {offset}]"],
            pure,
            readonly,
            nostack
        );
    }
    found != 0
}

/// The single-key insert of `hash` into `blocks` ([`block_index`], then [`insert`]) as inline
/// assembly, for the reason and with the registers of [`contains_hash_inline`]: a call into the
/// entry point cost a loop of `u64` inserts 1.45-2.5x the time of a `-C target-cpu=native`
/// build, where [`insert`] inlines (issue 16's workload, AMD Zen 5, 10^4 keys). Returns `true`
/// when every bit of the key was already set, as [`insert`] does.
///
/// A caller compiled with these features needs no assembly: there [`insert`] inlines.
#[inline(always)]
pub(super) fn insert_hash_inline(token: Avx512, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
    let index = block_index(hash, blocks.len());
    if COMPILED_WITH_FEATURES {
        return token.insert(&mut blocks[index], hash as u32);
    }
    assert!(!blocks.is_empty(), "a filter has at least one block");
    let present: u64;
    // SAFETY: `token` proves the CPU has AVX2, AVX-512F, AVX-512VL and AVX-512DQ, which the
    // instructions here need (EVEX encodings of 256-bit operations, `vmovdqu32` and `vptestmd`
    // into `k1`: F and VL; `kortestb`: DQ). The asm reads and then writes the 32 bytes of block
    // `index` of `blocks`, which the exclusive borrow lets it write (`index < blocks.len()`:
    // `blocks` is not empty, and `block_index` then maps into `0..blocks.len()`, its result
    // being a product of a value below 2^32 and the length, shifted right by 32), and reads 36
    // bytes at `INLINE_CONSTANTS` (a static, addressed RIP-relative); EVEX loads and stores
    // need no alignment. It writes `zmm16`, `zmm17` and `k1`, declared clobbered, `present`
    // and the flags (not preserved: no `preserves_flags`), and touches no stack. `present`
    // ends 0 or 1, as `assert_unchecked` states: it is zeroed, then only its low byte is
    // written, by `setc`.
    unsafe {
        probe_asm!(
            hash as u32,
            blocks.as_mut_ptr(),
            index * size_of::<[u32; LANES]>(),
            present,
            // The old block into ymm17, tested (k1 lane i = 1 when lane i already has the
            // mask's one bit), then ORed with the mask and stored.
            [
                "vmovdqu32 ymm17, ymmword ptr [{blocks} + {offset}]",
                "vptestmd k1, ymm16, ymm17",
                "vpord ymm17, ymm17, ymm16",
                "vmovdqu32 ymmword ptr [{blocks} + {offset}], ymm17"
            ],
            nostack
        );
    }
    present != 0
}

impl BlockKernel for Avx512 {
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
}

// The entry points make the token without detection: each is an `unsafe fn` that requires
// the five features and is compiled with them (see `entry_points!`).
entry_points!(Avx512, Avx512(()), #[inline], #[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq")]);
