//! Filter files: reading them and telling what they are.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use splitbloom::format::{self, Header};

/// A filter file read into memory, with its header checked. Lookups run on a `FilterRef` over
/// these bytes (no second copy). The file is read rather than memory-mapped: a map is `unsafe`
/// (the file could change underneath it), the crate keeps `unsafe` to its kernel modules, and
/// the checksum check reads every byte anyway, so a map would save no I/O.
///
/// Only the 32-byte header is read first; the rest is read only if the header is valid, and
/// then exactly the length it announces (a regular file of another length is refused unread),
/// so a wrong file costs 32 bytes of reading, whatever its size.
pub struct FilterFile {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The decoded header.
    pub header: Header,
}

/// A file `info` can describe: a filter, or the start of a scalable filter.
pub enum AnyFilterFile {
    /// A plain filter (magic `SBLM`), header checked, bytes not read yet.
    Plain(OpenFilter),
    /// A scalable filter (magic `SBLS`): the open file and its first 64 bytes (or fewer, if
    /// the file is shorter).
    Scalable(File, Vec<u8>),
}

/// A plain filter file whose header has been read and checked.
pub struct OpenFilter {
    file: File,
    /// The decoded header.
    pub header: Header,
    /// The first 32 bytes.
    head: [u8; format::HEADER_BYTES],
    name: String,
}

/// Reads into `buffer` until it is full or the input ends; returns the bytes read.
pub fn read_up_to(file: &mut File, buffer: &mut [u8]) -> io::Result<usize> {
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

/// The first 4 bytes of every Parquet file, and its last 4.
const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// Opens `path` and reads what identifies it: a plain filter's checked header or a scalable
/// filter's start. Anything else is an error that says what the file is when it can tell
/// (a Parquet file) and what the library found otherwise.
pub fn open_any(path: &Path) -> Result<AnyFilterFile, String> {
    let name = path.display().to_string();
    let read_error = |error: io::Error| format!("cannot read {name}: {error}");
    let mut file = File::open(path).map_err(|error| format!("cannot open {name}: {error}"))?;
    let mut head = [0u8; format::HEADER_BYTES];
    let read = read_up_to(&mut file, &mut head).map_err(read_error)?;
    if head[..read].starts_with(&format::SCALABLE_MAGIC) {
        let mut start = vec![0; format::SCALABLE_HEADER_BYTES];
        start[..read].copy_from_slice(&head[..read]);
        let more = read_up_to(&mut file, &mut start[read..]).map_err(read_error)?;
        start.truncate(read + more);
        return Ok(AnyFilterFile::Scalable(file, start));
    }
    match Header::parse(&head[..read]) {
        Ok(header) => Ok(AnyFilterFile::Plain(OpenFilter {
            file,
            header,
            head,
            name,
        })),
        Err(error) => {
            if head[..read].starts_with(PARQUET_MAGIC) || ends_with_parquet_magic(&mut file) {
                Err(format!(
                    "{name} is a Parquet file, not a splitbloom filter: `splitbloom parquet-info {name}` lists its bloom filters and tests values against them"
                ))
            } else {
                Err(format!("{name}: {error}"))
            }
        }
    }
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

impl OpenFilter {
    /// Reads the rest of the filter: exactly the length the header announces. A regular file
    /// of another length is refused before anything more is read.
    pub fn read(mut self) -> Result<FilterFile, String> {
        let name = &self.name;
        let expected = self.header.serialized_len();
        let metadata = self
            .file
            .metadata()
            .map_err(|error| format!("cannot read {name}: {error}"))?;
        if metadata.is_file() && metadata.len() != expected {
            let found = usize::try_from(metadata.len()).unwrap_or(usize::MAX);
            let error = if metadata.len() < expected {
                splitbloom::Error::Truncated {
                    needed: expected,
                    available: found,
                }
            } else {
                splitbloom::Error::LengthMismatch { expected, found }
            };
            return Err(format!("{name}: {error}"));
        }
        // One byte more than announced, so a longer stream (a pipe) is detected too.
        let capacity = usize::try_from(expected)
            .ok()
            .and_then(|length| length.checked_add(1));
        let mut bytes = Vec::new();
        capacity
            .and_then(|capacity| bytes.try_reserve_exact(capacity).ok())
            .ok_or_else(|| {
                format!("{name}: cannot allocate {expected} bytes to read the filter")
            })?;
        bytes.extend_from_slice(&self.head);
        (&mut self.file)
            .take(expected + 1 - format::HEADER_BYTES as u64)
            .read_to_end(&mut bytes)
            .map_err(|error| format!("cannot read {name}: {error}"))?;
        Ok(FilterFile {
            bytes,
            header: self.header,
        })
    }
}

impl FilterFile {
    /// Opens `path`, checks its header, then reads it; errors name the file. A scalable filter
    /// is refused with a message saying what it is.
    pub fn open(path: &Path) -> Result<FilterFile, String> {
        match open_any(path)? {
            AnyFilterFile::Plain(filter) => filter.read(),
            AnyFilterFile::Scalable(..) => Err(format!(
                "{} is a scalable filter (magic SBLS); this command reads plain filters only (`splitbloom info` shows its header; a program reads it with ScalableFilter::from_bytes)",
                path.display()
            )),
        }
    }

    /// Opens `path` and checks only its header.
    pub fn header(path: &Path) -> Result<Header, String> {
        match open_any(path)? {
            AnyFilterFile::Plain(filter) => Ok(filter.header),
            AnyFilterFile::Scalable(..) => FilterFile::open(path).map(|file| file.header),
        }
    }
}
