//! `SPLITBLOOM_BENCH=report`: turns the saved criterion medians into the README's table
//! (`benches/results.md`) and plot (`benches/performance.svg`, drawn with plotters).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use plotters::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The peer every ratio is taken against.
const BASELINE: &str = "sbbf-rs-safe";
/// The groups of the table, in column order.
const GROUPS: [&str; 4] = [
    "insert",
    "lookup_positive",
    "lookup_negative",
    "lookup_batched",
];

/// Records the measured false-positive rate of `name` at `n` keys for the report.
pub fn save_fpr(name: &str, n: usize, fpr: f64) {
    let dir = super::criterion_dir().join("splitbloom-fpr");
    // The report is optional; a failure to save must not stop the benchmark.
    let _ = fs::create_dir_all(&dir)
        .and_then(|()| fs::write(dir.join(format!("{name}-{n}")), fpr.to_string()));
}

/// The median point estimate (ns) in a criterion `estimates.json`.
fn median(path: &Path) -> Option<f64> {
    let text = fs::read_to_string(path).ok()?;
    let rest = &text[text.find("\"median\"")?..];
    let rest = &rest[rest.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = rest.find([',', '}'])?;
    rest[..end].trim().parse().ok()
}

/// `group -> contender -> keys -> median ns/op`, from criterion's directory.
type Results = BTreeMap<String, BTreeMap<String, BTreeMap<usize, f64>>>;

fn read_results(dir: &Path) -> Results {
    let mut results = Results::new();
    let subdirs = |path: &Path| -> Vec<(String, std::path::PathBuf)> {
        fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.path().is_dir())
            .map(|entry| {
                (
                    entry.file_name().to_string_lossy().into_owned(),
                    entry.path(),
                )
            })
            .collect()
    };
    for group in GROUPS.iter().chain(&["hash"]) {
        for (contender, path) in subdirs(&dir.join(group)) {
            for (size, path) in subdirs(&path) {
                let (Ok(size), Some(ns)) = (size.parse(), median(&path.join("new/estimates.json")))
                else {
                    continue;
                };
                results
                    .entry(group.to_string())
                    .or_default()
                    .entry(contender.clone())
                    .or_default()
                    .insert(size, ns);
            }
        }
    }
    results
}

fn size_label(n: usize) -> String {
    let exponent = (n as f64).log10().round() as i32;
    if 10f64.powi(exponent) as usize == n {
        format!("10^{exponent}")
    } else {
        n.to_string()
    }
}

/// The markdown table: one row per contender and size, ns/op medians and ratios to the baseline.
fn table(results: &Results, dir: &Path) -> String {
    let get = |group: &str, contender: &str, n: usize| {
        results.get(group)?.get(contender)?.get(&n).copied()
    };
    let mut sizes: Vec<usize> = results
        .values()
        .flat_map(|contenders| contenders.values().flat_map(|sizes| sizes.keys().copied()))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes.retain(|&n| {
        n >= 10_000
            && results["lookup_positive"]
                .values()
                .any(|s| s.contains_key(&n))
    });
    let mut contenders: Vec<&String> = results["lookup_positive"].keys().collect();
    // splitbloom's kernels first, then the peers.
    contenders.sort_by_key(|name| (!name.starts_with("splitbloom"), name.to_string()));
    let cell = |value: Option<f64>| value.map_or("–".to_string(), |ns| format!("{ns:.2}"));
    let ratio = |value: Option<f64>, base: Option<f64>| match (value, base) {
        (Some(value), Some(base)) => format!("{:.2}x", value / base),
        _ => "–".to_string(),
    };
    let mut out = String::new();
    out.push_str("| keys | contender | insert | batch insert | hit | miss | batched hit | hit vs sbbf-rs-safe | batched vs sbbf-rs-safe hit | batch insert vs sbbf-rs-safe insert | FPR |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for &n in &sizes {
        let base_hit = get("lookup_positive", BASELINE, n);
        let base_insert = get("insert", BASELINE, n);
        for contender in &contenders {
            let batch = format!("{contender}-batch");
            let batch_insert = get("insert", &batch, n);
            let batched = get("lookup_batched", contender, n);
            let hit = get("lookup_positive", contender, n);
            let fpr =
                fs::read_to_string(dir.join("splitbloom-fpr").join(format!("{contender}-{n}")))
                    .ok()
                    .and_then(|text| text.trim().parse::<f64>().ok())
                    .map_or("–".to_string(), |fpr| format!("{:.3}%", 100.0 * fpr));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                size_label(n),
                contender,
                cell(get("insert", contender, n)),
                cell(batch_insert),
                cell(hit),
                cell(get("lookup_negative", contender, n)),
                cell(batched),
                ratio(hit, base_hit),
                ratio(batched, base_hit),
                ratio(batch_insert, base_insert),
                fpr
            );
        }
    }
    if let Some(hashes) = results.get("hash") {
        out.push_str("\n| hash (u64 key, in cache) | ns/op |\n|---|---:|\n");
        for (name, sizes) in hashes {
            if let Some(ns) = sizes.values().next() {
                let _ = writeln!(out, "| {name} | {ns:.2} |");
            }
        }
    }
    out
}

