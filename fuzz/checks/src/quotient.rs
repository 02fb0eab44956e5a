//! The check of the `quotient` target: `QuotientFilter` bytes (the `SBLM` format under layout
//! ids 5 and 6) never panic the owned reader or the view, hostile metadata behind a valid
//! checksum is refused, what is accepted round-trips and the view answers as the owned filter;
//! the same blocks loaded in chunks (`load_block_bytes`) are refused or counted alike;
//! and a random script of inserts, copies, removals and lookups, through full, never loses a
//! key on any kernel, while every kernel answers as the scalar oracle and leaves its bytes.

use arbitrary::{Arbitrary, Unstructured};

use crate::with_valid_checksum;
use splitbloom::parquet::ParquetHash;
use splitbloom::{Error, FilterHasher, Kernel, QuotientFilter, QuotientFilterRef, TagBits, Xxh3};

/// One step of a quotient script. Keys are small integers, so that they repeat and collide.
#[derive(Arbitrary, Debug)]
enum Step {
    Insert(u16),
    InsertCopy(u16),
    InsertHash(u64),
    InsertBatch(Vec<u16>),
    InsertCopyBatch(Vec<u16>),
    /// Removes a key the script added (the documented safe pattern), picked by index.
    RemoveAdded(u16),
    /// Removes any key: it may take another key's tag, so the script stops checking for false
    /// negatives after one.
    RemoveAny(u16),
    RemoveBatch(Vec<u16>),
    Contains(u16),
    ContainsBatch(Vec<u16>),
    Count(u16),
}

/// A quotient filter's shape and a script.
#[derive(Arbitrary, Debug)]
struct Script {
    blocks: u8,
    sixteen: bool,
    steps: Vec<Step>,
}

/// Reads `bytes` as a quotient filter with hasher `S`, owned and viewed: never panics; both
/// readers agree; what is accepted writes back the same bytes, and the view answers and counts
/// as the owned copy.
fn read_as<S: FilterHasher + PartialEq + core::fmt::Debug>(bytes: &[u8]) {
    let owned = QuotientFilter::<S>::from_bytes_with_hasher_type(bytes);
    let view = QuotientFilterRef::<S>::from_bytes_with_hasher_type(bytes);
    match (&owned, &view) {
        (Ok(owned), Ok(view)) => {
            assert_eq!(owned.to_bytes(), bytes, "accepted bytes do not round-trip");
            assert_eq!(view.to_bytes(), bytes, "accepted bytes do not round-trip");
            assert_eq!(owned.len(), view.len());
            assert!(owned.len() <= owned.capacity(), "more tags than slots");
            let hashes: Vec<u64> = bytes
                .chunks(8)
                .map(|c| c.iter().fold(0, |h, &b| h << 8 | u64::from(b)))
                .collect();
            for &hash in &hashes {
                assert_eq!(owned.contains_hash(hash), view.contains_hash(hash));
                assert_eq!(owned.count_hash(hash), view.count_hash(hash));
            }
            assert_eq!(
                owned.count_contained_hashes(&hashes),
                view.count_contained_hashes(&hashes)
            );
            // An accepted filter takes writes without panicking.
            let mut owned = owned.clone();
            for &hash in &hashes {
                let _ = owned.insert_copy_hash(hash);
                owned.remove_hash(hash);
            }
        }
        (Err(owned), Err(view)) => assert_eq!(owned, view, "the readers refuse differently"),
        _ => panic!("the owned reader and the view disagree: {owned:?} against {view:?}"),
    }
}

/// The multiset model of a script: every copy added, in order.
#[derive(Default)]
struct Model {
    copies: Vec<u64>,
    /// Pre-hashed keys added with a copy of their own.
    hashes: Vec<u64>,
    /// A removal of a key that may not have been added happened: another key may have lost
    /// its tag, so false negatives are no longer a bug.
    unsafe_removal: bool,
}

