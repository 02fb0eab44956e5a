//! The check of the `window` target: `WindowFilter` bytes never panic a reader, and a random
//! script of inserts, lookups and rotations never loses a key of the window on any kernel,
//! while every kernel answers as the scalar oracle.

use std::collections::VecDeque;

use arbitrary::{Arbitrary, Unstructured};
use splitbloom::format::WINDOW_HEADER_BYTES;
use splitbloom::parquet::ParquetHash;
use splitbloom::{FilterHasher, Kernel, WindowFilter, Xxh3};

/// One step of a window script.
#[derive(Arbitrary, Debug)]
enum Step {
    Insert(u64),
    InsertBatch(Vec<u64>),
    Contains(u64),
    ContainsBatch(Vec<u64>),
    Rotate,
}

/// A window's shape and a script.
#[derive(Arbitrary, Debug)]
struct Script {
    items: u8,
    generations: u8,
    steps: Vec<Step>,
}

/// `bytes` with the checksum of the `SBLW` header recomputed, so the fuzzer reaches the checks
/// after it.
fn with_valid_checksum(bytes: &[u8]) -> Vec<u8> {
    let mut fixed = bytes.to_vec();
    if fixed.len() >= WINDOW_HEADER_BYTES {
        let mut checksum = xxhash_rust::xxh3::Xxh3Default::new();
        checksum.update(&fixed[..56]);
        checksum.update(&fixed[WINDOW_HEADER_BYTES..]);
        fixed[56..64].copy_from_slice(&checksum.digest().to_le_bytes());
    }
    fixed
}

/// Reads `bytes` as a window with hasher `S`: never panics; what it accepts writes back the
/// same bytes.
fn read_as<S: FilterHasher>(bytes: &[u8]) {
    if let Ok(window) = WindowFilter::<S>::from_bytes_with_hasher_type(bytes) {
        assert_eq!(window.to_bytes(), bytes, "accepted bytes do not round-trip");
        assert!(window.generations() >= 1);
    }
}

/// Runs the parser on `data` (raw, and with its checksum fixed), then `data` as a script.
pub fn window(data: &[u8]) {
    for bytes in [data.to_vec(), with_valid_checksum(data)] {
        read_as::<Xxh3>(&bytes);
        read_as::<ParquetHash>(&bytes);
    }
    let Ok(script) = Script::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let generations = usize::from(script.generations % 6) + 1;
    let build = |kernel| {
        WindowFilter::with_fpr(usize::from(script.items) + 1, 0.05, generations)
            .expect("small shape")
            .with_kernel(kernel)
            .expect("available")
    };
    let mut oracle = build(Kernel::Scalar);
    let mut others: Vec<_> = Kernel::available().map(build).collect();
    // The keys of the window, newest generation last.
    let mut model: VecDeque<Vec<u64>> = VecDeque::from([Vec::new()]);
    for step in script.steps.iter().take(512) {
        match step {
            Step::Insert(key) => {
                let expected = oracle.insert(key);
                for other in &mut others {
                    assert_eq!(other.insert(key), expected, "{}: insert", other.kernel());
                }
                model.back_mut().expect("one generation").push(*key);
            }
            Step::InsertBatch(keys) => {
                oracle.insert_batch(keys);
                others.iter_mut().for_each(|other| other.insert_batch(keys));
                model.back_mut().expect("one generation").extend(keys);
            }
            Step::Contains(key) => {
                let expected = oracle.contains(key);
                for other in &others {
                    assert_eq!(
                        other.contains(key),
                        expected,
                        "{}: contains",
                        other.kernel()
                    );
                }
            }
            Step::ContainsBatch(keys) => {
                let mut expected = vec![false; keys.len()];
                oracle.contains_batch(keys, &mut expected);
                for other in &others {
                    let mut answers = vec![false; keys.len()];
                    other.contains_batch(keys, &mut answers);
                    assert_eq!(answers, expected, "{}: contains_batch", other.kernel());
                }
            }
            Step::Rotate => {
                oracle.rotate();
                others.iter_mut().for_each(WindowFilter::rotate);
                model.push_back(Vec::new());
                if model.len() > generations {
                    model.pop_front();
                }
            }
        }
        for key in model.iter().flatten() {
            assert!(oracle.contains(key), "key {key} of the window lost");
        }
    }
    for other in &others {
        assert!(
            other == &oracle,
            "{}: bits differ from the oracle",
            other.kernel()
        );
    }
    assert_eq!(
        WindowFilter::from_bytes(&oracle.to_bytes()).expect("own bytes"),
        oracle
    );
}
