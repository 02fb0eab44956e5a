//! ScalableFilter: the false-positive target holds at 100x the initial capacity, no false
//! negatives, memory linear in the keys, batch lookups across stages, reassembly from stages.

use crate::common;

use splitbloom::{Error, Filter, ScalableFilter, ScalableParameters, math};

const INITIAL: usize = 1_000;
const TARGET: f64 = 0.01;

fn measured_fpr(filter: &ScalableFilter, strangers: &[u64]) -> f64 {
    let hits = strangers.iter().filter(|key| filter.contains(*key)).count();
    hits as f64 / strangers.len() as f64
}

#[test]
fn hundred_times_the_initial_capacity_keeps_the_target_and_every_key() {
    let total = 100 * INITIAL;
    let (keys, strangers) = common::members_and_strangers(11, total, 1_000_000);
    let mut filter = ScalableFilter::with_fpr(INITIAL, TARGET).unwrap();
    // Bytes per key whenever the newest stage is full (between those points the newest, still
    // empty stage makes the figure jump up and fall back: the growth is geometric).
    let mut bytes_per_key = Vec::new();
    for key in &keys {
        filter.insert(key).unwrap();
        let newest = filter.stages().len() - 1;
        if filter.items_in_last_stage() == filter.parameters().stage_capacity(newest) {
            bytes_per_key.push(filter.size_in_bytes() as f64 / filter.len() as f64);
        }
    }
    assert!(
        keys.iter().all(|key| filter.contains(key)),
        "false negative"
    );
    // Keys that were false positives when inserted are not counted; there are few.
    assert!(filter.len() <= total && filter.len() > total * 99 / 100);
    // Stages of 1000, 2000, ... 64000 keys: 127,000 in 7 stages hold 100,000 keys.
    assert_eq!(filter.stages().len(), 7);

    let rate = measured_fpr(&filter, &strangers);
    println!(
        "{} keys in {} stages, {} bytes ({:.2} bits/key), measured FPR {rate:.5}, estimated {:.5}",
        filter.len(),
        filter.stages().len(),
        filter.size_in_bytes(),
        8.0 * filter.size_in_bytes() as f64 / filter.len() as f64,
        filter.estimated_fpr()
    );
    assert!(rate <= TARGET, "measured {rate} above target {TARGET}");
    // Without tightening (every stage at the target) the rate would be several times the target;
    // with it the stages share the budget, so the rate is a sizeable fraction of it.
    assert!(rate > TARGET / 10.0, "measured {rate}: suspiciously low");

    // Memory grows linearly with the keys: at full stages (1x, 3x, 7x ... 63x the initial
    // capacity) bytes per key stay in a narrow band (the slow rise is the tighter rate of later
    // stages), and the whole is within a small factor of a plain filter sized in advance for all
    // the keys at the target.
    println!("bytes per key at full stages: {bytes_per_key:.3?}");
    assert_eq!(bytes_per_key.len(), 6);
    let (low, high) = bytes_per_key
        .iter()
        .fold((f64::MAX, 0.0f64), |(low, high), &b| {
            (low.min(b), high.max(b))
        });
    assert!(high / low < 1.3, "bytes per key from {low} to {high}");
    let planned = Filter::with_fpr(total, TARGET).unwrap().size_in_bytes();
    assert!(
        filter.size_in_bytes() < 3 * planned,
        "{} vs {planned}",
        filter.size_in_bytes()
    );
}

