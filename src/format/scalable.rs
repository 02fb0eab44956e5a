//! The `SBLS` container: a [`ScalableFilter`] as a 64-byte header followed by its stages, each
//! a complete filter in the layout of the [`format`](super) module.

use alloc::vec::Vec;

use super::{Header, RawHeader, SCALABLE_HEADER_BYTES, SCALABLE_MAGIC, VERSION};
use crate::error::Error;
use crate::filter::{Filter, ScalableFilter, ScalableParameters};
use crate::hash::FilterHasher;

/// Bytes of the scalable header covered by its checksum (all but the checksum itself).
const SCALABLE_CHECKED_BYTES: usize = 56;

/// The scalable header (checksum included) of `filter`.
fn scalable_header<S>(filter: &ScalableFilter<S>) -> [u8; SCALABLE_HEADER_BYTES] {
    let parameters = filter.parameters();
    let mut header = [0; SCALABLE_HEADER_BYTES];
    header[..4].copy_from_slice(&SCALABLE_MAGIC);
    header[4..6].copy_from_slice(&VERSION.to_le_bytes());
    // Bytes 6..8 are reserved (zero).
    header[8..16].copy_from_slice(&(parameters.initial_capacity as u64).to_le_bytes());
    header[16..24].copy_from_slice(&parameters.fpr.to_bits().to_le_bytes());
    header[24..32].copy_from_slice(&parameters.growth_factor.to_bits().to_le_bytes());
    header[32..40].copy_from_slice(&parameters.tightening_ratio.to_bits().to_le_bytes());
    header[40..48].copy_from_slice(&(filter.items_in_last_stage() as u64).to_le_bytes());
    header[48..56].copy_from_slice(&(filter.stages().len() as u64).to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&header[..SCALABLE_CHECKED_BYTES]);
    header[SCALABLE_CHECKED_BYTES..].copy_from_slice(&checksum.to_le_bytes());
    header
}

/// The decoded header of a serialized [`ScalableFilter`]: what a reader (the `splitbloom info`
/// command, or [`ScalableFilter::from_bytes`]) learns before the stages. The parameters are
/// not validated here; [`ScalableFilter::from_stages`] does that with the stages.
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
    /// bytes, checksum), through the same reader as [`Header::parse`]; the stages after it are
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
        let mut parameters = ScalableParameters::new(count_at(8), f64::from_bits(u64_at(16)));
        parameters.growth_factor = f64::from_bits(u64_at(24));
        parameters.tightening_ratio = f64::from_bits(u64_at(32));
        Ok(ScalableHeader {
            version: raw.version,
            parameters,
            items_in_last_stage: count_at(40),
            num_stages: u64_at(48),
        })
    }
}

