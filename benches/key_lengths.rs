//! Criterion group `key_lengths`: hashing and `contains` at every key length, every hasher,
//! against plain XXH3 (`xxhash_rust::xxh3::xxh3_64`) as the reference.
//!
//! For each length in 0, 1, 4, 8, 12, 15, 16, 24, 32, 64 and 256 bytes, 1024 distinct keys
//! (ASCII, so the same keys serve as `&str` and `&[u8]`), half of them inserted into an
//! in-cache filter (1024 blocks, 32 KiB), are hashed or looked up one at a time; each figure is
//! nanoseconds per key. Lookups add up their answers without branching, and every inserted key
//! is checked present once before anything is timed.
//!
//! * `hash/<len>`: `reference` (xxh3_64), `plain-bytes` (the default's byte contract,
//!   `hash_bytes`, hasher id 4), `plain-str` / `plain-slice` (`hash_one` of a `&str` /
//!   `&[u8]`, std's framing), `gxhash-bytes` / `gxhash-str` (id 6) where gxhash is available,
//!   and `parquet-bytes`.
//! * `contains/<len>`: `reference` (`contains_hash(xxh3_64(key))`), then `contains_bytes`
//!   (`*-bytes`), `contains(&str)` (`*-str`) and `contains(&[u8])` (`*-slice`) per hasher.
//!
//! The acceptance rule: the default through `contains(&key)` and `contains_bytes`
//! within 1.15x of the reference at every length; no opt-in hasher slower than the reference
//! under 16 bytes. Run on a shared machine with short settings:
//!
//! ```text
//! cargo bench -p splitbloom-bench --bench key_lengths -- --warm-up-time 1 --measurement-time 2
//! ```
//!
//! On a machine shared with other jobs, criterion's medians move by 2x between neighbouring
//! benchmarks. `SPLITBLOOM_BENCH=interleaved cargo bench -p splitbloom-bench --bench key_lengths` instead runs
//! every variant of a length in turn, 3000 rounds of 1024 keys each, and prints the fastest
//! round of each (the run least disturbed by other jobs) as a table: ratios within one round
//! robin are stable to a few percent there. It then prints one more table the same way: random
//! `u64` keys through `contains(&key)` for the default, against `contains_hash` of the bare key.

use std::hash::BuildHasher;
use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use opaque::opaque;
use splitbloom::parquet::ParquetHash;
use splitbloom::{Filter, FilterHasher, GxHash, Xxh3};

#[path = "support/opaque.rs"]
mod opaque;

/// Key lengths measured, in bytes.
const LENGTHS: [usize; 11] = [0, 1, 4, 8, 12, 15, 16, 24, 32, 64, 256];
/// Keys per timed call.
const KEYS: usize = 1024;

/// `KEYS` distinct ASCII keys of `len` bytes (all equal, and empty, when `len` is 0).
fn keys(len: usize) -> Vec<String> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ len as u64;
    (0..KEYS)
        .map(|_| {
            (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    char::from(b'!' + ((state >> 33) % 90) as u8)
                })
                .collect()
        })
        .collect()
}

/// An in-cache filter with every other key of `keys` inserted through `insert`, checked.
fn filter_with<S: FilterHasher>(
    hasher: S,
    keys: &[String],
    insert: impl Fn(&mut Filter<S>, &str),
) -> Filter<S> {
    let mut filter = Filter::with_num_blocks_and_hasher(1024, hasher).unwrap();
    for key in keys.iter().step_by(2) {
        insert(&mut filter, key);
    }
    filter
}

/// Times `probe` over every key, summing its results without branching.
fn time_keys<T: Copy + Into<u64>>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    len: usize,
    keys: &[String],
    probe: impl Fn(&str) -> T,
) {
    group.bench_function(BenchmarkId::new(name, len), |bencher| {
        bencher.iter(|| {
            let mut total = 0u64;
            for key in keys {
                total = total.wrapping_add(probe(black_box(key.as_str())).into());
            }
            total
        })
    });
}

fn hashing(c: &mut Criterion) {
    let gx = GxHash::new(0).ok();
    for len in LENGTHS {
        let keys = keys(len);
        let mut group = c.benchmark_group(format!("hash/{len}"));
        group.throughput(Throughput::Elements(KEYS as u64));
        let plain = Xxh3::default();
        let parquet = ParquetHash::default();
        time_keys(&mut group, "reference", len, &keys, |key| {
            xxhash_rust::xxh3::xxh3_64(key.as_bytes())
        });
        time_keys(&mut group, "plain-bytes", len, &keys, |key| {
            plain.hash_bytes(key.as_bytes())
        });
        time_keys(&mut group, "plain-str", len, &keys, |key| {
            plain.hash_one(key)
        });
        time_keys(&mut group, "plain-slice", len, &keys, |key| {
            plain.hash_one(key.as_bytes())
        });
        if let Some(gx) = gx {
            time_keys(&mut group, "gxhash-bytes", len, &keys, |key| {
                gx.hash_bytes(key.as_bytes())
            });
            time_keys(&mut group, "gxhash-str", len, &keys, |key| gx.hash_one(key));
        }
        time_keys(&mut group, "parquet-bytes", len, &keys, |key| {
            parquet.hash_bytes(key.as_bytes())
        });
        group.finish();
    }
}

