//! [`QuotientFilter`]: a filter that can remove keys, at the memory of a Bloom filter. Its own
//! methods in the order its documentation lists them: constructors, inserts and removals
//! (keyed, pre-hashed, byte keys), lookups and counts, then the accessors.
//!
//! The layout and its reference are in `layout/quotient.rs`, the kernels and operations in
//! `arch/quotient/`, the rates and sizing in [`math::quotient`](crate::math::quotient); the
//! reads go through the family's `Probe` path (`view.rs`, with `quotient_view.rs`'s
//! [`QuotientView`]), and the inserts through its `Insert` path (`write.rs`).

use core::fmt;
use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;

use crate::arch::quotient::{Insert as InsertOne, InsertKeys, Remove, RemoveKeys};
use crate::arch::quotient::{Inserted, quotient_prefetch_distance};
use crate::arch::{Dispatch, PreHashed};
use crate::error::Error;
use crate::filter::quotient_view::{QuotientView, quotient_methods, with_width};
use crate::filter::write::{self, Insert};
use crate::hash::{FilterHasher, Xxh3, for_each_hashed_chunk};
use crate::kind::TagBits;
use crate::layout::quotient::{Block, EMPTY_BLOCK, QuotientBlock};
use crate::math::quotient as math;
use crate::storage::Blocks;

/// A filter that can remove keys: "certainly not in the set" or "probably in the set", like a
/// Bloom filter, in 11.2 bits per key at a 0.44% false-positive rate (8-bit tags) or 19.3 bits
/// at 2.3·10^-5 (16-bit tags), where [`CountingFilter`](crate::CountingFilter) needs 42 bits
/// per key for 1%.
///
/// Each key keeps a short tag (8 or 16 bits of its hash) in one of two 64-byte blocks (one
/// cache line each), in a bucket chosen by its hash; a lookup compares the tag against every
/// slot of both blocks at once (one or two vector compares) and keeps the matches in the key's
/// bucket. Removing a key removes one copy of its tag. This is a vector quotient filter
/// (Pandey et al., SIGMOD 2021): the design, the load it is sized for and the rate at that load
/// are in [`math::quotient`](crate::math::quotient), the bytes in `docs/FORMAT.md`.
///
/// **Pick it over [`CountingFilter`](crate::CountingFilter)** to remove keys: about a quarter of
/// the memory at a lower rate, and removal of a key never inserted cannot push another key's
/// counter out of range. Pick `CountingFilter` when readers need a plain [`Filter`](crate::Filter)
/// (its `to_filter()`), or when the filter must keep taking keys past its size (a quotient
/// filter is then full, and says so).
///
/// **Full is an error.** A key goes to the emptier of its two blocks; when both are full a stored
/// tag moves to its other block to make room; when that fails too, the insert returns
/// [`Error::Full`] and the filter is unchanged. Sized with [`with_fpr`](Self::with_fpr) or
/// [`with_capacity`](Self::with_capacity), the keys asked for fill 95% of the slots
/// ([`DESIGN_LOAD`](crate::math::quotient::DESIGN_LOAD)), and inserts keep succeeding to about 99%.
/// [`len`](Self::len) and [`load`](Self::load) are exact.
///
/// **Set or multiset.** [`insert`](Self::insert) adds a key only when it is not already
/// (probably) present and answers whether it was new, as `HashSet::insert` does;
/// [`insert_copy`](Self::insert_copy) always adds another copy, and [`count`](Self::count)
/// answers how many (an upper bound). [`remove`](Self::remove) takes one copy out.
///
/// **Only remove what you added.** A filter cannot tell a key from another with the same tag in
/// the same bucket: removing a key that was never inserted, when it is a false positive,
/// removes the other key's tag, and that key is then reported absent. The same happens when a
/// key that `insert` reported as already present (`Ok(false)`: a false positive) is removed
/// later. The safe pattern (as RedisBloom's `CF.DEL` documents): remove only keys you know you
/// added, and add every key you may remove with `insert_copy`, so that each removal takes out
/// a copy that was added for it:
///
/// ```
/// use splitbloom::QuotientFilter;
///
/// let mut sessions = QuotientFilter::with_fpr(10_000, 0.01)?;
/// sessions.insert_copy("session-17")?; // every key that will be removed: its own copy
/// sessions.insert_copy("session-42")?;
/// assert!(sessions.remove("session-17")); // removed: it was added
/// assert!(!sessions.contains("session-17"));
/// assert!(sessions.contains("session-42")); // others stay
/// assert_eq!(sessions.len(), 1);
/// # Ok::<(), splitbloom::Error>(())
/// ```
///
/// The methods have the family's names and forms: keys of any `Hash` type, pre-hashed keys
/// (`_hash`: the low 8 or 16 bits are the tag, the others choose the bucket), keys given as
/// exactly their bytes (`_bytes`), and batches (`_batch`), which prefetch both blocks of each
/// key well before probing them on filters larger than half the L2 cache.
#[derive(Clone)]
pub struct QuotientFilter<S = Xxh3> {
    blocks: Blocks<QuotientBlock>,
    tag_bits: TagBits,
    /// The tags held: kept exact by every write.
    len: usize,
    kernel: Dispatch,
    hasher: S,
}

