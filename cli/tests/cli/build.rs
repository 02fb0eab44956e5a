//! `splitbloom build`: keys in, a filter file out; its summary, its warnings, its sizing
//! errors, and `--layout`.

use splitbloom::{Filter, LayoutKind, QuotientFilter, TagBits, WideFilter};

use crate::support::{
    fails, joined, path, records, refused, run, sample_keys, scratch, succeeded, temporaries,
};

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
    succeeded(output);
    assert!(stderr.contains("1000 keys read"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");

    // Every key is found, from a file and from standard input, in input order.
    let found = succeeded(run(&["query", &filter, "-i", &input], b""));
    assert_eq!(records(&found, b'\n'), keys);
    let found = succeeded(run(&["query", &filter], &joined(&keys, b'\n')));
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
        &succeeded(run(&["query", &filter], &joined(&strangers, b'\n'))),
        b'\n',
    );
    let absent = records(
        &succeeded(run(
            &["query", "--absent", &filter],
            &joined(&strangers, b'\n'),
        )),
        b'\n',
    );
    assert_eq!(present.len() + absent.len(), strangers.len());
    assert!(present.len() < 40, "{} false positives", present.len());
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
    succeeded(output);
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
    succeeded(output);
    assert!(!stderr.contains("warning"), "{stderr}");
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

/// `build` and `merge` print their summary as one JSON object with `--json`.
#[test]
fn build_and_merge_summaries_as_json() {
    let dir = scratch("json_summaries");
    let (a, b, merged) = (path(&dir, "a"), path(&dir, "b"), path(&dir, "m"));
    let built: serde_json::Value = serde_json::from_slice(&succeeded(run(
        &["build", "-n", "100", "-p", "0.01", "-o", &a, "--json"],
        b"x\ny\nx\n",
    )))
    .unwrap();
    assert_eq!(built["file"], a.as_str());
    assert_eq!(built["keys"], 3);
    assert_eq!(built["target_fpr"], 0.01);
    assert!(built["estimated_fpr"].as_f64().unwrap() < 0.01);
    succeeded(run(&["build", "-n", "100", "-p", "0.01", "-o", &b], b"z\n"));
    let summary: serde_json::Value = serde_json::from_slice(&succeeded(run(
        &["merge", &a, &b, "-o", &merged, "--json"],
        b"",
    )))
    .unwrap();
    assert_eq!(summary["filters"], 2);
    assert_eq!(summary["bytes"], built["bytes"]);
    assert_eq!(summary["estimated_items"], 3.0);
}

fn keys(range: std::ops::Range<u32>) -> Vec<u8> {
    range
        .map(|i| format!("key-{i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// A wide build holds every key for the library's `WideFilter` and for `query`, reports its
/// layout in the summary, `--json` and `info`, and meets its rate on absent keys.
#[test]
fn wide_builds_are_read_by_the_library_and_the_cli() {
    let dir = scratch("cli_layout_wide");
    for (fpr, probes) in [("1e-3", 1u8), ("1e-5", 2)] {
        let file = dir.join(format!("wide-{fpr}.sbf"));
        let file = file.to_str().unwrap();
        let summary = run(
            &[
                "build", "-n", "20000", "-p", fpr, "--layout", "wide", "-o", file, "--json",
            ],
            &keys(0..20_000),
        );
        let summary: serde_json::Value = serde_json::from_slice(&succeeded(summary)).unwrap();
        assert_eq!(summary["layout"], "wide");
        assert_eq!(summary["probes"], probes);

        let bytes = std::fs::read(file).unwrap();
        let filter = WideFilter::from_bytes(&bytes).unwrap();
        assert_eq!(filter.probes(), probes);
        for i in 0..20_000 {
            assert!(filter.contains_bytes(format!("key-{i}").as_bytes()), "{i}");
        }
        assert!(matches!(
            Filter::from_bytes(&bytes),
            Err(splitbloom::Error::LayoutMismatch {
                found: LayoutKind::Wide,
                ..
            })
        ));

        let present = succeeded(run(&["query", file], &keys(0..20_000)));
        assert_eq!(present, keys(0..20_000));
        let absent = succeeded(run(&["query", "--absent", file], &keys(20_000..220_000)));
        let false_positives = 200_000 - absent.iter().filter(|&&b| b == b'\n').count();
        let target: f64 = fpr.parse().unwrap();
        assert!(
            (false_positives as f64) < 200_000.0 * target * 1.5 + 3.0,
            "{fpr}: {false_positives} false positives"
        );

        let info = String::from_utf8(succeeded(run(&["info", file], b""))).unwrap();
        let plural = if probes == 1 { "probe" } else { "probes" };
        assert!(
            info.contains(&format!("layout           wide ({probes} {plural})")),
            "{info}"
        );
        let info: serde_json::Value =
            serde_json::from_slice(&succeeded(run(&["info", "--json", file], b""))).unwrap();
        assert_eq!(info["layout"], "wide");
        assert_eq!(info["blocks"], filter.num_blocks());
        let estimated = info["estimated_items"].as_f64().unwrap();
        assert!((18_000.0..22_000.0).contains(&estimated), "{estimated}");
    }
}

/// `auto` writes the wide layout at 0.1% and below and split-block above, byte for byte the
/// default build; the default stays split-block.
#[test]
fn auto_picks_wide_at_low_rates_only() {
    let dir = scratch("cli_layout_auto");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let build = |fpr: &str, layout: Option<&str>, out: &str| {
        let mut args = vec!["build", "-n", "5000", "-p", fpr, "-o", out];
        if let Some(layout) = layout {
            args.extend(["--layout", layout]);
        }
        succeeded(run(&args, &keys(0..5_000)));
        std::fs::read(out).unwrap()
    };
    let auto_low = build("0.001", Some("auto"), &path("auto-low"));
    assert_eq!(auto_low, build("0.001", Some("wide"), &path("wide-low")));
    let default_low = build("0.001", None, &path("default-low"));
    assert!(Filter::from_bytes(&default_low).is_ok());
    assert_eq!(
        default_low,
        build("0.001", Some("split-block"), &path("split-low"))
    );
    let auto_high = build("0.002", Some("auto"), &path("auto-high"));
    assert_eq!(auto_high, build("0.002", None, &path("default-high")));
}

/// Combinations the layouts cannot serve are one-line errors naming what to do.
#[test]
fn layout_errors() {
    let dir = scratch("cli_layout_errors");
    let out = dir.join("out.sbf");
    let out = out.to_str().unwrap();
    refused(
        run(
            &[
                "build", "-n", "10", "-p", "1e-4", "--layout", "wide", "--hasher", "parquet", "-o",
                out,
            ],
            b"a\n",
        ),
        "--layout split-block",
    );
    assert!(!std::path::Path::new(out).exists());
    refused(
        run(
            &[
                "build", "-n", "10", "-p", "1e-4", "--layout", "tall", "-o", out,
            ],
            b"a\n",
        ),
        "invalid value 'tall'",
    );
    succeeded(run(
        &[
            "build", "-n", "10", "-p", "1e-4", "--layout", "wide", "-o", out,
        ],
        b"a\n",
    ));
}

/// A filter more than 100 times the size the keys read need (and over 1 MiB) is refused
/// without `--force`, naming its size, the keys read and the flag, and nothing is written;
/// empty input is warned about.
#[test]
fn oversized_filters_need_force_and_empty_input_is_warned_about() {
    let dir = scratch("build_oversized");
    let out = path(&dir, "f.sbf");
    let thousand: String = (0..1000).map(|i| format!("key-{i}\n")).collect();
    let build = |items: &str, force: bool, input: &[u8]| {
        let mut args = vec!["build", "-n", items, "-p", "0.01", "-o", &out];
        if force {
            args.push("--force");
        }
        run(&args, input)
    };
    let output = build("1e7", false, thousand.as_bytes());
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    fails(output, "not writing");
    for part in ["--items 10000000", " MB (", "1000 keys", "--force"] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    assert!(!std::path::Path::new(&out).exists());
    assert!(temporaries(&dir).is_empty());
    succeeded(build("1e7", true, thousand.as_bytes()));
    assert!(std::fs::metadata(&out).unwrap().len() > 10_000_000);
    // Within 100 times, or small, it is written as asked.
    succeeded(build("5e4", false, thousand.as_bytes()));
    succeeded(build("1e5", false, b"a\n"));
    // No keys at all: refused when large, warned about when written.
    fails(
        build("1e7", false, b""),
        "no keys were read from standard input, and --items 10000000 makes an empty filter of",
    );
    let output = build("100", false, b"");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    succeeded(output);
    assert!(
        stderr.contains("warning: no keys were read from standard input"),
        "{stderr}"
    );
}

/// `--fpr` takes a percentage, and RedisBloom's words for the options work: `--capacity` for
/// `--items`, `--error-rate` and `--rate` for `--fpr`.
#[test]
fn rates_take_percentages_and_redisbloom_names() {
    let dir = scratch("build_rates");
    let file = |name: &str| path(&dir, name);
    let reference = file("reference.sbf");
    succeeded(run(
        &["build", "-n", "1000", "-p", "0.01", "-o", &reference],
        b"a\n",
    ));
    let expected = std::fs::read(&reference).unwrap();
    for (name, args) in [
        ("percent.sbf", ["-n", "1000", "--fpr", "1%"]),
        (
            "capacity.sbf",
            ["--capacity", "1000", "--error-rate", "0.01"],
        ),
        ("rate.sbf", ["--capacity", "1e3", "--rate", "1 %"]),
    ] {
        let out = file(name);
        succeeded(run(
            &[&["build"][..], &args, &["-o", &out]].concat(),
            b"a\n",
        ));
        assert_eq!(std::fs::read(&out).unwrap(), expected, "{args:?}");
    }
    succeeded(run(
        &["dedup", "--capacity", "10", "--error-rate", "0.1%"],
        b"a\n",
    ));
    refused(
        run(
            &["build", "-n", "10", "-p", "one percent", "-o", &file("x")],
            b"a\n",
        ),
        "write a fraction such as 0.01 or 1e-3, or a percentage such as 1%",
    );
    let help = String::from_utf8(succeeded(run(&["build", "--help"], b""))).unwrap();
    assert!(
        help.contains("capacity") && help.contains("error-rate"),
        "{help}"
    );
}

/// A quotient build is byte for byte the library's `QuotientFilter::with_fpr` with a copy of
/// each line's key (`insert_copy_bytes`), duplicates included; `--tag-bits` sizes it as
/// `with_capacity` does; its summary and `info` give the layout and tag width.
#[test]
fn quotient_builds_are_the_librarys_bytes() {
    let dir = scratch("cli_layout_quotient");
    let input: Vec<u8> = [keys(0..3000), keys(0..10)].concat();
    let file = path(&dir, "q.sbf");
    let summary = run(
        &[
            "build", "-n", "3000", "-p", "0.01", "--layout", "quotient", "-o", &file, "--json",
        ],
        &input,
    );
    let summary: serde_json::Value = serde_json::from_slice(&succeeded(summary)).unwrap();
    assert_eq!(summary["layout"], "quotient");
    assert_eq!(summary["tag_bits"], 8);
    assert_eq!(summary["keys"], 3010);
    assert_eq!(summary["estimated_items"], 3010);
    let mut expected = QuotientFilter::with_fpr(3000, 0.01).unwrap();
    for key in input
        .split(|&byte| byte == b'\n')
        .filter(|key| !key.is_empty())
    {
        expected.insert_copy_bytes(key).unwrap();
    }
    assert_eq!(std::fs::read(&file).unwrap(), expected.to_bytes());
    assert_eq!(expected.count_bytes(b"key-3"), 2);

    let sixteen = path(&dir, "sixteen.sbf");
    succeeded(run(
        &[
            "build",
            "-n",
            "3000",
            "-p",
            "0.01",
            "--layout",
            "quotient",
            "--tag-bits",
            "16",
            "-o",
            &sixteen,
        ],
        &input,
    ));
    let filter = QuotientFilter::from_bytes(&std::fs::read(&sixteen).unwrap()).unwrap();
    assert_eq!(filter.tag_bits(), TagBits::Sixteen);
    let capacity = QuotientFilter::with_capacity(3000, TagBits::Sixteen).unwrap();
    assert_eq!(filter.num_blocks(), capacity.num_blocks());
    let info = String::from_utf8(succeeded(run(&["info", &sixteen], b""))).unwrap();
    assert!(
        info.contains("layout           quotient (16-bit tags)"),
        "{info}"
    );
    assert!(info.contains("keys             3010 "), "{info}");
}

/// A quotient filter that cannot take another key is an error naming how many keys went in,
/// and nothing is written; --tag-bits that cannot meet --fpr, or without the quotient layout,
/// and --hasher parquet are refused before any key is read.
#[test]
fn quotient_build_errors() {
    let dir = scratch("cli_layout_quotient_errors");
    let out = path(&dir, "q.sbf");
    let quotient = [
        "build", "-n", "100", "-p", "0.01", "--layout", "quotient", "-o", &out,
    ];
    let output = run(&quotient, &keys(0..1000));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    fails(output, "the quotient filter for --items 100 is full after ");
    let went_in: u64 = stderr
        .split("full after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    // At least the keys it is sized for, and no more than its slots.
    let slots = QuotientFilter::with_fpr(100, 0.01).unwrap().capacity() as u64;
    assert!((100..=slots).contains(&went_in), "{stderr}");
    assert!(stderr.contains("larger --items"), "{stderr}");
    assert!(!std::path::Path::new(&out).exists());
    assert!(temporaries(&dir).is_empty());
    // The keys it is sized for fit.
    succeeded(run(&quotient, &keys(0..100)));

    let build = |extra: &[&str]| {
        let start = ["build", "-n", "100", "-o", &out];
        run(&[&start[..], extra].concat(), b"a\n")
    };
    let low = ["-p", "0.001", "--layout", "quotient", "--tag-bits", "8"];
    fails(build(&low), "use --tag-bits 16");
    let parquet = ["-p", "0.01", "--layout", "quotient", "--hasher", "parquet"];
    fails(build(&parquet), "another --hasher for --layout quotient");
    fails(
        build(&["-p", "0.01", "--tag-bits", "8"]),
        "add --layout quotient",
    );
    assert!(temporaries(&dir).is_empty());
}
