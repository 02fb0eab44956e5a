//! The byte-key contract and the one default hasher, through every filter type.
//!
//! `hash_bytes` must be exactly the framing documented in `splitbloom::hash` (checked here from
//! the definition, with `xxhash-rust` directly), and every `*_bytes` entry point of every filter
//! type must agree with it, single and batched.

use splitbloom::parquet::ParquetHash;
use splitbloom::{
    AtomicFilter, CountingFilter, DefaultHasher, Error, Filter, FilterHasher, FilterRef, GxHash,
    GxHybrid, GxPlain, HasherKind, ScalableFilter, Xxh3Hash, Xxh3Plain,
};

/// XOR of the halves of the 128-bit product, as the hash module documents.
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// Keys of many lengths, including empty and long ones.
fn keys() -> Vec<Vec<u8>> {
    (0..300)
        .map(|len: usize| (0..len).map(|i| (i * 7 + len) as u8).collect())
        .collect()
}

#[test]
fn hash_bytes_follows_the_documented_framing() {
    for seed in [0, 1, 0xdead_beef_0bad_cafe] {
        let xxh3 = Xxh3Hash::with_seed(seed);
        let plain = Xxh3Plain::with_seed(seed);
        let parquet = ParquetHash::with_seed(seed);
        for key in keys() {
            // Id 4 (the default): XXH3 itself, nothing added; with seed 0, plain `xxh3_64`.
            let xxh3_of_key = xxhash_rust::xxh3::xxh3_64_with_seed(&key, seed);
            assert_eq!(plain.hash_bytes(&key), xxh3_of_key);
            if seed == 0 {
                assert_eq!(plain.hash_bytes(&key), xxhash_rust::xxh3::xxh3_64(&key));
            }
            // std's framing of `[u8]`, `Vec<u8>`, `str` and `String` adds nothing for id 4.
            let hasher = &plain;
            assert_eq!(
                core::hash::BuildHasher::hash_one(hasher, &key[..]),
                xxh3_of_key
            );
            assert_eq!(core::hash::BuildHasher::hash_one(hasher, &key), xxh3_of_key);
            let expected = fold(
                xxhash_rust::xxh3::xxh3_64_with_seed(&key, seed ^ 0x243f_6a88_85a3_08d3),
                0xd6e8_feb8_6659_fd93,
            );
            assert_eq!(xxh3.hash_bytes(&key), expected);
            assert_eq!(
                parquet.hash_bytes(&key),
                xxhash_rust::xxh64::xxh64(&key, seed)
            );
        }
    }
}

