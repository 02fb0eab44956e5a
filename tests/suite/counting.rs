//! CountingFilter against an exact multiset model, saturation, and the projection to `Filter`.

use crate::common;

use std::collections::HashMap;

use proptest::prelude::*;
use splitbloom::{CountingFilter, Filter, Kernel};

const MAX: u32 = 15;

#[derive(Clone, Debug)]
enum Op {
    Insert(u64),
    Remove(u64),
}

/// Operations on a small key space, so keys repeat and share counters in a small filter: a
/// run of inserts (which can saturate counters) followed by a mix of inserts and removals.
fn ops() -> impl Strategy<Value = Vec<Op>> {
    let inserts = proptest::collection::vec((0u64..40).prop_map(Op::Insert), 0..300);
    let mixed = proptest::collection::vec(
        prop_oneof![
            1 => (0u64..40).prop_map(Op::Insert),
            2 => (0u64..40).prop_map(Op::Remove),
        ],
        0..400,
    );
    (inserts, mixed).prop_map(|(mut ops, mixed)| {
        ops.extend(mixed);
        ops
    })
}

fn kernel_strategy() -> impl Strategy<Value = Kernel> {
    proptest::sample::select(Kernel::available().collect::<Vec<_>>())
}

proptest! {
    #[test]
    fn agrees_with_an_exact_multiset(ops in ops(), blocks in 1usize..6, kernel in kernel_strategy()) {
        let mut filter = CountingFilter::with_num_blocks(blocks).unwrap().with_kernel(kernel).unwrap();
        let mut model: HashMap<u64, u32> = HashMap::new();
        for op in ops {
            match op {
                Op::Insert(key) => {
                    filter.insert(&key);
                    *model.entry(key).or_default() += 1;
                }
                // The contract: only keys that are in the multiset are removed.
                Op::Remove(key) => {
                    if let Some(count) = model.get_mut(&key).filter(|count| **count > 0) {
                        prop_assert!(filter.remove(&key), "present key {key} refused");
                        *count -= 1;
                    }
                }
            }
            for (key, &count) in &model {
                if count > 0 {
                    prop_assert!(filter.contains(key), "false negative for {key} (count {count})");
                    // A counter is exact until it saturates, then stays at the maximum.
                    prop_assert!(u32::from(filter.count_estimate(key)) >= count.min(MAX));
                }
            }
        }
        // The projection answers exactly like the counting filter, present keys or not.
        let projection = filter.to_filter();
        for key in 0u64..2_000 {
            prop_assert_eq!(projection.contains(&key), filter.contains(&key), "key {}", key);
        }
        // Without saturation every counter is the exact number of live keys on it, so the
        // projection is bit for bit the filter built from the live keys; with saturation it can
        // only hold more bits.
        let mut live = Filter::with_num_blocks(blocks).unwrap().with_kernel(Kernel::Scalar).unwrap();
        for (key, &count) in &model {
            if count > 0 {
                live.insert(key);
            }
        }
        if filter.saturated_counters() == 0 {
            prop_assert!(projection == live);
        } else {
            for (bits, live) in projection.as_words().iter().zip(live.as_words()) {
                prop_assert_eq!(bits & live, *live);
            }
        }
    }
}

#[test]
fn saturated_counters_never_decrement() {
    let mut filter = CountingFilter::with_num_blocks(64).unwrap();
    for _ in 0..20 {
        filter.insert("hot");
    }
    assert_eq!(filter.count_estimate("hot"), 15);
    assert_eq!(filter.saturated_counters(), 8);
    for removal in 0..20 {
        assert!(filter.remove("hot"), "removal {removal}");
    }
    // Inserted 20 times, removed 20 times: the counters lost track at 15 and stay there, so the
    // key lingers as a false positive rather than risk a false negative for anyone else.
    assert!(filter.contains("hot"));
    assert_eq!(filter.count_estimate("hot"), 15);
    assert_eq!(filter.saturated_counters(), 8);
}

#[test]
fn keys_sharing_a_saturated_counter_survive_removals() {
    // One block: every key shares the block, many share lanes' counters.
    let (keys, _) = common::members_and_strangers(8, 400, 0);
    let mut filter = CountingFilter::with_num_blocks(1).unwrap();
    for key in &keys {
        filter.insert(key);
    }
    // 400 keys put 12.5 increments on each counter on average: many overflow.
    assert!(
        filter.saturated_counters() > 20,
        "{}",
        filter.saturated_counters()
    );
    let (removed, kept) = keys.split_at(300);
    for key in removed {
        assert!(filter.remove(key));
    }
    assert!(kept.iter().all(|key| filter.contains(key)));
}

#[test]
fn unsaturated_counts_return_to_zero() {
    let mut filter = CountingFilter::with_num_blocks(1024).unwrap();
    for _ in 0..3 {
        let before = filter.contains(&7u64);
        assert_eq!(filter.insert(&7u64), !before);
    }
    assert_eq!(filter.count_estimate(&7u64), 3);
    for _ in 0..3 {
        assert!(filter.remove(&7u64));
    }
    assert_eq!(filter.count_estimate(&7u64), 0);
    assert!(!filter.contains(&7u64));
    assert!(!filter.remove(&7u64), "a certainly absent key is refused");
    assert!(filter.to_filter().as_words().iter().all(|&word| word == 0));
}

#[test]
fn projection_equals_the_plain_filter_on_every_kernel() {
    let (keys, strangers) = common::members_and_strangers(9, 20_000, 50_000);
    let mut expected = Filter::with_fpr(20_000, 0.01)
        .unwrap()
        .with_kernel(Kernel::Scalar)
        .unwrap();
    for key in &keys {
        expected.insert(key);
    }
    for kernel in Kernel::available() {
        let mut counting = CountingFilter::with_fpr(20_000, 0.01)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        for key in &keys {
            counting.insert(key);
        }
        let projection = counting.to_filter();
        assert!(projection == expected, "{kernel}");
        assert_eq!(projection.kernel(), kernel);
        let mut false_positives = 0;
        for key in &strangers {
            assert_eq!(counting.contains(key), projection.contains(key));
            false_positives += usize::from(counting.contains(key));
        }
        // The same rate as the plain filter: about 1% at this size.
        let rate = false_positives as f64 / strangers.len() as f64;
        assert!(rate > 0.002 && rate < 0.02, "{kernel}: {rate}");
    }
}

#[test]
fn bad_parameters_are_errors() {
    assert_eq!(
        CountingFilter::with_fpr(0, 0.01).unwrap_err(),
        splitbloom::Error::ZeroItems
    );
    assert!(CountingFilter::with_fpr(10, 1.0).is_err());
    assert_eq!(
        CountingFilter::with_num_blocks(0).unwrap_err(),
        splitbloom::Error::ZeroBlocks
    );
    assert!(matches!(
        CountingFilter::with_num_blocks(splitbloom::math::MAX_BLOCKS + 1),
        Err(splitbloom::Error::TooLarge { .. })
    ));
}
