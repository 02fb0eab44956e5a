//! The `SBFfilter` value: a scaling chain of Bloom filters (the default, RedisBloom's model: the
//! crate's [`ScalableFilter`]), one filter (`NONSCALING`, or `SBF.LOAD` of the crate's `SBLM`
//! bytes: a [`BloomFilter`]), or a value half-way through a chunked restore ([`Restore`]). All
//! of a value's filters have one layout: split-block, or, for values reserved at
//! [`WIDE_ERROR_RATE`] and below, wide, where the split-block layout needs 1.17x (0.1%) to
//! 2.25x (10^-6) the memory of the classic optimum RedisBloom allocates, and the wide one
//! 1.08-1.14x. The layout is a type parameter of the crate's filters, so a value is an enum of
//! the two ([`Body`]) over code written once for both ([`Filters`], [`ValueLayout`]).
//!
//! Its writes are in [`insert`]; its byte stream for `SCANDUMP`/`LOADCHUNK`, RDB and AOF is a
//! header ([`meta`]) and chunks ([`stream`]).

use splitbloom::layout::{SplitBlock, Wide};
use splitbloom::{
    BloomFilter, FilterHasher, Kernel, Layout, LayoutKind, ScalableFilter, ScalableParameters,
};

use crate::Hash;
use crate::memory::allocated_for;
use crate::stream::Received;

pub mod insert;
pub mod meta;
pub mod stream;

pub use meta::Meta;

/// RedisBloom's tightening: each new sub-filter has half the error rate of the one before, and
/// the first has half the target.
pub const TIGHTENING_RATIO: f64 = 0.5;

/// The error rate at and below which a value's filters are wide: where the split-block layout
/// starts to need clearly more memory than the classic optimum (1.17x at 0.1%, against the
/// wide layout's 1.098x). The CLI's `build --layout auto` switches at the same rate.
pub const WIDE_ERROR_RATE: f64 = 0.001;

/// One filter of a value (a chain's stage, or a plain value's filter), of layout `L`.
pub type Stage<L> = BloomFilter<Hash, L>;

/// A value's filters, all of layout `L`.
#[derive(Clone, Debug)]
pub enum Filters<L: Layout> {
    Chain(ScalableFilter<Hash, L>),
    Plain(Stage<L>),
    Restoring(Restore<L>),
}

/// A value being restored by `LOADCHUNK` (or read from an RDB in that state): its header and
/// the stages received.
#[derive(Clone, Debug)]
pub struct Restore<L: Layout> {
    pub meta: Meta,
    pub received: Received<Stage<L>>,
}

/// A value's filters, of either layout.
#[derive(Clone, Debug)]
pub enum Body {
    Split(Filters<SplitBlock>),
    Wide(Filters<Wide>),
}

/// The layouts a value may have: how generic code finds a value's filters of layout `Self`.
pub trait ValueLayout: Layout {
    fn filters(body: &Body) -> Option<&Filters<Self>>;
    fn body(filters: Filters<Self>) -> Body;
}

impl ValueLayout for SplitBlock {
    fn filters(body: &Body) -> Option<&Filters<Self>> {
        match body {
            Body::Split(filters) => Some(filters),
            Body::Wide(_) => None,
        }
    }
    fn body(filters: Filters<Self>) -> Body {
        Body::Split(filters)
    }
}

impl ValueLayout for Wide {
    fn filters(body: &Body) -> Option<&Filters<Self>> {
        match body {
            Body::Wide(filters) => Some(filters),
            Body::Split(_) => None,
        }
    }
    fn body(filters: Filters<Self>) -> Body {
        Body::Wide(filters)
    }
}

/// Evaluates `$then` with `$filters` bound to the body's [`Filters`], whatever their layout:
/// the one place generic code over [`ValueLayout`] meets the enum.
macro_rules! with_filters {
    ($body:expr, $filters:ident => $then:expr) => {
        match $body {
            $crate::bloom::Body::Split($filters) => $then,
            $crate::bloom::Body::Wide($filters) => $then,
        }
    };
}
pub(crate) use with_filters;

/// The layout of a value reserved at `error_rate`: wide at [`WIDE_ERROR_RATE`] and below,
/// split-block above.
pub fn layout_for_rate(error_rate: f64) -> LayoutKind {
    if error_rate <= WIDE_ERROR_RATE {
        LayoutKind::Wide
    } else {
        LayoutKind::SplitBlock
    }
}

