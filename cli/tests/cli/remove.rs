//! `splitbloom remove`: keys taken out of a quotient filter file, which is replaced atomically
//! with every removal or left as it was; other filter types refused, naming the one that can.

use splitbloom::{QuotientFilter, ScalableFilter, WindowFilter};

use crate::support::{fails, path, records, run, scratch, succeeded, temporaries};

/// `key-i` for each `i` of `range`, one a line.
fn keys(range: std::ops::Range<u32>) -> Vec<u8> {
    range
        .map(|i| format!("key-{i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// A quotient filter of `key-0..key-2000` built by the CLI at `file`.
fn quotient_file(file: &str) {
    succeeded(run(
        &[
            "build", "-n", "2000", "-p", "0.01", "--layout", "quotient", "-o", file,
        ],
        &keys(0..2000),
    ));
}

/// Removed keys are gone, every other key stays (no false negative), the summary counts the
/// keys found and not found, and the file is the library's filter after the same removals.
#[test]
fn remove_takes_keys_out_and_keeps_the_others() {
    let dir = scratch("remove_keys");
    let file = path(&dir, "q.sbf");
    quotient_file(&file);
    let input = path(&dir, "gone.txt");
    std::fs::write(&input, keys(0..1000)).unwrap();
    let mut expected = QuotientFilter::from_bytes(&std::fs::read(&file).unwrap()).unwrap();
    // Keys 0..1000 from a file and key-1000 as an argument: every one was added, so found.
    let summary = succeeded(run(
        &["remove", &file, "key-1000", "-i", &input, "--json"],
        b"",
    ));
    let summary: serde_json::Value = serde_json::from_slice(&summary).unwrap();
    assert_eq!(summary["keys"], 1001, "{summary}");
    assert_eq!(summary["removed"], 1001, "{summary}");
    assert_eq!(summary["not_found"], 0, "{summary}");
    assert_eq!(summary["len"], 999, "{summary}");
    assert_eq!(summary["layout"], "quotient", "{summary}");
    for key in records(&keys(0..1001), b'\n') {
        assert!(expected.remove_bytes(&key));
    }
    assert_eq!(std::fs::read(&file).unwrap(), expected.to_bytes());
    let kept = succeeded(run(&["query", &file], &keys(1001..2000)));
    assert_eq!(kept, keys(1001..2000));
    let output = run(&["query", &file], &keys(0..1001));
    let still = records(&output.stdout, b'\n').len();
    assert!(still < 30, "{still} removed keys still answer present");
    assert!(temporaries(&dir).is_empty());

    // From standard input, with keys never added, to another file: the filter file stays as
    // it is; a key never added is found only at about the filter's rate.
    let before = std::fs::read(&file).unwrap();
    let other = path(&dir, "other.sbf");
    let input = [keys(1001..1500), keys(5000..5500)].concat();
    let output = run(&["remove", &file, "-o", &other], &input);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    succeeded(output);
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let other = QuotientFilter::from_bytes(&std::fs::read(&other).unwrap()).unwrap();
    let removed = 999 - other.len();
    assert!((499..499 + 20).contains(&removed), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{removed} of 999 keys removed, {} not found",
            999 - removed
        )),
        "{stderr}"
    );
}

/// On any error the filter file is left as it was, with no temporary file: a key too long
/// after keys that were removed, an output that cannot be written, a damaged filter.
#[test]
fn remove_leaves_the_file_on_errors() {
    let dir = scratch("remove_errors");
    let file = path(&dir, "q.sbf");
    quotient_file(&file);
    let before = std::fs::read(&file).unwrap();
    let long = [keys(0..100), vec![b'x'; 100], b"\n".to_vec()].concat();
    fails(
        run(&["remove", &file, "--max-key-bytes", "50"], &long),
        "50",
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    fails(
        run(
            &["remove", &file, "key-1", "-o", &dir.to_string_lossy()],
            b"",
        ),
        "directory",
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let mut damaged = before.clone();
    damaged[100] ^= 1;
    std::fs::write(&file, &damaged).unwrap();
    fails(run(&["remove", &file, "key-1"], b""), "checksum");
    assert_eq!(std::fs::read(&file).unwrap(), damaged);
    assert!(temporaries(&dir).is_empty());
}

/// Filters that cannot forget a key are refused, the type named, and left as they were.
#[test]
fn remove_refuses_filters_that_cannot_remove_keys() {
    let dir = scratch("remove_refused");
    let split = path(&dir, "split.sbf");
    succeeded(run(
        &["build", "-n", "100", "-p", "0.01", "-o", &split],
        b"a\n",
    ));
    let wide = path(&dir, "wide.sbf");
    succeeded(run(
        &[
            "build", "-n", "100", "-p", "1e-4", "--layout", "wide", "-o", &wide,
        ],
        b"a\n",
    ));
    let scalable = path(&dir, "scalable.sbs");
    std::fs::write(
        &scalable,
        ScalableFilter::with_fpr(100, 0.01).unwrap().to_bytes(),
    )
    .unwrap();
    let window = path(&dir, "window.sbw");
    let window_bytes = WindowFilter::with_fpr(100, 0.01, 2).unwrap().to_bytes();
    std::fs::write(&window, window_bytes).unwrap();
    for (file, what) in [
        (&split, "a split-block filter (SBLM)"),
        (&wide, "a wide filter (SBLM)"),
        (&scalable, "a scalable filter (SBLS)"),
        (&window, "a window filter (SBLW)"),
    ] {
        let before = std::fs::read(file).unwrap();
        fails(
            run(&["remove", file, "a"], b""),
            &format!("cannot remove keys from {file}: it is {what}"),
        );
        fails(
            run(&["remove", file, "a"], b""),
            "only quotient filters can (`splitbloom build --layout quotient`",
        );
        assert_eq!(std::fs::read(file).unwrap(), before);
    }
    assert!(temporaries(&dir).is_empty());
}
