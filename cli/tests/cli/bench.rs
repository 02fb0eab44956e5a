//! `splitbloom bench`, the main job: its tables, its JSON, its verdict and its limits.

use std::process::Command;
use std::process::Stdio;

use crate::support::{fails, run, succeeded};

#[test]
fn bench_runs_per_key_and_batched_with_json() {
    for mode in [None, Some("--batch")] {
        let mut args = vec!["bench", "--items", "2000,3000", "--samples", "1", "--json"];
        args.extend(mode);
        args.push("--no-strings");
        let json: serde_json::Value = serde_json::from_slice(&succeeded(run(&args, b""))).unwrap();
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
    let table = succeeded(run(
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
    let table = String::from_utf8(succeeded(run(
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

    let json = succeeded(run(
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
    let text = String::from_utf8(succeeded(run(&args, b""))).unwrap();
    let best = splitbloom::Kernel::best().name();
    assert!(text.contains("verdict at 4000 keys:"), "{text}");
    assert!(text.contains(&format!("kernel      {best}")), "{text}");
    assert!(text.contains("min / median / max of 3 samples"), "{text}");
    assert!(text.contains("predicted"), "{text}");
    let conclusion = text.lines().last().unwrap();
    assert!(conclusion.starts_with("conclusion: "), "{text}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let json: serde_json::Value = serde_json::from_slice(&succeeded(run(&json_args, b""))).unwrap();
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
