//! `splitbloom parquet-info` (feature `parquet`): a Parquet file's columns and bloom filters,
//! and which row groups may hold given values.
//!
//! The footer is decoded by the `parquet` crate (a Thrift parser of the whole `FileMetaData` is
//! more than this crate should carry); each bloom filter (a `BloomFilterHeader` and the bitset)
//! is read and answered by splitbloom itself. Values are read per the column's logical type
//! (see `value`), hashed once, and looked up in each row group's filter with one
//! `contains_hash_batch` call per row group, so a batch costs one pass per row group.

mod value;

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData, ParquetMetaDataReader};
use parquet::schema::types::ColumnDescriptor;
use splitbloom::FilterRef;
use splitbloom::parquet::{ParquetHash, read_header};

use crate::Status;
use crate::json;
use crate::print::out;
use value::{Hashes, Kind, decode_hex};

/// How values are written, per column type (shown by `parquet-info --help`).
const VALUE_FORMS: &str = "\
Values, per the column's type (see --columns):
  INT8..INT64, UINT8..UINT64   decimal integers in the type's range: -1, 4294967295
  FLOAT, DOUBLE, FLOAT16       1.5, -2e3, inf, NaN; FLOAT16 and FLOAT round to the type
  DATE                         2024-01-31
  TIME(unit)                   13:45:00.250
  TIMESTAMP(unit, UTC)         2024-01-31T13:45:00.250Z, 2024-01-31 14:45:00+01:00;
                               without an offset the time is UTC
  TIMESTAMP(unit, local)       2024-01-31T13:45:00.250 (no offset)
  DECIMAL(p,s)                 0.05, -12.5 (at most s digits after the point), whatever
                               the storage: INT32, INT64, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY
  UUID                         67e55044-10b1-426f-9247-bb680e5fe0c8
  STRING, BYTE_ARRAY           the bytes of the argument or line
  --hex                        the plain-encoded bytes, for any type: 00ff0a
A value more precise than the column's unit, or out of its range, is an error (exit 2); in a
batch, the lines before it have been answered, and the error names its line.

Zeros and NaN: writers hash a float's bits, so 0.0 and -0.0 have different hashes. As in SQL,
where 0 = -0.0, a zero asks for both (either sign may have been written). NaN asks for the
canonical quiet NaN only (0x7fc00000, 0x7ff8000000000000); other NaN bit patterns need --hex.

Output: with --value, one line per row group (or one JSON object with --json); with --values,
one line per value as soon as it is read: the value, a tab, and the row groups that may hold
it, or \"absent\" (with --json: {\"value\": ..., \"may_be_present\": ..., \"row_groups\": [...]},
\"value_hex\" for a value that is not UTF-8).
Exit status: 0 when some row group may hold some value, 1 when every row group's filter
excludes every value, 2 on error. A row group without a readable filter may hold any value.";

/// Options of `splitbloom parquet-info`.
#[derive(clap::Args)]
#[command(after_long_help = VALUE_FORMS)]
pub struct Options {
    /// The Parquet file.
    file: PathBuf,
    /// List every leaf column: its path, physical and logical type, and which row groups have a
    /// bloom filter for it.
    #[arg(long, conflicts_with_all = ["column", "value", "values"])]
    columns: bool,
    /// The column to test values against: its dotted leaf path (`st.a`, `tags.list.element`),
    /// or a top-level name that has a single leaf (`tags`).
    #[arg(long)]
    column: Option<String>,
    /// A value to test, as written for the column's type (see below); negative numbers need no
    /// `=` (`--value -1`).
    #[arg(
        long,
        requires = "column",
        allow_hyphen_values = true,
        conflicts_with = "values"
    )]
    value: Option<OsString>,
    /// Test every line of this file (`-`: standard input), one value per line (the line end,
    /// `\n` or `\r\n`, removed); prints one line per value.
    #[arg(long, requires = "column", value_name = "FILE")]
    values: Option<PathBuf>,
    /// Values are hex digits of their plain-encoded bytes (the bytes of a string or binary
    /// value; the little-endian bytes of a number): for values with a newline or NUL byte, and
    /// for types without a text form (INT96, INTERVAL).
    #[arg(long)]
    hex: bool,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// What one row group's filter says about the values.
