//! `splitbloom build`: keys in, filter file out, as fast as the input can be read.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use splitbloom::parquet::Sizing;
use splitbloom::{FilterHasher, LayoutKind, QuotientFilter, TagBits, WideFilter, format, math};

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
    /// lookups; `quotient`, a filter that can remove keys (`splitbloom remove`): 11.2 bits
    /// per key at 0.44% (8-bit tags, for an --fpr from about 0.26% up) or 19.3 at 0.0023%
    /// (16-bit tags, lower --fpr); or `auto`: wide at an --fpr of 0.1% and below, split-block
    /// above. A wide file is read by `splitbloom::WideFilter` (or `WideFilterRef`), a quotient
    /// file by `QuotientFilter` (or `QuotientFilterRef`), not `Filter`. --hasher parquet needs
    /// split-block.
    ///
    /// Each line adds one copy of its key to a quotient filter, so that `remove` takes out a
    /// copy that was added for it and never another key's (a key given twice needs two
    /// removals). It holds --items keys at 95% of its slots; when more arrive than it can
    /// hold, it is full: an error naming how many keys went in, and nothing is written.
    #[arg(long, value_enum, default_value_t)]
    layout: LayoutChoice,
    /// The tag width of --layout quotient, 8 or 16 bits, sized by --items alone (what
    /// `CF.RESERVE capacity` does); --fpr must then be at or above that width's rate when
    /// full (0.44% for 8, 0.0023% for 16). Without it, the width is chosen from --fpr.
    #[arg(long, value_enum, value_name = "BITS")]
    tag_bits: Option<TagBitsChoice>,
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
    /// The quotient layout, which can remove keys: `QuotientFilter`.
    Quotient,
    /// Wide at --fpr 0.001 and below (`AUTO_WIDE_FPR`), split-block above.
    Auto,
}

/// The `--tag-bits` choices of `build --layout quotient`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TagBitsChoice {
    /// 8-bit tags.
    #[value(name = "8")]
    Eight,
    /// 16-bit tags.
    #[value(name = "16")]
    Sixteen,
}

impl From<TagBitsChoice> for TagBits {
    fn from(choice: TagBitsChoice) -> TagBits {
        match choice {
            TagBitsChoice::Eight => TagBits::Eight,
            TagBitsChoice::Sixteen => TagBits::Sixteen,
        }
    }
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
            (_, LayoutKind::Quotient) => match self.tag_bits {
                Some(bits) => math::quotient::num_blocks_for_capacity(items, bits.into()),
                None => math::quotient::num_blocks_for_fpr(items, fpr).map(|(blocks, _)| blocks),
            },
            _ => math::num_blocks_for_fpr(items, fpr),
        };
        let block_bytes = self.layout().block_bytes() as u64;
        format::HEADER_BYTES as u64 + blocks.map_or(1, |blocks| blocks.max(1) as u64) * block_bytes
    }

    /// The error for a quotient filter that could not take key `went_in + 1`.
    fn full(&self, went_in: u64) -> String {
        format!(
            "not writing {}: the quotient filter for --items {} is full after {}: it holds about --items keys at 95% of its slots, each line a copy (a key given twice takes two); build with a larger --items",
            self.output.display(),
            self.filter.items,
            counted(went_in, "key", "keys"),
        )
    }

    /// The layout these options write.
    fn layout(&self) -> LayoutKind {
        match self.layout {
            LayoutChoice::SplitBlock => LayoutKind::SplitBlock,
            LayoutChoice::Wide => LayoutKind::Wide,
            LayoutChoice::Quotient => LayoutKind::Quotient,
            LayoutChoice::Auto if self.filter.fpr <= AUTO_WIDE_FPR => LayoutKind::Wide,
            LayoutChoice::Auto => LayoutKind::SplitBlock,
        }
    }
}

/// Runs `build`.
pub fn run(options: &Options) -> Result<Status, String> {
    let layout = options.layout();
    if options.tag_bits.is_some() && layout != LayoutKind::Quotient {
        return Err(
            "--tag-bits is the tag width of --layout quotient: add --layout quotient, or leave --tag-bits out".to_owned(),
        );
    }
    if layout == LayoutKind::SplitBlock {
        return with_new_filter!(options.filter, filter => fill(filter, options));
    }
    match options.filter.hasher {
        HasherChoice::Parquet => Err(format!(
            "--hasher parquet writes Parquet's split-block layout only: use --layout split-block, or another --hasher for --layout {}",
            layout.name()
        )),
        HasherChoice::Xxh3 => fill_layout(Xxh3::default(), options),
        HasherChoice::Gxhash => fill_layout(gx_hasher()?, options),
    }
}

/// Builds the wide or quotient filter of `options` with `hasher`.
fn fill_layout<S: FilterHasher>(hasher: S, options: &Options) -> Result<Status, String> {
    let sizing = &options.filter;
    if options.layout() == LayoutKind::Quotient {
        return fill(quotient_filter(hasher, options)?, options);
    }
    let filter = WideFilter::with_fpr_and_hasher(sizing.item_count(), sizing.fpr, hasher)
        .map_err(|error| sizing.sizing_error(error))?;
    fill(filter, options)
}

