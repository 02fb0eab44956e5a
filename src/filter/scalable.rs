//! [`ScalableFilter`]: a filter that grows with its contents and keeps its false-positive rate.
//!
//! A [`Filter`] is sized for a number of keys; past it, its false-positive rate climbs towards 1.
//! A scalable filter (Almeida, Baquero, Preguiça and Hutchison, "Scalable Bloom Filters",
//! Information Processing Letters 101(6), 2007) is a chain of filters, the *stages*. Stage `i`
//! is sized for `n₀ · sⁱ` keys at a false-positive rate of `p₀ · rⁱ`, where `n₀` is the initial
//! capacity, `s` the growth factor (default 2), `r` the tightening ratio (default 0.85) and
//! `p₀ = P · (1 − r)`. Keys go into the newest stage until it holds its planned number, then a
//! new stage is added. A lookup is a false positive only if some stage gives one, so the
//! compound rate is at most `Σ p₀ · rⁱ < p₀ / (1 − r) = P`, the target, however many keys
//! arrive; memory grows linearly with the keys, plus about `log₂(1/r)` bits per key per
//! doubling for the tighter rates.
//!
//! Every stage is a plain split-block [`Filter`] with the same hasher: a key is hashed once and
//! its 64-bit hash probes each stage (a stage's block count differs, so the block differs). The
//! stages are exposed in order ([`ScalableFilter::stages`]) with the [`ScalableParameters`]
//! that size them, and [`ScalableFilter::from_stages`] reassembles a filter from both, which is
//! all a serializer needs.

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hash};

use crate::error::Error;
use crate::filter::Filter;
use crate::hash::{DefaultHasher, FilterHasher, for_each_hashed_chunk};
use crate::{Kernel, math};

/// How a [`ScalableFilter`] sizes its stages: stage `i` holds
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

    /// The number of blocks of stage `stage`: the smallest count whose false-positive rate with
    /// the stage's capacity is at most its rate, computed exactly as the format's first release
    /// did (see `math::scalable_v1`), so that every file it wrote keeps reading.
    fn stage_blocks(&self, stage: usize) -> Result<usize, Error> {
        math::scalable_v1::stage_blocks(self.stage_capacity(stage) as u64, self.stage_fpr(stage))
    }
}

/// A split-block Bloom filter that adds stages as keys arrive, keeping the false-positive rate
/// below its target however many there are (Almeida et al., "Scalable Bloom Filters", 2007).
///
/// Stage `i` is a plain [`Filter`] sized for `n₀ · sⁱ` keys at a rate of `P · (1 − r) · rⁱ`
/// ([`ScalableParameters`]: initial capacity `n₀`, target `P`, growth factor `s`, default 2,
/// tightening ratio `r`, default 0.85). Keys go into the newest stage until it holds its planned
/// number; a lookup hashes the key once and checks the stages newest first. The compound rate is
/// at most the sum of the stages' rates, below `P`.
///
/// Inserting can fail when a new stage cannot be made (it would exceed
/// [`math::MAX_BLOCKS`] or the allocator refuses it), so [`insert`](Self::insert) returns a
/// `Result`; the filter is unchanged by a failed insert.
///
/// ```
/// use splitbloom::ScalableFilter;
///
/// let mut seen = ScalableFilter::with_fpr(1000, 0.01)?; // start small
/// for url in 0..50_000u64 {
///     seen.insert(&url)?;
/// }
/// assert!(seen.contains(&123u64));
/// assert!(seen.stages().len() > 1);
/// assert!(seen.estimated_fpr() < 0.01);
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ScalableFilter<S = DefaultHasher> {
    /// Oldest first; never empty.
    stages: Vec<Filter<S>>,
    parameters: ScalableParameters,
    hasher: S,
    /// Keys added to the newest stage.
    items_in_last_stage: usize,
    /// The newest stage's capacity (cached: computing it takes a `pow`).
    last_stage_capacity: usize,
}

