//! Keys in, keys out: how the CLI reads keys, hashes them and prints them.
//!
//! A key is a byte string: one line of the input without its line end, `\n` or `\r\n` (with
//! `--keep-cr`, only the `\n` is removed), or, with `--null`, one NUL-terminated record without
//! its NUL (nothing else removed). Lines need not be UTF-8, and an empty line is the empty key.
//! Removing a `\r` by default means a file with Windows line ends gives the same keys as the
//! same file with Unix ones, so a filter built from one answers queries from the other.
//!
//! A key longer than `--max-key-bytes` (default 1 MiB) is an error: input with no line ends
//! (`-i /dev/zero`, a binary file) is never read whole into memory.
//!
//! # How a key is hashed (the contract with library users)
//!
//! The library's byte-key contract, [`FilterHasher::hash_bytes`]: exactly the key's bytes,
//! with the framing `splitbloom::hash` documents (for every hasher the same value as one
//! `Hasher::write` on a fresh hasher then `finish`). A library user asks a CLI-built filter
//! about a key with `filter.contains_bytes(key_bytes)`.
//!
//! This is deliberately not `filter.contains(key_bytes)`: `Hash for [u8]` and `Hash for str`
//! add a length prefix or a terminator, and the standard library does not promise those
//! extra writes stay the same across Rust versions, while a stored filter must answer the same
//! forever. For the Parquet hasher the rule gives XXH64 of the raw bytes, Parquet's hash of a
//! `BYTE_ARRAY` value: `filter.contains_value(key_bytes)`.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use splitbloom::FilterHasher;

/// Keys hashed and looked up together: large enough to amortize the batch calls, small
/// enough to stay in L1/L2.
pub const BATCH: usize = 4096;

/// The 64-bit hash the CLI gives `key`: the byte-key contract (see the module docs).
pub fn hash_key<S: FilterHasher>(hasher: &S, key: &[u8]) -> u64 {
    hasher.hash_bytes(key)
}

/// Where keys come from: `-i FILE`, `-i -` or nothing (standard input).
pub fn input_name(input: Option<&Path>) -> String {
    match input {
        Some(path) if path != Path::new("-") => path.display().to_string(),
        _ => "standard input".to_owned(),
    }
}

/// Where keys come from: the options `build`, `query` and `dedup` share.
#[derive(clap::Args)]
pub struct InputOptions {
    /// Read keys from this file, one per line (`-` or no file: standard input).
    #[arg(short, long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Keys are NUL-terminated instead of newline-terminated (input and output).
    #[arg(short = '0', long)]
    pub null: bool,
    /// Keep a `\r` that ends a line as the key's last byte. By default a line's `\r\n` ending
    /// is removed like `\n`, so Windows (CRLF) and Unix (LF) files give the same keys. Not
    /// used with --null.
    #[arg(long)]
    pub keep_cr: bool,
    /// The longest key accepted, in bytes (a count: 1e6 works); a longer line (e.g. input
    /// with no line ends) is an error rather than read whole into memory.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_KEY_BYTES,
        value_parser = crate::numbers::parse_usize_count
    )]
    pub max_key_bytes: usize,
}

/// The default of `--max-key-bytes`: 1 MiB.
pub const DEFAULT_MAX_KEY_BYTES: usize = 1 << 20;

/// A batch stops growing past this many key bytes, so long keys keep memory bounded.
const BATCH_BYTES: usize = 1 << 22;

impl InputOptions {
    /// The byte that ends a key.
    pub fn separator(&self) -> u8 {
        if self.null { 0 } else { b'\n' }
    }

    /// Opens the input.
    pub fn open(&self) -> Result<KeyReader, String> {
        let mut reader = KeyReader::open(self.input.as_deref(), self.separator())?;
        reader.strip_cr = !self.null && !self.keep_cr;
        reader.max_key_bytes = self.max_key_bytes;
        Ok(reader)
    }
}

