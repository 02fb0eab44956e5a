//! Golden files: the on-disk formats and the hashers, pinned from 0.1.0.
//!
//! Each file under `tests/fixtures/golden/` is rebuilt here from fixed keys and compared byte
//! for byte, so any change to a format (header, checksum, block layout, scalable container,
//! Parquet header) or to a hasher fails; each is then read back and must find every key. Where
//! this build cannot compute gxhash, its file must be refused as `HasherUnavailable`, never read
//! with another hasher.
//!
//! Regenerate (only for a reviewed format change, which 0.1.0's files forbid) with
//! `SPLITBLOOM_WRITE_GOLDEN=1 cargo test --test suite golden::` in a build with AES.

use splitbloom::parquet::ParquetHash;
use splitbloom::{
    Error, Filter, FilterHasher, FilterRef, GxHash, HasherKind, ScalableFilter, ScalableParameters,
    WideFilter, WideFilterRef, Xxh3,
};

/// The string keys of every golden file: lengths 0 to 300, so every XXH3 and gxhash path runs.
fn string_keys() -> Vec<Vec<u8>> {
    (0..=300usize)
        .step_by(7)
        .chain([15, 16, 17, 240, 241])
        .map(|len| {
            (0..len)
                .map(|i| b'a' + ((i * 5 + len) % 26) as u8)
                .collect()
        })
        .collect()
}

/// The integer keys of every golden file.
fn integer_keys() -> Vec<u64> {
    (0..100u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect()
}

/// The path of golden file `name`.
fn path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/golden")
        .join(name)
}

/// Compares `bytes` with golden file `name` (writing it first under `SPLITBLOOM_WRITE_GOLDEN`).
fn compare(name: &str, bytes: &[u8]) -> Vec<u8> {
    if std::env::var_os("SPLITBLOOM_WRITE_GOLDEN").is_some() {
        std::fs::write(path(name), bytes).unwrap();
    }
    let golden = std::fs::read(path(name)).unwrap();
    assert!(
        golden == bytes,
        "{name}: this build writes other bytes than the golden file ({} against {} bytes)",
        bytes.len(),
        golden.len()
    );
    golden
}

/// Inserts the fixed keys: strings through `bytes` (as `insert_bytes`) and `text` (as
/// `insert(&str)`, which hashes alike) in turn, integers through `integer` (`insert(&u64)`).
fn insert_fixed_keys(
    mut bytes: impl FnMut(&[u8]),
    mut text: impl FnMut(&str),
    integer: impl FnMut(&u64),
) {
    for (index, key) in string_keys().iter().enumerate() {
        if index % 2 == 0 {
            bytes(key);
        } else {
            text(core::str::from_utf8(key).unwrap());
        }
    }
    integer_keys().iter().for_each(integer);
}

/// A filter of 32 blocks with hasher `hasher`, holding the fixed keys.
fn build<S: FilterHasher>(hasher: S) -> Filter<S> {
    let filter = core::cell::RefCell::new(Filter::with_num_blocks_and_hasher(32, hasher).unwrap());
    insert_fixed_keys(
        |key| _ = filter.borrow_mut().insert_bytes(key),
        |key| _ = filter.borrow_mut().insert(key),
        |key| _ = filter.borrow_mut().insert(key),
    );
    filter.into_inner()
}

/// Every fixed key is in `view`.
fn assert_all_found<S: FilterHasher>(view: &FilterRef<'_, S>) {
    for key in string_keys() {
        assert!(view.contains_bytes(&key), "{:?} {key:?}", S::KIND);
        assert!(view.contains(core::str::from_utf8(&key).unwrap()));
    }
    for key in integer_keys() {
        assert!(view.contains(&key), "{:?} {key}", S::KIND);
    }
}

#[test]
fn xxh3_golden_file() {
    let golden = compare("xxh3.sblm", &build(Xxh3::default()).to_bytes());
    assert_eq!(golden[6], HasherKind::Xxh3.id());
    assert_all_found(&FilterRef::<Xxh3>::from_bytes(&golden).unwrap());
}

#[test]
fn parquet_hasher_golden_file() {
    let golden = compare("parquet.sblm", &build(ParquetHash::default()).to_bytes());
    assert_eq!(golden[6], HasherKind::Parquet.id());
    assert_all_found(&FilterRef::<ParquetHash>::from_bytes_with_hasher_type(&golden).unwrap());
}

#[test]
fn gxhash_golden_file() {
    match GxHash::new(0) {
        Ok(hasher) => {
            let golden = compare("gxhash.sblm", &build(hasher).to_bytes());
            assert_eq!(golden[6], HasherKind::GxHash.id());
            assert_all_found(&FilterRef::<GxHash>::from_bytes_with_hasher_type(&golden).unwrap());
        }
        Err(error) => {
            let golden = std::fs::read(path("gxhash.sblm")).unwrap();
            assert_eq!(golden[6], HasherKind::GxHash.id());
            assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHash));
            assert_eq!(
                FilterRef::<GxHash>::from_bytes_with_hasher_type(&golden).unwrap_err(),
                Error::HasherUnavailable(HasherKind::GxHash)
            );
        }
    }
}

/// The smallest file: one block, the key `splitbloom` (the hex dump `docs/FORMAT.md` explains).
#[test]
fn tiny_golden_file() {
    let mut filter = Filter::with_num_blocks(1).unwrap();
    filter.insert_bytes(b"splitbloom");
    let golden = compare("tiny.sblm", &filter.to_bytes());
    assert_eq!(golden.len(), 64);
    assert!(
        FilterRef::<Xxh3>::from_bytes(&golden)
            .unwrap()
            .contains("splitbloom")
    );
}

