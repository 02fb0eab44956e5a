//! `WideFilter`: no false negatives on any path, every path answering alike, the measured
//! false-positive rate at or under the target it was built for, and the memory targets.

use std::collections::HashSet;

use splitbloom::parquet::ParquetHash;
use splitbloom::{
    Error, Filter, FilterRef, GxHash, HasherKind, LayoutKind, WideFilter, WideFilterRef, Xxh3, math,
};

/// A SplitMix64 stream: distinct seeds give unrelated keys.
fn keys(seed: u64, count: usize) -> Vec<u64> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// The classic Bloom optimum in bytes, `n·ln(1/p)/ln²2` bits (RedisBloom's sizing).
fn optimum_bytes(items: usize, fpr: f64) -> f64 {
    items as f64 * (1.0 / fpr).ln() / std::f64::consts::LN_2.powi(2) / 8.0
}

/// Every insert and lookup form, on one and two probes and on filters small enough to skip
/// the batch prefetch and large enough to use it: no inserted key is ever missing, and the
/// batch, count and single answers agree.
#[test]
fn no_false_negatives_on_any_path() {
    for (items, fpr) in [
        (1_000, 1e-2),
        (1_000, 1e-6),
        (300_000, 1e-3),
        (300_000, 1e-5),
    ] {
        let inserted = keys(1, items);
        let absent = keys(2, items);
        let words: Vec<String> = inserted.iter().map(|k| k.to_string()).collect();
        let mut single = WideFilter::with_fpr(items, fpr).unwrap();
        let mut batch = single.clone();
        let mut hashed = single.clone();
        let mut bytes = single.clone();
        for key in &inserted {
            single.insert(key);
        }
        batch.insert_batch(&inserted);
        let hashes: Vec<u64> = inserted.iter().map(|k| k.wrapping_mul(3) | 1).collect();
        hashed.insert_hash_batch(&hashes);
        bytes.insert_bytes_batch(&words);
        let mut extended = WideFilter::with_fpr(items, fpr).unwrap();
        extended.extend(inserted.iter());
        assert_eq!(batch, single, "{items} {fpr}");
        assert_eq!(extended, single, "{items} {fpr}");
        let collected: WideFilter = inserted.iter().collect();
        assert_eq!(collected.count_contained(&inserted), items);

        let mut out = vec![false; items];
        single.contains_batch(&inserted, &mut out);
        assert!(out.iter().all(|&x| x), "{items} {fpr}");
        assert_eq!(single.count_contained(&inserted), items);
        assert!(inserted.iter().all(|key| single.contains(key)));
        hashed.contains_hash_batch(&hashes, &mut out);
        assert!(out.iter().all(|&x| x));
        assert!(hashes.iter().all(|&h| hashed.contains_hash(h)));
        assert_eq!(hashed.count_contained_hashes(&hashes), items);
        bytes.contains_bytes_batch(&words, &mut out);
        assert!(out.iter().all(|&x| x));
        assert!(words.iter().all(|w| bytes.contains_bytes(w.as_bytes())));
        assert_eq!(bytes.count_contained_bytes(&words), items);

        // Absent keys: the batch answers are the single answers.
        single.contains_batch(&absent, &mut out);
        for (key, &answer) in absent.iter().zip(&out) {
            assert_eq!(answer, single.contains(key));
        }
        let positives = out.iter().filter(|&&x| x).count();
        assert_eq!(single.count_contained(&absent), positives);
    }
}

/// `insert` answers as `HashSet::insert`, except for false positives, which answer `false`.
#[test]
fn insert_answers_like_a_set() {
    let mut filter = WideFilter::with_fpr(10_000, 1e-6).unwrap();
    let mut set = HashSet::new();
    let mut disagreements = 0;
    for key in keys(3, 10_000).into_iter().chain(keys(3, 5_000)) {
        let new = filter.insert(&key);
        let truly_new = set.insert(key);
        assert!(truly_new || !new, "a repeated key answered new");
        disagreements += usize::from(new != truly_new);
    }
    assert!(disagreements <= 1, "{disagreements}");
}

