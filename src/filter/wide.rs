//! [`WideFilter`]: the filter for false-positive rates of 0.1% and below, and its own methods
//! in the order its documentation lists them: constructors, inserts and lookups (keyed,
//! pre-hashed, byte keys), then the accessors and statistics.
//!
//! The layout and its scalar reference are in `wide_block.rs`, the batch loops in
//! `arch/wide_generic.rs`, the rates and sizing in [`math::wide`]; the reads go through the
//! shared `Probe` path (`view.rs`) and the writes through the shared `Insert` path
//! (`write.rs`), so this type offers the same calls with the same contracts as [`Filter`].
//!
//! [`Filter`]: crate::Filter

use core::convert::Infallible;
use core::fmt;
use core::hash::{BuildHasher, Hash};

use crate::arch;
use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::view::WideView;
use crate::filter::write::{self, Insert};
use crate::format::{HEADER_BYTES, validate_layout, wide_decode_into};
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::Layout;
use crate::layout::wide::Wide as WideLayout;
use crate::layout::wide::{WORDS, WideBlock};
use crate::math::wide as math;
use crate::storage::Blocks;

/// A Bloom filter for low false-positive rates: within 1.10x of the classic optimum's memory
/// at 10^-3 and 10^-4 and 1.15x at 10^-6 for 10^6 keys, where [`Filter`](crate::Filter)'s
/// Parquet layout needs 1.17x, 1.37x and 2.25x.
///
/// Pick it for targets of 0.1% and below (URL dedup, unique visitors, storage engines that
/// spend 15 bits per key or more); pick [`Filter`](crate::Filter) near 1% and wherever the
/// Parquet layout is required. A key sets one bit in each of the eight 64-bit words of one
/// 64-byte block (one cache line) at 0.1% and above, or of two neighbouring blocks (the
/// second wraps inside a 4 KiB page) below: [`with_fpr`](WideFilter::with_fpr) picks the probes from the target
/// ([`math::wide::num_blocks_for_fpr`](crate::math::wide::num_blocks_for_fpr)).
///
/// The methods have the same names and contracts as [`Filter`](crate::Filter)'s: `insert`
/// answers `true` for a key it did not hold yet, and `contains` never answers `false` for a
/// key that was inserted.
///
/// ```
/// use splitbloom::WideFilter;
/// let mut filter = WideFilter::with_fpr(1000, 1e-5)?;
/// assert_eq!(filter.probes(), 2);
/// assert!(filter.insert("apple"));
/// assert!(!filter.insert("apple"));
/// assert!(filter.contains("apple"));
/// assert!(!filter.contains("pear"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct WideFilter<S = Xxh3> {
    blocks: Blocks<WideBlock>,
    /// Blocks each key sets its bits in: 1 or 2.
    probes: u8,
    kernel: Dispatch,
    hasher: S,
}

impl WideFilter {
    /// An empty filter for `items` keys with a false-positive rate of at most `fpr`, sized
    /// with the wide layout's formula: one probe per key where that costs at most 1% more
    /// memory than two, two below (see [`math::wide`](crate::math::wide)).
    ///
    /// Errors when `items` is 0, `fpr` is not strictly between 0 and 1, or the filter would be
    /// too large to allocate.
    ///
    /// ```
    /// let filter = splitbloom::WideFilter::with_fpr(1_000_000, 1e-3)?;
    /// assert_eq!((filter.num_blocks(), filter.probes()), (30_826, 1));
    /// assert!(splitbloom::WideFilter::with_fpr(0, 1e-3).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr(items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(items, fpr, Xxh3::default())
    }

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
    /// [`WideFilter::with_fpr`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, WideFilter, Xxh3};
    /// let filter = WideFilter::with_fpr_and_hasher(1000, 1e-4, Xxh3::with_seed(9))?;
    /// assert_eq!(filter.hasher().seed(), 9);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr_and_hasher(items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let (num_blocks, probes) = math::num_blocks_for_fpr(items, fpr)?;
        Self::with_num_blocks_and_hasher(num_blocks, probes, hasher)
    }

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
        if num_blocks == 0 {
            return Err(Error::ZeroBlocks);
        }
        if num_blocks > math::MAX_WIDE_BLOCKS {
            return Err(Error::TooLarge {
                blocks: num_blocks as f64,
            });
        }
        if !math::is_valid_shape(num_blocks, probes) {
            return Err(Error::InvalidWideShape { num_blocks, probes });
        }
        let blocks = Blocks::zeroed(num_blocks).ok_or(Error::AllocationFailed {
            bytes: num_blocks * math::WIDE_BLOCK_BYTES,
        })?;
        Ok(WideFilter {
            blocks,
            probes,
            kernel: Dispatch::best(),
            hasher,
        })
    }
}

