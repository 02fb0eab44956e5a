//! The `splitbloom` binary, run for real on temporary files: every subcommand, every error path
//! (one line on stderr, exit status 2, no panic), exit status 1 for "nothing found", non-UTF-8
//! keys, and agreement between CLI-built filters and the library's documented key hashing.

use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use splitbloom::{Filter, FilterHasher, FilterRef};

use crate::cli_support::{GxHash, ParquetHash, Session, Xxh3, run, scratch, with_hasher_id};

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_owned()
}

/// Asserts success (status 0) and returns stdout.
fn ok(output: Output) -> Vec<u8> {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// Asserts a clean failure: status 2, one line on stderr naming the problem, no panic.
fn fails(output: Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("splitbloom: "), "{stderr}");
    assert!(
        stderr.contains(expected),
        "expected {expected:?} in {stderr}"
    );
}

/// Lines of `bytes` (each ending with `separator`).
fn records(bytes: &[u8], separator: u8) -> Vec<Vec<u8>> {
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
fn cli_hash<S: BuildHasher>(hasher: &S, key: &[u8]) -> u64 {
    let mut state = hasher.build_hasher();
    state.write(key);
    state.finish()
}

/// 1000 keys, some of them not UTF-8 and one empty.
fn sample_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = (0..997).map(|i| format!("key-{i}").into_bytes()).collect();
    keys.push(vec![0xff, 0xfe, b'x']);
    keys.push(b"caf\xe9".to_vec());
    keys.push(Vec::new());
    keys
}

fn joined(keys: &[Vec<u8>], separator: u8) -> Vec<u8> {
    keys.iter()
        .flat_map(|key| key.iter().copied().chain([separator]))
        .collect()
}

