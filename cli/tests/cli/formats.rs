//! Every format the library and the Redis module write, read by `query`, `info` and `merge`:
//! split-block, wide and quotient filters (`SBLM`, layouts 0, 1, 2, 5 and 6), scalable filters (`SBLS`, what
//! `SBF.DUMP` returns for a scaling filter) and window filters (`SBLW`); and files that are not
//! filters, refused with what they look like.

use splitbloom::parquet::ParquetHash;
use splitbloom::{
    Filter, QuotientFilter, ScalableFilter, ScalableParameters, WideFilter, WindowFilter,
};

use crate::support::{fails, path, run, scratch, succeeded};

/// `count` keys named `prefix-i`.
fn keys(prefix: &str, count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| format!("{prefix}-{i}").into_bytes())
        .collect()
}

/// One key a line.
fn lines(keys: &[Vec<u8>]) -> Vec<u8> {
    keys.iter()
        .flat_map(|key| key.iter().copied().chain([b'\n']))
        .collect()
}

/// A filter file of each format, written by the library with keys `member-0..`, and what
/// `info --json` must say about it: its format, layout, probes, and its stages or
/// generations.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    members: usize,
    format: &'static str,
    layout: &'static str,
    probes: u64,
    parts: Option<(&'static str, u64)>,
}

fn cases() -> Vec<Case> {
    let members = keys("member", 2000);
    let mut split_block = Filter::with_fpr(2000, 0.01).unwrap();
    let mut wide = WideFilter::with_fpr(2000, 1e-3).unwrap();
    let mut wide_two = WideFilter::with_fpr(2000, 1e-5).unwrap();
    for key in &members {
        split_block.insert_bytes(key);
        wide.insert_bytes(key);
        wide_two.insert_bytes(key);
    }
    assert_eq!(wide_two.probes(), 2);
    let mut quotient = QuotientFilter::with_fpr(2000, 0.01).unwrap();
    let mut quotient_sixteen = QuotientFilter::with_fpr(2000, 1e-4).unwrap();
    for key in &members {
        quotient.insert_copy_bytes(key).unwrap();
        quotient_sixteen.insert_copy_bytes(key).unwrap();
    }
    let mut scalable = ScalableFilter::with_fpr(200, 0.01).unwrap();
    let parameters = ScalableParameters::new(200, 0.01);
    let mut scalable_parquet =
        ScalableFilter::with_parameters(parameters, ParquetHash::default()).unwrap();
    for key in &members {
        scalable.insert_bytes(key).unwrap();
        scalable_parquet.insert_bytes(key).unwrap();
    }
    let stages = scalable.stages().len() as u64;
    assert!(stages > 2, "{stages}");
    // Half the keys a rotation ago: the window holds both halves.
    let mut window = WindowFilter::with_fpr(1000, 0.01, 3).unwrap();
    let mut window_parquet =
        WindowFilter::with_fpr_and_hasher(1000, 0.01, 3, ParquetHash::default()).unwrap();
    for (index, key) in members.iter().enumerate() {
        if index == 1000 {
            window.rotate();
            window_parquet.rotate();
        }
        window.insert_bytes(key);
        window_parquet.insert_bytes(key);
    }
    let case = |name, bytes, format, layout, probes, parts| Case {
        name,
        bytes,
        members: members.len(),
        format,
        layout,
        probes,
        parts,
    };
    vec![
        case(
            "split-block.sbf",
            split_block.to_bytes(),
            "filter",
            "split-block",
            1,
            None,
        ),
        case("wide.sbf", wide.to_bytes(), "filter", "wide", 1, None),
        case(
            "wide-two.sbf",
            wide_two.to_bytes(),
            "filter",
            "wide",
            2,
            None,
        ),
        case(
            "quotient.sbf",
            quotient.to_bytes(),
            "filter",
            "quotient",
            2,
            None,
        ),
        case(
            "quotient-sixteen.sbf",
            quotient_sixteen.to_bytes(),
            "filter",
            "quotient",
            2,
            None,
        ),
        case(
            "scalable.sbs",
            scalable.to_bytes(),
            "scalable",
            "split-block",
            1,
            Some(("stages", stages)),
        ),
        case(
            "scalable-parquet.sbs",
            scalable_parquet.to_bytes(),
            "scalable",
            "split-block",
            1,
            Some(("stages", scalable_parquet.stages().len() as u64)),
        ),
        case(
            "window.sbw",
            window.to_bytes(),
            "window",
            "split-block",
            1,
            Some(("generations", 3)),
        ),
        case(
            "window-parquet.sbw",
            window_parquet.to_bytes(),
            "window",
            "split-block",
            1,
            Some(("generations", 3)),
        ),
    ]
}

