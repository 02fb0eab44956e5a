//! [`ScalableFilter`]'s bytes: the `SBLS` header codec of [`format`](crate::format), then each
//! stage's own bytes.

use alloc::vec::Vec;

use crate::error::Error;
use crate::filter::{BloomFilter, Layout, ScalableFilter};
use crate::format::{Header, SCALABLE_HEADER_BYTES, ScalableHeader, scalable_header};
use crate::hash::FilterHasher;

/// Persistence, in the `SBLS` container (laid out in the [`format`](crate::format) module): a
/// 64-byte header followed by every stage, oldest first, each a complete filter in the `SBLM`
/// format (its own header, checksum and bitset).
impl<S: FilterHasher, L: Layout> ScalableFilter<S, L> {
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
        let stages: usize = self.stages().iter().map(BloomFilter::serialized_len).sum();
        let mut bytes = Vec::with_capacity(SCALABLE_HEADER_BYTES + stages);
        bytes.extend_from_slice(&self.header());
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
        writer.write_all(&self.header())?;
        for stage in self.stages() {
            stage.write_to(&mut writer)?;
        }
        Ok(())
    }

    /// Reads a filter written by [`to_bytes`](ScalableFilter::to_bytes) with the hasher type
    /// `S`, named as the type parameter ([`ScalableFilter::from_bytes`] for the default one). Every problem is an
    /// [`Error`], as for [`BloomFilter::from_bytes`] (a stage of another layout is
    /// [`Error::LayoutMismatch`]), plus invalid parameters, no stages, or stages whose sizes do
    /// not follow the parameters.
    ///
    /// ```
    /// use splitbloom::{Error, ScalableFilter, ScalableParameters, parquet::ParquetHash};
    /// let parameters = ScalableParameters::new(100, 0.01);
    /// let bytes = ScalableFilter::with_parameters(parameters, ParquetHash::default())?.to_bytes();
    /// assert!(ScalableFilter::<ParquetHash>::from_bytes_with_hasher_type(&bytes).is_ok());
    /// assert!(matches!(
    ///     ScalableFilter::<ParquetHash>::from_bytes_with_hasher_type(&bytes[..70]),
    ///     Err(Error::Truncated { .. })
    /// ));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes_with_hasher_type(bytes: &[u8]) -> Result<Self, Error> {
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
            stages.push(BloomFilter::<S, L>::from_bytes_with_hasher_type(
                stage_bytes,
            )?);
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

    /// The `SBLS` header of this filter.
    fn header(&self) -> [u8; SCALABLE_HEADER_BYTES] {
        scalable_header(
            self.parameters(),
            self.items_in_last_stage(),
            self.stages().len(),
        )
    }
}

impl ScalableFilter {
    /// [`from_bytes_with_hasher_type`](ScalableFilter::from_bytes_with_hasher_type) for the
    /// default hasher, without a type annotation.
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// let copy = splitbloom::ScalableFilter::from_bytes(&filter.to_bytes())?;
    /// assert_eq!(copy, filter);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<ScalableFilter, Error> {
        ScalableFilter::from_bytes_with_hasher_type(bytes)
    }
}
