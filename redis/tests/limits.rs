//! No stall, no bypass, no overflow, against real servers: a huge filter is made without
//! writing its zeros; `MAX_FILTER_BYTES` and `maxmemory` hold on every path that creates or
//! grows a value (`RESERVE`, `SBF.WRESERVE`, `LOADCHUNK`, `RESTORE`, `COPY`, `SBF.LOAD`), under
//! every eviction policy; and every count a client can set is range-checked or saturates, so
//! no command makes an overflow-checked server abort or prints a negative number.
//!
//! The suite builds the module with overflow checks on (the test profile), so an overflow the
//! module's code reaches aborts the server, and the test sees it die.

mod common;

use common::{Conn, Reply, Server};

fn ok(reply: Reply) {
    assert_eq!(reply, Reply::Status("OK".into()));
}

fn args(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|word| word.as_bytes().to_vec()).collect()
}

/// A field of `INFO section`, as an unsigned number.
fn info_number(c: &mut Conn, section: &str, field: &str) -> u64 {
    c.info(section, field).parse().unwrap()
}

/// The server process's resident memory, in bytes, from `/proc`.
fn resident(c: &mut Conn) -> u64 {
    let pid = info_number(c, "server", "process_id");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .unwrap()
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kib * 1024
}

/// A field of `SBF.INFO` / `BF.INFO`.
fn info_field(c: &mut Conn, command: &str, key: &str, name: &str) -> Reply {
    let Reply::Array(Some(items)) = c.cmd(&[command, key]) else {
        panic!("{command} {key}");
    };
    items
        .chunks(2)
        .find(|pair| pair[0].text() == name)
        .unwrap_or_else(|| panic!("no {name} in {command} {key}"))[1]
        .clone()
}

/// A `SCANDUMP` header (`SBFC`, version 2), built from its fields as the module lays them out,
/// with a valid checksum, so that only the module's own checks can refuse it.
struct Header {
    plain: bool,
    nonscaling: bool,
    capacity: u64,
    error_rate: f64,
    items: u64,
    /// Initial capacity, rate, growth factor and tightening ratio of a chain.
    parameters: (u64, f64, f64, f64),
    items_in_last_stage: u64,
    /// Each stage's block count and `SBLM` layout id (0 split-block, 1 or 2 wide).
    stages: Vec<(u64, u64)>,
}

