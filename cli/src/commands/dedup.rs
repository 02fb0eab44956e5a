//! `splitbloom dedup`: print each line the first time it is (probably) seen, or, with
//! `--window`, the first time it is seen within a sliding window of time.

use std::time::{Duration, Instant};

use splitbloom::{Filter, FilterHasher, WindowFilter, math};

use crate::Status;
use crate::hashers::{HasherChoice, NewFilterOptions, Parquet, Xxh3, gx_hasher, with_new_filter};
use crate::keys::{InputOptions, KeyWriter, hash_key};
use crate::print::note;

/// Options of `splitbloom dedup`.
#[derive(clap::Args)]
pub struct Options {
    #[command(flatten)]
    filter: NewFilterOptions,
    /// Forget keys over time, for a stream that never ends: print a line again once it has not
    /// been seen for DURATION (`90s`, `30m`, `24h`, `7d`, `1h 30m`).
    ///
    /// The window is --generations filters, each holding the keys of one period of
    /// DURATION / G; every period the oldest is forgotten. A line seen again within
    /// DURATION x (G-1)/G of its last sighting is always dropped; one not seen for DURATION is
    /// printed again (unless it is a false positive); in between, it depends on where in its
    /// period it was seen. With --window, --items counts the distinct lines of one period and
    /// --fpr is the false-positive rate of the whole window. Periods follow the wall clock
    /// from the start and are caught up when the next line arrives.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    window: Option<Duration>,
    /// With --window: how many periods the window is cut into, 1 to 64. More generations
    /// forget more exactly (within DURATION / G) but cost more memory for the same --fpr.
    #[arg(
        long,
        value_name = "G",
        requires = "window",
        default_value_t = 4,
        value_parser = clap::value_parser!(u8).range(1..=math::MAX_GENERATIONS as i64)
    )]
    generations: u8,
    /// For tests: the clock advances by this duration per line read instead of following the
    /// wall clock (the first line arrives at time zero).
    #[arg(long, hide = true, value_name = "DURATION", value_parser = parse_duration)]
    test_clock_per_line: Option<Duration>,
    #[command(flatten)]
    keys: InputOptions,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `dedup`.
pub fn run(options: &Options) -> Result<Status, String> {
    let Some(window) = options.window else {
        return with_new_filter!(options.filter, filter => stream(filter, options));
    };
    match options.filter.hasher {
        HasherChoice::Xxh3 => stream_window(window, Xxh3::default(), options),
        HasherChoice::Gxhash => stream_window(window, gx_hasher()?, options),
        HasherChoice::Parquet => stream_window(window, Parquet::default(), options),
    }
}

fn stream<S: FilterHasher>(mut filter: Filter<S>, options: &Options) -> Result<Status, String> {
    let mut reader = options.keys.open()?;
    let mut out = KeyWriter::new(options.keys.separator(), options.json);
    let mut key = Vec::new();
    let (mut lines, mut kept) = (0u64, 0u64);
    while reader.next_key(&mut key)? {
        lines += 1;
        // A line that set no new bit was (probably) seen before.
        if filter.insert_hash(hash_key(filter.hasher(), &key)) {
            kept += 1;
            out.write(&key, "")?;
        }
        // Someone may be waiting for this line (`tail -f log | splitbloom dedup`): hand it
        // over before waiting for more input. A file's keys flush once per buffer.
        if reader.is_waiting() {
            out.flush()?;
        }
    }
    out.finish()?;
    let dropped = lines - kept;
    let items = options.filter.items;
    if kept <= items {
        let wrongly_dropped = expected_false_drops(kept, filter.num_blocks());
        note!(
            "dedup: {lines} lines, {kept} printed, {dropped} dropped as seen before; about {wrongly_dropped:.3} of the dropped lines may have been new (false positives)"
        );
        return Ok(Status::Success);
    }
    // Past its --items, the filter fills up and drops new lines ever more often: a dropped
    // line may be new at a rate that approaches 1, so only what was printed is known.
    note!(
        "dedup: {lines} lines, {kept} printed, {dropped} dropped as seen before or as false positives; how many of the dropped lines were new is unknown, because more than --items distinct lines arrived"
    );
    note!(
        "warning: at least {kept} distinct lines, more than --items {items}: the filter's false-positive rate has risen to about {:.4}%, so new lines were dropped as seen that often, and the number of distinct lines is unknown; use a larger --items",
        100.0 * filter.estimated_fpr()
    );
    Ok(Status::Success)
}

