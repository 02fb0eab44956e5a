//! False-positive rates and sizing for [`WideFilter`](crate::WideFilter).
//!
//! A wide filter is made of 512-bit blocks of eight 64-bit words, and a key sets one bit in
//! each word of `r` blocks (`r = 1` or `2`). With λ keys per block on average, a block holds
//! Poisson(λ) keys, a word with `i` keys has a given bit set with probability
//! `1 − (63/64)^i`, and a non-member probing one block is reported present with probability
//!
//! ```text
//! F(λ) = Σ_{i ≥ 0} Pois(i; λ) · (1 − (63/64)^i)^8
//! ```
//!
//! (the split-block formula of the [parent module](super) with 31/32 replaced by 63/64). With
//! one probe, `FPR = F(n/z)` for `n` keys in `z` blocks.
//!
//! With two probes, the second block is the next block of the same group of 64 blocks (one
//! 4 KiB page), wrapping at the group's end, so a key's two cache lines are neighbours. Let
//! `A_j ~ Pois(μ)`, `μ = n/z`, be the keys whose first block is `j`, independent for every `j`;
//! block `j` then holds `A_(j−1) + A_j` keys. A query whose first block is `q` reads blocks
//! `q` and `q + 1`, holding `A_(q−1) + A_q` and `A_q + A_(q+1)`: they share `A_q` and are
//! otherwise independent (a group has more than two blocks), so
//!
//! ```text
//! FPR₂(n, z) = Σ_s Pois(s; μ) · ( Σ_a Pois(a; μ) · (1 − (63/64)^(a+s))^8 )²
//! ```
//!
//! exactly. The shared keys make it 2-4% costlier in memory than two independent blocks
//! (`F(2μ)²`), and much cheaper than a 128-byte block whose two halves hold the same keys
//! (`Σ_s Pois(s; 2μ)·(1 − (63/64)^s)^16`, 1.103x the classic optimum at 10^-4 against 1.079x).
//! Sizing picks one probe when it costs at most 1% more blocks than two, so each lookup
//! touches one cache line when that is nearly free, two neighbouring ones otherwise.
//!
//! No layout within one cache line reaches the memory of two at these targets: even a
//! 512-bit block with `k` bits anywhere in it and the best `k`
//! (`Σ_i Pois(i; 512/c)·(1 − (1 − 1/512)^(k·i))^k`, Putze, Sanders and Singler, 2007) needs
//! 1.143x the classic optimum at 10^-4 and 1.339x at 10^-6 (for the eight words of this
//! layout, 1.231x and 1.804x: `F` above).
//!
//! ```
//! use splitbloom::math::wide;
//! let (blocks, probes) = wide::num_blocks_for_fpr(1_000_000, 1e-4)?;
//! assert_eq!(probes, 2);
//! assert!(wide::false_positive_rate(1_000_000, blocks, probes) <= 1e-4);
//! # Ok::<(), splitbloom::Error>(())
//! ```

use alloc::vec::Vec;

use super::check_fpr;
use super::lanes::{CompensatedSum, TRUNCATION, all_eight_set, poisson_at_mode};
use crate::error::Error;

pub use crate::layout::wide::{GROUP_BLOCKS, MAX_WIDE_BLOCKS, WIDE_BLOCK_BYTES, is_valid_shape};

/// The chance that a key leaves a given bit of its word clear: 63/64 (exact in binary).
const WORD_CLEAR: f64 = 63.0 / 64.0;

/// From this load on `F` rounds to 1: `1 − F(λ) ≤ 8·e^(−λ/64) < 2^−55` from λ = 2600.
const SATURATED: f64 = 2600.0;

/// From this load on, `1 − F` comes from its closed form (whose first term then dominates,
/// so nothing cancels); below, from the Poisson sum.
const COMPLEMENT_FROM: f64 = 256.0;

/// Sizing prefers one probe unless it needs more than this factor of the blocks of two.
const ONE_PROBE_ALLOWANCE: f64 = 1.01;

