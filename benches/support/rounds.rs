//! What the plain benchmark binaries that time rounds share (`wide.rs`, `quotient.rs`): random
//! keys, one timed pass, and the median of the rounds.

use std::hint::black_box;
use std::time::Instant;

/// A SplitMix64 stream: `count` random 64-bit keys from `seed`.
pub fn keys(seed: u64, count: usize) -> Vec<u64> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// The median of the rounds' figures.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Nanoseconds per key of `run` over `keys` keys; its result is kept from the optimizer.
pub fn time(keys: usize, run: impl FnOnce() -> u64) -> f64 {
    let start = Instant::now();
    black_box(run());
    start.elapsed().as_nanos() as f64 / keys as f64
}
