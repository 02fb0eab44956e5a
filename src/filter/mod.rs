//! The filter family: [`Filter`] (this file: the owned, mutable split-block Bloom filter) and
//! the types built on the same blocks, block choice, lane bits and hashing.
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | [`Filter`] |
//! | `view.rs` | the read-only logic every type shares, written once over a borrowed bitset |
//! | `filter_ref.rs` | [`FilterRef`]: a zero-copy view of serialized bytes |
//! | `atomic.rs` | [`AtomicFilter`]: inserts through `&self` from many threads |
//! | `counting.rs` | [`CountingFilter`]: 4-bit counters, so keys can be removed |
//! | `scalable.rs` | [`ScalableFilter`]: a chain of filters that grows |
//! | `fold.rs` | [`Filter::fold`] and [`Filter::fold_to_fpr`] |

use alloc::vec::Vec;
use core::fmt;
use core::hash::{BuildHasher, Hash};

use crate::arch::{Dispatch, EntryPoints, PreHashed};
use crate::block::{BLOCK_BYTES, Block, LANES};
use crate::error::Error;
use crate::format::{HEADER_BYTES, decode_into, validate};
use crate::hash::{FilterHasher, Xxh3};
use crate::storage::Blocks;
use crate::{Kernel, arch, math};
use view::View;

