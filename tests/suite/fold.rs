//! Folding: a folded filter is the filter built fresh at the smaller size, bit for bit.

use crate::common;

use rand::RngExt;
use splitbloom::{Error, Filter};

fn filled(num_blocks: usize, hashes: &[u64]) -> Filter {
    let mut filter = Filter::with_num_blocks(num_blocks).unwrap();
    filter.insert_hash_batch(hashes);
    filter
}

#[test]
fn folded_equals_built_fresh_at_half_size() {
    let mut rng = common::rng(5);
    let mut hashes: Vec<u64> = (0..20_000).map(|_| rng.random()).collect();
    // Hashes at the edges of block ranges, where rounding would show.
    hashes.extend([0, u64::MAX, 1 << 63, (1 << 63) - 1, 0xffff_ffff, 1 << 32]);
    for num_blocks in [2usize, 6, 64, 1000, 1002, 4096, 65_536] {
        let mut folded = filled(num_blocks, &hashes);
        folded.fold().unwrap();
        let fresh = filled(num_blocks / 2, &hashes);
        assert_eq!(folded.num_blocks(), num_blocks / 2);
        assert!(folded.as_words() == fresh.as_words(), "{num_blocks} blocks");
    }
}

#[test]
fn repeated_folds_equal_the_quarter_and_eighth_sizes() {
    let mut rng = common::rng(6);
    let hashes: Vec<u64> = (0..5000).map(|_| rng.random()).collect();
    let mut folded = filled(1024, &hashes);
    for size in [512, 256, 128] {
        folded.fold().unwrap();
        assert!(
            folded.as_words() == filled(size, &hashes).as_words(),
            "{size}"
        );
    }
}

#[test]
fn odd_block_counts_cannot_fold() {
    for num_blocks in [1, 3, 1001] {
        let mut filter = filled(num_blocks, &[1, 2, 3]);
        let before = filter.clone();
        assert_eq!(
            filter.fold().unwrap_err(),
            Error::CannotFold { blocks: num_blocks }
        );
        assert_eq!(filter, before);
        assert_eq!(filter.fold_to_fpr(0.5).unwrap(), 0);
    }
}

#[test]
fn fold_to_fpr_stops_at_the_last_fold_within_target() {
    let (members, _) = common::members_and_strangers(8, 10_000, 0);
    for target in [0.001, 0.01, 0.05] {
        let mut filter = Filter::with_num_blocks(1 << 14).unwrap(); // ~52 bits per key
        for key in &members {
            filter.insert(key);
        }
        let folds = filter.fold_to_fpr(target).unwrap();
        assert!(folds > 0, "{target}");
        assert_eq!(filter.num_blocks(), (1 << 14) >> folds);
        assert!(filter.estimated_fpr() <= target, "{target}");
        let mut once_more = filter.clone();
        once_more.fold().unwrap();
        assert!(once_more.estimated_fpr() > target, "{target}");
        assert!(members.iter().all(|key| filter.contains(key)));
        // The estimate is the rate measured on keys that were never inserted.
        let strangers = common::members_and_strangers(9, 0, 200_000).1;
        let measured = strangers.iter().filter(|key| filter.contains(*key)).count() as f64
            / strangers.len() as f64;
        let estimate = filter.estimated_fpr();
        assert!(
            (measured - estimate).abs() < 0.2 * estimate + 0.0005,
            "{measured} vs {estimate}"
        );
    }
    let mut filter = Filter::with_num_blocks(8).unwrap();
    for target in [0.0, 1.0, f64::NAN] {
        assert!(matches!(
            filter.fold_to_fpr(target),
            Err(Error::InvalidFpr(_))
        ));
    }
    // An empty filter folds down to one block.
    assert_eq!(filter.fold_to_fpr(0.01).unwrap(), 3);
    assert_eq!(filter.num_blocks(), 1);
}