/// A filter built with `with_fpr(n, p)` measures at or under `p` on absent keys, and takes at
/// most 1.10x the classic optimum's bytes at 1e-3 and 1e-4 (1.20x at 1e-6) for 10^6 keys.
#[test]
fn measured_rate_meets_the_target() {
    for (items, fpr, queries, most) in [
        (1_000_000, 1e-3, 30_000_000, 1.10),
        (1_000_000, 1e-4, 30_000_000, 1.10),
        (100_000, 1e-3, 10_000_000, 1.10),
        (100_000, 1e-4, 30_000_000, 1.10),
    ] {
        let mut filter = WideFilter::with_fpr(items, fpr).unwrap();
        let inserted = keys(11, items);
        filter.insert_batch(&inserted);
        assert_eq!(filter.count_contained(&inserted), items);
        let mut positives = 0;
        for chunk in 0..queries / 1_000_000 {
            positives += filter.count_contained(&keys(1_000 + chunk as u64, 1_000_000));
        }
        let measured = positives as f64 / queries as f64;
        let ratio = filter.size_in_bytes() as f64 / optimum_bytes(items, fpr);
        assert!(measured <= fpr, "{items} {fpr}: measured {measured}");
        if items == 1_000_000 {
            assert!(ratio <= most, "{items} {fpr}: {ratio}x the optimum");
        }
    }
    let filter = WideFilter::with_fpr(1_000_000, 1e-6).unwrap();
    let ratio = filter.size_in_bytes() as f64 / optimum_bytes(1_000_000, 1e-6);
    assert!(ratio <= 1.20, "{ratio}");
    assert_eq!(filter.probes(), 2);
}

/// The formula the sizing uses matches what a filter built at a given shape measures.
#[test]
fn formula_matches_simulation() {
    for (items, blocks, probes) in [(200_000, 6_400, 1), (200_000, 7_680, 2)] {
        let mut filter = WideFilter::with_num_blocks(blocks, probes).unwrap();
        filter.insert_batch(&keys(21, items));
        let queries = 10_000_000;
        let mut positives = 0;
        for chunk in 0..queries / 1_000_000 {
            positives += filter.count_contained(&keys(2_000 + chunk as u64, 1_000_000));
        }
        let measured = positives as f64 / queries as f64;
        let formula = math::wide::false_positive_rate(items, blocks, probes);
        // Query sampling and the filter's own spread: a few percent at these counts.
        let sigma = (formula / queries as f64).sqrt() + 0.01 * formula;
        assert!(
            (measured - formula).abs() <= 4.0 * sigma,
            "{probes}: measured {measured}, formula {formula}"
        );
    }
}

/// The filter's own rate estimate, from its words, matches what it measures and the formula;
/// its key estimate matches the keys inserted; the view gives the same.
#[test]
fn estimates_match_the_measured_rate_and_the_keys() {
    for (items, blocks, probes) in [(200_000, 6_400, 1), (200_000, 7_680, 2)] {
        let mut filter = WideFilter::with_num_blocks(blocks, probes).unwrap();
        filter.insert_batch(&keys(23, items));
        let queries = 10_000_000;
        let mut positives = 0;
        for chunk in 0..queries / 1_000_000 {
            positives += filter.count_contained(&keys(3_000 + chunk as u64, 1_000_000));
        }
        let measured = positives as f64 / queries as f64;
        let estimated = filter.estimated_fpr();
        let formula = math::wide::false_positive_rate(items, blocks, probes);
        // Query sampling only: the estimate is this filter's own rate.
        let sigma = (estimated / queries as f64).sqrt();
        assert!(
            (measured - estimated).abs() <= 4.0 * sigma,
            "{probes}: measured {measured}, estimated {estimated}"
        );
        assert!(
            (estimated - formula).abs() <= 0.05 * formula,
            "{probes}: estimated {estimated}, formula {formula}"
        );
        let keys_estimate = filter.estimated_items();
        assert!(
            (keys_estimate - items as f64).abs() <= 0.01 * items as f64,
            "{probes}: {keys_estimate} keys"
        );
        let bytes = filter.to_bytes();
        let view = splitbloom::WideFilterRef::from_bytes(&bytes).unwrap();
        assert_eq!(view.estimated_fpr(), estimated);
        assert_eq!(view.estimated_items(), keys_estimate);
        assert_eq!(view.fill_ratio(), filter.fill_ratio());
    }
}

