//! The three Bloom modules side by side: see the crate-level comment of `main.rs`.

use std::time::{Duration, Instant};

use crate::common::{Conn, Reply, Server, peers_dir};
use crate::{DEPTH, batched, pipeline_encoded};

pub const BATCH: usize = 1000;

pub struct Module {
    pub name: &'static str,
    pub server: Server,
}

fn info_field(c: &mut Conn, name: &str) -> i64 {
    c.cmd(&["INFO", "memory"])
        .text()
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name}:")))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0)
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

pub fn keys(prefix: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .collect()
}

/// Inserts `items` into `key` (MADD, pipelined); seconds taken. The commands are encoded
/// before the clock starts, and the replies counted as they are read: the client's own work
/// stays out of the figure as far as it can.
pub fn insert(c: &mut Conn, key: &str, items: &[Vec<u8>]) -> f64 {
    let commands = encoded("BF.MADD", key, items);
    let start = Instant::now();
    pipeline_encoded(c, &commands, |c| {
        c.read_ones();
    });
    start.elapsed().as_secs_f64()
}

/// Looks `items` up in `key` (MEXISTS, pipelined); how many were found, and seconds taken
/// (as [`insert`] measures them).
pub fn lookup(c: &mut Conn, key: &str, items: &[Vec<u8>]) -> (usize, f64) {
    let commands = encoded("BF.MEXISTS", key, items);
    let mut found = 0;
    let start = Instant::now();
    pipeline_encoded(c, &commands, |c| found += c.read_ones());
    (found, start.elapsed().as_secs_f64())
}

/// `command key item ...` of `BATCH` items each, as RESP.
fn encoded(command: &str, key: &str, items: &[Vec<u8>]) -> Vec<Vec<u8>> {
    batched(command, key, items, BATCH)
        .map(|command| crate::common::encode(&command))
        .collect()
}

/// A server with RedisBloom 2.4.23 from the peers' directory.
pub fn redisbloom(peers: &std::path::Path) -> Module {
    Module {
        name: "RedisBloom 2.4.23",
        server: Server::start_module(
            "bench-redisbloom",
            &peers.join("redisbloom-2.4.23.so"),
            &[],
            &[],
        ),
    }
}

/// One redis-server each for splitbloom (with `BF_COMMANDS yes`), RedisBloom and valkey-bloom.
pub fn start_all() -> Vec<Module> {
    let peers = peers_dir().expect("../shared/peers/redis/ (or SPLITBLOOM_PEERS_DIR)");
    vec![
        Module {
            name: "splitbloom",
            server: Server::start_full("bench-splitbloom", &[], &["BF_COMMANDS", "yes"], None),
        },
        redisbloom(&peers),
        Module {
            name: "valkey-bloom 57a7901",
            server: Server::start_module(
                "bench-valkey",
                &peers.join("valkey-bloom-57a7901.so"),
                &[],
                &[],
            ),
        },
    ]
}

/// `dumps`: only the dump measurements.
pub fn run_dumps() {
    let peers = peers_dir().expect("../shared/peers/redis/ (or SPLITBLOOM_PEERS_DIR)");
    let mut modules = vec![
        Module {
            name: "splitbloom",
            server: Server::start_full("bench-splitbloom", &[], &["BF_COMMANDS", "yes"], None),
        },
        redisbloom(&peers),
    ];
    dumps(&mut modules);
}