/// Sizing aims the expected rate this fraction below the target: one filter's realised rate
/// scatters around the expectation (the block loads it happened to get), by well under 1% of
/// the rate at 10^5 keys and more, so a filter built for `p` measures at or under `p`. Costs
/// about 0.3% memory.
pub const SIZING_MARGIN: f64 = 0.02;

/// `E[(1 − (63/64)^(A + shift))^8]` for `A ~ Pois(λ)`: the rate of a block holding Pois(λ)
/// keys plus `shift` more. Accurate to a few ulps where it is small (Poisson sum outward from
/// the mode, stopped by a geometric bound on the rest), and near 1 (closed form of the
/// complement, `Σ_{k=1..8} (−1)^(k+1)·C(8,k)·(63/64)^(k·shift)·e^(−λ(1 − (63/64)^k))`).
fn shifted_rate(lambda: f64, shift: u32) -> f64 {
    shifted_rate_with(lambda, shift, &mut WordClearPowers::default())
}

/// `(63/64)^k`, each power computed once by libm's `pow` and then kept: a two-probe rate asks
/// for the same powers once for every count of shared keys, so keeping them turns its double
/// sum's thousands of `pow` calls into one per power, with the same values.
#[derive(Default)]
struct WordClearPowers(Vec<f64>);

impl WordClearPowers {
    /// `(63/64)^k`.
    fn get(&mut self, k: u32) -> f64 {
        let k = k as usize;
        while self.0.len() <= k {
            let next = self.0.len();
            self.0.push(libm::pow(WORD_CLEAR, next as f64));
        }
        self.0[k]
    }
}

/// [`shifted_rate`] with the powers of 63/64 kept in `powers`.
fn shifted_rate_with(lambda: f64, shift: u32, powers: &mut WordClearPowers) -> f64 {
    if lambda.is_nan() {
        return f64::NAN;
    }
    if lambda >= SATURATED {
        return 1.0;
    }
    let shift_clear = powers.get(shift);
    if lambda <= 0.0 {
        return all_eight_set(shift_clear);
    }
    if lambda >= COMPLEMENT_FROM {
        const BINOMIAL: [f64; 9] = [1.0, 8.0, 28.0, 56.0, 70.0, 56.0, 28.0, 8.0, 1.0];
        let mut clear = [1.0f64; 9];
        for k in 1..9 {
            clear[k] = clear[k - 1] * WORD_CLEAR;
        }
        let mut complement = 0.0;
        for k in (1..9).rev() {
            let term = BINOMIAL[k]
                * libm::pow(shift_clear, k as f64)
                * libm::exp(-lambda * (1.0 - clear[k]));
            complement += if k % 2 == 1 { term } else { -term };
        }
        return (1.0 - complement).clamp(0.0, 1.0);
    }
    outward_sum(lambda, |keys| all_eight_set(shift_clear * powers.get(keys)))
}

/// `Σ_i Pois(i; λ)·g(i)` for `0 < λ < 1300` (where `poisson_at_mode` holds) and a `g` in `[0, 1]` that never falls as `i`
/// rises, to a few ulps: summed outward from the mode, each way stopped when a geometric bound
/// on the rest is below [`TRUNCATION`] of the sum. Upwards the ratio `λ/(i + 1)` of
/// consecutive probabilities only falls and `g ≤ 1`, so the rest after `i` is at most
/// `P(i)·r/(1 − r)`; downwards the ratio `i/λ` and `g` both fall, so the terms below `i` add up
/// to at most `term(i)·r/(1 − r)`.
fn outward_sum(lambda: f64, mut g: impl FnMut(u32) -> f64) -> f64 {
    let mode = libm::floor(lambda);
    let peak = if mode == 0.0 {
        libm::exp(-lambda)
    } else {
        poisson_at_mode(lambda, mode)
    };
    // `mode < SATURATED`, far inside `u32`.
    let mode_keys = mode as u32;
    let mut sum = CompensatedSum::default();
    sum.add(peak * g(mode_keys));
    let (mut probability, mut i) = (peak, mode_keys);
    loop {
        i += 1;
        probability *= lambda / f64::from(i);
        sum.add(probability * g(i));
        let ratio = lambda / f64::from(i + 1);
        if probability * ratio / (1.0 - ratio) <= TRUNCATION * sum.total() || probability == 0.0 {
            break;
        }
    }
    let (mut probability, mut i) = (peak, mode_keys);
    while i > 0 {
        probability *= f64::from(i) / lambda;
        i -= 1;
        let term = probability * g(i);
        sum.add(term);
        let ratio = f64::from(i) / lambda;
        if term * ratio / (1.0 - ratio) <= TRUNCATION * sum.total() || term == 0.0 {
            break;
        }
    }
    sum.total().clamp(0.0, 1.0)
}

