//! Parquet hashing, sizing and header, against published known answers (the arrow-rs
//! comparisons are in `arrow_interop.rs`).

use crate::common;

use rand::RngExt;
use splitbloom::parquet::{self, MAX_BITSET_BYTES, ParquetHash, Sizing, header_bytes, read_header};
use splitbloom::{Error, Filter, FilterRef, math};

/// The 32-byte bitset written by parquet-mr (Spark) for the strings "a0".."a9".
const PARQUET_MR_FIXTURE: [u8; 32] = [
    200, 1, 80, 20, 64, 68, 8, 109, 6, 37, 4, 67, 144, 80, 96, 32, 8, 132, 43, 33, 0, 5, 99, 65, 2,
    0, 224, 44, 64, 78, 96, 4,
];

/// The header arrow-rs writes for a 32-byte bitset, followed by an unrelated byte.
const ARROW_HEADER_32: [u8; 16] = [21, 64, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0, 99];

#[test]
fn xxh64_known_answer() {
    assert_eq!(parquet::hash(""), 17_241_709_254_077_376_921);
    assert_eq!(parquet::hash(&[] as &[u8]), 0xEF46_DB37_51D8_E999);
    assert_eq!(parquet::hash(&Vec::<u8>::new()), 0xEF46_DB37_51D8_E999);
}

#[test]
fn plain_encodings() {
    use xxhash_rust::xxh64::xxh64;
    assert_eq!(parquet::hash(&-1i32), xxh64(&[0xff; 4], 0));
    assert_eq!(parquet::hash(&1i64), xxh64(&[1, 0, 0, 0, 0, 0, 0, 0], 0));
    assert_eq!(parquet::hash(&1.0f32), xxh64(&[0, 0, 0x80, 0x3f], 0));
    assert_eq!(
        parquet::hash(&1.0f64),
        xxh64(&[0, 0, 0, 0, 0, 0, 0xf0, 0x3f], 0)
    );
    assert_eq!(parquet::hash("héllo"), xxh64("héllo".as_bytes(), 0));
    assert_eq!(parquet::hash(&[7u8; 16]), xxh64(&[7; 16], 0));
    assert_eq!(parquet::hash(&String::from("x")), parquet::hash("x"));
}

#[test]
fn parquet_mr_fixture_contains_a0_to_a9() {
    let filter = Filter::<ParquetHash>::from_parquet_bitset(&PARQUET_MR_FIXTURE).unwrap();
    let view = FilterRef::<ParquetHash>::from_parquet_bitset(&PARQUET_MR_FIXTURE).unwrap();
    for i in 0..10 {
        let value = format!("a{i}");
        assert!(filter.contains_value(value.as_str()), "{value}");
        assert!(view.contains_value(value.as_str()), "{value}");
    }
    // Inserting the same strings into an empty 32-byte filter rebuilds the fixture exactly.
    let mut rebuilt = Filter::with_num_blocks_and_hasher(1, ParquetHash::default()).unwrap();
    for i in 0..10 {
        rebuilt.insert_value(format!("a{i}").as_str());
    }
    assert_eq!(rebuilt.to_parquet_bitset(), PARQUET_MR_FIXTURE);
    // The hasher type records the kind in splitbloom's own format too.
    let own = rebuilt.to_bytes();
    assert_eq!(
        Filter::<ParquetHash>::from_bytes_with_hasher_type(&own).unwrap(),
        rebuilt
    );
}

#[test]
fn header_known_bytes() {
    assert_eq!(header_bytes(32).unwrap(), ARROW_HEADER_32[..15]);
    assert_eq!(read_header(&ARROW_HEADER_32).unwrap(), (32, 15));
    let mut with_bitset = ARROW_HEADER_32[..15].to_vec();
    with_bitset.extend_from_slice(&PARQUET_MR_FIXTURE);
    with_bitset.push(99); // whatever follows in the file
    let (filter, len) = Filter::<ParquetHash>::from_parquet_bytes(&with_bitset).unwrap();
    assert_eq!(len, 47);
    assert_eq!(filter.to_parquet_bitset(), PARQUET_MR_FIXTURE);
    assert_eq!(filter.to_parquet_bytes().unwrap(), with_bitset[..47]);
}

#[test]
fn header_round_trips_every_size() {
    let mut bytes = 32usize;
    while bytes <= MAX_BITSET_BYTES {
        let header = header_bytes(bytes as u32).unwrap();
        assert_eq!(read_header(&header).unwrap(), (bytes, header.len()));
        assert!((15..=19).contains(&header.len()));
        bytes *= 2;
    }
}

