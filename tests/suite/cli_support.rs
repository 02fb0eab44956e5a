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
