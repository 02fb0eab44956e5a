//! The measured comparisons, pipelined over one connection:
//!
//! `modules` (the default; `redis/README.md`): splitbloom (with `BF_COMMANDS yes`), RedisBloom
//! 2.4.23 and valkey-bloom (`../shared/peers/redis/`), one redis-server each, the same `BF.*`
//! commands: insert and lookup throughput (median of interleaved rounds), false-positive rate,
//! `MEMORY USAGE`, `used_memory` and RSS at 1%, 0.1% and 0.01%, a scaling table (a filter
//! reserved for C items holding 1, 2, 5 and 10 C), and the longest wait of another client
//! while a 200 MB filter is dumped through `SCANDUMP` (and through one `SBF.DUMP`).
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- modules [keys] [rounds]
//! cargo run --release -p splitbloom-redis --example bench -- dumps   # the dump stalls only
//! ```
//!
//! `contenders`: one redis-server, the same keys, four ways users keep a shared "seen" set in
//! Redis:
//!
//! * `SBF.MADD` / `SBF.MEXISTS` (this module), `BATCH` keys per command;
//! * `SBF.ADD` / `SBF.EXISTS`, one key per command;
//! * a Redis set: `SADD` / `SMISMEMBER`, `BATCH` keys per command;
//! * the classic Bloom filter over a Redis string: k = 7 `SETBIT`s per key and 7 `GETBIT`s per
//!   lookup, bit positions by double hashing (h1 + i·h2 mod m) of XXH3, m sized for 1%.
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- contenders [keys] [batch]
//! ```
//! `window`: windowed keys against a set per period with EXPIRE and a sorted set by time
//! (`window.rs`).
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- window [keys] [generations] [periods] [batch]
//! ```
//! `lowfpr`: the three modules' `NONSCALING` reservations at 1e-3, 1e-4 and 1e-6, where
//! splitbloom uses its wide filter: memory, measured FPR, throughput (`lowfpr.rs`).
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- lowfpr [keys] [rounds]
//! ```
//! `cuckoo`: splitbloom's `CF.*` against RedisBloom's cuckoo filter: throughput, memory and
//! false-positive rate at the same reservation (`cuckoo.rs`).
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- cuckoo [keys] [rounds]
//! ```
//! `throughput`: splitbloom and RedisBloom only, scaling and `NONSCALING` filters, the
//! pipelined batches alone (`throughput.rs`): what to profile.
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- throughput [keys] [rounds]
//! ```
//! (`bash scripts/test-redis.sh --bench` installs redis-server first.) Not for CI: at 10^6 keys
//! it takes minutes on a shared machine.

#[path = "../../tests/common/mod.rs"]
mod common;

mod cuckoo;
mod lowfpr;
mod modules;
mod throughput;
mod window;

use std::time::Instant;

use common::{Conn, Reply, Server};
use splitbloom::FilterHasher;

/// Commands in flight before reading their replies.
pub const DEPTH: usize = 64;
const FPR: f64 = 0.01;
const K: u64 = 7;

/// Sends `commands` with `DEPTH` of them in flight; calls `sink` on each reply in order.
pub fn pipeline(
    conn: &mut Conn,
    commands: impl Iterator<Item = Vec<Vec<u8>>>,
    mut sink: impl FnMut(Reply),
) {
    let commands: Vec<Vec<u8>> = commands.map(|command| common::encode(&command)).collect();
    pipeline_encoded(conn, &commands, |conn| sink(conn.read()));
}

/// Sends `commands` (RESP, [`common::encode`]) with `DEPTH` of them in flight; `read` reads
/// each reply in order.
///
/// A sliding window: each reply read lets one more command go, so the server has the next
/// commands queued while the client reads a reply, and the server, not the client, sets the
/// pace. (Sending `DEPTH` commands, then reading all their replies, then sending more, leaves
/// the server idle while the client reads, which makes every server look alike.)
pub fn pipeline_encoded(conn: &mut Conn, commands: &[Vec<u8>], mut read: impl FnMut(&mut Conn)) {
    let (first, rest) = commands.split_at(commands.len().min(DEPTH));
    for command in first {
        conn.send_encoded(command);
    }
    for command in rest {
        read(conn);
        conn.send_encoded(command);
        conn.flush();
    }
    for _ in first {
        read(conn);
    }
}

