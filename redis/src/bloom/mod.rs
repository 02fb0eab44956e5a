//! The `SBFfilter` value: a scaling chain of filters (the default, RedisBloom's model,
//! [`chain`]), a plain filter (`NONSCALING`, or `SBF.LOAD` of the crate's `SBLM` bytes) of either
//! layout ([`stage`]), or a filter half-way through a chunked restore; its byte stream for
//! `SCANDUMP`/`LOADCHUNK`, RDB and AOF is a header ([`meta`]) and chunks ([`stream`]).

use splitbloom::ScalableParameters;

use crate::memory::allocated_for;

pub mod chain;
pub mod meta;
pub mod stage;
pub mod stream;

use chain::Chain;
pub use meta::Meta;
use meta::zero_parameters;
use stage::{Bitset, Part, layout_for_rate};

/// RedisBloom's tightening: each new sub-filter has half the error rate of the one before, and
/// the first has half the target.
pub const TIGHTENING_RATIO: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct Restore {
    pub meta: Meta,
    pub done: Vec<Part>,
    /// The current stage's `SBLM` bytes received so far: its header, then its bitset.
    pub partial: Vec<u8>,
}

#[derive(Clone, Debug)]
pub enum Body {
    Chain(Chain),
    Plain(Part),
    Restoring(Restore),
}

/// One key's value.
#[derive(Clone, Debug)]
pub struct Sbf {
    pub body: Body,
    /// False for `NONSCALING`: past its capacity the chain refuses new items.
    pub scaling: bool,
    /// The capacity the value was created with (a chain's first stage).
    pub capacity: u64,
    /// The target false-positive rate; 0 when unknown.
    pub error_rate: f64,
    /// Items added that were not present before, as RedisBloom counts them; after `MERGE`,
    /// the stages' estimate.
    pub items: u64,
}

impl Sbf {
    /// A `NONSCALING` filter, sized as RedisBloom sizes one: `capacity` items at the full
    /// error rate, in one plain filter that refuses new items once `capacity` are in; wide
    /// at [`WIDE_ERROR_RATE`](crate::bloom::stage::WIDE_ERROR_RATE) and below.
    pub fn nonscaling(capacity: u64, error_rate: f64) -> Result<Sbf, splitbloom::Error> {
        Ok(Sbf {
            body: Body::Plain(Part::for_rate(capacity, error_rate)?),
            scaling: false,
            capacity,
            error_rate,
            items: 0,
        })
    }

    /// A chain sized like RedisBloom's: the first stage holds `capacity` items at half the
    /// error rate, and each new stage `expansion` times the previous capacity at half its rate;
    /// every stage wide at [`WIDE_ERROR_RATE`](crate::bloom::stage::WIDE_ERROR_RATE) and below.
    pub fn chain(
        capacity: u64,
        error_rate: f64,
        expansion: u64,
        scaling: bool,
    ) -> Result<Sbf, splitbloom::Error> {
        let mut parameters =
            ScalableParameters::new(usize::try_from(capacity).unwrap_or(usize::MAX), error_rate);
        parameters.growth_factor = expansion as f64;
        parameters.tightening_ratio = TIGHTENING_RATIO;
        let chain = Chain::new(parameters, layout_for_rate(error_rate))?;
        Ok(Sbf {
            body: Body::Chain(chain),
            scaling,
            capacity,
            error_rate,
            items: 0,
        })
    }

    /// The stages that answer lookups (none while restoring).
    pub fn stages(&self) -> Vec<&dyn Bitset> {
        match &self.body {
            Body::Chain(chain) => chain.stages().iter().map(Part::bits).collect(),
            Body::Plain(part) => vec![part.bits()],
            Body::Restoring(_) => Vec::new(),
        }
    }

    /// The stages a restore has received, or the stages that answer lookups.
    fn stored_stages(&self) -> Vec<&dyn Bitset> {
        match &self.body {
            Body::Restoring(restore) => restore.done.iter().map(Part::bits).collect(),
            _ => self.stages(),
        }
    }

    /// Bytes of the value as `MEMORY USAGE` counts them: the struct, every stage's bitset and
    /// the vectors holding them.
    pub fn memory(&self) -> usize {
        let stages = match &self.body {
            Body::Chain(chain) => std::mem::size_of_val(chain.stages()),
            Body::Plain(_) => 0,
            Body::Restoring(restore) => {
                restore.done.capacity() * size_of::<Part>()
                    + restore.partial.capacity()
                    + restore.meta.stage_blocks.capacity() * 8
                    + restore.meta.stage_probes.capacity()
            }
        };
        let bits: usize = self
            .stored_stages()
            .iter()
            .map(|stage| allocated_for(stage.size_in_bytes()))
            .sum();
        size_of::<Sbf>() + stages + bits
    }

    /// The hashes of `keys` under the value's hasher (every stage has the same); `None` while
    /// it is being restored.
    pub fn hash_keys(&self, keys: &[&[u8]]) -> Option<Vec<u64>> {
        let hash: &dyn Fn(&[u8]) -> u64 = match &self.body {
            Body::Chain(chain) => &|key| chain.hash_bytes(key),
            Body::Plain(part) => &|key| part.bits().hash_bytes(key),
            Body::Restoring(_) => return None,
        };
        Some(keys.iter().map(|key| hash(key)).collect())
    }

    /// `out[i]`: whether the value may hold `hashes[i]` (all false while it is being restored).
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        match &self.body {
            Body::Chain(chain) => chain.contains_hash_batch(hashes, out),
            Body::Plain(part) => part.bits().contains_hash_batch(hashes, out),
            Body::Restoring(_) => out.fill(false),
        }
    }

    /// `out[i]`: whether the value may hold `keys[i]` (all false while it is being restored:
    /// nothing answers before a restore completes).
    pub fn contains_bytes_batch(&self, keys: &[&[u8]], out: &mut [bool]) {
        match &self.body {
            Body::Chain(chain) => chain.contains_bytes_batch(keys, out),
            Body::Plain(part) => part.bits().contains_bytes_batch(keys, out),
            Body::Restoring(_) => out.fill(false),
        }
    }

    /// Bytes of the largest stage's bitset (what `MAX_FILTER_BYTES` bounds).
    pub fn largest_filter(&self) -> usize {
        self.stored_stages()
            .iter()
            .map(|stage| stage.size_in_bytes())
            .max()
            .unwrap_or(0)
    }

    /// The value's header: what it is and the size of each stage.
    pub fn meta(&self) -> Meta {
        match &self.body {
            Body::Restoring(restore) => restore.meta.clone(),
            Body::Chain(chain) => Meta {
                plain: false,
                scaling: self.scaling,
                capacity: self.capacity,
                error_rate: self.error_rate,
                items: self.items,
                parameters: *chain.parameters(),
                items_in_last_stage: chain.items_in_last_stage() as u64,
                seed: chain.seed(),
                layout: chain.layout(),
                stage_probes: chain
                    .stages()
                    .iter()
                    .map(|stage| stage.bits().probes())
                    .collect(),
                stage_blocks: chain
                    .stages()
                    .iter()
                    .map(|stage| stage.bits().num_blocks() as u64)
                    .collect(),
            },
            Body::Plain(part) => Meta {
                plain: true,
                scaling: false,
                capacity: self.capacity,
                error_rate: self.error_rate,
                items: self.items,
                parameters: zero_parameters(),
                items_in_last_stage: 0,
                seed: part.bits().seed(),
                layout: part.bits().layout(),
                stage_probes: vec![part.bits().probes()],
                stage_blocks: vec![part.bits().num_blocks() as u64],
            },
        }
    }
}
