//! `splitbloom parquet-info` and the ways users write values: logical types, negative numbers,
//! batches, column names, JSON.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use super::writers::cases;
use crate::support::{
    Session, fails_mentioning, finished, parquet_fixture, parquet_writer, run, scratch,
};

/// `--value -1` is a value, not an option; unsigned columns take their own range.
#[test]
fn negative_numbers_and_unsigned_integers() {
    let file = parquet_fixture("duckdb.parquet");
    let test = |column: &str, value: &str| {
        run(
            &["parquet-info", &file, "--column", column, "--value", value],
            b"",
        )
    };
    // -128 is in row groups 0 and 2 of i8 (see duckdb.expected.tsv).
    let output = finished(test("i8", "-128"), 0);
    assert!(
        output.starts_with("row group 0: may be present"),
        "{output}"
    );
    // The largest UINT32 and UINT64 values of the fixture (unsigned(bits) of index 0).
    finished(test("u32", "4294967295"), 0);
    finished(test("u64", "18446744073709551615"), 0);
    fails_mentioning(
        test("u32", "-1"),
        &["UINT32", "out of range", "0 to 4294967295"],
    );
    fails_mentioning(test("i8", "200"), &["INT8", "-128 to 127"]);
}

/// A value that does not parse for the column's type is an error naming the type and an
/// accepted form, never a silent "absent".
#[test]
fn values_that_do_not_parse_name_the_type_and_a_form() {
    let file = parquet_fixture("pyarrow.parquet");
    let test = |column: &str, value: &str| {
        run(
            &["parquet-info", &file, "--column", column, "--value", value],
            b"",
        )
    };
    fails_mentioning(test("date", "2024-13-01"), &["DATE", "2024-01-31"]);
    fails_mentioning(test("date", "19000"), &["DATE"]);
    fails_mentioning(
        test("ts_ms", "2024-01-01T00:00:00.0001"),
        &["TIMESTAMP(MILLIS, local)", "precise"],
    );
    fails_mentioning(test("ts_us", "2024-01-01T00:00:00Z"), &["local", "offset"]);
    fails_mentioning(
        test("dec9", "0.001"),
        &["DECIMAL(9,2)", "2 digits after the point"],
    );
    fails_mentioning(
        test("dec9", "12345678.9"),
        &["DECIMAL(9,2)", "at most 9 digits"],
    );
    fails_mentioning(
        test("uuid", "xyz"),
        &["UUID", "67e55044-10b1-426f-9247-bb680e5fe0c8"],
    );
    fails_mentioning(
        test("fixed", "abc"),
        &["FIXED_LEN_BYTE_ARRAY(4)", "3 bytes"],
    );
    fails_mentioning(test("f16", "half"), &["FLOAT16"]);
    fails_mentioning(test("i32", "twelve"), &["cannot read \"twelve\" as INT32"]);
    let hex = |column: &str, value: &str| {
        run(
            &[
                "parquet-info",
                &file,
                "--column",
                column,
                "--hex",
                "--value",
                value,
            ],
            b"",
        )
    };
    fails_mentioning(hex("i64", "0001"), &["INT64", "8 bytes"]);
    fails_mentioning(hex("bin", "0g"), &["hex"]);
    // A bad line of a batch names its line number.
    fails_mentioning(
        run(
            &["parquet-info", &file, "--column", "date", "--values", "-"],
            b"2024-01-01\nnope\n",
        ),
        &["line 2", "DATE"],
    );
}

/// Natural input for FIXED_LEN_BYTE_ARRAY logical types (pyarrow stores decimals that way),
/// and binary values containing NUL bytes through `--hex`.
#[test]
fn fixed_len_byte_array_values_as_users_write_them() {
    let file = parquet_fixture("pyarrow.parquet");
    for (column, hex) in [
        ("uuid", false),
        ("dec9", false),
        ("dec38", false),
        ("f16", false),
        ("bin", true),
    ] {
        let case = cases("pyarrow.expected.tsv")
            .into_iter()
            .find(|case| case.column == column && !case.present.is_empty())
            .unwrap();
        assert_eq!(case.hex, hex);
        let mut args = vec![
            "parquet-info",
            &file,
            "--column",
            column,
            "--value",
            &case.value,
        ];
        if hex {
            args.push("--hex");
            assert!(case.value.contains("00"), "a value with a NUL byte");
        }
        let output = finished(run(&args, b""), 0);
        for group in &case.present {
            assert!(
                output.contains(&format!("row group {group}: may be present")),
                "{column} {}: {output}",
                case.value
            );
        }
    }
}

