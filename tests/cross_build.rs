//! Cross-build proof: the same keys give the same filter bytes in every build, and every build
//! reads every other build's file with the default hasher type and answers identically.
//!
//! * Always: the filter built from the fixed keys equals the pinned fixture
//!   `tests/fixtures/cross_build.sblm` (default hasher, id 4) byte for byte, and answers the
//!   pinned known answers.
//! * When `SPLITBLOOM_CROSS_DIR` is set (CI: scripts/cross-build-matrix.sh and the test scripts
//!   set it for every configuration they build): writes the filter to
//!   `$SPLITBLOOM_CROSS_DIR/$SPLITBLOOM_CROSS_CONFIG.sblm`, then opens every `.sblm` file
//!   there (those of the configurations that ran before) with `FilterRef<Xxh3>` and
//!   checks identical bytes and answers. Running every configuration twice therefore checks
//!   every configuration against every other.

use std::path::PathBuf;

use splitbloom::{Filter, FilterHasher, FilterRef, HasherKind, Xxh3};

/// The fixed key set: strings of every length 0..=64 and a few long ones, as bytes, and u64s.
fn string_keys() -> Vec<Vec<u8>> {
    let lengths = (0..=64).chain([100, 255, 256, 1000]);
    lengths
        .flat_map(|len| {
            (0..4u8).map(move |variant| {
                (0..len)
                    .map(|i| b'a' + ((i * 7 + usize::from(variant) * 3 + len) % 26) as u8)
                    .collect()
            })
        })
        .collect()
}

/// The u64 keys (inserted through `insert(&u64)`, the stable integer contract).
fn integer_keys() -> Vec<u64> {
    (0..500u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 3))
        .chain([0, 1, u64::MAX])
        .collect()
}

/// The filter every configuration builds: 16 blocks (about 5 bits per key, so strangers give
/// false positives whose answers must agree too), default hasher, default seed.
fn build() -> Filter {
    build_with(Xxh3::default())
}

/// The filter of [`build`] with another hasher.
fn build_with<S: FilterHasher>(hasher: S) -> Filter<S> {
    let mut filter = Filter::with_num_blocks_and_hasher(16, hasher).unwrap();
    filter.insert_bytes_batch(&string_keys());
    for key in integer_keys() {
        filter.insert(&key);
    }
    filter
}

/// Answers for members and strangers, in a fixed order, through a `FilterRef` on `bytes`.
fn answers(bytes: &[u8]) -> Vec<bool> {
    answers_as::<Xxh3>(bytes)
}

/// [`answers`], reading `bytes` with hasher type `S`.
fn answers_as<S: FilterHasher>(bytes: &[u8]) -> Vec<bool> {
    let view =
        FilterRef::<S>::from_bytes_with_hasher_type(bytes).expect("a cross-build file opens");
    let mut out = Vec::new();
    for key in string_keys() {
        out.push(view.contains_bytes(&key));
        let mut stranger = key.clone();
        stranger.push(b'!');
        out.push(view.contains_bytes(&stranger));
    }
    for key in integer_keys() {
        out.push(view.contains(&key));
        out.push(view.contains(&(key ^ 0x5555)));
    }
    out
}

/// Members at even positions of [`answers`] must all be present.
fn check_members(answers: &[bool]) {
    assert!(
        answers.iter().step_by(2).all(|&present| present),
        "a member is missing"
    );
}

/// The pinned fixture (written by `SPLITBLOOM_WRITE_FIXTURE=1 cargo test --test cross_build`).
const FIXTURE: &[u8] = include_bytes!("fixtures/cross_build.sblm");
/// How many strangers the fixture reports present (false positives), pinned with it.
const FIXTURE_FALSE_POSITIVES: usize = 124;

/// The number of strangers (odd positions of [`answers`]) reported present.
fn false_positives(answers: &[bool]) -> usize {
    answers
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|&&found| found)
        .count()
}

#[test]
fn the_fixture_is_rebuilt_byte_for_byte() {
    let bytes = build().to_bytes();
    if std::env::var_os("SPLITBLOOM_WRITE_FIXTURE").is_some() {
        std::fs::write("tests/fixtures/cross_build.sblm", &bytes).unwrap();
    }
    let got = answers(&bytes);
    check_members(&got);
    let false_positives = false_positives(&got);
    assert_eq!(
        splitbloom::format::Header::parse(&bytes).unwrap().hasher,
        HasherKind::Xxh3
    );
    println!(
        "fixture: {} bytes, {false_positives} false positives",
        bytes.len()
    );
    assert!(
        bytes == FIXTURE,
        "this build writes other bytes than the pinned fixture"
    );
    assert_eq!(answers(FIXTURE), got);
    assert_eq!(false_positives, FIXTURE_FALSE_POSITIVES);
}

#[test]
fn every_configuration_reads_every_other() {
    let Some(dir) = std::env::var_os("SPLITBLOOM_CROSS_DIR").map(PathBuf::from) else {
        println!("SPLITBLOOM_CROSS_DIR not set: the cross-build matrix is not run");
        return;
    };
    let config = std::env::var("SPLITBLOOM_CROSS_CONFIG").unwrap_or_else(|_| "unnamed".into());
    std::fs::create_dir_all(&dir).unwrap();
    let own = build().to_bytes();
    let own_answers = answers(&own);
    check_members(&own_answers);
    std::fs::write(dir.join(format!("{config}.sblm")), &own).unwrap();
    let mut others: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sblm"))
        .collect();
    others.sort();
    for path in others {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy();
        let same_bytes = bytes == own;
        let same_answers = answers(&bytes) == own_answers;
        println!(
            "cross-build: {config} reads {name}: bytes {}, answers {}",
            if same_bytes { "identical" } else { "DIFFER" },
            if same_answers { "identical" } else { "DIFFER" }
        );
        assert!(same_bytes && same_answers, "{config} vs {name}");
    }
}
