//! The type × operation matrix: every filter type answers every operation of the shared
//! vocabulary, and its answers, hashes, counts and bytes are those of a plain [`Filter`] built
//! from the same keys (the reference). The crate docs (`src/lib.rs`) show the same matrix as a
//! table; an operation that does not apply to a type is listed there with the reason.

use std::panic::{AssertUnwindSafe, catch_unwind};

use splitbloom::{
    AtomicFilter, CountingFilter, Filter, FilterRef, Kernel, QuotientFilter, QuotientFilterRef,
    ScalableFilter, TagBits, WideFilter, WideFilterRef, WindowFilter,
};

/// The blocks of every fixed-size filter here.
const BLOCKS: usize = 64;

/// Keys inserted with `insert` (as `u64`) and with `insert_bytes` (as strings), and the probes:
/// the members followed by keys never inserted. The byte members and the probes are more than
/// one chunk of the byte-key batches (1024 keys, hashed a chunk at a time), and not a multiple
/// of it.
struct Keys {
    members: Vec<u64>,
    byte_members: Vec<String>,
    probes: Vec<u64>,
    byte_probes: Vec<String>,
}

fn keys() -> Keys {
    let members: Vec<u64> = (0..600u64).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let byte_members: Vec<String> = (0..1_300).map(|i| format!("member:{i}")).collect();
    let probes = members
        .iter()
        .copied()
        .chain(1_000_000..1_004_000)
        .collect();
    let byte_probes = byte_members
        .iter()
        .cloned()
        .chain((0..4_000).map(|i| format!("stranger:{i}")))
        .collect();
    Keys {
        members,
        byte_members,
        probes,
        byte_probes,
    }
}

/// The reference: a plain filter of `num_blocks` blocks holding the keys, built one key at a
/// time.
fn reference(num_blocks: usize, keys: &Keys) -> Filter {
    let mut filter = Filter::with_num_blocks(num_blocks).unwrap();
    for key in &keys.members {
        filter.insert(key);
    }
    for key in &keys.byte_members {
        filter.insert_bytes(key.as_bytes());
    }
    filter
}

