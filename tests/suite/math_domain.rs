//! `splitbloom::math` over its whole domain: the extremes (rates and sizes where a naive
//! evaluation gives wrong answers or runs for seconds), special values, and monotonicity and
//! range over hundreds of orders of magnitude. Speed is measured in release builds, not here;
//! these tests finish only because every call is bounded.

use splitbloom::Error;
use splitbloom::math::{
    MAX_BLOCKS, bits_per_key_for_fpr, classic_false_positive_rate, false_positive_rate,
    fpr_for_keys_per_block, num_blocks_for_fpr,
};
use splitbloom::parquet::Sizing;

/// Returned 0 before (the log-space sum saturated its u64 index range), where every bit is set.
#[test]
fn overfull_blocks_give_one() {
    assert_eq!(false_positive_rate(1e-17), 1.0);
    assert_eq!(fpr_for_keys_per_block(2e19), 1.0);
    assert_eq!(fpr_for_keys_per_block(f64::MAX), 1.0);
    assert_eq!(false_positive_rate(0.1), 1.0); // 2560 keys per block
}

/// Each of these ran for more than 20 s before (a sum of ~24·√λ terms).
#[test]
fn huge_loads_answer_at_once() {
    assert_eq!(false_positive_rate(1e-12), 1.0);
    assert_eq!(fpr_for_keys_per_block(1e16), 1.0);
    assert_eq!(Sizing::fpr_at(32, u64::MAX), 1.0);
    let sizing = Sizing::for_items(u64::MAX, 0.01).unwrap();
    assert_eq!((sizing.num_bytes, sizing.fpr), (128 << 20, 1.0));
}

/// The known split-block rates (ANCHORS) still hold.
#[test]
fn known_rates() {
    for (bits, percent) in [(8.0, 3.32), (10.0, 1.26), (12.0, 0.542), (16.0, 0.132)] {
        let got = 100.0 * false_positive_rate(bits);
        assert!(
            (got - percent).abs() / percent < 0.01,
            "{bits} bits/key: {got}% vs {percent}%"
        );
    }
}

#[test]
fn special_values() {
    assert!(fpr_for_keys_per_block(f64::NAN).is_nan());
    assert_eq!(fpr_for_keys_per_block(f64::INFINITY), 1.0);
    assert_eq!(fpr_for_keys_per_block(f64::NEG_INFINITY), 0.0);
    assert_eq!(fpr_for_keys_per_block(-0.0), 0.0);
    assert_eq!(fpr_for_keys_per_block(-1.0), 0.0);
    let least = fpr_for_keys_per_block(f64::MIN_POSITIVE); // 2^-1062: subnormal
    assert!(least > 0.0 && least < 1e-319, "{least}");
    assert_eq!(fpr_for_keys_per_block(5e-324), 0.0); // underflows
    // One key in a block sets all eight bits of the probe with probability 2^-40.
    let tiny = fpr_for_keys_per_block(1e-300);
    assert!((tiny / (1e-300 * (1.0f64 / 32.0).powi(8)) - 1.0).abs() < 1e-12);
    for bits in [f64::NAN, 0.0, -1.0, f64::NEG_INFINITY, 5e-324, 1e-300] {
        assert_eq!(false_positive_rate(bits), 1.0, "{bits}");
        assert_eq!(classic_false_positive_rate(bits), 1.0, "{bits}");
    }
    assert_eq!(false_positive_rate(f64::INFINITY), 0.0);
    assert_eq!(classic_false_positive_rate(f64::INFINITY), 0.0);
    assert_eq!(classic_false_positive_rate(f64::MAX), 0.0);
    // Nearly full: 1 − FPR ≈ 8·e^(−λ/32) while that is far above rounding.
    let lambda = 640.0;
    let gap = 1.0 - fpr_for_keys_per_block(lambda);
    let bound = 8.0 * (-lambda / 32.0f64).exp();
    assert!(gap > 0.9 * bound && gap <= bound, "{gap} vs {bound}");
}

/// In [0, 1] and monotone over 600 orders of magnitude, in both parameterisations.
#[test]
fn rate_is_monotone_and_in_range_everywhere() {
    let mut previous = 0.0;
    let mut lambda = 1e-310;
    while lambda < 1e300 {
        let rate = fpr_for_keys_per_block(lambda);
        assert!((0.0..=1.0).contains(&rate), "λ = {lambda}: {rate}");
        assert!(rate >= previous, "λ = {lambda}: {rate} < {previous}");
        previous = rate;
        lambda *= 1.09;
    }
    // Finer steps where the rate climbs to 1.
    let mut previous = 0.0;
    let mut lambda = 0.5;
    while lambda < 2000.0 {
        let rate = fpr_for_keys_per_block(lambda);
        assert!(rate >= previous, "λ = {lambda}: {rate} < {previous}");
        previous = rate;
        lambda *= 1.001;
    }
    let mut previous = 1.0;
    let mut bits = 1e-300;
    while bits < 1e300 {
        let rate = false_positive_rate(bits);
        assert!((0.0..=1.0).contains(&rate), "{bits} bits: {rate}");
        assert!(rate <= previous, "{bits} bits: {rate} > {previous}");
        let classic = classic_false_positive_rate(bits);
        assert!((0.0..=1.0).contains(&classic), "{bits} bits: {classic}");
        previous = rate;
        bits *= 1.09;
    }
}

/// Sizing answers for every rate in (0, 1), keeps its promise, is tight, and grows as the rate
/// falls; block counts are the exact minimum or a `TooLarge` error.
#[test]
fn sizing_covers_the_whole_domain() {
    let mut previous = 0.0;
    let mut fpr = 0.999_999_999_999_999_9;
    while fpr > 1e-320 {
        let bits = bits_per_key_for_fpr(fpr).unwrap();
        // Below about 1e-310 the bits per key exceed f64's range: +∞ (which meets the rate).
        assert!(
            bits > 0.0 && (bits.is_finite() || fpr < 1e-300),
            "{fpr}: {bits}"
        );
        assert!(false_positive_rate(bits) <= fpr, "{fpr}: {bits}");
        if fpr < 0.999 && bits.is_finite() {
            assert!(
                false_positive_rate(bits * 0.999_999) > fpr,
                "{fpr}: {bits} not tight"
            );
        }
        assert!(bits >= previous, "{fpr}: {bits} < {previous}");
        previous = bits;
        match num_blocks_for_fpr(1000, fpr) {
            Ok(blocks) => {
                let rate = |blocks: usize| fpr_for_keys_per_block(1000.0 / blocks as f64);
                assert!(rate(blocks) <= fpr);
                assert!(blocks == 1 || rate(blocks - 1) > fpr, "{fpr}: {blocks}");
            }
            Err(Error::TooLargeForRate {
                items, max_bytes, ..
            }) => {
                assert_eq!((items, max_bytes), (1000, 32 << 32));
            }
            Err(other) => panic!("{fpr}: {other:?}"),
        }
        fpr *= 0.83;
    }
    for items in [1, 7, 1 << 20, 1 << 40, usize::MAX] {
        for fpr in [1e-300, 1e-9, 0.01, 0.5, 0.999] {
            match num_blocks_for_fpr(items, fpr) {
                Ok(blocks) => assert!(blocks <= MAX_BLOCKS),
                Err(Error::TooLargeForRate {
                    items: refused,
                    max_bytes,
                    ..
                }) => assert_eq!((refused, max_bytes), (items, 32 << 32)),
                Err(other) => panic!("{items} {fpr}: {other:?}"),
            }
        }
    }
}
