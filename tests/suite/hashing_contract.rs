//! The byte contract and the one rule for strings, through every filter type.
//!
//! `hash_bytes` must be exactly the framing documented in `splitbloom::hash` (checked here from
//! the definition, with `xxhash-rust` directly), every `*_bytes` entry point of every filter
//! type must agree with it, single and batched, and a string or byte-string key of any type
//! must hash as its bytes, with every hasher.

use splitbloom::parquet::ParquetHash;
use splitbloom::{
    AtomicFilter, CountingFilter, Error, Filter, FilterHasher, FilterRef, GxHash, HasherKind,
    ScalableFilter, Xxh3,
};

/// Keys of many lengths, including empty and long ones.
fn keys() -> Vec<Vec<u8>> {
    (0..300)
        .map(|len: usize| (0..len).map(|i| (i * 7 + len) as u8).collect())
        .collect()
}

#[test]
fn hash_bytes_follows_the_documented_framing() {
    for seed in [0, 1, 0xdead_beef_0bad_cafe] {
        let plain = Xxh3::with_seed(seed);
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
            // Id 3: XXH64, and std's framing adds nothing either.
            let xxh64_of_key = xxhash_rust::xxh64::xxh64(&key, seed);
            assert_eq!(parquet.hash_bytes(&key), xxh64_of_key);
            assert_eq!(
                core::hash::BuildHasher::hash_one(&parquet, &key[..]),
                xxh64_of_key
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
    let view = FilterRef::<S>::from_bytes_with_hasher_type(&serialized).unwrap();
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
    entry_points_agree(Xxh3::with_seed(3));
    entry_points_agree(ParquetHash::default());
    if let Ok(hasher) = GxHash::new(3) {
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
    keys_hash_as_hash_one(Xxh3::with_seed(3));
    keys_hash_as_hash_one(ParquetHash::default());
    keys_hash_as_hash_one(std::hash::RandomState::new());
    if let Ok(hasher) = GxHash::new(3) {
        keys_hash_as_hash_one(hasher);
    }
}

/// The one rule for strings: with every hasher, `insert(&key)` of a string or byte-string key of
/// any type sets exactly the bits `insert_bytes` of its bytes sets, in every filter type, and
/// `contains` of every such type finds a key inserted through the byte contract.
fn strings_hash_as_their_bytes<S: FilterHasher + core::fmt::Debug>(hasher: S) {
    use std::borrow::Cow;
    use std::rc::Rc;
    for len in [0usize, 1, 3, 4, 15, 16, 17, 100, 241, 300] {
        let text: String = (0..len)
            .map(|i| char::from(b'a' + ((i * 7 + len) % 26) as u8))
            .collect();
        let bytes = text.as_bytes();
        let new = || Filter::with_num_blocks_and_hasher(256, hasher.clone()).unwrap();
        let mut expected = new();
        expected.insert_bytes(bytes);
        let by_key = |insert: &dyn Fn(&mut Filter<S>) -> bool| {
            let mut filter = new();
            insert(&mut filter);
            filter
        };
        let cases: [(&str, Filter<S>); 12] = [
            ("str", by_key(&|f| f.insert(text.as_str()))),
            ("&str", by_key(&|f| f.insert(&text.as_str()))),
            ("&&str", by_key(&|f| f.insert(&&text.as_str()))),
            ("String", by_key(&|f| f.insert(&text))),
            ("&String", by_key(&|f| f.insert(&&text))),
            ("[u8]", by_key(&|f| f.insert(bytes))),
            ("&[u8]", by_key(&|f| f.insert(&bytes))),
            ("Vec<u8>", by_key(&|f| f.insert(&bytes.to_vec()))),
            (
                "Box<str>",
                by_key(&|f| f.insert(&Box::<str>::from(text.as_str()))),
            ),
            (
                "Cow<str>",
                by_key(&|f| f.insert(&Cow::Borrowed(text.as_str()))),
            ),
            (
                "Rc<str>",
                by_key(&|f| f.insert(&Rc::<str>::from(text.as_str()))),
            ),
            (
                "Box<[u8]>",
                by_key(&|f| f.insert(&Box::<[u8]>::from(bytes))),
            ),
        ];
        for (name, filter) in &cases {
            assert!(
                filter.as_words() == expected.as_words(),
                "{:?}: insert(&{name}) of {len} bytes is not insert_bytes",
                S::KIND
            );
        }
        // A byte array hashes as its bytes too.
        let fixed: [u8; 4] = core::array::from_fn(|i| bytes.get(i).copied().unwrap_or(b'x'));
        let mut fixed_expected = new();
        fixed_expected.insert_bytes(&fixed);
        let array = by_key(&|f| f.insert(&fixed));
        assert!(array.as_words() == fixed_expected.as_words(), "[u8; 4]");
        // Every filter type, and lookups of every form.
        let atomic = AtomicFilter::from(new());
        atomic.insert(&text.as_str());
        assert!(atomic.contains_bytes(bytes), "{:?} AtomicFilter", S::KIND);
        let mut counting = CountingFilter::with_num_blocks_and_hasher(256, hasher.clone()).unwrap();
        counting.insert(&text);
        assert!(
            counting.contains_bytes(bytes),
            "{:?} CountingFilter",
            S::KIND
        );
        let mut scalable = ScalableFilter::with_parameters(
            splitbloom::ScalableParameters::new(100, 0.01),
            hasher.clone(),
        )
        .unwrap();
        scalable.insert(&text.as_str()).unwrap();
        assert!(
            scalable.contains_bytes(bytes),
            "{:?} ScalableFilter",
            S::KIND
        );
        assert!(expected.contains(text.as_str()) && expected.contains(&text.as_str()));
        assert!(expected.contains(&text) && expected.contains(bytes));
        let mut found = [false; 2];
        expected.contains_batch(&[text.as_str(), text.as_str()], &mut found);
        assert_eq!(found, [true, true]);
        let mut batched = new();
        batched.insert_batch(&[text.as_str()]);
        assert!(
            batched.as_words() == expected.as_words(),
            "insert_batch(&[&str])"
        );
        assert_eq!(
            core::hash::BuildHasher::hash_one(&hasher, text.as_str()),
            hasher.hash_bytes(bytes)
        );
    }
}

#[test]
fn strings_hash_as_their_bytes_for_every_hasher() {
    strings_hash_as_their_bytes(Xxh3::default());
    strings_hash_as_their_bytes(Xxh3::with_seed(5));
    strings_hash_as_their_bytes(ParquetHash::default());
    match GxHash::new(5) {
        Ok(hasher) => strings_hash_as_their_bytes(hasher),
        Err(error) => assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHash)),
    }
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

/// A filter of gxhash hasher `S` records its id, opens as `FilterRef<S>` and
/// `Filter<S>` with the same answers, and is a mismatch naming `S` for any other type; where
/// gxhash cannot run, a file of its id is `HasherUnavailable`.
fn gx_filters_round_trip_where_gxhash_runs<S: FilterHasher + core::fmt::Debug>() {
    let kind = S::KIND;
    assert_eq!(HasherKind::from_id(kind.id()), Some(kind));
    let Ok(hasher) = S::try_with_seed(11) else {
        assert!(!kind.is_available());
        let bytes = with_hasher_id(Filter::with_num_blocks(4).unwrap().to_bytes(), kind.id());
        assert_eq!(
            FilterRef::<S>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::HasherUnavailable(kind)
        );
        assert_eq!(
            Filter::<S>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
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
    let view = FilterRef::<S>::from_bytes_with_hasher_type(&bytes).unwrap();
    assert_eq!(view.hasher(), &hasher);
    let owned = Filter::<S>::from_bytes_with_hasher_type(&bytes).unwrap();
    assert_eq!(owned, filter);
    for key in &keys {
        assert_eq!(view.contains_bytes(key), filter.contains_bytes(key));
        assert_eq!(owned.contains_bytes(key), filter.contains_bytes(key));
    }
    assert!(keys[..150].iter().all(|key| view.contains_bytes(key)));
    assert!(view.contains(&7u64) && view.contains("text") && view.contains_bytes(b"text"));
    let error = FilterRef::<Xxh3>::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        error,
        Error::HasherKindMismatch {
            expected: HasherKind::Xxh3,
            found: kind
        }
    );
    assert!(error.to_string().contains(kind.type_name()), "{error}");
    assert!(matches!(
        FilterRef::<ParquetHash>::from_bytes_with_hasher_type(&bytes),
        Err(Error::HasherKindMismatch { .. })
    ));
}

#[test]
fn gxhash_filters_round_trip_where_gxhash_runs() {
    assert_eq!(HasherKind::GxHash.id(), 6);
    assert_eq!(HasherKind::GxHash.type_name(), "splitbloom::GxHash");
    gx_filters_round_trip_where_gxhash_runs::<GxHash>();
}

/// The reserved ids 1, 2 and 5 name no hasher: reading a filter with one is an error that says
/// the id is reserved and which ids this build reads, whichever type it is read as.
#[test]
fn reserved_hasher_ids_are_refused() {
    for id in HasherKind::RESERVED_IDS {
        assert_eq!(HasherKind::from_id(id), None);
        let bytes = with_hasher_id(Filter::with_num_blocks(4).unwrap().to_bytes(), id);
        let error = FilterRef::<Xxh3>::from_bytes(&bytes).unwrap_err();
        assert_eq!(error, Error::UnknownHasher(id));
        let message = error.to_string();
        assert!(
            message.contains(&format!("hasher id {id}")) && message.contains("reserved"),
            "{message}"
        );
        assert!(message.contains("3, 4 and 6"), "{message}");
        assert_eq!(
            FilterRef::<ParquetHash>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::UnknownHasher(id)
        );
        assert_eq!(
            Filter::<GxHash>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::UnknownHasher(id)
        );
    }
}

/// The default hasher is XXH3 in every build, and a gxhash filter opens as `FilterRef<GxHash>`
/// exactly where gxhash can run.
#[test]
fn gxhash_filters_open_where_gxhash_runs() {
    assert_eq!(Xxh3::KIND, HasherKind::Xxh3);
    let mut bytes = Filter::with_num_blocks(4).unwrap().to_bytes();
    bytes[6] = HasherKind::GxHash.id();
    // Re-seal the checksum over the changed header.
    let mut state = xxhash_rust::xxh3::Xxh3Default::new();
    state.update(&bytes[..24]);
    state.update(&bytes[32..]);
    let checksum = state.digest();
    bytes[24..32].copy_from_slice(&checksum.to_le_bytes());
    let opened = FilterRef::<GxHash>::from_bytes_with_hasher_type(&bytes);
    if HasherKind::GxHash.is_available() {
        assert!(opened.is_ok());
        assert!(Filter::<GxHash>::from_bytes_with_hasher_type(&bytes).is_ok());
    } else {
        assert_eq!(
            opened.unwrap_err(),
            Error::HasherUnavailable(HasherKind::GxHash)
        );
        assert_eq!(
            Filter::<GxHash>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::HasherUnavailable(HasherKind::GxHash)
        );
    }
}

/// The known-answer table of the documentation (key bytes → hash → block index in a 1024-block
/// filter → lane mask), for every hasher id with seed 0, pinned here;
/// `the_documented_known_answers_hold` parses the table of `docs/FORMAT.md` and
/// checks them against these rows, so the documentation cannot drift. The id-3 and id-4 rows
/// were also computed outside this crate (XXH64 and XXH3 of the reference C library, block
/// `((h >> 32) * 1024) >> 32`, lane `i` bit `((h & 0xffffffff) * SALT[i] & 0xffffffff) >> 27`),
/// giving the same values. The id-6 hash of the 16-byte key was computed with the `gxhash`
/// crate's `gxhash64(key, 0 ^ 16)` alone; by its definition its rows for the shorter keys are
/// the id-4 rows.
/// One row: hasher id, key bytes, 64-bit hash, block index, lane mask.
type KnownAnswer = (u8, &'static [u8], u64, usize, [u32; 8]);

const KNOWN_ANSWERS: &[KnownAnswer] = &[
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
        6,
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

/// The pinned row that `(id, key)` must equal: its own, or for id 6 id 4's under 16 bytes.
fn pinned_row(id: u8, key: &[u8]) -> Option<&'static KnownAnswer> {
    let pinned_id = match id {
        6 if key.len() < 16 => 4,
        id => id,
    };
    KNOWN_ANSWERS
        .iter()
        .find(|row| row.0 == pinned_id && row.1 == key)
}

/// One documented row: hasher id, seed, key, 64-bit hash, block index, lane mask.
type DocumentedRow = (u8, u64, DocumentedKey, u64, usize, [u32; 8]);

/// A key as a documented row names it.
#[derive(Clone, Debug, PartialEq)]
enum DocumentedKey {
    /// A byte-string key (or a Parquet value given by its plain encoding), hashed as its bytes.
    Bytes(Vec<u8>),
    /// A `u64` key, hashed through the filter's `Hash` path.
    U64(u64),
    /// The `(u64, u64)` key `(1, 2)`.
    Pair(u64, u64),
}

/// The 300-byte key of the documentation's long-input row: byte `i` is `i mod 251`.
fn long_key() -> Vec<u8> {
    (0..300u32).map(|i| (i % 251) as u8).collect()
}

/// The key a documented key cell names: `(empty)`; `` `text` `` with an optional ` (length)`;
/// the long key's description; `` `42u64` ``; `` `(1u64, 2u64)` ``; or a Parquet value with its
/// plain encoding in parentheses (`` `42i32` (INT32: `2a 00 00 00`) ``, `` `"alice"`
/// (BYTE_ARRAY) ``).
fn documented_key(cell: &str) -> Option<DocumentedKey> {
    if cell == "(empty)" {
        return Some(DocumentedKey::Bytes(Vec::new()));
    }
    if cell.starts_with("bytes `i % 251` for i in 0..300") {
        return Some(DocumentedKey::Bytes(long_key()));
    }
    let rest = cell.strip_prefix('`')?;
    let text = &rest[..rest.find('`')?];
    let note = rest[text.len() + 1..].trim();
    if let Some(encoding) = note
        .strip_prefix('(')
        .and_then(|note| note.split_once(": `"))
        .map(|(_, bytes)| bytes.trim_end_matches("`)"))
    {
        let bytes = encoding
            .split(' ')
            .map(|byte| u8::from_str_radix(byte, 16).ok());
        return bytes.collect::<Option<Vec<u8>>>().map(DocumentedKey::Bytes);
    }
    if text == "(1u64, 2u64)" {
        return Some(DocumentedKey::Pair(1, 2));
    }
    if let Some(number) = text.strip_suffix("u64") {
        return number.parse().ok().map(DocumentedKey::U64);
    }
    let text = text.trim_matches('"');
    Some(DocumentedKey::Bytes(text.as_bytes().to_vec()))
}

/// The known-answer rows of `docs/FORMAT.md`, parsed:
/// `| id | seed | key | `h` | block (z = 1024) | `lane mask` |` rows.
fn documented_known_answers() -> Vec<DocumentedRow> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/FORMAT.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let mut rows = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [id, seed, key, hash, block, mask] = cells[..] else {
            continue;
        };
        let (Ok(id), Ok(seed), Some(key), Some(hash), Ok(block)) = (
            id.parse::<u8>(),
            seed.parse::<u64>(),
            documented_key(key),
            hash.strip_prefix('`')
                .and_then(|hash| hash.strip_suffix('`')),
            block.parse::<usize>(),
        ) else {
            continue;
        };
        let Ok(hash) = u64::from_str_radix(hash, 16) else {
            continue;
        };
        let lanes: Vec<u32> = mask
            .trim_matches('`')
            .split(' ')
            .map(|lane| u32::from_str_radix(lane, 16).unwrap())
            .collect();
        rows.push((id, seed, key, hash, block, lanes.try_into().unwrap()));
    }
    rows
}

/// The hash of `key` under `hasher`.
fn documented_hash_with<S: FilterHasher>(hasher: &S, key: &DocumentedKey) -> u64 {
    match key {
        DocumentedKey::Bytes(bytes) => hasher.hash_bytes(bytes),
        DocumentedKey::U64(number) => hasher.hash_one(number),
        DocumentedKey::Pair(first, second) => hasher.hash_one((first, second)),
    }
}

/// The hash hasher id `id` with `seed` gives `key`, where this build can compute it.
fn documented_hash(id: u8, seed: u64, key: &DocumentedKey) -> Option<u64> {
    match id {
        3 => Some(documented_hash_with(&ParquetHash::with_seed(seed), key)),
        4 => Some(documented_hash_with(&Xxh3::with_seed(seed), key)),
        6 => GxHash::new(seed)
            .ok()
            .map(|gx| documented_hash_with(&gx, key)),
        _ => panic!("the documentation has known answers for hasher id {id}"),
    }
}

#[test]
fn the_documented_known_answers_hold() {
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
    add(3, &|key| ParquetHash::default().hash_bytes(key));
    add(4, &|key| Xxh3::default().hash_bytes(key));
    if let Ok(gx) = GxHash::new(0) {
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
        12
    } else {
        8
    };
    assert_eq!(rows.len(), expected_rows);
    // Every documented row is what the hasher computes (where this build has it), the
    // documented rows of the pinned keys are the pinned rows, and every pinned row is documented.
    let documented = documented_known_answers();
    // 42 byte-key rows (7 keys, 2 seeds, 3 ids), 10 integer rows and 4 Parquet values.
    assert!(
        documented.len() >= 56,
        "only {} rows parsed",
        documented.len()
    );
    for (id, seed, key, hash, block, mask) in &documented {
        let shown = format!("{key:?}");
        if let Some(computed) = documented_hash(*id, *seed, key) {
            assert_eq!(
                *hash, computed,
                "documented hash for id {id}, seed {seed}, key {shown:?}"
            );
        }
        assert_eq!(
            *block,
            splitbloom::block_index(*hash, 1024),
            "block, id {id}, key {shown:?}"
        );
        assert_eq!(
            *mask,
            splitbloom::mask(*hash as u32),
            "mask, id {id}, key {shown:?}"
        );
        let pinned_key = KNOWN_KEYS
            .into_iter()
            .find(|known| *key == DocumentedKey::Bytes(known.to_vec()));
        if let (0, Some(known)) = (*seed, pinned_key) {
            let pinned = pinned_row(*id, known).map(|row| (row.2, row.3, row.4));
            assert_eq!(
                pinned,
                Some((*hash, *block, *mask)),
                "id {id}, key {shown:?}"
            );
        }
    }
    for id in [3, 4, 6] {
        for key in KNOWN_KEYS {
            assert!(
                documented.iter().any(|row| row.0 == id
                    && row.1 == 0
                    && row.2 == DocumentedKey::Bytes(key.to_vec())),
                "docs/FORMAT.md has no known-answer row for id {id}, seed 0, key {:?}",
                String::from_utf8_lossy(key)
            );
        }
    }
}

/// The wide layout's known answers in `docs/FORMAT.md` (computed from the documented formulas
/// by `tests/fixtures/golden/wide_known_answers.py`, outside the crate): each key's XXH3 hash,
/// and exactly the documented bits set in exactly the documented blocks by a `WideFilter` of
/// 1024 blocks, with two probes and with one.
#[test]
fn the_documented_wide_known_answers_hold() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/FORMAT.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let section = text
        .split("### The wide layout")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/FORMAT.md has a wide layout section");
    let bits = |cell: &str| -> [u32; 8] {
        let bits: Vec<u32> = cell.split(' ').map(|bit| bit.parse().unwrap()).collect();
        bits.try_into().unwrap()
    };
    let mut rows = 0;
    for line in section.lines() {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [key, hash, block0, bits0, block1, bits1] = cells[..] else {
            continue;
        };
        let Ok(block0) = block0.parse::<usize>() else {
            continue;
        };
        let key: &[u8] = if key == "(empty)" {
            b""
        } else {
            key.trim_matches('`').as_bytes()
        };
        let hash = u64::from_str_radix(hash.trim_matches('`'), 16).unwrap();
        let block1: usize = block1.parse().unwrap();
        let (bits0, bits1) = (bits(bits0), bits(bits1));
        assert_eq!(Xxh3::default().hash_bytes(key), hash, "{key:?}");
        for probes in [1u8, 2] {
            let mut filter = splitbloom::WideFilter::with_num_blocks(1024, probes).unwrap();
            filter.insert_bytes(key);
            let mut expected = vec![0u64; 1024 * 8];
            for j in 0..8 {
                expected[8 * block0 + j] |= 1 << bits0[j];
                if probes == 2 {
                    expected[8 * block1 + j] |= 1 << bits1[j];
                }
            }
            assert_eq!(filter.as_words(), &expected[..], "{key:?}, {probes} probes");
        }
        rows += 1;
    }
    assert!(rows >= 4, "only {rows} wide rows parsed");
}

/// The window layout's known answers in `docs/FORMAT.md` (computed from the documented formulas
/// by `tests/fixtures/golden/window_known_answers.py`, outside the crate): each key's XXH3
/// hash, its block index for 1000 blocks, and exactly the documented lane bits, found in the
/// serialized planes of a window of each plane size, in the newest slot of the key's block
/// index.
#[test]
fn the_documented_window_known_answers_hold() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/FORMAT.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let section = text
        .split("### The window layout")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/FORMAT.md has a window layout section");
    let bits = |cell: &str| -> [u32; 8] {
        let bits: Vec<u32> = cell.split(' ').map(|bit| bit.parse().unwrap()).collect();
        bits.try_into().unwrap()
    };
    // 128-bit planes at G = 4 and 1%, 256-bit ones at G = 2; both checked below.
    let windows = [
        splitbloom::WindowFilter::with_fpr(5_000, 0.01, 4).unwrap(),
        splitbloom::WindowFilter::with_fpr(5_000, 0.01, 2).unwrap(),
    ];
    assert_eq!(
        windows.each_ref().map(|window| window.plane_bits()),
        [128, 256]
    );
    let mut rows = 0;
    for line in section.lines() {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [key, hash, block, bits16, bits32] = cells[..] else {
            continue;
        };
        let Ok(block) = block.parse::<usize>() else {
            continue;
        };
        let key: &[u8] = if key == "(empty)" {
            b""
        } else {
            key.trim_matches('`').as_bytes()
        };
        let hash = u64::from_str_radix(hash.trim_matches('`'), 16).unwrap();
        assert_eq!(Xxh3::default().hash_bytes(key), hash, "{key:?}");
        assert_eq!(splitbloom::block_index(hash, 1000), block, "{key:?}");
        for (window, lane_bits) in windows.iter().zip([bits(bits16), bits(bits32)]) {
            let mut window = window.clone();
            window.rotate();
            window.insert_bytes(key);
            let (plane, lane) = (window.plane_bits() / 8, window.plane_bits() / 64);
            let bytes = window.to_bytes();
            let generations = window.generations();
            let index = splitbloom::block_index(hash, window.num_blocks());
            // The newest slot is 1 after one rotation.
            let at = 64 + plane * (index * generations + 1);
            let mut expected = vec![0u8; plane];
            for (j, &bit) in lane_bits.iter().enumerate() {
                let bit = bit as usize;
                expected[lane * j + bit / 8] |= 1 << (bit % 8);
            }
            assert_eq!(
                &bytes[at..at + plane],
                &expected[..],
                "{key:?}, {plane}-byte planes"
            );
            let set: u32 = bytes[64..].iter().map(|byte| byte.count_ones()).sum();
            assert_eq!(set, 8, "{key:?}: the key's eight bits and nothing else");
        }
        rows += 1;
    }
    assert!(rows >= 4, "only {rows} window rows parsed");
}

