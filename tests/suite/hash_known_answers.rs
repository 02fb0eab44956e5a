//! Every hasher's output, pinned: from 0.1.0 on no hash of any key may ever change, since
//! filters written with a hasher id must keep answering.
//!
//! Three kinds of table:
//! * known answers `(input, seed, hash)` of the byte contract and of integer keys, for
//!   [`Xxh3`] (id 4), [`ParquetHash`] (id 3) and [`GxHash`] (id 6), at lengths 0..300 (XXH3's
//!   paths up to 16, 128 and 240 bytes, and the long-input loop above 240): the values
//!   `docs/FORMAT.md` quotes;
//! * a digest of every way a key reaches each hasher (`outputs`: bytes of every length 0..=300
//!   through one write, `[u8]`, `str`, `String`, `Vec<u8>`, and integers of every width), with
//!   a few single values so a mismatch is easy to read.
//!
//! Xxh3's and ParquetHash's values, and GxHash's under 16 bytes, were computed independently of
//! this crate, from the definitions in `splitbloom::hash`, with the reference xxHash C library
//! by `tests/fixtures/golden/known_answers.py`. GxHash's from 16 bytes up ([`GXHASH_LONG_BYTES`])
//! were computed with the `gxhash` crate's `gxhash64` (3.5) alone, from the definition
//! `gxhash64(bytes, seed ^ len)`, in an x86_64 `+aes` build; its digest table was pinned from
//! this crate.

use core::hash::{BuildHasher, Hasher};

use splitbloom::parquet::ParquetHash;
use splitbloom::{Error, FilterHasher, GxHash, HasherKind, Xxh3};

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

/// Checks `hasher`'s digest and samples against `expected`, printing them (run with
/// `--nocapture` to read them).
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

/// `hasher`'s byte contract for `key(len)` through every entry point of a byte-string key.
fn byte_contract<S: FilterHasher>(hasher: &S, len: usize) -> u64 {
    let bytes = key(len);
    let hash = hasher.hash_bytes(&bytes);
    assert_eq!(one_write(hasher, &bytes), hash, "one write, length {len}");
    assert_eq!(hasher.hash_one(&bytes[..]), hash, "[u8], length {len}");
    assert_eq!(hasher.hash_one(&bytes), hash, "Vec<u8>, length {len}");
    hash
}

#[test]
fn xxh3_known_answers() {
    for (len, seed, expected) in XXH3_BYTES {
        assert_eq!(
            byte_contract(&Xxh3::with_seed(seed), len),
            expected,
            "length {len}, seed {seed:#x}"
        );
    }
    for (key, seed, expected) in XXH3_INTEGERS {
        assert_eq!(
            Xxh3::with_seed(seed).hash_one(key),
            expected,
            "{key:#x}, seed {seed:#x}"
        );
    }
}

#[test]
fn parquet_known_answers() {
    for (len, seed, expected) in XXH64_BYTES {
        assert_eq!(
            byte_contract(&ParquetHash::with_seed(seed), len),
            expected,
            "length {len}, seed {seed:#x}"
        );
    }
    for (key, seed, int64, int32) in XXH64_INTEGERS {
        let hasher = ParquetHash::with_seed(seed);
        assert_eq!(hasher.hash_one(key), int64, "INT64 {key}, seed {seed:#x}");
        assert_eq!(
            hasher.hash_one(key as i32),
            int32,
            "INT32 {key}, seed {seed:#x}"
        );
        if seed == 0 {
            assert_eq!(splitbloom::parquet::hash(&key), int64, "INT64 {key}");
            assert_eq!(
                splitbloom::parquet::hash(&(key as i32)),
                int32,
                "INT32 {key}"
            );
        }
    }
}

