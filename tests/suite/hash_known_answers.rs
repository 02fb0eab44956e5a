//! Every hasher's output, pinned: filters already written (hasher ids 1, 2 and 3) must keep
//! answering exactly as they did, so no hash of any key may ever change.
//!
//! The values were computed on main at af4e2b5 (before the hashing contract changed), in an
//! x86_64 `+aes` build, so that gxhash was available. Each table hashes keys of every length
//! 0..=300 (plus integers) through each way a key reaches a hasher, and pins an XXH3-64 digest of
//! all outputs, plus a few single values so a mismatch is easy to read.

use core::hash::{BuildHasher, Hasher};

use splitbloom::parquet::ParquetHash;
use splitbloom::{Error, FilterHasher, GxHash, HasherKind, Xxh3Hash};

/// Key `len` of the byte tables: deterministic, varied bytes.
fn key(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(7))
        .collect()
}

/// An ASCII string of length `len`, for the `str` tables.
fn text(len: usize) -> String {
    (0..len)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect()
}

/// The seeds every table is computed with.
const SEEDS: [u64; 2] = [0, 0x0123_4567_89ab_cdef];

/// The lengths of the byte and string tables.
const LENGTHS: core::ops::RangeInclusive<usize> = 0..=300;

/// One write of `bytes` then finish: the byte contract (and the CLI's hashing).
fn one_write<S: BuildHasher>(hasher: &S, bytes: &[u8]) -> u64 {
    let mut state = hasher.build_hasher();
    state.write(bytes);
    state.finish()
}

/// The outputs of every way a key reaches `hasher` built with `seed`, in a fixed order.
fn outputs<S: BuildHasher>(hasher: &S) -> Vec<u64> {
    let mut out = Vec::new();
    for len in LENGTHS {
        let bytes = key(len);
        out.push(one_write(hasher, &bytes));
        out.push(hasher.hash_one(&bytes[..]));
        out.push(hasher.hash_one(text(len).as_str()));
        out.push(hasher.hash_one(text(len)));
        out.push(hasher.hash_one(&bytes));
    }
    for value in [
        0u64,
        1,
        2,
        0xff,
        0x1234_5678,
        u64::MAX,
        0x8000_0000_0000_0000,
    ] {
        out.push(hasher.hash_one(value));
        out.push(hasher.hash_one(value as u8));
        out.push(hasher.hash_one(value as u16));
        out.push(hasher.hash_one(value as u32));
        out.push(hasher.hash_one(value as i64));
        out.push(hasher.hash_one(value as usize));
        out.push(hasher.hash_one(u128::from(value) << 64 | 7));
        out.push(hasher.hash_one((value, value as u32)));
    }
    out.push(hasher.hash_one(true));
    out.push(hasher.hash_one('x'));
    out
}

