//! Combining filters bit by bit: [`BloomFilter::union`] and [`BloomFilter::intersect`], for
//! every layout; and shrinking a split-block filter by folding: writers size generously, then
//! shrink once they know how many keys arrived (as Parquet writers such as arrow-rs do).
//!
//! A key's block is `((h >> 32) · z) >> 32`. With an even `z`, the same key in a filter of
//! `z / 2` blocks lands in block `⌊index / 2⌋`, because
//! `⌊a · (z/2) / 2^32⌋ = ⌊⌊a · z / 2^32⌋ / 2⌋`. So OR-ing blocks `2j` and `2j + 1` into block
//! `j` gives exactly the filter that inserting the same keys into `z / 2` blocks would have
//! built: no false negatives, bit for bit. The wide layout does not fold: its second block is
//! the first one's neighbour inside a group of 64, and halving the groups moves the neighbour
//! to another block than the one the OR puts its bits in.

use super::{BloomFilter, Filter, Layout};
use crate::error::Error;
use crate::filter::view::block_fpr;
use crate::layout::split_block::LANES;
use crate::math;

impl<S> Filter<S> {
    /// Halves the number of blocks by OR-ing blocks `2j` and `2j + 1` into block `j`. The
    /// result equals the filter built from the same keys at half the size, bit for bit; the
    /// false-positive rate rises accordingly.
    ///
    /// Errors (and changes nothing) when the number of blocks is odd.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert("kept");
    /// filter.fold()?;
    /// assert_eq!(filter.num_blocks(), 32);
    /// assert!(filter.contains("kept"));
    /// assert!(splitbloom::Filter::with_num_blocks(3)?.fold().is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fold(&mut self) -> Result<(), Error> {
        let num_blocks = self.num_blocks();
        if !num_blocks.is_multiple_of(2) {
            return Err(Error::CannotFold { blocks: num_blocks });
        }
        let blocks = self.words_mut();
        // Block j is written after blocks 2j and 2j + 1 (both ≥ j) were read.
        for j in 0..num_blocks / 2 {
            blocks[j] = or(&blocks[2 * j], &blocks[2 * j + 1]);
        }
        self.truncate_blocks(num_blocks / 2)
    }

    /// Folds (see [`fold`](Filter::fold)) as long as the number of blocks is even and the
    /// folded filter's [`estimated_fpr`](Filter::estimated_fpr) stays at most `target`;
    /// returns the number of folds done.
    ///
    /// The rate of each candidate is computed exactly from the bits the fold would produce
    /// (the product of the merged lanes' fill, averaged over blocks), not approximated from
    /// the average fill.
    ///
    /// Errors when `target` is not strictly between 0 and 1.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(1024)?;
    /// for key in 0..1000u64 {
    ///     filter.insert(&key);
    /// }
    /// let folds = filter.fold_to_fpr(0.01)?;
    /// assert!(folds >= 2 && filter.estimated_fpr() <= 0.01);
    /// for key in 0..1000u64 {
    ///     assert!(filter.contains(&key));
    /// }
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fold_to_fpr(&mut self, target: f64) -> Result<u32, Error> {
        math::check_fpr(target)?;
        let mut folds = 0;
        while self.num_blocks().is_multiple_of(2) && folded_fpr(self.words()) <= target {
            self.fold()?;
            folds += 1;
        }
        Ok(folds)
    }
}

/// The lane-wise OR of two blocks.
#[inline]
fn or(a: &[u32; LANES], b: &[u32; LANES]) -> [u32; LANES] {
    core::array::from_fn(|lane| a[lane] | b[lane])
}

/// The estimated false-positive rate `blocks` (an even number) would have after one fold.
fn folded_fpr(blocks: &[[u32; LANES]]) -> f64 {
    let total: f64 = blocks
        .chunks_exact(2)
        .map(|pair| block_fpr(&or(&pair[0], &pair[1])))
        .sum();
    total / (blocks.len() / 2) as f64
}

impl<S: PartialEq, L: Layout> BloomFilter<S, L> {
    /// Makes `self` the union of both filters: afterwards it contains every key of either.
    /// The result is exactly the filter built from both key sets.
    ///
    /// Errors when the filters differ in size, layout (a wide filter's probes per key) or
    /// hasher.
    ///
    /// ```
    /// use splitbloom::{Filter, WideFilter};
    /// let mut a = Filter::with_num_blocks(64)?;
    /// let mut b = Filter::with_num_blocks(64)?;
    /// a.insert("left");
    /// b.insert("right");
    /// a.union(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// assert!(a.union(&Filter::with_num_blocks(32)?).is_err());
    /// let mut wide = WideFilter::with_num_blocks(64, 2)?;
    /// assert!(wide.union(&WideFilter::with_num_blocks(64, 1)?).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn union(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |word, other| *word |= other)
    }

    /// Makes `self` the intersection of both filters: keys of both stay present (no false
    /// negatives for them); the false-positive rate is at most that of either filter.
    ///
    /// Errors when the filters differ in size, layout or hasher.
    ///
    /// ```
    /// use splitbloom::Filter;
    /// let mut a = Filter::with_num_blocks(64)?;
    /// let mut b = Filter::with_num_blocks(64)?;
    /// a.insert("both");
    /// b.insert("both");
    /// a.insert("only a");
    /// a.intersect(&b)?;
    /// assert!(a.contains("both"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn intersect(&mut self, other: &Self) -> Result<(), Error> {
        self.combine(other, |word, other| *word &= other)
    }

    /// Applies `op` word by word after checking the filters are compatible.
    fn combine(&mut self, other: &Self, op: impl Fn(&mut u32, u32)) -> Result<(), Error> {
        if self.blocks.len() != other.blocks.len() {
            return Err(Error::ShapeMismatch {
                left: self.blocks.len(),
                right: other.blocks.len(),
            });
        }
        if self.layout != other.layout {
            return Err(Error::ProbesMismatch {
                left: self.layout.probes(),
                right: other.layout.probes(),
            });
        }
        if self.hasher != other.hasher {
            return Err(Error::HasherMismatch);
        }
        // Every layout's blocks are whole 32-bit words, and a bitwise operation does not care
        // how they are grouped.
        let words: &mut [u32] = bytemuck::cast_slice_mut(&mut self.blocks);
        let others: &[u32] = bytemuck::cast_slice(&other.blocks);
        for (word, &other) in words.iter_mut().zip(others) {
            op(word, other);
        }
        Ok(())
    }
}