// Needs 32-bit atomic read-modify-write, which a few embedded targets lack.
/// Writes the methods the filter types share beyond the reads (which `read_methods!` in
/// `view.rs` writes): the kernel and hasher accessors and the size, and, for the types that own
/// their memory, the sized constructors, each from the type's `with_num_blocks_and_hasher`.
///
/// * `type`: the type, with `'_` when it borrows;
/// * `make`: doc-example lines that bind an empty `filter` of 8 blocks;
/// * `block_bytes`: the bytes one block takes in this type;
/// * `constructors`: whether to write `with_fpr`, `with_bits_per_key`, `with_num_blocks` and
///   their `_and_hasher` forms.
macro_rules! shared_methods {
    (
        type: $Type:ident $(<$lt:lifetime>)?,
        make: $make:literal,
        block_bytes: $block_bytes:expr,
        constructors: $constructors:tt $(,)?
    ) => {
        impl<S> $Type<$($lt,)? S> {
            /// The same filter running on `kernel`; errors when this CPU cannot run it. Results
            /// never depend on the kernel, only speed does.
            ///
            /// ```
            /// use splitbloom::Kernel;
            #[doc = $make]
            /// let filter = filter.with_kernel(Kernel::Scalar)?;
            /// assert_eq!(filter.kernel(), Kernel::Scalar);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_kernel(mut self, kernel: $crate::Kernel) -> Result<Self, $crate::Error> {
                self.kernel = $crate::arch::Dispatch::new(kernel)
                    .ok_or($crate::Error::KernelUnavailable(kernel))?;
                Ok(self)
            }

            /// The kernel this filter runs on ([`Kernel::best`](crate::Kernel::best) unless
            /// chosen with `with_kernel`).
            ///
            /// ```
            #[doc = $make]
            /// assert!(filter.kernel().is_available());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn kernel(&self) -> $crate::Kernel {
                self.kernel.kernel()
            }

            /// The hasher keys go through.
            ///
            /// ```
            #[doc = $make]
            /// assert_eq!(*filter.hasher(), splitbloom::Xxh3::default());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn hasher(&self) -> &S {
                &self.hasher
            }

            /// The number of blocks.
            ///
            /// ```
            #[doc = $make]
            /// assert_eq!(filter.num_blocks(), 8);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn num_blocks(&self) -> usize {
                self.blocks.len()
            }

            #[doc = concat!("The size of the blocks in bytes (", stringify!($block_bytes), " per block).")]
            ///
            /// ```
            #[doc = $make]
            #[doc = concat!("assert_eq!(filter.size_in_bytes(), 8 * ", stringify!($block_bytes), ");")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn size_in_bytes(&self) -> usize {
                self.blocks.len() * $block_bytes
            }
        }

        shared_methods!(@constructors $constructors $Type);
    };
    (@constructors no $Type:ident) => {};
    (@constructors yes $Type:ident) => {
        impl $Type {
            /// An empty filter for `items` keys with a false-positive rate of at most `fpr`,
            /// sized with the split-block formula
            /// ([`math::num_blocks_for_fpr`](crate::math::num_blocks_for_fpr)).
            ///
            /// Errors when `items` is 0, `fpr` is not strictly between 0 and 1, or the filter
            /// would be too large to allocate.
            ///
            /// ```
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_fpr(1_000_000, 0.01)?;")]
            /// assert_eq!(filter.num_blocks(), 41_130); // 10.53 bits per key
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_fpr(1000, 1.0).is_err());")]
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_fpr(0, 0.01).is_err());")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_fpr(items: usize, fpr: f64) -> Result<Self, $crate::Error> {
                Self::with_fpr_and_hasher(items, fpr, $crate::Xxh3::default())
            }

            /// An empty filter for `items` keys with `bits_per_key` bits each (rounded up to
            /// whole blocks of 256 bits).
            ///
            /// ```
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_bits_per_key(1000, 10.0)?;")]
            /// assert_eq!(filter.num_blocks(), 40);
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_bits_per_key(1000, f64::NAN).is_err());")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_bits_per_key(items: usize, bits_per_key: f64) -> Result<Self, $crate::Error> {
                Self::with_bits_per_key_and_hasher(
                    items,
                    bits_per_key,
                    $crate::Xxh3::default(),
                )
            }

            /// An empty filter of exactly `num_blocks` blocks.
            ///
            /// ```
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_num_blocks(100)?;")]
            /// assert_eq!(filter.num_blocks(), 100);
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_num_blocks(0).is_err());")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_num_blocks(num_blocks: usize) -> Result<Self, $crate::Error> {
                Self::with_num_blocks_and_hasher(num_blocks, $crate::Xxh3::default())
            }
        }

        impl<S> $Type<S> {
            #[doc = concat!("[`", stringify!($Type), "::with_fpr`] with a given hasher.")]
            ///
            /// ```
            /// use splitbloom::{FilterHasher, Xxh3};
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_fpr_and_hasher(1000, 0.01, Xxh3::with_seed(9))?;")]
            /// assert_eq!(filter.hasher().seed(), 9);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_fpr_and_hasher(
                items: usize,
                fpr: f64,
                hasher: S,
            ) -> Result<Self, $crate::Error> {
                Self::with_num_blocks_and_hasher(
                    $crate::math::num_blocks_for_fpr(items, fpr)?,
                    hasher,
                )
            }

            #[doc = concat!("[`", stringify!($Type), "::with_bits_per_key`] with a given hasher.")]
            ///
            /// ```
            /// use splitbloom::Xxh3;
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_bits_per_key_and_hasher(1000, 16.0, Xxh3::default())?;")]
            /// assert_eq!(filter.num_blocks(), 63);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_bits_per_key_and_hasher(
                items: usize,
                bits_per_key: f64,
                hasher: S,
            ) -> Result<Self, $crate::Error> {
                Self::with_num_blocks_and_hasher(
                    $crate::math::num_blocks_for_bits(items, bits_per_key)?,
                    hasher,
                )
            }
        }
    };
}

// `shared_methods!` is given the block size as a literal, for its doc examples.
const _: () = assert!(BLOCK_BYTES == 32);

// First: it defines `read_methods!`, which the other files use.
#[macro_use]
pub(crate) mod view;
#[cfg(target_has_atomic = "32")]
mod atomic;
mod counting;
mod filter_ref;
mod fold;
mod scalable;

#[cfg(target_has_atomic = "32")]
pub use atomic::AtomicFilter;
pub use counting::CountingFilter;
pub use filter_ref::FilterRef;
pub use scalable::{ScalableFilter, ScalableParameters};