/// Checks every read of the vocabulary on `$filter` against `$reference`, a [`Filter`] (or,
/// for the wide types, a [`WideFilter`]) with the same bits (or, for a scalable filter, the same answers): single, pre-hashed, byte-key,
/// batch and count forms, the one batch length check, and `with_kernel`.
macro_rules! check_reads {
    ($filter:expr, $reference:expr, $keys:expr) => {{
        let filter = &$filter;
        // A `Filter`, or a `WideFilter` for the wide types.
        let reference = &$reference;
        let keys: &Keys = &$keys;
        let hashes: Vec<u64> = keys
            .byte_probes
            .iter()
            .map(|key| reference.hash_bytes(key.as_bytes()))
            .collect();
        let expected: Vec<bool> = keys.probes.iter().map(|k| reference.contains(k)).collect();
        let expected_hashes: Vec<bool> =
            hashes.iter().map(|&h| reference.contains_hash(h)).collect();
        let expected_bytes: Vec<bool> = keys
            .byte_probes
            .iter()
            .map(|k| reference.contains_bytes(k.as_bytes()))
            .collect();
        // No false negatives, and the reference is not trivially full.
        assert!(expected[..keys.members.len()].iter().all(|&a| a));
        assert!(expected[keys.members.len()..].iter().any(|&a| !a));

        // Single reads.
        for (key, &answer) in keys.probes.iter().zip(&expected) {
            assert_eq!(filter.contains(key), answer, "contains({key})");
        }
        for (&hash, &answer) in hashes.iter().zip(&expected_hashes) {
            assert_eq!(
                filter.contains_hash(hash),
                answer,
                "contains_hash({hash:#x})"
            );
        }
        for (key, &answer) in keys.byte_probes.iter().zip(&expected_bytes) {
            assert_eq!(
                filter.hash_bytes(key.as_bytes()),
                reference.hash_bytes(key.as_bytes())
            );
            assert_eq!(
                filter.contains_bytes(key.as_bytes()),
                answer,
                "contains_bytes({key})"
            );
        }

        // Batches, and counts.
        let mut out = vec![false; keys.probes.len()];
        filter.contains_batch(&keys.probes, &mut out);
        assert_eq!(out, expected, "contains_batch");
        let mut out = vec![false; hashes.len()];
        filter.contains_hash_batch(&hashes, &mut out);
        assert_eq!(out, expected_hashes, "contains_hash_batch");
        let mut out = vec![false; keys.byte_probes.len()];
        filter.contains_bytes_batch(&keys.byte_probes, &mut out);
        assert_eq!(out, expected_bytes, "contains_bytes_batch");
        let count = |answers: &[bool]| answers.iter().filter(|&&a| a).count();
        assert_eq!(filter.count_contained(&keys.probes), count(&expected));
        assert_eq!(reference.count_contained(&keys.probes), count(&expected));
        assert_eq!(
            filter.count_contained_hashes(&hashes),
            count(&expected_hashes)
        );
        assert_eq!(
            filter.count_contained_bytes(&keys.byte_probes),
            count(&expected_bytes)
        );

        // One length check, one message, for every batch read.
        for (name, call) in [
            (
                "contains_batch",
                Box::new(|| filter.contains_batch(&keys.probes[..3], &mut [false; 2]))
                    as Box<dyn Fn()>,
            ),
            (
                "contains_hash_batch",
                Box::new(|| filter.contains_hash_batch(&hashes[..1], &mut [false; 2])),
            ),
            (
                "contains_bytes_batch",
                Box::new(|| filter.contains_bytes_batch(&keys.byte_probes[..2], &mut [false; 3])),
            ),
        ] {
            let message = catch_unwind(AssertUnwindSafe(call)).unwrap_err();
            let message = message
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default();
            assert!(
                message.contains("`out` must have one slot per input"),
                "{name}: {message}"
            );
        }

        // Every kernel answers alike.
        for kernel in Kernel::available() {
            let on_kernel = filter.clone().with_kernel(kernel).unwrap();
            assert_eq!(on_kernel.kernel(), kernel);
            let mut out = vec![false; keys.probes.len()];
            on_kernel.contains_batch(&keys.probes, &mut out);
            assert_eq!(out, expected, "contains_batch on {kernel}");
        }
        assert_eq!(filter.hasher(), reference.hasher());
        assert!(!format!("{filter:?}").is_empty());
    }};
}

/// The reads, statistics, shape and bytes a plain bitset type shares with the reference.
macro_rules! check_bitset {
    ($filter:expr, $reference:expr) => {{
        let filter = &$filter;
        let reference: &Filter = &$reference;
        assert_eq!(filter.num_blocks(), reference.num_blocks());
        assert_eq!(filter.size_in_bytes(), reference.size_in_bytes());
        assert_eq!(filter.fill_ratio(), reference.fill_ratio());
        assert_eq!(filter.estimated_fpr(), reference.estimated_fpr());
        assert_eq!(filter.estimated_items(), reference.estimated_items());
        assert_eq!(filter.to_bytes(), reference.to_bytes());
        let mut written = Vec::new();
        filter.write_to(&mut written).unwrap();
        assert_eq!(written, reference.to_bytes());
        assert_eq!(filter.clone(), *filter);
    }};
}

#[test]
fn filter_is_its_own_reference() {
    let keys = keys();
    let reference = reference(BLOCKS, &keys);
    let mut batched = Filter::with_num_blocks(BLOCKS).unwrap();
    batched.insert_batch(&keys.members);
    batched.insert_bytes_batch(&keys.byte_members);
    assert_eq!(batched, reference);
    let mut hashed = Filter::with_num_blocks(BLOCKS).unwrap();
    let hasher = *reference.hasher();
    let hashes: Vec<u64> = keys
        .members
        .iter()
        .map(|key| core::hash::BuildHasher::hash_one(&hasher, key))
        .chain(
            keys.byte_members
                .iter()
                .map(|k| reference.hash_bytes(k.as_bytes())),
        )
        .collect();
    hashed.insert_hash_batch(&hashes);
    assert_eq!(hashed, reference);
    let mut extended = Filter::with_num_blocks(BLOCKS).unwrap();
    extended.extend(&keys.members);
    extended.insert_bytes_batch(&keys.byte_members);
    assert_eq!(extended, reference);
    check_reads!(batched, reference, keys);
    check_bitset!(batched, reference);
}

