//! False-positive rates and sizing: the split-block layout's here, the wide layout's in
//! [`wide`], the window's in [`window`]; the rate engine of every layout whose key sets one
//! bit in each of eight lanes is shared (`lanes.rs`).
//!
//! A split-block filter puts each key in one 256-bit block and sets one bit in each of the
//! block's eight 32-bit lanes. With `c` bits per key, a block holds on average
//! `λ = 256 / c` keys, and the number of keys in a block is Poisson-distributed. A lane with `i`
//! keys has each bit set with probability `1 − (1 − 1/32)^i`, so a non-member is reported
//! present with probability
//!
//! ```text
//! FPR(c) = Σ_{i ≥ 0} Pois(i; λ) · (1 − (1 − 1/32)^i)^8
//! ```
//!
//! (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom filters", 2007; the
//! same expression as the Parquet SBBF sizing discussion). The classic Bloom formula
//! `(1 − e^(−k/c))^k` assumes bits spread over the whole filter and under-estimates the rate of a
//! blocked filter; sizing with it (or with Parquet's `−8n / ln(1 − p^(1/8))`) gives too few bits:
//! at 1% the latter picks 9.68 bits/key, whose real rate is about 1.46%.
//!
//! Floating-point functions come from `libm`, so results are identical with and without `std`.
//!
//! ```
//! use splitbloom::math;
//! let bits = math::bits_per_key_for_fpr(0.01)?; // 10.53 bits per key for 1%
//! assert!(math::false_positive_rate(bits) <= 0.01);
//! assert!(math::classic_false_positive_rate(bits) < 0.01); // the classic formula is optimistic
//! # Ok::<(), splitbloom::Error>(())
//! ```

use crate::error::Error;
use crate::layout::split_block::BLOCK_BYTES;

mod lanes;
pub mod quotient;
pub mod wide;
pub mod window;

use lanes::Lanes;

/// Bits in one block.
const BLOCK_BITS: f64 = (BLOCK_BYTES * 8) as f64;

pub use crate::layout::split_block::MAX_BLOCKS;
pub use crate::layout::window::MAX_GENERATIONS;
pub use window::{generation_fpr_for_window, window_false_positive_rate};

/// The false-positive rate of a split-block filter holding on average `keys_per_block` keys in
/// each block (`λ` in the formula of the [module docs](self)).
///
/// Accurate to a few ulps (checked against 40-digit arithmetic) and computed in at most a few
/// microseconds for every input (the engine is shared with the window's planes: `lanes.rs`). Below 128 keys per block the Poisson sum runs outward from its
/// mode and stops when a geometric bound on the rest is below 2^−60 of the sum (at most about
/// 250 terms); from 128 on, `1 − FPR` has a closed form of eight exponentials
/// (`Σ_{k=1..8} (−1)^(k+1)·C(8,k)·e^(−λ(1 − (31/32)^k))`), exact to the last bits near 1; from
/// 1300 on the rate is 1 to `f64` precision (`1 − FPR ≤ 8·e^(−λ/32)`). Zero and negative loads
/// give 0, `+∞` gives 1 and NaN gives NaN.
///
/// ```
/// use splitbloom::math::fpr_for_keys_per_block;
/// assert_eq!(fpr_for_keys_per_block(0.0), 0.0);
/// let rate = fpr_for_keys_per_block(25.6); // 10 bits per key
/// assert!((rate - 0.0126).abs() < 0.0002);
/// assert_eq!(fpr_for_keys_per_block(2e19), 1.0); // every bit set
/// ```
pub fn fpr_for_keys_per_block(keys_per_block: f64) -> f64 {
    lanes::rate(keys_per_block, Lanes::OF_32)
}

/// The false-positive rate of a split-block filter with `bits_per_key` bits per key.
///
/// No space (zero, negative or NaN bits per key) gives 1; infinite space gives 0.
///
/// ```
/// use splitbloom::math::false_positive_rate;
/// // Split-block rates at 8 and 16 bits per key.
/// assert!((false_positive_rate(8.0) - 0.0332).abs() < 0.0005);
/// assert!((false_positive_rate(16.0) - 0.00132).abs() < 0.00005);
/// assert_eq!(false_positive_rate(1e-17), 1.0);
/// ```
pub fn false_positive_rate(bits_per_key: f64) -> f64 {
    if bits_per_key.is_nan() || bits_per_key <= 0.0 {
        return 1.0;
    }
    fpr_for_keys_per_block(BLOCK_BITS / bits_per_key)
}

