//! [`AtomicFilter`]: a split-block Bloom filter that many threads fill at once, without a lock.
//!
//! The layout, hashing, block choice and lane bits are those of [`Filter`] (the same
//! [`block_index`] and the same kernel's mask), so the two convert into each other without
//! copying the bitset ([`Filter::into_atomic`], [`AtomicFilter::into_filter`]) and a filter
//! built by several threads is bit for bit the one a single thread would build.
//!
//! The memory-ordering argument is in the docs of [`AtomicFilter`].

use alloc::vec::Vec;
use core::fmt;

use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::Filter;
use crate::filter::view::block_fpr;
use crate::hash::{FilterHasher, Xxh3};
use crate::layout::split_block::{BLOCK_BYTES, Block, LANES, block_index};
use crate::storage::Blocks;
use crate::storage::atomic::{AtomicBlock, into_atomic_blocks, into_plain_blocks};

/// A split-block Bloom filter whose inserts and lookups all take `&self`: share it between
/// threads (with `std::thread::scope` or behind an `Arc`) and insert from all of them at once,
/// lock-free.
///
/// It has the layout and hashing of [`Filter`]; convert between the two with
/// [`Filter::into_atomic`] and [`AtomicFilter::into_filter`] (no copy), or take a [`snapshot`]
/// while writers continue.
///
/// Use it when writers must share one live filter (readers see each insert as soon as it
/// completes). An atomic insert costs several times a plain one (up to four locked
/// read-modify-writes), so for a bulk load that nobody reads until it ends, building one
/// [`Filter`] per thread and merging them with [`Filter::union`] (bit-identical) is faster;
/// `cargo bench -p splitbloom-bench --bench atomic` compares the two.
///
/// ```
/// use splitbloom::AtomicFilter;
///
/// let filter = AtomicFilter::with_fpr(100_000, 0.01)?;
/// std::thread::scope(|scope| {
///     for thread in 0..4u64 {
///         let filter = &filter;
///         scope.spawn(move || {
///             for key in (thread * 25_000)..((thread + 1) * 25_000) {
///                 filter.insert(&key);
///             }
///         });
///     }
/// });
/// assert!((0..100_000u64).all(|key| filter.contains(&key)));
/// let frozen: splitbloom::Filter = filter.into_filter(); // no copy
/// assert!(frozen.contains(&99_999u64));
/// # Ok::<(), splitbloom::Error>(())
/// ```
///
/// # Memory ordering: why `Relaxed` is enough
///
/// An insert ORs the key's eight bits (one per lane) into the block's atomic words with
/// `fetch_or`, and nothing ever clears a bit through a shared reference. OR is commutative and idempotent, and every atomic
/// read-modify-write of one word takes part in that word's single modification order, so no
/// update can be lost, whatever the interleaving, and the final bits are exactly the OR of all
/// inserts. No other memory is published through these bits, so no ordering with other
/// locations is needed: `Relaxed` gives atomicity, which is all set-only bits require.
///
/// What it means for a reader that races writers:
///
/// * A key whose insert *completed before* the lookup, in the happens-before sense (the writer
///   thread was joined, or it signalled completion through a channel, a mutex, or a
///   `Release` store that the reader observed with an `Acquire` load), is always found: no false
///   negatives. Coherence then guarantees the reader sees each of the key's eight bits (or a later
///   value of the word, which still has them, since bits are never cleared).
/// * A key being inserted *while* the lookup runs may be reported present or absent: the reader
///   may see some of its eight lanes set and not others. Either answer is correct, since the
///   insert had not finished.
/// * False positives behave as in [`Filter`]: a lookup of a key never inserted may say "present"
///   once enough other keys are in.
///
/// The block is updated as four 64-bit atomic words (eight 32-bit ones on targets without 64-bit
/// atomics). A word whose bits are all set already is not written: a `Relaxed` load first, and
/// the atomic read-modify-write (a locked instruction, far slower than a load, and one that takes
/// the cache line exclusively) only for words that still miss a bit. As the filter fills, inserts
/// write fewer words, and threads reading a shared cache line do not bounce it.
///
/// [`snapshot`]: AtomicFilter::snapshot
pub struct AtomicFilter<S = Xxh3> {
    blocks: Blocks<AtomicBlock>,
    kernel: Dispatch,
    hasher: S,
}

shared_methods!(@constructors AtomicFilter);

impl<S> AtomicFilter<S> {
    /// [`AtomicFilter::with_num_blocks`] with a given hasher.
    ///
    /// Errors when `num_blocks` is 0 or above [`math::MAX_BLOCKS`](crate::math::MAX_BLOCKS), or
    /// the allocation fails.
    ///
    /// ```
    /// use splitbloom::{AtomicFilter, FilterHasher, Xxh3};
    /// // The default hasher with a seed of one's own.
    /// let filter = AtomicFilter::with_num_blocks_and_hasher(8, Xxh3::with_seed(7))?;
    /// assert_eq!((filter.num_blocks(), filter.hasher().seed()), (8, 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks_and_hasher(num_blocks: usize, hasher: S) -> Result<Self, Error> {
        Filter::with_num_blocks_and_hasher(num_blocks, hasher).map(Filter::into_atomic)
    }
}