#[test]
fn shapes_and_errors() {
    assert!(WideFilter::with_num_blocks(0, 1).is_err());
    assert!(WideFilter::with_num_blocks(63, 2).is_err());
    assert!(WideFilter::with_num_blocks(64, 0).is_err());
    assert!(WideFilter::with_fpr(10, 0.0).is_err());
    assert!(WideFilter::with_fpr(10, 1.0).is_err());
    assert!(WideFilter::with_fpr(usize::MAX, 1e-6).is_err());
    let filter = WideFilter::with_fpr(1, 1e-9).unwrap();
    assert!(filter.num_blocks() >= 1);
    let message = WideFilter::with_num_blocks(100, 2).unwrap_err().to_string();
    assert!(message.contains("multiple of 64"), "{message}");
}

/// Every available kernel builds the same bits and gives the same answers as the scalar one,
/// through the filter's public paths.
#[test]
fn every_kernel_gives_the_scalar_bits_and_answers() {
    use splitbloom::Kernel;
    for (items, fpr) in [(5_000, 1e-3), (5_000, 1e-5), (200_000, 1e-5)] {
        let inserted = keys(31, items);
        let absent = keys(32, 20_000);
        let mut reference = WideFilter::with_fpr(items, fpr)
            .unwrap()
            .with_kernel(Kernel::Scalar)
            .unwrap();
        reference.insert_batch(&inserted);
        let mut want = vec![false; absent.len()];
        reference.contains_batch(&absent, &mut want);
        for kernel in Kernel::available() {
            let mut batch = WideFilter::with_fpr(items, fpr)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            assert_eq!(batch.kernel(), kernel);
            let mut single = batch.clone();
            batch.insert_batch(&inserted);
            let new: usize = inserted.iter().map(|k| usize::from(single.insert(k))).sum();
            assert_eq!(batch.as_words(), reference.as_words(), "{kernel}");
            assert_eq!(single.as_words(), reference.as_words(), "{kernel}");
            assert!(new >= items - 1, "{kernel}: {new}");
            let mut got = vec![false; absent.len()];
            batch.contains_batch(&absent, &mut got);
            assert_eq!(got, want, "{kernel}");
            let singles: Vec<bool> = absent.iter().map(|k| batch.contains(k)).collect();
            assert_eq!(singles, want, "{kernel}");
        }
    }
}

/// The union holds exactly the bits of the filter built from both key sets.
#[test]
fn union_is_the_filter_of_both_key_sets() {
    for probes in [1, 2] {
        let (left, right) = (keys(41, 3_000), keys(42, 3_000));
        let mut a = WideFilter::with_num_blocks(256, probes).unwrap();
        let mut b = a.clone();
        let mut both = a.clone();
        a.insert_batch(&left);
        b.insert_batch(&right);
        both.insert_batch(&left);
        both.insert_batch(&right);
        a.union(&b).unwrap();
        assert_eq!(a, both);
    }
    let mut a = WideFilter::with_num_blocks(128, 2).unwrap();
    assert!(
        a.union(&WideFilter::with_num_blocks(128, 1).unwrap())
            .is_err()
    );
    assert!(
        a.union(&WideFilter::with_num_blocks(64, 2).unwrap())
            .is_err()
    );
    let seeded =
        WideFilter::with_num_blocks_and_hasher(128, 2, splitbloom::Xxh3::with_seed(5)).unwrap();
    let mut plain =
        WideFilter::with_num_blocks_and_hasher(128, 2, splitbloom::Xxh3::default()).unwrap();
    assert!(plain.union(&seeded).is_err());
}

