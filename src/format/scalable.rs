//! The `SBLS` container's header: a scalable filter is a 64-byte header followed by its
//! stages, each a complete filter in the layout of the [`format`](super) module. This file is
//! the header's codec over plain data; the filter type calls it.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `SBLS` ([`SCALABLE_MAGIC`]) |
//! | 4 | 2 | version `1` |
//! | 6 | 2 | reserved, `0` |
//! | 8 | 8 | initial capacity (keys in stage 0) |
//! | 16 | 8 | target false-positive rate (IEEE 754 `f64` bits) |
//! | 24 | 8 | growth factor (`f64` bits) |
//! | 32 | 8 | tightening ratio (`f64` bits) |
//! | 40 | 8 | keys in the newest stage |
//! | 48 | 8 | number of stages (at least 1) |
//! | 56 | 8 | XXH3-64 (seed 0) of bytes 0..56 |
//! | 64 | … | the stages, back to back |
//!
//! A reader checks each stage's size against the parameters and refuses stages that differ,
//! so a file cannot smuggle in a stage sized for other parameters. The check costs at most two
//! evaluations of the false-positive rate per stage, so reading takes time proportional to the
//! bytes.

use super::{RawHeader, SCALABLE_HEADER_BYTES, SCALABLE_MAGIC, VERSION};
use crate::error::Error;

/// Bytes of the scalable header covered by its checksum (all but the checksum itself).
const SCALABLE_CHECKED_BYTES: usize = 56;

// The parameters are plain data stored in this header, so the struct is defined here, with
// its codec; its sizing arithmetic is in `filter::scalable::parameters`.
/// How a [`ScalableFilter`](crate::ScalableFilter) sizes its stages: stage `i` holds
/// `ceil(initial_capacity · growth_factorⁱ)` keys at a false-positive rate of
/// `fpr · (1 − tightening_ratio) · tightening_ratioⁱ`.
///
/// ```
/// use splitbloom::ScalableParameters;
/// let mut parameters = ScalableParameters::new(10_000, 0.001);
/// assert_eq!(parameters.growth_factor, 2.0);
/// parameters.growth_factor = 4.0; // fewer, larger stages
/// assert_eq!(parameters.stage_capacity(1), 40_000);
/// assert!(parameters.stage_fpr(0) < 0.001);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ScalableParameters {
    /// Keys in the first stage.
    pub initial_capacity: usize,
    /// The target compound false-positive rate, in (0, 1).
    pub fpr: f64,
    /// How much larger each stage is than the previous one; at least 1, default 2.
    pub growth_factor: f64,
    /// How much lower each stage's false-positive rate is than the previous one's, in (0, 1);
    /// default 0.85. Lower values spend more memory on later stages and less on the first.
    pub tightening_ratio: f64,
}

/// The scalable header (checksum included) of a filter with these parameters, keys in its
/// newest stage and number of stages.
pub(crate) fn scalable_header(
    parameters: &ScalableParameters,
    items_in_last_stage: usize,
    num_stages: usize,
) -> [u8; SCALABLE_HEADER_BYTES] {
    let mut header = [0; SCALABLE_HEADER_BYTES];
    header[..4].copy_from_slice(&SCALABLE_MAGIC);
    header[4..6].copy_from_slice(&VERSION.to_le_bytes());
    // Bytes 6..8 are reserved (zero).
    header[8..16].copy_from_slice(&(parameters.initial_capacity as u64).to_le_bytes());
    header[16..24].copy_from_slice(&parameters.fpr.to_bits().to_le_bytes());
    header[24..32].copy_from_slice(&parameters.growth_factor.to_bits().to_le_bytes());
    header[32..40].copy_from_slice(&parameters.tightening_ratio.to_bits().to_le_bytes());
    header[40..48].copy_from_slice(&(items_in_last_stage as u64).to_le_bytes());
    header[48..56].copy_from_slice(&(num_stages as u64).to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&header[..SCALABLE_CHECKED_BYTES]);
    header[SCALABLE_CHECKED_BYTES..].copy_from_slice(&checksum.to_le_bytes());
    header
}

/// The decoded header of a serialized [`ScalableFilter`](crate::ScalableFilter): what a reader
/// (the `splitbloom info` command, or `ScalableFilter::from_bytes`) learns before the stages.
/// The parameters are not validated here; `ScalableFilter::from_stages` does that with the
/// stages.
///
/// ```
/// use splitbloom::{ScalableFilter, format::ScalableHeader};
/// let bytes = ScalableFilter::with_fpr(100, 0.01)?.to_bytes();
/// let header = ScalableHeader::parse(&bytes)?;
/// assert_eq!((header.parameters.initial_capacity, header.num_stages), (100, 1));
/// assert!(ScalableHeader::parse(&bytes[..10]).is_err());
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ScalableHeader {
    /// The format version.
    pub version: u16,
    /// The parameters that size the stages.
    pub parameters: ScalableParameters,
    /// Keys in the newest stage (saturating at `usize::MAX`, which no stage can hold).
    pub items_in_last_stage: usize,
    /// The number of stages that follow.
    pub num_stages: u64,
}

impl ScalableHeader {
    /// Decodes and checks the 64-byte header at the start of `bytes` (magic, version, reserved
    /// bytes, checksum), through the same reader as [`Header::parse`](super::Header::parse); the stages after it are
    /// not looked at.
    ///
    /// ```
    /// use splitbloom::{Error, format::ScalableHeader};
    /// assert!(matches!(ScalableHeader::parse(b"SBLM"), Err(Error::WrongMagic { .. })));
    /// assert!(matches!(ScalableHeader::parse(b"SBLS"), Err(Error::Truncated { .. })));
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<ScalableHeader, Error> {
        let raw = RawHeader::<SCALABLE_HEADER_BYTES>::read(bytes, SCALABLE_MAGIC)?;
        let header = raw.bytes;
        let u64_at = |at| raw.u64_at(at);
        if header[6] != 0 || header[7] != 0 {
            return Err(Error::UnsupportedFlags(header[6] | header[7]));
        }
        let computed = xxhash_rust::xxh3::xxh3_64(&header[..SCALABLE_CHECKED_BYTES]);
        if computed != u64_at(SCALABLE_CHECKED_BYTES) {
            return Err(Error::ChecksumMismatch {
                stored: u64_at(SCALABLE_CHECKED_BYTES),
                computed,
            });
        }
        // Counts too large for this platform saturate, and the stage checks refuse them.
        let count_at = |at| usize::try_from(u64_at(at)).unwrap_or(usize::MAX);
        let parameters = ScalableParameters {
            initial_capacity: count_at(8),
            fpr: f64::from_bits(u64_at(16)),
            growth_factor: f64::from_bits(u64_at(24)),
            tightening_ratio: f64::from_bits(u64_at(32)),
        };
        Ok(ScalableHeader {
            version: raw.version,
            parameters,
            items_in_last_stage: count_at(40),
            num_stages: u64_at(48),
        })
    }
}
