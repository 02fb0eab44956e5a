//! The checks behind the cargo-fuzz targets in `fuzz/fuzz_targets`, shared with the stable
//! corpus replay (the `fuzz_corpus` and `trusted_open` modules of the main crate's test suite),
//! so that `cargo test` runs every committed corpus file through exactly the code the fuzzers
//! run. Each check panics (a fuzzer "crash") when a property is violated.

mod quotient;
mod trusted;
mod wide;
mod window;

pub use quotient::quotient;
pub use trusted::trusted_bytes;
pub use wide::wide;
pub use window::window;

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};

use arbitrary::{Arbitrary, Unstructured};
use splitbloom::format::{HEADER_BYTES, Header, SCALABLE_HEADER_BYTES};
use splitbloom::parquet::ParquetHash;
use splitbloom::{Filter, FilterHasher, FilterRef, GxHash, Kernel, ScalableFilter, Xxh3};

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
    /// Halve the number of blocks (when even).
    Fold,
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

/// Applies a script to the scalar oracle, to every other kernel available on this CPU, and to
/// an `AtomicFilter` (converted to and from plain filters along the way). After every step all
/// filters hold identical bits and give identical answers, and no hash that is still certainly
/// in the set (the model) is ever reported absent.
pub fn differential(data: &[u8]) {
    let Ok(script) = Script::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let mut blocks = usize::from(script.blocks) + 1;
    let kernels: Vec<Kernel> = Kernel::available().collect();
    assert_eq!(kernels[0], Kernel::Scalar);
    let mut filters: Vec<Filter> = kernels
        .iter()
        .map(|&kernel| filter_of(blocks, kernel, &[]))
        .collect();
    let hasher = *filters[0].hasher();
    let mut atomic = filters[0].clone().into_atomic();
    let mut model: HashSet<u64> = HashSet::new();
    for op in script.ops.iter().take(64) {
        match op {
            Op::Insert(key) => {
                let mut answers: Vec<bool> = filters
                    .iter_mut()
                    .map(|filter| filter.insert(key.as_slice()))
                    .collect();
                answers.push(atomic.insert(key.as_slice()));
                agree(&answers, "insert");
                model.insert(hasher.hash_one(key.as_slice()));
            }
            Op::InsertInteger(key) => {
                let mut answers: Vec<bool> = filters
                    .iter_mut()
                    .map(|filter| filter.insert(key))
                    .collect();
                answers.push(atomic.insert(key));
                agree(&answers, "insert integer");
                model.insert(hasher.hash_one(key));
            }
            Op::InsertHash(hash) => {
                let mut answers: Vec<bool> = filters
                    .iter_mut()
                    .map(|filter| filter.insert_hash(*hash))
                    .collect();
                answers.push(atomic.insert_hash(*hash));
                agree(&answers, "insert_hash");
                model.insert(*hash);
            }
            Op::InsertHashBatch(hashes) => {
                for filter in &mut filters {
                    filter.insert_hash_batch(hashes);
                }
                atomic.insert_hash_batch(hashes);
                model.extend(hashes);
            }
            Op::Contains(key) => {
                let mut answers: Vec<bool> = filters
                    .iter()
                    .map(|filter| filter.contains(key.as_slice()))
                    .collect();
                answers.push(atomic.contains(key.as_slice()));
                agree(&answers, "contains");
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
                let mut answers = vec![false; hashes.len()];
                atomic.contains_hash_batch(hashes, &mut answers);
                assert_eq!(answers, expected, "atomic batch answers");
            }
            Op::Union(hashes) => {
                for (filter, &kernel) in filters.iter_mut().zip(&kernels) {
                    filter
                        .union(&filter_of(blocks, kernel, hashes))
                        .expect("same shape");
                }
                atomic = filters[0].clone().into_atomic();
                model.extend(hashes);
            }
            Op::Intersect(hashes) => {
                for (filter, &kernel) in filters.iter_mut().zip(&kernels) {
                    filter
                        .intersect(&filter_of(blocks, kernel, hashes))
                        .expect("same shape");
                }
                atomic = filters[0].clone().into_atomic();
                // Only hashes in both sets are guaranteed to survive an intersection.
                let other: HashSet<u64> = hashes.iter().copied().collect();
                model.retain(|hash| other.contains(hash));
            }
            Op::Clear => {
                for filter in &mut filters {
                    filter.clear();
                }
                // Round-trip the atomic filter through the in-place conversions.
                atomic = {
                    let mut plain = atomic.into_filter();
                    plain.clear();
                    plain.into_atomic()
                };
                model.clear();
            }
            Op::Fold => {
                let results: Vec<bool> = filters
                    .iter_mut()
                    .map(|filter| filter.fold().is_ok())
                    .collect();
                assert!(
                    results.iter().all(|&ok| ok == blocks.is_multiple_of(2)),
                    "fold results {results:?} at {blocks} blocks"
                );
                if blocks.is_multiple_of(2) {
                    blocks /= 2;
                }
                atomic = filters[0].clone().into_atomic();
            }
        }
        for (filter, kernel) in filters.iter().zip(&kernels).skip(1) {
            assert_eq!(
                filter.as_words(),
                filters[0].as_words(),
                "{kernel} bits differ from scalar"
            );
        }
        assert_eq!(
            atomic.snapshot().as_words(),
            filters[0].as_words(),
            "atomic bits differ from scalar"
        );
        for &hash in &model {
            for (filter, kernel) in filters.iter().zip(&kernels) {
                assert!(
                    filter.contains_hash(hash),
                    "{kernel}: false negative for {hash:#x}"
                );
            }
            assert!(
                atomic.contains_hash(hash),
                "atomic: false negative for {hash:#x}"
            );
        }
    }
}

