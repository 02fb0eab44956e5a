//! The accessors and statistics of [`BloomFilter`]: its kernel, hasher, size and layout, and
//! what its bits say (fill, rate, keys).

use crate::filter::{BloomFilter, Layout};

shared_methods!(@accessors {S, L: Layout} BloomFilter {S, L}, "let filter = splitbloom::Filter::with_num_blocks(8)?;", 32);

impl<S, L: Layout> BloomFilter<S, L> {
    /// The layout, with what it decided when the filter was sized (a wide filter's probes per
    /// key).
    ///
    /// ```
    /// use splitbloom::{Layout, WideFilter};
    /// assert_eq!(WideFilter::with_fpr(100_000, 1e-6)?.layout().probes(), 2);
    /// assert_eq!(WideFilter::with_fpr(1000, 1e-2)?.layout().probes(), 1);
    /// assert_eq!(splitbloom::Filter::with_num_blocks(1)?.layout().probes(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn layout(&self) -> L {
        self.layout
    }

    /// The blocks each key sets its bits in: 1 (one cache line per lookup), or 2 for a
    /// [`WideFilter`] sized below 0.1%.
    ///
    /// ```
    /// assert_eq!(splitbloom::WideFilter::with_fpr(100_000, 1e-6)?.probes(), 2);
    /// assert_eq!(splitbloom::WideFilter::with_fpr(1000, 1e-2)?.probes(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn probes(&self) -> u8 {
        self.layout.probes()
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
        self.blocks.fill(bytemuck::Zeroable::zeroed());
    }

    /// The bitset as words in native byte order, block after block: `u32` lanes for a
    /// [`Filter`], `u64` words for a [`WideFilter`] (word `j` of block `b` at `8b + j`; bit `i`
    /// of a word is `1 << i`).
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(2)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.as_words().len(), 16);
    /// assert_eq!(filter.as_words().iter().map(|w| w.count_ones()).sum::<u32>(), 8);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn as_words(&self) -> &[L::Word] {
        bytemuck::cast_slice(&self.blocks)
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
        self.view().fill_ratio()
    }

    /// The false-positive rate of the filter as it is now: the chance that a random hash finds
    /// every bit of its blocks set, from the fill of each block's words, averaged over blocks.
    /// Exact for uniformly distributed hashes, whatever was inserted.
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
        self.view().estimated_fpr()
    }

    /// An estimate of how many distinct keys were inserted, from the fill ratio (see
    /// [`math::keys_per_block_for_fill`] and
    /// [`math::wide::items_for_fill`](crate::math::wide::items_for_fill)). Accurate to a few
    /// percent until the filter is far past its planned size.
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
        self.view().estimated_items()
    }
}
