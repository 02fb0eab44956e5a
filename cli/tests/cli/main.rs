//! The `splitbloom` binary, run for real on temporary files: a module per subcommand, and one
//! each for what every subcommand shares (reading keys and filter files, writing output files
//! and standard output, hashing keys as the library does). Every error path is one line on
//! standard error with exit status 2 and no panic; "nothing found" is exit status 1.
//!
//! One test binary, as for the library's suite; run one module with a filter, e.g.
//! `cargo test -p splitbloom-cli --test cli query::`. The helpers live in `support`.

mod support;

mod bench;
mod build;
mod dedup;
mod formats;
mod hashing;
mod info;
mod input;
mod merge;
mod output;
mod output_file;
#[cfg(feature = "parquet")]
mod parquet_info;
mod query;
mod remove;
