//! False-positive rates and sizing for [`QuotientFilter`](crate::QuotientFilter).
//!
//! A quotient filter of `z` blocks of width `T` (tags of `T` bits, `S` slots and `B` buckets
//! per block: 8 bits, 48, 80 or 16 bits, 28, 36; see [`TagBits`]) has `R = z·B` buckets. A key
//! keeps its tag `t` in its primary bucket or in its alternate, which the tag determines, and a
//! lookup asks both. A key never inserted is reported present when some stored key has its tag
//! and its primary bucket is one of the two asked (a key with tag `t` stored in either bucket
//! has one of them as its primary: the alternate of the alternate is the primary), so with
//! `n` stored keys of uniform hashes
//!
//! ```text
//! FPR = 1 − (1 − 2 / (2^T · R))^n  ≈  1 − exp(−2·S·α / (B·2^T)),   α = n / (z·S)
//! ```
//!
//! where `α` is the load, the fraction of slots in use: 0.445% at `α = 0.95` with 8-bit tags,
//! 2.25·10^-5 with 16-bit tags. Both the rate and the memory per key, `512 / (S·α)` bits,
//! depend only on the load, so a filter is sized by the load it may reach: [`DESIGN_LOAD`].
//! The layout (one cache line of tags and unary bucket metadata, two candidate blocks) is the
//! vector quotient filter's (Pandey, Conway, Durie, Bender, Farach-Colton and Johnson, SIGMOD
//! 2021), whose rate is the same expression at small rates (`2·S·α / (B·2^T)`).
//!
//! A key goes to the emptier of its two blocks, and when both are full one stored tag moves to
//! its other block to make room, so the load can approach 1: inserts first fail at about 99%
//! of the slots (simulated for 2^18 to 2^26 slots, and under churn at 95% load, 3 and 10
//! deletions and insertions per key, with no failure). [`DESIGN_LOAD`] leaves that margin.
//!
//! ```
//! use splitbloom::{TagBits, math::quotient};
//! let rate = quotient::false_positive_rate(TagBits::Eight, quotient::DESIGN_LOAD);
//! assert!((rate - 0.00444).abs() < 1e-5);
//! assert!((quotient::bits_per_key(TagBits::Eight, 0.95) - 11.23).abs() < 0.01);
//! # Ok::<(), splitbloom::Error>(())
//! ```

use super::check_fpr;
use crate::error::Error;
pub use crate::kind::TagBits;

/// Bytes in one block of a quotient filter: one cache line.
pub const QUOTIENT_BLOCK_BYTES: usize = 64;

/// The load (the fraction of slots in use) a filter is sized for: [`num_blocks_for_fpr`] and
/// [`num_blocks_for_capacity`] give enough blocks that the keys asked for fill at most this
/// fraction of the slots. Inserts keep succeeding past it, until about 99% of the slots.
///
/// ```
/// assert_eq!(splitbloom::math::quotient::DESIGN_LOAD, 0.95);
/// ```
pub const DESIGN_LOAD: f64 = 0.95;

/// The lowest load [`num_blocks_for_fpr`] sizes for: a rate below what 16-bit tags give at this
/// load ([`lowest_fpr`]) would need more than twice the memory of the design load, and is an
/// error instead of a silently huge filter.
///
/// ```
/// assert_eq!(splitbloom::math::quotient::LOWEST_LOAD, 0.5);
/// ```
pub const LOWEST_LOAD: f64 = 0.5;

/// The largest number of blocks: the primary bucket is a multiply-high of the hash, and block
/// indices are stored in 32 bits in a batch's ring (2^32 blocks, 256 GiB), or what a 32-bit
/// address space can hold.
///
/// ```
/// assert!(splitbloom::math::quotient::MAX_QUOTIENT_BLOCKS >= 1 << 20);
/// ```
pub const MAX_QUOTIENT_BLOCKS: usize = if usize::BITS > 32 {
    1 << 32
} else {
    (isize::MAX as usize) / QUOTIENT_BLOCK_BYTES
};

