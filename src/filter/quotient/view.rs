//! The reads of [`QuotientFilter`] and [`QuotientFilterRef`], written once: [`QuotientView`]
//! (blocks, tag width, kernel, hasher) is the `Probe` both answer through, so the family's
//! shared reads (`read_methods!`) serve them, and `quotient_methods!` writes the methods the two
//! types add (copies, size and load, statistics, bytes).
//!
//! [`QuotientFilter`]: crate::QuotientFilter
//! [`QuotientFilterRef`]: crate::QuotientFilterRef

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;

use crate::arch::quotient::{Contains, ContainsKeys, Count, quotient_prefetch_distance};
use crate::arch::{Dispatch, PreHashed};
use crate::filter::view::Probe;
use crate::hash::FilterHasher;
use crate::kind::TagBits;
use crate::layout::quotient::Block;

/// Runs `$body` with `$W` the layout type of the tag width `$tag_bits` (`Tag8` or `Tag16`): one
/// `match` per operation, on a value that never changes, so a caller's loop hoists it.
macro_rules! with_width {
    ($tag_bits:expr, $W:ident => $body:expr) => {
        match $tag_bits {
            $crate::kind::TagBits::Eight => {
                type $W = $crate::layout::quotient::Tag8;
                $body
            }
            $crate::kind::TagBits::Sixteen => {
                type $W = $crate::layout::quotient::Tag16;
                $body
            }
        }
    };
}
pub(crate) use with_width;

/// Quotient blocks with their tag width, kernel and hasher: the [`Probe`] of
/// [`QuotientFilter`](crate::QuotientFilter) and [`QuotientFilterRef`](crate::QuotientFilterRef),
/// and the one place their counts and serialization are written.
#[derive(Clone, Copy)]
pub(crate) struct QuotientView<'a, S> {
    /// The blocks, at least one.
    pub(crate) blocks: &'a [Block],
    /// The tag width.
    pub(crate) tag_bits: TagBits,
    /// The kernel that answers.
    pub(crate) kernel: Dispatch,
    /// The hasher keys go through.
    pub(crate) hasher: &'a S,
}

impl<S> Probe for QuotientView<'_, S> {
    type Hasher = S;

    #[inline(always)]
    fn hasher(&self) -> &S {
        self.hasher
    }

    #[inline(always)]
    fn probe(&self, hash: u64) -> bool {
        let blocks = self.blocks;
        with_width!(self.tag_bits, W => {
            self.kernel.run(Contains { blocks, hash, width: PhantomData::<W> })
        })
    }

    /// The loop runs inside the kernel, prefetching both blocks of each key on filters of at
    /// least half the L2 cache.
    #[inline]
    fn probe_all(&self, hashes: &[u64], out: &mut [bool]) {
        let (blocks, distance) = (self.blocks, quotient_prefetch_distance(self.blocks.len()));
        with_width!(self.tag_bits, W => self.kernel.run(ContainsKeys {
            blocks,
            hasher: &PreHashed,
            keys: hashes,
            out,
            distance,
            width: PhantomData::<W>,
        }));
    }

    /// Hashing and probing run inside the kernel, as for [`probe_all`](Probe::probe_all).
    #[inline]
    fn probe_keys<K: Hash>(&self, keys: &[K], out: &mut [bool])
    where
        S: BuildHasher,
    {
        let (blocks, distance) = (self.blocks, quotient_prefetch_distance(self.blocks.len()));
        with_width!(self.tag_bits, W => self.kernel.run(ContainsKeys {
            blocks,
            hasher: self.hasher,
            keys,
            out,
            distance,
            width: PhantomData::<W>,
        }));
    }
}

impl<S> QuotientView<'_, S> {
    /// The copies of a pre-hashed key's tag in its two buckets.
    #[inline]
    pub(crate) fn count_hash(&self, hash: u64) -> u32 {
        let blocks = self.blocks;
        with_width!(self.tag_bits, W => self.kernel.run(Count { blocks, hash, width: PhantomData::<W> }))
    }
}

impl<S: FilterHasher> QuotientView<'_, S> {
    /// The blocks in splitbloom's format, under the quotient layout id of their tag width.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        crate::format::quotient_to_bytes(S::KIND, self.hasher.seed(), self.tag_bits, self.blocks)
    }

    /// Streams [`to_bytes`](QuotientView::to_bytes) to `writer`.
    #[cfg(feature = "std")]
    pub(crate) fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        let (seed, tag_bits) = (self.hasher.seed(), self.tag_bits);
        crate::format::quotient_write_to(S::KIND, seed, tag_bits, self.blocks, writer)
    }
}

