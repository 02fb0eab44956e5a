//! `cuckoo`: splitbloom's `CF.*` (a chain of quotient filters) against RedisBloom 2.4.23's
//! cuckoo filter, one redis-server each, rounds interleaved: `CF.RESERVE f n`, then `n` keys
//! through `CF.INSERT` of `BATCH` keys, `CF.MEXISTS` of the `n` present and `n` absent keys
//! (the measured false-positive rate), `MEMORY USAGE` and `used_memory` growth, and `CF.DEL`
//! of every key (one per command), each pipelined with `DEPTH` commands in flight; medians.
//! Then a `CF.SCANDUMP` loop over a filter reserved for 2·10^8 keys and its `CF.LOADCHUNK` loop,
//! with the longest wait of another client meanwhile.
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- cuckoo [keys] [rounds]
//! ```

use std::time::Instant;

use crate::common::{Conn, Reply, encode};
use crate::modules::{BATCH, Module, keys, median, redisbloom, while_pinging};
use crate::{DEPTH, pipeline_encoded};

/// `used_memory` now.
fn used_memory(c: &mut Conn) -> i64 {
    c.info("memory", "used_memory").parse().unwrap()
}

/// `command key [ITEMS] item ...` of `BATCH` items each, as RESP.
fn batches(command: &str, items_word: bool, items: &[Vec<u8>]) -> Vec<Vec<u8>> {
    items
        .chunks(BATCH)
        .map(|chunk| {
            let mut args: Vec<&[u8]> = vec![command.as_bytes(), b"f"];
            if items_word {
                args.push(b"ITEMS");
            }
            args.extend(chunk.iter().map(Vec::as_slice));
            encode(&args)
        })
        .collect()
}

/// Sends `commands`, counting the answers that are 1 (or true); how many, and seconds taken.
fn timed(c: &mut Conn, commands: &[Vec<u8>]) -> (usize, f64) {
    let mut ones = 0;
    let start = Instant::now();
    pipeline_encoded(c, commands, |c| ones += c.read_ones());
    (ones, start.elapsed().as_secs_f64())
}

/// One row of the table: a round's figures.
#[derive(Clone, Default)]
struct Round {
    insert: f64,
    lookup: f64,
    delete: f64,
    memory_usage: i64,
    used_memory: i64,
    false_positives: usize,
    filters: i64,
}

