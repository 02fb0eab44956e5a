//! The deletable value behind `CF.*`: a chain of the crate's [`QuotientFilter`]s, growing by
//! stages as RedisBloom's cuckoo filter grows by sub-filters. Stage `i` holds `capacity ×
//! expansionⁱ` keys (`expansion` rounded up to a power of two, as RedisBloom rounds it) at the
//! crate's design load of 95%; a key goes into the newest stage, or, when that one is full
//! (`Error::Full`), into an older one with room (the deletes may have made some), and only then
//! into a new stage, unless `EXPANSION 0` forbids one or 32 stages exist. Lookups check every
//! stage; a delete removes one copy from the newest stage that holds the key, where the next
//! keys go, so that a filter whose keys come and go frees room where it is used again.
//!
//! Its byte stream (`CF.SCANDUMP`/`CF.LOADCHUNK`, RDB and AOF) is a header ([`meta`]) and
//! each stage's blocks in [`crate::stream`]'s chunks ([`stream`]).

use splitbloom::{Error, FilterHasher, QuotientFilter, TagBits};

use crate::Hash;
use crate::memory::allocated_for;
use crate::stream::Received;

pub mod meta;
pub mod stream;

use meta::MAX_STAGES;
pub use meta::Meta;

/// One stage.
pub type Stage = QuotientFilter<Hash>;

#[derive(Clone, Debug)]
pub enum Body {
    Stages(Vec<Stage>),
    Restoring(Received<Stage>),
}

/// One key's value.
#[derive(Clone, Debug)]
pub struct Deletable {
    pub body: Body,
    /// The reservation and the counters; while restoring, the header received.
    pub meta: Meta,
}

/// What an insert answers for each key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    Added,
    /// Present already (`ADDNX`/`INSERTNX`): nothing added.
    Present,
    /// No stage had room and none could be added (`EXPANSION 0`, or 32 stages).
    NoRoom,
    /// A new stage was refused by the limits (`maxmemory`, `MAX_FILTER_BYTES`) or the
    /// allocator.
    NoMemory,
}

impl Deletable {
    /// A new value of one stage for `capacity` keys.
    pub fn new(
        capacity: u64,
        bucket_size: u64,
        max_iterations: u64,
        expansion: u64,
    ) -> Result<Deletable, Error> {
        let mut meta = Meta {
            capacity,
            expansion,
            bucket_size,
            max_iterations,
            deletes: 0,
            seed: Hash::default().seed(),
            tag_bits: TagBits::Eight,
            stage_blocks: Vec::new(),
        };
        let stage = meta.new_stage(0)?;
        meta.stage_blocks.push(stage.num_blocks() as u64);
        Ok(Deletable {
            body: Body::Stages(vec![stage]),
            meta,
        })
    }

    /// Bitset bytes of the first stage for `capacity` keys (`u64::MAX` past what a filter
    /// can hold): what a command checks before it creates a value.
    pub fn first_stage_bytes(capacity: u64) -> u64 {
        let items = usize::try_from(capacity).unwrap_or(usize::MAX);
        splitbloom::math::quotient::num_blocks_for_capacity(items, TagBits::Eight).map_or(
            u64::MAX,
            |blocks| {
                (blocks as u64)
                    .saturating_mul(splitbloom::math::quotient::QUOTIENT_BLOCK_BYTES as u64)
            },
        )
    }

    /// The stages that answer (none while restoring).
    pub fn stages(&self) -> &[Stage] {
        match &self.body {
            Body::Stages(stages) => stages,
            Body::Restoring(_) => &[],
        }
    }

    pub fn is_restoring(&self) -> bool {
        matches!(self.body, Body::Restoring(_))
    }

    /// Keys held, copies counted (`Number of items inserted`).
    pub fn items(&self) -> u64 {
        let lens = self.stages().iter().map(|stage| stage.len() as u64);
        lens.fold(0, u64::saturating_add)
    }

    /// Bytes as `MEMORY USAGE` counts them: the struct, the stages and their blocks.
    pub fn memory(&self) -> usize {
        let block = splitbloom::math::quotient::QUOTIENT_BLOCK_BYTES;
        let (stages, partial) = match &self.body {
            Body::Stages(stages) => (&stages[..], 0),
            Body::Restoring(received) => {
                let partial = received.partial.as_ref();
                let bytes =
                    partial.map_or(0, |(stage, _)| allocated_for(stage.size_in_bytes(), block));
                (&received.done[..], bytes)
            }
        };
        let blocks: usize = stages
            .iter()
            .map(|stage| allocated_for(stage.size_in_bytes(), block))
            .sum();
        size_of::<Deletable>() + size_of_val(stages) + self.meta.heap_bytes() + blocks + partial
    }