/// `dedup --window`: a [`WindowFilter`] of `--generations` generations, rotated once per
/// period of `window / G` as lines arrive.
fn stream_window<S: FilterHasher>(
    window: Duration,
    hasher: S,
    options: &Options,
) -> Result<Status, String> {
    let generations = usize::from(options.generations);
    let mut schedule = Schedule::new(window, generations, options.test_clock_per_line)?;
    let sizing = &options.filter;
    let mut filter =
        WindowFilter::with_fpr_and_hasher(sizing.item_count(), sizing.fpr, generations, hasher)
            .map_err(|error| sizing.sizing_error(error))?;
    let mut reader = options.keys.open()?;
    let mut out = KeyWriter::new(options.keys.separator(), options.json);
    let mut key = Vec::new();
    let (mut lines, mut kept) = (0u64, 0u64);
    // New lines in the current period, and the most any period has had.
    let (mut period_kept, mut busiest_period) = (0u64, 0u64);
    while reader.next_key(&mut key)? {
        lines += 1;
        let rotations = schedule.rotations_due();
        if rotations > 0 {
            busiest_period = busiest_period.max(period_kept);
            period_kept = 0;
            // More than G rotations forget as much as G: the whole window.
            for _ in 0..rotations.min(generations as u128) {
                filter.rotate();
            }
        }
        // `insert_hash` writes the newest generation, so a repeated line stays in the window
        // for another full window; it reports whether any generation lacked the line.
        if filter.insert_hash(hash_key(filter.hasher(), &key)) {
            kept += 1;
            period_kept += 1;
            out.write(&key, "")?;
        }
        if reader.is_waiting() {
            out.flush()?;
        }
    }
    out.finish()?;
    busiest_period = busiest_period.max(period_kept);
    let dropped = lines - kept;
    let seen = format!(
        "dedup: {lines} lines, {kept} printed, {dropped} dropped as seen within the last {}; {} periods of {} started",
        humantime::format_duration(window),
        schedule.periods_started,
        humantime::format_duration(schedule.period),
    );
    if busiest_period <= sizing.items {
        note!(
            "{seen}; a new line is dropped wrongly at most about {:.4}% of the time (the window's false-positive rate when each period has --items new lines)",
            100.0 * filter.fpr()
        );
        return Ok(Status::Success);
    }
    note!(
        "{seen}; how many of the dropped lines were new is unknown, because a period had more than --items new lines"
    );
    note!(
        "warning: at least {busiest_period} new lines in one period, more than --items {}: the false-positive rate has risen to about {:.4}%, so new lines were dropped as seen that often; use a larger --items",
        sizing.items,
        100.0 * filter.estimated_fpr()
    );
    Ok(Status::Success)
}

/// When the window rotates: periods of `window / G` from the start, read from the wall clock
/// (or, for tests, from a clock that advances a fixed step per line). Times are nanoseconds
/// since the start, in `u128`, so no stream runs long enough to overflow them.
struct Schedule {
    period: Duration,
    /// When the next period begins.
    next: u128,
    /// Periods begun after the first.
    periods_started: u128,
    clock: Clock,
}

enum Clock {
    Wall(Instant),
    /// The time of the next line, and the step per line.
    PerLine(u128, u128),
}

impl Schedule {
    fn new(
        window: Duration,
        generations: usize,
        test_step: Option<Duration>,
    ) -> Result<Self, String> {
        // `generations` is at most `MAX_GENERATIONS` (64), checked by the argument parser.
        let period = window / generations as u32;
        if period < Duration::from_millis(1) {
            return Err(format!(
                "--window {} over --generations {generations} gives periods under a millisecond; use a longer --window",
                humantime::format_duration(window)
            ));
        }
        let clock = match test_step {
            Some(step) => Clock::PerLine(0, step.as_nanos()),
            None => Clock::Wall(Instant::now()),
        };
        Ok(Schedule {
            period,
            next: period.as_nanos(),
            periods_started: 0,
            clock,
        })
    }

    /// How many periods have begun since the last call (one rotation each).
    fn rotations_due(&mut self) -> u128 {
        let now = match &mut self.clock {
            Clock::Wall(start) => start.elapsed().as_nanos(),
            Clock::PerLine(next_line, step) => {
                let now = *next_line;
                *next_line = next_line.saturating_add(*step);
                now
            }
        };
        if now < self.next {
            return 0;
        }
        let period = self.period.as_nanos();
        let due = (now - self.next) / period + 1;
        self.next = self.next.saturating_add(due.saturating_mul(period));
        self.periods_started = self.periods_started.saturating_add(due);
        due
    }
}

/// A `--window` duration: `90s`, `24h`, `1h 30m`; zero is refused.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text).map_err(|error| {
        format!("{error}; write a duration such as 90s, 30m, 24h, 7d or '1h 30m'")
    })?;
    if duration.is_zero() {
        return Err("the duration must be longer than zero".to_owned());
    }
    Ok(duration)
}

/// The expected number of new lines that were wrongly dropped: the sum, over the new lines,
/// of the false-positive rate of the filter when each arrived (with `i` keys in `blocks`
/// blocks, `fpr(i / blocks)`), integrated with the midpoint rule over at most 1000 steps.
fn expected_false_drops(kept: u64, blocks: usize) -> f64 {
    const STEPS: u64 = 1000;
    let steps = kept.clamp(1, STEPS);
    let width = kept as f64 / steps as f64;
    (0..steps)
        .map(|step| {
            let keys = (step as f64 + 0.5) * width;
            width * math::fpr_for_keys_per_block(keys / blocks as f64)
        })
        .sum()
}