/// The `contains` variants of one hasher: byte contract, `&str` and `&[u8]` through `Hash`.
fn contains_variants<S: FilterHasher>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    hasher: S,
    len: usize,
    keys: &[String],
) {
    let bytes = filter_with(hasher.clone(), keys, |filter, key| {
        filter.insert_bytes(key.as_bytes());
    });
    let text = filter_with(hasher.clone(), keys, |filter, key| {
        filter.insert(key);
    });
    let slice = filter_with(hasher, keys, |filter, key| {
        filter.insert(key.as_bytes());
    });
    for key in keys.iter().step_by(2) {
        assert!(bytes.contains_bytes(key.as_bytes()) && text.contains(key.as_str()));
        assert!(slice.contains(key.as_bytes()));
    }
    time_keys(group, &format!("{name}-bytes"), len, keys, |key| {
        bytes.contains_bytes(key.as_bytes())
    });
    time_keys(group, &format!("{name}-str"), len, keys, |key| {
        text.contains(key)
    });
    time_keys(group, &format!("{name}-slice"), len, keys, |key| {
        slice.contains(key.as_bytes())
    });
}

fn contains(c: &mut Criterion) {
    for len in LENGTHS {
        let keys = keys(len);
        let mut group = c.benchmark_group(format!("contains/{len}"));
        group.throughput(Throughput::Elements(KEYS as u64));
        let mut reference = Filter::with_num_blocks(1024).unwrap();
        for key in keys.iter().step_by(2) {
            reference.insert_hash(xxhash_rust::xxh3::xxh3_64(key.as_bytes()));
        }
        time_keys(&mut group, "reference", len, &keys, |key| {
            reference.contains_hash(xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
        });
        contains_variants(&mut group, "plain", Xxh3::default(), len, &keys);
        if let Ok(gx) = GxHash::new(0) {
            contains_variants(&mut group, "gxhash", gx, len, &keys);
        }
        contains_variants(&mut group, "parquet", ParquetHash::default(), len, &keys);
        group.finish();
    }
}

/// The interleaved mode's timing: `count` variants run in turn, 3000 rounds, `round(index)`
/// doing variant `index`'s work over all `KEYS` keys and returning a total that is kept from
/// the optimizer. Returns the fastest round of each variant, in ns per key (the round least
/// disturbed by other jobs on a shared machine).
fn fastest_rounds(count: usize, mut round: impl FnMut(usize) -> u64) -> Vec<f64> {
    let mut best = vec![f64::MAX; count];
    for _ in 0..3000 {
        for (index, best) in best.iter_mut().enumerate() {
            let start = Instant::now();
            black_box(round(index));
            *best = best.min(start.elapsed().as_nanos() as f64 / KEYS as f64);
        }
    }
    best
}

/// Table cells for `best` (ns per key): each with its ratio to the first (the reference).
fn cells(best: &[f64]) -> String {
    let cells: Vec<String> = best
        .iter()
        .map(|ns| format!("{ns:.2} ({:.2}x)", ns / best[0]))
        .collect();
    cells.join(" | ")
}

/// A variant of the interleaved mode: its name, its operation on one key (for the checks
/// before timing), and one timed round, the operation's loop over every key.
struct Variant<'a, E, T> {
    name: &'static str,
    one: Box<dyn Fn(&E) -> T + 'a>,
    round: Round<'a, E>,
}

/// One timed round of a [`Variant`]: its total over the keys.
type Round<'a, E> = Box<dyn Fn(&[E]) -> u64 + 'a>;

/// The [`Variant`] named `$name` whose operation on a key `$key` (a `&$E`) is `$operation`: `round`
/// sums its results over the keys, each key passed through [`opaque`] (a register-only
/// barrier: `black_box`'s memory clobber made every variant reload the filter's fields and
/// match its kernel again for every key, which a caller's loop of lookups does not do).
///
/// A macro, so that the operation is written out inside the round's loop and inlines there as
/// it does in a caller's loop. The interleaved mode first called every variant through a `dyn
/// Fn` once per key, and then through a closure, which LLVM kept out of line for most
/// variants: either way each key paid a call that every variant shared, which drew every ratio
/// towards 1.
macro_rules! variant {
    ($name:expr, $E:ty, |$key:pat_param| $operation:expr $(,)?) => {
        Variant {
            name: $name,
            one: Box::new(|$key: &$E| $operation),
            round: Box::new(|keys: &[$E]| {
                let mut total = 0u64;
                for key in keys {
                    let $key: &$E = opaque(key);
                    let result: u64 = ($operation).into();
                    total = total.wrapping_add(result);
                }
                total
            }),
        }
    };
}

