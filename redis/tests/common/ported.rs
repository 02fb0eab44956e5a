//! What the ported upstream suites share: commands written as
//! the upstream tests write them, expectations that fail a case with a message, and the
//! runner that sends every case to every module in one run and keeps score.

use std::collections::BTreeMap;
use std::fmt::Debug;

use super::{Conn, Reply, Server};

pub type Outcome = Result<(), String>;

/// Fails the case with a message when `cond` is false.
macro_rules! check {
    ($cond:expr, $($message:tt)*) => {
        let holds: bool = $cond;
        if !holds {
            return Err(format!($($message)*));
        }
    };
}
#[allow(unused_imports, reason = "only the ported suites check")]
pub(crate) use check;

/// Splits a command line on spaces (the upstream tests write most commands that way).
pub fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

pub fn run(c: &mut Conn, line: &str) -> Reply {
    c.cmd(&words(line))
}

/// The error text a Python client shows: without a leading `ERR `.
pub fn error_text(reply: &Reply) -> Option<String> {
    match reply {
        Reply::Error(message) => Some(message.strip_prefix("ERR ").unwrap_or(message).to_owned()),
        _ => None,
    }
}

pub fn expect(c: &mut Conn, line: &str, want: Reply) -> Outcome {
    let got = run(c, line);
    check!(got == want, "{line}: got {got:?}, want {want:?}");
    Ok(())
}

pub fn expect_int(c: &mut Conn, line: &str, want: i64) -> Outcome {
    expect(c, line, Reply::Int(want))
}

pub fn expect_ints(c: &mut Conn, line: &str, want: &[i64]) -> Outcome {
    expect(
        c,
        line,
        Reply::Array(Some(want.iter().map(|&n| Reply::Int(n)).collect())),
    )
}

pub fn expect_ok(c: &mut Conn, line: &str) -> Outcome {
    expect(c, line, Reply::Status("OK".into()))
}

pub fn expect_error(c: &mut Conn, args: &[Vec<u8>]) -> Outcome {
    let got = c.cmd(args);
    check!(got.is_error(), "{}: got {got:?}, want an error", show(args));
    Ok(())
}

pub fn expect_error_line(c: &mut Conn, line: &str) -> Outcome {
    let got = run(c, line);
    check!(got.is_error(), "{line}: got {got:?}, want an error");
    Ok(())
}

/// An error whose client-side text is exactly `text`.
pub fn expect_error_text(c: &mut Conn, args: &[Vec<u8>], text: &str) -> Outcome {
    let got = c.cmd(args);
    check!(
        error_text(&got).as_deref() == Some(text),
        "{}: got {got:?}, want the error {text:?}",
        show(args)
    );
    Ok(())
}