#[test]
fn build_then_query_finds_every_key_including_non_utf8() {
    let dir = scratch("build_query");
    let keys = sample_keys();
    let input = path(&dir, "keys.txt");
    std::fs::write(&input, joined(&keys, b'\n')).unwrap();
    let filter = path(&dir, "keys.sbf");
    let output = run(
        &[
            "build", "-n", "1000", "-p", "0.01", "-i", &input, "-o", &filter,
        ],
        b"",
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    ok(output);
    assert!(stderr.contains("1000 keys read"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");

    // Every key is found, from a file and from standard input, in input order.
    let found = ok(run(&["query", &filter, "-i", &input], b""));
    assert_eq!(records(&found, b'\n'), keys);
    let found = ok(run(&["query", &filter], &joined(&keys, b'\n')));
    assert_eq!(records(&found, b'\n'), keys);
    // --absent prints none of them, and exits 1 because nothing was printed.
    let output = run(&["query", "--absent", &filter, "-i", &input], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());

    // Strangers: at 1% at most a handful may be present; --absent and the default split them.
    let strangers: Vec<Vec<u8>> = (0..1000)
        .map(|i| format!("other-{i}").into_bytes())
        .collect();
    let present = records(
        &ok(run(&["query", &filter], &joined(&strangers, b'\n'))),
        b'\n',
    );
    let absent = records(
        &ok(run(
            &["query", "--absent", &filter],
            &joined(&strangers, b'\n'),
        )),
        b'\n',
    );
    assert_eq!(present.len() + absent.len(), strangers.len());
    assert!(present.len() < 40, "{} false positives", present.len());
}

#[test]
fn query_exit_status_follows_what_is_printed() {
    let dir = scratch("query_status");
    let filter = path(&dir, "f.sbf");
    ok(run(
        &["build", "-n", "100", "-p", "0.001", "-o", &filter],
        b"alpha\nbeta\n",
    ));
    assert_eq!(
        ok(run(&["query", &filter, "alpha", "nope"], b"")),
        b"alpha\n"
    );
    let output = run(&["query", &filter, "gamma", "delta"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert_eq!(
        ok(run(&["query", "--absent", &filter, "alpha", "gamma"], b"")),
        b"gamma\n"
    );
    // Keys on the command line and from -i are both tested.
    assert_eq!(
        ok(run(&["query", &filter, "alpha", "-i", "-"], b"beta\n")),
        b"alpha\nbeta\n"
    );
}

#[test]
fn null_separated_keys_may_contain_newlines() {
    let dir = scratch("null");
    let keys: Vec<Vec<u8>> = vec![b"line\none".to_vec(), b"two\r".to_vec(), vec![0x80, b'\n']];
    let filter = path(&dir, "f.sbf");
    ok(run(
        &["build", "-n", "10", "-p", "0.001", "--null", "-o", &filter],
        &joined(&keys, 0),
    ));
    let found = ok(run(&["query", "--null", &filter], &joined(&keys, 0)));
    assert_eq!(records(&found, 0), keys);
    // Read line by line instead, the pieces are other keys.
    let output = run(&["query", &filter], b"line\n");
    assert_eq!(output.status.code(), Some(1));
}

/// The library answers for CLI-built filters with the documented hashing rule, for every
/// hasher, and the CLI answers for library-built filters.
#[test]
fn library_and_cli_agree_on_key_hashing() {
    let dir = scratch("agree");
    let keys = sample_keys();
    let stdin = joined(&keys, b'\n');
    for hasher in ["default", "xxh3", "parquet"] {
        let filter_path = path(&dir, &format!("{hasher}.sbf"));
        let mut args = vec!["build", "-n", "1000", "-p", "0.0001", "-o", &filter_path];
        if hasher != "default" {
            args.extend(["--hasher", hasher]);
        }
        ok(run(&args, &stdin));
        let bytes = std::fs::read(&filter_path).unwrap();
        let strangers = (0..1000).map(|i| format!("stranger-{i}").into_bytes());
        match hasher {
            "default" | "xxh3" => check_library_view::<Xxh3>(&bytes, &keys, strangers),
            _ => {
                check_library_view::<ParquetHash>(&bytes, &keys, strangers);
                // For Parquet the rule is Parquet's BYTE_ARRAY hash: contains_value(bytes).
                let filter = Filter::<ParquetHash>::from_bytes_with_hasher_type(&bytes).unwrap();
                assert!(keys.iter().all(|key| filter.contains_value(key.as_slice())));
                assert!(filter.num_blocks().is_power_of_two(), "Parquet sizing");
            }
        }
    }
    // The other direction: a library-built filter queried by the CLI.
    let mut filter = Filter::with_fpr_and_hasher(100, 0.0001, Xxh3::default()).unwrap();
    filter.insert_hash(cli_hash(filter.hasher(), b"from-library\xff"));
    let filter_path = path(&dir, "library.sbf");
    std::fs::write(&filter_path, filter.to_bytes()).unwrap();
    assert_eq!(
        ok(run(&["query", &filter_path], b"from-library\xff\nother\n")),
        b"from-library\xff\n"
    );
}

fn check_library_view<S: FilterHasher>(
    bytes: &[u8],
    keys: &[Vec<u8>],
    strangers: impl Iterator<Item = Vec<u8>>,
) {
    let view = FilterRef::<S>::from_bytes_with_hasher_type(bytes).unwrap();
    for key in keys {
        assert!(view.contains_hash(cli_hash(view.hasher(), key)), "{key:?}");
    }
    // A byte-string key hashes as its bytes with every hasher, so the library's
    // `contains(&[u8])` finds every key the CLI inserted.
    let slice_hits = keys
        .iter()
        .filter(|key| view.contains(key.as_slice()))
        .count();
    assert_eq!(slice_hits, keys.len());
    let false_positives = strangers
        .filter(|key| view.contains_hash(cli_hash(view.hasher(), key)))
        .count();
    assert!(false_positives < 10, "{false_positives}");
}

#[test]
fn dedup_prints_first_occurrences_and_reports_drops() {
    let input = b"a\nb\na\n\xff\xfe\nc\nb\n\xff\xfe\n\n\n";
    let output = run(&["dedup", "-n", "100", "-p", "0.0001"], input);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let printed = ok(output);
    assert_eq!(printed, b"a\nb\n\xff\xfe\nc\n\n");
    assert!(stderr.contains("9 lines, 5 printed, 4 dropped"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    // Too many distinct lines for --items: warned.
    let many: Vec<u8> = (0..500)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let output = run(&["dedup", "-n", "10", "-p", "0.01"], &many);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    ok(output);
    assert!(
        stderr.contains("warning: ") && stderr.contains("--items 10"),
        "{stderr}"
    );
    // From a file, NUL-separated.
    let dir = scratch("dedup");
    let input = path(&dir, "in");
    std::fs::write(&input, b"x\ny\0x\ny\0z\0").unwrap();
    assert_eq!(
        ok(run(
            &["dedup", "-n", "10", "-p", "0.01", "--null", "-i", &input],
            b""
        )),
        b"x\ny\0z\0"
    );
}

#[test]
fn build_warns_when_more_distinct_keys_arrive_than_planned() {
    let dir = scratch("overflow");
    let keys: Vec<u8> = (0..2000)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let output = run(
        &["build", "-n", "100", "-p", "0.01", "-o", &path(&dir, "f")],
        &keys,
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    ok(output);
    assert!(stderr.contains("warning: at least"), "{stderr}");
    assert!(stderr.contains("more than --items 100"), "{stderr}");
    // Duplicates of few distinct keys do not warn, however many lines there are.
    let repeated: Vec<u8> = (0..2000)
        .flat_map(|i| format!("{}\n", i % 50).into_bytes())
        .collect();
    let output = run(
        &["build", "-n", "100", "-p", "0.01", "-o", &path(&dir, "g")],
        &repeated,
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    ok(output);
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn info_reports_the_filter_as_text_and_json() {
    let dir = scratch("info");
    let filter_path = path(&dir, "f.sbf");
    let keys: Vec<u8> = (0..5000)
        .flat_map(|i| format!("k{i}\n").into_bytes())
        .collect();
    ok(run(
        &[
            "build",
            "-n",
            "5000",
            "-p",
            "0.01",
            "--hasher",
            "xxh3",
            "-o",
            &filter_path,
        ],
        &keys,
    ));
    let filter =
        Filter::<Xxh3>::from_bytes_with_hasher_type(&std::fs::read(&filter_path).unwrap()).unwrap();

    let text = String::from_utf8(ok(run(&["info", &filter_path], b""))).unwrap();
    assert!(text.contains("hasher           xxh3 (seed 0)"), "{text}");
    assert!(
        text.contains(&format!("blocks           {}\n", filter.num_blocks())),
        "{text}"
    );

    let json = ok(run(&["info", "--json", &filter_path], b""));
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["hasher"], "xxh3");
    assert_eq!(json["seed"], 0);
    assert_eq!(json["blocks"], filter.num_blocks() as u64);
    assert_eq!(json["bytes"], filter.serialized_len() as u64);
    let items = json["estimated_items"].as_f64().unwrap();
    assert!((items - 5000.0).abs() < 250.0, "{items}");
    let fpr = json["estimated_fpr"].as_f64().unwrap();
    assert!(fpr > 0.002 && fpr < 0.012, "{fpr}");
    let bits = json["bits_per_key"].as_f64().unwrap();
    assert!((bits * items / (256.0 * filter.num_blocks() as f64) - 1.0).abs() < 1e-3);

    // An empty filter has no bits per key.
    ok(run(
        &["build", "-n", "10", "-p", "0.01", "-o", &filter_path],
        b"",
    ));
    let json = ok(run(&["info", "--json", &filter_path], b""));
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(json["bits_per_key"].is_null());
    assert_eq!(json["estimated_fpr"], 0.0);
}

#[test]
fn merge_unions_compatible_filters_and_refuses_others() {
    let dir = scratch("merge");
    let (a, b, out) = (path(&dir, "a"), path(&dir, "b"), path(&dir, "out"));
    ok(run(
        &["build", "-n", "1000", "-p", "0.001", "-o", &a],
        b"apple\nbanana\n",
    ));
    ok(run(
        &["build", "-n", "1000", "-p", "0.001", "-o", &b],
        b"cherry\n",
    ));
    ok(run(&["merge", &a, &b, "-o", &out], b""));
    assert_eq!(
        ok(run(
            &["query", &out, "apple", "banana", "cherry", "durian"],
            b""
        )),
        b"apple\nbanana\ncherry\n"
    );
    // The output may be one of the inputs.
    ok(run(&["merge", &a, &b, "-o", &a], b""));
    assert_eq!(ok(run(&["query", &a, "cherry"], b"")), b"cherry\n");

    let other_size = path(&dir, "small");
    ok(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &other_size],
        b"x\n",
    ));
    fails(
        run(&["merge", &a, &other_size, "-o", &out], b""),
        "different sizes",
    );
    let other_hasher = path(&dir, "parquet");
    ok(run(
        &[
            "build",
            "-n",
            "1000",
            "-p",
            "0.001",
            "--hasher",
            "parquet",
            "-o",
            &other_hasher,
        ],
        b"x\n",
    ));
    fails(
        run(&["merge", &a, &other_hasher, "-o", &out], b""),
        "hasher",
    );
    fails(
        run(&["merge", &a, &path(&dir, "missing"), "-o", &out], b""),
        "cannot open",
    );
    // One filter is a usage error (clap exits with 2).
    assert_eq!(run(&["merge", &a, "-o", &out], b"").status.code(), Some(2));
}

#[test]
fn bad_input_is_one_line_and_exit_status_2() {
    let dir = scratch("errors");
    let good = path(&dir, "good.sbf");
    ok(run(
        &["build", "-n", "100", "-p", "0.01", "-o", &good],
        b"a\nb\n",
    ));
    let bytes = std::fs::read(&good).unwrap();

    // Sizing parameters.
    let out = path(&dir, "out.sbf");
    fails(
        run(&["build", "-n", "0", "-p", "0.01", "-o", &out], b"a\n"),
        "at least 1",
    );
    for fpr in ["0", "1", "1.5", "-0.1", "NaN", "inf"] {
        let fpr = &format!("--fpr={fpr}");
        fails(
            run(&["build", "-n", "10", fpr, "-o", &out], b"a\n"),
            "not strictly between 0 and 1",
        );
        fails(run(&["dedup", "-n", "10", fpr], b"a\n"), "between 0 and 1");
    }
    fails(
        run(&["dedup", "-n", "0", "-p", "0.1"], b"a\n"),
        "at least 1",
    );
    // Nothing half-written was left behind by the failed builds.
    assert!(!Path::new(&out).exists());

    // Unreadable inputs.
    let missing = path(&dir, "missing");
    let build = |input: &str, output: &str| {
        run(
            &["build", "-n", "10", "-p", "0.1", "-i", input, "-o", output],
            b"a\n",
        )
    };
    fails(build(&missing, &out), "cannot open");
    fails(build(dir.to_str().unwrap(), &out), "cannot read keys");
    fails(build("-", &path(&dir, "no/such/dir/f")), "cannot write");
    fails(
        run(&["dedup", "-n", "10", "-p", "0.1", "-i", &missing], b""),
        "cannot open",
    );
    fails(run(&["query", &good, "-i", &missing], b""), "cannot open");
    fails(run(&["query", &missing, "a"], b""), "cannot open");
    fails(run(&["info", &missing], b""), "cannot open");

    // Corrupt filters, for every reader.
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    let truncated = &bytes[..bytes.len() - 1];
    let mut longer = bytes.clone();
    longer.push(0);
    let mut future = bytes.clone();
    future[4] = 9;
    let cases: [(&str, &[u8], &str); 6] = [
        ("flipped", &flipped, "corrupt"),
        ("truncated", truncated, "truncated"),
        ("longer", &longer, "wrong length"),
        ("future", &future, "version 9"),
        ("text", b"apple\nbanana\n", "not a splitbloom filter"),
        ("empty", b"", "truncated"),
    ];
    for (name, content, expected) in cases {
        let file = path(&dir, name);
        std::fs::write(&file, content).unwrap();
        fails(run(&["query", &file, "a"], b""), expected);
        fails(run(&["info", &file], b""), expected);
        fails(run(&["merge", &good, &file, "-o", &out], b""), expected);
        fails(run(&["merge", &file, &good, "-o", &out], b""), expected);
    }
}

#[test]
fn bench_runs_per_key_and_batched_with_json() {
    for mode in [None, Some("--batch")] {
        let mut args = vec!["bench", "--items", "2000,3000", "--samples", "1", "--json"];
        args.extend(mode);
        args.push("--no-strings");
        let json: serde_json::Value = serde_json::from_slice(&ok(run(&args, b""))).unwrap();
        assert_eq!(json["batch"], mode.is_some());
        assert_eq!(json["strings"], serde_json::json!([]));
        let rows = json["rows"].as_array().unwrap();
        let kernels = splitbloom::Kernel::available().count();
        assert_eq!(rows.len(), 2 * kernels);
        for row in rows {
            let fpr = row["measured_fpr"].as_f64().unwrap();
            let predicted = row["predicted_fpr"].as_f64().unwrap();
            assert!((fpr - predicted).abs() < 0.01, "{row}");
            assert!(row["hit_ns"].as_f64().unwrap() > 0.0, "{row}");
        }
    }
    let table = ok(run(
        &[
            "bench",
            "--items",
            "1000",
            "--samples",
            "1",
            "--batch",
            "--no-strings",
        ],
        b"",
    ));
    let table = String::from_utf8(table).unwrap();
    assert!(table.contains("batch APIs"), "{table}");
    assert_eq!(
        table.lines().count(),
        3 + splitbloom::Kernel::available().count() + verdict_lines(),
        "{table}"
    );
    fails(run(&["bench", "--items", "0"], b""), "at least 1");
    // A usage error, from the argument parser.
    let output = run(&["bench", "--samples", "1.5"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("whole number"));
}

/// The lines of `bench`'s verdict: a blank line, the title, kernel, spread, false-positive
/// rate, the other kernels (when there are any) and the conclusion.
fn verdict_lines() -> usize {
    if splitbloom::Kernel::available().count() > 1 {
        7
    } else {
        6
    }
}

/// The main job (`splitbloom bench`, no options but the sizes here) shows the string keys
/// through the byte-key contract after the `u64` table, and `--json` carries them too: 1M
/// URLs and 1M 8-byte ids, all found, at the predicted false-positive rate.
#[test]
fn bench_shows_string_keys_by_default() {
    let table = String::from_utf8(ok(run(
        &["bench", "--items", "1000", "--samples", "1"],
        b"",
    )))
    .unwrap();
    let kernels = splitbloom::Kernel::available().count();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3 + kernels + 6 + verdict_lines(), "{table}");
    assert_eq!(lines[3 + kernels], "", "{table}");
    assert!(
        lines[4 + kernels].starts_with("string keys through the byte-key contract"),
        "{table}"
    );
    assert!(lines[7 + kernels].starts_with("urls "), "{table}");
    assert!(lines[8 + kernels].starts_with("8-byte ids "), "{table}");

    let json = ok(run(
        &["bench", "--items", "1000", "--samples", "1", "--json"],
        b"",
    ));
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let strings = json["strings"].as_array().unwrap();
    let names: Vec<&str> = strings
        .iter()
        .map(|row| row["keys"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["urls", "8-byte ids"]);
    for row in strings {
        assert_eq!(row["count"], 1_000_000, "{row}");
        assert_eq!(row["kernel"], splitbloom::Kernel::best().name(), "{row}");
        assert!(row["hit_ns"].as_f64().unwrap() > 0.0, "{row}");
        let fpr = row["measured_fpr"].as_f64().unwrap();
        assert!((0.005..0.025).contains(&fpr), "{row}");
    }
    let average: Vec<f64> = strings
        .iter()
        .map(|row| row["average_bytes"].as_f64().unwrap())
        .collect();
    assert!(average[0] > 20.0 && average[1] == 8.0, "{average:?}");
}

/// A Parquet file written by arrow-rs with bloom filters on both columns.
#[cfg(feature = "parquet")]
fn parquet_file(path: &Path) {
    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use std::sync::Arc;

    let schema = "message test { REQUIRED INT64 id; REQUIRED BYTE_ARRAY name (UTF8); }";
    let schema = Arc::new(parquet::schema::parser::parse_message_type(schema).unwrap());
    let properties = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.001)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(properties)).unwrap();
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

#[cfg(feature = "parquet")]
#[test]
fn parquet_info_lists_filters_and_tests_values() {
    let dir = scratch("parquet");
    let file = path(&dir, "data.parquet");
    parquet_file(Path::new(&file));
    let listing = String::from_utf8(ok(run(&["parquet-info", &file], b""))).unwrap();
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
        String::from_utf8(ok(test("id", "1500"))).unwrap(),
        format!("row group 0: {ABSENT}\nrow group 1: {MAY_HOLD}\n")
    );
    assert_eq!(
        String::from_utf8(ok(test("name", "name-7"))).unwrap(),
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
    // A corrupt bloom filter header is reported, not a panic: field 1 (numBytes) gets the
    // Thrift type i64 instead of i32.
    let reader = std::fs::File::open(&file).unwrap();
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&reader)
        .unwrap();
    let offset = metadata
        .row_group(0)
        .column(0)
        .bloom_filter_offset()
        .unwrap() as usize;
    let mut bytes = std::fs::read(&file).unwrap();
    assert_eq!(bytes[offset], 0x15, "field 1, i32");
    bytes[offset] = 0x16;
    let corrupt = path(&dir, "corrupt.parquet");
    std::fs::write(&corrupt, &bytes).unwrap();
    fails(
        run(&["parquet-info", &corrupt], b""),
        "row group 0, column id: invalid Parquet bloom filter header",
    );
}

/// A Parquet file of one INT64 column `id` in three row groups of 1000 ids each (0.., 1000..,
/// 2000..), where the middle row group has no bloom filter: a mix DuckDB writes by default.
#[cfg(feature = "parquet")]
fn parquet_file_with_a_gap(path: &Path) {
    use parquet::column::writer::{get_column_writer, get_typed_column_writer_mut};
    use parquet::data_type::Int64Type;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
    use std::sync::Arc;

    let schema = "message test { REQUIRED INT64 id; }";
    let schema = Arc::new(parquet::schema::parser::parse_message_type(schema).unwrap());
    let with_filters = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.001)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(with_filters)).unwrap();
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
#[cfg(feature = "parquet")]
#[test]
fn parquet_info_counts_row_groups_without_a_filter_as_may_hold() {
    let dir = scratch("parquet_gap");
    let file = path(&dir, "gap.parquet");
    parquet_file_with_a_gap(Path::new(&file));
    // The listing shows the two filters that exist.
    let listing = String::from_utf8(ok(run(&["parquet-info", &file], b""))).unwrap();
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
        String::from_utf8(ok(test("1500"))).unwrap(),
        "row group 0: absent (its bloom filter excludes the value)\n\
         row group 1: may be present (no bloom filter)\n\
         row group 2: absent (its bloom filter excludes the value)\n"
    );
    // A value in no row group still may be in the unfiltered one.
    let output = String::from_utf8(ok(test("987654321"))).unwrap();
    assert!(output.contains("row group 1: may be present (no bloom filter)"));
    let output = String::from_utf8(ok(test("2500"))).unwrap();
    assert!(output.contains("row group 2: may be present (its bloom filter may hold the value)"));
    // A column that does not exist is an error naming the columns.
    fails(
        test_column(&file, "nope", "1"),
        "no column nope (columns: id)",
    );
    fails(test("twelve"), "cannot read \"twelve\" as INT64");
}

#[cfg(feature = "parquet")]
fn test_column(file: &str, column: &str, value: &str) -> Output {
    run(
        &["parquet-info", file, "--column", column, "--value", value],
        b"",
    )
}

/// A filter that cannot be read may hold the value: reported per row group, not an error and
/// never "absent".
#[cfg(feature = "parquet")]
#[test]
fn parquet_info_counts_unreadable_filters_as_may_hold() {
    let dir = scratch("parquet_unreadable");
    let file = path(&dir, "data.parquet");
    parquet_file(Path::new(&file));
    let reader = std::fs::File::open(&file).unwrap();
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&reader)
        .unwrap();
    let offset = metadata
        .row_group(0)
        .column(0)
        .bloom_filter_offset()
        .unwrap() as usize;
    let mut bytes = std::fs::read(&file).unwrap();
    assert_eq!(bytes[offset], 0x15, "field 1, i32");
    bytes[offset] = 0x16;
    let corrupt = path(&dir, "corrupt.parquet");
    std::fs::write(&corrupt, &bytes).unwrap();
    let output = String::from_utf8(ok(test_column(&corrupt, "id", "5000"))).unwrap();
    assert!(
        output.starts_with("row group 0: may be present (bloom filter unreadable: "),
        "{output}"
    );
    assert!(
        output.ends_with("row group 1: absent (its bloom filter excludes the value)\n"),
        "{output}"
    );
}

/// A FIFO that stands where `-o` points.
#[cfg(unix)]
fn make_fifo(path: &str) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[cfg(unix)]
fn file_type(path: &str) -> std::fs::FileType {
    std::fs::symlink_metadata(path).unwrap().file_type()
}

/// Only regular files are replaced: a FIFO, a device, a socket, a directory stay as they are,
/// with an error that says what they are, before any input is read.
#[cfg(unix)]
#[test]
fn output_refuses_non_regular_targets_and_leaves_them() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("output_targets");
    let filter = path(&dir, "f.sbf");
    ok(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &filter],
        b"a\n",
    ));
    let fifo = path(&dir, "fifo");
    make_fifo(&fifo);
    // Standard input is left open: the check must come before reading it.
    let child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["build", "-n", "10", "-p", "0.1", "-o", &fifo])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    fails(output, "it is a FIFO (named pipe), not a regular file");
    assert!(file_type(&fifo).is_fifo());
    fails(
        run(&["merge", &filter, &filter, "-o", &fifo], b""),
        "it is a FIFO",
    );
    assert!(file_type(&fifo).is_fifo());

    // A character device (a copy of /dev/null's numbers, made here when running as root).
    let device = path(&dir, "device");
    if Command::new("mknod")
        .args([&device, "c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
    {
        fails(
            run(&["build", "-n", "10", "-p", "0.1", "-o", &device], b"a\n"),
            "it is a character device",
        );
        assert!(file_type(&device).is_char_device());
    }
    // A socket.
    let socket = path(&dir, "socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    fails(
        run(&["build", "-n", "10", "-p", "0.1", "-o", &socket], b"a\n"),
        "it is a socket",
    );
    assert!(file_type(&socket).is_socket());

    // Directories, named plainly or with a trailing slash, and paths ending in a slash.
    let sub = path(&dir, "sub");
    std::fs::create_dir(&sub).unwrap();
    for target in [sub.clone(), format!("{sub}/"), path(&dir, "new/")] {
        let output = run(&["build", "-n", "10", "-p", "0.1", "-o", &target], b"a\n");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        fails(output, "directory");
        assert!(!stderr.contains("Not a directory"), "{stderr}");
    }
    assert!(Path::new(&sub).is_dir());
    assert!(!Path::new(&path(&dir, "new")).exists());
    // Nothing was left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(!names.iter().any(|name| name.contains(".tmp")), "{names:?}");
}

/// `-o link` writes the file the link points to and keeps the link; a link to something that
/// is not a regular file, or to nothing, is refused.
#[cfg(unix)]
#[test]
fn output_through_a_symlink_replaces_its_target() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
    let dir = scratch("output_symlink");
    let target = path(&dir, "target.sbf");
    ok(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &target],
        b"a\n",
    ));
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = path(&dir, "link.sbf");
    symlink(&target, &link).unwrap();
    ok(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &link],
        b"b\n",
    ));
    assert!(file_type(&link).is_symlink(), "the link is kept");
    assert_eq!(ok(run(&["query", &target, "a", "b"], b"")), b"b\n");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o640,
        "the replaced file keeps its permissions"
    );
    // merge too, and through a relative link.
    let relative = path(&dir, "relative.sbf");
    symlink("target.sbf", &relative).unwrap();
    ok(run(&["merge", &target, &target, "-o", &relative], b""));
    assert!(file_type(&relative).is_symlink());
    assert_eq!(ok(run(&["query", &target, "a", "b"], b"")), b"b\n");

    let fifo = path(&dir, "fifo");
    make_fifo(&fifo);
    let to_fifo = path(&dir, "to-fifo");
    symlink(&fifo, &to_fifo).unwrap();
    fails(
        run(&["build", "-n", "10", "-p", "0.1", "-o", &to_fifo], b"a\n"),
        "a symbolic link to",
    );
    assert!(file_type(&fifo).is_fifo() && file_type(&to_fifo).is_symlink());
    let dangling = path(&dir, "dangling");
    symlink(path(&dir, "nowhere"), &dangling).unwrap();
    fails(
        run(&["build", "-n", "10", "-p", "0.1", "-o", &dangling], b"a\n"),
        "symbolic link whose target cannot be followed",
    );
    assert!(file_type(&dangling).is_symlink());
    assert!(!Path::new(&path(&dir, "nowhere")).exists());
}