/// Recomputes the checksum of a serialized filter after a test edited its header, so the
/// check under test is the one that fires.
fn reseal(bytes: &mut [u8]) {
    let mut state = xxhash_rust::xxh3::Xxh3Default::new();
    state.update(&bytes[..24]);
    state.update(&bytes[32..]);
    let checksum = state.digest();
    bytes[24..32].copy_from_slice(&checksum.to_le_bytes());
}

/// A filter of `shape` holding 500 keys, inserted through every insert form.
fn filled<S: splitbloom::FilterHasher>(filter: &mut WideFilter<S>) -> Vec<u64> {
    let inserted = keys(7, 500);
    filter.insert_batch(&inserted[..200]);
    for key in &inserted[200..400] {
        filter.insert(key);
    }
    let words: Vec<String> = inserted[400..].iter().map(u64::to_string).collect();
    filter.insert_bytes_batch(&words);
    inserted
}

fn round_trip<S: splitbloom::FilterHasher + std::fmt::Debug>(filter: &mut WideFilter<S>) {
    let inserted = filled(filter);
    let bytes = filter.to_bytes();
    assert_eq!(bytes.len(), filter.serialized_len());
    assert_eq!(&bytes[..4], b"SBLM");
    assert_eq!(bytes[7], filter.probes());
    let mut streamed = Vec::new();
    filter.write_to(&mut streamed).unwrap();
    assert_eq!(streamed, bytes);
    let header = splitbloom::format::Header::parse(&bytes).unwrap();
    assert_eq!(header.layout, splitbloom::LayoutKind::Wide);
    assert_eq!(
        (header.num_blocks, header.probes),
        (filter.num_blocks(), filter.probes())
    );
    assert_eq!(header.serialized_len(), bytes.len() as u64);
    let read = WideFilter::<S>::from_bytes_with_hasher_type(&bytes).unwrap();
    assert_eq!(&read, filter);
    assert_eq!(read.to_bytes(), bytes);
    let view = WideFilterRef::<S>::from_bytes_with_hasher_type(&bytes).unwrap();
    let trusted = WideFilterRef::<S>::from_trusted_bytes_with_hasher_type(&bytes).unwrap();
    assert_eq!(view, trusted);
    assert_eq!(view.to_bytes(), bytes);
    assert_eq!(&view.to_filter().unwrap(), filter);
    let words: Vec<String> = inserted[400..].iter().map(u64::to_string).collect();
    assert_eq!(view.count_contained(&inserted[..400]), 400);
    assert_eq!(view.count_contained_bytes(&words), words.len());
    assert!(words.iter().all(|w| view.contains_bytes(w.as_bytes())));
}

#[test]
fn round_trip_with_every_hasher_and_shape() {
    for probes in [1, 2] {
        round_trip(&mut WideFilter::with_num_blocks(128, probes).unwrap());
        round_trip(
            &mut WideFilter::with_num_blocks_and_hasher(64, probes, ParquetHash::default())
                .unwrap(),
        );
        round_trip(
            &mut WideFilter::with_num_blocks_and_hasher(64, probes, Xxh3::with_seed(99)).unwrap(),
        );
        if let Ok(hasher) = GxHash::new(5) {
            round_trip(&mut WideFilter::with_num_blocks_and_hasher(64, probes, hasher).unwrap());
        }
    }
    round_trip(&mut WideFilter::with_num_blocks(1, 1).unwrap());
    round_trip(&mut WideFilter::with_num_blocks(3, 1).unwrap());
    round_trip(&mut WideFilter::with_fpr(1000, 1e-3).unwrap());
    round_trip(&mut WideFilter::with_fpr(1000, 1e-6).unwrap());
    round_trip(&mut WideFilter::with_fpr_and_hasher(300, 1e-5, ParquetHash::default()).unwrap());
    let mut collected: WideFilter = (0..100u64).collect();
    round_trip(&mut collected);
}

