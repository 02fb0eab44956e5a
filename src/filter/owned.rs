//! [`Filter`]: the owned, mutable split-block Bloom filter, and its own methods in the order
//! its documentation lists them: constructors, inserts and lookups (keyed, pre-hashed, byte
//! keys), then the accessors and statistics.

use core::convert::Infallible;
use core::fmt;
use core::hash::{BuildHasher, Hash};

use crate::arch::{Dispatch, PreHashed};
use crate::error::Error;
use crate::filter::view::View;
use crate::filter::write::{self, Insert};
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::Kernel;
use crate::layout::split_block::SplitBlock;
use crate::layout::split_block::{BLOCK_BYTES, Block, LANES};
use crate::storage::Blocks;
use crate::{arch, math};

// `shared_methods!` is given the block size as a literal, for its doc examples.
const _: () = assert!(BLOCK_BYTES == 32);

/// A split-block Bloom filter: "certainly not in the set" or "probably in the set".
///
/// Build one for the number of keys you expect and the false-positive rate you accept
/// ([`with_fpr`](Filter::with_fpr)); [`insert`](Filter::insert) answers `true` for a key it
/// did not hold yet, as `HashSet::insert` does, and [`contains`](Filter::contains) never
/// answers `false` for a key that was inserted. Past its planned size a filter keeps every
/// key, but its false-positive rate climbs; [`ScalableFilter`](crate::ScalableFilter) grows
/// instead.
///
/// The methods come in four forms, listed in this order below: keys of any `Hash` type
/// (`insert`, `contains`, and their `_batch` forms, one call into the kernel per batch),
/// pre-hashed 64-bit keys (`insert_hash`, `contains_hash`), keys given as exactly their bytes
/// (`insert_bytes`, `contains_bytes`: the [byte-key contract](crate::hash) another program can
/// reproduce), and persistence (`to_bytes`, `write_to`, `from_bytes`). Then come the
/// conversions ([`into_atomic`](Filter::into_atomic)) and the set operations
/// ([`union`](Filter::union), [`fold`](Filter::fold)).
///
/// Keys are hashed with `S` (by default [`Xxh3`]). The kernel is chosen once, when the
/// filter is built ([`Kernel::best`]), and never changes the results.
///
/// ```
/// use splitbloom::Filter;
/// let mut filter = Filter::with_fpr(1000, 0.01)?;
/// assert!(filter.insert("apple"));   // newly inserted, as `HashSet::insert` says
/// assert!(!filter.insert("apple"));  // already present
/// assert!(filter.contains("apple"));  // never a false negative
/// assert!(!filter.contains("pear"));  // probably absent (here, certainly)
/// let copy = Filter::from_bytes(&filter.to_bytes())?;
/// assert_eq!(copy, filter);
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct Filter<S = Xxh3> {
    // Visible to the family's other files, which add methods to `Filter`.
    pub(super) blocks: Blocks,
    pub(super) kernel: Dispatch,
    pub(super) hasher: S,
}

shared_methods!(@constructors Filter);

impl<S> Filter<S> {
    /// [`Filter::with_num_blocks`] with a given hasher.
    ///
    /// Errors when `num_blocks` is 0 or above [`math::MAX_BLOCKS`], or the allocation fails.
    ///
    /// ```
    /// use splitbloom::{Filter, FilterHasher, Xxh3};
    /// // The default hasher with a seed of one's own.
    /// let filter = Filter::with_num_blocks_and_hasher(8, Xxh3::with_seed(7))?;
    /// assert_eq!((filter.num_blocks(), filter.hasher().seed()), (8, 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks_and_hasher(num_blocks: usize, hasher: S) -> Result<Self, Error> {
        math::check_num_blocks(num_blocks)?;
        let blocks = Blocks::zeroed(num_blocks).ok_or(Error::AllocationFailed {
            bytes: num_blocks * BLOCK_BYTES,
        })?;
        Ok(Filter {
            blocks,
            kernel: Dispatch::best(),
            hasher,
        })
    }
}

