//! What a team that runs RedisBloom relies on: filters that scale as RedisBloom's do,
//! NONSCALING filters that fill up, the `BF.*` names behind `BF_COMMANDS yes`, chunked
//! SCANDUMP/LOADCHUNK restores, COPY, and filter memory that `maxmemory` sees.

mod common;

use std::process::Command;

use common::{Conn, Reply, Server, peers_dir, scratch_dir};

fn ok(reply: Reply) {
    assert_eq!(reply, Reply::Status("OK".into()));
}

/// A server with RedisBloom's names.
fn bf_server(tag: &str, extra: &[&str]) -> Server {
    Server::start_full(tag, extra, &["BF_COMMANDS", "yes"], None)
}

/// `INFO`'s reply as (field, value) pairs.
fn info(c: &mut Conn, command: &str, key: &str) -> Vec<(String, Reply)> {
    match c.cmd(&[command, key]) {
        Reply::Array(Some(items)) => items
            .chunks(2)
            .map(|pair| (pair[0].text(), pair[1].clone()))
            .collect(),
        other => panic!("{command} {key}: {other:?}"),
    }
}

fn field(info: &[(String, Reply)], name: &str) -> Reply {
    info.iter()
        .find(|(field, _)| field == name)
        .unwrap_or_else(|| panic!("no {name} in {info:?}"))
        .1
        .clone()
}

/// `MADD`s `keys` in commands of 1,000; the answers, in order.
fn madd(c: &mut Conn, key: &str, keys: impl Iterator<Item = String>) -> Vec<i64> {
    let keys: Vec<String> = keys.collect();
    let mut answers = Vec::new();
    for batch in keys.chunks(1000) {
        let mut args = vec!["BF.MADD".to_string(), key.to_string()];
        args.extend(batch.iter().cloned());
        answers.extend(c.cmd(&args).ints());
    }
    answers
}

/// The share of `keys` the filter answers present.
fn share_present(c: &mut Conn, key: &str, keys: impl Iterator<Item = String>) -> f64 {
    let keys: Vec<String> = keys.collect();
    let mut present = 0;
    for batch in keys.chunks(1000) {
        let mut args = vec!["BF.MEXISTS".to_string(), key.to_string()];
        args.extend(batch.iter().cloned());
        present += c.cmd(&args).ints().iter().sum::<i64>();
    }
    present as f64 / keys.len() as f64
}

#[test]
fn filters_scale_as_redisbloom_documents() {
    let server = bf_server("scale", &[]);
    let mut c = server.conn();

    // Auto-created by ADD (capacity 100, 1%), then 1,500 items: four sub-filters of 100, 200,
    // 400 and 800 (RedisBloom answers "maybe" for 0.8% of absent items here).
    assert_eq!(c.cmd(&["BF.ADD", "auto", "item:0"]).int(), 1);
    madd(&mut c, "auto", (1..1500).map(|i| format!("item:{i}")));
    let auto = info(&mut c, "BF.INFO", "auto");
    assert_eq!(field(&auto, "Number of filters"), Reply::Int(4), "{auto:?}");
    assert_eq!(field(&auto, "Capacity"), Reply::Int(1500));
    assert_eq!(field(&auto, "Expansion rate"), Reply::Int(2));
    let fpr = share_present(&mut c, "auto", (0..20_000).map(|i| format!("absent:{i}")));
    assert!(fpr < 0.015, "auto-created filter at 15x capacity: {fpr}");
    assert_eq!(
        share_present(&mut c, "auto", (0..1500).map(|i| format!("item:{i}"))),
        1.0
    );

    // Reserved for 10^5, receives 10^6: 100k + 200k + 400k + 800k (RedisBloom: 0.87%).
    ok(c.cmd(&["BF.RESERVE", "big", "0.01", "100000"]));
    let new = madd(&mut c, "big", (0..1_000_000).map(|i| format!("user:{i}")));
    let added = new.iter().sum::<i64>();
    assert!(added > 990_000, "{added}");
    assert_eq!(c.cmd(&["BF.CARD", "big"]).int(), added);
    assert_eq!(c.cmd(&["BF.INFO", "big", "FILTERS"]).ints(), [4]);
    let fpr = share_present(&mut c, "big", (0..100_000).map(|i| format!("other:{i}")));
    assert!(fpr < 0.015, "reserved for 10^5, holds 10^6: {fpr}");
    assert_eq!(
        share_present(
            &mut c,
            "big",
            (0..1_000_000).step_by(97).map(|i| format!("user:{i}"))
        ),
        1.0,
        "no false negatives across sub-filters"
    );

    // EXPANSION 3: 10, 30, 90.
    ok(c.cmd(&["BF.RESERVE", "e3", "0.01", "10", "EXPANSION", "3"]));
    madd(&mut c, "e3", (0..100).map(|i| format!("e:{i}")));
    assert_eq!(c.cmd(&["BF.INFO", "e3", "EXPANSION"]).ints(), [3]);
    assert_eq!(c.cmd(&["BF.INFO", "e3", "FILTERS"]).ints(), [3]);
    assert_eq!(c.cmd(&["BF.INFO", "e3", "CAPACITY"]).ints(), [130]);
    // INSERT takes EXPANSION too.
    c.cmd(&[
        "BF.INSERT",
        "i4",
        "CAPACITY",
        "5",
        "EXPANSION",
        "4",
        "ITEMS",
        "a",
    ]);
    assert_eq!(c.cmd(&["BF.INFO", "i4", "EXPANSION"]).ints(), [4]);

    // The first sub-filter has half the error rate, as RedisBloom's.
    ok(c.cmd(&["BF.RESERVE", "fresh", "0.01", "100000"]));
    let bytes = field(&info(&mut c, "SBF.INFO", "fresh"), "Bytes").int();
    let half = splitbloom::math::num_blocks_for_fpr(100_000, 0.005).unwrap() as i64 * 32;
    assert!(
        (half * 99 / 100..=half * 101 / 100).contains(&bytes),
        "{bytes} {half}"
    );
}

