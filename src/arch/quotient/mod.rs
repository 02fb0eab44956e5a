//! The quotient layout's kernels ([`QuotientFilter`](crate::QuotientFilter)): four block
//! primitives per kernel ([`QuotientKernel`]), and every operation written once over them and
//! run inside a kernel's entry point ([`Token::run`]), so the primitives inline into it with
//! the kernel's target features.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`QuotientKernel`], the operations (lookups, counts, inserts with their placement rule, removals) and the prefetching batch loop |
//! | `scalar.rs` | the reference: `quotient_block`'s loops behind the token |
//! | `portable.rs` | `wide`'s 128-bit compares, the word-parallel select of [`select`] |
//! | `x86.rs` | what AVX2 and AVX-512 share: bucket bounds with BMI2's `pdep`, the AVX2 compares and slot shifts |
//! | `avx2.rs`, `avx512.rs` | the x86 tokens (AVX-512: one 512-bit compare into a mask register) |
//! | `neon.rs` | NEON compares and shifts (aarch64) |
//!
//! A lookup locates the key's two buckets ([`locate`]), and in each block compares the tag
//! against every slot at once ([`tag_matches`](QuotientKernel::tag_matches)) and keeps the
//! slots of the key's bucket ([`bucket_bounds`](QuotientKernel::bucket_bounds), a select on the
//! metadata). Both blocks are always probed and the answers ORed, so a lookup never branches on
//! which block holds the key and the two cache misses of a large filter overlap. An insert adds
//! the tag at the end of its bucket in the emptier block, shifting the slots above it up
//! ([`shift_in`](QuotientKernel::shift_in)) and the metadata with them.

use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;
use core::ops::ControlFlow;

use super::{Operation, OperationOn, Token, prefetch};
use crate::quotient_block::{
    Block, Location, MetadataBits, Width, alternate, len, locate, slot_buckets, total_buckets,
};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;
mod portable;
mod scalar;
pub(crate) mod select;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod x86;

/// How many keys ahead the batch loops hash, locate and prefetch (both blocks of each key), on
/// filters of at least half the L2 cache; the size of their ring of locations. A power of two.
/// Each key has two lines in flight, so this is half the wide layout's number of lines per key
/// distance for the same number of lines (BENCHMARKS.md, "QuotientFilter").
pub(crate) const QUOTIENT_PREFETCH_DISTANCE: usize = 32;

/// The prefetch distance of a quotient filter of `num_blocks` 64-byte blocks: none below half
/// the L2 cache, [`QUOTIENT_PREFETCH_DISTANCE`] above.
#[inline]
pub(crate) fn quotient_prefetch_distance(num_blocks: usize) -> usize {
    super::prefetch_distance(2 * num_blocks).min(QUOTIENT_PREFETCH_DISTANCE)
}

/// The block primitives every kernel implements, with the results of `quotient_block`'s
/// reference on every valid block (on an invalid one, a kernel may answer otherwise but stays
/// in bounds).
pub(crate) trait QuotientKernel: Token {
    /// The slots `start..end` of bucket `bucket` (below `W::BUCKETS`): a select on `metadata`.
    fn bucket_bounds<W: Width>(self, metadata: W::Metadata, bucket: u32) -> (u32, u32);
    /// The slots of `block` holding `tag`, bit `i` for slot `i` (no bit at or above
    /// `W::SLOTS`): one compare of the broadcast tag against every slot.
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64;
    /// Moves slots `slot..` up by one and writes `tag` into `slot`; the last slot's tag falls
    /// off. Nothing when `slot` is not below `W::SLOTS`. The metadata bytes are left alone.
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag);
    /// Removes slot `slot`, moving the slots above it down by one and zeroing the last slot.
    /// Nothing when `slot` is not below `W::SLOTS`. The metadata bytes are left alone.
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32);
}

/// The slots `start..end` as bits (both at most 48, so the shifts stay below 64).
#[inline(always)]
fn slots_between(start: u32, end: u32) -> u64 {
    let below = |slot: u32| (1u64 << slot.min(63)) - 1;
    below(end) & !below(start)
}

/// The slots of bucket `bucket` of `block` that hold `tag`, as bits.
#[inline(always)]
pub(crate) fn bucket_matches<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    block: &Block,
    bucket: u32,
    tag: W::Tag,
) -> u64 {
    let (start, end) = kernel.bucket_bounds::<W>(W::metadata(block), bucket);
    kernel.tag_matches::<W>(block, tag) & slots_between(start, end)
}