/// The false-positive rate of a classic (unblocked) Bloom filter with `bits_per_key` bits per
/// key and the best number of hash functions `k = c · ln 2` (rounded, at least 1), for
/// comparison: `(1 − e^(−k/c))^k`.
///
/// ```
/// use splitbloom::math::{classic_false_positive_rate, false_positive_rate};
/// // Blocking costs accuracy at equal space.
/// assert!(classic_false_positive_rate(10.0) < false_positive_rate(10.0));
/// ```
pub fn classic_false_positive_rate(bits_per_key: f64) -> f64 {
    if bits_per_key.is_nan() || bits_per_key <= 0.0 {
        return 1.0;
    }
    if bits_per_key.is_infinite() {
        return 0.0;
    }
    let k = libm::round(bits_per_key * core::f64::consts::LN_2).max(1.0);
    libm::pow(-libm::expm1(-k / bits_per_key), k)
}

/// The bits per key a split-block filter needs for a false-positive rate of at most `fpr`.
///
/// Errors when `fpr` is not in the open interval (0, 1). Takes at most about a hundred
/// microseconds for any `fpr`.
///
/// ```
/// use splitbloom::math::{bits_per_key_for_fpr, false_positive_rate};
/// let bits = bits_per_key_for_fpr(0.01).unwrap();
/// assert!((bits - 10.5).abs() < 0.1);
/// assert!(false_positive_rate(bits) <= 0.01);
/// assert!(bits_per_key_for_fpr(0.0).is_err());
/// assert!(bits_per_key_for_fpr(1e-300).unwrap().is_finite());
/// ```
pub fn bits_per_key_for_fpr(fpr: f64) -> Result<f64, Error> {
    check_fpr(fpr)?;
    let mut bits = BLOCK_BITS / lanes::largest_load_for_fpr(fpr, Lanes::OF_32);
    // 256/λ rounds, and 256/bits need not give λ back: step up until the promise holds.
    let mut steps = 0;
    while bits.is_finite() && false_positive_rate(bits) > fpr {
        // A few ulps normally; past that (rounding noise in the rate), larger steps.
        steps += 1;
        bits = if steps < 16 {
            bits.next_up()
        } else {
            bits * (1.0 + 1e-12)
        };
    }
    Ok(bits)
}

/// The smallest number of blocks whose false-positive rate with `items` keys is at most `fpr`.
///
/// Errors when `items` is 0, `fpr` is not in (0, 1), or the filter would exceed [`MAX_BLOCKS`].
/// A bisection over the block count: at most 33 evaluations of the rate.
///
/// ```
/// use splitbloom::math::{num_blocks_for_fpr, fpr_for_keys_per_block};
/// let blocks = num_blocks_for_fpr(1_000_000, 0.01).unwrap();
/// assert!(fpr_for_keys_per_block(1e6 / blocks as f64) <= 0.01);
/// assert!(fpr_for_keys_per_block(1e6 / (blocks - 1) as f64) > 0.01);
/// assert!(num_blocks_for_fpr(usize::MAX, 0.01).is_err()); // more than 2^32 blocks
/// ```
pub fn num_blocks_for_fpr(items: usize, fpr: f64) -> Result<usize, Error> {
    if items == 0 {
        return Err(Error::ZeroItems);
    }
    check_fpr(fpr)?;
    lanes::num_blocks_for_fpr(items, fpr, Lanes::OF_32, (MAX_BLOCKS, BLOCK_BYTES))
}

/// The number of blocks for `items` keys at `bits_per_key` bits each (rounded up, at least 1).
///
/// Errors when `items` is 0, `bits_per_key` is not a positive finite number, or the filter would
/// exceed [`MAX_BLOCKS`].
///
/// ```
/// assert_eq!(splitbloom::math::num_blocks_for_bits(1000, 10.0).unwrap(), 40);
/// ```
pub fn num_blocks_for_bits(items: usize, bits_per_key: f64) -> Result<usize, Error> {
    if items == 0 {
        return Err(Error::ZeroItems);
    }
    if !(bits_per_key.is_finite() && bits_per_key > 0.0) {
        return Err(Error::InvalidBitsPerKey(bits_per_key));
    }
    let blocks = libm::ceil(items as f64 * bits_per_key / BLOCK_BITS).max(1.0);
    if blocks > MAX_BLOCKS as f64 {
        return Err(Error::TooLarge { blocks });
    }
    Ok(blocks as usize)
}