pub fn batched<'a>(
    name: &'a str,
    key: &'a str,
    items: &'a [Vec<u8>],
    batch: usize,
) -> impl Iterator<Item = Vec<Vec<u8>>> + 'a {
    items.chunks(batch).map(move |chunk| {
        let mut command = vec![name.as_bytes().to_vec(), key.as_bytes().to_vec()];
        command.extend(chunk.iter().cloned());
        command
    })
}

fn single<'a>(
    name: &'a str,
    key: &'a str,
    items: &'a [Vec<u8>],
) -> impl Iterator<Item = Vec<Vec<u8>>> + 'a {
    items.iter().map(move |item| {
        vec![
            name.as_bytes().to_vec(),
            key.as_bytes().to_vec(),
            item.clone(),
        ]
    })
}

/// Counts the 1s among integer and integer-array replies.
pub fn count_ones(reply: Reply) -> usize {
    match reply {
        Reply::Int(value) => usize::from(value == 1),
        Reply::Array(Some(items)) => items.into_iter().map(count_ones).sum(),
        other => panic!("unexpected reply {other:?}"),
    }
}

struct Row {
    name: &'static str,
    insert_s: f64,
    query_s: f64,
    present_found: usize,
    absent_found: usize,
    bytes: i64,
    commands: &'static str,
}

fn memory(conn: &mut Conn, key: &str) -> i64 {
    conn.cmd(&["MEMORY", "USAGE", key, "SAMPLES", "0"]).int()
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    match args.peek().map(String::as_str) {
        Some("contenders") => {
            args.next();
            contenders(args)
        }
        Some("modules") => {
            args.next();
            modules::run(args)
        }
        Some("dumps") => modules::run_dumps(),
        Some("window") => {
            args.next();
            window::run(args)
        }
        Some("lowfpr") => {
            args.next();
            lowfpr::run(args)
        }
        Some("cuckoo") => {
            args.next();
            cuckoo::run(args)
        }
        Some("throughput") => {
            args.next();
            throughput::run(args)
        }
        Some("workload") => {
            args.next();
            throughput::workload(args)
        }
        _ => modules::run(args),
    }
}

