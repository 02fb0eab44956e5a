//! splitbloom's own format: byte layout, round trips, zero-copy views and every bad input.

use crate::common;

use rand::{RngExt, SeedableRng};
use splitbloom::format::{HEADER_BYTES, Header, MAGIC, VERSION};
use splitbloom::parquet::ParquetHash;
use splitbloom::{Error, Filter, FilterHasher, FilterRef, HasherKind, Kernel, Xxh3, math};

/// XXH3-64 of `bytes[..24]` followed by `bytes[32..]`, computed in one shot over a
/// concatenated copy: independent of the streaming code the crate uses.
fn expected_checksum(bytes: &[u8]) -> u64 {
    let mut covered = bytes[..24].to_vec();
    covered.extend_from_slice(&bytes[32..]);
    xxhash_rust::xxh3::xxh3_64(&covered)
}

/// Rewrites the stored checksum so that a deliberately edited header gets past the checksum
/// and reaches the check under test.
fn reseal(bytes: &mut [u8]) {
    let checksum = expected_checksum(bytes);
    bytes[24..32].copy_from_slice(&checksum.to_le_bytes());
}

fn filter_with_keys(num_keys: u64, seed: u64) -> Filter<Xxh3> {
    let mut filter =
        Filter::with_fpr_and_hasher(num_keys.max(1) as usize, 0.01, Xxh3::with_seed(seed)).unwrap();
    for key in 0..num_keys {
        filter.insert(&key);
    }
    filter
}

/// The layout written byte by byte from the module docs, for a one-block filter whose only key
/// has hash 0 (bit 0 of every lane, per the SBBF definition).
#[test]
fn layout_matches_the_documentation() {
    let mut filter = Filter::with_num_blocks_and_hasher(1, Xxh3::with_seed(0x0102)).unwrap();
    filter.insert_hash(0);
    let bytes = filter.to_bytes();
    let mut expected = Vec::new();
    expected.extend_from_slice(b"SBLM");
    expected.extend_from_slice(&[1, 0]); // version 1
    expected.push(4); // hasher id: XXH3
    expected.push(0); // flags
    expected.extend_from_slice(&[0x02, 0x01, 0, 0, 0, 0, 0, 0]); // seed 0x0102
    expected.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]); // one block
    expected.extend_from_slice(&[0; 8]); // checksum, filled in below
    for _ in 0..8 {
        expected.extend_from_slice(&[1, 0, 0, 0]); // each lane: bit 0, little-endian
    }
    let checksum = expected_checksum(&expected);
    expected[24..32].copy_from_slice(&checksum.to_le_bytes());
    assert_eq!(bytes, expected);
    assert_eq!(MAGIC, *b"SBLM");
    assert_eq!((VERSION, HEADER_BYTES), (1, 32));
}

#[test]
fn write_read_write_is_byte_identical() {
    for (keys, seed) in [(0u64, 0u64), (1, 3), (1000, 42), (100_000, u64::MAX)] {
        let filter = filter_with_keys(keys, seed);
        let bytes = filter.to_bytes();
        assert_eq!(bytes.len(), filter.serialized_len());
        let mut streamed = Vec::new();
        filter.write_to(&mut streamed).unwrap();
        assert_eq!(streamed, bytes);

        let read = Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap();
        assert_eq!(read, filter);
        assert_eq!(read.to_bytes(), bytes);
        let view = FilterRef::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap();
        assert_eq!(view.to_bytes(), bytes);
        let mut streamed = Vec::new();
        view.write_to(&mut streamed).unwrap();
        assert_eq!(streamed, bytes);
        assert_eq!(view.to_filter().unwrap(), filter);
        assert_eq!(view.hasher().seed(), seed);
    }
}

