//! Read-only filter logic, written once over a borrowed bitset.
//!
//! [`Filter`](crate::Filter) (owned, 32-byte aligned blocks) and
//! [`FilterRef`](crate::FilterRef) (a view of serialized bytes, 4-byte aligned) both answer
//! lookups and report statistics through these functions, so the two can never disagree. The
//! kernels take `&[u32; 8]` and use unaligned loads, so a bitset viewed in place needs only the
//! alignment of `u32`.

use crate::arch::{Dispatch, EntryPoints, PreHashed};
use crate::block::{BLOCK_BYTES, LANES};

/// Whether a pre-hashed key may be present in `blocks`.
#[inline(always)]
pub(crate) fn contains_hash(kernel: Dispatch, blocks: &[[u32; LANES]], hash: u64) -> bool {
    kernel.contains_hash(blocks, hash)
}

/// Writes into `out[i]` whether `hashes[i]` may be present in `blocks`.
///
/// # Panics
///
/// When `out.len() != hashes.len()`.
#[inline]
pub(crate) fn contains_hash_batch(
    kernel: Dispatch,
    blocks: &[[u32; LANES]],
    hashes: &[u64],
    out: &mut [bool],
) {
    assert_eq!(
        hashes.len(),
        out.len(),
        "contains_hash_batch: `out` must have one slot per hash"
    );
    let distance = crate::arch::prefetch_distance(blocks.len());
    kernel.contains_keys(blocks, &PreHashed, hashes, out, distance);
}

/// The fraction of bits of `blocks` that are set, from 0 to 1.
pub(crate) fn fill_ratio(blocks: &[[u32; LANES]]) -> f64 {
    let set: u64 = blocks
        .iter()
        .flatten()
        .map(|word| u64::from(word.count_ones()))
        .sum();
    set as f64 / (blocks.len() * BLOCK_BYTES * 8) as f64
}

/// The chance that a uniformly random hash is reported present: the product of the lanes'
/// fill, averaged over blocks.
pub(crate) fn estimated_fpr(blocks: &[[u32; LANES]]) -> f64 {
    let total: f64 = blocks.iter().map(block_fpr).sum();
    total / blocks.len() as f64
}

/// The chance that a random in-block hash finds all its bits set in `lanes`.
#[inline]
pub(crate) fn block_fpr(lanes: &[u32; LANES]) -> f64 {
    lanes
        .iter()
        .map(|lane| f64::from(lane.count_ones()) / 32.0)
        .product::<f64>()
}
