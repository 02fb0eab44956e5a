//! Filter files: what a file holds, told by its first bytes in this one place, and read exactly
//! as far as its headers announce.
//!
//! Every format the library and the Redis module write is recognized by its magic bytes
//! ([`Format`]): `SBLM` for a `Filter`, a `WideFilter` (what `SBF.DUMP` returns for a
//! non-scaling filter) or a `QuotientFilter`, `SBLS` for a `ScalableFilter` (`SBF.DUMP` of a scaling one) and `SBLW`
//! for a `WindowFilter`. Another format is one more variant of [`Format`], its arm in
//! [`FilterFile::start`] and [`PendingFile::read`], and its arms in `any_filter`.
//!
//! A file is read rather than memory-mapped: a map is `unsafe` (the file could change
//! underneath it), the crate keeps `unsafe` to its kernel modules, and the checksum check reads
//! every byte anyway, so a map would save no I/O. Only the headers are read first; the rest is
//! read only once they are valid, and then exactly the length they announce (a regular file of
//! another length is refused unread), so a file that is not a filter costs a few bytes of
//! reading, whatever its size, and its error says what it looks like instead.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use splitbloom::format::{self, Header, ScalableHeader};
use splitbloom::{HasherKind, WindowFilter, Xxh3};

/// What a filter file holds, told by its magic bytes.
#[derive(Clone, Copy, Debug)]
pub enum Format {
    /// `SBLM`: a `Filter` (layout 0), a `WideFilter` (layouts 1 and 2) or a `QuotientFilter`
    /// (layouts 5 and 6), with its checked header.
    Plain(Header),
    /// `SBLS`: a `ScalableFilter`, a chain of `SBLM` stages.
    Scalable,
    /// `SBLW`: a `WindowFilter`, generations that rotate.
    Window,
}

impl Format {
    /// What the format holds, for messages: "a filter", "a scalable filter", "a window filter".
    pub fn describe(self) -> &'static str {
        match self {
            Format::Plain(_) => "a filter",
            Format::Scalable => "a scalable filter",
            Format::Window => "a window filter",
        }
    }

    /// The name `--json` gives the format.
    pub fn name(self) -> &'static str {
        match self {
            Format::Plain(_) => "filter",
            Format::Scalable => "scalable",
            Format::Window => "window",
        }
    }

    /// The magic bytes the format starts with, as text.
    pub fn magic(self) -> &'static str {
        match self {
            Format::Plain(_) => "SBLM",
            Format::Scalable => "SBLS",
            Format::Window => "SBLW",
        }
    }
}

/// A filter file read into memory: its format, its hasher, its format version and its bytes,
/// exactly as long as its headers announce. The bytes are not validated beyond the headers: the
/// library's readers (see `any_filter`) check the rest, checksums included.
pub struct FilterFile {
    /// What the file holds.
    pub format: Format,
    /// The hasher the file's keys went through.
    pub hasher: HasherKind,
    /// The format version, bytes 4..6 of every format's header.
    pub version: u16,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// A filter file whose format and hasher are known from its first bytes; the rest is not read
/// yet ([`PendingFile::read`]).
pub struct PendingFile {
    /// What the file holds.
    pub format: Format,
    /// The hasher the file's keys went through.
    pub hasher: HasherKind,
    source: Source,
}

/// An open file and the bytes read from it so far.
struct Source {
    file: File,
    name: String,
    /// The bytes read so far, from the start of the file.
    bytes: Vec<u8>,
    /// The length of a regular file (`None` for a pipe or a device).
    regular_len: Option<u64>,
}

/// Why a file could not be opened as a filter.
pub enum OpenError {
    /// It does not start with the magic bytes of a format this build reads; the message says
    /// what it looks like instead.
    NotAFilter(String),
    /// Anything else: it cannot be read, or it is a damaged filter.
    Other(String),
}

impl From<String> for OpenError {
    fn from(message: String) -> OpenError {
        OpenError::Other(message)
    }
}

impl From<OpenError> for String {
    fn from(error: OpenError) -> String {
        match error {
            OpenError::NotAFilter(message) | OpenError::Other(message) => message,
        }
    }
}

/// The first 4 bytes of every Parquet file, and its last 4.
const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

impl FilterFile {
    /// Opens `path` and reads it whole; errors name the file.
    pub fn open(path: &Path) -> Result<FilterFile, String> {
        FilterFile::start(path)?.read()
    }