write_methods! {
    type: {S} AtomicFilter {S},
    writer: shared,
    error: Infallible,
    insert_one: |filter, hash| {
        let block = &filter.blocks[block_index(hash, filter.blocks.len())];
        Ok(!block.insert(filter.kernel.mask(hash as u32)))
    },
    setup: "let mut filter = splitbloom::AtomicFilter::with_fpr(100, 0.01)?;",
    lookup: "filter",
    note: "Through a shared reference: threads insert into one filter at once, each bit set \
           with an atomic OR. `true` means some of the key's bits were unset when this call \
           read them, so two threads racing to insert the same new key may both get `true`.",
    batch_note: "Through a shared reference, the keys hashed a chunk at a time.",
    extend_note: "A filter never refuses a key, so this cannot fail.",
}

read_methods! {
    type: AtomicFilter,
    setup: "let filter = splitbloom::AtomicFilter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}",
    note: "Every key whose insert completed before this call is found (see [`AtomicFilter`]); \
           a key inserted concurrently may be reported present or absent.",
    probe: |filter, hash| {
        let block = &filter.blocks[block_index(hash, filter.blocks.len())];
        filter.kernel.contains_block(&block.load(), hash as u32)
    },
    bytes: yes,
}

/// Statistics read each block once, as a lookup does: they hold every key whose insert
/// completed before the call.
impl<S> AtomicFilter<S> {
    /// The fraction of bits that are set, from 0 to 1 (see [`Filter::fill_ratio`]).
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_num_blocks(1)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.fill_ratio(), 8.0 / 256.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        fill_ratio(self.blocks.iter().map(AtomicBlock::load))
    }

    /// The false-positive rate of the filter as it is now (see [`Filter::estimated_fpr`]).
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_num_blocks(8)?;
    /// filter.insert("x");
    /// assert_eq!(filter.estimated_fpr(), filter.snapshot().estimated_fpr());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        estimated_fpr(self.blocks.iter().map(AtomicBlock::load))
    }

    /// An estimate of how many distinct keys were inserted, from the fill ratio (see
    /// [`Filter::estimated_items`]).
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_bits_per_key(10_000, 10.0)?;
    /// filter.insert_batch(&(0..10_000u64).collect::<Vec<_>>());
    /// assert!((filter.estimated_items() - 10_000.0).abs() < 500.0);
    /// assert_eq!(filter.estimated_items(), filter.snapshot().estimated_items());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_items(&self) -> f64 {
        crate::math::keys_per_block_for_fill(self.fill_ratio()) * self.blocks.len() as f64
    }
}

impl AtomicFilter {
    /// Reads a filter written with the default hasher (by any filter type's `to_bytes`), as
    /// [`Filter::from_bytes`] then [`Filter::into_atomic`]; no type annotation is needed.
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_fpr(100, 0.01)?;
    /// filter.insert("key");
    /// let copy = splitbloom::AtomicFilter::from_bytes(&filter.to_bytes())?;
    /// assert!(copy.contains("key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<AtomicFilter, Error> {
        Filter::from_bytes(bytes).map(Filter::into_atomic)
    }
}

/// Persistence writes a [`snapshot`](AtomicFilter::snapshot): the bits as they are when it is
/// taken, with every key whose insert completed before the call.
impl<S: FilterHasher> AtomicFilter<S> {
    /// The filter in splitbloom's format, the bytes of [`Filter::to_bytes`] of a
    /// [`snapshot`](AtomicFilter::snapshot); read it back with [`Filter::from_bytes`] and
    /// [`Filter::into_atomic`].
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_fpr(100, 0.01)?;
    /// filter.insert("key");
    /// let copy: splitbloom::Filter = splitbloom::Filter::from_bytes(&filter.to_bytes())?;
    /// assert!(copy.into_atomic().contains("key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        self.snapshot().to_bytes()
    }

    /// Reads a filter built with the hasher type `S`, named as the type parameter, as
    /// [`Filter::from_bytes_with_hasher_type`] then [`Filter::into_atomic`] (the bitset is not
    /// copied again).
    ///
    /// ```
    /// use splitbloom::{AtomicFilter, Filter, parquet::ParquetHash};
    /// let bytes = Filter::with_num_blocks_and_hasher(4, ParquetHash::default())?.to_bytes();
    /// let filter = AtomicFilter::<ParquetHash>::from_bytes_with_hasher_type(&bytes)?;
    /// assert_eq!(filter.num_blocks(), 4);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &[u8]) -> Result<Self, Error> {
        Filter::from_bytes_with_hasher_type(bytes).map(Filter::into_atomic)
    }

    /// Writes [`to_bytes`](AtomicFilter::to_bytes) to `writer`.
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_num_blocks(2)?;
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        self.snapshot().write_to(writer)
    }
}

