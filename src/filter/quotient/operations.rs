//! [`QuotientFilter`]'s inserts and removals: keyed, pre-hashed and byte keys, one at a time
//! or in batches whose loop runs inside the kernel. The inserts a key at most once are the
//! family's (`write_methods!`); the copies and removals are this type's own.

use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;

use super::QuotientFilter;
use super::view::with_width;
use crate::arch::quotient::{Insert as InsertOne, InsertKeys, Remove, RemoveKeys};
use crate::arch::quotient::{Inserted, quotient_prefetch_distance};
use crate::arch::{Dispatch, PreHashed};
use crate::error::Error;
use crate::hash::{FilterHasher, for_each_hashed_chunk};
use crate::kind::TagBits;
use crate::layout::quotient::{Block, EMPTY_BLOCK};

impl<S> QuotientFilter<S> {
    /// One single-key insert: another copy with `copy`, else only when absent.
    #[inline]
    fn insert_one_hash(&mut self, hash: u64, copy: bool) -> Result<bool, Error> {
        let (kernel, tag_bits) = (self.kernel, self.tag_bits);
        let blocks = self.blocks_mut();
        let added = with_width!(tag_bits, W => kernel.run(InsertOne {
            blocks,
            hash,
            copy,
            width: PhantomData::<W>,
        }));
        let added = added.map_err(|()| Error::Full { processed: 0 })?;
        self.len += usize::from(added);
        Ok(added)
    }

    /// Adds another copy of a pre-hashed key, as [`insert_copy`](Self::insert_copy).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// filter.insert_copy_hash(42 << 20)?;
    /// filter.insert_copy_hash(42 << 20)?;
    /// assert_eq!(filter.count_hash(42 << 20), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_copy_hash(&mut self, hash: u64) -> Result<(), Error> {
        self.insert_one_hash(hash, true).map(|_| ())
    }

    /// Removes one copy of a pre-hashed key, as [`remove`](Self::remove).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// filter.insert_hash(7 << 40 | 3)?;
    /// assert!(filter.remove_hash(7 << 40 | 3));
    /// assert!(!filter.remove_hash(7 << 40 | 3)); // none left
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        let (kernel, tag_bits) = (self.kernel, self.tag_bits);
        let blocks = self.blocks_mut();
        let removed = with_width!(tag_bits, W => kernel.run(Remove {
            blocks,
            hash,
            width: PhantomData::<W>,
        }));
        self.len -= usize::from(removed);
        removed
    }

    /// Adds another copy of every pre-hashed key of `hashes`, as
    /// [`insert_copy_batch`](Self::insert_copy_batch).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// let a = 0x9e37_79b9_7f4a_7c15;
    /// filter.insert_copy_hash_batch(&[a, a])?;
    /// assert_eq!(filter.count_hash(a), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_copy_hash_batch(&mut self, hashes: &[u64]) -> Result<(), Error> {
        add_keys(self.parts().0, &PreHashed, hashes, true)
    }

    /// Removes one copy of every pre-hashed key of `hashes`, as
    /// [`remove_batch`](Self::remove_batch); returns how many were found.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// let (a, b, c) = (0x9e37_79b9_7f4a_7c15, 0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b);
    /// filter.insert_hash_batch(&[a, b])?;
    /// assert_eq!(filter.remove_hash_batch(&[a, b, c]), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn remove_hash_batch(&mut self, hashes: &[u64]) -> usize {
        remove_keys(self.parts().0, &PreHashed, hashes)
    }

    /// Removes every key: the filter is empty again, with the same size.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// filter.insert("x")?;
    /// filter.clear();
    /// assert!(filter.is_empty() && !filter.contains("x"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn clear(&mut self) {
        self.blocks_mut().fill(EMPTY_BLOCK);
        self.len = 0;
    }

    /// The fields a batch write changes, and the hasher, borrowed apart.
    fn parts(&mut self) -> (Parts<'_>, &S) {
        let parts = Parts {
            blocks: bytemuck::cast_slice_mut(&mut self.blocks),
            len: &mut self.len,
            tag_bits: self.tag_bits,
            kernel: self.kernel,
        };
        (parts, &self.hasher)
    }
}

