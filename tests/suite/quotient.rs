//! QuotientFilter against an exact multiset model on every kernel (no false negative, counts at
//! least the model's, exact length, a full filter refusing a key without a change), its rates
//! against the documented formula, and its API's edges.
//!
//! The long run (10^7 operations per kernel) is `SPLITBLOOM_QUOTIENT_OPERATIONS=10000000`; the
//! default is a shorter run of the same test.

use std::collections::HashMap;
use std::ops::Range;

use rand::RngExt;
use splitbloom::math::quotient::{DESIGN_LOAD, false_positive_rate};
use splitbloom::{Error, Kernel, QuotientFilter, QuotientFilterRef, TagBits};

use crate::common;

/// The model of a multiset of keys, and every copy in a list to remove one at random.
#[derive(Default)]
struct Model {
    counts: HashMap<u64, u32>,
    copies: Vec<u64>,
}

impl Model {
    fn add(&mut self, key: u64) {
        *self.counts.entry(key).or_default() += 1;
        self.copies.push(key);
    }

    fn take(&mut self, at: usize) -> u64 {
        let key = self.copies.swap_remove(at);
        let count = self.counts.get_mut(&key).unwrap();
        *count -= 1;
        if *count == 0 {
            self.counts.remove(&key);
        }
        key
    }
}

/// `operations` random operations on a filter of `num_blocks` blocks on `kernel`, checked
/// against the model: the load swings between half and full (so inserts hit `Full`), keys are
/// added as copies and as set members, only keys in the model are removed (the documented safe
/// pattern), and every lookup of a key in the model must answer present. Returns the number of
/// `Full` answers seen.
fn churn(
    kernel: Kernel,
    tag_bits: TagBits,
    num_blocks: usize,
    operations: usize,
    seed: u64,
) -> usize {
    let mut filter = QuotientFilter::with_num_blocks(num_blocks, tag_bits)
        .unwrap()
        .with_kernel(kernel)
        .unwrap();
    let mut model = Model::default();
    let mut rng = common::rng(seed);
    let capacity = filter.capacity();
    let (mut filling, mut full) = (true, 0);
    for step in 0..operations {
        if filter.len() < capacity / 2 {
            filling = true;
        }
        let roll = rng.random_range(0..20);
        let adding = if filling { roll < 12 } else { roll < 4 };
        if adding {
            // A new key mostly, sometimes another copy of a present one.
            let key = match model.copies.len() {
                0 => rng.random(),
                n if roll % 4 == 0 => model.copies[rng.random_range(0..n)],
                _ => rng.random(),
            };
            let before = (step % 64 == 0).then(|| filter.to_bytes());
            let len = filter.len();
            let result = if roll % 3 == 0 {
                filter.insert(&key).map(|new| new.then_some(()))
            } else {
                filter.insert_copy(&key).map(Some)
            };
            match result {
                Ok(Some(())) => model.add(key),
                // `insert` of a key whose tag is already there adds nothing.
                Ok(None) => assert!(filter.contains(&key)),
                Err(Error::Full { processed: 0 }) => {
                    full += 1;
                    filling = false;
                    assert_eq!(
                        filter.len(),
                        len,
                        "{kernel}: a refused insert changed the length"
                    );
                    if let Some(before) = before {
                        assert!(
                            filter.to_bytes() == before,
                            "{kernel}: a refused insert changed bytes"
                        );
                    }
                }
                Err(error) => panic!("{kernel}: {error}"),
            }
        } else if roll < 16 && !model.copies.is_empty() {
            let key = model.take(rng.random_range(0..model.copies.len()));
            assert!(
                filter.remove(&key),
                "{kernel}: present key {key:#x} not removed at step {step}"
            );
        } else if !model.copies.is_empty() {
            let key = model.copies[rng.random_range(0..model.copies.len())];
            assert!(
                filter.contains(&key),
                "{kernel}: false negative {key:#x} at step {step}"
            );
            assert!(
                filter.count(&key) >= model.counts[&key],
                "{kernel}: count below the model's"
            );
        }
        assert_eq!(
            filter.len(),
            model.copies.len(),
            "{kernel}: length at step {step}"
        );
        if step % 4096 == 0 {
            let keys: Vec<u64> = model.counts.keys().copied().collect();
            assert_eq!(
                filter.count_contained(&keys),
                keys.len(),
                "{kernel}: a batch missed a key"
            );
        }
    }
    let keys: Vec<u64> = model.counts.keys().copied().collect();
    let mut present = vec![false; keys.len()];
    filter.contains_batch(&keys, &mut present);
    assert!(
        present.iter().all(|&p| p),
        "{kernel}: false negative at the end"
    );
    full
}

fn operations() -> usize {
    std::env::var("SPLITBLOOM_QUOTIENT_OPERATIONS")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(200_000)
}