/// Measured false-positive rate of splitbloom at `bits` bits per key (10^6 keys).
fn measured_fpr(bits: f64) -> f64 {
    let n = 1_000_000;
    let mut rng = StdRng::seed_from_u64(bits.to_bits());
    let members: Vec<u64> = (0..n).map(|_| rng.random::<u64>() & !1).collect();
    let strangers: Vec<u64> = (0..n).map(|_| rng.random::<u64>() | 1).collect();
    let mut filter = splitbloom::Filter::with_bits_per_key(n, bits).expect("filter");
    filter.insert_batch(&members);
    assert_eq!(filter.count_contained(&members), members.len());
    filter.count_contained(&strangers) as f64 / strangers.len() as f64
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Left: ns/op of a positive lookup against keys (log-log), per contender; right: measured and
/// predicted false-positive rate against bits per key.
fn plot(results: &Results, path: &Path) -> DrawResult {
    let root = SVGBackend::new(path, (1100, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(640);

    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (group, suffix) in [("lookup_positive", ""), ("lookup_batched", " batched")] {
        for (contender, sizes) in &results[group] {
            let points = sizes.iter().map(|(&n, &ns)| (n as f64, ns)).collect();
            series.push((format!("{contender}{suffix}"), points));
        }
    }
    let max_ns = series
        .iter()
        .flat_map(|(_, points)| points.iter().map(|&(_, ns)| ns))
        .fold(1.0, f64::max);
    let mut chart = ChartBuilder::on(&left)
        .caption("lookup (hit), ns/op, 10 bits/key", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(
            (5e3f64..2e8f64).log_scale(),
            (0.5f64..max_ns * 1.5).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("keys in the filter")
        .y_desc("ns per lookup")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .draw()?;
    for (index, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        let style = if name.ends_with("batched") {
            color.stroke_width(3)
        } else {
            color.stroke_width(1)
        };
        chart
            .draw_series(LineSeries::new(points.iter().copied(), style))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], style));
        chart.draw_series(
            points
                .iter()
                .map(|&point| Circle::new(point, 3, color.filled())),
        )?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()?;

    let bits: Vec<f64> = [4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 20.0].to_vec();
    let measured: Vec<(f64, f64)> = bits.iter().map(|&c| (c, measured_fpr(c))).collect();
    let predicted: Vec<(f64, f64)> = (8..=48)
        .map(|half| f64::from(half) / 2.0)
        .map(|c| (c, splitbloom::math::false_positive_rate(c)))
        .collect();
    let mut chart = ChartBuilder::on(&right)
        .caption("false-positive rate", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(3.5f64..24.5, (1e-4f64..1.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("bits per key")
        .y_desc("FPR")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()?;
    chart
        .draw_series(LineSeries::new(predicted, BLUE.stroke_width(2)))?
        .label("predicted (split-block formula)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLUE.stroke_width(2)));
    chart
        .draw_series(
            measured
                .iter()
                .map(|&point| Cross::new(point, 5, RED.stroke_width(2))),
        )?
        .label("measured (10^6 keys)")
        .legend(|(x, y)| Cross::new((x + 8, y), 5, RED.stroke_width(2)));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()?;
    root.present()?;
    for (c, fpr) in &measured {
        println!(
            "bits/key {c:>4}: measured FPR {:.4}%, predicted {:.4}%",
            100.0 * fpr,
            100.0 * splitbloom::math::false_positive_rate(*c)
        );
    }
    Ok(())
}

/// Writes `benches/results.md` and `benches/performance.svg` from the results in `dir`.
pub fn write(dir: &Path) {
    let results = read_results(dir);
    assert!(
        results.contains_key("lookup_positive"),
        "no results under {}: run `cargo bench -p splitbloom-bench --bench filters` first",
        dir.display()
    );
    // The manifest of the benchmark package is benches/Cargo.toml.
    let benches = Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = table(&results, dir);
    print!("{table}");
    fs::write(benches.join("results.md"), &table).expect("write benches/results.md");
    plot(&results, &benches.join("performance.svg")).expect("draw benches/performance.svg");
    println!("wrote benches/results.md and benches/performance.svg");
}