/// Every filter type answers the byte entry points with the same hashes, single and batched.
fn entry_points_agree<S: FilterHasher + core::fmt::Debug>(hasher: S) {
    let keys = keys();
    let present = &keys[..150];
    let mut filter = Filter::with_fpr_and_hasher(1000, 0.01, hasher.clone()).unwrap();
    for key in present {
        filter.insert_bytes(key);
        assert_eq!(filter.hash_bytes(key), hasher.hash_bytes(key));
    }
    let mut batched = Filter::with_fpr_and_hasher(1000, 0.01, hasher.clone()).unwrap();
    batched.insert_bytes_batch(present);
    assert_eq!(
        batched, filter,
        "insert_bytes_batch differs from insert_bytes"
    );
    let mut hashed = Filter::with_fpr_and_hasher(1000, 0.01, hasher.clone()).unwrap();
    for key in present {
        hashed.insert_hash(hasher.hash_bytes(key));
    }
    assert_eq!(
        hashed, filter,
        "insert_bytes differs from insert_hash(hash_bytes)"
    );

    let atomic =
        AtomicFilter::from(Filter::with_fpr_and_hasher(1000, 0.01, hasher.clone()).unwrap());
    atomic.insert_bytes_batch(present);
    assert_eq!(atomic.snapshot(), filter);
    let mut counting = CountingFilter::with_fpr_and_hasher(1000, 0.01, hasher.clone()).unwrap();
    counting.insert_bytes_batch(present);
    assert_eq!(counting.to_filter(), filter);
    let mut scalable = ScalableFilter::with_parameters(
        splitbloom::ScalableParameters::new(1000, 0.01),
        hasher.clone(),
    )
    .unwrap();
    scalable.insert_bytes_batch(present).unwrap();

    let serialized = filter.to_bytes();
    let view = FilterRef::<S>::from_bytes_with_hasher(&serialized).unwrap();
    let expected: Vec<bool> = keys.iter().map(|key| filter.contains_bytes(key)).collect();
    assert!(expected[..150].iter().all(|&found| found), "false negative");
    assert!(expected[150..].iter().filter(|&&found| found).count() < 10);
    for (index, key) in keys.iter().enumerate() {
        assert_eq!(view.contains_bytes(key), expected[index]);
        assert_eq!(atomic.contains_bytes(key), expected[index]);
        assert_eq!(counting.contains_bytes(key), expected[index]);
        assert_eq!(view.hash_bytes(key), filter.hash_bytes(key));
        assert_eq!(atomic.hash_bytes(key), filter.hash_bytes(key));
        assert_eq!(counting.hash_bytes(key), filter.hash_bytes(key));
        assert_eq!(scalable.hash_bytes(key), filter.hash_bytes(key));
    }
    assert!(present.iter().all(|key| scalable.contains_bytes(key)));
    let mut out = vec![false; keys.len()];
    filter.contains_bytes_batch(&keys, &mut out);
    assert_eq!(out, expected);
    view.contains_bytes_batch(&keys, &mut out);
    assert_eq!(out, expected);
    atomic.contains_bytes_batch(&keys, &mut out);
    assert_eq!(out, expected);
    counting.contains_bytes_batch(&keys, &mut out);
    assert_eq!(out, expected);
    scalable.contains_bytes_batch(&keys, &mut out);
    assert!(out[..150].iter().all(|&found| found));
}

#[test]
fn byte_entry_points_agree_for_every_hasher() {
    entry_points_agree(Xxh3Plain::with_seed(3));
    entry_points_agree(Xxh3Hash::with_seed(3));
    entry_points_agree(ParquetHash::default());
    if let Ok(hasher) = GxHash::new(3) {
        entry_points_agree(hasher);
    }
    if let Ok(hasher) = GxPlain::new(3) {
        entry_points_agree(hasher);
    }
    if let Ok(hasher) = GxHybrid::new(3) {
        entry_points_agree(hasher);
    }
}

/// `insert(&key)`, `contains(&key)` and the batch forms (of `Filter`; `insert` of
/// `AtomicFilter`, `CountingFilter` and `ScalableFilter`) hash a key as `hasher.hash_one(&key)`,
/// whatever the hasher (std's own included) and key type: the filters hash byte-string keys
/// through `hash_bytes` for the hashers where that is the same value, and this fails if they
/// did so for any other.
fn keys_hash_as_hash_one<S: core::hash::BuildHasher + Clone>(hasher: S) {
    let texts: Vec<String> = (0..40)
        .map(|len| {
            (0..len)
                .map(|i| char::from(b'a' + ((i * 7 + len) % 26) as u8))
                .collect()
        })
        .collect();
    let bytes: Vec<Vec<u8>> = texts.iter().map(|text| text.clone().into_bytes()).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Filters built from `hash_one`, queried through `Hash`; and the other way round.
    let mut by_hash = Filter::with_num_blocks_and_hasher(4096, hasher.clone()).unwrap();
    let mut by_key = Filter::with_num_blocks_and_hasher(4096, hasher.clone()).unwrap();
    let atomic = AtomicFilter::from(by_key.clone());
    let mut counting = CountingFilter::with_num_blocks_and_hasher(4096, hasher.clone()).unwrap();
    let mut scalable = ScalableFilter::with_parameters(
        splitbloom::ScalableParameters::new(1000, 0.01),
        hasher.clone(),
    )
    .unwrap();
    for (index, text) in texts.iter().enumerate() {
        for hash in [
            hasher.hash_one(text.as_str()),
            hasher.hash_one(text),
            hasher.hash_one(&bytes[index][..]),
            hasher.hash_one(&bytes[index]),
            hasher.hash_one((index as u32, text.as_str())),
        ] {
            by_hash.insert_hash(hash);
        }
        by_key.insert(text.as_str());
        by_key.insert(text);
        by_key.insert(&bytes[index][..]);
        by_key.insert(&bytes[index]);
        by_key.insert(&(index as u32, text.as_str()));
        atomic.insert(text.as_str());
        counting.insert(&bytes[index][..]);
        scalable.insert(text).unwrap();
    }
    let mut batched = Filter::with_num_blocks_and_hasher(4096, hasher.clone()).unwrap();
    batched.insert_batch(&texts);
    batched.insert_batch(&bytes);
    batched.insert_batch(&refs);
    assert!(
        by_key.as_words() == by_hash.as_words(),
        "insert(&key) is not insert_hash(hash_one(&key))"
    );
    for (index, text) in texts.iter().enumerate() {
        assert!(by_hash.contains(text.as_str()) && by_hash.contains(text));
        assert!(by_hash.contains(&bytes[index][..]) && by_hash.contains(&bytes[index]));
        assert!(by_hash.contains(&refs[index]));
        assert!(atomic.contains_hash(hasher.hash_one(text.as_str())));
        assert!(counting.contains_hash(hasher.hash_one(&bytes[index][..])));
        assert!(scalable.contains_hash(hasher.hash_one(text)));
        assert!(batched.contains_hash(hasher.hash_one(text)));
        assert!(batched.contains_hash(hasher.hash_one(&bytes[index])));
        assert!(batched.contains_hash(hasher.hash_one(refs[index])));
    }
    let mut out = vec![false; texts.len()];
    by_hash.contains_batch(&texts, &mut out);
    assert!(out.iter().all(|&found| found));
    by_hash.contains_batch(&bytes, &mut out);
    assert!(out.iter().all(|&found| found));
}

