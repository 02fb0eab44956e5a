//! [`BloomFilterRef`]: a read-only filter of any [`Layout`] answering straight from serialized
//! bytes, without copying them; [`FilterRef`] and [`WideFilterRef`] are its two layouts.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::fmt;

use crate::arch::Dispatch;
use crate::error::Error;
use crate::filter::view::View;
use crate::filter::{BloomFilter, Layout};
use crate::format::{Header, checked_length, validate, view_payload};
use crate::hash::{FilterHasher, Xxh3};
use crate::layout::split_block::SplitBlock;
use crate::layout::wide::Wide;

/// A read-only filter answering straight from serialized bytes (an mmap'd file, a block-cache
/// entry) without copying them, its bits laid out by `L`: [`FilterRef`] and [`WideFilterRef`]
/// are its two names.
///
/// It answers exactly like the [`BloomFilter`] that was serialized, with the same kernels and
/// the same lookup code. Bytes are viewed in place when the host is little-endian and the
/// bitset is aligned to its words (4 bytes for a [`FilterRef`], 8 for a [`WideFilterRef`]:
/// always, when the buffer is, since the header is 32 bytes); otherwise they are copied once,
/// which [`is_zero_copy`](BloomFilterRef::is_zero_copy) reports.
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
pub struct BloomFilterRef<'a, S = Xxh3, L: Layout = SplitBlock> {
    blocks: Cow<'a, [L::Block]>,
    layout: L,
    kernel: Dispatch,
    hasher: S,
}

/// A read-only [`Filter`](crate::Filter) answering from its serialized bytes in place. See
/// [`BloomFilterRef`] for its methods.
///
/// ```
/// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
/// let view = splitbloom::FilterRef::from_bytes(&bytes)?;
/// assert_eq!(view.num_blocks(), 2);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub type FilterRef<'a, S = Xxh3> = BloomFilterRef<'a, S, SplitBlock>;

/// A read-only [`WideFilter`](crate::WideFilter) answering from its serialized bytes in place.
/// See [`BloomFilterRef`] for its methods.
///
/// ```
/// use splitbloom::{Layout, WideFilter, WideFilterRef};
/// let mut filter = WideFilter::with_fpr(1000, 1e-5)?;
/// filter.insert("key");
/// let bytes = filter.to_bytes();
/// let view: WideFilterRef = WideFilterRef::from_bytes(&bytes)?;
/// assert!(view.contains("key"));
/// assert_eq!(view.layout().probes(), filter.layout().probes());
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub type WideFilterRef<'a, S = Xxh3> = BloomFilterRef<'a, S, Wide>;

impl<'a, S, L: Layout> BloomFilterRef<'a, S, L> {
    /// The read view: every read goes through it (see `filter::view`).
    #[inline(always)]
    fn view(&self) -> View<'_, S, L> {
        View {
            blocks: &self.blocks,
            layout: self.layout,
            kernel: self.kernel,
            hasher: &self.hasher,
        }
    }

    /// A view of validated blocks of `layout` with `hasher`, on the best kernel.
    pub(crate) fn from_parts(blocks: Cow<'a, [L::Block]>, layout: L, hasher: S) -> Self {
        BloomFilterRef {
            blocks,
            layout,
            kernel: Dispatch::best(),
            hasher,
        }
    }

    /// The same view owning a copy of its blocks, for readers whose input does not outlive
    /// them (`serde` formats that lend no bytes).
    #[cfg(feature = "serde")]
    pub(crate) fn into_owned(self) -> BloomFilterRef<'static, S, L> {
        BloomFilterRef {
            blocks: Cow::Owned(self.blocks.into_owned()),
            layout: self.layout,
            kernel: self.kernel,
            hasher: self.hasher,
        }
    }
}

impl<'a, L: Layout> BloomFilterRef<'a, Xxh3, L> {
    /// [`from_bytes_with_hasher_type`](BloomFilterRef::from_bytes_with_hasher_type) for the
    /// default hasher: validates `bytes` (checksum included) and views them, without a type
    /// annotation.
    ///
    /// ```
    /// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
    /// let view = splitbloom::FilterRef::from_bytes(&bytes)?;
    /// assert_eq!(view.num_blocks(), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher_type(bytes)
    }

    /// [`from_trusted_bytes_with_hasher_type`](BloomFilterRef::from_trusted_bytes_with_hasher_type)
    /// for the default hasher, without a type annotation.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(3, 1)?.to_bytes();
    /// let view = splitbloom::WideFilterRef::from_trusted_bytes(&bytes)?;
    /// assert_eq!(view.num_blocks(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_trusted_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::from_trusted_bytes_with_hasher_type(bytes)
    }
}