read_methods! {
    type: ScalableFilter,
    setup: "let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    filter.insert(key)?;
    filter.insert_bytes(key.as_bytes())?;
}",
    note: "Every stage answers, newest first (it is the largest and holds most keys); a key may \
           be present when any stage says so.",
    probe: |filter, hash| {
        // Newest first: it is the largest stage and holds most of the keys.
        filter.stages
            .iter()
            .rev()
            .any(|stage| stage.contains_hash(hash))
    },
    probe_all: |filter, hashes, out| filter.stages_batch(hashes, out),
    bytes: yes,
}

/// The byte-key contract's writes (its reads come from `read_methods!`): keys given as
/// exactly their bytes, hashed as the [`hash`](crate::hash) module documents.
impl<S: FilterHasher + Clone> ScalableFilter<S> {
    /// Adds the key made of exactly `key`'s bytes (see [`hash_bytes`](Self::hash_bytes));
    /// errors like [`insert_hash`](crate::ScalableFilter::insert_hash).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// assert!(!filter.insert_bytes(b"key")?);
    /// assert!(filter.contains_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    #[inline]
    pub fn insert_bytes(&mut self, key: &[u8]) -> Result<bool, Error> {
        self.insert_hash(self.hash_bytes(key))
    }

    /// Adds every key of `keys` as [`insert_bytes`](Self::insert_bytes) does; stops at the
    /// first error (the keys before it are in).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// filter.insert_bytes_batch(&["a", "b", "c"])?;
    /// assert!(filter.contains_bytes(b"b"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_bytes_batch<K: AsRef<[u8]>>(&mut self, keys: &[K]) -> Result<(), Error> {
        let hasher = self.hasher().clone();
        let mut result = Ok(());
        for_each_hashed_chunk(&hasher, keys, |_, hashes| {
            if result.is_ok() {
                result = self.insert_hash_batch(hashes);
            }
        });
        result
    }
}

impl<S> ScalableFilter<S> {
    /// Writes into `out[i]` whether `hashes[i]` may be present in any stage (same lengths),
    /// with each stage's batch lookup running inside its kernel.
    fn stages_batch(&self, hashes: &[u64], out: &mut [bool]) {
        // The newest stage answers into `out`; older stages answer a chunk at a time into a
        // buffer on the stack that is ORed in, so there is no allocation.
        const CHUNK: usize = 256;
        let mut stages = self.stages.iter().rev();
        if let Some(newest) = stages.next() {
            newest.contains_hash_batch(hashes, out);
        }
        let mut older = [false; CHUNK];
        for stage in stages {
            for (hashes, out) in hashes.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
                let older = &mut older[..hashes.len()];
                stage.contains_hash_batch(hashes, older);
                for (answer, &found) in out.iter_mut().zip(older.iter()) {
                    *answer |= found;
                }
            }
        }
    }
}

impl ScalableFilter {
    /// A filter whose first stage holds `initial_capacity` keys, with a compound false-positive
    /// rate below `fpr` and the default growth factor (2) and tightening ratio (0.85).
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(1000, 0.01)?;
    /// assert_eq!(filter.stages().len(), 1);
    /// assert!(splitbloom::ScalableFilter::with_fpr(1000, 0.0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_fpr(initial_capacity: usize, fpr: f64) -> Result<Self, Error> {
        Self::with_parameters(
            ScalableParameters::new(initial_capacity, fpr),
            DefaultHasher::default(),
        )
    }
}