/// Appends `tag` at the end of bucket `bucket` of `block`, which has a free slot: the slots
/// from there move up by one, and the metadata gets a one before the bucket's zero.
#[inline(always)]
fn put<Kn: QuotientKernel, W: Width>(kernel: Kn, block: &mut Block, bucket: u32, tag: W::Tag) {
    let metadata = W::metadata(block);
    let (_, end) = kernel.bucket_bounds::<W>(metadata, bucket);
    kernel.shift_in::<W>(block, end, tag);
    W::set_metadata(block, metadata.insert_one(end + bucket));
}

/// Takes the tag in `slot`, which belongs to bucket `bucket`, out of `block`: the slots above
/// move down by one, and the metadata loses the slot's one.
#[inline(always)]
fn take<Kn: QuotientKernel, W: Width>(kernel: Kn, block: &mut Block, bucket: u32, slot: u32) {
    let metadata = W::metadata(block);
    kernel.shift_out::<W>(block, slot);
    W::set_metadata(block, metadata.remove_bit(slot + bucket));
}

/// Both buckets' matching slots of `location` in `blocks`.
#[inline(always)]
fn matches<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &[Block],
    location: &Location<W>,
) -> [u64; 2] {
    [0, 1].map(|at| {
        bucket_matches::<Kn, W>(
            kernel,
            &blocks[location.blocks[at]],
            location.buckets[at],
            location.tag,
        )
    })
}

/// Whether a key at `location` may be present: its tag in either bucket.
#[inline(always)]
fn contains_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &[Block],
    location: &Location<W>,
) -> bool {
    let [first, second] = matches(kernel, blocks, location);
    first | second != 0
}

/// How many copies of its tag a key at `location` has: the matches in both buckets (one bucket
/// counted once when they coincide).
#[inline(always)]
fn count_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &[Block],
    location: &Location<W>,
) -> u32 {
    let [first, second] = matches(kernel, blocks, location);
    let second = if location.same_bucket() { 0 } else { second };
    first.count_ones() + second.count_ones()
}

/// Removes one copy of the tag of a key at `location`: the first matching slot of the primary
/// bucket, else of the alternate. `false` when neither holds the tag (nothing changes).
#[inline(always)]
fn remove_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    location: &Location<W>,
) -> bool {
    let [first, second] = matches(kernel, blocks, location);
    let (at, found) = if first != 0 { (0, first) } else { (1, second) };
    if found == 0 {
        return false;
    }
    let block = &mut blocks[location.blocks[at]];
    take::<Kn, W>(kernel, block, location.buckets[at], found.trailing_zeros());
    true
}

/// Adds one copy of the tag of a key at `location`, by the layout's placement rule (the byte
/// contract every writer follows, `docs/FORMAT.md`):
///
/// 1. into the block holding fewer tags, the primary on a tie, at the end of the key's bucket
///    there;
/// 2. when both blocks are full, first moving one stored tag out of the primary block (slots in
///    order), else out of the alternate, to that tag's other block, the first one whose other
///    block has a free slot; then the key goes where the tag was taken from;
/// 3. else `Err(())`: the filter is full for this key, and nothing changed.
#[inline(always)]
fn insert_copy_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    location: &Location<W>,
) -> Result<(), ()> {
    let [primary, other] = location.blocks;
    let (fill, other_fill) = (len::<W>(&blocks[primary]), len::<W>(&blocks[other]));
    let at = usize::from(other_fill < fill);
    if fill.min(other_fill) < W::SLOTS {
        let block = &mut blocks[location.blocks[at]];
        put::<Kn, W>(kernel, block, location.buckets[at], location.tag);
        return Ok(());
    }
    let candidates = if primary == other { 1 } else { 2 };
    for at in 0..candidates {
        if move_one_out::<Kn, W>(kernel, blocks, location.blocks[at]) {
            let block = &mut blocks[location.blocks[at]];
            put::<Kn, W>(kernel, block, location.buckets[at], location.tag);
            return Ok(());
        }
    }
    Err(())
}

/// Moves the first tag of full block `from` (in slot order) whose other block has a free slot
/// there; `false` when none has. Rare: both blocks of a key are full only near full load.
#[inline(never)]
fn move_one_out<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    from: usize,
) -> bool {
    let total = total_buckets::<W>(blocks.len());
    let buckets_per_block = u64::from(W::BUCKETS);
    let slot_buckets = slot_buckets::<W>(W::metadata(&blocks[from]));
    for slot in 0..W::SLOTS {
        let tag = W::slot(&blocks[from], slot);
        let bucket = slot_buckets[slot as usize];
        let other = alternate(
            from as u64 * buckets_per_block + u64::from(bucket),
            tag.into(),
            total,
        );
        let to = (other / buckets_per_block) as usize;
        if to != from && len::<W>(&blocks[to]) < W::SLOTS {
            take::<Kn, W>(kernel, &mut blocks[from], bucket, slot);
            put::<Kn, W>(
                kernel,
                &mut blocks[to],
                (other % buckets_per_block) as u32,
                tag,
            );
            return true;
        }
    }
    false
}