/// A filter's blocks and length, borrowed apart from its hasher for a batch write.
struct Parts<'a> {
    blocks: &'a mut [Block],
    len: &'a mut usize,
    tag_bits: TagBits,
    kernel: Dispatch,
}

/// Adds `keys` hashed with `hasher` (copies with `copy`), the loop inside the kernel; stops at
/// the first key that does not fit, with that key's index in the error.
fn add_keys<H: BuildHasher, K: Hash>(
    parts: Parts<'_>,
    hasher: &H,
    keys: &[K],
    copy: bool,
) -> Result<(), Error> {
    let Parts {
        blocks,
        len,
        tag_bits,
        kernel,
    } = parts;
    let distance = quotient_prefetch_distance(blocks.len());
    let Inserted { added, full_at } = with_width!(tag_bits, W => kernel.run(InsertKeys {
        blocks,
        hasher,
        keys,
        copy,
        distance,
        width: PhantomData::<W>,
    }));
    *len += added;
    match full_at {
        None => Ok(()),
        Some(processed) => Err(Error::Full { processed }),
    }
}

/// Removes one copy of each of `keys` hashed with `hasher`, the loop inside the kernel;
/// returns how many were found.
fn remove_keys<H: BuildHasher, K: Hash>(parts: Parts<'_>, hasher: &H, keys: &[K]) -> usize {
    let Parts {
        blocks,
        len,
        tag_bits,
        kernel,
    } = parts;
    let distance = quotient_prefetch_distance(blocks.len());
    let removed = with_width!(tag_bits, W => kernel.run(RemoveKeys {
        blocks,
        hasher,
        keys,
        distance,
        width: PhantomData::<W>,
    }));
    *len -= removed;
    removed
}

