//! How every subcommand reads keys and filter files: line ends, NUL-terminated keys, counts,
//! key lengths, bounded reads of filter files, and bad input as one line with exit status 2.

use std::path::Path;
use std::process::Command;
use std::process::Stdio;

use splitbloom::Filter;

use crate::support::{Xxh3, fails, joined, path, records, run, scratch, succeeded, temporaries};

#[test]
fn null_separated_keys_may_contain_newlines() {
    let dir = scratch("null");
    let keys: Vec<Vec<u8>> = vec![b"line\none".to_vec(), b"two\r".to_vec(), vec![0x80, b'\n']];
    let filter = path(&dir, "f.sbf");
    succeeded(run(
        &["build", "-n", "10", "-p", "0.001", "--null", "-o", &filter],
        &joined(&keys, 0),
    ));
    let found = succeeded(run(&["query", "--null", &filter], &joined(&keys, 0)));
    assert_eq!(records(&found, 0), keys);
    // Read line by line instead, the pieces are other keys.
    let output = run(&["query", &filter], b"line\n");
    assert_eq!(output.status.code(), Some(1));
}

/// Lines ending in `\r\n` give the same keys as lines ending in `\n` (unless --keep-cr), so a
/// filter built from a Windows file answers queries from a Unix one and the other way round.
#[test]
fn crlf_lines_give_the_same_keys_as_lf_lines() {
    let dir = scratch("crlf");
    let (crlf, lf) = (path(&dir, "crlf.sbf"), path(&dir, "lf.sbf"));
    succeeded(run(
        &["build", "-n", "1000", "-p", "0.0001", "-o", &crlf],
        b"alpha\r\nbeta\r\n",
    ));
    succeeded(run(
        &["build", "-n", "1000", "-p", "0.0001", "-o", &lf],
        b"alpha\nbeta\n",
    ));
    assert_eq!(std::fs::read(&crlf).unwrap(), std::fs::read(&lf).unwrap());
    assert_eq!(
        succeeded(run(&["query", &crlf], b"alpha\nbeta\n")),
        b"alpha\nbeta\n"
    );
    assert_eq!(
        succeeded(run(&["query", &lf], b"alpha\r\nbeta\r\n")),
        b"alpha\nbeta\n"
    );
    assert_eq!(succeeded(run(&["query", &crlf, "alpha"], b"")), b"alpha\n");
    // --keep-cr keeps it: then only keys with the \r match.
    let kept = path(&dir, "kept.sbf");
    succeeded(run(
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
        succeeded(run(&["query", "--keep-cr", &kept], b"alpha\r\n")),
        b"alpha\r\n"
    );
    // A lone \r inside a line, or with --null, is part of the key.
    assert_eq!(
        succeeded(run(&["dedup", "-n", "10", "-p", "0.01"], b"a\rb\r\na\rb\n")),
        b"a\rb\n"
    );
    assert_eq!(
        succeeded(run(&["dedup", "-0", "-n", "10", "-p", "0.01"], b"a\r\0a\0")),
        b"a\r\0a\0"
    );
    // The rule is in the help.
    let help = String::from_utf8(succeeded(run(&["build", "--help"], b""))).unwrap();
    assert!(help.contains("--keep-cr"), "{help}");
    assert!(help.contains("CRLF"), "{help}");
}

/// Counts are read as people write them (`1e6`, `2.5e6`, `1_000_000`), and what is not a
/// whole number of keys is an error that says why.
#[test]
fn counts_take_scientific_and_grouped_forms() {
    let dir = scratch("counts");
    let filter = path(&dir, "f.sbf");
    let blocks = |items: &str| {
        succeeded(run(
            &["build", "-n", items, "-p", "0.01", "--force", "-o", &filter],
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
    succeeded(run(
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
    succeeded(run(
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
        succeeded(run(
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
    succeeded(run(
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

#[test]
fn bad_input_is_one_line_and_exit_status_2() {
    let dir = scratch("errors");
    let good = path(&dir, "good.sbf");
    succeeded(run(
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
        ("empty", b"", "is an empty file, not a splitbloom filter"),
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
