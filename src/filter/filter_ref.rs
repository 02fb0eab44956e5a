//! [`FilterRef`]: a read-only filter answering straight from serialized bytes, without copying
//! them.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;

use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::Filter;
use crate::filter::view::View;
use crate::format::{Header, checked_length, validate, view_payload};
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::Layout;
use crate::layout::split_block::LANES;

/// A read-only filter answering straight from serialized bytes (an mmap'd file, a block-cache
/// entry) without copying them.
///
/// It answers exactly like the [`Filter`] that was serialized, with the same kernels and the
/// same lookup code. Bytes are viewed in place when the host is little-endian and the bitset
/// is 4-byte aligned (always, when the buffer is: the header is 32 bytes); otherwise they are
/// copied once, which [`is_zero_copy`](FilterRef::is_zero_copy) reports.
///
/// ```
/// use splitbloom::{Filter, FilterRef};
/// let mut filter = Filter::with_fpr(1000, 0.01)?;
/// filter.insert("key");
/// let bytes = filter.to_bytes();
/// let view: FilterRef = FilterRef::from_bytes(&bytes)?;
/// assert!(view.contains("key"));
/// assert_eq!(view.num_blocks(), filter.num_blocks());
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct FilterRef<'a, S = Xxh3> {
    blocks: Cow<'a, [[u32; LANES]]>,
    kernel: Dispatch,
    hasher: S,
}

impl<'a, S> FilterRef<'a, S> {
    /// A view of validated blocks with `hasher`, on the best kernel.
    pub(crate) fn from_parts(blocks: Cow<'a, [[u32; LANES]]>, hasher: S) -> Self {
        FilterRef {
            blocks,
            kernel: Dispatch::best(),
            hasher,
        }
    }

    /// The read view: every read goes through it (see [`view`](crate::filter::view)).
    #[inline(always)]
    fn view(&self) -> View<'_, S> {
        View {
            blocks: &self.blocks,
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }

    /// The same view owning a copy of its blocks, for readers whose input does not outlive
    /// them (`serde` formats that lend no bytes).
    #[cfg(feature = "serde")]
    pub(crate) fn into_owned(self) -> FilterRef<'static, S> {
        FilterRef {
            blocks: Cow::Owned(self.blocks.into_owned()),
            kernel: self.kernel,
            hasher: self.hasher,
        }
    }
}

impl<'a> FilterRef<'a> {
    /// [`from_bytes_with_hasher_type`](FilterRef::from_bytes_with_hasher_type) for the default
    /// hasher:
    /// validates `bytes` (checksum included) and views them, without a type annotation.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.num_blocks(), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        FilterRef::from_bytes_with_hasher_type(bytes)
    }

    /// [`from_trusted_bytes_with_hasher_type`](FilterRef::from_trusted_bytes_with_hasher_type) for the
    /// default hasher, without a type annotation.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view = splitbloom::FilterRef::from_trusted_bytes(&bytes)?;
    /// assert_eq!(view.num_blocks(), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_trusted_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        FilterRef::from_trusted_bytes_with_hasher_type(bytes)
    }
}