/// Temporary files of `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.contains(".tmp"))
        .collect()
}

/// A `build` stopped by SIGTERM or SIGINT while it reads its input removes its temporary file
/// and dies of the signal; one whose input fails leaves none either.
#[cfg(unix)]
#[test]
fn interrupted_build_leaves_no_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};
    let dir = scratch("output_signals");
    for (signal, number) in [("TERM", 15), ("INT", 2)] {
        let out = path(&dir, "slow.sbf");
        let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
            .args(["build", "-n", "1000", "-p", "0.01", "-o", &out])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Keys trickle in; the temporary file exists while the input is read.
        let mut stdin = child.stdin.take().unwrap();
        let start = Instant::now();
        while temporaries(&dir).is_empty() {
            stdin.write_all(b"key\n").unwrap();
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no temporary file appeared while the input was read"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(number), "{status:?}");
        assert_eq!(temporaries(&dir), Vec::<String>::new(), "SIG{signal}");
        assert!(!Path::new(&out).exists());
    }
    // Killed while writing a 24 MB filter (empty input): SIGTERM as soon as the temporary file
    // appears. Before the fix that file was left behind; if the build wins the race and
    // finishes first, the complete filter is there and no temporary file either.
    let out = path(&dir, "large.sbf");
    let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["build", "-n", "20000000", "-p", "0.01", "-o", &out])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while temporaries(&dir).is_empty() && child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert!(
        status.signal() == Some(15) || status.success(),
        "{status:?}"
    );
    assert_eq!(temporaries(&dir), Vec::<String>::new(), "while writing");
    let _ = std::fs::remove_file(&out);

    // An input error after the temporary file was made.
    fails(
        run(
            &[
                "build",
                "-n",
                "10",
                "-p",
                "0.1",
                "--max-key-bytes",
                "3",
                "-o",
                &path(&dir, "x.sbf"),
            ],
            b"abc\nabcd\n",
        ),
        "longer than --max-key-bytes 3",
    );
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}

