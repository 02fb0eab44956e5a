//! What the AVX2 and AVX-512 kernels share, written once: the salted multiply every layout's
//! mask starts from ([`salted`]), the split-block mask, load, store and `vptest` intrinsics,
//! the constants their inline assembly reads (the split-block and the wide layouts'), the
//! assembly's frame ([`probe_asm!`]), the block offsets it addresses, and the quotient
//! layout's bucket ranges with BMI2's `pdep` ([`bucket_range`]).
//!
//! Both kernels compute the same 256-bit arithmetic; they differ in encoding (VEX or EVEX) and
//! in the registers their assembly may change. Keeping the common part here means neither
//! kernel file reaches into the other.
//!
//! The functions here carry `#[target_feature(enable = "avx2")]`: calling them is safe only
//! inside a function compiled with AVX2, which every caller is (the AVX-512 kernel's features
//! include AVX2), and the kernels' tokens prove the CPU has it.

use core::arch::x86_64::{
    __m256i, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_set1_epi32, _mm256_setr_epi32,
    _mm256_sllv_epi32, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_testc_si256,
};

use core::arch::x86_64::_pdep_u64;
use core::hint::select_unpredictable;

use super::primitives::ContainsHash;
use super::primitives::WindowKernel;
use crate::layout::quotient::{BucketEnds, MetadataBits, Width};
use crate::layout::split_block::{BLOCK_BYTES, LANES, SALT, block_index};
use crate::layout::wide::{self, GROUP_BLOCKS, WORDS, Wide};
use crate::layout::window::{Fixed, Generations, Shape};

/// `x · SALT[i]` in every 32-bit lane of a ymm register: the one multiply every layout's mask
/// starts from (the split-block lanes keep its top 5 bits, the wide words its top 6).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn salted(x: u32) -> __m256i {
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
    _mm256_mullo_epi32(_mm256_set1_epi32(x as i32), salt)
}

/// The split-block mask of `x` in a ymm register: the salted multiply, a shift and a variable
/// shift of `1`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mask_vector(x: u32) -> __m256i {
    _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32::<27>(salted(x)))
}

/// Loads a block.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load(block: &[u32; LANES]) -> __m256i {
    // SAFETY: `block` is a valid reference to 32 readable bytes; `loadu` needs no alignment.
    unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }
}

/// Stores a block.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store(block: &mut [u32; LANES], words: __m256i) {
    // SAFETY: `block` is a valid exclusive reference to 32 writable bytes; `storeu` needs no
    // alignment.
    unsafe { _mm256_storeu_si256(block.as_mut_ptr().cast(), words) }
}

/// The mask of `x` as words.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mask(x: u32) -> [u32; LANES] {
    let mut words = [0; LANES];
    store(&mut words, mask_vector(x));
    words
}

/// Whether every bit of the mask of `x` is set in `block`: one `vptest`, whose carry flag is
/// exactly that. Both kernels use it, since `vptest` has no EVEX form to gain from.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn contains(block: &[u32; LANES], x: u32) -> bool {
    _mm256_testc_si256(load(block), mask_vector(x)) != 0
}

/// Whether any 256-bit plane of `group` (whole planes of eight words, a window's block index)
/// holds every bit of `x`'s mask: the mask built once, then one `vptest` per plane. Both
/// kernels use it, as they use [`contains`].
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn contains_any_256(group: &[u32], x: u32) -> bool {
    let mask = mask_vector(x);
    let (planes, _) = group.as_chunks::<LANES>();
    planes.iter().fold(false, |found, plane| {
        found | (_mm256_testc_si256(load(plane), mask) != 0)
    })
}

/// The constants the inline assembly reads, next to each other so that one RIP-relative
/// address reaches both: the salts, then the `1` that is shifted into each lane.
#[repr(C, align(32))]
pub(super) struct InlineConstants {
    salt: [u32; LANES],
    one: u32,
}

/// The one copy of [`InlineConstants`]. The assembly addresses it through a `sym` operand, so
/// the linker resolves its address: a pointer to another crate's static would be loaded from
/// the GOT in every caller's loop.
pub(super) static INLINE_CONSTANTS: InlineConstants = InlineConstants { salt: SALT, one: 1 };

/// The constants the wide kernels' single-key assembly reads (`wide_avx2.rs`,
/// `wide_avx512.rs`), next to each other so that one RIP-relative address reaches both: the
/// salts, then the 64-bit `1` shifted into each word.
#[repr(C, align(64))]
pub(super) struct WideInlineConstants {
    salt: [u32; LANES],
    one: u64,
}

/// The one copy of [`WideInlineConstants`], addressed through a `sym` operand as
/// [`INLINE_CONSTANTS`] is.
pub(super) static WIDE_INLINE_CONSTANTS: WideInlineConstants =
    WideInlineConstants { salt: SALT, one: 1 };

