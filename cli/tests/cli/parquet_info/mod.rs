//! `splitbloom parquet-info` on files written by arrow-rs: listing, row groups without a filter
//! or with an unreadable one; `writers` and `values` hold the files of real writers and the
//! ways users write values.

mod values;
mod writers;

use std::path::Path;
use std::process::Output;

use crate::support::{fails, parquet_file, parquet_writer, path, run, scratch, succeeded};

#[test]
fn parquet_info_lists_filters_and_tests_values() {
    let dir = scratch("parquet");
    let file = path(&dir, "data.parquet");
    parquet_file(Path::new(&file));
    let listing = String::from_utf8(succeeded(run(&["parquet-info", &file], b""))).unwrap();
    assert_eq!(listing.lines().count(), 4, "{listing}");
    assert!(
        listing.contains("row group 1  column name  BYTE_ARRAY"),
        "{listing}"
    );
    assert!(
        listing.contains("row group 0  column id  INT64"),
        "{listing}"
    );

    let test = |column: &str, value: &str| {
        run(
            &["parquet-info", &file, "--column", column, "--value", value],
            b"",
        )
    };
    const ABSENT: &str = "absent (its bloom filter excludes the value)";
    const MAY_HOLD: &str = "may be present (its bloom filter may hold the value)";
    assert_eq!(
        String::from_utf8(succeeded(test("id", "1500"))).unwrap(),
        format!("row group 0: {ABSENT}\nrow group 1: {MAY_HOLD}\n")
    );
    assert_eq!(
        String::from_utf8(succeeded(test("name", "name-7"))).unwrap(),
        format!("row group 0: {MAY_HOLD}\nrow group 1: {ABSENT}\n")
    );
    // Absent from every row group (at 0.1%, these few strangers are all absent): exit 1.
    for value in ["5000", "2001", "123456789"] {
        let output = test("id", value);
        assert_eq!(output.status.code(), Some(1), "{value}");
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            format!("row group 0: {ABSENT}\nrow group 1: {ABSENT}\n")
        );
    }
    fails(test("id", "twelve"), "cannot read \"twelve\" as INT64");
    fails(
        test("missing", "1"),
        "no column missing (columns: id, name)",
    );
    fails(
        run(&["parquet-info", &path(&dir, "nope")], b""),
        "cannot open",
    );
    let not_parquet = path(&dir, "text");
    std::fs::write(&not_parquet, b"hello").unwrap();
    fails(
        run(&["parquet-info", &not_parquet], b""),
        "not a readable Parquet file",
    );
    // A corrupt bloom filter header is reported, not a panic.
    let corrupt = path(&dir, "corrupt.parquet");
    write_with_an_unreadable_filter(&file, &corrupt);
    fails(
        run(&["parquet-info", &corrupt], b""),
        "row group 0, column id: invalid Parquet bloom filter header",
    );
}

/// Writes a copy of the Parquet file `file` to `corrupt` in which the bloom filter header of row
/// group 0, column 0 cannot be read: its field 1 (numBytes) has the Thrift type i64, not i32.
fn write_with_an_unreadable_filter(file: &str, corrupt: &str) {
    let reader = std::fs::File::open(file).unwrap();
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&reader)
        .unwrap();
    let offset = metadata
        .row_group(0)
        .column(0)
        .bloom_filter_offset()
        .unwrap() as usize;
    let mut bytes = std::fs::read(file).unwrap();
    assert_eq!(bytes[offset], 0x15, "field 1, i32");
    bytes[offset] = 0x16;
    std::fs::write(corrupt, &bytes).unwrap();
}

