//! The sizing of a [`ScalableFilter`](crate::ScalableFilter)'s stages. The struct itself is
//! plain data stored in the `SBLS` header, so it is defined with that codec in
//! [`format`](crate::format); its arithmetic lives here.

use crate::error::Error;
use crate::format::ScalableParameters;
use crate::math;

impl ScalableParameters {
    /// The default growth factor.
    ///
    /// ```
    /// use splitbloom::ScalableParameters;
    /// assert_eq!(ScalableParameters::new(10, 0.01).growth_factor, ScalableParameters::DEFAULT_GROWTH_FACTOR);
    /// ```
    pub const DEFAULT_GROWTH_FACTOR: f64 = 2.0;
    /// The default tightening ratio (Almeida et al. recommend 0.8 to 0.9).
    ///
    /// ```
    /// use splitbloom::ScalableParameters;
    /// let parameters = ScalableParameters::new(10, 0.01);
    /// assert_eq!(parameters.tightening_ratio, ScalableParameters::DEFAULT_TIGHTENING_RATIO);
    /// ```
    pub const DEFAULT_TIGHTENING_RATIO: f64 = 0.85;

    /// Parameters with the default growth factor and tightening ratio.
    ///
    /// ```
    /// let parameters = splitbloom::ScalableParameters::new(1000, 0.01);
    /// assert_eq!(parameters.tightening_ratio, 0.85);
    /// ```
    pub fn new(initial_capacity: usize, fpr: f64) -> Self {
        ScalableParameters {
            initial_capacity,
            fpr,
            growth_factor: Self::DEFAULT_GROWTH_FACTOR,
            tightening_ratio: Self::DEFAULT_TIGHTENING_RATIO,
        }
    }

    /// Errors unless every parameter is in its range.
    ///
    /// ```
    /// let mut parameters = splitbloom::ScalableParameters::new(1000, 0.01);
    /// assert!(parameters.check().is_ok());
    /// parameters.tightening_ratio = 1.0;
    /// assert!(parameters.check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), Error> {
        if self.initial_capacity == 0 {
            return Err(Error::ZeroItems);
        }
        math::check_fpr(self.fpr)?;
        if !(self.growth_factor.is_finite() && self.growth_factor >= 1.0) {
            return Err(Error::InvalidGrowthFactor(self.growth_factor));
        }
        if !(self.tightening_ratio > 0.0 && self.tightening_ratio < 1.0) {
            return Err(Error::InvalidTighteningRatio(self.tightening_ratio));
        }
        Ok(())
    }

    /// The number of keys stage `stage` is sized for (saturating at `usize::MAX`).
    ///
    /// ```
    /// let parameters = splitbloom::ScalableParameters::new(1000, 0.01);
    /// assert_eq!(parameters.stage_capacity(0), 1000);
    /// assert_eq!(parameters.stage_capacity(3), 8000);
    /// ```
    pub fn stage_capacity(&self, stage: usize) -> usize {
        let stage = i32::try_from(stage).unwrap_or(i32::MAX);
        // `as` saturates: a capacity beyond usize is reported as usize::MAX (and cannot be
        // built).
        libm::ceil(self.initial_capacity as f64 * libm::pow(self.growth_factor, f64::from(stage)))
            as usize
    }

    /// The false-positive rate stage `stage` is sized for; their sum over all stages is below
    /// [`fpr`](Self::fpr).
    ///
    /// ```
    /// let parameters = splitbloom::ScalableParameters::new(1000, 0.01);
    /// let total: f64 = (0..200).map(|stage| parameters.stage_fpr(stage)).sum();
    /// assert!(total < 0.01);
    /// assert!((parameters.stage_fpr(0) - 0.0015).abs() < 1e-12);
    /// ```
    pub fn stage_fpr(&self, stage: usize) -> f64 {
        let stage = i32::try_from(stage).unwrap_or(i32::MAX);
        let ratio = self.tightening_ratio;
        self.fpr * (1.0 - ratio) * libm::pow(ratio, f64::from(stage))
    }
}