impl<S> WideFilter<S> {
    /// A filter holding a copy of validated `words`, for the view's `to_wide_filter`.
    pub(crate) fn from_words(words: &[[u64; WORDS]], probes: u8, hasher: S) -> Result<Self, Error> {
        let mut filter = WideFilter::with_num_blocks_and_hasher(words.len(), probes, hasher)?;
        filter.words_mut().copy_from_slice(words);
        Ok(filter)
    }
}

impl<S: BuildHasher> WideFilter<S> {
    /// Adds `key`; returns `true` when it was newly inserted (some of its bits were unset), as
    /// `HashSet::insert` does.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(100, 1e-4)?;
    /// assert!(filter.insert(&42u64));
    /// assert!(!filter.insert(&42u64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        let Ok(new) = write::insert(self, key);
        new
    }

    /// Adds every key of `keys`, as [`insert`](WideFilter::insert) on each; on filters of at
    /// least half the L2 cache each key's blocks are prefetched a few keys before it is
    /// inserted, so the cache misses of a batch overlap.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(1000, 1e-4)?;
    /// filter.insert_batch(&["apple", "pear", "plum"]);
    /// assert!(filter.contains("pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_batch<K: Hash>(&mut self, keys: &[K]) {
        let Ok(()) = write::insert_batch(self, keys);
    }
}

/// The text of the read methods' doc examples: a `filter` holding `"apple"` and `"pear"`.
macro_rules! wide_setup {
    () => {
        "let mut filter = splitbloom::WideFilter::with_fpr(100, 1e-4)?;
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}"
    };
}

/// How a [`WideFilter`] answers, in each read method's docs.
macro_rules! wide_note {
    () => {
        "A key's bits are in one 64-byte block, or two neighbouring ones; batches prefetch \
         both blocks of each key a few keys ahead on filters of at least half the L2 cache."
    };
}

read_methods! {
    type: WideFilter,
    setup: wide_setup!(),
    note: wide_note!(),
    reader: |filter| filter.view(),
    bytes: yes,
}

impl<S> WideFilter<S> {
    /// Adds a pre-hashed key; returns `true` when it was newly inserted, as
    /// [`insert`](WideFilter::insert). The high 32 bits of `hash` choose the first block and
    /// the low 32 bits its bits; with two probes the whole hash derives the second.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_num_blocks(64, 2)?;
    /// assert!(filter.insert_hash(0x0123_4567_89ab_cdef));
    /// assert!(!filter.insert_hash(0x0123_4567_89ab_cdef));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let Ok(new) = self.insert_one(hash);
        new
    }

    /// Adds every hash of `hashes`, prefetching each hash's blocks a few hashes ahead on
    /// filters of at least half the L2 cache.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_num_blocks(64, 1)?;
    /// filter.insert_hash_batch(&[1 << 40, 2 << 40, 3 << 40]);
    /// assert!(filter.contains_hash(2 << 40));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) {
        let Ok(()) = self.insert_all(hashes);
    }
}

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], whose framing the [`hash`](crate::hash) module documents.
impl<S: FilterHasher> WideFilter<S> {
    /// Adds the key made of exactly `key`'s bytes; returns `true` when it was newly inserted.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(100, 1e-4)?;
    /// assert!(filter.insert_bytes(b"apple"));
    /// assert!(filter.contains_bytes(b"apple"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        let Ok(new) = write::insert_bytes(self, key);
        new
    }

    /// Adds every key of `keys`, each exactly its bytes, through the batch path.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(100, 1e-4)?;
    /// filter.insert_bytes_batch(&["apple", "pear"]);
    /// assert!(filter.contains_bytes(b"pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) {
        let Ok(()) = write::insert_bytes_batch(self, keys);
    }
}

shared_methods!(@accessors WideFilter, "let filter = splitbloom::WideFilter::with_num_blocks(8, 1)?;", 64);