/// Standard output going to a closed pipe or a full disk, for a command.
#[cfg(unix)]
fn run_to(args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Every subcommand that prints: a closed pipe ends it quietly with status 0 (no panic, no
/// message), a full disk is an error with exit status 2.
#[cfg(unix)]
#[test]
fn closed_pipes_end_quietly_and_full_disks_are_errors() {
    let dir = scratch("stdout");
    let keys = path(&dir, "keys");
    std::fs::write(&keys, b"a\nb\nc\n").unwrap();
    let filter = path(&dir, "f.sbf");
    ok(run(
        &["build", "-n", "10", "-p", "0.1", "-i", &keys, "-o", &filter],
        b"",
    ));
    #[cfg_attr(not(feature = "parquet"), allow(unused_mut))]
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["info", &filter],
        vec!["info", "--json", &filter],
        vec!["query", &filter, "-i", &keys],
        vec!["dedup", "-n", "10", "-p", "0.1", "-i", &keys],
        vec!["bench", "--items", "1000", "--samples", "1"],
        vec!["bench", "--items", "1000", "--samples", "1", "--json"],
    ];
    #[cfg(feature = "parquet")]
    let parquet = path(&dir, "data.parquet");
    #[cfg(feature = "parquet")]
    {
        parquet_file(Path::new(&parquet));
        commands.push(vec!["parquet-info", &parquet]);
        commands.push(vec![
            "parquet-info",
            &parquet,
            "--column",
            "id",
            "--value",
            "1",
        ]);
    }
    for args in &commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = run_to(args, Stdio::from(writer));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.is_empty() || !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");

        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        fails(
            run_to(args, Stdio::from(full)),
            "cannot write to standard output: No space left on device",
        );
    }
}