#[test]
fn filter_ref_answers_like_the_filter() {
    let keys = keys();
    let reference = reference(BLOCKS, &keys);
    let bytes = reference.to_bytes();
    let view: FilterRef = FilterRef::from_bytes(&bytes).unwrap();
    check_reads!(view, reference, keys);
    check_bitset!(view, reference);
    assert_eq!(view.to_filter().unwrap(), reference);
}

/// The wide layout's owned filter and view share the vocabulary: `WideFilter` built every way
/// is its own reference, and `WideFilterRef` answers, sizes and serializes as it, for one and
/// two probes per key.
#[test]
fn wide_filter_ref_answers_like_the_wide_filter() {
    let keys = keys();
    for probes in [1, 2] {
        let mut reference = WideFilter::with_num_blocks(BLOCKS, probes).unwrap();
        for key in &keys.members {
            reference.insert(key);
        }
        for key in &keys.byte_members {
            reference.insert_bytes(key.as_bytes());
        }
        let mut batched = WideFilter::with_num_blocks(BLOCKS, probes).unwrap();
        batched.extend(&keys.members);
        batched.insert_bytes_batch(&keys.byte_members);
        assert_eq!(batched, reference);
        check_reads!(batched, reference, keys);
        let bytes = reference.to_bytes();
        let view: WideFilterRef = WideFilterRef::from_bytes(&bytes).unwrap();
        check_reads!(view, reference, keys);
        assert_eq!(view.num_blocks(), reference.num_blocks());
        assert_eq!(view.size_in_bytes(), reference.size_in_bytes());
        assert_eq!(view.probes(), reference.probes());
        assert_eq!(view.to_bytes(), bytes);
        let mut written = Vec::new();
        view.write_to(&mut written).unwrap();
        assert_eq!(written, bytes);
        assert_eq!(view.clone(), view);
        assert_eq!(view.to_filter().unwrap(), reference);
        // No type annotation needed on the default hasher.
        assert_eq!(WideFilter::from_bytes(&bytes).unwrap(), reference);
        assert_eq!(WideFilterRef::from_trusted_bytes(&bytes).unwrap(), view);
    }
}

/// The quotient filter and its view share the vocabulary: built one key at a time, it is its
/// own reference for the batches, the byte-key forms and the view, for both tag widths.
#[test]
fn quotient_filter_ref_answers_like_the_quotient_filter() {
    let keys = keys();
    for tag_bits in TagBits::ALL {
        // Twice the blocks: 1,900 keys fill 53% of 128 blocks of 28 slots.
        let mut reference = QuotientFilter::with_num_blocks(2 * BLOCKS, tag_bits).unwrap();
        for key in &keys.members {
            reference.insert(key).unwrap();
        }
        for key in &keys.byte_members {
            reference.insert_bytes(key.as_bytes()).unwrap();
        }
        let mut batched = QuotientFilter::with_num_blocks(2 * BLOCKS, tag_bits).unwrap();
        batched.insert_batch(&keys.members).unwrap();
        batched.insert_bytes_batch(&keys.byte_members).unwrap();
        assert_eq!(batched, reference);
        check_reads!(batched, reference, keys);
        let bytes = reference.to_bytes();
        let view = QuotientFilterRef::from_bytes(&bytes).unwrap();
        check_reads!(view, reference, keys);
        assert_eq!(view.num_blocks(), reference.num_blocks());
        assert_eq!(view.size_in_bytes(), reference.size_in_bytes());
        assert_eq!((view.len(), view.tag_bits()), (reference.len(), tag_bits));
        assert_eq!(view.estimated_fpr(), reference.estimated_fpr());
        assert_eq!(view.to_bytes(), bytes);
        let mut written = Vec::new();
        view.write_to(&mut written).unwrap();
        assert_eq!(written, bytes);
        assert_eq!(view.clone(), view);
        assert_eq!(view.to_filter().unwrap(), reference);
        assert_eq!(QuotientFilter::from_bytes(&bytes).unwrap(), reference);
    }
}

