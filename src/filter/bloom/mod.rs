//! [`BloomFilter`]: the owned, mutable Bloom filter of any [`Layout`], written once; and its
//! two names, [`Filter`] (the split-block layout) and [`WideFilter`] (the wide one). Its own
//! methods come in the order its documentation lists them: constructors, inserts and lookups
//! (keyed, pre-hashed, byte keys), then the accessors and statistics.

mod new;
mod operations;
mod statistics;
// After the filter's own methods: its bytes, then the set operations.
mod fold;
mod persist;

use core::fmt;

use crate::arch::{self, Dispatch};
use crate::error::Error;
use crate::filter::Layout;
use crate::filter::view::View;
use crate::hash::Xxh3;
use crate::kind::Kernel;
use crate::layout::split_block::SplitBlock;
use crate::layout::wide::Wide;
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

impl<S, L: Layout> BloomFilter<S, L> {
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