impl<S: Clone> ScalableFilter<S> {
    /// A filter with the given parameters and hasher.
    ///
    /// ```
    /// use splitbloom::{ScalableFilter, ScalableParameters, Xxh3Plain};
    /// let mut parameters = ScalableParameters::new(1000, 0.01);
    /// parameters.growth_factor = 4.0;
    /// let filter = ScalableFilter::with_parameters(parameters, Xxh3Plain::with_seed(7))?;
    /// assert_eq!(filter.parameters().growth_factor, 4.0);
    /// parameters.growth_factor = 0.5;
    /// assert!(ScalableFilter::with_parameters(parameters, Xxh3Plain::with_seed(7)).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_parameters(parameters: ScalableParameters, hasher: S) -> Result<Self, Error> {
        parameters.check()?;
        let first =
            Filter::with_num_blocks_and_hasher(parameters.stage_blocks(0)?, hasher.clone())?;
        Ok(ScalableFilter {
            stages: alloc::vec![first],
            parameters,
            hasher,
            items_in_last_stage: 0,
            last_stage_capacity: parameters.stage_capacity(0),
        })
    }

    /// Adds a pre-hashed key; returns `true` when it was probably present already (then nothing
    /// is added). Errors, leaving the filter unchanged, when the newest stage is full and the
    /// next cannot be made.
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// assert!(!filter.insert_hash(0x0123_4567_89ab_cdef)?);
    /// assert!(filter.insert_hash(0x0123_4567_89ab_cdef)?);
    /// assert_eq!(filter.len(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, Error> {
        if self.contains_hash(hash) {
            return Ok(true);
        }
        if self.items_in_last_stage >= self.last_stage_capacity {
            let next = self.stages.len();
            let blocks = self.parameters.stage_blocks(next)?;
            let stage = Filter::with_num_blocks_and_hasher(blocks, self.hasher.clone())?
                .with_kernel(self.kernel())?;
            self.stages
                .try_reserve(1)
                .map_err(|_| Error::AllocationFailed {
                    bytes: size_of::<Filter<S>>(),
                })?;
            self.stages.push(stage);
            self.items_in_last_stage = 0;
            self.last_stage_capacity = self.parameters.stage_capacity(next);
        }
        self.newest_mut().insert_hash(hash);
        self.items_in_last_stage += 1;
        Ok(false)
    }

    /// Adds every hash of `hashes`; stops at the first error (the hashes before it are in).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// let hashes: Vec<u64> = (0..100u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    /// filter.insert_hash_batch(&hashes)?;
    /// assert!(hashes.iter().all(|&hash| filter.contains_hash(hash)));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch(&mut self, hashes: &[u64]) -> Result<(), Error> {
        for &hash in hashes {
            self.insert_hash(hash)?;
        }
        Ok(())
    }

    /// The newest stage.
    fn newest_mut(&mut self) -> &mut Filter<S> {
        let newest = self.stages.len() - 1;
        &mut self.stages[newest]
    }
}

impl<S: Clone + PartialEq> ScalableFilter<S> {
    /// Reassembles a filter from its parameters, its stages (oldest first, as
    /// [`stages`](Self::stages) gives them) and the number of keys in the newest stage (as
    /// [`items_in_last_stage`](Self::items_in_last_stage) gives it); what a deserializer calls.
    ///
    /// Errors when the parameters are invalid, there are no stages, a stage does not have the
    /// size the parameters give it, the stages have different hashers, or the newest stage is
    /// said to hold more than its capacity.
    ///
    /// ```
    /// use splitbloom::ScalableFilter;
    /// let mut filter = ScalableFilter::with_fpr(100, 0.01)?;
    /// for key in 0..1000u64 {
    ///     filter.insert(&key)?;
    /// }
    /// let copy = ScalableFilter::from_stages(
    ///     *filter.parameters(),
    ///     filter.stages().to_vec(),
    ///     filter.items_in_last_stage(),
    /// )?;
    /// assert_eq!(copy.len(), filter.len());
    /// assert!(copy.contains(&999u64));
    /// let no_stages: Vec<splitbloom::Filter> = Vec::new();
    /// assert!(ScalableFilter::from_stages(*filter.parameters(), no_stages, 0).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn from_stages(
        parameters: ScalableParameters,
        stages: Vec<Filter<S>>,
        items_in_last_stage: usize,
    ) -> Result<Self, Error> {
        parameters.check()?;
        let hasher = stages.first().ok_or(Error::NoStages)?.hasher().clone();
        // Checking a stored size takes one or two evaluations of the rate (none for a stage
        // like the one before it), so this is linear in the number of stages.
        let mut check = math::scalable_v1::StageCheck::default();
        for (index, stage) in stages.iter().enumerate() {
            let (capacity, fpr) = (
                parameters.stage_capacity(index),
                parameters.stage_fpr(index),
            );
            if !check.matches(capacity as u64, fpr, stage.num_blocks()) {
                return Err(Error::StageMismatch {
                    stage: index,
                    expected_blocks: parameters.stage_blocks(index)?,
                    found_blocks: stage.num_blocks(),
                });
            }
            if *stage.hasher() != hasher {
                return Err(Error::HasherMismatch);
            }
        }
        let capacity = parameters.stage_capacity(stages.len() - 1);
        if items_in_last_stage > capacity {
            return Err(Error::StageOverfilled {
                items: items_in_last_stage,
                capacity,
            });
        }
        Ok(ScalableFilter {
            stages,
            parameters,
            hasher,
            items_in_last_stage,
            last_stage_capacity: capacity,
        })
    }
}

