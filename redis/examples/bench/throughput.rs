//! `throughput`: splitbloom and RedisBloom 2.4.23 only, one server each, the pipelined
//! `BF.MADD` / `BF.MEXISTS` of issue-sized batches on a default (scaling) filter and on a
//! `NONSCALING` one, rounds interleaved, medians and splitbloom's ratio to RedisBloom. What to
//! run under a profiler (`SPLITBLOOM_BENCH_ONLY=splitbloom` leaves RedisBloom out).
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- throughput [keys] [rounds]
//! ```
//!
//! `workload [keys] [scaling|nonscaling]` prints the same commands as RESP, for `redis-cli
//! --pipe` against a server under a profiler (`redis/README.md`, "Where the time goes").

use crate::DEPTH;
use crate::common::{Server, peers_dir};
use crate::modules::{BATCH, Module, insert, keys, lookup, median, redisbloom};

pub fn run(mut args: impl Iterator<Item = String>) {
    let n: usize = args.next().map_or(1_000_000, |a| a.parse().expect("keys"));
    let rounds: usize = args.next().map_or(3, |a| a.parse().expect("rounds"));
    let only = std::env::var("SPLITBLOOM_BENCH_ONLY").ok();
    let mut modules = vec![Module {
        name: "splitbloom",
        server: Server::start_full("bench-splitbloom", &[], &["BF_COMMANDS", "yes"], None),
    }];
    if only.as_deref() != Some("splitbloom") {
        let peers = peers_dir().expect("../shared/peers/redis/ (or SPLITBLOOM_PEERS_DIR)");
        modules.push(redisbloom(&peers));
    }
    let present = keys("user:", n);
    let absent = keys("absent:", n);
    println!(
        "{n} keys at 1%, BF.MADD / BF.MEXISTS of {BATCH} keys, {DEPTH} commands in flight, one server per module; median of {rounds} interleaved rounds"
    );
    let kinds: [(&str, &[&str]); 2] = [("scaling (default)", &[]), ("NONSCALING", &["NONSCALING"])];
    // [kind][module] -> rounds of (inserts/s, lookups/s)
    let mut rates = vec![vec![(Vec::new(), Vec::new()); modules.len()]; kinds.len()];
    for _ in 0..rounds {
        for (kind, (_, options)) in kinds.iter().enumerate() {
            for (index, module) in modules.iter_mut().enumerate() {
                let mut c = module.server.conn();
                c.cmd(&["FLUSHALL"]);
                let mut reserve = vec!["BF.RESERVE", "f", "0.01"];
                let capacity = n.to_string();
                reserve.push(&capacity);
                reserve.extend_from_slice(options);
                c.cmd(&reserve);
                let inserted = n as f64 / insert(&mut c, "f", &present);
                let (found, present_s) = lookup(&mut c, "f", &present);
                assert_eq!(found, n, "{}: a key went missing", module.name);
                let (_, absent_s) = lookup(&mut c, "f", &absent);
                let looked_up = (2 * n) as f64 / (present_s + absent_s);
                rates[kind][index].0.push(inserted);
                rates[kind][index].1.push(looked_up);
            }
        }
    }
    println!(
        "\n| filter | operation | {} | ratio |",
        modules
            .iter()
            .map(|m| m.name)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---|{}---|", "---|".repeat(modules.len()));
    for (kind, (name, _)) in kinds.iter().enumerate() {
        for (operation, pick) in [("BF.MADD keys/s", 0), ("BF.MEXISTS keys/s", 1)] {
            let medians: Vec<f64> = rates[kind]
                .iter_mut()
                .map(|(inserts, lookups)| median(if pick == 0 { inserts } else { lookups }))
                .collect();
            let ratio = if medians.len() > 1 {
                format!("{:.2}x", medians[0] / medians[1])
            } else {
                "-".into()
            };
            println!(
                "| {name} | {operation} | {} | {ratio} |",
                medians
                    .iter()
                    .map(|rate| format!("{:.2}M", rate / 1e6))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
    }
}

/// `workload`: the throughput run's commands for one filter, as RESP on standard output.
pub fn workload(mut args: impl Iterator<Item = String>) {
    use std::io::Write;
    let n: usize = args.next().map_or(100_000, |a| a.parse().expect("keys"));
    let nonscaling = match args.next().as_deref() {
        None | Some("scaling") => false,
        Some("nonscaling") => true,
        Some(other) => panic!("scaling or nonscaling, not {other}"),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut write = |words: &[&[u8]]| {
        write!(out, "*{}\r\n", words.len()).unwrap();
        for word in words {
            write!(out, "${}\r\n", word.len()).unwrap();
            out.write_all(word).unwrap();
            out.write_all(b"\r\n").unwrap();
        }
    };
    let capacity = n.to_string();
    let mut reserve: Vec<&[u8]> = vec![b"BF.RESERVE", b"f", b"0.01", capacity.as_bytes()];
    if nonscaling {
        reserve.push(b"NONSCALING");
    }
    write(&reserve);
    for (command, prefix) in [
        ("BF.MADD", "user:"),
        ("BF.MEXISTS", "user:"),
        ("BF.MEXISTS", "absent:"),
    ] {
        let items = keys(prefix, n);
        for batch in items.chunks(BATCH) {
            let mut words: Vec<&[u8]> = vec![command.as_bytes(), b"f"];
            words.extend(batch.iter().map(Vec::as_slice));
            write(&words);
        }
    }
}
