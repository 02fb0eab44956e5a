//! Direct access to each kernel's primitives, for the differential tests, fuzz targets and
//! benchmarks that check every kernel against the scalar oracle. Not part of the stable API
//! (re-exported, hidden, as `splitbloom::__kernel_testing`).

use super::primitives::InsertHash;
use super::{Dispatch, PreHashed};
use crate::kind::Kernel;
use crate::layout::Policy;
use crate::layout::split_block::{BLOCK_BYTES, LANES, SplitBlock};

/// The mask of `x` computed by `kernel`, or `None` when it cannot run here.
pub fn mask(kernel: Kernel, x: u32) -> Option<[u32; LANES]> {
    Some(Dispatch::new(kernel)?.mask(x))
}

/// `kernel`'s insert of `x` into `block`, or `None` when it cannot run here.
pub fn insert(kernel: Kernel, block: &mut [u32; LANES], x: u32) -> Option<bool> {
    // A one-block filter: every hash whose low 32 bits are `x` lands on it with in-block hash
    // `x`, and the insert runs inside the kernel's entry point, the primitive inlined.
    let blocks = core::slice::from_mut(block);
    Some(Dispatch::new(kernel)?.run(InsertHash {
        layout: SplitBlock,
        blocks,
        hash: u64::from(x),
    }))
}

/// `kernel`'s lookup of `x` in `block`, or `None` when it cannot run here.
pub fn contains(kernel: Kernel, block: &[u32; LANES], x: u32) -> Option<bool> {
    Some(Dispatch::new(kernel)?.contains_block(block, x))
}

/// `kernel`'s single-key lookup of a pre-hashed key in `blocks`, the path of
/// `Filter::contains` (for AVX2 and AVX-512, inline assembly rather than the primitive above), or
/// `None` when the kernel cannot run here.
pub fn contains_hash(kernel: Kernel, blocks: &[[u32; LANES]], hash: u64) -> Option<bool> {
    Some(Dispatch::new(kernel)?.contains_hash(SplitBlock, blocks, hash))
}

/// `kernel`'s single-key insert of a pre-hashed key into `blocks`, the path of
/// `Filter::insert` (for AVX2 and AVX-512, inline assembly rather than the primitive above),
/// or `None` when the kernel cannot run here.
pub fn insert_hash(kernel: Kernel, blocks: &mut [[u32; LANES]], hash: u64) -> Option<bool> {
    Some(Dispatch::new(kernel)?.insert_hash(SplitBlock, blocks, hash))
}

/// The prefetch distance filters use, and the smallest filter (in blocks) that uses it (one
/// core's L2 cache, detected at run time).
pub fn prefetch() -> (usize, usize) {
    (SplitBlock::PREFETCH_DISTANCE, super::prefetch_min_blocks())
}

/// The prefetch distance the batch operations use on a filter of `num_blocks` blocks (0: none).
pub fn prefetch_distance(num_blocks: usize) -> usize {
    super::prefetch_distance::<SplitBlock>(num_blocks.saturating_mul(BLOCK_BYTES))
}

/// The cache level the batch loops prefetch into on this CPU, `"l1"` or `"l2"` (see
/// `SPLITBLOOM_PREFETCH` in the `prefetch` module docs).
pub fn prefetch_level() -> &'static str {
    super::prefetch::level().name()
}

/// Makes the batch loops prefetch into L1 (`true`) or L2 from now on, in every thread: tests
/// run them both ways. The answers and bits are the same either way.
pub fn set_prefetch_into_l1(l1: bool) {
    use super::prefetch::{Level, set_level};
    set_level(if l1 { Level::L1 } else { Level::L2 });
}

/// The batch loops' prefetch instruction for `address`: into L1 when `L1`, else L2 (see
/// [`prefetch_level`]), for benchmarks that model the batch loops (the workload bench's floor).
#[inline(always)]
pub fn prefetch_block<const L1: bool, T>(address: *const T) {
    super::prefetch::prefetch::<L1, T>(address);
}

