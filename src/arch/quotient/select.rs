//! Bucket bounds without BMI2: a select on the metadata in a few word-parallel operations
//! (the portable and NEON kernels; the x86 kernels use `pdep`). Plain Rust, no `unsafe`.
//!
//! The select finds the byte holding the `k`-th one from the bytes' running popcounts, all
//! eight computed at once in one word (Vigna, "Broadword implementation of rank/select
//! queries", 2008, gives the technique), then the bit inside that byte from a table.

use crate::layout::quotient::{BucketEnds, MetadataBits, Width};

/// `SELECT_IN_BYTE[b][k]`: the position of the `k`-th one (from 0) of byte `b`, 8 when it has
/// fewer than `k + 1` ones.
static SELECT_IN_BYTE: [[u8; 8]; 256] = select_in_byte_table();

const fn select_in_byte_table() -> [[u8; 8]; 256] {
    let mut table = [[8u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        let mut ones = 0;
        while bit < 8 {
            if byte >> bit & 1 == 1 {
                table[byte][ones] = bit as u8;
                ones += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// Eight ones, one per byte.
const BYTES_ONE: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
const BYTES_HIGH: u64 = 0x8080_8080_8080_8080;

/// The position of the `k`-th one (from 0) of `word`; 64 when it has fewer than `k + 1`.
#[inline(always)]
pub(crate) fn select_in_word(word: u64, k: u32) -> u32 {
    if k >= 64 {
        return 64;
    }
    // The ones of every byte, then the running sum over the bytes (each at most 64).
    let pairs = word - ((word >> 1) & 0x5555_5555_5555_5555);
    let nibbles = (pairs & 0x3333_3333_3333_3333) + ((pairs >> 2) & 0x3333_3333_3333_3333);
    let bytes = (nibbles + (nibbles >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    let running = bytes.wrapping_mul(BYTES_ONE);
    // The high bit of byte i is set when bytes 0..=i hold more than k ones: every byte of
    // `running | BYTES_HIGH` is at least 128 and k + 1 at most 64, so no borrow crosses bytes.
    let beyond = ((running | BYTES_HIGH) - u64::from(k + 1) * BYTES_ONE) & BYTES_HIGH;
    if beyond == 0 {
        return 64;
    }
    let byte = beyond.trailing_zeros() / 8;
    let before = (running << 8 >> (8 * byte)) as u8;
    let within = (word >> (8 * byte)) as u8;
    8 * byte + u32::from(SELECT_IN_BYTE[usize::from(within)][usize::from(k as u8 - before)])
}

/// The position of the `k`-th bucket end (zero, from 0) of the metadata word `metadata`; its
/// width when it has fewer than `k + 1`.
#[inline(always)]
fn select<M: MetadataBits>(metadata: M, k: u32) -> u32 {
    let ends = metadata.ends();
    let low = ends.low();
    let ones = low.count_ones();
    if k < ones || M::BITS == 64 {
        select_in_word(low, k)
    } else {
        64 + select_in_word(ends.high(), k - ones)
    }
}

/// The one-hot words of the slots `start..end` of bucket `bucket`: `end = select(bucket) −
/// bucket`, and `start` is the previous bucket's end (0 for bucket 0).
#[inline(always)]
pub(crate) fn bucket_range<W: Width>(metadata: W::Metadata, bucket: u32) -> BucketEnds {
    let end = |k: u32| 1u64 << (select(metadata, k).wrapping_sub(k) & 63);
    let start = if bucket == 0 { 1 } else { end(bucket - 1) };
    (start, end(bucket))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(word: u64, k: u32) -> u32 {
        (0..64)
            .filter(|&bit| word >> bit & 1 == 1)
            .nth(k as usize)
            .unwrap_or(64)
    }

    #[test]
    fn select_in_word_matches_a_loop() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let word = match round % 4 {
                0 => state,
                1 => state & state.rotate_left(17),
                2 => state | state.rotate_left(29),
                _ => u64::MAX << (round % 64),
            };
            for k in [0, 1, 7, 8, 31, 32, 40, 63, 64, 100] {
                assert_eq!(select_in_word(word, k), reference(word, k), "{word:#x} {k}");
            }
        }
    }
}
