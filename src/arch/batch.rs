//! The batch operations every Bloom layout shares, written once over a layout's [`BloomOps`]:
//! the batch loops with their prefetching (the single-key insert and lookup are beside
//! `BloomOps`, in `primitives.rs`). Each runs inside a
//! kernel's entry point ([`Token::run`]), so the layout's primitives inline into it with the
//! kernel's instructions, hashing included for keyed batches; pre-hashed batches use the
//! identity hasher [`PreHashed`].
//!
//! The batch loops share one prefetch ring ([`visit_prefetching`]), parameterised by where a
//! key's lines are ([`Policy::locate`] and [`Policy::lines`]): each key is hashed and located
//! `distance` keys before it is probed, and its lines prefetched then, so the hashing of later
//! keys overlaps the memory latency of earlier ones.

use core::hash::{BuildHasher, Hash};
use core::ops::ControlFlow;

use super::primitives::BloomOps;
#[cfg(doc)]
use super::primitives::SplitBlockKernel;
use super::{Operation, OperationOn, Token, prefetch};
use crate::hash::{GxHash, ParquetHash, Xxh3};
use crate::layout::Policy;

/// The size of the batch loops' ring of keys in flight, and so the largest prefetch distance:
/// the largest [`Policy::PREFETCH_DISTANCE`]. A power of two.
const RING: usize = 128;

/// The smallest filter, in bytes, whose batch operations prefetch: half of one core's L2
/// cache, detected at run time (see [`cache`](super::cache)). Smaller filters are probed
/// without prefetching: their blocks stay in L2, and the hashing ahead and the prefetch
/// instructions only cost.
///
/// Half, not all of it: the L2 also holds the keys streaming through a batch, so a filter that
/// fits it on paper still misses. Not the L3: how much of a shared L3 a process gets is up to
/// its neighbours, and a missed prefetch costs more than a useless one (BENCHMARKS.md,
/// "Prefetch").
#[inline]
pub(crate) fn prefetch_min_bytes() -> usize {
    super::cache::caches().l2 / 2
}

/// The smallest split-block filter, in blocks, whose batch operations prefetch
/// ([`prefetch_min_bytes`] in 32-byte blocks).
#[inline]
pub(crate) fn prefetch_min_blocks() -> usize {
    prefetch_min_bytes() / crate::layout::split_block::BLOCK_BYTES
}

/// The prefetch distance the batch operations of layout `P` use on a filter of `bytes`
/// bytes: 0 (no prefetching) below [`prefetch_min_bytes`], `P`'s
/// [`PREFETCH_DISTANCE`](Policy::PREFETCH_DISTANCE) above.
///
/// The distance itself does not follow the cache sizes: it must cover the latency of a miss,
/// which is about the same wherever the filter misses the L2.
#[inline]
pub(crate) fn prefetch_distance<P: Policy>(bytes: usize) -> usize {
    if bytes >= prefetch_min_bytes() {
        P::PREFETCH_DISTANCE
    } else {
        0
    }
}

/// The batch lookup: `out[i]` is whether `keys[i]` may be present, each key hashed with
/// `hasher` and its lines prefetched `distance` keys ahead (0: no prefetching). Panics unless
/// `out.len() == keys.len()`.
pub(crate) struct ContainsKeys<'a, P: Policy, S, K> {
    pub(crate) layout: P,
    pub(crate) blocks: &'a [P::Block],
    pub(crate) hasher: &'a S,
    pub(crate) keys: &'a [K],
    pub(crate) out: &'a mut [bool],
    pub(crate) distance: usize,
}

impl<P: Policy, S, K> Operation for ContainsKeys<'_, P, S, K> {
    type Output = ();
}

impl<Kn: Token, P: BloomOps<Kn>, S: BuildHasher, K: Hash> OperationOn<Kn>
    for ContainsKeys<'_, P, S, K>
{
    #[inline(always)]
    fn run_on(self, kernel: Kn) {
        let Self {
            layout,
            blocks,
            hasher,
            keys,
            out,
            distance,
        } = self;
        assert_eq!(keys.len(), out.len(), "one answer slot per key");
        if keys.is_empty() {
            return;
        }
        assert!(layout.accepts(blocks.len()), "a filter's shape");
        let len = blocks.len();
        visit_prefetching(
            layout,
            blocks.as_ptr(),
            len,
            hasher,
            keys,
            distance,
            &mut |index, at| {
                // SAFETY: `index < keys.len() = out.len()` (asserted above; see
                // `visit_prefetching`), and `at` is a location among `blocks`, whose length the
                // layout accepts (checked above).
                unsafe { *out.get_unchecked_mut(index) = layout.contains(kernel, blocks, at) };
            },
        );
    }
}

