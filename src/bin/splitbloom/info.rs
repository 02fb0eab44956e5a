//! `splitbloom info`: what a filter file holds.

use std::path::PathBuf;

use splitbloom::FilterRef;

use crate::Status;
use crate::filters::{FilterFile, Stats, hasher_name, with_hasher};
use crate::out::out;

/// Options of `splitbloom info`.
#[derive(clap::Args)]
pub struct Options {
    /// The filter file.
    filter: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `info`.
pub fn run(options: &Options) -> Result<Status, String> {
    let file = FilterFile::open(&options.filter)?;
    // Reading the whole filter verifies its checksum before anything is reported.
    let stats = with_hasher!(file.header.hasher, S => {
        let filter = FilterRef::<S>::from_bytes(&file.bytes)
            .map_err(|error| format!("{}: {error}", options.filter.display()))?;
        Stats::new(filter.num_blocks(), filter.fill_ratio(), filter.estimated_fpr())
    });
    let header = &file.header;
    let hasher = hasher_name(header.hasher);
    let bits_per_key = stats.bits_per_key();
    if options.json {
        // Every value is a number, null or one of the fixed hasher names: no escaping needed.
        let bits_per_key = bits_per_key.map_or("null".to_owned(), json_number);
        out!(
            "{{\"version\":{},\"hasher\":\"{hasher}\",\"seed\":{},\"blocks\":{},\"bytes\":{},\"fill_ratio\":{},\"estimated_items\":{},\"bits_per_key\":{bits_per_key},\"estimated_fpr\":{}}}",
            header.version,
            header.seed,
            stats.blocks,
            stats.bytes,
            json_number(stats.fill_ratio),
            json_number(stats.estimated_items.round()),
            json_number(stats.estimated_fpr),
        )?;
    } else {
        out!("format version   {}", header.version)?;
        out!("hasher           {hasher} (seed {})", header.seed)?;
        out!("blocks           {}", stats.blocks)?;
        out!("bytes            {}", stats.bytes)?;
        out!("fill ratio       {:.4}", stats.fill_ratio)?;
        out!("estimated items  {:.0}", stats.estimated_items)?;
        match bits_per_key {
            Some(bits) => out!("bits per key     {bits:.2} (at the estimated item count)")?,
            None => out!("bits per key     unknown (the filter is empty)")?,
        }
        out!("estimated FPR    {:.6}%", 100.0 * stats.estimated_fpr)?;
    }
    Ok(Status::Success)
}

/// `value` as a JSON number (Rust prints finite floats without exponents); `null` otherwise.
fn json_number(value: f64) -> String {
    if value.is_finite() {
        format!("{value}")
    } else {
        "null".to_owned()
    }
}
