//! [`BloomFilter`]: the owned, mutable Bloom filter of any [`Layout`], written once; and its
//! two names, [`Filter`] (the split-block layout) and [`WideFilter`] (the wide one). Its own
//! methods come in the order its documentation lists them: constructors, inserts and lookups
//! (keyed, pre-hashed, byte keys), then the accessors and statistics.

use core::convert::Infallible;
use core::fmt;
use core::hash::{BuildHasher, Hash};

use crate::arch::{self, Dispatch, PreHashed};
use crate::error::Error;
use crate::filter::Layout;
use crate::filter::view::View;
use crate::filter::write::{self, Insert};
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::Kernel;
use crate::layout::split_block::SplitBlock;
use crate::layout::wide::Wide;
use crate::math;
use crate::storage::Blocks;

/// A Bloom filter: "certainly not in the set" or "probably in the set", its bits laid out by
/// the layout `L`. Its two layouts have names of their own, [`Filter`] and [`WideFilter`],
/// which is how it is used; this type is the one both are, so that every operation is written
/// once for both.
///
/// Build one for the number of keys you expect and the false-positive rate you accept
/// ([`with_fpr`](BloomFilter::with_fpr)); [`insert`](BloomFilter::insert) answers `true` for
/// a key it did not hold yet, as `HashSet::insert` does, and
/// [`contains`](BloomFilter::contains) never answers `false` for a key that was inserted. Past
/// its planned size a filter keeps every key, but its false-positive rate climbs;
/// [`ScalableFilter`](crate::ScalableFilter) grows instead.
///
/// The methods come in four forms, listed in this order below: keys of any `Hash` type
/// (`insert`, `contains`, and their `_batch` forms, one call into the kernel per batch),
/// pre-hashed 64-bit keys (`insert_hash`, `contains_hash`), keys given as exactly their bytes
/// (`insert_bytes`, `contains_bytes`: the [byte-key contract](crate::hash) another program can
/// reproduce), and persistence (`to_bytes`, `write_to`, `from_bytes`). Then come the
/// conversions ([`into_atomic`](Filter::into_atomic)) and the set operations
/// ([`union`](BloomFilter::union), [`fold`](Filter::fold)).
///
/// Keys are hashed with `S` (by default [`Xxh3`]). The kernel is chosen once, when the filter
/// is built ([`Kernel::best`]), and never changes the results.
///
/// The layout is a type parameter, not only a name: Rust does not fall back to a type
/// parameter's default when it infers a call, so with the layouts' constructors on one
/// generic name, `BloomFilter::with_num_blocks(8)` could not tell which layout was meant.
/// [`Filter`] and [`WideFilter`] fix the layout and leave the hasher to infer.
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
pub struct BloomFilter<S = Xxh3, L: Layout = SplitBlock> {
    // Visible to the family's other files, which add methods to the filter.
    pub(super) blocks: Blocks<L::Storage>,
    pub(super) layout: L,
    pub(super) kernel: Dispatch,
    pub(super) hasher: S,
}

/// The split-block Bloom filter of Parquet, Impala and Arrow: a key's eight bits in one
/// 32-byte block. About 10.5 bits per key at 1%. See [`BloomFilter`] for its methods.
///
/// ```
/// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
/// filter.insert("apple");
/// assert!(filter.contains("apple"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub type Filter<S = Xxh3> = BloomFilter<S, SplitBlock>;

/// A Bloom filter for low false-positive rates: a key's eight bits in one 64-byte block (one
/// cache line) at 0.1% and above, or in two neighbouring blocks below
/// ([`math::wide`](crate::math::wide)). Within 1.10x of the classic optimum's memory at 10^-3
/// and 10^-4 and 1.15x at 10^-6 for 10^6 keys, where [`Filter`]'s Parquet layout needs 1.17x,
/// 1.37x and 2.25x. Pick it for targets of 0.1% and below; pick [`Filter`] near 1% and
/// wherever the Parquet layout is required. See [`BloomFilter`] for its methods.
///
/// ```
/// use splitbloom::WideFilter;
/// let mut filter = WideFilter::with_fpr(1000, 1e-5)?;
/// assert_eq!(filter.layout().probes(), 2);
/// assert!(filter.insert("apple"));
/// assert!(!filter.insert("apple"));
/// assert!(filter.contains("apple"));
/// assert!(!filter.contains("pear"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub type WideFilter<S = Xxh3> = BloomFilter<S, Wide>;

