//! The batch loops of the wide layout: each key is probed after both of its blocks were
//! prefetched `distance` keys earlier, so the cache misses of a batch overlap. The per-key work
//! is the scalar reference of [`wide_block`](crate::wide_block), the one definition of the
//! layout.

use super::prefetch::prefetch;
use crate::wide_block::{self, WORDS};

/// Prefetches both blocks a key of `hash` may touch (the second only with two probes).
#[inline(always)]
fn prefetch_key(blocks: &[[u64; WORDS]], probes_per_key: u8, hash: u64) {
    let probes = wide_block::probes(hash, blocks.len());
    prefetch::<true, _>(blocks[probes[0].0].as_ptr());
    if probes_per_key == 2 {
        prefetch::<true, _>(blocks[probes[1].0].as_ptr());
    }
}

/// Writes into `out[i]` whether `hashes[i]` may be present, prefetching `distance` keys ahead
/// (0: no prefetching). The lengths are equal (the callers check).
pub(crate) fn contains_hashes(
    blocks: &[[u64; WORDS]],
    probes_per_key: u8,
    hashes: &[u64],
    out: &mut [bool],
    distance: usize,
) {
    for (i, (&hash, answer)) in hashes.iter().zip(out.iter_mut()).enumerate() {
        if let Some(&ahead) = hashes.get(i + distance).filter(|_| distance > 0) {
            prefetch_key(blocks, probes_per_key, ahead);
        }
        *answer = wide_block::contains(blocks, probes_per_key, hash);
    }
}

/// Inserts every hash of `hashes`, prefetching `distance` keys ahead (0: no prefetching).
pub(crate) fn insert_hashes(
    blocks: &mut [[u64; WORDS]],
    probes_per_key: u8,
    hashes: &[u64],
    distance: usize,
) {
    for (i, &hash) in hashes.iter().enumerate() {
        if let Some(&ahead) = hashes.get(i + distance).filter(|_| distance > 0) {
            prefetch_key(blocks, probes_per_key, ahead);
        }
        wide_block::insert(blocks, probes_per_key, hash);
    }
}