    /// Bytes of the largest stage (what `MAX_FILTER_BYTES` bounds).
    pub fn largest_filter(&self) -> usize {
        let lens = self.meta.stage_lens().into_iter();
        lens.max()
            .map_or(0, |len| usize::try_from(len).unwrap_or(usize::MAX))
    }

    /// The hash of `key` under the value's hasher.
    pub fn hash(&self, key: &[u8]) -> u64 {
        Hash::with_seed(self.meta.seed).hash_bytes(key)
    }

    /// Writes the hashes of `keys` into `hashes` (cleared first).
    pub fn hash_keys<'a>(&self, keys: impl Iterator<Item = &'a [u8]>, hashes: &mut Vec<u64>) {
        hashes.clear();
        hashes.extend(keys.map(|key| self.hash(key)));
    }

    /// `out[i]`: whether some stage may hold `hashes[i]`. The newest stage answers into `out`,
    /// older ones a chunk at a time into a buffer on the stack that is ORed in.
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        const CHUNK: usize = 256;
        out.fill(false);
        let mut stages = self.stages().iter().rev();
        if let Some(newest) = stages.next() {
            newest.contains_hash_batch(hashes, out);
        }
        let mut older = [false; CHUNK];
        for stage in stages {
            for (hashes, out) in hashes.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
                let older = &mut older[..hashes.len()];
                stage.contains_hash_batch(hashes, older);
                out.iter_mut()
                    .zip(older.iter())
                    .for_each(|(out, &found)| *out |= found);
            }
        }
    }

    fn contains_hash(&self, hash: u64) -> bool {
        self.stages().iter().any(|stage| stage.contains_hash(hash))
    }

    /// Copies of `hash` over every stage, an upper bound (`CF.COUNT`).
    pub fn count_hash(&self, hash: u64) -> u64 {
        let counts = self
            .stages()
            .iter()
            .map(|stage| u64::from(stage.count_hash(hash)));
        counts.fold(0, u64::saturating_add)
    }

    /// Removes one copy of `hash` from the newest stage that holds it (see the module docs);
    /// whether one was found.
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        let Body::Stages(stages) = &mut self.body else {
            return false;
        };
        let removed = stages.iter_mut().rev().any(|stage| stage.remove_hash(hash));
        self.meta.deletes = self.meta.deletes.saturating_add(u64::from(removed));
        removed
    }

    /// Adds `hashes` in order, writing each answer into `answers`: another copy of every key,
    /// or with `unique` only keys no stage holds (`ADDNX`/`INSERTNX`). A new stage is made
    /// only after `may_allocate(bytes)` accepted its bytes; once refused, not asked again.
    pub fn insert_hashes(
        &mut self,
        hashes: &[u64],
        unique: bool,
        answers: &mut [Answer],
        may_allocate: &mut dyn FnMut(u64) -> bool,
    ) {
        let mut present = vec![false; if unique { hashes.len() } else { 0 }];
        self.contains_hash_batch(if unique { hashes } else { &[] }, &mut present);
        let mut refused = None;
        let mut done = 0;
        while done < hashes.len() {
            if unique {
                // The batch lookup ran before this batch's own keys went in.
                let hash = hashes[done];
                answers[done] = if present[done] || self.contains_hash(hash) {
                    Answer::Present
                } else {
                    self.insert_one(hash, &mut refused, may_allocate)
                };
                done += 1;
                continue;
            }
            let Body::Stages(stages) = &mut self.body else {
                answers[done..].fill(Answer::NoMemory);
                return;
            };
            let newest = stages.len() - 1;
            let processed = match stages[newest].insert_copy_hash_batch(&hashes[done..]) {
                Ok(()) => hashes.len() - done,
                Err(Error::Full { processed }) => processed,
                Err(_) => 0,
            };
            answers[done..done + processed].fill(Answer::Added);
            done += processed;
            if done < hashes.len() {
                answers[done] = self.insert_one(hashes[done], &mut refused, may_allocate);
                done += 1;
            }
        }
    }

    /// Adds a copy of `hash` to the newest stage with room, or to a new stage.
    fn insert_one(
        &mut self,
        hash: u64,
        refused: &mut Option<Answer>,
        may_allocate: &mut dyn FnMut(u64) -> bool,
    ) -> Answer {
        loop {
            let Body::Stages(stages) = &mut self.body else {
                return Answer::NoMemory;
            };
            if stages
                .iter_mut()
                .rev()
                .any(|stage| stage.insert_copy_hash(hash).is_ok())
            {
                return Answer::Added;
            }
            if let Some(refusal) = *refused {
                return refusal;
            }
            match self.grow(may_allocate) {
                Ok(()) => continue,
                Err(refusal) => {
                    *refused = Some(refusal);
                    return refusal;
                }
            }
        }
    }

    /// Adds the next stage, when the expansion and the limits allow it.
    fn grow(&mut self, may_allocate: &mut dyn FnMut(u64) -> bool) -> Result<(), Answer> {
        let index = self.meta.stage_blocks.len();
        if self.meta.expansion == 0 || index >= MAX_STAGES {
            return Err(Answer::NoRoom);
        }
        let (_, blocks) = self.meta.stage_shape(index).ok_or(Answer::NoRoom)?;
        let bytes = (blocks * splitbloom::math::quotient::QUOTIENT_BLOCK_BYTES) as u64;
        if !may_allocate(bytes) {
            return Err(Answer::NoMemory);
        }
        let stage = self.meta.new_stage(index).map_err(|_| Answer::NoMemory)?;
        let Body::Stages(stages) = &mut self.body else {
            return Err(Answer::NoMemory);
        };
        stages.try_reserve(1).map_err(|_| Answer::NoMemory)?;
        stages.push(stage);
        self.meta.stage_blocks.push(blocks as u64);
        Ok(())
    }

    /// Whether new keys are refused before any goes in, as RedisBloom refuses them once a
    /// filter has 32 sub-filters (`Maximum expansions reached`).
    pub fn at_max_stages(&self) -> bool {
        self.meta.stage_blocks.len() >= MAX_STAGES
    }
}

