//! The CLI and the hashing contract: gxhash filters (hasher id 6) answer in the CLI wherever
//! gxhash can run, and are a clear error elsewhere; CLI keys are the byte contract; new files
//! are id 4 and every id opens; `--hasher gxhash` builds id 6 where gxhash runs and is a clear
//! error elsewhere.

use std::process::Command;

use splitbloom::parquet::ParquetHash;
use splitbloom::{Filter, FilterHasher, FilterRef, GxHash, HasherKind, Xxh3};

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
    let bytes = match GxHash::new(0) {
        Ok(hasher) => {
            let mut filter = Filter::with_num_blocks_and_hasher(64, hasher).unwrap();
            filter.insert_bytes(b"alice");
            filter.to_bytes()
        }
        Err(_) => {
            let mut bytes = Filter::with_num_blocks(64).unwrap().to_bytes();
            bytes[6] = HasherKind::GxHash.id();
            let mut state = xxhash_rust::xxh3::Xxh3Default::new();
            state.update(&bytes[..24]);
            state.update(&bytes[32..]);
            let checksum = state.digest();
            bytes[24..32].copy_from_slice(&checksum.to_le_bytes());
            bytes
        }
    };
    std::fs::write(&path, bytes).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["query", path.to_str().unwrap(), "alice", "bob"])
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if HasherKind::GxHash.is_available() {
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert_eq!(stdout.lines().collect::<Vec<_>>(), ["alice"]);
    } else {
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr.contains("AES"), "{stderr}");
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

/// The CLI builds id 4 (`Xxh3`) by default, names every id in `info`, and answers for a
/// filter of every id that this build can compute, written by the library.
#[test]
fn the_cli_builds_id_4_and_reads_every_id() {
    fn write<S: FilterHasher>(name: &str, hasher: S) -> std::path::PathBuf {
        let path = temp_path(name);
        let mut filter = Filter::with_fpr_and_hasher(100, 0.001, hasher).unwrap();
        filter.insert_bytes(b"alice");
        std::fs::write(&path, filter.to_bytes()).unwrap();
        path
    }
    let run = |args: &[&str], stdin: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        feed(&mut child, stdin);
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let built = temp_path("built.sbf");
    run(
        &[
            "build",
            "-n",
            "100",
            "-p",
            "0.01",
            "-o",
            built.to_str().unwrap(),
        ],
        b"alice\n",
    );
    let bytes = std::fs::read(&built).unwrap();
    assert_eq!(bytes[6], HasherKind::Xxh3.id(), "the default is id 4");
    assert!(
        FilterRef::<Xxh3>::from_bytes(&bytes)
            .unwrap()
            .contains("alice")
    );
    let files = [
        (built, "xxh3"),
        (write("plain.sbf", Xxh3::default()), "xxh3"),
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

/// `build --hasher NAME` writes a file of hasher `S` (named NAME by `info`) that
/// answers in the CLI and through `FilterRef<S>` where gxhash runs; elsewhere the option is an
/// error that says why.
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
        assert!(stderr.contains("AES") && stderr.contains(name), "{stderr}");
        assert!(!path.exists());
        return;
    }
    assert!(output.status.success(), "{stderr}");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[6], S::KIND.id(), "hasher id of {name}");
    let view = FilterRef::<S>::from_bytes_with_hasher(&bytes).unwrap();
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
