//! `splitbloom parquet-info` against files written by real writers (DuckDB and pyarrow; see
//! scripts/parquet-fixtures.sh, which wrote cli/tests/fixtures/parquet/ and the answers there).

use std::collections::{BTreeMap, BTreeSet};

use crate::support::{finished, parquet_fixture, run};

/// One line of a fixture's expected answers.
pub(super) struct Case {
    pub(super) column: String,
    pub(super) hex: bool,
    pub(super) value: String,
    /// The row groups that hold the value.
    pub(super) present: BTreeSet<usize>,
    /// The row groups whose filter DuckDB's parquet_bloom_probe says exclude it, if probed.
    duckdb_excludes: Option<BTreeSet<usize>>,
}

fn groups(text: &str) -> BTreeSet<usize> {
    text.split(',')
        .filter(|group| !group.is_empty())
        .map(|group| group.parse().unwrap())
        .collect()
}

pub(super) fn cases(name: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(parquet_fixture(name)).unwrap();
    text.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 5, "{line}");
            Case {
                column: fields[0].to_owned(),
                hex: fields[1] == "hex",
                value: fields[2].to_owned(),
                present: groups(fields[3]),
                duckdb_excludes: (fields[4] != "?").then(|| groups(fields[4])),
            }
        })
        .collect()
}

/// The estimated false-positive rate of each (row group, column) filter, from the listing.
fn estimates(file: &str) -> BTreeMap<(usize, String), f64> {
    let listing = finished(run(&["parquet-info", file], b""), 0);
    listing
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let percent = words.last().unwrap().trim_end_matches('%');
            (
                (words[2].parse().unwrap(), words[4].to_owned()),
                percent.parse::<f64>().unwrap() / 100.0,
            )
        })
        .collect()
}

/// Columns whose DuckDB probe never excludes anything (DuckDB 2.0.1 does not probe DECIMALs
/// stored as FIXED_LEN_BYTE_ARRAY), so it cannot be compared with.
const DUCKDB_CANNOT_PROBE: &[(&str, &str)] = &[
    ("pyarrow.parquet", "dec9"),
    ("pyarrow.parquet", "dec18"),
    ("pyarrow.parquet", "dec38"),
    // DuckDB writes no filter for its FIXED_LEN_BYTE_ARRAY decimals.
    ("duckdb.parquet", "dec38"),
];