impl QuotientFilter {
    /// An empty filter for `items` keys with a false-positive rate of at most `fpr`: the tag
    /// width and the number of blocks from
    /// [`math::quotient::num_blocks_for_fpr`](crate::math::quotient::num_blocks_for_fpr) (95%
    /// of the slots in use when `items` keys are in, or less where the rate needs it).
    ///
    /// Errors when `items` is 0, `fpr` is not in (0, 1) or below what 16-bit tags reach at half
    /// load ([`Error::FprTooLow`], about 1.2·10^-5), or the filter would be too large.
    ///
    /// ```
    /// use splitbloom::{QuotientFilter, TagBits};
    /// let filter = QuotientFilter::with_fpr(1_000_000, 0.01)?;
    /// assert_eq!((filter.num_blocks(), filter.tag_bits()), (21_930, TagBits::Eight));
    /// assert_eq!(QuotientFilter::with_fpr(1_000_000, 1e-4)?.tag_bits(), TagBits::Sixteen);
    /// assert!(QuotientFilter::with_fpr(1000, 1e-7).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr(items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(items, fpr, Xxh3::default())
    }

    /// An empty filter of `tag_bits` tags for `items` keys at 95% of its slots
    /// ([`DESIGN_LOAD`](crate::math::quotient::DESIGN_LOAD)), whatever the rate: what a
    /// capacity-based reservation (RedisBloom's `CF.RESERVE`) asks for.
    ///
    /// ```
    /// use splitbloom::{QuotientFilter, TagBits};
    /// let filter = QuotientFilter::with_capacity(1000, TagBits::Sixteen)?;
    /// assert!(filter.capacity() as f64 * 0.95 >= 1000.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_capacity(items: usize, tag_bits: TagBits) -> Result<Self, Error> {
        Self::with_capacity_and_hasher(items, tag_bits, Xxh3::default())
    }

    /// An empty filter of exactly `num_blocks` blocks of 64 bytes with `tag_bits` tags.
    ///
    /// ```
    /// use splitbloom::{QuotientFilter, TagBits};
    /// let filter = QuotientFilter::with_num_blocks(100, TagBits::Eight)?;
    /// assert_eq!((filter.size_in_bytes(), filter.capacity()), (6400, 4800));
    /// assert!(QuotientFilter::with_num_blocks(0, TagBits::Eight).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks(num_blocks: usize, tag_bits: TagBits) -> Result<Self, Error> {
        Self::with_num_blocks_and_hasher(num_blocks, tag_bits, Xxh3::default())
    }
}

