//! [`ScalableFilter`]'s writes: a key found in some stage is not added again; a new one goes
//! into the newest stage, after a new stage is made when that one is full.

use core::hash::{BuildHasher, Hash};

use crate::error::Error;
use crate::filter::write::{self, Insert};
use crate::filter::{BloomFilter, Layout, ScalableFilter};
use crate::hash::FilterHasher;

/// Hashes are probed this many at a time: the stages' batch lookups fill their prefetch
/// pipelines, and the answers stay on the stack.
const CHUNK: usize = 256;

impl<S: BuildHasher + Clone, L: Layout> ScalableFilter<S, L> {
    /// Adds `key` (hashed once for all stages); returns `Ok(true)` when it was newly inserted,
    /// as `HashSet::insert` does, and `Ok(false)` when some stage already (probably) held it.
    /// Errors, leaving the filter unchanged, when a needed new stage cannot be made.
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// assert!(filter.insert(&42u64)?);
    /// assert!(!filter.insert(&42u64)?);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> Result<bool, Error> {
        write::insert(self, key)
    }

    /// Adds every key of `keys` (each hashed once for all stages); stops at the first error
    /// (the keys before it are in).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// let keys: Vec<u64> = (0..100).collect();
    /// filter.insert_batch(&keys)?;
    /// assert!(keys.iter().all(|key| filter.contains(key)));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_batch<K: Hash>(&mut self, keys: &[K]) -> Result<(), Error> {
        write::insert_batch(self, keys)
    }
}

impl<S: Clone, L: Layout> ScalableFilter<S, L> {
    /// Adds a pre-hashed key; returns `Ok(true)` when it was newly inserted, `Ok(false)` when it
    /// was probably present already (then nothing is added). Errors, leaving the filter unchanged, when the newest stage is full and the
    /// next cannot be made.
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// assert!(filter.insert_hash(0x0123_4567_89ab_cdef)?);
    /// assert!(!filter.insert_hash(0x0123_4567_89ab_cdef)?);
    /// assert_eq!(filter.len(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, Error> {
        self.insert_one(hash)
    }

    /// Adds every hash of `hashes`; stops at the first error (the hashes before it are in).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// let hashes: Vec<u64> = (0..100u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    /// filter.insert_hash_batch(&hashes)?;
    /// assert!(hashes.iter().all(|&hash| filter.contains_hash(hash)));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) -> Result<(), Error> {
        self.insert_all(hashes)
    }

    /// Adds every hash of `hashes` and writes into `new[i]` what
    /// [`insert_hash`](Self::insert_hash) would have answered for `hashes[i]` inserted in
    /// order: `true` when it was newly added, `false` when some stage (or an earlier hash of
    /// the batch) already probably held it. The stages are probed a batch at a time, so this
    /// is the fast path for a caller that reports each key (a `BF.MADD`).
    ///
    /// Errors with `(processed, error)` when a needed new stage cannot be made: the hashes
    /// before index `processed` went in (their answers are written), the rest did not.
    ///
    /// # Panics
    ///
    /// When `new.len() != hashes.len()`.
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// let (a, b, c) = (0x9e37_79b9_7f4a_7c15, 0xc2b2_ae3d_27d4_eb4f, 0x1656_67b1_9e37_79f9);
    /// filter.insert_hash(b)?;
    /// let hashes = [a, b, c, a];
    /// let mut new = [false; 4];
    /// filter.insert_hash_batch_answers(&hashes, &mut new).map_err(|(_, error)| error)?;
    /// assert_eq!(new, [true, false, true, false]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch_answers(
        &mut self,
        hashes: &[u64],
        new: &mut [bool],
    ) -> Result<(), (usize, Error)> {
        assert_eq!(
            new.len(),
            hashes.len(),
            "ScalableFilter::insert_hash_batch_answers: one answer per hash"
        );
        for (index, (hashes, new)) in hashes.chunks(CHUNK).zip(new.chunks_mut(CHUNK)).enumerate() {
            self.insert_chunk(hashes, new)
                .map_err(|(processed, error)| (index * CHUNK + processed, error))?;
        }
        Ok(())
    }

    /// [`insert_hash_batch_answers`](Self::insert_hash_batch_answers) for one chunk: every
    /// stage answers the whole chunk in its batch path, then each hash no stage held is
    /// checked again, one at a time, against the stages this chunk can have written (the
    /// newest at its start and any it added), which answers exactly as inserting in order
    /// would, since the older stages do not change.
    fn insert_chunk(&mut self, hashes: &[u64], new: &mut [bool]) -> Result<(), (usize, Error)> {
        self.stages_batch(hashes, new);
        let written_from = self.stages.len() - 1;
        for (index, (&hash, answer)) in hashes.iter().zip(new.iter_mut()).enumerate() {
            *answer = !*answer
                && !self.stages[written_from..]
                    .iter()
                    .any(|stage| stage.contains_hash(hash));
            if *answer {
                self.add_absent(hash).map_err(|error| (index, error))?;
            }
        }
        Ok(())
    }

    /// Adds a hash no stage holds to the newest stage, after making a new stage when that one
    /// is full. Errors, changing nothing, when that stage cannot be made.
    fn add_absent(&mut self, hash: u64) -> Result<(), Error> {
        if self.items_in_last_stage >= self.last_stage_capacity {
            let next = self.stages.len();
            let stage = Self::new_stage(&self.parameters, next, self.hasher.clone())?
                .with_kernel(self.kernel())?;
            self.stages
                .try_reserve(1)
                .map_err(|_| Error::AllocationFailed {
                    bytes: size_of::<BloomFilter<S, L>>(),
                })?;
            self.stages.push(stage);
            self.items_in_last_stage = 0;
            self.last_stage_capacity = self.parameters.stage_capacity(next);
        }
        self.newest_mut().insert_hash(hash);
        self.items_in_last_stage += 1;
        Ok(())
    }

    /// The newest stage.
    fn newest_mut(&mut self) -> &mut BloomFilter<S, L> {
        let newest = self.stages.len() - 1;
        &mut self.stages[newest]
    }
}

