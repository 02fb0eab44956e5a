//! The SBF.* commands against a real `redis-server` with the module loaded: replies, the crate's
//! byte format through DUMP/LOAD, MERGE, and every kind of bad input (an error reply, the server
//! still up, no key changed).

mod common;

use common::{Conn, ModuleHasher, Reply, Server};
use splitbloom::{FilterHasher, ScalableFilter};

fn ok(reply: Reply) {
    assert_eq!(reply, Reply::Status("OK".into()));
}

/// The INFO reply as (field, value) pairs.
fn info(conn: &mut Conn, key: &str) -> Vec<(String, Reply)> {
    match conn.cmd(&["SBF.INFO", key]) {
        Reply::Array(Some(items)) => items
            .chunks(2)
            .map(|pair| (pair[0].text(), pair[1].clone()))
            .collect(),
        other => panic!("INFO: {other:?}"),
    }
}

fn field(info: &[(String, Reply)], name: &str) -> Reply {
    info.iter()
        .find(|(field, _)| field == name)
        .unwrap_or_else(|| panic!("no {name} in {info:?}"))
        .1
        .clone()
}

#[test]
fn commands_mirror_redisbloom_replies() {
    let server = Server::start("commands");
    let mut c = server.conn();

    ok(c.cmd(&["SBF.RESERVE", "f", "0.01", "1000"]));
    assert_eq!(
        c.cmd(&["SBF.RESERVE", "f", "0.01", "1000"]).error(),
        "ERR item exists"
    );
    assert_eq!(c.cmd(&["SBF.ADD", "f", "apple"]).int(), 1);
    assert_eq!(c.cmd(&["SBF.ADD", "f", "apple"]).int(), 0);
    // A duplicate inside one MADD is new only the first time, as with one ADD after another.
    assert_eq!(
        c.cmd(&["SBF.MADD", "f", "pear", "apple", "kiwi", "pear"])
            .ints(),
        [1, 0, 1, 0]
    );
    assert_eq!(c.cmd(&["SBF.EXISTS", "f", "kiwi"]).int(), 1);
    assert_eq!(c.cmd(&["SBF.EXISTS", "f", "plum"]).int(), 0);
    assert_eq!(
        c.cmd(&["SBF.MEXISTS", "f", "apple", "plum", "pear"]).ints(),
        [1, 0, 1]
    );
    assert_eq!(c.cmd(&["SBF.CARD", "f"]).int(), 3);
    // Missing keys read as empty, like BF.EXISTS/BF.CARD.
    assert_eq!(c.cmd(&["SBF.EXISTS", "nokey", "apple"]).int(), 0);
    assert_eq!(c.cmd(&["SBF.MEXISTS", "nokey", "a", "b"]).ints(), [0, 0]);
    assert_eq!(c.cmd(&["SBF.CARD", "nokey"]).int(), 0);
    assert_eq!(c.cmd(&["SBF.INFO", "nokey"]).error(), "ERR not found");

    let info = info(&mut c, "f");
    assert_eq!(field(&info, "Capacity"), Reply::Int(1000));
    assert_eq!(field(&info, "Number of filters"), Reply::Int(1));
    assert_eq!(field(&info, "Number of items inserted"), Reply::Int(3));
    let blocks = field(&info, "Blocks").int();
    assert_eq!(field(&info, "Bytes").int(), blocks * 32);
    assert_eq!(
        field(&info, "Hasher").text(),
        format!("{:?}", ModuleHasher::KIND)
    );
    assert_eq!(field(&info, "Estimated items").int(), 3);
    assert!(field(&info, "Size").int() >= blocks * 32);
    assert!(!field(&info, "Kernel").text().is_empty());
    let fpr: f64 = field(&info, "Estimated FPR").text().parse().unwrap();
    assert!(fpr > 0.0 && fpr < 1e-6, "{fpr}");
    assert_eq!(c.cmd(&["SBF.INFO", "f", "ITEMS"]).ints(), [3]);
    assert_eq!(c.cmd(&["SBF.INFO", "f", "capacity"]).ints(), [1000]);

    // ADD/MADD create with RedisBloom's defaults (capacity 100, 1%).
    assert_eq!(c.cmd(&["SBF.ADD", "auto", "x"]).int(), 1);
    assert_eq!(c.cmd(&["SBF.INFO", "auto", "CAPACITY"]).ints(), [100]);

    // INSERT: options, create, NOCREATE.
    assert_eq!(
        c.cmd(&[
            "SBF.INSERT",
            "ins",
            "CAPACITY",
            "5000",
            "ERROR",
            "0.001",
            "ITEMS",
            "a",
            "b"
        ])
        .ints(),
        [1, 1]
    );
    assert_eq!(c.cmd(&["SBF.INFO", "ins", "CAPACITY"]).ints(), [5000]);
    assert_eq!(
        c.cmd(&["SBF.INSERT", "ins", "NOCREATE", "ITEMS", "a", "c"])
            .ints(),
        [0, 1]
    );
    assert_eq!(
        c.cmd(&["SBF.INSERT", "none", "NOCREATE", "ITEMS", "a"])
            .error(),
        "ERR not found"
    );
    assert_eq!(c.cmd(&["EXISTS", "none"]).int(), 0);
    assert_eq!(c.cmd(&["TYPE", "f"]).text(), "SBFfilter");
}

