//! [`WindowFilter`]: a sliding window of Bloom filters that forgets old keys.
//!
//! The window is `G` generations, each sized for one period's keys. A key's block index is the
//! split-block one ([`Filter`](crate::Filter)'s), and each generation of a block index is a
//! plane of 128 or 256 bits, the `G` planes of an index side by side
//! ([`layout::window`](crate::layout::window)): four generations of 128-bit planes are one
//! 64-byte line, so a lookup is one memory access and, on AVX-512, one vector test of every
//! generation; an insert writes the newest generation's plane in it.
//!
//! The generations are a ring: `newest` is the slot inserts write. [`WindowFilter::rotate`]
//! moves `newest` to the next slot, which holds the oldest generation, and clears it: the
//! keys forgotten are exactly those inserted before the last `G − 1` rotations, and no other
//! slot is touched, so a key of the window is never made to look absent. Clearing one slot
//! of every block index writes the filter's size over `G`.

mod operations;
mod persist;

use core::fmt;

use crate::arch::{self, Dispatch};
use crate::error::Error;
use crate::hash::Xxh3;
use crate::kind::Kernel;
use crate::layout::window::{Generations, Plane};
use crate::math::window as math;
use crate::storage::Blocks;
use crate::storage::window::{UNIT_WORDS, WindowUnit};

/// A Bloom filter over a sliding window of `G` periods: keys older than the window are
/// forgotten without a rebuild.
///
/// Each of the `G` generations is sized for one period's keys. [`insert`](WindowFilter::insert)
/// writes the newest generation, [`contains`](WindowFilter::contains) asks all of them, and
/// [`rotate`](WindowFilter::rotate), called once a period, forgets the oldest generation and
/// starts a new, empty one. A key inserted since the last `G − 1` rotations is always found;
/// a key older than that answers like a key never inserted (a false positive at the window's
/// rate, [`fpr`](WindowFilter::fpr)).
///
/// A key's generations are one memory access: up to four generations share one 64-byte line
/// (see the module docs of [`math::window`](crate::math::window) for the memory that costs),
/// so a lookup costs about what a [`Filter`](crate::Filter) lookup costs (BENCHMARKS.md,
/// "Window").
///
/// ```
/// use splitbloom::WindowFilter;
/// // Up to 1,000 keys a period, 1% false positives over the window of 3 periods.
/// let mut seen = WindowFilter::with_fpr(1000, 0.01, 3)?;
/// assert!(seen.insert("session-1")); // `true`: not seen in the window
/// assert!(!seen.insert("session-1")); // `false`: seen
/// seen.rotate();
/// seen.rotate();
/// assert!(seen.contains("session-1")); // inserted 2 = G − 1 rotations ago: still in
/// seen.rotate();
/// assert!(!seen.contains("session-1")); // 3 rotations ago: forgotten
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct WindowFilter<S = Xxh3> {
    /// The planes, in whole units: plane `g` of block index `i` is plane `i·G + g`, and the
    /// words past the last plane are zero.
    pub(super) units: Blocks<WindowUnit>,
    /// Block indices: the block index ranges over these, as in a `Filter`.
    pub(super) num_blocks: usize,
    /// The keys each generation is sized for.
    pub(super) items_per_generation: usize,
    /// `G`, 1 to [`MAX_GENERATIONS`](crate::math::MAX_GENERATIONS).
    pub(super) generations: usize,
    /// The size of a generation's plane.
    pub(super) plane: Plane,
    /// The slot inserts write.
    pub(super) newest: usize,
    /// How many times the window has rotated.
    pub(super) rotations: u64,
    pub(super) kernel: Dispatch,
    pub(super) hasher: S,
}

