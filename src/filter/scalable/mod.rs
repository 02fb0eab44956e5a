//! [`ScalableFilter`]: a filter that grows with its contents and keeps its false-positive rate.
//!
//! A [`Filter`](crate::Filter) is sized for a number of keys; past it, its false-positive rate climbs towards 1.
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
//! Every stage is a [`BloomFilter`] of the filter's layout with the same hasher: a
//! [`Filter`](crate::Filter) by default, a [`WideFilter`](crate::WideFilter) for low rates. A key is hashed
//! once and its 64-bit hash probes each stage (a stage's block count differs, so the block
//! differs). The stages are exposed in order ([`ScalableFilter::stages`]) with the
//! [`ScalableParameters`] that size them, and [`ScalableFilter::from_stages`] reassembles a
//! filter from both, which is all a serializer needs.

use alloc::vec::Vec;
use core::hash::Hash;

use crate::error::Error;
use crate::filter::{BloomFilter, Layout};
use crate::format::ScalableParameters;
use crate::hash::Xxh3;
use crate::kind::Kernel;
use crate::layout::split_block::SplitBlock;

mod insert;
mod parameters;
mod persist;

/// A Bloom filter that adds stages as keys arrive, keeping the false-positive rate below its
/// target however many there are (Almeida et al., "Scalable Bloom Filters", 2007).
///
/// Stage `i` is a [`BloomFilter`] of layout `L` (by default a split-block [`Filter`](crate::Filter); for a
/// [`WideFilter`](crate::WideFilter)'s stages, build it with
/// [`with_layout`](ScalableFilter::with_layout)) sized for `n₀ · sⁱ` keys at a rate of
/// `P · (1 − r) · rⁱ`
/// ([`ScalableParameters`]: initial capacity `n₀`, target `P`, growth factor `s`, default 2,
/// tightening ratio `r`, default 0.85). Keys go into the newest stage until it holds its planned
/// number; a lookup hashes the key once and checks the stages newest first. The compound rate is
/// at most the sum of the stages' rates, below `P`.
///
/// **Inserting returns a `Result`**, unlike the other filters' `bool`: it fails when a new
/// stage cannot be made (it would exceed [`math::MAX_BLOCKS`](crate::math::MAX_BLOCKS) or the
/// allocator refuses it), and the filter is unchanged by a failed insert. Write
/// `filter.insert(&key)?` where another filter takes `filter.insert(&key)`.
///
/// ```
/// use splitbloom::ScalableFilter;
///
/// let mut seen = ScalableFilter::with_fpr(1000, 0.01)?; // start small
/// for url in 0..50_000u64 {
///     seen.insert(&url)?;
/// }
/// assert!(seen.contains(&123u64));
/// assert!(seen.num_stages() > 1);
/// assert!(seen.estimated_fpr() < 0.01);
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub struct ScalableFilter<S = Xxh3, L: Layout = SplitBlock> {
    /// Oldest first; never empty.
    stages: Vec<BloomFilter<S, L>>,
    parameters: ScalableParameters,
    hasher: S,
    /// Keys added to the newest stage.
    items_in_last_stage: usize,
    /// The newest stage's capacity (cached: computing it takes a `pow`).
    last_stage_capacity: usize,
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
            Xxh3::default(),
        )
    }
}

impl<S: Clone> ScalableFilter<S> {
    /// A filter with the given parameters and hasher, of split-block stages
    /// ([`with_layout`](ScalableFilter::with_layout) for the other layouts).
    ///
    /// ```
    /// use splitbloom::{ScalableFilter, ScalableParameters, Xxh3};
    /// let mut parameters = ScalableParameters::new(1000, 0.01);
    /// parameters.growth_factor = 4.0;
    /// let filter = ScalableFilter::with_parameters(parameters, Xxh3::with_seed(7))?;
    /// assert_eq!(filter.parameters().growth_factor, 4.0);
    /// parameters.growth_factor = 0.5;
    /// assert!(ScalableFilter::with_parameters(parameters, Xxh3::with_seed(7)).is_err());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_parameters(parameters: ScalableParameters, hasher: S) -> Result<Self, Error> {
        Self::with_layout(parameters, hasher)
    }
}

impl<S: Clone, L: Layout> ScalableFilter<S, L> {
    /// A filter with the given parameters and hasher, whose stages have the layout `L`, named
    /// in the type: `ScalableFilter::<Xxh3, Wide>::with_layout(parameters, hasher)` chains
    /// [`WideFilter`](crate::WideFilter)s, the better layout at 0.1% and below.
    ///
    /// ```
    /// use splitbloom::layout::Wide;
    /// use splitbloom::{ScalableFilter, ScalableParameters, Xxh3};
    /// let parameters = ScalableParameters::new(1000, 1e-4);
    /// let mut filter = ScalableFilter::<Xxh3, Wide>::with_layout(parameters, Xxh3::default())?;
    /// filter.insert_batch(&(0..5000u64).collect::<Vec<_>>())?;
    /// assert!(filter.num_stages() > 1 && filter.contains(&4321u64));
    /// assert!(filter.estimated_fpr() < 1e-4);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn with_layout(parameters: ScalableParameters, hasher: S) -> Result<Self, Error> {
        parameters.check()?;
        let first = Self::new_stage(&parameters, 0, hasher.clone())?;
        Ok(ScalableFilter {
            stages: alloc::vec![first],
            parameters,
            hasher,
            items_in_last_stage: 0,
            last_stage_capacity: parameters.stage_capacity(0),
        })
    }

    /// An empty stage `stage` of these parameters: its capacity at its rate, sized by the
    /// layout.
    fn new_stage(
        parameters: &ScalableParameters,
        stage: usize,
        hasher: S,
    ) -> Result<BloomFilter<S, L>, Error> {
        let (capacity, fpr) = (
            parameters.stage_capacity(stage),
            parameters.stage_fpr(stage),
        );
        BloomFilter::with_fpr_and_hasher(capacity, fpr, hasher)
    }
}

