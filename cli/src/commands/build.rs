//! `splitbloom build`: keys in, filter file out, as fast as the input can be read.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use splitbloom::parquet::Sizing;
use splitbloom::{LayoutKind, WideFilter, format, math};

use crate::Status;
use crate::hashers::{HasherChoice, NewFilterOptions, Xxh3, gx_hasher, with_new_filter};
use crate::json;
use crate::keys::{InputOptions, KeyBatch};
use crate::output_file::OutputFile;
use crate::plain::PlainFilter;
use crate::print::{approx_number, counted, human_bytes, note, out, short_number};
use crate::stats::Stats;

/// Options of `splitbloom build`.
#[derive(clap::Args)]
pub struct Options {
    #[command(flatten)]
    filter: NewFilterOptions,
    /// The filter's layout: `split-block`, the Parquet layout (32-byte blocks), best near 1%;
    /// `wide` (64-byte blocks, one or two per key), which needs 1.1x the classic Bloom optimum's
    /// memory at rates of 0.1% and below where split-block needs 1.2-2.25x, for slower
    /// lookups; or `auto`: wide at an --fpr of 0.1% and below, split-block above. A wide file
    /// is read by `splitbloom::WideFilter` (or `WideFilterRef`), not `Filter`. --hasher parquet
    /// needs split-block.
    #[arg(long, value_enum, default_value_t)]
    layout: LayoutChoice,
    #[command(flatten)]
    keys: InputOptions,
    /// The filter file to write (replaced atomically). Must be a regular file or a new name
    /// (checked before any key is read); a symbolic link is followed and its target replaced.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Write the filter even when it is more than 100 times the size the keys read need (and
    /// over 1 MiB): without it, such a filter (--items far above the keys given, or no keys
    /// at all) is an error, and nothing is written.
    #[arg(long)]
    force: bool,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// How many times larger than the keys read need a filter may be before `build` asks for
/// `--force`.
const OVERSIZE_FACTOR: u64 = 100;

/// Files up to this size are written whatever the keys read: a filter this small costs
/// nothing worth an error.
const SMALL_FILE_BYTES: u64 = 1 << 20;

/// The `--layout` choices of `build`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutChoice {
    /// The Parquet split-block layout: `Filter`.
    #[default]
    SplitBlock,
    /// The wide layout for low rates: `WideFilter`.
    Wide,
    /// Wide at --fpr 0.001 and below (`AUTO_WIDE_FPR`), split-block above.
    Auto,
}

/// The rate at and below which `--layout auto` writes the wide layout: where the split-block
/// layout starts to need clearly more memory than the classic optimum (1.17x at 0.1%, against
/// the wide layout's 1.10x).
pub const AUTO_WIDE_FPR: f64 = 0.001;

impl Options {
    /// Errors, unless `--force`, when the filter (`stats`) is more than [`OVERSIZE_FACTOR`]
    /// times the size that `keys` keys need at the same rate, layout and hasher (no keys at all
    /// count as one), and larger than [`SMALL_FILE_BYTES`].
    fn check_size(&self, stats: &Stats, keys: u64) -> Result<(), String> {
        let written = stats.bytes as u64;
        let needed = self.bytes_needed(keys.max(1));
        if self.force
            || written <= SMALL_FILE_BYTES
            || written <= needed.saturating_mul(OVERSIZE_FACTOR)
        {
            return Ok(());
        }
        let (output, items) = (self.output.display(), self.filter.items);
        let size = format!("{} ({written} bytes)", human_bytes(written));
        if keys == 0 {
            return Err(format!(
                "not writing {output}: no keys were read from {}, and --items {items} makes an empty filter of {size}; check the input, or use --force to write it anyway",
                crate::keys::input_name(self.keys.input.as_deref())
            ));
        }
        Err(format!(
            "not writing {output}: --items {items} makes a filter of {size}, {} times the {needed} bytes that the {} read need; use an --items near the number of distinct keys, or --force to write it anyway",
            approx_number((written / needed.max(1)) as f64),
            counted(keys, "key", "keys"),
        ))
    }

    /// The serialized size of a filter of these options' layout, rate and hasher for `items`
    /// keys, computed without building it (at least 1 block).
    fn bytes_needed(&self, items: u64) -> u64 {
        let (items, fpr) = (
            usize::try_from(items).unwrap_or(usize::MAX),
            self.filter.fpr,
        );
        let blocks = match (self.filter.hasher, self.layout()) {
            (HasherChoice::Parquet, _) => {
                Sizing::for_items(items as u64, fpr).map(|sizing| sizing.num_blocks())
            }
            (_, LayoutKind::Wide) => {
                math::wide::num_blocks_for_fpr(items, fpr).map(|(blocks, _)| blocks)
            }
            _ => math::num_blocks_for_fpr(items, fpr),
        };
        let block_bytes = self.layout().block_bytes() as u64;
        format::HEADER_BYTES as u64 + blocks.map_or(1, |blocks| blocks.max(1) as u64) * block_bytes
    }