impl<S: BuildHasher> Filter<S> {
    /// Adds `key`; returns `true` when it was newly inserted (some of its bits were unset), as
    /// `HashSet::insert` does, and `false` when all its bits were already set (it was probably
    /// present: a false positive answers `false` too).
    ///
    /// A dedup loop is therefore written the std way:
    ///
    /// ```
    /// let mut seen = splitbloom::Filter::with_fpr(1000, 0.01)?;
    /// let mut unique = Vec::new();
    /// for word in ["a", "b", "a", "c", "b"] {
    ///     if seen.insert(word) {
    ///         unique.push(word);
    ///     }
    /// }
    /// assert_eq!(unique, ["a", "b", "c"]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    ///
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// assert!(filter.insert(&42u64));
    /// assert!(!filter.insert(&42u64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        let Ok(new) = write::insert(self, key);
        new
    }

    /// Adds every key of `keys`. Same result as calling [`insert`](Filter::insert) on each key,
    /// with one call into the kernel for the whole batch; on filters of at least half the L2
    /// cache each key is hashed and its block prefetched 128 keys before it is inserted, so the
    /// cache misses of a batch overlap.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
    /// filter.insert_batch(&["apple", "pear", "plum"]);
    /// assert!(filter.contains("pear"));
    /// filter.insert_batch(&[1u64, 2, 3]);
    /// assert!(filter.contains(&2u64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_batch<K: Hash>(&mut self, keys: &[K]) {
        let Ok(()) = write::insert_batch(self, keys);
    }
}

/// The text of the read methods' doc examples: a `filter` holding `"apple"` and `"pear"`.
macro_rules! filter_setup {
    () => {
        "let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}"
    };
}

/// How a [`Filter`] answers, in each read method's docs.
macro_rules! filter_note {
    () => {
        "Batches run inside the kernel, which on filters of at least half the L2 cache hashes \
         each key and prefetches its block 128 keys before probing it."
    };
}

read_methods!(@reader Filter, |filter| filter.view());
read_methods!(@keys Filter, filter_setup!(), filter_note!());

impl<S> Filter<S> {
    /// Adds a pre-hashed key; returns `true` when it was newly inserted (some of its bits were
    /// unset), as [`insert`](Filter::insert).
    ///
    /// The high 32 bits of `hash` choose the block and the low 32 bits the bits inside it, so
    /// both halves must be well mixed.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(16)?;
    /// assert!(filter.insert_hash(0x0123_4567_89ab_cdef));
    /// assert!(!filter.insert_hash(0x0123_4567_89ab_cdef));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let Ok(new) = self.insert_one(hash);
        new
    }

    /// Adds every hash of `hashes`, with the loop inside the kernel. On filters of at least half
    /// the L2 cache the loop prefetches each hash's block a few hashes ahead, so the cache misses
    /// of a batch overlap instead of following one another.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert_hash_batch(&[1 << 40, 2 << 40, 3 << 40]);
    /// assert!(filter.contains_hash(2 << 40));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) {
        let Ok(()) = self.insert_all(hashes);
    }
}

read_methods!(@hashes Filter, filter_setup!(), filter_note!());

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], whose framing the [`hash`](crate::hash) module documents so
/// another program can reproduce it. Use these for persisted string and byte keys.
impl<S: FilterHasher> Filter<S> {
    /// Adds the key made of exactly `key`'s bytes; returns `true` when it was newly inserted,
    /// as [`insert`](Filter::insert).
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// assert!(filter.insert_bytes(b"key"));
    /// assert!(filter.contains_bytes("key".as_bytes()));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        let Ok(new) = write::insert_bytes(self, key);
        new
    }

    /// Adds every key of `keys` (each exactly its bytes): the result of
    /// [`insert_bytes`](Filter::insert_bytes) on each, through the pre-hashed batch path.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes_batch(&["apple", "pear"]);
    /// assert!(filter.contains_bytes(b"pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) {
        let Ok(()) = write::insert_bytes_batch(self, keys);
    }
}

read_methods!(@bytes yes, Filter, filter_setup!(), filter_note!());

shared_methods!(@accessors Filter, "let filter = splitbloom::Filter::with_num_blocks(8)?;", 32);