/// One key's value.
#[derive(Clone, Debug)]
pub struct Sbf {
    pub body: Body,
    /// False for `NONSCALING`: past its capacity the value refuses new items.
    pub scaling: bool,
    /// The capacity the value was created with (a chain's first stage; 0 when unknown).
    pub capacity: u64,
    /// The target false-positive rate; 0 when unknown.
    pub error_rate: f64,
    /// Items added that were not present before, as RedisBloom counts them; after `MERGE`,
    /// the stages' estimate.
    pub items: u64,
}

/// A chain's parameters as RedisBloom sizes its sub-filters: the first holds `capacity` items
/// at half the error rate, each next one `expansion` times the previous capacity at half its
/// rate.
pub fn chain_parameters(capacity: u64, error_rate: f64, expansion: u64) -> ScalableParameters {
    let mut parameters =
        ScalableParameters::new(usize::try_from(capacity).unwrap_or(usize::MAX), error_rate);
    parameters.growth_factor = expansion as f64;
    parameters.tightening_ratio = TIGHTENING_RATIO;
    parameters
}

impl Sbf {
    /// A new value: a chain of the given expansion (RedisBloom's sizes, [`chain_parameters`]),
    /// or with `expansion` `None` one filter of `capacity` items at the full error rate, as
    /// RedisBloom sizes a `NONSCALING` filter; wide at [`WIDE_ERROR_RATE`] and below.
    pub fn new(
        capacity: u64,
        error_rate: f64,
        expansion: Option<u64>,
    ) -> Result<Sbf, splitbloom::Error> {
        fn filters<L: ValueLayout>(
            capacity: u64,
            error_rate: f64,
            expansion: Option<u64>,
        ) -> Result<Body, splitbloom::Error> {
            let items = usize::try_from(capacity).unwrap_or(usize::MAX);
            Ok(L::body(match expansion {
                Some(expansion) => Filters::Chain(ScalableFilter::with_layout(
                    chain_parameters(capacity, error_rate, expansion),
                    Hash::default(),
                )?),
                None => Filters::Plain(Stage::with_fpr_and_hasher(
                    items,
                    error_rate,
                    Hash::default(),
                )?),
            }))
        }
        let body = match layout_for_rate(error_rate) {
            LayoutKind::Wide => filters::<Wide>(capacity, error_rate, expansion)?,
            _ => filters::<SplitBlock>(capacity, error_rate, expansion)?,
        };
        Ok(Sbf {
            body,
            scaling: expansion.is_some(),
            capacity,
            error_rate,
            items: 0,
        })
    }

    /// Bitset bytes [`new`](Sbf::new) allocates (`u64::MAX` when it would fail).
    pub fn new_bytes(capacity: u64, error_rate: f64, expansion: Option<u64>) -> u64 {
        let items = usize::try_from(capacity).unwrap_or(usize::MAX);
        let fpr = match expansion {
            Some(_) => error_rate * TIGHTENING_RATIO,
            None => error_rate,
        };
        meta::stage_bytes(layout_for_rate(error_rate), items, fpr)
    }

    pub fn is_restoring(&self) -> bool {
        with_filters!(&self.body, filters => matches!(filters, Filters::Restoring(_)))
    }

    /// Bytes of the value as `MEMORY USAGE` counts them: the struct, every filter's bitset and
    /// the vectors holding them.
    pub fn memory(&self) -> usize {
        size_of::<Sbf>() + with_filters!(&self.body, filters => filters.memory())
    }

    /// Bytes of the largest filter's bitset (what `MAX_FILTER_BYTES` bounds).
    pub fn largest_filter(&self) -> usize {
        with_filters!(&self.body, filters => {
            filters.allocated().map(Stage::size_in_bytes).max().unwrap_or(0)
        })
    }

    /// Writes the hashes of `keys` under the value's hasher into `hashes` (cleared first).
    pub fn hash_keys<'a>(&self, keys: impl Iterator<Item = &'a [u8]>, hashes: &mut Vec<u64>) {
        let hasher = with_filters!(&self.body, filters => filters.hasher());
        hashes.clear();
        hashes.extend(keys.map(|key| hasher.hash_bytes(key)));
    }

    /// `out[i]`: whether the value may hold `hashes[i]`; all false while it is being restored
    /// (nothing answers before a restore completes).
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        with_filters!(&self.body, filters => match filters {
            Filters::Chain(chain) => chain.contains_hash_batch(hashes, out),
            Filters::Plain(filter) => filter.contains_hash_batch(hashes, out),
            Filters::Restoring(_) => out.fill(false),
        })
    }

    /// What `SBF.INFO` and `MERGE` report of the filters (zeros while restoring).
    pub fn summary(&self) -> Summary {
        with_filters!(&self.body, filters => Summary::of(filters.stages()))
    }

    /// The value's header: what it is and the shape of each stage.
    pub fn meta(&self) -> Meta {
        with_filters!(&self.body, filters => filters.meta(self))
    }
}

