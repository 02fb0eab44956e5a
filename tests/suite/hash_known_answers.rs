//! Every hasher's output, pinned: filters already written (hasher ids 1 to 6) must keep
//! answering exactly as they did, so no hash of any key may ever change.
//!
//! The values of ids 1 to 3 were computed on main at af4e2b5 (before the hashing contract
//! changed), in an x86_64 `+aes` build, so that gxhash was available. Those of id 4 were computed
//! outside this crate, from the definition in `splitbloom::hash`, with Python's `xxhash` package
//! (see [`XXH3_PLAIN`]). Those of id 5 for lengths 0..=40 were computed from its definition with
//! the `gxhash` crate alone (see [`GX_PLAIN_BYTES`]); its digest table (all lengths, integers,
//! every entry point) was then pinned from this crate, when id 5 was added. Id 6's byte contract
//! is checked against xxhash-rust under 16 bytes and id 5's literals from 16 to 40, and its
//! digest table pinned from this crate when it was added. Each table hashes keys of every length
//! 0..=300 (plus integers) through each way a key reaches a hasher, and pins an XXH3-64 digest of
//! all outputs, plus a few single values so a mismatch is easy to read.

use core::hash::{BuildHasher, Hasher};

use splitbloom::parquet::ParquetHash;
use splitbloom::{Error, FilterHasher, GxHash, GxHybrid, GxPlain, HasherKind, Xxh3Hash, Xxh3Plain};

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
fn xxh3_plain_outputs_never_change() {
    let hashers = SEEDS.map(Xxh3Plain::with_seed);
    check("xxh3-plain", &hashers, &XXH3_PLAIN);
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

/// Id 5's byte contract for key `key(len)`, lengths 0..=40, at each seed of [`SEEDS`]: computed
/// from the definition (`gxhash64(b, seed ^ len)`, `b` the key zero-padded to 16 bytes when
/// shorter) with the `gxhash` crate's `gxhash64` (3.5) on an explicitly padded copy, in an
/// x86_64 `+aes` build, independently of this crate's hashing code, and pasted here.
const GX_PLAIN_BYTES: [[u64; 41]; 2] = [
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

/// Gxhash hasher `S` (id 5 or 6) against `expected(seed index, length, key)` at every length
/// 0..=40 (the padding boundary and both sides of it), through `hash_bytes`, one write, and the
/// `[u8]` and `Vec<u8>` keys of std's `Hash`; where gxhash cannot run, unavailable with the
/// error naming it.
fn gx_byte_contract_holds<S: FilterHasher + core::fmt::Debug>(
    expected: impl Fn(usize, usize, &[u8]) -> u64,
) {
    if !S::KIND.is_available() {
        assert_eq!(
            S::try_with_seed(0).unwrap_err(),
            Error::HasherUnavailable(S::KIND)
        );
        println!("gxhash is not available in this build: nothing to check");
        return;
    }
    for (index, seed) in SEEDS.into_iter().enumerate() {
        let hasher = S::try_with_seed(seed).unwrap();
        for len in 0..=40 {
            let bytes = key(len);
            let expected = expected(index, len, &bytes);
            assert_eq!(
                hasher.hash_bytes(&bytes),
                expected,
                "{:?}, seed {seed:#x}, length {len}",
                S::KIND
            );
            assert_eq!(one_write(&hasher, &bytes), expected);
            assert_eq!(hasher.hash_one(&bytes[..]), expected);
            assert_eq!(hasher.hash_one(&bytes), expected);
        }
    }
}

/// Gxhash hasher `S` through every entry point against its table `expected`, pinned when it
/// was added; nothing to check where gxhash cannot run.
fn gx_outputs_never_change<S: FilterHasher>(name: &str, expected: &[(u64, [u64; 6])]) {
    let Ok(first) = S::try_with_seed(SEEDS[0]) else {
        println!("gxhash is not available in this build: nothing to check");
        return;
    };
    let hashers = [first, S::try_with_seed(SEEDS[1]).unwrap()];
    check(name, &hashers, expected);
}

/// Id 5 (`GxPlain`): its byte contract equals the literals above.
#[test]
fn gx_plain_known_answers() {
    gx_byte_contract_holds::<GxPlain>(|seed, len, _| GX_PLAIN_BYTES[seed][len]);
}

/// Id 5 through every entry point (its byte contract is checked against independent literals
/// in [`gx_plain_known_answers`]).
#[test]
fn gx_plain_outputs_never_change() {
    gx_outputs_never_change::<GxPlain>("gxhash-plain", &GX_PLAIN);
}

/// Id 6 (`GxHybrid`): under 16 bytes its byte contract is xxhash-rust's XXH3 of the key, and
/// from 16 to 40 bytes it equals id 5's independent literals above (the two agree there by
/// definition).
#[test]
fn gx_hybrid_known_answers() {
    gx_byte_contract_holds::<GxHybrid>(|seed, len, bytes| {
        if len < 16 {
            xxhash_rust::xxh3::xxh3_64_with_seed(bytes, SEEDS[seed])
        } else {
            GX_PLAIN_BYTES[seed][len]
        }
    });
}

/// Id 6 through every entry point (its byte contract is checked against independent values
/// in [`gx_hybrid_known_answers`]).
#[test]
fn gx_hybrid_outputs_never_change() {
    gx_outputs_never_change::<GxHybrid>("gxhash-hybrid", &GX_HYBRID);
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
        same(Xxh3Plain::with_seed(seed));
        same(ParquetHash::with_seed(seed));
        if let Ok(hasher) = GxHash::new(seed) {
            same(hasher);
        }
        if let Ok(hasher) = GxPlain::new(seed) {
            same(hasher);
        }
        if let Ok(hasher) = GxHybrid::new(seed) {
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

/// Hasher id 4, computed independently of this crate, from the definition in
/// `splitbloom::hash` (XXH3_64_withSeed for bytes, `fold(a, rotl(a, 32) ^ 0x9e3779b97f4a7c15)`
/// with `a = state ^ w ^ 0x243f6a8885a308d3` per integer word), by this script, run with Python's `xxhash` 4.1.0
/// (libxxhash 0.8.4) as `python3 -m venv v && v/bin/pip install xxhash && v/bin/python id4.py`:
///
/// ```text
/// import struct, xxhash
/// M = (1 << 64) - 1
/// K, MIX = 0x243F6A8885A308D3, 0x9E3779B97F4A7C15
/// def fold(a, b):
///     p = a * b
///     return (p & M) ^ (p >> 64)
/// def fw(state, word):
///     a = state ^ word ^ K
///     return fold(a, ((a << 32) | (a >> 32)) & M ^ MIX)
/// def xxh3(data, seed):
///     return xxhash.xxh3_64_intdigest(data, seed=seed)
/// def key(n):
///     return bytes(((i % 256) * 31 + 7) % 256 for i in range(n))
/// def text(n):
///     return bytes(ord('a') + i % 26 for i in range(n))
/// def outputs(seed):
///     out = []
///     for n in range(301):
///         b, t = key(n), text(n)
///         out += [xxh3(b, seed), xxh3(b, seed), xxh3(t, seed), xxh3(t, seed), xxh3(b, seed)]
///     for v in [0, 1, 2, 0xFF, 0x12345678, M, 0x8000000000000000]:
///         out += [fw(seed, v), fw(seed, v & 0xFF), fw(seed, v & 0xFFFF), fw(seed, v & 0xFFFFFFFF),
///                 fw(seed, v), fw(seed, v), fw(fw(seed, 7), v), fw(fw(seed, v), v & 0xFFFFFFFF)]
///     out += [fw(seed, 1), fw(seed, ord('x'))]
///     return out
/// for seed in [0, 0x0123456789ABCDEF]:
///     digest = xxh3(b"".join(struct.pack("<Q", v) for v in outputs(seed)), 0)
///     samples = [xxh3(b"", seed), xxh3(b"splitbloom", seed), xxh3(key(16), seed),
///                xxh3(b"splitbloom", seed), xxh3(b"splitbloom", seed), fw(seed, 42)]
///     print(f"({digest:#018x}, [{', '.join(f'{s:#018x}' for s in samples)}]),")
/// ```
const XXH3_PLAIN: [(u64, [u64; 6]); 2] = [
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

/// Pinned from this crate when id 5 was added (see the module docs).
const GX_PLAIN: [(u64, [u64; 6]); 2] = [
    (
        0x24a9792e5fa7d97b,
        [
            0xad8f372ca53d9274,
            0x2e2669935d51a5aa,
            0xc5e6439ae5a324cc,
            0x2e2669935d51a5aa,
            0x2e2669935d51a5aa,
            0xbb79f4c683579eea,
        ],
    ),
    (
        0x442c0ed39d9dfe87,
        [
            0xde2f019fb761d786,
            0xea926db7fa378423,
            0xe02661037eb121c4,
            0xea926db7fa378423,
            0xea926db7fa378423,
            0x298c023eb69b2d31,
        ],
    ),
];

/// Pinned from this crate when id 6 was added (see the module docs).
/// Its samples, by definition: the empty key, "splitbloom" and the integer as id 4, the 16-byte
/// key as id 5.
const GX_HYBRID: [(u64, [u64; 6]); 2] = [
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