#[test]
fn header_reader_skips_unknown_fields() {
    // numBytes, then field 9 (binary "hi"), field 10 (list of two i32), field 11 (struct with
    // a double), then algorithm/hash/compression with field-id deltas of 1 from id 2.
    let mut header = vec![0x15, 64];
    header.extend_from_slice(&[0x88, 2, b'h', b'i']); // field 9 (delta 8), binary
    header.extend_from_slice(&[0x19, 0x25, 2, 4]); // field 10, list<i32> [1, 2]
    header.extend_from_slice(&[0x1c, 0x17, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // field 11, struct{1: double}
    // Field 2 with a long-form id (delta 0, zigzag i16 4 = 2).
    header.extend_from_slice(&[0x0c, 4, 0x1c, 0, 0]);
    header.extend_from_slice(&[0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0]);
    assert_eq!(read_header(&header).unwrap(), (32, header.len()));
}

#[test]
fn bad_headers_are_errors() {
    let valid = header_bytes(64).unwrap();
    for len in 0..valid.len() {
        assert!(
            matches!(
                read_header(&valid[..len]),
                Err(Error::InvalidParquetHeader(_))
            ),
            "prefix {len}"
        );
    }
    let cases: [(&[u8], &str); 7] = [
        // numBytes 33
        (
            &[21, 66, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0],
            "multiple of 32",
        ),
        // numBytes -32
        (
            &[21, 63, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0],
            "multiple of 32",
        ),
        // algorithm member 2 (not BLOCK)
        (
            &[21, 64, 28, 44, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0],
            "BLOCK",
        ),
        // hash member 2 (not XXHASH)
        (
            &[21, 64, 28, 28, 0, 0, 28, 44, 0, 0, 28, 28, 0, 0, 0],
            "XXHASH",
        ),
        // compression member 2
        (
            &[21, 64, 28, 28, 0, 0, 28, 28, 0, 0, 28, 44, 0, 0, 0],
            "compressed",
        ),
        // no compression field
        (&[21, 64, 28, 28, 0, 0, 28, 28, 0, 0, 0], "missing"),
        // numBytes as an i64
        (
            &[22, 64, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0],
            "wrong type",
        ),
    ];
    for (bytes, words) in cases {
        let error = read_header(bytes).unwrap_err();
        assert!(error.to_string().contains(words), "{error} lacks {words:?}");
    }
    // A header announcing more bitset than there is.
    let mut short = header_bytes(64).unwrap();
    short.extend_from_slice(&[0; 32]);
    assert!(matches!(
        Filter::<ParquetHash>::from_parquet_bytes(&short),
        Err(Error::Truncated { needed: 80, .. })
    ));
    // Deep nesting is refused, not recursed into.
    let mut deep = vec![0x15, 64, 0x5c];
    deep.extend(std::iter::repeat_n(0x1c, 10_000));
    assert!(read_header(&deep).is_err());
    // A list claiming 2^60 elements ends with the input.
    let huge_list = [
        0x15, 64, 0x59, 0xf5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10,
    ];
    assert!(read_header(&huge_list).is_err());
}

/// Field ids are Thrift `i16`s: ids that do not fit one, given in full or reached by adding a
/// delta, are errors. Before, `last_id + delta` overflowed (a panic with overflow checks on, a
/// silent wrap without).
#[test]
fn field_id_overflow_is_an_error() {
    let cases: [(&str, &[u8]); 6] = [
        // The input: field id i64::MAX given in full, skipped, then delta 1.
        (
            "id i64::MAX then delta 1",
            &[
                0x05, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x15, 0x00,
                0x00,
            ],
        ),
        // The same inside an unknown struct field (the skipping path).
        (
            "nested id i64::MAX then delta 1",
            &[
                0x15, 0x40, 0x5c, 0x05, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                0x00, 0x15, 0x00, 0x00, 0x00,
            ],
        ),
        // i16::MAX in full is a valid id; one more by delta is not.
        (
            "id i16::MAX then delta 1",
            &[0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00, 0x00],
        ),
        // i16::MIN − 1 in full.
        ("id -32769", &[0x05, 0x81, 0x80, 0x04, 0x00, 0x00]),
        // Deltas adding up past i16::MAX inside an unknown struct.
        (
            "deltas past i16::MAX",
            &[
                0x15, 0x40, 0x5c, 0x05, 0xf0, 0xff, 0x03, 0x00, 0xf5, 0x00, 0x00, 0x00,
            ],
        ),
        // A 10-byte varint whose last byte holds more than bit 63.
        (
            "varint over 64 bits",
            &[
                0x15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x00,
            ],
        ),
    ];
    for (name, bytes) in cases {
        let error = read_header(bytes).unwrap_err();
        assert!(
            matches!(error, Error::InvalidParquetHeader(_)),
            "{name}: {error:?}"
        );
        let mut with_bitset = bytes.to_vec();
        with_bitset.extend_from_slice(&[0; 64]);
        assert!(
            Filter::<ParquetHash>::from_parquet_bytes(&with_bitset).is_err(),
            "{name}"
        );
        assert!(
            FilterRef::<ParquetHash>::from_parquet_bytes(&with_bitset).is_err(),
            "{name}"
        );
    }
    // Ids up to i16::MAX given in full, and negative ones, are still skipped as unknown.
    let mut header = header_bytes(32).unwrap();
    header.pop(); // the stop byte
    header.extend_from_slice(&[0x06, 0xfe, 0xff, 0x03, 0x00]); // field 32767, i64 0
    header.extend_from_slice(&[0x06, 0xff, 0xff, 0x03, 0x00]); // field -32768, i64 0
    header.extend_from_slice(&[0x16, 0x00, 0]); // field -32767 (delta 1), i64 0; stop
    assert_eq!(read_header(&header).unwrap(), (32, header.len()));
}

#[test]
fn random_and_mutated_headers_never_panic() {
    let mut rng = common::rng(21);
    let valid = {
        let mut bytes = header_bytes(64).unwrap();
        bytes.extend_from_slice(&[0x5a; 64]);
        bytes
    };
    for round in 0..100_000u32 {
        let bytes: Vec<u8> = if round % 2 == 0 {
            (0..rng.random_range(0..40)).map(|_| rng.random()).collect()
        } else {
            let mut bytes = valid.clone();
            let at = rng.random_range(0..19);
            bytes[at] = rng.random();
            bytes.truncate(rng.random_range(0..=bytes.len()));
            bytes
        };
        let header = read_header(&bytes);
        if let Ok((num_bytes, header_len)) = header {
            assert!(num_bytes > 0 && num_bytes % 32 == 0 && header_len <= bytes.len());
        }
        if let Ok((filter, len)) = Filter::<ParquetHash>::from_parquet_bytes(&bytes) {
            let (num_bytes, header_len) = header.unwrap();
            assert_eq!(filter.size_in_bytes(), num_bytes);
            assert_eq!(len, header_len + num_bytes);
            assert!(len <= bytes.len());
        }
        let _ = FilterRef::<ParquetHash>::from_parquet_bytes(&bytes);
    }
}

#[test]
fn sizing_is_parquet_valid_and_honest() {
    let mut previous = 0;
    for items in [0u64, 1, 100, 10_000, 1_000_000, 10_000_000] {
        for fpr in [0.1, 0.01, 0.001] {
            let sizing = Sizing::for_items(items, fpr).unwrap();
            assert!(sizing.num_bytes.is_power_of_two());
            assert!((32..=MAX_BITSET_BYTES).contains(&sizing.num_bytes));
            assert!(sizing.fpr <= fpr, "{items} {fpr}: {}", sizing.fpr);
            // The smallest power of two: half the size would miss the target.
            if sizing.num_bytes > 32 {
                assert!(
                    Sizing::fpr_at(sizing.num_bytes / 2, items) > fpr,
                    "{items} {fpr}"
                );
            }
            let blocks = (sizing.num_bytes / 32) as f64;
            assert_eq!(
                sizing.fpr,
                math::fpr_for_keys_per_block(items as f64 / blocks)
            );
        }
        let size = Sizing::for_items(items, 0.01).unwrap().num_bytes;
        assert!(size >= previous);
        previous = size;
    }
    // Past 128 MiB the size is capped and the reported rate says what that costs.
    let capped = Sizing::for_items(1_000_000_000, 0.01).unwrap();
    assert_eq!(capped.num_bytes, MAX_BITSET_BYTES);
    assert!(capped.fpr > 0.01);
    // The filter it builds writes as a valid Parquet filter.
    let filter = Sizing::for_items(5000, 0.01).unwrap().filter().unwrap();
    assert!(filter.to_parquet_bytes().is_ok());
    for fpr in [0.0, 1.0, f64::NAN] {
        assert!(Sizing::for_items(10, fpr).is_err());
    }
}

#[test]
fn seeded_parquet_filters_stay_consistent_but_are_not_written() {
    let mut filter = Filter::with_num_blocks_and_hasher(64, ParquetHash::with_seed(7)).unwrap();
    for key in 0..1000i64 {
        filter.insert_value(&key);
    }
    // The typed path and the `Hash` path agree on the seed, so no false negatives either way.
    assert!((0..1000i64).all(|key| filter.contains(&key) && filter.contains_value(&key)));
    assert_eq!(
        filter.to_parquet_bytes().unwrap_err(),
        Error::ParquetSeed(7)
    );
    // splitbloom's own format keeps the seed.
    let back = Filter::<ParquetHash>::from_bytes_with_hasher_type(&filter.to_bytes()).unwrap();
    assert!((0..1000i64).all(|key| back.contains_value(&key)));
    for bad in [0u32, 33, 1 << 31, u32::MAX] {
        assert!(header_bytes(bad).is_err(), "{bad}");
    }
}

#[test]
fn non_parquet_sizes_are_not_written() {
    for blocks in [3usize, 5, 100] {
        let filter = Filter::with_num_blocks_and_hasher(blocks, ParquetHash::default()).unwrap();
        assert_eq!(
            filter.to_parquet_bytes().unwrap_err(),
            Error::InvalidParquetSize {
                bytes: blocks as u64 * 32
            }
        );
    }
}