/// Adds a key at `location`: with `copy`, always another copy (`Ok(true)`); else only when
/// its tag is in neither bucket (`Ok(true)`), and `Ok(false)` without a change when it is.
/// `Err(())` when it must be added and does not fit.
#[inline(always)]
fn insert_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    location: &Location<W>,
    copy: bool,
) -> Result<bool, ()> {
    if !copy && contains_at(kernel, blocks, location) {
        return Ok(false);
    }
    insert_copy_at(kernel, blocks, location).map(|()| true)
}

/// Calls `visit(i, location)` for every key `i` in order, with the key's [`Location`] among
/// `num_blocks` blocks, after prefetching both blocks of the key `distance` places later: each
/// key is hashed and located `distance` keys before its visit, in a ring on the stack (0: no
/// prefetching; other values are rounded up to a power of two and capped at
/// [`QUOTIENT_PREFETCH_DISTANCE`]). `blocks` only locates the lines to prefetch and is never
/// dereferenced. Stops at the first visit that breaks and returns its index, or `keys.len()`.
#[inline(always)]
fn visit_locations<W: Width, S: BuildHasher, K: Hash>(
    blocks: *const Block,
    num_blocks: usize,
    hasher: &S,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, &Location<W>) -> ControlFlow<()>,
) -> usize {
    let locate_key = |key: &K| locate::<W>(crate::hash::hash_key(hasher, key), num_blocks);
    if distance == 0 || keys.is_empty() {
        for (index, key) in keys.iter().enumerate() {
            if visit(index, &locate_key(key)).is_break() {
                return index;
            }
        }
        return keys.len();
    }
    match prefetch::level() {
        prefetch::Level::L1 => visit_ring::<true, W, K>(blocks, &locate_key, keys, distance, visit),
        prefetch::Level::L2 => {
            visit_ring::<false, W, K>(blocks, &locate_key, keys, distance, visit)
        }
    }
}

/// [`visit_locations`] with prefetching into L1 when `L1`, else L2.
#[inline(always)]
fn visit_ring<const L1: bool, W: Width, K: Hash>(
    blocks: *const Block,
    locate_key: &impl Fn(&K) -> Location<W>,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, &Location<W>) -> ControlFlow<()>,
) -> usize {
    const RING: usize = QUOTIENT_PREFETCH_DISTANCE;
    const { assert!(RING.is_power_of_two()) };
    let distance = distance.min(RING).next_power_of_two();
    let mask = (distance - 1) & (RING - 1);
    let mut ring = [Location::<W>::default(); RING];
    let prepare = |key: &K| {
        let location = locate_key(key);
        for block in location.blocks {
            prefetch::prefetch::<L1, _>(blocks.wrapping_add(block));
        }
        location
    };
    let (first, later) = keys.split_at(distance.min(keys.len()));
    for (slot, key) in first.iter().enumerate() {
        ring[slot & mask] = prepare(key);
    }
    for (index, key) in later.iter().enumerate() {
        let slot = index & mask;
        let location = ring[slot];
        ring[slot] = prepare(key);
        if visit(index, &location).is_break() {
            return index;
        }
    }
    for index in later.len()..keys.len() {
        if visit(index, &ring[index & mask]).is_break() {
            return index;
        }
    }
    keys.len()
}

/// Writes the `Operation` impl of an operation struct and its one generic `OperationOn` impl,
/// whose body runs inside the kernel's entry point.
macro_rules! quotient_operation {
    (
        $Op:ident<$($lt:lifetime,)? W $(, $param:ident: $bound:path)*> -> $Output:ty,
        |$this:ident, $kernel:ident| $body:expr
    ) => {
        impl<$($lt,)? W: Width $(, $param)*> Operation for $Op<$($lt,)? W $(, $param)*> {
            type Output = $Output;
        }

        impl<$($lt,)? Kn: QuotientKernel, W: Width $(, $param: $bound)*> OperationOn<Kn>
            for $Op<$($lt,)? W $(, $param)*>
        {
            #[inline(always)]
            fn run_on(self, $kernel: Kn) -> $Output {
                let $this = self;
                $body
            }
        }
    };
}

/// Whether a pre-hashed key may be present.
pub(crate) struct Contains<'a, W> {
    pub(crate) blocks: &'a [Block],
    pub(crate) hash: u64,
    pub(crate) width: PhantomData<W>,
}

quotient_operation!(Contains<'a, W> -> bool, |op, kernel| {
    contains_at(kernel, op.blocks, &locate::<W>(op.hash, op.blocks.len()))
});