enum GroupAnswer {
    /// For each hash, whether the bloom filter may hold it.
    Filter(Vec<bool>),
    /// No bloom filter for the column: the row group may hold every value.
    NoFilter,
    /// The filter cannot be read: the row group may hold every value.
    Unreadable(String),
}

/// The bloom filter of one row group for the probed column, as read from the file.
enum GroupFilter {
    Missing,
    Unreadable(String),
    Bytes(Vec<u8>),
}

/// A value to test: its text as given, and its hashes.
struct Probe {
    shown: Vec<u8>,
    hashes: Hashes,
}

/// Values tested per round: bounds the memory of the answers (one byte per value and hash)
/// whatever the number of values and row groups.
const CHUNK: usize = 1 << 14;

/// Runs `parquet-info`: lists the filters or the columns, or tests values. With `--value`, or
/// `--values`, exits 0 when some row group may hold some value and 1 only when every row
/// group's filter excludes every value. A row group without a filter for the column, or whose
/// filter cannot be read, may hold any value.
pub fn run(options: &Options) -> Result<Status, String> {
    let name = options.file.display();
    let mut file =
        File::open(&options.file).map_err(|error| format!("cannot open {name}: {error}"))?;
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|error| format!("{name}: not a readable Parquet file: {error}"))?;
    if options.columns {
        return list_columns(&metadata, options.json).map(|()| Status::Success);
    }
    let Some(column) = &options.column else {
        if options.hex {
            return Err("--hex applies to --column with --value or --values".to_owned());
        }
        return list_filters(&metadata, &mut file, &name.to_string(), options.json)
            .map(|()| Status::Success);
    };
    let (index, descriptor) = find_column(&metadata, column).map_err(|e| format!("{name}: {e}"))?;
    let kind = Kind::of(descriptor);
    let mut source = match (&options.value, &options.values) {
        (Some(value), _) => Source::One(Some(probe(&kind, value.as_encoded_bytes(), options.hex)?)),
        (None, Some(path)) => Source::Lines(Lines::open(path, kind.clone(), options.hex)?),
        (None, None) => return Err("--column needs --value or --values".to_owned()),
    };
    let path = descriptor.path().string();
    let filters: Vec<GroupFilter> = metadata
        .row_groups()
        .iter()
        .map(|row_group| {
            let chunk = row_group
                .columns()
                .get(index)
                .filter(|chunk| chunk.column_path().string() == path)
                .or_else(|| {
                    row_group
                        .columns()
                        .iter()
                        .find(|chunk| chunk.column_path().string() == path)
                });
            match chunk.map(|chunk| read_filter(&mut file, chunk)) {
                None | Some(Ok(None)) => GroupFilter::Missing,
                Some(Ok(Some(bytes))) => GroupFilter::Bytes(bytes),
                Some(Err(error)) => GroupFilter::Unreadable(error),
            }
        })
        .collect();
    let filters: Vec<Result<FilterRef<'_, ParquetHash>, Option<String>>> = filters
        .iter()
        .map(|filter| match filter {
            GroupFilter::Missing => Err(None),
            GroupFilter::Unreadable(error) => Err(Some(error.clone())),
            GroupFilter::Bytes(bytes) => FilterRef::from_parquet_bytes(bytes)
                .map(|(filter, _)| filter)
                .map_err(|error| Some(error.to_string())),
        })
        .collect();
    let batch = options.values.is_some();
    if batch || options.json {
        for (group, filter) in filters.iter().enumerate() {
            if let Err(Some(error)) = filter {
                crate::print::note!(
                    "splitbloom: {name}: row group {group}: bloom filter unreadable ({error}); \
                     it may hold every value"
                );
            }
        }
    }
    let mut any = false;
    let mut text = Vec::new();
    let mut hashes = Vec::new();
    let mut chunk = Vec::new();
    loop {
        // The values before a bad line are answered, then the error is reported.
        let pending = source.next_chunk(&mut chunk);
        if chunk.is_empty() {
            match pending {
                Some(error) => return Err(error),
                None => break,
            }
        }
        hashes.clear();
        for probe in &chunk {
            probe.hashes.push_to(&mut hashes);
        }
        let answers: Vec<GroupAnswer> = filters
            .iter()
            .map(|filter| match filter {
                Ok(filter) => {
                    let mut answers = vec![false; hashes.len()];
                    filter.contains_hash_batch(&hashes, &mut answers);
                    GroupAnswer::Filter(answers)
                }
                Err(None) => GroupAnswer::NoFilter,
                Err(Some(error)) => GroupAnswer::Unreadable(error.clone()),
            })
            .collect();
        if !batch && !options.json {
            // One value: one line per row group, saying why.
            for (group, answer) in answers.iter().enumerate() {
                let line = match answer {
                    GroupAnswer::Filter(may) if may.contains(&true) => {
                        any = true;
                        "may be present (its bloom filter may hold the value)".to_owned()
                    }
                    GroupAnswer::Filter(_) => {
                        "absent (its bloom filter excludes the value)".to_owned()
                    }
                    GroupAnswer::NoFilter => {
                        any = true;
                        "may be present (no bloom filter)".to_owned()
                    }
                    GroupAnswer::Unreadable(error) => {
                        any = true;
                        format!("may be present (bloom filter unreadable: {error})")
                    }
                };
                out!("row group {group}: {line}")?;
            }
            break;
        }
        let mut first = 0;
        for probe in &chunk {
            let count = probe.hashes.len();
            let groups: Vec<(usize, bool)> = answers
                .iter()
                .enumerate()
                .filter_map(|(group, answer)| match answer {
                    GroupAnswer::Filter(may) => may[first..first + count]
                        .contains(&true)
                        .then_some((group, true)),
                    _ => Some((group, false)),
                })
                .collect();
            first += count;
            any |= !groups.is_empty();
            write_answer(&mut text, &probe.shown, &groups, options.json);
            if text.len() > 1 << 16 {
                emit(&mut text)?;
            }
        }
        // A chunk ends when the input pauses: whoever is waiting gets these answers now.
        emit(&mut text)?;
        if let Some(error) = pending {
            return Err(error);
        }
    }
    Ok(if any {
        Status::Success
    } else {
        Status::NothingFound
    })
}

