//! [`WindowFilter`]: a sliding window of split-block filters that forgets old keys.
//!
//! The window is `G` generations, each a split-block filter of `num_blocks` blocks sized for
//! one period's keys. They share the block index and lane mask of [`Filter`](crate::Filter),
//! and the `G` blocks of one block index lie side by side (`G × 32` bytes, one cache line for
//! `G ≤ 2`, two for `G ≤ 4`), so a lookup is one memory access that tests every generation
//! with the kernel's block test, and an insert writes the newest generation's block in it.
//!
//! The generations are a ring: `newest` is the slot inserts write. [`WindowFilter::rotate`]
//! moves `newest` to the next slot, which holds the oldest generation, and clears it: the
//! keys forgotten are exactly those inserted before the last `G − 1` rotations, and no other
//! slot is touched, so a key of the window is never made to look absent. Clearing one slot
//! of every block index is `num_blocks` block writes, the filter's size over `G`.

use alloc::vec::Vec;
use core::convert::Infallible;
use core::fmt;
use core::hash::{BuildHasher, Hash};

use crate::arch::{self, Dispatch};
use crate::error::Error;
use crate::filter::view::{block_fpr, fill_ratio};
use crate::filter::write::{self, Insert};
use crate::format::{self, WindowHeader};
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::Kernel;
use crate::layout::split_block::{BLOCK_BYTES, Block, LANES};
use crate::layout::window::Generations;
use crate::math;
use crate::storage::Blocks;

/// A split-block Bloom filter over a sliding window of `G` periods: keys older than the
/// window are forgotten without a rebuild.
///
/// Each of the `G` generations is sized for one period's keys. [`insert`](WindowFilter::insert)
/// writes the newest generation, [`contains`](WindowFilter::contains) asks all of them, and
/// [`rotate`](WindowFilter::rotate), called once a period, forgets the oldest generation and
/// starts a new, empty one. A key inserted since the last `G − 1` rotations is always found;
/// a key older than that answers like a key never inserted (a false positive at the window's
/// rate, [`fpr`](WindowFilter::fpr)).
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
    /// `num_blocks × generations` blocks: generation slot `g` of block index `i` at
    /// `i × generations + g`.
    pub(super) blocks: Blocks,
    /// Blocks per generation: the block index ranges over these, as in a `Filter`.
    pub(super) num_blocks: usize,
    /// The keys each generation is sized for.
    pub(super) items_per_generation: usize,
    /// `G`, 1 to [`math::MAX_GENERATIONS`].
    pub(super) generations: usize,
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
    /// generation gets the rate [`math::generation_fpr_for_window`] gives, a little above
    /// `fpr / generations`, and the split-block sizing of [`math::num_blocks_for_fpr`].
    ///
    /// Errors when `items_per_generation` is 0, `fpr` is not strictly between 0 and 1,
    /// `generations` is not between 1 and [`math::MAX_GENERATIONS`], or the filter would be
    /// too large to allocate.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(10_000, 0.01, 4)?;
    /// assert_eq!(window.generations(), 4);
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
        let generation_fpr = math::generation_fpr_for_window(fpr, generations)?;
        let num_blocks = math::num_blocks_for_fpr(items_per_generation, generation_fpr)?;
        Self::build(num_blocks, items_per_generation, generations, hasher)
    }

    /// An empty window of `generations` generations of `num_blocks` blocks each, sized for
    /// `items_per_generation` keys.
    pub(super) fn build(
        num_blocks: usize,
        items_per_generation: usize,
        generations: usize,
        hasher: S,
    ) -> Result<Self, Error> {
        math::check_num_blocks(num_blocks)?;
        math::check_generations(generations)?;
        let total = num_blocks.checked_mul(generations).ok_or(Error::TooLarge {
            blocks: num_blocks as f64 * generations as f64,
        })?;
        let blocks = Blocks::zeroed(total).ok_or(Error::AllocationFailed {
            bytes: total.saturating_mul(BLOCK_BYTES),
        })?;
        Ok(WindowFilter {
            blocks,
            num_blocks,
            items_per_generation,
            generations,
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

    /// The number of blocks of each generation (the block index ranges over these).
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// assert_eq!(window.num_blocks(), 6); // 100 keys at 0.34% each: 6 blocks
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
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

    /// How many times [`rotate`](WindowFilter::rotate) has been called.
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

    /// The size of every generation's blocks in bytes: `num_blocks × G × 32`.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// assert_eq!(window.size_in_bytes(), window.num_blocks() * 3 * 32);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn size_in_bytes(&self) -> usize {
        self.blocks.len() * BLOCK_BYTES
    }

    /// Forgets the oldest generation and starts a new, empty one, which inserts then write.
    ///
    /// Keys inserted since the last `G − 1` rotations stay; older keys answer like keys never
    /// inserted. The work is clearing one generation, `num_blocks` blocks (the filter's size
    /// over `G`), and only the slot that becomes the newest is written, so no key of the new
    /// window loses a bit.
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
        let (generations, newest) = (self.generations, self.newest);
        for slot in self.blocks.iter_mut().skip(newest).step_by(generations) {
            *slot = Block::default();
        }
        self.rotations += 1;
    }

    /// The false-positive rate of the whole window once every generation holds the keys it
    /// was sized for: `1 − (1 − F)^G` ([`math::window_false_positive_rate`]), where `F` is one
    /// generation's rate at that size. Forgotten keys answer `true` at this rate too.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(10_000, 0.01, 3)?;
    /// assert!(window.fpr() <= 0.01 && window.fpr() > 0.009);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fpr(&self) -> f64 {
        let capacity = self.items_per_generation as f64;
        let generation = math::fpr_for_keys_per_block(capacity / self.num_blocks as f64);
        math::window_false_positive_rate(core::iter::repeat_n(generation, self.generations))
    }

    /// The chance that a uniformly random hash is reported present now, from the bits that
    /// are set: per block index, one minus the chance that every generation's block misses.
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
        let total: f64 = self
            .words()
            .chunks_exact(self.generations)
            .map(|index| math::window_false_positive_rate(index.iter().map(block_fpr)))
            .sum();
        total / self.num_blocks as f64
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
        fill_ratio(self.words().iter().copied())
    }

    /// The blocks, as lanes.
    #[inline(always)]
    fn words(&self) -> &[[u32; LANES]] {
        bytemuck::cast_slice(&self.blocks)
    }

    /// The layout the kernels' operations see: the shape and the slot inserts write.
    #[inline(always)]
    fn layout(&self) -> Generations {
        Generations {
            num_blocks: self.num_blocks,
            generations: self.generations,
            newest: self.newest,
        }
    }

    /// The batch prefetch distance: prefetching pays when one generation alone is at least
    /// the size other filters prefetch at.
    #[inline]
    fn prefetch_distance(&self) -> usize {
        arch::prefetch_distance::<Generations>(self.num_blocks * BLOCK_BYTES)
    }
}

