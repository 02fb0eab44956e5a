//! Running the `splitbloom` binary from the CLI test modules (`cli`, `parquet_cli`); apart from
//! `common` because `CARGO_BIN_EXE_splitbloom` exists only in builds with the `cli` feature.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh directory for one test, under the including test crate's name.
pub fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the binary with `args`, writing `stdin` from another thread so that large input and
/// output cannot deadlock; a process that exits before reading all its input is not an error.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let written = input.write_all(&stdin);
        assert!(written.is_ok() || written.unwrap_err().kind() == std::io::ErrorKind::BrokenPipe);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// The CLI's three hashers, named in this one place: `--hasher xxh3` (id 4, the default),
/// `--hasher gxhash` (id 6) and `--hasher parquet` (id 3).
pub type Xxh3 = splitbloom::Xxh3Plain;
/// The opt-in gxhash hasher (see [`Xxh3`]).
pub type GxHash = splitbloom::GxHybrid;
pub use splitbloom::parquet::ParquetHash;

/// The bytes of filter file `bytes` with hasher id `id` (header byte 6) and the checksum that
/// makes them valid again: a file of any hasher id, whether or not this build can hash with it.
pub fn with_hasher_id(bytes: &[u8], id: u8) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[6] = id;
    let mut state = xxhash_rust::xxh3::Xxh3Default::new();
    state.update(&bytes[..24]);
    state.update(&bytes[32..]);
    let checksum = state.digest().to_le_bytes();
    bytes[24..32].copy_from_slice(&checksum);
    bytes
}
