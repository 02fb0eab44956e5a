//! `splitbloom build`: keys in, filter file out, as fast as the input can be read.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use splitbloom::{Filter, FilterHasher};

use crate::Status;
use crate::filters::{NewFilterOptions, Stats, with_new_filter};
use crate::json;
use crate::keys::{InputOptions, KeyBatch};
use crate::out::{counted, note, out, short_number};
use crate::output::OutputFile;

/// Options of `splitbloom build`.
#[derive(clap::Args)]
pub struct Options {
    #[command(flatten)]
    filter: NewFilterOptions,
    #[command(flatten)]
    keys: InputOptions,
    /// The filter file to write (replaced atomically). Must be a regular file or a new name
    /// (checked before any key is read); a symbolic link is followed and its target replaced.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `build`.
pub fn run(options: &Options) -> Result<Status, String> {
    with_new_filter!(options.filter, filter => fill(filter, options))
}

fn fill<S: FilterHasher>(mut filter: Filter<S>, options: &Options) -> Result<Status, String> {
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
    output.commit(|writer| filter.write_to(writer))?;
    report(&Stats::of(&filter), keys, new_keys, options)?;
    Ok(Status::Success)
}

/// The summary on standard error (with `--json`, on standard output as JSON), with a warning
/// when more distinct keys than `--items` certainly arrived (`new_keys`, the keys that set a
/// new bit, is a lower bound).
fn report(stats: &Stats, keys: u64, new_keys: u64, options: &Options) -> Result<(), String> {
    if options.json {
        out!(
            "{{{},\"keys\":{keys},\"certainly_distinct\":{new_keys},\"estimated_items\":{},\"bytes\":{},\"blocks\":{},\"estimated_fpr\":{},\"target_fpr\":{}}}",
            json::bytes_member("file", options.output.as_os_str().as_encoded_bytes()),
            json::number(stats.estimated_items.round()),
            stats.bytes,
            stats.blocks,
            json::number(stats.estimated_fpr),
            json::number(options.filter.fpr),
        )?;
    } else {
        note!(
            "wrote {}: {} read, about {:.0} distinct; {} bytes ({}), estimated false-positive rate {:.4}% (target {}%)",
            options.output.display(),
            counted(keys, "key", "keys"),
            stats.estimated_items,
            stats.bytes,
            counted(stats.blocks as u64, "block", "blocks"),
            100.0 * stats.estimated_fpr,
            short_number(100.0 * options.filter.fpr),
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
