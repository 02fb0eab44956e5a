//! The check of the `wide` target: `WideFilter` bytes (the `SBLM` format under the wide layout
//! ids) never panic the owned reader or the views, what they accept round-trips and the view
//! answers as the owned filter; and a random script of inserts and lookups never loses a key on
//! any kernel, while every kernel answers as the scalar oracle and the bytes read back equal.

use arbitrary::{Arbitrary, Unstructured};

use crate::with_valid_checksum;
use splitbloom::parquet::ParquetHash;
use splitbloom::{FilterHasher, Kernel, WideFilter, WideFilterRef, Xxh3};

/// One step of a wide script.
#[derive(Arbitrary, Debug)]
enum Step {
    Insert(u64),
    InsertHash(u64),
    InsertBatch(Vec<u64>),
    Contains(u64),
    ContainsBatch(Vec<u64>),
}

/// A wide filter's shape and a script.
#[derive(Arbitrary, Debug)]
struct Script {
    groups: u8,
    two_probes: bool,
    steps: Vec<Step>,
}

/// Reads `bytes` as a wide filter with hasher `S`, owned and viewed: never panics; what is
/// accepted writes back the same bytes, and the view answers as the owned copy.
fn read_as<S: FilterHasher + PartialEq + core::fmt::Debug>(bytes: &[u8]) {
    let owned = WideFilter::<S>::from_bytes_with_hasher_type(bytes);
    let view = WideFilterRef::<S>::from_bytes_with_hasher_type(bytes);
    assert_eq!(
        owned.is_ok(),
        view.is_ok(),
        "the owned reader and the view disagree"
    );
    let trusted = WideFilterRef::<S>::from_trusted_bytes_with_hasher_type(bytes);
    if let (Ok(owned), Ok(view)) = (owned, view) {
        assert_eq!(owned.to_bytes(), bytes, "accepted bytes do not round-trip");
        assert_eq!(view.to_bytes(), bytes, "accepted bytes do not round-trip");
        assert_eq!(trusted.expect("valid bytes are trusted"), view);
        let hashes: Vec<u64> = bytes
            .chunks(8)
            .map(|c| c.iter().fold(0, |h, &b| h << 8 | u64::from(b)))
            .collect();
        for &hash in &hashes {
            assert_eq!(owned.contains_hash(hash), view.contains_hash(hash));
        }
        assert_eq!(
            owned.count_contained_hashes(&hashes),
            view.count_contained_hashes(&hashes)
        );
    }
}

/// Runs the parsers on `data` (raw, and with its checksum fixed), then `data` as a script.
pub fn wide(data: &[u8]) {
    for bytes in [data.to_vec(), with_valid_checksum(data)] {
        read_as::<Xxh3>(&bytes);
        read_as::<ParquetHash>(&bytes);
    }
    let Ok(script) = Script::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let (num_blocks, probes) = if script.two_probes {
        (64 * (usize::from(script.groups % 4) + 1), 2)
    } else {
        (usize::from(script.groups) + 1, 1)
    };
    let build = |kernel| {
        WideFilter::with_num_blocks(num_blocks, probes)
            .expect("small shape")
            .with_kernel(kernel)
            .expect("available")
    };
    let mut oracle = build(Kernel::Scalar);
    let mut others: Vec<_> = Kernel::available().map(build).collect();
    let (mut keys, mut hashes) = (Vec::new(), Vec::new());
    for step in script.steps.iter().take(512) {
        match step {
            Step::Insert(key) => {
                let expected = oracle.insert(key);
                for other in &mut others {
                    assert_eq!(other.insert(key), expected, "{}: insert", other.kernel());
                }
                keys.push(*key);
            }
            Step::InsertHash(hash) => {
                let expected = oracle.insert_hash(*hash);
                for other in &mut others {
                    assert_eq!(
                        other.insert_hash(*hash),
                        expected,
                        "{}: insert_hash",
                        other.kernel()
                    );
                }
                hashes.push(*hash);
            }
            Step::InsertBatch(batch) => {
                oracle.insert_batch(batch);
                for other in &mut others {
                    other.insert_batch(batch);
                }
                keys.extend_from_slice(batch);
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
            Step::ContainsBatch(batch) => {
                let mut expected = vec![false; batch.len()];
                oracle.contains_batch(batch, &mut expected);
                for other in &others {
                    let mut out = vec![false; batch.len()];
                    other.contains_batch(batch, &mut out);
                    assert_eq!(out, expected, "{}: contains_batch", other.kernel());
                }
            }
        }
    }
    for other in &others {
        assert_eq!(
            other,
            &oracle,
            "{}: bits differ from the scalar oracle",
            other.kernel()
        );
    }
    let bytes = oracle.to_bytes();
    let view = WideFilterRef::from_bytes(&bytes).expect("written bytes read back");
    assert_eq!(
        WideFilter::from_bytes(&bytes).expect("written bytes read back"),
        oracle
    );
    assert!(
        keys.iter().all(|key| view.contains(key)),
        "a false negative"
    );
    assert!(
        hashes.iter().all(|&hash| view.contains_hash(hash)),
        "a false negative"
    );
}
