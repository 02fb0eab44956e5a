//! `WindowFilter`: the window's semantics on every kernel (no false negative inside the
//! window, forgotten keys answer like absent ones), every kernel against the scalar oracle,
//! and the window's rate against `math`.

use splitbloom::math::{self, generation_fpr_for_window, window_false_positive_rate};
use splitbloom::{Error, Kernel, WindowFilter};

/// A key of generation `generation`, distinct for every `(generation, index)`: a bijective
/// mix (SplitMix64's finalizer) of `(generation, index)`, so that the measured rates are those
/// of random keys, which the formulas assume, not of a sequence of integers through the
/// integer hash (whose regular spacing measures up to a sixth below them).
fn key(generation: u64, index: u64) -> u64 {
    let mut z = (generation << 32 | index).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Inserts `per_generation` keys per period for `periods` periods, rotating between them.
fn fill(window: &mut WindowFilter, periods: u64, per_generation: u64) {
    for generation in 0..periods {
        if generation > 0 {
            window.rotate();
        }
        for index in 0..per_generation {
            window.insert(&key(generation, index));
        }
    }
}

#[test]
fn keys_of_the_last_g_generations_are_found_on_every_kernel() {
    // Every shape a kernel has its own loop or assembly for (two and four generations in a
    // line, four and eight in two lines, three in 48 bytes) and some it has not.
    let shapes = [
        (1, 0.01),
        (2, 0.01),
        (3, 0.01),
        (4, 0.01),
        (4, 0.001),
        (7, 0.01),
        (8, 0.01),
        (8, 0.001),
    ];
    for kernel in Kernel::available() {
        for (generations, fpr) in shapes {
            let mut window = WindowFilter::with_fpr(300, fpr, generations)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            let periods = 3 * generations as u64 + 2;
            for generation in 0..periods {
                if generation > 0 {
                    window.rotate();
                }
                for index in 0..300 {
                    window.insert(&key(generation, index));
                }
                // Every generation since the last G − 1 rotations, the current one included.
                let oldest_kept = (generation + 1).saturating_sub(generations as u64);
                for kept in oldest_kept..=generation {
                    for index in 0..300 {
                        assert!(
                            window.contains(&key(kept, index)),
                            "{kernel}: G = {generations} at {fpr}, key {index} of generation \
                             {kept} lost at generation {generation}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_kernel_answers_and_inserts_as_the_scalar_oracle() {
    let build = |kernel| {
        WindowFilter::with_fpr(2000, 0.02, 3)
            .unwrap()
            .with_kernel(kernel)
            .unwrap()
    };
    let mut oracle = build(Kernel::Scalar);
    let mut others: Vec<_> = Kernel::available().map(build).collect();
    for generation in 0..7u64 {
        if generation > 0 {
            oracle.rotate();
            others.iter_mut().for_each(WindowFilter::rotate);
        }
        // Overfilled on purpose, so that inserts often find every bit set already.
        for index in 0..6000 {
            let expected = oracle.insert(&key(generation % 4, index));
            for other in &mut others {
                assert_eq!(
                    other.insert(&key(generation % 4, index)),
                    expected,
                    "{}",
                    other.kernel()
                );
            }
        }
        let probes: Vec<u64> = (0..20_000)
            .map(|index| key(generation + 100, index))
            .collect();
        let mut expected = vec![false; probes.len()];
        oracle.contains_batch(&probes, &mut expected);
        for other in &others {
            let mut answers = vec![false; probes.len()];
            other.contains_batch(&probes, &mut answers);
            assert_eq!(answers, expected, "{}", other.kernel());
            assert_eq!(other, &oracle, "{}: bits differ", other.kernel());
            let single: Vec<bool> = probes.iter().map(|probe| other.contains(probe)).collect();
            assert_eq!(single, expected, "{}", other.kernel());
        }
    }
}

#[test]
fn insert_answers_whether_the_window_held_the_key() {
    let mut window = WindowFilter::with_fpr(1000, 0.001, 2).unwrap();
    assert!(window.insert("a"));
    assert!(!window.insert("a"));
    window.rotate();
    assert!(window.insert("b"));
    assert!(
        !window.insert("a"),
        "a is in the older generation of the window"
    );
    window.rotate();
    // "a" was refreshed into the previous generation by the second insert.
    assert!(window.contains("a") && window.contains("b"));
    window.rotate();
    window.rotate();
    assert!(
        window.insert("a"),
        "forgotten after G rotations without an insert"
    );
}

#[test]
fn forgotten_and_absent_keys_answer_at_the_window_rate() {
    let (per_generation, generations) = (20_000u64, 3);
    let mut window = WindowFilter::with_fpr(per_generation as usize, 0.01, generations).unwrap();
    // Six periods: generations 0 to 2 are forgotten, 3 to 5 are the window.
    fill(&mut window, 6, per_generation);
    let forgotten: Vec<u64> = (0..3)
        .flat_map(|generation| (0..per_generation).map(move |index| key(generation, index)))
        .collect();
    let absent: Vec<u64> = (0..3 * per_generation)
        .map(|index| key(1000, index))
        .collect();
    let rate = |keys: &[u64]| window.count_contained(keys) as f64 / keys.len() as f64;
    let (forgotten_rate, absent_rate) = (rate(&forgotten), rate(&absent));
    let predicted = window.fpr();
    // 60,000 probes at about 1%: a standard deviation of 0.04 percentage points.
    for (what, measured) in [("forgotten", forgotten_rate), ("absent", absent_rate)] {
        assert!(
            (measured - predicted).abs() < 0.15 * predicted,
            "{what} keys: measured {measured}, predicted {predicted}"
        );
        let estimated = window.estimated_fpr();
        assert!(
            (measured - estimated).abs() < 0.15 * estimated,
            "{what} keys: measured {measured}, estimated from the bits {estimated}"
        );
    }
    assert!(predicted <= 0.01 && predicted > 0.008, "{predicted}");
}

#[test]
fn window_rate_is_the_union_of_the_generations() {
    for generations in 1..=8 {
        let per = generation_fpr_for_window(0.01, generations).unwrap();
        let window = window_false_positive_rate(core::iter::repeat_n(per, generations));
        assert!((window - 0.01).abs() < 1e-12, "{generations}: {window}");
        // 1 − Π(1 − F), written out.
        let product: f64 = (0..generations).map(|_| 1.0 - per).product();
        assert!((window - (1.0 - product)).abs() < 1e-12);
    }
    assert_eq!(window_false_positive_rate([1.0, 0.0]), 1.0);
    assert!(generation_fpr_for_window(0.0, 2).is_err());
    assert!(generation_fpr_for_window(0.01, math::MAX_GENERATIONS + 1).is_err());
}

#[test]
fn bad_shapes_are_errors() {
    assert_eq!(
        WindowFilter::with_fpr(10, 0.01, 0).unwrap_err(),
        Error::InvalidGenerations(0)
    );
    assert_eq!(
        WindowFilter::with_fpr(10, 0.01, 65).unwrap_err(),
        Error::InvalidGenerations(65)
    );
    assert_eq!(
        WindowFilter::with_fpr(0, 0.01, 2).unwrap_err(),
        Error::ZeroItems
    );
    assert!(WindowFilter::with_fpr(10, 1.0, 2).is_err());
    assert!(WindowFilter::with_fpr(usize::MAX, 0.01, 64).is_err());
    println!("{}", Error::InvalidGenerations(0));
}

#[test]
fn rotation_clears_only_the_oldest_generation() {
    let mut window = WindowFilter::with_fpr(5000, 0.01, 4).unwrap();
    fill(&mut window, 4, 5000);
    let before = window.fill_ratio();
    window.rotate();
    let after = window.fill_ratio();
    // One of four equally full generations is gone.
    assert!(
        (after - 0.75 * before).abs() < 0.01 * before,
        "{before} -> {after}"
    );
    assert_eq!(window.rotations(), 4);
}

#[test]
fn batches_answer_as_single_lookups_on_every_kernel() {
    // Generations of 256 KiB each, past the prefetch threshold of most CPUs, and a small
    // window below it: both batch paths.
    for (items, prefetched) in [(200_000, true), (500, false)] {
        for kernel in Kernel::available() {
            let mut window = WindowFilter::with_fpr(items, 0.01, 3)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            let distance = splitbloom::__kernel_testing::prefetch_distance(window.num_blocks());
            if prefetched && distance == 0 {
                eprintln!(
                    "{} blocks a generation do not prefetch on this CPU",
                    window.num_blocks()
                );
            }
            fill(&mut window, 4, items as u64);
            let probes: Vec<u64> = (0..3 * items as u64)
                .map(|index| key(index % 5, index))
                .collect();
            let single: Vec<bool> = probes.iter().map(|probe| window.contains(probe)).collect();
            let mut batch = vec![false; probes.len()];
            window.contains_batch(&probes, &mut batch);
            assert_eq!(batch, single, "{kernel}");
            let hashes: Vec<u64> = probes
                .iter()
                .map(|probe| window.hash_bytes(&probe.to_le_bytes()))
                .collect();
            let single: Vec<bool> = hashes
                .iter()
                .map(|&hash| window.contains_hash(hash))
                .collect();
            window.contains_hash_batch(&hashes, &mut batch);
            assert_eq!(batch, single, "{kernel}");
            let count = single.iter().filter(|&&found| found).count();
            assert_eq!(window.count_contained_hashes(&hashes), count, "{kernel}");
        }
    }
}

/// The window of the golden file `window.sblw`: 3 generations of 40 keys each, 4 rotations (so
/// the ring has wrapped), byte keys `gen<g>-key<i>` through the byte-key contract.
fn golden_window() -> WindowFilter {
    let mut window = WindowFilter::with_fpr(40, 0.01, 3).unwrap();
    for generation in 0..5 {
        if generation > 0 {
            window.rotate();
        }
        for index in 0..40 {
            window.insert_bytes(format!("gen{generation}-key{index}").as_bytes());
        }
    }
    window
}

#[test]
fn golden_file_pins_the_window_layout() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden/window.sblw");
    let window = golden_window();
    let bytes = window.to_bytes();
    if std::env::var_os("SPLITBLOOM_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    let golden = std::fs::read(&path).unwrap();
    assert!(
        golden == bytes,
        "this build writes other bytes than window.sblw"
    );
    let read = WindowFilter::from_bytes(&golden).unwrap();
    assert_eq!(read, window);
    assert_eq!((read.rotations(), read.generations()), (4, 3));
    for generation in 2..5 {
        for index in 0..40 {
            assert!(read.contains_bytes(format!("gen{generation}-key{index}").as_bytes()));
        }
    }
}

#[test]
fn bytes_round_trip_and_every_corruption_is_an_error() {
    let window = golden_window();
    let bytes = window.to_bytes();
    assert_eq!(WindowFilter::from_bytes(&bytes).unwrap().to_bytes(), bytes);
    // Every truncation and every single-bit flip of the header (and a sample of the blocks)
    // is refused with an error, never a panic.
    for len in 0..bytes.len() {
        assert!(
            WindowFilter::from_bytes(&bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        WindowFilter::from_bytes(&longer),
        Err(Error::LengthMismatch { .. })
    ));
    for bit in (0..64 * 8).chain((64 * 8..bytes.len() * 8).step_by(61)) {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(
            WindowFilter::from_bytes(&flipped).is_err(),
            "bit {bit} flipped"
        );
    }
    // A Filter's bytes are not a window's, and a window's are not a Filter's.
    let filter = splitbloom::Filter::with_fpr(10, 0.01).unwrap().to_bytes();
    assert!(matches!(
        WindowFilter::from_bytes(&filter),
        Err(Error::WrongMagic { .. })
    ));
    assert!(matches!(
        splitbloom::Filter::from_bytes(&bytes),
        Err(Error::WrongMagic { .. })
    ));
    assert!(matches!(
        WindowFilter::<splitbloom::parquet::ParquetHash>::from_bytes_with_hasher_type(&bytes),
        Err(Error::HasherKindMismatch { .. })
    ));
}

/// `bytes` with the `u64` header field at `at` set to `value` and the checksum repaired, as a
/// writer would have written it.
fn with_field(bytes: &[u8], at: usize, value: u64) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    let mut checked = bytes[..56].to_vec();
    checked.extend_from_slice(&bytes[64..]);
    let checksum = xxhash_rust::xxh3::xxh3_64(&checked);
    bytes[56..64].copy_from_slice(&checksum.to_le_bytes());
    bytes
}

/// A rotation count read from bytes may be anything a writer can store, `u64::MAX` included:
/// counting on from it saturates, in the plain window and the atomic one, and nothing else of
/// the window changes.
#[test]
fn the_largest_rotation_count_rotates_without_overflow() {
    let bytes = with_field(&golden_window().to_bytes(), 40, u64::MAX);
    let mut window = WindowFilter::from_bytes(&bytes).unwrap();
    assert_eq!(window.rotations(), u64::MAX);
    window.rotate();
    assert_eq!(window.rotations(), u64::MAX);
    assert!(window.contains_bytes(b"gen4-key0"));
    let atomic = WindowFilter::from_bytes(&bytes).unwrap().into_atomic();
    atomic.writer().unwrap().rotate();
    assert_eq!(atomic.rotations(), u64::MAX);
    assert!(atomic.contains_bytes(b"gen4-key0"));
}

#[test]
fn concurrent_readers_never_miss_a_key_of_the_window_during_rotations() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let (generations, per_generation, periods) = (3usize, 2000u64, 60u64);
    let window = WindowFilter::with_fpr(per_generation as usize, 0.01, generations)
        .unwrap()
        .into_atomic();
    // Generations whose keys are all inserted, and the readers' completed passes.
    let (done, passes) = (AtomicU64::new(0), AtomicU64::new(0));
    std::thread::scope(|scope| {
        let mut writer = window.writer().unwrap();
        let (done, passes) = (&done, &passes);
        let window = &window;
        scope.spawn(move || {
            for generation in 0..periods {
                if generation > 0 {
                    // A reader pass over the window as it is, before each rotation: on a busy
                    // machine the writer could otherwise finish before a reader ever runs.
                    let seen = passes.load(Ordering::Acquire);
                    while passes.load(Ordering::Acquire) == seen {
                        std::thread::yield_now();
                    }
                    writer.rotate();
                }
                for index in 0..per_generation {
                    writer.insert(&key(generation, index));
                }
                done.store(generation + 1, Ordering::Release);
            }
        });
        for _ in 0..2 {
            scope.spawn(move || {
                let mut checked = 0u64;
                loop {
                    let complete = done.load(Ordering::Acquire);
                    if complete == periods {
                        break;
                    }
                    let Some(newest) = complete.checked_sub(1) else {
                        continue;
                    };
                    // The newest complete generation and the ones before it in the window.
                    let oldest = newest.saturating_sub(generations as u64 - 1);
                    for generation in oldest..=newest {
                        for index in (0..per_generation).step_by(7) {
                            if !window.contains(&key(generation, index)) {
                                // Generation g went in after rotation g and leaves the window
                                // at rotation g + G: a miss is allowed only past it.
                                let rotations = window.rotations();
                                assert!(
                                    rotations >= generation + generations as u64,
                                    "key {index} of generation {generation} missed after \
                                     {rotations} rotations"
                                );
                            }
                            checked += 1;
                        }
                    }
                    passes.fetch_add(1, Ordering::Release);
                }
                assert!(checked > 0, "the readers never ran during the writes");
            });
        }
    });
    let window = window.into_window();
    for generation in periods - generations as u64..periods {
        for index in 0..per_generation {
            assert!(window.contains(&key(generation, index)));
        }
    }
}

/// Every kernel's batches (lookups and inserts, odd lengths) and single-key lookups against the
/// scalar kernel's single keys, for every generation count and both plane sizes: the same
/// answers and the same bytes. The last case is
/// large enough that batches prefetch.
#[test]
fn every_kernel_batches_as_the_scalar_oracle_for_every_generation_count() {
    let shapes = (1..=math::MAX_GENERATIONS)
        .map(|generations| (40, 0.05, generations))
        .chain([2, 3, 4, 8].map(|generations| (40, 0.001, generations)))
        .chain([(400_000, 0.05, 2)]);
    for (per_generation, fpr, generations) in shapes {
        let build = |kernel| {
            WindowFilter::with_fpr(per_generation, fpr, generations)
                .unwrap()
                .with_kernel(kernel)
                .unwrap()
        };
        let mut oracle = build(Kernel::Scalar);
        let mut others: Vec<_> = Kernel::available().map(build).collect();
        let length = 2 * per_generation as u64 + 1;
        for generation in 0..generations as u64 + 2 {
            if generation > 0 {
                oracle.rotate();
                others.iter_mut().for_each(WindowFilter::rotate);
            }
            let keys: Vec<u64> = (0..length)
                .map(|index| key(generation % 3, index))
                .collect();
            for key in &keys {
                oracle.insert(key);
            }
            for other in &mut others {
                other.insert_batch(&keys);
                assert!(
                    other.to_bytes() == oracle.to_bytes(),
                    "{}: G = {generations}, bytes differ after a batch insert",
                    other.kernel()
                );
            }
            let probes: Vec<u64> = (0..length + 2)
                .map(|index| key(generation, index))
                .collect();
            let expected: Vec<bool> = probes.iter().map(|probe| oracle.contains(probe)).collect();
            for other in &others {
                let mut answers = vec![false; probes.len()];
                other.contains_batch(&probes, &mut answers);
                assert_eq!(answers, expected, "{}: G = {generations}", other.kernel());
                let single: Vec<bool> = probes.iter().map(|probe| other.contains(probe)).collect();
                assert_eq!(
                    single,
                    expected,
                    "{}: G = {generations}, single",
                    other.kernel()
                );
            }
        }
    }
}