/// `bench`'s string-key table, written after the `u64` table, follows the same rule when its
/// reader goes away in the middle of the output (`splitbloom bench | head -9`): status 0, no
/// panic.
#[test]
fn bench_stops_quietly_when_the_reader_leaves_during_the_string_table() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["bench", "--items", "1000", "--samples", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The u64 table: a title, two header lines and a row per kernel. The string table is
    // measured (about a second) and then written, after this reader has gone.
    let table_lines = 3 + splitbloom::Kernel::available().count();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..table_lines {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0);
    }
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// A filter file's header is read and checked before the rest: a huge or endless file that is
/// not a filter costs 32 bytes, and a file whose length disagrees with its header is refused
/// before it is read. Run under a 512 MB address-space limit, so reading whole is an error.
#[cfg(unix)]
#[test]
fn filter_files_are_read_only_as_far_as_their_header_announces() {
    let dir = scratch("bounded_reads");
    let limited = |args: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 524288; exec '{}' {args}",
                env!("CARGO_BIN_EXE_splitbloom")
            ))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    fails(limited("info /dev/zero"), "not a splitbloom filter");
    fails(limited("query /dev/zero a"), "not a splitbloom filter");
    // A valid header announcing 5 blocks, followed by 1 GiB (sparse) of zeros.
    let good = path(&dir, "good.sbf");
    ok(run(
        &["build", "-n", "10", "-p", "0.01", "-o", &good],
        b"a\n",
    ));
    let huge = path(&dir, "huge.sbf");
    std::fs::copy(&good, &huge).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let start = std::time::Instant::now();
    fails(limited(&format!("info '{huge}'")), "wrong length");
    fails(limited(&format!("query '{huge}' a")), "wrong length");
    assert!(start.elapsed() < std::time::Duration::from_secs(3));
    let sparse_text = path(&dir, "huge.txt");
    std::fs::File::create(&sparse_text)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    fails(
        limited(&format!("info '{sparse_text}'")),
        "not a splitbloom filter",
    );
}

/// One endless line (`/dev/zero`) is an error naming `--max-key-bytes`, not an abort; the
/// limit is adjustable and also applies to `query` and `dedup`.
#[cfg(unix)]
#[test]
fn keys_longer_than_the_limit_are_an_error() {
    let dir = scratch("max_key");
    let out = path(&dir, "f.sbf");
    let zero = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576; exec '{}' build -n 10 -p 0.1 -i /dev/zero -o '{out}'",
            env!("CARGO_BIN_EXE_splitbloom")
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    fails(zero, "key 1 is longer than --max-key-bytes 1048576 bytes");
    assert!(temporaries(&dir).is_empty());
    assert!(!Path::new(&out).exists());

    let long_key = [b'x'; 100];
    let mut input = b"short\n".to_vec();
    input.extend_from_slice(&long_key);
    input.push(b'\n');
    fails(
        run(
            &[
                "build",
                "-n",
                "10",
                "-p",
                "0.1",
                "--max-key-bytes",
                "99",
                "-o",
                &out,
            ],
            &input,
        ),
        "key 2 is longer than --max-key-bytes 99",
    );
    ok(run(
        &[
            "build",
            "-n",
            "10",
            "-p",
            "0.1",
            "--max-key-bytes",
            "100",
            "-o",
            &out,
        ],
        &input,
    ));
    assert_eq!(
        ok(run(
            &["query", &out, "-i", "-", "--max-key-bytes", "100"],
            &input
        )),
        input
    );
    fails(
        run(&["query", &out, "--max-key-bytes", "10"], &input),
        "longer than --max-key-bytes 10",
    );
    fails(
        run(
            &["dedup", "-n", "10", "-p", "0.1", "--max-key-bytes", "10"],
            &input,
        ),
        "longer than --max-key-bytes 10",
    );
    // NUL-terminated keys count the same way.
    fails(
        run(
            &[
                "dedup",
                "-0",
                "-n",
                "10",
                "-p",
                "0.1",
                "--max-key-bytes",
                "3",
            ],
            b"abcd\0",
        ),
        "NUL-terminated",
    );
}