/// Every hostile edit of a valid record is an error, never a panic, for the owned reader and
/// both views.
#[test]
fn hostile_bytes_are_errors() {
    let mut filter = WideFilter::with_num_blocks(128, 2).unwrap();
    filled(&mut filter);
    let valid = filter.to_bytes();
    let all = |bytes: &[u8]| -> Vec<Error> {
        vec![
            WideFilter::from_bytes(bytes).unwrap_err(),
            WideFilterRef::from_bytes(bytes).unwrap_err(),
        ]
    };
    // Every bit of every header byte, flipped under the stored checksum.
    for byte in 0..32 {
        for bit in 0..8 {
            let mut bytes = valid.clone();
            bytes[byte] ^= 1 << bit;
            all(&bytes);
        }
    }
    // Every header field changed and resealed: each check of its own.
    let edit = |at: usize, value: &[u8]| {
        let mut bytes = valid.clone();
        bytes[at..at + value.len()].copy_from_slice(value);
        reseal(&mut bytes);
        bytes
    };
    let cases: Vec<(Vec<u8>, Error)> = vec![
        (
            edit(0, b"SBLX"),
            Error::WrongMagic {
                expected: *b"SBLM",
                found: *b"SBLX",
            },
        ),
        (
            edit(4, &2u16.to_le_bytes()),
            Error::UnsupportedVersion {
                found: 2,
                supported: 1,
            },
        ),
        (edit(6, &[2]), Error::UnknownHasher(2)),
        (
            edit(6, &[3]),
            Error::HasherKindMismatch {
                expected: HasherKind::Xxh3,
                found: HasherKind::Parquet,
            },
        ),
        (edit(7, &[3]), Error::UnknownLayout(3)),
        (
            edit(7, &[0]),
            Error::LengthMismatch {
                expected: 32 + 128 * 32,
                found: valid.len(),
            },
        ),
        (edit(16, &0u64.to_le_bytes()), Error::ZeroBlocks),
        (
            edit(16, &100u64.to_le_bytes()),
            Error::InvalidWideShape {
                num_blocks: 100,
                probes: 2,
            },
        ),
        (
            edit(16, &(1u64 << 40).to_le_bytes()),
            Error::TooLarge {
                blocks: (1u64 << 40) as f64,
            },
        ),
        (
            edit(16, &u64::MAX.to_le_bytes()),
            Error::TooLarge {
                blocks: u64::MAX as f64,
            },
        ),
        (
            edit(16, &(1u64 << 32).to_le_bytes()),
            Error::Truncated {
                needed: 32 + (64u64 << 32),
                available: valid.len(),
            },
        ),
        (
            edit(16, &64u64.to_le_bytes()),
            Error::LengthMismatch {
                expected: 32 + 64 * 64,
                found: valid.len(),
            },
        ),
    ];
    for (bytes, expected) in cases {
        for error in all(&bytes) {
            assert_eq!(error, expected);
        }
        assert!(WideFilterRef::<Xxh3>::from_trusted_bytes(&bytes).is_err());
    }
    // One probe per key is a valid shape for any count: the resealed record reads.
    assert_eq!(WideFilter::from_bytes(&edit(7, &[1])).unwrap().probes(), 1);
    // Truncated at every length, and one byte too many.
    for len in 0..valid.len() {
        let errors = all(&valid[..len]);
        assert!(
            errors.iter().all(|e| matches!(e, Error::Truncated { .. })),
            "{len}"
        );
        assert!(WideFilterRef::<Xxh3>::from_trusted_bytes(&valid[..len]).is_err());
    }
    let mut longer = valid.clone();
    longer.push(0);
    assert!(
        all(&longer)
            .iter()
            .all(|e| matches!(e, Error::LengthMismatch { .. }))
    );
    // A flipped bitset bit: the checksum catches it.
    let mut corrupt = valid.clone();
    corrupt[100] ^= 4;
    assert!(
        all(&corrupt)
            .iter()
            .all(|e| matches!(e, Error::ChecksumMismatch { .. }))
    );
}

