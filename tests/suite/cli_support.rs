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

pub use splitbloom::parquet::ParquetHash;
/// The CLI's three hashers, named in this one place: `--hasher xxh3` (id 4, the default),
/// `--hasher gxhash` (id 6) and `--hasher parquet` (id 3).
pub use splitbloom::{GxHash, Xxh3};

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

/// The binary running with a standard input that stays open: a test writes a line, then reads
/// the answer back before it writes the next, as `tail -f log | splitbloom dedup` or a person
/// at a terminal would. Every read has a timeout, so a program that waits for the end of its
/// input fails the test instead of hanging it.
pub struct Session {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Vec<u8>>,
}

impl Session {
    /// Starts the binary with `args`.
    pub fn start(args: &[&str]) -> Session {
        let mut command = Command::new(env!("CARGO_BIN_EXE_splitbloom"));
        command.args(args);
        Session::start_command(command)
    }

    /// Starts `command` (which may run the binary under another program, such as a terminal).
    pub fn start_command(mut command: Command) -> Session {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let mut line = Vec::new();
                match std::io::BufRead::read_until(&mut stdout, b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Session {
            child,
            stdin,
            lines,
        }
    }

    /// Writes `input` to the program's standard input, which stays open.
    pub fn send(&mut self, input: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(input).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the program prints, waiting at most 20 seconds for it (a line arrives in
    /// milliseconds from a program that answers as input arrives; the margin is for busy test
    /// machines).
    pub fn next_line(&mut self) -> Vec<u8> {
        match self.lines.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(line) => line,
            Err(error) => {
                let _ = self.child.kill();
                panic!(
                    "no answer while the input stays open ({error}): output waits for the end of input"
                );
            }
        }
    }

    /// Closes standard input and returns the exit status and the lines not read yet.
    pub fn finish(mut self) -> (Option<i32>, Vec<Vec<u8>>) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        (status.code(), self.lines.iter().collect())
    }
}

/// Asserts success (status 0) and returns stdout.
pub fn succeeded(output: Output) -> Vec<u8> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    output.stdout
}

/// Asserts a refusal: status 2 and `expected` in stderr, with no panic. Unlike the one-line
/// errors of the commands themselves, a refusal by the argument parser spans several lines.
pub fn refused(output: Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains(expected),
        "expected {expected:?} in {stderr}"
    );
}