pub fn show(args: &[Vec<u8>]) -> String {
    args.iter()
        .map(|arg| String::from_utf8_lossy(&arg[..arg.len().min(24)]).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn bytes(args: &[&str]) -> Vec<Vec<u8>> {
    args.iter().map(|arg| arg.as_bytes().to_vec()).collect()
}

pub fn items(prefix: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("{prefix}{i}")).collect()
}

/// A small deterministic generator, for the upstream tests' random offsets and chunks.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 { 0 } else { self.next() % bound }
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// Every `[iterator, chunk]` pair `{family}.SCANDUMP key` gives (`family` is `BF` or `CF`),
/// header first, until the iterator 0 that ends it.
pub fn scandump(c: &mut Conn, family: &str, key: &str) -> Result<Vec<(i64, Vec<u8>)>, String> {
    let mut chunks = Vec::new();
    let mut iter = 0;
    loop {
        let reply = c.cmd(&[&format!("{family}.SCANDUMP"), key, &iter.to_string()]);
        let Reply::Array(Some(pair)) = &reply else {
            return Err(format!("{family}.SCANDUMP {key} {iter}: {reply:?}"));
        };
        match (&pair[0], &pair[1]) {
            (Reply::Int(0), _) => return Ok(chunks),
            (Reply::Int(next), Reply::Bulk(Some(data))) => {
                iter = *next;
                chunks.push((iter, data.clone()));
            }
            _ => return Err(format!("{family}.SCANDUMP {key} {iter}: {reply:?}")),
        }
    }
}

/// `{family}.LOADCHUNK key` of every pair, each answered `OK`.
pub fn loadchunks(c: &mut Conn, family: &str, key: &str, chunks: &[(i64, Vec<u8>)]) -> Outcome {
    let command = format!("{family}.LOADCHUNK");
    for (iter, data) in chunks {
        let iter = iter.to_string();
        let reply = c.cmd(&[command.as_bytes(), key.as_bytes(), iter.as_bytes(), data]);
        check!(
            reply == Reply::Status("OK".into()),
            "{command} {key} {iter}: {reply:?}"
        );
    }
    Ok(())
}

/// `{family}.INFO key` as (field, value) pairs, in order.
pub fn info_fields(c: &mut Conn, family: &str, key: &str) -> Result<Vec<(String, Reply)>, String> {
    match c.cmd(&[&format!("{family}.INFO"), key]) {
        Reply::Array(Some(items)) => Ok(items
            .chunks(2)
            .map(|pair| (pair[0].text(), pair[1].clone()))
            .collect()),
        other => Err(format!("{family}.INFO {key}: {other:?}")),
    }
}

/// An integer field of `{family}.INFO key`.
pub fn info_int(c: &mut Conn, family: &str, key: &str, field: &str) -> Result<i64, String> {
    match info_fields(c, family, key)?
        .into_iter()
        .find(|(name, _)| name == field)
    {
        Some((_, Reply::Int(value))) => Ok(value),
        other => Err(format!("{family}.INFO {key} {field}: {other:?}")),
    }
}

/// One ported upstream test.
pub struct Case<M> {
    /// The module it comes from.
    pub origin: M,
    /// The upstream file and test.
    pub name: &'static str,
    pub run: fn(&mut Conn) -> Outcome,
}

/// Runs every case on every module's server (`start` makes one, again after a module aborts
/// its server) and returns how many of each origin's cases each module passes. A case that
/// fails on the module it came from is a porting bug, unless `upstream_fails` says why it
/// fails there; a case `ours` fails must be in `known`, which says why, and a `known` case it
/// passes must leave the list. Every such failure fails the test.
pub fn run_cases<M: Copy + Ord + Debug>(
    cases: &[Case<M>],
    modules: &[M],
    ours: M,
    start: impl Fn(M) -> Server,
    known: &[(&str, &str)],
    upstream_fails: &[(&str, &str)],
) -> BTreeMap<(M, M), usize> {
    let mut servers: Vec<Server> = modules.iter().map(|&module| start(module)).collect();
    let mut passes: BTreeMap<(M, M), usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in cases {
        for (&module, server) in modules.iter().zip(&mut servers) {
            let mut c = server.conn();
            c.cmd(&["FLUSHALL"]);
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (case.run)(&mut c)))
                    .unwrap_or_else(|_| Err("the connection failed".into()));
            let outcome = if server.alive() {
                outcome
            } else {
                if module == ours {
                    failures.push(format!("{} killed {module:?}'s server", case.name));
                }
                // A module that aborts its server fails the case; the next gets a new server.
                *server = start(module);
                Err(format!("the server died ({outcome:?})"))
            };
            let is_known = known.iter().any(|(name, _)| *name == case.name);
            match outcome {
                Ok(()) => {
                    if module == ours && is_known {
                        failures.push(format!(
                            "{} passes on {module:?}: take it out of KNOWN",
                            case.name
                        ));
                    }
                    *passes.entry((case.origin, module)).or_default() += 1;
                }
                Err(why) => {
                    eprintln!("{module:?} fails {}: {why}", case.name);
                    let upstream = upstream_fails.iter().any(|(name, _)| *name == case.name);
                    if (module == case.origin && !upstream) || (module == ours && !is_known) {
                        failures.push(format!("{module:?} fails {}: {why}", case.name));
                    }
                }
            }
        }
    }
    for (name, why) in known {
        assert!(
            cases.iter().any(|case| case.name == *name),
            "KNOWN names no case: {name}"
        );
        eprintln!("known difference: {name}: {why}");
    }
    assert!(failures.is_empty(), "{failures:#?}");
    passes
}
