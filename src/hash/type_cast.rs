//! castaway's marker trait for the three hashers, so that `crate::hash::hash_key` can recognise
//! them at compile time and hash a string key through the byte contract with the whole hash
//! inline.
//!
//! The filters' methods are generic over any `S: BuildHasher`, not only `'static` ones, so
//! `core::any::TypeId` cannot compare `S` with a hasher type; castaway's `LifetimeFree` is the
//! sound way to cast a non-`'static` generic to a concrete type, and implementing it is an
//! `unsafe` promise, allowed in this one file of the hashing module.

use super::{GxHash, ParquetHash, Xxh3};

// SAFETY: castaway's contract for `LifetimeFree` is that the type has no lifetime parameters,
// so that every value of it is `'static`: `Xxh3` is one `u64`.
unsafe impl castaway::LifetimeFree for Xxh3 {}
// SAFETY: as for `Xxh3`: `GxHash` is a `u64` and a field-less proof type.
unsafe impl castaway::LifetimeFree for GxHash {}
// SAFETY: as for `Xxh3`: `ParquetHash` is one `u64`.
unsafe impl castaway::LifetimeFree for ParquetHash {}