impl<L: Layout> BloomFilter<Xxh3, L> {
    /// An empty filter for `items` keys with a false-positive rate of at most `fpr`, sized
    /// with its layout's formula: the split-block one
    /// ([`math::num_blocks_for_fpr`](crate::math::num_blocks_for_fpr)), not the classic Bloom
    /// formula, which under-sizes blocked filters; for the wide layout one probe per key where
    /// that costs at most 1% more memory than two, two below
    /// ([`math::wide::num_blocks_for_fpr`](crate::math::wide::num_blocks_for_fpr)).
    ///
    /// Errors when `items` is 0, `fpr` is not strictly between 0 and 1, or the filter would be
    /// too large to allocate.
    ///
    /// This and the other constructors without a hasher argument build the default hasher.
    /// For another one, pass it: `Filter::with_fpr_and_hasher(items, fpr,
    /// ParquetHash::default())`. They are not generic over the hasher because Rust does not
    /// fall back to a type parameter's default when it infers a call: a generic `with_fpr`
    /// would make every `Filter::with_fpr(..)` need a type annotation, as `HashMap::new` would.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_fpr(1_000_000, 0.01)?;
    /// assert_eq!(filter.num_blocks(), 41_130); // 10.53 bits per key
    /// let wide = splitbloom::WideFilter::with_fpr(1_000_000, 1e-3)?;
    /// assert_eq!((wide.num_blocks(), wide.layout().probes()), (30_826, 1));
    /// assert!(splitbloom::Filter::with_fpr(1000, 1.0).is_err());
    /// assert!(splitbloom::Filter::with_fpr(0, 0.01).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr(items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(items, fpr, Xxh3::default())
    }
}

impl<S, L: Layout> BloomFilter<S, L> {
    /// [`BloomFilter::with_fpr`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, Filter, WideFilter, Xxh3};
    /// // The default hasher with a seed of one's own.
    /// let filter = Filter::with_fpr_and_hasher(1000, 0.01, Xxh3::with_seed(9))?;
    /// assert_eq!(filter.hasher().seed(), 9);
    /// let wide = WideFilter::with_fpr_and_hasher(1000, 1e-4, Xxh3::with_seed(9))?;
    /// assert_eq!(wide.hasher().seed(), 9);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr_and_hasher(items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let (num_blocks, layout) = L::for_fpr(items, fpr)?;
        Self::with_layout(num_blocks, layout, hasher)
    }

    /// The one constructor every other calls: `num_blocks` zeroed blocks of `layout`, after
    /// checking the shape; the allocation's failure is an error, never an abort.
    pub(crate) fn with_layout(num_blocks: usize, layout: L, hasher: S) -> Result<Self, Error> {
        layout.check_shape(num_blocks)?;
        Ok(BloomFilter {
            blocks: Blocks::try_zeroed(num_blocks)?,
            layout,
            kernel: Dispatch::best(),
            hasher,
        })
    }
}

impl Filter {
    /// An empty filter for `items` keys with `bits_per_key` bits each (rounded up to whole
    /// blocks of 256 bits).
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_bits_per_key(1000, 10.0)?;
    /// assert_eq!(filter.num_blocks(), 40);
    /// assert!(splitbloom::Filter::with_bits_per_key(1000, f64::NAN).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_bits_per_key(items: usize, bits_per_key: f64) -> Result<Self, Error> {
        Self::with_bits_per_key_and_hasher(items, bits_per_key, Xxh3::default())
    }

    /// An empty filter of exactly `num_blocks` blocks.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(100)?;
    /// assert_eq!(filter.num_blocks(), 100);
    /// assert!(splitbloom::Filter::with_num_blocks(0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks(num_blocks: usize) -> Result<Self, Error> {
        Self::with_num_blocks_and_hasher(num_blocks, Xxh3::default())
    }
}

impl<S> Filter<S> {
    /// [`Filter::with_bits_per_key`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::parquet::ParquetHash;
    /// let filter = splitbloom::Filter::with_bits_per_key_and_hasher(1000, 16.0, ParquetHash::default())?;
    /// assert_eq!(filter.num_blocks(), 63);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_bits_per_key_and_hasher(
        items: usize,
        bits_per_key: f64,
        hasher: S,
    ) -> Result<Self, Error> {
        let num_blocks = math::num_blocks_for_bits(items, bits_per_key)?;
        Self::with_num_blocks_and_hasher(num_blocks, hasher)
    }

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
        Self::with_layout(num_blocks, SplitBlock, hasher)
    }
}