impl<'a, S: FilterHasher, L: Layout> BloomFilterRef<'a, S, L> {
    /// Validates `bytes` like [`BloomFilter::from_bytes_with_hasher_type`] (checksum included)
    /// and views them, for a filter of this layout built with the hasher type `S`, named as
    /// the type parameter (the seed comes from the bytes);
    /// [`from_bytes`](BloomFilterRef::from_bytes) is this for the default hasher, without a
    /// type annotation.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, FilterRef, WideFilterRef, Xxh3, parquet::ParquetHash};
    /// assert!(matches!(
    ///     FilterRef::<ParquetHash>::from_bytes_with_hasher_type(b"not a filter"),
    ///     Err(Error::WrongMagic { .. })
    /// ));
    /// let split = Filter::with_num_blocks(2)?.to_bytes();
    /// assert!(matches!(
    ///     WideFilterRef::<Xxh3>::from_bytes_with_hasher_type(&split),
    ///     Err(Error::LayoutMismatch { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &'a [u8]) -> Result<Self, Error> {
        let (header, payload) = validate(bytes)?;
        Self::from_validated(&header, payload)
    }

    /// Views bytes the caller has already verified (e.g. a block cache that checksums its
    /// blocks), without the checksum pass of [`from_bytes`](BloomFilterRef::from_bytes): O(1)
    /// on a little-endian host with a buffer aligned to the words (the bitset is read in
    /// place), instead of reading every byte.
    ///
    /// The header is still fully checked (magic, version, layout, shape, hasher, block count)
    /// and the length must match it exactly, so this never panics, never reads out of bounds
    /// and never allocates more than the input. What is skipped is the proof that the bitset
    /// is the one that was written: on corrupted bytes the answers may be wrong, false
    /// negatives included. Use [`from_bytes`](BloomFilterRef::from_bytes) for bytes from disk
    /// or network that nothing else verified.
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
        Self::from_validated(&header, payload)
    }

    /// A view of a bitset whose header and length are validated, once its layout and hasher
    /// match this type's, on the best kernel.
    fn from_validated(header: &Header, payload: &'a [u8]) -> Result<Self, Error> {
        let layout = L::from_header(header)?;
        header.check_hasher::<S>()?;
        let hasher = S::try_with_seed(header.seed)?;
        Ok(Self::from_parts(
            view_payload(payload, L::WORD_BYTES)?,
            layout,
            hasher,
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

    /// Writes [`to_bytes`](BloomFilterRef::to_bytes) to `writer`.
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

    /// An owned, mutable copy, on the view's kernel.
    ///
    /// ```
    /// let bytes = splitbloom::WideFilter::with_num_blocks(64, 2)?.to_bytes();
    /// let view: splitbloom::WideFilterRef = splitbloom::WideFilterRef::from_bytes(&bytes)?;
    /// let mut filter = view.to_filter()?;
    /// filter.insert("new");
    /// assert!(filter.contains("new"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_filter(&self) -> Result<BloomFilter<S, L>, Error> {
        let mut filter =
            BloomFilter::with_layout(self.blocks.len(), self.layout, self.hasher.clone())?
                .with_kernel(self.kernel())?;
        filter.words_mut().copy_from_slice(&self.blocks);
        Ok(filter)
    }
}

read_methods! {
    type: {'a, S, L: Layout} BloomFilterRef {'a, S, L},
    setup: "let mut source = splitbloom::Filter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    source.insert(key);
    source.insert_bytes(key.as_bytes());
}
let bytes = source.to_bytes();
let filter: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;",
    note: "The same answers as the [`BloomFilter`] that was serialized, through the same kernels.",
    reader: |filter| filter.view(),
    bytes: yes,
}

impl<S, L: Layout> BloomFilterRef<'_, S, L> {
    /// Whether the view reads the caller's bytes in place (`false`: they were copied, because
    /// the bitset was not aligned to its words or the host is big-endian).
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
}

impl<S: Clone, L: Layout> Clone for BloomFilterRef<'_, S, L> {
    fn clone(&self) -> Self {
        BloomFilterRef {
            blocks: self.blocks.clone(),
            layout: self.layout,
            kernel: self.kernel,
            hasher: self.hasher.clone(),
        }
    }
}

/// Equal when they view the same bits with the same layout and hasher, as
/// [`BloomFilter`]'s `==`.
///
/// ```
/// let bytes = splitbloom::Filter::with_num_blocks(2)?.to_bytes();
/// let a: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;
/// let b: splitbloom::FilterRef = splitbloom::FilterRef::from_trusted_bytes(&bytes)?;
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq, L: Layout> PartialEq for BloomFilterRef<'_, S, L> {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && self.hasher == other.hasher
            && bytemuck::cast_slice::<_, u8>(&self.blocks)
                == bytemuck::cast_slice::<_, u8>(&other.blocks)
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
impl<S: fmt::Debug, L: Layout> fmt::Debug for BloomFilterRef<'_, S, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(L::REF_NAME)
            .field("num_blocks", &self.blocks.len())
            .field("layout", &self.layout)
            .field("zero_copy", &self.is_zero_copy())
            .field("kernel", &self.kernel())
            .field("hasher", &self.hasher)
            .field("fill_ratio", &self.fill_ratio())
            .finish()
    }
}

shared_methods!(@accessors {'a, S, L: Layout} BloomFilterRef {'a, S, L}, "let bytes = splitbloom::Filter::with_num_blocks(8)?.to_bytes();
let filter: splitbloom::FilterRef = splitbloom::FilterRef::from_bytes(&bytes)?;", 32);
shared_methods!(@layout {'a, S, L: Layout} BloomFilterRef {'a, S, L}, "let mut wide = splitbloom::WideFilter::with_fpr(10_000, 1e-5)?;
wide.insert_batch(&(0..10_000u64).collect::<Vec<_>>());
let bytes = wide.to_bytes();
let filter = splitbloom::WideFilterRef::from_bytes(&bytes)?;");

// Compile-time check that views can be shared between threads (e.g. one mmap'd file probed by
// many readers).
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FilterRef<'static>>();
    assert_send_sync::<WideFilterRef<'static>>();
};
