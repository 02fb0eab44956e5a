//! The deletable type (`CF.*`/`SCF.*`, a chain of quotient filters): replies over RESP2 and
//! RESP3, growth by the expansion rule and its limits, deletes, the chunked dump and hostile
//! headers and chunks, persistence (DEBUG RELOAD, RDB, AOF, RESTORE, a restore in progress),
//! replication, COPY, MEMORY USAGE and `maxmemory`.

mod common;

use common::{Conn, Reply, Server, wait_until};
use splitbloom::TagBits;
use splitbloom::math::quotient::{QUOTIENT_BLOCK_BYTES, num_blocks_for_capacity};

fn ok() -> Reply {
    Reply::Status("OK".into())
}

fn server() -> Server {
    Server::start_full("cuckoo", &[], &["BF_COMMANDS", "yes"], None)
}

fn keys(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}:{i}")).collect()
}

fn command(words: &[&str], items: &[String]) -> Vec<String> {
    let mut args: Vec<String> = words.iter().map(|word| word.to_string()).collect();
    args.extend(items.iter().cloned());
    args
}

/// `CF.INSERT key ITEMS items...`'s answers.
fn insert(c: &mut Conn, key: &str, items: &[String]) -> Vec<Reply> {
    match c.cmd(&command(&["CF.INSERT", key, "ITEMS"], items)) {
        Reply::Array(Some(answers)) => answers,
        other => panic!("CF.INSERT {key}: {other:?}"),
    }
}

/// How many of `items` `CF.MEXISTS` answers present.
fn present(c: &mut Conn, key: &str, items: &[String]) -> usize {
    items
        .chunks(1000)
        .map(|chunk| {
            let answers = c.cmd(&command(&["CF.MEXISTS", key], chunk));
            answers.ints().iter().filter(|&&answer| answer == 1).count()
        })
        .sum()
}

/// A field of `SCF.INFO key`.
fn info(c: &mut Conn, key: &str, field: &str) -> Reply {
    let Reply::Array(Some(fields)) = c.cmd(&["SCF.INFO", key]) else {
        panic!("SCF.INFO {key}")
    };
    fields
        .chunks(2)
        .find(|pair| pair[0].text() == field)
        .unwrap_or_else(|| panic!("no {field} in {fields:?}"))[1]
        .clone()
}

/// Every `[iterator, chunk]` pair of `CF.SCANDUMP key`, header first.
fn scandump(c: &mut Conn, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut chunks = Vec::new();
    let mut iter = 0;
    loop {
        let Reply::Array(Some(pair)) = c.cmd(&["CF.SCANDUMP", key, &iter.to_string()]) else {
            panic!("CF.SCANDUMP {key} {iter}")
        };
        iter = pair[0].int();
        if iter == 0 {
            return chunks;
        }
        chunks.push((iter, pair[1].bytes()));
    }
}

fn loadchunk(c: &mut Conn, key: &str, iter: i64, data: &[u8]) -> Reply {
    c.cmd(&[
        b"CF.LOADCHUNK".as_slice(),
        key.as_bytes(),
        iter.to_string().as_bytes(),
        data,
    ])
}

/// Bytes of the stages a reservation for `capacity` keys at `expansion` has after `stages`.
fn stage_bytes(capacity: usize, expansion: usize, stages: u32) -> i64 {
    (0..stages)
        .map(|stage| {
            let keys = capacity * expansion.pow(stage);
            (num_blocks_for_capacity(keys, TagBits::Eight).unwrap() * QUOTIENT_BLOCK_BYTES) as i64
        })
        .sum()
}

/// Adds keys to `key` ten at a time until one is refused (`-1`); how many went in, and the
/// first refused key.
fn fill(c: &mut Conn, key: &str) -> (usize, String) {
    let mut added = 0;
    loop {
        let batch = keys(&format!("fill{added}"), 10);
        let answers = insert(c, key, &batch);
        if let Some(refused) = answers.iter().position(|answer| *answer == Reply::Int(-1)) {
            let inserted = answers
                .iter()
                .filter(|answer| **answer == Reply::Int(1))
                .count();
            return (added + inserted, batch[refused].clone());
        }
        added += batch.len();
        assert!(added < 1_000_000, "{key} never fills");
    }
}