impl<S> ScalableFilter<S> {
    /// The same filter with every stage, and every stage added later, running on `kernel`;
    /// errors when this CPU cannot run it. Results never depend on the kernel, only speed does.
    ///
    /// ```
    /// use splitbloom::{Kernel, ScalableFilter};
    /// let mut filter = ScalableFilter::with_fpr(10, 0.01)?.with_kernel(Kernel::Scalar)?;
    /// for key in 0..100u64 {
    ///     filter.insert(&key)?;
    /// }
    /// assert!(filter.stages().len() > 1);
    /// assert!(filter.stages().iter().all(|stage| stage.kernel() == Kernel::Scalar));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Self, Error> {
        if !kernel.is_available() {
            return Err(Error::KernelUnavailable(kernel));
        }
        for stage in &mut self.stages {
            stage.set_kernel(kernel)?;
        }
        Ok(self)
    }

    /// The kernel of the newest stage, which new stages use too (the stages of a filter built
    /// here all share one; [`from_stages`](ScalableFilter::from_stages) keeps theirs).
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// assert_eq!(filter.kernel(), splitbloom::Kernel::best());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.newest().kernel()
    }

    /// The newest stage (there is always one).
    fn newest(&self) -> &Filter<S> {
        &self.stages[self.stages.len() - 1]
    }

    /// The stages, oldest first; every one a plain [`Filter`].
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(1000, 0.01)?;
    /// assert_eq!(filter.stages()[0].num_blocks(), filter.size_in_bytes() / 32);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn stages(&self) -> &[Filter<S>] {
        &self.stages
    }

    /// The parameters that size the stages.
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(1000, 0.01)?;
    /// assert_eq!(filter.parameters().initial_capacity, 1000);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn parameters(&self) -> &ScalableParameters {
        &self.parameters
    }

    /// The hasher keys go through.
    ///
    /// ```
    /// use splitbloom::{DefaultHasher, ScalableFilter};
    /// assert_eq!(*ScalableFilter::with_fpr(10, 0.01)?.hasher(), DefaultHasher::default());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Keys added to the newest stage (every older stage holds exactly its capacity).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// for key in 0..15u64 {
    ///     filter.insert(&key)?;
    /// }
    /// assert_eq!(filter.stages().len(), 2);
    /// assert_eq!(filter.items_in_last_stage() + 10, filter.len());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn items_in_last_stage(&self) -> usize {
        self.items_in_last_stage
    }

    /// The number of keys added: inserts that found the key absent. Keys inserted twice count
    /// once; a new key that was a false positive is not counted (nor added).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// filter.insert("a")?;
    /// filter.insert("a")?;
    /// assert_eq!(filter.len(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        // Saturating: capacities are bounded by what the stages' sizes allow, but a sum of
        // counts is not worth a panic.
        (0..self.stages.len() - 1)
            .map(|stage| self.parameters.stage_capacity(stage))
            .fold(self.items_in_last_stage, usize::saturating_add)
    }

    /// Whether no key was added.
    ///
    /// ```
    /// assert!(splitbloom::ScalableFilter::with_fpr(10, 0.01)?.is_empty());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The size of all stages' bitsets in bytes.
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(1000, 0.01)?;
    /// assert_eq!(filter.size_in_bytes(), filter.stages()[0].size_in_bytes());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn size_in_bytes(&self) -> usize {
        self.stages.iter().map(Filter::size_in_bytes).sum()
    }

    /// The false-positive rate as it is now: one minus the chance that no stage gives a false
    /// positive, from each stage's [`Filter::estimated_fpr`] (treated as independent).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// for key in 0..10_000u64 {
    ///     filter.insert(&key)?;
    /// }
    /// assert!(filter.estimated_fpr() > 0.0 && filter.estimated_fpr() < 0.01);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_fpr(&self) -> f64 {
        let none = self
            .stages
            .iter()
            .map(|stage| 1.0 - stage.estimated_fpr())
            .product::<f64>();
        1.0 - none
    }
}