/// A split-block Bloom filter: "definitely not in the set" or "probably in the set".
///
/// Keys are hashed with `S` (by default [`Xxh3`]); pre-hashed 64-bit values go through
/// [`insert_hash`](Filter::insert_hash) and [`contains_hash`](Filter::contains_hash). The kernel
/// is chosen once, when the filter is built ([`Kernel::best`]), and never changes the results.
///
/// ```
/// use splitbloom::Filter;
/// let mut filter = Filter::with_fpr(1000, 0.01)?;
/// assert!(!filter.insert("apple"));   // newly inserted
/// assert!(filter.insert("apple"));    // already present
/// assert!(filter.contains("apple"));  // never a false negative
/// assert!(!filter.contains("pear"));  // probably absent (here, certainly)
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct Filter<S = Xxh3> {
    blocks: Blocks,
    kernel: Dispatch,
    hasher: S,
}

shared_methods! {
    type: Filter,
    make: "let filter = splitbloom::Filter::with_num_blocks(8)?;",
    block_bytes: 32,
    constructors: yes,
}

read_methods! {
    type: Filter,
    setup: "let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}",
    note: "Batches run inside the kernel, which on filters of at least half the L2 cache hashes each \
           key and prefetches its block 128 keys before probing it.",
    reader: |filter| filter.view(),
    bytes: yes,
}

