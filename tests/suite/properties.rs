//! Algebraic properties, checked with proptest.

use proptest::prelude::*;
use splitbloom::{Filter, Kernel};

fn build(keys: &[u64], blocks: usize, kernel: Kernel) -> Filter {
    let mut filter = Filter::with_num_blocks(blocks)
        .unwrap()
        .with_kernel(kernel)
        .unwrap();
    for key in keys {
        filter.insert(key);
    }
    filter
}

fn kernel_strategy() -> impl Strategy<Value = Kernel> {
    proptest::sample::select(Kernel::available().collect::<Vec<_>>())
}

proptest! {
    #[test]
    fn union_equals_building_from_both_sets(
        a in proptest::collection::vec(any::<u64>(), 0..300),
        b in proptest::collection::vec(any::<u64>(), 0..300),
        blocks in 1usize..50,
        kernel in kernel_strategy(),
    ) {
        let mut union = build(&a, blocks, kernel);
        union.union(&build(&b, blocks, kernel)).unwrap();
        let both: Vec<u64> = a.iter().chain(&b).copied().collect();
        prop_assert_eq!(&union, &build(&both, blocks, Kernel::Scalar));
        for key in &both {
            prop_assert!(union.contains(key));
        }
    }

    #[test]
    fn intersection_keeps_common_keys_and_is_a_subset(
        a in proptest::collection::vec(any::<u64>(), 0..300),
        b in proptest::collection::vec(any::<u64>(), 0..300),
        common in proptest::collection::vec(any::<u64>(), 0..50),
        blocks in 1usize..50,
    ) {
        let left: Vec<u64> = a.iter().chain(&common).copied().collect();
        let right: Vec<u64> = b.iter().chain(&common).copied().collect();
        let (left, right) = (build(&left, blocks, Kernel::best()), build(&right, blocks, Kernel::best()));
        let mut both = left.clone();
        both.intersect(&right).unwrap();
        for key in &common {
            prop_assert!(both.contains(key));
        }
        for ((word, l), r) in both.as_words().iter().zip(left.as_words()).zip(right.as_words()) {
            prop_assert_eq!(*word, l & r);
        }
    }

    #[test]
    fn insert_is_true_when_new_and_a_repeat_is_false(
        keys in proptest::collection::vec(any::<u64>(), 1..500),
        blocks in 1usize..20,
        kernel in kernel_strategy(),
    ) {
        let mut filter = Filter::with_num_blocks(blocks).unwrap().with_kernel(kernel).unwrap();
        // The first insert into an empty filter always finds missing bits: it is new.
        prop_assert!(filter.insert(&keys[0]));
        for key in &keys {
            let before = filter.contains(key);
            prop_assert_eq!(filter.insert(key), !before);
            prop_assert!(!filter.insert(key));
        }
    }

    #[test]
    fn clear_empties(keys in proptest::collection::vec(any::<u64>(), 1..300), blocks in 1usize..20) {
        let mut filter = build(&keys, blocks, Kernel::best());
        filter.clear();
        prop_assert!(filter.as_words().iter().all(|&word| word == 0));
        prop_assert_eq!(filter.fill_ratio(), 0.0);
        for key in &keys {
            prop_assert!(!filter.contains(key));
        }
        prop_assert_eq!(filter, Filter::with_num_blocks(blocks).unwrap());
    }
}
