//! Owned filters of the `SBLM` format, of either layout (`Filter`, `WideFilter`): what `build`
//! and `merge` do with them, written once for both.

use std::io::{self, Write};

use splitbloom::{Filter, FilterHasher, WideFilter};

use crate::stats::Stats;

/// What `build` and `merge` need of an owned `SBLM` filter.
pub trait PlainFilter: Sized {
    /// The filter's hasher type.
    type Hasher: FilterHasher;
    /// The filter's hasher.
    fn hasher(&self) -> &Self::Hasher;
    /// Inserts a pre-hashed key; `true` when it set a new bit.
    fn insert_hash(&mut self, hash: u64) -> bool;
    /// Reads the filter written as `bytes`, every byte checked.
    fn from_bytes(bytes: &[u8]) -> Result<Self, splitbloom::Error>;
    /// Adds every key of `other`, a filter of the same size and hasher.
    fn union(&mut self, other: &Self) -> Result<(), splitbloom::Error>;
    /// Writes the filter's bytes.
    fn write_to(&self, writer: &mut dyn Write) -> io::Result<()>;
    /// What the summaries report.
    fn stats(&self) -> Stats;
}

impl<S: FilterHasher> PlainFilter for Filter<S> {
    type Hasher = S;
    fn hasher(&self) -> &S {
        Filter::hasher(self)
    }
    fn insert_hash(&mut self, hash: u64) -> bool {
        Filter::insert_hash(self, hash)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, splitbloom::Error> {
        Filter::from_bytes_with_hasher_type(bytes)
    }
    fn union(&mut self, other: &Self) -> Result<(), splitbloom::Error> {
        Filter::union(self, other)
    }
    fn write_to(&self, writer: &mut dyn Write) -> io::Result<()> {
        Filter::write_to(self, writer)
    }
    fn stats(&self) -> Stats {
        Stats::of(self)
    }
}

impl<S: FilterHasher> PlainFilter for WideFilter<S> {
    type Hasher = S;
    fn hasher(&self) -> &S {
        WideFilter::hasher(self)
    }
    fn insert_hash(&mut self, hash: u64) -> bool {
        WideFilter::insert_hash(self, hash)
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, splitbloom::Error> {
        WideFilter::from_bytes_with_hasher_type(bytes)
    }
    fn union(&mut self, other: &Self) -> Result<(), splitbloom::Error> {
        WideFilter::union(self, other)
    }
    fn write_to(&self, writer: &mut dyn Write) -> io::Result<()> {
        WideFilter::write_to(self, writer)
    }
    fn stats(&self) -> Stats {
        Stats::of_wide(self)
    }
}