#[test]
fn keys_hash_as_hash_one_for_every_hasher() {
    keys_hash_as_hash_one(Xxh3Plain::with_seed(3));
    keys_hash_as_hash_one(Xxh3Hash::with_seed(3));
    keys_hash_as_hash_one(ParquetHash::default());
    keys_hash_as_hash_one(std::hash::RandomState::new());
    if let Ok(hasher) = GxHash::new(3) {
        keys_hash_as_hash_one(hasher);
    }
    if let Ok(hasher) = GxPlain::new(3) {
        keys_hash_as_hash_one(hasher);
    }
    if let Ok(hasher) = GxHybrid::new(3) {
        keys_hash_as_hash_one(hasher);
    }
}

/// Strings: `insert_bytes(s.as_bytes())` is the stable form. With the default hasher (id 4),
/// `insert(s)` gives the same hash under std's framing today; with id 2 it is a different
/// (in-process) hash.
#[test]
fn str_keys_use_the_byte_contract_explicitly() {
    let mut filter = Filter::with_num_blocks(64).unwrap();
    filter.insert_bytes("apple".as_bytes());
    assert!(filter.contains_bytes(b"apple"));
    assert!(filter.contains("apple"));
    assert!(filter.contains(&b"apple"[..]));
    assert_eq!(
        filter.hash_bytes(b"apple"),
        core::hash::BuildHasher::hash_one(filter.hasher(), "apple")
    );
    let legacy = Filter::with_num_blocks_and_hasher(64, Xxh3Hash::default()).unwrap();
    assert_ne!(
        legacy.hash_bytes(b"apple"),
        core::hash::BuildHasher::hash_one(legacy.hasher(), "apple")
    );
}

/// Files written with id 2 (the default of earlier versions) open by naming `Xxh3Hash`, and
/// reading them as the default type is an error that names the type to use.
#[test]
fn xxh3_id_2_files_open_by_naming_their_type() {
    let mut old = Filter::with_num_blocks_and_hasher(16, Xxh3Hash::default()).unwrap();
    old.insert_bytes(b"kept");
    old.insert(&7u64);
    let bytes = old.to_bytes();
    let view = FilterRef::<Xxh3Hash>::from_bytes_with_hasher(&bytes).unwrap();
    assert!(view.contains_bytes(b"kept") && view.contains(&7u64));
    assert_eq!(
        Filter::<Xxh3Hash>::from_bytes_with_hasher(&bytes).unwrap(),
        old
    );
    let error = FilterRef::<DefaultHasher>::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        error,
        Error::HasherKindMismatch {
            expected: HasherKind::Xxh3Plain,
            found: HasherKind::Xxh3
        }
    );
    let message = error.to_string();
    assert!(message.contains("splitbloom::Xxh3Hash"), "{message}");
    assert!(message.contains("id 2"), "{message}");
}

