//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each build of the suite uses a different subset")]

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::HashSet;

/// A seeded RNG, so failures reproduce.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// `count` random keys, and `count_negatives` more random keys disjoint from them.
pub fn members_and_strangers(
    seed: u64,
    count: usize,
    count_negatives: usize,
) -> (Vec<u64>, Vec<u64>) {
    let mut rng = rng(seed);
    let members: Vec<u64> = (0..count).map(|_| rng.random()).collect();
    let set: HashSet<u64> = members.iter().copied().collect();
    let mut strangers = Vec::with_capacity(count_negatives);
    while strangers.len() < count_negatives {
        let key: u64 = rng.random();
        if !set.contains(&key) {
            strangers.push(key);
        }
    }
    (members, strangers)
}
