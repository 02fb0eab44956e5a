//! splitbloom (with `BF_COMMANDS yes`) against the real RedisBloom 2.4.23 and valkey-bloom
//! binaries, in the same run (`../shared/peers/redis/`, see its README):
//!
//! * a differential test: the same command sequences to RedisBloom and to splitbloom, every
//!   reply compared, RESP2 and RESP3, except the few that depend on the implementation (`Size`)
//!   or on false positives, RedisBloom's RESP3 predicates read as current RedisBloom sends them
//!   (booleans);
//! * RedisBloom's `tests/flow/test_overall.py` Bloom tests and valkey-bloom's `tests/*.py`,
//!   re-expressed here (each case names its upstream file and test). Every case runs on every
//!   module; a case that fails on the module it came from is a porting bug and fails this
//!   test, and so does a case splitbloom fails unless it is in `KNOWN`, which says why. The
//!   pass counts are printed (`cargo test --test peers -- --nocapture`).

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::ported::*;
use common::{Conn, Reply, Server, peers_dir};

/// `BF.INFO` as a map of field to value.
fn info(c: &mut Conn, key: &str) -> Result<BTreeMap<String, Reply>, String> {
    Ok(info_fields(c, "BF", key)?.into_iter().collect())
}

/// The one-field `BF.INFO` form: RedisBloom answers `[n]`, valkey-bloom `n`.
fn one_field(reply: &Reply) -> Result<i64, String> {
    match reply {
        Reply::Int(value) => Ok(*value),
        Reply::Array(Some(items)) if items.len() == 1 => match items[0] {
            Reply::Int(value) => Ok(value),
            _ => Err(format!("{reply:?}")),
        },
        _ => Err(format!("{reply:?}")),
    }
}

/// `BF.MADD` of `items` in commands of `batch`; the answers.
fn madd(c: &mut Conn, key: &str, items: &[String], batch: usize) -> Result<Vec<Reply>, String> {
    let mut answers = Vec::new();
    for chunk in items.chunks(batch) {
        let mut args = vec!["BF.MADD".to_string(), key.to_string()];
        args.extend(chunk.iter().cloned());
        match c.cmd(&args) {
            Reply::Array(Some(items)) => answers.extend(items),
            other => return Err(format!("BF.MADD {key}: {other:?}")),
        }
    }
    Ok(answers)
}

