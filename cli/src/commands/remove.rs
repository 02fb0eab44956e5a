//! `splitbloom remove`: keys taken out of a quotient filter file, which is then replaced
//! atomically (or written to `-o`): all the removals, or none of them when anything fails.

use std::ffi::OsString;
use std::path::PathBuf;

use splitbloom::{FilterHasher, LayoutKind, QuotientFilter};

use crate::Status;
use crate::filter_file::{FilterFile, Format};
use crate::hashers::{require_hasher, with_hasher};
use crate::json;
use crate::keys::{InputOptions, KeyBatch};
use crate::output_file::OutputFile;
use crate::print::{counted, note, out};
use crate::stats::Stats;

/// Options of `splitbloom remove`.
#[derive(clap::Args)]
pub struct Options {
    /// The quotient filter file (`build --layout quotient`, or a `QuotientFilter`'s bytes). It
    /// is replaced atomically once every key is removed (unless -o names another file), and
    /// left as it was on any error.
    filter: PathBuf,
    /// Keys to remove; without keys and without `-i`, keys are read from standard input.
    keys: Vec<OsString>,
    #[command(flatten)]
    input: InputOptions,
    /// Write the filter without the keys to this file instead of replacing the filter file
    /// (replaced atomically; a regular file or a new name, a symbolic link followed).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `remove`.
pub fn run(options: &Options) -> Result<Status, String> {
    let name = options.filter.display();
    let file = FilterFile::open(&options.filter)?;
    if !matches!(file.format, Format::Plain(header) if header.layout == LayoutKind::Quotient) {
        let what = match file.format {
            Format::Plain(header) => format!("a {} filter", header.layout.name()),
            other => other.describe().to_owned(),
        };
        return Err(format!(
            "cannot remove keys from {name}: it is {what} ({}), which cannot forget a key; only quotient filters can (`splitbloom build --layout quotient`, or the library's QuotientFilter; the library's CountingFilter can too)",
            file.format.magic()
        ));
    }
    require_hasher(&options.filter, file.hasher)?;
    with_hasher!(file.hasher, S => {
        let filter = QuotientFilter::<S>::from_bytes_with_hasher_type(&file.bytes)
            .map_err(|error| format!("{name}: {error}"))?;
        remove_keys(filter, options)
    })
}

/// Removes the keys from `filter`, then writes it; the output file is created before any key
/// is read, so a bad `-o` fails at once.
fn remove_keys<S: FilterHasher>(
    mut filter: QuotientFilter<S>,
    options: &Options,
) -> Result<Status, String> {
    let target = options.output.as_ref().unwrap_or(&options.filter);
    let output = OutputFile::create(target)?;
    let (mut batch, mut hashes) = (KeyBatch::default(), Vec::new());
    let (mut keys, mut removed) = (0u64, 0u64);
    let mut remove = |batch: &KeyBatch, filter: &mut QuotientFilter<S>| {
        batch.hash_into(filter.hasher(), &mut hashes);
        removed += filter.remove_hash_batch(&hashes) as u64;
        keys += batch.len() as u64;
    };
    for key in &options.keys {
        batch.push(key.as_encoded_bytes());
    }
    remove(&batch, &mut filter);
    if options.input.input.is_some() || options.keys.is_empty() {
        let mut reader = options.input.open()?;
        loop {
            reader.next_batch(&mut batch)?;
            if batch.is_empty() {
                break;
            }
            remove(&batch, &mut filter);
        }
    }
    output.commit(|writer| filter.write_to(writer))?;
    let stats = Stats::quotient(
        filter.num_blocks(),
        filter.tag_bits(),
        filter.len(),
        filter.estimated_fpr(),
    );
    let absent = keys - removed;
    if options.json {
        out!(
            "{{{},\"keys\":{keys},\"removed\":{removed},\"not_found\":{absent},\"len\":{},\"load\":{},{}}}",
            json::bytes_member("file", target.as_os_str().as_encoded_bytes()),
            filter.len(),
            json::number(filter.load()),
            stats.json_members(),
        )?;
        return Ok(Status::Success);
    }
    note!(
        "wrote {}: {} of {} removed, {absent} not found (certainly absent); {} left, load {:.4}, estimated false-positive rate {:.4}%",
        target.display(),
        removed,
        counted(keys, "key", "keys"),
        counted(filter.len() as u64, "key", "keys"),
        filter.load(),
        100.0 * stats.estimated_fpr,
    );
    Ok(Status::Success)
}