#[test]
fn dump_bytes_are_the_crates_format_and_load_round_trips() {
    let server = Server::start("dump");
    let mut c = server.conn();
    ok(c.cmd(&["SBF.RESERVE", "f", "0.01", "10000"]));
    let keys: Vec<String> = (0..1000).map(|i| format!("user:{i}")).collect();
    let mut madd = vec!["SBF.MADD".to_string(), "f".to_string()];
    madd.extend(keys.iter().cloned());
    assert!(c.cmd(&madd).ints().iter().all(|&new| new == 1));

    let bytes = c.cmd(&["SBF.DUMP", "f"]).bytes();
    // A service falls back to a local view of the same bytes: same answers, no server.
    let local = ScalableFilter::<ModuleHasher>::from_bytes_with_hasher_type(&bytes).unwrap();
    for key in &keys {
        assert!(local.contains_bytes(key.as_bytes()));
    }
    let absent: Vec<String> = (0..2000).map(|i| format!("absent:{i}")).collect();
    let mut mexists = vec!["SBF.MEXISTS".to_string(), "f".to_string()];
    mexists.extend(absent.iter().cloned());
    let remote = c.cmd(&mexists).ints();
    for (key, remote) in absent.iter().zip(remote) {
        assert_eq!(
            i64::from(local.contains_bytes(key.as_bytes())),
            remote,
            "{key}"
        );
    }

    ok(c.cmd(&[b"SBF.LOAD".as_slice(), b"copy", &bytes]));
    assert_eq!(c.cmd(&["SBF.DUMP", "copy"]).bytes(), bytes);
    assert_eq!(c.cmd(&["SBF.EXISTS", "copy", "user:7"]).int(), 1);
    // LOAD replaces a filter; the metadata options travel with it.
    ok(c.cmd(&[
        b"SBF.LOAD".as_slice(),
        b"copy",
        &bytes,
        b"CAPACITY",
        b"10000",
        b"ERROR",
        b"0.01",
        b"CARD",
        b"1000",
    ]));
    assert_eq!(c.cmd(&["SBF.INFO", "copy", "ITEMS"]).ints(), [1000]);
    assert_eq!(c.cmd(&["SBF.INFO", "copy", "CAPACITY"]).ints(), [10000]);
    assert_eq!(c.cmd(&["SBF.DUMP", "nokey"]).error(), "ERR not found");
}