/// The first block of `hash` among `blocks` and its in-block hash, and with two `probes` the
/// second's, as pointers for the wide kernels' single-key assembly to address: each points at
/// one of `blocks`, with no bounds check per key.
///
/// Panics when `blocks` is empty, or with two probes not whole groups of
/// [`GROUP_BLOCKS`]. Both tests are loop-invariant, so a
/// caller's loop makes them once. With them, the first block is one of `blocks`
/// (`block_index` maps into `0..len` for a non-zero `len`), and so is the second, in the first
/// one's group of 64, which `blocks` holds whole.
#[inline(always)]
pub(super) fn wide_probes(
    blocks: &[[u64; WORDS]],
    layout: Wide,
    hash: u64,
) -> ((*const u64, u32), Option<(*const u64, u32)>) {
    let probes = layout.probes();
    assert!(
        !blocks.is_empty() && (probes != 2 || blocks.len().is_multiple_of(GROUP_BLOCKS)),
        "a wide filter has at least one block, and whole groups with two probes"
    );
    let at = |index: usize| blocks.as_ptr().wrapping_add(index).cast::<u64>();
    let (first, x0) = wide::first_probe(hash, blocks.len());
    let second = (probes == 2).then(|| {
        let (second, x1) = wide::second_probe(hash, first);
        (at(second), x1)
    });
    ((at(first), x0), second)
}

/// The byte offset of the block that `hash` selects in a slice of `num_blocks` blocks, for the
/// assembly to address as `[blocks + offset]`. Panics when `num_blocks` is 0.
///
/// The assertion replaces a bounds check: [`block_index`] maps into `0..num_blocks` whenever
/// `num_blocks` is not zero (its result is a value below 2^32 times `num_blocks`, shifted right
/// by 32), and a caller's loop can hoist a test of the length, not a bounds check of the index.
#[inline(always)]
pub(super) fn block_offset(hash: u64, num_blocks: usize) -> usize {
    assert!(num_blocks != 0, "a filter has at least one block");
    block_index(hash, num_blocks) * BLOCK_BYTES
}

/// The single-key probe as inline assembly, written once for both kernels: it zeroes
/// `$answer`, runs `$test` (which builds the mask of `{x}`, tests the block at `{blocks} +
/// {offset}` and leaves the carry flag set when the block has every bit of the mask), writes
/// the carry into the low byte of `$answer`, then runs `$after` (for an insert, the OR and
/// store; for AVX2, `vzeroupper`). The kernel names every other register its instructions
/// change in `[$clobbers]`, and the options (`pure`, `readonly`, `nostack` for a lookup).
///
/// `$answer` is a whole register, zeroed first (`xor`, which needs no execution unit), so that
/// `setc` into its low byte leaves exactly 0 or 1, and the macro tells the compiler so
/// (`assert_unchecked`): a caller's `hits += contains(&key) as u64` is then one `add`, where a
/// byte register would first be turned into a `bool` (BENCHMARKS.md, "Workload").
///
/// # Safety
///
/// Expanded inside an `unsafe` block whose caller guarantees that the CPU has every feature
/// the instructions use, that `$blocks + $offset` is 32 readable bytes (writable for an insert,
/// whose `$blocks` comes from an exclusive borrow), and that `$clobbers` lists every register
/// the instructions write besides `$answer` and the flags.
macro_rules! probe_asm {
    (
        $x:expr, $blocks:expr, $offset:expr, $answer:ident,
        [$($test:expr),* $(,)?], [$($after:expr),* $(,)?], [$($clobber:tt),* $(,)?],
        $($option:ident),*
    ) => {
        core::arch::asm!(
            "xor {answer:e}, {answer:e}",
            $($test,)*
            "setc {answer:l}",
            $($after,)*
            x = in(reg) $x,
            blocks = in(reg) $blocks,
            offset = in(reg) $offset,
            constants = sym $crate::arch::x86::INLINE_CONSTANTS,
            answer = out(reg) $answer,
            $(out($clobber) _,)*
            options($($option),*),
        );
        core::hint::assert_unchecked($answer <= 1);
    };
}
pub(super) use probe_asm;

/// The one-hot words of the slots `start..end` of bucket `bucket`, with `pdep` (see
/// [`end_slot`]); `start` is the previous bucket's end, or slot 0.
#[target_feature(enable = "bmi2,popcnt")]
#[inline]
pub(super) fn bucket_range<W: Width>(metadata: W::Metadata, bucket: u32) -> BucketEnds {
    let ends = metadata.ends();
    let previous = end_slot(ends, bucket.wrapping_sub(1));
    (
        select_unpredictable(bucket == 0, 1, previous),
        end_slot(ends, bucket),
    )
}