/// The average number of keys per block that leaves a fraction `fill` of all bits set.
///
/// Each key sets one bit per 32-bit lane, so with Poisson(λ) keys per block a bit stays clear
/// with probability `e^(−λ/32)`; inverting gives `λ = −32 · ln(1 − fill)`.
///
/// ```
/// use splitbloom::math::keys_per_block_for_fill;
/// assert_eq!(keys_per_block_for_fill(0.0), 0.0);
/// assert!((keys_per_block_for_fill(1.0 - (-0.5f64).exp()) - 16.0).abs() < 1e-9);
/// ```
pub fn keys_per_block_for_fill(fill: f64) -> f64 {
    if fill.is_nan() || fill <= 0.0 {
        return 0.0;
    }
    if fill >= 1.0 {
        return f64::INFINITY;
    }
    -32.0 * libm::log1p(-fill)
}

/// Errors unless a filter may have `num_blocks` blocks: at least one, at most [`MAX_BLOCKS`].
pub(crate) fn check_num_blocks(num_blocks: usize) -> Result<(), Error> {
    if num_blocks == 0 {
        return Err(Error::ZeroBlocks);
    }
    if num_blocks > MAX_BLOCKS {
        return Err(Error::TooLarge {
            blocks: num_blocks as f64,
        });
    }
    Ok(())
}

/// Errors unless `fpr` is in the open interval (0, 1).
pub(crate) fn check_fpr(fpr: f64) -> Result<(), Error> {
    if fpr > 0.0 && fpr < 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidFpr(fpr))
    }
}

