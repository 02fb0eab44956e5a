//! The rate engine of every layout whose key sets one bit in each of eight lanes of one block
//! (Putze, Sanders and Singler, "Cache-, hash- and space-efficient Bloom filters", 2007): the
//! split-block filter's 256-bit blocks of 32-bit lanes, and the window's planes of 128 bits
//! (16-bit lanes) or 256. With `λ` keys per block on average and lanes of `w` bits,
//!
//! ```text
//! FPR(λ) = Σ_{i ≥ 0} Pois(i; λ) · (1 − (1 − 1/w)^i)^8
//! ```
//!
//! computed to a few ulps for every load: a Poisson sum outward from its mode where the rate is
//! small, the closed form of its complement where it is close to 1, and 1 past saturation.

use super::Error;

/// Eight lanes of `w` bits, one bit per lane per key, and what the rate's computation needs of
/// `w`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes {
    /// The chance that a key leaves a given bit of its lane clear: `1 − 1/w`, exact in binary.
    clear: f64,
    /// Loads from which the rate rounds to 1: `1 − FPR(λ) ≤ 8·e^(−λ/w)` (each of the eight
    /// lanes of a probed block leaves the probe's bit clear with probability at most
    /// `E[(1 − 1/w)^i] = e^(−λ/w)`), below `2^−55` from `λ = 40.2·w` on, less than half the gap
    /// between 1 and the largest `f64` below it.
    saturated: f64,
    /// Loads from which the rate comes from the closed form of its complement
    /// ([`some_lane_clear`]), accurate and monotone to the last bits near 1: `4w`; below it,
    /// from the Poisson sum, accurate where the rate is small.
    complement_from: f64,
}

impl Lanes {
    /// 32-bit lanes: the split-block layout's 256-bit blocks, and the window's 256-bit planes.
    pub(crate) const OF_32: Lanes = Lanes {
        clear: 31.0 / 32.0,
        saturated: 1300.0,
        complement_from: 128.0,
    };

    /// 16-bit lanes: the window's 128-bit planes.
    pub(crate) const OF_16: Lanes = Lanes {
        clear: 15.0 / 16.0,
        saturated: 650.0,
        complement_from: 64.0,
    };

    /// Loads from which the rate is 1 to `f64` precision.
    #[cfg(test)]
    pub(crate) fn saturated(self) -> f64 {
        self.saturated
    }
}

/// Poisson terms are summed until the rest is provably below this fraction of the sum: far
/// below the rounding error of the sum itself.
pub(crate) const TRUNCATION: f64 = 1.0 / (1u64 << 60) as f64;

/// The chance that every one of a block's eight lanes (or a wide block's eight words) has a
/// given bit set (one bit each), from the chance `clear = (1 − 1/w)^keys` that one of `w` bits
/// leaves it clear: `(1 − clear)^8`.
#[inline]
pub(crate) fn all_eight_set(clear: f64) -> f64 {
    let set = 1.0 - clear;
    let set2 = set * set;
    let set4 = set2 * set2;
    set4 * set4
}

/// `1 − FPR(λ)` in closed form: `1 − (1 − c)^8 = Σ_{k=1..8} (−1)^(k+1)·C(8,k)·c^k` with
/// `c = (1 − 1/w)^K`, and for a Poisson K, `E[z^K] = e^(−λ(1 − z))`, so
/// `1 − FPR(λ) = Σ_{k=1..8} (−1)^(k+1)·C(8,k)·e^(−λ(1 − (1 − 1/w)^k))`. From λ = 4w on the
/// first term dominates (the others are below 8% of it), so nothing cancels: a few ulps.
fn some_lane_clear(lambda: f64, lanes: Lanes) -> f64 {
    const BINOMIAL: [f64; 9] = [1.0, 8.0, 28.0, 56.0, 70.0, 56.0, 28.0, 8.0, 1.0];
    // (1 − 1/w)^k by multiplication and 1 − (1 − 1/w)^k are exact in binary for w = 16 and
    // 32 ((w − 1)^8 < 2^53, and (1 − 1/w)^8 > 1/2).
    let mut clear = [1.0f64; 9];
    for k in 1..9 {
        clear[k] = clear[k - 1] * lanes.clear;
    }
    let mut sum = 0.0;
    for k in (1..9).rev() {
        // Smallest terms first.
        let term = BINOMIAL[k] * libm::exp(-lambda * (1.0 - clear[k]));
        sum += if k % 2 == 1 { term } else { -term };
    }
    sum
}

