//! `splitbloom parquet-info` (feature `parquet`): the column chunks of a Parquet file that
//! carry bloom filters, and whether a value may be in them.
//!
//! The footer is decoded by the `parquet` crate (a Thrift parser of the whole `FileMetaData` is
//! more than this crate should carry); each bloom filter (a `BloomFilterHeader` and the bitset)
//! is read and answered by splitbloom itself.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use parquet::basic::Type as PhysicalType;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaDataReader};
use splitbloom::FilterRef;
use splitbloom::parquet::{ParquetHash, read_header};

use crate::Status;
use crate::out::out;

/// Options of `splitbloom parquet-info`.
#[derive(clap::Args)]
pub struct Options {
    /// The Parquet file.
    file: PathBuf,
    /// Test a value against this column's bloom filters (dotted path, e.g. `a.b`).
    #[arg(long, requires = "value")]
    column: Option<String>,
    /// The value to test, parsed as the column's physical type (INT32, INT64, FLOAT, DOUBLE;
    /// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY take the argument's bytes).
    #[arg(long, requires = "column")]
    value: Option<OsString>,
}

/// What one row group's filter says about the value.
enum Verdict {
    /// Its bloom filter excludes the value.
    Absent,
    /// Its bloom filter may hold the value.
    MayHold,
    /// No bloom filter for the column: the row group may hold the value.
    NoFilter,
    /// The filter cannot be read: the row group may hold the value.
    Unreadable(String),
}

impl Verdict {
    fn line(&self, group: usize) -> String {
        match self {
            Verdict::Absent => {
                format!("row group {group}: absent (its bloom filter excludes the value)")
            }
            Verdict::MayHold => {
                format!("row group {group}: may be present (its bloom filter may hold the value)")
            }
            Verdict::NoFilter => format!("row group {group}: may be present (no bloom filter)"),
            Verdict::Unreadable(error) => {
                format!("row group {group}: may be present (bloom filter unreadable: {error})")
            }
        }
    }
}

/// Runs `parquet-info`: lists the filters, or with `--column`/`--value` exits 0 when some row
/// group may hold the value and 1 only when every row group's filter excludes it. A row group
/// without a filter for the column, or whose filter cannot be read, may hold the value.
pub fn run(options: &Options) -> Result<Status, String> {
    let name = options.file.display();
    let mut file =
        File::open(&options.file).map_err(|error| format!("cannot open {name}: {error}"))?;
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|error| format!("{name}: not a readable Parquet file: {error}"))?;
    if let (Some(column), Some(value)) = (&options.column, &options.value) {
        let schema = metadata.file_metadata().schema_descr();
        let Some(descriptor) = schema
            .columns()
            .iter()
            .find(|descriptor| descriptor.path().string() == *column)
        else {
            let names: Vec<String> = schema
                .columns()
                .iter()
                .map(|descriptor| descriptor.path().string())
                .collect();
            return Err(format!(
                "{name}: no column {column} (columns: {})",
                names.join(", ")
            ));
        };
        let value = Value::parse(descriptor.physical_type(), value)?;
        let mut maybe = false;
        for (group, row_group) in metadata.row_groups().iter().enumerate() {
            let chunk = row_group
                .columns()
                .iter()
                .find(|chunk| chunk.column_path().string() == *column);
            let verdict = match chunk {
                None => Verdict::NoFilter,
                Some(chunk) => match read_filter(&mut file, chunk) {
                    Ok(None) => Verdict::NoFilter,
                    Ok(Some(bitset)) => {
                        match FilterRef::<ParquetHash>::from_parquet_bytes(&bitset) {
                            Ok((filter, _)) if value.may_be_in(&filter) => Verdict::MayHold,
                            Ok(_) => Verdict::Absent,
                            Err(error) => Verdict::Unreadable(error.to_string()),
                        }
                    }
                    Err(error) => Verdict::Unreadable(error),
                },
            };
            maybe |= !matches!(verdict, Verdict::Absent);
            out!("{}", verdict.line(group))?;
        }
        return Ok(if maybe {
            Status::Success
        } else {
            Status::NothingFound
        });
    }
    for (group, row_group) in metadata.row_groups().iter().enumerate() {
        for chunk in row_group.columns() {
            let column = chunk.column_path().string();
            let Some(bitset) = read_filter(&mut file, chunk)
                .map_err(|error| format!("{name}: row group {group}, column {column}: {error}"))?
            else {
                continue;
            };
            let (filter, _) = FilterRef::<ParquetHash>::from_parquet_bytes(&bitset)
                .map_err(|error| format!("{name}: row group {group}, column {column}: {error}"))?;
            out!(
                "row group {group}  column {column}  {}  bloom filter {} bytes, estimated FPR {:.4}%",
                chunk.column_type(),
                filter.num_blocks() * splitbloom::BLOCK_BYTES,
                100.0 * filter.estimated_fpr()
            )?;
        }
    }
    Ok(Status::Success)
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

/// A value to test, parsed once as the column's physical type.
enum Value {
    Int32(i32),
    Int64(i64),
    Float(f32),
    Double(f64),
    Bytes(Vec<u8>),
}

impl Value {
    /// `value` parsed as `physical`.
    fn parse(physical: PhysicalType, value: &OsString) -> Result<Value, String> {
        let text = || {
            value
                .to_str()
                .ok_or_else(|| format!("{physical} values must be UTF-8 numbers"))
        };
        let parse_error =
            |error: &dyn std::fmt::Display| format!("cannot read {value:?} as {physical}: {error}");
        Ok(match physical {
            PhysicalType::INT32 => Value::Int32(text()?.parse().map_err(|e| parse_error(&e))?),
            PhysicalType::INT64 => Value::Int64(text()?.parse().map_err(|e| parse_error(&e))?),
            PhysicalType::FLOAT => Value::Float(text()?.parse().map_err(|e| parse_error(&e))?),
            PhysicalType::DOUBLE => Value::Double(text()?.parse().map_err(|e| parse_error(&e))?),
            PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY => {
                Value::Bytes(value.as_encoded_bytes().to_vec())
            }
            other => return Err(format!("cannot test values of physical type {other}")),
        })
    }

    /// Whether the value may be in `filter`.
    fn may_be_in(&self, filter: &FilterRef<'_, ParquetHash>) -> bool {
        match self {
            Value::Int32(value) => filter.contains_value(value),
            Value::Int64(value) => filter.contains_value(value),
            Value::Float(value) => filter.contains_value(value),
            Value::Double(value) => filter.contains_value(value),
            Value::Bytes(value) => filter.contains_value(value.as_slice()),
        }
    }
}
