//! The per-CPU plot of the streamed workload: ns per key against keys in the filter, drawn from
//! the JSON files that `workload` (`SPLITBLOOM_WORKLOAD_JSON`) and Boost.Bloom's anchor
//! (`results/*.json`) write, which share their field names.
//!
//! ```text
//! SPLITBLOOM_WORKLOAD_PLOT=benches/workload-zen3.svg \
//!   SPLITBLOOM_WORKLOAD_PLOT_FROM=run1.json,run2.json,boost1.json,boost2.json \
//!   cargo bench -p splitbloom-bench --bench workload
//! ```
//!
//! Every file may hold any sizes and contenders; a point is the median, over the files that
//! have it, of each file's median for that contender, size and measure. The floor is drawn from
//! the splitbloom rows (every contender of one run shares it).

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;
use serde_json::Value;

use super::Samples;

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// The lines drawn: contender, JSON field, legend text, whether it is a batch (drawn thick).
const LINES: &[(&str, &str, &str, bool)] = &[
    (
        "splitbloom-avx512",
        "pos_ns_per_op",
        "splitbloom avx512, single hit",
        false,
    ),
    (
        "splitbloom-avx512",
        "batch_pos_ns_per_op",
        "splitbloom avx512, batched hit",
        true,
    ),
    (
        "splitbloom-avx2",
        "pos_ns_per_op",
        "splitbloom avx2, single hit",
        false,
    ),
    (
        "splitbloom-avx2",
        "batch_pos_ns_per_op",
        "splitbloom avx2, batched hit",
        true,
    ),
    (
        "splitbloom-neon",
        "pos_ns_per_op",
        "splitbloom neon, single hit",
        false,
    ),
    (
        "splitbloom-neon",
        "batch_pos_ns_per_op",
        "splitbloom neon, batched hit",
        true,
    ),
    (
        "sbbf-rs-safe",
        "pos_ns_per_op",
        "sbbf-rs-safe, single hit",
        false,
    ),
    (
        "boost-fmb32x8",
        "pos_ns_per_op",
        "Boost.Bloom, single hit",
        false,
    ),
    (
        "boost-fmb32x8",
        "batch_pos_ns_per_op",
        "Boost.Bloom, bulk hit",
        true,
    ),
];

/// Per (legend, keys): every file's median, in the order read (as the workload bench's own
/// [`Samples`], whose median the plot takes).
type Points = BTreeMap<&'static str, BTreeMap<u64, Samples>>;

/// Reads `paths`: the points of every line in [`LINES`] and of the floor, and the CPU named in
/// the files' `meta.cpu` (the first one found).
fn read(paths: &[String]) -> Result<(Points, String), Box<dyn std::error::Error>> {
    let mut points = Points::new();
    let mut cpu = String::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|error| format!("{path}: {error}"))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|error| format!("{path}: {error}"))?;
        if cpu.is_empty()
            && let Some(name) = json["meta"]["cpu"].as_str()
        {
            cpu = name.to_string();
        }
        let rows = json["rows"]
            .as_array()
            .ok_or_else(|| format!("{path}: no \"rows\" array"))?;
        for row in rows {
            let (Some(contender), Some(keys)) = (row["contender"].as_str(), row["n"].as_u64())
            else {
                continue;
            };
            for &(name, field, legend, _) in LINES {
                if name == contender
                    && let Some(ns) = row[field]["median"].as_f64()
                {
                    points
                        .entry(legend)
                        .or_default()
                        .entry(keys)
                        .or_default()
                        .0
                        .push(ns);
                }
            }
            if contender.starts_with("splitbloom-")
                && let Some(ns) = row["floor_ns_per_op"].as_f64()
            {
                let floor = points.entry(FLOOR).or_default().entry(keys).or_default();
                // One floor per run and size: the splitbloom rows of a run repeat it.
                if !floor.0.contains(&ns) {
                    floor.0.push(ns);
                }
            }
        }
    }
    Ok((points, cpu))
}

/// One line of the plot: its legend, whether it is a batch (drawn thick), its (keys, ns) points.
type Series = (&'static str, bool, Vec<(f64, f64)>);

/// The floor's legend.
const FLOOR: &str = "floor: hash, prefetch, one read";

/// Draws the plot of the files `paths` into `out` (SVG).
pub fn draw(out: &Path, paths: &[String]) -> DrawResult {
    let (points, cpu) = read(paths)?;
    if points.is_empty() {
        return Err("no rows of a known contender in the files given".into());
    }
    let series: Vec<Series> = LINES
        .iter()
        .map(|&(_, _, legend, batch)| (legend, batch))
        .chain([(FLOOR, true)])
        .filter_map(|(legend, batch)| {
            let sizes = points.get(legend)?;
            // Every entry holds at least the one value that created it.
            let line = sizes
                .iter()
                .filter_map(|(&keys, values)| Some((keys as f64, values.median()?)))
                .collect();
            Some((legend, batch, line))
        })
        .collect();
    let max_ns = series
        .iter()
        .flat_map(|(_, _, line)| line.iter().map(|&(_, ns)| ns))
        .fold(1.0, f64::max);
    let root = SVGBackend::new(out, (760, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let caption = format!("streamed workload, {cpu}: ns per key, 10 bits/key");
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(
            (5e3f64..2e8f64).log_scale(),
            (0.8f64..max_ns * 1.6).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("keys in the filter")
        .y_desc("ns per key (median)")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.1}"))
        // plotters' fine grid of a log axis bunches up just above some decades; the labelled
        // lines are enough.
        .light_line_style(TRANSPARENT)
        .draw()?;
    for (index, (legend, batch, line)) in series.iter().enumerate() {
        let color = if *legend == FLOOR {
            BLACK.to_rgba()
        } else {
            Palette99::pick(index).to_rgba()
        };
        let style = color.stroke_width(if *batch { 3 } else { 1 });
        chart
            .draw_series(LineSeries::new(line.iter().copied(), style))?
            .label(*legend)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], style));
        chart.draw_series(
            line.iter()
                .map(|&point| Circle::new(point, 3, color.filled())),
        )?;
        for &(keys, ns) in line {
            println!("{legend:<34} {keys:>12.0} {ns:>8.2}");
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()?;
    root.present()?;
    Ok(())
}