/// The rate one lookup of a key never inserted has at load `load` (the fraction of slots in
/// use): `1 − exp(−2·S·load / (B·2^T))` (see the [module docs](self)). 0 for loads of 0 and
/// below, NaN for NaN.
///
/// ```
/// use splitbloom::{TagBits, math::quotient::false_positive_rate};
/// assert_eq!(false_positive_rate(TagBits::Sixteen, 0.0), 0.0);
/// assert!(false_positive_rate(TagBits::Sixteen, 0.95) < 3e-5);
/// ```
pub fn false_positive_rate(tag_bits: TagBits, load: f64) -> f64 {
    if load <= 0.0 {
        return 0.0;
    }
    -libm::expm1(-load * matches_per_load(tag_bits))
}

/// `2·S / (B·2^T)`: the expected matching tags a lookup finds, per unit of load.
fn matches_per_load(tag_bits: TagBits) -> f64 {
    let slots = tag_bits.slots_per_block() as f64;
    let buckets = tag_bits.buckets_per_block() as f64;
    2.0 * slots / (buckets * libm::exp2(f64::from(tag_bits.bits())))
}

/// The rate of a filter of `num_blocks` blocks holding `items` keys (the load is
/// `items / (num_blocks·S)`): what [`QuotientFilter::estimated_fpr`](crate::QuotientFilter::estimated_fpr)
/// reports.
///
/// ```
/// use splitbloom::{TagBits, math::quotient};
/// let rate = quotient::false_positive_rate_of(TagBits::Eight, 4560, 100);
/// assert_eq!(rate, quotient::false_positive_rate(TagBits::Eight, 0.95));
/// ```
pub fn false_positive_rate_of(tag_bits: TagBits, items: usize, num_blocks: usize) -> f64 {
    let slots = num_blocks as f64 * tag_bits.slots_per_block() as f64;
    false_positive_rate(tag_bits, items as f64 / slots)
}

/// The load at which [`false_positive_rate`] is `fpr` (its inverse); infinite for rates the
/// width cannot reach even when full.
///
/// ```
/// use splitbloom::{TagBits, math::quotient};
/// let load = quotient::load_for_fpr(TagBits::Eight, 0.004);
/// assert!((quotient::false_positive_rate(TagBits::Eight, load) - 0.004).abs() < 1e-12);
/// ```
pub fn load_for_fpr(tag_bits: TagBits, fpr: f64) -> f64 {
    -libm::log1p(-fpr) / matches_per_load(tag_bits)
}

/// Bits of memory per key at load `load`: `512 / (S·load)`.
///
/// ```
/// use splitbloom::{TagBits, math::quotient::bits_per_key};
/// assert!((bits_per_key(TagBits::Eight, 0.85) - 12.55).abs() < 0.01);
/// assert!((bits_per_key(TagBits::Sixteen, 0.95) - 19.25).abs() < 0.01);
/// ```
pub fn bits_per_key(tag_bits: TagBits, load: f64) -> f64 {
    (QUOTIENT_BLOCK_BYTES * 8) as f64 / (tag_bits.slots_per_block() as f64 * load)
}

/// The lowest rate [`num_blocks_for_fpr`] sizes for: 16-bit tags at [`LOWEST_LOAD`], about
/// 1.19·10^-5 (36.6 bits per key). Lower targets are [`Error::FprTooLow`].
///
/// ```
/// let lowest = splitbloom::math::quotient::lowest_fpr();
/// assert!(lowest > 1.18e-5 && lowest < 1.2e-5);
/// ```
pub fn lowest_fpr() -> f64 {
    false_positive_rate(TagBits::Sixteen, LOWEST_LOAD)
}

/// Blocks for `items` keys at load `load`, or the error for more than [`MAX_QUOTIENT_BLOCKS`].
fn blocks_at_load(items: usize, tag_bits: TagBits, load: f64) -> Result<usize, Error> {
    let blocks = libm::ceil(items as f64 / (tag_bits.slots_per_block() as f64 * load)).max(1.0);
    if blocks > MAX_QUOTIENT_BLOCKS as f64 {
        return Err(Error::TooLarge { blocks });
    }
    Ok(blocks as usize)
}