impl<S: BuildHasher + Clone> ScalableFilter<S> {
    /// Adds `key` (hashed once for all stages); returns `true` when it was probably present.
    /// Errors, leaving the filter unchanged, when a needed new stage cannot be made.
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(100, 0.01)?;
    /// assert!(!filter.insert(&42u64)?);
    /// assert!(filter.insert(&42u64)?);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert<K: Hash + ?Sized>(&mut self, key: &K) -> Result<bool, Error> {
        self.insert_hash(crate::hash::hash_key(&self.hasher, key))
    }

    /// Adds every key of `keys` (each hashed once for all stages); stops at the first error
    /// (the keys before it are in).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// let keys: Vec<u64> = (0..100).collect();
    /// filter.insert_batch(&keys)?;
    /// assert!(keys.iter().all(|key| filter.contains(key)));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_batch<K: Hash>(&mut self, keys: &[K]) -> Result<(), Error> {
        for key in keys {
            self.insert(key)?;
        }
        Ok(())
    }
}

/// Adds every key, growing as needed.
///
/// # Panics
///
/// When a new stage cannot be made: it would exceed [`math::MAX_BLOCKS`] or the allocator
/// refuses it, as `Vec::extend` panics on capacity overflow. Use
/// [`insert_batch`](ScalableFilter::insert_batch) or [`insert`](ScalableFilter::insert) to get
/// that as an [`Error`] instead.
///
/// ```
/// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
/// filter.extend(0..100u64);
/// filter.extend(["apple", "pear"]);
/// assert!(filter.contains(&99u64) && filter.contains("pear"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: BuildHasher + Clone, K: Hash> Extend<K> for ScalableFilter<S> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
        for key in keys {
            if let Err(error) = self.insert(&key) {
                panic!("ScalableFilter::extend: {error}");
            }
        }
    }
}

/// A filter of every key, with a compound false-positive rate below 1%, the default growth
/// factor and tightening ratio, and a first stage sized for the iterator's lower size hint
/// (clamped to 1,024 ..= 2^24 keys); it grows as keys arrive.
///
/// # Panics
///
/// As [`Extend`], when a new stage cannot be made.
///
/// ```
/// let filter: splitbloom::ScalableFilter = (0..10_000u64).collect();
/// assert!(filter.contains(&1234u64));
/// assert!(filter.estimated_fpr() < 0.01);
/// ```
impl<K: Hash> FromIterator<K> for ScalableFilter {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        let keys = keys.into_iter();
        let initial_capacity = keys.size_hint().0.clamp(1 << 10, 1 << 24);
        let mut filter = match ScalableFilter::with_fpr(initial_capacity, 0.01) {
            Ok(filter) => filter,
            Err(error) => panic!("ScalableFilter::from_iter: {error}"),
        };
        filter.extend(keys);
        filter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Xxh3Hash;
    use crate::math::scalable_v1::EVALUATIONS;

