//! `splitbloom query`: which keys may be in a filter file, answered from the file read into
//! memory (header checked first, then exactly the announced size read).

use std::ffi::OsString;
use std::path::PathBuf;

use splitbloom::{FilterHasher, FilterRef, Layout, WideFilterRef};

use crate::Status;
use crate::filter_file::FilterFile;
use crate::hashers::{require_hasher, with_hasher};
use crate::keys::{InputOptions, KeyBatch, KeyWriter};

/// Options of `splitbloom query`.
#[derive(clap::Args)]
pub struct Options {
    /// The filter file (written by `build` or `merge`).
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
    let file = FilterFile::open(&options.filter)?;
    require_hasher(&options.filter, &file.header)?;
    let name = options.filter.display();
    with_hasher!(file.header.hasher, S => {
        if file.header.layout == Layout::Wide {
            let filter = WideFilterRef::<S>::from_bytes_with_hasher_type(&file.bytes)
                .map_err(|error| format!("{name}: {error}"))?;
            answer(filter.hasher(), |hashes, out| filter.contains_hash_batch(hashes, out), options)
        } else {
            let filter = FilterRef::<S>::from_bytes_with_hasher_type(&file.bytes)
                .map_err(|error| format!("{name}: {error}"))?;
            answer(filter.hasher(), |hashes, out| filter.contains_hash_batch(hashes, out), options)
        }
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