/// Under 16 bytes GxHash is XXH3 (the independent values of [`XXH3_BYTES`]); from 16 to 40
/// bytes, [`GXHASH_LONG_BYTES`]; integers are framed as Xxh3's.
#[test]
fn gxhash_known_answers() {
    if !HasherKind::GxHash.is_available() {
        assert_eq!(
            GxHash::new(0).unwrap_err(),
            Error::HasherUnavailable(HasherKind::GxHash)
        );
        println!("gxhash is not available in this build: nothing to check");
        return;
    }
    for (len, seed, expected) in XXH3_BYTES {
        if len < 16 {
            assert_eq!(
                byte_contract(&GxHash::new(seed).unwrap(), len),
                expected,
                "{len}"
            );
        }
    }
    for (index, seed) in SEEDS.into_iter().enumerate() {
        let hasher = GxHash::new(seed).unwrap();
        for (len, &expected) in GXHASH_LONG_BYTES[index].iter().enumerate().skip(16) {
            assert_eq!(
                byte_contract(&hasher, len),
                expected,
                "length {len}, seed {seed:#x}"
            );
        }
    }
    for (key, seed, expected) in XXH3_INTEGERS {
        assert_eq!(
            GxHash::new(seed).unwrap().hash_one(key),
            expected,
            "{key:#x}"
        );
    }
}

#[test]
fn xxh3_outputs_never_change() {
    check("xxh3", &SEEDS.map(Xxh3::with_seed), &XXH3_DIGESTS);
}

#[test]
fn parquet_outputs_never_change() {
    check("parquet", &SEEDS.map(ParquetHash::with_seed), &PARQUET);
}

#[test]
fn gxhash_outputs_never_change() {
    let Ok(first) = GxHash::new(SEEDS[0]) else {
        println!("gxhash is not available in this build: nothing to check");
        return;
    };
    let hashers = [first, GxHash::new(SEEDS[1]).unwrap()];
    check("gxhash", &hashers, &GXHASH_DIGESTS);
}

/// Xxh3's digests, computed outside this crate from the definitions in `splitbloom::hash` (XXH3
/// for bytes, the folded word per integer) with Python's `xxhash` 4.1.0.
const XXH3_DIGESTS: [(u64, [u64; 6]); 2] = [
    (
        0x42a8092a97f5a677,
        [
            0x2d06800538d394c2,
            0xb3ea5d30bbfac6aa,
            0x7e484c18d74895d0,
            0xb3ea5d30bbfac6aa,
            0xb3ea5d30bbfac6aa,
            0xbb79f4c683579eea,
        ],
    ),
    (
        0xf7f31008ce09753f,
        [
            0xcc1ca35a1b089c5c,
            0x3066b48b06aaa2a2,
            0xf6ca25f941ddb47c,
            0x3066b48b06aaa2a2,
            0x3066b48b06aaa2a2,
            0x298c023eb69b2d31,
        ],
    ),
];

/// GxHash's digests, pinned from this crate.
const GXHASH_DIGESTS: [(u64, [u64; 6]); 2] = [
    (
        0x2520664843a46c80,
        [
            0x2d06800538d394c2,
            0xb3ea5d30bbfac6aa,
            0xc5e6439ae5a324cc,
            0xb3ea5d30bbfac6aa,
            0xb3ea5d30bbfac6aa,
            0xbb79f4c683579eea,
        ],
    ),
    (
        0x1985ab1a7c75fddc,
        [
            0xcc1ca35a1b089c5c,
            0x3066b48b06aaa2a2,
            0xe02661037eb121c4,
            0x3066b48b06aaa2a2,
            0x3066b48b06aaa2a2,
            0x298c023eb69b2d31,
        ],
    ),
];