#[test]
fn merge_is_the_union() {
    let server = Server::start("merge");
    let mut c = server.conn();
    ok(c.cmd(&["SBF.RESERVE", "a", "0.01", "1000"]));
    ok(c.cmd(&["SBF.RESERVE", "b", "0.01", "1000"]));
    c.cmd(&["SBF.MADD", "a", "left", "both"]);
    c.cmd(&["SBF.MADD", "b", "right", "both"]);
    // Into a new key: the union of the sources.
    ok(c.cmd(&["SBF.MERGE", "u", "a", "b"]));
    assert_eq!(
        c.cmd(&["SBF.MEXISTS", "u", "left", "right", "both"]).ints(),
        [1, 1, 1]
    );
    assert_eq!(c.cmd(&["SBF.CARD", "u"]).int(), 3);
    // Into an existing key, with itself among the sources.
    ok(c.cmd(&["SBF.MERGE", "a", "a", "b"]));
    assert_eq!(c.cmd(&["SBF.EXISTS", "a", "right"]).int(), 1);
    assert_eq!(
        c.cmd(&["SBF.DUMP", "a"]).bytes(),
        c.cmd(&["SBF.DUMP", "u"]).bytes()
    );
}

/// Every bad input: an error reply, and afterwards the server answers and no key changed.
#[test]
fn bad_input_gets_an_error_and_changes_nothing() {
    let mut server = Server::start("bad");
    let mut c = server.conn();
    ok(c.cmd(&["SBF.RESERVE", "f", "0.01", "1000"]));
    c.cmd(&["SBF.MADD", "f", "a", "b", "c"]);
    ok(c.cmd(&["SBF.RESERVE", "small", "0.01", "10"]));
    ok(c.cmd(&["SET", "str", "v"]));
    c.cmd(&["SADD", "set", "m"]);
    // Same size as f, other seed: the crate's bytes of a filter hashed with seed 7.
    let seeded = splitbloom::Filter::with_fpr_and_hasher(1000, 0.01, ModuleHasher::with_seed(7))
        .unwrap()
        .to_bytes();
    ok(c.cmd(&[b"SBF.LOAD".as_slice(), b"seeded", &seeded]));
    // Plain filters (SBF.LOAD of SBLM bytes): same size as `seeded` with seed 0, and smaller.
    let plain = splitbloom::Filter::with_fpr_and_hasher(1000, 0.01, ModuleHasher::with_seed(0))
        .unwrap()
        .to_bytes();
    ok(c.cmd(&[b"SBF.LOAD".as_slice(), b"plain", &plain]));
    let plain_small = splitbloom::Filter::with_num_blocks_and_hasher(4, ModuleHasher::default())
        .unwrap()
        .to_bytes();
    ok(c.cmd(&[b"SBF.LOAD".as_slice(), b"plainsmall", &plain_small]));

    let snapshot = |c: &mut Conn| {
        let mut state = Vec::new();
        for key in ["f", "small", "seeded", "plain", "plainsmall"] {
            state.push(c.cmd(&["SBF.DUMP", key]));
            state.push(c.cmd(&["SBF.CARD", key]));
        }
        state.push(c.cmd(&["GET", "str"]));
        state.push(c.cmd(&["SMEMBERS", "set"]));
        state.push(c.cmd(&["DBSIZE"]));
        state
    };
    let before = snapshot(&mut c);

    let good = c.cmd(&["SBF.DUMP", "f"]).bytes();
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let mut bad_header = good.clone();
    bad_header[0] ^= 0xff;
    let truncated = good[..good.len() - 5].to_vec();
    // Parquet's hasher (id 3): valid for the crate, not for this module.
    let parquet = splitbloom::Filter::with_num_blocks_and_hasher(
        4,
        splitbloom::parquet::ParquetHash::default(),
    )
    .unwrap()
    .to_bytes();

    let bad: Vec<(Vec<Vec<u8>>, &str)> = {
        let s = |args: &[&str]| {
            args.iter()
                .map(|a| a.as_bytes().to_vec())
                .collect::<Vec<_>>()
        };
        let mut cases = vec![
            // Wrong arity.
            (
                s(&["SBF.RESERVE", "f", "0.01"]),
                "wrong number of arguments",
            ),
            (
                s(&["SBF.RESERVE", "n", "0.01", "10", "NONSCALING", "x"]),
                "unknown argument",
            ),
            (s(&["SBF.ADD", "f"]), "wrong number"),
            (s(&["SBF.ADD", "f", "x", "y"]), "wrong number"),
            (s(&["SBF.MADD", "f"]), "wrong number"),
            (s(&["SBF.EXISTS", "f"]), "wrong number"),
            (s(&["SBF.MEXISTS", "f"]), "wrong number"),
            (s(&["SBF.CARD"]), "wrong number"),
            (s(&["SBF.INFO"]), "wrong number"),
            (s(&["SBF.MERGE", "f"]), "wrong number"),
            (s(&["SBF.DUMP"]), "wrong number"),
            (s(&["SBF.LOAD", "f"]), "wrong number"),
            (s(&["SBF.INSERT", "f", "ITEMS"]), "wrong number"),
            // Bad numbers.
            (s(&["SBF.RESERVE", "n", "abc", "10"]), "bad error rate"),
            (s(&["SBF.RESERVE", "n", "0", "10"]), "error rate range"),
            (s(&["SBF.RESERVE", "n", "1", "10"]), "error rate range"),
            (s(&["SBF.RESERVE", "n", "-0.5", "10"]), "error rate range"),
            (s(&["SBF.RESERVE", "n", "nan", "10"]), "bad error rate"),
            (s(&["SBF.RESERVE", "n", "inf", "10"]), "error rate range"),
            (s(&["SBF.RESERVE", "n", "0.01", "0"]), "larger than 0"),
            (s(&["SBF.RESERVE", "n", "0.01", "-3"]), "larger than 0"),
            (s(&["SBF.RESERVE", "n", "0.01", "1e3"]), "bad capacity"),
            (
                s(&["SBF.RESERVE", "n", "0.01", "99999999999999999999999"]),
                "bad capacity",
            ),
            (
                s(&["SBF.RESERVE", "n", "0.01", "10", "EXPANSION"]),
                "no expansion",
            ),
            (
                s(&["SBF.RESERVE", "n", "0.01", "10", "EXPANSION", "x"]),
                "bad expansion",
            ),
            (
                s(&["SBF.RESERVE", "n", "0.01", "10", "EXPANSION", "0"]),
                "bad expansion",
            ),
            (
                s(&[
                    "SBF.RESERVE",
                    "n",
                    "0.01",
                    "10",
                    "NONSCALING",
                    "EXPANSION",
                    "2",
                ]),
                "Nonscaling filters cannot expand",
            ),
            (
                s(&["SBF.INSERT", "n", "CAPACITY", "x", "ITEMS", "a"]),
                "Bad capacity",
            ),
            (
                s(&["SBF.INSERT", "n", "ERROR", "2", "ITEMS", "a"]),
                "Bad argument received",
            ),
            (
                s(&["SBF.INSERT", "n", "ERROR", "x", "ITEMS", "a"]),
                "Bad error rate",
            ),
            (
                s(&["SBF.INSERT", "n", "EXPANSION", "0", "ITEMS", "a"]),
                "Bad argument received",
            ),
            (
                s(&["SBF.INSERT", "n", "EXPANSION", "x", "ITEMS", "a"]),
                "Bad expansion",
            ),
            (
                s(&["SBF.INSERT", "n", "BOGUS", "ITEMS", "a"]),
                "Unknown argument received",
            ),
            (
                s(&["SBF.INSERT", "n", "CAPACITY", "10", "a"]),
                "Unknown argument received",
            ),
            (s(&["SBF.INFO", "f", "BOGUS"]), "Invalid information value"),
            // The smallest rate the format can reach for this many items is far below 1e-300.
            (
                s(&["SBF.RESERVE", "n", "1e-300", "1000000000000"]),
                "cannot create filter",
            ),
            // Above the module's MAX_FILTER_BYTES (default 4 GiB), and above the format's 2^32 blocks.
            (
                s(&["SBF.RESERVE", "n", "0.01", "100000000000"]),
                "MAX_FILTER_BYTES",
            ),
            (
                s(&["SBF.RESERVE", "n", "0.5", "1099511627776"]),
                "cannot create filter",
            ),
            (
                s(&["SBF.INSERT", "n", "CAPACITY", "4000000000", "ITEMS", "a"]),
                "MAX_FILTER_BYTES",
            ),
            // WRONGTYPE.
            (s(&["SBF.ADD", "str", "x"]), "WRONGTYPE"),
            (s(&["SBF.MADD", "set", "x"]), "WRONGTYPE"),
            (s(&["SBF.INSERT", "str", "ITEMS", "x"]), "WRONGTYPE"),
            (s(&["SBF.RESERVE", "str", "0.01", "10"]), "WRONGTYPE"),
            (s(&["SBF.INFO", "set"]), "WRONGTYPE"),
            (s(&["SBF.CARD", "str"]), "WRONGTYPE"),
            (s(&["SBF.DUMP", "str"]), "WRONGTYPE"),
            (s(&["SBF.MERGE", "str", "f"]), "WRONGTYPE"),
            (s(&["SBF.MERGE", "f", "str"]), "WRONGTYPE"),
            (s(&["GET", "f"]), "WRONGTYPE"),
            // MERGE of chains made differently, of plain filters of different sizes or
            // hashers, of a chain with a plain filter, or of a missing source.
            (s(&["SBF.MERGE", "f", "small"]), "differ in capacity"),
            (s(&["SBF.MERGE", "n", "f", "small"]), "differ in capacity"),
            (
                s(&["SBF.MERGE", "f", "seeded"]),
                "cannot merge a plain filter",
            ),
            (
                s(&["SBF.MERGE", "seeded", "f"]),
                "cannot merge a scaling filter",
            ),
            (s(&["SBF.MERGE", "plain", "seeded"]), "differ in hasher"),
            (s(&["SBF.MERGE", "plain", "plainsmall"]), "differ in size"),
            (
                s(&["SBF.MERGE", "n", "plain", "plainsmall"]),
                "differ in size",
            ),
            (s(&["SBF.MERGE", "f", "nokey"]), "source not found"),
            (s(&["SBF.MERGE", "n", "f", "nokey"]), "source not found"),
            // LOAD options.
            (s(&["SBF.LOAD", "f", "x", "CAPACITY"]), "wrong number"),
            (s(&["SBF.LOAD", "f", "x", "BOGUS", "1"]), "unknown option"),
        ];
        let load = |key: &str, bytes: &[u8]| vec![b"SBF.LOAD".to_vec(), key.into(), bytes.to_vec()];
        // Corrupted or truncated LOAD bytes, over an existing filter and a new key.
        for key in ["f", "n"] {
            cases.push((load(key, &flipped), "checksum"));
            cases.push((load(key, &bad_header), "bad filter bytes"));
            cases.push((load(key, &truncated), "bad filter bytes"));
            cases.push((load(key, b""), "bad filter bytes"));
            cases.push((
                load(key, b"not a filter at all, just text"),
                "bad filter bytes",
            ));
            cases.push((load(key, &good[..31]), "bad filter bytes"));
        }
        cases.push((load("str", &good), "WRONGTYPE"));
        // Another hasher's bytes: refused, naming the hasher the module takes.
        cases.push((load("n", &parquet), "this module stores"));
        cases
    };

    for (args, expected) in &bad {
        let reply = c.cmd(args);
        let shown: Vec<String> = args
            .iter()
            .map(|a| String::from_utf8_lossy(&a[..a.len().min(40)]).into_owned())
            .collect();
        assert!(
            reply.is_error() && reply.error().contains(expected),
            "{shown:?}: expected an error containing {expected:?}, got {reply:?}"
        );
        assert_eq!(c.cmd(&["PING"]), Reply::Status("PONG".into()), "{shown:?}");
        assert!(server.alive(), "{shown:?} killed the server");
    }
    // RedisBloom answers 0 for EXISTS on a key of another type, and so does the module.
    assert_eq!(c.cmd(&["SBF.EXISTS", "str", "x"]).int(), 0);
    assert_eq!(c.cmd(&["SBF.MEXISTS", "str", "x", "y"]).ints(), [0, 0]);
    assert_eq!(snapshot(&mut c), before, "a bad command changed a key");
    assert_eq!(c.cmd(&["EXISTS", "n"]).int(), 0);
}