/// `F(λ)`: the false-positive rate of one probe into blocks holding on average
/// `keys_per_block` keys (see the [module docs](self)). Zero and negative loads give 0.
///
/// ```
/// use splitbloom::math::wide::fpr_for_keys_per_block;
/// assert_eq!(fpr_for_keys_per_block(0.0), 0.0);
/// assert!((fpr_for_keys_per_block(32.0) - 9.088769195882769e-4).abs() < 1e-15);
/// assert_eq!(fpr_for_keys_per_block(1e9), 1.0);
/// ```
pub fn fpr_for_keys_per_block(keys_per_block: f64) -> f64 {
    if keys_per_block <= 0.0 {
        return 0.0;
    }
    shifted_rate(keys_per_block, 0)
}

/// `FPR₂`: the false-positive rate of two probes (the second block the next block of the
/// first one's group of 64) for `items` keys in `num_blocks` blocks (see the
/// [module docs](self)).
///
/// ```
/// use splitbloom::math::wide::two_probe_fpr;
/// let rate = two_probe_fpr(1_000_000, 40_960);
/// assert!((rate - 8.757972428465979e-5).abs() < 1e-15);
/// ```
pub fn two_probe_fpr(items: usize, num_blocks: usize) -> f64 {
    if items == 0 {
        return 0.0;
    }
    if num_blocks == 0 {
        return 1.0;
    }
    let mean = items as f64 / num_blocks as f64;
    // Each block holds two first-block counts, so from here on every term rounds to 1.
    if 2.0 * mean >= SATURATED {
        return 1.0;
    }
    // The inner rate rises with the shared keys and stays at most 1, as `outward_sum` needs.
    let mut powers = WordClearPowers::default();
    outward_sum(mean, |shared| {
        let inner = shifted_rate_with(mean, shared, &mut powers);
        inner * inner
    })
}

/// The false-positive rate of a wide filter of `num_blocks` blocks holding `items` keys with
/// `probes` probes per key (1 or 2; any other count gives 1, a filter that cannot exist).
///
/// ```
/// use splitbloom::math::wide::{false_positive_rate, fpr_for_keys_per_block};
/// assert_eq!(false_positive_rate(1000, 40, 1), fpr_for_keys_per_block(25.0));
/// assert!(false_positive_rate(1000, 64, 2) < false_positive_rate(1000, 64, 1));
/// ```
pub fn false_positive_rate(items: usize, num_blocks: usize, probes: u8) -> f64 {
    match probes {
        1 if num_blocks > 0 => fpr_for_keys_per_block(items as f64 / num_blocks as f64),
        2 if num_blocks > 0 => two_probe_fpr(items, num_blocks),
        _ => 1.0,
    }
}