/// `bytes` (a serialized filter) with hasher id `id` in its header and the checksum re-sealed.
fn with_hasher_id(mut bytes: Vec<u8>, id: u8) -> Vec<u8> {
    bytes[6] = id;
    let mut state = xxhash_rust::xxh3::Xxh3Default::new();
    state.update(&bytes[..24]);
    state.update(&bytes[32..]);
    let checksum = state.digest();
    bytes[24..32].copy_from_slice(&checksum.to_le_bytes());
    bytes
}

/// A filter of gxhash hasher `S` (id 5 or 6) records its id, opens as `FilterRef<S>` and
/// `Filter<S>` with the same answers, and is a mismatch naming `S` for any other type; where
/// gxhash cannot run, a file of its id is `HasherUnavailable`.
fn gx_filters_round_trip_where_gxhash_runs<S: FilterHasher + core::fmt::Debug>() {
    let kind = S::KIND;
    assert_eq!(HasherKind::from_id(kind.id()), Some(kind));
    let Ok(hasher) = S::try_with_seed(11) else {
        assert!(!kind.is_available());
        let bytes = with_hasher_id(Filter::with_num_blocks(4).unwrap().to_bytes(), kind.id());
        assert_eq!(
            FilterRef::<S>::from_bytes_with_hasher(&bytes).unwrap_err(),
            Error::HasherUnavailable(kind)
        );
        assert_eq!(
            Filter::<S>::from_bytes_with_hasher(&bytes).unwrap_err(),
            Error::HasherUnavailable(kind)
        );
        return;
    };
    let keys = keys();
    let mut filter = Filter::with_fpr_and_hasher(300, 0.01, hasher.clone()).unwrap();
    for key in &keys[..150] {
        filter.insert_bytes(key);
    }
    filter.insert(&7u64);
    filter.insert("text");
    let bytes = filter.to_bytes();
    assert_eq!(bytes[6], kind.id(), "hasher id in the header");
    let view = FilterRef::<S>::from_bytes_with_hasher(&bytes).unwrap();
    assert_eq!(view.hasher(), &hasher);
    let owned = Filter::<S>::from_bytes_with_hasher(&bytes).unwrap();
    assert_eq!(owned, filter);
    for key in &keys {
        assert_eq!(view.contains_bytes(key), filter.contains_bytes(key));
        assert_eq!(owned.contains_bytes(key), filter.contains_bytes(key));
    }
    assert!(keys[..150].iter().all(|key| view.contains_bytes(key)));
    assert!(view.contains(&7u64) && view.contains("text") && view.contains_bytes(b"text"));
    let error = FilterRef::<DefaultHasher>::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        error,
        Error::HasherKindMismatch {
            expected: HasherKind::Xxh3Plain,
            found: kind
        }
    );
    assert!(error.to_string().contains(kind.type_name()), "{error}");
    assert!(matches!(
        FilterRef::<GxHash>::from_bytes_with_hasher(&bytes),
        Err(Error::HasherKindMismatch { .. })
    ));
}

#[test]
fn gx_plain_filters_round_trip_where_gxhash_runs() {
    assert_eq!(HasherKind::GxPlain.id(), 5);
    gx_filters_round_trip_where_gxhash_runs::<GxPlain>();
}

#[test]
fn gx_hybrid_filters_round_trip_where_gxhash_runs() {
    assert_eq!(HasherKind::GxHybrid.id(), 6);
    assert_eq!(HasherKind::GxHybrid.type_name(), "splitbloom::GxHybrid");
    gx_filters_round_trip_where_gxhash_runs::<GxHybrid>();
    // Ids 5 and 6 are different contracts: neither opens as the other.
    if let (Ok(hybrid), Ok(_)) = (GxHybrid::new(0), GxPlain::new(0)) {
        let bytes = Filter::with_num_blocks_and_hasher(4, hybrid)
            .unwrap()
            .to_bytes();
        assert_eq!(
            FilterRef::<GxPlain>::from_bytes_with_hasher(&bytes).unwrap_err(),
            Error::HasherKindMismatch {
                expected: HasherKind::GxPlain,
                found: HasherKind::GxHybrid
            }
        );
    }
}

