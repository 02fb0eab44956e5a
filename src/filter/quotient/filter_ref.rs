//! [`QuotientFilterRef`]: a read-only quotient filter answering straight from serialized bytes,
//! and [`QuotientFilter`]'s readers of the same bytes.

use core::fmt;

use super::view::{QuotientView, quotient_methods};
use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::QuotientFilter;
use crate::format::validate_quotient;
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::TagBits;
use crate::layout::quotient::{Block, QuotientBlock};
use crate::storage::Blocks;

/// A read-only [`QuotientFilter`] answering straight from serialized bytes (an mmap'd file, a
/// cache entry, a Redis reply) without copying them: the same answers, through the same
/// kernels.
///
/// A block is read as its bytes, so the view needs no alignment and reads in place on every
/// host. Reading checks every byte: the header, the length, the checksum and every block's
/// metadata, without allocating.
///
/// ```
/// use splitbloom::{QuotientFilter, QuotientFilterRef};
/// let mut filter = QuotientFilter::with_fpr(1000, 0.01)?;
/// filter.insert("key")?;
/// let bytes = filter.to_bytes();
/// let view = QuotientFilterRef::from_bytes(&bytes)?;
/// assert!(view.contains("key"));
/// assert_eq!(view.len(), 1);
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct QuotientFilterRef<'a, S = Xxh3> {
    blocks: &'a [Block],
    tag_bits: TagBits,
    len: usize,
    kernel: Dispatch,
    hasher: S,
}

impl<'a> QuotientFilterRef<'a> {
    /// [`from_bytes_with_hasher_type`](QuotientFilterRef::from_bytes_with_hasher_type) for the
    /// default hasher, without a type annotation.
    ///
    /// ```
    /// let bytes = splitbloom::QuotientFilter::with_fpr(100, 0.01)?.to_bytes();
    /// let view = splitbloom::QuotientFilterRef::from_bytes(&bytes)?;
    /// assert!(view.is_empty());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        QuotientFilterRef::from_bytes_with_hasher_type(bytes)
    }
}

impl<'a, S: FilterHasher> QuotientFilterRef<'a, S> {
    /// Validates `bytes` as one serialized quotient filter built with the hasher type `S` (the
    /// seed comes from the bytes) and views them in place. Every problem is an [`Error`]: wrong
    /// magic, version, layout or length, checksum mismatch, an unknown, unavailable or other
    /// hasher, or a block whose metadata describes more tags than slots, tags outside its
    /// buckets or non-zero free slots ([`Error::InvalidQuotientBlock`]). Nothing is allocated.
    ///
    /// ```
    /// use splitbloom::{Error, QuotientFilter, QuotientFilterRef, Xxh3};
    /// let mut bytes = QuotientFilter::with_fpr(100, 0.01)?.to_bytes();
    /// bytes[40] ^= 1;
    /// assert!(matches!(
    ///     QuotientFilterRef::<Xxh3>::from_bytes_with_hasher_type(&bytes),
    ///     Err(Error::ChecksumMismatch { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &'a [u8]) -> Result<Self, Error> {
        let record = validate_quotient::<S>(bytes)?;
        Ok(QuotientFilterRef {
            blocks: record.blocks,
            tag_bits: record.tag_bits,
            len: record.len,
            kernel: Dispatch::best(),
            hasher: S::try_with_seed(record.header.seed)?,
        })
    }

    /// An owned, writable copy.
    ///
    /// ```
    /// let bytes = splitbloom::QuotientFilter::with_fpr(100, 0.01)?.to_bytes();
    /// let view = splitbloom::QuotientFilterRef::from_bytes(&bytes)?;
    /// let mut filter = view.to_filter()?;
    /// filter.insert("new")?;
    /// assert!(filter.contains("new") && !view.contains("new"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_filter(&self) -> Result<QuotientFilter<S>, Error> {
        let mut filter = owned_copy(self.blocks, self.tag_bits, self.len, self.hasher.clone())?;
        filter.set_kernel(self.kernel);
        Ok(filter)
    }
}

/// An owned filter holding a copy of validated `blocks`.
fn owned_copy<S>(
    blocks: &[Block],
    tag_bits: TagBits,
    len: usize,
    hasher: S,
) -> Result<QuotientFilter<S>, Error> {
    let mut storage: Blocks<QuotientBlock> =
        Blocks::zeroed(blocks.len()).ok_or(Error::AllocationFailed {
            bytes: core::mem::size_of_val(blocks),
        })?;
    for (to, from) in storage.iter_mut().zip(blocks) {
        to.0 = *from;
    }
    Ok(QuotientFilter::from_parts(storage, tag_bits, len, hasher))
}