/// Writes `text` to standard output and clears it.
fn emit(text: &mut Vec<u8>) -> Result<(), String> {
    use std::io::Write;
    let result = std::io::stdout().lock().write_all(text);
    text.clear();
    crate::print::check(result)
}

/// Appends the answer line for one value: the row groups that may hold it (`true`: by its
/// bloom filter; `false`: the row group has no readable filter).
fn write_answer(text: &mut Vec<u8>, shown: &[u8], groups: &[(usize, bool)], json: bool) {
    use std::io::Write;
    if json {
        let _ = writeln!(
            text,
            "{{{},\"may_be_present\":{},\"row_groups\":{}}}",
            json::bytes_member("value", shown),
            !groups.is_empty(),
            json::array(groups.iter().map(|(group, _)| group))
        );
        return;
    }
    text.extend_from_slice(shown);
    if groups.is_empty() {
        let _ = writeln!(text, "\tabsent");
    } else {
        let list: Vec<String> = groups
            .iter()
            .map(|(group, filtered)| {
                if *filtered {
                    group.to_string()
                } else {
                    format!("{group} (no bloom filter)")
                }
            })
            .collect();
        let _ = writeln!(text, "\tmay be present in row groups {}", list.join(", "));
    }
}

/// `value` (text, or hex with `hex`) read as `kind`.
fn probe(kind: &Kind, value: &[u8], hex: bool) -> Result<Probe, String> {
    let hashes = if hex {
        kind.hex_hash(&decode_hex(value)?)?
    } else {
        kind.hashes(value)?
    };
    Ok(Probe {
        shown: value.to_vec(),
        hashes,
    })
}

/// Where the values to test come from.
enum Source {
    /// `--value`: one value, taken by the first chunk.
    One(Option<Probe>),
    /// `--values`: lines, read a chunk at a time.
    Lines(Lines),
}

