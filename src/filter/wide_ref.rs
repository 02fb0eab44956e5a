//! [`WideFilterRef`]: a read-only [`WideFilter`] answering straight from serialized bytes,
//! without copying them, through the same `WideView` as the owned filter.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;

use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::WideFilter;
use crate::filter::view::WideView;
use crate::format::{Header, checked_length, validate_layout, view_wide_payload};
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::Layout;
use crate::layout::wide::WORDS;

/// A read-only [`WideFilter`] answering straight from serialized bytes (an mmap'd file, a
/// block-cache entry) without copying them.
///
/// It answers exactly like the [`WideFilter`] that was serialized, through the same kernels and
/// the same read code. Bytes are viewed in place when the host is little-endian and the bitset
/// is 8-byte aligned (always, when the buffer is: the header is 32 bytes); otherwise they are
/// copied once, which [`is_zero_copy`](WideFilterRef::is_zero_copy) reports.
///
/// ```
/// use splitbloom::{WideFilter, WideFilterRef};
/// let mut filter = WideFilter::with_fpr(1000, 1e-5)?;
/// filter.insert("key");
/// let bytes = filter.to_bytes();
/// let view: WideFilterRef = WideFilterRef::from_bytes(&bytes)?;
/// assert!(view.contains("key"));
/// assert_eq!((view.num_blocks(), view.probes()), (filter.num_blocks(), filter.probes()));
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone)]
pub struct WideFilterRef<'a, S = Xxh3> {
    blocks: Cow<'a, [[u64; WORDS]]>,
    probes: u8,
    kernel: Dispatch,
    hasher: S,
}

impl<S> WideFilterRef<'_, S> {
    /// The read view: every read goes through it (see `filter::view`).
    #[inline(always)]
    fn view(&self) -> WideView<'_, S> {
        WideView {
            blocks: &self.blocks,
            probes: self.probes,
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }
}

impl<'a> WideFilterRef<'a> {
    /// [`from_bytes_with_hasher_type`](WideFilterRef::from_bytes_with_hasher_type) for the
    /// default hasher, without a type annotation.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(64, 2)?.to_bytes();
    /// let view = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.num_blocks(), 64);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        WideFilterRef::from_bytes_with_hasher_type(bytes)
    }

    /// [`from_trusted_bytes_with_hasher_type`](WideFilterRef::from_trusted_bytes_with_hasher_type)
    /// for the default hasher, without a type annotation.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(3, 1)?.to_bytes();
    /// let view = splitbloom::WideFilterRef::from_trusted_bytes(&bytes)?;
    /// assert_eq!(view.num_blocks(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_trusted_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        WideFilterRef::from_trusted_bytes_with_hasher_type(bytes)
    }
}

impl<'a, S: FilterHasher> WideFilterRef<'a, S> {
    /// Validates `bytes` like [`WideFilter::from_bytes_with_hasher_type`] (checksum included)
    /// and views them, for a wide filter built with the hasher type `S` (the seed comes from
    /// the bytes).
    ///
    /// ```
    /// use splitbloom::{Error, Filter, WideFilterRef, Xxh3};
    /// let split = Filter::with_num_blocks(2)?.to_bytes();
    /// assert!(matches!(
    ///     WideFilterRef::<Xxh3>::from_bytes_with_hasher_type(&split),
    ///     Err(Error::LayoutMismatch { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &'a [u8]) -> Result<Self, Error> {
        let (header, payload) = validate_layout::<S>(bytes, Layout::Wide)?;
        Self::from_parts(&header, payload)
    }

    /// Views bytes the caller has already verified, without the checksum pass of
    /// [`from_bytes`](WideFilterRef::from_bytes): O(1) on a little-endian host with an 8-byte
    /// aligned buffer.
    ///
    /// The header is still fully checked (magic, version, layout, shape, hasher) and the length
    /// must match it exactly, so this never panics, never reads out of bounds and never
    /// allocates more than the input; on corrupted bitset bytes the answers may be wrong,
    /// false negatives included.
    ///
    /// ```
    /// use splitbloom::{WideFilter, WideFilterRef, Xxh3};
    /// let mut filter = WideFilter::with_fpr(1000, 1e-4)?;
    /// filter.insert_bytes(b"key");
    /// let bytes = filter.to_bytes();
    /// let mut corrupt = bytes.clone();
    /// corrupt[40] ^= 1;
    /// assert!(WideFilterRef::<Xxh3>::from_trusted_bytes(&corrupt).is_ok());
    /// assert!(WideFilterRef::<Xxh3>::from_bytes(&corrupt).is_err());
    /// assert!(WideFilterRef::<Xxh3>::from_trusted_bytes(&bytes[..40]).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_trusted_bytes_with_hasher_type(bytes: &'a [u8]) -> Result<Self, Error> {
        let header = Header::parse(bytes)?;
        let payload = checked_length(&header, bytes)?;
        header.check_layout(Layout::Wide)?;
        header.check_hasher::<S>()?;
        Self::from_parts(&header, payload)
    }

    /// A view of a validated wide bitset on the best kernel.
    fn from_parts(header: &Header, payload: &'a [u8]) -> Result<Self, Error> {
        Ok(WideFilterRef {
            blocks: view_wide_payload(payload)?,
            probes: header.probes,
            kernel: Dispatch::best(),
            hasher: S::try_with_seed(header.seed)?,
        })
    }

    /// Re-serializes the view: the same bytes it was read from.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(64, 2)?.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.to_bytes(), bytes);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        self.view().to_bytes()
    }

    /// Writes [`to_bytes`](WideFilterRef::to_bytes) to `writer`.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(2, 1)?.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// let mut out = Vec::new();
    /// view.write_to(&mut out)?;
    /// assert_eq!(out, bytes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        self.view().write_to(writer)
    }

    /// An owned, mutable copy, on the view's kernel.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(64, 2)?.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// let mut filter = view.to_wide_filter()?;
    /// filter.insert("new");
    /// assert!(filter.contains("new"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_wide_filter(&self) -> Result<WideFilter<S>, Error> {
        WideFilter::from_words(&self.blocks, self.probes, self.hasher.clone())?
            .with_kernel(self.kernel())
    }
}