impl WideFilter {
    /// An empty filter of exactly `num_blocks` blocks of 64 bytes, with `probes` (1 or 2)
    /// blocks per key; two probes need a multiple of 64 blocks.
    ///
    /// ```
    /// let filter = splitbloom::WideFilter::with_num_blocks(128, 2)?;
    /// assert_eq!(filter.size_in_bytes(), 128 * 64);
    /// assert!(splitbloom::WideFilter::with_num_blocks(100, 2).is_err());
    /// assert!(splitbloom::WideFilter::with_num_blocks(100, 3).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks(num_blocks: usize, probes: u8) -> Result<Self, Error> {
        Self::with_num_blocks_and_hasher(num_blocks, probes, Xxh3::default())
    }
}

impl<S> WideFilter<S> {
    /// [`WideFilter::with_num_blocks`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, WideFilter, Xxh3};
    /// let filter = WideFilter::with_num_blocks_and_hasher(64, 2, Xxh3::with_seed(7))?;
    /// assert_eq!((filter.num_blocks(), filter.hasher().seed()), (64, 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks_and_hasher(
        num_blocks: usize,
        probes: u8,
        hasher: S,
    ) -> Result<Self, Error> {
        let layout =
            Wide::with_probes(probes).ok_or(Error::InvalidWideShape { num_blocks, probes })?;
        Self::with_layout(num_blocks, layout, hasher)
    }
}

impl<S: BuildHasher, L: Layout> BloomFilter<S, L> {
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
    /// let mut wide = splitbloom::WideFilter::with_fpr(100, 1e-4)?;
    /// assert!(wide.insert(&42u64));
    /// assert!(!wide.insert(&42u64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        let Ok(new) = write::insert(self, key);
        new
    }

    /// Adds every key of `keys`. Same result as calling [`insert`](BloomFilter::insert) on
    /// each key, with one call into the kernel for the whole batch; on filters of at least half
    /// the L2 cache each key is hashed and its lines prefetched well before it is inserted, so
    /// the cache misses of a batch overlap.
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

/// How a [`BloomFilter`] answers, in each read method's docs.
macro_rules! filter_note {
    () => {
        "A key's bits are in one block (one cache line), or two neighbouring ones for a wide \
         filter below 0.1%. Batches run inside the kernel, which on filters of at least half \
         the L2 cache hashes each key and prefetches its lines well before probing it."
    };
}

read_methods!(@reader {S, L: Layout} BloomFilter {S, L}, |filter| filter.view());
read_methods!(@keys {S, L: Layout} BloomFilter {S, L}, filter_setup!(), filter_note!());

impl<S, L: Layout> BloomFilter<S, L> {
    /// Adds a pre-hashed key; returns `true` when it was newly inserted (some of its bits were
    /// unset), as [`insert`](BloomFilter::insert).
    ///
    /// The high 32 bits of `hash` choose the block and the low 32 bits the bits inside it (a
    /// wide filter's second probe derives its bits from the whole hash), so both halves must
    /// be well mixed.
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
    /// the L2 cache the loop prefetches each hash's lines a few hashes ahead, so the cache
    /// misses of a batch overlap instead of following one another.
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

read_methods!(@hashes {S, L: Layout} BloomFilter {S, L}, filter_setup!(), filter_note!());

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], whose framing the [`hash`](crate::hash) module documents so
/// another program can reproduce it. Use these for persisted string and byte keys.
impl<S: FilterHasher, L: Layout> BloomFilter<S, L> {
    /// Adds the key made of exactly `key`'s bytes; returns `true` when it was newly inserted,
    /// as [`insert`](BloomFilter::insert).
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
    /// [`insert_bytes`](BloomFilter::insert_bytes) on each, through the pre-hashed batch path.
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

read_methods!(@bytes yes, {S, L: Layout} BloomFilter {S, L}, filter_setup!(), filter_note!());

shared_methods!(@accessors {S, L: Layout} BloomFilter {S, L}, "let filter = splitbloom::Filter::with_num_blocks(8)?;", 32);

impl<S, L: Layout> BloomFilter<S, L> {
    /// The layout, with what it decided when the filter was sized (a wide filter's probes per
    /// key).
    ///
    /// ```
    /// use splitbloom::{Layout, WideFilter};
    /// assert_eq!(WideFilter::with_fpr(100_000, 1e-6)?.layout().probes(), 2);
    /// assert_eq!(WideFilter::with_fpr(1000, 1e-2)?.layout().probes(), 1);
    /// assert_eq!(splitbloom::Filter::with_num_blocks(1)?.layout().probes(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn layout(&self) -> L {
        self.layout
    }