/// XXH3-64 (seed 0) of `values` as little-endian bytes.
fn digest(values: &[u64]) -> u64 {
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect();
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

/// A few single outputs of `hasher`, easy to compare by eye.
fn samples<S: BuildHasher>(hasher: &S) -> [u64; 6] {
    [
        one_write(hasher, b""),
        one_write(hasher, b"splitbloom"),
        one_write(hasher, &key(16)),
        hasher.hash_one("splitbloom"),
        hasher.hash_one(&b"splitbloom"[..]),
        hasher.hash_one(42u64),
    ]
}

/// Prints the tables for `hasher` (run with `--nocapture` to regenerate after a reviewed
/// change, which must never happen for an existing hasher id).
fn check<S: BuildHasher>(name: &str, hashers: &[S], expected: &[(u64, [u64; 6])]) {
    let all: Vec<(u64, [u64; 6])> = hashers
        .iter()
        .map(|hasher| (digest(&outputs(hasher)), samples(hasher)))
        .collect();
    for (index, got) in all.iter().enumerate() {
        let samples: Vec<String> = got.1.iter().map(|value| format!("{value:#018x}")).collect();
        println!(
            "{name} seed {:#x}: ({:#018x}, [{}]),",
            SEEDS[index],
            got.0,
            samples.join(", ")
        );
    }
    for (index, got) in all.into_iter().enumerate() {
        assert_eq!(
            got, expected[index],
            "{name} with seed {:#x}: the outputs changed",
            SEEDS[index]
        );
    }
}

#[test]
fn xxh3_outputs_never_change() {
    let hashers = SEEDS.map(Xxh3Hash::with_seed);
    check("xxh3", &hashers, &XXH3);
}

#[test]
fn parquet_outputs_never_change() {
    let hashers = SEEDS.map(ParquetHash::with_seed);
    check("parquet", &hashers, &PARQUET);
}

#[test]
fn gxhash_outputs_never_change() {
    if !HasherKind::GxHash.is_available() {
        assert_eq!(
            GxHash::new(0).unwrap_err(),
            Error::HasherUnavailable(HasherKind::GxHash)
        );
        println!("gxhash is not available in this build: nothing to check");
        return;
    }
    let hashers = SEEDS.map(|seed| GxHash::new(seed).unwrap());
    check("gxhash", &hashers, &GXHASH);
}

/// The byte contract is one `write` then `finish`, for every hasher: what the CLI always
/// computed, so filters it built answer through `contains_bytes`.
#[test]
fn hash_bytes_is_one_write_then_finish() {
    fn same<S: FilterHasher>(hasher: S) {
        for len in LENGTHS {
            let bytes = key(len);
            assert_eq!(
                hasher.hash_bytes(&bytes),
                one_write(&hasher, &bytes),
                "length {len}"
            );
        }
    }
    for seed in SEEDS {
        same(Xxh3Hash::with_seed(seed));
        same(ParquetHash::with_seed(seed));
        if let Ok(hasher) = GxHash::new(seed) {
            same(hasher);
        }
    }
}

/// Pinned on main at af4e2b5 (see the module docs).
const XXH3: [(u64, [u64; 6]); 2] = [
    (
        0x238fa3dffd10e027,
        [
            0xb31134492bad73f3,
            0x3af87803e830ea1d,
            0x916b59b95e28676d,
            0xe861aa85131407a7,
            0x5e0203077091629a,
            0x7e0e7cf410ae4fe3,
        ],
    ),
    (
        0xc4b8d816e2d7b0aa,
        [
            0x19c81887357f3f6b,
            0x0c1e2da9243851d5,
            0xcc6ea25ea0eef293,
            0xbec64e955637ef43,
            0x3ba7b0e7346e51d5,
            0x6e2c37e8e4fa20e6,
        ],
    ),
];

/// Pinned on main at af4e2b5 (see the module docs).
const PARQUET: [(u64, [u64; 6]); 2] = [
    (
        0xdcbb3f4a72d78f8d,
        [
            0xef46db3751d8e999,
            0x40e1863d539a3949,
            0xa19ad429b02bc413,
            0x6d592efcac09b960,
            0x194718de747a6164,
            0xb556806fb6d14353,
        ],
    ),
    (
        0xb92670168392f76b,
        [
            0x51e24c0e9077a48c,
            0xf8b4e571fc11738d,
            0x2c6db85a21a7021b,
            0xd1191952558b18b1,
            0x3611f887d74674da,
            0xbefa9791dc48308d,
        ],
    ),
];

/// Pinned on main at af4e2b5 in an x86_64 `+aes` build (see the module docs).
const GXHASH: [(u64, [u64; 6]); 2] = [
    (
        0x765fb0578fa06979,
        [
            0xbf14da07cab8bbb2,
            0xa0b67119c25f674c,
            0x9ee73b0db4ce0d3d,
            0x6ff5c5845d52f20b,
            0x0b4baf5ece4c6f96,
            0x7e0e7cf410ae4fe3,
        ],
    ),
    (
        0x3dfd1a9b2847fea3,
        [
            0x6ff3fabc09f018f9,
            0xc8d3b387fe4a4ec0,
            0x9358977740d904d8,
            0x79e3ace0a239733d,
            0x69766ca4680e24ed,
            0x6e2c37e8e4fa20e6,
        ],
    ),
];