/// `query` finds every key of a file of every format, and answers strangers at about the
/// filter's rate; `info` names the format, its layout, its stages or generations, and estimates
/// the keys it holds.
#[test]
fn query_and_info_read_every_format() {
    let dir = scratch("formats_every");
    let members = keys("member", 2000);
    let strangers = keys("stranger", 2000);
    for case in cases() {
        let file = path(&dir, case.name);
        std::fs::write(&file, &case.bytes).unwrap();
        let found = succeeded(run(&["query", &file], &lines(&members)));
        assert_eq!(found, lines(&members), "{}", case.name);
        let output = run(&["query", &file], &lines(&strangers));
        let false_positives = output.stdout.iter().filter(|&&byte| byte == b'\n').count();
        assert!(false_positives < 100, "{}: {false_positives}", case.name);

        let json = succeeded(run(&["info", "--json", &file], b""));
        let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(json["format"], case.format, "{}: {json}", case.name);
        assert_eq!(json["layout"], case.layout, "{}: {json}", case.name);
        assert_eq!(json["probes"], case.probes, "{}: {json}", case.name);
        assert_eq!(json["bytes"], case.bytes.len(), "{}: {json}", case.name);
        if case.layout == "quotient" {
            // A quotient filter counts its keys exactly, and says its tag width.
            assert_eq!(json["len"], case.members, "{}: {json}", case.name);
            assert_eq!(
                json["estimated_items"], case.members,
                "{}: {json}",
                case.name
            );
            let bits = json["tag_bits"].as_u64();
            assert!(bits == Some(8) || bits == Some(16), "{}: {json}", case.name);
        }
        let items = json["estimated_items"].as_f64().unwrap();
        let expected = case.members as f64;
        assert!(
            (items - expected).abs() < 0.1 * expected,
            "{}: {json}",
            case.name
        );
        let fill = json["fill_ratio"].as_f64().unwrap();
        assert!(fill > 0.0 && fill < 1.0, "{}: {json}", case.name);
        assert!(
            json["estimated_fpr"].as_f64().unwrap() < 0.05,
            "{}: {json}",
            case.name
        );
        let text = String::from_utf8(succeeded(run(&["info", &file], b""))).unwrap();
        // A quotient filter's keys are counted, not estimated.
        let items = if case.layout == "quotient" {
            format!("keys             {} ", case.members)
        } else {
            "estimated items".to_owned()
        };
        assert!(text.contains(&items), "{}: {text}", case.name);
        // From a pipe, read exactly as far as the headers announce: a byte short or a byte too
        // many is an error.
        let piped = succeeded(run(&["info", "--json", "/dev/stdin"], &case.bytes));
        let piped: serde_json::Value = serde_json::from_slice(&piped).unwrap();
        assert_eq!(
            piped["estimated_items"], json["estimated_items"],
            "{}",
            case.name
        );
        let short = &case.bytes[..case.bytes.len() - 1];
        fails(
            run(&["query", "/dev/stdin", "member-0"], short),
            "truncated",
        );
        let mut long = case.bytes.clone();
        long.push(0);
        let output = run(&["info", "/dev/stdin"], &long);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        fails(output, "/dev/stdin: ");
        assert!(
            stderr.contains("wrong length") || stderr.contains("after the last stage"),
            "{}: {stderr}",
            case.name
        );
        if let Some((parts, count)) = case.parts {
            let listed = json[parts]
                .as_array()
                .map_or_else(|| json[parts].as_u64(), |list| Some(list.len() as u64));
            assert_eq!(listed, Some(count), "{}: {json}", case.name);
            assert!(
                text.contains(&format!("{parts:<17}{count}")),
                "{}: {text}",
                case.name
            );
        }
    }
}

