//! Replays every committed fuzz corpus file (`fuzz/corpus/TARGET/*`) through the same check
//! the fuzz target runs, so the corpus is covered on stable, without cargo-fuzz
//! (`cargo test --manifest-path fuzz/checks/Cargo.toml`, which .ci/run runs).

use splitbloom_fuzz_checks as fuzz_checks;

use std::path::Path;

/// Runs `check` on every file of `fuzz/corpus/<target>`; fails if the folder is empty.
fn replay(target: &str, check: fn(&[u8])) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(target);
    let entries =
        std::fs::read_dir(&folder).unwrap_or_else(|error| panic!("{}: {error}", folder.display()));
    let mut count = 0;
    for entry in entries {
        let path = entry.expect("readable corpus folder").path();
        let data =
            std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        check(&data);
        count += 1;
    }
    assert!(count > 0, "no corpus files in {}", folder.display());
    println!("{target}: replayed {count} corpus files");
}

/// The replay exists to catch panics, and arithmetic overflow is one only with overflow checks
/// on: the test profile has them (it inherits them from `dev`; `opt-level = 3` does not turn
/// them off). This fails if a profile change, or `cargo test --release`, silently drops them.
#[test]
fn overflow_checks_are_on() {
    let overflowed =
        std::panic::catch_unwind(|| std::hint::black_box(u8::MAX) + std::hint::black_box(1u8));
    assert!(
        overflowed.is_err(),
        "the corpus replay must run with overflow checks on"
    );
}

#[test]
fn differential_corpus() {
    replay("differential", fuzz_checks::differential);
}

#[test]
fn hashing_corpus() {
    replay("hashing", fuzz_checks::hashing);
}

#[test]
fn from_bytes_corpus() {
    replay("from_bytes", fuzz_checks::from_bytes);
    // The seeds include valid filters of every hasher, so the success path is replayed too.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/from_bytes");
    let readable = std::fs::read_dir(folder)
        .expect("corpus folder")
        .filter(|entry| {
            let bytes = std::fs::read(entry.as_ref().expect("entry").path()).expect("corpus file");
            splitbloom::format::Header::parse(&bytes).is_ok()
                && splitbloom::Filter::<splitbloom::Xxh3>::from_bytes_with_hasher_type(&bytes)
                    .is_ok()
        })
        .count();
    assert!(
        readable > 0,
        "no valid XXH3 filter among the from_bytes seeds"
    );
    // And valid ScalableFilter files, so the scalable reader's success path is replayed.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/from_bytes");
    let scalable = std::fs::read_dir(folder)
        .expect("corpus folder")
        .filter(|entry| {
            let bytes = std::fs::read(entry.as_ref().expect("entry").path()).expect("corpus file");
            splitbloom::ScalableFilter::<splitbloom::Xxh3>::from_bytes_with_hasher_type(&bytes)
                .is_ok()
        })
        .count();
    assert!(
        scalable > 0,
        "no valid XXH3 ScalableFilter among the from_bytes seeds"
    );
}

#[test]
fn roundtrip_corpus() {
    replay("roundtrip", fuzz_checks::roundtrip);
}

#[test]
fn counting_corpus() {
    replay("counting", fuzz_checks::counting);
}

#[test]
fn window_corpus() {
    replay("window", fuzz_checks::window);
    // The seeds include valid windows of both plane sizes, so the reader's success path is
    // replayed too.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/window");
    let planes: Vec<usize> = std::fs::read_dir(folder)
        .expect("corpus folder")
        .filter_map(|entry| {
            let bytes = std::fs::read(entry.expect("entry").path()).expect("corpus file");
            splitbloom::WindowFilter::from_bytes(&bytes)
                .ok()
                .map(|window| window.plane_bits())
        })
        .collect();
    assert!(
        planes.contains(&128) && planes.contains(&256),
        "no valid window of each plane size among the window seeds: {planes:?}"
    );
}

#[test]
fn wide_corpus() {
    replay("wide", fuzz_checks::wide);
    // The seeds include valid wide filters of both probe counts, so the success path is
    // replayed too.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/wide");
    let probes: Vec<u8> = std::fs::read_dir(folder)
        .expect("corpus folder")
        .filter_map(|entry| {
            let bytes = std::fs::read(entry.expect("entry").path()).expect("corpus file");
            splitbloom::WideFilter::from_bytes(&bytes)
                .ok()
                .map(|filter| filter.probes())
        })
        .collect();
    assert!(
        probes.contains(&1) && probes.contains(&2),
        "no valid wide filter of each probe count among the wide seeds: {probes:?}"
    );
}

#[test]
fn quotient_corpus() {
    replay("quotient", fuzz_checks::quotient);
    // The seeds include valid quotient filters of both tag widths, so the success path of the
    // readers is replayed too.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/quotient");
    let readable = std::fs::read_dir(folder)
        .expect("corpus folder")
        .filter(|entry| {
            let bytes = std::fs::read(entry.as_ref().expect("entry").path()).expect("corpus file");
            splitbloom::QuotientFilterRef::from_bytes(&bytes).is_ok()
        })
        .count();
    assert!(
        readable >= 2,
        "no valid quotient filters among the quotient seeds"
    );
}
