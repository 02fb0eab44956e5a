//! The constructors of [`BloomFilter`], each through [`BloomFilter::with_layout`], the one
//! fallible allocation; and `FromIterator`.

use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::{BloomFilter, Filter, Layout, WideFilter};
use core::hash::Hash;

use crate::hash::Xxh3;
use crate::layout::split_block::SplitBlock;
use crate::layout::wide::Wide;
use crate::math;
use crate::storage::Blocks;

impl<L: Layout> BloomFilter<Xxh3, L> {
    /// An empty filter for `items` keys with a false-positive rate of at most `fpr`, sized
    /// with its layout's formula: the split-block one
    /// ([`math::num_blocks_for_fpr`]), not the classic Bloom
    /// formula, which under-sizes blocked filters; for the wide layout one probe per key where
    /// that costs at most 1% more memory than two, two below
    /// ([`math::wide::num_blocks_for_fpr`]).
    ///
    /// Errors when `items` is 0, `fpr` is not strictly between 0 and 1, or the filter would be
    /// too large to allocate.
    ///
    /// This and the other constructors without a hasher argument build the default hasher.
    /// For another one, pass it: `Filter::with_fpr_and_hasher(items, fpr,
    /// ParquetHash::default())`. They are not generic over the hasher because Rust does not
    /// fall back to a type parameter's default when it infers a call: a generic `with_fpr`
    /// would make every `Filter::with_fpr(..)` need a type annotation, as `HashMap::new` would.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_fpr(1_000_000, 0.01)?;
    /// assert_eq!(filter.num_blocks(), 41_130); // 10.53 bits per key
    /// let wide = splitbloom::WideFilter::with_fpr(1_000_000, 1e-3)?;
    /// assert_eq!((wide.num_blocks(), wide.layout().probes()), (30_826, 1));
    /// assert!(splitbloom::Filter::with_fpr(1000, 1.0).is_err());
    /// assert!(splitbloom::Filter::with_fpr(0, 0.01).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr(items: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_fpr_and_hasher(items, fpr, Xxh3::default())
    }
}

impl<S, L: Layout> BloomFilter<S, L> {
    /// [`BloomFilter::with_fpr`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::{FilterHasher, Filter, WideFilter, Xxh3};
    /// // The default hasher with a seed of one's own.
    /// let filter = Filter::with_fpr_and_hasher(1000, 0.01, Xxh3::with_seed(9))?;
    /// assert_eq!(filter.hasher().seed(), 9);
    /// let wide = WideFilter::with_fpr_and_hasher(1000, 1e-4, Xxh3::with_seed(9))?;
    /// assert_eq!(wide.hasher().seed(), 9);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr_and_hasher(items: usize, fpr: f64, hasher: S) -> Result<Self, Error> {
        let (num_blocks, layout) = L::for_fpr(items, fpr)?;
        Self::with_layout(num_blocks, layout, hasher)
    }

    /// An empty filter of exactly `num_blocks` blocks of `layout`: the one constructor every
    /// other calls, for code written once over the layouts (a store of filters of either
    /// layout, a reader of headers). Errors when the layout cannot have that many blocks (see
    /// the layout's `with_num_blocks`), or the allocation fails (never an abort).
    ///
    /// ```
    /// use splitbloom::layout::{SplitBlock, Wide};
    /// use splitbloom::{BloomFilter, Xxh3};
    /// let wide = BloomFilter::with_layout(128, Wide::with_probes(2).unwrap(), Xxh3::default())?;
    /// assert_eq!((wide.num_blocks(), wide.probes()), (128, 2));
    /// assert!(BloomFilter::with_layout(0, SplitBlock, Xxh3::default()).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_layout(num_blocks: usize, layout: L, hasher: S) -> Result<Self, Error> {
        layout.check_shape(num_blocks)?;
        Ok(BloomFilter {
            blocks: Blocks::try_zeroed(num_blocks)?,
            layout,
            kernel: Dispatch::best(),
            hasher,
        })
    }
}