/// The number of distinct keys that leaves a fraction `fill_ratio` of the bits of `num_blocks`
/// blocks set, with `probes` probes per key: each key sets one bit in each 64-bit word of each
/// of its blocks, so with `h = probes·items/num_blocks` probes per block a bit stays clear with
/// probability `(63/64)^h`, and `items = num_blocks·ln(1 − f)/(probes·ln(63/64))`. A full
/// filter gives infinity; no probes or no blocks, 0.
///
/// ```
/// use splitbloom::math::wide::items_for_fill;
/// assert_eq!(items_for_fill(0.0, 100, 1), 0.0);
/// let fill = 1.0 - (63.0f64 / 64.0).powf(2.0 * 500.0 / 64.0); // 500 keys, 64 blocks, 2 probes
/// assert!((items_for_fill(fill, 64, 2) - 500.0).abs() < 1e-9);
/// assert_eq!(items_for_fill(1.0, 64, 1), f64::INFINITY);
/// ```
pub fn items_for_fill(fill_ratio: f64, num_blocks: usize, probes: u8) -> f64 {
    if probes == 0 || num_blocks == 0 || fill_ratio <= 0.0 {
        return 0.0;
    }
    if fill_ratio >= 1.0 {
        return f64::INFINITY;
    }
    libm::log(1.0 - fill_ratio) / libm::log(WORD_CLEAR) * num_blocks as f64 / f64::from(probes)
}

/// The smallest block count `k·step` (`k ≥ 1`, at most [`MAX_WIDE_BLOCKS`]) whose rate is at
/// most `fpr`, or `None`; the rate falls as blocks are added. The search starts at `guess` (a
/// block count near the answer) and gallops outward until it brackets the answer, then
/// bisects: a handful of evaluations of `rate` where a bisection over every block count takes
/// 32, which matters for the two-probe rate, a double sum. A poor guess costs evaluations, not
/// correctness.
fn smallest_blocks(
    step: usize,
    fpr: f64,
    guess: usize,
    rate: impl Fn(usize) -> f64,
) -> Option<usize> {
    let most = MAX_WIDE_BLOCKS / step;
    let fits = |k: usize| rate(k * step) <= fpr;
    // `low` does not fit (0 blocks never do), `high` fits.
    let (mut low, mut high);
    let start = (guess / step).clamp(1, most);
    if fits(start) {
        high = start;
        low = start;
        let mut distance = (start / 64).max(1);
        loop {
            low = low.saturating_sub(distance);
            if low == 0 || !fits(low) {
                break;
            }
            high = low;
            distance = distance.saturating_mul(2);
        }
    } else {
        low = start;
        let mut distance = (start / 64).max(1);
        loop {
            high = low.saturating_add(distance).min(most);
            if fits(high) {
                break;
            }
            if high == most {
                return None;
            }
            low = high;
            distance = distance.saturating_mul(2);
        }
    }
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if fits(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high * step)
}