#[test]
fn replies_are_redisblooms_over_resp2_and_current_redisblooms_over_resp3() {
    let server = server();
    let mut c = server.conn();
    assert_eq!(c.cmd(&["CF.RESERVE", "full", "4", "EXPANSION", "0"]), ok());
    let (added, refused) = fill(&mut c, "full");
    let expected: [(&[&str], Reply, Reply); 12] = [
        (&["CF.ADD", "f", "a"], Reply::Int(1), Reply::Bool(true)),
        (&["CF.ADD", "f", "a"], Reply::Int(1), Reply::Bool(true)),
        (&["CF.ADDNX", "f", "a"], Reply::Int(0), Reply::Bool(false)),
        (&["CF.ADDNX", "f", "b"], Reply::Int(1), Reply::Bool(true)),
        (&["CF.COUNT", "f", "a"], Reply::Int(2), Reply::Int(2)),
        (&["CF.EXISTS", "f", "a"], Reply::Int(1), Reply::Bool(true)),
        (
            &["CF.EXISTS", "missing", "a"],
            Reply::Int(0),
            Reply::Bool(false),
        ),
        (&["CF.DEL", "f", "a"], Reply::Int(1), Reply::Bool(true)),
        (&["CF.DEL", "f", "nope"], Reply::Int(0), Reply::Bool(false)),
        (
            &["CF.MEXISTS", "f", "a", "nope"],
            Reply::Array(Some(vec![Reply::Int(1), Reply::Int(0)])),
            Reply::Array(Some(vec![Reply::Bool(true), Reply::Bool(false)])),
        ),
        // CF.INSERT answers booleans over RESP3, a refused item false; CF.INSERTNX integers.
        (
            &["CF.INSERT", "full", "ITEMS", "x", "y"],
            Reply::Array(Some(vec![Reply::Int(-1), Reply::Int(-1)])),
            Reply::Array(Some(vec![Reply::Bool(false), Reply::Bool(false)])),
        ),
        (
            &["CF.INSERTNX", "f", "ITEMS", "b", "c"],
            Reply::Array(Some(vec![Reply::Int(0), Reply::Int(1)])),
            Reply::Array(Some(vec![Reply::Int(0), Reply::Int(1)])),
        ),
    ];
    for protocol in ["2", "3"] {
        c.cmd(&["HELLO", protocol]);
        c.cmd(&["DEL", "f"]);
        for (command, resp2, resp3) in &expected {
            let want = if protocol == "2" { resp2 } else { resp3 };
            assert_eq!(&c.cmd(command), want, "RESP{protocol} {command:?}");
        }
        assert_eq!(
            c.cmd(&["CF.ADD", "full", &refused]).error(),
            "Filter is full"
        );
    }
    // One 64-byte block of 48 slots: more than the 4 reserved, never more than its slots.
    assert!((4..=48).contains(&added), "{added}");
    assert_eq!(info(&mut c, "full", "Number of filters"), Reply::Int(1));
}