    /// Stage sizes computed by the format's first release (`math::num_blocks_for_fpr` of
    /// commit af4e2b5 for stages 0..6; 0 where it refused): (initial capacity, fpr, growth
    /// factor, tightening ratio, blocks of stages 0..6).
    const FIRST_RELEASE_STAGES: [(u64, f64, f64, f64, [usize; 6]); 64] = [
        (
            1000000000,
            0.999,
            4.0,
            0.999999,
            [252641133, 1010564736, 4042259765, 0, 0, 0],
        ),
        (
            1000000,
            0.9,
            1.0,
            0.85,
            [21391, 22470, 23562, 24668, 25791, 26932],
        ),
        (
            1000000000,
            0.9,
            1.0,
            0.85,
            [21390241, 22469449, 23561107, 24667360, 25790129, 26931163],
        ),
        (
            12345,
            1e-6,
            1.0,
            0.001,
            [3119, 15358, 161467, 12489574, 0, 0],
        ),
        (10, 0.01, 1.5, 0.999999, [7, 11, 16, 24, 36, 53]),
        (
            1000000,
            1e-9,
            4.0,
            0.9,
            [2417517, 9992004, 41308025, 170811178, 706479454, 2922708778],
        ),
        (1, 1e-6, 4.0, 0.5, [1, 2, 7, 30, 136, 639]),
        (
            1000000000,
            1e-6,
            1.5,
            0.001,
            [252641133, 1866045534, 0, 0, 0, 0],
        ),
        (
            1000000,
            0.999,
            2.0,
            0.5,
            [12692, 34739, 87627, 213105, 507540, 1192657],
        ),
        (
            1000000000,
            0.5,
            4.0,
            0.9,
            [28222953, 115954063, 476216763, 1955099965, 0, 0],
        ),
        (
            1000000000,
            0.999,
            4.0,
            0.9,
            [23399480, 96453718, 397342913, 1635935557, 0, 0],
        ),
        (
            12345,
            0.1,
            2.0,
            0.001,
            [289, 2542, 20237, 238828, 7786512, 3640149853],
        ),
        (
            1000000,
            0.01,
            1.5,
            0.001,
            [41139, 240196, 1559936, 17670925, 800594974, 0],
        ),
        (
            1000000000,
            0.5,
            1.5,
            0.85,
            [25357736, 39737357, 62200543, 97262911, 151950514, 237190297],
        ),
        (
            100,
            1e-6,
            1.5,
            0.999999,
            [1308, 1962, 2942, 4419, 6629, 9937],
        ),
        (12345, 0.9, 1.0, 0.5, [166, 223, 280, 338, 402, 471]),
        (100, 0.999, 2.0, 0.9, [3, 5, 10, 21, 43, 87]),
        (12345, 0.5, 1.5, 0.9, [349, 537, 827, 1273, 1959, 3014]),
        (
            1000000,
            0.01,
            2.0,
            0.001,
            [41139, 320261, 2773219, 41886635, 2530275473, 0],
        ),
        (3, 0.01, 4.0, 0.001, [1, 2, 34, 1006, 121454, 280019651]),
        (3, 0.999, 1.5, 0.001, [1, 1, 2, 14, 210, 23291]),
        (10, 1e-6, 1.0, 0.999999, [131, 131, 131, 131, 131, 131]),
        (
            1000000000,
            0.999,
            4.0,
            0.9,
            [23399480, 96453718, 397342913, 1635935557, 0, 0],
        ),
        (3, 0.999, 1.0, 0.001, [1, 1, 1, 4, 40, 3038]),
        (
            1000000,
            1e-9,
            4.0,
            0.9,
            [2417517, 9992004, 41308025, 170811178, 706479454, 2922708778],
        ),
        (3, 0.9, 4.0, 0.85, [1, 1, 2, 5, 20, 83]),
        (100, 0.1, 1.0, 0.9, [5, 5, 5, 5, 5, 5]),
        (
            1000000000,
            0.01,
            2.0,
            0.999999,
            [693138279, 1386276889, 2772554442, 0, 0, 0],
        ),
        (
            1000000,
            0.9,
            4.0,
            0.9,
            [24107, 99309, 408873, 1682533, 6920341, 28450823],
        ),
        (1, 1e-9, 2.0, 0.001, [2, 27, 4047, 7284136, 0, 0]),
        (1000, 0.001, 1.0, 0.9, [103, 105, 108, 110, 112, 114]),
        (3, 0.999, 2.0, 0.001, [1, 1, 4, 30, 629, 97213]),
        (3, 1e-9, 4.0, 0.001, [4, 157, 48563, 174819253, 0, 0]),
        (
            1000000000,
            0.9,
            1.5,
            0.5,
            [13433596, 27073567, 50853946, 92400234, 164654504, 289723467],
        ),
        (10, 0.5, 2.0, 0.001, [1, 2, 12, 121, 2853, 616597]),
        (
            1000000000,
            0.5,
            1.0,
            0.5,
            [17362615, 21899897, 26631013, 31713594, 37262135, 43380959],
        ),
        (
            100,
            1e-9,
            4.0,
            0.999999,
            [101080, 404318, 1617271, 6469087, 25876369, 103505570],
        ),
        (
            1000000,
            0.1,
            1.5,
            0.9,
            [41130, 63121, 96854, 148593, 227937, 349601],
        ),
        (3, 0.001, 2.0, 0.999999, [4, 8, 15, 30, 60, 120]),
        (1, 0.5, 1.0, 0.999999, [1, 1, 1, 1, 1, 1]),
        (
            1000000000,
            1e-9,
            1.0,
            0.9,
            [
                2417516526, 2498000959, 2581751519, 2668924648, 2759685365, 2854207791,
            ],
        ),
        (
            1000000,
            0.5,
            1.0,
            0.9,
            [28223, 28989, 29764, 30549, 31344, 32150],
        ),
        (100, 1e-6, 1.5, 0.9, [41, 63, 97, 149, 228, 350]),
        (
            1000000,
            0.9,
            2.0,
            0.9,
            [24107, 49655, 102219, 210317, 432522, 889089],
        ),
        (1000, 0.1, 1.5, 0.999999, [410, 615, 922, 1383, 2075, 3112]),
        (1000000000, 1e-9, 1.5, 0.999999, [0, 0, 0, 0, 0, 0]),
        (
            1000,
            0.001,
            1.0,
            0.999999,
            [1244, 1244, 1244, 1244, 1244, 1244],
        ),
        (10, 1e-9, 2.0, 0.85, [22, 45, 95, 199, 418, 880]),
        (
            12345,
            1e-6,
            2.0,
            0.001,
            [3119, 30716, 645868, 99916586, 0, 0],
        ),
        (1000000000, 1e-9, 1.0, 0.001, [1244030356, 0, 0, 0, 0, 0]),
        (1000, 1e-6, 2.0, 0.001, [253, 2489, 52319, 8093689, 0, 0]),
        (
            1000000,
            1e-9,
            1.0,
            0.9,
            [2417517, 2498001, 2581752, 2668925, 2759686, 2854208],
        ),
        (1, 0.9, 2.0, 0.85, [1, 1, 1, 1, 1, 1]),
        (3, 0.9, 1.5, 0.5, [1, 1, 1, 1, 1, 1]),
        (100, 1e-9, 1.0, 0.85, [214, 225, 236, 248, 261, 275]),
        (
            1000000000,
            1e-6,
            1.5,
            0.9,
            [
                409718603, 628891721, 965394358, 1482084467, 2275522410, 3494056195,
            ],
        ),
        (
            1000000,
            0.999,
            1.0,
            0.85,
            [20703, 21776, 22859, 23956, 25068, 26197],
        ),
        (
            1000000000,
            0.9,
            1.5,
            0.999999,
            [
                258059629, 387089522, 580634401, 870951779, 1306427934, 1959642299,
            ],
        ),
        (100, 0.01, 4.0, 0.5, [5, 22, 102, 463, 2118, 9675]),
        (3, 0.9, 1.0, 0.85, [1, 1, 1, 1, 1, 1]),
        (
            1000000000,
            0.9,
            1.0,
            0.001,
            [7233407, 67368298, 258112207, 1279974418, 0, 0],
        ),
        (10, 1e-6, 1.5, 0.85, [4, 6, 10, 15, 23, 35]),
        (10, 0.999, 2.0, 0.5, [1, 1, 1, 3, 6, 12]),
        (1000000000, 1e-9, 4.0, 0.999999, [0, 0, 0, 0, 0, 0]),
    ];

