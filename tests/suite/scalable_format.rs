//! ScalableFilter in the crate's format: round trips, and a clear error for every bad input.

use crate::common;

use rand::RngExt;
use splitbloom::format::SCALABLE_HEADER_BYTES;
use splitbloom::parquet::ParquetHash;
use splitbloom::{Error, ScalableFilter, ScalableParameters, Xxh3};

type Scalable = ScalableFilter<Xxh3>;

/// A filter grown through several stages.
fn grown() -> (Scalable, Vec<u64>) {
    let (keys, _) = common::members_and_strangers(40, 5_000, 0);
    let mut filter = ScalableFilter::with_fpr(300, 0.01).unwrap();
    for key in &keys {
        filter.insert(key).unwrap();
    }
    assert!(
        filter.stages().len() >= 4,
        "{} stages",
        filter.stages().len()
    );
    (filter, keys)
}

/// `bytes` with header field `at..at + 8` set to `value` and the header checksum repaired.
fn with_field(bytes: &[u8], at: usize, value: u64) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&bytes[..56]);
    bytes[56..64].copy_from_slice(&checksum.to_le_bytes());
    bytes
}

#[test]
fn round_trip_is_byte_identical_and_answers_alike() {
    let (filter, keys) = grown();
    let bytes = filter.to_bytes();
    let mut written = Vec::new();
    filter.write_to(&mut written).unwrap();
    assert_eq!(written, bytes);
    let copy = Scalable::from_bytes(&bytes).unwrap();
    assert_eq!(copy.to_bytes(), bytes);
    assert_eq!(copy.len(), filter.len());
    assert_eq!(copy.stages().len(), filter.stages().len());
    for (a, b) in copy.stages().iter().zip(filter.stages()) {
        assert_eq!(a, b);
    }
    assert!(
        keys.iter().all(|key| copy.contains(key)),
        "false negative after round trip"
    );
    let (_, strangers) = common::members_and_strangers(41, 0, 100_000);
    for key in &strangers {
        assert_eq!(copy.contains(key), filter.contains(key));
    }
    // Growth continues after reading: the copy keeps its place in the newest stage.
    let mut copy = copy;
    let mut original = filter;
    for key in 0..3_000u64 {
        copy.insert(&key).unwrap();
        original.insert(&key).unwrap();
    }
    assert_eq!(copy.to_bytes(), original.to_bytes());
}

#[test]
fn every_bad_input_is_a_clear_error() {
    let (filter, _) = grown();
    let bytes = filter.to_bytes();
    let read = |bytes: &[u8]| Scalable::from_bytes(bytes).map(|_| ()).unwrap_err();

    assert!(matches!(read(&bytes[..10]), Error::Truncated { .. }));
    assert!(matches!(
        read(&bytes[..SCALABLE_HEADER_BYTES + 40]),
        Error::Truncated { .. }
    ));
    assert!(matches!(
        read(&bytes[..bytes.len() - 1]),
        Error::Truncated { .. }
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        read(&longer),
        Error::LengthMismatch { .. } | Error::Truncated { .. }
    ));

    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert!(matches!(read(&bad), Error::WrongMagic { .. }));
    let mut bad = bytes.clone();
    bad[4] = 7;
    assert!(matches!(
        read(&bad),
        Error::UnsupportedVersion { found: 7, .. }
    ));
    let mut bad = bytes.clone();
    bad[6] = 1;
    assert!(matches!(read(&bad), Error::UnsupportedFlags(_)));
    let mut bad = bytes.clone();
    bad[9] ^= 1;
    assert!(matches!(read(&bad), Error::ChecksumMismatch { .. }));
    let mut bad = bytes.clone();
    bad[SCALABLE_HEADER_BYTES + 40] ^= 1; // a bit of the first stage's bitset
    assert!(matches!(read(&bad), Error::ChecksumMismatch { .. }));

    assert_eq!(
        read(&with_field(&bytes[..SCALABLE_HEADER_BYTES], 48, 0)),
        Error::NoStages
    );
    // A huge stage count in a short input: refused without a huge allocation.
    assert!(matches!(
        read(&with_field(&bytes[..SCALABLE_HEADER_BYTES], 48, u64::MAX)),
        Error::Truncated { .. }
    ));
    assert!(matches!(
        read(&with_field(&bytes, 16, 2.0f64.to_bits())),
        Error::InvalidFpr(_)
    ));
    assert!(matches!(
        read(&with_field(&bytes, 24, f64::NAN.to_bits())),
        Error::InvalidGrowthFactor(_)
    ));
    assert!(matches!(
        read(&with_field(&bytes, 8, 301)),
        Error::StageMismatch { .. }
    ));
    assert!(matches!(
        read(&with_field(&bytes, 40, u64::MAX)),
        Error::StageOverfilled { .. }
    ));
    // Fewer stages announced than present: the rest is trailing garbage.
    assert!(matches!(
        read(&with_field(&bytes, 48, 1)),
        Error::LengthMismatch { .. }
    ));
    // Read with another hasher type (Parquet's is never the default).
    assert!(matches!(
        ScalableFilter::<ParquetHash>::from_bytes_with_hasher_type(&bytes)
            .map(|_| ())
            .unwrap_err(),
        Error::HasherKindMismatch { .. }
    ));
    // A plain filter is not a scalable one, and vice versa.
    let plain = filter.stages()[0].to_bytes();
    assert!(matches!(
        read(&plain),
        Error::WrongMagic { .. } | Error::Truncated { .. }
    ));
}