/// Loads `data` past its header, as whole blocks of either tag width, into a filter that
/// holds keys already, through `load_block_bytes` (a chunked restore): never panics; what is
/// accepted leaves blocks that read back and a count of tags equal to theirs; what is refused
/// changes nothing.
fn load_blocks(data: &[u8]) {
    let blocks = data.get(32..).unwrap_or_default();
    let (whole, _) = blocks.as_chunks::<64>();
    let bytes = &blocks[..whole.len() * 64];
    for tag_bits in TagBits::ALL {
        let Ok(mut filter) = QuotientFilter::with_num_blocks(whole.len().max(1), tag_bits) else {
            return;
        };
        for key in 0..16u64 {
            let _ = filter.insert_copy_hash(key.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        let before = filter.clone();
        match filter.load_block_bytes(0, bytes) {
            Ok(()) => {
                let read = QuotientFilter::from_bytes(&filter.to_bytes()).expect("loaded blocks read back");
                assert_eq!(read.len(), filter.len(), "the count of tags drifted");
                assert_eq!(filter.block_bytes(0..bytes.len()).expect("in range"), bytes);
            }
            Err(_) => {
                assert_eq!(filter, before, "a refused load changed the filter");
                assert_eq!(filter.len(), before.len());
            }
        }
    }
}

/// Runs the parsers on `data` (raw, and with its checksum fixed), then `data` as a script.
pub fn quotient(data: &[u8]) {
    for bytes in [data.to_vec(), with_valid_checksum(data)] {
        read_as::<Xxh3>(&bytes);
        read_as::<ParquetHash>(&bytes);
    }
    load_blocks(data);
    let Ok(script) = Script::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let tag_bits = if script.sixteen {
        TagBits::Sixteen
    } else {
        TagBits::Eight
    };
    let build = |kernel| {
        QuotientFilter::with_num_blocks(usize::from(script.blocks % 8) + 1, tag_bits)
            .expect("small shape")
            .with_kernel(kernel)
            .expect("available")
    };
    let mut oracle = build(Kernel::Scalar);
    let mut others: Vec<_> = Kernel::available().map(build).collect();
    let mut model = Model::default();
    let key = |k: &u16| u64::from(*k);
    for step in script.steps.iter().take(512) {
        // Every write on every kernel, the same answer as the oracle's.
        macro_rules! write {
            (|$filter:ident| $call:expr) => {{
                let expected = {
                    let $filter = &mut oracle;
                    $call
                };
                for $filter in &mut others {
                    let kernel = $filter.kernel();
                    assert_eq!($call, expected, "{kernel}: {step:?}");
                }
                expected
            }};
        }
        match step {
            Step::Insert(k) => {
                if write!(|f| f.insert(&key(k))) == Ok(true) {
                    model.copies.push(key(k));
                }
            }
            Step::InsertCopy(k) => {
                if write!(|f| f.insert_copy(&key(k))).is_ok() {
                    model.copies.push(key(k));
                }
            }
            Step::InsertHash(hash) => {
                if write!(|f| f.insert_hash(*hash)) == Ok(true) {
                    model.hashes.push(*hash);
                }
            }
            Step::InsertBatch(keys) | Step::InsertCopyBatch(keys) => {
                let keys: Vec<u64> = keys.iter().map(key).collect();
                let copy = matches!(step, Step::InsertCopyBatch(_));
                let before = oracle.len();
                let result = write!(|f| if copy {
                    f.insert_copy_batch(&keys)
                } else {
                    f.insert_batch(&keys)
                });
                let processed = match result {
                    Ok(()) => keys.len(),
                    Err(Error::Full { processed }) => processed,
                    Err(error) => panic!("{error}"),
                };
                if copy {
                    model.copies.extend_from_slice(&keys[..processed]);
                } else {
                    // Which keys were new is not reported; their count is.
                    assert!(oracle.len() - before <= processed);
                    model.unsafe_removal = true;
                }
            }
            Step::RemoveAdded(index) => {
                if !model.copies.is_empty() {
                    let k = model
                        .copies
                        .swap_remove(usize::from(*index) % model.copies.len());
                    let found = write!(|f| f.remove(&k));
                    assert!(found || model.unsafe_removal, "an added key was not found");
                }
            }
            Step::RemoveAny(k) => {
                write!(|f| f.remove(&key(k)));
                model.unsafe_removal = true;
            }
            Step::RemoveBatch(keys) => {
                let keys: Vec<u64> = keys.iter().map(key).collect();
                write!(|f| f.remove_batch(&keys));
                model.unsafe_removal = true;
            }
            Step::Contains(k) => {
                write!(|f| f.contains(&key(k)));
            }
            Step::Count(k) => {
                write!(|f| f.count(&key(k)));
            }
            Step::ContainsBatch(keys) => {
                let keys: Vec<u64> = keys.iter().map(key).collect();
                write!(|f| {
                    let mut out = vec![false; keys.len()];
                    f.contains_batch(&keys, &mut out);
                    out
                });
            }
        }
    }
    for other in &others {
        assert_eq!(
            other,
            &oracle,
            "{}: bytes differ from the scalar oracle",
            other.kernel()
        );
    }
    let bytes = oracle.to_bytes();
    let view = QuotientFilterRef::from_bytes(&bytes).expect("written bytes read back");
    assert_eq!(
        QuotientFilter::from_bytes(&bytes).expect("read back"),
        oracle
    );
    if !model.unsafe_removal {
        let added = model.copies.len() + model.hashes.len();
        assert_eq!(oracle.len(), added, "the length is not exact");
        for k in &model.copies {
            assert!(view.contains(k), "a false negative for {k}");
        }
        for &hash in &model.hashes {
            assert!(view.contains_hash(hash), "a false negative for {hash:#x}");
        }
    }
}