impl Source {
    /// Replaces `chunk` with the next values: at most [`CHUNK`], fewer when the lines read so
    /// far are used up (the rest has not arrived yet), none at the end. A line that cannot be
    /// read ends the chunk and is returned as the error, the values before it kept in `chunk`.
    fn next_chunk(&mut self, chunk: &mut Vec<Probe>) -> Option<String> {
        chunk.clear();
        match self {
            Source::One(probe) => chunk.extend(probe.take()),
            Source::Lines(lines) => {
                while chunk.len() < CHUNK && (chunk.is_empty() || !lines.is_waiting()) {
                    match lines.next_probe() {
                        Ok(Some(probe)) => chunk.push(probe),
                        Ok(None) => break,
                        Err(error) => return Some(error),
                    }
                }
            }
        }
        None
    }
}

/// Values one per line (the line end, `\n` or `\r\n`, removed), read as `kind` one at a
/// time, so memory does not grow with the input.
struct Lines {
    reader: std::io::BufReader<Box<dyn std::io::Read>>,
    /// The input has ended (a terminal's Ctrl-D is read once).
    ended: bool,
    name: String,
    kind: Kind,
    hex: bool,
    line: usize,
    buffer: Vec<u8>,
}

impl Lines {
    /// Lines of `path` (`-`: standard input).
    fn open(path: &std::path::Path, kind: Kind, hex: bool) -> Result<Lines, String> {
        let (source, name): (Box<dyn std::io::Read>, String) = if path.as_os_str() == "-" {
            (Box::new(std::io::stdin()), "standard input".to_owned())
        } else {
            let name = path.display().to_string();
            let file = File::open(path).map_err(|error| format!("cannot open {name}: {error}"))?;
            (Box::new(file), name)
        };
        Ok(Lines {
            reader: std::io::BufReader::with_capacity(1 << 16, source),
            ended: false,
            name,
            kind,
            hex,
            line: 0,
            buffer: Vec::new(),
        })
    }

    /// Whether every line read so far has been taken, so the next one waits for the input.
    fn is_waiting(&self) -> bool {
        self.reader.buffer().is_empty()
    }

    /// The next value, or `None` at the end of the input.
    fn next_probe(&mut self) -> Result<Option<Probe>, String> {
        use std::io::BufRead;
        if self.ended {
            return Ok(None);
        }
        self.buffer.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.buffer)
            .map_err(|error| format!("cannot read {}: {error}", self.name))?;
        if read == 0 {
            self.ended = true;
            return Ok(None);
        }
        self.line += 1;
        let value = self.buffer.strip_suffix(b"\n").unwrap_or(&self.buffer);
        let value = value.strip_suffix(b"\r").unwrap_or(value);
        probe(&self.kind, value, self.hex)
            .map(Some)
            .map_err(|error| format!("{}, line {}: {error}", self.name, self.line))
    }
}

/// The leaf column named `column`: its dotted path, or a top-level name with a single leaf.
fn find_column<'a>(
    metadata: &'a ParquetMetaData,
    column: &str,
) -> Result<(usize, &'a ColumnDescriptor), String> {
    let leaves = metadata.file_metadata().schema_descr().columns();
    if let Some(found) = leaves
        .iter()
        .position(|leaf| leaf.path().string() == column)
    {
        return Ok((found, &leaves[found]));
    }
    let under: Vec<usize> = (0..leaves.len())
        .filter(|&i| leaves[i].path().parts().first().map(String::as_str) == Some(column))
        .collect();
    match under[..] {
        [one] => Ok((one, &leaves[one])),
        [] => {
            let names: Vec<String> = leaves.iter().map(|leaf| leaf.path().string()).collect();
            Err(format!(
                "no column {column} (columns: {})",
                names.join(", ")
            ))
        }
        _ => {
            let names: Vec<String> = under.iter().map(|&i| leaves[i].path().string()).collect();
            Err(format!(
                "column {column} has several leaf columns; name one: {}",
                names.join(", ")
            ))
        }
    }
}