impl<S> WideFilter<S> {
    /// The blocks each key sets its bits in: 1 (one cache line per lookup) or 2.
    ///
    /// ```
    /// assert_eq!(splitbloom::WideFilter::with_fpr(100_000, 1e-6)?.probes(), 2);
    /// assert_eq!(splitbloom::WideFilter::with_fpr(1000, 1e-2)?.probes(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn probes(&self) -> u8 {
        self.probes
    }

    /// Removes every key, keeping the size.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_num_blocks(8, 1)?;
    /// filter.insert("k");
    /// filter.clear();
    /// assert!(!filter.contains("k"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn clear(&mut self) {
        self.blocks.fill(WideBlock::default());
    }

    /// The bits as 64-bit words, eight per block, in block order (word `j` of block `b` at
    /// `8b + j`); bit `i` of a word is `1 << i`.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_num_blocks(2, 1)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.as_words().iter().map(|w| w.count_ones()).sum::<u32>(), 8);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn as_words(&self) -> &[u64] {
        bytemuck::cast_slice(&self.blocks)
    }

    /// The fraction of bits that are set, from 0 to 1.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_num_blocks(1, 1)?;
    /// filter.insert_hash(7);
    /// assert_eq!(filter.fill_ratio(), 8.0 / 512.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        self.view().fill_ratio()
    }

    /// The false-positive rate of the filter as it is now: the chance that a random hash finds
    /// every bit of its blocks set, from the fill of each block's words. Exact for uniformly
    /// distributed hashes, whatever was inserted.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(10_000, 1e-4)?;
    /// assert_eq!(filter.estimated_fpr(), 0.0);
    /// for key in 0..10_000u64 {
    ///     filter.insert(&key);
    /// }
    /// // This filter's own rate: it scatters around the formula's expectation from one filter
    /// // to the next, and a filter built with `with_fpr` stays under its target.
    /// assert!(filter.estimated_fpr() > 0.0 && filter.estimated_fpr() < 1e-4);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        self.view().estimated_fpr()
    }

    /// An estimate of how many distinct keys were inserted, from the fill ratio
    /// ([`math::wide::items_for_fill`](crate::math::wide::items_for_fill)).
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(10_000, 1e-4)?;
    /// for key in 0..10_000u64 {
    ///     filter.insert(&key);
    /// }
    /// assert!((filter.estimated_items() - 10_000.0).abs() < 300.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_items(&self) -> f64 {
        self.view().estimated_items()
    }

    /// The read view: every read and the serialization go through it (see `filter::view`).
    #[inline(always)]
    fn view(&self) -> WideView<'_, S> {
        WideView {
            blocks: self.words(),
            probes: self.probes,
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }

    /// The blocks as word arrays, for the layout's functions.
    #[inline(always)]
    fn words(&self) -> &[[u64; WORDS]] {
        bytemuck::cast_slice(&self.blocks)
    }

    #[inline(always)]
    fn words_mut(&mut self) -> &mut [[u64; WORDS]] {
        bytemuck::cast_slice_mut(&mut self.blocks)
    }

    /// The batch prefetch distance (see `arch::wide_generic::wide_prefetch_distance`).
    #[inline]
    fn prefetch_distance(&self) -> usize {
        arch::prefetch_distance::<WideLayout>(self.size_in_bytes())
    }
}