impl<L: Layout> Filters<L> {
    /// The filters that answer lookups, oldest first (none while restoring).
    pub fn stages(&self) -> &[Stage<L>] {
        match self {
            Filters::Chain(chain) => chain.stages(),
            Filters::Plain(filter) => std::slice::from_ref(filter),
            Filters::Restoring(_) => &[],
        }
    }

    /// Every filter allocated: those that answer lookups, or a restore's received and partial
    /// stages.
    fn allocated(&self) -> impl Iterator<Item = &Stage<L>> {
        let (stages, partial) = match self {
            Filters::Restoring(restore) => (
                &restore.received.done[..],
                restore.received.partial.as_ref(),
            ),
            _ => (self.stages(), None),
        };
        stages.iter().chain(partial.map(|(stage, _)| stage))
    }

    /// The hasher of every filter (a restore's: its header's seed).
    fn hasher(&self) -> Hash {
        match self {
            Filters::Chain(chain) => *chain.hasher(),
            Filters::Plain(filter) => *filter.hasher(),
            Filters::Restoring(restore) => Hash::with_seed(restore.meta.seed),
        }
    }

    fn memory(&self) -> usize {
        let vectors = match self {
            Filters::Chain(chain) => size_of_val(chain.stages()),
            Filters::Plain(_) => 0,
            Filters::Restoring(restore) => {
                restore.received.done.capacity() * size_of::<Stage<L>>() + restore.meta.heap_bytes()
            }
        };
        let bits: usize = self
            .allocated()
            .map(|stage| allocated_for(stage.size_in_bytes(), L::BLOCK_BYTES))
            .sum();
        vectors + bits
    }

    fn meta(&self, sbf: &Sbf) -> Meta {
        let stages = self.stages();
        let (plain, parameters, items_in_last_stage) = match self {
            Filters::Restoring(restore) => return restore.meta.clone(),
            Filters::Chain(chain) => (
                false,
                *chain.parameters(),
                chain.items_in_last_stage() as u64,
            ),
            Filters::Plain(_) => (true, meta::zero_parameters(), 0),
        };
        Meta {
            plain,
            scaling: sbf.scaling,
            capacity: sbf.capacity,
            error_rate: sbf.error_rate,
            items: sbf.items,
            parameters,
            items_in_last_stage,
            seed: self.hasher().seed(),
            layout: L::KIND,
            stage_ids: stages.iter().map(|stage| stage.layout().id()).collect(),
            stage_blocks: stages
                .iter()
                .map(|stage| stage.num_blocks() as u64)
                .collect(),
        }
    }
}

/// What the module reports of a value's filters, whatever their layout.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub blocks: usize,
    pub bytes: usize,
    /// Distinct keys, estimated from each filter's fill.
    pub estimated_items: f64,
    /// The chance that some filter answers a false positive, from each one's fill.
    pub estimated_fpr: f64,
    pub fill_ratio: f64,
    pub seed: u64,
    pub kernel: Option<Kernel>,
    /// The newest filter's probes per key, for a wide value.
    pub wide_probes: Option<u8>,
}

impl Summary {
    fn of<L: Layout>(stages: &[Stage<L>]) -> Summary {
        let bytes: usize = stages.iter().map(Stage::size_in_bytes).sum();
        let filled: f64 = stages
            .iter()
            .map(|stage| stage.fill_ratio() * stage.size_in_bytes() as f64)
            .sum();
        let none: f64 = stages
            .iter()
            .map(|stage| 1.0 - stage.estimated_fpr())
            .product();
        let newest = stages.last();
        Summary {
            blocks: stages.iter().map(Stage::num_blocks).sum(),
            bytes,
            estimated_items: stages.iter().map(Stage::estimated_items).sum(),
            estimated_fpr: 1.0 - none,
            fill_ratio: if bytes == 0 {
                0.0
            } else {
                filled / bytes as f64
            },
            seed: newest.map_or(0, |stage| stage.hasher().seed()),
            kernel: newest.map(Stage::kernel),
            wide_probes: newest
                .filter(|_| L::KIND == LayoutKind::Wide)
                .map(|stage| stage.layout().probes()),
        }
    }

    /// The estimated number of distinct keys, as a count.
    pub fn estimated_count(&self) -> u64 {
        if self.estimated_items.is_finite() {
            self.estimated_items.round() as u64
        } else {
            0
        }
    }
}