/// Whether `blocks` is the number of blocks [`num_blocks_for_fpr`] gives for `items` keys at
/// `fpr`, from two evaluations of the rate rather than a search: the bisection ends on the one
/// count whose rate meets the target while the count below it does not (or is 0), so that is
/// exactly what is checked. A reader checks a stored stage size with this, so that hostile
/// bytes with many stages cost two evaluations per stage.
pub(crate) fn is_num_blocks_for_fpr(items: usize, fpr: f64, blocks: usize) -> bool {
    if items == 0 || check_fpr(fpr).is_err() || check_num_blocks(blocks).is_err() {
        return false;
    }
    lanes::is_num_blocks_for_fpr(items, fpr, blocks, Lanes::OF_32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures of the split-block column in ANCHORS (computed independently).
    #[test]
    fn matches_published_split_block_rates() {
        for (bits, percent) in [(8.0, 3.32), (10.0, 1.26), (12.0, 0.542), (16.0, 0.132)] {
            let got = 100.0 * false_positive_rate(bits);
            assert!(
                (got - percent).abs() / percent < 0.01,
                "{bits} bits/key: {got}% vs {percent}%"
            );
        }
        for (bits, percent) in [(8.0, 2.16), (10.0, 0.82), (12.0, 0.314), (16.0, 0.046)] {
            let got = 100.0 * classic_false_positive_rate(bits);
            assert!(
                (got - percent).abs() / percent < 0.03,
                "{bits} bits/key: {got}% vs {percent}%"
            );
        }
    }

    #[test]
    fn bits_for_target_rates() {
        for (fpr, bits) in [(0.01, 10.5), (0.001, 16.9)] {
            let got = bits_per_key_for_fpr(fpr).unwrap();
            assert!((got - bits).abs() < 0.1, "{fpr}: {got} bits/key vs {bits}");
        }
        // Parquet's formula picks 9.68 bits/key at 1%: the real rate is about 1.46%.
        assert!((false_positive_rate(9.68) - 0.0146).abs() < 0.0005);
    }

    #[test]
    fn rejects_bad_parameters() {
        for fpr in [0.0, 1.0, -0.5, 2.0, f64::NAN, f64::INFINITY] {
            assert!(bits_per_key_for_fpr(fpr).is_err(), "{fpr}");
            assert!(num_blocks_for_fpr(10, fpr).is_err(), "{fpr}");
        }
        assert_eq!(num_blocks_for_fpr(0, 0.01), Err(Error::ZeroItems));
        assert!(matches!(
            num_blocks_for_fpr(usize::MAX, 0.01),
            Err(Error::TooLargeForRate {
                items: usize::MAX,
                ..
            })
        ));
        assert_eq!(
            num_blocks_for_fpr(1, 1e-300),
            Err(Error::TooLargeForRate {
                items: 1,
                fpr: 1e-300,
                max_bytes: 1 << 37,
            })
        );
        for bits in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(num_blocks_for_bits(10, bits).is_err(), "{bits}");
        }
        assert!(matches!(
            num_blocks_for_bits(usize::MAX, 64.0),
            Err(Error::TooLarge { .. })
        ));
    }

    /// The rate as a plain Poisson sum in log space over ±(12·√λ + 30) terms: exact term for
    /// term, slow for large loads; the reference for the windowed sum.
    fn reference_rate(lambda: f64) -> f64 {
        let spread = 12.0 * libm::sqrt(lambda) + 30.0;
        let first = libm::floor((lambda - spread).max(0.0)) as u64;
        let last = libm::ceil(lambda + spread) as u64;
        let log_lambda = libm::log(lambda);
        let log_lane_empty = libm::log(1.0 - 1.0 / 32.0);
        let mut sum = 0.0;
        for i in first..=last {
            let i = i as f64;
            let log_pmf = i * log_lambda - lambda - libm::lgamma(i + 1.0);
            let lane_set = -libm::expm1(i * log_lane_empty);
            sum += libm::exp(log_pmf) * libm::pow(lane_set, 8.0);
        }
        sum.clamp(0.0, 1.0)
    }

    /// The windowed sum agrees with the full log-space sum wherever that one is accurate.
    #[test]
    fn windowed_sum_matches_the_full_sum() {
        let mut lambda = 1e-6;
        while lambda < Lanes::OF_32.saturated() {
            let (new, old) = (fpr_for_keys_per_block(lambda), reference_rate(lambda));
            assert!(
                (new - old).abs() <= 1e-11 * old,
                "λ = {lambda}: {new} vs {old}"
            );
            lambda *= 1.0173;
        }
    }

    /// The load search ends on a crossing: the rate at its answer meets the target, one ulp
    /// more does not.
    #[test]
    fn load_search_ends_on_the_crossing() {
        let mut fpr = 0.999_999_999_999_999_9;
        while fpr > 1e-320 {
            let load = lanes::largest_load_for_fpr(fpr, Lanes::OF_32);
            assert!(fpr_for_keys_per_block(load) <= fpr, "{fpr}: {load}");
            assert!(
                fpr_for_keys_per_block(load.next_up()) > fpr,
                "{fpr}: {load}"
            );
            fpr *= 0.77;
        }
    }

    /// The two-evaluation check of a stored stage size accepts exactly what the search gives.
    #[test]
    fn stage_size_check_accepts_exactly_the_search() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..300 {
            let items = match case % 3 {
                0 => 1 + next() % 64,
                1 => 1 + next() % 100_000,
                _ => 1 + next() % (1 << 36),
            } as usize;
            let fpr = libm::pow(10.0, -12.0 + 11.95 * (next() % 1_000_000) as f64 / 1e6);
            if let Ok(blocks) = num_blocks_for_fpr(items, fpr) {
                assert!(
                    is_num_blocks_for_fpr(items, fpr, blocks),
                    "{items} {fpr} {blocks}"
                );
                assert!(!is_num_blocks_for_fpr(items, fpr, blocks + 1));
                assert!(blocks == 1 || !is_num_blocks_for_fpr(items, fpr, blocks - 1));
            }
        }
    }

    #[test]
    fn rate_is_monotone_in_space() {
        let mut previous = 1.0;
        for tenth in 1..400 {
            let rate = false_positive_rate(f64::from(tenth) / 10.0);
            assert!(rate <= previous, "{tenth}");
            previous = rate;
        }
        assert!(fpr_for_keys_per_block(1e6) > 0.999);
    }
}
