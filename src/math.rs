//! False-positive rates and sizing for split-block Bloom filters.
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

use crate::block::BLOCK_BYTES;
use crate::error::Error;

/// Bits in one block.
const BLOCK_BITS: f64 = (BLOCK_BYTES * 8) as f64;

/// The largest number of blocks a filter may have: the block index is computed from the high 32
/// bits of the hash, so more than 2^32 blocks could not all be reached (and 2^32 blocks are
/// already 128 GiB).
///
/// ```
/// use splitbloom::{Filter, math::MAX_BLOCKS};
/// assert!(Filter::with_num_blocks(MAX_BLOCKS + 1).is_err());
/// ```
pub const MAX_BLOCKS: usize = if usize::BITS > 32 {
    1 << 32
} else {
    (isize::MAX as usize) / BLOCK_BYTES
};

/// The false-positive rate of a split-block filter holding on average `keys_per_block` keys in
/// each block (`λ` in the formula of the [module docs](self)).
///
/// ```
/// use splitbloom::math::fpr_for_keys_per_block;
/// assert_eq!(fpr_for_keys_per_block(0.0), 0.0);
/// let rate = fpr_for_keys_per_block(25.6); // 10 bits per key
/// assert!((rate - 0.0126).abs() < 0.0002);
/// ```
pub fn fpr_for_keys_per_block(keys_per_block: f64) -> f64 {
    let lambda = keys_per_block;
    if lambda.is_nan() || lambda <= 0.0 {
        return 0.0;
    }
    if lambda.is_infinite() {
        return 1.0;
    }
    // Sum the Poisson terms over the range that holds all but a negligible part of the mass
    // (±12 standard deviations), in log space so large λ does not underflow.
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

/// The false-positive rate of a split-block filter with `bits_per_key` bits per key.
///
/// ```
/// use splitbloom::math::false_positive_rate;
/// // The split-block rates of the README's sizing table.
/// assert!((false_positive_rate(8.0) - 0.0332).abs() < 0.0005);
/// assert!((false_positive_rate(16.0) - 0.00132).abs() < 0.00005);
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
    let k = libm::round(bits_per_key * core::f64::consts::LN_2).max(1.0);
    libm::pow(-libm::expm1(-k / bits_per_key), k)
}

/// The bits per key a split-block filter needs for a false-positive rate of at most `fpr`.
///
/// Errors when `fpr` is not in the open interval (0, 1).
///
/// ```
/// use splitbloom::math::{bits_per_key_for_fpr, false_positive_rate};
/// let bits = bits_per_key_for_fpr(0.01).unwrap();
/// assert!((bits - 10.5).abs() < 0.1);
/// assert!(false_positive_rate(bits) <= 0.01);
/// assert!(bits_per_key_for_fpr(0.0).is_err());
/// ```
pub fn bits_per_key_for_fpr(fpr: f64) -> Result<f64, Error> {
    check_fpr(fpr)?;
    // The rate falls monotonically with λ; bisect λ in log space between "nearly empty" and
    // "nearly full" blocks. 200 halvings of a ~900-wide log interval reach f64 precision.
    let (mut low, mut high) = (-700.0_f64, 10.0_f64); // ln λ
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if fpr_for_keys_per_block(libm::exp(mid)) <= fpr {
            low = mid;
        } else {
            high = mid;
        }
    }
    Ok(BLOCK_BITS / libm::exp(low))
}

/// The smallest number of blocks whose false-positive rate with `items` keys is at most `fpr`.
///
/// Errors when `items` is 0, `fpr` is not in (0, 1), or the filter would exceed [`MAX_BLOCKS`].
///
/// ```
/// use splitbloom::math::{num_blocks_for_fpr, fpr_for_keys_per_block};
/// let blocks = num_blocks_for_fpr(1_000_000, 0.01).unwrap();
/// assert!(fpr_for_keys_per_block(1e6 / blocks as f64) <= 0.01);
/// assert!(fpr_for_keys_per_block(1e6 / (blocks - 1) as f64) > 0.01);
/// ```
pub fn num_blocks_for_fpr(items: u64, fpr: f64) -> Result<usize, Error> {
    if items == 0 {
        return Err(Error::ZeroItems);
    }
    let bits_per_key = bits_per_key_for_fpr(fpr)?;
    let estimate = libm::ceil(items as f64 * bits_per_key / BLOCK_BITS).max(1.0);
    if estimate > MAX_BLOCKS as f64 {
        return Err(Error::TooLarge { blocks: estimate });
    }
    // The bisection's answer is within rounding of the exact minimum: step to it.
    let mut blocks = estimate as usize;
    let rate = |blocks: usize| fpr_for_keys_per_block(items as f64 / blocks as f64);
    while blocks > 1 && rate(blocks - 1) <= fpr {
        blocks -= 1;
    }
    while rate(blocks) > fpr {
        if blocks >= MAX_BLOCKS {
            return Err(Error::TooLarge {
                blocks: blocks as f64 + 1.0,
            });
        }
        blocks += 1;
    }
    Ok(blocks)
}

/// The number of blocks for `items` keys at `bits_per_key` bits each (rounded up, at least 1).
///
/// Errors when `items` is 0, `bits_per_key` is not a positive finite number, or the filter would
/// exceed [`MAX_BLOCKS`].
///
/// ```
/// assert_eq!(splitbloom::math::num_blocks_for_bits(1000, 10.0).unwrap(), 40);
/// ```
pub fn num_blocks_for_bits(items: u64, bits_per_key: f64) -> Result<usize, Error> {
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
            num_blocks_for_fpr(u64::MAX, 0.01),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            num_blocks_for_fpr(1, 1e-300),
            Err(Error::TooLarge { .. })
        ));
        for bits in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(num_blocks_for_bits(10, bits).is_err(), "{bits}");
        }
        assert!(matches!(
            num_blocks_for_bits(u64::MAX, 64.0),
            Err(Error::TooLarge { .. })
        ));
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
