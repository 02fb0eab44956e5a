//! A scaling chain of filters of one layout, RedisBloom's model: stage `i` holds
//! `ScalableParameters::stage_capacity(i)` keys at `stage_fpr(i)`, and a key that no stage
//! holds goes into the newest, after a new stage is made when that one is full.
//!
//! The crate's [`splitbloom::ScalableFilter`] is this chain with split-block stages only; the
//! module keeps its own, written once over [`Part`] (so over [`Bitset`]), so that a chain
//! reserved at [`WIDE_ERROR_RATE`](crate::bloom::stage::WIDE_ERROR_RATE) or below has wide stages.
//! A split-block chain is exactly the crate's: the same stage sizes, the same keys in the same
//! stages, and its `SBLS` bytes through `ScalableFilter` (`SBF.DUMP`/`SBF.LOAD`).

use splitbloom::{LayoutKind, ScalableFilter, ScalableParameters};

use crate::Hash;
use crate::bloom::stage::{Bitset, Part};

#[derive(Clone, Debug)]
pub struct Chain {
    /// Oldest first; never empty.
    stages: Vec<Part>,
    parameters: ScalableParameters,
    /// Keys added to the newest stage.
    items_in_last_stage: usize,
    layout: LayoutKind,
}

impl Chain {
    /// A chain of one empty stage.
    pub fn new(
        parameters: ScalableParameters,
        layout: LayoutKind,
    ) -> Result<Chain, splitbloom::Error> {
        parameters.check()?;
        let first = Part::for_stage(
            layout,
            parameters.stage_capacity(0),
            parameters.stage_fpr(0),
        )?;
        Ok(Chain {
            stages: vec![first],
            parameters,
            items_in_last_stage: 0,
            layout,
        })
    }

    /// Reassembles a chain (what a restore calls): every stage of one layout, sized as the
    /// parameters size it, one hasher; the newest stage holding at most its capacity.
    pub fn from_stages(
        parameters: ScalableParameters,
        stages: Vec<Part>,
        items_in_last_stage: usize,
    ) -> Result<Chain, String> {
        parameters.check().map_err(|error| error.to_string())?;
        let first = stages
            .first()
            .ok_or("a chain has at least one stage")?
            .bits();
        let (layout, seed) = (first.layout(), first.seed());
        for (index, stage) in stages.iter().enumerate() {
            let bits = stage.bits();
            let (capacity, fpr) = (
                parameters.stage_capacity(index),
                parameters.stage_fpr(index),
            );
            let expected = Part::shape_for(layout, capacity, fpr)
                .map_err(|error| format!("stage {index}: {error}"))?;
            if bits.layout() != layout || (bits.num_blocks(), bits.probes()) != expected {
                return Err(format!(
                    "stage {index} is not the {} stage the parameters give",
                    layout.name()
                ));
            }
            if bits.seed() != seed {
                return Err("the stages differ in hasher (seed)".into());
            }
        }
        let capacity = parameters.stage_capacity(stages.len() - 1);
        if items_in_last_stage > capacity {
            return Err(format!(
                "the newest stage is said to hold {items_in_last_stage} keys, above its capacity {capacity}"
            ));
        }
        Ok(Chain {
            stages,
            parameters,
            items_in_last_stage,
            layout,
        })
    }

    /// The crate's split-block chain, as `SBF.LOAD` reads it from `SBLS` bytes.
    pub fn from_scalable(chain: &ScalableFilter<Hash>) -> Chain {
        Chain {
            stages: chain.stages().iter().cloned().map(Part::Split).collect(),
            parameters: *chain.parameters(),
            items_in_last_stage: chain.items_in_last_stage(),
            layout: LayoutKind::SplitBlock,
        }
    }

    /// The crate's `SBLS` bytes (`ScalableFilter::to_bytes`); `None` for a wide chain, which
    /// that format does not hold.
    pub fn to_scalable_bytes(&self) -> Option<Vec<u8>> {
        let stages = self
            .stages
            .iter()
            .cloned()
            .map(Part::into_split)
            .collect::<Option<Vec<_>>>()?;
        ScalableFilter::from_stages(self.parameters, stages, self.items_in_last_stage)
            .ok()
            .map(|chain| chain.to_bytes())
    }

    pub fn stages(&self) -> &[Part] {
        &self.stages
    }

    pub fn parameters(&self) -> &ScalableParameters {
        &self.parameters
    }

    pub fn items_in_last_stage(&self) -> usize {
        self.items_in_last_stage
    }

    pub fn layout(&self) -> LayoutKind {
        self.layout
    }

    fn newest(&self) -> &dyn Bitset {
        self.stages[self.stages.len() - 1].bits()
    }

    /// The hash every stage gives `key` (they share the hasher).
    pub fn hash_bytes(&self, key: &[u8]) -> u64 {
        self.newest().hash_bytes(key)
    }

    pub fn seed(&self) -> u64 {
        self.newest().seed()
    }

    /// Whether some stage may hold `hash`, newest (largest) first.
    pub fn contains_hash(&self, hash: u64) -> bool {
        self.stages
            .iter()
            .rev()
            .any(|stage| stage.bits().contains_hash(hash))
    }

