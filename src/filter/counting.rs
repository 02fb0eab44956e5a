//! [`CountingFilter`]: a split-block filter whose bits are 4-bit counters, so keys can be removed.
//!
//! Every bit of a [`Filter`] block becomes a counter: the same block choice ([`block_index`]) and
//! the same lane bits (the kernel's mask) pick eight counters for a key, one per lane, and an
//! insert increments them where a [`Filter`] would set bits. The counters of one 32-bit lane are
//! packed into a `u128` (32 × 4 bits), so a block is eight `u128`s: 128 bytes, two cache lines,
//! four times the memory of the plain filter. Projecting "counter > 0" back to bits
//! ([`CountingFilter::to_filter`]) gives a plain [`Filter`] with identical answers, which is how a
//! service keeps deletions at the writer and ships the compact filter to readers.
//!
//! Counters saturate at [`CountingFilter::COUNTER_MAX`] (15): an increment of a full counter is
//! lost, so the counter no longer knows how many keys use it, and it is therefore never
//! decremented again. A saturated counter can make a removed key linger as a false positive, but
//! it can never make a present key disappear. With the usual sizing a counter reaches 15 only
//! when one key is inserted many times or a block is heavily overloaded (Fan et al., "Summary
//! cache", 2000: with 4-bit counters overflow is rare).

use core::fmt;
use core::hash::{BuildHasher, Hash};

use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::Filter;
use crate::hash::{FilterHasher, Xxh3};
use crate::layout::split_block::{Block, LANES, block_index};
use crate::math;
use crate::storage::Blocks;
use crate::storage::counters::CounterBlock;

/// Bits per counter.
const COUNTER_BITS: u32 = 4;

/// The lowest bit of every counter of a lane.
const LOW_BITS: u128 = u128::MAX / 0xF;

// `shared_methods!` is given the block size as a literal, for its doc examples.
const _: () = assert!(size_of::<CounterBlock>() == 128);

/// A split-block Bloom filter that supports removal: each bit of the [`Filter`] layout is a
/// 4-bit saturating counter.
///
/// The same block choice and lane bits as [`Filter`] pick eight counters per key, one per lane;
/// a lane's 32 counters are packed in a `u128`, so a block is 128 bytes (two cache lines), four
/// times the plain filter. Counters saturate at [`COUNTER_MAX`](Self::COUNTER_MAX) and a saturated
/// counter is never decremented: it may keep a removed key as a false positive, but can never make
/// a present key disappear. [`to_filter`](Self::to_filter) projects counters > 0 to a plain
/// [`Filter`] with identical answers.
///
/// **Which deletable filter.** [`QuotientFilter`](crate::QuotientFilter) keeps a short tag per
/// key instead of eight counters: 11.2 bits per key at a 0.44% false-positive rate, where this
/// type needs 42.1 bits at 1%, with exact counts of what it holds and lookups of one or two
/// cache lines. Pick this type when the readers need a plain [`Filter`] (its bytes, its layout:
/// [`to_filter`](Self::to_filter)), or when the filter must take every key whatever the load (a
/// quotient filter refuses keys once it is full, where this one only grows less precise).
///
/// ```
/// use splitbloom::CountingFilter;
///
/// let mut blocklist = CountingFilter::with_fpr(10_000, 0.01)?;
/// blocklist.insert("10.0.0.1");
/// blocklist.insert("10.0.0.2");
/// assert!(blocklist.remove("10.0.0.1"));   // it was (probably) present
/// assert!(!blocklist.contains("10.0.0.1")); // gone (here certainly)
/// assert!(blocklist.contains("10.0.0.2"));  // others stay
///
/// // Ship the compact filter (a quarter of the size) to readers; the answers are identical.
/// let compact = blocklist.to_filter();
/// assert!(compact.contains("10.0.0.2"));
/// assert_eq!(compact.size_in_bytes() * 4, blocklist.size_in_bytes());
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct CountingFilter<S = Xxh3> {
    // Lazily zeroed, as a `Filter`'s blocks: a new filter's memory becomes resident only as
    // keys are inserted.
    blocks: Blocks<CounterBlock>,
    kernel: Dispatch,
    hasher: S,
}

shared_methods!(@constructors CountingFilter);