/// The one primitive every write of [`ScalableFilter`] is written from (see `filter::write`):
/// a key found in some stage is not added again; a new one goes into the newest stage, after a
/// new stage is made when that one is full.
impl<S: Clone, L: Layout> Insert for ScalableFilter<S, L> {
    type Hasher = S;
    type Error = Error;

    #[inline(always)]
    fn hasher(&self) -> &S {
        &self.hasher
    }

    fn insert_one(&mut self, hash: u64) -> Result<bool, Error> {
        if self.contains_hash(hash) {
            return Ok(false);
        }
        self.add_absent(hash)?;
        Ok(true)
    }

    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Error> {
        let mut new = [false; CHUNK];
        for chunk in hashes.chunks(CHUNK) {
            self.insert_chunk(chunk, &mut new[..chunk.len()])
                .map_err(|(_, error)| error)?;
        }
        Ok(())
    }
}

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], whose framing the [`hash`](crate::hash) module documents so
/// another program can reproduce it. Use these for persisted string and byte keys.
impl<S: FilterHasher + Clone, L: Layout> ScalableFilter<S, L> {
    /// Adds the key made of exactly `key`'s bytes (see [`hash_bytes`](Self::hash_bytes));
    /// errors like [`insert_hash`](crate::ScalableFilter::insert_hash).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// assert!(filter.insert_bytes(b"key")?);
    /// assert!(filter.contains_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> Result<bool, Error> {
        write::insert_bytes(self, key)
    }

    /// Adds every key of `keys` as [`insert_bytes`](Self::insert_bytes) does; stops at the
    /// first error (the keys before it are in).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// filter.insert_bytes_batch(&["a", "b", "c"])?;
    /// assert!(filter.contains_bytes(b"b"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) -> Result<(), Error> {
        write::insert_bytes_batch(self, keys)
    }
}

/// Adds every key, growing as needed.
///
/// # Panics
///
/// When a new stage cannot be made: it would exceed
/// [`math::MAX_BLOCKS`](crate::math::MAX_BLOCKS) or the allocator
/// refuses it, as `Vec::extend` panics on capacity overflow. Use
/// [`insert_batch`](ScalableFilter::insert_batch) or [`insert`](ScalableFilter::insert) to get
/// that as an [`Error`] instead.
///
/// ```
/// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
/// filter.extend(0..100u64);
/// filter.extend(["apple", "pear"]);
/// assert!(filter.contains(&99u64) && filter.contains("pear"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: BuildHasher + Clone, L: Layout, K: Hash> Extend<K> for ScalableFilter<S, L> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        if let Err(error) = write::extend(self, keys) {
            panic!("ScalableFilter::extend: {error}");
        }
    }
}