read_methods! {
    type: {S, L: Layout} ScalableFilter {S, L},
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

impl<S, L: Layout> ScalableFilter<S, L> {
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

impl<S: Clone + PartialEq, L: Layout> ScalableFilter<S, L> {
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
        stages: Vec<BloomFilter<S, L>>,
        items_in_last_stage: usize,
    ) -> Result<Self, Error> {
        parameters.check()?;
        let hasher = stages.first().ok_or(Error::NoStages)?.hasher().clone();
        // A bounded check per stage (two evaluations of the rate for the split-block layout),
        // so that hostile bytes with many stages cannot make reading slow.
        for (index, stage) in stages.iter().enumerate() {
            let (capacity, fpr) = (
                parameters.stage_capacity(index),
                parameters.stage_fpr(index),
            );
            if !stage
                .layout()
                .is_sized_for(stage.num_blocks(), capacity, fpr)
            {
                return Err(Error::StageMismatch {
                    stage: index,
                    expected_blocks: L::for_fpr(capacity, fpr)?.0,
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

impl<S, L: Layout> ScalableFilter<S, L> {
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
    fn newest(&self) -> &BloomFilter<S, L> {
        &self.stages[self.stages.len() - 1]
    }

    /// The stages, oldest first; every one a [`BloomFilter`] of the layout `L` (a plain
    /// [`Filter`](crate::Filter) by default). [`num_stages`](ScalableFilter::num_stages) counts them.
    ///
    /// ```
    /// let filter = splitbloom::ScalableFilter::with_fpr(1000, 0.01)?;
    /// assert_eq!(filter.stages()[0].num_blocks(), filter.size_in_bytes() / 32);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn stages(&self) -> &[BloomFilter<S, L>] {
        &self.stages
    }

    /// The number of stages: 1 until the first stage is full, one more each time the newest
    /// one fills.
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// assert_eq!(filter.num_stages(), 1);
    /// filter.insert_batch(&(0..15u64).collect::<Vec<_>>())?;
    /// assert_eq!(filter.num_stages(), 2);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_stages(&self) -> usize {
        self.stages.len()
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
    /// use splitbloom::{ScalableFilter, Xxh3};
    /// assert_eq!(*ScalableFilter::with_fpr(10, 0.01)?.hasher(), Xxh3::default());
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
        self.stages.iter().map(BloomFilter::size_in_bytes).sum()
    }

    /// The false-positive rate as it is now: one minus the chance that no stage gives a false
    /// positive, from each stage's [`BloomFilter::estimated_fpr`] (treated as independent).
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

    /// An estimate of how many distinct keys were inserted: the sum of the stages'
    /// [`BloomFilter::estimated_items`], from their fill. Unlike [`len`](Self::len), which
    /// counts inserts, it is what the bits say (a filter read from bytes without its count, a
    /// check of the count).
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(1_000, 0.01)?;
    /// filter.insert_batch(&(0..20_000u64).collect::<Vec<_>>())?;
    /// let estimate = filter.estimated_items();
    /// assert!((estimate - filter.len() as f64).abs() < 0.05 * filter.len() as f64);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn estimated_items(&self) -> f64 {
        self.stages.iter().map(BloomFilter::estimated_items).sum()
    }
}

impl<S: Clone, L: Layout> Clone for ScalableFilter<S, L> {
    fn clone(&self) -> Self {
        ScalableFilter {
            stages: self.stages.clone(),
            parameters: self.parameters,
            hasher: self.hasher.clone(),
            items_in_last_stage: self.items_in_last_stage,
            last_stage_capacity: self.last_stage_capacity,
        }
    }
}

/// Equal when the parameters, the hasher, the stages' bits and the keys in the newest stage
/// are.
///
/// ```
/// let mut a = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
/// let mut b = a.clone();
/// a.insert("k")?;
/// assert_ne!(a, b);
/// b.insert("k")?;
/// assert_eq!(a, b);
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: PartialEq, L: Layout> PartialEq for ScalableFilter<S, L> {
    fn eq(&self, other: &Self) -> bool {
        self.parameters == other.parameters
            && self.hasher == other.hasher
            && self.items_in_last_stage == other.items_in_last_stage
            && self.stages == other.stages
    }
}

/// Shows the parameters and each stage's shape and statistics, not the bits.
///
/// ```
/// let filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
/// assert!(format!("{filter:?}").contains("items_in_last_stage: 0"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
impl<S: core::fmt::Debug, L: Layout> core::fmt::Debug for ScalableFilter<S, L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ScalableFilter")
            .field("stages", &self.stages)
            .field("parameters", &self.parameters)
            .field("hasher", &self.hasher)
            .field("items_in_last_stage", &self.items_in_last_stage)
            .finish()
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