#[test]
fn scalable_golden_file() {
    let mut parameters = ScalableParameters::new(20, 0.01);
    parameters.growth_factor = 2.0;
    parameters.tightening_ratio = 0.8;
    let mut filter = ScalableFilter::with_parameters(parameters, Xxh3::default()).unwrap();
    for key in string_keys() {
        filter.insert_bytes(&key).unwrap();
    }
    for key in integer_keys() {
        filter.insert(&key).unwrap();
    }
    assert!(filter.stages().len() >= 3, "several stages are pinned");
    let golden = compare("scalable.sbls", &filter.to_bytes());
    let read = ScalableFilter::<Xxh3>::from_bytes(&golden).unwrap();
    assert_eq!(read.stages().len(), filter.stages().len());
    assert!(string_keys().iter().all(|key| read.contains_bytes(key)));
    assert!(integer_keys().iter().all(|key| read.contains(key)));
}

/// A Parquet bloom filter (Thrift header and bitset) as Parquet writers store it, and the same
/// bitset read back both ways.
#[test]
fn parquet_bitset_golden_file() {
    let sizing = splitbloom::parquet::Sizing::for_items(200, 0.01).unwrap();
    let mut filter = sizing.filter().unwrap();
    for key in string_keys() {
        filter.insert_value(key.as_slice());
    }
    for key in integer_keys() {
        filter.insert_value(&(key as i64));
    }
    let golden = compare("parquet.bloom", &filter.to_parquet_bytes().unwrap());
    let (read, consumed) = Filter::<ParquetHash>::from_parquet_bytes(&golden).unwrap();
    assert_eq!(consumed, golden.len());
    let (view, _) = FilterRef::<ParquetHash>::from_parquet_bytes(&golden).unwrap();
    for key in string_keys() {
        assert!(read.contains_value(key.as_slice()) && view.contains_value(key.as_slice()));
    }
    for key in integer_keys() {
        assert!(read.contains_value(&(key as i64)) && view.contains_value(&(key as i64)));
    }
}

/// A wide filter with `probes` per key and the default hasher, holding the fixed keys.
fn build_wide(num_blocks: usize, probes: u8) -> WideFilter {
    let filter = core::cell::RefCell::new(WideFilter::with_num_blocks(num_blocks, probes).unwrap());
    insert_fixed_keys(
        |key| _ = filter.borrow_mut().insert_bytes(key),
        |key| _ = filter.borrow_mut().insert(key),
        |key| _ = filter.borrow_mut().insert(key),
    );
    filter.into_inner()
}

/// The wide layout, one probe per key (layout id 1) and two (layout id 2): pinned like the
/// split-block files, and read back by the owned filter and the view.
#[test]
fn wide_golden_files() {
    for (name, num_blocks, probes) in [("wide.sblm", 16, 1), ("wide2.sblm", 64, 2)] {
        let golden = compare(name, &build_wide(num_blocks, probes).to_bytes());
        assert_eq!((golden[6], golden[7]), (HasherKind::Xxh3.id(), probes));
        assert_eq!(golden.len(), 32 + 64 * num_blocks);
        let owned = WideFilter::from_bytes(&golden).unwrap();
        let view = WideFilterRef::from_bytes(&golden).unwrap();
        for key in string_keys() {
            assert!(
                owned.contains_bytes(&key) && view.contains_bytes(&key),
                "{name} {key:?}"
            );
        }
        for key in integer_keys() {
            assert!(owned.contains(&key) && view.contains(&key), "{name} {key}");
        }
    }
}

/// A quotient filter of 4 blocks of `tag_bits` tags after the sequence of
/// `tests/fixtures/golden/quotient_known_answers.py`, which wrote the golden files from the
/// format's rules alone: copies until 4 slots are free, every third key of the first half
/// removed, ten copies more, then set inserts until three keys are refused (`Error::Full`).
/// Returns the filter and the keys refused.
fn build_quotient(tag_bits: splitbloom::TagBits) -> (splitbloom::QuotientFilter, Vec<usize>) {
    let mut filter = splitbloom::QuotientFilter::with_num_blocks(4, tag_bits).unwrap();
    let key = |i: usize| format!("quotient{i}");
    let copies = 4 * tag_bits.slots_per_block() - 4;
    let mut refused = Vec::new();
    for i in 0..copies {
        if filter.insert_copy_bytes(key(i).as_bytes()).is_err() {
            refused.push(i);
        }
    }
    for i in (0..copies / 2).step_by(3) {
        filter.remove_bytes(key(i).as_bytes());
    }
    for i in 0..10 {
        let _ = filter.insert_copy_bytes(key(i).as_bytes());
    }
    let mut i = copies;
    while refused.len() < 3 {
        match filter.insert_bytes(key(i).as_bytes()) {
            Err(Error::Full { processed: 0 }) => refused.push(i),
            Err(error) => panic!("{error}"),
            Ok(_) => {}
        }
        i += 1;
    }
    (filter, refused)
}

#[test]
fn quotient_golden_files() {
    for (tag_bits, name, refused) in [
        (
            splitbloom::TagBits::Eight,
            "quotient8.sblm",
            [215, 216, 217],
        ),
        (
            splitbloom::TagBits::Sixteen,
            "quotient16.sblm",
            [120, 121, 122],
        ),
    ] {
        let (filter, got) = build_quotient(tag_bits);
        assert_eq!(
            got, refused,
            "{name}: the keys refused, as the script printed"
        );
        let golden = compare(name, &filter.to_bytes());
        let view = splitbloom::QuotientFilterRef::from_bytes(&golden).unwrap();
        assert_eq!((view.len(), view.tag_bits()), (filter.len(), tag_bits));
        assert!(view.load() > 0.95, "{name} is nearly full");
        assert!(view.contains_bytes(b"quotient0") && view.contains_bytes(b"quotient40"));
    }
}