/// GxHash's byte contract for `key(len)` at each seed of [`SEEDS`], `gxhash64(key, seed ^ len)`
/// computed with the `gxhash` crate alone: entries 16..=40 are GxHash's (below 16 it is XXH3;
/// those entries, a zero-padded gxhash, are unused).
const GXHASH_LONG_BYTES: [[u64; 41]; 2] = [
    [
        0xad8f372ca53d9274,
        0xd5efa794a7b01a55,
        0x173a694e7f33e24f,
        0x2ce002effbac5c7f,
        0xf0092e24e159e110,
        0xccf9078d08d5057f,
        0x99d8803fc018da5e,
        0x27d791462500d6e4,
        0x2c2ea06320a2e518,
        0x056a49f69d1fc2c9,
        0x1be038e8fbc16678,
        0x8005e91b45b395e7,
        0x19a577c45bd701a8,
        0x6e39931786cf4bf3,
        0xa47e9734e07c795c,
        0x7576cff2b198c076,
        0xc5e6439ae5a324cc,
        0x25001a0cb8558699,
        0xdf3d0d812e922c86,
        0x3049fda1404439b3,
        0xc4eab042bd4cc551,
        0xf4bc01f9c6060e39,
        0x33fc5d83eea2f281,
        0x46ef74da421c08e4,
        0x2b8fc12ec1f748aa,
        0x4069739ab760acb5,
        0xe419e95150e676c2,
        0xe5a20786aeab30a8,
        0x8073bd43bdf8ee3e,
        0xcfee10945bf7fb49,
        0xf999d1ab3d28b099,
        0xbcb50de4623303af,
        0x273f89664dfd5ea2,
        0xb838182d5f4612ee,
        0x011e9f86b44e3c70,
        0x172b28ee288bc4e2,
        0xa620042eeb6bdfc9,
        0xdfe59113b7cc1844,
        0x3c38ec25b5994a94,
        0xcbc0020f2db6d0e9,
        0x37e4ac47d0abe492,
    ],
    [
        0xde2f019fb761d786,
        0x6d3dc3b2a50b5261,
        0x02dc2c3d5a022171,
        0xdd42e97f822f3502,
        0xd49e988491a8c765,
        0x3ab9fb5eee38510b,
        0xfa99f3b271c15a19,
        0x85be2967a3bb37fb,
        0x9ac3ac11c28fc5ab,
        0xa4ac747c429c7312,
        0xb817dd0cb9312504,
        0xb082a71af7fc9b3a,
        0xb4191c7964118d52,
        0xf674a8aab23415b3,
        0x4cbcc65deef68bd0,
        0x02176ab43d4e4a40,
        0xe02661037eb121c4,
        0xa28d6c1cff188b9d,
        0x4d07c7fb2013977b,
        0x6d1a6aa4213e9aaa,
        0xd1a9e6f78b07a077,
        0xa4ce6a47a4ef576a,
        0x5edffbf2376f5e94,
        0x41d6bd9f7c809ee7,
        0x6bae1b33bba00ff5,
        0x3bc953a211561169,
        0xfb66993c1f7baa04,
        0x743b7c4ebec9c35e,
        0x7844b98efc7a6cd0,
        0x01187ada510ca9a0,
        0xee543225683f2f1e,
        0x24e0dd5a26b61b7f,
        0xda49f6bc854f35eb,
        0xe03005340869847f,
        0xc35124150ebe3b35,
        0x87c45071b3f7f04b,
        0xf0fe825c0269ff40,
        0x0ed25c8e6bd034c5,
        0x768ef4262a00596e,
        0x85a100aa46bb34ad,
        0xa666f12fdade0f4c,
    ],
];