/// A batch of keys stored back to back in one buffer, so reading a batch allocates nothing
/// once the buffers have grown.
#[derive(Default)]
pub struct KeyBatch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl KeyBatch {
    /// Adds a key.
    pub fn push(&mut self, key: &[u8]) {
        self.bytes.extend_from_slice(key);
        self.ends.push(self.bytes.len());
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The keys in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.bytes[start..end])
    }

    /// The hashes of the keys, into `hashes` (cleared first).
    pub fn hash_into<S: FilterHasher>(&self, hasher: &S, hashes: &mut Vec<u64>) {
        hashes.clear();
        hashes.extend(self.iter().map(|key| hash_key(hasher, key)));
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}

/// Reads keys from a file or standard input through a large buffer.
///
/// Input that arrives slowly (`tail -f log |`, a terminal) is answered as it arrives: a batch
/// ends early when the buffer is used up, instead of waiting for more keys, and
/// [`KeyReader::is_waiting`] tells the writer when to flush. The end of the input is final: a
/// terminal's Ctrl-D is read once, not asked for again.
pub struct KeyReader {
    reader: BufReader<Box<dyn Read>>,
    /// The input has ended; nothing more is read from it.
    ended: bool,
    separator: u8,
    name: String,
    /// Remove a `\r` before the separator.
    strip_cr: bool,
    /// The longest key accepted.
    max_key_bytes: usize,
    /// Keys read so far.
    keys: u64,
}

impl KeyReader {
    /// Opens `input` (`None` or `-`: standard input).
    pub fn open(input: Option<&Path>, separator: u8) -> Result<KeyReader, String> {
        let name = input_name(input);
        let source: Box<dyn Read> = match input {
            Some(path) if path != Path::new("-") => {
                Box::new(File::open(path).map_err(|error| format!("cannot open {name}: {error}"))?)
            }
            _ => Box::new(io::stdin()),
        };
        Ok(KeyReader::new(source, name, separator))
    }

    /// Reads keys from `source`, called `name` in messages.
    fn new(source: Box<dyn Read>, name: String, separator: u8) -> KeyReader {
        const CAPACITY: usize = 1 << 20;
        KeyReader {
            reader: BufReader::with_capacity(CAPACITY, source),
            ended: false,
            separator,
            name,
            strip_cr: false,
            max_key_bytes: DEFAULT_MAX_KEY_BYTES,
            keys: 0,
        }
    }

    /// Whether every byte read so far has been taken as keys, so the next key waits for the
    /// input: the moment to flush answers to a reader who is waiting for them.
    pub fn is_waiting(&self) -> bool {
        self.reader.buffer().is_empty()
    }

    /// Reads one key into `key` (cleared first); `false` at the end of the input.
    pub fn next_key(&mut self, key: &mut Vec<u8>) -> Result<bool, String> {
        key.clear();
        self.read_into(key)
    }

    /// Replaces `batch` with up to [`BATCH`] keys: fewer when the keys read so far are used up
    /// (the rest of the input has not arrived yet), none when the input is done. On an error
    /// `batch` holds the keys before the bad one, to be answered before the error is reported.
    pub fn next_batch(&mut self, batch: &mut KeyBatch) -> Result<(), String> {
        batch.clear();
        while batch.len() < BATCH && batch.bytes.len() < BATCH_BYTES {
            if !batch.is_empty() && self.is_waiting() {
                break;
            }
            if !self.read_into(&mut batch.bytes)? {
                break;
            }
            batch.ends.push(batch.bytes.len());
        }
        Ok(())
    }