impl Header {
    /// A plain filter of one stage.
    fn plain(blocks: u64, layout_id: u64) -> Header {
        Header {
            plain: true,
            nonscaling: true,
            capacity: 0,
            error_rate: 0.0,
            items: 0,
            parameters: (0, 0.0, 0.0, 0.0),
            items_in_last_stage: 0,
            stages: vec![(blocks, layout_id)],
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = b"SBFC".to_vec();
        out.extend_from_slice(&[2, u8::from(self.plain), u8::from(self.nonscaling), 4]);
        let (initial, fpr, growth, tightening) = self.parameters;
        for word in [
            self.capacity,
            self.error_rate.to_bits(),
            self.items,
            initial,
            fpr.to_bits(),
            growth.to_bits(),
            tightening.to_bits(),
            self.items_in_last_stage,
            self.stages.len() as u64,
            0,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for &(blocks, layout) in &self.stages {
            out.extend_from_slice(&blocks.to_le_bytes());
            out.extend_from_slice(&layout.to_le_bytes());
        }
        let checksum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }
}

/// `count` small string keys, pipelined.
fn fill_strings(c: &mut Conn, count: usize) {
    for i in 0..count {
        c.send(&["SET", &format!("string:{i}"), "some value of a few bytes"]);
    }
    for _ in 0..count {
        c.read();
    }
}

#[test]
fn a_new_filter_takes_no_time_and_no_memory_until_it_fills() {
    let server = Server::start_full("lazy", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    let (resident_before, used_before) = (
        resident(&mut c),
        info_number(&mut c, "memory", "used_memory"),
    );
    // 2.6 GB and 2.9 GB of bitset, each from a short command. (The window's period is long:
    // a rotation clears a generation, here all of it, and that writes every page.)
    ok(c.cmd(&["BF.RESERVE", "st", "0.01", "2000000000", "NONSCALING"]));
    ok(c.cmd(&[
        "SBF.WRESERVE",
        "w",
        "1e-17",
        "1000",
        "GENERATIONS",
        "1",
        "PERIOD",
        "3600",
    ]));
    // Redis counts the memory (maxmemory sees it), but the pages stay untouched.
    let used = info_number(&mut c, "memory", "used_memory") - used_before;
    assert!(used > 5_000_000_000, "used_memory grew by {used}");
    let grown = resident(&mut c).saturating_sub(resident_before);
    assert!(
        grown < 64 << 20,
        "resident memory grew by {grown} bytes for empty filters"
    );
    // The filters work (the pages keys land in become resident: 4 KiB each, or 2 MiB where
    // the kernel grants the huge pages the crate asks for).
    let keys: Vec<String> = (0..1000).map(|i| format!("key:{i}")).collect();
    for key in ["st", "w"] {
        let mut madd = vec!["BF.MADD".to_string(), key.to_string()];
        madd.extend(keys.iter().cloned());
        assert!(c.cmd(&madd).ints().iter().all(|&new| new == 1));
        let mut mexists = vec!["BF.MEXISTS".to_string(), key.to_string()];
        mexists.extend(keys.iter().cloned());
        assert!(c.cmd(&mexists).ints().iter().all(|&found| found == 1));
    }
}

/// Under an eviction policy, a value that cannot fit even after every key is evicted is
/// refused, on every path, before anything is allocated, and no key is evicted for it.
#[test]
fn maxmemory_holds_whatever_the_eviction_policy() {
    for policy in ["allkeys-lru", "volatile-lru", "noeviction"] {
        let mut server = Server::start_full(
            "policy",
            &["--maxmemory", "64mb", "--maxmemory-policy", policy],
            &["BF_COMMANDS", "yes"],
            None,
        );
        let mut c = server.conn();
        fill_strings(&mut c, 20_000);
        // A filter that fits is made (and one like it again after the refusals).
        ok(c.cmd(&["BF.RESERVE", "fits", "0.01", "1000000"]));
        let refused: Vec<(Vec<Vec<u8>>, &str)> = vec![
            (
                args(&[
                    "SBF.WRESERVE",
                    "w",
                    "1e-17",
                    "1000",
                    "GENERATIONS",
                    "1",
                    "PERIOD",
                    "1",
                ]),
                "OOM",
            ),
            (args(&["BF.RESERVE", "big", "0.01", "100000000"]), "OOM"),
            (
                args(&["BF.RESERVE", "big", "0.01", "100000000", "NONSCALING"]),
                "OOM",
            ),
            (
                args(&["BF.INSERT", "big", "CAPACITY", "100000000", "ITEMS", "a"]),
                "OOM",
            ),
            // A 4 GiB header: under MAX_FILTER_BYTES, far over maxmemory.
            (
                vec![
                    b"BF.LOADCHUNK".to_vec(),
                    b"big".to_vec(),
                    b"1".to_vec(),
                    Header::plain(1 << 27, 0).bytes(),
                ],
                "OOM",
            ),
        ];
        for (command, expected) in &refused {
            let reply = c.cmd(command);
            let shown = String::from_utf8_lossy(&command[0]).into_owned();
            assert!(
                reply.is_error() && reply.error().starts_with(expected),
                "{policy}: {shown}: {reply:?}"
            );
            assert!(server.alive(), "{policy}: {shown}");
        }
        assert_eq!(c.cmd(&["EXISTS", "w", "big"]).int(), 0, "{policy}");
        assert_eq!(
            c.cmd(&["DBSIZE"]).int(),
            20_001,
            "{policy}: keys were evicted"
        );
    }
}

/// A sub-filter the primary's `maxmemory` refuses is not made on its replica, which the limits
/// never refuse: the replica is sent the items the primary took, into a key made with the
/// command's parameters, and both hold the same bytes.
#[test]
fn a_sub_filter_refused_on_the_primary_is_not_made_on_its_replica() {
    let primary = Server::start_full(
        "refused",
        &["--maxmemory", "64mb"],
        &["BF_COMMANDS", "yes"],
        None,
    );
    let replica = Server::start_full(
        "refused-replica",
        &["--replicaof", "127.0.0.1", &primary.port.to_string()],
        &["BF_COMMANDS", "yes"],
        None,
    );
    let (mut c, mut r) = (primary.conn(), replica.conn());
    common::wait_until("the initial sync", || {
        r.info("replication", "master_link_status") == "up"
    });
    // The second sub-filter, for 10^8 items, is far over maxmemory.
    let items: Vec<String> = (0..3000).map(|i| format!("k{i}")).collect();
    let mut insert = vec![
        "BF.INSERT",
        "grow",
        "CAPACITY",
        "1000",
        "EXPANSION",
        "100000",
    ];
    insert.push("ITEMS");
    insert.extend(items.iter().map(String::as_str));
    let Reply::Array(Some(answers)) = c.cmd(&insert) else {
        panic!("BF.INSERT")
    };
    let (last, added) = answers.split_last().unwrap();
    assert!(last.error().starts_with("OOM"), "{last:?}");
    assert!((900..=1100).contains(&added.len()), "{}", added.len());
    assert!(
        c.cmd(&["BF.ADD", "grow", "late"])
            .error()
            .starts_with("OOM")
    );
    let mut madd = vec!["BF.MADD", "grow"];
    madd.extend(items[..10].iter().map(String::as_str));
    assert_eq!(c.cmd(&madd).ints(), [0; 10]);
    assert_eq!(c.cmd(&["WAIT", "1", "10000"]), Reply::Int(1));
    let filters = |c: &mut Conn| info_field(c, "BF.INFO", "grow", "Number of filters");
    assert_eq!(
        (filters(&mut c), filters(&mut r)),
        (Reply::Int(1), Reply::Int(1))
    );
    assert_eq!(r.cmd(&["DUMP", "grow"]), c.cmd(&["DUMP", "grow"]));
}

/// A value restored (`RESTORE`) part-way through a chunked restore carries the header that
/// declares what later chunks will allocate: it must pass the checks a `LOADCHUNK` header
/// passes, and each later stage is checked again when its first chunk comes.
#[test]
fn restore_and_chunks_cannot_bypass_the_limits() {
    // A server whose MAX_FILTER_BYTES lets a 256 GiB header in, without maxmemory: its DUMP of
    // a restore in progress is what a client could send to any other server.
    let source = Server::start_full(
        "restore-source",
        &[],
        &["MAX_FILTER_BYTES", "1099511627776"],
        None,
    );
    let mut s = source.conn();
    // One wide sub-filter of 2^32 blocks (256 GiB).
    let huge = Header::plain(1 << 32, 1).bytes();
    ok(s.cmd(&[b"SBF.LOADCHUNK".as_slice(), b"huge", b"1", &huge]));
    let huge_dump = s.cmd(&["DUMP", "huge"]).bytes();
    // One wide sub-filter of 2^25 blocks (2 GiB): under MAX_FILTER_BYTES, over maxmemory.
    let big = Header::plain(1 << 25, 1).bytes();
    ok(s.cmd(&[b"SBF.LOADCHUNK".as_slice(), b"big", b"1", &big]));
    let big_dump = s.cmd(&["DUMP", "big"]).bytes();
    // A legitimate restore in progress: a real filter's header.
    ok(s.cmd(&["SBF.RESERVE", "real", "0.01", "100000"]));
    let keys: Vec<String> = (0..1000).map(|i| format!("key:{i}")).collect();
    let mut madd = vec!["SBF.MADD".to_string(), "real".to_string()];
    madd.extend(keys.iter().cloned());
    s.cmd(&madd);
    let header = s.cmd(&["SBF.SCANDUMP", "real", "0"]);
    let Reply::Array(Some(pair)) = &header else {
        panic!("{header:?}")
    };
    let header = pair[1].bytes();
    let chunk = s.cmd(&["SBF.SCANDUMP", "real", "1"]);
    let Reply::Array(Some(chunk)) = &chunk else {
        panic!("{chunk:?}")
    };
    let (chunk_iter, chunk) = (chunk[0].int().to_string(), chunk[1].bytes());
    ok(s.cmd(&[b"SBF.LOADCHUNK".as_slice(), b"partial", b"1", &header]));
    let partial_dump = s.cmd(&["DUMP", "partial"]).bytes();

    for (policy, maxmemory) in [
        ("noeviction", "64mb"),
        ("allkeys-lru", "64mb"),
        ("noeviction", "0"),
    ] {
        let mut server = Server::start_full(
            "restore",
            &["--maxmemory", maxmemory, "--maxmemory-policy", policy],
            &[],
            None,
        );
        let mut c = server.conn();
        fill_strings(&mut c, 20_000);
        let used_before = info_number(&mut c, "memory", "used_memory");
        let mut dumps = vec![("huge", &huge_dump)];
        if maxmemory != "0" {
            dumps.push(("big", &big_dump));
        }
        for (key, dump) in dumps {
            let reply = c.cmd(&[b"RESTORE".as_slice(), key.as_bytes(), b"0", dump]);
            assert!(
                reply.is_error(),
                "{policy} {maxmemory}: RESTORE {key}: {reply:?}"
            );
            assert!(server.alive());
            assert_eq!(c.cmd(&["EXISTS", key]).int(), 0);
        }
        assert!(server.log().contains("RESTORE refused"), "{}", server.log());
        // The legitimate one restores and completes with its chunks.
        ok(c.cmd(&[b"RESTORE".as_slice(), b"partial", b"0", &partial_dump]));
        let mut iter = chunk_iter.clone();
        let mut data = chunk.clone();
        loop {
            ok(c.cmd(&[
                b"SBF.LOADCHUNK".as_slice(),
                b"partial",
                iter.as_bytes(),
                &data,
            ]));
            let next = s.cmd(&["SBF.SCANDUMP", "real", &iter]);
            let Reply::Array(Some(next)) = next else {
                panic!()
            };
            if next[0].int() == 0 {
                break;
            }
            (iter, data) = (next[0].int().to_string(), next[1].bytes());
        }
        let mut mexists = vec!["SBF.MEXISTS".to_string(), "partial".to_string()];
        mexists.extend(keys.iter().cloned());
        assert!(c.cmd(&mexists).ints().iter().all(|&found| found == 1));
        assert_eq!(
            c.cmd(&["DBSIZE"]).int(),
            20_001,
            "{policy}: keys were evicted"
        );
        let used = info_number(&mut c, "memory", "used_memory") - used_before;
        assert!(
            used < 16 << 20,
            "{policy} {maxmemory}: used_memory grew by {used}"
        );
    }
}

/// A restore whose header came in while loading (nothing read while loading is refused) is
/// checked again when a client's chunk starts a sub-filter, which is when it is allocated.
#[test]
fn each_sub_filter_of_a_restore_is_checked_when_its_first_chunk_comes() {
    let source = Server::start_full(
        "chunk-source",
        &[],
        &["MAX_FILTER_BYTES", "1099511627776"],
        None,
    );
    let mut s = source.conn();
    // One wide sub-filter of 2^25 blocks (2 GiB), saved part-way (nothing received).
    ok(s.cmd(&[
        b"SBF.LOADCHUNK".as_slice(),
        b"big",
        b"1",
        &Header::plain(1 << 25, 1).bytes(),
    ]));
    ok(s.cmd(&["SAVE"]));
    let mut server = Server::start_full("chunk", &["--maxmemory", "64mb"], &[], None);
    let mut c = server.conn();
    std::fs::copy(source.dir.join("dump.rdb"), server.dir.join("dump.rdb")).unwrap();
    ok(c.cmd(&["DEBUG", "RELOAD", "NOSAVE"]));
    assert_eq!(c.cmd(&["EXISTS", "big"]).int(), 1);
    let used_before = info_number(&mut c, "memory", "used_memory");
    // The first chunk: 16 MiB less 64 of bitset bytes, then their XXH3-64 seeded with the
    // offset (0).
    let payload = vec![0u8; (16 << 20) - 64];
    let mut chunk = payload.clone();
    chunk.extend_from_slice(&xxhash_rust::xxh3::xxh3_64_with_seed(&payload, 0).to_le_bytes());
    let iter = (1 + chunk.len()).to_string();
    let reply = c.cmd(&[b"SBF.LOADCHUNK".as_slice(), b"big", iter.as_bytes(), &chunk]);
    assert!(
        reply.is_error() && reply.error().starts_with("OOM"),
        "{reply:?}"
    );
    assert!(server.alive());
    let used = info_number(&mut c, "memory", "used_memory").saturating_sub(used_before);
    assert!(used < 64 << 20, "used_memory grew by {used}");
    ok(c.cmd(&["SET", "a", "write after the refusal"]));
}

/// `COPY` makes a new value: it passes the checks any new value passes, `MAX_FILTER_BYTES`
/// (for a value that came in while loading, which nothing refuses) and `maxmemory`.
#[test]
fn copy_is_checked_as_a_new_value() {
    let source = Server::start_full("copy-source", &["--maxmemory", "64mb"], &[], None);
    let mut s = source.conn();
    // 39 MB: it fits once, not twice.
    ok(s.cmd(&["SBF.RESERVE", "f", "0.01", "30000000", "NONSCALING"]));
    let copy = s.cmd(&["COPY", "f", "copy"]);
    assert!(copy.is_error(), "COPY over maxmemory: {copy:?}");
    assert_eq!(s.cmd(&["EXISTS", "copy"]).int(), 0);
    ok(s.cmd(&["SAVE"]));
    // The same value loaded by a server that creates no filter over 10 MB.
    let mut server = Server::start_full("copy", &[], &["MAX_FILTER_BYTES", "10000000"], None);
    let mut c = server.conn();
    std::fs::copy(source.dir.join("dump.rdb"), server.dir.join("dump.rdb")).unwrap();
    ok(c.cmd(&["DEBUG", "RELOAD", "NOSAVE"]));
    assert_eq!(c.cmd(&["SBF.EXISTS", "f", "x"]).int(), 0);
    let copy = c.cmd(&["COPY", "f", "copy"]);
    assert!(copy.is_error(), "COPY over MAX_FILTER_BYTES: {copy:?}");
    assert!(server.log().contains("COPY refused"), "{}", server.log());
    assert!(server.alive());
    // A small one copies.
    ok(c.cmd(&["SBF.RESERVE", "small", "0.01", "1000"]));
    assert_eq!(c.cmd(&["COPY", "small", "copy"]).int(), 1);
}

/// `RESERVE ... EXPANSION` at i64::MAX: the second sub-filter cannot be made, which is an error
/// (not an overflow), and `INFO` prints the expansion as given.
#[test]
fn an_expansion_at_its_largest_neither_overflows_nor_prints_negative() {
    let mut server = Server::start_full("expansion", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    ok(c.cmd(&[
        "BF.RESERVE",
        "k",
        "0.01",
        "10",
        "EXPANSION",
        "9223372036854775807",
    ]));
    let items: Vec<String> = (0..20).map(|i| format!("item:{i}")).collect();
    let mut madd = vec!["BF.MADD".to_string(), "k".to_string()];
    madd.extend(items.iter().cloned());
    let Reply::Array(Some(replies)) = c.cmd(&madd) else {
        panic!()
    };
    assert!(
        server.alive(),
        "MADD past the first sub-filter killed the server"
    );
    let last = replies.last().unwrap();
    assert!(
        last.is_error() && last.error().contains("Maximum expansions reached"),
        "{last:?}"
    );
    assert_eq!(
        info_field(&mut c, "BF.INFO", "k", "Expansion rate"),
        Reply::Int(i64::MAX)
    );
    assert_eq!(
        info_field(&mut c, "BF.INFO", "k", "Capacity"),
        Reply::Int(10)
    );
}

/// `SBF.LOAD ... CARD` past RESP's integers is refused; at its largest, adds saturate.
#[test]
fn an_item_count_at_its_largest_saturates() {
    let mut server = Server::start_full("card", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    let bytes =
        splitbloom::Filter::with_fpr_and_hasher(1000, 0.01, common::ModuleHasher::default())
            .unwrap()
            .to_bytes();
    let load = |card: &str| {
        vec![
            b"SBF.LOAD".to_vec(),
            b"loaded".to_vec(),
            bytes.clone(),
            b"CARD".to_vec(),
            card.as_bytes().to_vec(),
        ]
    };
    let reply = c.cmd(&load("18446744073709551615"));
    assert!(
        reply.is_error() && reply.error().contains("bad CARD"),
        "{reply:?}"
    );
    ok(c.cmd(&load("9223372036854775807")));
    assert_eq!(c.cmd(&["BF.ADD", "loaded", "new"]).int(), 1);
    assert!(
        server.alive(),
        "an add past CARD's largest killed the server"
    );
    assert_eq!(c.cmd(&["BF.CARD", "loaded"]).int(), i64::MAX);
}

/// `SBF.WLOAD` applies `SBF.WRESERVE`'s rules, and a window's counts and times fit RESP's
/// integers: past them they are refused, at their largest they saturate.
#[test]
fn a_loaded_window_follows_wreserves_rules_and_its_counts_saturate() {
    let mut server = Server::start_full("window-counts", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    ok(c.cmd(&[
        "SBF.WRESERVE",
        "w",
        "0.01",
        "100",
        "GENERATIONS",
        "3",
        "PERIOD",
        "60",
    ]));
    let good = c.cmd(&["SBF.WDUMP", "w"]).bytes();
    for (name, bad) in [
        ("items 2^64-1", window_word(&good, 32, u64::MAX)),
        ("next rotation 2^64-1", window_word(&good, 24, u64::MAX)),
        ("a 1 ms period", window_word(&good, 16, 1)),
        ("a 1500 ms period", window_word(&good, 16, 1500)),
        ("rotations 2^64-1", window_rotations(&good, u64::MAX)),
    ] {
        let reply = c.cmd(&[b"SBF.WLOAD".as_slice(), b"w2", &bad]);
        assert!(reply.is_error(), "{name}: {reply:?}");
        assert!(server.alive(), "{name}");
        assert_eq!(c.cmd(&["EXISTS", "w2"]).int(), 0, "{name}");
    }
    let largest = window_rotations(&window_word(&good, 32, i64::MAX as u64), i64::MAX as u64);
    ok(c.cmd(&[b"SBF.WLOAD".as_slice(), b"w3", &largest]));
    assert_eq!(c.cmd(&["SBF.WROTATE", "w3", "1"]).int(), i64::MAX);
    assert_eq!(c.cmd(&["BF.ADD", "w3", "new"]).int(), 1);
    assert!(
        server.alive(),
        "a window at its largest counts killed the server"
    );
    assert_eq!(c.cmd(&["BF.CARD", "w3"]).int(), i64::MAX);
    for command in [
        &[
            "SBF.WRESERVE",
            "w4",
            "0.01",
            "100",
            "GENERATIONS",
            "3",
            "PERIOD",
            "60",
            "NEXTROTATION",
            "18446744073709551615",
        ][..],
        &["SBF.WROTATE", "w", "1", "18446744073709551615"][..],
    ] {
        let reply = c.cmd(command);
        assert!(
            reply.is_error() && reply.error().contains("next rotation"),
            "{command:?}: {reply:?}"
        );
    }
}

/// `SCANDUMP` headers the module would never write: 65,536 sub-filters no parameters give,
/// counts past RESP's integers, a rate of 2. Refused as RedisBloom refuses bad data.
#[test]
fn headers_no_command_writes_are_refused() {
    let mut server = Server::start_full("headers", &[], &["BF_COMMANDS", "yes"], None);
    let mut c = server.conn();
    let mut many = Header::plain(4, 0);
    many.plain = false;
    many.nonscaling = false;
    many.capacity = 100;
    many.error_rate = 0.01;
    many.parameters = (100, 0.01, 2.0, 0.5);
    many.stages = vec![(4, 0); 65_536];
    let mut rate = Header::plain(4, 0);
    rate.error_rate = 2.0;
    let mut capacity = Header::plain(4, 0);
    capacity.capacity = u64::MAX;
    let mut inserted = Header::plain(4, 0);
    inserted.items = u64::MAX;
    for (name, header) in [
        ("65,536 sub-filters", many),
        ("an error rate of 2", rate),
        ("a capacity of 2^64-1", capacity),
        ("2^64-1 items", inserted),
    ] {
        let reply = c.cmd(&[b"BF.LOADCHUNK".as_slice(), b"h", b"1", &header.bytes()]);
        assert_eq!(
            reply,
            Reply::Error("ERR received bad data".into()),
            "{name}"
        );
        assert!(server.alive(), "{name}");
        assert_eq!(c.cmd(&["EXISTS", "h"]).int(), 0, "{name}");
    }
}

/// A windowed value's bytes (`SBF.WDUMP`) with the header word at `at` replaced and the
/// header's checksum recomputed.
fn window_word(value: &[u8], at: usize, word: u64) -> Vec<u8> {
    let mut bytes = value.to_vec();
    bytes[at..at + 8].copy_from_slice(&word.to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&bytes[..40]);
    bytes[40..48].copy_from_slice(&checksum.to_le_bytes());
    bytes
}

/// A windowed value's bytes with the window's rotation count (`SBLW` offset 40, after the
/// value's 48-byte header) replaced and the `SBLW` checksum recomputed (`docs/FORMAT.md`).
fn window_rotations(value: &[u8], rotations: u64) -> Vec<u8> {
    let mut bytes = value.to_vec();
    let window = &mut bytes[48..];
    window[40..48].copy_from_slice(&rotations.to_le_bytes());
    let mut hashed = window[..56].to_vec();
    hashed.extend_from_slice(&window[64..]);
    let checksum = xxhash_rust::xxh3::xxh3_64(&hashed);
    window[56..64].copy_from_slice(&checksum.to_le_bytes());
    bytes
}