/// The number of blocks of `tag_bits` tags that holds `items` keys at [`DESIGN_LOAD`].
///
/// Errors when `items` is 0 or the filter would exceed [`MAX_QUOTIENT_BLOCKS`].
///
/// ```
/// use splitbloom::{TagBits, math::quotient::num_blocks_for_capacity};
/// assert_eq!(num_blocks_for_capacity(1_000_000, TagBits::Eight)?, 21_930);
/// assert!(num_blocks_for_capacity(0, TagBits::Eight).is_err());
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub fn num_blocks_for_capacity(items: usize, tag_bits: TagBits) -> Result<usize, Error> {
    if items == 0 {
        return Err(Error::ZeroItems);
    }
    blocks_at_load(items, tag_bits, DESIGN_LOAD)
}

/// The number of blocks and the tag width for `items` keys at a false-positive rate of at most
/// `fpr`: for each width, the load is [`DESIGN_LOAD`], or lower where the width's rate there is
/// above `fpr` (down to [`LOWEST_LOAD`]), and the width needing fewer blocks wins (8 bits on a
/// tie). So 8-bit tags serve targets from 0.445% up at 11.23 bits per key, and down to about
/// 0.26% at a lower load; 16-bit tags serve lower targets at 19.25 bits per key down to
/// 2.25·10^-5, and at a lower load down to [`lowest_fpr`].
///
/// Errors when `items` is 0, `fpr` is not in (0, 1), `fpr` is below [`lowest_fpr`]
/// ([`Error::FprTooLow`]), or the filter would exceed [`MAX_QUOTIENT_BLOCKS`].
///
/// ```
/// use splitbloom::{Error, TagBits, math::quotient::num_blocks_for_fpr};
/// assert_eq!(num_blocks_for_fpr(1_000_000, 0.01)?, (21_930, TagBits::Eight));
/// assert_eq!(num_blocks_for_fpr(1_000_000, 0.001)?.1, TagBits::Sixteen);
/// assert!(matches!(num_blocks_for_fpr(1_000_000, 1e-6), Err(Error::FprTooLow { .. })));
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub fn num_blocks_for_fpr(items: usize, fpr: f64) -> Result<(usize, TagBits), Error> {
    if items == 0 {
        return Err(Error::ZeroItems);
    }
    check_fpr(fpr)?;
    let mut best: Option<(usize, TagBits)> = None;
    for tag_bits in TagBits::ALL {
        let load = load_for_fpr(tag_bits, fpr).min(DESIGN_LOAD);
        if load < LOWEST_LOAD {
            continue;
        }
        let blocks = blocks_at_load(items, tag_bits, load)?;
        if best.is_none_or(|(fewest, _)| blocks < fewest) {
            best = Some((blocks, tag_bits));
        }
    }
    best.ok_or(Error::FprTooLow {
        fpr,
        lowest: lowest_fpr(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_meets_the_target_at_the_chosen_load() {
        for fpr in [
            0.5, 0.05, 0.01, 0.004, 0.003, 0.002, 1e-3, 1e-4, 3e-5, 2e-5, 1.2e-5,
        ] {
            for items in [1usize, 10, 1000, 1_000_000] {
                let (blocks, tag_bits) = num_blocks_for_fpr(items, fpr).unwrap();
                let rate = false_positive_rate_of(tag_bits, items, blocks);
                assert!(rate <= fpr, "{fpr} {items}: {rate}");
                let load = items as f64 / (blocks * tag_bits.slots_per_block()) as f64;
                assert!(load <= DESIGN_LOAD, "{fpr} {items}: load {load}");
            }
        }
        assert!(matches!(
            num_blocks_for_fpr(10, 1.1e-5),
            Err(Error::FprTooLow { .. })
        ));
        assert!(num_blocks_for_fpr(usize::MAX, 0.01).is_err());
    }

    #[test]
    fn the_rate_matches_its_small_rate_approximation() {
        // 2·S·α / (B·2^T) at α = 0.85: 0.398% and 2.02·10^-5.
        let eight = false_positive_rate(TagBits::Eight, 0.85);
        assert!((eight / (2.0 * 48.0 * 0.85 / (80.0 * 256.0)) - 1.0).abs() < 0.003);
        let sixteen = false_positive_rate(TagBits::Sixteen, 0.85);
        assert!((sixteen / (2.0 * 28.0 * 0.85 / (36.0 * 65536.0)) - 1.0).abs() < 1e-4);
    }
}
