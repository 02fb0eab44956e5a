//! The reads every filter type shares, written once.
//!
//! A filter type tells [`Probe`] two things: its hasher, and whether a pre-hashed key may be
//! present (one at a time, and for a batch when it has a faster path). Everything else a
//! reader asks (keyed and byte-key lookups, batches, counts, the one length check of the batch
//! calls) is a function here over any [`Probe`], and the public methods of [`Filter`],
//! [`FilterRef`], [`AtomicFilter`], [`CountingFilter`] and [`ScalableFilter`] are written by
//! `read_methods!` (below) from these functions, so the types cannot drift apart.
//!
//! [`View`] is the [`Probe`] of a plain bitset (blocks + kernel + hasher): [`Filter`] (owned,
//! 32-byte aligned blocks) and [`FilterRef`] (a view of serialized bytes, 4-byte aligned) both
//! answer through it, so the two can never disagree; it also owns the statistics and the
//! serialization of a plain bitset. The kernels take `&[u32; 8]` and use unaligned loads, so a
//! bitset viewed in place needs only the alignment of `u32`.
//!
//! [`Filter`]: crate::Filter
//! [`FilterRef`]: crate::FilterRef
//! [`AtomicFilter`]: crate::AtomicFilter
//! [`CountingFilter`]: crate::CountingFilter
//! [`ScalableFilter`]: crate::ScalableFilter

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hash};

use crate::arch::{Dispatch, PreHashed, prefetch_distance};
use crate::filter::Layout;
use crate::hash::{FilterHasher, for_each_hashed_chunk};
use crate::layout::split_block::LANES;

/// The batch reads answer this many keys at a time into a buffer on the stack when they need
/// one: long enough for the prefetch pipeline to fill, short enough to stay in L1.
const BATCH_CHUNK: usize = 512;

/// The one length check of every batch call that writes answers into `out`, with the one
/// message, so every type panics alike (documented under `# Panics` on each batch method).
#[inline]
#[track_caller]
pub(crate) fn check_batch(inputs: usize, out: usize) {
    assert!(
        inputs == out,
        "batch call: `out` must have one slot per input ({inputs} inputs, {out} slots)"
    );
}

/// What a filter type provides so that the reads are written once for all of them.
pub(crate) trait Probe {
    /// The hasher keys go through.
    type Hasher;

    /// The hasher keys go through.
    fn hasher(&self) -> &Self::Hasher;

    /// Whether a pre-hashed key may be present.
    fn probe(&self, hash: u64) -> bool;

    /// Writes into `out[i]` whether `hashes[i]` may be present; the lengths are equal (the
    /// callers check). One at a time unless the type has a faster path.
    #[inline]
    fn probe_all(&self, hashes: &[u64], out: &mut [bool]) {
        for (&hash, answer) in hashes.iter().zip(out.iter_mut()) {
            *answer = self.probe(hash);
        }
    }

    /// Writes into `out[i]` whether `keys[i]` may be present; the lengths are equal. Hashes a
    /// chunk at a time into a buffer on the stack, then answers it with
    /// [`probe_all`](Probe::probe_all), unless the type has a faster path.
    #[inline]
    fn probe_keys<K: Hash>(&self, keys: &[K], out: &mut [bool])
    where
        Self::Hasher: BuildHasher,
    {
        let mut hashes = [0u64; BATCH_CHUNK];
        for (keys, out) in keys.chunks(BATCH_CHUNK).zip(out.chunks_mut(BATCH_CHUNK)) {
            let hashes = &mut hashes[..keys.len()];
            for (hash, key) in hashes.iter_mut().zip(keys) {
                *hash = crate::hash::hash_key(self.hasher(), key);
            }
            self.probe_all(hashes, out);
        }
    }
}

impl<P: Probe> Probe for &P {
    type Hasher = P::Hasher;

    #[inline(always)]
    fn hasher(&self) -> &P::Hasher {
        (**self).hasher()
    }

    #[inline(always)]
    fn probe(&self, hash: u64) -> bool {
        (**self).probe(hash)
    }

    #[inline(always)]
    fn probe_all(&self, hashes: &[u64], out: &mut [bool]) {
        (**self).probe_all(hashes, out);
    }