    /// The blocks each key sets its bits in: 1 (one cache line per lookup), or 2 for a
    /// [`WideFilter`] sized below 0.1%.
    ///
    /// ```
    /// assert_eq!(splitbloom::WideFilter::with_fpr(100_000, 1e-6)?.probes(), 2);
    /// assert_eq!(splitbloom::WideFilter::with_fpr(1000, 1e-2)?.probes(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn probes(&self) -> u8 {
        self.layout.probes()
    }

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
        self.blocks.fill(bytemuck::Zeroable::zeroed());
    }

    /// The bitset as words in native byte order, block after block: `u32` lanes for a
    /// [`Filter`], `u64` words for a [`WideFilter`] (word `j` of block `b` at `8b + j`; bit `i`
    /// of a word is `1 << i`).
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(2)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.as_words().len(), 16);
    /// assert_eq!(filter.as_words().iter().map(|w| w.count_ones()).sum::<u32>(), 8);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn as_words(&self) -> &[L::Word] {
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

    /// The false-positive rate of the filter as it is now: the chance that a random hash finds
    /// every bit of its blocks set, from the fill of each block's words, averaged over blocks.
    /// Exact for uniformly distributed hashes, whatever was inserted.
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
    /// [`math::keys_per_block_for_fill`] and
    /// [`math::wide::items_for_fill`](crate::math::wide::items_for_fill)). Accurate to a few
    /// percent until the filter is far past its planned size.
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
        self.view().estimated_items()
    }

    /// [`with_kernel`](BloomFilter::with_kernel) in place, for filters held in collections.
    pub(crate) fn set_kernel(&mut self, kernel: Kernel) -> Result<(), Error> {
        self.kernel = Dispatch::new(kernel).ok_or(Error::KernelUnavailable(kernel))?;
        Ok(())
    }

    /// The read view of the filter: every read goes through it (see `filter::view`).
    #[inline(always)]
    pub(crate) fn view(&self) -> View<'_, S, L> {
        View {
            blocks: self.words(),
            layout: self.layout,
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }

    /// The blocks as arrays of words, for the kernels.
    #[inline(always)]
    pub(crate) fn words(&self) -> &[L::Block] {
        bytemuck::cast_slice(&self.blocks)
    }

    /// The blocks as mutable arrays of words, for the kernels.
    #[inline(always)]
    pub(crate) fn words_mut(&mut self) -> &mut [L::Block] {
        bytemuck::cast_slice_mut(&mut self.blocks)
    }

    /// The batch prefetch distance for this filter's size (see `arch::prefetch_distance`).
    #[inline]
    fn prefetch_distance(&self) -> usize {
        arch::prefetch_distance::<L>(self.size_in_bytes())
    }
}

/// The split-block filter's parts, for the filter types built on the same blocks (the atomic
/// and the counting filter) and for folding.
impl<S> Filter<S> {
    /// Keeps the first `num_blocks` blocks (at least one), for folding, in a new allocation of
    /// that size so that the memory of the rest is returned.
    pub(crate) fn truncate_blocks(&mut self, num_blocks: usize) -> Result<(), Error> {
        let num_blocks = num_blocks.clamp(1, self.blocks.len());
        let mut kept = Blocks::try_zeroed(num_blocks)?;
        kept.copy_from_slice(&self.blocks[..num_blocks]);
        self.blocks = kept;
        Ok(())
    }

    /// Takes the filter apart without copying.
    #[cfg(target_has_atomic = "32")]
    pub(crate) fn into_parts(self) -> (Blocks, Dispatch, S) {
        (self.blocks, self.kernel, self.hasher)
    }

    /// Puts a filter together from its parts without copying; `blocks` must not be empty.
    pub(crate) fn from_parts(blocks: Blocks, kernel: Dispatch, hasher: S) -> Self {
        debug_assert!(!blocks.is_empty(), "a filter has at least one block");
        BloomFilter {
            blocks,
            layout: SplitBlock,
            kernel,
            hasher,
        }
    }
}

/// The one primitive every write of [`BloomFilter`] is written from (see `filter::write`):
/// the kernel's insert, one key or a batch with the loop inside the kernel.
impl<S, L: Layout> Insert for BloomFilter<S, L> {
    type Hasher = S;
    type Error = Infallible;

    #[inline(always)]
    fn hasher(&self) -> &S {
        &self.hasher
    }

    #[inline(always)]
    fn insert_one(&mut self, hash: u64) -> Result<bool, Infallible> {
        let (kernel, layout) = (self.kernel, self.layout);
        // The kernels answer whether every bit was already set.
        Ok(!kernel.insert_hash(layout, self.words_mut(), hash))
    }