impl WindowFilter {
    /// An empty window of `generations` generations, each sized for `items_per_generation`
    /// keys, with a false-positive rate of at most `fpr` over the whole window: each
    /// generation gets the rate [`generation_fpr_for_window`](crate::math::generation_fpr_for_window)
    /// gives, a little above `fpr / generations`, and the plane size and block count
    /// [`math::window::num_blocks_for_fpr`](crate::math::window::num_blocks_for_fpr) gives.
    ///
    /// Errors when `items_per_generation` is 0, `fpr` is not strictly between 0 and 1,
    /// `generations` is not between 1 and [`MAX_GENERATIONS`](crate::math::MAX_GENERATIONS),
    /// or the filter would be too large to allocate.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(10_000, 0.01, 4)?;
    /// assert_eq!((window.generations(), window.plane_bits()), (4, 128));
    /// assert!(window.fpr() <= 0.01);
    /// assert!(splitbloom::WindowFilter::with_fpr(10_000, 0.01, 0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr(
        items_per_generation: usize,
        fpr: f64,
        generations: usize,
    ) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(items_per_generation, fpr, generations, Xxh3::default())
    }
}

impl<S> WindowFilter<S> {
    /// [`WindowFilter::with_fpr`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, WindowFilter, Xxh3};
    /// let window = WindowFilter::with_fpr_and_hasher(1000, 0.01, 3, Xxh3::with_seed(7))?;
    /// assert_eq!(window.hasher().seed(), 7);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr_and_hasher(
        items_per_generation: usize,
        fpr: f64,
        generations: usize,
        hasher: S,
    ) -> Result<Self, Error> {
        let (num_blocks, plane_bits) =
            math::num_blocks_for_fpr(items_per_generation, fpr, generations)?;
        let plane = Plane::from_bits(plane_bits)
            .ok_or(Error::InvalidWindowHeader("the sizing gave no plane size"))?;
        Self::build(num_blocks, items_per_generation, generations, plane, hasher)
    }

    /// An empty window of `generations` generations of `num_blocks` planes each, sized for
    /// `items_per_generation` keys: the one constructor, whose allocation's failure is an
    /// error.
    pub(super) fn build(
        num_blocks: usize,
        items_per_generation: usize,
        generations: usize,
        plane: Plane,
        hasher: S,
    ) -> Result<Self, Error> {
        crate::math::check_num_blocks(num_blocks)?;
        math::check_generations(generations)?;
        let layout = Generations {
            num_blocks,
            generations,
            plane,
            newest: 0,
        };
        let words = layout.total_words().ok_or(Error::TooLarge {
            blocks: num_blocks as f64 * generations as f64,
        })?;
        Ok(WindowFilter {
            units: Blocks::try_zeroed(words.div_ceil(UNIT_WORDS))?,
            num_blocks,
            items_per_generation,
            generations,
            plane,
            newest: 0,
            rotations: 0,
            kernel: Dispatch::best(),
            hasher,
        })
    }

    /// The same window running on `kernel`; errors when this CPU cannot run it. Results never
    /// depend on the kernel, only speed does.
    ///
    /// ```
    /// use splitbloom::{Kernel, WindowFilter};
    /// let window = WindowFilter::with_fpr(100, 0.01, 2)?.with_kernel(Kernel::Scalar)?;
    /// assert_eq!(window.kernel(), Kernel::Scalar);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Self, Error> {
        self.kernel = Dispatch::new(kernel).ok_or(Error::KernelUnavailable(kernel))?;
        Ok(self)
    }

    /// The kernel this window runs on ([`Kernel::best`] unless chosen with `with_kernel`).
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// assert!(window.kernel().is_available());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.kernel.kernel()
    }

    /// The hasher keys go through.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// assert_eq!(*window.hasher(), splitbloom::Xxh3::default());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The number of block indices: each generation has one plane per index.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// assert_eq!(window.num_blocks(), 12); // 100 keys at 0.34% each: 12 planes of 128 bits
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// The size of a generation's plane in bits: 128 (four generations to a 64-byte line) or
    /// 256 (two).
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100_000, 0.01, 4)?;
    /// assert_eq!(window.plane_bits(), 128);
    /// assert_eq!(splitbloom::WindowFilter::with_fpr(100_000, 0.01, 2)?.plane_bits(), 256);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn plane_bits(&self) -> usize {
        self.plane.bits()
    }

    /// The number of keys each generation is sized for (the `items_per_generation` of
    /// [`with_fpr`](WindowFilter::with_fpr)).
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(500, 0.01, 3)?;
    /// assert_eq!(window.items_per_generation(), 500);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn items_per_generation(&self) -> usize {
        self.items_per_generation
    }

    /// The number of generations, `G`: a key stays in the window for `G − 1` rotations after
    /// the one it was inserted in.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// assert_eq!(window.generations(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn generations(&self) -> usize {
        self.generations
    }

    /// How many times [`rotate`](WindowFilter::rotate) has been called, saturating at
    /// `u64::MAX` (a count restored from bytes may start anywhere).
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// window.rotate();
    /// assert_eq!(window.rotations(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn rotations(&self) -> u64 {
        self.rotations
    }

    /// The size of every generation's planes in bytes: `num_blocks × G × plane_bits / 8`.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// assert_eq!(window.size_in_bytes(), window.num_blocks() * 3 * window.plane_bits() / 8);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn size_in_bytes(&self) -> usize {
        self.words().len() * 4
    }

    /// Forgets the oldest generation and starts a new, empty one, which inserts then write.
    ///
    /// Keys inserted since the last `G − 1` rotations stay; older keys answer like keys never
    /// inserted. The work is clearing one generation (the filter's size over `G`), and only
    /// the slot that becomes the newest is written, so no key of the new window loses a bit.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// window.insert("old");
    /// window.rotate();
    /// window.insert("new");
    /// assert!(window.contains("old") && window.contains("new"));
    /// window.rotate();
    /// assert!(!window.contains("old") && window.contains("new"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn rotate(&mut self) {
        self.newest = (self.newest + 1) % self.generations;
        let layout = self.layout();
        let (group, plane) = (layout.group_words(), self.plane.words());
        let slot = self.newest * plane;
        for group in self.words_mut().chunks_exact_mut(group) {
            group[slot..slot + plane].fill(0);
        }
        self.rotations = self.rotations.saturating_add(1);
    }

    /// The false-positive rate of the whole window once every generation holds the keys it
    /// was sized for: `1 − (1 − F)^G`
    /// ([`math::window::false_positive_rate`](crate::math::window::false_positive_rate)), where
    /// `F` is one generation's rate at that size. Forgotten keys answer `true` at this rate
    /// too.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(10_000, 0.01, 3)?;
    /// assert!(window.fpr() <= 0.01 && window.fpr() > 0.009);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fpr(&self) -> f64 {
        math::false_positive_rate(
            self.items_per_generation,
            self.num_blocks,
            self.generations,
            self.plane.bits(),
        )
    }

    /// The chance that a uniformly random hash is reported present now, from the bits that
    /// are set: per block index, one minus the chance that every generation's plane misses.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(1000, 0.01, 2)?;
    /// assert_eq!(window.estimated_fpr(), 0.0);
    /// for key in 0..1000u32 {
    ///     window.insert(&key);
    /// }
    /// assert!(window.estimated_fpr() > 0.0 && window.estimated_fpr() < 0.01);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        let plane = self.plane;
        let total: f64 = self
            .words()
            .chunks_exact(self.layout().group_words())
            .map(|group| {
                let misses = group
                    .chunks_exact(plane.words())
                    .map(|words| 1.0 - crate::layout::window::plane_fpr(words, plane));
                1.0 - misses.product::<f64>()
            })
            .sum();
        total / self.num_blocks as f64
    }

    /// The fraction of bits set in each generation, newest first (age 0, which inserts write)
    /// to oldest (age `G − 1`, which the next rotation forgets).
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// window.insert("old");
    /// window.rotate();
    /// let fills = window.generation_fill_ratios();
    /// assert_eq!(fills[0], 0.0); // nothing inserted since the rotation
    /// assert!(fills[1] > 0.0 && fills[2] == 0.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn generation_fill_ratios(&self) -> alloc::vec::Vec<f64> {
        let plane = self.plane.words();
        let mut set = alloc::vec![0u64; self.generations];
        for group in self.words().chunks_exact(self.layout().group_words()) {
            for (slot, words) in group.chunks_exact(plane).enumerate() {
                set[slot] += words
                    .iter()
                    .map(|word| u64::from(word.count_ones()))
                    .sum::<u64>();
            }
        }
        let bits = (self.num_blocks * self.plane.bits()) as f64;
        (0..self.generations)
            .map(|age| {
                let slot = (self.newest + self.generations - age) % self.generations;
                set[slot] as f64 / bits
            })
            .collect()
    }

    /// An estimate of how many distinct keys the window holds, from each generation's fill
    /// ([`math::window::keys_per_plane_for_fill`](crate::math::window::keys_per_plane_for_fill)):
    /// a key inserted in several generations (refreshed) counts once in each.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(10_000, 0.01, 4)?;
    /// window.insert_batch(&(0..10_000u64).collect::<Vec<_>>());
    /// window.rotate();
    /// window.insert_batch(&(10_000..15_000u64).collect::<Vec<_>>());
    /// assert!((window.estimated_items() - 15_000.0).abs() < 750.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_items(&self) -> f64 {
        self.generation_fill_ratios()
            .into_iter()
            .map(|fill| {
                math::keys_per_plane_for_fill(fill, self.plane.bits()) * self.num_blocks as f64
            })
            .sum()
    }

    /// The fraction of bits set over every generation, from 0 to 1.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// assert_eq!(window.fill_ratio(), 0.0);
    /// window.insert("key");
    /// assert_eq!(window.fill_ratio(), 8.0 / (window.size_in_bytes() * 8) as f64);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        let words = self.words();
        let set: u64 = words.iter().map(|word| u64::from(word.count_ones())).sum();
        set as f64 / (words.len() * 32) as f64
    }

    /// The planes, as the kernels see them: every word but the zero padding of the last unit.
    #[inline(always)]
    pub(crate) fn words(&self) -> &[u32] {
        let words: &[u32] = bytemuck::cast_slice(&self.units);
        &words[..self.num_blocks * self.generations * self.plane.words()]
    }

    /// The planes, writable.
    #[inline(always)]
    pub(crate) fn words_mut(&mut self) -> &mut [u32] {
        let len = self.num_blocks * self.generations * self.plane.words();
        let words: &mut [u32] = bytemuck::cast_slice_mut(&mut self.units);
        &mut words[..len]
    }

    /// The layout the kernels' operations see: the shape and the slot inserts write.
    #[inline(always)]
    pub(crate) fn layout(&self) -> Generations {
        Generations {
            num_blocks: self.num_blocks,
            generations: self.generations,
            plane: self.plane,
            newest: self.newest,
        }
    }

    /// The batch prefetch distance: prefetching pays when one generation alone is at least
    /// the size other filters prefetch at.
    #[inline]
    pub(super) fn prefetch_distance(&self) -> usize {
        arch::prefetch_distance::<Generations>(self.size_in_bytes() / self.generations)
    }
}