    /// Opens `path` and reads what identifies it: the magic bytes, then the headers that give
    /// the format and the hasher. Anything else is an error that says what the file is when it
    /// can tell (empty, too short, a Parquet file, text) and what the library found otherwise.
    pub fn start(path: &Path) -> Result<PendingFile, OpenError> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|error| format!("cannot open {name}: {error}"))?;
        let regular_len = file
            .metadata()
            .ok()
            .filter(|metadata| metadata.is_file())
            .map(|metadata| metadata.len());
        let mut source = Source {
            file,
            name,
            bytes: Vec::new(),
            regular_len,
        };
        source.fill_up_to(4)?;
        let magic: [u8; 4] = source.bytes.as_slice().try_into().unwrap_or_default();
        // The one place a file's format is told from its first bytes.
        let format = if magic == format::MAGIC {
            source.fill_up_to(format::HEADER_BYTES as u64)?;
            Format::Plain(Header::parse(&source.bytes).map_err(|error| source.error(error))?)
        } else if magic == format::SCALABLE_MAGIC {
            Format::Scalable
        } else if magic == format::WINDOW_MAGIC {
            Format::Window
        } else {
            return Err(OpenError::NotAFilter(source.not_a_filter()));
        };
        let hasher = match format {
            Format::Plain(header) => header.hasher,
            Format::Scalable => source.first_stage()?.hasher,
            Format::Window => source.window_hasher()?,
        };
        Ok(PendingFile {
            format,
            hasher,
            source,
        })
    }
}

impl PendingFile {
    /// Reads the rest of the file: exactly the length its headers announce. A regular file of
    /// another length is refused before anything more is read.
    pub fn read(self) -> Result<FilterFile, String> {
        let mut source = self.source;
        match self.format {
            Format::Plain(header) => source.read_exactly(header.serialized_len())?,
            Format::Scalable => source.read_stages()?,
            Format::Window => {
                let length = source.window_length()?;
                source.read_exactly(length)?;
            }
        }
        Ok(FilterFile {
            format: self.format,
            hasher: self.hasher,
            version: u16::from_le_bytes([source.bytes[4], source.bytes[5]]),
            bytes: source.bytes,
        })
    }
}

impl Source {
    /// `error`, naming the file.
    fn error(&self, error: impl std::fmt::Display) -> String {
        format!("{}: {error}", self.name)
    }

    /// Reads until `length` bytes are held or the input ends.
    fn fill_up_to(&mut self, length: u64) -> Result<(), String> {
        let missing = length.saturating_sub(self.bytes.len() as u64);
        let reserved = usize::try_from(missing)
            .ok()
            .is_some_and(|missing| self.bytes.try_reserve_exact(missing).is_ok());
        if !reserved {
            return Err(self.error(format!("cannot allocate {length} bytes to read the filter")));
        }
        let result = (&mut self.file).take(missing).read_to_end(&mut self.bytes);
        result
            .map(|_| ())
            .map_err(|error| format!("cannot read {}: {error}", self.name))
    }

    /// Reads until `length` bytes are held; errors if the input ends first.
    fn fill_to(&mut self, length: u64) -> Result<(), String> {
        self.fill_up_to(length)?;
        if (self.bytes.len() as u64) < length {
            return Err(self.error(splitbloom::Error::Truncated {
                needed: length,
                available: self.bytes.len(),
            }));
        }
        Ok(())
    }

    /// Reads the whole file, which must be exactly `length` bytes long.
    fn read_exactly(&mut self, length: u64) -> Result<(), String> {
        if let Some(found) = self.regular_len.filter(|&found| found != length) {
            let found = usize::try_from(found).unwrap_or(usize::MAX);
            return Err(self.error(if (found as u64) < length {
                splitbloom::Error::Truncated {
                    needed: length,
                    available: found,
                }
            } else {
                splitbloom::Error::LengthMismatch {
                    expected: length,
                    found,
                }
            }));
        }
        self.fill_to(length)?;
        self.expect_end(length)
    }

    /// Errors if the input goes on after `length` bytes (a stream longer than announced).
    fn expect_end(&mut self, length: u64) -> Result<(), String> {
        let mut extra = [0u8; 1];
        let more = read_up_to(&mut self.file, &mut extra)
            .map_err(|error| format!("cannot read {}: {error}", self.name))?;
        if more == 0 {
            return Ok(());
        }
        // A stream is known to be at least one byte longer.
        let found = self.regular_len.unwrap_or(length.saturating_add(1));
        let found = usize::try_from(found).unwrap_or(usize::MAX);
        Err(self.error(splitbloom::Error::LengthMismatch {
            expected: length,
            found,
        }))
    }

    /// The scalable header and the first stage's header (which names the hasher), read and
    /// checked.
    fn first_stage(&mut self) -> Result<Header, String> {
        self.fill_up_to(format::SCALABLE_HEADER_BYTES as u64)?;
        let scalable = ScalableHeader::parse(&self.bytes).map_err(|error| self.error(error))?;
        if scalable.num_stages == 0 {
            return Err(self.error("scalable filter with no stages (it has at least one)"));
        }
        self.stage_header(0, scalable.num_stages)
    }