impl<'a, S: FilterHasher> FilterRef<'a, S> {
    /// Validates `bytes` like [`Filter::from_bytes_with_hasher_type`] (checksum included) and
    /// views them, for a filter built with the hasher type `S`, named as the type parameter
    /// (the seed comes from the bytes); [`FilterRef::from_bytes`] is this for the
    /// default hasher, without a type annotation.
    ///
    /// ```
    /// use splitbloom::{Error, FilterRef, parquet::ParquetHash};
    /// assert!(matches!(
    ///     FilterRef::<ParquetHash>::from_bytes_with_hasher_type(b"not a filter"),
    ///     Err(Error::WrongMagic { .. })
    /// ));
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &'a [u8]) -> Result<Self, Error> {
        let (header, payload) = validate::<S>(bytes)?;
        Ok(FilterRef::from_parts(
            view_payload(payload)?,
            S::try_with_seed(header.seed)?,
        ))
    }

    /// Views bytes the caller has already verified (e.g. a block cache that checksums its
    /// blocks), without the checksum pass of [`from_bytes`](FilterRef::from_bytes): O(1) on a
    /// little-endian host with a 4-byte aligned buffer (the bitset is read in place), instead
    /// of reading every byte.
    ///
    /// The header is still fully checked (magic, version, flags, hasher, block count) and the
    /// length must match it exactly, so this never panics, never reads out of bounds and never
    /// allocates more than the input. What is skipped is the proof that the bitset is the one
    /// that was written: on corrupted bytes the answers may be wrong, false negatives
    /// included. Use [`from_bytes`](FilterRef::from_bytes) for bytes from disk or network
    /// that nothing else verified.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, FilterRef};
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert_bytes(b"key");
    /// let bytes = filter.to_bytes();
    /// let view: FilterRef = FilterRef::from_trusted_bytes(&bytes)?;
    /// assert!(view.contains_bytes(b"key"));
    /// // The header and length are still checked; the bitset is not.
    /// assert!(matches!(FilterRef::<splitbloom::Xxh3>::from_trusted_bytes(&bytes[..40]), Err(Error::Truncated { .. })));
    /// let mut corrupt = bytes.clone();
    /// corrupt[40] ^= 1;
    /// assert!(FilterRef::<splitbloom::Xxh3>::from_trusted_bytes(&corrupt).is_ok());
    /// assert!(FilterRef::<splitbloom::Xxh3>::from_bytes(&corrupt).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_trusted_bytes_with_hasher_type(bytes: &'a [u8]) -> Result<Self, Error> {
        let header = Header::parse(bytes)?;
        let payload = checked_length(&header, bytes)?;
        header.check_layout(Layout::SplitBlock)?;
        header.check_hasher::<S>()?;
        Ok(FilterRef::from_parts(
            view_payload(payload)?,
            S::try_with_seed(header.seed)?,
        ))
    }

    /// Re-serializes the view: the same bytes it was read from.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.to_bytes(), bytes);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        self.view().to_bytes()
    }

    /// An owned, mutable copy.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// let mut filter = view.to_filter()?;
    /// filter.insert("new");
    /// assert!(filter.contains("new"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_filter(&self) -> Result<Filter<S>, Error> {
        let mut filter =
            Filter::with_num_blocks_and_hasher(self.blocks.len(), self.hasher.clone())?
                .with_kernel(self.kernel())?;
        filter.words_mut().copy_from_slice(&self.blocks);
        Ok(filter)
    }
}

read_methods! {
    type: FilterRef<'_>,
    setup: "let mut source = splitbloom::Filter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    source.insert(key);
    source.insert_bytes(key.as_bytes());
}
let bytes = source.to_bytes();
let filter: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;",
    note: "The same answers as the [`Filter`] that was serialized, through the same kernels.",
    reader: |filter| filter.view(),
    bytes: yes,
}

impl<S> FilterRef<'_, S> {
    /// Whether the view reads the caller's bytes in place (`false`: they were copied, because
    /// the bitset was not 4-byte aligned or the host is big-endian).
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes(); // a Vec: aligned
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.is_zero_copy(), cfg!(target_endian = "little"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn is_zero_copy(&self) -> bool {
        matches!(self.blocks, Cow::Borrowed(_))
    }

    /// The fraction of bits that are set, from 0 to 1 (see [`Filter::fill_ratio`]).
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(3)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.fill_ratio(), 0.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        self.view().fill_ratio()
    }

    /// The false-positive rate of the filter as it is (see [`Filter::estimated_fpr`]).
    ///
    /// ```
    /// let mut filter = splitbloom::Filter::with_num_blocks(3)?;
    /// filter.insert("x");
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.estimated_fpr(), filter.estimated_fpr());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        self.view().estimated_fpr()
    }
}

impl<S: FilterHasher> FilterRef<'_, S> {
    /// Writes [`to_bytes`](FilterRef::to_bytes) to `writer`.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// let mut out = Vec::new();
    /// view.write_to(&mut out)?;
    /// assert_eq!(out, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        self.view().write_to(writer)
    }
}

/// Equal when they view the same bits with the same hasher, as [`Filter`]'s `==`.
///
/// ```
/// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
/// let a: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
/// let b: splitbloom::FilterRef = splitbloom::FilterRef::from_trusted_bytes(&bytes)?;
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for FilterRef<'_, S> {
    fn eq(&self, other: &Self) -> bool {
        self.hasher == other.hasher && self.blocks == other.blocks
    }
}

/// Shows the shape and statistics, not the bits.
///
/// ```
/// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
/// let view: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
/// assert!(format!("{view:?}").contains("num_blocks: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for FilterRef<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterRef")
            .field("num_blocks", &self.blocks.len())
            .field("zero_copy", &self.is_zero_copy())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .field("fill_ratio", &self.fill_ratio())
            .finish()
    }
}

shared_methods!(@accessors FilterRef<'_>, "let bytes = splitbloom::Filter::with_num_blocks(8)?.to_bytes();
let filter: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;", 32);

// Compile-time check that views can be shared between threads (e.g. one mmap'd file probed by
// many readers).
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FilterRef<'static>>();
};