/// The number of `true`s in `answers`, the same few instructions per eight answers in every
/// build, for benchmarks that count batch answers: each `bool` is a byte of 0 or 1, so eight of
/// them read as a word and multiplied by `0x0101_0101_0101_0101` hold their sum in the top byte.
/// Summing them one by one is a scalar byte loop in a default build and an AVX-512 loop under
/// `-C target-cpu=native`, a difference in the harness rather than in the filter, and large
/// enough to show next to a batched lookup in cache.
#[inline(always)]
pub fn count_true(answers: &[bool]) -> usize {
    let mut words = answers.chunks_exact(8);
    let mut count = 0;
    for word in &mut words {
        let bytes: [u8; 8] = core::array::from_fn(|i| u8::from(word[i]));
        count += (u64::from_le_bytes(bytes).wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    }
    count + words.remainder().iter().filter(|&&found| found).count()
}

/// The detected caches the prefetch threshold comes from, for benchmark output.
pub fn cache_summary() -> alloc::string::String {
    let caches = super::cache::caches();
    alloc::format!(
        "L2 {} KiB, L3 {} KiB ({})",
        caches.l2 >> 10,
        caches.l3 >> 10,
        caches.source.name()
    )
}

/// Filters of at least this many bytes get 2 MiB-aligned storage and, on Linux, a
/// transparent-huge-page hint.
pub const HUGE_PAGE_THRESHOLD: usize = crate::storage::HUGE_PAGE_THRESHOLD;

/// Zeroed blocks allocated as filters allocate them (2 MiB-aligned, with the huge-page
/// hint from [`HUGE_PAGE_THRESHOLD`] bytes up), so that benchmarks of the raw batch loops
/// measure the memory filters get; `None` when the allocation fails.
pub struct FilterMemory(crate::storage::Blocks);

impl FilterMemory {
    /// `num_blocks` zeroed blocks.
    pub fn zeroed(num_blocks: usize) -> Option<FilterMemory> {
        crate::storage::Blocks::zeroed(num_blocks).map(FilterMemory)
    }
}

impl core::ops::Deref for FilterMemory {
    type Target = [[u32; LANES]];

    fn deref(&self) -> &[[u32; LANES]] {
        bytemuck::cast_slice(&self.0)
    }
}

impl core::ops::DerefMut for FilterMemory {
    fn deref_mut(&mut self) -> &mut [[u32; LANES]] {
        bytemuck::cast_slice_mut(&mut self.0)
    }
}

/// `kernel`'s batch insert into `blocks`, prefetching `distance` keys ahead (0: none; other
/// values are rounded up to a power of two and capped at the tuned distance),
/// whatever the filter size; `None` when the kernel cannot run here.
pub fn insert_hashes(
    kernel: Kernel,
    blocks: &mut [[u32; LANES]],
    hashes: &[u64],
    distance: usize,
) -> Option<()> {
    Dispatch::new(kernel)?.insert_keys(SplitBlock, blocks, &PreHashed, hashes, distance);
    Some(())
}

/// `kernel`'s batch lookup in `blocks`, prefetching `distance` keys ahead (0: none; other
/// values are rounded up to a power of two and capped at the tuned distance),
/// whatever the filter size; `None` when the kernel cannot run here.
pub fn contains_hashes(
    kernel: Kernel,
    blocks: &[[u32; LANES]],
    hashes: &[u64],
    out: &mut [bool],
    distance: usize,
) -> Option<()> {
    Dispatch::new(kernel)?.contains_keys(SplitBlock, blocks, &PreHashed, hashes, out, distance);
    Some(())
}

/// The window's single-key inline assembly of one kernel for one shape, alone: what
/// `tests/caller_registers.rs` keeps vector values live across. Through `WindowFilter` the
/// lookup chooses among shapes and kernels, and the branch that calls into a kernel's entry
/// point makes the compiler keep a caller's vector values on the stack, where a missing
/// clobber could not show; [`WindowProbe::probe`] has no such branch.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct WindowProbe {
    kernel: Dispatch,
    plane_words: usize,
    lines: usize,
}

#[cfg(target_arch = "x86_64")]
impl WindowProbe {
    /// The probe of `kernel` (`avx2` or `avx512`) for groups of `lines` 64-byte lines (1 or 2)
    /// of planes of `plane_bits` bits (128 or 256), or `None` when the kernel cannot run here
    /// or has no assembly, or the shape is not one of those four.
    pub fn new(kernel: Kernel, plane_bits: usize, lines: usize) -> Option<WindowProbe> {
        let kernel = Dispatch::new(kernel)?;
        let plane_words = match plane_bits {
            128 => 4,
            256 => 8,
            _ => return None,
        };
        let assembly = matches!(kernel, Dispatch::Avx2(_) | Dispatch::Avx512(_));
        (assembly && matches!(lines, 1 | 2)).then_some(WindowProbe {
            kernel,
            plane_words,
            lines,
        })
    }

    /// Whether some plane of `group` (its first `lines` 64-byte lines) holds every bit of
    /// in-block hash `x`'s mask, answered by the kernel's assembly inline.
    ///
    /// # Panics
    ///
    /// When `group` is shorter than the probe's lines.
    #[inline(always)]
    pub fn probe(&self, x: u32, group: &[u32]) -> bool {
        use super::x86::WindowProbeAsm;
        assert!(group.len() >= self.lines * 16, "a group of whole lines");
        match self.kernel {
            // SAFETY: the token proves the CPU has the kernel's features, and `group` holds
            // `lines` 64-byte lines (asserted above); the assembly needs no alignment.
            Dispatch::Avx2(token) => unsafe {
                token.probe_lines(x, group.as_ptr(), self.plane_words, self.lines)
            },
            // SAFETY: as for AVX2.
            Dispatch::Avx512(token) => unsafe {
                token.probe_lines(x, group.as_ptr(), self.plane_words, self.lines)
            },
            _ => false,
        }
    }
}