/// The names of `variants`, for a table's header.
fn names<E, T>(variants: &[Variant<'_, E, T>]) -> Vec<&'static str> {
    variants.iter().map(|variant| variant.name).collect()
}

/// [`fastest_rounds`] of every variant over `keys`.
fn fastest_variants<E, T>(variants: &[Variant<'_, E, T>], keys: &[E]) -> Vec<f64> {
    fastest_rounds(variants.len(), |index| (variants[index].round)(keys))
}

/// `SPLITBLOOM_BENCH=interleaved`: every `contains` variant of a length in turn, the fastest
/// of 3000 rounds each, printed as a Markdown table (ns per key and ratio to the reference).
fn interleaved() {
    let gx = GxHash::new(0).ok();
    let mut header = false;
    for len in LENGTHS {
        let keys = keys(len);
        let mut reference = Filter::with_num_blocks(1024).unwrap();
        let mut plain = Filter::with_num_blocks_and_hasher(1024, Xxh3::default()).unwrap();
        let mut gxf = gx.map(|gx| Filter::with_num_blocks_and_hasher(1024, gx).unwrap());
        for key in keys.iter().step_by(2) {
            reference.insert_hash(xxhash_rust::xxh3::xxh3_64(key.as_bytes()));
            plain.insert_bytes(key.as_bytes());
            plain.insert(key.as_str());
            plain.insert(key.as_bytes());
            if let Some(gxf) = gxf.as_mut() {
                gxf.insert_bytes(key.as_bytes());
                gxf.insert(key.as_str());
            }
        }
        let mut probes: Vec<Variant<'_, String, bool>> = vec![
            variant!("reference", String, |key| {
                reference.contains_hash(xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
            }),
            variant!("default contains_bytes", String, |key| {
                plain.contains_bytes(key.as_bytes())
            }),
            variant!("default contains(&str)", String, |key| {
                plain.contains(key.as_str())
            }),
            variant!("default contains(&[u8])", String, |key| {
                plain.contains(key.as_bytes())
            }),
        ];
        if let Some(gxf) = gxf.as_ref() {
            probes.push(variant!("gxhash contains_bytes", String, |key| {
                gxf.contains_bytes(key.as_bytes())
            }));
            probes.push(variant!("gxhash contains(&str)", String, |key| {
                gxf.contains(key.as_str())
            }));
        }
        for probe in &probes {
            let found = keys
                .iter()
                .step_by(2)
                .filter(|key| (probe.one)(key))
                .count();
            assert_eq!(
                found,
                keys.len().div_ceil(2),
                "{}: false negatives",
                probe.name
            );
        }
        let best = fastest_variants(&probes, &keys);
        if !header {
            let names = names(&probes);
            println!("| key bytes | {} |", names.join(" | "));
            println!("|---:|{}", "---:|".repeat(names.len()));
            header = true;
        }
        println!("| {len} | {} |", cells(&best));
    }
}

/// `u64` keys through `contains(&key)`: the default (id 4, one folded multiply per key), next
/// to `contains_hash` of the key itself (no hashing at all), in the interleaved mode's style.
fn interleaved_u64_keys() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let keys: Vec<u64> = (0..KEYS)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        })
        .collect();
    let mut plain = Filter::with_num_blocks_and_hasher(1024, Xxh3::default()).unwrap();
    let mut unhashed = Filter::with_num_blocks(1024).unwrap();
    for key in keys.iter().step_by(2) {
        plain.insert(key);
        unhashed.insert_hash(*key);
    }
    let probes: Vec<Variant<'_, u64, bool>> = vec![
        variant!("contains_hash(key), no hashing", u64, |key| {
            unhashed.contains_hash(*key)
        }),
        variant!("default contains(&u64)", u64, |key| plain.contains(key)),
    ];
    for probe in &probes {
        assert!(
            keys.iter().step_by(2).all(|key| (probe.one)(key)),
            "{}: false negative",
            probe.name
        );
    }
    let best = fastest_variants(&probes, &keys);
    println!();
    let names = names(&probes);
    println!("| u64 keys | {} |", names.join(" | "));
    println!("|---|{}", "---:|".repeat(names.len()));
    println!("| random | {} |", cells(&best));
}

criterion_group!(benches, hashing, contains);

fn main() {
    if std::env::var("SPLITBLOOM_BENCH").as_deref() == Ok("interleaved") {
        interleaved();
        interleaved_u64_keys();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