impl<S> Filter<S> {
    /// [`Filter::with_num_blocks`] with a given hasher.
    ///
    /// Errors when `num_blocks` is 0 or above [`math::MAX_BLOCKS`], or the allocation fails.
    ///
    /// ```
    /// use splitbloom::{Filter, FilterHasher, Xxh3};
    /// // The default hasher with a seed of one's own.
    /// let filter = Filter::with_num_blocks_and_hasher(8, Xxh3::with_seed(7))?;
    /// assert_eq!((filter.num_blocks(), filter.hasher().seed()), (8, 7));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_num_blocks_and_hasher(num_blocks: usize, hasher: S) -> Result<Self, Error> {
        math::check_num_blocks(num_blocks)?;
        let blocks = Blocks::zeroed(num_blocks).ok_or(Error::AllocationFailed {
            bytes: num_blocks * BLOCK_BYTES,
        })?;
        Ok(Filter {
            blocks,
            kernel: Dispatch::best(),
            hasher,
        })
    }

    /// [`with_kernel`](Filter::with_kernel) in place, for filters held in collections.
    pub(crate) fn set_kernel(&mut self, kernel: Kernel) -> Result<(), Error> {
        self.kernel = Dispatch::new(kernel).ok_or(Error::KernelUnavailable(kernel))?;
        Ok(())
    }

    /// Adds a pre-hashed key; returns `true` when all its bits were already set (the key was
    /// probably present).
    ///
    /// The high 32 bits of `hash` choose the block and the low 32 bits the bits inside it, so
    /// both halves must be well mixed.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(16)?;
    /// assert!(!filter.insert_hash(0x0123_4567_89ab_cdef));
    /// assert!(filter.insert_hash(0x0123_4567_89ab_cdef));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let kernel = self.kernel;
        kernel.insert_hash(self.words_mut(), hash)
    }

    /// Adds every hash of `hashes`, with the loop inside the kernel. On filters of at least half
    /// the L2 cache the loop prefetches each hash's block a few hashes ahead, so the cache misses
    /// of a batch overlap instead of following one another.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(64)?;
    /// filter.insert_hash_batch(&[1 << 40, 2 << 40, 3 << 40]);
    /// assert!(filter.contains_hash(2 << 40));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) {
        let distance = arch::prefetch_distance(self.blocks.len());
        let kernel = self.kernel;
        kernel.insert_keys(self.words_mut(), &PreHashed, hashes, distance);
    }

    /// Clears every bit: the filter is empty again, with the same size.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(4)?;
    /// filter.insert("x");
    /// filter.clear();
    /// assert_eq!(filter.fill_ratio(), 0.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn clear(&mut self) {
        self.blocks.fill(Block::default());
    }

    /// The bitset as `u32` words in native byte order, block after block.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(2)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.as_words().len(), 16);
    /// assert_eq!(filter.as_words().iter().map(|w| w.count_ones()).sum::<u32>(), 8);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn as_words(&self) -> &[u32] {
        bytemuck::cast_slice(&self.blocks)
    }

    /// The read view of the filter: every read goes through it (see [`view`]).
    #[inline(always)]
    pub(crate) fn view(&self) -> View<'_, S> {
        View {
            blocks: self.words(),
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }

    /// The blocks as arrays of lanes, for the kernels.
    pub(crate) fn words(&self) -> &[[u32; LANES]] {
        bytemuck::cast_slice(&self.blocks)
    }

    /// The blocks as mutable arrays of lanes, for the kernels.
    pub(crate) fn words_mut(&mut self) -> &mut [[u32; LANES]] {
        bytemuck::cast_slice_mut(&mut self.blocks)
    }

    /// Keeps the first `num_blocks` blocks (at least one), for folding, in a new allocation of
    /// that size so that the memory of the rest is returned.
    pub(crate) fn truncate_blocks(&mut self, num_blocks: usize) -> Result<(), Error> {
        let num_blocks = num_blocks.clamp(1, self.blocks.len());
        let mut kept = Blocks::zeroed(num_blocks).ok_or(Error::AllocationFailed {
            bytes: num_blocks * BLOCK_BYTES,
        })?;
        kept.copy_from_slice(&self.blocks[..num_blocks]);
        self.blocks = kept;
        Ok(())
    }

    /// Takes the filter apart without copying, for the filter types built on the same blocks.
    #[cfg(target_has_atomic = "32")]
    pub(crate) fn into_parts(self) -> (Blocks, Dispatch, S) {
        (self.blocks, self.kernel, self.hasher)
    }

    /// Puts a filter together from its parts without copying; `blocks` must not be empty.
    pub(crate) fn from_parts(blocks: Blocks, kernel: Dispatch, hasher: S) -> Self {
        debug_assert!(!blocks.is_empty(), "a filter has at least one block");
        Filter {
            blocks,
            kernel,
            hasher,
        }
    }

    /// The fraction of bits that are set, from 0 to 1.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(1)?;
    /// filter.insert_hash(0);
    /// assert_eq!(filter.fill_ratio(), 8.0 / 256.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        self.view().fill_ratio()
    }

    /// The false-positive rate of the filter as it is now: the chance that a random hash lands
    /// on a block whose eight lanes all have its bit set, averaged over blocks. Exact for
    /// uniformly distributed hashes, whatever was inserted.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_bits_per_key(10_000, 10.0)?;
    /// assert_eq!(filter.estimated_fpr(), 0.0);
    /// for key in 0..10_000u64 {
    ///     filter.insert(&key);
    /// }
    /// let predicted = splitbloom::math::false_positive_rate(10.0);
    /// assert!((filter.estimated_fpr() - predicted).abs() < 0.2 * predicted);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        self.view().estimated_fpr()
    }

    /// An estimate of how many distinct keys were inserted, from the fill ratio (see
    /// [`math::keys_per_block_for_fill`]). Accurate to a few percent until the filter is far
    /// past its planned size.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_bits_per_key(10_000, 10.0)?;
    /// for key in 0..10_000u64 {
    ///     filter.insert(&key);
    /// }
    /// assert!((filter.estimated_items() - 10_000.0).abs() < 500.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_items(&self) -> f64 {
        math::keys_per_block_for_fill(self.fill_ratio()) * self.blocks.len() as f64
    }
}

impl<S: BuildHasher> Filter<S> {
    /// Adds `key`; returns `true` when all its bits were already set (it was probably present).
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// assert!(!filter.insert(&42u64));
    /// assert!(filter.insert(&42u64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> bool {
        self.insert_hash(crate::hash::hash_key(&self.hasher, key))
    }
}