impl<S> Filter<S> {
    /// Clears every bit: the filter is empty again, with the same size.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(4)?;
    /// filter.insert("x");
    /// filter.clear();
    /// assert_eq!(filter.fill_ratio(), 0.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn clear(&mut self) {
        self.blocks.fill(Block::default());
    }

    /// The bitset as `u32` words in native byte order, block after block.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(2)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.as_words().len(), 16);
    /// assert_eq!(filter.as_words().iter().map(|w| w.count_ones()).sum::<u32>(), 8);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn as_words(&self) -> &[u32] {
        bytemuck::cast_slice(&self.blocks)
    }

    /// The fraction of bits that are set, from 0 to 1.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(1)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.fill_ratio(), 8.0 / 256.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        self.view().fill_ratio()
    }

    /// The false-positive rate of the filter as it is now: the chance that a random hash lands
    /// on a block whose eight lanes all have its bit set, averaged over blocks. Exact for
    /// uniformly distributed hashes, whatever was inserted.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_bits_per_key(10_000, 10.0)?;
    /// assert_eq!(filter.estimated_fpr(), 0.0);
    /// for key in 0..10_000u64 {
    ///     filter.insert(&key);
    /// }
    /// let predicted = splitbloom::math::false_positive_rate(10.0);
    /// assert!((filter.estimated_fpr() - predicted).abs() < 0.2 * predicted);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        self.view().estimated_fpr()
    }

    /// An estimate of how many distinct keys were inserted, from the fill ratio (see
    /// [`math::keys_per_block_for_fill`]). Accurate to a few percent until the filter is far
    /// past its planned size.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_bits_per_key(10_000, 10.0)?;
    /// for key in 0..10_000u64 {
    ///     filter.insert(&key);
    /// }
    /// assert!((filter.estimated_items() - 10_000.0).abs() < 500.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_items(&self) -> f64 {
        math::keys_per_block_for_fill(self.fill_ratio()) * self.blocks.len() as f64
    }

    /// [`with_kernel`](Filter::with_kernel) in place, for filters held in collections.
    pub(crate) fn set_kernel(&mut self, kernel: Kernel) -> Result<(), Error> {
        self.kernel = Dispatch::new(kernel).ok_or(Error::KernelUnavailable(kernel))?;
        Ok(())
    }

    /// The read view of the filter: every read goes through it (see [`view`]).
    #[inline(always)]
    pub(crate) fn view(&self) -> View<'_, S> {
        View {
            blocks: self.words(),
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }

    /// The blocks as arrays of lanes, for the kernels.
    pub(crate) fn words(&self) -> &[[u32; LANES]] {
        bytemuck::cast_slice(&self.blocks)
    }

    /// The blocks as mutable arrays of lanes, for the kernels.
    pub(crate) fn words_mut(&mut self) -> &mut [[u32; LANES]] {
        bytemuck::cast_slice_mut(&mut self.blocks)
    }

    /// Keeps the first `num_blocks` blocks (at least one), for folding, in a new allocation of
    /// that size so that the memory of the rest is returned.
    pub(crate) fn truncate_blocks(&mut self, num_blocks: usize) -> Result<(), Error> {
        let num_blocks = num_blocks.clamp(1, self.blocks.len());
        let mut kept = Blocks::zeroed(num_blocks).ok_or(Error::AllocationFailed {
            bytes: num_blocks * BLOCK_BYTES,
        })?;
        kept.copy_from_slice(&self.blocks[..num_blocks]);
        self.blocks = kept;
        Ok(())
    }

    /// Takes the filter apart without copying, for the filter types built on the same blocks.
    #[cfg(target_has_atomic = "32")]
    pub(crate) fn into_parts(self) -> (Blocks, Dispatch, S) {
        (self.blocks, self.kernel, self.hasher)
    }

    /// Puts a filter together from its parts without copying; `blocks` must not be empty.
    pub(crate) fn from_parts(blocks: Blocks, kernel: Dispatch, hasher: S) -> Self {
        debug_assert!(!blocks.is_empty(), "a filter has at least one block");
        Filter {
            blocks,
            kernel,
            hasher,
        }
    }
}

