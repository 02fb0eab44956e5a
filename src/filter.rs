//! [`Filter`]: the owned, mutable split-block Bloom filter.

use core::fmt;
use core::hash::{BuildHasher, Hash};

use crate::arch::{Dispatch, EntryPoints, PreHashed};
use crate::block::{BLOCK_BYTES, Block, LANES};
use crate::error::Error;
use crate::hash::{DefaultHasher, FilterHasher};
use crate::storage::Blocks;
use crate::{Kernel, arch, lookup, math};

/// A split-block Bloom filter: "definitely not in the set" or "probably in the set".
///
/// Keys are hashed with `S` (by default [`DefaultHasher`]); pre-hashed 64-bit values go through
/// [`insert_hash`](Filter::insert_hash) and [`contains_hash`](Filter::contains_hash). The kernel
/// is chosen once, when the filter is built ([`Kernel::best`]), and never changes the results.
///
/// ```
/// use splitbloom::Filter;
/// let mut filter = Filter::with_fpr(1000, 0.01)?;
/// assert!(!filter.insert("apple"));   // newly inserted
/// assert!(filter.insert("apple"));    // already present
/// assert!(filter.contains("apple"));  // never a false negative
/// assert!(!filter.contains("pear"));  // probably absent (here, certainly)
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct Filter<S = DefaultHasher> {
    blocks: Blocks,
    kernel: Dispatch,
    hasher: S,
}

impl Filter {
    /// A filter for `items` keys with a false-positive rate of at most `fpr`, sized with the
    /// split-block formula (see [`math`]).
    ///
    /// Errors when `items` is 0, `fpr` is not strictly between 0 and 1, or the filter would be
    /// too large to allocate.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_fpr(1_000_000, 0.01)?;
    /// assert_eq!(filter.size_in_bytes(), 41_130 * 32); // 10.53 bits per key
    /// assert!(splitbloom::Filter::with_fpr(1000, 1.0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr(items: u64, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(items, fpr, DefaultHasher::default())
    }

    /// A filter for `items` keys with `bits_per_key` bits each (rounded up to whole blocks).
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_bits_per_key(1000, 10.0)?;
    /// assert_eq!(filter.num_blocks(), 40);
    /// assert!(splitbloom::Filter::with_bits_per_key(1000, f64::NAN).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_bits_per_key(items: u64, bits_per_key: f64) -> Result<Self, Error> {
        Self::with_bits_per_key_and_hasher(items, bits_per_key, DefaultHasher::default())
    }

    /// A filter of exactly `num_blocks` 32-byte blocks.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(100)?;
    /// assert_eq!(filter.size_in_bytes(), 3200);
    /// assert!(splitbloom::Filter::with_num_blocks(0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks(num_blocks: usize) -> Result<Self, Error> {
        Self::with_num_blocks_and_hasher(num_blocks, DefaultHasher::default())
    }
}

