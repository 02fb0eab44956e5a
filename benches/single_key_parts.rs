//! What a single-key lookup's time is made of: which piece of `Filter::contains` the time goes to.
//!
//! One filter per size (10 bits per key, `u64` keys, the default hasher) is probed, on its own
//! blocks, by loops that each change one piece of `Filter::contains`:
//!
//! * `Filter::contains`: the crate, as users call it;
//! * `default mix + Parquet mask`: the same steps (the default hasher's `u64` mix, Parquet's
//!   block index `((h >> 32) * n) >> 32`, the lane mask from `vpmulld` by the salts) written
//!   with AVX2 intrinsics in one `#[target_feature]` loop; its hits must equal the crate's;
//! * `one-multiply mix + Parquet mask`: the mix replaced by `fold((k ^ s) * C)`, a single
//!   64x64-bit multiply by a constant folded to 64 bits;
//! * `default mix + shift mask`: the lane mask replaced by Boost.Bloom's kind, shifts of a
//!   multiple of the hash (`vpsllvq`), with no multiply by the salts;
//! * `Boost.Bloom's scheme`: `fold(k * C) | 1`, block `(h * n) >> 64`, the shift mask;
//! * `one-multiply mix, contains_hash`: the one-multiply mix through the crate's own
//!   pre-hashed lookup on a filter built with it, so compiled as a dependent crate's loop is
//!   (in a default build, the inline-assembly probe): what a hasher id with that mix would give
//!   such a crate;
//! * `sbbf-rs-safe`: that crate's lookup of the XXH3 hash of the key's bytes (its README's
//!   way, as in the `workload` bench), on a filter of the same size: the last column gives
//!   every loop's ratio to it, the single-key yardstick of `BENCHMARKS.md`.
//!
//! Only the first two answer as the filter does: the others pick other blocks and bits, and
//! are timed for their shape, not their answers (the last two probe filters of their own, and
//! must find every inserted key). A faster mix is not a free win either: the default one is
//! part of hasher id 4's byte contract, and one-multiply mixes move the false-positive rate on
//! structured keys (`BENCHMARKS.md`, "Single-key parts").
//!
//! Each size runs 2M queries in random order, half of them inserted keys, `hits += answer`
//! with no branch. Every round runs each loop once, after an untimed pass of 80000 of its
//! queries that brings its filter back into the caches, in an order rotated from round to round
//! (a fixed order moved figures by up to 1.3x on a shared machine); the table gives the median
//! of the rounds in ns per lookup, its ratio to `Filter::contains` and its ratio to
//! sbbf-rs-safe.
//!
//! ```text
//! cargo bench -p splitbloom-bench --bench single_key_parts
//! SPLITBLOOM_PARTS_SIZES=1e4,1e6,1e7 SPLITBLOOM_PARTS_ROUNDS=11 cargo bench -p splitbloom-bench --bench single_key_parts
//! ```
//!
//! The timed loops need x86_64 with AVX2 and BMI2; elsewhere they are skipped.
//!
//! It then prints the false-positive rate each mix gives a real filter on structured `u64`
//! keys (sequential, strided, high bits only, byte-swapped, random), the measured rate next to
//! the filter's own estimate; `SPLITBLOOM_PARTS_RATES=0` leaves that out (about 2 s).

#[path = "support/env.rs"]
mod env;

use std::hash::BuildHasher;

use splitbloom::{Filter, Xxh3};

/// The multiplier of the one-multiply mixes (2^64 / golden ratio, Boost.Bloom's too).
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
/// What the one-multiply mix XORs into the key first, standing in for a seed.
const SEED: u64 = 0x243f_6a88_85a3_08d3;

/// The 128-bit product of `a` and `b`, its halves XORed.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// The one-multiply mix: `fold((k ^ s) * C)`.
#[inline(always)]
fn one_multiply_mix(key: u64) -> u64 {
    fold_mul(key ^ SEED, GOLDEN)
}

/// Boost.Bloom's mix: `fold(k * C) | 1`.
#[inline(always)]
fn boost_mix(key: u64) -> u64 {
    fold_mul(key, GOLDEN) | 1
}