impl<S> CountingFilter<S> {
    /// The largest value of a counter; a counter that reaches it stays there.
    ///
    /// ```
    /// use splitbloom::CountingFilter;
    /// let mut filter = CountingFilter::with_num_blocks(1)?;
    /// for _ in 0..100 {
    ///     filter.insert("hot");
    /// }
    /// assert_eq!(filter.count_estimate("hot"), CountingFilter::<splitbloom::Xxh3>::COUNTER_MAX);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub const COUNTER_MAX: u8 = 15;

    /// [`CountingFilter::with_num_blocks`] with a given hasher.
    ///
    /// Errors when `num_blocks` is 0 or above [`math::MAX_BLOCKS`], or the allocation fails.
    ///
    /// ```
    /// use splitbloom::{CountingFilter, FilterHasher, Xxh3};
    /// // The default hasher with a seed of one's own.
    /// let filter = CountingFilter::with_num_blocks_and_hasher(8, Xxh3::with_seed(7))?;
    /// assert_eq!((filter.num_blocks(), filter.hasher().seed()), (8, 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks_and_hasher(num_blocks: usize, hasher: S) -> Result<Self, Error> {
        math::check_num_blocks(num_blocks)?;
        let blocks = Blocks::zeroed(num_blocks).ok_or(Error::AllocationFailed {
            bytes: num_blocks.saturating_mul(size_of::<CounterBlock>()),
        })?;
        Ok(CountingFilter {
            blocks,
            kernel: Dispatch::best(),
            hasher,
        })
    }

    /// The block of `hash` and the bit offsets of its eight counters, one per lane.
    #[inline]
    fn locate(&self, hash: u64) -> (usize, [u32; LANES]) {
        let mask = self.kernel.mask(hash as u32);
        let shifts = mask.map(|bit| bit.trailing_zeros() * COUNTER_BITS);
        (block_index(hash, self.blocks.len()), shifts)
    }

    /// The eight counters of `hash`.
    #[inline]
    fn counters(&self, hash: u64) -> [u8; LANES] {
        let (index, shifts) = self.locate(hash);
        let lanes = &self.blocks[index].0;
        core::array::from_fn(|lane| ((lanes[lane] >> shifts[lane]) & 0xF) as u8)
    }

    /// Removes one occurrence of a pre-hashed key: decrements its eight counters, except those
    /// saturated at [`COUNTER_MAX`](Self::COUNTER_MAX), which stay (so no other key can be lost).
    ///
    /// Returns `true` when the key may have been present (every counter was non-zero) and was
    /// removed; `false` when it was certainly absent, in which case nothing changes.
    ///
    /// Removing a key that was never inserted (or more often than it was inserted) is the
    /// caller's error, as with any counting Bloom filter: when such a key is certainly absent it
    /// is harmlessly refused (`false`), but when it is a false positive its counters belong to
    /// other keys, the call returns `true` and decrements them, and those other keys may later be
    /// reported absent. Only remove keys you know you inserted.
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_num_blocks(16)?;
    /// filter.insert_hash(7 << 40 | 3);
    /// assert!(filter.remove_hash(7 << 40 | 3));
    /// assert!(!filter.remove_hash(7 << 40 | 3)); // certainly absent now: refused
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        let (index, shifts) = self.locate(hash);
        let lanes = &mut self.blocks[index].0;
        let present = lanes
            .iter()
            .zip(shifts)
            .all(|(lane, shift)| (lane >> shift) & 0xF != 0);
        if present {
            for (lane, shift) in lanes.iter_mut().zip(shifts) {
                let count = (*lane >> shift) & 0xF;
                *lane -= u128::from(count < u128::from(Self::COUNTER_MAX)) << shift;
            }
        }
        present
    }

    /// Removes one occurrence of every hash of `hashes` (see
    /// [`remove_hash`](CountingFilter::remove_hash)); returns how many were removed.
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_num_blocks(64)?;
    /// filter.insert_hash_batch(&[1 << 40, 2 << 40]);
    /// assert_eq!(filter.remove_hash_batch(&[1 << 40, 2 << 40]), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn remove_hash_batch(&mut self, hashes: &[u64]) -> usize {
        hashes
            .iter()
            .map(|&hash| usize::from(self.remove_hash(hash)))
            .sum()
    }

    /// An upper bound on how many times a pre-hashed key is present: the smallest of its eight
    /// counters (0 means certainly absent; [`COUNTER_MAX`](Self::COUNTER_MAX) means "at least
    /// that many, or sharing saturated counters"). Exact unless other keys share all eight
    /// counters, as for any count-min estimate.
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_num_blocks(64)?;
    /// for _ in 0..3 {
    ///     filter.insert_hash(9 << 40 | 9);
    /// }
    /// assert_eq!(filter.count_estimate_hash(9 << 40 | 9), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn count_estimate_hash(&self, hash: u64) -> u8 {
        self.counters(hash).into_iter().min().unwrap_or(0)
    }

    /// The plain [`Filter`] whose bits are the counters that are non-zero: same size in blocks,
    /// same hasher and kernel, and the same answer as this filter for every key.
    ///
    /// ```
    /// let mut counting = splitbloom::CountingFilter::with_num_blocks(8)?;
    /// counting.insert("kept");
    /// counting.insert("dropped");
    /// counting.remove("dropped");
    /// let filter = counting.to_filter();
    /// assert!(filter.contains("kept"));
    /// assert_eq!(filter.contains("dropped"), counting.contains("dropped"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_filter(&self) -> Filter<S>
    where
        S: Clone,
    {
        let mut blocks: Blocks = Blocks::zeroed_or_abort(self.blocks.len());
        for (projection, block) in blocks.iter_mut().zip(self.blocks.iter()) {
            *projection = Block(block.0.map(nonzero_counters));
        }
        Filter::from_parts(blocks, self.kernel, self.hasher.clone())
    }

    /// How many counters are stuck at [`COUNTER_MAX`](Self::COUNTER_MAX). Above zero, some
    /// removed keys may linger as false positives (never the reverse); a growing number says the
    /// filter is overloaded or keys are inserted many times over.
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_num_blocks(4)?;
    /// for _ in 0..20 {
    ///     filter.insert("hot");
    /// }
    /// assert_eq!(filter.saturated_counters(), 8);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn saturated_counters(&self) -> usize {
        self.blocks
            .iter()
            .flat_map(|block| block.0)
            .map(|lane| {
                let full = lane & (lane >> 1) & (lane >> 2) & (lane >> 3) & LOW_BITS;
                full.count_ones() as usize
            })
            .sum()
    }

    /// Resets every counter to zero.
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_num_blocks(4)?;
    /// filter.insert("x");
    /// filter.clear();
    /// assert!(!filter.contains("x"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn clear(&mut self) {
        self.blocks.fill(CounterBlock::default());
    }
}