    #[inline(always)]
    fn probe_keys<K: Hash>(&self, keys: &[K], out: &mut [bool])
    where
        P::Hasher: BuildHasher,
    {
        (**self).probe_keys(keys, out);
    }
}

/// Whether `key` may be present.
#[inline(always)]
pub(crate) fn contains<P: Probe, K: Hash + ?Sized>(filter: &P, key: &K) -> bool
where
    P::Hasher: BuildHasher,
{
    filter.probe(crate::hash::hash_key(filter.hasher(), key))
}

/// Writes into `out[i]` whether `hashes[i]` may be present. Panics unless the lengths match.
#[inline]
#[track_caller]
pub(crate) fn contains_hash_batch<P: Probe>(filter: &P, hashes: &[u64], out: &mut [bool]) {
    check_batch(hashes.len(), out.len());
    filter.probe_all(hashes, out);
}

/// Writes into `out[i]` whether `keys[i]` may be present. Panics unless the lengths match.
#[inline]
#[track_caller]
pub(crate) fn contains_batch<P: Probe, K: Hash>(filter: &P, keys: &[K], out: &mut [bool])
where
    P::Hasher: BuildHasher,
{
    check_batch(keys.len(), out.len());
    filter.probe_keys(keys, out);
}

/// How many of `inputs` may be present: `answer` answers a chunk at a time into a buffer on
/// the stack.
#[inline]
fn count<T>(inputs: &[T], mut answer: impl FnMut(&[T], &mut [bool])) -> usize {
    let mut answers = [false; BATCH_CHUNK];
    inputs
        .chunks(BATCH_CHUNK)
        .map(|chunk| {
            let answers = &mut answers[..chunk.len()];
            answer(chunk, answers);
            answers
                .iter()
                .map(|&answer| usize::from(answer))
                .sum::<usize>()
        })
        .sum()
}

/// How many of `hashes` may be present.
#[inline]
pub(crate) fn count_contained_hashes<P: Probe>(filter: &P, hashes: &[u64]) -> usize {
    count(hashes, |chunk, answers| filter.probe_all(chunk, answers))
}

/// How many of `keys` may be present.
#[inline]
pub(crate) fn count_contained<P: Probe, K: Hash>(filter: &P, keys: &[K]) -> usize
where
    P::Hasher: BuildHasher,
{
    count(keys, |chunk, answers| filter.probe_keys(chunk, answers))
}

/// How many of `keys` (each exactly its bytes) may be present.
#[inline]
pub(crate) fn count_contained_bytes<P: Probe, K: AsRef<[u8]>>(filter: &P, keys: &[K]) -> usize
where
    P::Hasher: FilterHasher,
{
    let mut count = 0;
    let mut answers = [false; crate::hash::BYTES_CHUNK];
    for_each_hashed_chunk(filter.hasher(), keys, |_, hashes| {
        let answers = &mut answers[..hashes.len()];
        filter.probe_all(hashes, answers);
        count += answers
            .iter()
            .map(|&answer| usize::from(answer))
            .sum::<usize>();
    });
    count
}

/// The byte-key contract's hash of `key` (see [`hash`](crate::hash)).
#[inline(always)]
pub(crate) fn hash_bytes<P: Probe>(filter: &P, key: &[u8]) -> u64
where
    P::Hasher: FilterHasher,
{
    filter.hasher().hash_bytes(key)
}

/// Whether the key made of exactly `key`'s bytes may be present.
#[inline(always)]
pub(crate) fn contains_bytes<P: Probe>(filter: &P, key: &[u8]) -> bool
where
    P::Hasher: FilterHasher,
{
    filter.probe(hash_bytes(filter, key))
}

/// Writes into `out[i]` whether the key made of exactly `keys[i]`'s bytes may be present.
/// Panics unless the lengths match.
#[inline]
#[track_caller]
pub(crate) fn contains_bytes_batch<P: Probe, K: AsRef<[u8]>>(
    filter: &P,
    keys: &[K],
    out: &mut [bool],
) where
    P::Hasher: FilterHasher,
{
    check_batch(keys.len(), out.len());
    for_each_hashed_chunk(filter.hasher(), keys, |first, hashes| {
        filter.probe_all(hashes, &mut out[first..first + hashes.len()]);
    });
}

