//! [`QuotientFilter`]: a filter that can remove keys, at the memory of a Bloom filter. Here the
//! type, its constructors, its reads and its accessors; `operations.rs` has its inserts and
//! removals, `filter_ref.rs` the zero-copy [`QuotientFilterRef`] and the readers of the bytes,
//! `view.rs` the [`QuotientView`] every read of both goes through.
//!
//! The layout and its reference are in `layout/quotient.rs`, the kernels and operations in
//! `arch/quotient/`, the rates and sizing in [`math::quotient`](crate::math::quotient); the
//! reads go through the family's `Probe` path (`filter/view.rs`), and the inserts through its
//! `Insert` path (`filter/write.rs`, by `write_methods!`).

mod filter_ref;
mod operations;
mod persist;
pub(crate) mod view;

pub use filter_ref::QuotientFilterRef;

use core::fmt;

use crate::arch::Dispatch;
use crate::error::Error;
use crate::hash::Xxh3;
use crate::kind::TagBits;
use crate::layout::quotient::{Block, QuotientBlock};
use crate::math::quotient as math;
use crate::storage::Blocks;
use view::{QuotientView, quotient_methods};

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
///
/// **Many writers.** Reads take `&self`, so any number of threads may read a filter that no
/// thread is writing; inserts and removals take `&mut self`. Writers on several threads share
/// one filter behind a `std::sync::Mutex` and hand it batches, so that one lock covers many
/// keys (below); or each keeps a filter of its own for a shard of the keys, routed by a hash other than the
/// filter's (another seed): the filter's hash picks the bucket with its high bits and the tag
/// with its low ones, so shards chosen by either would crowd their keys into part of their
/// blocks or narrow their tags. There is no lock-free form: an insert may write either of a
/// key's two blocks and move a stored tag into a third, so it would lock up to three blocks,
/// where a lock taken once per batch costs little next to the batch (measured in
/// `BENCHMARKS.md`, "Quotient").
///
/// ```
/// use std::sync::Mutex;
/// use splitbloom::QuotientFilter;
///
/// let shared = Mutex::new(QuotientFilter::with_fpr(10_000, 0.01)?);
/// let keys: Vec<u64> = (0..4_000).collect();
/// std::thread::scope(|scope| {
///     for part in keys.chunks(1_000) {
///         let shared = &shared;
///         scope.spawn(move || {
///             for batch in part.chunks(256) {
///                 let mut filter = shared.lock().unwrap();
///                 filter.insert_copy_batch(batch).expect("sized for these keys");
///             }
///         });
///     }
/// });
/// let filter = shared.into_inner().unwrap();
/// assert_eq!(filter.len(), 4_000);
/// assert!(keys.iter().all(|key| filter.contains(key)));
/// # Ok::<(), splitbloom::Error>(())
/// ```
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