/// Prints each leaf column: path, physical type, the type values are read as, and which row
/// groups have a bloom filter for it.
fn list_columns(metadata: &ParquetMetaData, json: bool) -> Result<(), String> {
    let groups = metadata.row_groups();
    for (index, leaf) in metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .enumerate()
    {
        let path = leaf.path().string();
        let (with, without): (Vec<usize>, Vec<usize>) = (0..groups.len()).partition(|&group| {
            groups[group]
                .columns()
                .get(index)
                .is_some_and(|chunk| chunk.bloom_filter_offset().is_some())
        });
        if json {
            out!(
                "{{\"column\":{},\"physical_type\":{},\"type\":{},\"row_groups_with_filter\":{},\"row_groups_without_filter\":{}}}",
                json::string(&path),
                json::string(&leaf.physical_type().to_string()),
                json::string(&Kind::of(leaf).name()),
                json::array(&with),
                json::array(&without)
            )?;
            continue;
        }
        let list = |groups: &[usize]| {
            groups
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let filters = match (with.is_empty(), without.is_empty()) {
            (true, _) => format!("no bloom filter ({} row groups)", groups.len()),
            (false, true) => format!("bloom filter in every row group ({})", list(&with)),
            (false, false) => format!(
                "bloom filter in row groups {}; none in {}",
                list(&with),
                list(&without)
            ),
        };
        out!(
            "{path}  {}  {}  {filters}",
            leaf.physical_type(),
            Kind::of(leaf).name()
        )?;
    }
    Ok(())
}

/// Prints one line per column chunk that has a bloom filter.
fn list_filters(
    metadata: &ParquetMetaData,
    file: &mut File,
    name: &str,
    json: bool,
) -> Result<(), String> {
    for (group, row_group) in metadata.row_groups().iter().enumerate() {
        for chunk in row_group.columns() {
            let column = chunk.column_path().string();
            let Some(bitset) = read_filter(file, chunk)
                .map_err(|error| format!("{name}: row group {group}, column {column}: {error}"))?
            else {
                continue;
            };
            let (filter, _) = FilterRef::<ParquetHash>::from_parquet_bytes(&bitset)
                .map_err(|error| format!("{name}: row group {group}, column {column}: {error}"))?;
            if json {
                out!(
                    "{{\"row_group\":{group},\"column\":{},\"physical_type\":{},\"bloom_filter_bytes\":{},\"estimated_fpr\":{}}}",
                    json::string(&column),
                    json::string(&chunk.column_type().to_string()),
                    filter.num_blocks() * splitbloom::BLOCK_BYTES,
                    json::number(filter.estimated_fpr())
                )?;
                continue;
            }
            out!(
                "row group {group}  column {column}  {}  bloom filter {} bytes, estimated FPR {:.4}%",
                chunk.column_type(),
                filter.num_blocks() * splitbloom::BLOCK_BYTES,
                100.0 * filter.estimated_fpr()
            )?;
        }
    }
    Ok(())
}

/// The header and bitset of `chunk`'s bloom filter, if it has one.
fn read_filter(file: &mut File, chunk: &ColumnChunkMetaData) -> Result<Option<Vec<u8>>, String> {
    let Some(offset) = chunk.bloom_filter_offset() else {
        return Ok(None);
    };
    let offset = u64::try_from(offset).map_err(|_| "negative bloom filter offset".to_owned())?;
    let read_at = |file: &mut File, length: usize| -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.take(length as u64).read_to_end(&mut bytes))
            .map_err(|error| format!("cannot read the bloom filter: {error}"))?;
        Ok(bytes)
    };
    // The header is a few bytes; read enough for it, then the whole filter it announces (at
    // most a header plus Parquet's 128 MiB bitset limit).
    let (num_bytes, header_len) =
        read_header(&read_at(file, 64)?).map_err(|error| error.to_string())?;
    if num_bytes > splitbloom::parquet::MAX_BITSET_BYTES {
        return Err(format!(
            "a bloom filter of {num_bytes} bytes exceeds Parquet's 128 MiB limit"
        ));
    }
    read_at(file, header_len + num_bytes).map(Some)
}