/// A bitset of some [`Layout`] with its kernel and hasher: the [`Probe`] of
/// [`BloomFilter`](crate::BloomFilter) and [`BloomFilterRef`](crate::BloomFilterRef) (owned,
/// aligned blocks, or a view of serialized bytes), so the two can never disagree, and the one
/// place their statistics and serialization are written. The kernels use unaligned loads, so a
/// bitset viewed in place needs only the alignment of its words.
pub(crate) struct View<'a, S, L: Layout> {
    /// The blocks, at least one, of a shape the layout accepts.
    pub(crate) blocks: &'a [L::Block],
    /// The layout, with what it decided at run time (a wide filter's probes).
    pub(crate) layout: L,
    /// The kernel that answers.
    pub(crate) kernel: Dispatch,
    /// The hasher keys go through.
    pub(crate) hasher: &'a S,
}

impl<S, L: Layout> Probe for View<'_, S, L> {
    type Hasher = S;

    #[inline(always)]
    fn hasher(&self) -> &S {
        self.hasher
    }

    #[inline(always)]
    fn probe(&self, hash: u64) -> bool {
        self.kernel.contains_hash(self.layout, self.blocks, hash)
    }

    /// The loop runs inside the kernel, prefetching on filters of at least half the L2 cache.
    #[inline]
    fn probe_all(&self, hashes: &[u64], out: &mut [bool]) {
        let distance = self.prefetch_distance();
        self.kernel
            .contains_keys(self.layout, self.blocks, &PreHashed, hashes, out, distance);
    }

    /// Hashing and probing run inside the kernel, as for [`probe_all`](Probe::probe_all).
    #[inline]
    fn probe_keys<K: Hash>(&self, keys: &[K], out: &mut [bool])
    where
        S: BuildHasher,
    {
        let distance = self.prefetch_distance();
        self.kernel
            .contains_keys(self.layout, self.blocks, self.hasher, keys, out, distance);
    }
}

impl<S, L: Layout> View<'_, S, L> {
    /// The batch prefetch distance for this bitset's size (see `arch::prefetch_distance`).
    #[inline]
    fn prefetch_distance(&self) -> usize {
        prefetch_distance::<L>(core::mem::size_of_val(self.blocks))
    }

    /// The fraction of bits that are set, from 0 to 1.
    pub(crate) fn fill_ratio(&self) -> f64 {
        let words: &[u32] = bytemuck::cast_slice(self.blocks);
        let set: u64 = words.iter().map(|word| u64::from(word.count_ones())).sum();
        set as f64 / (words.len() * 32) as f64
    }

    /// The chance that a uniformly random hash is reported present.
    pub(crate) fn estimated_fpr(&self) -> f64 {
        self.layout.estimated_fpr(bytemuck::cast_slice(self.blocks))
    }

    /// Distinct keys estimated from the fill ratio.
    pub(crate) fn estimated_items(&self) -> f64 {
        self.layout
            .estimated_items(self.fill_ratio(), self.blocks.len())
    }
}

impl<S: FilterHasher, L: Layout> View<'_, S, L> {
    /// The bitset in splitbloom's format, under its layout's id.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        crate::format::to_bytes(
            S::KIND,
            self.hasher.seed(),
            self.layout.id(),
            self.blocks,
            L::WORD_BYTES,
        )
    }

    /// Streams [`to_bytes`](View::to_bytes) to `writer`.
    #[cfg(feature = "std")]
    pub(crate) fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        crate::format::write_to(
            S::KIND,
            self.hasher.seed(),
            self.layout.id(),
            self.blocks,
            L::WORD_BYTES,
            writer,
        )
    }
}

/// The chance that a random in-block hash finds all its bits set in `lanes`.
#[inline]
pub(crate) fn block_fpr(lanes: &[u32; LANES]) -> f64 {
    lanes
        .iter()
        .map(|lane| f64::from(lane.count_ones()) / 32.0)
        .product::<f64>()
}