/// The one-hot word of the slot where bucket `k`'s tags end: bucket ends are the ones of
/// `ends` (the flipped metadata), `pdep` deposits a single bit at the `k`-th one, and the slot
/// is that position minus the `k` ends before it, which a rotation by `k` gives wherever the
/// bit landed (in a 128-bit word, the low or the high half: the slot is below 64 either way).
/// Branch-free (`select_unpredictable`): which half holds a bucket's end is close to a coin
/// toss. On valid metadata exactly one half holds it; on any other, the word is wrong but the
/// arithmetic stays defined.
#[target_feature(enable = "bmi2,popcnt")]
#[inline]
fn end_slot<M: MetadataBits>(ends: M, k: u32) -> u64 {
    let low = ends.low();
    let bit = |index: u32| select_unpredictable(index < 64, 1u64 << (index & 63), 0);
    if M::BITS == 64 {
        return _pdep_u64(bit(k), low).rotate_right(k);
    }
    let in_low = _pdep_u64(bit(k), low);
    let in_high = _pdep_u64(bit(k.wrapping_sub(low.count_ones())), ends.high());
    (in_low | in_high).rotate_right(k)
}

/// The first word of the key of `hash`'s group among `words`, a window of shape `layout`, for
/// the window kernels' single-key assembly to address: a group of `words`, with no bounds check
/// per key.
///
/// Panics unless `words` holds `layout.num_blocks` groups, at least one: a loop-invariant test
/// that a caller's loop makes once. With it, the key's block index is below `num_blocks`
/// (`block_index` maps into `0..n` for every `n` from 1, its product wrapping in a release
/// build above 2^32, where the index is below 2^32), so its group is whole inside `words`.
/// Lookups need nothing more of the shape (`Fixed::accepts` also checks the slot inserts
/// write).
#[inline(always)]
fn window_group<const PLANE_WORDS: usize, const G: usize>(
    layout: Fixed<PLANE_WORDS, G>,
    words: &[u32],
    hash: u64,
) -> *const u32 {
    let groups = words.len() / Fixed::<PLANE_WORDS, G>::GROUP_WORDS;
    assert!(
        layout.num_blocks.wrapping_sub(1) < groups,
        "a window has at least one block index, and a group for each"
    );
    let index = block_index(hash, layout.num_blocks);
    words
        .as_ptr()
        .wrapping_add(index * Fixed::<PLANE_WORDS, G>::GROUP_WORDS)
}

/// What the AVX2 and AVX-512 kernels' single-key window assembly needs of each kernel: its test
/// of one key's group; [`window_contains_hash_inline`] does the rest once for both.
pub(super) trait WindowProbeAsm: WindowKernel {
    /// Whether the crate is compiled with the kernel's features: then its entry point inlines
    /// anywhere and needs no assembly.
    const COMPILED_WITH_FEATURES: bool;

    /// Whether some plane of the group at `group`, `lines` 64-byte lines (1 or 2) of planes of
    /// `plane_words` words (4 or 8), holds every bit of `x`'s mask, as inline assembly.
    ///
    /// # Safety
    ///
    /// The CPU has the kernel's features, and `group` is `lines` readable 64-byte lines.
    unsafe fn probe_lines(
        self,
        x: u32,
        group: *const u32,
        plane_words: usize,
        lines: usize,
    ) -> bool;
}

/// The single-key lookup of window `layout` where its groups are one or two whole lines: the
/// kernel's assembly ([`WindowProbeAsm`]), which inlines into a caller compiled without the
/// kernel's features where the entry point would cost a call per key; `None` for the other
/// shapes.
#[inline(always)]
pub(super) fn window_contains_hash_inline<K: WindowProbeAsm>(
    token: K,
    layout: Generations,
    words: &[u32],
    hash: u64,
) -> Option<bool> {
    match layout.shape() {
        Shape::Two256(layout) => Some(window_probe(token, layout, words, hash)),
        Shape::Four128(layout) => Some(window_probe(token, layout, words, hash)),
        Shape::Four256(layout) => Some(window_probe(token, layout, words, hash)),
        Shape::Eight128(layout) => Some(window_probe(token, layout, words, hash)),
        Shape::Three128(_) | Shape::Any(_) => None,
    }
}

/// [`window_contains_hash_inline`] for one shape of one or two whole lines.
#[inline(always)]
fn window_probe<K: WindowProbeAsm, const PLANE_WORDS: usize, const G: usize>(
    token: K,
    layout: Fixed<PLANE_WORDS, G>,
    words: &[u32],
    hash: u64,
) -> bool {
    let lines = const {
        let words = Fixed::<PLANE_WORDS, G>::GROUP_WORDS;
        assert!(
            words.is_multiple_of(16) && words <= 32,
            "one or two whole lines"
        );
        words / 16
    };
    if K::COMPILED_WITH_FEATURES {
        return token.run(ContainsHash {
            layout,
            blocks: words,
            hash,
        });
    }
    let group = window_group(layout, words, hash);
    // SAFETY: `token` proves the CPU has the kernel's features, and `group` is the key's group
    // among `words` (`window_group`), `lines` whole lines.
    unsafe { token.probe_lines(hash as u32, group, PLANE_WORDS, lines) }
}
