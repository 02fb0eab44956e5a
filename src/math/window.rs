//! The window's rates and sizing ([`WindowFilter`](crate::WindowFilter)).
//!
//! A window of `G` generations answers `true` when any generation does, so with per-generation
//! rates `F_g` its rate is `1 − Π (1 − F_g)` ([`window_false_positive_rate`]); sized for a
//! window rate `p`, each generation gets `1 − (1 − p)^(1/G)` ([`generation_fpr_for_window`]).
//! A generation's plane is a block of eight lanes, one bit per lane per key, so its rate is
//! the split-block formula with the plane's lane width ([`fpr_for_keys_per_plane`]): 32-bit
//! lanes for 256-bit planes, 16-bit lanes for 128-bit ones.
//!
//! **Which plane.** A key's generations are `G` planes side by side, `G·P/8` bytes: with
//! 256-bit planes two generations fill a 64-byte line, with 128-bit planes four. Smaller planes
//! need more memory for the same rate (the number of keys in a plane varies more), so
//! [`num_blocks_for_fpr`] takes 128-bit planes only where they touch fewer lines (`G ≥ 3`)
//! and need at most [`PLANE_ALLOWANCE`] times the memory of 256-bit ones. At `G = 4` that is
//! 1.12x at a window rate of 1% (one line per lookup instead of two) and 1.20x at 0.1% (two
//! lines of 256-bit planes kept).
//!
//! ```
//! use splitbloom::math::window::{false_positive_rate, num_blocks_for_fpr};
//! let (blocks, plane_bits) = num_blocks_for_fpr(10_000, 0.01, 4)?;
//! assert_eq!(plane_bits, 128); // four generations in one line
//! assert!(false_positive_rate(10_000, blocks, 4, plane_bits) <= 0.01);
//! assert_eq!(num_blocks_for_fpr(10_000, 0.001, 4)?.1, 256); // 128-bit planes would cost 1.20x
//! assert_eq!(num_blocks_for_fpr(10_000, 0.01, 2)?.1, 256); // two generations fill a line anyway
//! # Ok::<(), splitbloom::Error>(())
//! ```

use super::lanes::{self, Lanes};
use super::{MAX_BLOCKS, MAX_GENERATIONS, check_fpr};
use crate::error::Error;

/// The most memory 128-bit planes may cost, as a multiple of 256-bit planes' for the same
/// window, where they touch fewer lines per lookup: the memory a lookup in one line is worth.
pub const PLANE_ALLOWANCE: f64 = 1.15;

/// The lanes of a plane of `plane_bits` bits (128 or 256).
fn lanes_of(plane_bits: usize) -> Option<Lanes> {
    match plane_bits {
        128 => Some(Lanes::OF_16),
        256 => Some(Lanes::OF_32),
        _ => None,
    }
}

/// The false-positive rate of one generation whose planes of `plane_bits` bits (128 or 256)
/// hold on average `keys_per_plane` keys; NaN for another plane size.
///
/// ```
/// use splitbloom::math::{fpr_for_keys_per_block, window::fpr_for_keys_per_plane};
/// assert_eq!(fpr_for_keys_per_plane(20.0, 256), fpr_for_keys_per_block(20.0));
/// assert!(fpr_for_keys_per_plane(10.0, 128) > fpr_for_keys_per_plane(10.0, 256));
/// assert!(fpr_for_keys_per_plane(10.0, 64).is_nan());
/// ```
pub fn fpr_for_keys_per_plane(keys_per_plane: f64, plane_bits: usize) -> f64 {
    match lanes_of(plane_bits) {
        Some(lanes) => lanes::rate(keys_per_plane, lanes),
        None => f64::NAN,
    }
}

/// The average number of keys per plane that leaves a fraction `fill` of a generation's bits
/// set, for planes of `plane_bits` bits (128 or 256; NaN otherwise): each key sets one bit per
/// lane of `w = plane_bits / 8` bits, so a bit stays clear with probability `e^(−λ/w)`, and
/// `λ = −w · ln(1 − fill)`.
///
/// ```
/// use splitbloom::math::{keys_per_block_for_fill, window::keys_per_plane_for_fill};
/// assert_eq!(keys_per_plane_for_fill(0.3, 256), keys_per_block_for_fill(0.3));
/// assert_eq!(keys_per_plane_for_fill(0.3, 128), keys_per_block_for_fill(0.3) / 2.0);
/// ```
pub fn keys_per_plane_for_fill(fill: f64, plane_bits: usize) -> f64 {
    if lanes_of(plane_bits).is_none() {
        return f64::NAN;
    }
    super::keys_per_block_for_fill(fill) * plane_bits as f64 / 256.0
}

