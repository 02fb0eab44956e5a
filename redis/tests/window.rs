//! Windowed keys (`SBF.WRESERVE`): the shared commands on them, bad arguments, rotation by the
//! server's clock decided on the primary and replicated as `SBF.WROTATE` (the replica's bytes
//! equal the primary's), and persistence: DEBUG RELOAD, RDB and AOF restarts, COPY, MEMORY
//! USAGE, unknown RDB encoding versions refused.

mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use common::{Conn, Reply, Server, wait_until};

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn ok() -> Reply {
    Reply::Status("OK".into())
}

/// A field of `SBF.INFO key`.
fn info(c: &mut Conn, key: &str, field: &str) -> Reply {
    let reply = c.cmd(&["SBF.INFO", key]);
    let Reply::Array(Some(fields)) = reply else {
        panic!("{reply:?}")
    };
    fields
        .chunks(2)
        .find(|pair| pair[0].text() == field)
        .unwrap_or_else(|| panic!("no {field} in {fields:?}"))[1]
        .clone()
}

fn madd(c: &mut Conn, key: &str, items: &[String]) -> Vec<i64> {
    let mut args = vec!["SBF.MADD".to_string(), key.into()];
    args.extend(items.iter().cloned());
    c.cmd(&args).ints()
}

fn mexists(c: &mut Conn, key: &str, items: &[String]) -> Vec<i64> {
    let mut args = vec!["SBF.MEXISTS".to_string(), key.into()];
    args.extend(items.iter().cloned());
    c.cmd(&args).ints()
}

fn keys(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}:{i}")).collect()
}