impl<S: BuildHasher> Filter<S> {
    /// Adds every key of `keys`. Same result as calling [`insert`](Filter::insert) on each key,
    /// with one call into the kernel for the whole batch; on filters of at least half the L2
    /// cache each key is hashed and its block prefetched 128 keys before it is inserted, so the cache
    /// misses of a batch overlap.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
    /// filter.insert_batch(&["apple", "pear", "plum"]);
    /// assert!(filter.contains("pear"));
    /// filter.insert_batch(&[1u64, 2, 3]);
    /// assert!(filter.contains(&2u64));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_batch<K: Hash>(&mut self, keys: &[K]) {
        let distance = arch::prefetch_distance(self.blocks.len());
        let kernel = self.kernel;
        kernel.insert_keys(
            bytemuck::cast_slice_mut(&mut self.blocks),
            &self.hasher,
            keys,
            distance,
        );
    }
}

/// The byte-key contract: keys given as exactly their bytes, hashed with
/// [`FilterHasher::hash_bytes`], whose framing the [`hash`](crate::hash) module documents so
/// another program can reproduce it. Use these for persisted string and byte keys.
impl<S: FilterHasher> Filter<S> {
    /// Adds the key made of exactly `key`'s bytes; returns `true` when all its bits were
    /// already set.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// assert!(!filter.insert_bytes(b"key"));
    /// assert!(filter.contains_bytes("key".as_bytes()));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        let hash = self.hash_bytes(key);
        self.insert_hash(hash)
    }

    /// Adds every key of `keys` (each exactly its bytes): the result of
    /// [`insert_bytes`](Filter::insert_bytes) on each, through the pre-hashed batch path.
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
    /// filter.insert_bytes_batch(&["apple", "pear"]);
    /// assert!(filter.contains_bytes(b"pear"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) {
        let hasher = self.hasher.clone();
        crate::hash::for_each_hashed_chunk(&hasher, keys, |_, hashes| {
            self.insert_hash_batch(hashes);
        });
    }
}

impl<S: FilterHasher> Filter<S> {
    /// The filter in splitbloom's format (see the [`format`](crate::format) module for the layout).
    ///
    /// ```
    /// use splitbloom::Filter;
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert("key");
    /// let bytes = filter.to_bytes();
    /// let copy: Filter = Filter::from_bytes(&bytes)?;
    /// assert!(copy.contains("key"));
    /// assert_eq!(copy.to_bytes(), bytes);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        self.view().to_bytes()
    }

    /// The length of [`to_bytes`](Filter::to_bytes): 32 bytes of header plus the bitset.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(10)?;
    /// assert_eq!(filter.serialized_len(), 32 + 320);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        HEADER_BYTES + self.size_in_bytes()
    }

    /// Writes [`to_bytes`](Filter::to_bytes) to `writer` without building it in memory first.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(2)?;
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        self.view().write_to(writer)
    }

    /// Reads a filter built with hasher type `S` (named through the type:
    /// `Filter::<ParquetHash>::from_bytes_with_hasher`) into an owned copy;
    /// [`Filter::from_bytes`] is this for the default hasher, without a type annotation.
    ///
    /// `bytes` must hold exactly one filter, built with hasher type `S` (the seed comes from
    /// the bytes). Every problem is an [`Error`]: wrong magic, unknown version or flags,
    /// truncated or over-long input, zero or too many blocks, checksum mismatch, unknown or
    /// unavailable hasher, hasher kind other than `S`'s. Nothing is allocated before the
    /// input has been validated.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, Xxh3};
    /// let bytes = Filter::with_num_blocks_and_hasher(8, Xxh3::default())?.to_bytes();
    /// let filter = Filter::<Xxh3>::from_bytes_with_hasher(&bytes)?;
    /// assert_eq!(filter.num_blocks(), 8);
    /// let mut corrupt = bytes.clone();
    /// corrupt[40] ^= 1;
    /// assert!(matches!(
    ///     Filter::<Xxh3>::from_bytes_with_hasher(&corrupt),
    ///     Err(Error::ChecksumMismatch { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher(bytes: &[u8]) -> Result<Self, Error> {
        let (header, payload) = validate::<S>(bytes)?;
        let mut filter =
            Filter::with_num_blocks_and_hasher(header.num_blocks, S::try_with_seed(header.seed)?)?;
        decode_into(payload, filter.words_mut());
        Ok(filter)
    }
}

