//! The CLI and the hashing contract: CLI keys are the byte-key contract; new files are id 4; the
//! three hashers (`xxh3` id 4, `gxhash` id 6, `parquet` id 3) build and read, gxhash only where
//! it can run and a clear error naming the build flags elsewhere; a reserved id is an error; and
//! the library answers for CLI-built filters with the same rule.

use splitbloom::{Filter, FilterHasher, FilterRef};

use crate::support::{
    GxHash, ParquetHash, Xxh3, cli_hash, joined, path, run, sample_keys, scratch, succeeded,
    with_hasher_id,
};

#[test]
fn gxhash_files_answer_in_the_cli_where_gxhash_runs() {
    let path = scratch("hashing_gxhash").join("gx.sbf");
    // Where gxhash cannot run, the bytes of a gxhash filter cannot be built here either: build
    // an XXH3 one and relabel it (the check fails before any key is hashed).
    let bytes = match GxHash::try_with_seed(0) {
        Ok(hasher) => {
            let mut filter = Filter::with_num_blocks_and_hasher(64, hasher).unwrap();
            filter.insert_bytes(b"alice");
            filter.to_bytes()
        }
        Err(_) => with_hasher_id(
            &Filter::with_num_blocks(64).unwrap().to_bytes(),
            GxHash::KIND.id(),
        ),
    };
    std::fs::write(&path, bytes).unwrap();
    let output = run(&["query", path.to_str().unwrap(), "alice", "bob"], b"");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if GxHash::KIND.is_available() {
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert_eq!(stdout.lines().collect::<Vec<_>>(), ["alice"]);
    } else {
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr.contains("target-feature=+aes"), "{stderr}");
    }
}

/// A file whose hasher id is not one of the three (ids 1, 2 and 5 are reserved) is one clear
/// error in every subcommand that reads filters, never an answer.
#[test]
fn reserved_hasher_ids_are_an_error() {
    let mut filter = Filter::with_fpr(100, 0.01).unwrap();
    filter.insert_bytes(b"alice");
    let xxh3 = filter.to_bytes();
    let dir = scratch("hashing_reserved");
    for id in [1u8, 2, 5] {
        let path = dir.join(format!("reserved-{id}.sbf"));
        let file = path.to_str().unwrap().to_owned();
        std::fs::write(&path, with_hasher_id(&xxh3, id)).unwrap();
        let merged = dir.join(format!("reserved-{id}-merged.sbf"));
        let commands: [Vec<&str>; 3] = [
            vec!["query", file.as_str(), "alice"],
            vec!["info", file.as_str()],
            vec![
                "merge",
                file.as_str(),
                file.as_str(),
                "-o",
                merged.to_str().unwrap(),
            ],
        ];
        for args in commands {
            let output = run(&args, b"");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(output.stdout.is_empty(), "{args:?}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(stderr.contains("hasher"), "{args:?}: {stderr}");
            assert!(!merged.exists());
        }
    }
}

#[test]
fn cli_keys_are_the_byte_contract() {
    let path = scratch("hashing_byte_contract").join("xxh3.sbf");
    let mut filter = Filter::with_fpr(100, 0.01).unwrap();
    filter.insert_bytes(b"carol");
    std::fs::write(&path, filter.to_bytes()).unwrap();
    let output = succeeded(run(&["query", path.to_str().unwrap(), "carol"], b""));
    assert_eq!(String::from_utf8_lossy(&output).trim(), "carol");
}

/// The CLI builds id 4 (`xxh3`) by default, names each hasher in `info` as `--hasher` spells it,
/// answers for library-built filters of the hashers every build computes, and refuses the
/// names of hashers it does not offer.
#[test]
fn the_cli_builds_id_4_and_reads_its_hashers() {
    let dir = scratch("hashing_id_4");
    let write = |name: &str, filter: Vec<u8>| {
        let path = dir.join(name);
        std::fs::write(&path, filter).unwrap();
        path
    };
    fn alice<S: FilterHasher>(hasher: S) -> Vec<u8> {
        let mut filter = Filter::with_fpr_and_hasher(100, 0.001, hasher).unwrap();
        filter.insert_bytes(b"alice");
        filter.to_bytes()
    }
    let text =
        |args: &[&str], stdin: &[u8]| String::from_utf8(succeeded(run(args, stdin))).unwrap();
    let built = dir.join("built.sbf");
    let built_name = built.to_str().unwrap();
    text(
        &["build", "-n", "100", "-p", "0.01", "-o", built_name],
        b"alice\n",
    );
    let bytes = std::fs::read(&built).unwrap();
    assert_eq!(bytes[6], 4, "the default is id 4");
    assert_eq!(Xxh3::KIND.id(), 4);
    assert!(
        FilterRef::<Xxh3>::from_bytes(&bytes)
            .unwrap()
            .contains("alice")
    );
    for retired in ["default", "xxh3-plain", "gxhash-hybrid", "gxhash-plain"] {
        let output = run(
            &[
                "build", "-n", "100", "-p", "0.01", "--hasher", retired, "-o", built_name,
            ],
            b"alice\n",
        );
        assert_eq!(output.status.code(), Some(2), "--hasher {retired}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("xxh3") && stderr.contains("gxhash") && stderr.contains("parquet"),
            "--hasher {retired}: {stderr}"
        );
    }
    let files = [
        (built.clone(), "xxh3"),
        (write("xxh3.sbf", alice(Xxh3::default())), "xxh3"),
        (
            write("parquet.sbf", alice(ParquetHash::default())),
            "parquet",
        ),
    ];
    for (path, name) in files {
        let file = path.to_str().unwrap();
        assert_eq!(text(&["query", file, "alice"], b""), "alice\n", "{name}");
        let info = text(&["info", "--json", file], b"");
        assert!(info.contains(&format!("\"hasher\":\"{name}\"")), "{info}");
    }
}

/// `build --hasher NAME` writes a file of hasher `S` (named NAME by `info`) that answers in the
/// CLI and through `FilterRef<S>` where gxhash runs; elsewhere the option is an error that says
/// which build flags give it, and that its files need such a build.
fn the_cli_builds_and_reads<S: FilterHasher + core::fmt::Debug>(name: &str) {
    let path = scratch(&format!("hashing_builds_{name}")).join(format!("{name}.sbf"));
    let file = path.to_str().unwrap();
    let output = run(
        &[
            "build", "-n", "100", "-p", "0.01", "--hasher", name, "-o", file,
        ],
        b"alice\n",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !S::KIND.is_available() {
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("target-feature=+aes") && stderr.contains(name),
            "{stderr}"
        );
        assert!(stderr.contains("read only by such builds"), "{stderr}");
        assert!(!path.exists());
        return;
    }
    assert!(output.status.success(), "{stderr}");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[6], S::KIND.id(), "hasher id of {name}");
    let view = FilterRef::<S>::from_bytes_with_hasher_type(&bytes).unwrap();
    assert!(view.contains_bytes(b"alice"));
    assert_eq!(
        view.hash_bytes(b"alice"),
        S::try_with_seed(0).unwrap().hash_bytes(b"alice")
    );
    let text = |args: &[&str]| String::from_utf8(succeeded(run(args, b""))).unwrap();
    assert_eq!(text(&["query", file, "alice", "bob"]), "alice\n");
    let info = text(&["info", "--json", file]);
    assert!(info.contains(&format!("\"hasher\":\"{name}\"")), "{info}");
}