#[test]
fn every_kernel_agrees_with_an_exact_multiset_through_full() {
    for kernel in Kernel::available() {
        for (tag_bits, seed) in [(TagBits::Eight, 1), (TagBits::Sixteen, 2)] {
            let full = churn(kernel, tag_bits, 64, operations(), seed);
            assert!(
                full > 0,
                "{kernel} {tag_bits:?}: the run never reached full"
            );
        }
    }
}

/// Every kernel leaves the same bytes after the same writes, single and batched, and answers
/// the same.
#[test]
fn every_kernel_writes_the_same_bytes() {
    let (members, strangers) = common::members_and_strangers(7, 6_000, 20_000);
    for tag_bits in TagBits::ALL {
        let mut reference: Option<Vec<u8>> = None;
        let mut reference_answers: Option<Vec<bool>> = None;
        for kernel in Kernel::available() {
            let mut filter = QuotientFilter::with_capacity(6_000, tag_bits)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            // Copies, so that every removal below has its own (a key whose tag another key
            // already holds would not be added by `insert`, and must not be removed).
            filter.insert_copy_batch(&members[..3000]).unwrap();
            for key in &members[3000..] {
                filter.insert_copy(key).unwrap();
            }
            assert_eq!(filter.remove_batch(&members[..1000]), 1000);
            for key in &members[1000..1500] {
                assert!(filter.remove(key));
            }
            filter.insert_batch(&strangers[..500]).unwrap();
            let mut answers = vec![false; strangers.len()];
            filter.contains_batch(&strangers, &mut answers);
            let singles: Vec<bool> = strangers.iter().map(|key| filter.contains(key)).collect();
            assert_eq!(
                answers, singles,
                "{kernel}: batch and single lookups differ"
            );
            let bytes = filter.to_bytes();
            assert_eq!(
                *reference.get_or_insert(bytes.clone()),
                bytes,
                "{kernel} {tag_bits:?}"
            );
            assert_eq!(
                *reference_answers.get_or_insert(answers.clone()),
                answers,
                "{kernel}"
            );
        }
    }
}

/// The measured rate of keys never inserted, at several loads, within 10% of
/// `math::quotient::false_positive_rate`.
#[test]
fn measured_rates_match_the_formula() {
    // About 560 false positives at 16 bits, 4,000 to 9,000 at 8 bits.
    let runs = [
        (TagBits::Eight, 0.5, 2_000_000),
        (TagBits::Eight, 0.85, 2_000_000),
        (TagBits::Eight, DESIGN_LOAD, 2_000_000),
        (TagBits::Sixteen, DESIGN_LOAD, 25_000_000),
    ];
    for (tag_bits, load, probes) in runs {
        {
            let num_blocks = 2_000;
            let items = (load * (num_blocks * tag_bits.slots_per_block()) as f64) as usize;
            let (members, _) = common::members_and_strangers(11, items, 0);
            let mut filter = QuotientFilter::with_num_blocks(num_blocks, tag_bits).unwrap();
            filter.insert_copy_batch(&members).unwrap();
            // Random hashes are keys never inserted, with probability 1 - 2^-64 each.
            let mut rng = common::rng(12);
            let mut hashes = vec![0u64; 1 << 16];
            let mut positives = 0;
            for _ in 0..probes / hashes.len() {
                hashes.iter_mut().for_each(|hash| *hash = rng.random());
                positives += filter.count_contained_hashes(&hashes);
            }
            let measured = positives as f64 / (probes / hashes.len() * hashes.len()) as f64;
            let documented = false_positive_rate(tag_bits, filter.load());
            assert!(
                (measured / documented - 1.0).abs() < 0.1,
                "{tag_bits:?} at load {load}: measured {measured:.3e}, documented {documented:.3e}"
            );
            assert_eq!(filter.estimated_fpr(), documented);
        }
    }
}

#[test]
fn a_full_batch_stops_at_the_key_that_does_not_fit() {
    let mut filter = QuotientFilter::with_num_blocks(4, TagBits::Sixteen).unwrap();
    let keys: Vec<u64> = (0..1000).collect();
    let Err(Error::Full { processed }) = filter.insert_batch(&keys) else {
        panic!("4 blocks cannot hold 1000 keys");
    };
    assert_eq!(
        filter.len(),
        processed,
        "every key before the full one went in"
    );
    assert!(processed > 100 && processed <= 4 * 28);
    assert!(keys[..processed].iter().all(|key| filter.contains(key)));
    // The byte-key batch (hashed in chunks outside the kernel) reports the same position.
    let mut bytes_filter = QuotientFilter::with_num_blocks(4, TagBits::Sixteen).unwrap();
    let names: Vec<String> = (0..3000).map(|i| format!("key{i}")).collect();
    let Err(Error::Full { processed }) = bytes_filter.insert_bytes_batch(&names) else {
        panic!("full");
    };
    assert_eq!(bytes_filter.len(), processed);
    assert!(
        names[..processed]
            .iter()
            .all(|key| bytes_filter.contains_bytes(key.as_bytes()))
    );
}

