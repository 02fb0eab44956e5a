//! The SBFfilter data type through Redis's persistence and replication: DEBUG RELOAD, RDB and
//! AOF restarts keep every filter bit-identical (wide ones, NONSCALING at 0.1% and below,
//! included), unknown RDB encoding versions and corrupted
//! payloads are refused, MEMORY USAGE counts the bitset, and a replica answers like its primary.

mod common;

use common::{Conn, ModuleHasher, Reply, Server, wait_until};

/// Filters of several shapes: defaults, a large one (a chain of wide stages: reserved at
/// 0.001), another seed (via LOAD), a MERGE result.
fn populate(c: &mut Conn) {
    assert_eq!(
        c.cmd(&["SBF.RESERVE", "big", "0.001", "200000"]),
        Reply::Status("OK".into())
    );
    let keys: Vec<String> = (0..20_000).map(|i| format!("key:{i}")).collect();
    let mut madd = vec!["SBF.MADD".to_string(), "big".into()];
    madd.extend(keys);
    c.cmd(&madd);
    c.cmd(&["SBF.ADD", "small", "apple"]);
    c.cmd(&[
        "SBF.INSERT",
        "ins",
        "CAPACITY",
        "300",
        "ERROR",
        "0.05",
        "ITEMS",
        "a",
        "b",
    ]);
    let seeded =
        splitbloom::Filter::with_fpr_and_hasher(500, 0.01, ModuleHasher::with_seed(99)).unwrap();
    let mut seeded = seeded;
    seeded.insert_bytes(b"seeded-key");
    c.cmd(&[b"SBF.LOAD".as_slice(), b"seeded", &seeded.to_bytes()]);
    c.cmd(&["SBF.RESERVE", "m1", "0.01", "100"]);
    c.cmd(&["SBF.ADD", "m1", "x"]);
    c.cmd(&["SBF.MERGE", "merged", "m1", "small"]);
    // A chain of three sub-filters, and a chunked restore of it stopped after the first.
    c.cmd(&["SBF.RESERVE", "chain", "0.01", "100"]);
    let items: Vec<String> = (0..400).map(|i| format!("chain:{i}")).collect();
    let mut madd = vec!["SBF.MADD".to_string(), "chain".into()];
    madd.extend(items);
    c.cmd(&madd);
    assert_eq!(c.cmd(&["SBF.INFO", "chain", "FILTERS"]).ints(), [3]);
    for iter in [0, 1] {
        let Reply::Array(Some(pair)) = c.cmd(&["SBF.SCANDUMP", "chain", &iter.to_string()]) else {
            panic!("SCANDUMP")
        };
        let (next, chunk) = (pair[0].int().to_string(), pair[1].bytes());
        let reply = c.cmd(&[
            b"SBF.LOADCHUNK".as_slice(),
            b"partial",
            next.as_bytes(),
            &chunk,
        ]);
        assert_eq!(reply, Reply::Status("OK".into()));
    }
    // Wide filters, with one and two probes per key, and a restore of one that has its header.
    c.cmd(&["SBF.RESERVE", "wide", "0.00001", "5000", "NONSCALING"]);
    c.cmd(&["SBF.RESERVE", "wide1", "0.001", "1000", "NONSCALING"]);
    for key in ["wide", "wide1"] {
        let items: Vec<String> = (0..800).map(|i| format!("{key}:{i}")).collect();
        let mut madd = vec!["SBF.MADD".to_string(), key.into()];
        madd.extend(items);
        c.cmd(&madd);
    }
    let Reply::Array(Some(pair)) = c.cmd(&["SBF.SCANDUMP", "wide", "0"]) else {
        panic!("SCANDUMP")
    };
    let reply = c.cmd(&[
        b"SBF.LOADCHUNK".as_slice(),
        b"widepartial",
        b"1",
        &pair[1].bytes(),
    ]);
    assert_eq!(reply, Reply::Status("OK".into()));
    let info = c.cmd(&["SBF.INFO", "wide"]);
    let wide = Reply::Bulk(Some(b"wide".to_vec()));
    assert!(
        matches!(&info, Reply::Array(Some(items)) if items.contains(&wide)),
        "{info:?}"
    );
}