impl<S> Filter<S> {
    /// This filter, shareable between writing threads: the bitset is taken over, not copied.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert("before");
    /// let shared = filter.into_atomic();
    /// shared.insert("after"); // through `&self`
    /// assert!(shared.contains("before") && shared.contains("after"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn into_atomic(self) -> AtomicFilter<S> {
        let (blocks, kernel, hasher) = self.into_parts();
        AtomicFilter {
            blocks: into_atomic_blocks(blocks),
            kernel,
            hasher,
        }
    }
}

impl<S> From<Filter<S>> for AtomicFilter<S> {
    /// [`Filter::into_atomic`].
    fn from(filter: Filter<S>) -> Self {
        filter.into_atomic()
    }
}

impl<S> From<AtomicFilter<S>> for Filter<S> {
    /// [`AtomicFilter::into_filter`].
    fn from(filter: AtomicFilter<S>) -> Self {
        filter.into_filter()
    }
}

impl<S> AtomicFilter<S> {
    /// The plain [`Filter`] with these bits, taking the bitset over without copying. Owning the
    /// `AtomicFilter` proves every writer has finished, so the result holds every insert.
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_num_blocks(8)?;
    /// filter.insert_hash(7 << 40);
    /// assert!(filter.into_filter().contains_hash(7 << 40));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn into_filter(self) -> Filter<S> {
        Filter::from_parts(into_plain_blocks(self.blocks), self.kernel, self.hasher)
    }

    /// A plain [`Filter`] copy of the bits as they are now, while writers may continue (one pass
    /// over the bitset, at memory speed).
    ///
    /// It holds every key whose insert happened before this call (see the
    /// [`AtomicFilter`] docs); a key inserted concurrently may be in it or not.
    ///
    /// ```
    /// let filter = splitbloom::AtomicFilter::with_num_blocks(8)?;
    /// filter.insert("early");
    /// let snapshot = filter.snapshot();
    /// filter.insert("late");
    /// assert!(snapshot.contains("early"));
    /// assert!(filter.contains("late"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn snapshot(&self) -> Filter<S>
    where
        S: Clone,
    {
        let mut blocks: Blocks = Blocks::zeroed_or_abort(self.blocks.len());
        for (copy, block) in blocks.iter_mut().zip(self.blocks.iter()) {
            *copy = Block(block.load());
        }
        Filter::from_parts(blocks, self.kernel, self.hasher.clone())
    }
}

shared_methods!(@accessors AtomicFilter, "let filter = splitbloom::AtomicFilter::with_num_blocks(8)?;", 32);

/// A copy of the bits as they are now (a [`snapshot`](AtomicFilter::snapshot)), on the same
/// kernel.
///
/// ```
/// let filter = splitbloom::AtomicFilter::with_num_blocks(8)?;
/// filter.insert("k");
/// let copy = filter.clone();
/// assert!(copy.contains("k"));
/// assert_eq!(copy, filter);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: Clone> Clone for AtomicFilter<S> {
    fn clone(&self) -> Self {
        self.snapshot().into_atomic()
    }
}

/// Equal when they hold the same bits and the same hasher, as [`Filter`]'s `==`; the bits are
/// read block by block, so while writers run the answer describes no single moment.
///
/// ```
/// let a = splitbloom::AtomicFilter::with_num_blocks(8)?;
/// let b = splitbloom::AtomicFilter::with_num_blocks(8)?;
/// a.insert("k");
/// assert_ne!(a, b);
/// b.insert("k");
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for AtomicFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher
            && self.blocks.len() == other.blocks.len()
            && self
                .blocks
                .iter()
                .zip(other.blocks.iter())
                .all(|(a, b)| a.load() == b.load())
    }
}

/// Shows the shape, not the bits (which may be changing).
///
/// ```
/// let filter = splitbloom::AtomicFilter::with_num_blocks(2)?;
/// assert!(format!("{filter:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for AtomicFilter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicFilter")
            .field("num_blocks", &self.blocks.len())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .finish()
    }
}

// Compile-time check: the filter is shared between threads by design.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<AtomicFilter>();
};

/// The fraction of bits of `blocks` that are set, from 0 to 1.
fn fill_ratio(blocks: impl ExactSizeIterator<Item = [u32; LANES]>) -> f64 {
    let bits = (blocks.len() * BLOCK_BYTES * 8) as f64;
    let set: u64 = blocks
        .flatten()
        .map(|word| u64::from(word.count_ones()))
        .sum();
    set as f64 / bits
}

/// The chance that a uniformly random hash is reported present: the product of the lanes'
/// fill, averaged over blocks.
fn estimated_fpr(blocks: impl ExactSizeIterator<Item = [u32; LANES]>) -> f64 {
    let num_blocks = blocks.len() as f64;
    let total: f64 = blocks.map(|block| block_fpr(&block)).sum();
    total / num_blocks
}