impl<S: BuildHasher> CountingFilter<S> {
    /// Removes one occurrence of `key`; only remove keys you inserted (see
    /// [`remove_hash`](Self::remove_hash) for what happens otherwise).
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_fpr(100, 0.01)?;
    /// filter.insert("k");
    /// filter.insert("k");
    /// assert!(filter.remove("k"));
    /// assert!(filter.contains("k")); // inserted twice, removed once
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn remove<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        self.remove_hash(crate::hash::hash_key(&self.hasher, key))
    }

    /// An upper bound on how many times `key` is present (see
    /// [`count_estimate_hash`](Self::count_estimate_hash)).
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_fpr(100, 0.01)?;
    /// filter.insert("twice");
    /// filter.insert("twice");
    /// assert_eq!(filter.count_estimate("twice"), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn count_estimate<K: Hash + ?Sized>(&self, key: &K) -> u8 {
        self.count_estimate_hash(crate::hash::hash_key(&self.hasher, key))
    }

    /// Removes one occurrence of every key of `keys`: the result of
    /// [`remove`](CountingFilter::remove) on each (only remove keys you inserted). Returns how
    /// many were removed (found present).
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_fpr(100, 0.01)?;
    /// filter.insert_batch(&["apple", "pear"]);
    /// assert_eq!(filter.remove_batch(&["apple", "pear"]), 2);
    /// assert!(!filter.contains("pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn remove_batch<K: Hash>(&mut self, keys: &[K]) -> usize {
        keys.iter().map(|key| usize::from(self.remove(key))).sum()
    }
}

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], whose framing the [`hash`](crate::hash) module documents so
/// another program can reproduce it; the same hashes as [`Filter`]'s byte entry points, so
/// [`to_filter`](CountingFilter::to_filter) keeps answering for them.
impl<S: FilterHasher> CountingFilter<S> {
    /// Removes the key made of exactly `key`'s bytes (see
    /// [`remove_hash`](CountingFilter::remove_hash)).
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes(b"key");
    /// assert!(filter.remove_bytes(b"key"));
    /// assert!(!filter.contains_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn remove_bytes(&mut self, key: &[u8]) -> bool {
        let hash = self.hash_bytes(key);
        self.remove_hash(hash)
    }

    /// The estimated count of the key made of exactly `key`'s bytes (see
    /// [`count_estimate_hash`](CountingFilter::count_estimate_hash)).
    ///
    /// ```
    /// let mut filter = splitbloom::CountingFilter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes(b"key");
    /// filter.insert_bytes(b"key");
    /// assert_eq!(filter.count_estimate_bytes(b"key"), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn count_estimate_bytes(&self, key: &[u8]) -> u8 {
        self.count_estimate_hash(self.hash_bytes(key))
    }
}