#[test]
fn filters_grow_by_the_expansion_rule_up_to_32_stages() {
    let server = server();
    let mut c = server.conn();
    // EXPANSION 3 is rounded up to 4, as RedisBloom rounds it.
    assert_eq!(c.cmd(&["CF.RESERVE", "g", "1000", "EXPANSION", "3"]), ok());
    assert_eq!(info(&mut c, "g", "Expansion rate"), Reply::Int(4));
    let items = keys("g", 30_000);
    for chunk in items.chunks(1000) {
        assert!(
            insert(&mut c, "g", chunk)
                .iter()
                .all(|answer| *answer == Reply::Int(1))
        );
    }
    // 1000 + 4000 + 16000 keys at 95% of the slots hold fewer than 30000: a fourth stage.
    assert_eq!(info(&mut c, "g", "Number of filters"), Reply::Int(4));
    assert_eq!(
        info(&mut c, "g", "Bytes"),
        Reply::Int(stage_bytes(1000, 4, 4))
    );
    assert_eq!(
        info(&mut c, "g", "Number of items inserted"),
        Reply::Int(30_000)
    );
    assert_eq!(present(&mut c, "g", &items), items.len());
    // Each stage adds its own rate (about 0.45% when full), as each of RedisBloom's
    // sub-filters adds its own.
    let absent = present(&mut c, "g", &keys("absent", 100_000));
    assert!(absent < 2000, "{absent} false positives in 10^5");
    // Deleted keys leave; the counts follow.
    for key in &items[..100] {
        assert_eq!(c.cmd(&["CF.DEL", "g", key]), Reply::Int(1));
    }
    assert_eq!(
        info(&mut c, "g", "Number of items deleted"),
        Reply::Int(100)
    );
    assert_eq!(
        info(&mut c, "g", "Number of items inserted"),
        Reply::Int(29_900)
    );
    assert!(present(&mut c, "g", &items[..100]) < 5);

    // EXPANSION 1 and a tiny reservation: 32 stages, then RedisBloom's refusal.
    assert_eq!(c.cmd(&["CF.RESERVE", "t", "4"]), ok());
    let mut refused = None;
    for (index, key) in keys("t", 5000).iter().enumerate() {
        let reply = c.cmd(&["CF.ADD", "t", key]);
        if reply.is_error() {
            refused = Some((index, reply));
            break;
        }
    }
    let (index, reply) = refused.expect("32 stages of one block fill up");
    assert_eq!(reply.error(), "Maximum expansions reached");
    assert!(index > 32 * 4, "{index}");
    assert_eq!(info(&mut c, "t", "Number of filters"), Reply::Int(32));
    assert!(c.cmd(&["CF.INSERT", "t", "ITEMS", "x"]).is_error());
    assert_eq!(c.cmd(&["CF.DEL", "t", "t:0"]), Reply::Int(1));
    assert_eq!(c.cmd(&["CF.EXISTS", "t", "t:1"]), Reply::Int(1));
}

#[test]
fn bad_arguments_and_other_types_get_redisblooms_errors() {
    let server = server();
    let mut c = server.conn();
    c.cmd(&["SET", "str", "x"]);
    c.cmd(&["BF.ADD", "bloom", "x"]);
    c.cmd(&["CF.RESERVE", "cf", "1000"]);
    let cases: [(&[&str], &str); 14] = [
        (&["CF.RESERVE", "n", "x"], "Bad capacity"),
        (
            &["CF.RESERVE", "n", "3"],
            "Capacity must be at least (BucketSize * 2)",
        ),
        (
            &["CF.RESERVE", "n", "100", "BUCKETSIZE", "x"],
            "Couldn't parse BUCKETSIZE",
        ),
        (
            &["CF.RESERVE", "n", "100", "EXPANSION", "40000"],
            "EXPANSION: value must be an integer between 0 and 32768, inclusive.",
        ),
        (
            &["CF.RESERVE", "n", "100", "BOGUS", "1"],
            "unknown argument",
        ),
        (&["CF.RESERVE", "cf", "1000"], "item exists"),
        (&["CF.RESERVE", "str", "1000"], "WRONGTYPE"),
        (&["CF.ADD", "str", "x"], "WRONGTYPE"),
        (&["CF.ADD", "bloom", "x"], "WRONGTYPE"),
        (&["CF.INSERT", "n", "NOCREATE", "ITEMS", "x"], "not found"),
        (
            &["CF.INSERT", "n", "WHAT", "ITEMS", "x"],
            "Unknown argument received",
        ),
        (&["CF.DEL", "n", "x"], "Not found"),
        (&["CF.INFO", "n"], "not found"),
        (
            &["CF.RESERVE", "n", "9223372036854775807"],
            "Insufficient memory to create filter",
        ),
    ];
    for (command, message) in cases {
        let reply = c.cmd(command);
        assert!(reply.error().contains(message), "{command:?}: {reply:?}");
    }
    // Reads of a missing key or another type answer 0, as RedisBloom's.
    assert_eq!(c.cmd(&["CF.EXISTS", "bloom", "x"]), Reply::Int(0));
    assert!(c.cmd(&["CF.COUNT", "str", "x"]).is_error());
    assert_eq!(c.cmd(&["CF.COUNT", "n", "x"]), Reply::Int(0));
    assert_eq!(c.cmd(&["EXISTS", "n"]), Reply::Int(0));
    assert_eq!(c.cmd(&["TYPE", "cf"]).text(), "SBFqchain");
}