/// Fails unless every path gave the same answer (scalar first, the atomic filter last).
fn agree(answers: &[bool], operation: &str) {
    assert!(
        answers.windows(2).all(|pair| pair[0] == pair[1]),
        "{operation} answers differ: {answers:?}"
    );
}

/// Hashes keys of every length 0..=256 built from the input, each in an allocation of exactly
/// its length, through every hasher: under AddressSanitizer any read past the key is a crash.
/// Also checks that hashing is deterministic.
pub fn hashing(data: &[u8]) {
    let byte = data.first().copied().unwrap_or(0);
    let seed = u64::from(byte).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // Every hasher the crate offers; gxhash only where this build can compute it.
    let gx = GxHash::new(seed).ok();
    for len in 0..=256usize {
        let key: Vec<u8> = (0..len)
            .map(|i| data.get(i).copied().unwrap_or(byte.wrapping_add(i as u8)))
            .collect();
        let key = key.into_boxed_slice(); // exactly `len` bytes, so sanitizers see any over-read
        // The default's byte contract is XXH3 itself.
        let plain = Xxh3::with_seed(seed);
        assert_eq!(
            plain.hash_bytes(&key),
            xxhash_rust::xxh3::xxh3_64_with_seed(&key, seed),
            "the default's byte contract is not XXH3 for a {len}-byte key"
        );
        assert_eq!(
            plain.hash_bytes(&key),
            hash_bytes(&plain, &key),
            "default: one write"
        );
        let parquet = ParquetHash::with_seed(seed);
        assert_eq!(
            parquet.hash_bytes(&key),
            hash_bytes(&parquet, &key),
            "parquet: one write"
        );
        if let Some(gx) = &gx {
            assert_eq!(
                gx.hash_bytes(&key),
                hash_bytes(gx, &key),
                "gxhash: one write"
            );
            if len < 16 {
                assert_eq!(
                    gx.hash_bytes(&key),
                    plain.hash_bytes(&key),
                    "gxhash: XXH3 under 16 bytes"
                );
            }
        }
        let mut filter = Filter::with_num_blocks(4).expect("4 blocks");
        filter.insert(&key[..]);
        assert!(
            filter.contains(&key[..]),
            "false negative for a {len}-byte key"
        );
        filter.insert_bytes(&key);
        assert!(
            filter.contains_bytes(&key),
            "false negative for {len} bytes"
        );
    }
    // Long keys (XXH3's long-input loop, in AVX2 or AVX-512 where the CPU has them): the whole
    // input, and keys around the 1024-byte blocks built from it.
    for len in [data.len(), 1023, 1024, 1025, 2047, 2048, 2049, 4096] {
        let key: Vec<u8> = (0..len)
            .map(|i| data.get(i % data.len().max(1)).copied().unwrap_or(byte) ^ (i >> 8) as u8)
            .collect();
        let key = key.into_boxed_slice();
        for seed in [0, seed] {
            let plain = Xxh3::with_seed(seed);
            let expected = xxhash_rust::xxh3::xxh3_64_with_seed(&key, seed);
            assert_eq!(plain.hash_bytes(&key), expected, "default, {len}-byte key");
            assert_eq!(hash_bytes(&plain, &key), expected, "default: one write");
        }
    }
}