/// Batches: one line per value, plain or JSON; exit 1 when no value may be present; from a file
/// or standard input; 100,000 values in well under a second.
#[test]
fn batches_of_values() {
    let file = parquet_fixture("duckdb-mixed.parquet");
    let dir = scratch("batches");
    let values = dir.join("values.txt");
    std::fs::write(&values, b"0\r\n150\n").unwrap();
    let output = finished(
        run(
            &[
                "parquet-info",
                &file,
                "--column",
                "id",
                "--values",
                values.to_str().unwrap(),
            ],
            b"",
        ),
        0,
    );
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("0\tmay be present in row groups 0, 1 (no bloom filter)"));
    assert!(lines[1].starts_with("150\tmay be present in row groups 1 (no bloom filter)"));

    // The pyarrow file has filters everywhere: values in no row group are absent, exit 1.
    let pyarrow = parquet_fixture("pyarrow.parquet");
    let absent: Vec<String> = cases("pyarrow.expected.tsv")
        .into_iter()
        .filter(|case| case.column == "str" && case.present.is_empty())
        .map(|case| case.value)
        .collect();
    let json = run(
        &[
            "parquet-info",
            &pyarrow,
            "--column",
            "str",
            "--values",
            "-",
            "--json",
        ],
        format!("{}\n", absent.join("\n")).as_bytes(),
    );
    let output = String::from_utf8(json.stdout).unwrap();
    let all_absent = output
        .lines()
        .all(|line| line.contains("\"may_be_present\":false,\"row_groups\":[]"));
    assert_eq!(json.status.code(), Some(if all_absent { 1 } else { 0 }));
    // Three values surely absent from every filter (checked: none is a false positive).
    let output = run(
        &["parquet-info", &pyarrow, "--column", "i64", "--values", "-"],
        b"1\n2\n3\n",
    );
    assert_eq!(finished(output, 1), "1\tabsent\n2\tabsent\n3\tabsent\n");
    // The same with --json, and one value with --json.
    let output = run(
        &[
            "parquet-info",
            &pyarrow,
            "--column",
            "i64",
            "--value",
            "1",
            "--json",
        ],
        b"",
    );
    assert_eq!(
        finished(output, 1),
        "{\"value\":\"1\",\"may_be_present\":false,\"row_groups\":[]}\n"
    );

    // 100,000 values, one process, against three row groups.
    let input: String = (0..100_000).map(|i| format!("{i}\n")).collect();
    let start = Instant::now();
    let output = finished(
        run(
            &["parquet-info", &pyarrow, "--column", "i64", "--values", "-"],
            input.as_bytes(),
        ),
        0,
    );
    let elapsed = start.elapsed();
    assert_eq!(output.lines().count(), 100_000);
    println!("100,000 values: {elapsed:?}");
    // Generous for a shared, busy test machine; typically tens of milliseconds.
    assert!(elapsed.as_secs_f64() < 5.0, "{elapsed:?}");
}

/// `--columns` lists every leaf; a top-level name with one leaf stands for it; a group of
/// several leaves is ambiguous.
#[test]
fn columns_listing_and_names() {
    let file = parquet_fixture("pyarrow.parquet");
    let listing = finished(run(&["parquet-info", &file, "--columns"], b""), 0);
    assert_eq!(listing.lines().count(), 27, "{listing}");
    for line in [
        "u32  INT32  UINT32  bloom filter in every row group (0, 1, 2)",
        "dec9  FIXED_LEN_BYTE_ARRAY  DECIMAL(9,2)  bloom filter in every row group (0, 1, 2)",
        "ts_us_utc  INT64  TIMESTAMP(MICROS, UTC)  bloom filter in every row group (0, 1, 2)",
        "tags.list.element  BYTE_ARRAY  STRING  bloom filter in every row group (0, 1, 2)",
    ] {
        assert!(listing.lines().any(|l| l == line), "{line} in {listing}");
    }
    let test = |column: &str| {
        run(
            &[
                "parquet-info",
                &file,
                "--column",
                column,
                "--value",
                "value-1",
            ],
            b"",
        )
    };
    let by_path = finished(test("tags.list.element"), 0);
    assert_eq!(finished(test("tags"), 0), by_path);

    let dir = scratch("names");
    let two = dir.join("two.parquet");
    write_file(
        &two,
        "message m { required group g { required int32 a; required int32 b; } }",
    );
    fails_mentioning(
        run(
            &[
                "parquet-info",
                two.to_str().unwrap(),
                "--column",
                "g",
                "--value",
                "1",
            ],
            b"",
        ),
        &["column g has several leaf columns; name one: g.a, g.b"],
    );
}

/// Writes an empty Parquet file (no row group) of `schema` with arrow-rs.
fn write_file(path: &Path, schema: &str) {
    parquet_writer(path, schema, false).close().unwrap();
}