impl<S> Filter<S> {
    /// [`Filter::with_fpr`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{Filter, FilterHasher, Xxh3Hash};
    /// let filter = Filter::with_fpr_and_hasher(1000, 0.01, Xxh3Hash::with_seed(9))?;
    /// assert_eq!(filter.hasher().seed(), 9);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr_and_hasher(items: u64, fpr: f64, hasher: S) -> Result<Self, Error> {
        Self::with_num_blocks_and_hasher(math::num_blocks_for_fpr(items, fpr)?, hasher)
    }

    /// [`Filter::with_bits_per_key`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{Filter, Xxh3Hash};
    /// let filter = Filter::with_bits_per_key_and_hasher(1000, 16.0, Xxh3Hash::default())?;
    /// assert_eq!(filter.num_blocks(), 63);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_bits_per_key_and_hasher(
        items: u64,
        bits_per_key: f64,
        hasher: S,
    ) -> Result<Self, Error> {
        Self::with_num_blocks_and_hasher(math::num_blocks_for_bits(items, bits_per_key)?, hasher)
    }

    /// [`Filter::with_num_blocks`] with a given hasher.
    ///
    /// Errors when `num_blocks` is 0 or above [`math::MAX_BLOCKS`], or the allocation fails.
    ///
    /// ```
    /// use splitbloom::{Filter, Xxh3Hash};
    /// let filter = Filter::with_num_blocks_and_hasher(8, Xxh3Hash::default())?;
    /// assert_eq!(filter.num_blocks(), 8);
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

    /// The same filter running on `kernel`; errors when this CPU cannot run it. Results never
    /// depend on the kernel, only speed does.
    ///
    /// ```
    /// use splitbloom::{Filter, Kernel};
    /// let filter = Filter::with_num_blocks(8)?.with_kernel(Kernel::Scalar)?;
    /// assert_eq!(filter.kernel(), Kernel::Scalar);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Self, Error> {
        self.set_kernel(kernel)?;
        Ok(self)
    }

    /// [`with_kernel`](Filter::with_kernel) in place, for filters held in collections.
    pub(crate) fn set_kernel(&mut self, kernel: Kernel) -> Result<(), Error> {
        self.kernel = Dispatch::new(kernel).ok_or(Error::KernelUnavailable(kernel))?;
        Ok(())
    }

    /// The kernel this filter runs on.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(1)?;
    /// assert!(filter.kernel().is_available());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.kernel.kernel()
    }

    /// The hasher keys go through.
    ///
    /// ```
    /// use splitbloom::{DefaultHasher, Filter};
    /// assert_eq!(*Filter::with_num_blocks(1)?.hasher(), DefaultHasher::default());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Adds a pre-hashed key; returns `true` when all its bits were already set (the key was
    /// probably present).
    ///
    /// The high 32 bits of `hash` choose the block and the low 32 bits the bits inside it, so
    /// both halves must be well mixed.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(16)?;
    /// assert!(!filter.insert_hash(0x0123_4567_89ab_cdef));
    /// assert!(filter.insert_hash(0x0123_4567_89ab_cdef));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let kernel = self.kernel;
        kernel.insert_hash(self.words_mut(), hash)
    }

    /// Whether a pre-hashed key may be present: `false` means certainly absent.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(16)?;
    /// filter.insert_hash(42 << 40 | 7);
    /// assert!(filter.contains_hash(42 << 40 | 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline(always)]
    pub fn contains_hash(&self, hash: u64) -> bool {
        lookup::contains_hash(self.kernel, self.words(), hash)
    }

    /// Adds every hash of `hashes`, with the loop inside the kernel. On filters larger than the
    /// L2 cache the loop prefetches each hash's block a few hashes ahead, so the cache misses
    /// of a batch overlap instead of following one another.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert_hash_batch(&[1 << 40, 2 << 40, 3 << 40]);
    /// assert!(filter.contains_hash(2 << 40));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) {
        let distance = arch::prefetch_distance(self.blocks.len());
        let kernel = self.kernel;
        kernel.insert_keys(self.words_mut(), &PreHashed, hashes, distance);
    }

    /// Writes into `out[i]` whether `hashes[i]` may be present, with the loop inside the kernel
    /// (prefetching as in [`insert_hash_batch`](Filter::insert_hash_batch)).
    ///
    /// # Panics
    ///
    /// When `out.len() != hashes.len()`.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert_hash(5 << 40);
    /// let mut out = [false; 2];
    /// filter.contains_hash_batch(&[5 << 40, 6 << 40], &mut out);
    /// assert!(out[0]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        lookup::contains_hash_batch(self.kernel, self.words(), hashes, out);
    }

    /// How many of `hashes` may be present (the number of `true` answers
    /// [`contains_hash_batch`](Filter::contains_hash_batch) would give), without an output
    /// slice.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert_hash_batch(&[1 << 40, 2 << 40]);
    /// assert!(filter.count_contained_hashes(&[1 << 40, 2 << 40, 3 << 40]) >= 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn count_contained_hashes(&self, hashes: &[u64]) -> usize {
        let mut answers = [false; BATCH_CHUNK];
        hashes
            .chunks(BATCH_CHUNK)
            .map(|chunk| {
                let answers = &mut answers[..chunk.len()];
                self.contains_hash_batch(chunk, answers);
                count_true(answers)
            })
            .sum()
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
        self.blocks.fill(Block::default());
    }

    /// The number of 32-byte blocks.
    ///
    /// ```
    /// assert_eq!(splitbloom::Filter::with_num_blocks(3)?.num_blocks(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The size of the bitset in bytes (32 per block).
    ///
    /// ```
    /// assert_eq!(splitbloom::Filter::with_num_blocks(3)?.size_in_bytes(), 96);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn size_in_bytes(&self) -> usize {
        self.blocks.len() * BLOCK_BYTES
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

    /// The fraction of bits that are set, from 0 to 1.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(1)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.fill_ratio(), 8.0 / 256.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        lookup::fill_ratio(self.words())
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
        lookup::estimated_fpr(self.words())
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
}

