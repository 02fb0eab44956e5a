//! Replays every committed fuzz corpus file (`fuzz/corpus/TARGET/*`) through the same check
//! the fuzz target runs, so `cargo test` covers the corpus on stable, without cargo-fuzz.

mod fuzz_checks;

use std::path::Path;

/// Runs `check` on every file of `fuzz/corpus/<target>`; fails if the folder is empty.
fn replay(target: &str, check: fn(&[u8])) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
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

#[test]
fn differential_corpus() {
    replay("differential", fuzz_checks::differential);
}

#[test]
fn hashing_corpus() {
    replay("hashing", fuzz_checks::hashing);
}