#[test]
fn nonscaling_filters_fill_up_as_redisbloom_s() {
    let server = bf_server("nonscaling", &[]);
    let mut c = server.conn();
    ok(c.cmd(&["BF.RESERVE", "ns", "0.01", "3", "NONSCALING"]));
    assert_eq!(c.cmd(&["BF.MADD", "ns", "a", "b", "c"]).ints(), [1, 1, 1]);
    assert_eq!(
        c.cmd(&["BF.ADD", "ns", "d"]).error(),
        "ERR non scaling filter is full"
    );
    // Present items still answer 0, as RedisBloom's; a batch stops at the first that cannot go in.
    assert_eq!(c.cmd(&["BF.ADD", "ns", "a"]).int(), 0);
    assert_eq!(
        c.cmd(&["BF.INSERT", "ns", "ITEMS", "a", "b", "x", "y"]),
        Reply::Array(Some(vec![
            Reply::Int(0),
            Reply::Int(0),
            Reply::Error("ERR non scaling filter is full".into())
        ]))
    );
    assert_eq!(c.cmd(&["BF.CARD", "ns"]).int(), 3);
    let ns = info(&mut c, "BF.INFO", "ns");
    assert_eq!(field(&ns, "Expansion rate"), Reply::Bulk(None));
    assert_eq!(field(&ns, "Number of filters"), Reply::Int(1));
    assert_eq!(field(&ns, "Capacity"), Reply::Int(3));
    assert_eq!(
        c.cmd(&[
            "BF.INSERT",
            "n2",
            "CAPACITY",
            "2",
            "NONSCALING",
            "ITEMS",
            "p",
            "q",
            "r"
        ]),
        Reply::Array(Some(vec![
            Reply::Int(1),
            Reply::Int(1),
            Reply::Error("ERR non scaling filter is full".into())
        ]))
    );
    assert_eq!(
        c.cmd(&[
            "BF.RESERVE",
            "x",
            "0.01",
            "10",
            "NONSCALING",
            "EXPANSION",
            "2"
        ])
        .error(),
        "Nonscaling filters cannot expand"
    );
    // A NONSCALING filter has the full error rate in one filter: smaller than a scaling one.
    ok(c.cmd(&["BF.RESERVE", "fixed", "0.001", "1000", "NONSCALING"]));
    ok(c.cmd(&["BF.RESERVE", "scaling", "0.001", "1000"]));
    let size = |c: &mut Conn, key| c.cmd(&["BF.INFO", key, "SIZE"]).ints()[0];
    assert!(size(&mut c, "fixed") < size(&mut c, "scaling"));
    // Persisted and restored as it was.
    assert_eq!(c.cmd(&["DEBUG", "RELOAD"]), Reply::Status("OK".into()));
    assert_eq!(
        c.cmd(&["BF.ADD", "ns", "z"]).error(),
        "ERR non scaling filter is full"
    );
    assert_eq!(
        c.cmd(&["BF.INFO", "ns"]),
        Reply::Array(Some(
            ns.into_iter()
                .flat_map(|(k, v)| [Reply::Status(k), v])
                .collect()
        ))
    );
}

