//! The inserts and lookups of [`BloomFilter`], in the order its documentation lists them:
//! keys of any `Hash` type, pre-hashed keys, keys as exactly their bytes. The writes go through
//! `filter::write` over the [`Insert`] impl below, the reads through `filter::view` over the
//! filter's `View`, so every layout shares them.

use core::convert::Infallible;
use core::hash::{BuildHasher, Hash};

use crate::arch::PreHashed;
use crate::filter::write::{self, Insert};
use crate::filter::{BloomFilter, Layout};
use crate::hash::FilterHasher;

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