/// The number of blocks and probes (1 or 2) for `items` keys at a false-positive rate of at
/// most `fpr`: the fewest blocks for each probe count whose expected rate is at most
/// `fpr·(1 − SIZING_MARGIN)` (see [`SIZING_MARGIN`]), and one probe (one cache line per
/// lookup) unless it needs more than 1% more blocks than two.
///
/// Errors when `items` is 0, `fpr` is not in (0, 1), or the filter would exceed
/// [`MAX_WIDE_BLOCKS`].
///
/// ```
/// use splitbloom::math::wide::num_blocks_for_fpr;
/// assert_eq!(num_blocks_for_fpr(1_000_000, 1e-2)?.1, 1);
/// assert_eq!(num_blocks_for_fpr(1_000_000, 1e-6)?.1, 2);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub fn num_blocks_for_fpr(items: usize, fpr: f64) -> Result<(usize, u8), Error> {
    if items == 0 {
        return Err(Error::ZeroItems);
    }
    check_fpr(fpr)?;
    let target = fpr * (1.0 - SIZING_MARGIN);
    // The guesses, from the rate of a block whose every word holds its mean load (the blocks'
    // spread of loads, which the exact rate includes, makes it a little low): one probe at the
    // target, two probes where each of two independent blocks gives the target's root.
    let per_block = |rate: f64| {
        let keys = libm::log(1.0 - libm::pow(rate, 1.0 / 8.0)) / libm::log(WORD_CLEAR);
        items as f64 / keys.max(f64::MIN_POSITIVE)
    };
    let one = smallest_blocks(1, target, per_block(target) as usize, |blocks| {
        false_positive_rate(items, blocks, 1)
    });
    // Two probes put two loads of 8 bits in blocks: twice the blocks of that rate.
    let two_guess = 2.0 * per_block(libm::sqrt(target));
    let two = smallest_blocks(GROUP_BLOCKS, target, two_guess as usize, |blocks| {
        two_probe_fpr(items, blocks)
    });
    match (one, two) {
        (Some(one), Some(two)) if one as f64 > ONE_PROBE_ALLOWANCE * two as f64 => Ok((two, 2)),
        (Some(one), _) => Ok((one, 1)),
        (None, Some(two)) => Ok((two, 2)),
        (None, None) => Err(Error::TooLargeForRate {
            items,
            fpr,
            max_bytes: (MAX_WIDE_BLOCKS as u64).saturating_mul(WIDE_BLOCK_BYTES as u64),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, relative: f64) -> bool {
        (got - want).abs() <= relative * want
    }

    /// The smallest `k·step` whose rate is at most `fpr`, by bisecting every block count: the
    /// reference the galloping search from a guess must agree with.
    fn smallest_by_bisection(step: usize, fpr: f64, rate: impl Fn(usize) -> f64) -> Option<usize> {
        let most = MAX_WIDE_BLOCKS / step;
        if rate(most * step) > fpr {
            return None;
        }
        let (mut low, mut high) = (0usize, most);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if rate(mid * step) <= fpr {
                high = mid;
            } else {
                low = mid;
            }
        }
        Some(high * step)
    }

    /// The search from a guess finds what bisecting every block count finds, whatever the
    /// guess (good, far too low, far too high), for both probe counts.
    #[test]
    fn galloping_from_any_guess_finds_the_bisection_answer() {
        for items in [1usize, 7, 1000, 123_457, 10_000_000] {
            for fpr in [0.3, 1e-2, 1e-3, 1e-5, 1e-8] {
                let one = |blocks| false_positive_rate(items, blocks, 1);
                let two = |blocks| two_probe_fpr(items, blocks);
                let want_one = smallest_by_bisection(1, fpr, one);
                let want_two = smallest_by_bisection(GROUP_BLOCKS, fpr, two);
                for guess in [0, 1, 64, items, items / 3 + 1, 1 << 20, MAX_WIDE_BLOCKS] {
                    assert_eq!(
                        smallest_blocks(1, fpr, guess, one),
                        want_one,
                        "{items} {fpr} {guess}"
                    );
                    assert_eq!(
                        smallest_blocks(GROUP_BLOCKS, fpr, guess, two),
                        want_two,
                        "{items} {fpr} {guess}"
                    );
                }
            }
        }
    }

    /// F(λ) against 50-digit values from `tests/fixtures/wide_rates.py` (mpmath).
    #[test]
    fn one_probe_known_answers() {
        for (lambda, want) in [
            (1.0, 1.142182103772618e-11),
            (8.0, 2.988001382739608e-7),
            (16.0, 1.688814672905253e-5),
            (25.6, 2.596399170277283e-4),
            (32.0, 9.088769195882769e-4),
            (51.2, 1.048982602074595e-2),
            (64.0, 2.931078309215184e-2),
            (128.0, 3.191279627593321e-1),
        ] {
            let got = fpr_for_keys_per_block(lambda);
            assert!(close(got, want, 1e-12), "λ = {lambda}: {got} vs {want}");
        }
        // Independent two-block rates F(1024/c)² at c bits per key.
        for (bits, want) in [
            (16.0, 8.591220054751743e-4),
            (20.0, 1.100364499455188e-4),
            (24.0, 1.782943050812634e-5),
            (32.0, 8.260572549602752e-7),
        ] {
            let one = fpr_for_keys_per_block(1024.0 / bits);
            assert!(
                close(one * one, want, 1e-12),
                "{bits}: {} vs {want}",
                one * one
            );
        }
    }

    /// FPR₂ against 50-digit values from `tests/fixtures/wide_rates.py` (mpmath).
    #[test]
    fn two_probe_known_answers() {
        for (items, blocks, want) in [
            (1_000_000, 39_424, 1.253519654092901e-4),
            (1_000_000, 40_960, 8.757972428465979e-5),
            (1_000_000, 64_000, 9.970543107779052e-7),
            (100_000, 4_096, 8.757972428465979e-5),
        ] {
            let got = two_probe_fpr(items, blocks);
            assert!(close(got, want, 1e-12), "{blocks}: {got} vs {want}");
        }
    }

    /// The closed form near 1 and the Poisson sum agree where they meet.
    #[test]
    fn both_forms_agree_at_the_switch() {
        for shift in [0, 1, 5] {
            let below = shifted_rate(COMPLEMENT_FROM.next_down(), shift);
            let above = shifted_rate(COMPLEMENT_FROM, shift);
            assert!(close(below, above, 1e-12), "{shift}: {below} vs {above}");
        }
        assert!(1.0 - fpr_for_keys_per_block(SATURATED.next_down()) < 1e-15);
    }

    #[test]
    fn rates_are_monotone() {
        let mut previous = 0.0;
        let mut lambda = 0.01;
        while lambda < 3000.0 {
            let rate = fpr_for_keys_per_block(lambda);
            assert!(rate >= previous, "{lambda}");
            previous = rate;
            lambda *= 1.01;
        }
        let mut previous = 1.0;
        for blocks in (64..20_000).step_by(64) {
            let rate = two_probe_fpr(100_000, blocks);
            assert!(rate <= previous, "{blocks}");
            previous = rate;
        }
    }

    /// Sizes at 10^6 keys: one probe at 1e-3, two below; the ratios to the classic optimum
    /// n·ln(1/p)/ln²2 meet 1.10x at 1e-3 and 1e-4 and 1.20x at 1e-6, margin included.
    #[test]
    fn sizes_for_a_million_keys() {
        for (fpr, blocks, probes, most) in [
            (1e-3, 30_826, 1, 1.10),
            (1e-4, 40_512, 2, 1.10),
            (1e-5, 51_264, 2, 1.10),
            (1e-6, 64_128, 2, 1.20),
        ] {
            let got = num_blocks_for_fpr(1_000_000, fpr).unwrap();
            assert_eq!(got, (blocks, probes), "{fpr}");
            let optimum = 1e6 * libm::log(1.0 / fpr) / (core::f64::consts::LN_2.powi(2)) / 8.0;
            let ratio = (blocks * WIDE_BLOCK_BYTES) as f64 / optimum;
            assert!(ratio <= most, "{fpr}: {ratio}");
            let aim = fpr * (1.0 - SIZING_MARGIN);
            assert!(false_positive_rate(1_000_000, blocks, probes) <= aim);
            let fewer = if probes == 1 { blocks - 1 } else { blocks - 64 };
            assert!(false_positive_rate(1_000_000, fewer, probes) > aim);
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert_eq!(num_blocks_for_fpr(0, 0.01), Err(Error::ZeroItems));
        for fpr in [0.0, 1.0, -1.0, f64::NAN] {
            assert!(num_blocks_for_fpr(10, fpr).is_err());
        }
        assert_eq!(
            num_blocks_for_fpr(1, 1e-300),
            Err(Error::TooLargeForRate {
                items: 1,
                fpr: 1e-300,
                max_bytes: 1 << 38,
            })
        );
        assert!(!is_valid_shape(0, 1) && !is_valid_shape(64, 3) && !is_valid_shape(64, 0));
    }
}