// Computed by tests/fixtures/golden/known_answers.py:
const XXH3_BYTES: [(usize, u64, u64); 34] = [
    (0, 0x0, 0x2d06800538d394c2),
    (1, 0x0, 0x4c5cca45d0f4811f),
    (3, 0x0, 0x15f7093b173d005c),
    (4, 0x0, 0xdca012f95811b6b9),
    (8, 0x0, 0xdec6a9a43575982e),
    (9, 0x0, 0xcbe393399f17ffbd),
    (15, 0x0, 0x545e19990471dc37),
    (16, 0x0, 0x7e484c18d74895d0),
    (17, 0x0, 0x208bde5ee2bed407),
    (32, 0x0, 0x03df0ac5255d1446),
    (64, 0x0, 0xdd30702ab46b3745),
    (128, 0x0, 0xf92b70eaa21a6288),
    (129, 0x0, 0xf8f76713f2bb60fa),
    (240, 0x0, 0xccc7375172c41f03),
    (241, 0x0, 0x0b3b630948ce4a00),
    (256, 0x0, 0xec85b75bafe6ca74),
    (300, 0x0, 0xbaad8e6a5f186ce6),
    (0, 0x123456789abcdef, 0xcc1ca35a1b089c5c),
    (1, 0x123456789abcdef, 0x6dcb95d31de5966b),
    (3, 0x123456789abcdef, 0x2c39b392abaacc0e),
    (4, 0x123456789abcdef, 0x56ff8d61faf8f3c1),
    (8, 0x123456789abcdef, 0x32f1df0fb4c56018),
    (9, 0x123456789abcdef, 0xd2c1a17aaa3efb26),
    (15, 0x123456789abcdef, 0x3aa1a0dee222e1ca),
    (16, 0x123456789abcdef, 0xf6ca25f941ddb47c),
    (17, 0x123456789abcdef, 0xab17ffdb7d9eead9),
    (32, 0x123456789abcdef, 0x9dc60494f6ac170d),
    (64, 0x123456789abcdef, 0x3b2bc8def1bef79d),
    (128, 0x123456789abcdef, 0x6652fc6e0bbab624),
    (129, 0x123456789abcdef, 0x82a748d81e908533),
    (240, 0x123456789abcdef, 0x3d7f78749e396490),
    (241, 0x123456789abcdef, 0x8a0d480f36059169),
    (256, 0x123456789abcdef, 0x35f2752cdea7b80d),
    (300, 0x123456789abcdef, 0xc659f0475f70d1ca),
];
const XXH3_INTEGERS: [(u64, u64, u64); 12] = [
    (0x0, 0x0, 0x8eb357cf0b6d79a6),
    (0x1, 0x0, 0xf484ce548b382983),
    (0x2a, 0x0, 0xbb79f4c683579eea),
    (0xff, 0x0, 0x0206f2c7772c1d62),
    (0x12345678, 0x0, 0xd310394ea248bc70),
    (0xffffffffffffffff, 0x0, 0x093b662ecb6d7997),
    (0x0, 0x123456789abcdef, 0xedf7a857da0ac7b2),
    (0x1, 0x123456789abcdef, 0x6bc8a08c4e84c3ae),
    (0x2a, 0x123456789abcdef, 0x298c023eb69b2d31),
    (0xff, 0x123456789abcdef, 0x8133b327065a915c),
    (0x12345678, 0x123456789abcdef, 0x32e3ae9a97962fc7),
    (0xffffffffffffffff, 0x123456789abcdef, 0xedf781679b48943c),
];
const XXH64_BYTES: [(usize, u64, u64); 34] = [
    (0, 0x0, 0xef46db3751d8e999),
    (1, 0x0, 0xa96c7f0ce858bbb7),
    (3, 0x0, 0x56e6957632a487f9),
    (4, 0x0, 0xc60d15b1e3ff8f04),
    (8, 0x0, 0x3da5c7aa269683e0),
    (9, 0x0, 0x4b17a9ba9e215c09),
    (15, 0x0, 0xae2a37eb9357caa7),
    (16, 0x0, 0xa19ad429b02bc413),
    (17, 0x0, 0xfe9f0feb7eeedc09),
    (32, 0x0, 0x8d57d6a4671cc43d),
    (64, 0x0, 0x7bbabbc45729d17e),
    (128, 0x0, 0x725a5b9b3bedfe94),
    (129, 0x0, 0x28fc8362643627d7),
    (240, 0x0, 0xd430520ae3ed2fc6),
    (241, 0x0, 0xd3f50496d5bf27e0),
    (256, 0x0, 0x7c1ff7b1d57c10d5),
    (300, 0x0, 0x8d2ba0cd7fece76c),
    (0, 0x123456789abcdef, 0x51e24c0e9077a48c),
    (1, 0x123456789abcdef, 0x63f3595cc59f5425),
    (3, 0x123456789abcdef, 0x2dd3de03d79b780f),
    (4, 0x123456789abcdef, 0x881a72a2895ded30),
    (8, 0x123456789abcdef, 0x1727919cb64b240f),
    (9, 0x123456789abcdef, 0x06420ed585121c0e),
    (15, 0x123456789abcdef, 0x141c34b367416e1f),
    (16, 0x123456789abcdef, 0x2c6db85a21a7021b),
    (17, 0x123456789abcdef, 0x0ad12dede1a3ca78),
    (32, 0x123456789abcdef, 0x815b5d25513b13b8),
    (64, 0x123456789abcdef, 0xd5e6b36d0a907eff),
    (128, 0x123456789abcdef, 0x029e60720f65cb77),
    (129, 0x123456789abcdef, 0x16281b124e811af7),
    (240, 0x123456789abcdef, 0xb4d3e5109a9168ec),
    (241, 0x123456789abcdef, 0x738b78e68a285b05),
    (256, 0x123456789abcdef, 0xaa1d578900580dc9),
    (300, 0x123456789abcdef, 0xfe4b355f782b35f9),
];
const XXH64_INTEGERS: [(i64, u64, u64, u64); 12] = [
    (0, 0x0, 0x34c96acdcadb1bbb, 0x3aefa6fd5cf2deb4),
    (1, 0x0, 0x9f29cb17a2a49995, 0xf42f94001fcb5351),
    (42, 0x0, 0xb556806fb6d14353, 0xd756d7b62fc50bf1),
    (255, 0x0, 0x2aa06adfe623603f, 0xf401539a5103face),
    (305419896, 0x0, 0x93cbb55a31ede30e, 0xeb518304fec02e06),
    (-1, 0x0, 0x85d136adb773c6c9, 0x7f78e4bda3addf93),
    (0, 0x123456789abcdef, 0x172396560884a180, 0x448af41a3561e207),
    (1, 0x123456789abcdef, 0xdcb45853ca92f3c4, 0x81a71cf626c14c8e),
    (
        42,
        0x123456789abcdef,
        0xbefa9791dc48308d,
        0x32be1d15908233b9,
    ),
    (
        255,
        0x123456789abcdef,
        0x0a3884f046f11612,
        0x728207e3ab38d4ec,
    ),
    (
        305419896,
        0x123456789abcdef,
        0xa88a2439fcf85836,
        0x2be4f5d5eb808b90,
    ),
    (
        -1,
        0x123456789abcdef,
        0x51054d53d0a84c09,
        0x87f7a35bbfe32bfc,
    ),
];
// (digests only) [0xb8dbf1237f9fe318, 0xb92097973bf1c6da];
// one write of "splitbloom": 0x40e1863d539a3949, 0xf8b4e571fc11738d
const PARQUET: [(u64, [u64; 6]); 2] = [
    (
        0xb8dbf1237f9fe318,
        [
            0xef46db3751d8e999,
            0x40e1863d539a3949,
            0xa19ad429b02bc413,
            0x40e1863d539a3949,
            0x40e1863d539a3949,
            0xb556806fb6d14353,
        ],
    ),
    (
        0xb92097973bf1c6da,
        [
            0x51e24c0e9077a48c,
            0xf8b4e571fc11738d,
            0x2c6db85a21a7021b,
            0xf8b4e571fc11738d,
            0xf8b4e571fc11738d,
            0xbefa9791dc48308d,
        ],
    ),
];
