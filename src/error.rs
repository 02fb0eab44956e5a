//! The crate's error type.

use core::fmt;

use crate::Kernel;

/// Everything that can go wrong when building or combining filters.
///
/// ```
/// use splitbloom::{Error, Filter};
/// assert_eq!(Filter::with_fpr(0, 0.01).unwrap_err(), Error::ZeroItems);
/// println!("{}", Filter::with_fpr(10, 1.5).unwrap_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A filter was sized for zero items.
    ZeroItems,
    /// A false-positive rate outside the open interval (0, 1), or NaN.
    InvalidFpr(f64),
    /// Bits per key that are not a positive finite number.
    InvalidBitsPerKey(f64),
    /// A filter with zero blocks.
    ZeroBlocks,
    /// The filter would need more blocks than [`MAX_BLOCKS`](crate::math::MAX_BLOCKS).
    TooLarge {
        /// The number of blocks that was asked for.
        blocks: f64,
    },
    /// The allocator could not provide the filter's memory.
    AllocationFailed {
        /// The number of bytes requested.
        bytes: usize,
    },
    /// Two filters with different numbers of blocks were combined.
    ShapeMismatch {
        /// Blocks of the filter being changed.
        left: usize,
        /// Blocks of the other filter.
        right: usize,
    },
    /// Two filters with different hashers (kind or seed) were combined.
    HasherMismatch,
    /// The requested kernel cannot run on this CPU.
    KernelUnavailable(Kernel),
    /// A scalable filter's growth factor is not a finite number of at least 1.
    InvalidGrowthFactor(f64),
    /// A scalable filter's tightening ratio is not strictly between 0 and 1.
    InvalidTighteningRatio(f64),
    /// A scalable filter was assembled from no stages.
    NoStages,
    /// A scalable filter's stage does not have the size its parameters give it.
    StageMismatch {
        /// The stage, counted from 0 (the oldest).
        stage: usize,
        /// The blocks the parameters give this stage.
        expected_blocks: usize,
        /// The blocks the stage has.
        found_blocks: usize,
    },
    /// A scalable filter's newest stage was said to hold more items than its capacity.
    StageOverfilled {
        /// The items said to be in the stage.
        items: u64,
        /// The stage's capacity.
        capacity: u64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroItems => f.write_str("the expected number of items must be at least 1"),
            Error::InvalidFpr(fpr) => {
                write!(
                    f,
                    "false-positive rate {fpr} is not strictly between 0 and 1"
                )
            }
            Error::InvalidBitsPerKey(bits) => {
                write!(f, "bits per key {bits} is not a positive finite number")
            }
            Error::ZeroBlocks => f.write_str("a filter needs at least one block"),
            Error::TooLarge { blocks } => write!(
                f,
                "a filter of {blocks:.0} blocks exceeds the maximum of {} blocks (128 GiB)",
                crate::math::MAX_BLOCKS
            ),
            Error::AllocationFailed { bytes } => {
                write!(f, "could not allocate {bytes} bytes for the filter")
            }
            Error::ShapeMismatch { left, right } => {
                write!(f, "filters have different sizes ({left} vs {right} blocks)")
            }
            Error::HasherMismatch => f.write_str("filters use different hashers or seeds"),
            Error::KernelUnavailable(kernel) => {
                write!(f, "the {kernel} kernel is not available on this CPU")
            }
            Error::InvalidGrowthFactor(factor) => write!(
                f,
                "growth factor {factor} must be a finite number of at least 1 (2 is usual)"
            ),
            Error::InvalidTighteningRatio(ratio) => write!(
                f,
                "tightening ratio {ratio} must be strictly between 0 and 1 (0.8 to 0.9 is usual)"
            ),
            Error::NoStages => f.write_str("a scalable filter needs at least one stage"),
            Error::StageMismatch {
                stage,
                expected_blocks,
                found_blocks,
            } => write!(
                f,
                "stage {stage} has {found_blocks} blocks but the parameters give it \
                 {expected_blocks}: the stages were built with other parameters"
            ),
            Error::StageOverfilled { items, capacity } => write!(
                f,
                "the newest stage cannot hold {items} items: its capacity is {capacity}"
            ),
        }
    }
}

impl core::error::Error for Error {}
