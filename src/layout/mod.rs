//! The layouts: where a key's bits lie, as plain Rust with no `unsafe`, and the scalar
//! reference every kernel reproduces bit for bit. [`SplitBlock`] and [`Wide`] are the two
//! values of the [`Layout`](crate::Layout) parameter of [`BloomFilter`](crate::BloomFilter):
//! [`Filter`](crate::Filter) and [`WideFilter`](crate::WideFilter).
//!
//! ```
//! use splitbloom::layout::{SplitBlock, Wide};
//! use splitbloom::{BloomFilter, Filter, WideFilter};
//! let filter: BloomFilter<splitbloom::Xxh3, SplitBlock> = Filter::with_fpr(100, 0.01)?;
//! let wide: BloomFilter<splitbloom::Xxh3, Wide> = WideFilter::with_fpr(100, 1e-4)?;
//! assert_eq!((filter.layout(), wide.layout().probes()), (SplitBlock, 1));
//! # Ok::<(), splitbloom::Error>(())
//! ```
//!
//! A layout is a policy, as Boost.Bloom's block policies are: it says how a key's 64-bit hash
//! chooses its blocks and its bits inside them, and nothing else. The kernels (`src/arch/`)
//! implement each layout's block primitives once per instruction set; the batch loops, the
//! prefetching and the filter types are written once over the crate's `Policy` trait, which
//! every layout implements (where a key's lines are, for prefetching).
//!
//! | file | layout | a key's bits |
//! |---|---|---|
//! | `split_block.rs` | [`SplitBlock`]: Parquet's split-block Bloom filter | eight, one in each 32-bit lane of one 32-byte block |
//! | `wide.rs` | [`Wide`]: 64-byte blocks for low rates | eight, one in each 64-bit word of one block, or of two neighbouring blocks |
//! | `window.rs` | the generations of a [`WindowFilter`](crate::WindowFilter) (not a [`Layout`](crate::Layout): a window rotates) | eight in the newest generation's plane of 128 or 256 bits; a block index's `G` planes side by side, one or two cache lines |
//! | `quotient.rs` | the blocks of a [`QuotientFilter`](crate::QuotientFilter) (not a [`Layout`](crate::Layout): a filter of another family, which shares the batch loops' `Policy`, a key's lines being its two blocks, but not the Bloom primitives) | one 8- or 16-bit tag in its bucket of one of two 64-byte blocks, each block's buckets in unary metadata |

pub(crate) mod quotient;
pub(crate) mod split_block;
pub(crate) mod wide;
pub(crate) mod window;

pub use split_block::SplitBlock;
pub use wide::Wide;

/// Where a layout puts a key: what the batch loops hash, hold and prefetch for each key, and
/// what the kernels' block primitives are handed.
///
/// A value of the layout carries what a filter decides at run time (the probes per key of the
/// wide layout, say); the split-block layout has nothing to decide and is a unit struct.
///
/// Every layout keeps one promise, which the kernels rely on to index a key's blocks without
/// bounds checks (each kernel's `unsafe` block names the layout whose promise it relies on):
/// for every `len` that [`accepts`](Policy::accepts) (at least one block, and what the layout
/// itself requires, such as whole groups of 64 for two wide probes), the location
/// [`locate`](Policy::locate)`(hash, len)` returns refers only to blocks below `len`, both for
/// the kernels that read and write it and for [`lines`](Policy::lines). An operation checks
/// `accepts` for its slice once per call (the test is loop-invariant).
pub(crate) trait Policy: Copy + Send + Sync + 'static {
    /// One block, as the kernels see it: an array of little-endian words.
    type Block: bytemuck::Pod;
    /// Where a key's bits lie: computed once per key from its hash, then held in the batch
    /// loops' ring from the prefetch to the probe.
    type Location: Copy + Default;
    /// How many keys ahead a batch prefetches, at most: enough to cover a miss's latency,
    /// with a key's lines in flight counted against the CPU's fill buffers.
    const PREFETCH_DISTANCE: usize;

    /// Whether `len` blocks are a shape this layout value can address (see the safety
    /// contract above).
    fn accepts(self, len: usize) -> bool;

    /// Where the key of `hash` lies among `len` blocks.
    fn locate(self, hash: u64, len: usize) -> Self::Location;

    /// The first and the last block a batch prefetches for a key at `at` (the same when the
    /// key has one line).
    fn lines(self, at: Self::Location) -> [usize; 2];
}