    /// `out[i]`: whether some stage may hold `hashes[i]`. The newest stage answers into `out`,
    /// older ones a chunk at a time into a buffer on the stack that is ORed in.
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        const CHUNK: usize = 256;
        let mut stages = self.stages.iter().rev();
        if let Some(newest) = stages.next() {
            newest.bits().contains_hash_batch(hashes, out);
        }
        let mut older = [false; CHUNK];
        for stage in stages {
            for (hashes, out) in hashes.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
                let older = &mut older[..hashes.len()];
                stage.bits().contains_hash_batch(hashes, older);
                for (answer, &found) in out.iter_mut().zip(older.iter()) {
                    *answer |= found;
                }
            }
        }
    }

    pub fn contains_bytes_batch(&self, keys: &[&[u8]], out: &mut [bool]) {
        let hashes: Vec<u64> = keys.iter().map(|key| self.hash_bytes(key)).collect();
        self.contains_hash_batch(&hashes, out);
    }

    /// Whether the next new key needs a new stage.
    pub fn is_full(&self) -> bool {
        self.items_in_last_stage >= self.parameters.stage_capacity(self.stages.len() - 1)
    }

    /// Capacity and bitset bytes of the stage that would come next (`u64::MAX` bytes when it
    /// cannot be made).
    pub fn next_stage(&self) -> (u64, u64) {
        let next = self.stages.len();
        let capacity = self.parameters.stage_capacity(next);
        let bytes = Part::bytes_for(self.layout, capacity, self.parameters.stage_fpr(next));
        (capacity as u64, bytes)
    }

    /// Adds a key no stage holds into the newest stage, making a new one first when it is
    /// full; `Ok(false)` for a key some stage (probably) holds. Errors, the chain unchanged,
    /// when the new stage cannot be made.
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, splitbloom::Error> {
        if self.contains_hash(hash) {
            return Ok(false);
        }
        if self.is_full() {
            let next = self.stages.len();
            let stage = Part::for_stage(
                self.layout,
                self.parameters.stage_capacity(next),
                self.parameters.stage_fpr(next),
            )?;
            self.stages
                .try_reserve(1)
                .map_err(|_| splitbloom::Error::AllocationFailed {
                    bytes: size_of::<Part>(),
                })?;
            self.stages.push(stage);
            self.items_in_last_stage = 0;
        }
        let newest = self.stages.len() - 1;
        self.stages[newest].bits_mut().insert_hash(hash);
        self.items_in_last_stage += 1;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameters(capacity: usize, fpr: f64) -> ScalableParameters {
        let mut parameters = ScalableParameters::new(capacity, fpr);
        parameters.growth_factor = 2.0;
        parameters.tightening_ratio = crate::bloom::TIGHTENING_RATIO;
        parameters
    }

    /// A split-block chain is the crate's: the same stages, bit for bit, after the same keys.
    #[test]
    fn a_split_block_chain_is_the_crates() {
        let parameters = parameters(100, 0.01);
        let mut ours = Chain::new(parameters, LayoutKind::SplitBlock).unwrap();
        let mut theirs = ScalableFilter::with_parameters(parameters, Hash::default()).unwrap();
        for key in 0..2000u32 {
            let hash = ours.hash_bytes(&key.to_le_bytes());
            assert_eq!(
                ours.insert_hash(hash).unwrap(),
                theirs.insert_hash(hash).unwrap()
            );
        }
        assert_eq!(ours.stages().len(), theirs.stages().len());
        assert_eq!(ours.items_in_last_stage(), theirs.items_in_last_stage());
        assert_eq!(ours.to_scalable_bytes().unwrap(), theirs.to_bytes());
        let back = Chain::from_scalable(&theirs);
        assert_eq!(back.to_scalable_bytes().unwrap(), theirs.to_bytes());
    }

    /// A wide chain grows as the split-block one does, every stage wide and sized by the wide
    /// formula, and finds every key it was given.
    #[test]
    fn a_wide_chain_scales_and_keeps_every_key() {
        let parameters = parameters(100, 1e-4);
        let mut chain = Chain::new(parameters, LayoutKind::Wide).unwrap();
        let hashes: Vec<u64> = (0..2000u32)
            .map(|key| chain.hash_bytes(&key.to_le_bytes()))
            .collect();
        for &hash in &hashes {
            chain.insert_hash(hash).unwrap();
        }
        assert_eq!(chain.stages().len(), 5);
        for (index, stage) in chain.stages().iter().enumerate() {
            let expected = Part::shape_for(
                LayoutKind::Wide,
                parameters.stage_capacity(index),
                parameters.stage_fpr(index),
            )
            .unwrap();
            assert_eq!(stage.bits().layout(), LayoutKind::Wide);
            assert_eq!((stage.bits().num_blocks(), stage.bits().probes()), expected);
        }
        let mut found = vec![false; hashes.len()];
        chain.contains_hash_batch(&hashes, &mut found);
        assert!(found.iter().all(|&found| found));
        assert!(hashes.iter().all(|&hash| chain.contains_hash(hash)));
        assert!(chain.to_scalable_bytes().is_none());
        let copy = Chain::from_stages(
            parameters,
            chain.stages().to_vec(),
            chain.items_in_last_stage(),
        )
        .unwrap();
        assert_eq!(copy.stages().len(), chain.stages().len());
    }

    #[test]
    fn stages_that_do_not_fit_the_parameters_are_refused() {
        let parameters = parameters(100, 1e-4);
        let wide = Chain::new(parameters, LayoutKind::Wide).unwrap();
        let split = Chain::new(parameters, LayoutKind::SplitBlock).unwrap();
        let mut mixed = wide.stages().to_vec();
        mixed.push(split.stages()[0].clone());
        assert!(Chain::from_stages(parameters, mixed, 0).is_err());
        let other = parameters_with_capacity(200);
        assert!(Chain::from_stages(other, wide.stages().to_vec(), 0).is_err());
        assert!(Chain::from_stages(parameters, wide.stages().to_vec(), 101).is_err());
        assert!(Chain::from_stages(parameters, Vec::new(), 0).is_err());
    }

    fn parameters_with_capacity(capacity: usize) -> ScalableParameters {
        parameters(capacity, 1e-4)
    }
}