/// The batch insert: every key of `keys`, hashed with `hasher` and its lines prefetched
/// `distance` keys ahead (0: no prefetching).
pub(crate) struct InsertKeys<'a, P: Policy, S, K> {
    pub(crate) layout: P,
    pub(crate) blocks: &'a mut [P::Block],
    pub(crate) hasher: &'a S,
    pub(crate) keys: &'a [K],
    pub(crate) distance: usize,
}

impl<P: Policy, S, K> Operation for InsertKeys<'_, P, S, K> {
    type Output = ();
}

impl<Kn: Token, P: BloomOps<Kn>, S: BuildHasher, K: Hash> OperationOn<Kn>
    for InsertKeys<'_, P, S, K>
{
    #[inline(always)]
    fn run_on(self, kernel: Kn) {
        let Self {
            layout,
            blocks,
            hasher,
            keys,
            distance,
        } = self;
        if keys.is_empty() {
            return;
        }
        assert!(layout.accepts(blocks.len()), "a filter's shape");
        let (base, len) = (blocks.as_ptr(), blocks.len());
        visit_prefetching(layout, base, len, hasher, keys, distance, &mut |_, at| {
            // SAFETY: `at` is a location among `blocks`, whose length the layout accepts
            // (checked above).
            unsafe { layout.insert(kernel, blocks, at) };
        });
    }
}

/// What a batch loop does with each key: a closure `|index, at|` (the Bloom layouts'), or a
/// type whose [`visit`](Visit::visit) is `#[inline(always)]`, for a body too large for LLVM to
/// inline a closure of at each of the loop's call sites (it would then stay a call, compiled
/// without the kernel's target features), or one that stops the batch (`Break`: an insert
/// into a full quotient filter).
pub(crate) trait Visit<L> {
    /// Handles key `index`, located at `at`.
    fn visit(&mut self, index: usize, at: L) -> ControlFlow<()>;
}

impl<L, F: FnMut(usize, L)> Visit<L> for F {
    #[inline(always)]
    fn visit(&mut self, index: usize, at: L) -> ControlFlow<()> {
        self(index, at);
        ControlFlow::Continue(())
    }
}

/// Visits every key `i` in order ([`Visit::visit`] with `i` and `at`, where `at` is where the
/// key lies among the `len` blocks at `blocks`, [`Policy::locate`] of its hash), after
/// prefetching the lines of the key `distance` places later (into the cache level
/// [`prefetch::level`] chose for this CPU): each key is hashed and located `distance` keys
/// before its visit and its lines prefetched then. The locations in flight wait in a ring on
/// the stack, so that each key is located once. `blocks` only locates the lines to prefetch
/// and is never dereferenced, so `visit` may write the blocks. Returns the index of the key
/// whose visit broke, or `keys.len()`.
///
/// Every `i` passed to `visit` is below `keys.len()`, and every `at` is
/// `layout.locate(hash, len)`: the batch loops rely on both to index without bounds checks.
///
/// `distance` 0 means no prefetching (each key is hashed just before its visit). Other values
/// are rounded up to a power of two (so the ring index is a mask) and capped at [`RING`].
/// Pre-hashed batches use [`PreHashed`] as the hasher.
#[inline(always)]
pub(crate) fn visit_prefetching<P: Policy, S: BuildHasher, K: Hash>(
    layout: P,
    blocks: *const P::Block,
    len: usize,
    hasher: &S,
    keys: &[K],
    distance: usize,
    visit: &mut impl Visit<P::Location>,
) -> usize {
    // The crate's hashers are copied onto the stack first: a copy the loop owns stays in
    // registers, where the filter's own hasher, a field beside the blocks the loop writes,
    // would be reloaded after every write (the compiler cannot tell them apart). Each is a
    // `u64` seed; the answer is the same, since the copy is the same hasher.
    if let Ok(hasher) = castaway::cast!(hasher, &Xxh3) {
        let local = *hasher;
        return visit_hashed(layout, blocks, len, &local, keys, distance, visit);
    }
    if let Ok(hasher) = castaway::cast!(hasher, &GxHash) {
        let local = *hasher;
        return visit_hashed(layout, blocks, len, &local, keys, distance, visit);
    }
    if let Ok(hasher) = castaway::cast!(hasher, &ParquetHash) {
        let local = *hasher;
        return visit_hashed(layout, blocks, len, &local, keys, distance, visit);
    }
    visit_hashed(layout, blocks, len, hasher, keys, distance, visit)
}

