//! `serde` support: a filter serializes as the bytes of [`Filter::to_bytes`] (a byte string in
//! formats that have one, a sequence of numbers in others), and deserializes with every check
//! of [`Filter::from_bytes`].

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::error::Error;
use crate::filter::{Filter, FilterRef};
use crate::hash::FilterHasher;

impl<S: FilterHasher> Serialize for Filter<S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

impl<S: FilterHasher> Serialize for FilterRef<'_, S> {
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

impl<'de, S: FilterHasher> FromSerializedBytes<'de> for Filter<S> {
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, Error> {
        Filter::from_bytes_with_hasher_type(bytes)
    }
    fn from_transient(bytes: &[u8]) -> Result<Self, Error> {
        Filter::from_bytes_with_hasher_type(bytes)
    }
}

impl<'de, S: FilterHasher> FromSerializedBytes<'de> for FilterRef<'de, S> {
    fn from_borrowed(bytes: &'de [u8]) -> Result<Self, Error> {
        FilterRef::from_bytes_with_hasher_type(bytes)
    }
    fn from_transient(bytes: &[u8]) -> Result<Self, Error> {
        Ok(FilterRef::<S>::from_bytes_with_hasher_type(bytes)?.into_owned())
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

impl<'de, S: FilterHasher> Deserialize<'de> for Filter<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor(PhantomData))
    }
}

impl<'de, S: FilterHasher> Deserialize<'de> for FilterRef<'de, S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor(PhantomData))
    }
}
