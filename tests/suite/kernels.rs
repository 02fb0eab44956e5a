//! Every available kernel against the scalar oracle, on every output: mask, `insert` return
//! value, resulting block bytes, `contains` answer, and through whole filters.

use crate::common;

use rand::RngExt;
use splitbloom::__kernel_testing as kernel;
use splitbloom::{Filter, Kernel};

fn kernels() -> Vec<Kernel> {
    let kernels: Vec<Kernel> = Kernel::available().collect();
    println!("kernels under test: {kernels:?}");
    kernels
}

/// A random block with exactly `bits` bits set (0..=256).
fn block_with_density(rng: &mut impl rand::Rng, bits: usize) -> [u32; 8] {
    let mut positions: Vec<usize> = (0..256).collect();
    // Partial Fisher-Yates: the first `bits` positions are a uniform random subset.
    for i in 0..bits {
        let j = rng.random_range(i..256);
        positions.swap(i, j);
    }
    let mut block = [0u32; 8];
    for &position in &positions[..bits] {
        block[position / 32] |= 1 << (position % 32);
    }
    block
}

#[test]
fn every_kernel_matches_scalar_on_every_density() {
    let mut rng = common::rng(1);
    for kernel in kernels() {
        for bits in 0..=256 {
            for _ in 0..64 {
                let block = block_with_density(&mut rng, bits);
                let x: u32 = rng.random();
                assert_eq!(
                    kernel::mask(kernel, x),
                    kernel::mask(Kernel::Scalar, x),
                    "{kernel} mask of {x:#x}"
                );
                assert_eq!(
                    kernel::mask(kernel, x),
                    Some(splitbloom::mask(x)),
                    "{kernel} vs block::mask"
                );
                assert_eq!(
                    kernel::contains(kernel, &block, x),
                    kernel::contains(Kernel::Scalar, &block, x),
                    "{kernel} contains {x:#x} in {block:x?}"
                );
                // The single-key path (the one `Filter::contains` takes), with the block in the
                // middle of full neighbours so that reading the wrong block would show.
                let full = [u32::MAX; 8];
                let hash = 0x6000_0000_u64 << 32 | u64::from(x);
                assert_eq!(splitbloom::block_index(hash, 3), 1);
                assert_eq!(
                    kernel::contains_hash(kernel, &[full, block, full], hash),
                    kernel::contains(Kernel::Scalar, &block, x),
                    "{kernel} single-key contains {x:#x} in {block:x?}"
                );
                let (mut ours, mut oracle) = (block, block);
                assert_eq!(
                    kernel::insert(kernel, &mut ours, x),
                    kernel::insert(Kernel::Scalar, &mut oracle, x),
                    "{kernel} insert {x:#x} into {block:x?}"
                );
                assert_eq!(
                    ours, oracle,
                    "{kernel} bits after inserting {x:#x} into {block:x?}"
                );
                assert_eq!(
                    kernel::contains(kernel, &ours, x),
                    Some(true),
                    "{kernel} lost {x:#x}"
                );
                assert_eq!(
                    kernel::contains_hash(kernel, &[[0; 8], ours, [0; 8]], hash),
                    Some(true),
                    "{kernel} single-key lost {x:#x}"
                );
                // The single-key insert (the path of `Filter::insert`), between neighbours that
                // must stay as they are: its answer and its bits are the primitive's.
                let mut blocks = [full, block, [0; 8]];
                assert_eq!(
                    kernel::insert_hash(kernel, &mut blocks, hash),
                    kernel::insert(Kernel::Scalar, &mut block.clone(), x),
                    "{kernel} single-key insert {x:#x} into {block:x?}"
                );
                assert_eq!(
                    blocks,
                    [full, oracle, [0; 8]],
                    "{kernel} blocks after the single-key insert of {x:#x}"
                );
            }
        }
    }
}

