//! The quotient layout's kernels ([`QuotientFilter`](crate::QuotientFilter)): four block
//! primitives per kernel ([`QuotientKernel`]), and every operation written once over them and
//! run inside a kernel's entry point ([`Token::run`]), so the primitives inline into it with
//! the kernel's target features.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`QuotientKernel`], and the operations written once over it: lookups, counts, inserts with their placement rule, removals, and batches through `batch.rs`'s prefetching loop |
//! | `select.rs` | the word-parallel select of the kernels without BMI2 (portable, NEON) |
//! | `tests.rs` | every kernel against the scalar reference |
//!
//! Each kernel implements [`QuotientKernel`] beside its other layouts' primitives: `scalar.rs`
//! (the reference of `crate::layout::quotient`), `portable.rs`, `avx2/quotient.rs`,
//! `avx512/quotient.rs`, `neon/quotient.rs`, with what AVX2 and AVX-512 share (bucket ranges
//! with `pdep`) in `x86.rs`.
//!
//! A lookup locates the key's two buckets ([`locate`]), and in each block compares the tag
//! against every slot at once ([`tag_matches`](QuotientKernel::tag_matches)) and keeps the
//! slots of the key's bucket ([`bucket_range`](QuotientKernel::bucket_range), a select on the
//! metadata). Both blocks are always probed and the answers ORed, so a lookup never branches on
//! which block holds the key and the two cache misses of a large filter overlap. An insert adds
//! the tag at the end of its bucket in the emptier block, shifting the slots above it up
//! ([`shift_in`](QuotientKernel::shift_in)) and the metadata with them.

use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;
use core::ops::ControlFlow;

use super::batch::{Visit, visit_prefetching};
use super::{Operation, OperationOn, Token};
use crate::layout::Policy;
use crate::layout::quotient::{
    BLOCK_BYTES, Block, BucketEnds, Location, MetadataBits, Width, alternate, len, locate,
    slot_buckets,
};

pub(crate) mod select;
#[cfg(test)]
mod tests;

/// The prefetch distance of a quotient filter of `num_blocks` blocks: none below half the L2
/// cache, the layout's [`Policy::PREFETCH_DISTANCE`] above.
#[inline]
pub(crate) fn quotient_prefetch_distance(num_blocks: usize) -> usize {
    super::batch::prefetch_distance::<crate::layout::quotient::Tag8>(num_blocks * BLOCK_BYTES)
}

/// The block primitives every kernel implements, with the results of `layout::quotient`'s
/// reference on every valid block (on an invalid one, a kernel may answer otherwise but stays
/// in bounds).
pub(crate) trait QuotientKernel: Token {
    /// The slots `start..end` of bucket `bucket` (below `W::BUCKETS`) as the one-hot words
    /// `(1 << start, 1 << end)`: a select on `metadata`.
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds;
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

/// The slots of bucket `bucket` of `block` that hold `tag`, as bits: the tag's matches, and the
/// bucket's slots as the difference of its two one-hot ends.
#[inline(always)]
pub(crate) fn bucket_matches<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    block: &Block,
    bucket: u32,
    tag: W::Tag,
) -> u64 {
    let (start, end) = kernel.bucket_range::<W>(W::metadata(block), bucket);
    kernel.tag_matches::<W>(block, tag) & end.wrapping_sub(start)
}