#[test]
fn atomic_filter_answers_and_writes_like_the_filter() {
    let keys = keys();
    let reference = reference(BLOCKS, &keys);
    let filter = AtomicFilter::with_num_blocks(BLOCKS).unwrap();
    for key in &keys.members {
        filter.insert(key);
    }
    for key in &keys.byte_members {
        filter.insert_bytes(key.as_bytes());
    }
    let batched = AtomicFilter::with_num_blocks(BLOCKS).unwrap();
    batched.insert_batch(&keys.members);
    batched.insert_bytes_batch(&keys.byte_members);
    assert_eq!(batched, filter);
    let mut extended = AtomicFilter::with_num_blocks(BLOCKS).unwrap();
    extended.extend(&keys.members);
    extended.insert_bytes_batch(&keys.byte_members);
    assert_eq!(extended, filter);
    check_reads!(filter, reference, keys);
    check_bitset!(filter, reference);
    assert_eq!(filter.snapshot(), reference);
    assert_eq!(filter.into_filter(), reference);
}

#[test]
fn counting_filter_answers_and_writes_like_the_filter() {
    let keys = keys();
    let reference = reference(BLOCKS, &keys);
    let mut filter = CountingFilter::with_num_blocks(BLOCKS).unwrap();
    for key in &keys.members {
        filter.insert(key);
    }
    for key in &keys.byte_members {
        filter.insert_bytes(key.as_bytes());
    }
    let mut batched = CountingFilter::with_num_blocks(BLOCKS).unwrap();
    batched.insert_batch(&keys.members);
    batched.insert_bytes_batch(&keys.byte_members);
    assert_eq!(batched, filter);
    let mut extended = CountingFilter::with_num_blocks(BLOCKS).unwrap();
    extended.extend(&keys.members);
    extended.insert_bytes_batch(&keys.byte_members);
    assert_eq!(extended, filter);
    check_reads!(filter, reference, keys);
    assert_eq!(filter.to_filter(), reference);
    assert_eq!(filter.num_blocks(), reference.num_blocks());
    assert_eq!(filter.size_in_bytes(), 4 * reference.size_in_bytes());
    assert_eq!(filter.clone(), filter);

    // Removing every key in a batch leaves the empty filter.
    assert_eq!(
        batched.remove_batch(&keys.members),
        keys.members.len(),
        "every inserted key is found"
    );
    let hashes: Vec<u64> = keys
        .byte_members
        .iter()
        .map(|key| batched.hash_bytes(key.as_bytes()))
        .collect();
    assert_eq!(batched.remove_hash_batch(&hashes), hashes.len());
    assert_eq!(batched, CountingFilter::with_num_blocks(BLOCKS).unwrap());
}

#[test]
fn scalable_filter_answers_like_its_stages() {
    let keys = keys();
    // Large enough for one stage: the reference is then a plain filter of that stage's size.
    let mut filter = ScalableFilter::with_fpr(10_000, 0.01).unwrap();
    for key in &keys.members {
        filter.insert(key).unwrap();
    }
    for key in &keys.byte_members {
        filter.insert_bytes(key.as_bytes()).unwrap();
    }
    assert_eq!(filter.stages().len(), 1);
    let reference = reference(filter.stages()[0].num_blocks(), &keys);
    assert_eq!(filter.stages()[0], reference);
    check_reads!(filter, reference, keys);

    let mut batched = ScalableFilter::with_fpr(10_000, 0.01).unwrap();
    batched.insert_batch(&keys.members).unwrap();
    batched.insert_bytes_batch(&keys.byte_members).unwrap();
    assert_eq!(batched, filter);
    assert_eq!(filter.clone(), filter);
    assert_eq!(ScalableFilter::from_bytes(&filter.to_bytes()), Ok(filter));
}

#[test]
fn a_grown_scalable_filter_answers_as_any_of_its_stages() {
    let keys = keys();
    let mut filter: ScalableFilter = ScalableFilter::with_fpr(50, 0.01).unwrap();
    filter.extend(&keys.members);
    assert!(filter.stages().len() > 2);
    let mut out = vec![false; keys.probes.len()];
    filter.contains_batch(&keys.probes, &mut out);
    for (key, &answer) in keys.probes.iter().zip(&out) {
        let any = filter.stages().iter().any(|stage| stage.contains(key));
        assert_eq!(answer, any, "{key}");
        assert_eq!(filter.contains(key), any, "{key}");
    }
    assert_eq!(
        filter.count_contained(&keys.probes),
        out.iter().filter(|&&a| a).count()
    );
    let collected: ScalableFilter = keys.members.iter().collect();
    assert!(keys.members.iter().all(|key| collected.contains(key)));
}

