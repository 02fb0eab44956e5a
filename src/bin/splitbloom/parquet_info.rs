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

/// Runs `parquet-info`: lists the filters, or with `--column`/`--value` exits 0 when some row
/// group may hold the value and 1 when every row group certainly does not.
pub fn run(options: &Options) -> Result<Status, String> {
    let name = options.file.display();
    let mut file =
        File::open(&options.file).map_err(|error| format!("cannot open {name}: {error}"))?;
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|error| format!("{name}: not a readable Parquet file: {error}"))?;
    let mut tested = 0;
    let mut maybe = false;
    for (group, row_group) in metadata.row_groups().iter().enumerate() {
        for chunk in row_group.columns() {
            let column = chunk.column_path().string();
            if options
                .column
                .as_ref()
                .is_some_and(|wanted| *wanted != column)
            {
                continue;
            }
            let Some(bitset) = read_filter(&mut file, chunk)
                .map_err(|error| format!("{name}: row group {group}, column {column}: {error}"))?
            else {
                continue;
            };
            let (filter, _) = FilterRef::<ParquetHash>::from_parquet_bytes(&bitset)
                .map_err(|error| format!("{name}: row group {group}, column {column}: {error}"))?;
            match &options.value {
                Some(value) => {
                    let present = contains(&filter, chunk.column_type(), value)?;
                    out!(
                        "row group {group}: {}",
                        if present { "may be present" } else { "absent" }
                    )?;
                    tested += 1;
                    maybe |= present;
                }
                None => out!(
                    "row group {group}  column {column}  {}  bloom filter {} bytes, estimated FPR {:.4}%",
                    chunk.column_type(),
                    filter.num_blocks() * splitbloom::BLOCK_BYTES,
                    100.0 * filter.estimated_fpr()
                )?,
            }
        }
    }
    match &options.column {
        Some(column) if tested == 0 => Err(format!("{name}: no bloom filter for column {column}")),
        Some(_) if !maybe => Ok(Status::NothingFound),
        _ => Ok(Status::Success),
    }
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

/// Whether `value`, parsed as `physical`, may be in `filter`.
fn contains(
    filter: &FilterRef<'_, ParquetHash>,
    physical: PhysicalType,
    value: &OsString,
) -> Result<bool, String> {
    let text = || {
        value
            .to_str()
            .ok_or_else(|| format!("{physical} values must be UTF-8 numbers"))
    };
    let parse_error =
        |error: &dyn std::fmt::Display| format!("cannot read {value:?} as {physical}: {error}");
    Ok(match physical {
        PhysicalType::INT32 => {
            filter.contains_value(&text()?.parse::<i32>().map_err(|e| parse_error(&e))?)
        }
        PhysicalType::INT64 => {
            filter.contains_value(&text()?.parse::<i64>().map_err(|e| parse_error(&e))?)
        }
        PhysicalType::FLOAT => {
            filter.contains_value(&text()?.parse::<f32>().map_err(|e| parse_error(&e))?)
        }
        PhysicalType::DOUBLE => {
            filter.contains_value(&text()?.parse::<f64>().map_err(|e| parse_error(&e))?)
        }
        PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY => {
            filter.contains_value(value.as_encoded_bytes())
        }
        other => return Err(format!("cannot test values of physical type {other}")),
    })
}