/// The bytes of a [`WideFilter`]: the `SBLM` format of [`format`](crate::format) under the wide
/// layout id (1 or 2, the probes per key), so the header, checksum and checks are
/// [`Filter`](crate::Filter)'s and the bitset is the blocks' eight little-endian `u64` words.
impl<S: FilterHasher> WideFilter<S> {
    /// The filter in splitbloom's format, under the wide layout id.
    ///
    /// ```
    /// use splitbloom::WideFilter;
    /// let mut filter = WideFilter::with_fpr(1000, 1e-5)?;
    /// filter.insert("key");
    /// let bytes = filter.to_bytes();
    /// assert_eq!(bytes[7], 2); // wide, two probes per key
    /// let copy = WideFilter::from_bytes(&bytes)?;
    /// assert_eq!(copy, filter);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> alloc::vec::Vec<u8> {
        self.view().to_bytes()
    }

    /// The length of [`to_bytes`](WideFilter::to_bytes): 32 bytes of header plus 64 a block.
    ///
    /// ```
    /// let filter = splitbloom::WideFilter::with_num_blocks(10, 1)?;
    /// assert_eq!(filter.serialized_len(), 32 + 640);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        HEADER_BYTES + self.size_in_bytes()
    }

    /// Writes [`to_bytes`](WideFilter::to_bytes) to `writer` without building it in memory
    /// first.
    ///
    /// ```
    /// let filter = splitbloom::WideFilter::with_num_blocks(64, 2)?;
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        self.view().write_to(writer)
    }

    /// Reads a wide filter built with the hasher type `S`, named as the type parameter, into an
    /// owned copy; the seed comes from the bytes. [`WideFilter::from_bytes`] is this for the
    /// default hasher.
    ///
    /// Every problem is an [`Error`], found before anything is allocated: wrong magic, unknown
    /// version or layout, truncated or over-long input, zero or too many blocks, two probes on
    /// a block count that is not a multiple of 64, checksum mismatch, a split-block filter
    /// ([`Error::LayoutMismatch`]: read it with [`Filter`](crate::Filter)), unknown or
    /// unavailable hasher, hasher kind other than `S`'s.
    ///
    /// ```
    /// use splitbloom::{Error, WideFilter, parquet::ParquetHash};
    /// let bytes = WideFilter::with_num_blocks_and_hasher(64, 2, ParquetHash::default())?.to_bytes();
    /// let filter = WideFilter::<ParquetHash>::from_bytes_with_hasher_type(&bytes)?;
    /// assert_eq!((filter.num_blocks(), filter.probes()), (64, 2));
    /// let split = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// assert!(matches!(WideFilter::from_bytes(&split), Err(Error::LayoutMismatch { .. })));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &[u8]) -> Result<Self, Error> {
        let (header, payload) = validate_layout::<S>(bytes, Layout::Wide)?;
        let hasher = S::try_with_seed(header.seed)?;
        let mut filter =
            WideFilter::with_num_blocks_and_hasher(header.num_blocks, header.probes, hasher)?;
        wide_decode_into(payload, filter.words_mut());
        Ok(filter)
    }
}

impl WideFilter {
    /// Reads a wide filter written by [`to_bytes`](WideFilter::to_bytes) with the default
    /// hasher, with every check of
    /// [`from_bytes_with_hasher_type`](WideFilter::from_bytes_with_hasher_type).
    ///
    /// ```
    /// use splitbloom::{Error, WideFilter};
    /// let mut filter = WideFilter::with_fpr(1000, 1e-3)?;
    /// filter.insert("key");
    /// let copy = WideFilter::from_bytes(&filter.to_bytes())?;
    /// assert!(copy.contains("key"));
    /// assert!(matches!(WideFilter::from_bytes(b"SBLM"), Err(Error::Truncated { .. })));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<WideFilter, Error> {
        WideFilter::from_bytes_with_hasher_type(bytes)
    }
}

impl<S: PartialEq> WideFilter<S> {
    /// Makes `self` the union of both filters: afterwards it contains every key of either.
    /// The result is exactly the filter built from both key sets.
    ///
    /// Errors when the filters differ in size, probes per key or hasher.
    ///
    /// ```
    /// use splitbloom::WideFilter;
    /// let mut a = WideFilter::with_num_blocks(64, 2)?;
    /// let mut b = WideFilter::with_num_blocks(64, 2)?;
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// assert!(a.union(&WideFilter::with_num_blocks(128, 2)?).is_err());
    /// assert!(a.union(&WideFilter::with_num_blocks(64, 1)?).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        if self.blocks.len() != other.blocks.len() {
            return Err(Error::ShapeMismatch {
                left: self.blocks.len(),
                right: other.blocks.len(),
            });
        }
        if self.probes != other.probes {
            return Err(Error::ProbesMismatch {
                left: self.probes,
                right: other.probes,
            });
        }
        if self.hasher != other.hasher {
            return Err(Error::HasherMismatch);
        }
        for (word, other) in self.words_mut().iter_mut().flatten().zip(other.as_words()) {
            *word |= other;
        }
        Ok(())
    }
}

/// The one primitive every write of [`WideFilter`] is written from (see `filter::write`).
impl<S> Insert for WideFilter<S> {
    type Hasher = S;
    type Error = Infallible;

    #[inline(always)]
    fn hasher(&self) -> &S {
        &self.hasher
    }

