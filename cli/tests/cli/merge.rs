//! `splitbloom merge`: the union of compatible filters, and mismatches worded for the command
//! line.

use std::path::Path;

use crate::support::{fails, path, run, scratch, succeeded, temporaries};

#[test]
fn merge_unions_compatible_filters_and_refuses_others() {
    let dir = scratch("merge");
    let (a, b, out) = (path(&dir, "a"), path(&dir, "b"), path(&dir, "out"));
    succeeded(run(
        &["build", "-n", "1000", "-p", "0.001", "-o", &a],
        b"apple\nbanana\n",
    ));
    succeeded(run(
        &["build", "-n", "1000", "-p", "0.001", "-o", &b],
        b"cherry\n",
    ));
    succeeded(run(&["merge", &a, &b, "-o", &out], b""));
    assert_eq!(
        succeeded(run(
            &["query", &out, "apple", "banana", "cherry", "durian"],
            b""
        )),
        b"apple\nbanana\ncherry\n"
    );
    // The output may be one of the inputs.
    succeeded(run(&["merge", &a, &b, "-o", &a], b""));
    assert_eq!(succeeded(run(&["query", &a, "cherry"], b"")), b"cherry\n");

    let other_size = path(&dir, "small");
    succeeded(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &other_size],
        b"x\n",
    ));
    fails(
        run(&["merge", &a, &other_size, "-o", &out], b""),
        "different sizes",
    );
    let other_hasher = path(&dir, "parquet");
    succeeded(run(
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
    succeeded(run(
        &[
            "build", "-n", "100", "-p", "0.01", "--hasher", "parquet", "-o", &a,
        ],
        b"x\n",
    ));
    succeeded(run(
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
    succeeded(run(
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