/// The Poisson probability of exactly `mode = floor(λ)` events at rate `λ` (the largest
/// probability), for `1 ≤ λ` below a lane width's saturation, to a few ulps.
pub(crate) fn poisson_at_mode(lambda: f64, mode: f64) -> f64 {
    if mode < 32.0 {
        // e^(−λ) ≥ e^(−32) and λ^m / m! ≤ e^λ: neither under- nor overflows.
        let mut probability = libm::exp(-lambda);
        let mut i = 1.0;
        while i <= mode {
            probability *= lambda / i;
            i += 1.0;
        }
        return probability;
    }
    // ln P(m; λ) = m·ln(λ/m) − (λ − m) − ½·ln(2πm) − δ(m), where δ(m) = ln m! − (m·ln m − m +
    // ½·ln(2πm)) = 1/(12m) − 1/(360m³) + 1/(1260m⁵) − 1/(1680m⁷) + … (the next term is below
    // 3e-17 for m ≥ 32), and m·ln(λ/m) − (λ − m) comes from log1p so nothing large cancels.
    let excess = lambda - mode;
    let log_ratio = mode * libm::log1p(excess / mode) - excess;
    let m2 = mode * mode;
    let stirling =
        (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * m2)) / m2) / m2) / mode;
    libm::exp(log_ratio - 0.5 * libm::log(2.0 * core::f64::consts::PI * mode) - stirling)
}

/// The false-positive rate of a block of `lanes` holding on average `keys_per_block` keys
/// (`λ` in the formula of the [module docs](self)). Zero and negative loads give 0, `+∞` gives
/// 1 and NaN gives NaN.
#[inline]
pub(crate) fn rate(keys_per_block: f64, lanes: Lanes) -> f64 {
    let lambda = keys_per_block;
    if lambda.is_nan() {
        return f64::NAN;
    }
    if lambda <= 0.0 {
        return 0.0;
    }
    if lambda >= lanes.saturated {
        return 1.0;
    }
    if lambda < lanes.complement_from {
        windowed_poisson_sum(lambda, lanes)
    } else {
        1.0 - some_lane_clear(lambda, lanes)
    }
    .clamp(0.0, 1.0)
}

/// `Σ_i Pois(i; λ)·(1 − (1 − 1/w)^i)^8` for `0 < λ` below `lanes.complement_from`, summed
/// outward from the
/// mode until a geometric bound on the rest is below [`TRUNCATION`] of the sum (at most about
/// 250 terms).
fn windowed_poisson_sum(lambda: f64, lanes: Lanes) -> f64 {
    let mode = libm::floor(lambda);
    let peak = if mode == 0.0 {
        libm::exp(-lambda)
    } else {
        poisson_at_mode(lambda, mode)
    };
    // (1 − 1/w)^i, stepped by multiplication from its value at the mode: a relative error of
    // about one ulp per step, far below what reaches the result.
    let clear_at_mode = libm::pow(lanes.clear, mode);
    let mut sum = CompensatedSum::default();
    sum.add(peak * all_eight_set(clear_at_mode));
    // Upwards: P(i + 1) = P(i)·λ/(i + 1). Past the mode that ratio only falls, so the terms
    // after i add up to at most P(i)·r/(1 − r) with r = λ/(i + 1) (the lane factor is ≤ 1).
    let (mut probability, mut i, mut clear) = (peak, mode, clear_at_mode);
    loop {
        i += 1.0;
        probability *= lambda / i;
        clear *= lanes.clear;
        sum.add(probability * all_eight_set(clear));
        let ratio = lambda / (i + 1.0);
        let rest = probability * ratio / (1.0 - ratio);
        if rest <= TRUNCATION * sum.total() || probability == 0.0 {
            break;
        }
    }
    // Downwards: P(i − 1) = P(i)·i/λ, a ratio that only falls below the mode, and the lane
    // factor falls too, so the terms below i add up to at most term(i)·r/(1 − r), r = i/λ < 1.
    let (mut probability, mut i, mut clear) = (peak, mode, clear_at_mode);
    while i > 0.0 {
        probability *= i / lambda;
        i -= 1.0;
        clear = if i == 0.0 { 1.0 } else { clear / lanes.clear };
        let term = probability * all_eight_set(clear);
        sum.add(term);
        let ratio = i / lambda;
        if term * ratio / (1.0 - ratio) <= TRUNCATION * sum.total() || term == 0.0 {
            break;
        }
    }
    sum.total()
}

/// Neumaier's compensated summation: for positive terms the error stays at a few ulps however
/// many there are.
#[derive(Default)]
pub(crate) struct CompensatedSum {
    sum: f64,
    compensation: f64,
}

impl CompensatedSum {
    pub(crate) fn add(&mut self, term: f64) {
        let total = self.sum + term;
        self.compensation += if self.sum >= term {
            (self.sum - total) + term
        } else {
            (term - total) + self.sum
        };
        self.sum = total;
    }

