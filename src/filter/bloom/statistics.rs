//! The accessors and statistics of [`BloomFilter`]: its kernel, hasher, size and layout, and
//! what its bits say (fill, rate, keys).

use crate::filter::{BloomFilter, Layout};

shared_methods!(@accessors {S, L: Layout} BloomFilter {S, L}, "let filter = splitbloom::Filter::with_num_blocks(8)?;", 32);
shared_methods!(@layout {S, L: Layout} BloomFilter {S, L}, "let mut filter = splitbloom::WideFilter::with_fpr(10_000, 1e-5)?;
filter.insert_batch(&(0..10_000u64).collect::<Vec<_>>());");

impl<S, L: Layout> BloomFilter<S, L> {
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
}