/// A Parquet file of one INT64 column `id` in three row groups of 1000 ids each (0.., 1000..,
/// 2000..), where the middle row group has no bloom filter: a mix DuckDB writes by default.
fn parquet_file_with_a_gap(path: &Path) {
    use parquet::column::writer::{get_column_writer, get_typed_column_writer_mut};
    use parquet::data_type::Int64Type;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
    use std::sync::Arc;

    let mut writer = parquet_writer(path, "message test { REQUIRED INT64 id; }", true);
    let descriptor = writer.schema_descr().column(0);
    for group in 0..3i64 {
        let ids: Vec<i64> = (group * 1000..group * 1000 + 1000).collect();
        let mut row_group = writer.next_row_group().unwrap();
        if group == 1 {
            // Encoded separately without a filter, then spliced in.
            let chunk = path.with_extension("chunk");
            let mut sink = TrackedWrite::new(std::fs::File::create(&chunk).unwrap());
            let pages = Box::new(SerializedPageWriter::new(&mut sink));
            let plain = Arc::new(WriterProperties::builder().build());
            let mut column = get_column_writer(descriptor.clone(), plain, pages);
            get_typed_column_writer_mut::<Int64Type>(&mut column)
                .write_batch(&ids, None, None)
                .unwrap();
            let closed = column.close().unwrap();
            assert!(closed.bloom_filter.is_none());
            sink.into_inner().unwrap();
            let reader = std::fs::File::open(&chunk).unwrap();
            row_group.append_column(&reader, closed).unwrap();
        } else {
            let mut column = row_group.next_column().unwrap().unwrap();
            column
                .typed::<Int64Type>()
                .write_batch(&ids, None, None)
                .unwrap();
            column.close().unwrap();
        }
        row_group.close().unwrap();
    }
    writer.close().unwrap();
}

/// A row group without a bloom filter may hold any value: `parquet-info` must not answer
/// "absent" (exit 1) because the row groups that have filters exclude it.
#[test]
fn parquet_info_counts_row_groups_without_a_filter_as_may_hold() {
    let dir = scratch("parquet_gap");
    let file = path(&dir, "gap.parquet");
    parquet_file_with_a_gap(Path::new(&file));
    // The listing shows the two filters that exist.
    let listing = String::from_utf8(succeeded(run(&["parquet-info", &file], b""))).unwrap();
    assert_eq!(listing.lines().count(), 2, "{listing}");
    assert!(!listing.contains("row group 1"), "{listing}");

    let test = |value: &str| {
        run(
            &["parquet-info", &file, "--column", "id", "--value", value],
            b"",
        )
    };
    // 1500 is in row group 1, which has no filter; the others' filters exclude it.
    assert_eq!(
        String::from_utf8(succeeded(test("1500"))).unwrap(),
        "row group 0: absent (its bloom filter excludes the value)\n\
         row group 1: may be present (no bloom filter)\n\
         row group 2: absent (its bloom filter excludes the value)\n"
    );
    // A value in no row group still may be in the unfiltered one.
    let output = String::from_utf8(succeeded(test("987654321"))).unwrap();
    assert!(output.contains("row group 1: may be present (no bloom filter)"));
    let output = String::from_utf8(succeeded(test("2500"))).unwrap();
    assert!(output.contains("row group 2: may be present (its bloom filter may hold the value)"));
    // A column that does not exist is an error naming the columns.
    fails(
        test_column(&file, "nope", "1"),
        "no column nope (columns: id)",
    );
    fails(test("twelve"), "cannot read \"twelve\" as INT64");
}

fn test_column(file: &str, column: &str, value: &str) -> Output {
    run(
        &["parquet-info", file, "--column", column, "--value", value],
        b"",
    )
}

/// A filter that cannot be read may hold the value: reported per row group, not an error and
/// never "absent".
#[test]
fn parquet_info_counts_unreadable_filters_as_may_hold() {
    let dir = scratch("parquet_unreadable");
    let file = path(&dir, "data.parquet");
    parquet_file(Path::new(&file));
    let corrupt = path(&dir, "corrupt.parquet");
    write_with_an_unreadable_filter(&file, &corrupt);
    let output = String::from_utf8(succeeded(test_column(&corrupt, "id", "5000"))).unwrap();
    assert!(
        output.starts_with("row group 0: may be present (bloom filter unreadable: "),
        "{output}"
    );
    assert!(
        output.ends_with("row group 1: absent (its bloom filter excludes the value)\n"),
        "{output}"
    );
}
