//! The `splitbloom` command-line tool.
//!
//! Exit status: 0 success, 1 nothing found (`query` printed no key), 2 error (one line on
//! standard error, never a panic trace). Keys are bytes; see `keys` for how they are hashed.
//! Standard output closed by its reader (`| head`) ends the program quietly with status 0; any
//! other output error (`> /dev/full`) is an error (see `print`).

mod any_filter;
mod commands;
mod filter_file;
mod hashers;
mod json;
mod keys;
mod numbers;
mod output_file;
mod plain;
mod print;
mod stats;

use std::process::ExitCode;

use clap::Parser;

use commands::Command;

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

/// How a successful run ended.
pub enum Status {
    /// Exit status 0.
    Success,
    /// Exit status 1: nothing was found.
    NothingFound,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = cli.command.run();
    let result = result.and_then(|status| print::flush().map(|()| status));
    match result {
        Ok(Status::Success) => ExitCode::SUCCESS,
        Ok(Status::NothingFound) => ExitCode::from(1),
        Err(message) => {
            print::note!("splitbloom: {message}");
            ExitCode::from(2)
        }
    }
}