impl<S: BuildHasher> QuotientFilter<S> {
    /// Adds another copy of `key`, present or not (a multiset, as RedisBloom's `CF.ADD`):
    /// [`count`](Self::count) goes up by one and [`remove`](Self::remove) takes one copy out.
    /// `Err(Error::Full)` when it does not fit; the filter is then unchanged. A key has room for
    /// many copies, but not unlimited: its two blocks hold 48 (8-bit tags) or 28 tags each.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(1000, 0.01)?;
    /// filter.insert_copy("apple")?;
    /// filter.insert_copy("apple")?;
    /// assert_eq!(filter.count("apple"), 2);
    /// filter.remove("apple");
    /// assert_eq!(filter.count("apple"), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_copy<K: Hash + ?Sized>(&mut self, key: &K) -> Result<(), Error> {
        self.insert_copy_hash(crate::hash::hash_key(&self.hasher, key))
    }

    /// Removes one copy of `key`: `true` when its tag was in one of its buckets (one copy of it
    /// is gone), `false` when it was certainly absent (nothing changes).
    ///
    /// Removing a key that was never added can remove another key's tag (see the
    /// [type docs](QuotientFilter)): remove only keys you added.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(1000, 0.01)?;
    /// filter.insert("10.0.0.1")?;
    /// assert!(filter.remove("10.0.0.1"));
    /// assert!(!filter.contains("10.0.0.1"));
    /// assert!(!filter.remove("10.0.0.1"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn remove<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        self.remove_hash(crate::hash::hash_key(&self.hasher, key))
    }

    /// Adds another copy of every key of `keys`: the result of
    /// [`insert_copy`](Self::insert_copy) on each, as a batch (see
    /// [`insert_batch`](Self::insert_batch) for the stop at a full key).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(1000, 0.01)?;
    /// filter.insert_copy_batch(&["apple", "pear", "apple"])?;
    /// assert_eq!((filter.len(), filter.count("apple")), (3, 2));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_copy_batch<K: Hash>(&mut self, keys: &[K]) -> Result<(), Error> {
        let (parts, hasher) = self.parts();
        add_keys(parts, hasher, keys, true)
    }

    /// Removes one copy of every key of `keys`: the result of [`remove`](Self::remove) on
    /// each, as a batch; returns how many were found.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(1000, 0.01)?;
    /// filter.insert_batch(&["apple", "pear"])?;
    /// assert_eq!(filter.remove_batch(&["apple", "pear", "kiwi"]), 2);
    /// assert!(filter.is_empty());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn remove_batch<K: Hash>(&mut self, keys: &[K]) -> usize {
        let (parts, hasher) = self.parts();
        remove_keys(parts, hasher, keys)
    }
}

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], which another program can reproduce (see [`hash`](crate::hash)).
impl<S: FilterHasher> QuotientFilter<S> {
    /// Adds another copy of the key made of exactly `key`'s bytes, as
    /// [`insert_copy`](Self::insert_copy).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// filter.insert_copy_bytes(b"key")?;
    /// filter.insert_copy_bytes(b"key")?;
    /// assert_eq!(filter.count_bytes(b"key"), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_copy_bytes(&mut self, key: &[u8]) -> Result<(), Error> {
        self.insert_copy_hash(self.hasher.hash_bytes(key))
    }

    /// Removes one copy of the key made of exactly `key`'s bytes, as [`remove`](Self::remove).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes(b"key")?;
    /// assert!(filter.remove_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn remove_bytes(&mut self, key: &[u8]) -> bool {
        self.remove_hash(self.hasher.hash_bytes(key))
    }

    /// Removes one copy of every key of `keys` (each exactly its bytes), as
    /// [`remove_batch`](Self::remove_batch); returns how many were found.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes_batch(&["apple", "pear"])?;
    /// assert_eq!(filter.remove_bytes_batch(&["apple", "kiwi"]), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn remove_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) -> usize {
        let mut removed = 0;
        let hasher = self.hasher.clone();
        for_each_hashed_chunk(&hasher, keys, |_, hashes| {
            removed += self.remove_hash_batch(hashes);
        });
        removed
    }
}

write_methods! {
    type: {S} QuotientFilter {S},
    writer: exclusive,
    error: Error,
    insert_one: |filter, hash| filter.insert_one_hash(hash, false),
    // Batches run inside the kernel, which hashes each key and prefetches both its blocks a
    // few keys ahead; the error of a chunk counts the keys of the chunks before it.
    insert_all: |filter, hashes| add_keys(filter.parts().0, &PreHashed, hashes, false),
    insert_keys: |filter, keys| {
        let (parts, hasher) = filter.parts();
        add_keys(parts, hasher, keys, false)
    },
    after: |error, processed| match error {
        Error::Full { processed: within } => Error::Full {
            processed: processed + within,
        },
        error => error,
    },
    setup: "let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;",
    lookup: "filter",
    note: "A key is added when its tag is in neither of its buckets, and nothing changes \
           otherwise. Errors with [`Error::Full`] when it must be added and does not fit, \
           leaving the filter unchanged. A key that answered `false` has no copy of its own: \
           do not remove it later (see the [type docs](QuotientFilter)), or add keys you will \
           remove with [`insert_copy`](QuotientFilter::insert_copy). The low 8 or 16 bits of \
           a hash are the tag and the other bits choose the buckets, so a pre-hashed key must \
           be well mixed in every bit.",
    batch_note: "One call into the kernel, which hashes each key and prefetches both its \
                 blocks a few keys before inserting it (on filters of at least half the L2 \
                 cache). Stops at the first key that does not fit: \
                 `Err(Error::Full { processed })`, where the keys before index `processed` \
                 went in (and stay) and the rest did not. No `Extend`: a full filter refuses \
                 keys as a normal outcome, which a panic would not report.",
}
