//! `window`: one redis-server, three ways to keep "seen in the last G periods":
//!
//! * a windowed filter: `SBF.WRESERVE` (G generations, capacity per period), `SBF.MADD`, one
//!   `SBF.WROTATE key 1` per period, `SBF.MEXISTS`;
//! * a Redis set per period: `SADD set:<p>` + `EXPIRE set:<p> G·period`; the set that has left
//!   the window is deleted at the period's start (what its expiry does when the time comes, so
//!   the run need not wait), and a lookup is `SMISMEMBER` over the G live sets;
//! * a sorted set scored by time: `ZADD key p member`, `ZREMRANGEBYSCORE key -inf p−G` at the
//!   period's start, `ZMSCORE` lookups.
//!
//! Each gets `periods` periods of `keys` new keys each; then every key of the last G periods
//! (present), as many never-added keys (absent) and the keys of the period just before the
//! window (forgotten) are looked up. Reported: keys/s for adds (rotation/expiry included) and
//! lookups, `used_memory` growth, and the share of absent and forgotten keys found.
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- window [keys] [generations] [periods] [batch]
//! ```

use std::time::Instant;

use crate::common::{Conn, Reply, Server};
use crate::{batched, count_ones, pipeline};

const FPR: f64 = 0.01;
const PERIOD_SECONDS: u64 = 3600;

fn used_memory(c: &mut Conn) -> i64 {
    let info = c.cmd(&["INFO", "memory"]).text();
    info.lines()
        .find_map(|line| line.strip_prefix("used_memory:"))
        .expect("used_memory")
        .trim()
        .parse()
        .expect("a number")
}

/// Keys added in period `p`.
fn period_keys(p: usize, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("p{p}:item:{i}").into_bytes())
        .collect()
}

struct Row {
    name: &'static str,
    commands: &'static str,
    add_s: f64,
    lookup_s: f64,
    memory: i64,
    present_found: usize,
    absent_found: usize,
    forgotten_found: usize,
}

/// Whether a reply names a member: an integer 1 or a non-nil bulk (a `ZMSCORE` score), per
/// item of an array reply.
fn found(reply: Reply) -> Vec<bool> {
    match reply {
        Reply::Array(Some(items)) => items
            .into_iter()
            .map(|item| match item {
                Reply::Int(value) => value == 1,
                Reply::Bulk(bytes) => bytes.is_some(),
                other => panic!("unexpected reply {other:?}"),
            })
            .collect(),
        other => panic!("unexpected reply {other:?}"),
    }
}

