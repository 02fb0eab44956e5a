//! The `serde` feature serializes exactly the bytes of `splitbloom::format`.
#![cfg(feature = "serde")]

use serde::Deserialize;
use serde::de::value::{BorrowedBytesDeserializer, BytesDeserializer, Error as ValueError};
use splitbloom::{Filter, FilterRef, Xxh3};

fn sample() -> Filter<Xxh3> {
    let mut filter = Filter::with_fpr_and_hasher(1000, 0.01, Xxh3::default()).unwrap();
    for key in 0..1000u64 {
        filter.insert(&key);
    }
    filter
}

#[test]
fn serializes_the_format_bytes() {
    let filter = sample();
    let json = serde_json::to_value(&filter).unwrap();
    let numbers: Vec<u8> = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(numbers, filter.to_bytes());
    let back: Filter<Xxh3> = serde_json::from_value(json).unwrap();
    assert_eq!(back, filter);
    let bytes = filter.to_bytes();
    let view = FilterRef::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap();
    assert_eq!(
        serde_json::to_value(&view).unwrap(),
        serde_json::to_value(&filter).unwrap()
    );
}

#[test]
fn deserializes_borrowed_and_transient_bytes() {
    let filter = sample();
    let bytes = filter.to_bytes();
    let owned = Filter::<Xxh3>::deserialize(BytesDeserializer::<ValueError>::new(&bytes)).unwrap();
    assert_eq!(owned, filter);
    let view = FilterRef::<Xxh3>::deserialize(BorrowedBytesDeserializer::<ValueError>::new(&bytes))
        .unwrap();
    assert!(view.is_zero_copy() == cfg!(target_endian = "little"));
    assert!((0..1000u64).all(|key| view.contains(&key)));
    let copied =
        FilterRef::<Xxh3>::deserialize(BytesDeserializer::<ValueError>::new(&bytes)).unwrap();
    assert!(!copied.is_zero_copy());
    assert_eq!(copied.to_bytes(), bytes);
}

#[test]
fn bad_bytes_are_deserialization_errors() {
    let mut bytes = sample().to_bytes();
    bytes[40] ^= 1;
    let error =
        Filter::<Xxh3>::deserialize(BytesDeserializer::<ValueError>::new(&bytes)).unwrap_err();
    assert!(error.to_string().contains("corrupt"), "{error}");
    let error = serde_json::from_str::<Filter<Xxh3>>("[1, 2, 3]").unwrap_err();
    assert!(error.to_string().contains("truncated"), "{error}");
    assert!(serde_json::from_str::<Filter<Xxh3>>("\"text\"").is_err());
}