#[test]
fn the_rate_holds_whenever_a_stage_is_full() {
    // Measured just before each new stage would be added, when the newest stage is at its
    // planned capacity and the compound rate is at its highest.
    let (keys, strangers) = common::members_and_strangers(12, 63 * 500, 200_000);
    let mut filter = ScalableFilter::with_fpr(500, TARGET).unwrap();
    let mut checked = 0;
    for key in &keys {
        filter.insert(key).unwrap();
        let newest = filter.stages().len() - 1;
        if filter.items_in_last_stage() == filter.parameters().stage_capacity(newest) {
            let rate = measured_fpr(&filter, &strangers);
            assert!(rate <= TARGET, "{} stages: {rate}", newest + 1);
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked}");
}

#[test]
fn batch_lookups_span_all_stages() {
    let (keys, strangers) = common::members_and_strangers(13, 20_000, 20_000);
    let mut filter = ScalableFilter::with_fpr(100, 0.05).unwrap();
    filter.insert_hash_batch(&keys).unwrap();
    assert!(filter.stages().len() >= 7);
    // Lengths that are not multiples of the internal chunk.
    let probes: Vec<u64> = keys
        .iter()
        .chain(&strangers)
        .copied()
        .take(25_000 + 17)
        .collect();
    let mut out = vec![false; probes.len()];
    filter.contains_hash_batch(&probes, &mut out);
    for (&hash, &answer) in probes.iter().zip(&out) {
        assert_eq!(answer, filter.contains_hash(hash), "{hash}");
    }
    assert!(out[..20_000].iter().all(|&found| found));
    // Keys of the oldest stage are found only by it.
    let first = &filter.stages()[0];
    assert!(keys[..50].iter().all(|&hash| first.contains_hash(hash)));
}

#[test]
fn duplicates_do_not_grow_the_filter() {
    let mut filter = ScalableFilter::with_fpr(10, 0.01).unwrap();
    for _ in 0..10_000 {
        filter.insert("same").unwrap();
    }
    assert_eq!(filter.len(), 1);
    assert_eq!(filter.stages().len(), 1);
}

#[test]
fn stages_follow_the_parameters() {
    let mut parameters = ScalableParameters::new(1_000, 0.001);
    parameters.growth_factor = 4.0;
    parameters.tightening_ratio = 0.5;
    let mut filter =
        ScalableFilter::with_parameters(parameters, splitbloom::Xxh3::default()).unwrap();
    for key in 0..30_000u64 {
        filter.insert(&key).unwrap();
    }
    // 1000 + 4000 + 16000 < 30000 <= 1000 + 4000 + 16000 + 64000.
    assert_eq!(filter.stages().len(), 4);
    for (index, stage) in filter.stages().iter().enumerate() {
        let capacity = 1_000 * 4usize.pow(index as u32);
        let fpr = 0.001 * 0.5 * 0.5f64.powi(index as i32);
        assert_eq!(
            stage.num_blocks(),
            math::num_blocks_for_fpr(capacity, fpr).unwrap()
        );
    }
}

#[test]
fn reassembles_from_its_stages() {
    let mut filter = ScalableFilter::with_fpr(100, 0.01).unwrap();
    for key in 0..1_000u64 {
        filter.insert(&key).unwrap();
    }
    let parameters = *filter.parameters();
    let stages = filter.stages().to_vec();
    let mut copy =
        ScalableFilter::from_stages(parameters, stages.clone(), filter.items_in_last_stage())
            .unwrap();
    assert_eq!(copy.len(), filter.len());
    assert!((0..1_000u64).all(|key| copy.contains(&key)));
    // The copy keeps growing where the original stopped.
    for key in 1_000..5_000u64 {
        copy.insert(&key).unwrap();
        filter.insert(&key).unwrap();
    }
    assert_eq!(copy.stages(), filter.stages());

    assert_eq!(
        ScalableFilter::<splitbloom::Xxh3>::from_stages(parameters, Vec::new(), 0).unwrap_err(),
        Error::NoStages
    );
    let mut shuffled = stages.clone();
    shuffled.swap(0, 1);
    assert!(matches!(
        ScalableFilter::from_stages(parameters, shuffled, 0),
        Err(Error::StageMismatch { stage: 0, .. })
    ));
    let capacity = parameters.stage_capacity(stages.len() - 1);
    assert_eq!(
        ScalableFilter::from_stages(parameters, stages, capacity + 1).unwrap_err(),
        Error::StageOverfilled {
            items: capacity + 1,
            capacity
        }
    );
}

#[test]
fn bad_parameters_are_errors() {
    let base = ScalableParameters::new(1_000, 0.01);
    let with = |change: fn(&mut ScalableParameters)| {
        let mut parameters = base;
        change(&mut parameters);
        ScalableFilter::with_parameters(parameters, splitbloom::Xxh3::default()).unwrap_err()
    };
    assert_eq!(with(|p| p.initial_capacity = 0), Error::ZeroItems);
    assert!(matches!(with(|p| p.fpr = 1.0), Error::InvalidFpr(_)));
    for factor in [0.99, f64::NAN, f64::INFINITY, -2.0] {
        let mut parameters = base;
        parameters.growth_factor = factor;
        assert!(matches!(
            parameters.check(),
            Err(Error::InvalidGrowthFactor(_))
        ));
    }
    for ratio in [0.0, 1.0, f64::NAN, 1.5] {
        let mut parameters = base;
        parameters.tightening_ratio = ratio;
        assert!(matches!(
            parameters.check(),
            Err(Error::InvalidTighteningRatio(_))
        ));
    }
    assert!(matches!(
        with(|p| p.initial_capacity = usize::MAX),
        Error::TooLargeForRate { .. }
    ));
    // Growth stops with an error, not a panic, once a stage would be too large.
    let mut parameters = base;
    parameters.initial_capacity = 1;
    parameters.growth_factor = 1e12; // stage 1 would need more than MAX_BLOCKS
    let mut filter =
        ScalableFilter::with_parameters(parameters, splitbloom::Xxh3::default()).unwrap();
    let mut result = Ok(false);
    for key in 0..100u64 {
        result = filter.insert(&key);
        if result.is_err() {
            break;
        }
    }
    assert!(
        matches!(result, Err(Error::TooLargeForRate { .. })),
        "{result:?}"
    );
    println!("{}", result.unwrap_err());
}

#[test]
fn scalable_errors_say_what_to_change() {
    let growth = Error::InvalidGrowthFactor(0.5).to_string();
    assert!(
        growth.contains("0.5") && growth.contains("at least 1"),
        "{growth}"
    );
    let ratio = Error::InvalidTighteningRatio(1.0).to_string();
    assert!(ratio.contains("between 0 and 1"), "{ratio}");
    assert!(Error::NoStages.to_string().contains("at least one stage"));
    let mismatch = Error::StageMismatch {
        stage: 2,
        expected_blocks: 10,
        found_blocks: 12,
    }
    .to_string();
    assert!(
        mismatch.contains("stage 2") && mismatch.contains("other parameters"),
        "{mismatch}"
    );
    let overfilled = Error::StageOverfilled {
        items: 9,
        capacity: 8,
    }
    .to_string();
    assert!(overfilled.contains("capacity is 8"), "{overfilled}");
}

#[test]
fn every_kernel_grows_the_same_stages() {
    let keys: Vec<u64> = (0..5_000u64)
        .map(|i| i.wrapping_mul(0x2545_f491_4f6c_dd1d))
        .collect();
    let build = |kernel: splitbloom::Kernel| {
        let mut filter = ScalableFilter::with_fpr(100, 0.01)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        for key in &keys {
            filter.insert(key).unwrap();
        }
        filter
    };
    let reference = build(splitbloom::Kernel::Scalar);
    assert!(reference.stages().len() > 3);
    for kernel in splitbloom::Kernel::available() {
        let filter = build(kernel);
        // Stages added while growing inherit the kernel.
        assert!(filter.stages().iter().all(|stage| stage.kernel() == kernel));
        assert_eq!(filter.len(), reference.len(), "{kernel}");
        for (stage, expected) in filter.stages().iter().zip(reference.stages()) {
            assert_eq!(stage.as_words(), expected.as_words(), "{kernel}");
        }
    }
}

/// Hashes with repeats inside the batch (next to each other and a chunk apart), repeats of
/// keys already held, and enough new ones to add several stages during the batch.
fn hashes_with_repeats(len: usize, seed: u64) -> Vec<u64> {
    let (fresh, _) = common::members_and_strangers(seed, len, 0);
    let mut hashes = Vec::with_capacity(len);
    for (index, &hash) in fresh.iter().enumerate() {
        match index % 7 {
            3 => hashes.push(hashes[index - 1]),
            5 if index > 300 => hashes.push(hashes[index - 300]),
            _ => hashes.push(hash),
        }
    }
    hashes
}

/// The batch path answers each hash as inserting them one at a time in order would, and
/// leaves the same filter (stages, bits and counts), on both layouts, with stages added in the
/// middle of batches and of chunks.
#[test]
fn batch_inserts_answer_and_grow_as_inserting_in_order_does() {
    use splitbloom::Layout;
    use splitbloom::Xxh3;
    use splitbloom::layout::{SplitBlock, Wide};

    fn check<L: Layout>(fpr: f64) {
        let parameters = ScalableParameters::new(100, fpr);
        let make = || ScalableFilter::<Xxh3, L>::with_layout(parameters, Xxh3::default()).unwrap();
        let (mut one_by_one, mut batched, mut answered) = (make(), make(), make());
        for round in 0..3u64 {
            let hashes = hashes_with_repeats(3_000, round);
            let expected: Vec<bool> = hashes
                .iter()
                .map(|&hash| one_by_one.insert_hash(hash).unwrap())
                .collect();
            batched.insert_hash_batch(&hashes).unwrap();
            let mut new = vec![true; hashes.len()];
            answered
                .insert_hash_batch_answers(&hashes, &mut new)
                .unwrap();
            assert_eq!(new, expected, "round {round}");
            assert!(expected.iter().any(|&new| !new) && expected.iter().any(|&new| new));
        }
        assert!(one_by_one.num_stages() >= 5, "{}", one_by_one.num_stages());
        assert!(batched == one_by_one && answered == one_by_one);
    }
    check::<SplitBlock>(0.01);
    check::<Wide>(1e-5);
}

/// When a stage cannot be made mid-batch, the answer says how many hashes went in; those are
/// in, answered as in order, and the filter holds nothing else.
#[test]
fn a_batch_that_cannot_grow_reports_how_far_it_got() {
    let mut parameters = ScalableParameters::new(50, 0.01);
    parameters.growth_factor = 1e12; // stage 1 would need more than MAX_BLOCKS
    let mut filter =
        ScalableFilter::with_parameters(parameters, splitbloom::Xxh3::default()).unwrap();
    let hashes = hashes_with_repeats(600, 9);
    let mut new = vec![false; hashes.len()];
    let (processed, error) = filter
        .insert_hash_batch_answers(&hashes, &mut new)
        .unwrap_err();
    assert!(matches!(error, Error::TooLargeForRate { .. }), "{error:?}");
    let mut in_order =
        ScalableFilter::with_parameters(parameters, splitbloom::Xxh3::default()).unwrap();
    let expected: Vec<bool> = hashes[..processed]
        .iter()
        .map(|&hash| in_order.insert_hash(hash).unwrap())
        .collect();
    assert_eq!(&new[..processed], &expected[..]);
    assert!(in_order.insert_hash(hashes[processed]).is_err());
    assert_eq!(filter, in_order);
    assert_eq!(filter.len(), 50);
    assert!(
        filter
            .insert_hash_batch(&hashes)
            .is_err_and(|error| matches!(error, Error::TooLargeForRate { .. }))
    );
}