pub fn run(mut args: impl Iterator<Item = String>) {
    let n: usize = args.next().map_or(1_000_000, |a| a.parse().expect("keys"));
    let rounds: usize = args.next().map_or(3, |a| a.parse().expect("rounds"));
    let mut modules = start_all();
    let present = keys("user:", n);
    let absent = keys("absent:", n);
    println!(
        "{n} keys, BF.MADD / BF.MEXISTS of {BATCH} keys, {DEPTH} commands in flight, one redis-server 7.0.15 per module; median of {rounds} interleaved rounds"
    );

    // Throughput at 1%, rounds interleaved across the modules.
    let mut inserts = vec![Vec::new(); modules.len()];
    let mut lookups = vec![Vec::new(); modules.len()];
    for _ in 0..rounds {
        for (index, module) in modules.iter_mut().enumerate() {
            let mut c = module.server.conn();
            c.cmd(&["FLUSHALL"]);
            c.cmd(&["BF.RESERVE", "f", "0.01", &n.to_string()]);
            inserts[index].push(n as f64 / insert(&mut c, "f", &present));
            let (_, present_s) = lookup(&mut c, "f", &present);
            let (_, absent_s) = lookup(&mut c, "f", &absent);
            lookups[index].push((2 * n) as f64 / (present_s + absent_s));
        }
    }
    println!("\n| | {} |", names(&modules).join(" | "));
    println!("|---|{}", "---|".repeat(modules.len()));
    let row = |values: &mut Vec<Vec<f64>>| {
        values
            .iter_mut()
            .map(|v| format!("{:.2}M", median(v) / 1e6))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    println!("| BF.MADD keys/s | {} |", row(&mut inserts));
    println!(
        "| BF.MEXISTS keys/s (present + absent) | {} |",
        row(&mut lookups)
    );

    // False-positive rate and memory at three error rates.
    println!(
        "\n| error rate | module | measured FPR | MEMORY USAGE | used_memory growth | RSS growth |"
    );
    println!("|---|---|---|---|---|---|");
    for rate in ["0.01", "0.001", "0.0001"] {
        for module in &mut modules {
            let mut c = module.server.conn();
            c.cmd(&["FLUSHALL"]);
            std::thread::sleep(Duration::from_millis(200));
            let (used, rss) = (
                info_field(&mut c, "used_memory"),
                info_field(&mut c, "used_memory_rss"),
            );
            c.cmd(&["BF.RESERVE", "f", rate, &n.to_string()]);
            insert(&mut c, "f", &present);
            let (false_positives, _) = lookup(&mut c, "f", &absent);
            let usage = c.cmd(&["MEMORY", "USAGE", "f"]);
            println!(
                "| {rate} | {} | {:.4}% | {} | {} | {} |",
                module.name,
                100.0 * false_positives as f64 / n as f64,
                usage.int(),
                info_field(&mut c, "used_memory") - used,
                info_field(&mut c, "used_memory_rss") - rss,
            );
        }
    }

    // Scaling: reserved for C = n/10 at 1%, then 1, 2, 5 and 10 C items.
    let capacity = n / 10;
    println!(
        "\n| items / capacity ({capacity} at 1%) | module | measured FPR | sub-filters | MEMORY USAGE |"
    );
    println!("|---|---|---|---|---|");
    let probes = keys("probe:", 100_000);
    for module in &mut modules {
        let mut c = module.server.conn();
        c.cmd(&["FLUSHALL"]);
        c.cmd(&["BF.RESERVE", "s", "0.01", &capacity.to_string()]);
        let mut inserted = 0;
        for times in [1, 2, 5, 10] {
            insert(&mut c, "s", &present[inserted..times * capacity]);
            inserted = times * capacity;
            let (false_positives, _) = lookup(&mut c, "s", &probes);
            let filters = match c.cmd(&["BF.INFO", "s", "FILTERS"]) {
                Reply::Array(Some(items)) => items[0].int(),
                reply => reply.int(),
            };
            println!(
                "| {times}x | {} | {:.3}% | {filters} | {} |",
                module.name,
                100.0 * false_positives as f64 / probes.len() as f64,
                c.cmd(&["MEMORY", "USAGE", "s"]).int()
            );
        }
    }

    dumps(&mut modules);
}

/// What another client waits while a 200 MB filter is dumped, and during one `SBF.DUMP` at its
/// bound.
fn dumps(modules: &mut [Module]) {
    println!(
        "\n| dump of a ~200 MB filter | module | filter bytes | chunks | dump time | longest PING wait |"
    );
    println!("|---|---|---|---|---|---|");
    for module in modules.iter_mut().take(2) {
        let mut c = module.server.conn();
        c.cmd(&["FLUSHALL"]);
        c.cmd(&["BF.RESERVE", "big", "0.01", "140000000"]);
        let bytes = c.cmd(&["MEMORY", "USAGE", "big"]).int();
        let (chunks, took, wait) = while_pinging(&module.server, || {
            let mut chunks = 0;
            let mut iter = 0i64;
            loop {
                let reply = c.cmd(&["BF.SCANDUMP", "big", &iter.to_string()]);
                let Reply::Array(Some(pair)) = reply else {
                    panic!("{reply:?}")
                };
                iter = pair[0].int();
                if iter == 0 {
                    return chunks;
                }
                chunks += 1;
            }
        });
        println!(
            "| BF.SCANDUMP loop | {} | {bytes} | {chunks} | {took:.0} ms | {wait:.1} ms |",
            module.name
        );
    }
    // One SBF.DUMP at its bound (32 MiB) and the refusal above it.
    let mut c = modules[0].server.conn();
    c.cmd(&["FLUSHALL"]);
    // About 7.5 MB, under SBF.DUMP's 8 MiB bound.
    c.cmd(&["SBF.RESERVE", "d", "0.01", "6200000", "NONSCALING"]);
    let bytes = c.cmd(&["MEMORY", "USAGE", "d"]).int();
    let (reply_bytes, took, wait) =
        while_pinging(&modules[0].server, || match c.cmd(&["SBF.DUMP", "d"]) {
            Reply::Bulk(Some(bytes)) => bytes.len(),
            other => panic!("{other:?}"),
        });
    println!(
        "| one SBF.DUMP | splitbloom | {bytes} | 1 ({reply_bytes} bytes) | {took:.0} ms | {wait:.1} ms |"
    );
}

fn names(modules: &[Module]) -> Vec<&'static str> {
    modules.iter().map(|module| module.name).collect()
}

/// Runs `work` while another connection sends PING after PING; what `work` returned, its
/// milliseconds, and the longest PING round trip in milliseconds.
pub fn while_pinging<T>(server: &Server, work: impl FnOnce() -> T) -> (T, f64, f64) {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let port = server.port;
    let pinger = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut c = Conn::connect(port).unwrap();
            let mut longest = Duration::ZERO;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let start = Instant::now();
                assert_eq!(c.cmd(&["PING"]), Reply::Status("PONG".into()));
                longest = longest.max(start.elapsed());
                std::thread::sleep(Duration::from_millis(1));
            }
            longest
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    let start = Instant::now();
    let result = work();
    let took = start.elapsed().as_secs_f64() * 1e3;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let longest = pinger.join().unwrap();
    (result, took, longest.as_secs_f64() * 1e3)
}