/// [`visit_prefetching`] with the hasher it hashes with.
#[inline(always)]
fn visit_hashed<P: Policy, S: BuildHasher, K: Hash>(
    layout: P,
    blocks: *const P::Block,
    len: usize,
    hasher: &S,
    keys: &[K],
    distance: usize,
    visit: &mut impl Visit<P::Location>,
) -> usize {
    if distance == 0 {
        // Two keys per iteration, each whole (hashed, then visited): LLVM unrolls this loop
        // itself only when it schedules for a specific CPU (`-C target-cpu=native`), not for
        // the generic x86-64 of a dependent's default build. Not four: unrolled by four, LLVM's
        // SLP pass vectorized the block indices in native builds, which made batches in cache
        // slower (BENCHMARKS.md, "Workload").
        let mut pairs = keys.chunks_exact(2);
        let mut index = 0;
        for pair in &mut pairs {
            let hash = crate::hash::hash_key(hasher, &pair[0]);
            if visit.visit(index, layout.locate(hash, len)).is_break() {
                return index;
            }
            let hash = crate::hash::hash_key(hasher, &pair[1]);
            if visit.visit(index + 1, layout.locate(hash, len)).is_break() {
                return index + 1;
            }
            index += 2;
        }
        for key in pairs.remainder() {
            let hash = crate::hash::hash_key(hasher, key);
            if visit.visit(index, layout.locate(hash, len)).is_break() {
                return index;
            }
        }
        return keys.len();
    }
    let at = (layout, blocks, len);
    // The hint is chosen once per batch, so each loop has its prefetch instruction inline.
    match prefetch::level() {
        prefetch::Level::L1 => visit_ring::<true, P, S, K>(at, hasher, keys, distance, visit),
        prefetch::Level::L2 => visit_ring::<false, P, S, K>(at, hasher, keys, distance, visit),
    }
}

/// [`visit_prefetching`] for a `distance` above 0, with prefetches into L1 when `L1`, else L2
/// ([`prefetch::prefetch`]).
#[inline(always)]
fn visit_ring<const L1: bool, P: Policy, S: BuildHasher, K: Hash>(
    (layout, blocks, len): (P, *const P::Block, usize),
    hasher: &S,
    keys: &[K],
    distance: usize,
    visit: &mut impl Visit<P::Location>,
) -> usize {
    const { assert!(RING.is_power_of_two() && P::PREFETCH_DISTANCE <= RING) };
    let distance = distance.min(RING).next_power_of_two();
    // `& (RING - 1)` is implied by the mask (distance <= RING); it lets the compiler see that
    // every ring index is in bounds.
    let mask = (distance - 1) & (RING - 1);
    let mut ring = [P::Location::default(); RING];
    let prepare = |key: &K| {
        let at = layout.locate(crate::hash::hash_key(hasher, key), len);
        let [first, last] = layout.lines(at);
        prefetch::prefetch::<L1, _>(blocks.wrapping_add(first));
        if last != first {
            prefetch::prefetch::<L1, _>(blocks.wrapping_add(last));
        }
        at
    };
    let (first, later) = keys.split_at(distance.min(keys.len()));
    for (slot, key) in first.iter().enumerate() {
        ring[slot & mask] = prepare(key);
    }
    for (index, key) in later.iter().enumerate() {
        let slot = index & mask;
        let at = ring[slot];
        ring[slot] = prepare(key);
        if visit.visit(index, at).is_break() {
            return index;
        }
    }
    for index in later.len()..keys.len() {
        if visit.visit(index, ring[index & mask]).is_break() {
            return index;
        }
    }
    keys.len()
}

/// The [`BuildHasher`] of pre-hashed batches: a `u64` key hashes to itself, so the batch loops
/// serve both keys and hashes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PreHashed;

/// The [`Hasher`](core::hash::Hasher) of [`PreHashed`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PreHashedHasher(u64);

impl core::hash::Hasher for PreHashedHasher {
    #[inline(always)]
    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }

    /// Only `u64`s are hashed with [`PreHashed`]; other input is folded in so the result is
    /// still deterministic.
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl BuildHasher for PreHashed {
    type Hasher = PreHashedHasher;

    #[inline(always)]
    fn build_hasher(&self) -> PreHashedHasher {
        PreHashedHasher::default()
    }
}