    /// Reads and checks the header of stage `index` (of `stages`), which starts where the bytes
    /// read so far end.
    fn stage_header(&mut self, index: u64, stages: u64) -> Result<Header, String> {
        let start = self.bytes.len();
        self.fill_up_to(start as u64 + format::HEADER_BYTES as u64)?;
        if self.bytes.len() - start < format::HEADER_BYTES {
            return Err(self.error(format!(
                "scalable filter: the header announces {stages} stages, the file ends after {index} (at byte {})",
                self.bytes.len()
            )));
        }
        Header::parse(&self.bytes[start..])
            .map_err(|error| self.error(format!("scalable filter: stage {index}: {error}")))
    }

    /// Reads every stage of a scalable filter (the first stage's header is already read), each
    /// exactly as long as its header announces, and checks that the file ends after the last.
    fn read_stages(&mut self) -> Result<(), String> {
        let stages = ScalableHeader::parse(&self.bytes)
            .map_err(|error| self.error(error))?
            .num_stages;
        let mut start = format::SCALABLE_HEADER_BYTES as u64;
        for index in 0..stages {
            let header = if index == 0 {
                Header::parse(&self.bytes[format::SCALABLE_HEADER_BYTES..])
                    .map_err(|error| self.error(error))?
            } else {
                self.stage_header(index, stages)?
            };
            let end = start + header.serialized_len();
            if self.regular_len.is_some_and(|found| found < end) {
                return Err(self.error(format!(
                    "scalable filter: stage {index} is truncated: {} bytes needed, {} available",
                    header.serialized_len(),
                    self.regular_len.unwrap_or(0).saturating_sub(start)
                )));
            }
            self.fill_to(end)?;
            start = end;
        }
        if self.regular_len.is_some_and(|found| found > start) {
            return Err(self.error(format!(
                "scalable filter: bytes after the last stage (which ends at byte {start})"
            )));
        }
        self.expect_end(start)
    }

    /// The hasher id of a window: header byte 6, as in the `SBLM` header (docs/FORMAT.md).
    fn window_hasher(&mut self) -> Result<HasherKind, String> {
        self.fill_up_to(format::WINDOW_HEADER_BYTES as u64)?;
        let id = self.bytes.get(6).copied();
        id.and_then(HasherKind::from_id).ok_or_else(|| match id {
            Some(id) => self.error(crate::hashers::unsupported_hasher(id)),
            None => self.error(splitbloom::Error::Truncated {
                needed: format::WINDOW_HEADER_BYTES as u64,
                available: self.bytes.len(),
            }),
        })
    }

    /// The length a window's header announces, as the library's reader computes it: given only
    /// the header, it checks every field and then asks for the whole window.
    fn window_length(&self) -> Result<u64, String> {
        match WindowFilter::<Xxh3>::from_bytes_with_hasher_type(&self.bytes) {
            Err(splitbloom::Error::Truncated { needed, available })
                if available >= format::WINDOW_HEADER_BYTES =>
            {
                Ok(needed)
            }
            Err(error) => Err(self.error(error)),
            // A window holds at least one block, so its header alone is never a whole window.
            Ok(_) => Ok(self.bytes.len() as u64),
        }
    }

    /// The error for a file that starts with no magic this build reads: what it is when that
    /// can be told (empty, too short, Parquet), and its first bytes otherwise.
    fn not_a_filter(&mut self) -> String {
        let name = &self.name;
        let first = &self.bytes;
        if first.is_empty() {
            return format!("{name} is an empty file, not a splitbloom filter");
        }
        if first[..] == PARQUET_MAGIC[..] || ends_with_parquet_magic(&mut self.file) {
            return format!(
                "{name} is a Parquet file, not a splitbloom filter: `splitbloom parquet-info {name}` lists its bloom filters and tests values against them"
            );
        }
        if first.len() < 4 {
            return format!(
                "{name} is not a splitbloom filter: it is only {} long, and a filter starts with a header of 32 bytes or more",
                crate::print::counted(first.len() as u64, "byte", "bytes")
            );
        }
        let text = first
            .iter()
            .all(|&byte| byte.is_ascii_graphic() || byte.is_ascii_whitespace());
        format!(
            "{name} is not a splitbloom filter: it starts with \"{}\"{}, where a filter starts with SBLM, SBLS or SBLW",
            first.escape_ascii(),
            if text { " (text)" } else { "" }
        )
    }
}

/// Reads into `buffer` until it is full or the input ends; returns the bytes read.
fn read_up_to(file: &mut File, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// Whether a regular file ends with Parquet's magic.
fn ends_with_parquet_magic(file: &mut File) -> bool {
    let regular = file.metadata().is_ok_and(|metadata| metadata.is_file());
    let mut tail = [0u8; 4];
    regular
        && file.seek(SeekFrom::End(-4)).is_ok()
        && read_up_to(file, &mut tail).is_ok_and(|read| read == 4)
        && &tail == PARQUET_MAGIC
}