/// One byte-string through a fresh hasher.
fn hash_bytes<S: BuildHasher>(builder: &S, bytes: &[u8]) -> u64 {
    let mut hasher = builder.build_hasher();
    hasher.write(bytes);
    hasher.finish()
}

/// Returns `bytes` with the checksum field of the `SBLM` header recomputed, so that mutated
/// inputs get past the checksum and reach the checks behind it (every layout's).
pub(crate) fn with_valid_checksum(bytes: &[u8]) -> Vec<u8> {
    let mut fixed = bytes.to_vec();
    if fixed.len() >= HEADER_BYTES {
        let mut checksum = xxhash_rust::xxh3::Xxh3Default::new();
        checksum.update(&fixed[..24]);
        checksum.update(&fixed[HEADER_BYTES..]);
        fixed[24..32].copy_from_slice(&checksum.digest().to_le_bytes());
    }
    fixed
}

/// Reads `bytes` as a filter with hasher `S`, owned and borrowed: never panics; when it
/// succeeds, re-serializing gives back the same bytes and both readers answer alike.
fn read_as<S: FilterHasher + std::fmt::Debug>(bytes: &[u8]) {
    let owned = Filter::<S>::from_bytes_with_hasher_type(bytes);
    let borrowed = FilterRef::<S>::from_bytes_with_hasher_type(bytes);
    assert_eq!(
        owned.is_ok(),
        borrowed.is_ok(),
        "owned {owned:?} vs borrowed {:?}",
        borrowed.as_ref().err()
    );
    let (Ok(owned), Ok(borrowed)) = (owned, borrowed) else {
        return;
    };
    assert_eq!(owned.to_bytes(), bytes, "re-serialized bytes differ");
    assert_eq!(borrowed.to_bytes(), bytes, "re-serialized view differs");
    let header = Header::parse(bytes).expect("a readable filter has a readable header");
    assert_eq!(header.num_blocks, owned.num_blocks());
    let probes: Vec<u64> = bytes
        .chunks(8)
        .map(|chunk| {
            chunk
                .iter()
                .fold(0u64, |acc, &b| acc.rotate_left(8) ^ u64::from(b))
        })
        .collect();
    let mut answers = vec![false; probes.len()];
    borrowed.contains_hash_batch(&probes, &mut answers);
    for (&hash, &answer) in probes.iter().zip(&answers) {
        assert_eq!(
            owned.contains_hash(hash),
            answer,
            "owned and borrowed disagree on {hash:#x}"
        );
        assert_eq!(borrowed.contains_hash(hash), answer);
    }
    assert!((0.0..=1.0).contains(&borrowed.fill_ratio()));
}