/// A dump of a filter that grew (and had deletes) restores bit for bit, on its own key or
/// another; what a restore is given is checked before it is used.
#[test]
fn scandump_loadchunk_restore_every_stage_and_refuse_hostile_bytes() {
    let server = server();
    let mut c = server.conn();
    c.cmd(&["CF.RESERVE", "f", "500", "EXPANSION", "2"]);
    let items = keys("f", 5000);
    for chunk in items.chunks(1000) {
        insert(&mut c, "f", chunk);
    }
    c.cmd(&["CF.DEL", "f", "f:7"]);
    let chunks = scandump(&mut c, "f");
    assert!(chunks.len() > 2, "a header and a chunk per stage");
    for (iter, data) in &chunks {
        assert_eq!(loadchunk(&mut c, "copy", *iter, data), ok());
    }
    assert_eq!(scandump(&mut c, "copy"), chunks);
    assert_eq!(c.cmd(&["SCF.INFO", "copy"]), c.cmd(&["SCF.INFO", "f"]));
    assert_eq!(present(&mut c, "copy", &items), items.len() - 1);

    // A restore replaces nothing: the header's iterator on an existing key is refused.
    let (header_iter, header) = &chunks[0];
    assert_eq!(
        loadchunk(&mut c, "f", *header_iter, header).error(),
        "ERR item exists"
    );
    // Out of order, bad checksum, or a corrupted block (checksum made to match): refused,
    // the restore where it was.
    assert_eq!(loadchunk(&mut c, "r", 1, header), ok());
    assert_eq!(c.cmd(&["CF.EXISTS", "r", "f:1"]), Reply::Int(0));
    assert!(
        c.cmd(&["CF.ADD", "r", "x"])
            .error()
            .contains("being restored")
    );
    let (iter, data) = &chunks[1];
    let skip = &chunks[2];
    assert_eq!(
        loadchunk(&mut c, "r", skip.0, &skip.1).error(),
        "Couldn't load chunk!"
    );
    let mut flipped = data.clone();
    flipped[0] ^= 1;
    assert_eq!(
        loadchunk(&mut c, "r", *iter, &flipped).error(),
        "Couldn't load chunk!"
    );
    let mut bad_block = data.clone();
    let payload = bad_block.len() - 8;
    bad_block[..64].fill(0xff);
    let check = xxhash_rust::xxh3::xxh3_64_with_seed(&bad_block[..payload], 0);
    bad_block[payload..].copy_from_slice(&check.to_le_bytes());
    assert_eq!(
        loadchunk(&mut c, "r", *iter, &bad_block).error(),
        "Couldn't load chunk!"
    );
    for (iter, data) in &chunks[1..] {
        assert_eq!(loadchunk(&mut c, "r", *iter, data), ok());
    }
    assert_eq!(scandump(&mut c, "r"), chunks);

    // Headers: too short, corrupted, or declaring stages its reservation does not give.
    assert_eq!(
        loadchunk(&mut c, "h", 1, &header[..20]).error(),
        "Invalid header"
    );
    let mut corrupted = header.clone();
    corrupted[9] ^= 1;
    assert_eq!(
        loadchunk(&mut c, "h", 1, &corrupted).error(),
        "Couldn't create filter!"
    );
    let mut bigger = header.clone();
    let at = 64;
    bigger[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let body = bigger.len() - 8;
    let check = xxhash_rust::xxh3::xxh3_64(&bigger[..body]);
    bigger[body..].copy_from_slice(&check.to_le_bytes());
    assert_eq!(
        loadchunk(&mut c, "h", 1, &bigger).error(),
        "Couldn't create filter!"
    );
    assert_eq!(c.cmd(&["EXISTS", "h"]), Reply::Int(0));
    // An empty filter dumps nothing, as RedisBloom's.
    c.cmd(&["CF.RESERVE", "empty", "100"]);
    let reply = c.cmd(&["CF.SCANDUMP", "empty", "0"]);
    assert_eq!(
        reply,
        Reply::Array(Some(vec![Reply::Int(0), Reply::Bulk(None)]))
    );
}

/// Every key's dump and info, in order.
fn state(c: &mut Conn, names: &[&str]) -> Vec<Reply> {
    names
        .iter()
        .flat_map(|name| [c.cmd(&["DUMP", name]), c.cmd(&["SCF.INFO", name])])
        .collect()
}

fn populate(c: &mut Conn) {
    c.cmd(&[
        "CF.RESERVE",
        "a",
        "200",
        "EXPANSION",
        "2",
        "BUCKETSIZE",
        "4",
    ]);
    insert(c, "a", &keys("a", 2000));
    c.cmd(&["CF.DEL", "a", "a:3"]);
    insert(c, "b", &keys("b", 10));
    // A restore in progress: its header and its first stage.
    let chunks = scandump(c, "a");
    for (iter, data) in &chunks[..2] {
        loadchunk(c, "partial", *iter, data);
    }
}

#[test]
fn debug_reload_rdb_aof_restore_replication_and_copy_keep_values_bit_identical() {
    let names = ["a", "b", "partial"];
    let server = Server::start_full(
        "cuckoo-aof",
        &["--appendonly", "yes", "--aof-use-rdb-preamble", "no"],
        &["BF_COMMANDS", "yes"],
        None,
    );
    let mut c = server.conn();
    populate(&mut c);
    let before = state(&mut c, &names);
    assert_eq!(c.cmd(&["DEBUG", "RELOAD"]), ok());
    assert_eq!(state(&mut c, &names), before, "DEBUG RELOAD");
    // RESTORE of a DUMP payload, a restore in progress included.
    for name in names {
        let payload = c.cmd(&["DUMP", name]).bytes();
        let copy = format!("{name}-restored");
        assert_eq!(
            c.cmd(&[b"RESTORE".as_slice(), copy.as_bytes(), b"0", &payload]),
            ok()
        );
        assert_eq!(c.cmd(&["DUMP", &copy]).bytes(), payload);
        c.cmd(&["DEL", &copy]);
    }
    assert!(c.cmd(&["BGREWRITEAOF"]).text().contains("rewriting"));
    wait_until("the AOF rewrite", || {
        c.info("persistence", "aof_rewrite_in_progress") == "0"
            && c.info("persistence", "aof_rewrite_scheduled") == "0"
            && c.info("persistence", "aof_last_bgrewrite_status") == "ok"
    });
    c.cmd(&["CF.ADD", "b", "after-rewrite"]);
    let before = state(&mut c, &names);
    let server = server.restart();
    let mut c = server.conn();
    assert_eq!(state(&mut c, &names), before, "AOF restart");
    assert_eq!(c.cmd(&["SAVE"]), ok());

    // A replica: the initial sync, then the command stream.
    let replica = Server::start_full(
        "cuckoo-replica",
        &["--replicaof", "127.0.0.1", &server.port.to_string()],
        &["BF_COMMANDS", "yes"],
        None,
    );
    let mut r = replica.conn();
    wait_until("the initial sync", || {
        r.info("replication", "master_link_status") == "up"
    });
    insert(&mut c, "a", &keys("late", 3000));
    c.cmd(&["CF.DEL", "a", "a:9"]);
    assert_eq!(c.cmd(&["COPY", "a", "c"]), Reply::Int(1));
    assert_eq!(c.cmd(&["WAIT", "1", "10000"]), Reply::Int(1));
    let names = ["a", "b", "c", "partial"];
    assert_eq!(state(&mut r, &names), state(&mut c, &names));
    // COPY is independent, and MEMORY USAGE counts the blocks.
    c.cmd(&["CF.DEL", "a", "a:10"]);
    assert_ne!(c.cmd(&["DUMP", "a"]), c.cmd(&["DUMP", "c"]));
    let bytes = info(&mut c, "c", "Bytes").int();
    let usage = c.cmd(&["MEMORY", "USAGE", "c"]).int();
    assert!(
        (bytes..bytes + 4096).contains(&usage),
        "{usage} for {bytes}"
    );
    // Valkey's MEMORY USAGE adds the key's name.
    assert!(info(&mut c, "c", "Size").int() <= usage);
}

/// A stage the primary's `maxmemory` refuses is not made on its replica, which the limits never
/// refuse: the replica is sent what the primary took, and both hold the same bytes.
#[test]
fn a_stage_refused_on_the_primary_is_not_made_on_its_replica() {
    let primary = Server::start_full(
        "cuckoo-refused",
        &["--maxmemory", "64mb"],
        &["BF_COMMANDS", "yes"],
        None,
    );
    let replica = Server::start_full(
        "cuckoo-refused-replica",
        &["--replicaof", "127.0.0.1", &primary.port.to_string()],
        &["BF_COMMANDS", "yes"],
        None,
    );
    let (mut c, mut r) = (primary.conn(), replica.conn());
    wait_until("the initial sync", || {
        r.info("replication", "master_link_status") == "up"
    });
    assert_eq!(
        c.cmd(&["CF.RESERVE", "grow", "10000", "EXPANSION", "32768"]),
        ok()
    );
    let (_, refused) = fill(&mut c, "grow");
    let reply = c.cmd(&["CF.ADD", "grow", &refused]);
    assert!(reply.error().starts_with("OOM"), "{reply:?}");
    let reply = c.cmd(&["CF.INSERTNX", "grow", "ITEMS", "fill0:0", &refused]);
    assert_eq!(
        reply,
        Reply::Array(Some(vec![Reply::Int(0), Reply::Int(-1)]))
    );
    assert_eq!(c.cmd(&["WAIT", "1", "10000"]), Reply::Int(1));
    assert_eq!(info(&mut r, "grow", "Number of filters"), Reply::Int(1));
    assert_eq!(r.cmd(&["DUMP", "grow"]), c.cmd(&["DUMP", "grow"]));
}

#[test]
fn maxmemory_and_max_filter_bytes_are_checked_before_every_allocation() {
    let server = Server::start_full(
        "cuckoo-limits",
        &["--maxmemory", "64mb"],
        &["BF_COMMANDS", "yes", "MAX_FILTER_BYTES", "40000000"],
        None,
    );
    let mut c = server.conn();
    // 98 MB: above MAX_FILTER_BYTES; 35 MB: under it, then a second that does not fit.
    let reply = c.cmd(&["CF.RESERVE", "big", "70000000"]);
    assert!(reply.error().contains("MAX_FILTER_BYTES"), "{reply:?}");
    assert_eq!(c.cmd(&["CF.RESERVE", "one", "25000000"]), ok());
    let reply = c.cmd(&["CF.RESERVE", "two", "25000000"]);
    assert!(reply.error().starts_with("OOM"), "{reply:?}");
    // A new stage that does not fit: INSERT answers -1 for it, ADD the OOM error.
    assert_eq!(
        c.cmd(&["CF.RESERVE", "grow", "10000", "EXPANSION", "4096"]),
        ok()
    );
    let (_, refused) = fill(&mut c, "grow");
    let reply = c.cmd(&["CF.ADD", "grow", &refused]);
    assert!(reply.error().starts_with("OOM"), "{reply:?}");
    assert_eq!(info(&mut c, "grow", "Number of filters"), Reply::Int(1));
    // A header declaring more than fits, and a COPY that does not fit.
    let chunks = scandump(&mut c, "grow");
    c.cmd(&["CF.RESERVE", "small", "1000"]);
    c.cmd(&["CF.ADD", "small", "x"]);
    assert!(c.cmd(&["COPY", "one", "three"]).is_error());
    let mut header = chunks[0].1.clone();
    header[8..16].copy_from_slice(&20_000_000u64.to_le_bytes());
    header[64..72].copy_from_slice(
        &(num_blocks_for_capacity(20_000_000, TagBits::Eight).unwrap() as u64).to_le_bytes(),
    );
    let body = header.len() - 8;
    let check = xxhash_rust::xxh3::xxh3_64(&header[..body]);
    header[body..].copy_from_slice(&check.to_le_bytes());
    assert!(
        loadchunk(&mut c, "restored", 1, &header)
            .error()
            .starts_with("OOM")
    );
    assert_eq!(c.cmd(&["EXISTS", "restored", "three"]), Reply::Int(0));
}