#[test]
fn module_arguments_change_the_defaults_and_bad_ones_refuse_to_load() {
    let server = Server::start_full(
        "args",
        &[],
        &["ERROR_RATE", "0.001", "INITIAL_SIZE", "500"],
        None,
    );
    let mut c = server.conn();
    assert_eq!(c.cmd(&["SBF.ADD", "k", "x"]).int(), 1);
    assert_eq!(c.cmd(&["SBF.INFO", "k", "CAPACITY"]).ints(), [500]);
    assert_eq!(
        field(&info(&mut c, "SBF.INFO", "k"), "Error rate").text(),
        "0.001"
    );
    // Without BF_COMMANDS yes, only SBF.* exists.
    assert!(
        c.cmd(&["BF.ADD", "k", "x"])
            .error()
            .contains("unknown command")
    );

    for args in [
        &["ERROR_RATE", "1"][..],
        &["INITIAL_SIZE", "0"][..],
        &["BF_COMMANDS", "maybe"][..],
        &["MAX_FILTER_BYTES", "lots"][..],
        &["BOGUS", "1"][..],
        &["ERROR_RATE"][..],
    ] {
        let (status, log) = run_server_once(&[(common::module_path().to_str().unwrap(), args)]);
        assert!(!status, "{args:?} loaded");
        assert!(log.contains("splitbloom: "), "{args:?}: {log}");
    }
}