#[test]
fn random_and_mutated_inputs_never_panic() {
    let (filter, _) = grown();
    let bytes = filter.to_bytes();
    let mut rng = common::rng(42);
    for round in 0..20_000 {
        let mut input = if round % 2 == 0 {
            bytes.clone()
        } else {
            let len = rng.random_range(0..200);
            (0..len).map(|_| rng.random()).collect()
        };
        for _ in 0..rng.random_range(1..4) {
            if input.is_empty() {
                break;
            }
            let at = rng.random_range(0..input.len());
            input[at] = rng.random();
        }
        if rng.random_range(0..4) == 0 {
            let len = rng.random_range(0..=input.len());
            input.truncate(len);
        }
        // Half the mutated headers get a valid checksum, so the later checks are reached too.
        if input.len() >= SCALABLE_HEADER_BYTES && rng.random_range(0..2) == 0 {
            let checksum = xxhash_rust::xxh3::xxh3_64(&input[..56]);
            input[56..64].copy_from_slice(&checksum.to_le_bytes());
        }
        if let Ok(read) = Scalable::from_bytes(&input) {
            assert_eq!(
                read.to_bytes(),
                input,
                "accepted bytes must re-serialize identically"
            );
        }
    }
}

#[test]
fn parameters_survive_the_round_trip() {
    let mut parameters = ScalableParameters::new(50, 0.001);
    parameters.growth_factor = 3.0;
    parameters.tightening_ratio = 0.5;
    let mut filter = ScalableFilter::with_parameters(parameters, Xxh3::default()).unwrap();
    for key in 0..1_000u64 {
        filter.insert(&key).unwrap();
    }
    let copy = Scalable::from_bytes(&filter.to_bytes()).unwrap();
    assert_eq!(copy.parameters(), &parameters);
    assert_eq!(copy.items_in_last_stage(), filter.items_in_last_stage());
}

/// Scalable files pinned from 0.1.0 (the default hasher, keys `0..keys` as u64): the writer
/// produces them byte for byte (so it sizes every stage identically) and the reader opens them.
/// The second is a 128 KB file of 2000 one-block stages, whose reading must stay fast; the third
/// has a first stage targeting 0.81.
#[test]
fn scalable_files_are_written_and_read_identically() {
    /// Parameters, keys inserted, then stages, length and XXH3 of the bytes written.
    type Golden = (usize, f64, f64, f64, u64, usize, usize, u64);
    let golden: [Golden; 4] = [
        (100, 0.01, 2.0, 0.85, 3000, 5, 6976, 0x1504_e34a_19dd_3119),
        (
            1,
            0.01,
            1.0,
            0.999_999,
            2000,
            2000,
            128_064,
            0xc706_9fa7_e901_6f95,
        ),
        (50, 0.9, 2.0, 0.1, 400, 3, 576, 0x79b8_588d_5710_c899),
        (7, 0.3, 1.5, 0.5, 500, 9, 1504, 0x7d13_f164_c5c3_acfa),
    ];
    for (capacity, fpr, growth_factor, tightening_ratio, keys, stages, len, hash) in golden {
        let mut parameters = ScalableParameters::new(capacity, fpr);
        parameters.growth_factor = growth_factor;
        parameters.tightening_ratio = tightening_ratio;
        let mut filter =
            ScalableFilter::with_parameters(parameters, splitbloom::Xxh3::default()).unwrap();
        for key in 0..keys {
            filter.insert(&key).unwrap();
        }
        let bytes = filter.to_bytes();
        assert_eq!(
            (
                filter.stages().len(),
                bytes.len(),
                xxhash_rust::xxh3::xxh3_64(&bytes)
            ),
            (stages, len, hash),
            "{parameters:?}"
        );
        let read = ScalableFilter::<splitbloom::Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap();
        assert_eq!(read.len(), filter.len());
        assert!((0..keys).all(|key| read.contains(&key)));
        assert_eq!(read.to_bytes(), bytes);
    }
}

