//! Unit tests of the private pieces: the byte hashes' two entry points, the framing, and the
//! compile-time shortcut of `hash_key`. The public contract is tested in
//! `tests/suite/hashing_contract.rs` and `tests/suite/hash_known_answers.rs`.

use std::string::String;
use std::vec::Vec;

use super::framing::{BytesHash, fold, fold_word};
use super::xxh3::Xxh3Bytes;
use super::*;

/// `write`'s byte hash (the path of std's `Hash` for strings) equals the byte contract at every
/// length, on both sides of the 3 bytes hashed inline and of XXH3's 16, 128 and 240, and on long
/// inputs (several blocks of XXH3's long loop, SIMD where the CPU has it), against xxhash-rust.
#[test]
fn hash_bytes_in_write_equals_hash_bytes() {
    for seed in [0, 1, 0x243f_6a88_85a3_08d3, u64::MAX] {
        let lengths = (0..=300usize).chain([1000, 1023, 1024, 1025, 5000]);
        for len in lengths {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let xxh3 = xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, seed);
            assert_eq!(Xxh3Bytes::hash_bytes(&bytes, seed), xxh3, "{len} {seed:#x}");
            assert_eq!(Xxh3Bytes::hash_bytes_in_write(&bytes, seed), xxh3, "{len}");
            #[cfg(splitbloom_gxhash)]
            assert_eq!(
                super::gxhash::GxBytes::hash_bytes_in_write(&bytes, seed),
                super::gxhash::GxBytes::hash_bytes(&bytes, seed),
                "{len}"
            );
        }
    }
    assert_eq!(
        Xxh3Bytes::hash_bytes_in_write(&[], 0),
        xxhash_rust::xxh3::xxh3_64(&[])
    );
}

/// Every `Xxh3` hasher call, against the definition in the module docs.
#[test]
fn xxh3_follows_its_definition() {
    for seed in [0, 1, 0xdead_beef_0bad_cafe] {
        let hasher = Xxh3::with_seed(seed);
        let xxh3 = |bytes: &[u8], seed| xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed);
        for len in [0usize, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 255, 300] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
            // An integer after bytes is buffered and folded.
            assert_eq!(
                hasher.hash_one((&bytes[..], 0x1234u64)),
                fold_word(xxh3(&bytes, seed), 0x1234)
            );
            // A word before bytes that is not their length is folded in first.
            let prefix = len as u64 + 1;
            assert_eq!(
                hasher.hash_one((prefix, &bytes[..])),
                xxh3(&bytes, fold_word(seed, prefix))
            );
        }
        for key in [0u64, 1, 0xff, u64::MAX] {
            assert_eq!(hasher.hash_one(key), fold_word(seed, key));
            assert_eq!(hasher.hash_one(key as u8), fold_word(seed, key & 0xff));
            assert_eq!(
                hasher.hash_one((key, 7u32)),
                fold_word(fold_word(seed, key), 7)
            );
            assert_eq!(
                hasher.hash_one(u128::from(key) << 64 | 5),
                fold_word(fold_word(seed, 5), key)
            );
        }
        // `0xff` is dropped only directly after bytes: a second one (an `i8` of -1 after a
        // string) is kept.
        let s = xxh3(b"ab", seed);
        let a = s ^ 3 ^ 0x243f_6a88_85a3_08d3;
        assert_eq!(
            fold_word(s, 3),
            fold(a, a.rotate_left(32) ^ 0x9e37_79b9_7f4a_7c15)
        );
        assert_eq!(hasher.hash_one(("ab", -1i8)), fold_word(s, 0xff));
    }
}

/// The shortcut of `hash_key` applies to exactly the four byte-string types and the three
/// hashers, and gives their value.
#[test]
fn hash_key_takes_the_byte_contract_exactly_where_it_is_the_same_hash() {
    let text = String::from("splitbloom");
    let bytes: Vec<u8> = text.clone().into_bytes();
    assert_eq!(byte_string(text.as_str()), Some(&bytes[..]));
    assert_eq!(byte_string(&bytes[..]), Some(&bytes[..]));
    assert_eq!(byte_string(&text), Some(&bytes[..]));
    assert_eq!(byte_string(&bytes), Some(&bytes[..]));
    assert_eq!(byte_string(&text.as_str()), None, "a reference to a str");
    assert_eq!(byte_string(&7u64), None);
    assert_eq!(byte_string(&[1u16, 2][..]), None);
    let xxh3 = Xxh3::with_seed(5);
    assert_eq!(
        contract_hash_bytes(&xxh3, b"key"),
        Some(xxh3.hash_bytes(b"key"))
    );
    let parquet = ParquetHash::default();
    assert_eq!(
        contract_hash_bytes(&parquet, b"key"),
        Some(parquet.hash_bytes(b"key"))
    );
    assert_eq!(
        contract_hash_bytes(&std::hash::RandomState::new(), b"key"),
        None
    );
    if let Ok(gx) = GxHash::new(5) {
        assert_eq!(
            contract_hash_bytes(&gx, b"key"),
            Some(gx.hash_bytes(b"key"))
        );
    }
}

/// Keys of one type that differ only in an integer next to bytes, or in word order, stay apart.
#[test]
fn xxh3_keeps_neighbouring_words_apart() {
    let hasher = Xxh3::default();
    let mut seen = [(); 4].map(|()| std::collections::HashSet::new());
    for n in 0..300usize {
        assert!(
            seen[0].insert(hasher.hash_one((n, "abc"))),
            "({n}, \"abc\")"
        );
        assert!(
            seen[1].insert(hasher.hash_one((&b"abc"[..], n))),
            "(b\"abc\", {n})"
        );
        assert!(
            seen[2].insert(hasher.hash_one((n as u64, 1u64))),
            "({n}, 1)"
        );
        assert!(
            seen[3].insert(hasher.hash_one((1u64, n as u64, 2u8))),
            "(1, {n}, 2)"
        );
    }
    assert_ne!(hasher.hash_one((1u64, 2u64)), hasher.hash_one((2u64, 1u64)));
    assert_ne!(hasher.hash_one(["a", "bc"]), hasher.hash_one(["ab", "c"]));
}
