//! `splitbloom dedup`: each line the first time it is seen, and with `--window`, lines forgotten
//! after a sliding window of time, checked against an exact model of the window on a clock that
//! advances a fixed step per line.

use std::process::Output;

use crate::support::{path, refused, run, scratch, succeeded};

#[test]
fn dedup_prints_first_occurrences_and_reports_drops() {
    let input = b"a\nb\na\n\xff\xfe\nc\nb\n\xff\xfe\n\n\n";
    let output = run(&["dedup", "-n", "100", "-p", "0.0001"], input);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let printed = succeeded(output);
    assert_eq!(printed, b"a\nb\n\xff\xfe\nc\n\n");
    assert!(stderr.contains("9 lines, 5 printed, 4 dropped"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    // Too many distinct lines for --items: warned.
    let many: Vec<u8> = (0..500)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let output = run(&["dedup", "-n", "10", "-p", "0.01"], &many);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    succeeded(output);
    assert!(
        stderr.contains("warning: ") && stderr.contains("--items 10"),
        "{stderr}"
    );
    // From a file, NUL-separated.
    let dir = scratch("dedup");
    let input = path(&dir, "in");
    std::fs::write(&input, b"x\ny\0x\ny\0z\0").unwrap();
    assert_eq!(
        succeeded(run(
            &["dedup", "-n", "10", "-p", "0.01", "--null", "-i", &input],
            b""
        )),
        b"x\ny\0z\0"
    );
}

/// Asserts success and returns stdout's lines.
fn printed(output: Output) -> Vec<String> {
    String::from_utf8(succeeded(output))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `dedup --window 4s --generations 4` (periods of 1 s) on a clock that advances `step_ms` per
/// line, with a false-positive rate small enough that these few keys meet none.
fn dedup_window(lines: &[String], step_ms: u64, extra: &[&str]) -> Vec<String> {
    let step = format!("{step_ms}ms");
    let mut args = vec![
        "dedup",
        "-n",
        "1000",
        "-p",
        "1e-9",
        "--window",
        "4s",
        "--generations",
        "4",
        "--test-clock-per-line",
        &step,
    ];
    args.extend_from_slice(extra);
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    printed(run(&args, input.as_bytes()))
}

/// The window's exact answer: line `i` arrives at `i · step`, in period `⌊i · step / 1 s⌋`; it is
/// printed unless it was last seen (every sighting refreshes it) at most G − 1 = 3 periods ago.
/// Also counts the repeats seen exactly 3 and exactly 4 periods after their last sighting, the
/// two sides of the boundary.
fn model(lines: &[String], step_ms: u64) -> (Vec<String>, [usize; 2]) {
    let mut last_period = std::collections::HashMap::new();
    let mut boundary = [0; 2];
    let mut kept = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let period = i as u64 * step_ms / 1000;
        match last_period
            .insert(line.clone(), period)
            .map(|last| period - last)
        {
            Some(age) if age <= 3 => boundary[0] += usize::from(age == 3),
            age => {
                boundary[1] += usize::from(age == Some(4));
                kept.push(line.clone());
            }
        }
    }
    (kept, boundary)
}

/// A stream of 3000 lines drawn from 40 keys at irregular intervals: what `dedup --window`
/// prints is exactly what the model of the window prints, repeats on both sides of the window's
/// edge included, for every hasher that can run here.
#[test]
fn dedup_window_forgets_exactly_what_the_window_forgets() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let lines: Vec<String> = (0..3000).map(|_| format!("key-{}", next() % 40)).collect();
    let step_ms = 80;
    let (expected, boundary) = model(&lines, step_ms);
    assert!(boundary[0] > 100 && boundary[1] > 100, "{boundary:?}");
    assert!(expected.len() > 100 && expected.len() < lines.len() / 2);
    assert_eq!(dedup_window(&lines, step_ms, &[]), expected);
    assert_eq!(
        dedup_window(&lines, step_ms, &["--hasher", "parquet"]),
        expected
    );
}

/// A pause longer than the whole window forgets everything, however many periods passed.
#[test]
fn dedup_window_after_a_long_pause_prints_every_line_again() {
    let lines: Vec<String> = ["a", "b", "a", "a", "b"].map(String::from).to_vec();
    assert_eq!(dedup_window(&lines, 9000, &[]), lines);
    // Without the pauses, each is printed once.
    assert_eq!(dedup_window(&lines, 1, &[]), ["a", "b"]);
    // A repeat three periods later is still dropped; four periods later, printed again.
    let lines: Vec<String> = ["a", "b", "c", "a", "d", "e", "f", "a"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        dedup_window(&lines, 1000, &[]),
        ["a", "b", "c", "d", "e", "f", "a"]
    );
}

/// Bad windows and generation counts are usage errors naming the problem.
#[test]
fn dedup_window_refuses_bad_arguments() {
    let dedup = |extra: &[&str]| {
        let mut args = vec!["dedup", "-n", "10", "-p", "0.01"];
        args.extend_from_slice(extra);
        run(&args, b"a\n")
    };
    refused(dedup(&["--window", "0s"]), "longer than zero");
    refused(dedup(&["--window", "5 parsecs"]), "90s, 30m, 24h");
    refused(dedup(&["--window", "12"]), "90s, 30m, 24h");
    refused(
        dedup(&["--window", "99999999999999999999999d"]),
        "too large",
    );
    refused(
        dedup(&["--window", "2ms", "--generations", "4"]),
        "under a millisecond",
    );
    refused(dedup(&["--window", "1h", "--generations", "0"]), "1..=64");
    refused(dedup(&["--window", "1h", "--generations", "65"]), "1..=64");
    refused(dedup(&["--generations", "3"]), "--window");
    refused(
        run(
            &["dedup", "-n", "1e30", "-p", "0.01", "--window", "1h"],
            b"",
        ),
        "too large for a count",
    );
    // Accepted forms.
    for window in ["90s", "30m", "24h", "7d", "1h30m", "1h 30m"] {
        assert_eq!(printed(dedup(&["--window", window])), ["a"], "{window}");
    }
}

/// The summary names the window, the periods begun and the window's false-positive rate.
#[test]
fn dedup_window_summary() {
    let output = run(
        &[
            "dedup",
            "-n",
            "2",
            "-p",
            "0.01",
            "--window",
            "1m",
            "--generations",
            "3",
            "--test-clock-per-line",
            "30s",
        ],
        b"a\nb\nc\nd\ne\na\n",
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("dedup: 6 lines, 6 printed, 0 dropped as seen within the last 1m; 7 periods of 20s started;"),
        "{stderr}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");
    let output = run(
        &[
            "dedup",
            "-n",
            "2",
            "-p",
            "0.01",
            "--window",
            "1m",
            "--generations",
            "3",
        ],
        b"a\nb\nc\nd\ne\n",
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("warning: at least 5 new lines in one period, more than --items 2"),
        "{stderr}"
    );
}

/// Past --items the filter saturates and drops new lines as seen: the summary then gives only
/// what it knows (lines read, printed, dropped; at least the printed lines were distinct) and
/// says that how many dropped lines were new is unknown, instead of an estimate made for a
/// filter within its size.
#[test]
fn dedup_past_its_items_says_what_is_unknown() {
    let distinct: String = (0..20_000).map(|i| format!("line-{i}\n")).collect();
    let output = run(&["dedup", "-n", "1000", "-p", "0.01"], distinct.as_bytes());
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    let printed = succeeded(output)
        .iter()
        .filter(|&&byte| byte == b'\n')
        .count();
    assert!(printed < 20_000, "{printed}");
    assert!(
        stderr.contains(&format!(
            "dedup: 20000 lines, {printed} printed, {} dropped",
            20_000 - printed
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("how many of the dropped lines were new is unknown"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("at least {printed} distinct lines")),
        "{stderr}"
    );
    assert!(!stderr.contains("may have been new"), "{stderr}");
    // Within --items, the estimate is given.
    let output = run(
        &["dedup", "-n", "100000", "-p", "0.01"],
        distinct.as_bytes(),
    );
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    succeeded(output);
    assert!(
        stderr.contains("of the dropped lines may have been new"),
        "{stderr}"
    );
}
