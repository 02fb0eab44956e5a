//! A [`BloomFilter`]'s bytes, in the `SBLM` format of [`format`](crate::format), under its
//! layout's id: the codec there works on plain slices; this file gives it a filter's blocks,
//! layout and hasher identity, and builds a filter from what it validated.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::ops::Range;

use crate::error::Error;
use crate::filter::{BloomFilter, Layout};
use crate::format::{HEADER_BYTES, decode_into, swap_to_little_endian, validate};
use crate::hash::{FilterHasher, Xxh3};

impl<S: FilterHasher, L: Layout> BloomFilter<S, L> {
    /// The filter in splitbloom's format (see the [`format`](crate::format) module for the
    /// layout), under its layout's id (header byte 7: 0 for a [`Filter`](crate::Filter), the probes per key
    /// for a [`WideFilter`](crate::WideFilter)).
    ///
    /// ```
    /// use splitbloom::{Filter, WideFilter};
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert("key");
    /// let bytes = filter.to_bytes();
    /// let copy = Filter::from_bytes(&bytes)?;
    /// assert!(copy.contains("key"));
    /// assert_eq!(copy.to_bytes(), bytes);
    /// let wide = WideFilter::with_fpr(1000, 1e-5)?;
    /// assert_eq!(wide.to_bytes()[7], 2); // wide, two probes per key
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        self.view().to_bytes()
    }

    /// The length of [`to_bytes`](BloomFilter::to_bytes): 32 bytes of header plus the bitset.
    ///
    /// ```
    /// let filter = splitbloom::Filter::with_num_blocks(10)?;
    /// assert_eq!(filter.serialized_len(), 32 + 320);
    /// let wide = splitbloom::WideFilter::with_num_blocks(10, 1)?;
    /// assert_eq!(wide.serialized_len(), 32 + 640);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        HEADER_BYTES + self.size_in_bytes()
    }

    /// Writes [`to_bytes`](BloomFilter::to_bytes) to `writer` without building it in memory
    /// first.
    ///
    /// The error is the writer's [`std::io::Error`]; `?` also turns it into an [`Error`]
    /// (`Error::Io`), so it can be used in a function returning either.
    ///
    /// ```
    /// fn save(filter: &splitbloom::Filter, file: &mut Vec<u8>) -> Result<(), splitbloom::Error> {
    ///     filter.write_to(file)?;
    ///     Ok(())
    /// }
    /// let filter = splitbloom::Filter::with_num_blocks(2)?;
    /// let mut file = Vec::new();
    /// save(&filter, &mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        self.view().write_to(writer)
    }

    /// Reads a filter built with the hasher type `S`, named as the type parameter
    /// (`Filter::<ParquetHash>::from_bytes_with_hasher_type`), into an owned copy. The hasher's
    /// seed comes from the bytes, which is why no hasher value is passed;
    /// [`from_bytes`](BloomFilter::from_bytes) is this for the default hasher, without a type
    /// annotation.
    ///
    /// `bytes` must hold exactly one filter of this layout, built with hasher type `S`. Every
    /// problem is an [`Error`]: wrong magic, unknown version or layout, truncated or over-long
    /// input, zero or too many blocks, two wide probes on a block count that is not a
    /// multiple of 64, checksum mismatch, a filter of another layout
    /// ([`Error::LayoutMismatch`]: read it with its own type), unknown or unavailable hasher,
    /// hasher kind other than `S`'s. Nothing is allocated before the input has been validated.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, parquet::ParquetHash};
    /// let bytes = Filter::with_num_blocks_and_hasher(8, ParquetHash::default())?.to_bytes();
    /// let filter = Filter::<ParquetHash>::from_bytes_with_hasher_type(&bytes)?;
    /// assert_eq!(filter.num_blocks(), 8);
    /// let mut corrupt = bytes.clone();
    /// corrupt[40] ^= 1;
    /// assert!(matches!(
    ///     Filter::<ParquetHash>::from_bytes_with_hasher_type(&corrupt),
    ///     Err(Error::ChecksumMismatch { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &[u8]) -> Result<Self, Error> {
        let (header, payload) = validate(bytes)?;
        let layout = L::from_header(&header)?;
        header.check_hasher::<S>()?;
        let hasher = S::try_with_seed(header.seed)?;
        let mut filter = BloomFilter::with_layout(header.num_blocks, layout, hasher)?;
        decode_into(payload, filter.words_mut(), L::WORD_BYTES);
        Ok(filter)
    }
}

