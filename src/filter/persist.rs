//! [`Filter`]'s bytes, in the `SBLM` format of [`format`](crate::format): the codec there works
//! on plain slices; this file gives it a filter's blocks and hasher identity, and builds a
//! filter from what it validated.

use alloc::vec::Vec;

use crate::error::Error;
use crate::filter::Filter;
use crate::format::{HEADER_BYTES, decode_into, validate};
use crate::hash::FilterHasher;

impl<S: FilterHasher> Filter<S> {
    /// The filter in splitbloom's format (see the [`format`](crate::format) module for the
    /// layout).
    ///
    /// ```
    /// use splitbloom::Filter;
    /// let mut filter = Filter::with_fpr(1000, 0.01)?;
    /// filter.insert("key");
    /// let bytes = filter.to_bytes();
    /// let copy = Filter::from_bytes(&bytes)?;
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
    /// [`Filter::from_bytes`] is this for the default hasher, without a type annotation.
    ///
    /// `bytes` must hold exactly one filter, built with hasher type `S`. Every problem is an
    /// [`Error`]: wrong magic, unknown version or flags, truncated or over-long input, zero or
    /// too many blocks, checksum mismatch, unknown or unavailable hasher, hasher kind other
    /// than `S`'s. Nothing is allocated before the input has been validated.
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
        let (header, payload) = validate::<S>(bytes)?;
        let mut filter =
            Filter::with_num_blocks_and_hasher(header.num_blocks, S::try_with_seed(header.seed)?)?;
        decode_into(payload, filter.words_mut());
        Ok(filter)
    }
}

impl Filter {
    /// Reads a filter written by [`to_bytes`](Filter::to_bytes) with the default hasher into an
    /// owned copy, with every check of
    /// [`from_bytes_with_hasher_type`](Filter::from_bytes_with_hasher_type) (which reads
    /// filters of other hashers). No type annotation is needed.
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
        Filter::from_bytes_with_hasher_type(bytes)
    }
}

/// `?` on a writer's error (e.g. [`Filter::write_to`]) in a function that returns [`Error`].
#[cfg(feature = "std")]
impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Error::Io {
            kind: error.kind(),
            message: alloc::string::ToString::to_string(&error),
        }
    }
}

/// `?` on a reader's [`Error`] (e.g. [`Filter::from_bytes`]) in a function that returns
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