/// The default hasher is XXH3 in every build, and a gxhash filter (written by earlier `+aes`
/// builds) opens as `FilterRef<GxHash>` exactly where gxhash can run.
#[test]
fn gxhash_filters_open_where_gxhash_runs() {
    assert_eq!(DefaultHasher::KIND, HasherKind::Xxh3Plain);
    let mut bytes = Filter::with_num_blocks(4).unwrap().to_bytes();
    bytes[6] = HasherKind::GxHash.id();
    // Re-seal the checksum over the changed header.
    let mut state = xxhash_rust::xxh3::Xxh3Default::new();
    state.update(&bytes[..24]);
    state.update(&bytes[32..]);
    let checksum = state.digest();
    bytes[24..32].copy_from_slice(&checksum.to_le_bytes());
    let opened = FilterRef::<GxHash>::from_bytes_with_hasher(&bytes);
    if HasherKind::GxHash.is_available() {
        assert!(opened.is_ok());
        assert!(Filter::<GxHash>::from_bytes_with_hasher(&bytes).is_ok());
    } else {
        assert_eq!(
            opened.unwrap_err(),
            Error::HasherUnavailable(HasherKind::GxHash)
        );
        assert_eq!(
            Filter::<GxHash>::from_bytes_with_hasher(&bytes).unwrap_err(),
            Error::HasherUnavailable(HasherKind::GxHash)
        );
    }
}

