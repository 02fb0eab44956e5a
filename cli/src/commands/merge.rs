//! `splitbloom merge`: the union of filters built with the same layout, size and hasher, of
//! either `SBLM` layout (split-block or wide).

use std::path::{Path, PathBuf};

use splitbloom::format::Header;
use splitbloom::{Filter, LayoutKind, WideFilter};

use crate::Status;
use crate::filter_file::{FilterFile, Format};
use crate::hashers::{hasher_name, require_hasher, with_hasher};
use crate::json;
use crate::output_file::OutputFile;
use crate::plain::PlainFilter;
use crate::print::{counted, note, out};

/// Options of `splitbloom merge`.
#[derive(clap::Args)]
pub struct Options {
    /// The filters to merge (SBLM, split-block or wide): same layout, same number of blocks,
    /// same hasher and seed.
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
    let headers = options
        .filters
        .iter()
        .map(|path| plain_header(path))
        .collect::<Result<Vec<Header>, String>>()?;
    let (first_path, first) = (&options.filters[0], headers[0]);
    for (path, header) in options.filters.iter().zip(&headers).skip(1) {
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
        if (header.layout, header.probes) != (first.layout, first.probes) {
            return Err(format!(
                "cannot merge {a} and {b}: {a} has the {} layout, {b} the {} layout; a union needs filters built with the same --layout, --items, --fpr and --hasher: rebuild one to match the other",
                layout_name(&first),
                layout_name(header),
            ));
        }
        if header.num_blocks != first.num_blocks {
            return Err(format!(
                "cannot merge {a} and {b}: different sizes ({} and {} blocks); a union needs filters built with the same --items, --fpr and --hasher: rebuild one to match the other",
                first.num_blocks, header.num_blocks
            ));
        }
    }
    require_hasher(first_path, first.hasher)?;
    let output = OutputFile::create(&options.output)?;
    with_hasher!(first.hasher, S => {
        if first.layout == LayoutKind::Wide {
            union::<WideFilter<S>>(options, output)
        } else {
            union::<Filter<S>>(options, output)
        }
    })
}

/// The checked header of the `SBLM` filter at `path`; other formats are refused, saying why.
fn plain_header(path: &Path) -> Result<Header, String> {
    match FilterFile::start(path)?.format {
        Format::Plain(header) if header.layout == LayoutKind::Quotient => Err(format!(
            "cannot merge {}: it is a quotient filter, and merge takes filters and wide filters (SBLM) of the same size; quotient filters do not combine as sets of bits (each key's tag has a place of its own): build one from both key lists instead",
            path.display()
        )),
        Format::Plain(header) => Ok(header),
        other => Err(format!(
            "cannot merge {}: it is {} ({}), and merge takes filters and wide filters (SBLM) of the same size; {}",
            path.display(),
            other.describe(),
            other.magic(),
            match other {
                Format::Window => "windows do not combine as sets (their generations rotate apart)",
                _ => "scalable filters do not combine as sets (their stages differ in size)",
            }
        )),
    }
}

/// The layout as the messages name it: "split-block", "wide (2 probes)".
fn layout_name(header: &Header) -> String {
    match header.layout {
        LayoutKind::Wide => format!(
            "wide ({})",
            counted(u64::from(header.probes), "probe", "probes")
        ),
        layout => layout.name().to_owned(),
    }
}

fn union<F: PlainFilter>(options: &Options, output: OutputFile) -> Result<Status, String> {
    let mut merged: Option<F> = None;
    for path in &options.filters {
        let file = FilterFile::open(path)?;
        let name = path.display();
        let filter = F::from_bytes(&file.bytes).map_err(|error| format!("{name}: {error}"))?;
        match &mut merged {
            None => merged = Some(filter),
            Some(merged) => merged
                .union(&filter)
                .map_err(|error| format!("cannot merge {name}: {error}"))?,
        }
    }
    let merged = merged.ok_or("merge needs at least two filters")?;
    output.commit(|writer| merged.write_to(writer))?;
    let stats = merged.stats();
    if options.json {
        out!(
            "{{{},\"filters\":{},{}}}",
            json::bytes_member("file", options.output.as_os_str().as_encoded_bytes()),
            options.filters.len(),
            stats.json_members(),
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