read_methods! {
    type: WideFilterRef<'_>,
    setup: "let mut source = splitbloom::WideFilter::with_fpr(100, 1e-4)?;
for key in [\"apple\", \"pear\"] {
    source.insert(key);
    source.insert_bytes(key.as_bytes());
}
let bytes = source.to_bytes();
let filter: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;",
    note: "The same answers as the [`WideFilter`] that was serialized, through the same kernels.",
    reader: |filter| filter.view(),
    bytes: yes,
}

impl<S> WideFilterRef<'_, S> {
    /// Whether the view reads the caller's bytes in place (`false`: they were copied, because
    /// the bitset was not 8-byte aligned or the host is big-endian).
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(2, 1)?.to_bytes(); // a Vec: aligned
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.is_zero_copy(), cfg!(target_endian = "little"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn is_zero_copy(&self) -> bool {
        matches!(self.blocks, Cow::Borrowed(_))
    }

    /// The blocks each key sets its bits in: 1 or 2.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(64, 2)?.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.probes(), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn probes(&self) -> u8 {
        self.probes
    }

    /// The fraction of bits that are set, from 0 to 1, as [`WideFilter::fill_ratio`].
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_num_blocks(1, 1)?;
    /// filter.insert_hash(7);
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.fill_ratio(), 8.0 / 512.0);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn fill_ratio(&self) -> f64 {
        self.view().fill_ratio()
    }

    /// The false-positive rate of the viewed filter, as [`WideFilter::estimated_fpr`].
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(1000, 1e-4)?;
    /// filter.insert_batch(&(0..1000u64).collect::<Vec<_>>());
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.estimated_fpr(), filter.estimated_fpr());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        self.view().estimated_fpr()
    }

    /// Distinct keys estimated from the fill, as [`WideFilter::estimated_items`].
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_fpr(1000, 1e-4)?;
    /// filter.insert_batch(&(0..1000u64).collect::<Vec<_>>());
    /// let bytes = filter.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.estimated_items(), filter.estimated_items());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_items(&self) -> f64 {
        self.view().estimated_items()
    }
}

/// Equal when they view the same bits with the same probes and hasher.
///
/// ```
/// let bytes = splitbloom::WideFilter::with_num_blocks(2, 1)?.to_bytes();
/// let a: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
/// let b: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_trusted_bytes(&bytes)?;
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq> PartialEq for WideFilterRef<'_, S> {
    fn eq(&self, other: &Self) -> bool {
        self.probes == other.probes && self.hasher == other.hasher && self.blocks == other.blocks
    }
}

/// Shows the shape, not the bits.
///
/// ```
/// let bytes = splitbloom::WideFilter::with_num_blocks(64, 2)?.to_bytes();
/// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
/// assert!(format!("{view:?}").contains("probes: 2"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: fmt::Debug> fmt::Debug for WideFilterRef<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WideFilterRef")
            .field("num_blocks", &self.blocks.len())
            .field("probes", &self.probes)
            .field("zero_copy", &self.is_zero_copy())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .finish()
    }
}

shared_methods!(@accessors WideFilterRef<'_>, "let bytes = splitbloom::WideFilter::with_num_blocks(8, 1)?.to_bytes();
let filter: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;", 64);

// Compile-time check that views can be shared between threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<WideFilterRef<'static>>();
};