/// A capacity whose memory cannot be had: with MAX_FILTER_BYTES raised to the format's maximum
/// and the server's address space limited to 2 GiB, a 3 GiB filter fails in the allocator. The
/// module allocates through `RedisModule_TryAlloc` (Redis 7.0.15 has it), so this is an error
/// reply, not an abort of the server.
#[test]
fn memory_that_cannot_be_had_is_an_error_not_an_abort() {
    let mut server = Server::start_full(
        "oom",
        &[],
        &["MAX_FILTER_BYTES", "137438953472"],
        Some(2 << 30),
    );
    let mut c = server.conn();
    ok(c.cmd(&["SBF.RESERVE", "f", "0.01", "1000"]));
    c.cmd(&["SBF.MADD", "f", "a", "b"]);
    let before = c.cmd(&["SBF.DUMP", "f"]);
    // 2.4e9 items at 1%: 3.1 GiB.
    for args in [
        &["SBF.RESERVE", "big", "0.01", "2400000000"][..],
        &["SBF.ADD", "f", "c"][..], // (a small write in between still works)
        &["SBF.INSERT", "big", "CAPACITY", "2400000000", "ITEMS", "x"][..],
    ] {
        let reply = c.cmd(args);
        if args[1] == "big" {
            assert!(
                reply.is_error() && reply.error().contains("allocat"),
                "{args:?}: {reply:?}"
            );
        }
        assert_eq!(c.cmd(&["PING"]), Reply::Status("PONG".into()));
        assert!(server.alive());
    }
    assert_eq!(c.cmd(&["EXISTS", "big"]).int(), 0);
    c.cmd(&["SBF.ADD", "f", "c"]);
    assert_ne!(c.cmd(&["SBF.DUMP", "f"]), before, "f still takes writes");
    assert_eq!(c.cmd(&["SBF.MEXISTS", "f", "a", "b"]).ints(), [1, 1]);
}