impl Filter {
    /// An empty filter for `items` keys with `bits_per_key` bits each (rounded up to whole
    /// blocks of 256 bits).
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_bits_per_key(1000, 10.0)?;
    /// assert_eq!(filter.num_blocks(), 40);
    /// assert!(splitbloom::Filter::with_bits_per_key(1000, f64::NAN).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_bits_per_key(items: usize, bits_per_key: f64) -> Result<Self, Error> {
        Self::with_bits_per_key_and_hasher(items, bits_per_key, Xxh3::default())
    }

    /// An empty filter of exactly `num_blocks` blocks.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(100)?;
    /// assert_eq!(filter.num_blocks(), 100);
    /// assert!(splitbloom::Filter::with_num_blocks(0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks(num_blocks: usize) -> Result<Self, Error> {
        Self::with_num_blocks_and_hasher(num_blocks, Xxh3::default())
    }
}

impl<S> Filter<S> {
    /// [`Filter::with_bits_per_key`] with a given hasher.
    ///
    /// ```
    /// use splitbloom::parquet::ParquetHash;
    /// let filter = splitbloom::Filter::with_bits_per_key_and_hasher(1000, 16.0, ParquetHash::default())?;
    /// assert_eq!(filter.num_blocks(), 63);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_bits_per_key_and_hasher(
        items: usize,
        bits_per_key: f64,
        hasher: S,
    ) -> Result<Self, Error> {
        let num_blocks = math::num_blocks_for_bits(items, bits_per_key)?;
        Self::with_num_blocks_and_hasher(num_blocks, hasher)
    }

    /// [`Filter::with_num_blocks`] with a given hasher.
    ///
    /// Errors when `num_blocks` is 0 or above [`math::MAX_BLOCKS`], or the allocation fails.
    ///
    /// ```
    /// use splitbloom::{Filter, FilterHasher, Xxh3};
    /// // The default hasher with a seed of one's own.
    /// let filter = Filter::with_num_blocks_and_hasher(8, Xxh3::with_seed(7))?;
    /// assert_eq!((filter.num_blocks(), filter.hasher().seed()), (8, 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks_and_hasher(num_blocks: usize, hasher: S) -> Result<Self, Error> {
        Self::with_layout(num_blocks, SplitBlock, hasher)
    }
}

impl WideFilter {
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
        let layout =
            Wide::with_probes(probes).ok_or(Error::InvalidWideShape { num_blocks, probes })?;
        Self::with_layout(num_blocks, layout, hasher)
    }
}

/// A filter of every key, sized for exactly their number: at a false-positive rate of 1% for
/// a [`Filter`] (about 10.5 bits per key), 0.1% for a [`WideFilter`] (one cache line per key).
/// The keys are collected into a `Vec` first, to count them. For another rate, build with
/// [`with_fpr`](BloomFilter::with_fpr) and [`extend`](Extend::extend).
///
/// An empty iterator gives a filter sized for one key. Beyond the largest size (about
/// 4 · 10^11 keys) the filter is capped at it: fuller, never missing a key. An allocation that
/// fails aborts, as collecting into a `Vec` does.
///
/// ```
/// let filter: splitbloom::Filter = (0..10_000u64).collect();
/// assert_eq!(filter.num_blocks(), splitbloom::math::num_blocks_for_fpr(10_000, 0.01)?);
/// assert!(filter.contains(&1234u64));
/// let wide: splitbloom::WideFilter = (0..10_000u64).collect();
/// assert_eq!(wide.num_blocks(), splitbloom::math::wide::num_blocks_for_fpr(10_000, 1e-3)?.0);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<K: Hash, L: Layout> FromIterator<K> for BloomFilter<Xxh3, L> {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let keys: alloc::vec::Vec<K> = keys.into_iter().collect();
        let (num_blocks, layout) =
            L::for_fpr(keys.len().max(1), L::DEFAULT_FPR).unwrap_or_else(|_| L::largest());
        let mut filter = BloomFilter {
            blocks: Blocks::zeroed_or_abort(num_blocks),
            layout,
            kernel: Dispatch::best(),
            hasher: Xxh3::default(),
        };
        filter.insert_batch(&keys);
        filter
    }
}