/// The bitset's bytes in pieces, for a store that streams a large filter in chunks and
/// restores it chunk by chunk (the Redis module's `SCANDUMP` and `LOADCHUNK`): the bytes
/// `to_bytes` writes after its header, without building them all at once.
impl<S, L: Layout> BloomFilter<S, L> {
    /// The bitset's bytes `range`, little-endian words as the format stores them: borrowed on
    /// a little-endian host, copied elsewhere. Errors unless `range` is whole words inside the
    /// bitset.
    ///
    /// ```
    /// let mut filter = splitbloom::WideFilter::with_num_blocks(4, 1)?;
    /// filter.insert("key");
    /// let bytes = filter.to_bytes();
    /// assert_eq!(&*filter.bitset_bytes(64..192)?, &bytes[32 + 64..32 + 192]);
    /// assert!(filter.bitset_bytes(4..8).is_err()); // half a 64-bit word
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn bitset_bytes(&self, range: Range<usize>) -> Result<Cow<'_, [u8]>, Error> {
        Error::check_whole_units(range.start, range.end, self.size_in_bytes(), L::WORD_BYTES)?;
        let bytes: &[u8] = bytemuck::cast_slice(self.words());
        let bytes = &bytes[range];
        if cfg!(target_endian = "little") {
            return Ok(Cow::Borrowed(bytes));
        }
        let mut words = bytes.to_vec();
        swap_to_little_endian(&mut words, L::WORD_BYTES);
        Ok(Cow::Owned(words))
    }

    /// Writes `bytes` (little-endian words, as [`bitset_bytes`](BloomFilter::bitset_bytes)
    /// gives them) at byte `offset` of the bitset: the restore of a filter made with
    /// [`with_layout`](BloomFilter::with_layout), a chunk at a time. Errors, changing nothing,
    /// unless the range is whole words inside the bitset.
    ///
    /// ```
    /// use splitbloom::{BloomFilter, Xxh3};
    /// let mut filter = splitbloom::Filter::with_num_blocks(100)?;
    /// filter.insert("key");
    /// let mut copy = BloomFilter::with_layout(100, filter.layout(), Xxh3::default())?;
    /// for start in (0..3200).step_by(1024) {
    ///     let end = (start + 1024).min(3200);
    ///     copy.load_bitset_bytes(start, &filter.bitset_bytes(start..end)?)?;
    /// }
    /// assert_eq!(copy, filter);
    /// assert!(copy.load_bitset_bytes(3200, &[0; 4]).is_err()); // past the end
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn load_bitset_bytes(&mut self, offset: usize, bytes: &[u8]) -> Result<(), Error> {
        let end = offset.saturating_add(bytes.len());
        Error::check_whole_units(offset, end, self.size_in_bytes(), L::WORD_BYTES)?;
        let words: &mut [u8] = bytemuck::cast_slice_mut(self.words_mut());
        decode_into(bytes, &mut words[offset..end], L::WORD_BYTES);
        Ok(())
    }
}

impl<L: Layout> BloomFilter<Xxh3, L> {
    /// Reads a filter written by [`to_bytes`](BloomFilter::to_bytes) with the default hasher
    /// into an owned copy, with every check of
    /// [`from_bytes_with_hasher_type`](BloomFilter::from_bytes_with_hasher_type) (which reads
    /// filters of other hashers). No type annotation is needed.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, WideFilter};
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert("key");
    /// let copy = Filter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// assert!(matches!(Filter::from_bytes(b"SBLM"), Err(Error::Truncated { .. })));
    /// // A split-block filter is not read as a wide one, nor the other way round.
    /// assert!(matches!(WideFilter::from_bytes(&filter.to_bytes()), Err(Error::LayoutMismatch { .. })));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_hasher_type(bytes)
    }
}

/// `?` on a writer's error (e.g. [`BloomFilter::write_to`]) in a function that returns [`Error`].
#[cfg(feature = "std")]
impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Error::Io {
            kind: error.kind(),
            message: alloc::string::ToString::to_string(&error),
        }
    }
}

/// `?` on a reader's [`Error`] (e.g. [`BloomFilter::from_bytes`]) in a function that returns
/// `std::io::Result`: the bytes were invalid ([`std::io::ErrorKind::InvalidData`]), with the
/// `Error` as the source; an [`Error::Io`] keeps its kind.
#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    fn from(error: Error) -> Self {
        match error {
            Error::Io { kind, message } => std::io::Error::new(kind, message),
            error => std::io::Error::new(std::io::ErrorKind::InvalidData, error),
        }
    }
}