    /// Files written by the first release keep their exact stage sizes: the writer computes the
    /// same and the reader accepts exactly those.
    #[test]
    fn stage_sizes_are_those_of_the_first_release() {
        for (capacity, fpr, growth_factor, tightening_ratio, blocks) in FIRST_RELEASE_STAGES {
            let mut parameters = ScalableParameters::new(capacity as usize, fpr);
            parameters.growth_factor = growth_factor;
            parameters.tightening_ratio = tightening_ratio;
            let mut check = math::scalable_v1::StageCheck::default();
            for (stage, &expected) in blocks.iter().enumerate() {
                let computed = parameters.stage_blocks(stage);
                let (capacity, fpr) = (
                    parameters.stage_capacity(stage),
                    parameters.stage_fpr(stage),
                );
                if expected == 0 {
                    assert!(
                        computed.is_err(),
                        "{parameters:?} stage {stage}: {computed:?}"
                    );
                    continue;
                }
                assert_eq!(computed, Ok(expected), "{parameters:?} stage {stage}");
                assert!(
                    check.matches(capacity as u64, fpr, expected),
                    "{parameters:?} {stage}"
                );
                assert!(!check.matches(capacity as u64, fpr, expected + 1));
                assert!(expected == 1 || !check.matches(capacity as u64, fpr, expected - 1));
            }
        }
    }