/// A window built every way (one key at a time, batches, pre-hashed, `extend`) across a
/// rotation holds the same bits; its reads answer as the one built key at a time does, and so
/// do its atomic form and the atomic form's writer.
#[test]
fn window_filter_answers_and_writes_alike_every_way_and_atomically() {
    let keys = keys();
    let build = || WindowFilter::with_fpr(2_000, 0.01, 3).unwrap();
    let mut reference = build();
    for key in &keys.members {
        reference.insert(key);
    }
    reference.rotate();
    for key in &keys.byte_members {
        reference.insert_bytes(key.as_bytes());
    }
    let hasher = *reference.hasher();
    let member_hashes: Vec<u64> = keys
        .members
        .iter()
        .map(|key| core::hash::BuildHasher::hash_one(&hasher, key))
        .collect();
    let byte_hashes: Vec<u64> = keys
        .byte_members
        .iter()
        .map(|key| reference.hash_bytes(key.as_bytes()))
        .collect();
    let mut batched = build();
    batched.insert_batch(&keys.members);
    batched.rotate();
    batched.insert_bytes_batch(&keys.byte_members);
    let mut hashed = build();
    hashed.insert_hash_batch(&member_hashes);
    hashed.rotate();
    hashed.insert_hash_batch(&byte_hashes);
    let mut extended = build();
    extended.extend(&keys.members);
    extended.rotate();
    extended.insert_bytes_batch(&keys.byte_members);
    for (name, window) in [
        ("batched", &batched),
        ("hashed", &hashed),
        ("extended", &extended),
    ] {
        assert_eq!(window.to_bytes(), reference.to_bytes(), "{name}");
    }
    check_reads!(batched, reference, keys);
    assert_eq!(batched.fill_ratio(), reference.fill_ratio());
    assert_eq!(batched.estimated_fpr(), reference.estimated_fpr());
    let mut written = Vec::new();
    batched.write_to(&mut written).unwrap();
    assert_eq!(written.len(), batched.serialized_len());
    assert_eq!(
        WindowFilter::from_bytes(&written).unwrap().to_bytes(),
        written
    );

    // The atomic form, written through its writer the same ways, reads as the window does.
    let atomic = build().into_atomic();
    {
        let mut writer = atomic.writer().unwrap();
        for (index, key) in keys.members.iter().enumerate() {
            match index % 3 {
                0 => writer.insert(key),
                1 => writer.insert_hash(member_hashes[index]),
                _ => {
                    writer.insert_batch(std::slice::from_ref(key));
                    true
                }
            };
        }
        writer.rotate();
        writer.insert_bytes_batch(&keys.byte_members[..100]);
        writer.insert_hash_batch(&byte_hashes[100..200]);
        writer.extend(keys.byte_members[200..].iter().map(String::as_str));
    }
    let mut answers = vec![false; keys.probes.len()];
    atomic.contains_batch(&keys.probes, &mut answers);
    let expected: Vec<bool> = keys
        .probes
        .iter()
        .map(|key| reference.contains(key))
        .collect();
    assert_eq!(answers, expected);
    let bytes: Vec<bool> = keys
        .byte_probes
        .iter()
        .map(|key| atomic.contains_bytes(key.as_bytes()))
        .collect();
    let expected_bytes: Vec<bool> = keys
        .byte_probes
        .iter()
        .map(|key| reference.contains_bytes(key.as_bytes()))
        .collect();
    assert_eq!(bytes, expected_bytes);
    assert_eq!(atomic.into_window().to_bytes(), reference.to_bytes());
}