impl<S: BuildHasher> Filter<S> {
    /// Adds `key`; returns `true` when all its bits were already set (it was probably present).
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// assert!(!filter.insert(&42u64));
    /// assert!(filter.insert(&42u64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        self.insert_hash(self.hasher.hash_one(key))
    }

    /// Whether `key` may be present: `false` means certainly absent.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert("present");
    /// assert!(filter.contains("present"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline(always)]
    pub fn contains<K: Hash + ?Sized>(&self, key: &K) -> bool {
        self.contains_hash(self.hasher.hash_one(key))
    }
}

impl<S: BuildHasher> Filter<S> {
    /// Adds every key of `keys`. Same result as calling [`insert`](Filter::insert) on each key,
    /// with one call into the kernel for the whole batch; on filters larger than the L2 cache
    /// each key is hashed and its block prefetched 128 keys before it is inserted, so the cache
    /// misses of a batch overlap.
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
        let distance = arch::prefetch_distance(self.blocks.len());
        let kernel = self.kernel;
        kernel.insert_keys(
            bytemuck::cast_slice_mut(&mut self.blocks),
            &self.hasher,
            keys,
            distance,
        );
    }

    /// Writes into `out[i]` whether `keys[i]` may be present: the answers of
    /// [`contains`](Filter::contains), hashed and probed inside the kernel as
    /// [`insert_batch`](Filter::insert_batch) does.
    ///
    /// # Panics
    ///
    /// When `out.len() != keys.len()`.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
    /// filter.insert_batch(&["apple", "pear"]);
    /// let mut out = [false; 3];
    /// filter.contains_batch(&["apple", "kiwi", "pear"], &mut out);
    /// assert!(out[0] && out[2]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn contains_batch<K: Hash>(&self, keys: &[K], out: &mut [bool]) {
        assert_eq!(
            keys.len(),
            out.len(),
            "contains_batch: `out` must have one slot per key"
        );
        let distance = arch::prefetch_distance(self.blocks.len());
        self.kernel
            .contains_keys(self.words(), &self.hasher, keys, out, distance);
    }

    /// How many of `keys` may be present (the number of `true` answers
    /// [`contains_batch`](Filter::contains_batch) would give), without an output slice: for
    /// example the selectivity of a join's probe side.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
    /// filter.insert_batch(&[10u64, 20, 30]);
    /// assert!(filter.count_contained(&[10u64, 20, 30, 40]) >= 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn count_contained<K: Hash>(&self, keys: &[K]) -> usize {
        let mut answers = [false; BATCH_CHUNK];
        keys.chunks(BATCH_CHUNK)
            .map(|chunk| {
                let answers = &mut answers[..chunk.len()];
                self.contains_batch(chunk, answers);
                count_true(answers)
            })
            .sum()
    }
}

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], whose framing the [`hash`](crate::hash) module documents so
/// another program can reproduce it. Use these for persisted string and byte keys.
impl<S: FilterHasher> Filter<S> {
    /// The hash [`insert_bytes`](Filter::insert_bytes) gives `key`: exactly its bytes, with the
    /// framing of the [byte-key contract](crate::hash).
    ///
    /// ```
    /// use splitbloom::FilterHasher;
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// assert_eq!(filter.hash_bytes(b"key"), filter.hasher().hash_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn hash_bytes(&self, key: &[u8]) -> u64 {
        self.hasher.hash_bytes(key)
    }

    /// Adds the key made of exactly `key`'s bytes; returns `true` when all its bits were
    /// already set.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// assert!(!filter.insert_bytes(b"key"));
    /// assert!(filter.contains_bytes("key".as_bytes()));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        let hash = self.hash_bytes(key);
        self.insert_hash(hash)
    }

    /// Whether the key made of exactly `key`'s bytes may be present: `false` means certainly
    /// absent.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes(b"key");
    /// assert!(filter.contains_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash_bytes(key))
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
        let hasher = self.hasher.clone();
        crate::hash::for_each_hashed_chunk(&hasher, keys, |_, hashes| {
            self.insert_hash_batch(hashes);
        });
    }

    /// Writes into `out[i]` whether `keys[i]` (exactly its bytes) may be present.
    ///
    /// # Panics
    ///
    /// When `out.len() != keys.len()`.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes(b"apple");
    /// let mut out = [false; 2];
    /// filter.contains_bytes_batch(&["apple", "kiwi"], &mut out);
    /// assert!(out[0]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn contains_bytes_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [bool]) {
        assert_eq!(
            keys.len(),
            out.len(),
            "contains_bytes_batch: `out` must have one slot per key"
        );
        crate::hash::for_each_hashed_chunk(&self.hasher, keys, |first, hashes| {
            self.contains_hash_batch(hashes, &mut out[first..first + hashes.len()]);
        });
    }
}