/// Returns `bytes` with the ScalableFilter header's checksum (bytes 56..64, over 0..56)
/// recomputed, so that mutated inputs reach the parameter and stage checks.
fn with_valid_scalable_checksum(bytes: &[u8]) -> Vec<u8> {
    let mut fixed = bytes.to_vec();
    if fixed.len() >= SCALABLE_HEADER_BYTES {
        let checksum = xxhash_rust::xxh3::xxh3_64(&fixed[..56]);
        fixed[56..64].copy_from_slice(&checksum.to_le_bytes());
    }
    fixed
}

/// Reads `bytes` as a ScalableFilter with hasher `S`: never panics, and what it accepts
/// re-serializes to the same bytes.
fn read_scalable_as<S: FilterHasher + PartialEq + std::fmt::Debug>(bytes: &[u8]) {
    if let Ok(filter) = ScalableFilter::<S>::from_bytes_with_hasher_type(bytes) {
        assert_eq!(
            filter.to_bytes(),
            bytes,
            "re-serialized scalable filter differs"
        );
        assert!(filter.items_in_last_stage() <= filter.len());
        assert!((0.0..=1.0).contains(&filter.estimated_fpr()));
    }
}

/// Arbitrary bytes into every reader: the own format (each hasher type, owned and zero-copy,
/// as given and with a repaired checksum), the ScalableFilter container (likewise) and the
/// Parquet header/bitset reader.
pub fn from_bytes(data: &[u8]) {
    for bytes in [data.to_vec(), with_valid_checksum(data)] {
        read_as::<Xxh3>(&bytes);
        read_as::<GxHash>(&bytes);
        read_as::<ParquetHash>(&bytes);
    }
    for bytes in [data.to_vec(), with_valid_scalable_checksum(data)] {
        read_scalable_as::<Xxh3>(&bytes);
        read_scalable_as::<ParquetHash>(&bytes);
    }
    if let Ok((num_bytes, header_len)) = splitbloom::parquet::read_header(data) {
        assert!(header_len <= data.len(), "header longer than its input");
        assert!(
            num_bytes > 0 && num_bytes % 32 == 0,
            "accepted numBytes {num_bytes}"
        );
    }
    if let Ok((filter, consumed)) = Filter::<ParquetHash>::from_parquet_bytes(data) {
        assert!(consumed <= data.len());
        let bitset = filter.to_parquet_bitset();
        assert_eq!(
            &data[consumed - bitset.len()..consumed],
            bitset.as_slice(),
            "bitset not read verbatim"
        );
        if let Ok((view, view_consumed)) = FilterRef::<ParquetHash>::from_parquet_bytes(data) {
            assert_eq!(view_consumed, consumed);
            assert!(filter.contains_value("probe") == view.contains_value("probe"));
        }
    }
}

/// The inputs of the round-trip target.
#[derive(Arbitrary, Debug)]
struct RoundTrip {
    blocks: u16,
    seed: u64,
    /// Parquet's hasher rather than the default.
    parquet: bool,
    hashes: Vec<u64>,
    keys: Vec<Vec<u8>>,
    probes: Vec<u64>,
}

/// A random filter → bytes → filter → bytes: identical bytes, identical answers.
pub fn roundtrip(data: &[u8]) {
    let Ok(input) = RoundTrip::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let blocks = usize::from(input.blocks % 1024) + 1;
    if input.parquet {
        roundtrip_with(blocks, ParquetHash::with_seed(input.seed), &input);
    } else {
        roundtrip_with(blocks, Xxh3::with_seed(input.seed), &input);
    }
}