#[cfg(target_arch = "x86_64")]
mod parts {
    use core::arch::x86_64::{
        __m256i, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_set1_epi32, _mm256_set1_epi64x,
        _mm256_setr_epi64x, _mm256_sllv_epi32, _mm256_sllv_epi64, _mm256_srli_epi32,
        _mm256_testc_si256,
    };
    use std::hash::BuildHasher;
    use std::hint::black_box;
    use std::time::Instant;

    use splitbloom::{Filter, SALT, Xxh3, block_index};
    use xxhash_rust::xxh3::xxh3_64;

    use super::{GOLDEN, boost_mix, one_multiply_mix};
    /// Queries per loop.
    const QUERIES: usize = 2_000_000;
    /// Queries of the untimed pass before each timed loop: twice the blocks of a 10^6-key filter.
    const WARM_UP: usize = 80_000;

    /// Boost.Bloom's block index, the high word of `hash * blocks`, below `blocks`.
    #[inline(always)]
    fn high_word_index(hash: u64, blocks: usize) -> usize {
        ((u128::from(hash) * blocks as u128) >> 64) as usize
    }

    /// Parquet's lane mask: lane i has bit `(hash as u32 * SALT[i]) >> 27`.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn parquet_mask(hash: u64) -> __m256i {
        // SAFETY: the caller guarantees AVX2; the load reads the 32 bytes of `SALT`.
        unsafe {
            let salts = _mm256_loadu_si256(SALT.as_ptr().cast());
            let product = _mm256_mullo_epi32(_mm256_set1_epi32(hash as u32 as i32), salts);
            _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(product, 27))
        }
    }

    /// A lane mask of Boost.Bloom's kind: the top five bits of each 32-bit half of a multiple of
    /// `hash` shifted left by 0, 5, 10 and 15 bits.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn shift_mask(hash: u64) -> __m256i {
        // SAFETY: the caller guarantees AVX2; no memory is read.
        unsafe {
            let spread = hash.wrapping_mul(0xf135_7aea_2e62_a9c5) as i64;
            let shifted =
                _mm256_sllv_epi64(_mm256_set1_epi64x(spread), _mm256_setr_epi64x(0, 5, 10, 15));
            _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(shifted, 27))
        }
    }

    /// 1 when every bit of `mask` is set in `blocks[index]`, else 0.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, and `index < blocks.len()`.
    #[inline(always)]
    unsafe fn test(blocks: &[[u32; 8]], index: usize, mask: __m256i) -> u64 {
        // SAFETY: the caller guarantees AVX2 and `index < blocks.len()`, so the unaligned load
        // reads the 32 bytes of one block.
        unsafe {
            let block = _mm256_loadu_si256(blocks.get_unchecked(index).as_ptr().cast());
            _mm256_testc_si256(block, mask) as u64
        }
    }

    /// A loop of lookups from a mix, a block index and a mask, compiled for AVX2 and BMI2.
    macro_rules! probe_loop {
        ($(#[$doc:meta])* $name:ident, $mix:expr, $index:ident, $mask:ident) => {
            $(#[$doc])*
            ///
            /// # Safety
            ///
            /// The CPU must have AVX2 and BMI2.
            #[target_feature(enable = "avx2,bmi2")]
            #[inline(never)]
            unsafe fn $name(hasher: &Xxh3, blocks: &[[u32; 8]], queries: &[u64]) -> u64 {
                let mix = $mix;
                let mut hits = 0;
                for &key in queries {
                    let hash = mix(hasher, key);
                    // SAFETY: AVX2 is enabled here; both indices map into `0..blocks.len()`
                    // (a value below 2^32 or 2^64 times the length, shifted right by 32 or
                    // 64), and `blocks` is a filter's, never empty.
                    hits += unsafe { test(blocks, $index(hash, blocks.len()), $mask(hash)) };
                }
                hits
            }
        };
    }

    probe_loop!(
        /// The crate's steps, written with intrinsics.
        default_parquet,
        |hasher: &Xxh3, key: u64| hasher.hash_one(key),
        block_index,
        parquet_mask
    );
    probe_loop!(
        /// A one-multiply mix in place of the default's.
        one_multiply_parquet,
        |_: &Xxh3, key: u64| one_multiply_mix(key),
        block_index,
        parquet_mask
    );
    probe_loop!(
        /// Boost.Bloom's kind of lane mask in place of Parquet's.
        default_shift,
        |hasher: &Xxh3, key: u64| hasher.hash_one(key),
        block_index,
        shift_mask
    );
    probe_loop!(
        /// Boost.Bloom's mix, block index and lane mask.
        boost_scheme,
        |_: &Xxh3, key: u64| boost_mix(key),
        high_word_index,
        shift_mask
    );

    #[inline(never)]
    fn crate_loop(filter: &Filter, queries: &[u64]) -> u64 {
        let mut hits = 0;
        for key in queries {
            hits += u64::from(filter.contains(key));
        }
        hits
    }

    /// A dependent crate's loop of pre-hashed lookups, the hash being the one-multiply mix.
    #[inline(never)]
    fn one_multiply_crate_loop(filter: &Filter, queries: &[u64]) -> u64 {
        let mut hits = 0;
        for &key in queries {
            hits += u64::from(filter.contains_hash(one_multiply_mix(key)));
        }
        hits
    }

    /// sbbf-rs-safe's lookups, its keys hashed with XXH3.
    #[inline(never)]
    fn sbbf_loop(filter: &sbbf_rs_safe::Filter, queries: &[u64]) -> u64 {
        let mut hits = 0;
        for &key in queries {
            hits += u64::from(filter.contains_hash(xxh3_64(&key.to_le_bytes())));
        }
        hits
    }

    const NAMES: [&str; 7] = [
        "Filter::contains",
        "default mix + Parquet mask",
        "one-multiply mix + Parquet mask",
        "default mix + shift mask",
        "Boost.Bloom's scheme",
        "one-multiply mix, contains_hash",
        "sbbf-rs-safe",
    ];
    /// The index in [`NAMES`] of the loops that probe filters of their own.
    const ONE_MULTIPLY_CRATE: usize = 5;
    const SBBF: usize = 6;

    /// SplitMix64, the queries' source.
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(GOLDEN);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn run(sizes: &[usize], rounds: usize) {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("bmi2")) {
            println!("this CPU lacks AVX2 or BMI2: nothing measured");
            return;
        }
        println!(
            "{:32} {:>10} {:>9} {:>9} {:>9}",
            "loop", "keys", "ns", "ratio", "vs sbbf"
        );
        for &n in sizes {
            let mut state = 0x5eed ^ n as u64;
            let keys: Vec<u64> = (0..n.max(1)).map(|_| splitmix(&mut state)).collect();
            let mut filter = Filter::with_bits_per_key(keys.len(), 10.0).expect("a valid size");
            for key in &keys {
                filter.insert(key);
            }
            let queries: Vec<u64> = (0..QUERIES)
                .map(|i| {
                    let random = splitmix(&mut state);
                    if i % 2 == 0 {
                        keys[(random % keys.len() as u64) as usize]
                    } else {
                        random
                    }
                })
                .collect();
            let mut one_multiply =
                Filter::with_num_blocks(filter.num_blocks()).expect("a valid size");
            let mut sbbf = sbbf_rs_safe::Filter::new(256, filter.num_blocks());
            for &key in &keys {
                one_multiply.insert_hash(one_multiply_mix(key));
                sbbf.insert_hash(xxh3_64(&key.to_le_bytes()));
            }
            let (blocks, rest) = filter.as_words().as_chunks::<8>();
            assert!(rest.is_empty(), "a filter is whole blocks");
            let hasher = *filter.hasher();
            let mut times = vec![Vec::with_capacity(rounds); NAMES.len()];
            let mut hits = [0u64; NAMES.len()];
            for round in 0..rounds {
                for step in 0..NAMES.len() {
                    let variant = (round + step) % NAMES.len();
                    // SAFETY: AVX2 and BMI2 were detected above.
                    let probe = |queries: &[u64]| unsafe {
                        match variant {
                            0 => crate_loop(&filter, queries),
                            1 => default_parquet(&hasher, blocks, queries),
                            2 => one_multiply_parquet(&hasher, blocks, queries),
                            3 => default_shift(&hasher, blocks, queries),
                            4 => boost_scheme(&hasher, blocks, queries),
                            ONE_MULTIPLY_CRATE => one_multiply_crate_loop(&one_multiply, queries),
                            _ => sbbf_loop(&sbbf, queries),
                        }
                    };
                    // Untimed, a pass that brings this loop's filter back into the caches:
                    // the last two loops probe filters of their own, which evict the others'.
                    black_box(probe(&queries[..WARM_UP]));
                    let start = Instant::now();
                    let found = probe(&queries);
                    times[variant].push(start.elapsed().as_nanos() as f64 / QUERIES as f64);
                    hits[variant] = black_box(found);
                }
            }
            assert_eq!(
                hits[0], hits[1],
                "the intrinsics loop must answer exactly as Filter::contains"
            );
            for variant in [0, ONE_MULTIPLY_CRATE, SBBF] {
                assert!(
                    hits[variant] >= (QUERIES / 2) as u64,
                    "{}: every inserted key is found",
                    NAMES[variant]
                );
            }
            let medians: Vec<f64> = times
                .iter_mut()
                .map(|samples| {
                    samples.sort_by(f64::total_cmp);
                    samples[samples.len() / 2]
                })
                .collect();
            for (name, median) in NAMES.iter().zip(&medians) {
                println!(
                    "{name:32} {n:>10} {median:>9.2} {:>8.2}x {:>8.2}x",
                    median / medians[0],
                    median / medians[SBBF]
                );
            }
        }
    }
}

