//! The checks behind the cargo-fuzz targets in `fuzz/`, shared with the stable replay test
//! (`tests/fuzz_corpus.rs`) so that `cargo test` runs every committed corpus file through exactly
//! the code the fuzzers run. Each check panics (a fuzzer "crash") when a property is violated.
#![allow(dead_code, reason = "each fuzz target uses one check")]

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};

use arbitrary::{Arbitrary, Unstructured};
use splitbloom::{DefaultHasher, Filter, Kernel, Xxh3Hash};

/// One step of the differential target.
#[derive(Arbitrary, Debug)]
enum Op {
    /// Insert a byte-string key.
    Insert(Vec<u8>),
    /// Insert an integer key.
    InsertInteger(u64),
    /// Insert a pre-hashed value.
    InsertHash(u64),
    /// Insert pre-hashed values as one batch.
    InsertHashBatch(Vec<u64>),
    /// Look up a byte-string key.
    Contains(Vec<u8>),
    /// Look up pre-hashed values as one batch.
    ContainsHashBatch(Vec<u64>),
    /// Union with a filter built from these hashes.
    Union(Vec<u64>),
    /// Intersect with a filter built from these hashes.
    Intersect(Vec<u64>),
    /// Clear every bit.
    Clear,
}

/// The inputs: a shape and a sequence of operations.
#[derive(Arbitrary, Debug)]
struct Script {
    blocks: u8,
    ops: Vec<Op>,
}

/// Builds a filter of `blocks` blocks on `kernel` holding `hashes`.
fn filter_of(blocks: usize, kernel: Kernel, hashes: &[u64]) -> Filter {
    let mut filter = Filter::with_num_blocks(blocks)
        .expect("1..=256 blocks")
        .with_kernel(kernel)
        .expect("available");
    filter.insert_hash_batch(hashes);
    filter
}

/// Applies a script to the scalar oracle and to every other kernel available on this CPU. After
/// every step all filters hold identical bits and give identical answers, and no hash that is
/// still certainly in the set (the model) is ever reported absent.
pub fn differential(data: &[u8]) {
    let Ok(script) = Script::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let blocks = usize::from(script.blocks) + 1;
    let kernels: Vec<Kernel> = Kernel::available().collect();
    assert_eq!(kernels[0], Kernel::Scalar);
    let mut filters: Vec<Filter> = kernels
        .iter()
        .map(|&kernel| filter_of(blocks, kernel, &[]))
        .collect();
    let hasher = *filters[0].hasher();
    let mut model: HashSet<u64> = HashSet::new();
    for op in script.ops.iter().take(64) {
        match op {
            Op::Insert(key) => {
                let answers: Vec<bool> = filters
                    .iter_mut()
                    .map(|filter| filter.insert(key.as_slice()))
                    .collect();
                assert!(
                    answers.windows(2).all(|pair| pair[0] == pair[1]),
                    "insert answers differ: {answers:?}"
                );
                model.insert(hasher.hash_one(key.as_slice()));
            }
            Op::InsertInteger(key) => {
                let answers: Vec<bool> = filters
                    .iter_mut()
                    .map(|filter| filter.insert(key))
                    .collect();
                assert!(
                    answers.windows(2).all(|pair| pair[0] == pair[1]),
                    "insert answers differ: {answers:?}"
                );
                model.insert(hasher.hash_one(key));
            }
            Op::InsertHash(hash) => {
                let answers: Vec<bool> = filters
                    .iter_mut()
                    .map(|filter| filter.insert_hash(*hash))
                    .collect();
                assert!(
                    answers.windows(2).all(|pair| pair[0] == pair[1]),
                    "insert answers differ: {answers:?}"
                );
                model.insert(*hash);
            }
            Op::InsertHashBatch(hashes) => {
                for filter in &mut filters {
                    filter.insert_hash_batch(hashes);
                }
                model.extend(hashes);
            }
            Op::Contains(key) => {
                let answers: Vec<bool> = filters
                    .iter()
                    .map(|filter| filter.contains(key.as_slice()))
                    .collect();
                assert!(
                    answers.windows(2).all(|pair| pair[0] == pair[1]),
                    "contains answers differ: {answers:?}"
                );
            }
            Op::ContainsHashBatch(hashes) => {
                let mut expected = vec![false; hashes.len()];
                filters[0].contains_hash_batch(hashes, &mut expected);
                for (filter, &kernel) in filters.iter().zip(&kernels) {
                    let mut answers = vec![false; hashes.len()];
                    filter.contains_hash_batch(hashes, &mut answers);
                    assert_eq!(answers, expected, "{kernel} batch answers");
                    for (&hash, &answer) in hashes.iter().zip(&answers) {
                        assert_eq!(
                            answer,
                            filter.contains_hash(hash),
                            "{kernel} batch vs single"
                        );
                    }
                }
            }
            Op::Union(hashes) => {
                for (filter, &kernel) in filters.iter_mut().zip(&kernels) {
                    filter
                        .union(&filter_of(blocks, kernel, hashes))
                        .expect("same shape");
                }
                model.extend(hashes);
            }
            Op::Intersect(hashes) => {
                for (filter, &kernel) in filters.iter_mut().zip(&kernels) {
                    filter
                        .intersect(&filter_of(blocks, kernel, hashes))
                        .expect("same shape");
                }
                // Only hashes in both sets are guaranteed to survive an intersection.
                let other: HashSet<u64> = hashes.iter().copied().collect();
                model.retain(|hash| other.contains(hash));
            }
            Op::Clear => {
                for filter in &mut filters {
                    filter.clear();
                }
                model.clear();
            }
        }
        for (filter, kernel) in filters.iter().zip(&kernels).skip(1) {
            assert_eq!(
                filter.as_words(),
                filters[0].as_words(),
                "{kernel} bits differ from scalar"
            );
        }
        for &hash in &model {
            for (filter, kernel) in filters.iter().zip(&kernels) {
                assert!(
                    filter.contains_hash(hash),
                    "{kernel}: false negative for {hash:#x}"
                );
            }
        }
    }
}

/// Hashes keys of every length 0..=256 built from the input, each in an allocation of exactly
/// its length, through every hasher: under AddressSanitizer any read past the key is a crash.
/// Also checks that hashing is deterministic.
pub fn hashing(data: &[u8]) {
    let byte = data.first().copied().unwrap_or(0);
    for len in 0..=256usize {
        let key: Vec<u8> = (0..len)
            .map(|i| data.get(i).copied().unwrap_or(byte.wrapping_add(i as u8)))
            .collect();
        let key = key.into_boxed_slice(); // exactly `len` bytes, so sanitizers see any over-read
        let once = hash_bytes(&DefaultHasher::default(), &key);
        assert_eq!(
            once,
            hash_bytes(&DefaultHasher::default(), &key),
            "default hasher not deterministic"
        );
        let once = hash_bytes(&Xxh3Hash::default(), &key);
        assert_eq!(
            once,
            hash_bytes(&Xxh3Hash::default(), &key),
            "xxh3 hasher not deterministic"
        );
        let mut filter = Filter::with_num_blocks(4).expect("4 blocks");
        filter.insert(&key[..]);
        assert!(
            filter.contains(&key[..]),
            "false negative for a {len}-byte key"
        );
    }
}

/// One byte-string through a fresh hasher.
fn hash_bytes<S: BuildHasher>(builder: &S, bytes: &[u8]) -> u64 {
    let mut hasher = builder.build_hasher();
    hasher.write(bytes);
    hasher.finish()
}