/// The count operations answer this many keys at a time into a buffer on the stack: long
/// enough for the prefetch pipeline to fill, short enough to stay in L1.
const BATCH_CHUNK: usize = 512;

/// The number of `true` answers.
fn count_true(answers: &[bool]) -> usize {
    answers.iter().map(|&answer| usize::from(answer)).sum()
}

impl<S: PartialEq> Filter<S> {
    /// Makes `self` the union of both filters: afterwards it contains every key of either.
    /// The result is exactly the filter built from both key sets.
    ///
    /// Errors when the filters differ in size or hasher.
    ///
    /// ```
    /// use splitbloom::Filter;
    /// let mut a = Filter::with_num_blocks(64)?;
    /// let mut b = Filter::with_num_blocks(64)?;
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// assert!(a.union(&Filter::with_num_blocks(32)?).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |word, other| *word |= other)
    }

    /// Makes `self` the intersection of both filters: keys of both stay present (no false
    /// negatives for them); the false-positive rate is at most that of either filter.
    ///
    /// Errors when the filters differ in size or hasher.
    ///
    /// ```
    /// use splitbloom::Filter;
    /// let mut a = Filter::with_num_blocks(64)?;
    /// let mut b = Filter::with_num_blocks(64)?;
    /// a.insert("both");
    /// b.insert("both");
    /// a.insert("only a");
    /// a.intersect(&b)?;
    /// assert!(a.contains("both"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn intersect(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |word, other| *word &= other)
    }

    /// Applies `op` word by word after checking the filters are compatible.
    fn combine(&mut self, other: &Self, op: impl Fn(&mut u32, u32)) -> Result<(), Error> {
        if self.blocks.len() != other.blocks.len() {
            return Err(Error::ShapeMismatch {
                left: self.blocks.len(),
                right: other.blocks.len(),
            });
        }
        if self.hasher != other.hasher {
            return Err(Error::HasherMismatch);
        }
        let words: &mut [u32] = bytemuck::cast_slice_mut(&mut self.blocks);
        for (word, &other) in words.iter_mut().zip(other.as_words()) {
            op(word, other);
        }
        Ok(())
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
