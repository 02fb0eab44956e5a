//! Standard output and standard error, with one rule for every subcommand.
//!
//! * **The reader went away** (`splitbloom info f | head -1`, a closed pipe): the program stops
//!   at once, quietly, with exit status 0, as the reader asked for no more. (Rust ignores
//!   `SIGPIPE`, so a write fails with `EPIPE` instead of killing the process; status 0 rather
//!   than 141 keeps `set -o pipefail` scripts that stop reading early from failing.)
//! * **Any other write error** (`> /dev/full`: a full disk, an I/O error): an error naming
//!   standard output, exit status 2.
//! * **Standard error** (messages, warnings, the progress bar) is best effort: a failure to write
//!   a message never changes the outcome and never panics.

use std::fmt;
use std::io::{self, Write};

/// Prints one line to standard output (`println!` without the panic); evaluates to
/// `Result<(), String>`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::print::line(format_args!($($arg)*))
    };
}
pub(crate) use out;

/// Prints one line to standard error, ignoring failures (`eprintln!` without the panic).
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::print::note_line(format_args!($($arg)*))
    };
}
pub(crate) use note;

/// Writes `args` and a newline to standard output.
pub fn line(args: fmt::Arguments<'_>) -> Result<(), String> {
    let mut stdout = io::stdout().lock();
    let result = stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"));
    check(result)
}

/// Flushes standard output (at the end of every subcommand).
pub fn flush() -> Result<(), String> {
    check(io::stdout().lock().flush())
}

/// Turns the result of a write to standard output into the rule of this module: a closed pipe
/// ends the program with status 0, any other error becomes the error message.
pub fn check(result: io::Result<()>) -> Result<(), String> {
    match result {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => reader_gone(),
        Err(error) => Err(format!("cannot write to standard output: {error}")),
    }
}

/// Ends the program quietly (status 0) because nobody reads its output any more. A temporary
/// output file (`build`, `merge`) is removed first.
pub fn reader_gone() -> ! {
    crate::output_file::remove_pending();
    std::process::exit(0)
}

/// Writes `args` and a newline to standard error, ignoring failures.
pub fn note_line(args: fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    let _ = stderr
        .write_fmt(args)
        .and_then(|()| stderr.write_all(b"\n"));
}

/// `value` in a form a person reads at a glance: plain decimals for ordinary magnitudes,
/// scientific notation for tiny or huge ones (Rust's `Display` for `f64` never uses an
/// exponent, so `1e-320` would print as 320 digits).
pub fn short_number(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 || !value.is_finite() || (1e-4..1e9).contains(&magnitude) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// `count` and a noun, singular for exactly one: `counted(1, "block", "blocks")` is "1 block".
pub fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// A size in bytes as a person reads it: `512 bytes`, `1.2 MB`, `12.5 GB` (powers of 1000).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "kB", "MB", "GB", "TB", "PB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        counted(bytes, "byte", "bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A computed quantity to about four significant digits, in scientific notation when large.
pub fn approx_number(value: f64) -> String {
    if value.is_finite() && value.abs() < 1e9 {
        format!("{value:.0}")
    } else {
        format!("{value:.3e}")
    }
}

#[cfg(test)]
mod tests {
    use super::{counted, human_bytes, short_number};

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(counted(0, "key", "keys"), "0 keys");
        assert_eq!(counted(1, "key", "keys"), "1 key");
        assert_eq!(counted(2, "block", "blocks"), "2 blocks");
    }

    #[test]
    fn sizes_read_at_a_glance() {
        assert_eq!(human_bytes(1), "1 byte");
        assert_eq!(human_bytes(999), "999 bytes");
        assert_eq!(human_bytes(1_260_000), "1.3 MB");
        assert_eq!(human_bytes(12_500_000_032), "12.5 GB");
        assert_eq!(human_bytes(u64::MAX), "18446.7 PB");
    }

    #[test]
    fn short_numbers_stay_short() {
        assert_eq!(short_number(0.01), "0.01");
        assert_eq!(short_number(1e-320), "1e-320");
        assert_eq!(short_number(1e300), "1e300");
        assert_eq!(short_number(f64::NAN), "NaN");
        assert!(short_number(123_456_789.0).len() < 12);
    }
}