#[test]
fn shared_commands_work_on_a_window_and_forced_rotations_forget_the_oldest() {
    let server = Server::start_full("window-commands", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    assert_eq!(
        c.cmd(&[
            "SBF.WRESERVE",
            "w",
            "0.01",
            "1000",
            "GENERATIONS",
            "3",
            "PERIOD",
            "3600"
        ]),
        ok()
    );
    assert_eq!(c.cmd(&["SBF.ADD", "w", "a"]).int(), 1);
    assert_eq!(c.cmd(&["BF.ADD", "w", "a"]).int(), 0);
    let first = keys("first", 500);
    let new_first = madd(&mut c, "w", &first).iter().sum::<i64>();
    assert!(new_first > 490, "{new_first}");
    assert_eq!(c.cmd(&["SBF.WROTATE", "w", "1"]).int(), 1);
    let second = keys("second", 500);
    // New keys, up to false positives.
    let new_second = madd(&mut c, "w", &second).iter().sum::<i64>();
    assert!(new_second > 490, "{new_second}");
    assert_eq!(c.cmd(&["SBF.WROTATE", "w", "1"]).int(), 2);
    // Two rotations after their insertion, with G = 3: still there. No false negatives.
    assert!(mexists(&mut c, "w", &first).iter().all(|&seen| seen == 1));
    assert_eq!(c.cmd(&["BF.EXISTS", "w", "a"]).int(), 1);
    assert_eq!(c.cmd(&["SBF.WROTATE", "w", "1"]).int(), 3);
    // Three: forgotten (up to false positives); the second batch is still in.
    let forgotten = mexists(&mut c, "w", &first).iter().sum::<i64>();
    assert!(forgotten < 25, "{forgotten} of 500 still answer");
    assert!(mexists(&mut c, "w", &second).iter().all(|&seen| seen == 1));
    assert_eq!(c.cmd(&["SBF.CARD", "w"]).int(), 1 + new_first + new_second);

    assert_eq!(info(&mut c, "w", "Type").text(), "window");
    assert_eq!(info(&mut c, "w", "Generations").int(), 3);
    assert_eq!(info(&mut c, "w", "Period").int(), 3600);
    assert_eq!(info(&mut c, "w", "Rotations").int(), 3);
    let next = info(&mut c, "w", "Next rotation").int() as u64;
    assert!(next > now_ms() + 3_000_000 && next <= now_ms() + 3_600_000);
    assert_eq!(c.cmd(&["BF.INFO", "w", "CAPACITY"]).ints(), [1000]);
    assert_eq!(c.cmd(&["BF.INFO", "w", "FILTERS"]).ints(), [3]);
    let reply = c.cmd(&["BF.INFO", "w"]);
    let Reply::Array(Some(fields)) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(fields.len(), 10, "BF.INFO keeps RedisBloom's five fields");
    // INSERT adds to an existing window (its creation options do not apply to it).
    c.cmd(&["BF.INSERT", "w", "CAPACITY", "5", "ITEMS", "z"]);
    assert_eq!(c.cmd(&["BF.EXISTS", "w", "z"]).int(), 1);
    // Rotating G or more times empties it.
    c.cmd(&["SBF.WROTATE", "w", "1000000"]);
    assert!(mexists(&mut c, "w", &second).iter().sum::<i64>() < 25);
    assert_eq!(info(&mut c, "w", "Rotations").int(), 6);
}

#[test]
fn bad_arguments_and_commands_that_do_not_apply_give_clear_errors() {
    let server = Server::start_full("window-errors", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    let wreserve = |c: &mut Conn, tail: &[&str]| {
        let mut args = vec!["SBF.WRESERVE", "w", "0.01", "100"];
        args.extend_from_slice(tail);
        c.cmd(&args)
    };
    for (tail, expect) in [
        (&["GENERATIONS", "0", "PERIOD", "1"][..], "GENERATIONS"),
        (&["GENERATIONS", "65", "PERIOD", "1"], "GENERATIONS"),
        (&["GENERATIONS", "-1", "PERIOD", "1"], "GENERATIONS"),
        (&["GENERATIONS", "2", "PERIOD", "0"], "PERIOD"),
        (
            &["GENERATIONS", "2", "PERIOD", "99999999999999999999"],
            "PERIOD",
        ),
        (&["GENERATIONS", "2", "PERIOD", "1.5"], "PERIOD"),
        (&["GENERATIONS", "2"], "SBF.WRESERVE key"),
        (&["PERIOD", "2"], "SBF.WRESERVE key"),
        (&["GENERATIONS", "2", "PERIOD"], "SBF.WRESERVE key"),
        (
            &["GENERATIONS", "2", "PERIOD", "1", "EXPANSION", "2"],
            "EXPANSION",
        ),
        (
            &["GENERATIONS", "2", "PERIOD", "1", "NONSCALING"],
            "NONSCALING",
        ),
        (
            &["GENERATIONS", "2", "PERIOD", "1", "COLOR", "red"],
            "SBF.WRESERVE key",
        ),
    ] {
        let reply = wreserve(&mut c, tail);
        assert!(reply.error().contains(expect), "{tail:?}: {reply:?}");
    }
    assert!(
        c.cmd(&[
            "SBF.WRESERVE",
            "w",
            "2",
            "100",
            "GENERATIONS",
            "2",
            "PERIOD",
            "1"
        ])
        .error()
        .contains("error rate")
    );
    assert!(
        c.cmd(&[
            "SBF.WRESERVE",
            "w",
            "0.01",
            "0",
            "GENERATIONS",
            "2",
            "PERIOD",
            "1"
        ])
        .error()
        .contains("capacity")
    );
    // A capacity whose filter is far too big is refused before anything is allocated.
    assert!(
        c.cmd(&[
            "SBF.WRESERVE",
            "w",
            "0.01",
            "9000000000000000000",
            "GENERATIONS",
            "64",
            "PERIOD",
            "1"
        ])
        .is_error()
    );
    assert_eq!(c.cmd(&["EXISTS", "w"]).int(), 0);
    assert_eq!(
        wreserve(&mut c, &["GENERATIONS", "2", "PERIOD", "60"]),
        ok()
    );
    assert_eq!(
        wreserve(&mut c, &["GENERATIONS", "2", "PERIOD", "60"]).error(),
        "ERR item exists"
    );
    assert_eq!(
        c.cmd(&["BF.RESERVE", "w", "0.01", "100"]).error(),
        "ERR this command does not apply to a windowed key (SBF.WRESERVE): DUMP/RESTORE, COPY and SBF.WLOAD carry one"
    );
    for args in [
        &["BF.SCANDUMP", "w", "0"][..],
        &["SBF.DUMP", "w"],
        &["SBF.MERGE", "m", "w"],
        &["BF.LOADCHUNK", "w", "1", "x"],
    ] {
        let reply = c.cmd(args);
        assert!(
            reply.error().contains("does not apply to a windowed key"),
            "{args:?}: {reply:?}"
        );
    }
    c.cmd(&["SET", "s", "x"]);
    assert!(
        wreserve(&mut c, &["GENERATIONS", "2", "PERIOD", "60"])
            .error()
            .starts_with("ERR item exists")
    );
    assert!(
        c.cmd(&[
            "SBF.WRESERVE",
            "s",
            "0.01",
            "10",
            "GENERATIONS",
            "2",
            "PERIOD",
            "1"
        ])
        .error()
        .starts_with("WRONGTYPE")
    );
    assert!(
        c.cmd(&["SBF.WROTATE", "s", "1"])
            .error()
            .starts_with("WRONGTYPE")
    );
    assert_eq!(
        c.cmd(&["SBF.WROTATE", "nope", "1"]).error(),
        "ERR not found"
    );
    assert!(c.cmd(&["SBF.WROTATE", "w", "-1"]).is_error());
    assert!(c.cmd(&["SBF.WROTATE", "w", "1", "soon"]).is_error());
    assert!(
        c.cmd(&["SBF.WLOAD", "v", "garbage"])
            .error()
            .contains("windowed")
    );
    let bytes = c.cmd(&["SBF.WDUMP", "w"]).bytes();
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    assert!(c.cmd(&[b"SBF.WLOAD".as_slice(), b"v", &flipped]).is_error());
    assert_eq!(c.cmd(&[b"SBF.WLOAD".as_slice(), b"v", &bytes]), ok());
    assert_eq!(c.cmd(&["SBF.WDUMP", "v"]).bytes(), bytes);
}

#[test]
fn the_server_clock_rotates_a_window_before_a_command_touches_it() {
    let server = Server::start("window-clock");
    let mut c = server.conn();
    c.cmd(&[
        "SBF.WRESERVE",
        "w",
        "0.01",
        "100",
        "GENERATIONS",
        "2",
        "PERIOD",
        "1",
    ]);
    c.cmd(&["SBF.ADD", "w", "old"]);
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // Two or three periods have passed: G = 2, so the key is forgotten at the first read.
    assert_eq!(c.cmd(&["SBF.EXISTS", "w", "old"]).int(), 0);
    let rotations = info(&mut c, "w", "Rotations").int();
    assert!((2..=3).contains(&rotations), "{rotations}");
    let next = info(&mut c, "w", "Next rotation").int() as u64;
    assert!(
        next > now_ms().saturating_sub(100) && next <= now_ms() + 1000,
        "{next}"
    );

    // A deadline moved into the past stands for elapsed time without sleeping: 5 periods of
    // 1 s have passed 4.5 s after a deadline, and rotations are capped at G for the bits.
    c.cmd(&["SBF.ADD", "w", "x"]);
    let past = (now_ms() - 4500).to_string();
    c.cmd(&["SBF.WROTATE", "w", "0", &past]);
    assert_eq!(c.cmd(&["SBF.ADD", "w", "y"]).int(), 1);
    assert_eq!(c.cmd(&["SBF.EXISTS", "w", "x"]).int(), 0);
    assert_eq!(info(&mut c, "w", "Rotations").int(), rotations + 2);
    let next = info(&mut c, "w", "Next rotation").int() as u64;
    assert_eq!(next, past.parse::<u64>().unwrap() + 5000);
}

/// Every window's value bytes, INFO and a few answers, in order.
fn state(c: &mut Conn, names: &[&str]) -> Vec<Reply> {
    let mut state = Vec::new();
    for key in names {
        state.push(c.cmd(&["DUMP", key]));
        state.push(c.cmd(&["SBF.WDUMP", key]));
        state.push(c.cmd(&["SBF.INFO", key]));
        state.push(c.cmd(&["SBF.MEXISTS", key, "k:1", "k:499", "fresh", "none"]));
    }
    state.push(c.cmd(&["DBSIZE"]));
    state
}

/// Windows with rotations behind them, and one filled after the last.
fn populate(c: &mut Conn) {
    c.cmd(&[
        "SBF.WRESERVE",
        "w1",
        "0.01",
        "1000",
        "GENERATIONS",
        "4",
        "PERIOD",
        "600",
    ]);
    madd(c, "w1", &keys("k", 500));
    c.cmd(&["SBF.WROTATE", "w1", "2"]);
    c.cmd(&["SBF.ADD", "w1", "fresh"]);
    c.cmd(&[
        "SBF.WRESERVE",
        "w2",
        "0.001",
        "20000",
        "GENERATIONS",
        "8",
        "PERIOD",
        "86400",
    ]);
    madd(c, "w2", &keys("k", 20_000));
}

#[test]
fn a_replica_holds_the_primarys_bytes_and_never_rotates_on_its_own() {
    let primary = Server::start("window-primary");
    let mut p = primary.conn();
    populate(&mut p);
    let replica = Server::start_with(
        "window-replica",
        &["--replicaof", "127.0.0.1", &primary.port.to_string()],
    );
    let mut r = replica.conn();
    wait_until("the initial sync", || {
        r.info("replication", "master_link_status") == "up"
    });
    // Through the command stream: a window created and rotated after the sync, by command
    // and by the clock (a deadline in the past).
    p.cmd(&[
        "SBF.WRESERVE",
        "w3",
        "0.01",
        "500",
        "GENERATIONS",
        "3",
        "PERIOD",
        "600",
    ]);
    madd(&mut p, "w3", &keys("k", 500));
    p.cmd(&["SBF.WROTATE", "w3", "1"]);
    p.cmd(&["SBF.ADD", "w3", "fresh"]);
    let past = (now_ms() - 1500).to_string();
    p.cmd(&["SBF.WROTATE", "w1", "0", &past]);
    assert_eq!(p.cmd(&["WAIT", "1", "10000"]).int(), 1);
    // The deadline passed, but a replica's read does not rotate.
    let rotations = info(&mut r, "w1", "Rotations").int();
    assert_eq!(r.cmd(&["SBF.EXISTS", "w1", "k:1"]).int(), 1);
    assert_eq!(info(&mut r, "w1", "Rotations").int(), rotations);
    // The primary's read does (1.5 s past the deadline of a 600 s period: one rotation), and
    // the replica follows.
    assert_eq!(p.cmd(&["SBF.EXISTS", "w1", "k:1"]).int(), 1);
    assert_eq!(info(&mut p, "w1", "Rotations").int(), rotations + 1);
    assert_eq!(p.cmd(&["WAIT", "1", "10000"]).int(), 1);
    assert_eq!(info(&mut r, "w1", "Rotations").int(), rotations + 1);
    let names = ["w1", "w2", "w3"];
    assert_eq!(state(&mut r, &names), state(&mut p, &names));
    assert_eq!(p.cmd(&["COPY", "w2", "w4"]).int(), 1);
    assert_eq!(p.cmd(&["WAIT", "1", "10000"]).int(), 1);
    assert_eq!(r.cmd(&["DUMP", "w4"]), p.cmd(&["DUMP", "w2"]));
    assert!(
        r.cmd(&["SBF.WROTATE", "w1", "1"])
            .error()
            .starts_with("READONLY")
    );
}

#[test]
fn debug_reload_rdb_and_aof_keep_windows_bit_identical() {
    let names = ["w1", "w2"];
    let server = Server::start("window-rdb");
    let mut c = server.conn();
    populate(&mut c);
    let before = state(&mut c, &names);
    assert_eq!(c.cmd(&["DEBUG", "RELOAD"]), ok());
    assert_eq!(state(&mut c, &names), before, "DEBUG RELOAD");
    assert_eq!(c.cmd(&["SAVE"]), ok());
    let server = server.restart();
    let mut c = server.conn();
    assert_eq!(state(&mut c, &names), before, "RDB restart");

    let server = Server::start_with(
        "window-aof",
        &["--appendonly", "yes", "--aof-use-rdb-preamble", "no"],
    );
    let mut c = server.conn();
    populate(&mut c);
    assert!(c.cmd(&["BGREWRITEAOF"]).text().contains("rewriting"));
    wait_until("the AOF rewrite", || {
        c.info("persistence", "aof_rewrite_in_progress") == "0"
            && c.info("persistence", "aof_rewrite_scheduled") == "0"
            && c.info("persistence", "aof_last_bgrewrite_status") == "ok"
    });
    // After the rewrite: appended as commands, a clock rotation among them.
    let past = (now_ms() - 1000).to_string();
    c.cmd(&["SBF.WROTATE", "w1", "0", &past]);
    c.cmd(&["SBF.ADD", "w1", "after-rewrite"]);
    let before = state(&mut c, &names);
    let aof = std::fs::read_dir(server.dir.join("appendonlydir"))
        .unwrap()
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .collect::<Vec<_>>();
    assert!(
        aof.iter()
            .any(|bytes| bytes.windows(9).any(|w| w == b"SBF.WLOAD"))
    );
    let server = server.restart();
    let mut c = server.conn();
    assert_eq!(state(&mut c, &names), before, "AOF restart");
}

#[test]
fn copy_and_memory_usage_and_unknown_encodings() {
    let mut server = Server::start("window-copy");
    let mut c = server.conn();
    c.cmd(&[
        "SBF.WRESERVE",
        "w",
        "0.01",
        "100000",
        "GENERATIONS",
        "4",
        "PERIOD",
        "60",
    ]);
    c.cmd(&["SBF.ADD", "w", "a"]);
    assert_eq!(c.cmd(&["COPY", "w", "c"]).int(), 1);
    c.cmd(&["SBF.ADD", "w", "b"]);
    assert_eq!(c.cmd(&["SBF.MEXISTS", "c", "a", "b"]).ints(), [1, 0]);
    let bytes = info(&mut c, "w", "Bytes").int();
    let blocks = splitbloom::WindowFilter::with_fpr(100_000, 0.01, 4)
        .unwrap()
        .size_in_bytes() as i64;
    assert_eq!(bytes, blocks);
    let usage = c.cmd(&["MEMORY", "USAGE", "w"]).int();
    assert!((bytes..bytes + 4096).contains(&usage), "{usage} {bytes}");
    assert!(c.cmd(&["SBF.INFO", "w", "SIZE"]).ints()[0] <= usage);

    let payload = c.cmd(&["DUMP", "w"]).bytes();
    assert_eq!(&payload[..2], [7, 0x81]);
    let id = u64::from_be_bytes(payload[2..10].try_into().unwrap());
    assert_eq!(id & 0x3ff, 1, "windowed encoding version 1");
    assert_eq!(c.cmd(&[b"RESTORE".as_slice(), b"r", b"0", &payload]), ok());
    assert_eq!(c.cmd(&["SBF.WDUMP", "r"]), c.cmd(&["SBF.WDUMP", "w"]));
    let mut bad = payload.clone();
    bad[2..10].copy_from_slice(&((id & !0x3ff) | 2).to_be_bytes());
    let body = bad.len() - 8;
    let crc = crc64(&bad[..body]);
    bad[body..].copy_from_slice(&crc.to_le_bytes());
    assert!(
        c.cmd(&[b"RESTORE".as_slice(), b"bad", b"0", &bad])
            .is_error()
    );
    assert!(server.alive());
    assert!(
        server
            .log()
            .contains("refusing windowed-key RDB encoding version 2")
    );
}

/// CRC-64/Jones as Redis computes it for DUMP payloads.
fn crc64(bytes: &[u8]) -> u64 {
    let mut crc = 0u64;
    for &byte in bytes {
        crc ^= u64::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x95ac_9329_ac4b_c9b5
            } else {
                crc >> 1
            };
        }
    }
    crc
}