    /// The layout these options write.
    fn layout(&self) -> LayoutKind {
        match self.layout {
            LayoutChoice::SplitBlock => LayoutKind::SplitBlock,
            LayoutChoice::Wide => LayoutKind::Wide,
            LayoutChoice::Auto if self.filter.fpr <= AUTO_WIDE_FPR => LayoutKind::Wide,
            LayoutChoice::Auto => LayoutKind::SplitBlock,
        }
    }
}

/// Runs `build`.
pub fn run(options: &Options) -> Result<Status, String> {
    if options.layout() == LayoutKind::SplitBlock {
        return with_new_filter!(options.filter, filter => fill(filter, options));
    }
    let sizing = &options.filter;
    match sizing.hasher {
        HasherChoice::Parquet => Err(
            "--hasher parquet writes Parquet's split-block layout only: use --layout split-block, or another --hasher for --layout wide".to_owned(),
        ),
        HasherChoice::Xxh3 => fill(wide_filter(Xxh3::default(), sizing)?, options),
        HasherChoice::Gxhash => fill(wide_filter(gx_hasher()?, sizing)?, options),
    }
}

/// An empty wide filter with `hasher`, sized for `sizing`.
fn wide_filter<S>(hasher: S, sizing: &NewFilterOptions) -> Result<WideFilter<S>, String> {
    WideFilter::with_fpr_and_hasher(sizing.item_count(), sizing.fpr, hasher)
        .map_err(|error| sizing.sizing_error(error))
}

fn fill(mut filter: impl PlainFilter, options: &Options) -> Result<Status, String> {
    // The output is checked and its temporary file created before the input is read: a bad
    // `-o` fails at once, not after hours of input.
    let output = OutputFile::create(&options.output)?;
    let mut reader = options.keys.open()?;
    let mut progress = Progress::new();
    let (mut batch, mut hashes) = (KeyBatch::default(), Vec::new());
    let (mut keys, mut new_keys) = (0u64, 0u64);
    loop {
        reader.next_batch(&mut batch)?;
        if batch.is_empty() {
            break;
        }
        batch.hash_into(filter.hasher(), &mut hashes);
        // A key that set a new bit was certainly new. That count is a lower bound on the
        // distinct keys (a new key may find its bits already set), so a warning based on it
        // is never a false alarm.
        for &hash in &hashes {
            new_keys += u64::from(filter.insert_hash(hash));
        }
        keys += batch.len() as u64;
        progress.update(keys);
    }
    progress.finish();
    let stats = filter.stats();
    options.check_size(&stats, keys)?;
    output.commit(|writer| filter.write_to(writer))?;
    report(&stats, keys, new_keys, options)?;
    Ok(Status::Success)
}

/// The summary on standard error (with `--json`, on standard output as JSON), with a warning
/// when more distinct keys than `--items` certainly arrived (`new_keys`, the keys that set a
/// new bit, is a lower bound).
fn report(stats: &Stats, keys: u64, new_keys: u64, options: &Options) -> Result<(), String> {
    if options.json {
        out!(
            "{{{},\"keys\":{keys},\"certainly_distinct\":{new_keys},{},\"target_fpr\":{}}}",
            json::bytes_member("file", options.output.as_os_str().as_encoded_bytes()),
            stats.json_members(),
            json::number(options.filter.fpr),
        )?;
    } else {
        note!(
            "wrote {}: {} read, about {:.0} distinct; {} layout, {} bytes ({}), estimated false-positive rate {:.4}% (target {}%)",
            options.output.display(),
            counted(keys, "key", "keys"),
            stats.estimated_items,
            stats.describe_layout(),
            stats.bytes,
            counted(stats.blocks as u64, "block", "blocks"),
            100.0 * stats.estimated_fpr,
            short_number(100.0 * options.filter.fpr),
        );
    }
    if keys == 0 {
        note!(
            "warning: no keys were read from {}: the filter is empty, and every query will answer \"absent\"",
            crate::keys::input_name(options.keys.input.as_deref())
        );
    }
    if new_keys > options.filter.items {
        note!(
            "warning: at least {new_keys} distinct keys arrived, more than --items {}: the false-positive rate is about {:.4}%, not {}%; rebuild with a larger --items",
            options.filter.items,
            100.0 * stats.estimated_fpr,
            short_number(100.0 * options.filter.fpr),
        );
    }
    Ok(())
}

/// A keys/s progress bar on standard error, shown only on a terminal and only once the input
/// has taken more than a second.
pub struct Progress {
    start: Instant,
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Progress {
    /// A progress report starting now.
    pub fn new() -> Progress {
        Progress {
            start: Instant::now(),
            bar: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// `keys` keys done so far. The rate is computed here, over the whole run: indicatif's own
    /// estimate counts the keys done before the bar appeared as done in no time.
    pub fn update(&mut self, keys: u64) {
        let elapsed = self.start.elapsed();
        if self.bar.is_none() && self.enabled && elapsed > Duration::from_secs(1) {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            let rate = keys as f64 / elapsed.as_secs_f64();
            bar.set_message(format!(
                "{} keys, {} keys/s",
                HumanCount(keys),
                HumanCount(rate as u64)
            ));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