/// The one primitive every write of [`Filter`] is written from (see `filter::write`): the
/// kernel's insert, one key or a batch with the loop inside the kernel.
impl<S> Insert for Filter<S> {
    type Hasher = S;
    type Error = Infallible;

    #[inline(always)]
    fn hasher(&self) -> &S {
        &self.hasher
    }

    #[inline(always)]
    fn insert_one(&mut self, hash: u64) -> Result<bool, Infallible> {
        let kernel = self.kernel;
        // The kernels answer whether every bit was already set.
        Ok(!kernel.insert_hash(SplitBlock, self.words_mut(), hash))
    }

    #[inline]
    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Infallible> {
        let distance = arch::prefetch_distance::<SplitBlock>(self.size_in_bytes());
        let kernel = self.kernel;
        kernel.insert_keys(SplitBlock, self.words_mut(), &PreHashed, hashes, distance);
        Ok(())
    }

    /// Hashing and inserting run inside the kernel, as for `insert_all`.
    #[inline]
    fn insert_keys<K: Hash>(&mut self, keys: &[K]) -> Result<(), Infallible>
    where
        S: BuildHasher,
    {
        let distance = arch::prefetch_distance::<SplitBlock>(self.size_in_bytes());
        let kernel = self.kernel;
        kernel.insert_keys(
            SplitBlock,
            bytemuck::cast_slice_mut(&mut self.blocks),
            &self.hasher,
            keys,
            distance,
        );
        Ok(())
    }
}

/// Adds every key (as [`insert`](Filter::insert)); a filter never refuses a key, it only fills
/// up, so this cannot fail.
///
/// ```
/// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
/// filter.extend(0..100u64);
/// filter.extend(&["apple", "pear"]);
/// assert!(filter.contains(&99u64) && filter.contains("pear"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: BuildHasher, K: Hash> Extend<K> for Filter<S> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        let Ok(()) = write::extend(self, keys);
    }
}

/// A filter of every key, sized for exactly their number at a false-positive rate of 1%
/// ([`Filter::with_fpr`]`(n, 0.01)`, about 10.5 bits per key): the keys are collected into a
/// `Vec` first, to count them. For another rate, build with [`Filter::with_fpr`] and
/// [`extend`](Extend::extend).
///
/// An empty iterator gives a one-block filter. Beyond [`math::MAX_BLOCKS`] blocks (about
/// 4 · 10^11 keys) the filter is capped at that size: fuller, never missing a key.
///
/// ```
/// let filter: splitbloom::Filter = (0..10_000u64).collect();
/// assert_eq!(filter.num_blocks(), splitbloom::math::num_blocks_for_fpr(10_000, 0.01)?);
/// assert!(filter.contains(&1234u64));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<K: Hash> FromIterator<K> for Filter {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let keys: alloc::vec::Vec<K> = keys.into_iter().collect();
        let num_blocks =
            math::num_blocks_for_fpr(keys.len().max(1), 0.01).unwrap_or(math::MAX_BLOCKS);
        let blocks = Blocks::zeroed_or_abort(num_blocks);
        let mut filter = Filter::from_parts(blocks, Dispatch::best(), Xxh3::default());
        filter.insert_batch(&keys);
        filter
    }
}

/// Filters are equal when they hold the same bits and the same hasher; the kernel is not
/// compared, since it never changes answers.
///
/// ```
/// use splitbloom::{Filter, Kernel};
/// let mut a = Filter::with_num_blocks(8)?;
/// let mut b = Filter::with_num_blocks(8)?.with_kernel(Kernel::Scalar)?;
/// a.insert("k");
/// b.insert("k");
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for Filter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher && self.blocks == other.blocks
    }
}

impl<S: Eq> Eq for Filter<S> {}

/// Shows the shape and statistics, not the bits.
///
/// ```
/// let filter = splitbloom::Filter::with_num_blocks(2)?;
/// assert!(format!("{filter:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for Filter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter")
            .field("num_blocks", &self.blocks.len())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .field("fill_ratio", &self.fill_ratio())
            .finish()
    }
}

// Compile-time check that filters can be shared between threads with any such hasher.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Filter>();
};