impl<S: FilterHasher> QuotientFilter<S> {
    /// Reads a filter built with the hasher type `S`, named as the type parameter
    /// (`QuotientFilter::<ParquetHash>::from_bytes_with_hasher_type`), into an owned copy,
    /// with every check of [`QuotientFilterRef::from_bytes_with_hasher_type`]; nothing is
    /// allocated before the bytes are validated. [`QuotientFilter::from_bytes`] is this for
    /// the default hasher.
    ///
    /// ```
    /// use splitbloom::{QuotientFilter, TagBits, parquet::ParquetHash};
    /// let filter = QuotientFilter::with_num_blocks_and_hasher(8, TagBits::Sixteen, ParquetHash::default())?;
    /// let copy = QuotientFilter::<ParquetHash>::from_bytes_with_hasher_type(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &[u8]) -> Result<Self, Error> {
        let record = validate_quotient::<S>(bytes)?;
        let hasher = S::try_with_seed(record.header.seed)?;
        owned_copy(record.blocks, record.tag_bits, record.len, hasher)
    }
}

impl QuotientFilter {
    /// Reads a filter written by [`to_bytes`](QuotientFilter::to_bytes) with the default
    /// hasher into an owned copy, with every check of
    /// [`from_bytes_with_hasher_type`](QuotientFilter::from_bytes_with_hasher_type).
    ///
    /// ```
    /// use splitbloom::{Error, QuotientFilter};
    /// let mut filter = QuotientFilter::with_fpr(1000, 0.01)?;
    /// filter.insert("key")?;
    /// let copy = QuotientFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(matches!(QuotientFilter::from_bytes(b"SBLM"), Err(Error::Truncated { .. })));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<QuotientFilter, Error> {
        QuotientFilter::from_bytes_with_hasher_type(bytes)
    }
}

impl<S> QuotientFilterRef<'_, S> {
    /// The read view: every read goes through it.
    #[inline(always)]
    fn view(&self) -> QuotientView<'_, S> {
        QuotientView {
            blocks: self.blocks,
            tag_bits: self.tag_bits,
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }
}

/// The text of the doc examples: a view of a filter holding `"apple"` twice and `"pear"` once.
macro_rules! quotient_ref_setup {
    () => {
        "let mut source = splitbloom::QuotientFilter::with_fpr(100, 0.01)?;
source.insert(\"apple\")?;
source.insert_copy_bytes(b\"apple\")?;
source.insert_bytes(b\"pear\")?;
let bytes = source.to_bytes();
let filter = splitbloom::QuotientFilterRef::from_bytes(&bytes)?;"
    };
}

read_methods! {
    type: {S} QuotientFilterRef {'_, S},
    setup: quotient_ref_setup!(),
    note: "The same answers as the [`QuotientFilter`] that was serialized, through the same kernels.",
    reader: |filter| filter.view(),
    bytes: yes,
}

quotient_methods!(QuotientFilterRef<'_>, quotient_ref_setup!());

shared_methods!(@accessors {S} QuotientFilterRef {'_, S}, "let bytes = splitbloom::QuotientFilter::with_num_blocks(8, splitbloom::TagBits::Eight)?.to_bytes();
let filter = splitbloom::QuotientFilterRef::from_bytes(&bytes)?;", 64);

/// Equal when they view the same tags with the same hasher, as [`QuotientFilter`]'s `==`.
///
/// ```
/// let bytes = splitbloom::QuotientFilter::with_fpr(100, 0.01)?.to_bytes();
/// let a = splitbloom::QuotientFilterRef::from_bytes(&bytes)?;
/// assert_eq!(a, a.clone());
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for QuotientFilterRef<'_, S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher
            && self.tag_bits == other.tag_bits
            && self.blocks == other.blocks
    }
}

/// Shows the shape and load, not the tags.
///
/// ```
/// let bytes = splitbloom::QuotientFilter::with_num_blocks(2, splitbloom::TagBits::Eight)?.to_bytes();
/// let view = splitbloom::QuotientFilterRef::from_bytes(&bytes)?;
/// assert!(format!("{view:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for QuotientFilterRef<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuotientFilterRef")
            .field("num_blocks", &self.blocks.len())
            .field("tag_bits", &self.tag_bits)
            .field("len", &self.len)
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .finish()
    }
}

// Compile-time check that views can be shared between threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<QuotientFilterRef<'static>>();
};
