//! A window's bytes, in the `SBLW` layout of [`format`](mod@crate::format) (`docs/FORMAT.md` has
//! the byte table and known answers): the codec there works on plain data; this file gives it
//! the window's shape and planes, and builds a window from what it validated.

use alloc::vec::Vec;

use super::WindowFilter;
use crate::error::Error;
use crate::format::{self, WINDOW_HEADER_BYTES, WindowHeader};
use crate::hash::FilterHasher;

impl<S: FilterHasher> WindowFilter<S> {
    /// The window in the `SBLW` format: a 64-byte header (hasher, seed, shape and plane size,
    /// the newest generation's slot, the rotation count, a checksum), then every generation's
    /// planes.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// window.insert("key");
    /// let bytes = window.to_bytes();
    /// assert_eq!(&bytes[..4], b"SBLW");
    /// assert_eq!(splitbloom::WindowFilter::from_bytes(&bytes)?, window);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        format::window_to_bytes(&self.header(), self.words())
    }

    /// The length of [`to_bytes`](WindowFilter::to_bytes): 64 bytes of header plus the planes.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// assert_eq!(window.serialized_len(), 64 + window.size_in_bytes());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        WINDOW_HEADER_BYTES + self.size_in_bytes()
    }

    /// Writes [`to_bytes`](WindowFilter::to_bytes) to `writer` without building it in memory
    /// first.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 4)?;
    /// let mut file = Vec::new();
    /// window.write_to(&mut file)?;
    /// assert_eq!(file, window.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        format::window_write_to(&self.header(), self.words(), writer)
    }

    /// Reads a window written by [`to_bytes`](WindowFilter::to_bytes) with hasher type `S`,
    /// its seed taken from the bytes. Every field, the length and the checksum are checked
    /// before anything is allocated; bad bytes are an [`Error`], never a panic. The rotation
    /// count may be anything, including `u64::MAX`: counting on from it saturates.
    ///
    /// ```
    /// use splitbloom::{WindowFilter, parquet::ParquetHash};
    /// let mut window = WindowFilter::with_fpr_and_hasher(100, 0.01, 2, ParquetHash::default())?;
    /// window.insert_bytes(b"key");
    /// let copy = WindowFilter::<ParquetHash>::from_bytes_with_hasher_type(&window.to_bytes())?;
    /// assert!(copy.contains_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &[u8]) -> Result<Self, Error> {
        let (header, payload) = format::parse_window(bytes)?;
        format::check_hasher::<S>(header.hasher)?;
        let hasher = S::try_with_seed(header.seed)?;
        let mut window = Self::build(
            header.num_blocks,
            header.items_per_generation,
            header.generations,
            header.plane,
            hasher,
        )?;
        window.newest = header.newest;
        window.rotations = header.rotations;
        format::decode_into(payload, window.words_mut(), header.plane.words() / 2);
        Ok(window)
    }

    /// The window's `SBLW` header fields.
    fn header(&self) -> WindowHeader {
        WindowHeader {
            hasher: S::KIND,
            seed: self.hasher.seed(),
            num_blocks: self.num_blocks,
            items_per_generation: self.items_per_generation,
            generations: self.generations,
            plane: self.plane,
            newest: self.newest,
            rotations: self.rotations,
        }
    }
}

impl WindowFilter {
    /// Reads a window of the default hasher written by [`to_bytes`](WindowFilter::to_bytes);
    /// see [`from_bytes_with_hasher_type`](WindowFilter::from_bytes_with_hasher_type).
    ///
    /// ```
    /// use splitbloom::{Error, WindowFilter};
    /// let mut window = WindowFilter::with_fpr(100, 0.01, 3)?;
    /// window.insert("key");
    /// window.rotate();
    /// let copy = WindowFilter::from_bytes(&window.to_bytes())?;
    /// assert!(copy.contains("key") && copy.rotations() == 1);
    /// assert!(matches!(WindowFilter::from_bytes(b"SBLM"), Err(Error::WrongMagic { .. })));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<WindowFilter, Error> {
        WindowFilter::from_bytes_with_hasher_type(bytes)
    }
}