fn contenders(mut args: impl Iterator<Item = String>) {
    let n: usize = args.next().map_or(1_000_000, |a| a.parse().expect("keys"));
    let batch: usize = args.next().map_or(1000, |a| a.parse().expect("batch"));
    let present: Vec<Vec<u8>> = (0..n).map(|i| format!("user:{i}").into_bytes()).collect();
    let absent: Vec<Vec<u8>> = (0..n).map(|i| format!("absent:{i}").into_bytes()).collect();

    let server = Server::start("bench");
    let mut c = server.conn();
    let mut rows = Vec::new();

    // SBF, batched.
    assert_eq!(
        c.cmd(&["SBF.RESERVE", "sbf", &FPR.to_string(), &n.to_string()])
            .text(),
        "OK"
    );
    let start = Instant::now();
    pipeline(&mut c, batched("SBF.MADD", "sbf", &present, batch), drop);
    let insert_s = start.elapsed().as_secs_f64();
    let (mut present_found, mut absent_found) = (0, 0);
    let start = Instant::now();
    pipeline(
        &mut c,
        batched("SBF.MEXISTS", "sbf", &present, batch),
        |r| present_found += count_ones(r),
    );
    pipeline(&mut c, batched("SBF.MEXISTS", "sbf", &absent, batch), |r| {
        absent_found += count_ones(r)
    });
    let query_s = start.elapsed().as_secs_f64();
    rows.push(Row {
        name: "splitbloom module, batched",
        insert_s,
        query_s,
        present_found,
        absent_found,
        bytes: memory(&mut c, "sbf"),
        commands: "SBF.MADD / SBF.MEXISTS",
    });

    // SBF, one key per command.
    assert_eq!(
        c.cmd(&["SBF.RESERVE", "sbf1", &FPR.to_string(), &n.to_string()])
            .text(),
        "OK"
    );
    let start = Instant::now();
    pipeline(&mut c, single("SBF.ADD", "sbf1", &present), drop);
    let insert_s = start.elapsed().as_secs_f64();
    let (mut present_found, mut absent_found) = (0, 0);
    let start = Instant::now();
    pipeline(&mut c, single("SBF.EXISTS", "sbf1", &present), |r| {
        present_found += count_ones(r)
    });
    pipeline(&mut c, single("SBF.EXISTS", "sbf1", &absent), |r| {
        absent_found += count_ones(r)
    });
    let query_s = start.elapsed().as_secs_f64();
    rows.push(Row {
        name: "splitbloom module, one key per command",
        insert_s,
        query_s,
        present_found,
        absent_found,
        bytes: memory(&mut c, "sbf1"),
        commands: "SBF.ADD / SBF.EXISTS",
    });

    // A Redis set.
    let start = Instant::now();
    pipeline(&mut c, batched("SADD", "set", &present, batch), drop);
    let insert_s = start.elapsed().as_secs_f64();
    let (mut present_found, mut absent_found) = (0, 0);
    let start = Instant::now();
    pipeline(&mut c, batched("SMISMEMBER", "set", &present, batch), |r| {
        present_found += count_ones(r)
    });
    pipeline(&mut c, batched("SMISMEMBER", "set", &absent, batch), |r| {
        absent_found += count_ones(r)
    });
    let query_s = start.elapsed().as_secs_f64();
    rows.push(Row {
        name: "Redis set",
        insert_s,
        query_s,
        present_found,
        absent_found,
        bytes: memory(&mut c, "set"),
        commands: "SADD / SMISMEMBER",
    });

    // The classic SETBIT/GETBIT Bloom filter: m bits for 1% with the optimal k (7).
    let m = (-(n as f64) * FPR.ln() / std::f64::consts::LN_2.powi(2)).ceil() as u64;
    let hasher = common::ModuleHasher::default();
    let positions = |item: &[u8]| {
        let hash = hasher.hash_bytes(item);
        let (h1, h2) = (hash & 0xffff_ffff, hash >> 32);
        (0..K).map(move |i| (h1 + i * h2) % m)
    };
    let bit_commands = |name: &'static str, items: &[Vec<u8>]| -> Vec<Vec<Vec<u8>>> {
        items
            .iter()
            .flat_map(|item| positions(item))
            .map(|bit| {
                let mut command = vec![
                    name.as_bytes().to_vec(),
                    b"bits".to_vec(),
                    bit.to_string().into_bytes(),
                ];
                if name == "SETBIT" {
                    command.push(b"1".to_vec());
                }
                command
            })
            .collect()
    };
    let setbits = bit_commands("SETBIT", &present);
    let start = Instant::now();
    pipeline(&mut c, setbits.into_iter(), drop);
    let insert_s = start.elapsed().as_secs_f64();
    let (mut present_found, mut absent_found) = (0, 0);
    let mut query_s = 0.0;
    for (items, found) in [(&present, &mut present_found), (&absent, &mut absent_found)] {
        let getbits = bit_commands("GETBIT", items);
        // A key is "present" when all K of its consecutive replies are 1.
        let (mut run, mut all) = (0, true);
        let start = Instant::now();
        pipeline(&mut c, getbits.into_iter(), |reply| {
            all &= reply.int() == 1;
            run += 1;
            if run == K {
                *found += usize::from(all);
                (run, all) = (0, true);
            }
        });
        query_s += start.elapsed().as_secs_f64();
    }
    rows.push(Row {
        name: "classic Bloom on a string, k = 7",
        insert_s,
        query_s,
        present_found,
        absent_found,
        bytes: memory(&mut c, "bits"),
        commands: "7 SETBIT / 7 GETBIT per key",
    });

    println!(
        "{n} keys inserted, then {n} present + {n} absent looked up; batch {batch}, pipeline depth {DEPTH}; target FPR {FPR}"
    );
    println!(
        "| contender | commands | insert keys/s | lookup keys/s | memory (MEMORY USAGE) | bytes/key | present found | measured FPR |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {} B | {:.2} | {}/{} | {:.4}% |",
            row.name,
            row.commands,
            n as f64 / row.insert_s,
            (2 * n) as f64 / row.query_s,
            row.bytes,
            row.bytes as f64 / n as f64,
            row.present_found,
            n,
            100.0 * row.absent_found as f64 / n as f64,
        );
    }
    println!("used_memory after all: {}", {
        let info = c.cmd(&["INFO", "memory"]).text();
        info.lines()
            .find(|l| l.starts_with("used_memory:"))
            .unwrap_or("")
            .to_owned()
    });
}