impl<S> fmt::Debug for WindowFilter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WindowFilter")
            .field("num_blocks", &self.num_blocks)
            .field("items_per_generation", &self.items_per_generation)
            .field("generations", &self.generations)
            .field("rotations", &self.rotations)
            .field("kernel", &self.kernel())
            .finish_non_exhaustive()
    }
}

/// Two windows are equal when they answer alike for every key: the same shape, hasher and
/// generations in the same order (the slot the ring starts at does not matter).
impl<S: PartialEq> PartialEq for WindowFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        let oldest_first = |window: &Self, index: &[[u32; LANES]], age: usize| {
            index[(window.newest + window.generations - age) % window.generations]
        };
        self.num_blocks == other.num_blocks
            && self.generations == other.generations
            && self.items_per_generation == other.items_per_generation
            && self.hasher == other.hasher
            && self
                .words()
                .chunks_exact(self.generations)
                .zip(other.words().chunks_exact(other.generations))
                .all(|(left, right)| {
                    (0..self.generations)
                        .all(|age| oldest_first(self, left, age) == oldest_first(other, right, age))
                })
    }
}

/// The text of the read methods' doc examples: a `filter` holding `"apple"` and `"pear"`.
macro_rules! window_setup {
    () => {
        "let mut filter = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
filter.insert(\"apple\");
filter.rotate();
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}"
    };
}