/// `bench` sizes its key vectors from --items: too many is an error (exit 2), not an abort on
/// an 8 TB allocation, and --items near u64::MAX does not overflow.
#[test]
fn bench_with_absurd_sizes_is_an_error() {
    fails(
        run(
            &[
                "bench",
                "--items",
                "1000000000000",
                "--bits-per-key",
                "0.000001",
                "--samples",
                "1",
            ],
            b"",
        ),
        "cannot allocate",
    );
    fails(
        run(
            &[
                "bench",
                "--items",
                "18446744073709551615",
                "--bits-per-key",
                "0.000000000001",
            ],
            b"",
        ),
        "--items 18446744073709551615: cannot allocate",
    );
    let output = run(&["bench", "--items", "100", "--bits-per-key", "1e300"], b"");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    fails(output, "exceeds the maximum");
    assert!(stderr.len() < 200, "{stderr}");
}

/// `info` on a scalable filter shows its parameters and stages.
#[test]
fn info_shows_a_scalable_filters_header() {
    let dir = scratch("info_scalable");
    let mut scalable = splitbloom::ScalableFilter::with_fpr(100, 0.01).unwrap();
    for key in 0..1000u64 {
        scalable.insert(&key).unwrap();
    }
    let stages = scalable.stages().len();
    assert!(stages > 1);
    let file = path(&dir, "scalable.sbs");
    let bytes = scalable.to_bytes();
    std::fs::write(&file, &bytes).unwrap();
    let text = String::from_utf8(ok(run(&["info", &file], b""))).unwrap();
    assert!(text.contains("scalable filter"), "{text}");
    assert!(
        text.contains(&format!("stages           {stages}\n")),
        "{text}"
    );
    assert!(text.contains("initial capacity 100\n"), "{text}");
    assert!(text.contains("target FPR       0.01\n"), "{text}");
    assert!(
        text.contains(&format!("bytes            {}\n", bytes.len())),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&ok(run(&["info", "--json", &file], b""))).unwrap();
    assert_eq!(json["format"], "scalable");
    assert_eq!(json["stages"].as_array().unwrap().len(), stages);
    assert_eq!(json["bytes"], bytes.len());
    assert_eq!(
        json["stages"][0]["bytes"],
        scalable.stages()[0].serialized_len()
    );
    // Damaged: truncated, and a flipped parameter (header checksum).
    let truncated = path(&dir, "truncated.sbs");
    std::fs::write(&truncated, &bytes[..bytes.len() - 1]).unwrap();
    fails(run(&["info", &truncated], b""), "truncated");
    let mut flipped = bytes.clone();
    flipped[8] ^= 1;
    let flipped_file = path(&dir, "flipped.sbs");
    std::fs::write(&flipped_file, &flipped).unwrap();
    fails(run(&["info", &flipped_file], b""), "corrupt");
    // Reserved bytes set, under a valid checksum: refused as the library refuses them (info
    // read this header with its own copy of the reader, which skipped these bytes).
    let mut reserved = bytes.clone();
    reserved[6] = 1;
    let checksum = xxhash_rust::xxh3::xxh3_64(&reserved[..56]);
    reserved[56..64].copy_from_slice(&checksum.to_le_bytes());
    assert!(splitbloom::ScalableFilter::from_bytes(&reserved).is_err());
    let reserved_file = path(&dir, "reserved.sbs");
    std::fs::write(&reserved_file, &reserved).unwrap();
    fails(run(&["info", &reserved_file], b""), "flags");
    // query and merge say what the file is.
    fails(run(&["query", &file, "a"], b""), "is a scalable filter");
}

/// `info` on a Parquet file points to `parquet-info`.
#[cfg(feature = "parquet")]
#[test]
fn info_on_a_parquet_file_points_to_parquet_info() {
    let dir = scratch("info_parquet");
    let file = path(&dir, "data.parquet");
    parquet_file(Path::new(&file));
    fails(run(&["info", &file], b""), "is a Parquet file");
    fails(run(&["info", &file], b""), "splitbloom parquet-info");
    fails(run(&["query", &file, "x"], b""), "splitbloom parquet-info");
}

/// A filter hashed with gxhash, made from an xxh3 filter by rewriting its hasher byte and
/// checksum, so the bytes are the same whether or not this build has AES.
fn gxhash_filter_bytes(xxh3_filter: &[u8]) -> Vec<u8> {
    with_hasher_id(xxh3_filter, GxHash::KIND.id())
}

/// `info` shows a gxhash filter's header and statistics in every build (it needs no hashing);
/// `query` in a build without AES says what to do.
#[test]
fn info_shows_a_gxhash_filter_without_hashing() {
    let dir = scratch("info_gxhash");
    let source = path(&dir, "xxh3.sbf");
    ok(run(
        &[
            "build", "-n", "100", "-p", "0.01", "--hasher", "xxh3", "-o", &source,
        ],
        b"a\nb\nc\n",
    ));
    let reference: serde_json::Value =
        serde_json::from_slice(&ok(run(&["info", "--json", &source], b""))).unwrap();
    let file = path(&dir, "gxhash.sbf");
    std::fs::write(&file, gxhash_filter_bytes(&std::fs::read(&source).unwrap())).unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&ok(run(&["info", "--json", &file], b""))).unwrap();
    assert_eq!(json["hasher"], "gxhash");
    for field in [
        "blocks",
        "bytes",
        "fill_ratio",
        "estimated_items",
        "estimated_fpr",
    ] {
        assert_eq!(json[field], reference[field], "{field}");
    }
    let text = String::from_utf8(ok(run(&["info", &file], b""))).unwrap();
    assert!(text.contains("hasher           gxhash"), "{text}");
    if !GxHash::KIND.is_available() {
        fails(run(&["query", &file, "a"], b""), "target-feature=+aes");
    }
}

/// Merging filters of different hashers or sizes names both files and what to do.
#[test]
fn merge_mismatches_are_worded_for_the_command_line() {
    let dir = scratch("merge_words");
    let (a, b, c, out) = (
        path(&dir, "a.sbf"),
        path(&dir, "b.sbf"),
        path(&dir, "c.sbf"),
        path(&dir, "out.sbf"),
    );
    ok(run(
        &[
            "build", "-n", "100", "-p", "0.01", "--hasher", "parquet", "-o", &a,
        ],
        b"x\n",
    ));
    ok(run(
        &[
            "build", "-n", "100", "-p", "0.01", "--hasher", "xxh3", "-o", &b,
        ],
        b"x\n",
    ));
    fails(
        run(&["merge", &a, &b, "-o", &out], b""),
        &format!(
            "cannot merge {a} and {b}: {a} was built with hasher parquet (seed 0), {b} with hasher xxh3 (seed 0)"
        ),
    );
    fails(run(&["merge", &a, &b, "-o", &out], b""), "--hasher");
    ok(run(
        &[
            "build", "-n", "100000", "-p", "0.01", "--hasher", "xxh3", "-o", &c,
        ],
        b"x\n",
    ));
    fails(
        run(&["merge", &b, &c, "-o", &out], b""),
        "--items, --fpr and --hasher",
    );
    assert!(!Path::new(&out).exists());
    assert!(temporaries(&dir).is_empty());
}