/// The sized constructors give every type the block count of [`Filter`]'s.
#[test]
fn constructors_size_every_type_alike() {
    for (items, fpr, bits) in [
        (1usize, 0.5, 1.0),
        (1_000, 0.01, 10.0),
        (123_456, 1e-4, 17.5),
    ] {
        let by_fpr = Filter::with_fpr(items, fpr).unwrap().num_blocks();
        let by_bits = Filter::with_bits_per_key(items, bits).unwrap().num_blocks();
        assert_eq!(
            AtomicFilter::with_fpr(items, fpr).unwrap().num_blocks(),
            by_fpr
        );
        assert_eq!(
            CountingFilter::with_fpr(items, fpr).unwrap().num_blocks(),
            by_fpr
        );
        assert_eq!(
            AtomicFilter::with_bits_per_key(items, bits)
                .unwrap()
                .num_blocks(),
            by_bits
        );
        assert_eq!(
            CountingFilter::with_bits_per_key(items, bits)
                .unwrap()
                .num_blocks(),
            by_bits
        );
    }
    let collected: Filter = (0..10_000u64).collect();
    assert_eq!(
        collected.num_blocks(),
        Filter::with_fpr(10_000, 0.01).unwrap().num_blocks()
    );
    let empty: Filter = std::iter::empty::<u64>().collect();
    assert_eq!(empty.num_blocks(), 1);
}

/// `from_bytes` needs no type annotation for the default hasher on every type that reads the
/// format (this test does not compile where it would: E0283), and another hasher is named
/// through the type with `from_bytes_with_hasher_type`.
#[test]
fn from_bytes_needs_no_type_annotation() {
    let keys = keys();
    let reference = reference(BLOCKS, &keys);
    let bytes = reference.to_bytes();
    // Each binding is used through a method before anything else fixes its type: without an
    // inherent `from_bytes` on the default type, each line is E0282/E0283.
    let filter = Filter::from_bytes(&bytes).unwrap();
    assert_eq!(filter.num_blocks(), BLOCKS);
    let view = FilterRef::from_bytes(&bytes).unwrap();
    assert_eq!(view.num_blocks(), BLOCKS);
    let trusted = FilterRef::from_trusted_bytes(&bytes).unwrap();
    assert_eq!(trusted.num_blocks(), BLOCKS);
    let atomic = AtomicFilter::from_bytes(&bytes).unwrap();
    assert_eq!(atomic.num_blocks(), BLOCKS);
    assert_eq!(filter, reference);
    assert_eq!(view.to_filter(), Ok(reference.clone()));
    assert_eq!(trusted.to_filter(), Ok(reference.clone()));
    assert_eq!(atomic.into_filter(), reference);
    let bytes = ScalableFilter::with_fpr(100, 0.01).unwrap().to_bytes();
    let scalable = ScalableFilter::from_bytes(&bytes).unwrap();
    assert_eq!(scalable.to_bytes(), bytes);
    let bytes = WindowFilter::with_fpr(100, 0.01, 2).unwrap().to_bytes();
    let window = WindowFilter::from_bytes(&bytes).unwrap();
    assert_eq!(window.to_bytes(), bytes);

    use splitbloom::parquet::ParquetHash;
    let parquet = Filter::with_num_blocks_and_hasher(4, ParquetHash::default()).unwrap();
    let bytes = parquet.to_bytes();
    assert_eq!(
        Filter::<ParquetHash>::from_bytes_with_hasher_type(&bytes),
        Ok(parquet.clone())
    );
    assert!(
        Filter::from_bytes(&bytes).is_err(),
        "the default hasher refuses it"
    );
    assert_eq!(
        FilterRef::<ParquetHash>::from_bytes_with_hasher_type(&bytes)
            .unwrap()
            .to_filter(),
        Ok(parquet.clone())
    );
    assert_eq!(
        AtomicFilter::<ParquetHash>::from_bytes_with_hasher_type(&bytes)
            .unwrap()
            .into_filter(),
        parquet
    );
}