/// The oracle itself: insert reports "already present" exactly when the mask was covered, and
/// a block with every bit set contains everything.
#[test]
fn scalar_oracle_is_consistent_with_its_definition() {
    let mut rng = common::rng(2);
    for _ in 0..10_000 {
        let bits = rng.random_range(0..=256);
        let mut block = block_with_density(&mut rng, bits);
        let x: u32 = rng.random();
        let mask = splitbloom::mask(x);
        let covered = block.iter().zip(mask).all(|(word, bit)| word & bit == bit);
        assert_eq!(kernel::contains(Kernel::Scalar, &block, x), Some(covered));
        let before = block;
        assert_eq!(kernel::insert(Kernel::Scalar, &mut block, x), Some(covered));
        for lane in 0..8 {
            assert_eq!(block[lane], before[lane] | mask[lane]);
        }
    }
    assert_eq!(
        kernel::contains(Kernel::Scalar, &[u32::MAX; 8], 12345),
        Some(true)
    );
    assert_eq!(
        kernel::contains(Kernel::Scalar, &[0; 8], 12345),
        Some(false)
    );
}

#[test]
fn no_false_negatives_for_a_million_keys_on_every_kernel() {
    let (members, _) = common::members_and_strangers(3, 1_000_000, 0);
    let mut reference: Option<Filter> = None;
    for kernel in kernels() {
        let mut filter = Filter::with_fpr(members.len(), 0.01)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        for key in &members {
            filter.insert(key);
        }
        let missing = members.iter().filter(|key| !filter.contains(*key)).count();
        assert_eq!(missing, 0, "{kernel}: false negatives");
        match &reference {
            None => reference = Some(filter),
            Some(reference) => assert_eq!(
                reference.as_words(),
                filter.as_words(),
                "{kernel} bits differ from scalar"
            ),
        }
    }
}

#[test]
fn batch_operations_match_single_key_operations_on_every_kernel() {
    let (members, strangers) = common::members_and_strangers(4, 20_000, 20_000);
    for kernel in kernels() {
        let mut single = Filter::with_num_blocks(700)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        let mut batch = single.clone();
        for &hash in &members {
            single.insert_hash(hash);
        }
        batch.insert_hash_batch(&members);
        assert_eq!(single.as_words(), batch.as_words(), "{kernel}");
        let probes: Vec<u64> = members.iter().chain(&strangers).copied().collect();
        let mut answers = vec![false; probes.len()];
        batch.contains_hash_batch(&probes, &mut answers);
        for (&hash, &answer) in probes.iter().zip(&answers) {
            assert_eq!(answer, single.contains_hash(hash), "{kernel} {hash:#x}");
        }
        assert!(
            answers[..members.len()].iter().all(|&answer| answer),
            "{kernel}: false negative in batch"
        );
    }
}

#[test]
fn kernel_override_from_the_environment_is_honoured() {
    let Ok(name) = std::env::var("SPLITBLOOM_KERNEL") else {
        return;
    };
    let requested: Kernel = name
        .parse()
        .unwrap_or_else(|_| panic!("SPLITBLOOM_KERNEL={name} is not a kernel"));
    assert!(
        requested.is_available(),
        "SPLITBLOOM_KERNEL={name} is not available on this CPU"
    );
    assert_eq!(Kernel::best(), requested);
    assert_eq!(Filter::with_num_blocks(1).unwrap().kernel(), requested);
    println!("forced kernel: {requested}");
}

