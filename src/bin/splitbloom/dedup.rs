//! `splitbloom dedup`: print each line the first time it is (probably) seen.

use splitbloom::{Filter, FilterHasher, math};

use crate::Status;
use crate::filters::{NewFilterOptions, with_new_filter};
use crate::keys::{InputOptions, KeyWriter, hash_key};
use crate::out::note;

/// Options of `splitbloom dedup`.
#[derive(clap::Args)]
pub struct Options {
    #[command(flatten)]
    filter: NewFilterOptions,
    #[command(flatten)]
    keys: InputOptions,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `dedup`.
pub fn run(options: &Options) -> Result<Status, String> {
    with_new_filter!(options.filter, filter => stream(filter, options))
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
    let wrongly_dropped = expected_false_drops(kept, filter.num_blocks());
    note!(
        "dedup: {lines} lines, {kept} printed, {dropped} dropped as seen before; about {wrongly_dropped:.3} of the dropped lines may have been new (false positives)"
    );
    if kept > options.filter.items {
        note!(
            "warning: {kept} distinct lines, more than --items {}: the false-positive rate has risen to about {:.4}%; use a larger --items",
            options.filter.items,
            100.0 * filter.estimated_fpr()
        );
    }
    Ok(Status::Success)
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