/// How many of `items` the filter answers present.
fn count_present(c: &mut Conn, key: &str, items: &[String]) -> Result<i64, String> {
    let mut present = 0;
    for chunk in items.chunks(1000) {
        let mut args = vec!["BF.MEXISTS".to_string(), key.to_string()];
        args.extend(chunk.iter().cloned());
        match c.cmd(&args) {
            Reply::Array(Some(items)) => {
                present += items.iter().filter(|item| **item == Reply::Int(1)).count() as i64
            }
            other => return Err(format!("BF.MEXISTS {key}: {other:?}")),
        }
    }
    Ok(present)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
enum Module {
    Splitbloom,
    RedisBloom,
    Valkey,
}

/// The ported cases splitbloom does not pass, and why.
const KNOWN: &[(&str, &str)] = &[
    (
        "test_overall.py::test_insert",
        "ends with BF.DEBUG, RedisBloom's view of its own bit layout (bytes, hashes per link)",
    ),
    (
        "test_overall.py::test_debug",
        "BF.DEBUG: RedisBloom's bit layout",
    ),
    (
        "test_overall.py::test_mem_usage",
        "expects RedisBloom's exact MEMORY USAGE (1104 bytes) for its layout",
    ),
    (
        "test_overall.py::test_info",
        "expects RedisBloom's exact Size (296)",
    ),
    (
        "test_overall.py::test_info_size",
        "expects RedisBloom's exact Size (296)",
    ),
    (
        "test_overall.py::test_nonscaling_err",
        "expects RedisBloom's exact Size (104)",
    ),
    (
        "test_overall.py::test_issue178",
        "expects RedisBloom's exact Size (1132420232); the split-block filter needs 2.25x at 1e-6",
    ),
    (
        "test_overall.py::test_expansion",
        "expects the sub-filter counts RedisBloom's own false positives give (23, 5, 4)",
    ),
    (
        "test_basic.py::test_module_data_type",
        "expects valkey-bloom's type name bloomfltr",
    ),
    (
        "test_bloom_command.py::test_bloom_command_error",
        "expects valkey-bloom's error strings, not RedisBloom's",
    ),
    (
        "test_basic.py::test_large_allocation_when_below_maxmemory",
        "expects a 21 MB filter under maxmemory 2 MB and allkeys-lru to be created, then evicted; \
         splitbloom refuses a value that cannot fit even after every key is evicted",
    ),
];

/// Ported cases that fail on the module they come from, on this server (Redis 7.0.15).
const UPSTREAM_FAILS: &[(&str, &str)] = &[(
    "test_overall.py::test_mem_usage",
    "RedisBloom 2.4.23 answers 1088 on Redis 7.0.15; its test expects 1104 from 7.0 on",
)];

fn cases() -> Vec<Case<Module>> {
    use Module::{RedisBloom as RB, Valkey as VK};
    vec![
        // RedisBloom tests/flow/test_overall.py (branch 2.4), class testRedisBloom.
        Case {
            origin: RB,
            name: "test_overall.py::test_custom_filter",
            run: |c| {
                expect_ok(c, "bf.reserve test 0.05 1000")?;
                expect_ints(c, "bf.madd test foo bar baz", &[1, 1, 1])?;
                expect_int(c, "bf.exists test foo", 1)?;
                expect_int(c, "bf.exists test nonexist", 0)?;
                expect_error_line(c, "bf.reserve test 0.01")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_set",
            run: |c| {
                expect_int(c, "bf.add test foo", 1)?;
                expect_int(c, "bf.exists test foo", 1)?;
                expect_int(c, "bf.exists test bar", 0)?;
                expect_ints(c, "bf.madd test foo bar", &[0, 1])?;
                expect_int(c, "bf.exists test foo", 1)?;
                expect_int(c, "bf.exists test bar", 1)?;
                expect_int(c, "bf.exists test nonexist", 0)
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_multi",
            run: |c| {
                expect_ints(c, "bf.madd test foo bar baz", &[1, 1, 1])?;
                expect_ints(c, "bf.madd test foo new1 bar", &[0, 1, 0])?;
                expect_ints(c, "bf.mexists test nonexist", &[0])?;
                expect_ints(c, "bf.mexists test nonexist foo", &[0, 1])
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_validation",
            run: |c| {
                for args in [
                    "",
                    "foo",
                    "foo 0.001",
                    "foo 0.001 blah",
                    "foo 0 0",
                    "foo 0 100",
                    "foo blah 1000",
                    "foo 7.7 1000",
                ] {
                    expect_error_line(c, &format!("bf.reserve {args}"))?;
                }
                expect_ok(c, "bf.reserve test 0.01 1000")?;
                for args in ["", "test"] {
                    for command in ["bf.add", "bf.madd", "bf.exists", "bf.mexists"] {
                        expect_error_line(c, &format!("{command} {args}"))?;
                    }
                }
                expect_error_line(c, "bf.exists test 1 2")?;
                expect_error_line(c, "bf.add test 1 2")?;
                run(c, "set foo bar");
                expect_error_line(c, "bf.reserve foo")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_oom",
            run: |c| expect_error_line(c, "bf.reserve test 0.01 18446744073709551616"),
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_rdb_reload",
            run: |c| {
                expect_int(c, "bf.add test foo", 1)?;
                expect_ok(c, "debug reload")?;
                expect_int(c, "bf.exists test foo", 1)?;
                expect_int(c, "bf.exists test bar", 0)
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_dump_and_load",
            run: |c| {
                run(c, "bf.reserve myBloom 0.001 8192000");
                expect_error_line(c, "bf.scandump myBloom")?;
                expect_error_line(c, "bf.scandump myBloom str")?;
                expect_error_line(c, "bf.scandump myCuckoo 0")?;
                expect_error_line(c, "bf.loadchunk myBloom")?;
                expect_error_line(c, "bf.loadchunk myBloom str data")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_missing",
            run: |c| {
                expect_int(c, "bf.exists myBloom foo", 0)?;
                expect_ints(c, "bf.mexists myBloom foo bar baz", &[0, 0, 0])
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_insert",
            run: |c| {
                for line in [
                    "bf.insert missingFilter NOCREATE ITEMS foo bar",
                    "bf.insert missingFilter DONTEXIST NOCREATE",
                    "bf.insert missingFilter",
                    "bf.insert missingFilter NOCREATE ITEMS",
                    "bf.insert missingFilter NOCREATE CAPACITY",
                    "bf.insert missingFilter CAPACITY 0.3",
                    "bf.insert missingFilter ERROR",
                    "bf.insert missingFilter ERROR big",
                    "bf.insert missingFilter EXPANSION 0 ITEMS foo",
                    "bf.insert missingFilter EXPANSION big",
                ] {
                    expect_error_line(c, line)?;
                }
                expect_ints(
                    c,
                    "BF.INSERT missingFilter ERROR 0.001 CAPACITY 50000 EXPANSION 2 ITEMS foo",
                    &[1],
                )?;
                let debug = run(c, "bf.debug missingFilter");
                check!(!debug.is_error(), "bf.debug: {debug:?}");
                expect_ints(
                    c,
                    "BF.INSERT missingFilter ERROR 0.1 ITEMS foo bar baz",
                    &[0, 1, 1],
                )
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_mem_usage",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.05 1000")?;
                expect_ok(c, "debug reload")?;
                expect_int(c, "MEMORY USAGE bf", 1104)?;
                expect_ints(c, "bf.madd bf foo bar baz", &[1, 1, 1])?;
                expect_int(c, "MEMORY USAGE bf", 1104)?;
                expect_error_line(c, "bf.debug bf noexist")?;
                expect_error_line(c, "bf.debug cf")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_expansion",
            run: |c| {
                expect_ok(c, "bf.reserve exp1 0.01 4 expansion 1")?;
                expect_ok(c, "bf.reserve exp2 0.01 4 expansion 2")?;
                expect_ok(c, "bf.reserve exp4 0.01 4 expansion 4")?;
                for i in 0..100 {
                    for key in ["exp1", "exp2", "exp4"] {
                        run(c, &format!("bf.add {key} {i}"));
                    }
                }
                for i in 0..100 {
                    for key in ["exp1", "exp2", "exp4"] {
                        expect_int(c, &format!("bf.exists {key} {i}"), 1)?;
                    }
                }
                for (key, filters) in [("exp1", 23), ("exp2", 5), ("exp4", 4)] {
                    let got = info_int(c, "BF", key, "Number of filters")?;
                    check!(got == filters, "{key}: {got} filters, want {filters}");
                }
                expect_error_line(c, "bf.reserve exp4 0.01 4 expansion")?;
                expect_error_line(c, "bf.reserve exp4 0.01 4 expansion 0")?;
                expect_error_line(c, "bf.reserve exp4 0.01 4 expansion str")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_debug",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.01 10")?;
                let got = run(c, "bf.debug bf");
                check!(matches!(got, Reply::Array(Some(_))), "bf.debug: {got:?}");
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_info",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                let want = [
                    ("Capacity", 100),
                    ("Size", 296),
                    ("Number of filters", 1),
                    ("Number of items inserted", 0),
                    ("Expansion rate", 2),
                ];
                let want = Reply::Array(Some(
                    want.iter()
                        .flat_map(|(k, v)| [Reply::Status(k.to_string()), Reply::Int(*v)])
                        .collect(),
                ));
                expect(c, "bf.info bf", want)?;
                expect_error_line(c, "bf.info cf")?;
                expect_error_line(c, "bf.info")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_info_capacity",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                expect_ints(c, "bf.info bf capacity", &[100])
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_info_size",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                expect_ints(c, "bf.info bf size", &[296])
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_info_filters",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                expect_ints(c, "bf.info bf filters", &[1])
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_info_items",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                expect_ints(c, "bf.info bf items", &[0])
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_info_expansion",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                expect_ints(c, "bf.info bf expansion", &[2])
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_info_errors",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                expect_error_line(c, "bf.info bf capacity size")?;
                expect_error_line(c, "bf.info bf wrong_value")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_card",
            run: |c| {
                expect_int(c, "bf.card not_exist", 0)?;
                expect_ok(c, "bf.reserve bf 0.001 100")?;
                expect_int(c, "bf.card bf", 0)?;
                expect_int(c, "bf.add bf foo", 1)?;
                expect_int(c, "bf.card bf", 1)?;
                expect_error_line(c, "bf.card")?;
                run(c, "set key:string foo");
                expect_error_line(c, "bf.card key:string")
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_no_1_error_rate",
            run: |c| expect_error_line(c, "bf.reserve bf 1 1000"),
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_error_rate",
            run: |c| {
                let repeat = 1024;
                for rate in ["0.1", "0.01", "0.001", "0.0001"] {
                    let key = format!("bf{rate}");
                    run(c, &format!("bf.reserve {key} {rate} {repeat}"));
                    madd(c, &key, &items("", 0..repeat), 1024)?;
                    let fp = count_present(c, &key, &items("", repeat..repeat * 11))?;
                    let rate: f64 = rate.parse().unwrap();
                    check!(
                        fp as f64 / (repeat * 10) as f64 <= rate,
                        "{key}: {fp} false positives"
                    );
                }
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_no_scaling",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.01 3 nonscaling")?;
                for i in 0..3 {
                    expect_int(c, &format!("bf.add bf {i}"), 1)?;
                }
                expect_error_line(c, "bf.add bf extra")?;
                expect_error_line(c, "bf.reserve bf_mix 0.01 1000 nonscaling expansion 2")?;
                expect_ok(c, "bf.reserve bfnonscale 0.001 1000 nonscaling")?;
                expect_ok(c, "bf.reserve bfscale 0.001 1000")?;
                let (fixed, scaling) = (
                    info_int(c, "BF", "bfnonscale", "Size")?,
                    info_int(c, "BF", "bfscale", "Size")?,
                );
                check!(
                    fixed < scaling,
                    "NONSCALING {fixed} bytes, scaling {scaling}"
                );
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_nonscaling_err",
            run: |c| {
                expect_ints(
                    c,
                    "BF.INSERT nonscaling_err CAPACITY 3 NONSCALING ITEMS a b c",
                    &[1, 1, 1],
                )?;
                let got = run(c, "BF.INSERT nonscaling_err ITEMS a b c d d");
                let Reply::Array(Some(answers)) = &got else {
                    return Err(format!("{got:?}"));
                };
                check!(
                    answers[..3] == [Reply::Int(0), Reply::Int(0), Reply::Int(0)],
                    "{got:?}"
                );
                check!(
                    error_text(&answers[3]).as_deref() == Some("non scaling filter is full"),
                    "{got:?}"
                );
                let want = Reply::Array(Some(vec![
                    Reply::Status("Capacity".into()),
                    Reply::Int(3),
                    Reply::Status("Size".into()),
                    Reply::Int(104),
                    Reply::Status("Number of filters".into()),
                    Reply::Int(1),
                    Reply::Status("Number of items inserted".into()),
                    Reply::Int(3),
                    Reply::Status("Expansion rate".into()),
                    Reply::Bulk(None),
                ]));
                expect(c, "BF.INFO nonscaling_err", want)
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_issue178",
            run: |c| {
                expect_ok(c, "bf.reserve bf 0.000001 300000000")?;
                let capacity = info_int(c, "BF", "bf", "Capacity")?;
                check!(capacity == 300_000_000, "capacity {capacity}");
                let size = info_int(c, "BF", "bf", "Size")?;
                check!(size == 1_132_420_232, "size {size}");
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_very_high_error_rate",
            run: |c| {
                for (key, rate, capacity) in [
                    ("bf1", "0.99", 3),
                    ("bf2", "0.95", 8),
                    ("bf3", "0.9999999999999999", 100),
                ] {
                    expect_ok(c, &format!("bf.reserve {key} {rate} {capacity} NONSCALING"))?;
                    let got = run(c, &format!("bf.add {key} 1"));
                    check!(matches!(got, Reply::Int(_)), "{key}: {got:?}");
                }
                Ok(())
            },
        },
        // RedisBloom tests/flow/test_overall.py, class testRedisBloomNoCodec.
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump",
            run: |c| {
                run(c, "bf.reserve bf 0.01 62");
                let all = items("", 0..500);
                for item in &all {
                    run(c, &format!("bf.add bf {item}"));
                }
                check!(count_present(c, "bf", &all)? == 500, "items missing");
                expect_error_line(c, "bf.scandump bf")?;
                expect_error_line(c, "bf.scandump bf str")?;
                expect_error_line(c, "bf.scandump noexist 0")?;
                let chunks = scandump(c, "BF", "bf")?;
                run(c, "del bf");
                expect_error_line(c, "bf.loadchunk bf")?;
                expect_error_line(c, "bf.loadchunk bf str")?;
                loadchunks(c, "BF", "bf", &chunks)?;
                check!(
                    count_present(c, "bf", &all)? == 500,
                    "items missing after LOADCHUNK"
                );
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_with_expansion",
            run: |c| {
                run(c, "bf.reserve bf 0.01 62 expansion 2");
                let all = items("", 0..500);
                for item in &all {
                    run(c, &format!("bf.add bf {item}"));
                }
                let chunks = scandump(c, "BF", "bf")?;
                run(c, "del bf");
                expect_error_line(c, "bf.loadchunk bf")?;
                expect_error_line(c, "bf.loadchunk bf str")?;
                loadchunks(c, "BF", "bf", &chunks)?;
                check!(
                    count_present(c, "bf", &all)? == 500,
                    "items missing after LOADCHUNK"
                );
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_huge",
            run: |c| {
                run(c, "bf.reserve bf 0.01 67108864");
                for _ in 0..6 {
                    run(c, "bf.add bf foo");
                }
                let chunks = scandump(c, "BF", "bf")?;
                run(c, "del bf");
                loadchunks(c, "BF", "bf", &chunks)?;
                expect_int(c, "bf.exists bf foo", 1)
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_with_content",
            run: |c| {
                run(c, "bf.reserve bf 0.01 67108864");
                let all = items("foo", 0..1000);
                madd(c, "bf", &all, 1000)?;
                let chunks = scandump(c, "BF", "bf")?;
                run(c, "del bf");
                loadchunks(c, "BF", "bf2", &chunks)?;
                check!(
                    count_present(c, "bf2", &all)? == 1000,
                    "items missing after LOADCHUNK"
                );
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_invalid",
            run: |c| {
                run(c, "bf.reserve bf 0.1 4");
                expect_error_line(c, "bf.loadchunk bf -9223372036854775808 1")?;
                expect_error_line(c, "bf.loadchunk bf 922337203685477588 1")?;
                expect_error_line(c, "bf.loadchunk bf 4 kdoasdksaodsadsadsadsadsadadsadadsdad")?;
                expect_error_line(c, "bf.loadchunk bf 4 abcd")?;
                expect_int(c, "bf.add bf x", 1)?;
                expect_int(c, "bf.add bf y", 1)
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_invalid_header",
            run: |c| {
                run(c, "bf.reserve bf 0.01 5");
                madd(c, "bf", &items("foo", 0..50), 50)?;
                let header = scandump(c, "BF", "bf")?[0].1.clone();
                run(c, "del bf");
                // The same byte ranges the upstream test overwrites in RedisBloom's header.
                let corruptions: [&[(usize, u8)]; 4] = [
                    &[
                        (72, 0),
                        (73, 0),
                        (74, 0),
                        (75, 0),
                        (76, 0),
                        (77, 0),
                        (78, 0),
                        (79, 0),
                    ],
                    &[(12, 255), (13, 255), (14, 255), (15, 255)],
                    &[(0, 255), (1, 255), (2, 255), (3, 255)],
                    &[
                        (36, 255),
                        (37, 255),
                        (38, 255),
                        (39, 255),
                        (40, 255),
                        (41, 255),
                        (42, 255),
                        (43, 255),
                        (0, 255),
                        (1, 255),
                        (2, 255),
                        (3, 255),
                        (4, 255),
                        (5, 255),
                        (6, 255),
                        (7, 255),
                    ],
                ];
                for corruption in corruptions {
                    let mut bad = header.clone();
                    for &(at, value) in corruption {
                        if at < bad.len() {
                            bad[at] = value;
                        }
                    }
                    expect_error_text(
                        c,
                        &[b"bf.loadchunk".to_vec(), b"bf".to_vec(), b"1".to_vec(), bad],
                        "received bad data",
                    )?;
                }
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_scan_small",
            run: |c| {
                run(c, "bf.reserve bf 0.1 50");
                for i in 0..1500 {
                    let got = run(c, &format!("bf.add bf x{i}"));
                    if got.is_error() {
                        check!(
                            error_text(&got).as_deref() == Some("Maximum expansions reached"),
                            "{got:?}"
                        );
                        break;
                    }
                }
                let size = info_int(c, "BF", "bf", "Size")?;
                for i in 0..size + 1024 {
                    let got = run(c, &format!("bf.scandump bf {i}"));
                    check!(!got.is_error(), "scandump {i}: {got:?}");
                }
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_scan_big",
            run: |c| {
                run(c, "bf.reserve bf 0.001 1024 EXPANSION 30000");
                for i in 0..100 {
                    let batch: Vec<String> = (0..10_000).map(|j| format!("x{i}{j}")).collect();
                    let mut args = vec!["bf.insert".to_string(), "bf".into(), "ITEMS".into()];
                    args.extend(batch);
                    let got = c.cmd(&args);
                    if got.is_error() {
                        check!(
                            error_text(&got).as_deref() == Some("Maximum expansions reached"),
                            "{got:?}"
                        );
                        break;
                    }
                }
                let size = info_int(c, "BF", "bf", "Size")? as u64;
                let mut random = Lcg(178);
                for _ in 0..100 {
                    let iter = random.below(size * 2);
                    let got = run(c, &format!("bf.scandump bf {iter}"));
                    check!(!got.is_error(), "scandump {iter}: {got:?}");
                }
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_load_small",
            run: |c| {
                run(c, "bf.reserve bf 0.01 10");
                for i in 0..100 {
                    let mut args = vec!["bf.insert".to_string(), "bf".into(), "ITEMS".into()];
                    args.extend((0..1000).map(|j| format!("x{i}{j}")));
                    if c.cmd(&args).is_error() {
                        break;
                    }
                }
                let size = info_int(c, "BF", "bf", "Size")? as u64;
                let mut random = Lcg(7);
                for _ in 0..100 {
                    let len = random.below(4097) as usize;
                    let data = random.bytes(len);
                    let iter = random.below(size * 2);
                    let got = c.cmd(&[
                        b"bf.loadchunk".to_vec(),
                        b"bf".to_vec(),
                        iter.to_string().into_bytes(),
                        data,
                    ]);
                    if let Some(text) = error_text(&got) {
                        check!(
                            [
                                "invalid offset - no link found",
                                "invalid chunk - Too big for current filter",
                                "received bad data"
                            ]
                            .contains(&text.as_str()),
                            "loadchunk {iter}: {text}"
                        );
                    }
                }
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_scandump_load_big",
            run: |c| {
                run(c, "bf.reserve bf 0.01 1024 EXPANSION 30000");
                for i in 0..100 {
                    let mut args = vec!["bf.insert".to_string(), "bf".into(), "ITEMS".into()];
                    args.extend((0..1000).map(|j| format!("x{i}{j}")));
                    if c.cmd(&args).is_error() {
                        break;
                    }
                }
                let size = info_int(c, "BF", "bf", "Size")? as u64;
                let mut random = Lcg(36);
                // The upstream test sends 100 chunks of up to 36 MiB; 20 keep CI quick, with the
                // same spread of sizes.
                for _ in 0..20 {
                    let len = 1024 + random.below(36 * 1024 * 1024 - 1024) as usize;
                    let data = random.bytes(len);
                    let iter = random.below(size + 1);
                    let got = c.cmd(&[
                        b"bf.loadchunk".to_vec(),
                        b"bf".to_vec(),
                        iter.to_string().into_bytes(),
                        data,
                    ]);
                    if let Some(text) = error_text(&got) {
                        check!(
                            [
                                "invalid offset - no link found",
                                "invalid chunk - Too big for current filter",
                                "received bad data"
                            ]
                            .contains(&text.as_str()),
                            "loadchunk {iter}: {text}"
                        );
                    }
                }
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_load_error_handling",
            run: |c| {
                // A module value whose DUMP checksum is wrong is refused before any module reads it.
                let mut payload = vec![7u8, 0x81];
                payload
                    .extend_from_slice(&[0x30, 0x16, 0xe5, 0xa2, 0x89, 0xbe, 0xf8, 0x04, 2, 2, 2]);
                payload.extend_from_slice(&[0x0c, 0x00, 1, 2, 3, 4, 5, 6, 7, 8]);
                expect_error(
                    c,
                    &[b"restore".to_vec(), b"a".to_vec(), b"0".to_vec(), payload],
                )
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_load_bloom_with_large_number_of_filters",
            run: |c| {
                run(c, "bf.reserve poc 0.0001 1 EXPANSION 1");
                let mut args = vec!["bf.madd".to_string(), "poc".into(), "items".into()];
                args.extend((10_000..15_000).map(|i| i.to_string()));
                c.cmd(&args);
                expect_ok(c, "debug reload")?;
                let got = run(c, "ping");
                check!(got == Reply::Status("PONG".into()), "{got:?}");
                Ok(())
            },
        },
        Case {
            origin: RB,
            name: "test_overall.py::test_rdb_load_guards",
            run: |c| {
                // A hostile module value (upstream: huge counts in the header) with a wrong checksum.
                let mut payload = vec![7u8, 0x81, 0x30, 0x16, 0xe5, 0xa2, 0x89, 0xbe, 0xf8, 0x04];
                payload.extend(std::iter::repeat_n(0x58u8, 600));
                payload.extend_from_slice(&[
                    0x0c, 0x00, 0xee, 0x88, 0x11, 0xb8, 0x9b, 0xc6, 0xa6, 0x19,
                ]);
                expect_error(
                    c,
                    &[
                        b"RESTORE".to_vec(),
                        b"hax".to_vec(),
                        b"0".to_vec(),
                        payload,
                        b"REPLACE".to_vec(),
                    ],
                )
            },
        },
        // valkey-bloom tests/test_basic.py.
        Case {
            origin: VK,
            name: "test_basic.py::test_basic",
            run: |c| {
                let commands = format!("{:?}", c.cmd(&["COMMAND"]));
                for name in [
                    "bf.add",
                    "bf.exists",
                    "bf.madd",
                    "bf.mexists",
                    "bf.info",
                    "bf.card",
                    "bf.reserve",
                    "bf.insert",
                ] {
                    let listed = commands
                        .to_ascii_lowercase()
                        .contains(&format!("{:?}", name.as_bytes()).to_ascii_lowercase())
                        || c.cmd(&["COMMAND", "INFO", name])
                            != Reply::Array(Some(vec![Reply::Bulk(None)]));
                    check!(listed, "{name} is not a command");
                }
                expect_int(c, "BF.ADD filter1 item1", 1)?;
                expect_int(c, "BF.EXISTS filter1 item1", 1)?;
                expect_int(c, "BF.EXISTS filter1 item2", 0)
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_copy_and_exists_cmd",
            run: |c| {
                let added = run(c, "BF.MADD filter item1 item2 item3 item4");
                expect_int(c, "EXISTS filter", 1)?;
                let present = run(c, "BF.MEXISTS filter item1 item2 item3 item4");
                check!(
                    matches!(&added, Reply::Array(Some(a)) if a.len() == 4),
                    "{added:?}"
                );
                expect_int(c, "COPY filter new_filter", 1)?;
                expect_int(c, "EXISTS new_filter", 1)?;
                expect(c, "BF.MEXISTS new_filter item1 item2 item3 item4", present)
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_memory_usage_cmd",
            run: |c| {
                expect_int(c, "BF.ADD filter item1", 1)?;
                let usage = run(c, "MEMORY USAGE filter").int();
                let size = one_field(&run(c, "BF.INFO filter SIZE"))?;
                check!(
                    usage > size && size > 0,
                    "MEMORY USAGE {usage}, Size {size}"
                );
                Ok(())
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_large_allocation_when_below_maxmemory",
            run: |c| {
                let outcome = (|| {
                    expect_ok(c, "CONFIG SET maxmemory-policy allkeys-lru")?;
                    expect_ok(c, "CONFIG SET maxmemory 2097152")?;
                    run(c, "BF.ADD filter item1");
                    expect_ok(c, "BF.RESERVE newfilter 0.001 10000000")?;
                    let keys = run(c, "DBSIZE").int();
                    check!(keys < 2, "{keys} keys after eviction");
                    run(c, "FLUSHALL");
                    run(c, "BF.ADD filter item1");
                    expect_ok(c, "CONFIG SET maxmemory-policy volatile-lru")?;
                    expect_ok(c, "BF.RESERVE newfilter 0.001 10000000")?;
                    expect_int(c, "DBSIZE", 2)
                })();
                run(c, "CONFIG SET maxmemory 0");
                run(c, "CONFIG SET maxmemory-policy noeviction");
                outcome
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_large_allocation_when_above_maxmemory",
            run: |c| {
                let outcome = (|| {
                    expect_ok(c, "CONFIG SET maxmemory-policy allkeys-lru")?;
                    let used = run(c, "INFO memory")
                        .text()
                        .lines()
                        .find_map(|l| l.strip_prefix("used_memory:"))
                        .unwrap()
                        .trim()
                        .to_owned();
                    run(c, "BF.ADD filter item1");
                    expect_ok(c, &format!("CONFIG SET maxmemory {used}"))?;
                    // The server's own refusal, or a module's OOM error. Applying the new
                    // maxmemory may already have evicted `filter` (allkeys-lru), and then
                    // nothing is over the limit any more: seen on Valkey 8.0.1 with
                    // valkey-bloom, some runs and not others.
                    let got = run(c, "BF.RESERVE newfilter 0.001 10000000");
                    let refused = matches!(&got, Reply::Error(e)
                        if e.starts_with("OOM") || e.contains("used memory > 'maxmemory'"));
                    let evicted_first = got == Reply::Status("OK".into())
                        && run(c, "EXISTS filter") == Reply::Int(0);
                    check!(refused || evicted_first, "{got:?}");
                    Ok(())
                })();
                run(c, "CONFIG SET maxmemory 0");
                run(c, "CONFIG SET maxmemory-policy noeviction");
                outcome
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_module_data_type",
            run: |c| {
                expect_int(c, "BF.ADD filter item1", 1)?;
                expect(c, "TYPE filter", Reply::Status("bloomfltr".into()))?;
                expect(
                    c,
                    "OBJECT ENCODING filter",
                    Reply::Bulk(Some(b"raw".to_vec())),
                )
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_bloom_obj_access",
            run: |c| {
                expect_int(c, "BF.ADD key1 val1", 1)?;
                expect_int(c, "BF.ADD key2 val2", 1)?;
                expect_int(c, "TOUCH key1 key2", 2)?;
                expect_int(c, "TOUCH key3", 0)?;
                expect_int(c, "DBSIZE", 2)?;
                let key = run(c, "RANDOMKEY").text();
                check!(key == "key1" || key == "key2", "{key}");
                Ok(())
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_bloom_transaction",
            run: |c| {
                expect_ok(c, "MULTI")?;
                for line in [
                    "BF.ADD M1 V1",
                    "BF.ADD M2 V2",
                    "BF.EXISTS M1 V1",
                    "DEL M1",
                    "BF.EXISTS M1 V1",
                ] {
                    expect(c, line, Reply::Status("QUEUED".into()))?;
                }
                expect_ints(c, "EXEC", &[1, 1, 1, 1, 0])?;
                expect_int(c, "BF.EXISTS M2 V2", 1)?;
                expect_int(c, "BF.EXISTS M1 V1", 0)?;
                expect_int(c, "DBSIZE", 1)
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_bloom_lua",
            run: |c| {
                let script = "redis.call('BF.ADD', 'LUA1', 'ITEM1'); redis.call('BF.ADD', 'LUA2', 'ITEM2'); redis.call('BF.MADD', 'LUA2', 'ITEM3', 'ITEM4', 'ITEM5');";
                c.cmd(&["EVAL", script, "0"]);
                expect_ints(c, "BF.MEXISTS LUA2 ITEM1 ITEM3 ITEM4", &[0, 1, 1])?;
                expect_int(c, "DBSIZE", 2)
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_bloom_deletes",
            run: |c| {
                expect_int(c, "BF.ADD filter1 item1", 1)?;
                expect_int(c, "BF.EXISTS filter1 item1", 1)?;
                expect_int(c, "DEL filter1", 1)?;
                expect_int(c, "BF.EXISTS filter1 item1", 0)?;
                for i in 0..10 {
                    expect_int(c, &format!("BF.ADD SAMPLE{i} FOO"), 1)?;
                }
                expect_int(c, "DBSIZE", 10)?;
                expect_ok(c, "FLUSHALL")?;
                expect_int(c, "DBSIZE", 0)?;
                expect_int(c, "BF.ADD A ITEMA", 1)?;
                expect_int(c, "BF.ADD B ITEMB", 1)?;
                expect_int(c, "BF.EXISTS C ITEMC", 0)?;
                expect_int(c, "UNLINK A B C", 2)?;
                expect_ints(c, "BF.MEXISTS A ITEMA ITEMB", &[0, 0])?;
                expect_int(c, "DBSIZE", 0)
            },
        },
        Case {
            origin: VK,
            name: "test_basic.py::test_bloom_expiration",
            run: |c| {
                expect_int(c, "BF.ADD TEST_IDLE val3", 1)?;
                std::thread::sleep(std::time::Duration::from_millis(1100));
                expect(c, "OBJECT IDLETIME test_idle", Reply::Bulk(None))?;
                check!(run(c, "OBJECT IDLETIME TEST_IDLE").int() > 0, "idle time");
                expect_int(c, "BF.ADD TEST_EXP ITEM", 1)?;
                expect_int(c, "TTL TEST_EXP", -1)?;
                expect_int(c, "PEXPIRE TEST_EXP 200", 1)?;
                std::thread::sleep(std::time::Duration::from_millis(400));
                expect_int(c, "BF.EXISTS TEST_EXP ITEM", 0)?;
                expect_int(c, "BF.ADD TEST_PERSIST ITEM", 1)?;
                expect_int(c, "EXPIRE TEST_PERSIST 100000", 1)?;
                check!(run(c, "TTL TEST_PERSIST").int() > 0, "ttl");
                expect_int(c, "PERSIST TEST_PERSIST", 1)?;
                expect_int(c, "TTL TEST_PERSIST", -1)
            },
        },
        // valkey-bloom tests/test_bloom_command.py.
        Case {
            origin: VK,
            name: "test_bloom_command.py::test_bloom_command_arity",
            run: |c| {
                for name in [
                    "BF.EXISTS",
                    "BF.ADD",
                    "BF.MEXISTS",
                    "BF.MADD",
                    "BF.CARD",
                    "BF.RESERVE",
                    "BF.INFO",
                    "BF.INSERT",
                ] {
                    let got = c.cmd(&["COMMAND", "INFO", name]);
                    let Reply::Array(Some(entries)) = &got else {
                        return Err(format!("{got:?}"));
                    };
                    let Some(Reply::Array(Some(fields))) = entries.first() else {
                        return Err(format!("{name}: {got:?}"));
                    };
                    check!(
                        fields.get(1) == Some(&Reply::Int(-1)),
                        "{name}: arity {:?}",
                        fields.get(1)
                    );
                }
                Ok(())
            },
        },
        Case {
            origin: VK,
            name: "test_bloom_command.py::test_bloom_command_error",
            run: |c| {
                expect_int(c, "BF.ADD key item", 1)?;
                expect_ok(c, "BF.RESERVE bf 0.01 1000")?;
                expect_ok(c, "BF.RESERVE bf_non 0.01 2 NONSCALING")?;
                expect_int(c, "BF.ADD bf_non 0", 1)?;
                expect_int(c, "BF.ADD bf_non 1", 1)?;
                for (line, text) in [
                    ("BF.INFO TEST404", "not found"),
                    ("BF.ADD bf_non 2", "non scaling filter is full"),
                    ("bf.info key item", "invalid information value"),
                    ("BF.INSERT KEY HELLO WORLD", "unknown argument received"),
                    (
                        "BF.INSERT KEY error 2 ITEMS test1",
                        "(0 < error rate range < 1)",
                    ),
                    (
                        "BF.INSERT TEST_LIMIT CAPACITY 0 ITEMS CAP0",
                        "(capacity should be larger than 0)",
                    ),
                    ("BF.INSERT TEST_NOCREATE NOCREATE ITEMS A B", "not found"),
                    ("BF.RESERVE KEY String 100", "bad error rate"),
                    ("BF.RESERVE KEY 2 100", "(0 < error rate range < 1)"),
                    ("BF.RESERVE KEY 0.01 String", "bad capacity"),
                    ("BF.RESERVE bf 0.01 1000", "item exists"),
                    (
                        "BF.ADD TEST",
                        "wrong number of arguments for 'BF.ADD' command",
                    ),
                    (
                        "BF.CARD KEY ITEM",
                        "wrong number of arguments for 'BF.CARD' command",
                    ),
                    (
                        "BF.RESERVE KEY SSS",
                        "wrong number of arguments for 'BF.RESERVE' command",
                    ),
                ] {
                    expect_error_text(c, &bytes(&line.split(' ').collect::<Vec<_>>()), text)?;
                }
                Ok(())
            },
        },
        Case {
            origin: VK,
            name: "test_bloom_command.py::test_bloom_command_behavior",
            run: |c| {
                for (line, want) in [
                    ("BF.ADD key item", vec![1]),
                    ("BF.ADD key item", vec![0]),
                    ("BF.MADD key item item2", vec![0, 1]),
                    ("BF.MADD hello world1 world2 world3", vec![1, 1, 1]),
                    (
                        "BF.MADD hello world1 world2 world3 world4",
                        vec![0, 0, 0, 1],
                    ),
                    ("BF.INSERT TEST ITEMS ITEM", vec![1]),
                    ("BF.INSERT TEST CAPACITY 1000 ITEMS ITEM", vec![0]),
                    (
                        "BF.INSERT TEST_ITEMS ITEMS 1 2 3 EXPANSION 2",
                        vec![1, 1, 1, 1, 0],
                    ),
                ] {
                    let got = run(c, line);
                    let matches = match &got {
                        Reply::Int(n) => want == [*n],
                        Reply::Array(Some(items)) => {
                            items
                                .iter()
                                .map(|i| match i {
                                    Reply::Int(n) => *n,
                                    _ => -1,
                                })
                                .collect::<Vec<_>>()
                                == want
                        }
                        _ => false,
                    };
                    check!(matches, "{line}: got {got:?}, want {want:?}");
                }
                let items = one_field(&run(c, "BF.INFO TEST ITEMS"))?;
                check!(items == 1, "BF.INFO TEST ITEMS: {items}");
                Ok(())
            },
        },
        // valkey-bloom tests/test_correctness.py.
        Case {
            origin: VK,
            name: "test_correctness.py::test_non_scaling_filter",
            run: |c| {
                let capacity = 10_000;
                expect_ok(
                    c,
                    &format!("BF.RESERVE filter1 0.001 {capacity} NONSCALING"),
                )?;
                let mut next = 0;
                let mut false_positives = 0;
                while run(c, "BF.CARD filter1").int() < capacity {
                    let need = (capacity - run(c, "BF.CARD filter1").int()).min(1000) as usize;
                    let batch = items("item", next..next + need);
                    next += need;
                    false_positives += madd(c, "filter1", &batch, 1000)?
                        .iter()
                        .filter(|r| **r == Reply::Int(0))
                        .count();
                }
                expect_error_text(
                    c,
                    &bytes(&["BF.ADD", "filter1", "new_item"]),
                    "non scaling filter is full",
                )?;
                let info = info(c, "filter1")?;
                check!(
                    info["Capacity"] == Reply::Int(capacity)
                        && info["Number of items inserted"] == Reply::Int(capacity),
                    "{info:?}"
                );
                check!(
                    info["Number of filters"] == Reply::Int(1)
                        && info["Expansion rate"] == Reply::Bulk(None),
                    "{info:?}"
                );
                check!(
                    (false_positives as f64) / (next as f64) < 0.003,
                    "{false_positives} false positives while adding"
                );
                check!(
                    count_present(c, "filter1", &items("item", 0..next))? == next as i64,
                    "false negatives"
                );
                let absent = count_present(c, "filter1", &items("item", next + 1..2 * next))?;
                check!(
                    (absent as f64) / (next as f64) < 0.003,
                    "{absent} false positives"
                );
                expect_int(c, "COPY filter1 copy", 1)?;
                check!(
                    count_present(c, "copy", &items("item", 0..next))? == next as i64,
                    "copy: false negatives"
                );
                Ok(())
            },
        },
        Case {
            origin: VK,
            name: "test_correctness.py::test_scaling_filter",
            run: |c| {
                let initial = 10_000i64;
                expect_ok(
                    c,
                    &format!("BF.RESERVE filter1 0.001 {initial} EXPANSION 2"),
                )?;
                let mut next = 0;
                let mut false_positives = 0;
                for filters in 1..=5u32 {
                    let total = initial * (2i64.pow(filters) - 1);
                    while run(c, "BF.CARD filter1").int() < total {
                        let need = (total - run(c, "BF.CARD filter1").int()).min(1000) as usize;
                        let batch = items("item", next..next + need);
                        next += need;
                        false_positives += madd(c, "filter1", &batch, 1000)?
                            .iter()
                            .filter(|r| **r == Reply::Int(0))
                            .count();
                    }
                    let info = info(c, "filter1")?;
                    check!(info["Capacity"] == Reply::Int(total), "{info:?}");
                    check!(
                        info["Number of items inserted"] == Reply::Int(total),
                        "{info:?}"
                    );
                    check!(
                        info["Number of filters"] == Reply::Int(filters as i64),
                        "{info:?}"
                    );
                    check!(info["Expansion rate"] == Reply::Int(2), "{info:?}");
                }
                check!(
                    (false_positives as f64) / (next as f64) < 0.003,
                    "{false_positives} false positives while adding"
                );
                check!(
                    count_present(c, "filter1", &items("item", 0..next))? == next as i64,
                    "false negatives"
                );
                let absent = count_present(c, "filter1", &items("item", next + 1..2 * next))?;
                check!(
                    (absent as f64) / (next as f64) < 0.003,
                    "{absent} false positives"
                );
                Ok(())
            },
        },
        // valkey-bloom tests/test_save_and_restore.py (a restart from the RDB, as DEBUG RELOAD).
        Case {
            origin: VK,
            name: "test_save_and_restore.py::test_basic_save_and_restore",
            run: |c| {
                expect_int(c, "BF.ADD testSave item", 1)?;
                expect_int(c, "BF.EXISTS testSave item", 1)?;
                let before = run(c, "BF.INFO testSave");
                expect_ok(c, "DEBUG RELOAD")?;
                expect_int(c, "DBSIZE", 1)?;
                expect_int(c, "BF.EXISTS testSave item", 1)?;
                expect(c, "BF.INFO testSave", before)
            },
        },
    ]
}

/// A server for `module` (splitbloom with `BF_COMMANDS yes`).
fn start(module: Module, peers: &std::path::Path) -> Server {
    let peer = |name: &str| -> PathBuf { peers.join(name) };
    match module {
        Module::Splitbloom => {
            Server::start_full("ported-splitbloom", &[], &["BF_COMMANDS", "yes"], None)
        }
        Module::RedisBloom => {
            Server::start_module("ported-redisbloom", &peer("redisbloom-2.4.23.so"), &[], &[])
        }
        Module::Valkey => {
            Server::start_module("ported-valkey", &peer("valkey-bloom-57a7901.so"), &[], &[])
        }
    }
}

#[test]
fn ported_redisbloom_and_valkey_bloom_suites() {
    let Some(peers) = peers_dir() else {
        eprintln!(
            "SKIPPED: no ../shared/peers/redis/ beside the repository (set SPLITBLOOM_PEERS_DIR)"
        );
        return;
    };
    let modules = [Module::Splitbloom, Module::RedisBloom, Module::Valkey];
    let cases = cases();
    let passes = run_cases(
        &cases,
        &modules,
        Module::Splitbloom,
        |module| start(module, &peers),
        KNOWN,
        UPSTREAM_FAILS,
    );
    for origin in [Module::RedisBloom, Module::Valkey] {
        let total = cases.iter().filter(|case| case.origin == origin).count();
        let count = |module| passes.get(&(origin, module)).copied().unwrap_or(0);
        eprintln!(
            "{origin:?}'s ported tests ({total}): splitbloom {}, RedisBloom {}, valkey-bloom {}",
            count(Module::Splitbloom),
            count(Module::RedisBloom),
            count(Module::Valkey)
        );
    }
}

/// Command sequences sent to RedisBloom 2.4.23 and to splitbloom alike; every reply must be
/// equal, except `Size` (each module's own memory), `SCANDUMP` chunks (each module's own
/// bytes) and the RESP3 booleans of current RedisBloom ([`as_current_redisbloom`]). The items
/// are few and the filters large, so no reply here depends on a false positive.
const DIFFERENTIAL: &[&str] = &[
    // RESERVE and its errors.
    "BF.RESERVE r 0.01 1000",
    "BF.RESERVE r 0.01 1000",
    "BF.RESERVE r2 0.001 500 EXPANSION 4",
    "BF.RESERVE r3 0.01 500 NONSCALING",
    "BF.RESERVE x 0.01",
    "BF.RESERVE x abc 100",
    "BF.RESERVE x 0 100",
    "BF.RESERVE x 1 100",
    "BF.RESERVE x 0.01 abc",
    "BF.RESERVE x 0.01 0",
    "BF.RESERVE x 0.01 -5",
    "BF.RESERVE x 0.01 100 EXPANSION",
    "BF.RESERVE x 0.01 100 EXPANSION abc",
    "BF.RESERVE x 0.01 100 NONSCALING EXPANSION 2",
    "BF.RESERVE x 0.01 100 EXPANSION 2 NONSCALING",
    // ADD, MADD, EXISTS, MEXISTS, CARD.
    "BF.ADD r apple",
    "BF.ADD r apple",
    "BF.MADD r pear apple kiwi pear",
    "BF.EXISTS r apple",
    "BF.MEXISTS r apple kiwi",
    "BF.EXISTS missing apple",
    "BF.MEXISTS missing a b",
    "BF.CARD r",
    "BF.CARD missing",
    "BF.ADD r",
    "BF.ADD r a b",
    "BF.MADD r",
    "BF.EXISTS r",
    "BF.MEXISTS r",
    "BF.CARD",
    // Auto-creation, INSERT and its options and errors.
    "BF.ADD auto x",
    "BF.INFO auto",
    "BF.INSERT ins CAPACITY 5000 ERROR 0.001 ITEMS a b",
    "BF.INSERT ins NOCREATE ITEMS a c",
    "BF.INSERT none NOCREATE ITEMS a",
    "BF.INSERT ins2 EXPANSION 3 ITEMS a",
    "BF.INFO ins2 EXPANSION",
    "BF.INSERT ins3 NONSCALING CAPACITY 2 ITEMS a b c",
    "BF.INFO ins3",
    "BF.INSERT x CAPACITY abc ITEMS a",
    "BF.INSERT x ERROR abc ITEMS a",
    "BF.INSERT x EXPANSION abc ITEMS a",
    "BF.INSERT x ERROR 2 ITEMS a",
    "BF.INSERT x CAPACITY 0 ITEMS a",
    "BF.INSERT x EXPANSION 0 ITEMS a",
    "BF.INSERT x BOGUS ITEMS a",
    "BF.INSERT x ITEMS",
    "BF.INSERT x CAPACITY",
    "BF.INSERT x",
    // NONSCALING fills up.
    "BF.MADD r3 a b c",
    "BF.RESERVE full 0.01 2 NONSCALING",
    "BF.MADD full a b c d",
    "BF.ADD full e",
    "BF.ADD full a",
    "BF.INFO full",
    "BF.CARD full",
    // INFO, its one-field form, and errors.
    "BF.INFO r",
    "BF.INFO r CAPACITY",
    "BF.INFO r FILTERS",
    "BF.INFO r ITEMS",
    "BF.INFO r EXPANSION",
    "BF.INFO r3 EXPANSION",
    "BF.INFO r2",
    "BF.INFO r capacity",
    "BF.INFO r BOGUS",
    "BF.INFO r CAPACITY SIZE",
    "BF.INFO missing",
    "BF.INFO",
    // Scaling: 100 + 200 + 400.
    "BF.RESERVE grow 0.0001 100",
    // Wrong types.
    "SET str v",
    "BF.ADD str x",
    "BF.MADD str x",
    "BF.EXISTS str x",
    "BF.MEXISTS str x",
    "BF.INSERT str ITEMS x",
    "BF.RESERVE str 0.01 10",
    "BF.INFO str",
    "BF.CARD str",
    "BF.SCANDUMP str 0",
    "BF.LOADCHUNK str 1 x",
    // SCANDUMP and LOADCHUNK errors.
    "BF.SCANDUMP r",
    "BF.SCANDUMP r abc",
    "BF.SCANDUMP missing 0",
    "BF.LOADCHUNK r",
    "BF.LOADCHUNK r abc data",
    "BF.LOADCHUNK missing 5 data",
    "BF.LOADCHUNK new 1 garbage",
    "EXISTS new",
];

/// A reply with what differs by design blanked: the value after `Size`, and `SCANDUMP`'s data.
fn comparable(command: &str, reply: Reply) -> Reply {
    let words: Vec<String> = words(&command.to_ascii_uppercase());
    match reply {
        Reply::Array(Some(mut items)) if words[0] == "BF.INFO" && words.len() == 2 => {
            for at in 0..items.len().saturating_sub(1) {
                if items[at] == Reply::Status("Size".into()) {
                    items[at + 1] = Reply::Int(0);
                }
            }
            Reply::Array(Some(items))
        }
        _ if words[0] == "BF.INFO" && words.get(2).is_some_and(|w| w == "SIZE") => Reply::Int(0),
        Reply::Array(Some(mut items)) if words[0] == "BF.SCANDUMP" && items.len() == 2 => {
            items[1] = Reply::Bulk(None);
            Reply::Array(Some(items))
        }
        reply => reply,
    }
}

/// RedisBloom 2.4.23's reply as current RedisBloom (2.6 and later, Redis 8) sends it: over
/// RESP3 the predicates (`ADD`, `MADD`, `INSERT`, `EXISTS`, `MEXISTS`) answer booleans where
/// 2.4 answers the integers 1 and 0 (`src/rebloom.c`, `RedisModule_ReplyWithBool` when the
/// client speaks RESP3). Over RESP2 both answer integers.
fn as_current_redisbloom(protocol: &str, command: &str, reply: Reply) -> Reply {
    let predicate = ["BF.ADD", "BF.MADD", "BF.INSERT", "BF.EXISTS", "BF.MEXISTS"]
        .iter()
        .any(|name| words(command)[0].eq_ignore_ascii_case(name));
    if protocol != "3" || !predicate {
        return reply;
    }
    let boolean = |reply: Reply| match reply {
        Reply::Int(0) => Reply::Bool(false),
        Reply::Int(1) => Reply::Bool(true),
        other => other,
    };
    match reply {
        Reply::Array(Some(items)) => Reply::Array(Some(items.into_iter().map(boolean).collect())),
        other => boolean(other),
    }
}

#[test]
fn differential_against_redisbloom_resp2_and_resp3() {
    let Some(peers) = peers_dir() else {
        eprintln!(
            "SKIPPED: no ../shared/peers/redis/ beside the repository (set SPLITBLOOM_PEERS_DIR)"
        );
        return;
    };
    let ours = start(Module::Splitbloom, &peers);
    let theirs = start(Module::RedisBloom, &peers);
    let mut compared = 0;
    for protocol in ["2", "3"] {
        let (mut a, mut b) = (ours.conn(), theirs.conn());
        for c in [&mut a, &mut b] {
            c.cmd(&["FLUSHALL"]);
            let hello = c.cmd(&["HELLO", protocol]);
            assert!(!hello.is_error(), "{hello:?}");
        }
        let mut steps: Vec<String> = DIFFERENTIAL.iter().map(|s| s.to_string()).collect();
        // A scaling filter past three sub-filters, then its INFO.
        let grow: Vec<String> = (0..600).map(|i| format!("g{i}")).collect();
        steps.push(format!("BF.MADD grow {}", grow.join(" ")));
        steps.push("BF.INFO grow".into());
        steps.push("BF.CARD grow".into());
        // SCANDUMP's iterators and LOADCHUNK's replies (the bytes differ by design).
        steps.push("BF.SCANDUMP r 0".into());
        for step in &steps {
            let (mine, peer) = (a.cmd(&words(step)), b.cmd(&words(step)));
            assert_eq!(
                comparable(step, mine),
                comparable(step, as_current_redisbloom(protocol, step, peer)),
                "RESP{protocol}: {}",
                &step[..step.len().min(60)]
            );
            compared += 1;
        }
        // A chunked restore round trip on each module, compared by its replies.
        for c in [&mut a, &mut b] {
            let chunks = scandump(c, "BF", "grow").unwrap();
            loadchunks(c, "BF", "grow-copy", &chunks).unwrap();
        }
        for step in [
            "BF.INFO grow-copy",
            "BF.CARD grow-copy",
            "BF.MEXISTS grow-copy g1 g599",
        ] {
            let peer = as_current_redisbloom(protocol, step, b.cmd(&words(step)));
            assert_eq!(
                comparable(step, a.cmd(&words(step))),
                comparable(step, peer),
                "{step}"
            );
            compared += 1;
        }
    }
    eprintln!("{compared} replies compared with RedisBloom 2.4.23, RESP2 and RESP3");
}