/// A window's `info` gives its rotations and what each generation is sized for; a scalable
/// filter's, each stage's fill and estimated keys.
#[test]
fn info_describes_stages_and_generations() {
    let dir = scratch("formats_parts");
    let mut window = WindowFilter::with_fpr(500, 0.001, 4).unwrap();
    window.insert_bytes(b"a");
    for _ in 0..5 {
        window.rotate();
    }
    let file = path(&dir, "window.sbw");
    std::fs::write(&file, window.to_bytes()).unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&succeeded(run(&["info", "--json", &file], b""))).unwrap();
    assert_eq!(json["rotations"], 5, "{json}");
    assert_eq!(json["items_per_generation"], 500, "{json}");
    assert_eq!(json["blocks_per_generation"], window.num_blocks(), "{json}");
    let target = json["target_fpr"].as_f64().unwrap();
    assert!((target - window.fpr()).abs() < 1e-12, "{json}");
    // One key, inserted five rotations ago in a window of four generations: forgotten.
    let ages = json["by_age"].as_array().unwrap();
    assert_eq!(ages.len(), 4, "{json}");
    assert!(
        ages.iter().all(|age| age["estimated_items"] == 0.0),
        "{json}"
    );
    assert_eq!(json["hasher"], "xxh3", "{json}");
    let text = String::from_utf8(succeeded(run(&["info", &file], b""))).unwrap();
    assert!(text.contains("window filter (SBLW version 1)"), "{text}");
    assert!(text.contains("rotations        5\n"), "{text}");

    let mut scalable = ScalableFilter::with_fpr(100, 0.01).unwrap();
    for key in keys("k", 500) {
        scalable.insert_bytes(&key).unwrap();
    }
    let file = path(&dir, "scalable.sbs");
    std::fs::write(&file, scalable.to_bytes()).unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&succeeded(run(&["info", "--json", &file], b""))).unwrap();
    let stages = json["stages"].as_array().unwrap();
    let estimated: f64 = stages
        .iter()
        .map(|stage| stage["estimated_items"].as_f64().unwrap())
        .sum();
    assert!((estimated - 500.0).abs() < 50.0, "{json}");
    let close = |value: &serde_json::Value, expected: f64| {
        (value.as_f64().unwrap() - expected).abs() <= 1e-12 * expected.max(1.0)
    };
    for (stage, filter) in stages.iter().zip(scalable.stages()) {
        assert!(close(&stage["fill_ratio"], filter.fill_ratio()), "{json}");
        assert_eq!(stage["layout"], "split-block", "{json}");
    }
    assert!(
        close(&json["estimated_fpr"], scalable.estimated_fpr()),
        "{json}"
    );
}