/// One header reader for both containers: a short input of another kind is `WrongMagic` for
/// the scalable reader as for the plain one (it used to be `Truncated` when shorter than the
/// 64-byte scalable header).
#[test]
fn short_input_of_another_kind_is_wrong_magic_for_both_readers() {
    for input in [
        &b"PAR1"[..],
        b"SBLM\x01\x00\x02\x00",
        b"not a filter at all",
    ] {
        assert!(matches!(
            Scalable::from_bytes(input).map(|_| ()).unwrap_err(),
            Error::WrongMagic { .. }
        ));
    }
    for input in [
        &b"PAR1"[..],
        b"SBLS\x01\x00\x00\x00",
        b"not a filter at all",
    ] {
        assert!(matches!(
            splitbloom::format::Header::parse(input).unwrap_err(),
            Error::WrongMagic { .. }
        ));
    }
    assert!(matches!(
        Scalable::from_bytes(b"SBLS").map(|_| ()).unwrap_err(),
        Error::Truncated { needed: 64, .. }
    ));
}

/// Each reader names the magic it expected: the scalable reader `SBLS`, the plain one `SBLM`
/// (both used to say `SBLM`, so a plain filter given to the scalable reader was "not a
/// splitbloom filter: expected SBLM, found SBLM").
#[test]
fn wrong_magic_names_the_container_expected() {
    let plain = splitbloom::Filter::with_num_blocks(4).unwrap().to_bytes();
    let error = Scalable::from_bytes(&plain).map(|_| ()).unwrap_err();
    assert_eq!(
        error,
        Error::WrongMagic {
            expected: *b"SBLS",
            found: *b"SBLM"
        }
    );
    let message = error.to_string();
    assert!(
        message.contains("scalable filter") && message.contains("\"SBLS\""),
        "{message}"
    );

    let scalable = Scalable::with_fpr(100, 0.01).unwrap().to_bytes();
    let error = splitbloom::format::Header::parse(&scalable).unwrap_err();
    assert_eq!(
        error,
        Error::WrongMagic {
            expected: *b"SBLM",
            found: *b"SBLS"
        }
    );
    let message = error.to_string();
    assert!(
        message.starts_with("not a splitbloom filter") && message.contains("\"SBLM\""),
        "{message}"
    );
}

/// A chain of wide stages round-trips through the same container, and its stages' layout is
/// checked: a split-block reader refuses it with a layout error, not a misread.
#[test]
fn wide_stages_round_trip_and_are_not_read_as_split_block() {
    use splitbloom::layout::Wide;
    use splitbloom::{LayoutKind, WideFilter};
    let (keys, strangers) = common::members_and_strangers(41, 20_000, 20_000);
    let parameters = ScalableParameters::new(2_000, 1e-4);
    let mut filter =
        ScalableFilter::<Xxh3, Wide>::with_layout(parameters, Xxh3::default()).unwrap();
    filter.insert_batch(&keys).unwrap();
    assert!(filter.num_stages() >= 3, "{} stages", filter.num_stages());
    assert!(filter.stages().iter().any(|stage| stage.probes() == 2));
    let bytes = filter.to_bytes();
    let copy = ScalableFilter::<Xxh3, Wide>::from_bytes_with_hasher_type(&bytes).unwrap();
    assert_eq!(copy, filter);
    assert!(keys.iter().all(|key| copy.contains(key)));
    let false_positives = copy.count_contained(&strangers);
    assert!(
        false_positives <= 20,
        "{false_positives} false positives of 20,000 at 1e-4"
    );
    assert!(matches!(
        Scalable::from_bytes_with_hasher_type(&bytes),
        Err(Error::LayoutMismatch {
            expected: LayoutKind::SplitBlock,
            found: LayoutKind::Wide,
        })
    ));
    // A wide stage sized for other parameters is refused as a split-block one would be.
    let stages: Vec<WideFilter> = filter.stages().to_vec();
    let other = ScalableParameters::new(3_000, 1e-4);
    assert!(matches!(
        ScalableFilter::from_stages(other, stages, 0),
        Err(Error::StageMismatch { stage: 0, .. })
    ));
}