write_methods! {
    type: {S} CountingFilter {S},
    writer: exclusive,
    error: Infallible,
    // Increment the key's eight counters, those at `COUNTER_MAX` staying there.
    insert_one: |filter, hash| {
        let (index, shifts) = filter.locate(hash);
        let mut was_zero = false;
        for (lane, shift) in filter.blocks[index].0.iter_mut().zip(shifts) {
            let count = (*lane >> shift) & 0xF;
            was_zero |= count == 0;
            *lane += u128::from(count < u128::from(Self::COUNTER_MAX)) << shift;
        }
        Ok(was_zero)
    },
    setup: "let mut filter = splitbloom::CountingFilter::with_fpr(100, 0.01)?;",
    lookup: "filter",
    note: "Each insert adds one occurrence: it increments the key's eight counters (those at \
           [`COUNTER_MAX`](CountingFilter::COUNTER_MAX) stay there), and `true` means at \
           least one of them was 0. [`remove`](CountingFilter::remove) takes one occurrence \
           away.",
    batch_note: "One occurrence of each, a key at a time.",
    extend_note: "A counting filter never refuses a key (its counters saturate), so this \
                  cannot fail.",
}

read_methods! {
    type: CountingFilter,
    setup: "let mut filter = splitbloom::CountingFilter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}",
    note: "A key may be present when all eight of its counters are non-zero: the answers of \
           [`to_filter`](CountingFilter::to_filter)'s plain filter.",
    probe: |filter, hash| {
        filter.count_estimate_hash(hash) > 0
    },
    bytes: yes,
}

shared_methods!(@accessors CountingFilter, "let filter = splitbloom::CountingFilter::with_num_blocks(8)?;", 128);

/// Equal when they hold the same counters and the same hasher; the kernel is not compared.
///
/// ```
/// let mut a = splitbloom::CountingFilter::with_num_blocks(4)?;
/// let mut b = splitbloom::CountingFilter::with_num_blocks(4)?;
/// a.insert("k");
/// assert_ne!(a, b);
/// b.insert("k");
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for CountingFilter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher && self.blocks == other.blocks
    }
}

/// Shows the shape and saturation, not the counters.
///
/// ```
/// let filter = splitbloom::CountingFilter::with_num_blocks(2)?;
/// assert!(format!("{filter:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for CountingFilter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountingFilter")
            .field("num_blocks", &self.blocks.len())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .field("saturated_counters", &self.saturated_counters())
            .finish()
    }
}

/// The 32-bit lane whose bit `b` says whether counter `b` of `lane` is non-zero.
#[inline]
fn nonzero_counters(lane: u128) -> u32 {
    let nonzero = (lane | (lane >> 1) | (lane >> 2) | (lane >> 3)) & LOW_BITS;
    (0..32).fold(0, |bits, counter| {
        bits | (((nonzero >> (COUNTER_BITS * counter)) as u32 & 1) << counter)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_counters_maps_each_nibble_to_its_bit() {
        assert_eq!(nonzero_counters(0), 0);
        assert_eq!(nonzero_counters(u128::MAX), u32::MAX);
        for counter in 0..32 {
            for value in 1..16u128 {
                assert_eq!(nonzero_counters(value << (4 * counter)), 1 << counter);
            }
        }
        assert_eq!(
            nonzero_counters(0x8000_0000_0000_0000_0000_0000_0000_0010),
            0x8000_0002
        );
    }

    #[test]
    fn saturation_is_counted_per_counter() {
        let mut filter = CountingFilter::with_num_blocks(1).unwrap();
        filter.blocks[0].0[2] = 0xF << 8 | 0xE << 12 | 0xF << 124;
        assert_eq!(filter.saturated_counters(), 2);
    }
}