    #[inline]
    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Infallible> {
        let (kernel, layout, distance) = (self.kernel, self.layout, self.prefetch_distance());
        kernel.insert_keys(layout, self.words_mut(), &PreHashed, hashes, distance);
        Ok(())
    }

    /// Hashing and inserting run inside the kernel, as for `insert_all`.
    #[inline]
    fn insert_keys<K: Hash>(&mut self, keys: &[K]) -> Result<(), Infallible>
    where
        S: BuildHasher,
    {
        let (kernel, layout, distance) = (self.kernel, self.layout, self.prefetch_distance());
        let blocks = bytemuck::cast_slice_mut(&mut self.blocks);
        kernel.insert_keys(layout, blocks, &self.hasher, keys, distance);
        Ok(())
    }
}

/// Adds every key (as [`insert`](BloomFilter::insert)); a filter never refuses a key, it only
/// fills up, so this cannot fail.
///
/// ```
/// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
/// filter.extend(0..100u64);
/// filter.extend(&["apple", "pear"]);
/// assert!(filter.contains(&99u64) && filter.contains("pear"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: BuildHasher, L: Layout, K: Hash> Extend<K> for BloomFilter<S, L> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        let Ok(()) = write::extend(self, keys);
    }
}

/// A filter of every key, sized for exactly their number: at a false-positive rate of 1% for
/// a [`Filter`] (about 10.5 bits per key), 0.1% for a [`WideFilter`] (one cache line per key).
/// The keys are collected into a `Vec` first, to count them. For another rate, build with
/// [`with_fpr`](BloomFilter::with_fpr) and [`extend`](Extend::extend).
///
/// An empty iterator gives a filter sized for one key. Beyond the largest size (about
/// 4 · 10^11 keys) the filter is capped at it: fuller, never missing a key. An allocation that
/// fails aborts, as collecting into a `Vec` does.
///
/// ```
/// let filter: splitbloom::Filter = (0..10_000u64).collect();
/// assert_eq!(filter.num_blocks(), splitbloom::math::num_blocks_for_fpr(10_000, 0.01)?);
/// assert!(filter.contains(&1234u64));
/// let wide: splitbloom::WideFilter = (0..10_000u64).collect();
/// assert_eq!(wide.num_blocks(), splitbloom::math::wide::num_blocks_for_fpr(10_000, 1e-3)?.0);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<K: Hash, L: Layout> FromIterator<K> for BloomFilter<Xxh3, L> {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let keys: alloc::vec::Vec<K> = keys.into_iter().collect();
        let (num_blocks, layout) =
            L::for_fpr(keys.len().max(1), L::DEFAULT_FPR).unwrap_or_else(|_| L::largest());
        let mut filter = BloomFilter {
            blocks: Blocks::zeroed_or_abort(num_blocks),
            layout,
            kernel: Dispatch::best(),
            hasher: Xxh3::default(),
        };
        filter.insert_batch(&keys);
        filter
    }
}

/// Filters are equal when they hold the same bits with the same layout and hasher; the kernel
/// is not compared, since it never changes answers.
///
/// ```
/// use splitbloom::{Filter, Kernel, WideFilter};
/// let mut a = Filter::with_num_blocks(8)?;
/// let mut b = Filter::with_num_blocks(8)?.with_kernel(Kernel::Scalar)?;
/// a.insert("k");
/// b.insert("k");
/// assert_eq!(a, b);
/// assert_ne!(WideFilter::with_num_blocks(64, 2)?, WideFilter::with_num_blocks(64, 1)?);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq, L: Layout> PartialEq for BloomFilter<S, L> {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && self.hasher == other.hasher
            && self.as_words() == other.as_words()
    }
}

impl<S: Eq, L: Layout> Eq for BloomFilter<S, L> {}

impl<S: Clone, L: Layout> Clone for BloomFilter<S, L> {
    fn clone(&self) -> Self {
        BloomFilter {
            blocks: self.blocks.clone(),
            layout: self.layout,
            kernel: self.kernel,
            hasher: self.hasher.clone(),
        }
    }
}

/// Shows the shape and statistics, not the bits.
///
/// ```
/// let filter = splitbloom::Filter::with_num_blocks(2)?;
/// assert!(format!("{filter:?}").contains("num_blocks: 2"));
/// let wide = splitbloom::WideFilter::with_num_blocks(64, 2)?;
/// assert!(format!("{wide:?}").contains("probes: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug, L: Layout> fmt::Debug for BloomFilter<S, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(L::NAME)
            .field("num_blocks", &self.blocks.len())
            .field("layout", &self.layout)
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
    assert_send_sync::<WideFilter>();
};