pub fn run(mut args: impl Iterator<Item = String>) {
    let n: usize = args.next().map_or(1_000_000, |a| a.parse().expect("keys"));
    let rounds: usize = args.next().map_or(3, |a| a.parse().expect("rounds"));
    let peers =
        crate::common::peers_dir().expect("../shared/peers/redis/ (or SPLITBLOOM_PEERS_DIR)");
    let mut modules = [
        Module {
            name: "splitbloom",
            server: crate::common::Server::start_full(
                "bench-cuckoo",
                &[],
                &["BF_COMMANDS", "yes"],
                None,
            ),
        },
        redisbloom(&peers),
    ];
    let present = keys("user:", n);
    let absent = keys("absent:", n);
    let inserts = batches("CF.INSERT", true, &present);
    let lookups: Vec<Vec<u8>> = batches("CF.MEXISTS", false, &present)
        .into_iter()
        .chain(batches("CF.MEXISTS", false, &absent))
        .collect();
    let deletes: Vec<Vec<u8>> = present
        .iter()
        .map(|key| encode(&[b"CF.DEL".as_slice(), b"f", key]))
        .collect();
    println!(
        "{n} keys, CF.RESERVE f {n}, CF.INSERT / CF.MEXISTS of {BATCH} keys and CF.DEL of one, {DEPTH} commands in flight, one redis-server per module; median of {rounds} interleaved rounds"
    );
    let mut results = vec![Vec::new(); modules.len()];
    for _ in 0..rounds {
        for (index, module) in modules.iter_mut().enumerate() {
            let mut c = module.server.conn();
            c.cmd(&["FLUSHALL"]);
            let before = used_memory(&mut c);
            c.cmd(&["CF.RESERVE", "f", &n.to_string()]);
            let (added, insert_s) = timed(&mut c, &inserts);
            assert_eq!(added, n, "{}: an insert failed", module.name);
            let used = used_memory(&mut c) - before;
            let memory_usage = c.cmd(&["MEMORY", "USAGE", "f", "SAMPLES", "0"]).int();
            let filters = info_field(&mut c, "Number of filters");
            let (found, lookup_s) = timed(&mut c, &lookups);
            let false_positives = found.checked_sub(n).expect("a present key went missing");
            let (removed, delete_s) = timed(&mut c, &deletes);
            assert_eq!(removed, n, "{}: a delete found nothing", module.name);
            results[index].push(Round {
                insert: n as f64 / insert_s,
                lookup: (2 * n) as f64 / lookup_s,
                delete: n as f64 / delete_s,
                memory_usage,
                used_memory: used,
                false_positives,
                filters,
            });
        }
    }
    println!(
        "\n| module | CF.INSERT keys/s | CF.MEXISTS keys/s | CF.DEL keys/s | MEMORY USAGE | used_memory growth | sub-filters | measured FPR |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut medians = Vec::new();
    for (module, rounds) in modules.iter().zip(&results) {
        let pick = |f: fn(&Round) -> f64| median(&mut rounds.iter().map(f).collect::<Vec<_>>());
        let row = (pick(|r| r.insert), pick(|r| r.lookup), pick(|r| r.delete));
        let last = rounds.last().cloned().unwrap_or_default();
        println!(
            "| {} | {:.2}M | {:.2}M | {:.2}M | {} | {} | {} | {:.4}% |",
            module.name,
            row.0 / 1e6,
            row.1 / 1e6,
            row.2 / 1e6,
            last.memory_usage,
            last.used_memory,
            last.filters,
            100.0 * last.false_positives as f64 / n as f64
        );
        medians.push(row);
    }
    if let [ours, theirs] = medians[..] {
        println!(
            "\nsplitbloom against RedisBloom: CF.INSERT {:.2}x, CF.MEXISTS {:.2}x, CF.DEL {:.2}x",
            ours.0 / theirs.0,
            ours.1 / theirs.1,
            ours.2 / theirs.2
        );
    }
    dumps(&mut modules);
}

/// What a `CF.SCANDUMP` loop over a filter reserved for 2·10^8 keys (10^5 in it) and its
/// `CF.LOADCHUNK` loop into another key take, and the longest wait of another client meanwhile.
fn dumps(modules: &mut [Module]) {
    println!(
        "\n| dump of a filter reserved for 2e8 keys | module | MEMORY USAGE | chunks | time | longest PING wait |"
    );
    println!("|---|---|---|---|---|---|");
    let items: Vec<Vec<u8>> = keys("big:", 100_000);
    let inserts = batches("CF.INSERT", true, &items);
    for module in modules.iter_mut() {
        let mut c = module.server.conn();
        c.cmd(&["FLUSHALL"]);
        c.cmd(&["CF.RESERVE", "f", "200000000"]);
        pipeline_encoded(&mut c, &inserts, |c| {
            c.read_ones();
        });
        let bytes = c.cmd(&["MEMORY", "USAGE", "f"]).int();
        let (chunks, took, wait) = while_pinging(&module.server, || {
            let mut chunks = Vec::new();
            let mut iter = 0i64;
            loop {
                let reply = c.cmd(&["CF.SCANDUMP", "f", &iter.to_string()]);
                let Reply::Array(Some(pair)) = reply else {
                    panic!("{reply:?}")
                };
                iter = pair[0].int();
                if iter == 0 {
                    return chunks;
                }
                chunks.push((iter.to_string(), pair[1].bytes()));
            }
        });
        let name = module.name;
        let count = chunks.len();
        println!("| CF.SCANDUMP loop | {name} | {bytes} | {count} | {took:.0} ms | {wait:.1} ms |");
        let ((), took, wait) = while_pinging(&module.server, || {
            for (iter, data) in &chunks {
                let args = [b"CF.LOADCHUNK".as_slice(), b"copy", iter.as_bytes(), data];
                assert_eq!(c.cmd(&args), Reply::Status("OK".into()));
            }
        });
        println!(
            "| CF.LOADCHUNK loop | {name} | {bytes} | {count} | {took:.0} ms | {wait:.1} ms |"
        );
    }
}

/// A field of `CF.INFO f`.
fn info_field(c: &mut Conn, name: &str) -> i64 {
    let crate::common::Reply::Array(Some(items)) = c.cmd(&["CF.INFO", "f"]) else {
        return -1;
    };
    items
        .chunks(2)
        .find(|pair| pair[0].text() == name)
        .map_or(-1, |pair| pair[1].int())
}