/// A view answers exactly like the filter it was written from, for a million members and a
/// million other keys, on every kernel, one at a time and in batches.
#[test]
fn filter_ref_answers_like_the_original_for_a_million_keys() {
    let (members, strangers) = common::members_and_strangers(7, 1_000_000, 1_000_000);
    let mut filter = Filter::with_fpr(members.len(), 0.01).unwrap();
    for key in &members {
        filter.insert(key);
    }
    let bytes = filter.to_bytes();
    let expected: Vec<bool> = strangers.iter().map(|key| filter.contains(key)).collect();
    let false_positives = expected.iter().filter(|&&hit| hit).count();
    assert!(
        false_positives > 0 && false_positives < 20_000,
        "{false_positives}"
    );
    for kernel in Kernel::available() {
        let view: FilterRef = FilterRef::from_bytes(&bytes)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        assert!(members.iter().all(|key| view.contains(key)), "{kernel}");
        let answers: Vec<bool> = strangers.iter().map(|key| view.contains(key)).collect();
        assert!(answers == expected, "{kernel}");
        let hashes: Vec<u64> = strangers
            .iter()
            .map(|key| core::hash::BuildHasher::hash_one(view.hasher(), key))
            .collect();
        let mut batch = vec![false; hashes.len()];
        view.contains_hash_batch(&hashes, &mut batch);
        assert!(batch == expected, "{kernel}");
    }
    let view: FilterRef = FilterRef::from_bytes(&bytes).unwrap();
    assert_eq!(view.estimated_fpr(), filter.estimated_fpr());
    assert_eq!(view.fill_ratio(), filter.fill_ratio());
}

/// 4-byte aligned bitsets are read in place; misaligned ones are copied and answer the same.
#[test]
fn misaligned_bytes_are_copied_not_misread() {
    let filter = filter_with_keys(5000, 1);
    let bytes = filter.to_bytes();
    // A u64 buffer is 8-byte aligned: offset 0 is aligned, offsets 1..=3 are not.
    let mut backing = vec![0u64; bytes.len() / 8 + 2];
    let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut backing);
    for offset in [0usize, 1, 2, 3, 4] {
        raw[offset..offset + bytes.len()].copy_from_slice(&bytes);
        let view =
            FilterRef::<Xxh3>::from_bytes_with_hasher_type(&raw[offset..offset + bytes.len()])
                .unwrap();
        let aligned = offset % 4 == 0;
        assert_eq!(
            view.is_zero_copy(),
            aligned && cfg!(target_endian = "little"),
            "offset {offset}"
        );
        assert!(
            (0..5000u64).all(|key| view.contains(&key)),
            "offset {offset}"
        );
        assert!(
            (5000..20_000u64).all(|key| view.contains(&key) == filter.contains(&key)),
            "offset {offset}"
        );
        assert_eq!(view.to_bytes(), bytes);
    }
}

/// Map-reduce: partitions built on different "machines", shipped as bytes, merged.
#[test]
fn merging_serialized_partials_equals_building_once() {
    let mut whole = Filter::with_num_blocks(4096).unwrap();
    let mut shipped = Vec::new();
    for partition in 0..4u64 {
        let mut partial = Filter::with_num_blocks(4096).unwrap();
        for key in (partition * 10_000)..((partition + 1) * 10_000) {
            partial.insert(&key);
            whole.insert(&key);
        }
        shipped.push(partial.to_bytes());
    }
    let mut merged: Filter = Filter::from_bytes(&shipped[0]).unwrap();
    for bytes in &shipped[1..] {
        merged.union(&Filter::from_bytes(bytes).unwrap()).unwrap();
    }
    assert_eq!(merged.to_bytes(), whole.to_bytes());
    assert!((0..40_000u64).all(|key| merged.contains(&key)));
}

/// Filters stored back to back inside a larger buffer (an SST file's filter blocks): the
/// header says where each one ends, and each is viewed in place.
#[test]
fn filters_inside_a_larger_buffer() {
    let filters: Vec<Filter<Xxh3>> = (0..3).map(|i| filter_with_keys(100 * (i + 1), i)).collect();
    let mut file = Vec::new();
    for filter in &filters {
        filter.write_to(&mut file).unwrap();
    }
    let mut rest = &file[..];
    for filter in &filters {
        let len = Header::parse(rest).unwrap().serialized_len() as usize;
        let view = FilterRef::<Xxh3>::from_bytes_with_hasher_type(&rest[..len]).unwrap();
        assert_eq!(view.to_filter().unwrap(), *filter);
        rest = &rest[len..];
    }
    assert!(rest.is_empty());
}

/// A valid serialized filter to break.
fn valid_bytes() -> Vec<u8> {
    filter_with_keys(100, 9).to_bytes()
}