/// The README's known-answer table (key bytes → hash → block index in a 1024-block filter →
/// lane mask), for every hasher id with seed 0, pinned here; `the_readme_known_answers_hold`
/// parses the README's table and checks it against these rows, so the README cannot drift. The
/// id-4 rows were also computed outside this crate, with Python's `xxhash` 4.1.0
/// (`xxhash.xxh3_64_intdigest(key)`, block `((h >> 32) * 1024) >> 32`, lane `i` bit
/// `((h & 0xffffffff) * SALT[i] & 0xffffffff) >> 27`), giving the same values. The id-5 hashes
/// were computed with the `gxhash` crate's `gxhash64` on explicitly padded keys (as for
/// `GX_PLAIN_BYTES` in `tests/suite/hash_known_answers.rs`), and their blocks and masks with the same
/// Python formulas. Id 6 has no rows of its own here: by its definition its rows are the id-4
/// rows for the keys under 16 bytes and the id-5 row for the 16-byte key.
/// One row: hasher id, key bytes, 64-bit hash, block index, lane mask.
type KnownAnswer = (u8, &'static [u8], u64, usize, [u32; 8]);

const KNOWN_ANSWERS: &[KnownAnswer] = &[
    (
        1,
        b"",
        0xbf14da07cab8bbb2,
        764,
        [
            0x20000000, 0x00001000, 0x08000000, 0x00000001, 0x00040000, 0x00000001, 0x00010000,
            0x00000800,
        ],
    ),
    (
        1,
        b"a",
        0x201f69059473e2dd,
        128,
        [
            0x00010000, 0x00004000, 0x00001000, 0x00000020, 0x80000000, 0x02000000, 0x20000000,
            0x00000100,
        ],
    ),
    (
        1,
        b"splitbloom",
        0xa0b67119c25f674c,
        642,
        [
            0x80000000, 0x10000000, 0x00004000, 0x00000002, 0x01000000, 0x00000010, 0x00400000,
            0x00000080,
        ],
    ),
    (
        1,
        b"0123456789abcdef",
        0xc7b16962eeacde9f,
        798,
        [
            0x08000000, 0x00800000, 0x00004000, 0x00000010, 0x01000000, 0x00000001, 0x01000000,
            0x00000800,
        ],
    ),
    (
        2,
        b"",
        0xb31134492bad73f3,
        716,
        [
            0x00200000, 0x08000000, 0x00000010, 0x00020000, 0x00000100, 0x00001000, 0x00400000,
            0x00000040,
        ],
    ),
    (
        2,
        b"a",
        0x017a4944ceeda011,
        5,
        [
            0x00040000, 0x00080000, 0x00200000, 0x00000040, 0x00000008, 0x00020000, 0x00000040,
            0x00080000,
        ],
    ),
    (
        2,
        b"splitbloom",
        0x3af87803e830ea1d,
        235,
        [
            0x00200000, 0x00000001, 0x20000000, 0x00800000, 0x00004000, 0x00000010, 0x00400000,
            0x00200000,
        ],
    ),
    (
        2,
        b"0123456789abcdef",
        0xa2f38de416ce6d00,
        651,
        [
            0x01000000, 0x00000200, 0x20000000, 0x00000020, 0x00100000, 0x00010000, 0x00008000,
            0x00000400,
        ],
    ),
    (
        3,
        b"",
        0xef46db3751d8e999,
        957,
        [
            0x20000000, 0x00000001, 0x02000000, 0x10000000, 0x00004000, 0x00400000, 0x20000000,
            0x40000000,
        ],
    ),
    (
        3,
        b"a",
        0xd24ec4f1a98c6e5b,
        841,
        [
            0x00040000, 0x00020000, 0x00000002, 0x00001000, 0x00020000, 0x01000000, 0x08000000,
            0x80000000,
        ],
    ),
    (
        3,
        b"splitbloom",
        0x40e1863d539a3949,
        259,
        [
            0x00040000, 0x20000000, 0x01000000, 0x00010000, 0x00008000, 0x00000001, 0x00080000,
            0x00001000,
        ],
    ),
    (
        3,
        b"0123456789abcdef",
        0x5c5b90c34e376d0b,
        369,
        [
            0x00000100, 0x00000040, 0x00002000, 0x00020000, 0x00100000, 0x02000000, 0x00100000,
            0x08000000,
        ],
    ),
    (
        4,
        b"",
        0x2d06800538d394c2,
        180,
        [
            0x00040000, 0x00000008, 0x00000020, 0x00000001, 0x00000001, 0x00000400, 0x00000100,
            0x00000080,
        ],
    ),
    (
        4,
        b"a",
        0xe6c632b61e964e1f,
        923,
        [
            0x80000000, 0x08000000, 0x10000000, 0x00400000, 0x00004000, 0x00400000, 0x00001000,
            0x00000001,
        ],
    ),
    (
        4,
        b"splitbloom",
        0xb3ea5d30bbfac6aa,
        719,
        [
            0x00000400, 0x00000080, 0x00020000, 0x00000002, 0x00100000, 0x00100000, 0x00000010,
            0x80000000,
        ],
    ),
    (
        4,
        b"0123456789abcdef",
        0x64439946d8fa212d,
        401,
        [
            0x10000000, 0x00100000, 0x00800000, 0x00000400, 0x04000000, 0x00000040, 0x20000000,
            0x04000000,
        ],
    ),
    (
        5,
        b"",
        0xad8f372ca53d9274,
        694,
        [
            0x00000100, 0x00000200, 0x00040000, 0x00000002, 0x00000004, 0x00020000, 0x00000010,
            0x10000000,
        ],
    ),
    (
        5,
        b"a",
        0xb8736b23efabe378,
        737,
        [
            0x20000000, 0x00008000, 0x00000004, 0x00001000, 0x00008000, 0x01000000, 0x00004000,
            0x00080000,
        ],
    ),
    (
        5,
        b"splitbloom",
        0x2e2669935d51a5aa,
        184,
        [
            0x04000000, 0x00000200, 0x40000000, 0x80000000, 0x02000000, 0x00000080, 0x00000020,
            0x00000100,
        ],
    ),
    (
        5,
        b"0123456789abcdef",
        0x5dd6458b89683784,
        375,
        [
            0x04000000, 0x80000000, 0x00000040, 0x01000000, 0x00002000, 0x00040000, 0x40000000,
            0x00000008,
        ],
    ),
];

/// The keys of the known-answer table.
const KNOWN_KEYS: [&[u8]; 4] = [b"", b"a", b"splitbloom", b"0123456789abcdef"];

/// The pinned row that `(id, key)` must equal: its own, or for id 6 id 4's under 16 bytes and
/// id 5's at 16.
fn pinned_row(id: u8, key: &[u8]) -> Option<&'static KnownAnswer> {
    let pinned_id = match id {
        6 if key.len() < 16 => 4,
        6 => 5,
        id => id,
    };
    KNOWN_ANSWERS
        .iter()
        .find(|row| row.0 == pinned_id && row.1 == key)
}