impl<S> QuotientFilter<S> {
    /// [`QuotientFilter::with_fpr`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, QuotientFilter, Xxh3};
    /// let filter = QuotientFilter::with_fpr_and_hasher(1000, 0.01, Xxh3::with_seed(9))?;
    /// assert_eq!(filter.hasher().seed(), 9);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr_and_hasher(items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let (num_blocks, tag_bits) = math::num_blocks_for_fpr(items, fpr)?;
        Self::with_num_blocks_and_hasher(num_blocks, tag_bits, hasher)
    }

    /// [`QuotientFilter::with_capacity`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, QuotientFilter, TagBits, Xxh3};
    /// let filter = QuotientFilter::with_capacity_and_hasher(1000, TagBits::Eight, Xxh3::with_seed(3))?;
    /// assert_eq!(filter.hasher().seed(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_capacity_and_hasher(
        items: usize,
        tag_bits: TagBits,
        hasher: S,
    ) -> Result<Self, Error> {
        let num_blocks = math::num_blocks_for_capacity(items, tag_bits)?;
        Self::with_num_blocks_and_hasher(num_blocks, tag_bits, hasher)
    }

    /// [`QuotientFilter::with_num_blocks`] with a given hasher.
    ///
    /// Errors when `num_blocks` is 0 or above
    /// [`MAX_QUOTIENT_BLOCKS`](crate::math::quotient::MAX_QUOTIENT_BLOCKS), or the allocation
    /// fails. The memory is lazily zeroed: an empty block is all zeros, so a new filter becomes
    /// resident only as keys go in.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, QuotientFilter, TagBits, Xxh3};
    /// let filter = QuotientFilter::with_num_blocks_and_hasher(8, TagBits::Eight, Xxh3::with_seed(7))?;
    /// assert_eq!((filter.num_blocks(), filter.hasher().seed()), (8, 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks_and_hasher(
        num_blocks: usize,
        tag_bits: TagBits,
        hasher: S,
    ) -> Result<Self, Error> {
        if num_blocks == 0 {
            return Err(Error::ZeroBlocks);
        }
        if num_blocks > math::MAX_QUOTIENT_BLOCKS {
            return Err(Error::TooLarge {
                blocks: num_blocks as f64,
            });
        }
        let blocks = Blocks::zeroed(num_blocks).ok_or(Error::AllocationFailed {
            bytes: num_blocks * math::QUOTIENT_BLOCK_BYTES,
        })?;
        Ok(QuotientFilter {
            blocks,
            tag_bits,
            len: 0,
            kernel: Dispatch::best(),
            hasher,
        })
    }

    /// A filter of validated `blocks` holding `len` tags, on the best kernel.
    pub(crate) fn from_parts(
        blocks: Blocks<QuotientBlock>,
        tag_bits: TagBits,
        len: usize,
        hasher: S,
    ) -> Self {
        QuotientFilter {
            blocks,
            tag_bits,
            len,
            kernel: Dispatch::best(),
            hasher,
        }
    }

    /// Runs on `kernel` from now on (a copy of a view keeps the view's kernel).
    pub(crate) fn set_kernel(&mut self, kernel: Dispatch) {
        self.kernel = kernel;
    }

    /// The read view: every read goes through it.
    #[inline(always)]
    pub(crate) fn view(&self) -> QuotientView<'_, S> {
        QuotientView {
            blocks: bytemuck::cast_slice(&self.blocks),
            tag_bits: self.tag_bits,
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }

    /// The blocks as the kernels see them.
    pub(crate) fn blocks_mut(&mut self) -> &mut [Block] {
        bytemuck::cast_slice_mut(&mut self.blocks)
    }

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

    /// Adds a pre-hashed key unless it is (probably) present: `Ok(true)` when it was added,
    /// `Ok(false)` when its tag was already in one of its buckets (nothing changes), as
    /// [`insert`](Self::insert).
    ///
    /// The low 8 or 16 bits of `hash` are the tag and the other bits choose the bucket, so the
    /// hash must be well mixed in every bit.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// assert!(filter.insert_hash(0x0123_4567_89ab_cdef)?);
    /// assert!(!filter.insert_hash(0x0123_4567_89ab_cdef)?);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, Error> {
        self.insert_one_hash(hash, false)
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

    /// Adds every pre-hashed key of `hashes` not (probably) present yet, as
    /// [`insert_batch`](Self::insert_batch).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// let (a, b) = (0x9e37_79b9_7f4a_7c15, 0x6a09_e667_f3bc_c908); // well mixed
    /// filter.insert_hash_batch(&[a, b, a])?;
    /// assert_eq!(filter.len(), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) -> Result<(), Error> {
        self.insert_all(hashes)
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
    /// Adds `key` unless it is (probably) present: `Ok(true)` when it was added, `Ok(false)`
    /// when its tag was already in one of its buckets (it was present, or a false positive) and
    /// nothing changed, as `HashSet::insert` answers. `Err(Error::Full)` when it must be added
    /// and does not fit; the filter is then unchanged.
    ///
    /// A key that answered `Ok(false)` has no copy of its own: do not remove it later (see the
    /// [type docs](QuotientFilter)), or add keys you will remove with
    /// [`insert_copy`](Self::insert_copy).
    ///
    /// ```
    /// let mut seen = splitbloom::QuotientFilter::with_fpr(1000, 0.01)?;
    /// let mut unique = Vec::new();
    /// for word in ["a", "b", "a", "c"] {
    ///     if seen.insert(word)? {
    ///         unique.push(word);
    ///     }
    /// }
    /// assert_eq!(unique, ["a", "b", "c"]);
    /// assert_eq!(seen.len(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> Result<bool, Error> {
        write::insert(self, key)
    }

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

    /// Adds every key of `keys` not (probably) present yet: the result of
    /// [`insert`](Self::insert) on each, in order, with one call into the kernel, which hashes
    /// each key and prefetches both its blocks a few keys before inserting it. Stops at the
    /// first key that does not fit: `Err(Error::Full { processed })`, where the keys before
    /// index `processed` went in (and stay) and the rest did not.
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(1000, 0.01)?;
    /// filter.insert_batch(&["apple", "pear", "apple"])?;
    /// assert_eq!(filter.len(), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_batch<K: Hash>(&mut self, keys: &[K]) -> Result<(), Error> {
        write::insert_batch(self, keys)
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
    /// Adds the key made of exactly `key`'s bytes unless it is (probably) present, as
    /// [`insert`](Self::insert).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// assert!(filter.insert_bytes(b"key")?);
    /// assert!(filter.contains("key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> Result<bool, Error> {
        write::insert_bytes(self, key)
    }

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

    /// Adds every key of `keys` (each exactly its bytes) not (probably) present yet, as
    /// [`insert_batch`](Self::insert_batch).
    ///
    /// ```
    /// let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes_batch(&["apple", "pear"])?;
    /// assert!(filter.contains_bytes(b"pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) -> Result<(), Error> {
        write::insert_bytes_batch(self, keys)
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