#[test]
fn wrong_magic() {
    let mut bytes = valid_bytes();
    bytes[0] = b'X';
    assert_eq!(
        Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
        Error::WrongMagic {
            expected: *b"SBLM",
            found: *b"XBLM"
        }
    );
    assert!(matches!(
        FilterRef::<Xxh3>::from_bytes_with_hasher_type(b"PAR1 and more bytes than a header needs")
            .unwrap_err(),
        Error::WrongMagic { .. }
    ));
}

#[test]
fn unknown_version_and_layout() {
    for version in [0u16, 2, u16::MAX] {
        let mut bytes = valid_bytes();
        bytes[4..6].copy_from_slice(&version.to_le_bytes());
        reseal(&mut bytes);
        assert_eq!(
            Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::UnsupportedVersion {
                found: version,
                supported: 1
            }
        );
    }
    for layout in [3u8, 0x80, 0xff] {
        let mut bytes = valid_bytes();
        bytes[7] = layout;
        reseal(&mut bytes);
        assert_eq!(
            Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::UnknownLayout(layout)
        );
    }
}

#[test]
fn truncated_and_overlong_inputs() {
    let bytes = valid_bytes();
    for len in [0, 3, 4, 20, 31] {
        assert!(
            matches!(
                Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes[..len]).unwrap_err(),
                Error::Truncated { needed: 32, .. }
            ),
            "{len}"
        );
    }
    for len in [32, 33, bytes.len() - 1] {
        assert_eq!(
            FilterRef::<Xxh3>::from_bytes_with_hasher_type(&bytes[..len]).unwrap_err(),
            Error::Truncated {
                needed: bytes.len() as u64,
                available: len
            }
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        Filter::<Xxh3>::from_bytes_with_hasher_type(&longer).unwrap_err(),
        Error::LengthMismatch {
            expected: bytes.len() as u64,
            found: bytes.len() + 1
        }
    );
}

#[test]
fn zero_and_absurd_block_counts_fail_fast_without_allocating() {
    let start = std::time::Instant::now();
    let mut bytes = valid_bytes();
    bytes[16..24].copy_from_slice(&0u64.to_le_bytes());
    reseal(&mut bytes);
    assert_eq!(
        Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
        Error::ZeroBlocks
    );
    for blocks in [math::MAX_BLOCKS as u64 + 1, u64::MAX, 1 << 62] {
        bytes[16..24].copy_from_slice(&blocks.to_le_bytes());
        assert!(matches!(
            Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::TooLarge { .. }
        ));
    }
    // The largest legal count, in a buffer far too short for it: refused before allocating
    // 128 GiB.
    bytes[16..24].copy_from_slice(&(math::MAX_BLOCKS as u64).to_le_bytes());
    assert!(matches!(
        Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
        Error::Truncated { .. }
    ));
    assert!(start.elapsed().as_secs() < 2, "{:?}", start.elapsed());
}

#[test]
fn corruption_is_caught_by_the_checksum() {
    let bytes = valid_bytes();
    let mut rng = common::rng(3);
    // A bit flipped in the bitset, the seed or the block count (kept plausible) is corruption.
    for _ in 0..1000 {
        let mut corrupt = bytes.clone();
        let at = rng.random_range(HEADER_BYTES..bytes.len());
        corrupt[at] ^= 1 << rng.random_range(0..8);
        assert!(matches!(
            Filter::<Xxh3>::from_bytes_with_hasher_type(&corrupt).unwrap_err(),
            Error::ChecksumMismatch { .. }
        ));
    }
    for at in [8, 15, 24, 31] {
        let mut corrupt = bytes.clone();
        corrupt[at] ^= 0x10;
        assert!(
            matches!(
                FilterRef::<Xxh3>::from_bytes_with_hasher_type(&corrupt).unwrap_err(),
                Error::ChecksumMismatch { .. }
            ),
            "byte {at}"
        );
    }
}

