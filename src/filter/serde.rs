//! `serde` support: a filter of any layout serializes as the bytes of
//! [`BloomFilter::to_bytes`] (a byte string in formats that have one, a sequence of numbers in
//! others), and deserializes with every check of [`BloomFilter::from_bytes`].

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::error::Error;
use crate::filter::{BloomFilter, BloomFilterRef, Layout};
use crate::hash::FilterHasher;

impl<S: FilterHasher, L: Layout> Serialize for BloomFilter<S, L> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

impl<S: FilterHasher, L: Layout> Serialize for BloomFilterRef<'_, S, L> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

/// Receives the serialized bytes, borrowed when the format can lend them.
struct BytesVisitor<T>(PhantomData<T>);

/// What a visitor builds from the bytes it receives.
trait FromSerializedBytes<'de>: Sized {
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, Error>;
    fn from_transient(bytes: &[u8]) -> Result<Self, Error>;
}

impl<'de, S: FilterHasher, L: Layout> FromSerializedBytes<'de> for BloomFilter<S, L> {
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, Error> {
        BloomFilter::from_bytes_with_hasher_type(bytes)
    }
    fn from_transient(bytes: &[u8]) -> Result<Self, Error> {
        BloomFilter::from_bytes_with_hasher_type(bytes)
    }
}

impl<'de, S: FilterHasher, L: Layout> FromSerializedBytes<'de> for BloomFilterRef<'de, S, L> {
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, Error> {
        BloomFilterRef::from_bytes_with_hasher_type(bytes)
    }
    fn from_transient(bytes: &[u8]) -> Result<Self, Error> {
        Ok(BloomFilterRef::<S, L>::from_bytes_with_hasher_type(bytes)?.into_owned())
    }
}

impl<'de, T: FromSerializedBytes<'de>> Visitor<'de> for BytesVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of a serialized splitbloom filter")
    }

    fn visit_borrowed_bytes<E: de::Error>(self, bytes: &'de [u8]) -> Result<T, E> {
        T::from_borrowed(bytes).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        T::from_transient(bytes).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        // The length hint comes from the input: cap the up-front reservation.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        T::from_transient(&bytes).map_err(de::Error::custom)
    }
}

impl<'de, S: FilterHasher, L: Layout> Deserialize<'de> for BloomFilter<S, L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor(PhantomData))
    }
}

impl<'de, S: FilterHasher, L: Layout> Deserialize<'de> for BloomFilterRef<'de, S, L> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor(PhantomData))
    }
}