/// Wide filters merge as split-block ones do; formats that do not combine as sets, and
/// filters of different layouts, are refused with the reason.
#[test]
fn merge_takes_wide_filters_and_refuses_other_formats() {
    let dir = scratch("formats_merge");
    let (a, b, out) = (
        path(&dir, "a.sbf"),
        path(&dir, "b.sbf"),
        path(&dir, "out.sbf"),
    );
    let wide = ["-n", "1000", "-p", "1e-5", "--layout", "wide"];
    succeeded(run(
        &[&["build"][..], &wide, &["-o", &a]].concat(),
        b"apple\nbanana\n",
    ));
    succeeded(run(
        &[&["build"][..], &wide, &["-o", &b]].concat(),
        b"cherry\n",
    ));
    let summary: serde_json::Value = serde_json::from_slice(&succeeded(run(
        &["merge", &a, &b, "-o", &out, "--json"],
        b"",
    )))
    .unwrap();
    assert_eq!(summary["layout"], "wide");
    assert_eq!(summary["probes"], 2);
    assert_eq!(
        succeeded(run(
            &["query", &out, "apple", "banana", "cherry", "durian"],
            b""
        )),
        b"apple\nbanana\ncherry\n"
    );
    let merged = WideFilter::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert!(merged.contains_bytes(b"cherry"));

    let split = path(&dir, "split.sbf");
    succeeded(run(
        &["build", "-n", "1000", "-p", "1e-5", "-o", &split],
        b"x\n",
    ));
    fails(
        run(&["merge", &a, &split, "-o", &out], b""),
        "the wide (2 probes) layout",
    );
    let scalable = path(&dir, "scalable.sbs");
    std::fs::write(
        &scalable,
        ScalableFilter::with_fpr(100, 0.01).unwrap().to_bytes(),
    )
    .unwrap();
    fails(
        run(&["merge", &a, &scalable, "-o", &out], b""),
        "scalable filters do not combine",
    );
    let window = path(&dir, "window.sbw");
    std::fs::write(
        &window,
        WindowFilter::with_fpr(100, 0.01, 2).unwrap().to_bytes(),
    )
    .unwrap();
    fails(
        run(&["merge", &window, &a, "-o", &out], b""),
        "windows do not combine",
    );
    let quotient = path(&dir, "quotient.sbf");
    succeeded(run(
        &[
            "build", "-n", "100", "-p", "0.01", "--layout", "quotient", "-o", &quotient,
        ],
        b"x\n",
    ));
    fails(
        run(&["merge", &quotient, &quotient, "-o", &out], b""),
        "quotient filters do not combine",
    );
}

/// A file that is not a filter is refused after its first bytes with what it looks like: empty,
/// too short, text (its first bytes shown as text); `query` adds that the first argument is the
/// filter file, and notices when a key argument is the filter.
#[test]
fn files_that_are_not_filters_say_what_they_are() {
    let dir = scratch("formats_not_filters");
    let text = path(&dir, "urls.txt");
    std::fs::write(&text, b"https://x.example/1\n").unwrap();
    let empty = path(&dir, "empty");
    std::fs::write(&empty, b"").unwrap();
    let short = path(&dir, "short");
    std::fs::write(&short, b"SBL").unwrap();
    let filter = path(&dir, "urls.sbf");
    succeeded(run(
        &["build", "-n", "10", "-p", "0.01", "-o", &filter],
        b"https://x.example/1\n",
    ));

    for command in ["info", "query"] {
        let output = run(&[command, &text], b"");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        fails(
            output,
            "is not a splitbloom filter: it starts with \"http\" (text)",
        );
        assert!(!stderr.contains("[104"), "{stderr}");
        fails(
            run(&[command, &empty], b""),
            "is an empty file, not a splitbloom filter",
        );
        fails(
            run(&[command, &short], b""),
            "not a splitbloom filter: it is only 3 bytes long",
        );
    }
    fails(
        run(&["query", &text, "https://x.example/1"], b""),
        "the first argument is the filter file",
    );
    // Swapped: the key first, then the filter.
    let output = run(&["query", "https://x.example/1", &filter], b"");
    fails(
        output,
        &format!(
            "the first argument is the filter file, and {filter} is one: `splitbloom query {filter} https://x.example/1`"
        ),
    );
    let output = run(&["query", &text, &filter], b"");
    fails(
        output,
        &format!("{filter} is one: `splitbloom query {filter} {text}`"),
    );
}

/// A window whose hasher id the CLI does not read is an error naming the id, in `query` and
/// `info` alike, never an answer.
#[test]
fn window_hasher_ids_are_checked() {
    let dir = scratch("formats_hashers");
    let mut bytes = WindowFilter::with_fpr(100, 0.01, 2).unwrap().to_bytes();
    bytes[6] = 1;
    let file = path(&dir, "reserved.sbw");
    std::fs::write(&file, &bytes).unwrap();
    fails(run(&["query", &file, "a"], b""), "hasher id 1");
    fails(run(&["info", &file], b""), "hasher id 1");
}
