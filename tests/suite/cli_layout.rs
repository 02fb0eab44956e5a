//! `splitbloom build --layout`: wide files from the CLI, read back by the library and by the
//! CLI's own `query` and `info`, and the layout `auto` picks.

use splitbloom::{Filter, LayoutKind, WideFilter};

use crate::cli_support::{refused, run, scratch, succeeded};

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
    let merged = dir.join("merged.sbf");
    refused(
        run(&["merge", out, out, "-o", merged.to_str().unwrap()], b""),
        "WideFilter::union",
    );
    assert!(!merged.exists());
}