impl<S> fmt::Debug for WindowFilter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WindowFilter")
            .field("num_blocks", &self.num_blocks)
            .field("items_per_generation", &self.items_per_generation)
            .field("generations", &self.generations)
            .field("plane_bits", &self.plane.bits())
            .field("rotations", &self.rotations)
            .field("kernel", &self.kernel())
            .finish_non_exhaustive()
    }
}

/// Two windows are equal when they answer alike for every key: the same shape, hasher and
/// generations in the same order (the slot the ring starts at does not matter).
impl<S: PartialEq> PartialEq for WindowFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        let plane = self.plane.words();
        let oldest_first = |window: &Self, group: &[u32], age: usize| {
            let slot = (window.newest + window.generations - age) % window.generations;
            group[slot * plane..(slot + 1) * plane].to_vec()
        };
        self.num_blocks == other.num_blocks
            && self.generations == other.generations
            && self.plane == other.plane
            && self.items_per_generation == other.items_per_generation
            && self.hasher == other.hasher
            && self
                .words()
                .chunks_exact(self.layout().group_words())
                .zip(other.words().chunks_exact(other.layout().group_words()))
                .all(|(left, right)| {
                    (0..self.generations)
                        .all(|age| oldest_first(self, left, age) == oldest_first(other, right, age))
                })
    }
}