/// SQL's `= 0` matches `-0.0`, but writers hash the bits: `--value 0` and `--value -0.0` ask for
/// both zeros, so a DOUBLE column holding only `-0.0` may hold `0`.
#[test]
fn zero_matches_negative_zero_as_in_sql() {
    use parquet::data_type::DoubleType;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;

    let dir = scratch("zeros");
    let path = dir.join("zero.parquet");
    let schema = "message m { required double x; }";
    let schema = Arc::new(parquet::schema::parser::parse_message_type(schema).unwrap());
    let properties = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.0001)
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(properties)).unwrap();
    let mut row_group = writer.next_row_group().unwrap();
    let mut column = row_group.next_column().unwrap().unwrap();
    column
        .typed::<DoubleType>()
        .write_batch(&[-0.0], None, None)
        .unwrap();
    column.close().unwrap();
    row_group.close().unwrap();
    writer.close().unwrap();
    let file = path.to_str().unwrap();
    for zero in ["0", "-0.0", "0e0"] {
        let output = run(
            &["parquet-info", file, "--column", "x", "--value", zero],
            b"",
        );
        assert!(finished(output, 0).contains("may be present"), "{zero}");
    }
}

/// A batch is answered a chunk at a time: memory does not grow with the number of values
/// (4,000,000 values under a 150 MB address-space limit; keeping every value took ~100 bytes
/// each).
#[cfg(target_os = "linux")]
#[test]
fn batches_stream_in_bounded_memory() {
    let file = parquet_fixture("duckdb-mixed.parquet");
    let dir = scratch("stream");
    let values = dir.join("values.txt");
    let input: String = (0..4_000_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(&values, input).unwrap();
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 150000 && exec \"$0\" \"$@\" > \"$OUT\"")
        .env("OUT", dir.join("answers.txt"))
        .arg(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["parquet-info", &file, "--column", "id", "--values"])
        .arg(&values)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let answers = std::fs::read(dir.join("answers.txt")).unwrap();
    assert_eq!(
        answers.iter().filter(|&&byte| byte == b'\n').count(),
        4_000_000
    );
}

/// `--values` answers every line before a bad one, then names the bad line (exit 2); lines are
/// answered while the input stays open.
#[test]
fn values_are_answered_up_to_a_bad_line_and_as_they_arrive() {
    let file = parquet_fixture("pyarrow.parquet");
    let mut input: String = (1..=1500).map(|i| format!("{i}\n")).collect();
    input.push_str("xx\n2\n");
    let output = run(
        &["parquet-info", &file, "--column", "i32", "--values", "-"],
        input.as_bytes(),
    );
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1500, "{stdout}");
    assert!(stdout.starts_with("1\t") && stdout.ends_with("\n"));
    assert!(stdout.lines().last().unwrap().starts_with("1500\t"));
    fails_mentioning(output, &["standard input, line 1501", "\"xx\"", "INT32"]);

    let mut session = Session::start(&["parquet-info", &file, "--column", "i32", "--values", "-"]);
    session.send(b"1\n");
    assert!(session.next_line().starts_with(b"1\t"));
    session.send(b"2\n");
    assert!(session.next_line().starts_with(b"2\t"));
    let (code, rest) = session.finish();
    assert!(rest.is_empty());
    assert!(matches!(code, Some(0 | 1)), "{code:?}");
}

/// With `--json`, values that are not UTF-8 print as hex, so two of them never print alike;
/// `--columns` and the filter listing print one object per line.
#[test]
fn json_everywhere_and_unambiguous() {
    let file = parquet_fixture("pyarrow.parquet");
    let output = run(
        &[
            "parquet-info",
            &file,
            "--column",
            "str",
            "--values",
            "-",
            "--json",
        ],
        b"\xff\n\xfe\n",
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let values: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(values.len(), 2, "{stdout}");
    assert_eq!(values[0]["value_hex"], "ff");
    assert_eq!(values[1]["value_hex"], "fe");
    assert!(values[0].get("value").is_none());

    let columns = finished(run(&["parquet-info", &file, "--columns", "--json"], b""), 0);
    let columns: Vec<serde_json::Value> = columns
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let i32_column = columns
        .iter()
        .find(|column| column["column"] == "i32")
        .unwrap();
    assert_eq!(i32_column["physical_type"], "INT32");
    assert!(
        !i32_column["row_groups_with_filter"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(
        columns
            .iter()
            .any(|column| column["column"] == "tags.list.element")
    );

    let listing = finished(run(&["parquet-info", &file, "--json"], b""), 0);
    let filters: Vec<serde_json::Value> = listing
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(!filters.is_empty());
    assert!(
        filters
            .iter()
            .all(|filter| filter["bloom_filter_bytes"].as_u64().unwrap() > 0)
    );
    assert!(filters.iter().any(|filter| filter["column"] == "str"));
}
