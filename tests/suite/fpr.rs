//! Measured false-positive rates against the split-block formula, and `with_fpr` sizing.

use crate::common;

use splitbloom::{Filter, math};

/// The rate of `strangers` reported present.
fn measured_fpr(filter: &Filter, strangers: &[u64]) -> f64 {
    strangers.iter().filter(|key| filter.contains(*key)).count() as f64 / strangers.len() as f64
}

#[test]
fn measured_rate_matches_the_formula_at_common_densities() {
    let (members, strangers) = common::members_and_strangers(10, 500_000, 2_000_000);
    for bits_per_key in [8.0, 10.0, 12.0, 16.0] {
        let mut filter = Filter::with_bits_per_key(members.len(), bits_per_key).unwrap();
        for key in &members {
            filter.insert(key);
        }
        let predicted =
            math::fpr_for_keys_per_block(members.len() as f64 / filter.num_blocks() as f64);
        let measured = measured_fpr(&filter, &strangers);
        println!("{bits_per_key} bits/key: measured {measured:.5}, formula {predicted:.5}");
        assert!(
            (measured - predicted).abs() <= 0.10 * predicted,
            "{bits_per_key} bits/key: measured {measured}, predicted {predicted}"
        );
        // The filter's own estimate from its bits agrees too.
        let estimated = filter.estimated_fpr();
        assert!(
            (estimated - predicted).abs() <= 0.10 * predicted,
            "estimate {estimated} vs {predicted}"
        );
    }
}

/// Sequential integer keys (the worst case for a weak hash) behave like random ones.
#[test]
fn sequential_keys_are_spread_well() {
    let items = 500_000u64;
    let mut filter = Filter::with_bits_per_key(items as usize, 10.0).unwrap();
    for key in 0..items {
        filter.insert(&key);
    }
    let strangers: Vec<u64> = (items..items + 2_000_000).collect();
    let measured = strangers.iter().filter(|key| filter.contains(*key)).count() as f64
        / strangers.len() as f64;
    let predicted = math::fpr_for_keys_per_block(items as f64 / filter.num_blocks() as f64);
    println!("sequential u64: measured {measured:.5}, formula {predicted:.5}");
    assert!(
        (measured - predicted).abs() <= 0.10 * predicted,
        "measured {measured}, predicted {predicted}"
    );
    // Other regular integer patterns: strides, and keys that differ only in their high bits
    // (with a constant second factor in the integer mix, `i << 44` measured 1.3x the formula).
    for (name, key) in [
        ("i << 32", (|i: u64| i << 32) as fn(u64) -> u64),
        ("i << 44", |i| i << 44),
        ("i * 1000", |i| i * 1000),
        ("i << 44 | 0xffff", |i| (i << 44) | 0xffff),
    ] {
        let members = 100_000u64;
        let mut filter = Filter::with_bits_per_key(members as usize, 10.0).unwrap();
        for i in 0..members {
            filter.insert(&key(i));
        }
        let strangers = (members..members + 400_000).map(key);
        let measured = strangers.filter(|key| filter.contains(key)).count() as f64 / 4e5;
        let predicted = math::fpr_for_keys_per_block(members as f64 / filter.num_blocks() as f64);
        println!("{name}: measured {measured:.5}, formula {predicted:.5}");
        assert!(
            (measured - predicted).abs() <= 0.15 * predicted,
            "{name}: measured {measured}, predicted {predicted}"
        );
    }
    let strings: Vec<String> = (0..200_000).map(|i| format!("user:{i}")).collect();
    let mut filter = Filter::with_bits_per_key(strings.len(), 10.0).unwrap();
    for key in &strings {
        filter.insert(key.as_str());
    }
    let measured = (0..1_000_000)
        .filter(|i| filter.contains(format!("other:{i}").as_str()))
        .count() as f64
        / 1e6;
    let predicted = math::fpr_for_keys_per_block(strings.len() as f64 / filter.num_blocks() as f64);
    assert!(
        (measured - predicted).abs() <= 0.10 * predicted,
        "strings: measured {measured}, predicted {predicted}"
    );
}

#[test]
fn with_fpr_delivers_the_target_without_wasting_space() {
    for (target, items) in [(0.1, 200_000u64), (0.01, 200_000), (0.001, 500_000)] {
        let (members, strangers) = common::members_and_strangers(11, items as usize, 2_000_000);
        let mut filter = Filter::with_fpr(items as usize, target).unwrap();
        for key in &members {
            filter.insert(key);
        }
        let measured = measured_fpr(&filter, &strangers);
        // Allow three standard deviations of sampling error above the target.
        let sigma = (target * (1.0 - target) / strangers.len() as f64).sqrt();
        println!(
            "target {target}: measured {measured:.5} (σ {sigma:.6}), {} bytes",
            filter.size_in_bytes()
        );
        assert!(
            measured <= target + 3.0 * sigma,
            "target {target}: measured {measured}"
        );
        let minimum_bits = items as f64 * math::bits_per_key_for_fpr(target).unwrap();
        let bits = (filter.size_in_bytes() * 8) as f64;
        assert!(
            bits >= minimum_bits * 0.999,
            "smaller than the formula allows"
        );
        assert!(
            bits <= minimum_bits * 1.05,
            "target {target}: {bits} bits vs minimum {minimum_bits}"
        );
    }
}

#[test]
fn estimated_items_tracks_insertions() {
    let (members, _) = common::members_and_strangers(12, 100_000, 0);
    let mut filter = Filter::with_fpr(100_000, 0.01).unwrap();
    for (i, key) in members.iter().enumerate() {
        filter.insert(key);
        if (i + 1) % 25_000 == 0 {
            let estimate = filter.estimated_items();
            assert!(
                (estimate - (i + 1) as f64).abs() < 0.03 * (i + 1) as f64,
                "{estimate} after {}",
                i + 1
            );
        }
    }
}