    /// Evaluations of the rate while reading `bytes` as a filter of `stages` stages.
    fn evaluations_to_read(bytes: &[u8], stages: usize) -> usize {
        EVALUATIONS.with(|count| count.set(0));
        let read = ScalableFilter::<Xxh3Hash>::from_bytes_with_hasher(bytes).unwrap();
        assert_eq!(read.stages().len(), stages);
        assert_eq!(read.to_bytes(), bytes);
        EVALUATIONS.with(|count| count.get())
    }

    /// Reading checks each stage's size with at most two evaluations of the rate (none when the
    /// stage is like the one before), not the ~60 to 200 of recomputing it: a 128 KB file of 2000
    /// one-block stages took seconds to open.
    #[test]
    fn reading_checks_stage_sizes_in_constant_time_per_stage() {
        let mut parameters = ScalableParameters::new(1, 0.01);
        parameters.growth_factor = 1.0;
        parameters.tightening_ratio = 0.999_999;
        let mut filter = ScalableFilter::with_parameters(parameters, Xxh3Hash::default()).unwrap();
        let mut key = 0u64;
        while filter.stages().len() < 2000 {
            filter.insert(&key).unwrap();
            key += 1;
        }
        assert!(filter.stages().iter().all(|stage| stage.num_blocks() == 1));
        let bytes = filter.to_bytes();
        assert_eq!(bytes.len(), 64 + 2000 * 64);
        let count = evaluations_to_read(&bytes, 2000);
        assert!(count <= 4, "{count} evaluations for 2000 equal stages");

        let mut filter = ScalableFilter::with_parameters(
            ScalableParameters::new(100, 0.01),
            Xxh3Hash::default(),
        )
        .unwrap();
        for key in 0..10_000u64 {
            filter.insert(&key).unwrap();
        }
        let stages = filter.stages().len();
        assert!(stages >= 6);
        let count = evaluations_to_read(&filter.to_bytes(), stages);
        assert!(
            count <= 2 * stages,
            "{count} evaluations for {stages} stages"
        );
    }
}
