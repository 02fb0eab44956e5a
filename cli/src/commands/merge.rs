//! `splitbloom merge`: the union of filters built with the same size and hasher.

use std::path::PathBuf;

use splitbloom::{Filter, FilterHasher, Layout};

use crate::Status;
use crate::filter_file::FilterFile;
use crate::hashers::{hasher_name, require_hasher, with_hasher};
use crate::json;
use crate::output_file::OutputFile;
use crate::print::{note, out};
use crate::stats::Stats;

/// Options of `splitbloom merge`.
#[derive(clap::Args)]
pub struct Options {
    /// The filters to merge: same number of blocks, same hasher and seed.
    #[arg(required = true, num_args = 2.., value_name = "FILTER")]
    filters: Vec<PathBuf>,
    /// The merged filter (replaced atomically; may be one of the inputs). Must be a regular
    /// file or a new name; a symbolic link is followed and its target replaced.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `merge`.
pub fn run(options: &Options) -> Result<Status, String> {
    // Every header is checked before any bitset is read, so a mismatch is reported in the
    // command line's terms, naming both files.
    let first_path = &options.filters[0];
    let first = FilterFile::header(first_path)?;
    for path in &options.filters {
        let header = FilterFile::header(path)?;
        if header.layout != Layout::SplitBlock {
            return Err(format!(
                "cannot merge {}: it has the {} layout, and merge writes split-block filters only; a program merges wide filters with WideFilter::union",
                path.display(),
                header.layout.name()
            ));
        }
    }
    for path in &options.filters[1..] {
        let header = FilterFile::header(path)?;
        let (a, b) = (first_path.display(), path.display());
        if (header.hasher, header.seed) != (first.hasher, first.seed) {
            return Err(format!(
                "cannot merge {a} and {b}: {a} was built with hasher {} (seed {}), {b} with hasher {} (seed {}); a union needs the same hasher and seed: rebuild {b} with the --hasher of {a}",
                hasher_name(first.hasher),
                first.seed,
                hasher_name(header.hasher),
                header.seed,
            ));
        }
        if header.num_blocks != first.num_blocks {
            return Err(format!(
                "cannot merge {a} and {b}: different sizes ({} and {} blocks); a union needs filters built with the same --items, --fpr and --hasher: rebuild one to match the other",
                first.num_blocks, header.num_blocks
            ));
        }
    }
    require_hasher(first_path, &first)?;
    let output = OutputFile::create(&options.output)?;
    with_hasher!(first.hasher, S => union::<S>(options, output))
}

fn union<S: FilterHasher>(options: &Options, output: OutputFile) -> Result<Status, String> {
    let mut merged: Option<Filter<S>> = None;
    for path in &options.filters {
        let file = FilterFile::open(path)?;
        let name = path.display();
        let filter = Filter::<S>::from_bytes_with_hasher_type(&file.bytes)
            .map_err(|error| format!("{name}: {error}"))?;
        match &mut merged {
            None => merged = Some(filter),
            Some(merged) => merged
                .union(&filter)
                .map_err(|error| format!("cannot merge {name}: {error}"))?,
        }
    }
    let merged = merged.ok_or("merge needs at least two filters")?;
    output.commit(|writer| merged.write_to(writer))?;
    let stats = Stats::of(&merged);
    if options.json {
        out!(
            "{{{},\"filters\":{},\"estimated_items\":{},\"bytes\":{},\"blocks\":{},\"estimated_fpr\":{}}}",
            json::bytes_member("file", options.output.as_os_str().as_encoded_bytes()),
            options.filters.len(),
            json::number(stats.estimated_items.round()),
            stats.bytes,
            stats.blocks,
            json::number(stats.estimated_fpr),
        )?;
        return Ok(Status::Success);
    }
    note!(
        "wrote {}: {} filters merged, about {:.0} distinct keys, estimated false-positive rate {:.4}%",
        options.output.display(),
        options.filters.len(),
        stats.estimated_items,
        100.0 * stats.estimated_fpr
    );
    Ok(Status::Success)
}