/// One row of the README's table: hasher id, key bytes, 64-bit hash, block index, lane mask.
type ReadmeRow = (u8, Vec<u8>, u64, usize, [u32; 8]);

/// The README's known-answer table, parsed: `| id | key | `h` | block | `lane mask` |` rows.
fn readme_known_answers() -> Vec<ReadmeRow> {
    let readme = include_str!("../../README.md");
    let mut rows = Vec::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [id, key, hash, block, mask] = cells[..] else {
            continue;
        };
        let (Ok(id), Some(hash), Ok(block)) = (
            id.parse::<u8>(),
            hash.strip_prefix('`')
                .and_then(|hash| hash.strip_suffix('`')),
            block.parse::<usize>(),
        ) else {
            continue;
        };
        let Ok(hash) = u64::from_str_radix(hash, 16) else {
            continue;
        };
        let key = match key {
            "(empty)" => Vec::new(),
            key => key.trim_matches('`').as_bytes().to_vec(),
        };
        let lanes: Vec<u32> = mask
            .trim_matches('`')
            .split(' ')
            .map(|lane| u32::from_str_radix(lane, 16).unwrap())
            .collect();
        rows.push((id, key, hash, block, lanes.try_into().unwrap()));
    }
    rows
}

#[test]
fn the_readme_known_answers_hold() {
    let mut rows = Vec::new();
    let mut add = |id: u8, hash: &dyn Fn(&[u8]) -> u64| {
        for key in KNOWN_KEYS {
            let h = hash(key);
            rows.push((
                id,
                key,
                h,
                splitbloom::block_index(h, 1024),
                splitbloom::mask(h as u32),
            ));
        }
    };
    if let Ok(gx) = GxHash::new(0) {
        add(1, &|key| gx.hash_bytes(key));
    }
    add(2, &|key| Xxh3Hash::default().hash_bytes(key));
    add(3, &|key| ParquetHash::default().hash_bytes(key));
    add(4, &|key| Xxh3Plain::default().hash_bytes(key));
    if let Ok(gx) = GxPlain::new(0) {
        add(5, &|key| gx.hash_bytes(key));
    }
    if let Ok(gx) = GxHybrid::new(0) {
        add(6, &|key| gx.hash_bytes(key));
    }
    for (id, key, h, block, mask) in &rows {
        let lanes: Vec<String> = mask.iter().map(|lane| format!("{lane:08x}")).collect();
        println!(
            "| {id} | `{}` | `{h:016x}` | {block} | `{}` |",
            String::from_utf8_lossy(key),
            lanes.join(" ")
        );
    }
    for &(id, key, hash, block, mask) in &rows {
        assert_eq!(
            pinned_row(id, key).map(|row| (row.2, row.3, row.4)),
            Some((hash, block, mask)),
            "id {id}, key {:?}: not the pinned row",
            String::from_utf8_lossy(key)
        );
    }
    let expected_rows = if HasherKind::GxHash.is_available() {
        24
    } else {
        12
    };
    assert_eq!(rows.len(), expected_rows);
    // The README's table is exactly the pinned rows, ids 1 to 6, whichever this build computes.
    let readme = readme_known_answers();
    assert_eq!(
        readme.len(),
        6 * KNOWN_KEYS.len(),
        "the README's known-answer rows"
    );
    for (id, key, hash, block, mask) in &readme {
        let pinned = pinned_row(*id, key);
        assert_eq!(
            pinned.map(|row| (row.2, row.3, row.4)),
            Some((*hash, *block, *mask)),
            "README row for id {id}, key {:?}",
            String::from_utf8_lossy(key)
        );
    }
    for id in 1..=6 {
        for key in KNOWN_KEYS {
            assert!(
                readme.iter().any(|row| row.0 == id && row.1 == key),
                "the README has no row for id {id}, key {:?}",
                String::from_utf8_lossy(key)
            );
        }
    }
}
