//! `WideFilter`: no false negatives on any path, every path answering alike, the measured
//! false-positive rate at or under the target it was built for, and the memory targets.

use std::collections::HashSet;

use splitbloom::{WideFilter, math};

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