    pub(crate) fn total(&self) -> f64 {
        self.sum + self.compensation
    }
}

/// The largest load λ (keys per block) with `rate(λ, lanes) ≤ fpr`, for `fpr` in
/// (0, 1): a search over the bit patterns of positive `f64`s (ordered like their values) that
/// keeps `rate(low) ≤ fpr < rate(high)`. It bisects the bit patterns until the bracket is within
/// a factor of 2, then interpolates (regula falsi with the Illinois correction), falling back to
/// a bisection step whenever an interpolation step did not halve the bracket: at most about 130
/// evaluations of the rate, typically 20.
pub(crate) fn largest_load_for_fpr(fpr: f64, lanes: Lanes) -> f64 {
    // log(p / (1 − p)): interpolating it against the load is nearly linear within a factor of
    // 2, both where the rate is small (≈ power law) and close to 1 (1 − rate ≈ 8·e^(−λ/w)).
    let logit = |p: f64| libm::log(p) - libm::log1p(-p);
    let target = logit(fpr);
    // The rate of the smallest positive load is below every positive fpr (it is about λ·2^−40),
    // and from saturation on it is 1, above every fpr below 1.
    let (mut low, mut high) = (f64::from_bits(1).to_bits(), lanes.saturated.to_bits());
    // logit(rate) − logit(fpr) at the ends: ≤ 0 at low, > 0 at high (infinite at first).
    let (mut below, mut above) = (f64::NEG_INFINITY, f64::INFINITY);
    // Which end the last step moved (-1 low, 1 high), for the Illinois correction.
    let mut last_moved = 0;
    let mut interpolate = false;
    while high - low > 1 {
        let (a, b) = (f64::from_bits(low), f64::from_bits(high));
        let width = high - low;
        let mid = if interpolate && b <= 2.0 * a && below.is_finite() && above.is_finite() {
            // At least 1/32 of the bracket from either end: the rate is flat to the last bit
            // over many ulps near 1, where the line would otherwise crawl one ulp at a time.
            let x = a + (b - a) * (-below / (above - below));
            let margin = (width / 32).max(1);
            x.to_bits().clamp(low + margin, high - margin)
        } else {
            low + width / 2
        };
        let rate = rate(f64::from_bits(mid), lanes);
        let excess = logit(rate) - target;
        if rate <= fpr {
            low = mid;
            below = excess.min(0.0);
            if last_moved == -1 {
                above *= 0.5; // the high end stayed twice: pull the line towards it
            }
            last_moved = -1;
        } else {
            high = mid;
            above = excess.max(f64::MIN_POSITIVE);
            if last_moved == 1 {
                below *= 0.5;
            }
            last_moved = 1;
        }
        // Interpolate next only if this step halved the bracket (or was a bisection).
        interpolate = !interpolate || high - low <= width / 2;
    }
    f64::from_bits(low)
}

/// The smallest number of blocks of `lanes`, at most `most`, whose rate with `items` keys is at
/// most `fpr` (a bisection over the count: at most 33 evaluations of the rate); with `items`
/// above 0 and `fpr` in (0, 1) checked by the caller. Errors when `most` blocks are not enough,
/// naming the largest filter: `most` blocks of `block_bytes`.
pub(crate) fn num_blocks_for_fpr(
    items: usize,
    fpr: f64,
    lanes: Lanes,
    (most, block_bytes): (usize, usize),
) -> Result<usize, Error> {
    let rate_of = |blocks: usize| rate(items as f64 / blocks as f64, lanes);
    if rate_of(most) > fpr {
        return Err(Error::TooLargeForRate {
            items,
            fpr,
            max_bytes: (most as u64).saturating_mul(block_bytes as u64),
        });
    }
    // The rate falls as blocks are added: rate(low) > fpr (or low = 0), rate(high) ≤ fpr.
    let (mut low, mut high) = (0usize, most);
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if rate_of(mid) <= fpr {
            high = mid;
        } else {
            low = mid;
        }
    }
    Ok(high)
}

/// Whether `blocks` is the count [`num_blocks_for_fpr`] gives, from two evaluations of the
/// rate rather than a search: the bisection ends on the one count whose rate meets the target
/// while the count below it does not (or is 0), so that is exactly what is checked.
pub(crate) fn is_num_blocks_for_fpr(items: usize, fpr: f64, blocks: usize, lanes: Lanes) -> bool {
    let rate_of = |blocks: usize| rate(items as f64 / blocks as f64, lanes);
    blocks > 0 && rate_of(blocks) <= fpr && (blocks == 1 || rate_of(blocks - 1) > fpr)
}