    /// Appends one key to `buffer`, without its separator (and, when stripping, a `\r` before
    /// it); errors on a key longer than the limit, having read at most the limit plus two bytes.
    fn read_into(&mut self, buffer: &mut Vec<u8>) -> Result<bool, String> {
        if self.ended {
            return Ok(false);
        }
        let start = buffer.len();
        // The key, a `\r`, the separator: anything longer is certainly too long.
        let limit = self.max_key_bytes.saturating_add(2) as u64;
        let read = (&mut self.reader)
            .take(limit)
            .read_until(self.separator, buffer)
            .map_err(|error| format!("cannot read keys from {}: {error}", self.name))?;
        if read == 0 {
            self.ended = true;
            return Ok(false);
        }
        self.keys += 1;
        let mut end = buffer.len();
        if buffer[end - 1] == self.separator {
            end -= 1;
        }
        if self.strip_cr && end > start && buffer[end - 1] == b'\r' {
            end -= 1;
        }
        if end - start > self.max_key_bytes {
            buffer.truncate(start);
            return Err(format!(
                "{}: key {} is longer than --max-key-bytes {} bytes; keys are {}; raise --max-key-bytes for longer keys",
                self.name,
                self.keys,
                self.max_key_bytes,
                if self.separator == 0 {
                    "NUL-terminated (--null)"
                } else {
                    "lines (is the input text, or NUL-terminated: --null?)"
                }
            ));
        }
        buffer.truncate(end);
        Ok(true)
    }
}

/// Writes keys to standard output, each followed by the separator, or with `--json` one JSON
/// object per key. A closed pipe (`| head`) ends the program quietly, a full disk is an error
/// (see `print`).
pub struct KeyWriter {
    out: io::BufWriter<io::StdoutLock<'static>>,
    separator: u8,
    json: bool,
}

impl KeyWriter {
    /// A writer ending each key with `separator`, or writing JSON Lines with `json`.
    pub fn new(separator: u8, json: bool) -> KeyWriter {
        KeyWriter {
            out: io::BufWriter::with_capacity(1 << 16, io::stdout().lock()),
            separator,
            json,
        }
    }

    /// Writes one key; with `--json`, as `{"value":...}` followed by `members` (JSON members
    /// with their leading comma, or nothing).
    pub fn write(&mut self, key: &[u8], members: &str) -> Result<(), String> {
        let result = if self.json {
            writeln!(
                self.out,
                "{{{}{members}}}",
                crate::json::bytes_member("value", key)
            )
        } else {
            self.out
                .write_all(key)
                .and_then(|()| self.out.write_all(&[self.separator]))
        };
        crate::print::check(result)
    }

    /// Hands what has been written so far to the reader.
    pub fn flush(&mut self) -> Result<(), String> {
        let result = self.out.flush();
        crate::print::check(result)
    }

    /// Flushes the output.
    pub fn finish(mut self) -> Result<(), String> {
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::{KeyBatch, KeyReader};

    /// A terminal: each read returns what was typed, and Ctrl-D on an empty line is a read of
    /// 0 bytes after which more may be typed.
    struct Terminal(Vec<&'static [u8]>);

    impl Read for Terminal {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let typed = self.0.remove(0);
            buffer[..typed.len()].copy_from_slice(typed);
            Ok(typed.len())
        }
    }

    #[test]
    fn one_end_of_input_ends_the_keys_and_a_batch_takes_only_what_has_arrived() {
        let terminal = Terminal(vec![b"a\n", b"b\nc\n", b"", b"after the end\n"]);
        let mut reader = KeyReader::new(Box::new(terminal), "terminal".to_owned(), b'\n');
        let mut batch = KeyBatch::default();
        let mut batches = Vec::new();
        loop {
            reader.next_batch(&mut batch).unwrap();
            if batch.is_empty() {
                break;
            }
            batches.push(batch.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
        }
        assert_eq!(
            batches,
            [vec![b"a".to_vec()], vec![b"b".to_vec(), b"c".to_vec()]]
        );
        let mut key = Vec::new();
        assert!(!reader.next_key(&mut key).unwrap(), "the end is final");
    }

    #[test]
    fn a_bad_key_leaves_the_keys_before_it_in_the_batch() {
        let input: &'static [u8] = b"a\nb\ntoo long\nc\n";
        let mut reader = KeyReader::new(Box::new(input), "input".to_owned(), b'\n');
        reader.max_key_bytes = 4;
        let mut batch = KeyBatch::default();
        let error = reader.next_batch(&mut batch).unwrap_err();
        assert!(error.contains("key 3"), "{error}");
        assert_eq!(batch.iter().collect::<Vec<_>>(), [b"a", b"b"]);
    }
}