/// An empty quotient filter with `hasher`: sized by --items and --fpr, or by --items for the
/// --tag-bits asked for, once its rate when full is checked against --fpr.
fn quotient_filter<S>(hasher: S, options: &Options) -> Result<QuotientFilter<S>, String> {
    let sizing = &options.filter;
    let filter = match options.tag_bits.map(TagBits::from) {
        None => QuotientFilter::with_fpr_and_hasher(sizing.item_count(), sizing.fpr, hasher),
        Some(tag_bits) => {
            let rate = math::quotient::false_positive_rate(tag_bits, math::quotient::DESIGN_LOAD);
            if rate > sizing.fpr {
                return Err(format!(
                    "--tag-bits {} gives a false-positive rate of {:.4}% when the filter holds --items keys, above --fpr {}%: use --tag-bits 16, or leave --tag-bits out to have the width chosen from --fpr",
                    tag_bits.bits(),
                    100.0 * rate,
                    short_number(100.0 * sizing.fpr),
                ));
            }
            QuotientFilter::with_capacity_and_hasher(sizing.item_count(), tag_bits, hasher)
        }
    };
    filter.map_err(|error| sizing.sizing_error(error))
}

/// What `build` needs of a new filter of any layout it writes.
trait NewFilter {
    /// The filter's hasher type.
    type Hasher: FilterHasher;
    /// The filter's hasher.
    fn hasher(&self) -> &Self::Hasher;
    /// Inserts pre-hashed keys; returns how many were certainly new (a lower bound on the
    /// distinct keys), or, when the filter is full, how many went in before the one that did
    /// not fit.
    fn insert_hashes(&mut self, hashes: &[u64]) -> Result<u64, Full>;
    /// Writes the filter's bytes.
    fn write_to(&self, writer: &mut dyn Write) -> io::Result<()>;
    /// What the summaries report.
    fn stats(&self) -> Stats;
}

/// A filter that could not take a key: the keys of the call before it went in.
struct Full {
    went_in: u64,
}

impl<F: PlainFilter> NewFilter for F {
    type Hasher = F::Hasher;
    fn hasher(&self) -> &F::Hasher {
        PlainFilter::hasher(self)
    }
    /// A key that set a new bit was certainly new; a new key may find its bits already set.
    fn insert_hashes(&mut self, hashes: &[u64]) -> Result<u64, Full> {
        Ok(hashes
            .iter()
            .map(|&hash| u64::from(self.insert_hash(hash)))
            .sum())
    }
    fn write_to(&self, writer: &mut dyn Write) -> io::Result<()> {
        PlainFilter::write_to(self, writer)
    }
    fn stats(&self) -> Stats {
        PlainFilter::stats(self)
    }
}

impl<S: FilterHasher> NewFilter for QuotientFilter<S> {
    type Hasher = S;
    fn hasher(&self) -> &S {
        QuotientFilter::hasher(self)
    }
    /// Each key adds a copy (see `--layout`); a key the filter did not hold before was
    /// certainly new.
    fn insert_hashes(&mut self, hashes: &[u64]) -> Result<u64, Full> {
        let mut new_keys = 0;
        for (index, &hash) in hashes.iter().enumerate() {
            new_keys += u64::from(!self.contains_hash(hash));
            if self.insert_copy_hash(hash).is_err() {
                return Err(Full {
                    went_in: index as u64,
                });
            }
        }
        Ok(new_keys)
    }
    fn write_to(&self, writer: &mut dyn Write) -> io::Result<()> {
        QuotientFilter::write_to(self, writer)
    }
    fn stats(&self) -> Stats {
        Stats::quotient(
            self.num_blocks(),
            self.tag_bits(),
            self.len(),
            self.estimated_fpr(),
        )
    }
}

fn fill(mut filter: impl NewFilter, options: &Options) -> Result<Status, String> {
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
        // A lower bound on the distinct keys, so a warning based on it is never a false alarm.
        match filter.insert_hashes(&hashes) {
            Ok(new) => new_keys += new,
            Err(Full { went_in }) => {
                progress.finish();
                return Err(options.full(keys + went_in));
            }
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
        let held = if stats.layout == LayoutKind::Quotient {
            format!("{:.0} held (a copy a line)", stats.estimated_items)
        } else {
            format!("about {:.0} distinct", stats.estimated_items)
        };
        note!(
            "wrote {}: {} read, {held}; {} layout, {} bytes ({}), estimated false-positive rate {:.4}% (target {}%)",
            options.output.display(),
            counted(keys, "key", "keys"),
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
    let copies = stats.estimated_items as u64;
    if stats.layout == LayoutKind::Quotient
        && copies > options.filter.items
        && new_keys <= options.filter.items
    {
        note!(
            "warning: {copies} keys went in, more than --items {} (each line adds a copy, repeated keys too): the false-positive rate is about {:.4}%, not {}%; rebuild with a larger --items",
            options.filter.items,
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
