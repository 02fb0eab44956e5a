//! The CLI and the hashing contract: CLI keys are the byte-key contract; new files are id 4; the
//! three hashers (`xxh3` id 4, `gxhash` id 6, `parquet` id 3) build and read, gxhash only where
//! it can run and a clear error naming the build flags elsewhere; a reserved id is an error.

use std::process::Command;

use splitbloom::{Filter, FilterHasher, FilterRef};

use crate::cli_support::{GxHash, ParquetHash, Xxh3, with_hasher_id};

/// A file path in the temporary directory, unique to this test process.
fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "splitbloom-cli-hashing-{}-{name}",
        std::process::id()
    ))
}

/// Writes `input` to `child`'s standard input and closes it. A child that stops reading early
/// (it failed, or exited) breaks the pipe; that is not this write's failure to report: the
/// caller's check of the child's exit status and stderr says why it stopped.
fn feed(child: &mut std::process::Child, input: &[u8]) {
    let mut stdin = child.stdin.take().expect("stdin is piped");
    match std::io::Write::write_all(&mut stdin, input) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {}
        result => result.unwrap(),
    }
}

#[test]
fn gxhash_files_answer_in_the_cli_where_gxhash_runs() {
    let path = temp_path("gx.sbf");
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
    let output = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["query", path.to_str().unwrap(), "alice", "bob"])
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
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
    for id in [1u8, 2, 5] {
        let path = temp_path(&format!("reserved-{id}.sbf"));
        let file = path.to_str().unwrap().to_owned();
        std::fs::write(&path, with_hasher_id(&xxh3, id)).unwrap();
        let merged = temp_path(&format!("reserved-{id}-merged.sbf"));
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
            let output = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
                .args(&args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(output.stdout.is_empty(), "{args:?}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(stderr.contains("hasher"), "{args:?}: {stderr}");
            assert!(!merged.exists());
        }
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn cli_keys_are_the_byte_contract() {
    let path = temp_path("xxh3.sbf");
    let mut filter = Filter::with_fpr(100, 0.01).unwrap();
    filter.insert_bytes(b"carol");
    std::fs::write(&path, filter.to_bytes()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["query", path.to_str().unwrap(), "carol"])
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "carol");
}

/// The CLI builds id 4 (`xxh3`) by default, names each hasher in `info` as `--hasher` spells it,
/// answers for library-built filters of the hashers every build computes, and refuses the
/// names of hashers it does not offer.
#[test]
fn the_cli_builds_id_4_and_reads_its_hashers() {
    fn write<S: FilterHasher>(name: &str, hasher: S) -> std::path::PathBuf {
        let path = temp_path(name);
        let mut filter = Filter::with_fpr_and_hasher(100, 0.001, hasher).unwrap();
        filter.insert_bytes(b"alice");
        std::fs::write(&path, filter.to_bytes()).unwrap();
        path
    }
    let spawn = |args: &[&str], stdin: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        feed(&mut child, stdin);
        child.wait_with_output().unwrap()
    };
    let run = |args: &[&str], stdin: &[u8]| {
        let output = spawn(args, stdin);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let built = temp_path("built.sbf");
    let built_name = built.to_str().unwrap();
    run(
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
        let output = spawn(
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
        (built, "xxh3"),
        (write("xxh3.sbf", Xxh3::default()), "xxh3"),
        (write("parquet.sbf", ParquetHash::default()), "parquet"),
    ];
    for (path, name) in files {
        let file = path.to_str().unwrap();
        assert_eq!(run(&["query", file, "alice"], b""), "alice\n", "{name}");
        let info = run(&["info", "--json", file], b"");
        assert!(info.contains(&format!("\"hasher\":\"{name}\"")), "{info}");
        std::fs::remove_file(&path).unwrap();
    }
}

/// `build --hasher NAME` writes a file of hasher `S` (named NAME by `info`) that answers in the
/// CLI and through `FilterRef<S>` where gxhash runs; elsewhere the option is an error that says
/// which build flags give it, and that its files need such a build.
fn the_cli_builds_and_reads<S: FilterHasher + core::fmt::Debug>(name: &str) {
    let path = temp_path(&format!("{name}.sbf"));
    let file = path.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args([
            "build", "-n", "100", "-p", "0.01", "--hasher", name, "-o", file,
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    feed(&mut child, b"alice\n");
    let output = child.wait_with_output().unwrap();
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
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(run(&["query", file, "alice", "bob"]), "alice\n");
    let info = run(&["info", "--json", file]);
    assert!(info.contains(&format!("\"hasher\":\"{name}\"")), "{info}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn the_cli_builds_and_reads_gxhash() {
    the_cli_builds_and_reads::<GxHash>("gxhash");
}