/// Appends `tag` at the end of bucket `bucket` of `block`, which has a free slot: the slots
/// from there move up by one, and the metadata gets a one before the bucket's zero.
#[inline(always)]
fn put<Kn: QuotientKernel, W: Width>(kernel: Kn, block: &mut Block, bucket: u32, tag: W::Tag) {
    let metadata = W::metadata(block);
    let end = kernel
        .bucket_range::<W>(metadata, bucket)
        .1
        .trailing_zeros();
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

/// Both blocks' matching slots of `location` in `blocks`. (Written out, not with
/// `[0, 1].map(..)`: `map` may stay a call to a generic function compiled without the kernel's
/// target features, and the primitives would then not inline.)
#[inline(always)]
fn matches<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &[Block],
    location: &Location<W>,
) -> [u64; 2] {
    let [first, second] = location.blocks;
    let (bucket, tag) = (location.bucket, location.tag);
    [
        bucket_matches::<Kn, W>(kernel, &blocks[first], bucket, tag),
        bucket_matches::<Kn, W>(kernel, &blocks[second], bucket, tag),
    ]
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

/// [`contains_at`] for a single key: the same answer, with branches that a loop of single
/// lookups predicts well and that shorten each lookup, so that more of them overlap their cache
/// misses (a batch prefetches instead, and stays branch-free). A key absent from both blocks'
/// tags (nearly every miss with 16-bit tags, about 70% with 8-bit ones at 85% load) needs no
/// bucket bounds; a present key is most often in its primary block (see [`insert_copy_at`]),
/// whose bounds then answer alone.
#[inline(always)]
fn contains_one<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &[Block],
    location: &Location<W>,
) -> bool {
    let [first, second] = location.blocks;
    let (first, second) = (&blocks[first], &blocks[second]);
    let tag = location.tag;
    let matched = [
        kernel.tag_matches::<W>(first, tag),
        kernel.tag_matches::<W>(second, tag),
    ];
    let in_bucket = |block: &Block, matched: u64| {
        let (start, end) = kernel.bucket_range::<W>(W::metadata(block), location.bucket);
        matched & end.wrapping_sub(start) != 0
    };
    (matched[0] != 0 && in_bucket(first, matched[0]))
        || (matched[1] != 0 && in_bucket(second, matched[1]))
}

/// How many copies of its tag a key at `location` has: the matches in both blocks (one block
/// counted once when they coincide).
#[inline(always)]
fn count_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &[Block],
    location: &Location<W>,
) -> u32 {
    let [first, second] = matches(kernel, blocks, location);
    let second = if location.one_place() { 0 } else { second };
    first.count_ones() + second.count_ones()
}

/// Removes one copy of the tag of a key at `location`: the first matching slot of its bucket in
/// the primary block, else in the alternate. `false` when neither holds the tag (nothing
/// changes). The alternate is only looked at when the primary has no copy, which is the rarer
/// case (see [`insert_copy_at`]).
#[inline(always)]
fn remove_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    location: &Location<W>,
) -> bool {
    let (bucket, tag) = (location.bucket, location.tag);
    for at in location.blocks {
        let found = bucket_matches::<Kn, W>(kernel, &blocks[at], bucket, tag);
        if found != 0 {
            take::<Kn, W>(kernel, &mut blocks[at], bucket, found.trailing_zeros());
            return true;
        }
    }
    false
}

/// Adds one copy of the tag of a key at `location`, by the layout's placement rule (the byte
/// contract every writer follows, `docs/FORMAT.md`):
///
/// 1. into the primary block while it holds fewer than three quarters of its slots, else into
///    the block holding fewer tags, the primary on a tie; at the end of the key's bucket there;
/// 2. when both blocks are full, first moving one stored tag out of the primary block (slots in
///    order), else out of the alternate, to that tag's other block, the first one whose other
///    block has a free slot; then the key goes where the tag was taken from;
/// 3. else `Err(())`: the filter is full for this key, and nothing changed.
///
/// The threshold of rule 1 spares most inserts into a filter that is filling up a read of
/// the alternate block (a cache miss in a large filter), as the vector quotient filter does;
/// past it, the emptier block keeps the blocks' loads even (simulated first failures at 99.1%
/// of the slots with 8-bit tags, 98.5% with 16-bit ones, for 2^24 slots).
#[inline(always)]
fn insert_copy_at<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    location: &Location<W>,
) -> Result<(), ()> {
    let [primary, other] = location.blocks;
    let fill = len::<W>(&blocks[primary]);
    let at = if fill < PRIMARY_THRESHOLD * W::SLOTS / 4 {
        primary
    } else {
        let other_fill = len::<W>(&blocks[other]);
        if fill.min(other_fill) == W::SLOTS {
            return make_room_and_put(kernel, blocks, location);
        }
        if other_fill < fill { other } else { primary }
    };
    put::<Kn, W>(kernel, &mut blocks[at], location.bucket, location.tag);
    Ok(())
}

/// Rule 1's threshold, in quarters of a block's slots.
const PRIMARY_THRESHOLD: u32 = 3;

