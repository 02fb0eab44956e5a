//! The inserts and lookups of [`WindowFilter`]: the reads through `filter::view`, the writes
//! through `filter::write`, as every filter type's.

use core::convert::Infallible;
use core::hash::{BuildHasher, Hash};

use super::WindowFilter;
use crate::arch::PreHashed;
use crate::filter::write::{self, Insert};
use crate::hash::FilterHasher;

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
        "Every generation is asked: the key's block index holds their planes side by side (one \
         line for up to four generations), and the answer is `true` when any one holds every \
         bit of the key. Batches prefetch each key's generations 128 keys ahead on windows \
         whose generations reach half the L2 cache."
    };
}

read_methods! {
    type: WindowFilter,
    setup: window_setup!(),
    note: window_note!(),
    probe: |filter, hash| filter.kernel.contains_hash(filter.layout(), filter.words(), hash),
    probe_all: |filter, hashes, out| {
        let (kernel, layout) = (filter.kernel, filter.layout());
        let distance = filter.prefetch_distance();
        kernel.contains_keys(layout, filter.words(), &PreHashed, hashes, out, distance);
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
        Ok(!kernel.insert_hash(layout, self.words_mut(), hash))
    }

    /// Each hash into the newest generation, its block prefetched a batch's distance ahead.
    #[inline]
    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Infallible> {
        let (kernel, layout) = (self.kernel, self.layout());
        let distance = self.prefetch_distance();
        kernel.insert_keys(layout, self.words_mut(), &PreHashed, hashes, distance);
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
        let len = self.layout().total_words().unwrap_or(0);
        let words: &mut [u32] = bytemuck::cast_slice_mut(&mut self.units);
        kernel.insert_keys(layout, &mut words[..len], &self.hasher, keys, distance);
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
