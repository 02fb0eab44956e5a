//! `splitbloom query`: which keys a filter file may hold, answered as they arrive.

use std::process::Command;

use crate::support::{Session, fails, path, run, scratch, succeeded};

#[test]
fn query_exit_status_follows_what_is_printed() {
    let dir = scratch("query_status");
    let filter = path(&dir, "f.sbf");
    succeeded(run(
        &["build", "-n", "100", "-p", "0.001", "-o", &filter],
        b"alpha\nbeta\n",
    ));
    assert_eq!(
        succeeded(run(&["query", &filter, "alpha", "nope"], b"")),
        b"alpha\n"
    );
    let output = run(&["query", &filter, "gamma", "delta"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert_eq!(
        succeeded(run(&["query", "--absent", &filter, "alpha", "gamma"], b"")),
        b"gamma\n"
    );
    // Keys on the command line and from -i are both tested.
    assert_eq!(
        succeeded(run(&["query", &filter, "alpha", "-i", "-"], b"beta\n")),
        b"alpha\nbeta\n"
    );
}

/// `query --help` says how the file is read (it is not memory-mapped).
#[test]
fn query_help_says_the_file_is_read() {
    let help = String::from_utf8(succeeded(run(&["query", "--help"], b""))).unwrap();
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
    succeeded(run(
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
    succeeded(run(
        &["build", "-n", "50000", "-p", "0.001", "-o", &filter],
        keys.as_bytes(),
    ));
    assert_eq!(
        succeeded(run(&["query", &filter], keys.as_bytes())),
        keys.as_bytes()
    );
    let twice = format!("{keys}{keys}");
    let unique = succeeded(run(
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
    succeeded(run(
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

/// `--json` prints a value that is not UTF-8 as hex, so different inputs never print alike.
#[test]
fn json_output_keeps_bytes_that_are_not_utf8_apart() {
    let dir = scratch("json_bytes");
    let filter = path(&dir, "f.sbf");
    let keys = b"\xff\n\xfe\ncaf\xc3\xa9\n";
    succeeded(run(
        &["build", "-n", "100", "-p", "0.0001", "-o", &filter],
        keys,
    ));
    let expected = "{\"value_hex\":\"ff\",\"may_be_present\":true}\n\
                    {\"value_hex\":\"fe\",\"may_be_present\":true}\n\
                    {\"value\":\"café\",\"may_be_present\":true}\n";
    assert_eq!(
        String::from_utf8(succeeded(run(&["query", "--json", &filter], keys))).unwrap(),
        expected
    );
    let dedup = succeeded(run(&["dedup", "-n", "100", "-p", "0.0001", "--json"], keys));
    assert_eq!(
        String::from_utf8(dedup).unwrap(),
        "{\"value_hex\":\"ff\"}\n{\"value_hex\":\"fe\"}\n{\"value\":\"café\"}\n"
    );
    for line in expected.lines() {
        let _: serde_json::Value = serde_json::from_str(line).unwrap();
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
    succeeded(run(
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