/// The text of the doc examples: a `filter` holding `"apple"` twice and `"pear"` once.
macro_rules! quotient_setup {
    () => {
        "let mut filter = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
filter.insert(\"apple\")?;
filter.insert_copy_bytes(b\"apple\")?;
filter.insert_bytes(b\"pear\")?;"
    };
}

/// How a [`QuotientFilter`] answers, in each read method's docs.
macro_rules! quotient_note {
    () => {
        "A key is present when its tag is in either of its two buckets; both blocks are probed, \
         and batches prefetch both a few keys ahead on filters of at least half the L2 cache."
    };
}

read_methods! {
    type: QuotientFilter,
    setup: quotient_setup!(),
    note: quotient_note!(),
    reader: |filter| filter.view(),
    bytes: yes,
}

quotient_methods!(QuotientFilter, quotient_setup!());

shared_methods!(@accessors QuotientFilter, "let filter = splitbloom::QuotientFilter::with_num_blocks(8, splitbloom::TagBits::Eight)?;", 64);

/// The one primitive the family's shared writes (`filter::write`) use: the insert of a key
/// unless present, and the batch with its loop inside the kernel.
impl<S> Insert for QuotientFilter<S> {
    type Hasher = S;
    type Error = Error;

    #[inline(always)]
    fn hasher(&self) -> &S {
        &self.hasher
    }

    #[inline(always)]
    fn insert_one(&mut self, hash: u64) -> Result<bool, Error> {
        self.insert_hash(hash)
    }

    #[inline]
    fn after(error: Error, processed: usize) -> Error {
        match error {
            Error::Full { processed: within } => Error::Full {
                processed: processed + within,
            },
            error => error,
        }
    }

    #[inline]
    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Error> {
        add_keys(self.parts().0, &PreHashed, hashes, false)
    }

    /// Hashing and inserting run inside the kernel, as for `insert_all`.
    #[inline]
    fn insert_keys<K: Hash>(&mut self, keys: &[K]) -> Result<(), Error>
    where
        S: BuildHasher,
    {
        let (parts, hasher) = self.parts();
        add_keys(parts, hasher, keys, false)
    }
}

/// Filters are equal when they hold the same tags in the same places with the same hasher;
/// the kernel is not compared.
///
/// ```
/// use splitbloom::{Kernel, QuotientFilter};
/// let mut a = QuotientFilter::with_fpr(100, 0.01)?;
/// let mut b = QuotientFilter::with_fpr(100, 0.01)?.with_kernel(Kernel::Scalar)?;
/// a.insert("k")?;
/// b.insert("k")?;
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for QuotientFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher
            && self.tag_bits == other.tag_bits
            && self.blocks == other.blocks
    }
}

impl<S: Eq> Eq for QuotientFilter<S> {}

/// Shows the shape and load, not the tags.
///
/// ```
/// let filter = splitbloom::QuotientFilter::with_num_blocks(2, splitbloom::TagBits::Eight)?;
/// assert!(format!("{filter:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for QuotientFilter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuotientFilter")
            .field("num_blocks", &self.blocks.len())
            .field("tag_bits", &self.tag_bits)
            .field("len", &self.len)
            .field("load", &self.load())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .finish()
    }
}

// Compile-time check that filters can be shared between threads with the default hasher.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<QuotientFilter>();
};