/// Serialization of [`ScalableFilter`]: a 64-byte header followed by every stage, oldest first,
/// each a complete filter in the format above (its own header, checksum and bitset).
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 4 | magic `SBLS` ([`SCALABLE_MAGIC`]) |
/// | 4 | 2 | version `1` |
/// | 6 | 2 | reserved, `0` |
/// | 8 | 8 | initial capacity (keys in stage 0) |
/// | 16 | 8 | target false-positive rate (IEEE 754 `f64` bits) |
/// | 24 | 8 | growth factor (`f64` bits) |
/// | 32 | 8 | tightening ratio (`f64` bits) |
/// | 40 | 8 | keys in the newest stage |
/// | 48 | 8 | number of stages (at least 1) |
/// | 56 | 8 | XXH3-64 (seed 0) of bytes 0..56 |
/// | 64 | … | the stages, back to back |
///
/// A reader checks each stage's size against the parameters and refuses stages that differ,
/// so a file cannot smuggle in a stage sized for other parameters. The check costs at most two
/// evaluations of the false-positive rate per stage, so reading takes time proportional to the
/// bytes.
impl<S: FilterHasher> ScalableFilter<S> {
    /// The filter in splitbloom's format: the scalable header, then each stage.
    ///
    /// ```
    /// use splitbloom::ScalableFilter;
    /// let mut filter = ScalableFilter::with_fpr(100, 0.01)?;
    /// for key in 0..1000u64 {
    ///     filter.insert(&key)?;
    /// }
    /// let bytes = filter.to_bytes();
    /// let copy: ScalableFilter = ScalableFilter::from_bytes(&bytes)?;
    /// assert_eq!(copy.len(), filter.len());
    /// assert!(copy.contains(&999u64));
    /// assert_eq!(copy.to_bytes(), bytes);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let stages: usize = self.stages().iter().map(Filter::serialized_len).sum();
        let mut bytes = Vec::with_capacity(SCALABLE_HEADER_BYTES + stages);
        bytes.extend_from_slice(&scalable_header(self));
        for stage in self.stages() {
            bytes.extend_from_slice(&stage.to_bytes());
        }
        bytes
    }

    /// Writes [`to_bytes`](ScalableFilter::to_bytes) to `writer`, a stage at a time.
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// let mut file = Vec::new();
    /// filter.write_to(&mut file)?;
    /// assert_eq!(file, filter.to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_to(&self, mut writer: impl std::io::Write) -> std::io::Result<()> {
        writer.write_all(&scalable_header(self))?;
        for stage in self.stages() {
            stage.write_to(&mut writer)?;
        }
        Ok(())
    }

    /// Reads a filter written by [`to_bytes`](ScalableFilter::to_bytes) with hasher type `S`
    /// ([`ScalableFilter::from_bytes`] for the default one). Every problem is an
    /// [`Error`], as for [`Filter::from_bytes`], plus invalid parameters, no stages, or stages
    /// whose sizes do not follow the parameters.
    ///
    /// ```
    /// use splitbloom::{Error, ScalableFilter};
    /// let bytes = ScalableFilter::with_fpr(100, 0.01)?.to_bytes();
    /// assert!(ScalableFilter::<splitbloom::Xxh3>::from_bytes_with_hasher(&bytes).is_ok());
    /// assert!(matches!(
    ///     ScalableFilter::<splitbloom::Xxh3>::from_bytes_with_hasher(&bytes[..70]),
    ///     Err(Error::Truncated { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher(bytes: &[u8]) -> Result<Self, Error> {
        let ScalableHeader {
            parameters,
            items_in_last_stage,
            num_stages,
            ..
        } = ScalableHeader::parse(bytes)?;
        // Every stage takes at least 64 bytes, which bounds the allocation by the input size.
        let mut rest = &bytes[SCALABLE_HEADER_BYTES..];
        let mut stages = Vec::new();
        stages
            .try_reserve(
                usize::try_from(num_stages)
                    .unwrap_or(usize::MAX)
                    .min(rest.len() / 64),
            )
            .map_err(|_| Error::AllocationFailed { bytes: rest.len() })?;
        for _ in 0..num_stages {
            let length = Header::parse(rest)?.serialized_len();
            let available = rest.len();
            let stage_bytes = usize::try_from(length)
                .ok()
                .and_then(|length| rest.get(..length))
                .ok_or(Error::Truncated {
                    needed: length,
                    available,
                })?;
            stages.push(Filter::<S>::from_bytes_with_hasher(stage_bytes)?);
            rest = &rest[stage_bytes.len()..];
        }
        if !rest.is_empty() {
            return Err(Error::LengthMismatch {
                expected: (bytes.len() - rest.len()) as u64,
                found: bytes.len(),
            });
        }
        ScalableFilter::from_stages(parameters, stages, items_in_last_stage)
    }
}

impl ScalableFilter {
    /// [`from_bytes_with_hasher`](ScalableFilter::from_bytes_with_hasher) for the default
    /// hasher, without a type annotation.
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// let copy = splitbloom::ScalableFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<ScalableFilter, Error> {
        ScalableFilter::from_bytes_with_hasher(bytes)
    }
}