impl Meta {
    /// The empty stage `index` of this reservation, allocated now.
    fn new_stage(&self, index: usize) -> Result<Stage, Error> {
        let (_, blocks) = self.stage_shape(index).ok_or(Error::ZeroItems)?;
        Stage::with_num_blocks_and_hasher(blocks, self.tag_bits, Hash::with_seed(self.seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(prefix: u64, count: u64) -> Vec<u64> {
        let hasher = Hash::default();
        (0..count)
            .map(|key| hasher.hash_bytes(&(prefix << 32 | key).to_le_bytes()))
            .collect()
    }

    /// A key added before the filter grew and again after is removed from the newest stage
    /// first; `ADDNX` answers a key added earlier in the same batch as present.
    #[test]
    fn deletes_take_the_newest_copy_and_unique_inserts_see_their_own_batch() {
        let mut value = Deletable::new(100, 2, 20, 1).unwrap();
        let key = hashes(1, 1)[0];
        let mut answers = vec![Answer::NoRoom; 1];
        value.insert_hashes(&[key], false, &mut answers, &mut |_| true);
        let filler = hashes(2, 500);
        let mut answers = vec![Answer::NoRoom; filler.len()];
        value.insert_hashes(&filler, false, &mut answers, &mut |_| true);
        assert!(answers.iter().all(|&answer| answer == Answer::Added));
        assert!(value.stages().len() > 1, "the first stage filled");
        let mut answers = vec![Answer::NoRoom; 1];
        value.insert_hashes(&[key], false, &mut answers, &mut |_| true);
        let newest = value.stages().len() - 1;
        assert_eq!(value.stages()[newest].count_hash(key), 1);
        assert!(value.remove_hash(key));
        assert_eq!(value.stages()[newest].count_hash(key), 0);
        assert_eq!(value.stages()[0].count_hash(key), 1);
        assert_eq!((value.count_hash(key), value.meta.deletes), (1, 1));

        let fresh = hashes(3, 3);
        let batch = [fresh[0], fresh[1], fresh[0], filler[0]];
        let mut answers = vec![Answer::NoRoom; batch.len()];
        value.insert_hashes(&batch, true, &mut answers, &mut |_| true);
        let (added, present) = (Answer::Added, Answer::Present);
        assert_eq!(answers, [added, added, present, present]);
    }

    /// No new stage without `may_allocate`'s consent, asked once per batch; `EXPANSION 0`
    /// never asks.
    #[test]
    fn a_refused_stage_refuses_the_rest_of_the_batch() {
        let mut value = Deletable::new(100, 2, 20, 1).unwrap();
        let keys = hashes(4, 2000);
        let mut answers = vec![Answer::Added; keys.len()];
        let mut asked = 0;
        value.insert_hashes(&keys, false, &mut answers, &mut |_| {
            asked += 1;
            false
        });
        assert_eq!(asked, 1);
        assert_eq!(value.stages().len(), 1);
        let first_refused = answers
            .iter()
            .position(|&answer| answer == Answer::NoMemory);
        let held = first_refused.expect("a stage for 100 keys refuses some of 2000");
        assert!(
            answers[..held]
                .iter()
                .all(|&answer| answer == Answer::Added)
        );
        assert_eq!(
            value.items(),
            answers.iter().filter(|&&a| a == Answer::Added).count() as u64
        );
        let mut never = Deletable::new(100, 2, 20, 0).unwrap();
        never.insert_hashes(&keys, false, &mut answers, &mut |_| panic!("asked"));
        assert!(answers.contains(&Answer::NoRoom));
    }
}