/// Each layout read as the other is an error that names the layout and the type to use.
#[test]
fn layouts_are_not_read_as_each_other() {
    let wide = WideFilter::with_num_blocks(64, 1).unwrap().to_bytes();
    let split = Filter::with_num_blocks(2).unwrap().to_bytes();
    let wrong = Error::LayoutMismatch {
        expected: LayoutKind::SplitBlock,
        found: LayoutKind::Wide,
    };
    assert_eq!(Filter::from_bytes(&wide).unwrap_err(), wrong);
    assert_eq!(FilterRef::from_bytes(&wide).unwrap_err(), wrong);
    assert_eq!(FilterRef::from_trusted_bytes(&wide).unwrap_err(), wrong);
    let message = wrong.to_string();
    assert!(message.contains("wide filter"), "{message}");
    assert!(
        message.contains("splitbloom::WideFilter::from_bytes"),
        "{message}"
    );
    let wrong = Error::LayoutMismatch {
        expected: LayoutKind::Wide,
        found: LayoutKind::SplitBlock,
    };
    assert_eq!(WideFilter::from_bytes(&split).unwrap_err(), wrong);
    assert_eq!(WideFilterRef::from_bytes(&split).unwrap_err(), wrong);
    assert_eq!(
        WideFilterRef::from_trusted_bytes(&split).unwrap_err(),
        wrong
    );
    assert!(
        wrong.to_string().contains("splitbloom::Filter::from_bytes"),
        "{wrong}"
    );
    assert!(Error::UnknownLayout(9).to_string().contains("layout id 9"));
    // The split-block layout id stays 0: existing files are unchanged.
    assert_eq!(split[7], 0);
    assert_eq!(splitbloom::format::Header::parse(&split).unwrap().probes, 1);
}

/// The view answers as the owned filter on every read, from aligned buffers (in place) and
/// misaligned ones (copied).
#[test]
fn view_answers_like_the_owned_filter() {
    for (blocks, probes) in [(5, 1), (128, 2), (4096, 2)] {
        let mut filter = WideFilter::with_num_blocks(blocks, probes).unwrap();
        let inserted = filled(&mut filter);
        let probe: Vec<u64> = inserted.iter().copied().chain(keys(8, 2000)).collect();
        let hashes: Vec<u64> = probe.iter().map(|k| k.rotate_left(17)).collect();
        let bytes = filter.to_bytes();
        // A u64 buffer is 8-byte aligned; offset by 4 bytes it is not.
        let mut aligned = vec![0u64; bytes.len() / 8];
        bytemuck::cast_slice_mut::<u64, u8>(&mut aligned).copy_from_slice(&bytes);
        let mut shifted = vec![0u64; bytes.len() / 8 + 1];
        let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut shifted);
        raw[4..4 + bytes.len()].copy_from_slice(&bytes);
        let misaligned = &raw[4..4 + bytes.len()];
        let aligned: &[u8] = bytemuck::cast_slice(&aligned);
        for (input, in_place) in [
            (aligned, cfg!(target_endian = "little")),
            (misaligned, false),
        ] {
            let view = WideFilterRef::from_bytes(input).unwrap();
            assert_eq!(view.is_zero_copy(), in_place);
            assert_eq!(view.to_bytes(), bytes);
            let mut owned_out = vec![false; probe.len()];
            let mut view_out = vec![true; probe.len()];
            filter.contains_batch(&probe, &mut owned_out);
            view.contains_batch(&probe, &mut view_out);
            assert_eq!(owned_out, view_out);
            filter.contains_hash_batch(&hashes, &mut owned_out);
            view.contains_hash_batch(&hashes, &mut view_out);
            assert_eq!(owned_out, view_out);
            for (key, hash) in probe.iter().zip(&hashes) {
                assert_eq!(view.contains(key), filter.contains(key));
                assert_eq!(view.contains_hash(*hash), filter.contains_hash(*hash));
            }
            assert_eq!(view.count_contained(&probe), filter.count_contained(&probe));
            assert_eq!(
                view.count_contained_hashes(&hashes),
                filter.count_contained_hashes(&hashes)
            );
            assert_eq!(view.count_contained(&inserted[..400]), 400);
        }
    }
}