/// How a [`WindowFilter`] answers, in each read method's docs.
macro_rules! window_note {
    () => {
        "Every generation is asked: the key's block index holds them side by side, and the \
         answer is `true` when any one holds every bit of the key. Batches prefetch each key's \
         generations 128 keys ahead on windows whose generations reach half the L2 cache."
    };
}

read_methods! {
    type: WindowFilter,
    setup: window_setup!(),
    note: window_note!(),
    probe: |filter, hash| {
        filter.kernel.contains_hash(filter.layout(), filter.words(), hash)
    },
    probe_all: |filter, hashes, out| {
        let (kernel, layout) = (filter.kernel, filter.layout());
        let distance = filter.prefetch_distance();
        kernel.contains_keys(layout, filter.words(), &arch::PreHashed, hashes, out, distance);
    },
    probe_keys: |filter, keys, out| {
        let (kernel, layout) = (filter.kernel, filter.layout());
        let distance = filter.prefetch_distance();
        let hasher = &filter.hasher;
        kernel.contains_keys(layout, filter.words(), hasher, keys, out, distance);
    },
    bytes: yes,
}

/// Inserts write the newest generation (see `filter::write`).
impl<S> Insert for WindowFilter<S> {
    type Hasher = S;
    type Error = Infallible;

    #[inline(always)]
    fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Newly inserted means absent from the whole window, so that a stream deduplicated
    /// through `insert` passes a key once per window; its bits are set in the newest
    /// generation either way, so it stays for `G − 1` more rotations.
    #[inline(always)]
    fn insert_one(&mut self, hash: u64) -> Result<bool, Infallible> {
        let (kernel, layout) = (self.kernel, self.layout());
        let words: &mut [[u32; LANES]] = bytemuck::cast_slice_mut(&mut self.blocks);
        Ok(!kernel.insert_hash(layout, words, hash))
    }

    /// Each hash into the newest generation, its block prefetched a batch's distance ahead.
    #[inline]
    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Infallible> {
        let (kernel, layout) = (self.kernel, self.layout());
        let distance = self.prefetch_distance();
        let words: &mut [[u32; LANES]] = bytemuck::cast_slice_mut(&mut self.blocks);
        kernel.insert_keys(layout, words, &arch::PreHashed, hashes, distance);
        Ok(())
    }

    /// Hashing and inserting run inside the kernel, each key hashed as its block is
    /// prefetched.
    #[inline]
    fn insert_keys<K: Hash>(&mut self, keys: &[K]) -> Result<(), Infallible>
    where
        S: BuildHasher,
    {
        let (kernel, layout) = (self.kernel, self.layout());
        let distance = self.prefetch_distance();
        let words: &mut [[u32; LANES]] = bytemuck::cast_slice_mut(&mut self.blocks);
        kernel.insert_keys(layout, words, &self.hasher, keys, distance);
        Ok(())
    }
}

impl<S: BuildHasher> WindowFilter<S> {
    /// Adds `key` to the newest generation; returns `true` when no generation of the window
    /// held it (as [`contains`](WindowFilter::contains) would have answered `false`), so a
    /// stream deduplicated with `insert` passes each key once per window.
    ///
    /// ```
    /// let mut seen = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// assert!(seen.insert("a"));
    /// seen.rotate();
    /// assert!(!seen.insert("a")); // still in the window: refreshed into the newest generation
    /// seen.rotate();
    /// assert!(!seen.insert("a")); // the refresh kept it
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        let Ok(new) = write::insert(self, key);
        new
    }

    /// Adds every key of `keys` to the newest generation, as [`insert`](WindowFilter::insert)
    /// on each key.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// window.insert_batch(&["apple", "pear"]);
    /// assert!(window.contains("pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_batch<K: Hash>(&mut self, keys: &[K]) {
        let Ok(()) = write::insert_batch(self, keys);
    }
}

/// Adds every key of an iterator to the newest generation, a chunk at a time through the batch
/// path.
///
/// ```
/// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
/// window.extend(["apple", "pear"]);
/// assert!(window.contains("apple"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: BuildHasher, K: Hash> Extend<K> for WindowFilter<S> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        let Ok(()) = write::extend(self, keys);
    }
}

