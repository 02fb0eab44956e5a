//! The subcommands, one module each; [`Command`] names them for the argument parser.

pub mod bench;
pub mod build;
pub mod dedup;
pub mod info;
pub mod merge;
#[cfg(feature = "parquet")]
pub mod parquet_info;
pub mod query;
pub mod remove;

use clap::Subcommand;

use crate::Status;

#[derive(Subcommand)]
pub enum Command {
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
    /// The filter file is of any format `info` reads (SBLM, SBLS, SBLW), a quotient filter
    /// included. Its headers are
    /// checked first, then the file (exactly the size they announce) is read into memory and
    /// its checksums verified. A key that cannot be read (longer than --max-key-bytes) is
    /// reported after the keys before it are answered. Exit status: 0 when at least one key
    /// was printed, 1 when none was, 2 on error.
    Query(query::Options),
    /// Remove keys from a quotient filter file (`build --layout quotient`).
    ///
    /// Keys are read and hashed as by `build`; each takes out one copy of its key, and the
    /// summary says how many were found (the others were certainly absent). The file is
    /// replaced atomically once every key is removed, or written to -o; on any error it is left
    /// as it was. Remove only keys that were added: a key never added can match another key's
    /// tag (a false positive) and take it out, and that key would then be reported absent.
    /// Other filter types cannot remove keys, and are refused.
    Remove(remove::Options),
    /// Print each line the first time it is (probably) seen.
    ///
    /// Each line is printed as soon as it is read, so a live stream works (`tail -f log |
    /// splitbloom dedup -n 1e6 -p 0.001`). A line is dropped when the filter says it was seen:
    /// rarely (at about --fpr) a new line is dropped too, never a repeated one printed. A
    /// summary, with the expected number of wrongly dropped lines, goes to standard error.
    /// With `--window 24h`, a line not seen for 24 hours is printed again, for streams that
    /// never end (`--generations` says how finely the window forgets).
    Dedup(dedup::Options),
    /// Show what a filter file holds: its format, layout, size, fill, estimated keys and
    /// false-positive rate.
    ///
    /// Reads every format the library and the Redis module write: a filter, a wide filter or a
    /// quotient filter (magic SBLM; `SBF.DUMP` of a non-scaling filter), with a quotient
    /// filter's tag width, keys and load, a scalable filter (SBLS; `SBF.DUMP` of
    /// a scaling one), with its parameters and each stage, and a window filter (SBLW), with
    /// its generations and rotations.
    Info(info::Options),
    /// Write the union of filters of the same layout, size and hasher.
    ///
    /// The union holds every key of every input: a key any input may hold, the union may
    /// hold. Inputs must have been built with the same --layout, --items, --fpr and --hasher
    /// (split-block or wide filters; scalable and window filters do not combine as sets).
    Merge(merge::Options),
    /// List a Parquet file's bloom filters, or test a value against one column's filters.
    ///
    /// With --column and --value: one line per row group (its filter excludes the value, may
    /// hold it, or it has no readable filter, so it may hold it); exit 0 when some row group
    /// may hold the value, 1 only when every row group's filter excludes it. Built with the
    /// `parquet` feature.
    #[cfg(feature = "parquet")]
    ParquetInfo(parquet_info::Options),
    /// List a Parquet file's bloom filters (not in this build: it needs the `parquet` feature).
    #[cfg(not(feature = "parquet"))]
    #[command(name = "parquet-info", disable_help_flag = true)]
    ParquetInfo(NotBuilt),
    /// Measure insert and lookup speed and the false-positive rate of every kernel.
    ///
    /// A table per kernel and size (medians), the string keys through the byte-key contract,
    /// then a verdict: the kernel new filters use here, the spread of its samples, its
    /// false-positive rate against the prediction, its speed against the other kernels, and a
    /// one-line conclusion. The default run takes under a minute; build it with `--release`.
    Bench(bench::Options),
}

/// The arguments of a subcommand this build leaves out, whatever they are: the subcommand
/// answers with how to get a build that has it, not with the argument parser's "unrecognized
/// subcommand".
#[cfg(not(feature = "parquet"))]
#[derive(clap::Args)]
pub struct NotBuilt {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    arguments: Vec<std::ffi::OsString>,
}

impl Command {
    /// Runs the subcommand.
    pub fn run(self) -> Result<Status, String> {
        match self {
            Command::Build(options) => build::run(&options),
            Command::Query(options) => query::run(&options),
            Command::Remove(options) => remove::run(&options),
            Command::Dedup(options) => dedup::run(&options),
            Command::Info(options) => info::run(&options),
            Command::Merge(options) => merge::run(&options),
            #[cfg(feature = "parquet")]
            Command::ParquetInfo(options) => parquet_info::run(&options),
            #[cfg(not(feature = "parquet"))]
            Command::ParquetInfo(_) => Err(
                "parquet-info is not in this build of splitbloom, which was built without the `parquet` feature: rebuild with `--features parquet` (`cargo install --path cli --features parquet`)".to_owned(),
            ),
            Command::Bench(options) => bench::run(&options).map(|()| Status::Success),
        }
    }
}