/// Rules 2 and 3 of [`insert_copy_at`], for a key whose two blocks are full: out of line, as
/// they are rare.
#[inline(never)]
fn make_room_and_put<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    location: &Location<W>,
) -> Result<(), ()> {
    let candidates = if location.one_place() { 1 } else { 2 };
    for &at in &location.blocks[..candidates] {
        if move_one_out::<Kn, W>(kernel, blocks, at) {
            put::<Kn, W>(kernel, &mut blocks[at], location.bucket, location.tag);
            return Ok(());
        }
    }
    Err(())
}

/// Moves the first tag of full block `from` (in slot order) whose other block has a free slot
/// there, into the same bucket; `false` when none has.
#[inline(always)]
fn move_one_out<Kn: QuotientKernel, W: Width>(
    kernel: Kn,
    blocks: &mut [Block],
    from: usize,
) -> bool {
    let num_blocks = blocks.len() as u64;
    let slot_buckets = slot_buckets::<W>(W::metadata(&blocks[from]));
    for slot in 0..W::SLOTS {
        let tag = W::slot(&blocks[from], slot);
        let to = alternate(from as u64, tag.into(), num_blocks) as usize;
        if to != from && len::<W>(&blocks[to]) < W::SLOTS {
            let bucket = slot_buckets[slot as usize];
            take::<Kn, W>(kernel, &mut blocks[from], bucket, slot);
            put::<Kn, W>(kernel, &mut blocks[to], bucket, tag);
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

/// A batch of lookups: `out[i]` for key `i`.
struct Answer<'a, Kn> {
    kernel: Kn,
    blocks: &'a [Block],
    out: &'a mut [bool],
}

impl<Kn: QuotientKernel, W: Width> Visit<Location<W>> for Answer<'_, Kn> {
    #[inline(always)]
    fn visit(&mut self, index: usize, location: Location<W>) -> ControlFlow<()> {
        self.out[index] = contains_at(self.kernel, self.blocks, &location);
        ControlFlow::Continue(())
    }
}

/// A batch of inserts, counting the keys added; breaks at the first that does not fit.
struct Add<'a, Kn> {
    kernel: Kn,
    blocks: &'a mut [Block],
    copy: bool,
    added: usize,
}

impl<Kn: QuotientKernel, W: Width> Visit<Location<W>> for Add<'_, Kn> {
    #[inline(always)]
    fn visit(&mut self, _: usize, location: Location<W>) -> ControlFlow<()> {
        match insert_at(self.kernel, self.blocks, &location, self.copy) {
            Ok(added) => {
                self.added += usize::from(added);
                ControlFlow::Continue(())
            }
            Err(()) => ControlFlow::Break(()),
        }
    }
}

/// A batch of removals, counting the keys found.
struct Take<'a, Kn> {
    kernel: Kn,
    blocks: &'a mut [Block],
    removed: usize,
}

impl<Kn: QuotientKernel, W: Width> Visit<Location<W>> for Take<'_, Kn> {
    #[inline(always)]
    fn visit(&mut self, _: usize, location: Location<W>) -> ControlFlow<()> {
        self.removed += usize::from(remove_at(self.kernel, self.blocks, &location));
        ControlFlow::Continue(())
    }
}

/// A tag width as the batch loops run it: its own [`Policy`] (where a key's two lines are).
pub(crate) trait BatchWidth:
    Width + Policy<Block = Block, Location = Location<Self>>
{
}

impl<W: Width + Policy<Block = Block, Location = Location<W>>> BatchWidth for W {}

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

        impl<$($lt,)? Kn: QuotientKernel, W: BatchWidth $(, $param: $bound)*> OperationOn<Kn>
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
    contains_one(kernel, op.blocks, &locate::<W>(op.hash, op.blocks.len()))
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
    let mut answer = Answer { kernel, blocks, out };
    visit_prefetching(W::default(), blocks.as_ptr(), blocks.len(), hasher, keys, distance, &mut answer);
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
    let (base, num_blocks) = (blocks.as_ptr(), blocks.len());
    let mut add = Add { kernel, blocks, copy, added: 0 };
    let stopped = visit_prefetching(W::default(), base, num_blocks, hasher, keys, distance, &mut add);
    Inserted { added: add.added, full_at: (stopped < keys.len()).then_some(stopped) }
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
    let (base, num_blocks) = (blocks.as_ptr(), blocks.len());
    let mut take = Take { kernel, blocks, removed: 0 };
    visit_prefetching(W::default(), base, num_blocks, hasher, keys, distance, &mut take);
    take.removed
});