/// The quotient layout's known answers in `docs/FORMAT.md` (computed from the documented
/// formulas by `tests/fixtures/golden/quotient_known_answers.py`, outside the crate): each key's
/// XXH3 hash, and its tag in the documented bucket of the documented primary block of an empty
/// filter of 1000 blocks, then, in a filter whose primary block is full, of the documented
/// alternate block.
#[test]
fn the_documented_quotient_known_answers_hold() {
    use splitbloom::{QuotientFilter, TagBits};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/FORMAT.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let section = text
        .split("### The quotient layout")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/FORMAT.md has a quotient layout section");
    // The one block holding a tag `tag` in bucket `bucket` alone: that one bit of the metadata
    // (after `bucket` bucket ends) and slot 0.
    let lone_tag = |tag_bits: TagBits, bucket: usize, tag: u64| -> [u8; 64] {
        let mut block = [0u8; 64];
        let (metadata, tag_bytes) = if tag_bits == TagBits::Eight {
            (16, 1)
        } else {
            (8, 2)
        };
        block[bucket / 8] |= 1 << (bucket % 8);
        block[metadata..metadata + tag_bytes].copy_from_slice(&tag.to_le_bytes()[..tag_bytes]);
        block
    };
    let mut rows = 0;
    for line in section.lines() {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [tags, key, hash, tag, bucket, primary, alternate] = cells[..] else {
            continue;
        };
        let Ok(bucket) = bucket.parse::<usize>() else {
            continue;
        };
        let tag_bits = if tags == "8-bit" {
            TagBits::Eight
        } else {
            TagBits::Sixteen
        };
        let key: &[u8] = if key == "(empty)" {
            b""
        } else {
            key.trim_matches('`').as_bytes()
        };
        let hash = u64::from_str_radix(hash.trim_matches('`'), 16).unwrap();
        let tag = u64::from_str_radix(tag.trim_matches('`'), 16).unwrap();
        let (primary, alternate): (usize, usize) =
            (primary.parse().unwrap(), alternate.parse().unwrap());
        assert_eq!(Xxh3::default().hash_bytes(key), hash, "{key:?}");
        let block = |bytes: &[u8], index: usize| -> [u8; 64] {
            bytes[32 + 64 * index..32 + 64 * (index + 1)]
                .try_into()
                .unwrap()
        };
        let mut filter = QuotientFilter::with_num_blocks(1000, tag_bits).unwrap();
        filter.insert_bytes(key).unwrap();
        let bytes = filter.to_bytes();
        assert_eq!(
            block(&bytes, primary),
            lone_tag(tag_bits, bucket, tag),
            "{key:?} primary"
        );
        // The primary block full of another tag (every slot in bucket 0), so the key goes to
        // its alternate block.
        let mut full = QuotientFilter::with_num_blocks(1000, tag_bits)
            .unwrap()
            .to_bytes();
        let slots = tag_bits.slots_per_block();
        let at = 32 + 64 * primary;
        let metadata = (1u128 << slots) - 1;
        let (metadata_bytes, tag_bytes) = if tag_bits == TagBits::Eight {
            (16, 1)
        } else {
            (8, 2)
        };
        full[at..at + metadata_bytes].copy_from_slice(&metadata.to_le_bytes()[..metadata_bytes]);
        for slot in 0..slots {
            let from = at + metadata_bytes + slot * tag_bytes;
            full[from..from + tag_bytes].copy_from_slice(&(tag ^ 1).to_le_bytes()[..tag_bytes]);
        }
        let checksum = Xxh3::default().hash_bytes(&[&full[..24], &full[32..]].concat());
        full[24..32].copy_from_slice(&checksum.to_le_bytes());
        let mut filter = QuotientFilter::from_bytes(&full).unwrap();
        filter.insert_bytes(key).unwrap();
        let bytes = filter.to_bytes();
        if alternate != primary {
            assert_eq!(
                block(&bytes, alternate),
                lone_tag(tag_bits, bucket, tag),
                "{key:?} alternate"
            );
        }
        rows += 1;
    }
    assert!(rows >= 8, "only {rows} quotient rows parsed");
}
