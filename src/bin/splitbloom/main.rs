//! The `splitbloom` command-line tool.
//!
//! Exit status: 0 success, 1 nothing found (`query` printed no key), 2 error (one line on
//! standard error, never a panic trace). Keys are bytes; see `keys` for how they are hashed.
//! Standard output closed by its reader (`| head`) ends the program quietly with status 0; any
//! other output error (`> /dev/full`) is an error (see `out`).

mod bench;
mod build;
mod count;
mod dedup;
mod filters;
mod info;
mod json;
mod keys;
mod merge;
mod out;
mod output;
#[cfg(feature = "parquet")]
mod parquet_info;
#[cfg(feature = "parquet")]
mod parquet_value;
mod query;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Split-block Bloom filters from the command line.
///
/// Keys are byte strings, one per line (the line end, `\n` or `\r\n`, removed; `--keep-cr`
/// keeps a `\r`; `--null` for NUL-terminated keys); they need not be UTF-8, and are at most
/// `--max-key-bytes` long (1 MiB by default). A key is hashed by the library's byte-key
/// contract (exactly its bytes), so a Rust program asks a CLI-built filter with
/// `filter.contains_bytes(key)`. `query` and `dedup` answer each key as it arrives, so they
/// work on a live stream (`tail -f log | splitbloom dedup -n 1e6 -p 0.001`) or typed keys.
///
/// Counts (`--items`) may be written 1000000, 1_000_000, 1e6 or 2.5e6. Every subcommand that
/// prints results takes `--json` (JSON Lines; the shape is in each subcommand's `--help`).
/// Output files (`-o`) are replaced atomically and must be regular files or new names
/// (symbolic links are followed). Exit status: 0 success (also when the reader of standard
/// output stops early, as `| head` does), 1 nothing found (`query` printed no key), 2 error.
#[derive(Parser)]
#[command(name = "splitbloom", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a filter file from keys, one per line.
    ///
    /// Keys are the bytes of each line without its line end, `\n` or `\r\n` (any bytes, not
    /// only UTF-8; `--keep-cr` keeps a final `\r`, so CRLF and LF files give the same keys by
    /// default). Each key is hashed by the library's byte-key contract (exactly its bytes); a
    /// Rust program asks the filter with `filter.contains_bytes(key)`, or
    /// `filter.contains_value(key)` for `--hasher parquet`. Warns when more distinct keys than
    /// --items arrive. The summary goes to standard error (with --json, to standard output).
    Build(build::Options),
    /// Print the keys that may be in a filter (exit 1 when none is printed).
    ///
    /// Keys are read and hashed as by `build`, and each is answered as soon as it is read.
    /// The filter file's header is checked first, then the file (exactly the size the header
    /// announces) is read into memory and its checksum verified. A key that cannot be read
    /// (longer than --max-key-bytes) is reported after the keys before it are answered. Exit
    /// status: 0 when at least one key was printed, 1 when none was, 2 on error.
    Query(query::Options),
    /// Print each line the first time it is (probably) seen.
    ///
    /// Each line is printed as soon as it is read, so a live stream works (`tail -f log |
    /// splitbloom dedup -n 1e6 -p 0.001`). A line is dropped when the filter says it was seen:
    /// rarely (at about --fpr) a new line is dropped too, never a repeated one printed. A
    /// summary, with the expected number of wrongly dropped lines, goes to standard error.
    /// With `--window 24h`, a line not seen for 24 hours is printed again, for streams that
    /// never end (`--generations` says how finely the window forgets).
    Dedup(dedup::Options),
    /// Show a filter file's header, size, fill and estimated false-positive rate.
    ///
    /// For a scalable filter (magic SBLS): its parameters and the size of each stage.
    Info(info::Options),
    /// Write the union of filters of the same size and hasher.
    ///
    /// The union holds every key of every input: a key any input may hold, the union may
    /// hold. Inputs must have been built with the same --items, --fpr and --hasher.
    Merge(merge::Options),
    /// List a Parquet file's bloom filters, or test a value against one column's filters.
    ///
    /// With --column and --value: one line per row group (its filter excludes the value, may
    /// hold it, or it has no readable filter, so it may hold it); exit 0 when some row group
    /// may hold the value, 1 only when every row group's filter excludes it. Built with the
    /// `parquet` feature.
    #[cfg(feature = "parquet")]
    ParquetInfo(parquet_info::Options),
    /// Measure insert and lookup speed and the false-positive rate of every kernel.
    ///
    /// A table per kernel and size (medians), the string keys through the byte-key contract,
    /// then a verdict: the kernel new filters use here, the spread of its samples, its
    /// false-positive rate against the prediction, its speed against the other kernels, and a
    /// one-line conclusion. The default run takes under a minute; build it with `--release`.
    Bench(bench::Options),
}

/// How a successful run ended.
pub enum Status {
    /// Exit status 0.
    Success,
    /// Exit status 1: nothing was found.
    NothingFound,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(options) => build::run(&options),
        Command::Query(options) => query::run(&options),
        Command::Dedup(options) => dedup::run(&options),
        Command::Info(options) => info::run(&options),
        Command::Merge(options) => merge::run(&options),
        #[cfg(feature = "parquet")]
        Command::ParquetInfo(options) => parquet_info::run(&options),
        Command::Bench(options) => bench::run(&options).map(|()| Status::Success),
    };
    let result = result.and_then(|status| out::flush().map(|()| status));
    match result {
        Ok(Status::Success) => ExitCode::SUCCESS,
        Ok(Status::NothingFound) => ExitCode::from(1),
        Err(message) => {
            out::note!("splitbloom: {message}");
            ExitCode::from(2)
        }
    }
}
