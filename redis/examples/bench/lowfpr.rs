//! `lowfpr`: `NONSCALING` reservations at low error rates (1e-3, 1e-4, 1e-6), where the module
//! uses `splitbloom::WideFilter`, on one redis-server each for splitbloom, RedisBloom and
//! valkey-bloom: `MEMORY USAGE` (and its ratio to the classic optimum `n·ln(1/p)/ln²2` bits and
//! to RedisBloom's), the false-positive rate measured over `n` absent keys, and pipelined
//! `BF.MADD`/`BF.MEXISTS` throughput, medians of interleaved rounds; beside them, the bitset
//! bytes the split-block `splitbloom::Filter` would take for the same reservation (what the
//! module allocated before it used the wide layout), computed, not measured.
//!
//! ```text
//! cargo run --release -p splitbloom-redis --example bench -- lowfpr [keys] [rounds]
//! ```

use crate::DEPTH;
use crate::common::{Conn, Reply};
use crate::modules::{BATCH, Module, insert, keys, lookup, median, start_all};

/// What `SBF.INFO` says of splitbloom's layout (`-` for the peers, which have one layout).
fn layout(c: &mut Conn, module: &Module) -> String {
    if module.name != "splitbloom" {
        return "-".into();
    }
    let Reply::Array(Some(items)) = c.cmd(&["SBF.INFO", "f"]) else {
        return "?".into();
    };
    let field = |name: &str| {
        items
            .chunks(2)
            .find(|pair| pair[0].text() == name)
            .map(|pair| match &pair[1] {
                Reply::Int(value) => value.to_string(),
                other => other.text(),
            })
    };
    match (field("Layout"), field("Probes")) {
        (Some(layout), Some(probes)) => format!("{layout}, {probes} probe(s)"),
        (Some(layout), None) => layout,
        _ => "?".into(),
    }
}

pub fn run(mut args: impl Iterator<Item = String>) {
    let n: usize = args.next().map_or(1_000_000, |a| a.parse().expect("keys"));
    let rounds: usize = args.next().map_or(3, |a| a.parse().expect("rounds"));
    let mut modules = start_all();
    let present = keys("user:", n);
    let absent = keys("absent:", n);
    println!(
        "{n} keys, BF.RESERVE f <rate> {n} NONSCALING, BF.MADD / BF.MEXISTS of {BATCH} keys, {DEPTH} commands in flight, one redis-server 7.0.15 per module; throughput the median of {rounds} interleaved rounds"
    );
    println!(
        "\n| error rate | module | layout | MEMORY USAGE | vs optimum | vs RedisBloom | measured FPR | BF.MADD keys/s | BF.MEXISTS keys/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut split_block = Vec::new();
    for rate in ["0.001", "0.0001", "0.000001"] {
        let p: f64 = rate.parse().unwrap();
        let optimum = n as f64 * (1.0 / p).ln() / 2f64.ln().powi(2) / 8.0;
        let split = splitbloom::Filter::with_fpr(n, p).map_or(0, |filter| filter.size_in_bytes());
        split_block.push(format!(
            "| {rate} | {split} | {:.3}x |",
            split as f64 / optimum
        ));
        let mut inserts = vec![Vec::new(); modules.len()];
        let mut lookups = vec![Vec::new(); modules.len()];
        let mut measured = vec![(0i64, 0usize, String::new()); modules.len()];
        for round in 0..rounds {
            for (index, module) in modules.iter_mut().enumerate() {
                let mut c = module.server.conn();
                c.cmd(&["FLUSHALL"]);
                let reply = c.cmd(&["BF.RESERVE", "f", rate, &n.to_string(), "NONSCALING"]);
                assert!(!reply.is_error(), "{}: {reply:?}", module.name);
                inserts[index].push(n as f64 / insert(&mut c, "f", &present));
                let (found, present_s) = lookup(&mut c, "f", &present);
                assert_eq!(found, n, "{} lost keys", module.name);
                let (false_positives, absent_s) = lookup(&mut c, "f", &absent);
                lookups[index].push((2 * n) as f64 / (present_s + absent_s));
                if round == 0 {
                    let usage = c.cmd(&["MEMORY", "USAGE", "f"]).int();
                    measured[index] = (usage, false_positives, layout(&mut c, module));
                }
            }
        }
        let redisbloom = modules
            .iter()
            .position(|module| module.name.starts_with("RedisBloom"))
            .map(|index| measured[index].0);
        for (index, module) in modules.iter().enumerate() {
            let (usage, false_positives, layout) = &measured[index];
            let versus = redisbloom.map_or("-".into(), |theirs| {
                format!("{:.3}x", *usage as f64 / theirs as f64)
            });
            println!(
                "| {rate} | {} | {layout} | {usage} | {:.3}x | {versus} | {:.3e} | {:.2}M | {:.2}M |",
                module.name,
                *usage as f64 / optimum,
                *false_positives as f64 / n as f64,
                median(&mut inserts[index]) / 1e6,
                median(&mut lookups[index]) / 1e6,
            );
        }
    }
    println!("\n| error rate | split-block Filter bitset bytes (computed) | vs optimum |");
    println!("|---|---|---|");
    for row in split_block {
        println!("{row}");
    }
}
