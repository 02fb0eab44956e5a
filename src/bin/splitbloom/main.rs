//! The `splitbloom` command-line tool.

mod bench;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Split-block Bloom filters from the command line.
#[derive(Parser)]
#[command(name = "splitbloom", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure insert and lookup speed and the false-positive rate of every kernel.
    Bench(bench::Options),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(options) => bench::run(&options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("splitbloom: {message}");
            ExitCode::from(2)
        }
    }
}