/// How many copies a pre-hashed key may have: an upper bound.
pub(crate) struct Count<'a, W> {
    pub(crate) blocks: &'a [Block],
    pub(crate) hash: u64,
    pub(crate) width: PhantomData<W>,
}

quotient_operation!(Count<'a, W> -> u32, |op, kernel| {
    count_at(kernel, op.blocks, &locate::<W>(op.hash, op.blocks.len()))
});

/// Adds a pre-hashed key (another copy with `copy`, else only when absent); see [`insert_at`].
pub(crate) struct Insert<'a, W> {
    pub(crate) blocks: &'a mut [Block],
    pub(crate) hash: u64,
    pub(crate) copy: bool,
    pub(crate) width: PhantomData<W>,
}

quotient_operation!(Insert<'a, W> -> Result<bool, ()>, |op, kernel| {
    let location = locate::<W>(op.hash, op.blocks.len());
    insert_at(kernel, op.blocks, &location, op.copy)
});

/// Removes one copy of a pre-hashed key; `true` when one was found.
pub(crate) struct Remove<'a, W> {
    pub(crate) blocks: &'a mut [Block],
    pub(crate) hash: u64,
    pub(crate) width: PhantomData<W>,
}

quotient_operation!(Remove<'a, W> -> bool, |op, kernel| {
    let location = locate::<W>(op.hash, op.blocks.len());
    remove_at(kernel, op.blocks, &location)
});

/// Answers a batch: `out[i]` whether `keys[i]` may be present (equal lengths), or with
/// `counts`, how many copies it may have added up into the output's... see `ContainsKeys::run`.
pub(crate) struct ContainsKeys<'a, W, S, K> {
    pub(crate) blocks: &'a [Block],
    pub(crate) hasher: &'a S,
    pub(crate) keys: &'a [K],
    pub(crate) out: &'a mut [bool],
    pub(crate) distance: usize,
    pub(crate) width: PhantomData<W>,
}

quotient_operation!(ContainsKeys<'a, W, S: BuildHasher, K: Hash> -> (), |op, kernel| {
    let ContainsKeys { blocks, hasher, keys, out, distance, width: _ } = op;
    assert_eq!(keys.len(), out.len(), "one answer slot per key");
    visit_locations::<W, S, K>(blocks.as_ptr(), blocks.len(), hasher, keys, distance, |index, location| {
        out[index] = contains_at(kernel, blocks, location);
        ControlFlow::Continue(())
    });
});

/// What a batch insert did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Inserted {
    /// Keys added (with `copy`, every key that went in; else those that were absent).
    pub(crate) added: usize,
    /// The index of the key that did not fit, where the batch stopped; `None` when every key
    /// went in.
    pub(crate) full_at: Option<usize>,
}

/// Adds a batch of keys (copies with `copy`, else each only when absent), prefetching, up to
/// the first key that does not fit.
pub(crate) struct InsertKeys<'a, W, S, K> {
    pub(crate) blocks: &'a mut [Block],
    pub(crate) hasher: &'a S,
    pub(crate) keys: &'a [K],
    pub(crate) copy: bool,
    pub(crate) distance: usize,
    pub(crate) width: PhantomData<W>,
}

quotient_operation!(InsertKeys<'a, W, S: BuildHasher, K: Hash> -> Inserted, |op, kernel| {
    let InsertKeys { blocks, hasher, keys, copy, distance, width: _ } = op;
    let mut added = 0;
    let base = blocks.as_ptr();
    let num_blocks = blocks.len();
    let stopped = visit_locations::<W, S, K>(base, num_blocks, hasher, keys, distance, |_, location| {
        match insert_at(kernel, blocks, location, copy) {
            Ok(new) => {
                added += usize::from(new);
                ControlFlow::Continue(())
            }
            Err(()) => ControlFlow::Break(()),
        }
    });
    Inserted { added, full_at: (stopped < keys.len()).then_some(stopped) }
});

/// Removes one copy of every key of a batch, prefetching; returns how many were found.
pub(crate) struct RemoveKeys<'a, W, S, K> {
    pub(crate) blocks: &'a mut [Block],
    pub(crate) hasher: &'a S,
    pub(crate) keys: &'a [K],
    pub(crate) distance: usize,
    pub(crate) width: PhantomData<W>,
}

quotient_operation!(RemoveKeys<'a, W, S: BuildHasher, K: Hash> -> usize, |op, kernel| {
    let RemoveKeys { blocks, hasher, keys, distance, width: _ } = op;
    let mut removed = 0;
    let base = blocks.as_ptr();
    let num_blocks = blocks.len();
    visit_locations::<W, S, K>(base, num_blocks, hasher, keys, distance, |_, location| {
        removed += usize::from(remove_at(kernel, blocks, location));
        ControlFlow::Continue(())
    });
    removed
});