impl<S> WindowFilter<S> {
    /// Adds a pre-hashed key to the newest generation; returns `true` when no generation held
    /// it, as [`insert`](WindowFilter::insert).
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// assert!(window.insert_hash(0x0123_4567_89ab_cdef));
    /// assert!(window.contains_hash(0x0123_4567_89ab_cdef));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let Ok(new) = self.insert_one(hash);
        new
    }

    /// Adds every hash of `hashes` to the newest generation.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// window.insert_hash_batch(&[1 << 40, 2 << 40]);
    /// assert!(window.contains_hash(2 << 40));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) {
        let Ok(()) = self.insert_all(hashes);
    }
}

impl<S: FilterHasher> WindowFilter<S> {
    /// Adds the key made of exactly `key`'s bytes (the [byte-key contract](crate::hash)) to
    /// the newest generation; returns `true` when no generation held it.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// assert!(window.insert_bytes(b"key"));
    /// assert!(window.contains("key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        let Ok(new) = write::insert_bytes(self, key);
        new
    }

    /// Adds every key of `keys`, each exactly its bytes, to the newest generation.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// window.insert_bytes_batch(&["apple", "pear"]);
    /// assert!(window.contains_bytes(b"pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) {
        let Ok(()) = write::insert_bytes_batch(self, keys);
    }
}

/// A window's bytes, in the `SBLW` layout of [`format`](crate::format) (`docs/FORMAT.md` has
/// the byte table and known answers).
impl<S: FilterHasher> WindowFilter<S> {
    /// The window in the `SBLW` format: a 64-byte header (hasher, seed, shape, the newest
    /// generation's slot, the rotation count, a checksum), then every generation's blocks.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// window.insert("key");
    /// let bytes = window.to_bytes();
    /// assert_eq!(&bytes[..4], b"SBLW");
    /// assert_eq!(splitbloom::WindowFilter::from_bytes(&bytes)?, window);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = WindowHeader {
            hasher: S::KIND,
            seed: self.hasher.seed(),
            num_blocks: self.num_blocks,
            items_per_generation: self.items_per_generation,
            generations: self.generations,
            newest: self.newest,
            rotations: self.rotations,
        };
        format::window_to_bytes(&header, self.words())
    }

    /// Reads a window written by [`to_bytes`](WindowFilter::to_bytes) with hasher type `S`,
    /// its seed taken from the bytes. Every field, the length and the checksum are checked
    /// before anything is allocated; bad bytes are an [`Error`], never a panic.
    ///
    /// ```
    /// use splitbloom::{WindowFilter, parquet::ParquetHash};
    /// let mut window = WindowFilter::with_fpr_and_hasher(100, 0.01, 2, ParquetHash::default())?;
    /// window.insert_bytes(b"key");
    /// let copy = WindowFilter::<ParquetHash>::from_bytes_with_hasher_type(&window.to_bytes())?;
    /// assert!(copy.contains_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &[u8]) -> Result<Self, Error> {
        let (header, payload) = format::parse_window(bytes)?;
        if !header.hasher.is_available() {
            return Err(Error::HasherUnavailable(header.hasher));
        }
        if header.hasher != S::KIND {
            return Err(Error::HasherKindMismatch {
                expected: S::KIND,
                found: header.hasher,
            });
        }
        let hasher = S::try_with_seed(header.seed)?;
        let mut window = Self::build(
            header.num_blocks,
            header.items_per_generation,
            header.generations,
            hasher,
        )?;
        window.newest = header.newest;
        window.rotations = header.rotations;
        format::decode_into(payload, &mut window.blocks[..], 4);
        Ok(window)
    }
}

impl WindowFilter {
    /// Reads a window of the default hasher written by [`to_bytes`](WindowFilter::to_bytes);
    /// see [`from_bytes_with_hasher_type`](WindowFilter::from_bytes_with_hasher_type).
    ///
    /// ```
    /// use splitbloom::{Error, WindowFilter};
    /// let mut window = WindowFilter::with_fpr(100, 0.01, 3)?;
    /// window.insert("key");
    /// window.rotate();
    /// let copy = WindowFilter::from_bytes(&window.to_bytes())?;
    /// assert!(copy.contains("key") && copy.rotations() == 1);
    /// assert!(matches!(WindowFilter::from_bytes(b"SBLM"), Err(Error::WrongMagic { .. })));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<WindowFilter, Error> {
        WindowFilter::from_bytes_with_hasher_type(bytes)
    }
}