/// A shape of keys: its name, and the key of each index.
type Shape = (&'static str, fn(u64) -> u64);

/// The false-positive rate each mix gives a real filter (the crate's block index and lane
/// mask, through `insert_hash` / `contains_hash`) on structured `u64` keys: 10^6 keys of a
/// shape inserted, the next 10^7 of the same shape queried. A random function gives every shape
/// the same rate; a mix that spreads some shape unevenly over the blocks moves it.
fn false_positive_rates() {
    const KEYS: u64 = 1_000_000;
    const NEGATIVES: u64 = 10_000_000;
    let hasher = Xxh3::default();
    let mixes: [(&str, &dyn Fn(u64) -> u64); 3] = [
        ("default mix (id 4)", &|key| hasher.hash_one(key)),
        ("one-multiply mix", &one_multiply_mix),
        ("Boost.Bloom's mix", &boost_mix),
    ];
    let shapes: [Shape; 6] = [
        ("sequential", |i| i),
        ("stride 4096", |i| i << 12),
        ("high 32 bits", |i| i << 32),
        ("top 20 + low 12 bits", |i| ((i >> 12) << 44) | (i & 0xfff)),
        ("byte-swapped", u64::swap_bytes),
        ("random", |i| {
            fold_mul(i ^ 0x1234_5678, 0xd6e8_feb8_6659_fd93)
        }),
    ];
    println!(
        "\nfalse-positive rate, 10^6 keys at 10 bits per key, the next 10^7 of each shape queried"
    );
    println!(
        "{:22} {:>20} {:>20} {:>20}",
        "key shape", mixes[0].0, mixes[1].0, mixes[2].0
    );
    for (shape, key) in shapes {
        let mut line = format!("{shape:22}");
        for (_, mix) in &mixes {
            let mut filter = Filter::with_bits_per_key(KEYS as usize, 10.0).expect("a valid size");
            for i in 0..KEYS {
                filter.insert_hash(mix(key(i)));
            }
            let missing = (0..KEYS)
                .filter(|&i| !filter.contains_hash(mix(key(i))))
                .count();
            assert_eq!(missing, 0, "no false negatives");
            let positives = (KEYS..KEYS + NEGATIVES)
                .filter(|&i| filter.contains_hash(mix(key(i))))
                .count();
            let rate = 100.0 * positives as f64 / NEGATIVES as f64;
            line += &format!(
                " {:>20}",
                format!("{rate:.3}% ({:.3}%)", 100.0 * filter.estimated_fpr())
            );
        }
        println!("{line}");
    }
    println!("(each cell: measured, then the estimate from the filter's fill)");
}

fn main() {
    let sizes = env::env_or(
        "SPLITBLOOM_PARTS_SIZES",
        vec![10_000, 1_000_000, 10_000_000],
        |list| list.split(',').map(env::parse_count).collect(),
    );
    let rounds = env::env_or("SPLITBLOOM_PARTS_ROUNDS", 11, env::parse_count).max(1);
    println!("cpu: {}", env::cpu_model());
    #[cfg(target_arch = "x86_64")]
    parts::run(&sizes, rounds);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (sizes, rounds);
        println!("the timed loops are x86_64 only");
    }
    if env::env_or("SPLITBLOOM_PARTS_RATES", true, |value| value != "0") {
        false_positive_rates();
    }
}
