//! `splitbloom query`: which keys may be in a filter file of any format, answered from the file
//! read into memory (headers checked first, then exactly the announced size read).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use splitbloom::FilterHasher;

use crate::Status;
use crate::any_filter::AnyFilter;
use crate::filter_file::{FilterFile, OpenError};
use crate::hashers::{require_hasher, with_hasher};
use crate::keys::{InputOptions, KeyBatch, KeyWriter};

/// Options of `splitbloom query`.
#[derive(clap::Args)]
pub struct Options {
    /// The filter file: written by `build` or `merge`, by the library (a `Filter`, `WideFilter`,
    /// `QuotientFilter`, `ScalableFilter` or `WindowFilter`), or dumped from Redis with
    /// `SBF.DUMP`.
    filter: PathBuf,
    /// Keys to test; without keys and without `-i`, keys are read from standard input.
    keys: Vec<OsString>,
    #[command(flatten)]
    input: InputOptions,
    /// Print the keys that are certainly absent instead of those that may be present.
    #[arg(long)]
    absent: bool,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `query`.
pub fn run(options: &Options) -> Result<Status, String> {
    let file = open(options)?;
    require_hasher(&options.filter, file.hasher)?;
    let name = options.filter.display();
    with_hasher!(file.hasher, S => {
        let filter = AnyFilter::<S>::read(&file).map_err(|error| format!("{name}: {error}"))?;
        answer(filter.hasher(), |hashes, out| filter.contains_hash_batch(hashes, out), options)
    })
}

/// Opens the filter file; when it is not a filter (or cannot be opened), the error says what to
/// do: the first argument is the filter file, and a key argument that is one says the two were
/// swapped.
fn open(options: &Options) -> Result<FilterFile, String> {
    let filter = &options.filter;
    let (error, not_a_filter) = match FilterFile::start(filter) {
        Ok(pending) => return pending.read(),
        Err(OpenError::NotAFilter(error)) => (error, true),
        Err(OpenError::Other(error)) => (error, false),
    };
    let swapped = options.keys.iter().map(Path::new).find(|key| {
        key.is_file() && !matches!(FilterFile::start(key), Err(OpenError::NotAFilter(_)))
    });
    Err(match swapped {
        Some(key) => format!(
            "{error}; the first argument is the filter file, and {} is one: `splitbloom query {} {}`",
            key.display(),
            key.display(),
            filter.display()
        ),
        None if not_a_filter => format!(
            "{error}; the first argument is the filter file (`splitbloom query FILTER [KEY]...`; keys from a file go with -i FILE)"
        ),
        None => error,
    })
}

/// Answers the keys with `lookup`, the filter's batch lookup of hashes made with `hasher`.
fn answer<S: FilterHasher>(
    hasher: &S,
    lookup: impl Fn(&[u64], &mut [bool]),
    options: &Options,
) -> Result<Status, String> {
    let mut out = KeyWriter::new(options.input.separator(), options.json);
    let members = if options.absent {
        ",\"may_be_present\":false"
    } else {
        ",\"may_be_present\":true"
    };
    let mut printed = false;
    let (mut hashes, mut present) = (Vec::new(), Vec::new());
    let mut print_batch = |batch: &KeyBatch, out: &mut KeyWriter| -> Result<(), String> {
        batch.hash_into(hasher, &mut hashes);
        present.clear();
        present.resize(hashes.len(), false);
        lookup(&hashes, &mut present);
        for (key, &maybe) in batch.iter().zip(&present) {
            if maybe != options.absent {
                out.write(key, members)?;
                printed = true;
            }
        }
        Ok(())
    };
    let mut batch = KeyBatch::default();
    for key in &options.keys {
        batch.push(key.as_encoded_bytes());
    }
    print_batch(&batch, &mut out)?;
    if options.input.input.is_some() || options.keys.is_empty() {
        let mut reader = options.input.open()?;
        loop {
            // The keys before a bad one are answered before the error is reported.
            let read = reader.next_batch(&mut batch);
            print_batch(&batch, &mut out)?;
            if let Err(error) = read {
                out.finish()?;
                return Err(error);
            }
            if batch.is_empty() {
                break;
            }
            // Answers are handed over as soon as the input pauses, so a person typing keys,
            // or a slow producer, sees each answer at once.
            if reader.is_waiting() {
                out.flush()?;
            }
        }
    }
    out.finish()?;
    Ok(if printed {
        Status::Success
    } else {
        Status::NothingFound
    })
}
