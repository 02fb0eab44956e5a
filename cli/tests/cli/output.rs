//! How every subcommand writes: a closed pipe ends it quietly, a full disk is an error, and every
//! option is documented in `--help`.

use std::process::Stdio;

#[cfg(unix)]
use crate::support::run_to;
use crate::support::{fails, path, run, scratch, succeeded};

/// Every subcommand that prints: a closed pipe ends it quietly with status 0 (no panic, no
/// message), a full disk is an error with exit status 2.
#[cfg(unix)]
#[test]
fn closed_pipes_end_quietly_and_full_disks_are_errors() {
    let dir = scratch("stdout");
    let keys = path(&dir, "keys");
    std::fs::write(&keys, b"a\nb\nc\n").unwrap();
    let filter = path(&dir, "f.sbf");
    succeeded(run(
        &["build", "-n", "10", "-p", "0.1", "-i", &keys, "-o", &filter],
        b"",
    ));
    #[cfg_attr(not(feature = "parquet"), allow(unused_mut))]
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["info", &filter],
        vec!["info", "--json", &filter],
        vec!["query", &filter, "-i", &keys],
        vec!["dedup", "-n", "10", "-p", "0.1", "-i", &keys],
        vec!["bench", "--items", "1000", "--samples", "1"],
        vec!["bench", "--items", "1000", "--samples", "1", "--json"],
    ];
    #[cfg(feature = "parquet")]
    let parquet = path(&dir, "data.parquet");
    #[cfg(feature = "parquet")]
    {
        crate::support::parquet_file(std::path::Path::new(&parquet));
        commands.push(vec!["parquet-info", &parquet]);
        commands.push(vec![
            "parquet-info",
            &parquet,
            "--column",
            "id",
            "--value",
            "1",
        ]);
    }
    for args in &commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = run_to(args, Stdio::from(writer));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.is_empty() || !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");

        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        fails(
            run_to(args, Stdio::from(full)),
            "cannot write to standard output: No space left on device",
        );
    }
}

/// Every option of every subcommand says what it does in `--help`.
#[test]
fn every_option_is_documented() {
    let mut commands = vec!["build", "query", "dedup", "info", "merge", "bench"];
    if cfg!(feature = "parquet") {
        commands.push("parquet-info");
    }
    for command in commands {
        let help = String::from_utf8(succeeded(run(&[command, "--help"], b""))).unwrap();
        // The options end with `--help`; what follows is the subcommand's own text.
        let options = &help[..help.find("-h, --help").unwrap()];
        let lines: Vec<&str> = options.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let option = line.trim_start();
            if line.len() - option.len() < 8 && (option.starts_with("-") || option.starts_with('<'))
            {
                let next = lines.get(index + 1).copied().unwrap_or("");
                assert!(
                    next.starts_with("          ") && !next.trim().is_empty(),
                    "{command}: {line:?} has no description"
                );
            }
        }
        assert!(help.contains("--json"), "{command}");
    }
}

/// A build without the `parquet` feature answers `parquet-info` with how to get it, whatever
/// the arguments, instead of the argument parser's "unrecognized subcommand".
#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_info_says_how_to_get_it() {
    for args in [
        vec!["parquet-info", "data.parquet"],
        vec![
            "parquet-info",
            "data.parquet",
            "--column",
            "id",
            "--value",
            "-1",
        ],
        vec!["parquet-info", "--help"],
    ] {
        let output = run(&args, b"");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        fails(output, "rebuild with `--features parquet`");
        assert!(!stderr.contains("unrecognized"), "{stderr}");
    }
}