/// Writes the methods [`QuotientFilter`](crate::QuotientFilter) and
/// [`QuotientFilterRef`](crate::QuotientFilterRef) share beyond the family's reads: copies,
/// size and load, the rate, and the bytes. `$setup` is doc-example lines binding `filter`
/// holding `"apple"` twice (two copies) and `"pear"` once; the type has the fields `len` and
/// `tag_bits` and a `view()`.
macro_rules! quotient_methods {
    ($Type:ident $(<$lt:lifetime>)?, $setup:expr) => {
        impl<S> $Type<$($lt,)? S> {
            /// How many copies of a pre-hashed key the filter may hold: the tags equal to its
            /// tag in its two buckets, an upper bound (another key's equal tag counts too); 0
            /// means certainly absent.
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.count_hash(filter.hash_bytes(b"apple")), 2);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline]
            pub fn count_hash(&self, hash: u64) -> u32 {
                self.view().count_hash(hash)
            }

            /// The number of tags held: every key added and not removed, each copy counted.
            /// Exact.
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.len(), 3);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether the filter holds no tag.
            ///
            /// ```
            #[doc = $setup]
            /// assert!(!filter.is_empty());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// The number of tag slots: the most tags the filter could hold. Inserts start to
            /// fail a little below it (see [`Error::Full`](crate::Error::Full)).
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.capacity(), filter.num_blocks() * filter.tag_bits().slots_per_block());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn capacity(&self) -> usize {
                self.view().blocks.len() * self.tag_bits.slots_per_block()
            }

            /// The fraction of the slots in use, [`len`](Self::len) over
            /// [`capacity`](Self::capacity): exact. Filters are sized for
            /// [`DESIGN_LOAD`](crate::math::quotient::DESIGN_LOAD).
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.load(), 3.0 / filter.capacity() as f64);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn load(&self) -> f64 {
                self.len as f64 / self.capacity() as f64
            }

            /// The width of the tags.
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.tag_bits(), splitbloom::TagBits::Eight);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn tag_bits(&self) -> $crate::TagBits {
                self.tag_bits
            }

            /// The false-positive rate at the filter's current load
            /// ([`math::quotient::false_positive_rate`](crate::math::quotient::false_positive_rate)):
            /// the chance that a key never inserted is reported present.
            ///
            /// ```
            #[doc = $setup]
            /// assert!(filter.estimated_fpr() < 1e-3);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn estimated_fpr(&self) -> f64 {
                $crate::math::quotient::false_positive_rate(self.tag_bits, self.load())
            }
        }

        impl<S: core::hash::BuildHasher> $Type<$($lt,)? S> {
            /// How many copies of `key` the filter may hold: an upper bound (another key's equal
            /// tag in one of its buckets counts too); 0 means certainly absent.
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.count("apple"), 2);
            /// assert_eq!(filter.count("pear"), 1);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline]
            pub fn count<K: core::hash::Hash + ?Sized>(&self, key: &K) -> u32 {
                self.count_hash($crate::hash::hash_key(&self.hasher, key))
            }
        }

        impl<S: $crate::hash::FilterHasher> $Type<$($lt,)? S> {
            /// How many copies of the key made of exactly `key`'s bytes the filter may hold:
            /// an upper bound.
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.count_bytes(b"apple"), 2);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline]
            pub fn count_bytes(&self, key: &[u8]) -> u32 {
                self.count_hash(self.hasher.hash_bytes(key))
            }

            /// The filter in splitbloom's format: the `SBLM` header with the quotient layout id
            /// of its tag width (5 or 6), then its blocks (see `docs/FORMAT.md`).
            ///
            /// ```
            #[doc = $setup]
            /// let bytes = filter.to_bytes();
            /// assert_eq!(bytes.len(), filter.serialized_len());
            /// let copy = splitbloom::QuotientFilter::from_bytes(&bytes)?;
            /// assert_eq!(copy.count("apple"), 2);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn to_bytes(&self) -> alloc::vec::Vec<u8> {
                self.view().to_bytes()
            }

            /// The length of [`to_bytes`](Self::to_bytes): 32 bytes of header and 64 per block.
            ///
            /// ```
            #[doc = $setup]
            /// assert_eq!(filter.serialized_len(), 32 + 64 * filter.num_blocks());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn serialized_len(&self) -> usize {
                $crate::format::HEADER_BYTES + self.size_in_bytes()
            }

            /// Writes [`to_bytes`](Self::to_bytes) to `writer` without building it in memory
            /// first; `?` turns the writer's error into an [`Error`](crate::Error).
            ///
            /// ```
            #[doc = $setup]
            /// let mut file = Vec::new();
            /// filter.write_to(&mut file)?;
            /// assert_eq!(file, filter.to_bytes());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[cfg(feature = "std")]
            pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
                self.view().write_to(writer)
            }
        }
    };
}
pub(crate) use quotient_methods;
