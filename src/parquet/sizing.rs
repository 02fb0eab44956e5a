//! The bitset sizes Parquet readers accept, and [`Sizing`]: a Parquet-valid size for a number of
//! values and a false-positive rate.

use crate::error::Error;
use crate::hash::ParquetHash;
use crate::layout::split_block::BLOCK_BYTES;
use crate::{Filter, math};

/// The smallest bitset Parquet readers accept, in bytes (one block).
///
/// ```
/// assert_eq!(splitbloom::parquet::MIN_BITSET_BYTES, splitbloom::BLOCK_BYTES);
/// ```
pub const MIN_BITSET_BYTES: usize = 32;

/// The largest bitset Parquet readers accept, in bytes (128 MiB).
///
/// ```
/// assert_eq!(splitbloom::parquet::MAX_BITSET_BYTES, 1 << 27);
/// ```
pub const MAX_BITSET_BYTES: usize = 128 * 1024 * 1024;

/// The size of a Parquet bloom filter for a number of distinct values and a target
/// false-positive rate, and the rate it really gives.
///
/// The number of blocks comes from splitbloom's split-block formula (see [`math`]), then is
/// rounded up to a power of two number of bytes and clamped to 32 B ..= 128 MiB as Parquet
/// readers require. [`fpr`](Sizing::fpr) is the rate at that size: at most the target, unless
/// the 128 MiB cap was hit.
///
/// ```
/// use splitbloom::parquet::Sizing;
/// let sizing = Sizing::for_items(1_000_000, 0.01)?;
/// assert!(sizing.num_bytes.is_power_of_two());
/// assert!(sizing.fpr <= 0.01);
/// // arrow-rs's formula asks for 9,681,526 bits here, too few for a blocked filter at 1%;
/// // after rounding to a power of two both land on 2 MiB.
/// assert_eq!(sizing.num_bytes, 2 * 1024 * 1024);
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Sizing {
    /// Bitset size in bytes: a power of two from [`MIN_BITSET_BYTES`] to [`MAX_BITSET_BYTES`].
    pub num_bytes: usize,
    /// The number of distinct values sized for.
    pub items: u64,
    /// The false-positive rate with `items` distinct values at this size.
    pub fpr: f64,
}

impl Sizing {
    /// The Parquet-valid size for `items` distinct values at false-positive rate `fpr`.
    ///
    /// Errors when `fpr` is not strictly between 0 and 1. Zero items give the smallest size.
    ///
    /// ```
    /// use splitbloom::parquet::Sizing;
    /// assert_eq!(Sizing::for_items(0, 0.01)?.num_bytes, 32);
    /// assert_eq!(Sizing::for_items(u64::MAX, 0.01)?.num_bytes, 128 << 20);
    /// assert!(Sizing::for_items(10, 0.0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn for_items(items: u64, fpr: f64) -> Result<Sizing, Error> {
        math::check_fpr(fpr)?;
        let max_blocks = MAX_BITSET_BYTES / BLOCK_BYTES;
        let blocks =
            match math::num_blocks_for_fpr(usize::try_from(items).unwrap_or(usize::MAX), fpr) {
                Ok(blocks) => blocks.min(max_blocks),
                Err(Error::ZeroItems) => 1,
                Err(Error::TooLargeForRate { .. }) => max_blocks,
                Err(error) => return Err(error),
            };
        let num_bytes = (blocks * BLOCK_BYTES)
            .next_power_of_two()
            .clamp(MIN_BITSET_BYTES, MAX_BITSET_BYTES);
        Ok(Sizing {
            num_bytes,
            items,
            fpr: Self::fpr_at(num_bytes, items),
        })
    }

    /// The false-positive rate of a bitset of `num_bytes` bytes holding `items` distinct values.
    ///
    /// ```
    /// let rate = splitbloom::parquet::Sizing::fpr_at(1024, 320); // 25.6 bits per value
    /// assert!(rate > 0.0001 && rate < 0.001);
    /// ```
    pub fn fpr_at(num_bytes: usize, items: u64) -> f64 {
        let blocks = (num_bytes / BLOCK_BYTES).max(1);
        math::fpr_for_keys_per_block(items as f64 / blocks as f64)
    }

    /// The number of 32-byte blocks.
    ///
    /// ```
    /// assert_eq!(splitbloom::parquet::Sizing::for_items(0, 0.5)?.num_blocks(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.num_bytes / BLOCK_BYTES
    }

    /// An empty filter of this size, hashing like Parquet.
    ///
    /// ```
    /// let filter = splitbloom::parquet::Sizing::for_items(1000, 0.01)?.filter()?;
    /// assert_eq!(filter.size_in_bytes(), 2048);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn filter(&self) -> Result<Filter<ParquetHash>, Error> {
        Filter::with_num_blocks_and_hasher(self.num_blocks(), ParquetHash::default())
    }
}

/// Errors unless `num_bytes` is a bitset size Parquet readers accept.
pub(super) fn check_parquet_size(num_bytes: usize) -> Result<(), Error> {
    if num_bytes.is_power_of_two() && (MIN_BITSET_BYTES..=MAX_BITSET_BYTES).contains(&num_bytes) {
        Ok(())
    } else {
        Err(Error::InvalidParquetSize {
            bytes: num_bytes as u64,
        })
    }
}