const KEYS: [&str; 11] = [
    "big",
    "small",
    "ins",
    "seeded",
    "m1",
    "merged",
    "chain",
    "partial",
    "wide",
    "wide1",
    "widepartial",
];

/// Every filter's bytes (`SBF.DUMP`'s and `SCANDUMP`'s) and INFO, in order.
fn state(c: &mut Conn) -> Vec<Reply> {
    let mut state = Vec::new();
    for key in KEYS {
        state.push(c.cmd(&["SBF.DUMP", key]));
        state.push(scandump(c, key));
        state.push(c.cmd(&["SBF.INFO", key]));
    }
    state.push(c.cmd(&["DBSIZE"]));
    state
}

/// The whole `SCANDUMP` stream of `key` as one reply (its error when it has none).
fn scandump(c: &mut Conn, key: &str) -> Reply {
    let mut stream = Vec::new();
    let mut iter = 0;
    loop {
        let pair = match c.cmd(&["SBF.SCANDUMP", key, &iter.to_string()]) {
            Reply::Array(Some(pair)) => pair,
            other => return other,
        };
        iter = pair[0].int();
        if iter == 0 {
            return Reply::Bulk(Some(stream));
        }
        stream.extend(pair[1].bytes());
    }
}

/// Asserts two states are equal, naming the first difference without printing whole bitsets.
fn assert_same(left: &[Reply], right: &[Reply], what: &str) {
    assert_eq!(left.len(), right.len(), "{what}");
    for (index, (left, right)) in left.iter().zip(right).enumerate() {
        if left != right {
            let show = |reply: &Reply| match reply {
                Reply::Bulk(Some(bytes)) => format!("{} bytes", bytes.len()),
                other => format!("{other:?}"),
            };
            panic!(
                "{what}: entry {index} (key {}) differs: {} vs {}",
                KEYS.get(index / 3).unwrap_or(&"DBSIZE"),
                show(left),
                show(right)
            );
        }
    }
}

#[test]
fn debug_reload_and_rdb_restart_keep_filters_bit_identical() {
    let server = Server::start("rdb");
    let mut c = server.conn();
    populate(&mut c);
    let before = state(&mut c);
    // Every key answers, but SBF.DUMP and SCANDUMP of the restores in progress.
    assert_eq!(before.iter().filter(|reply| reply.is_error()).count(), 4);

    assert_eq!(c.cmd(&["DEBUG", "RELOAD"]), Reply::Status("OK".into()));
    assert_same(&state(&mut c), &before, "DEBUG RELOAD changed a filter");

    assert_eq!(c.cmd(&["SAVE"]), Reply::Status("OK".into()));
    let server = server.restart();
    let mut c = server.conn();
    assert_eq!(
        state(&mut c),
        before,
        "a restart from the RDB changed a filter"
    );
    assert_eq!(c.cmd(&["SBF.EXISTS", "seeded", "seeded-key"]).int(), 1);
    assert_eq!(
        c.cmd(&["SBF.MEXISTS", "wide", "wide:0", "wide:799"]).ints(),
        [1, 1]
    );
}