/// `insert` answers as `HashSet::insert` does, on every type, every kernel and every insert
/// form: `true` for a key the filter did not hold, `false` for a repeat. The keys are far
/// fewer than the filter holds, so none of them is a false positive of the others (checked:
/// each is absent before its first insert).
#[test]
fn insert_is_true_for_a_new_key_and_false_for_a_repeat_on_every_type_and_every_kernel() {
    let keys: Vec<u64> = (0..200u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let words: Vec<String> = (0..200).map(|i| format!("word:{i}")).collect();
    let hashes: Vec<u64> = keys
        .iter()
        .map(|key| key.rotate_left(17) ^ 0x5555)
        .collect();
    for kernel in Kernel::available() {
        let mut filter = Filter::with_num_blocks(4096)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        let atomic = AtomicFilter::with_num_blocks(4096)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        let mut counting = CountingFilter::with_num_blocks(4096)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        let mut scalable = ScalableFilter::with_fpr(10_000, 0.001)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        let mut window = WindowFilter::with_fpr(10_000, 0.001, 2)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        let atomic_window = WindowFilter::with_fpr(10_000, 0.001, 2)
            .unwrap()
            .with_kernel(kernel)
            .unwrap()
            .into_atomic();
        let mut writer = atomic_window.writer().unwrap();
        for ((key, word), &hash) in keys.iter().zip(&words).zip(&hashes) {
            assert!(!filter.contains(key) && !filter.contains_bytes(word.as_bytes()));
            assert!(
                !filter.contains_hash(hash),
                "{kernel}: keys must be absent first"
            );
            let answers = [
                filter.insert(key),
                atomic.insert(key),
                counting.insert(key),
                scalable.insert(key).unwrap(),
                filter.insert_bytes(word.as_bytes()),
                atomic.insert_bytes(word.as_bytes()),
                counting.insert_bytes(word.as_bytes()),
                scalable.insert_bytes(word.as_bytes()).unwrap(),
                filter.insert_hash(hash),
                atomic.insert_hash(hash),
                counting.insert_hash(hash),
                scalable.insert_hash(hash).unwrap(),
                window.insert(key),
                window.insert_bytes(word.as_bytes()),
                window.insert_hash(hash),
                writer.insert(key),
                writer.insert_bytes(word.as_bytes()),
                writer.insert_hash(hash),
            ];
            assert_eq!(answers, [true; 18], "{kernel}: a new key");
            let repeats = [
                filter.insert(key),
                atomic.insert(key),
                counting.insert(key),
                scalable.insert(key).unwrap(),
                filter.insert_bytes(word.as_bytes()),
                atomic.insert_bytes(word.as_bytes()),
                counting.insert_bytes(word.as_bytes()),
                scalable.insert_bytes(word.as_bytes()).unwrap(),
                filter.insert_hash(hash),
                atomic.insert_hash(hash),
                counting.insert_hash(hash),
                scalable.insert_hash(hash).unwrap(),
                window.insert(key),
                window.insert_bytes(word.as_bytes()),
                window.insert_hash(hash),
                writer.insert(key),
                writer.insert_bytes(word.as_bytes()),
                writer.insert_hash(hash),
            ];
            assert_eq!(repeats, [false; 18], "{kernel}: a repeated key");
        }
        // Counting: a key stays "not new" while any occurrence is left, and is new once all
        // its occurrences are removed.
        assert!(counting.remove(&keys[0]) && counting.remove(&keys[0]));
        assert!(
            counting.insert(&keys[0]),
            "{kernel}: new again after removal"
        );
    }
}

/// The dedup loop of `HashSet`, written the std way, keeps exactly the first occurrence of
/// each key with every filter type.
#[test]
fn a_std_dedup_loop_keeps_first_occurrences() {
    let stream: Vec<u64> = (0..3_000u64).map(|i| (i * 7919) % 1_000).collect();
    let mut expected = Vec::new();
    let mut set = std::collections::HashSet::new();
    for &key in &stream {
        if set.insert(key) {
            expected.push(key);
        }
    }
    let mut filter = Filter::with_fpr(100_000, 0.0001).unwrap();
    let atomic = AtomicFilter::with_fpr(100_000, 0.0001).unwrap();
    let mut counting = CountingFilter::with_fpr(100_000, 0.0001).unwrap();
    let mut scalable = ScalableFilter::with_fpr(100, 0.0001).unwrap();
    let mut window = WindowFilter::with_fpr(100_000, 0.0001, 2).unwrap();
    let (mut a, mut b, mut c, mut d, mut e) = (vec![], vec![], vec![], vec![], vec![]);
    for &key in &stream {
        if filter.insert(&key) {
            a.push(key);
        }
        if atomic.insert(&key) {
            b.push(key);
        }
        if counting.insert(&key) {
            c.push(key);
        }
        if scalable.insert(&key).unwrap() {
            d.push(key);
        }
        if window.insert(&key) {
            e.push(key);
        }
    }
    for (name, kept) in [
        ("Filter", a),
        ("AtomicFilter", b),
        ("CountingFilter", c),
        ("ScalableFilter", d),
        ("WindowFilter", e),
    ] {
        assert_eq!(kept, expected, "{name}");
    }
}