/// For every column of a writer's file: every present value is reported in every row group
/// that holds it; the false-positive rate on absent values is within the filters' estimate;
/// and where DuckDB's probe answers, it agrees row group by row group.
fn check_writer_file(name: &str) {
    let file = parquet_fixture(&format!("{name}.parquet"));
    let estimates = estimates(&file);
    let cases = cases(&format!("{name}.expected.tsv"));
    let mut by_column: BTreeMap<(&str, bool), Vec<&Case>> = BTreeMap::new();
    for case in &cases {
        by_column
            .entry((&case.column, case.hex))
            .or_default()
            .push(case);
    }
    let (mut all_probes, mut all_false, mut all_expected) = (0usize, 0usize, 0.0f64);
    for ((column, hex), cases) in by_column {
        let input: String = cases
            .iter()
            .map(|case| format!("{}\n", case.value))
            .collect();
        let mut args = vec!["parquet-info", &file, "--column", column, "--values", "-"];
        args.extend(["--json"]);
        if hex {
            args.push("--hex");
        }
        let output = finished(run(&args, input.as_bytes()), 0);
        let answers: Vec<serde_json::Value> = output
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(answers.len(), cases.len(), "{name} {column}");
        let (mut probes, mut false_positives, mut expected) = (0usize, 0usize, 0.0f64);
        let mut duckdb_excluded_any = false;
        for (case, answer) in cases.iter().zip(&answers) {
            assert_eq!(answer["value"], case.value.as_str());
            let may: BTreeSet<usize> = answer["row_groups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|group| group.as_u64().unwrap() as usize)
                .collect();
            assert!(
                case.present.is_subset(&may),
                "{name} {column} {:?}: false negative: held by {:?}, reported {may:?}",
                case.value,
                case.present
            );
            assert_eq!(answer["may_be_present"], !may.is_empty());
            for (&(group, ref filtered), &fpr) in &estimates {
                if filtered == column && !case.present.contains(&group) {
                    probes += 1;
                    expected += fpr;
                    false_positives += usize::from(may.contains(&group));
                }
            }
            if let Some(excluded) = &case.duckdb_excludes {
                duckdb_excluded_any |= !excluded.is_empty();
                if DUCKDB_CANNOT_PROBE.contains(&(&format!("{name}.parquet"), column)) {
                    continue;
                }
                let ours: BTreeSet<usize> = (0..3).filter(|group| !may.contains(group)).collect();
                assert_eq!(
                    &ours, excluded,
                    "{name} {column} {:?}: DuckDB excludes {excluded:?}, splitbloom {ours:?}",
                    case.value
                );
            }
        }
        if DUCKDB_CANNOT_PROBE.contains(&(&format!("{name}.parquet"), column)) {
            assert!(!duckdb_excluded_any, "DuckDB now probes {name} {column}");
        }
        // Binomial bound: the mean plus four standard deviations, plus a little.
        let bound = expected + 4.0 * expected.sqrt() + 3.0;
        println!(
            "{name} {column}: {false_positives} false positives in {probes} row-group probes \
             of absent values ({:.3}%), estimate {:.3}%",
            100.0 * false_positives as f64 / probes.max(1) as f64,
            100.0 * expected / probes.max(1) as f64
        );
        assert!(
            (false_positives as f64) <= bound,
            "{name} {column}: {false_positives} false positives, estimate {expected:.1}"
        );
        all_probes += probes;
        all_false += false_positives;
        all_expected += expected;
    }
    println!(
        "{name} (all columns): {all_false} false positives in {all_probes} probes ({:.3}%), \
         estimate {:.3}%",
        100.0 * all_false as f64 / all_probes.max(1) as f64,
        100.0 * all_expected / all_probes.max(1) as f64
    );
    assert!(all_false as f64 <= all_expected + 4.0 * all_expected.sqrt() + 3.0);
}

#[test]
fn duckdb_file_every_type_no_false_negative_fpr_within_estimate_agrees_with_duckdb() {
    check_writer_file("duckdb");
}

#[test]
fn pyarrow_file_every_type_no_false_negative_fpr_within_estimate_agrees_with_duckdb() {
    check_writer_file("pyarrow");
}

/// DuckDB writes no bloom filter for a chunk it could not dictionary-encode: row group 1 here.
/// It may hold any value; the other row groups answer by their filters, as DuckDB's probe does.
#[test]
fn duckdb_file_mixing_filtered_and_unfiltered_row_groups() {
    let file = parquet_fixture("duckdb-mixed.parquet");
    let listing = finished(run(&["parquet-info", &file, "--columns"], b""), 0);
    assert_eq!(
        listing,
        "id  INT64  INT64  bloom filter in row groups 0, 2; none in 1\n"
    );
    let cases = cases("duckdb-mixed.expected.tsv");
    let input: String = cases
        .iter()
        .map(|case| format!("{}\n", case.value))
        .collect();
    let output = finished(
        run(
            &["parquet-info", &file, "--column", "id", "--values", "-"],
            input.as_bytes(),
        ),
        0,
    );
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), cases.len());
    for (case, line) in cases.iter().zip(lines) {
        let (value, verdict) = line.split_once('\t').unwrap();
        assert_eq!(value, case.value);
        let verdict = verdict
            .strip_prefix("may be present in row groups ")
            .unwrap();
        assert!(verdict.contains("1 (no bloom filter)"), "{line}");
        let may: BTreeSet<usize> = verdict
            .split(", ")
            .map(|group| group.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(case.present.is_subset(&may), "{line}");
        if let Some(excluded) = &case.duckdb_excludes {
            let ours: BTreeSet<usize> = (0..3).filter(|group| !may.contains(group)).collect();
            assert_eq!(&ours, excluded, "{line}");
        }
    }
}