#[test]
fn aof_rewrite_and_restart_keep_filters_bit_identical() {
    // Without the RDB preamble, so that the rewrite goes through the type's aof_rewrite.
    let server = Server::start_with(
        "aof",
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
    // Writes after the rewrite are appended as commands.
    c.cmd(&["SBF.ADD", "small", "after-rewrite"]);
    let before = state(&mut c);
    let aof_dir = server.dir.join("appendonlydir");
    let rewritten = std::fs::read_dir(&aof_dir)
        .unwrap()
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .any(|bytes| bytes.windows(13).any(|window| window == b"SBF.LOADCHUNK"));
    assert!(rewritten, "the rewritten AOF holds SBF.LOADCHUNK commands");

    let server = server.restart();
    let mut c = server.conn();
    assert_same(
        &state(&mut c),
        &before,
        "a restart from the AOF changed a filter",
    );
}

#[test]
fn memory_usage_counts_the_bitset() {
    let server = Server::start("memory");
    let mut c = server.conn();
    c.cmd(&["SBF.RESERVE", "f", "0.01", "1000000"]);
    let bytes = c.cmd(&["SBF.INFO", "f", "SIZE"]).ints()[0];
    let usage = c.cmd(&["MEMORY", "USAGE", "f"]).int();
    let info = c.cmd(&["SBF.INFO", "f"]);
    let Reply::Array(Some(fields)) = info else {
        panic!("{info:?}")
    };
    let bitset = fields
        .chunks(2)
        .find(|pair| pair[0].text() == "Bytes")
        .unwrap()[1]
        .int();
    // The first sub-filter is sized at half the error rate, as RedisBloom's.
    let expected = splitbloom::math::num_blocks_for_fpr(1_000_000, 0.005).unwrap() as i64 * 32;
    assert!(
        (expected * 99 / 100..=expected * 101 / 100).contains(&bitset),
        "{bitset} {expected}"
    );
    // The bitset, plus the key and the value's header.
    assert!((bitset..bitset + 4096).contains(&usage), "{usage}");
    assert!((bitset..=usage).contains(&bytes), "{bytes} {usage}");

    // A wide filter's 64-byte blocks, below the huge-page threshold (8 MiB) and above it.
    for (capacity, rate) in [("1000000", 1e-4), ("3000000", 1e-6)] {
        c.cmd(&[
            "SBF.RESERVE",
            "w",
            &rate.to_string(),
            capacity,
            "NONSCALING",
        ]);
        let wide = splitbloom::WideFilter::with_fpr(capacity.parse().unwrap(), rate).unwrap();
        let bitset = wide.size_in_bytes() as u64;
        let allocated = if bitset < 8 << 20 {
            bitset
        } else {
            bitset.next_multiple_of(2 << 20) + (2 << 20)
        };
        let usage = c.cmd(&["MEMORY", "USAGE", "w"]).int() as u64;
        assert!(
            (allocated..allocated + 4096).contains(&usage),
            "{capacity} at {rate}: {usage} for {bitset} bytes"
        );
        c.cmd(&["DEL", "w"]);
    }
}

/// CRC-64/Jones as Redis computes it for DUMP payloads (reflected, initial 0, no final xor).
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

/// A DUMP payload with its trailing CRC recomputed after an edit.
fn reseal(payload: &mut [u8]) {
    let body = payload.len() - 8;
    let crc = crc64(&payload[..body]);
    payload[body..].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn rdb_refuses_unknown_encoding_versions_and_corrupted_filters() {
    assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
    let mut server = Server::start("restore");
    let mut c = server.conn();
    c.cmd(&["SBF.RESERVE", "f", "0.01", "1000"]);
    c.cmd(&["SBF.MADD", "f", "a", "b", "c"]);
    let filter = c.cmd(&["SBF.DUMP", "f"]).bytes();
    // Redis's DUMP: type 7 (module, v2), the module id as a 64-bit length (0x81 + 8 bytes big
    // endian; its low 10 bits are the encoding version), the value, RDB version, CRC-64.
    let payload = c.cmd(&["DUMP", "f"]).bytes();
    assert_eq!(&payload[..2], [7, 0x81]);
    let id = u64::from_be_bytes(payload[2..10].try_into().unwrap());
    assert_eq!(id & 0x3ff, 3, "encoding version 3");

    // The untouched payload restores bit-identically (the control).
    assert_eq!(
        c.cmd(&[b"RESTORE".as_slice(), b"copy", b"0", &payload]),
        Reply::Status("OK".into())
    );
    assert_eq!(c.cmd(&["SBF.DUMP", "copy"]).bytes(), filter);

    let mut bad_version = payload.clone();
    bad_version[2..10].copy_from_slice(&((id & !0x3ff) | 4).to_be_bytes());
    reseal(&mut bad_version);
    let mut bad_filter = payload.clone();
    // A bit of the bitset, inside the crate's checksummed bytes, near the end of the value.
    let at = payload.len() - 8 - 2 - 40;
    bad_filter[at] ^= 0x10;
    reseal(&mut bad_filter);
    let truncated = payload[..payload.len() - 20].to_vec();

    for (name, bad) in [
        ("version 4", &bad_version),
        ("flipped bit", &bad_filter),
        ("truncated", &truncated),
    ] {
        for key in ["new", "f"] {
            let mut args = vec![b"RESTORE".to_vec(), key.into(), b"0".to_vec(), bad.clone()];
            if key == "f" {
                args.push(b"REPLACE".to_vec());
            }
            let reply = c.cmd(&args);
            assert!(reply.is_error(), "{name} into {key}: {reply:?}");
            assert!(server.alive(), "{name} killed the server");
            assert_eq!(c.cmd(&["PING"]), Reply::Status("PONG".into()));
        }
    }
    assert_eq!(c.cmd(&["EXISTS", "new"]).int(), 0);
    assert_eq!(c.cmd(&["SBF.DUMP", "f"]).bytes(), filter);
    assert!(
        server.log().contains("refusing RDB encoding version 4"),
        "{}",
        server.log()
    );

    // A wide filter's payload restores as a wide filter; with a bit flipped in its bitset, or
    // with its layout id in the SBLM header changed, it is refused.
    c.cmd(&["SBF.RESERVE", "w", "0.0001", "1000", "NONSCALING"]);
    c.cmd(&["SBF.MADD", "w", "a", "b", "c"]);
    let wide = c.cmd(&["SBF.DUMP", "w"]).bytes();
    let payload = c.cmd(&["DUMP", "w"]).bytes();
    assert_eq!(
        c.cmd(&[b"RESTORE".as_slice(), b"wcopy", b"0", &payload]),
        Reply::Status("OK".into())
    );
    assert_eq!(c.cmd(&["SBF.DUMP", "wcopy"]).bytes(), wide);
    assert_eq!(c.cmd(&["SBF.MEXISTS", "wcopy", "a", "c"]).ints(), [1, 1]);
    let mut flipped = payload.clone();
    let at = payload.len() - 8 - 2 - 40;
    flipped[at] ^= 0x10;
    reseal(&mut flipped);
    // The stage's SBLM bytes are the only place the filter's own magic appears.
    let magic = payload
        .windows(4)
        .position(|window| window == b"SBLM")
        .expect("the stage's SBLM bytes");
    let mut relaid = payload.clone();
    relaid[magic + 7] = 0;
    reseal(&mut relaid);
    for (name, bad) in [("flipped bit", flipped), ("split-block layout id", relaid)] {
        let reply = c.cmd(&[b"RESTORE".as_slice(), b"wbad", b"0", &bad]);
        assert!(reply.is_error(), "{name}: {reply:?}");
        assert!(server.alive(), "{name} killed the server");
    }
    assert_eq!(c.cmd(&["EXISTS", "wbad"]).int(), 0);
}

#[test]
fn a_replica_answers_like_its_primary() {
    let primary = Server::start("primary");
    let mut p = primary.conn();
    // Before the replica exists: it gets these through the initial sync (an RDB transfer).
    populate(&mut p);
    let replica = Server::start_with(
        "replica",
        &["--replicaof", "127.0.0.1", &primary.port.to_string()],
    );
    let mut r = replica.conn();
    wait_until("the initial sync", || {
        r.info("replication", "master_link_status") == "up"
    });
    // After: through the command stream.
    p.cmd(&["SBF.MADD", "big", "later-1", "later-2"]);
    p.cmd(&["SBF.INSERT", "new", "ITEMS", "n1", "n2"]);
    p.cmd(&["SBF.MERGE", "m1", "m1", "small"]);
    let bytes = p.cmd(&["SBF.DUMP", "ins"]).bytes();
    p.cmd(&[b"SBF.LOAD".as_slice(), b"loaded", &bytes]);
    // New sub-filters, a NONSCALING filter's partial batch, a chunked restore and COPY.
    let more: Vec<String> = (0..500).map(|i| format!("more:{i}")).collect();
    let mut madd = vec!["SBF.MADD".to_string(), "small".into()];
    madd.extend(more);
    p.cmd(&madd);
    assert!(p.cmd(&["SBF.INFO", "small", "FILTERS"]).ints()[0] > 1);
    p.cmd(&["SBF.RESERVE", "fixed", "0.01", "2", "NONSCALING"]);
    assert_eq!(
        p.cmd(&["SBF.MADD", "fixed", "a", "b", "c"]),
        Reply::Array(Some(vec![
            Reply::Int(1),
            Reply::Int(1),
            Reply::Error("ERR non scaling filter is full".into())
        ]))
    );
    let mut iter = 0;
    loop {
        let Reply::Array(Some(pair)) = p.cmd(&["SBF.SCANDUMP", "ins", &iter.to_string()]) else {
            panic!("SCANDUMP")
        };
        iter = pair[0].int();
        if iter == 0 {
            break;
        }
        let chunk = pair[1].bytes();
        p.cmd(&[
            b"SBF.LOADCHUNK".as_slice(),
            b"restored",
            iter.to_string().as_bytes(),
            &chunk,
        ]);
    }
    assert_eq!(p.cmd(&["COPY", "big", "copied"]).int(), 1);
    // Wide keys: a reservation, its adds, a full one's partial batch, COPY and MERGE.
    p.cmd(&["SBF.RESERVE", "wide-new", "0.0001", "2", "NONSCALING"]);
    assert_eq!(
        p.cmd(&["SBF.MADD", "wide-new", "a", "b", "c"]),
        Reply::Array(Some(vec![
            Reply::Int(1),
            Reply::Int(1),
            Reply::Error("ERR non scaling filter is full".into())
        ]))
    );
    assert_eq!(p.cmd(&["COPY", "wide", "wide-copied"]).int(), 1);
    p.cmd(&["SBF.ADD", "wide-copied", "copy-only"]);
    p.cmd(&["SBF.MERGE", "wide-merged", "wide", "wide-copied"]);
    assert_eq!(p.cmd(&["WAIT", "1", "10000"]).int(), 1);

    assert_same(&state(&mut r), &state(&mut p), "the replica differs");
    for key in [
        "new",
        "loaded",
        "fixed",
        "restored",
        "copied",
        "wide-new",
        "wide-copied",
        "wide-merged",
    ] {
        assert!(
            r.cmd(&["SBF.DUMP", key]) == p.cmd(&["SBF.DUMP", key]),
            "{key}"
        );
        assert_eq!(r.cmd(&["SBF.INFO", key]), p.cmd(&["SBF.INFO", key]));
    }
    let probe: Vec<String> = (0..25_000).step_by(7).map(|i| format!("key:{i}")).collect();
    let mut mexists = vec!["SBF.MEXISTS".to_string(), "big".into()];
    mexists.extend(probe);
    mexists.push("later-2".into());
    assert_eq!(r.cmd(&mexists), p.cmd(&mexists));
    // A replica is read-only.
    assert!(
        r.cmd(&["SBF.ADD", "big", "x"])
            .error()
            .starts_with("READONLY")
    );
}