/// The false-positive rate of a window of `generations` generations of `num_blocks` planes of
/// `plane_bits` bits, once each holds `items_per_generation` keys.
///
/// ```
/// use splitbloom::math::window::false_positive_rate;
/// let one = false_positive_rate(1000, 40, 1, 256);
/// let three = false_positive_rate(1000, 40, 3, 256);
/// assert!(three > 2.9 * one && three < 3.0 * one);
/// ```
pub fn false_positive_rate(
    items_per_generation: usize,
    num_blocks: usize,
    generations: usize,
    plane_bits: usize,
) -> f64 {
    let generation =
        fpr_for_keys_per_plane(items_per_generation as f64 / num_blocks as f64, plane_bits);
    window_false_positive_rate(core::iter::repeat_n(generation, generations))
}

/// The number of blocks (planes per generation) and the plane size (128 or 256 bits) of a
/// window of `generations` generations of `items_per_generation` keys each, with a window rate
/// of at most `fpr` (see the module docs for which plane).
///
/// Errors when `items_per_generation` is 0, `fpr` is not in (0, 1), `generations` is not
/// between 1 and [`MAX_GENERATIONS`], or the window would need more than [`MAX_BLOCKS`] blocks.
///
/// ```
/// use splitbloom::math::window::num_blocks_for_fpr;
/// assert_eq!(num_blocks_for_fpr(100, 0.01, 3)?, (12, 128)); // 16 bytes a generation
/// assert_eq!(num_blocks_for_fpr(10_000, 0.001, 4)?, (864, 256)); // 128-bit planes: 1.20x
/// assert!(num_blocks_for_fpr(100, 0.01, 0).is_err());
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub fn num_blocks_for_fpr(
    items_per_generation: usize,
    fpr: f64,
    generations: usize,
) -> Result<(usize, usize), Error> {
    if items_per_generation == 0 {
        return Err(Error::ZeroItems);
    }
    let generation = generation_fpr_for_window(fpr, generations)?;
    let blocks = |lanes, plane_bytes: usize| {
        // The largest window's bytes, in the error: every generation's planes.
        let index_bytes = generations * plane_bytes;
        lanes::num_blocks_for_fpr(
            items_per_generation,
            generation,
            lanes,
            (MAX_BLOCKS, index_bytes),
        )
        .map_err(|error| match error {
            Error::TooLargeForRate { max_bytes, .. } => Error::TooLargeForRate {
                items: items_per_generation,
                fpr,
                max_bytes,
            },
            error => error,
        })
    };
    let wide = blocks(Lanes::OF_32, 32)?;
    if generations >= 3
        && let Ok(narrow) = blocks(Lanes::OF_16, 16)
        && narrow as f64 * 128.0 <= PLANE_ALLOWANCE * wide as f64 * 256.0
    {
        return Ok((narrow, 128));
    }
    Ok((wide, 256))
}

/// The false-positive rate of a window of split-block filters asked together, as
/// [`WindowFilter`](crate::WindowFilter) asks its generations: a key absent from all of them is
/// reported present when any one reports it, so with rates `F_g` the window's rate is
/// `1 − Π (1 − F_g)` (the generations hold different keys, so their answers are taken as
/// independent).
///
/// ```
/// use splitbloom::math::window_false_positive_rate;
/// let rate = window_false_positive_rate([0.01, 0.01, 0.0]);
/// assert!((rate - (1.0 - 0.99 * 0.99)).abs() < 1e-15);
/// assert_eq!(window_false_positive_rate([]), 0.0);
/// ```
pub fn window_false_positive_rate(generation_rates: impl IntoIterator<Item = f64>) -> f64 {
    // Σ ln(1 − F_g), then 1 − e^Σ: exact for the tiny rates where 1 − Π would round to 0.
    let log_miss: f64 = generation_rates
        .into_iter()
        .map(|rate| libm::log1p(-rate.clamp(0.0, 1.0)))
        .sum();
    -libm::expm1(log_miss)
}

/// The false-positive rate each of `generations` equal generations may have so that the whole
/// window's rate ([`window_false_positive_rate`]) is `fpr`: `1 − (1 − fpr)^(1/G)`, a little
/// above `fpr / G`.
///
/// Errors when `fpr` is not in (0, 1) or `generations` is 0.
///
/// ```
/// use splitbloom::math::{generation_fpr_for_window, window_false_positive_rate};
/// let per_generation = generation_fpr_for_window(0.01, 4)?;
/// assert!(per_generation > 0.0025 && per_generation < 0.00252);
/// let window = window_false_positive_rate([per_generation; 4]);
/// assert!((window - 0.01).abs() < 1e-12);
/// assert!(generation_fpr_for_window(0.01, 0).is_err());
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub fn generation_fpr_for_window(fpr: f64, generations: usize) -> Result<f64, Error> {
    check_fpr(fpr)?;
    check_generations(generations)?;
    Ok(-libm::expm1(libm::log1p(-fpr) / generations as f64))
}

/// Errors unless a window may have `generations` generations: 1 to [`MAX_GENERATIONS`].
pub(crate) fn check_generations(generations: usize) -> Result<(), Error> {
    if (1..=MAX_GENERATIONS).contains(&generations) {
        Ok(())
    } else {
        Err(Error::InvalidGenerations(generations))
    }
}