#[test]
fn hasher_ids_are_checked() {
    let mut bytes = valid_bytes();
    for id in [0u8, 1, 2, 5, 7, 255] {
        bytes[6] = id;
        reseal(&mut bytes);
        assert_eq!(
            Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
            Error::UnknownHasher(id)
        );
    }
    // An XXH3 filter read as a Parquet filter: a known, available, but different hasher.
    let bytes = valid_bytes();
    assert_eq!(
        Filter::<ParquetHash>::from_bytes_with_hasher_type(&bytes).unwrap_err(),
        Error::HasherKindMismatch {
            expected: HasherKind::Parquet,
            found: HasherKind::Xxh3
        }
    );
    // A gxhash filter: an error in every build. Where gxhash cannot be computed (CI's no-AES
    // pass) it is `HasherUnavailable`, never an attempt to answer with another hasher.
    let mut gx = valid_bytes();
    gx[6] = HasherKind::GxHash.id();
    reseal(&mut gx);
    let error = FilterRef::<Xxh3>::from_bytes_with_hasher_type(&gx).unwrap_err();
    if HasherKind::GxHash.is_available() {
        assert_eq!(
            error,
            Error::HasherKindMismatch {
                expected: HasherKind::Xxh3,
                found: HasherKind::GxHash
            }
        );
    } else {
        assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHash));
        assert!(error.to_string().contains("AES"));
    }
    // The default hasher of this build always reads its own filters.
    let own = Filter::with_num_blocks(4).unwrap().to_bytes();
    assert!(FilterRef::<Xxh3>::from_bytes(&own).is_ok());
    assert_eq!(Header::parse(&own).unwrap().hasher, Xxh3::KIND);
}

#[test]
fn errors_say_what_to_do() {
    let messages = [
        Error::WrongMagic {
            expected: *b"SBLM",
            found: *b"PAR1",
        }
        .to_string(),
        Error::UnsupportedVersion {
            found: 9,
            supported: 1,
        }
        .to_string(),
        Error::Truncated {
            needed: 64,
            available: 10,
        }
        .to_string(),
        Error::LengthMismatch {
            expected: 64,
            found: 65,
        }
        .to_string(),
        Error::ChecksumMismatch {
            stored: 1,
            computed: 2,
        }
        .to_string(),
        Error::HasherUnavailable(HasherKind::GxHash).to_string(),
        Error::CannotFold { blocks: 3 }.to_string(),
    ];
    let expected = [
        "SBLM", "upgrade", "64 bytes", "65", "corrupt", "AES", "even",
    ];
    for (message, word) in messages.iter().zip(expected) {
        assert!(message.contains(word), "{message:?} lacks {word:?}");
    }
}

/// Random garbage, and valid filters mutated at random (with and without a fixed checksum):
/// every reader returns, never panics, and whatever it accepts answers consistently.
#[test]
fn random_and_mutated_inputs_never_panic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let valid = [
        filter_with_keys(10, 1).to_bytes(),
        filter_with_keys(1000, 2).to_bytes(),
        Filter::with_num_blocks_and_hasher(1, Xxh3::default())
            .unwrap()
            .to_bytes(),
    ];
    let mut accepted = 0;
    for round in 0..100_000u32 {
        let mut bytes = if round % 4 == 0 {
            let len = rng.random_range(0..128);
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            if len >= 6 && rng.random() {
                bytes[..4].copy_from_slice(&MAGIC);
                bytes[4..6].copy_from_slice(&VERSION.to_le_bytes());
            }
            bytes
        } else {
            let mut bytes = valid[rng.random_range(0..valid.len())].clone();
            for _ in 0..rng.random_range(1..4) {
                match rng.random_range(0..4) {
                    0 => {
                        let at = rng.random_range(0..bytes.len());
                        bytes[at] = rng.random();
                    }
                    1 => bytes.truncate(rng.random_range(0..bytes.len())),
                    2 => bytes.push(rng.random()),
                    _ => {
                        let at = rng.random_range(0..bytes.len().min(32));
                        bytes[at] ^= 1 << rng.random_range(0..8);
                    }
                }
                if bytes.is_empty() {
                    break;
                }
            }
            bytes
        };
        if round % 2 == 1 && bytes.len() >= 32 {
            reseal(&mut bytes);
        }
        let owned = Filter::<Xxh3>::from_bytes_with_hasher_type(&bytes);
        let view = FilterRef::<Xxh3>::from_bytes_with_hasher_type(&bytes);
        let _ = Header::parse(&bytes);
        let _ = Filter::<ParquetHash>::from_bytes_with_hasher_type(&bytes);
        match (owned, view) {
            (Ok(owned), Ok(view)) => {
                accepted += 1;
                assert_eq!(view.to_bytes(), bytes);
                assert_eq!(owned.to_bytes(), bytes);
                for key in 0..8u64 {
                    assert_eq!(owned.contains(&key), view.contains(&key));
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b);
                assert!(!a.to_string().is_empty());
            }
            (a, b) => panic!(
                "owned and view readers disagree: {:?} vs {:?}",
                a.err(),
                b.err()
            ),
        }
    }
    // Resealed byte flips in the bitset stay valid filters: the fuzzing reached past every
    // check.
    assert!(accepted > 1000, "{accepted}");
}