#[test]
fn unavailable_kernels_are_refused_not_crashed() {
    for kernel in Kernel::ALL {
        let result = Filter::with_num_blocks(4).unwrap().with_kernel(kernel);
        assert_eq!(result.is_ok(), kernel.is_available(), "{kernel}");
        if let Err(error) = result {
            assert_eq!(error, splitbloom::Error::KernelUnavailable(kernel));
        }
        let scalable = splitbloom::ScalableFilter::with_fpr(10, 0.01)
            .unwrap()
            .with_kernel(kernel);
        match scalable {
            Ok(filter) => assert_eq!(filter.kernel(), kernel),
            Err(error) => {
                assert!(!kernel.is_available(), "{kernel}");
                assert_eq!(error, splitbloom::Error::KernelUnavailable(kernel));
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    assert!(!Kernel::Neon.is_available());
    // NEON is part of the aarch64 baseline: if it were not detected, the differential tests
    // above would silently skip the NEON kernel.
    #[cfg(target_arch = "aarch64")]
    assert!(Kernel::Neon.is_available());
}

/// Distances the batch loops are tested with: none, shorter than, equal to and longer than
/// some batches below, the tuned default, and ones that are not powers of two or exceed the ring
/// (they are rounded up and capped).
const DISTANCES: [usize; 6] = [0, 1, 3, 16, 64, 1000];

/// The raw batch loops of every kernel, with and without prefetching, on batches shorter and
/// longer than the prefetch distance, against single-key scalar answers and bits.
#[test]
fn batch_loops_match_scalar_at_every_prefetch_distance_on_every_kernel() {
    let (members, strangers) = common::members_and_strangers(5, 3_000, 3_000);
    let probes: Vec<u64> = members.iter().chain(&strangers).copied().collect();
    let mut oracle = vec![[0u32; 8]; 311];
    for &hash in &members {
        let index = splitbloom::block_index(hash, oracle.len());
        kernel::insert(Kernel::Scalar, &mut oracle[index], hash as u32);
    }
    let expected: Vec<bool> = probes
        .iter()
        .map(|&hash| {
            let block = &oracle[splitbloom::block_index(hash, oracle.len())];
            kernel::contains(Kernel::Scalar, block, hash as u32).unwrap()
        })
        .collect();
    let detected = kernel::prefetch_level();
    for (kernel, l1) in kernels().into_iter().flat_map(|k| [(k, false), (k, true)]) {
        // Both prefetch instructions (the level only changes the hint): other tests running
        // meanwhile may see either, with the same answers.
        kernel::set_prefetch_into_l1(l1);
        for distance in DISTANCES {
            for len in [
                0,
                1,
                2,
                3,
                4,
                5,
                15,
                16,
                17,
                63,
                64,
                65,
                255,
                256,
                257,
                members.len(),
            ] {
                let mut blocks = vec![[0u32; 8]; oracle.len()];
                kernel::insert_hashes(kernel, &mut blocks, &members[..len], distance).unwrap();
                kernel::insert_hashes(kernel, &mut blocks, &members[len..], distance).unwrap();
                assert_eq!(
                    blocks, oracle,
                    "{kernel} distance {distance} split at {len}, l1 {l1}"
                );
                let mut answers = vec![false; len];
                kernel::contains_hashes(kernel, &blocks, &probes[..len], &mut answers, distance)
                    .unwrap();
                assert_eq!(
                    answers,
                    expected[..len],
                    "{kernel} distance {distance} len {len}, l1 {l1}"
                );
            }
            let mut answers = vec![false; probes.len()];
            kernel::contains_hashes(kernel, &oracle, &probes, &mut answers, distance).unwrap();
            assert_eq!(answers, expected, "{kernel} distance {distance} l1 {l1}");
        }
    }
    kernel::set_prefetch_into_l1(detected == "l1");
}

/// The key batch operations give the single-key answers and bits for every kernel, on a filter
/// below the prefetch threshold and one above it (so both paths of `Filter` run), with key
/// counts that are not multiples of the internal chunk.
#[test]
fn key_batches_match_single_keys_with_and_without_prefetching_on_every_kernel() {
    let (_, min_prefetch_blocks) = kernel::prefetch();
    let (members, strangers) = common::members_and_strangers(6, 50_001, 20_003);
    let probes: Vec<u64> = strangers.iter().chain(&members).copied().collect();
    for kernel in kernels() {
        for num_blocks in [97, min_prefetch_blocks + 5] {
            let mut single = Filter::with_num_blocks(num_blocks)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            let mut batch = single.clone();
            for key in &members {
                single.insert(key);
            }
            batch.insert_batch(&members);
            assert_eq!(single, batch, "{kernel} {num_blocks} blocks: bits differ");
            let mut answers = vec![false; probes.len()];
            batch.contains_batch(&probes, &mut answers);
            let expected: Vec<bool> = probes.iter().map(|key| single.contains(key)).collect();
            assert_eq!(answers, expected, "{kernel} {num_blocks} blocks");
            assert!(answers[strangers.len()..].iter().all(|&answer| answer));
            let positives = expected.iter().filter(|&&answer| answer).count();
            assert_eq!(batch.count_contained(&probes), positives, "{kernel}");
            let hashes: Vec<u64> = probes
                .iter()
                .map(|key| std::hash::BuildHasher::hash_one(batch.hasher(), key))
                .collect();
            assert_eq!(batch.count_contained_hashes(&hashes), positives, "{kernel}");
            assert_eq!(batch.count_contained::<u64>(&[]), 0);
        }
    }
}

/// Key batches shorter than, equal to and just longer than the prefetch ring (the keys hashed
/// ahead), where the ring's first fill and its drain meet, on both paths of every kernel.
#[test]
fn short_key_batches_match_single_keys_on_every_kernel() {
    let (distance, min_prefetch_blocks) = kernel::prefetch();
    let (members, strangers) = common::members_and_strangers(8, 3 * distance, 3 * distance);
    let probes: Vec<u64> = members
        .iter()
        .zip(&strangers)
        .flat_map(|(a, b)| [*a, *b])
        .collect();
    for kernel in kernels() {
        for num_blocks in [3, min_prefetch_blocks] {
            let empty = Filter::with_num_blocks(num_blocks)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            for len in 0..=probes.len() {
                let mut single = empty.clone();
                let mut batch = empty.clone();
                for key in &members[..len.min(members.len())] {
                    single.insert(key);
                }
                batch.insert_batch(&members[..len.min(members.len())]);
                assert_eq!(single, batch, "{kernel} {num_blocks} blocks, {len} keys");
                let mut answers = vec![false; len];
                batch.contains_batch(&probes[..len], &mut answers);
                let expected: Vec<bool> = probes[..len]
                    .iter()
                    .map(|key| single.contains(key))
                    .collect();
                assert_eq!(
                    answers, expected,
                    "{kernel} {num_blocks} blocks, {len} keys"
                );
            }
        }
    }
}

#[test]
#[should_panic(expected = "one slot per input")]
fn contains_batch_panics_on_a_short_output() {
    let filter = Filter::with_num_blocks(8).unwrap();
    filter.contains_batch(&[1u64, 2, 3], &mut [false; 2]);
}

#[test]
#[should_panic(expected = "one slot per input")]
fn contains_hash_batch_panics_on_a_long_output() {
    let filter = Filter::with_num_blocks(8).unwrap();
    filter.contains_hash_batch(&[1, 2], &mut [false; 3]);
}

/// A filter above the huge-page threshold takes the 2 MiB-aligned, `madvise`d allocation path
/// and behaves like any other; whether the kernel granted huge pages is not asserted (it is a
/// system setting), only printed.
#[test]
fn filters_above_the_huge_page_threshold_work() {
    let num_blocks = kernel::HUGE_PAGE_THRESHOLD / splitbloom::BLOCK_BYTES + 3;
    let (members, _) = common::members_and_strangers(7, 100_000, 0);
    let mut filter = Filter::with_num_blocks(num_blocks).unwrap();
    assert_eq!(filter.fill_ratio(), 0.0);
    #[cfg(target_os = "linux")]
    assert_eq!(filter.as_words().as_ptr() as usize % (2 << 20), 0);
    filter.insert_batch(&members);
    assert_eq!(filter.count_contained(&members), members.len());
    let copy = filter.clone();
    assert_eq!(copy, filter);
    filter.clear();
    assert_eq!(filter.fill_ratio(), 0.0);
    assert_eq!(copy.count_contained(&members), members.len());
    if let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") {
        let line = meminfo
            .lines()
            .find(|line| line.starts_with("AnonHugePages"));
        println!("{}", line.unwrap_or("AnonHugePages: not reported"));
    }
}

/// The benchmarks' answer counter gives the number of `true`s for every length and pattern
/// (whole words of eight and the remainder).
#[test]
fn count_true_counts_every_answer() {
    let mut rng = common::rng(11);
    for len in 0..70 {
        let answers: Vec<bool> = (0..len).map(|_| rng.random_bool(0.5)).collect();
        let expected = answers.iter().filter(|&&found| found).count();
        assert_eq!(kernel::count_true(&answers), expected, "{answers:?}");
    }
    assert_eq!(kernel::count_true(&[true; 64]), 64);
}