/// The predicates answer RESP3 booleans, as current RedisBloom does, and the integers 1 and 0
/// over RESP2; counts stay integers. Both names, plain filters, chains and windows alike.
#[test]
fn predicates_answer_booleans_over_resp3_and_integers_over_resp2() {
    let server = Server::start_full("resp3", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    ok(c.cmd(&["SBF.RESERVE", "plain", "0.01", "1000", "NONSCALING"]));
    ok(c.cmd(&[
        "SBF.WRESERVE",
        "window",
        "0.01",
        "1000",
        "GENERATIONS",
        "2",
        "PERIOD",
        "60",
    ]));
    for protocol in ["3", "2"] {
        assert!(!c.cmd(&["HELLO", protocol]).is_error());
        let (yes, no) = if protocol == "3" {
            (Reply::Bool(true), Reply::Bool(false))
        } else {
            (Reply::Int(1), Reply::Int(0))
        };
        let both = || Reply::Array(Some(vec![yes.clone(), no.clone()]));
        for key in ["plain", "chain", "window"] {
            for prefix in ["SBF", "BF"] {
                let name = |command: &str| format!("{prefix}.{command}");
                let item = |tag: &str| format!("{protocol}-{prefix}-{tag}");
                // A missing key is made by ADD: a chain, with RedisBloom's defaults.
                c.cmd(&["DEL", "chain"]);
                let add = name("ADD");
                assert_eq!(c.cmd(&[add.as_str(), key, &item("a")]), yes, "{key}");
                assert_eq!(c.cmd(&[add.as_str(), key, &item("a")]), no, "{key}");
                let madd = name("MADD");
                assert_eq!(
                    c.cmd(&[madd.as_str(), key, &item("b"), &item("b")]),
                    both(),
                    "{key}"
                );
                assert_eq!(
                    c.cmd(&[name("EXISTS").as_str(), key, &item("a")]),
                    yes,
                    "{key}"
                );
                let mexists = name("MEXISTS");
                assert_eq!(
                    c.cmd(&[mexists.as_str(), key, &item("a"), "never"]),
                    both(),
                    "{key}"
                );
                let insert = name("INSERT");
                assert_eq!(
                    c.cmd(&[insert.as_str(), key, "ITEMS", &item("c"), &item("c")]),
                    both(),
                    "{key}"
                );
                assert!(matches!(
                    c.cmd(&[name("CARD").as_str(), key]),
                    Reply::Int(_)
                ));
            }
        }
    }
}