/// A filter streamed out in chunks of its bitset and loaded back chunk by chunk into one made
/// with the same shape is the same filter, on every layout; the chunks are the bytes
/// `to_bytes` writes after its header.
#[test]
fn a_bitset_streamed_in_chunks_restores_the_filter_on_every_layout() {
    use splitbloom::layout::{SplitBlock, Wide};
    use splitbloom::{BloomFilter, Layout};

    fn round_trip<L: Layout>(filter: &BloomFilter<Xxh3, L>, chunk: usize) {
        let whole = filter.to_bytes();
        let mut copy =
            BloomFilter::with_layout(filter.num_blocks(), filter.layout(), Xxh3::default())
                .unwrap();
        assert_ne!(&copy, filter, "the filter under test must have bits set");
        let size = filter.size_in_bytes();
        for start in (0..size).step_by(chunk) {
            let end = (start + chunk).min(size);
            let bytes = filter.bitset_bytes(start..end).unwrap();
            assert_eq!(&*bytes, &whole[HEADER_BYTES + start..HEADER_BYTES + end]);
            copy.load_bitset_bytes(start, &bytes).unwrap();
        }
        assert_eq!(&copy, filter);
        assert_eq!(copy.to_bytes(), whole);
    }

    let mut split = BloomFilter::<Xxh3, SplitBlock>::with_num_blocks(37).unwrap();
    let mut wide = splitbloom::WideFilter::with_num_blocks(29, 1).unwrap();
    let mut wide2 = splitbloom::WideFilter::with_num_blocks(128, 2).unwrap();
    for key in 0..500u64 {
        split.insert(&key);
        wide.insert(&key);
        wide2.insert(&key);
    }
    for chunk in [8, 64, 200, 1 << 20] {
        round_trip(&split, chunk);
        round_trip::<Wide>(&wide, chunk);
        round_trip::<Wide>(&wide2, chunk);
    }
}

/// A range that is not whole words inside the bitset is refused with the numbers that make it
/// wrong, and a refused load changes nothing.
#[test]
fn bitset_ranges_outside_the_bitset_or_across_words_are_refused() {
    let mut filter = splitbloom::WideFilter::with_num_blocks(2, 1).unwrap(); // 128 bytes, u64
    filter.insert("key");
    let before = filter.clone();
    for (start, end) in [(0, 129), (4, 8), (0, 12), (120, 136), (64, 8), (128, 136)] {
        let expected = Error::BitsetRange {
            start,
            end,
            bitset_bytes: 128,
            word_bytes: 8,
        };
        assert_eq!(filter.bitset_bytes(start..end).unwrap_err(), expected);
        if start <= end {
            let zeros = vec![0u8; end - start];
            assert_eq!(
                filter.load_bitset_bytes(start, &zeros).unwrap_err(),
                expected
            );
        }
    }
    assert_eq!(filter, before);
    let message = filter.bitset_bytes(4..8).unwrap_err().to_string();
    assert!(message.contains("4..8") && message.contains("128-byte") && message.contains("8-byte"));
    // Split-block filters have 32-bit words: 4..8 is whole.
    let split = Filter::with_num_blocks(1).unwrap();
    assert_eq!(split.bitset_bytes(4..8).unwrap().len(), 4);
    assert!(split.bitset_bytes(0..0).unwrap().is_empty());
    let mut huge = Filter::with_num_blocks(1).unwrap();
    assert!(huge.load_bitset_bytes(usize::MAX - 2, &[0; 4]).is_err());
}
