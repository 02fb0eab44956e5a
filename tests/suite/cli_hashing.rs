//! The CLI and the hashing contract: filters written with gxhash (hasher id 1, the default of
//! earlier `+aes` builds) keep answering in the CLI wherever gxhash can run, and are a clear
//! error elsewhere; CLI keys are the byte-key contract.

use std::process::Command;

use splitbloom::{Filter, GxHash, HasherKind};

/// A file path in the temporary directory, unique to this test process.
fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "splitbloom-cli-hashing-{}-{name}",
        std::process::id()
    ))
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