#[test]
fn the_cli_builds_and_reads_gxhash() {
    the_cli_builds_and_reads::<GxHash>("gxhash");
}

/// The library answers for CLI-built filters with the documented hashing rule, for every
/// hasher, and the CLI answers for library-built filters.
#[test]
fn library_and_cli_agree_on_key_hashing() {
    let dir = scratch("agree");
    let keys = sample_keys();
    let stdin = joined(&keys, b'\n');
    for hasher in ["default", "xxh3", "parquet"] {
        let filter_path = path(&dir, &format!("{hasher}.sbf"));
        let mut args = vec!["build", "-n", "1000", "-p", "0.0001", "-o", &filter_path];
        if hasher != "default" {
            args.extend(["--hasher", hasher]);
        }
        succeeded(run(&args, &stdin));
        let bytes = std::fs::read(&filter_path).unwrap();
        let strangers = (0..1000).map(|i| format!("stranger-{i}").into_bytes());
        match hasher {
            "default" | "xxh3" => check_library_view::<Xxh3>(&bytes, &keys, strangers),
            _ => {
                check_library_view::<ParquetHash>(&bytes, &keys, strangers);
                // For Parquet the rule is Parquet's BYTE_ARRAY hash: contains_value(bytes).
                let filter = Filter::<ParquetHash>::from_bytes_with_hasher_type(&bytes).unwrap();
                assert!(keys.iter().all(|key| filter.contains_value(key.as_slice())));
                assert!(filter.num_blocks().is_power_of_two(), "Parquet sizing");
            }
        }
    }
    // The other direction: a library-built filter queried by the CLI.
    let mut filter = Filter::with_fpr_and_hasher(100, 0.0001, Xxh3::default()).unwrap();
    filter.insert_hash(cli_hash(filter.hasher(), b"from-library\xff"));
    let filter_path = path(&dir, "library.sbf");
    std::fs::write(&filter_path, filter.to_bytes()).unwrap();
    assert_eq!(
        succeeded(run(&["query", &filter_path], b"from-library\xff\nother\n")),
        b"from-library\xff\n"
    );
}

fn check_library_view<S: FilterHasher>(
    bytes: &[u8],
    keys: &[Vec<u8>],
    strangers: impl Iterator<Item = Vec<u8>>,
) {
    let view = FilterRef::<S>::from_bytes_with_hasher_type(bytes).unwrap();
    for key in keys {
        assert!(view.contains_hash(cli_hash(view.hasher(), key)), "{key:?}");
    }
    // A byte-string key hashes as its bytes with every hasher, so the library's
    // `contains(&[u8])` finds every key the CLI inserted.
    let slice_hits = keys
        .iter()
        .filter(|key| view.contains(key.as_slice()))
        .count();
    assert_eq!(slice_hits, keys.len());
    let false_positives = strangers
        .filter(|key| view.contains_hash(cli_hash(view.hasher(), key)))
        .count();
    assert!(false_positives < 10, "{false_positives}");
}