/// Starts `redis-server` with `modules` (path, arguments) and no port; whether it came up,
/// and its log. It is stopped at once either way.
fn run_server_once(modules: &[(&str, &[&str])]) -> (bool, String) {
    let dir = scratch_dir("once");
    let log = dir.join("redis.log");
    let mut command = Command::new(common::server_binary());
    command
        .args([
            "--port",
            &common::free_port().to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .args(["--save", "", "--daemonize", "no"])
        .arg("--dir")
        .arg(&dir)
        .arg("--logfile")
        .arg(&log);
    for (module, args) in modules {
        command.arg("--loadmodule").arg(module).args(*args);
    }
    let mut child = command.spawn().expect("redis-server is installed");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut up = false;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("Ready to accept connections") {
            up = true;
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "redis-server hangs:\n{text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (up, text)
}

#[test]
fn bf_commands_refuse_to_shadow_a_loaded_redisbloom() {
    let Some(peers) = peers_dir() else {
        eprintln!("SKIPPED: no ../shared/peers/redis/ (set SPLITBLOOM_PEERS_DIR)");
        return;
    };
    let redisbloom = peers.join("redisbloom-2.4.23.so");
    let ours = common::module_path();
    let (up, log) = run_server_once(&[
        (redisbloom.to_str().unwrap(), &[]),
        (ours.to_str().unwrap(), &["BF_COMMANDS", "yes"]),
    ]);
    assert!(!up, "splitbloom with BF_COMMANDS loaded beside RedisBloom");
    assert!(
        log.contains("cannot register bf.reserve") && log.contains("RedisBloom"),
        "{log}"
    );
    // Without BF_COMMANDS the two sit side by side: the module's name is not `bf`.
    let server = Server::start_module(
        "beside",
        &redisbloom,
        &["--loadmodule", ours.to_str().unwrap()],
        &[],
    );
    let mut c = server.conn();
    assert_eq!(c.cmd(&["BF.ADD", "rb", "x"]).int(), 1);
    assert_eq!(c.cmd(&["SBF.ADD", "sb", "x"]).int(), 1);
    assert_eq!(c.cmd(&["TYPE", "rb"]).text(), "MBbloom--");
    assert_eq!(c.cmd(&["TYPE", "sb"]).text(), "SBFfilter");
    let Reply::Array(Some(modules)) = c.cmd(&["MODULE", "LIST"]) else {
        panic!("MODULE LIST")
    };
    let names: Vec<String> = modules
        .iter()
        .map(|module| match module {
            Reply::Array(Some(fields)) => fields[1].text(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(
        names.contains(&"splitbloom".to_string()) && names.contains(&"bf".to_string()),
        "{names:?}"
    );
}

/// Every `[iterator, chunk]` pair of `SCANDUMP`, header first.
fn scandump(c: &mut Conn, command: &str, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut chunks = Vec::new();
    let mut iter = 0;
    loop {
        let reply = c.cmd(&[command, key, &iter.to_string()]);
        let Reply::Array(Some(pair)) = reply else {
            panic!("SCANDUMP {key} {iter}: {reply:?}")
        };
        iter = pair[0].int();
        if iter == 0 {
            assert_eq!(pair[1], Reply::Bulk(Some(Vec::new())));
            return chunks;
        }
        chunks.push((iter, pair[1].bytes()));
    }
}

fn loadchunk(c: &mut Conn, key: &str, iter: i64, bytes: &[u8]) -> Reply {
    c.cmd(&[
        b"BF.LOADCHUNK".as_slice(),
        key.as_bytes(),
        iter.to_string().as_bytes(),
        bytes,
    ])
}

#[test]
fn scandump_and_loadchunk_restore_bit_identically() {
    let server = bf_server("chunks", &[]);
    let mut c = server.conn();
    // A scaling filter with four sub-filters, a NONSCALING one, and one above 16 MiB.
    madd(&mut c, "scaling", (0..1500).map(|i| format!("s:{i}")));
    ok(c.cmd(&["BF.RESERVE", "fixed", "0.001", "1000", "NONSCALING"]));
    madd(&mut c, "fixed", (0..500).map(|i| format!("f:{i}")));
    ok(c.cmd(&["BF.RESERVE", "large", "0.01", "12000000"]));
    madd(&mut c, "large", (0..20_000).map(|i| format!("l:{i}")));
    assert!(c.cmd(&["BF.INFO", "large", "SIZE"]).ints()[0] > 16 << 20);

    for key in ["scaling", "fixed", "large"] {
        let chunks = scandump(&mut c, "BF.SCANDUMP", key);
        assert!(chunks.len() >= 2, "{key}: header and data");
        assert!(
            chunks.iter().all(|(_, bytes)| bytes.len() <= 16 << 20),
            "{key}: chunks of 16 MiB at most"
        );
        let before = (c.cmd(&["BF.INFO", key]), c.cmd(&["SBF.INFO", key]));
        let copy = format!("{key}-copy");
        for (iter, bytes) in &chunks {
            ok(loadchunk(&mut c, &copy, *iter, bytes));
        }
        assert_eq!(
            scandump(&mut c, "BF.SCANDUMP", &copy),
            chunks,
            "{key}: bit-identical"
        );
        let after = (c.cmd(&["BF.INFO", &copy]), c.cmd(&["SBF.INFO", &copy]));
        assert_eq!(after, before, "{key}");
    }
    assert!(
        scandump(&mut c, "BF.SCANDUMP", "large").len() > 2,
        "large is chunked"
    );
    // One SBF.DUMP reply is bounded; the error points to the chunked dump.
    assert!(
        c.cmd(&["SBF.DUMP", "large"])
            .error()
            .contains("use SBF.SCANDUMP")
    );

    // A restore in progress: answers nothing yet, takes no items, survives a reload, and
    // refuses chunks out of order or corrupted (which can then be sent again).
    let chunks = scandump(&mut c, "BF.SCANDUMP", "scaling");
    ok(loadchunk(&mut c, "r", chunks[0].0, &chunks[0].1));
    assert_eq!(c.cmd(&["BF.EXISTS", "r", "s:1"]).int(), 0);
    assert!(
        c.cmd(&["BF.ADD", "r", "x"])
            .error()
            .contains("being restored")
    );
    assert_eq!(
        loadchunk(&mut c, "r", chunks[2].0, &chunks[2].1).error(),
        "ERR invalid offset - no link found"
    );
    let mut corrupt = chunks[1].1.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1;
    assert_eq!(
        loadchunk(&mut c, "r", chunks[1].0, &corrupt).error(),
        "ERR received bad data"
    );
    ok(loadchunk(&mut c, "r", chunks[1].0, &chunks[1].1));
    assert_eq!(c.cmd(&["DEBUG", "RELOAD"]), Reply::Status("OK".into()));
    for (iter, bytes) in &chunks[2..] {
        ok(loadchunk(&mut c, "r", *iter, bytes));
    }
    assert_eq!(scandump(&mut c, "BF.SCANDUMP", "r"), chunks);
    assert_eq!(c.cmd(&["BF.EXISTS", "r", "s:1"]).int(), 1);
    // A chunk for a complete filter, a bad header, and iterators past the end.
    assert_eq!(
        loadchunk(&mut c, "r", chunks[1].0, &chunks[1].1).error(),
        "ERR invalid offset - no link found"
    );
    let mut header = chunks[0].1.clone();
    header[12] ^= 0xff;
    assert_eq!(
        loadchunk(&mut c, "bad", 1, &header).error(),
        "ERR received bad data"
    );
    assert_eq!(c.cmd(&["EXISTS", "bad"]).int(), 0);
    for iter in ["999999999", "-5"] {
        assert_eq!(
            c.cmd(&["BF.SCANDUMP", "r", iter]),
            Reply::Array(Some(vec![Reply::Int(0), Reply::Bulk(Some(Vec::new()))]))
        );
    }
    // SBF.* names: the same stream.
    assert_eq!(scandump(&mut c, "SBF.SCANDUMP", "r"), chunks);
}

#[test]
fn copy_makes_an_independent_filter() {
    let server = bf_server("copy", &[]);
    let mut c = server.conn();
    madd(&mut c, "a", (0..300).map(|i| format!("a:{i}")));
    assert_eq!(c.cmd(&["COPY", "a", "b"]).int(), 1);
    assert_eq!(
        scandump(&mut c, "BF.SCANDUMP", "b"),
        scandump(&mut c, "BF.SCANDUMP", "a")
    );
    assert_eq!(c.cmd(&["BF.INFO", "b"]), c.cmd(&["BF.INFO", "a"]));
    madd(&mut c, "b", (0..1000).map(|i| format!("b:{i}")));
    assert_eq!(c.cmd(&["BF.CARD", "a"]).int(), 300);
    assert_ne!(
        scandump(&mut c, "BF.SCANDUMP", "b"),
        scandump(&mut c, "BF.SCANDUMP", "a")
    );
    assert_eq!(c.cmd(&["COPY", "a", "b"]).int(), 0, "b exists");
    assert_eq!(c.cmd(&["COPY", "a", "b", "REPLACE"]).int(), 1);
    assert_eq!(c.cmd(&["BF.CARD", "b"]).int(), 300);
}

fn used_memory(c: &mut Conn) -> i64 {
    c.cmd(&["INFO", "memory"])
        .text()
        .lines()
        .find_map(|line| line.strip_prefix("used_memory:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn maxmemory_sees_filters_refuses_what_cannot_fit_and_evicts() {
    // noeviction: each 10^7-item filter (about 15 MB) counts in used_memory; the one that
    // cannot fit under 64 MB is refused with an OOM error.
    let server = bf_server(
        "noeviction",
        &["--maxmemory", "64mb", "--maxmemory-policy", "noeviction"],
    );
    let mut c = server.conn();
    let base = used_memory(&mut c);
    ok(c.cmd(&["BF.RESERVE", "f0", "0.01", "10000000"]));
    let size = c.cmd(&["MEMORY", "USAGE", "f0"]).int();
    let grown = used_memory(&mut c) - base;
    // MEMORY USAGE counts the module's allocations; the allocator's size classes add the rest.
    assert!(
        grown >= size && grown < size + size / 4,
        "used_memory grew {grown} for {size}"
    );
    let size = grown;
    let mut accepted = 1;
    let refusal = loop {
        let reply = c.cmd(&["BF.RESERVE", &format!("f{accepted}"), "0.01", "10000000"]);
        if reply.is_error() {
            break reply.error().to_owned();
        }
        accepted += 1;
        assert!(
            accepted < 10,
            "64 MB took {accepted} filters of {size} bytes"
        );
    };
    assert!(refusal.starts_with("OOM"), "{refusal}");
    assert!(accepted >= (64 << 20) / size - 1, "{accepted} {refusal}");
    // Auto-creation and new sub-filters are refused too; small writes still work.
    assert!(
        c.cmd(&["BF.INSERT", "auto", "CAPACITY", "10000000", "ITEMS", "x"])
            .is_error()
    );
    assert_eq!(c.cmd(&["BF.ADD", "f0", "x"]).int(), 1);
    assert_eq!(c.cmd(&["DEL", "f0"]).int(), 1);
    assert!(used_memory(&mut c) < used_memory_at_most(base, accepted - 1, size));
    ok(c.cmd(&["BF.RESERVE", "again", "0.01", "10000000"]));

    // allkeys-lru: the same filters are accepted, and the oldest evicted to make room.
    let server = bf_server(
        "lru",
        &["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"],
    );
    let mut c = server.conn();
    for i in 0..10 {
        ok(c.cmd(&["BF.RESERVE", &format!("f{i}"), "0.01", "10000000"]));
    }
    c.cmd(&["PING"]);
    let keys = c.cmd(&["DBSIZE"]).int();
    assert!(keys < 10, "{keys} filters of {size} bytes under 64 MB");
    assert!(used_memory(&mut c) < (64 << 20) + size + (1 << 20));
    assert_eq!(c.cmd(&["EXISTS", "f9"]).int(), 1, "the newest stays");
}

fn used_memory_at_most(base: i64, filters: i64, size: i64) -> i64 {
    base + filters * size + (2 << 20)
}