#[test]
fn copies_count_and_remove_one_at_a_time() {
    let mut filter = QuotientFilter::with_fpr(1000, 0.001).unwrap();
    assert_eq!(filter.tag_bits(), TagBits::Sixteen);
    for copies in 1..=20 {
        filter.insert_copy("hot").unwrap();
        assert_eq!(filter.count("hot"), copies);
    }
    assert!(
        !filter.insert("hot").unwrap(),
        "a present key is not added again"
    );
    assert_eq!(filter.len(), 20);
    for copies in (0..20).rev() {
        assert!(filter.remove("hot"));
        assert_eq!(filter.count("hot"), copies);
    }
    assert!(!filter.remove("hot") && filter.is_empty());
}

#[test]
fn stored_bytes_read_back_the_same_filter() {
    let (members, _) = common::members_and_strangers(5, 2_000, 0);
    for tag_bits in TagBits::ALL {
        let mut filter = QuotientFilter::with_capacity(2_000, tag_bits).unwrap();
        filter.insert_copy_batch(&members).unwrap();
        let bytes = filter.to_bytes();
        assert_eq!(bytes[7], if tag_bits == TagBits::Eight { 5 } else { 6 });
        let view = QuotientFilterRef::from_bytes(&bytes).unwrap();
        let copy = QuotientFilter::from_bytes(&bytes).unwrap();
        assert_eq!(copy, filter);
        assert_eq!(
            (view.len(), view.tag_bits(), copy.len()),
            (2000, tag_bits, 2000)
        );
        assert_eq!(view.count_contained(&members), members.len());
        assert_eq!(view.to_filter().unwrap(), filter);
        // Read as the wrong type: an error naming the type to read it with.
        let error = splitbloom::Filter::from_bytes(&bytes).unwrap_err();
        assert!(error.to_string().contains("QuotientFilter"), "{error}");
        assert!(splitbloom::WideFilterRef::from_bytes(&bytes).is_err());
    }
}

#[test]
fn blocks_in_chunks_restore_the_filter_and_its_length() {
    let (members, _) = common::members_and_strangers(6, 3_000, 0);
    for tag_bits in TagBits::ALL {
        let mut filter = QuotientFilter::with_capacity(3_000, tag_bits).unwrap();
        filter.insert_copy_batch(&members).unwrap();
        let (size, num_blocks) = (filter.size_in_bytes(), filter.num_blocks());
        // Loaded over a filter already holding other keys, so the length must drop what the
        // overwritten blocks held as well as add what the chunks bring.
        let mut copy = QuotientFilter::with_num_blocks(num_blocks, tag_bits).unwrap();
        copy.insert_copy_batch(&members[..500]).unwrap();
        for start in (0..size).step_by(64 * 7) {
            let end = (start + 64 * 7).min(size);
            let chunk = filter.block_bytes(start..end).unwrap();
            assert_eq!(chunk, &filter.to_bytes()[32 + start..32 + end]);
            copy.load_block_bytes(start, chunk).unwrap();
        }
        assert_eq!(copy, filter);
        assert_eq!(copy.len(), filter.len());
        assert_eq!(copy.count_contained(&members), members.len());

        // Ranges that are not whole blocks inside the filter, and invalid blocks: errors that
        // change nothing.
        for range in [0..63, 1..65, size..size + 64, Range { start: 64, end: 0 }] {
            assert!(matches!(
                filter.block_bytes(range.clone()),
                Err(Error::BitsetRange { .. })
            ));
        }
        assert!(copy.load_block_bytes(size, &[0; 64]).is_err());
        let mut bad = filter.block_bytes(0..128).unwrap().to_vec();
        bad[64..].fill(0xff);
        let error = copy.load_block_bytes(64, &bad).unwrap_err();
        assert!(
            matches!(error, Error::InvalidQuotientBlock { block: 2 }),
            "{error}"
        );
        assert_eq!(copy, filter);
        assert_eq!(copy.len(), filter.len());
    }
}

#[test]
fn sizing_errors_name_the_limit() {
    let error = QuotientFilter::with_fpr(1000, 1e-6).unwrap_err();
    assert!(matches!(error, Error::FprTooLow { .. }));
    assert!(error.to_string().contains("1.187e-5"), "{error}");
    assert!(QuotientFilter::with_fpr(0, 0.01).is_err());
    assert!(QuotientFilter::with_fpr(10, f64::NAN).is_err());
    assert!(QuotientFilter::with_capacity(usize::MAX, TagBits::Eight).is_err());
    let full = Error::Full { processed: 0 }.to_string();
    assert!(
        full.contains("with_fpr") && full.contains("remove"),
        "{full}"
    );
}
