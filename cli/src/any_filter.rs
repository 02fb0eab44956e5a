//! A filter file's bytes read by the library type of their format, so that `query` asks every
//! format the same way. Another format is one more variant here.

use splitbloom::{
    FilterHasher, FilterRef, LayoutKind, QuotientFilterRef, ScalableFilter, WideFilterRef,
    WindowFilter,
};

use crate::filter_file::{FilterFile, Format};

/// A filter of any format, hashed with `S`.
pub enum AnyFilter<'a, S> {
    /// `SBLM` with the split-block layout, viewed in place.
    SplitBlock(FilterRef<'a, S>),
    /// `SBLM` with the wide layout, viewed in place.
    Wide(WideFilterRef<'a, S>),
    /// `SBLM` with the quotient layout, viewed in place.
    Quotient(QuotientFilterRef<'a, S>),
    /// `SBLS`: its stages, copied out of the bytes.
    Scalable(ScalableFilter<S>),
    /// `SBLW`: its generations, copied out of the bytes.
    Window(WindowFilter<S>),
}

impl<'a, S: FilterHasher> AnyFilter<'a, S> {
    /// Reads `file` with the library's reader of its format, which checks every byte (the
    /// checksums included) before anything is answered.
    pub fn read(file: &'a FilterFile) -> Result<Self, splitbloom::Error> {
        let bytes = file.bytes.as_slice();
        Ok(match file.format {
            Format::Plain(header) if header.layout == LayoutKind::Wide => {
                AnyFilter::Wide(WideFilterRef::from_bytes_with_hasher_type(bytes)?)
            }
            Format::Plain(header) if header.layout == LayoutKind::Quotient => {
                AnyFilter::Quotient(QuotientFilterRef::from_bytes_with_hasher_type(bytes)?)
            }
            Format::Plain(_) => {
                AnyFilter::SplitBlock(FilterRef::from_bytes_with_hasher_type(bytes)?)
            }
            Format::Scalable => {
                AnyFilter::Scalable(ScalableFilter::from_bytes_with_hasher_type(bytes)?)
            }
            Format::Window => AnyFilter::Window(WindowFilter::from_bytes_with_hasher_type(bytes)?),
        })
    }

    /// The filter's hasher.
    pub fn hasher(&self) -> &S {
        match self {
            AnyFilter::SplitBlock(filter) => filter.hasher(),
            AnyFilter::Wide(filter) => filter.hasher(),
            AnyFilter::Quotient(filter) => filter.hasher(),
            AnyFilter::Scalable(filter) => filter.hasher(),
            AnyFilter::Window(filter) => filter.hasher(),
        }
    }

    /// Answers `hashes` into `out` (of the same length): `true` where the key may be present.
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        match self {
            AnyFilter::SplitBlock(filter) => filter.contains_hash_batch(hashes, out),
            AnyFilter::Wide(filter) => filter.contains_hash_batch(hashes, out),
            AnyFilter::Quotient(filter) => filter.contains_hash_batch(hashes, out),
            AnyFilter::Scalable(filter) => filter.contains_hash_batch(hashes, out),
            AnyFilter::Window(filter) => filter.contains_hash_batch(hashes, out),
        }
    }
}