fn roundtrip_with<S: FilterHasher + std::fmt::Debug>(blocks: usize, hasher: S, input: &RoundTrip) {
    let mut filter = Filter::with_num_blocks_and_hasher(blocks, hasher).expect("1..=1024 blocks");
    filter.insert_hash_batch(&input.hashes);
    for key in &input.keys {
        filter.insert(key.as_slice());
    }
    let bytes = filter.to_bytes();
    let mut written = Vec::new();
    filter
        .write_to(&mut written)
        .expect("writing to a Vec cannot fail");
    assert_eq!(written, bytes, "write_to and to_bytes differ");
    let read = Filter::<S>::from_bytes_with_hasher_type(&bytes).expect("own bytes read back");
    assert_eq!(read, filter, "read filter differs");
    assert_eq!(read.to_bytes(), bytes, "re-written bytes differ");
    let view = FilterRef::<S>::from_bytes_with_hasher_type(&bytes).expect("own bytes viewed");
    for &hash in input.hashes.iter().chain(&input.probes) {
        assert_eq!(
            view.contains_hash(hash),
            filter.contains_hash(hash),
            "{hash:#x}"
        );
        assert_eq!(
            read.contains_hash(hash),
            filter.contains_hash(hash),
            "{hash:#x}"
        );
    }
    for hash in &input.hashes {
        assert!(view.contains_hash(*hash), "false negative after round trip");
    }
    for key in &input.keys {
        assert!(
            view.contains(key.as_slice()) && read.contains(key.as_slice()),
            "key lost in round trip"
        );
    }
}

/// One step of the counting target. Keys come from a small domain so that counters collide
/// and saturate.
#[derive(Arbitrary, Debug)]
enum CountingOp {
    /// Insert key `k`.
    Insert(u8),
    /// Insert key `k` this many times.
    InsertMany(u8, u8),
    /// Remove key `k`, if the model says it is present (removing a key that was never inserted
    /// is the caller's error and may remove others' bits, so the model never does it).
    Remove(u8),
    /// Check the projection to a plain filter.
    Project,
}

/// The inputs of the counting target.
#[derive(Arbitrary, Debug)]
struct CountingScript {
    blocks: u8,
    kernel: u8,
    ops: Vec<CountingOp>,
}

/// Insert/remove sequences on `CountingFilter` against an exact multiset: every key whose
/// insert count exceeds its remove count stays present, the count estimate is never below the
/// true count (capped at the counters' maximum, 15), and the projection answers alike.
pub fn counting(data: &[u8]) {
    let Ok(script) = CountingScript::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let kernels: Vec<Kernel> = Kernel::available().collect();
    let kernel = kernels[usize::from(script.kernel) % kernels.len()];
    let blocks = usize::from(script.blocks % 8) + 1;
    let mut filter = splitbloom::CountingFilter::with_num_blocks(blocks)
        .expect("1..=8 blocks")
        .with_kernel(kernel)
        .expect("available");
    let mut model: std::collections::HashMap<u8, u32> = std::collections::HashMap::new();
    for op in script.ops.iter().take(256) {
        match *op {
            CountingOp::Insert(key) => {
                filter.insert(&key);
                *model.entry(key).or_default() += 1;
            }
            CountingOp::InsertMany(key, times) => {
                for _ in 0..times % 20 {
                    filter.insert(&key);
                    *model.entry(key).or_default() += 1;
                }
            }
            CountingOp::Remove(key) => {
                if let Some(count) = model.get_mut(&key).filter(|count| **count > 0) {
                    assert!(
                        filter.remove(&key),
                        "{kernel}: removing a present key {key} reported absent"
                    );
                    *count -= 1;
                }
            }
            CountingOp::Project => {
                let projection = filter.to_filter();
                for key in 0..=u8::MAX {
                    assert_eq!(
                        projection.contains(&key),
                        filter.contains(&key),
                        "{kernel}: projection of {key}"
                    );
                }
            }
        }
        for (&key, &count) in &model {
            if count > 0 {
                assert!(
                    filter.contains(&key),
                    "{kernel}: false negative for {key} (count {count})"
                );
                let estimate = filter.count_estimate(&key);
                assert!(
                    u32::from(estimate) >= count.min(15),
                    "{kernel}: estimate {estimate} < count {count} of {key}"
                );
            }
        }
    }
}