pub fn run(mut args: impl Iterator<Item = String>) {
    let n: usize = args.next().map_or(100_000, |a| a.parse().expect("keys"));
    let g: usize = args.next().map_or(4, |a| a.parse().expect("generations"));
    let periods: usize = args.next().map_or(8, |a| a.parse().expect("periods"));
    let batch: usize = args.next().map_or(1000, |a| a.parse().expect("batch"));
    assert!(
        periods > g,
        "periods must exceed generations, to have forgotten keys"
    );
    let keys: Vec<Vec<Vec<u8>>> = (0..periods).map(|p| period_keys(p, n)).collect();
    let present: Vec<Vec<u8>> = keys[periods - g..].concat();
    let forgotten = &keys[periods - g - 1];
    let absent: Vec<Vec<u8>> = (0..present.len())
        .map(|i| format!("absent:{i}").into_bytes())
        .collect();

    let server = Server::start("bench-window");
    let mut c = server.conn();
    let mut rows = Vec::new();

    // The windowed filter.
    let before = used_memory(&mut c);
    let start = Instant::now();
    let reply = c.cmd(&[
        "SBF.WRESERVE",
        "w",
        &FPR.to_string(),
        &n.to_string(),
        "GENERATIONS",
        &g.to_string(),
        "PERIOD",
        &PERIOD_SECONDS.to_string(),
    ]);
    assert_eq!(reply, Reply::Status("OK".into()));
    for (p, period) in keys.iter().enumerate() {
        if p > 0 {
            assert_eq!(c.cmd(&["SBF.WROTATE", "w", "1"]).int(), p as i64);
        }
        pipeline(&mut c, batched("SBF.MADD", "w", period, batch), drop);
    }
    let add_s = start.elapsed().as_secs_f64();
    let memory = used_memory(&mut c) - before;
    let mut counts = [0usize; 3];
    let start = Instant::now();
    for (items, count) in [&present, &absent, forgotten].into_iter().zip(&mut counts) {
        pipeline(&mut c, batched("SBF.MEXISTS", "w", items, batch), |r| {
            *count += count_ones(r)
        });
    }
    rows.push(Row {
        name: "windowed filter",
        commands: "SBF.MADD, SBF.WROTATE per period, SBF.MEXISTS",
        add_s,
        lookup_s: start.elapsed().as_secs_f64(),
        memory,
        present_found: counts[0],
        absent_found: counts[1],
        forgotten_found: counts[2],
    });

    // A set per period with EXPIRE.
    let before = used_memory(&mut c);
    let ttl = (g as u64 * PERIOD_SECONDS).to_string();
    let start = Instant::now();
    for (p, period) in keys.iter().enumerate() {
        if p >= g {
            c.cmd(&["DEL", &format!("set:{}", p - g)]);
        }
        let name = format!("set:{p}");
        pipeline(&mut c, batched("SADD", &name, period, batch), drop);
        assert_eq!(c.cmd(&["EXPIRE", &name, &ttl]).int(), 1);
    }
    let add_s = start.elapsed().as_secs_f64();
    let memory = used_memory(&mut c) - before;
    let live_sets: Vec<String> = (periods - g..periods).map(|p| format!("set:{p}")).collect();
    let live = &live_sets;
    let mut counts = [0usize; 3];
    let start = Instant::now();
    for (items, count) in [&present, &absent, forgotten].into_iter().zip(&mut counts) {
        // One SMISMEMBER per live set and batch; a key is in the window if any set has it.
        let commands = items.chunks(batch).flat_map(|chunk| {
            live.iter().map(move |set| {
                let mut command = vec![b"SMISMEMBER".to_vec(), set.as_bytes().to_vec()];
                command.extend(chunk.iter().cloned());
                command
            })
        });
        let mut group: Vec<bool> = Vec::new();
        let mut in_group = 0;
        pipeline(&mut c, commands, |reply| {
            let answers = found(reply);
            if in_group == 0 {
                group = answers;
            } else {
                group.iter_mut().zip(answers).for_each(|(any, a)| *any |= a);
            }
            in_group += 1;
            if in_group == live.len() {
                *count += group.iter().filter(|&&any| any).count();
                in_group = 0;
            }
        });
    }
    rows.push(Row {
        name: "a set per period + EXPIRE",
        commands: "SADD + EXPIRE, SMISMEMBER over G sets",
        add_s,
        lookup_s: start.elapsed().as_secs_f64(),
        memory,
        present_found: counts[0],
        absent_found: counts[1],
        forgotten_found: counts[2],
    });

    // A sorted set scored by period.
    let before = used_memory(&mut c);
    let start = Instant::now();
    for (p, period) in keys.iter().enumerate() {
        if p >= g {
            c.cmd(&["ZREMRANGEBYSCORE", "z", "-inf", &(p - g).to_string()]);
        }
        let score = p.to_string().into_bytes();
        let commands = period.chunks(batch).map(|chunk| {
            let mut command = vec![b"ZADD".to_vec(), b"z".to_vec()];
            for member in chunk {
                command.push(score.clone());
                command.push(member.clone());
            }
            command
        });
        pipeline(&mut c, commands, drop);
    }
    let add_s = start.elapsed().as_secs_f64();
    let memory = used_memory(&mut c) - before;
    let mut counts = [0usize; 3];
    let start = Instant::now();
    for (items, count) in [&present, &absent, forgotten].into_iter().zip(&mut counts) {
        pipeline(&mut c, batched("ZMSCORE", "z", items, batch), |reply| {
            *count += found(reply).into_iter().filter(|&a| a).count()
        });
    }
    rows.push(Row {
        name: "a sorted set by time",
        commands: "ZADD, ZREMRANGEBYSCORE per period, ZMSCORE",
        add_s,
        lookup_s: start.elapsed().as_secs_f64(),
        memory,
        present_found: counts[0],
        absent_found: counts[1],
        forgotten_found: counts[2],
    });

    let added = n * periods;
    let looked_up = present.len() + absent.len() + forgotten.len();
    println!(
        "{periods} periods of {n} new keys, window G = {g} (target FPR {FPR}); then {} present, {} absent and {n} forgotten keys looked up; batch {batch}, pipeline depth {}",
        present.len(),
        absent.len(),
        crate::DEPTH
    );
    println!(
        "| contender | commands | add keys/s | lookup keys/s | used_memory growth | bytes/key in window | present found | absent found | forgotten found |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {} B | {:.2} | {}/{} | {:.3}% | {:.3}% |",
            row.name,
            row.commands,
            added as f64 / row.add_s,
            looked_up as f64 / row.lookup_s,
            row.memory,
            row.memory as f64 / present.len() as f64,
            row.present_found,
            present.len(),
            100.0 * row.absent_found as f64 / absent.len() as f64,
            100.0 * row.forgotten_found as f64 / forgotten.len() as f64,
        );
    }
    for row in &rows {
        assert_eq!(
            row.present_found,
            present.len(),
            "{}: a false negative",
            row.name
        );
    }
}