/// Adds every key (as [`insert`](Filter::insert)); a filter never refuses a key, it only fills
/// up, so this cannot fail.
///
/// ```
/// let mut filter = splitbloom::Filter::with_fpr(1000, 0.01)?;
/// filter.extend(0..100u64);
/// filter.extend(&["apple", "pear"]);
/// assert!(filter.contains(&99u64) && filter.contains("pear"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: BuildHasher, K: Hash> Extend<K> for Filter<S> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        for key in keys {
            self.insert(&key);
        }
    }
}

/// A filter of every key, sized for exactly their number at a false-positive rate of 1%
/// ([`Filter::with_fpr`]`(n, 0.01)`, about 10.5 bits per key): the keys are collected into a
/// `Vec` first, to count them. For another rate, build with [`Filter::with_fpr`] and
/// [`extend`](Extend::extend).
///
/// An empty iterator gives a one-block filter. Beyond [`math::MAX_BLOCKS`] blocks (about
/// 4 · 10^11 keys) the filter is capped at that size: fuller, never missing a key.
///
/// ```
/// let filter: splitbloom::Filter = (0..10_000u64).collect();
/// assert_eq!(filter.num_blocks(), splitbloom::math::num_blocks_for_fpr(10_000, 0.01)?);
/// assert!(filter.contains(&1234u64));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<K: Hash> FromIterator<K> for Filter {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let keys: Vec<K> = keys.into_iter().collect();
        let num_blocks =
            math::num_blocks_for_fpr(keys.len().max(1), 0.01).unwrap_or(math::MAX_BLOCKS);
        let blocks = Blocks::zeroed_or_abort(num_blocks);
        let mut filter = Filter::from_parts(blocks, Dispatch::best(), Xxh3::default());
        filter.insert_batch(&keys);
        filter
    }
}

impl Filter {
    /// Reads a filter written by [`to_bytes`](Filter::to_bytes) with the default hasher into an
    /// owned copy, with every check of
    /// [`from_bytes_with_hasher`](Filter::from_bytes_with_hasher) (which reads filters of other
    /// hashers). No type annotation is needed.
    ///
    /// ```
    /// use splitbloom::{Error, Filter};
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert("key");
    /// let copy = Filter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(matches!(Filter::from_bytes(b"SBLM"), Err(Error::Truncated { .. })));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Filter, Error> {
        Filter::from_bytes_with_hasher(bytes)
    }
}

/// Filters are equal when they hold the same bits and the same hasher; the kernel is not
/// compared, since it never changes answers.
///
/// ```
/// use splitbloom::{Filter, Kernel};
/// let mut a = Filter::with_num_blocks(8)?;
/// let mut b = Filter::with_num_blocks(8)?.with_kernel(Kernel::Scalar)?;
/// a.insert("k");
/// b.insert("k");
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for Filter<S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher && self.blocks == other.blocks
    }
}

impl<S: Eq> Eq for Filter<S> {}

/// Shows the shape and statistics, not the bits.
///
/// ```
/// let filter = splitbloom::Filter::with_num_blocks(2)?;
/// assert!(format!("{filter:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for Filter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter")
            .field("num_blocks", &self.blocks.len())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .field("fill_ratio", &self.fill_ratio())
            .finish()
    }
}

// Compile-time check that filters can be shared between threads with any such hasher.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Filter>();
};
