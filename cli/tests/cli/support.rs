//! Running the `splitbloom` binary, the files the tests give it and what the tests expect of
//! its output: every helper the test modules share.

use std::hash::{BuildHasher, Hasher};
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

pub fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_owned()
}

/// Asserts a clean failure: status 2, one line on stderr naming the problem, no panic.
pub fn fails(output: Output, expected: &str) {
    fails_mentioning(output, &[expected]);
}

/// [`fails`], with each of `expected` in the one line.
pub fn fails_mentioning(output: Output, expected: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("splitbloom: "), "{stderr}");
    for part in expected {
        assert!(stderr.contains(part), "expected {part:?} in {stderr}");
    }
}

/// Asserts exit status `code` and returns stdout as text.
#[cfg(feature = "parquet")]
pub fn finished(output: Output, code: i32) -> String {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Lines of `bytes` (each ending with `separator`).
pub fn records(bytes: &[u8], separator: u8) -> Vec<Vec<u8>> {
    let mut records: Vec<Vec<u8>> = bytes
        .split(|&b| b == separator)
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(
        records.pop(),
        Some(Vec::new()),
        "output must end with a separator"
    );
    records
}

/// The documented rule: one `Hasher::write` of the key bytes.
pub fn cli_hash<S: BuildHasher>(hasher: &S, key: &[u8]) -> u64 {
    let mut state = hasher.build_hasher();
    state.write(key);
    state.finish()
}

/// 1000 keys, some of them not UTF-8 and one empty.
pub fn sample_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = (0..997).map(|i| format!("key-{i}").into_bytes()).collect();
    keys.push(vec![0xff, 0xfe, b'x']);
    keys.push(b"caf\xe9".to_vec());
    keys.push(Vec::new());
    keys
}

pub fn joined(keys: &[Vec<u8>], separator: u8) -> Vec<u8> {
    keys.iter()
        .flat_map(|key| key.iter().copied().chain([separator]))
        .collect()
}

/// Temporary files of `dir`.
pub fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.contains(".tmp"))
        .collect()
}

/// A FIFO that stands where `-o` points.
#[cfg(unix)]
pub fn make_fifo(path: &str) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[cfg(unix)]
pub fn file_type(path: &str) -> std::fs::FileType {
    std::fs::symlink_metadata(path).unwrap().file_type()
}

/// Standard output going to a closed pipe or a full disk, for a command.
#[cfg(unix)]
pub fn run_to(args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// An arrow-rs writer of a Parquet file at `path` with `schema` (Parquet's message syntax), and
/// bloom filters at 0.1% on every column when `bloom_filters`.
#[cfg(feature = "parquet")]
pub fn parquet_writer(
    path: &Path,
    schema: &str,
    bloom_filters: bool,
) -> parquet::file::writer::SerializedFileWriter<std::fs::File> {
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;

    let schema = Arc::new(parquet::schema::parser::parse_message_type(schema).unwrap());
    let properties = WriterProperties::builder();
    // Setting a rate turns the filters on too.
    let properties = if bloom_filters {
        properties
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_fpp(0.001)
    } else {
        properties
    };
    let properties = properties.build();
    let file = std::fs::File::create(path).unwrap();
    parquet::file::writer::SerializedFileWriter::new(file, schema, Arc::new(properties)).unwrap()
}

/// A Parquet file written by arrow-rs with bloom filters on both columns.
#[cfg(feature = "parquet")]
pub fn parquet_file(path: &Path) {
    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};

    let schema = "message test { REQUIRED INT64 id; REQUIRED BYTE_ARRAY name (UTF8); }";
    let mut writer = parquet_writer(path, schema, true);
    for group in 0..2i64 {
        let ids: Vec<i64> = (group * 1000..group * 1000 + 1000).collect();
        let names: Vec<ByteArray> = ids
            .iter()
            .map(|id| ByteArray::from(format!("name-{id}").as_str()))
            .collect();
        let mut row_group = writer.next_row_group().unwrap();
        let mut column = row_group.next_column().unwrap().unwrap();
        column
            .typed::<Int64Type>()
            .write_batch(&ids, None, None)
            .unwrap();
        column.close().unwrap();
        let mut column = row_group.next_column().unwrap().unwrap();
        column
            .typed::<ByteArrayType>()
            .write_batch(&names, None, None)
            .unwrap();
        column.close().unwrap();
        row_group.close().unwrap();
    }
    writer.close().unwrap();
}

/// A Parquet file under `tests/fixtures/parquet`, written by a real writer
/// (`scripts/parquet-fixtures.sh`).
#[cfg(feature = "parquet")]
pub fn parquet_fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/parquet/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}