    #[inline(always)]
    fn insert_one(&mut self, hash: u64) -> Result<bool, Infallible> {
        let (probes, kernel) = (self.probes, self.kernel);
        // The kernels answer whether every bit was already set.
        let layout = WideLayout::with_probes(probes).unwrap_or(WideLayout::ONE_PROBE);
        Ok(!kernel.insert_hash(layout, self.words_mut(), hash))
    }

    #[inline]
    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Infallible> {
        let (probes, kernel, distance) = (self.probes, self.kernel, self.prefetch_distance());
        let layout = WideLayout::with_probes(probes).unwrap_or(WideLayout::ONE_PROBE);
        kernel.insert_keys(layout, self.words_mut(), &arch::PreHashed, hashes, distance);
        Ok(())
    }

    /// Hashing and inserting run inside the kernel, each key hashed as its blocks are
    /// prefetched.
    #[inline]
    fn insert_keys<K: Hash>(&mut self, keys: &[K]) -> Result<(), Infallible>
    where
        S: BuildHasher,
    {
        let (probes, kernel, distance) = (self.probes, self.kernel, self.prefetch_distance());
        let (blocks, hasher) = (bytemuck::cast_slice_mut(&mut self.blocks), &self.hasher);
        let layout = WideLayout::with_probes(probes).unwrap_or(WideLayout::ONE_PROBE);
        kernel.insert_keys(layout, blocks, hasher, keys, distance);
        Ok(())
    }
}

/// Adds every key (as [`insert`](WideFilter::insert)); this cannot fail.
///
/// ```
/// let mut filter = splitbloom::WideFilter::with_fpr(1000, 1e-4)?;
/// filter.extend(0..100u64);
/// assert!(filter.contains(&99u64));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: BuildHasher, K: Hash> Extend<K> for WideFilter<S> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        let Ok(()) = write::extend(self, keys);
    }
}

/// A filter of every key, sized for exactly their number at a false-positive rate of 0.1%
/// ([`WideFilter::with_fpr`]`(n, 1e-3)`, one cache line per key): the keys are collected into
/// a `Vec` first, to count them. For another rate, build with [`WideFilter::with_fpr`] and
/// [`extend`](Extend::extend). An empty iterator gives a filter for one key; beyond the largest
/// size the filter is capped at it: fuller, never missing a key.
///
/// ```
/// let filter: splitbloom::WideFilter = (0..10_000u64).collect();
/// assert_eq!(filter.num_blocks(), splitbloom::math::wide::num_blocks_for_fpr(10_000, 1e-3)?.0);
/// assert!(filter.contains(&1234u64));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<K: Hash> FromIterator<K> for WideFilter {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let keys: alloc::vec::Vec<K> = keys.into_iter().collect();
        let (num_blocks, probes) =
            math::num_blocks_for_fpr(keys.len().max(1), 1e-3).unwrap_or((math::MAX_WIDE_BLOCKS, 1));
        let mut filter = WideFilter {
            blocks: Blocks::zeroed_or_abort(num_blocks),
            probes,
            kernel: Dispatch::best(),
            hasher: Xxh3::default(),
        };
        filter.insert_batch(&keys);
        filter
    }
}

/// Filters are equal when they hold the same bits with the same probes and hasher; the
/// kernel is not compared, since it never changes answers.
///
/// ```
/// use splitbloom::WideFilter;
/// let mut a = WideFilter::with_num_blocks(64, 2)?;
/// let mut b = WideFilter::with_num_blocks(64, 2)?;
/// a.insert("k");
/// assert_ne!(a, b);
/// b.insert("k");
/// assert_eq!(a, b);
/// assert_ne!(a, WideFilter::with_num_blocks(64, 1)?);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for WideFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.probes == other.probes && self.hasher == other.hasher && self.blocks == other.blocks
    }
}

impl<S: Eq> Eq for WideFilter<S> {}

/// Shows the shape and statistics, not the bits.
///
/// ```
/// let filter = splitbloom::WideFilter::with_num_blocks(64, 2)?;
/// assert!(format!("{filter:?}").contains("probes: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for WideFilter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WideFilter")
            .field("num_blocks", &self.blocks.len())
            .field("probes", &self.probes)
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .field("fill_ratio", &self.fill_ratio())
            .finish()
    }
}

// Compile-time check that wide filters can be shared between threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<WideFilter>();
};