/// An absurd false-positive rate is a short error, not a 300-digit block count.
#[test]
fn absurd_rates_give_short_errors() {
    for fpr in ["1e-320", "1e-300", "5e-324"] {
        for command in ["build", "dedup"] {
            let mut args = vec![command, "-n", "10", "-p", fpr];
            let out = "/nonexistent/never-written.sbf";
            if command == "build" {
                args.extend(["-o", out]);
            }
            let output = run(&args, b"a\n");
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            fails(output, &format!("--fpr {fpr}"));
            assert!(stderr.len() < 250, "{stderr}");
            assert!(stderr.contains("use a larger --fpr"), "{stderr}");
        }
    }
}

/// Lines ending in `\r\n` give the same keys as lines ending in `\n` (unless --keep-cr), so a
/// filter built from a Windows file answers queries from a Unix one and the other way round.
#[test]
fn crlf_lines_give_the_same_keys_as_lf_lines() {
    let dir = scratch("crlf");
    let (crlf, lf) = (path(&dir, "crlf.sbf"), path(&dir, "lf.sbf"));
    ok(run(
        &["build", "-n", "1000", "-p", "0.0001", "-o", &crlf],
        b"alpha\r\nbeta\r\n",
    ));
    ok(run(
        &["build", "-n", "1000", "-p", "0.0001", "-o", &lf],
        b"alpha\nbeta\n",
    ));
    assert_eq!(std::fs::read(&crlf).unwrap(), std::fs::read(&lf).unwrap());
    assert_eq!(
        ok(run(&["query", &crlf], b"alpha\nbeta\n")),
        b"alpha\nbeta\n"
    );
    assert_eq!(
        ok(run(&["query", &lf], b"alpha\r\nbeta\r\n")),
        b"alpha\nbeta\n"
    );
    assert_eq!(ok(run(&["query", &crlf, "alpha"], b"")), b"alpha\n");
    // --keep-cr keeps it: then only keys with the \r match.
    let kept = path(&dir, "kept.sbf");
    ok(run(
        &[
            "build",
            "-n",
            "1000",
            "-p",
            "0.0001",
            "--keep-cr",
            "-o",
            &kept,
        ],
        b"alpha\r\n",
    ));
    let output = run(&["query", &kept, "alpha"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        ok(run(&["query", "--keep-cr", &kept], b"alpha\r\n")),
        b"alpha\r\n"
    );
    // A lone \r inside a line, or with --null, is part of the key.
    assert_eq!(
        ok(run(&["dedup", "-n", "10", "-p", "0.01"], b"a\rb\r\na\rb\n")),
        b"a\rb\n"
    );
    assert_eq!(
        ok(run(&["dedup", "-0", "-n", "10", "-p", "0.01"], b"a\r\0a\0")),
        b"a\r\0a\0"
    );
    // The rule is in the help.
    let help = String::from_utf8(ok(run(&["build", "--help"], b""))).unwrap();
    assert!(help.contains("--keep-cr"), "{help}");
    assert!(help.contains("CRLF"), "{help}");
}

/// `query --help` says how the file is read (it is not memory-mapped).
#[test]
fn query_help_says_the_file_is_read() {
    let help = String::from_utf8(ok(run(&["query", "--help"], b""))).unwrap();
    assert!(!help.contains("mapped"), "{help}");
    assert!(help.contains("read into memory"), "{help}");
}

/// `dedup` and `query` answer each line while their input stays open (`tail -f log |`, a
/// person typing), instead of at the end of the input.
#[test]
fn dedup_and_query_answer_each_line_as_it_arrives() {
    let mut dedup = Session::start(&["dedup", "-n", "1000", "-p", "0.001"]);
    dedup.send(b"alice\n");
    assert_eq!(dedup.next_line(), b"alice\n");
    dedup.send(b"alice\nbob\n");
    assert_eq!(dedup.next_line(), b"bob\n");
    dedup.send(b"carol\n");
    assert_eq!(dedup.next_line(), b"carol\n");
    assert_eq!(dedup.finish(), (Some(0), Vec::new()));

    let dir = scratch("answer_as_it_arrives");
    let filter = path(&dir, "f.sbf");
    ok(run(
        &["build", "-n", "1000", "-p", "0.0001", "-o", &filter],
        b"alice\ncarol\n",
    ));
    let mut query = Session::start(&["query", &filter]);
    query.send(b"alice\n");
    assert_eq!(query.next_line(), b"alice\n");
    query.send(b"bob\ncarol\n");
    assert_eq!(query.next_line(), b"carol\n");
    assert_eq!(query.finish(), (Some(0), Vec::new()));
    let mut absent = Session::start(&["query", "--absent", "--json", &filter]);
    absent.send(b"bob\n");
    assert_eq!(
        absent.next_line(),
        b"{\"value\":\"bob\",\"may_be_present\":false}\n"
    );
    assert_eq!(absent.finish(), (Some(0), Vec::new()));
}

/// A file's keys still go through in batches: a large input gives the same answers as the
/// library, in order.
#[test]
fn streamed_answers_keep_every_key_of_a_large_input() {
    let dir = scratch("streamed_large");
    let filter = path(&dir, "f.sbf");
    let keys: String = (0..50_000).map(|i| format!("key-{i}\n")).collect();
    ok(run(
        &["build", "-n", "50000", "-p", "0.001", "-o", &filter],
        keys.as_bytes(),
    ));
    assert_eq!(
        ok(run(&["query", &filter], keys.as_bytes())),
        keys.as_bytes()
    );
    let twice = format!("{keys}{keys}");
    let unique = ok(run(
        &["dedup", "-n", "50000", "-p", "0.0001"],
        twice.as_bytes(),
    ));
    assert!(unique.len() <= keys.len() && unique.len() > keys.len() * 99 / 100);
}

/// `query` answers every key before a bad one, then reports it (exit 2).
#[test]
fn query_answers_the_keys_before_a_bad_one() {
    let dir = scratch("query_before_bad");
    let filter = path(&dir, "f.sbf");
    ok(run(
        &["build", "-n", "100", "-p", "0.0001", "-o", &filter],
        b"k1\nk2\n",
    ));
    let output = run(
        &["query", &filter, "--max-key-bytes", "4"],
        b"k1\nk2\ntoo long\nk1\n",
    );
    assert_eq!(output.stdout, b"k1\nk2\n");
    fails(output, "key 3 is longer than --max-key-bytes 4");
}

/// Counts are read as people write them (`1e6`, `2.5e6`, `1_000_000`), and what is not a
/// whole number of keys is an error that says why.
#[test]
fn counts_take_scientific_and_grouped_forms() {
    let dir = scratch("counts");
    let filter = path(&dir, "f.sbf");
    let blocks = |items: &str| {
        ok(run(
            &["build", "-n", items, "-p", "0.01", "-o", &filter],
            b"a\n",
        ));
        Filter::<Xxh3>::from_bytes_with_hasher_type(&std::fs::read(&filter).unwrap())
            .unwrap()
            .num_blocks()
    };
    let exact = blocks("1000000");
    assert_eq!(blocks("1e6"), exact);
    assert_eq!(blocks("1_000_000"), exact);
    assert_eq!(blocks("1.0E6"), exact);
    assert_eq!(blocks("2.5e6"), blocks("2500000"));
    ok(run(
        &[
            "dedup",
            "--items",
            "1e3",
            "-p",
            "0.01",
            "--max-key-bytes",
            "1e3",
        ],
        b"a\n",
    ));
    for (items, why) in [
        ("1.5", "whole number"),
        ("1.5e0", "whole number"),
        ("-5", "negative"),
        ("1e30", "too large"),
        ("lots", "not a count"),
    ] {
        let output = run(
            &[
                "build",
                &format!("--items={items}"),
                "-p",
                "0.01",
                "-o",
                &filter,
            ],
            b"a\n",
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{items}: {stderr}");
        assert!(stderr.contains(why), "{items}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// `--json` prints a value that is not UTF-8 as hex, so different inputs never print alike.
#[test]
fn json_output_keeps_bytes_that_are_not_utf8_apart() {
    let dir = scratch("json_bytes");
    let filter = path(&dir, "f.sbf");
    let keys = b"\xff\n\xfe\ncaf\xc3\xa9\n";
    ok(run(
        &["build", "-n", "100", "-p", "0.0001", "-o", &filter],
        keys,
    ));
    let expected = "{\"value_hex\":\"ff\",\"may_be_present\":true}\n\
                    {\"value_hex\":\"fe\",\"may_be_present\":true}\n\
                    {\"value\":\"café\",\"may_be_present\":true}\n";
    assert_eq!(
        String::from_utf8(ok(run(&["query", "--json", &filter], keys))).unwrap(),
        expected
    );
    let dedup = ok(run(&["dedup", "-n", "100", "-p", "0.0001", "--json"], keys));
    assert_eq!(
        String::from_utf8(dedup).unwrap(),
        "{\"value_hex\":\"ff\"}\n{\"value_hex\":\"fe\"}\n{\"value\":\"café\"}\n"
    );
    for line in expected.lines() {
        let _: serde_json::Value = serde_json::from_str(line).unwrap();
    }
}

/// `build` and `merge` print their summary as one JSON object with `--json`.
#[test]
fn build_and_merge_summaries_as_json() {
    let dir = scratch("json_summaries");
    let (a, b, merged) = (path(&dir, "a"), path(&dir, "b"), path(&dir, "m"));
    let built: serde_json::Value = serde_json::from_slice(&ok(run(
        &["build", "-n", "100", "-p", "0.01", "-o", &a, "--json"],
        b"x\ny\nx\n",
    )))
    .unwrap();
    assert_eq!(built["file"], a.as_str());
    assert_eq!(built["keys"], 3);
    assert_eq!(built["target_fpr"], 0.01);
    assert!(built["estimated_fpr"].as_f64().unwrap() < 0.01);
    ok(run(&["build", "-n", "100", "-p", "0.01", "-o", &b], b"z\n"));
    let summary: serde_json::Value =
        serde_json::from_slice(&ok(run(&["merge", &a, &b, "-o", &merged, "--json"], b""))).unwrap();
    assert_eq!(summary["filters"], 2);
    assert_eq!(summary["bytes"], built["bytes"]);
    assert_eq!(summary["estimated_items"], 3.0);
}

/// `bench` ends with a verdict: the kernel this CPU uses, its spread, the false-positive rate
/// against the prediction, the other kernels, and a conclusion.
#[test]
fn bench_gives_a_verdict() {
    let args = [
        "bench",
        "--items",
        "1e3,4e3",
        "--samples",
        "3",
        "--no-strings",
    ];
    let text = String::from_utf8(ok(run(&args, b""))).unwrap();
    let best = splitbloom::Kernel::best().name();
    assert!(text.contains("verdict at 4000 keys:"), "{text}");
    assert!(text.contains(&format!("kernel      {best}")), "{text}");
    assert!(text.contains("min / median / max of 3 samples"), "{text}");
    assert!(text.contains("predicted"), "{text}");
    let conclusion = text.lines().last().unwrap();
    assert!(conclusion.starts_with("conclusion: "), "{text}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let json: serde_json::Value = serde_json::from_slice(&ok(run(&json_args, b""))).unwrap();
    let verdict = &json["verdict"];
    assert_eq!(verdict["items"], 4000);
    assert_eq!(verdict["kernel"], best);
    assert!(verdict["conclusion"].as_str().unwrap().contains(best));
    assert_eq!(
        verdict["others"].as_array().unwrap().len(),
        splitbloom::Kernel::available().count() - 1
    );
    let row = &json["rows"][0];
    assert!(row["hit_ns_min"].as_f64().unwrap() <= row["hit_ns"].as_f64().unwrap());
    assert!(row["hit_ns"].as_f64().unwrap() <= row["hit_ns_max"].as_f64().unwrap());
}

/// Every option of every subcommand says what it does in `--help`.
#[test]
fn every_option_is_documented() {
    let mut commands = vec!["build", "query", "dedup", "info", "merge", "bench"];
    if cfg!(feature = "parquet") {
        commands.push("parquet-info");
    }
    for command in commands {
        let help = String::from_utf8(ok(run(&[command, "--help"], b""))).unwrap();
        // The options end with `--help`; what follows is the subcommand's own text.
        let options = &help[..help.find("-h, --help").unwrap()];
        let lines: Vec<&str> = options.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let option = line.trim_start();
            if line.len() - option.len() < 8 && (option.starts_with("-") || option.starts_with('<'))
            {
                let next = lines.get(index + 1).copied().unwrap_or("");
                assert!(
                    next.starts_with("          ") && !next.trim().is_empty(),
                    "{command}: {line:?} has no description"
                );
            }
        }
        assert!(help.contains("--json"), "{command}");
    }
}

/// At a terminal, one Ctrl-D ends the keys of `query` (and each typed key is answered at
/// once). The terminal is a pseudo-terminal from util-linux's `script`, which passes what the
/// test writes to it as typed; the test is skipped where `script` is missing.
#[cfg(target_os = "linux")]
#[test]
fn one_ctrl_d_ends_query_at_a_terminal() {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !has_script {
        println!("skipped: no `script` to give the binary a terminal");
        return;
    }
    let dir = scratch("one_ctrl_d");
    let filter = path(&dir, "f.sbf");
    ok(run(
        &["build", "-n", "100", "-p", "0.0001", "-o", &filter],
        b"alice\n",
    ));
    let mut command = Command::new("script");
    command.args([
        "-qfec",
        &format!(
            "'{}' query '{filter}'; echo query ended",
            env!("CARGO_BIN_EXE_splitbloom")
        ),
        "/dev/null",
    ]);
    let mut terminal = Session::start_command(command);
    terminal.send(b"alice\n");
    // The terminal echoes the typed line, then the answer follows.
    assert_eq!(terminal.next_line(), b"alice\r\n");
    assert_eq!(terminal.next_line(), b"alice\r\n");
    terminal.send(b"\x04");
    let line = terminal.next_line();
    assert!(line.ends_with(b"query ended\r\n"), "{line:?}");
    let _ = terminal.finish();
}
