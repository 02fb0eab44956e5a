//! A value's writes, as RedisBloom answers them: a key some filter (probably) holds is not
//! added again (answer false), a new one goes into the newest filter (answer true); a chain
//! adds a stage when its newest is full, a `NONSCALING` value refuses new keys past its
//! capacity.
//!
//! A batch goes to the crate in as few calls as the growth rules allow: a chain's
//! `ScalableFilter::insert_hash_batch_answers` probes every stage in its batch kernel, but
//! makes new stages on its own, while the module must check each new stage against its limits
//! (`maxmemory`, `MAX_FILTER_BYTES`, the rates it refuses) before it is allocated. So a batch
//! is cut where the newest stage fills: the keys up to there go in with no new stage possible,
//! and when the next stage may be made (checked once), the keys it can hold go in with it.

use splitbloom::{Layout, ScalableFilter};

use super::meta::stage_bytes;
use super::{Filters, Sbf, Stage, with_filters};
use crate::Hash;

/// Why a batch stopped: the keys before it went in, the rest did not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Refusal {
    /// A `NONSCALING` value at its capacity.
    Full,
    /// The next stage's error rate needs more than 512 bits per item.
    TooTight,
    /// The next stage's capacity is beyond what a filter can hold.
    TooLarge,
    /// The limits (`maxmemory`, `MAX_FILTER_BYTES`) or the allocator refused the next stage.
    NoMemory,
    /// The value is being restored.
    Restoring,
}

impl Sbf {
    /// Adds `hashes` in order and writes into `new[i]` whether `hashes[i]` was new. Before
    /// any new stage is made, `may_allocate(bytes)` must accept its bitset bytes. Errors with
    /// the number of keys processed (their answers written) and why the next was refused.
    pub fn insert_hashes(
        &mut self,
        hashes: &[u64],
        new: &mut [bool],
        may_allocate: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(), (usize, Refusal)> {
        let (capacity, scaling) = (self.capacity, self.scaling);
        let result = with_filters!(&mut self.body, filters => match filters {
            Filters::Chain(chain) => insert_into_chain(chain, scaling, hashes, new, may_allocate),
            Filters::Plain(filter) => {
                // A plain filter of known capacity is a NONSCALING one: full at its capacity.
                // Loaded without a capacity (0), it never refuses a key: it only fills up.
                let room = if capacity == 0 {
                    usize::MAX
                } else {
                    usize::try_from(capacity.saturating_sub(self.items)).unwrap_or(usize::MAX)
                };
                insert_one_by_one(filter, room, hashes, new, Refusal::Full)
            }
            Filters::Restoring(_) => Err((0, Refusal::Restoring)),
        });
        let processed = result.map_or_else(|(processed, _)| processed, |()| hashes.len());
        let added = new[..processed].iter().filter(|&&new| new).count();
        self.items = self.items.saturating_add(added as u64);
        result
    }
}

/// The keys of a chain, cut where its newest stage fills (see the module docs).
fn insert_into_chain<L: Layout>(
    chain: &mut ScalableFilter<Hash, L>,
    scaling: bool,
    hashes: &[u64],
    new: &mut [bool],
    may_allocate: &mut dyn FnMut(u64) -> bool,
) -> Result<(), (usize, Refusal)> {
    let mut done = 0;
    while done < hashes.len() {
        let newest = chain.num_stages() - 1;
        let room = chain
            .parameters()
            .stage_capacity(newest)
            .saturating_sub(chain.items_in_last_stage());
        let rest = hashes.len() - done;
        // No more keys than the newest stage has room for, or no more keys absent from every
        // stage: no stage can be made. (The answers are scratch space until the insert.)
        let take = if rest <= room || absent(chain, &hashes[done..], &mut new[done..]) <= room {
            rest
        } else {
            match next_stage(chain, scaling, may_allocate) {
                Ok(capacity) => rest.min(room.saturating_add(capacity)),
                Err(refusal) => {
                    // No new stage: the newest takes what it has room for, then the batch
                    // stops at the first key no stage holds.
                    let (hashes, new) = (&hashes[done..], &mut new[done..]);
                    return insert_one_by_one(chain, room, hashes, new, refusal)
                        .map_err(|(processed, refusal)| (done + processed, refusal));
                }
            }
        };
        let range = done..done + take;
        chain
            .insert_hash_batch_answers(&hashes[range.clone()], &mut new[range])
            .map_err(|(processed, _)| (done + processed, Refusal::NoMemory))?;
        done += take;
    }
    Ok(())
}

/// How many of `hashes` no stage holds, with `scratch` (as long) for the answers.
fn absent<L: Layout>(
    chain: &ScalableFilter<Hash, L>,
    hashes: &[u64],
    scratch: &mut [bool],
) -> usize {
    chain.contains_hash_batch(hashes, scratch);
    scratch.iter().filter(|&&found| !found).count()
}

/// The capacity of the chain's next stage, when it may be made now.
fn next_stage<L: Layout>(
    chain: &ScalableFilter<Hash, L>,
    scaling: bool,
    may_allocate: &mut dyn FnMut(u64) -> bool,
) -> Result<usize, Refusal> {
    if !scaling {
        return Err(Refusal::Full);
    }
    let (next, parameters) = (chain.num_stages(), chain.parameters());
    let capacity = parameters.stage_capacity(next);
    let bytes = stage_bytes(L::KIND, capacity, parameters.stage_fpr(next));
    if bytes == u64::MAX {
        return Err(Refusal::TooLarge);
    }
    // Error rates halve with every stage; past some point a filter reaches them only with
    // absurd sizes (a classic filter needs 512 bits per item only below 1e-100).
    if bytes > (capacity as u64).saturating_mul(64).max(64 << 10) {
        return Err(Refusal::TooTight);
    }
    if !may_allocate(bytes) {
        return Err(Refusal::NoMemory);
    }
    Ok(capacity)
}

/// What [`insert_one_by_one`] needs of a filter that cannot grow.
trait Fixed {
    fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]);
    fn contains_hash(&self, hash: u64) -> bool;
    /// Adds a key no filter held before the batch (an earlier key of the batch may have set
    /// its bits since): whether it was new.
    fn insert_hash(&mut self, hash: u64) -> bool;
}

impl<L: Layout> Fixed for Stage<L> {
    fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        Stage::contains_hash_batch(self, hashes, out);
    }
    fn contains_hash(&self, hash: u64) -> bool {
        Stage::contains_hash(self, hash)
    }
    fn insert_hash(&mut self, hash: u64) -> bool {
        Stage::insert_hash(self, hash)
    }
}

/// A chain that may not grow: its newest stage has room, so an insert never makes a stage.
impl<L: Layout> Fixed for ScalableFilter<Hash, L> {
    fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        ScalableFilter::contains_hash_batch(self, hashes, out);
    }
    fn contains_hash(&self, hash: u64) -> bool {
        ScalableFilter::contains_hash(self, hash)
    }
    fn insert_hash(&mut self, hash: u64) -> bool {
        ScalableFilter::insert_hash(self, hash).unwrap_or(false)
    }
}

/// Adds `hashes` to a filter that takes at most `room` new keys, then refuses with `refusal`
/// at the first key it does not hold. One batch lookup first: it overlaps the cache misses,
/// and the inserts then find their blocks in cache.
fn insert_one_by_one(
    filter: &mut impl Fixed,
    mut room: usize,
    hashes: &[u64],
    new: &mut [bool],
    refusal: Refusal,
) -> Result<(), (usize, Refusal)> {
    filter.contains_hash_batch(hashes, new);
    for (index, (&hash, new)) in hashes.iter().zip(new.iter_mut()).enumerate() {
        if std::mem::take(new) {
            continue;
        }
        if room == 0 {
            if filter.contains_hash(hash) {
                continue;
            }
            return Err((index, refusal));
        }
        *new = filter.insert_hash(hash);
        room -= usize::from(*new);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::{Body, chain_parameters};
    use splitbloom::layout::{SplitBlock, Wide};

    fn hash(key: u64) -> u64 {
        splitbloom::FilterHasher::hash_bytes(&Hash::default(), &key.to_le_bytes())
    }

    /// Hashes of `count` keys, each key present twice in a row every seventh time.
    fn hashes(count: u64) -> Vec<u64> {
        (0..count)
            .flat_map(|key| {
                let hash = hash(key);
                if key % 7 == 0 {
                    vec![hash, hash]
                } else {
                    vec![hash]
                }
            })
            .collect()
    }

    /// Whatever the batch size, a chain's answers, stages and bits are those of inserting the
    /// keys one at a time, and every new stage was asked for first.
    #[test]
    fn batches_answer_as_inserting_one_at_a_time() {
        fn check<L: crate::bloom::ValueLayout>(rate: f64) {
            let hashes = hashes(5000);
            let parameters = chain_parameters(100, rate, 2);
            let mut reference =
                ScalableFilter::<Hash, L>::with_layout(parameters, Hash::default()).unwrap();
            let expected: Vec<bool> = hashes
                .iter()
                .map(|&hash| reference.insert_hash(hash).unwrap())
                .collect();
            for batch in [1, 7, 100, 1000, hashes.len()] {
                let mut sbf = Sbf::new(100, rate, Some(2)).unwrap();
                let mut asked = Vec::new();
                let mut answers = Vec::new();
                for chunk in hashes.chunks(batch) {
                    let mut new = vec![false; chunk.len()];
                    let mut may_allocate = |bytes| {
                        asked.push(bytes);
                        true
                    };
                    sbf.insert_hashes(chunk, &mut new, &mut may_allocate)
                        .unwrap();
                    answers.extend(new);
                }
                assert_eq!(answers, expected, "batches of {batch}");
                let Some(Filters::Chain(chain)) = L::filters(&sbf.body) else {
                    panic!("a chain")
                };
                assert_eq!(chain, &reference, "batches of {batch}");
                assert_eq!(sbf.items, reference.len() as u64);
                // Each stage after the first was checked before it was made.
                let made: Vec<u64> = chain.stages()[1..]
                    .iter()
                    .map(|stage| stage.size_in_bytes() as u64)
                    .collect();
                assert!(made.iter().all(|bytes| asked.contains(bytes)), "{batch}");
            }
        }
        check::<SplitBlock>(0.01);
        check::<Wide>(1e-4);
    }

    /// A stage the limits refuse stops the batch at the first key no stage holds: the keys
    /// before it answered and in, nothing after it.
    #[test]
    fn a_refused_stage_stops_the_batch_at_the_first_new_key() {
        let hashes = hashes(150);
        let mut sbf = Sbf::new(100, 0.01, Some(2)).unwrap();
        let first: Vec<u64> = hashes.iter().copied().take(80).collect();
        let mut new = vec![false; first.len()];
        sbf.insert_hashes(&first, &mut new, &mut |_| true).unwrap();
        let added = sbf.items;
        // The 100 - added keys with room, then already-present keys, then one more new key.
        let room = (100 - added) as usize;
        let fresh: Vec<u64> = (0..room as u64 + 1)
            .map(|key| hash(key + 1_000_000))
            .collect();
        let batch: Vec<u64> = fresh[..room]
            .iter()
            .chain(&first[..10])
            .chain(&fresh[room..])
            .copied()
            .collect();
        let mut new = vec![false; batch.len()];
        let refused = sbf.insert_hashes(&batch, &mut new, &mut |_| false);
        assert_eq!(refused, Err((room + 10, Refusal::NoMemory)));
        assert!(new[..room].iter().all(|&new| new));
        assert!(new[room..room + 10].iter().all(|&new| !new));
        assert_eq!(sbf.items, 100);
        let mut found = vec![false; batch.len()];
        sbf.contains_hash_batch(&batch, &mut found);
        assert!(found[..room + 10].iter().all(|&found| found));
        assert!(!found[room + 10]);
        // A NONSCALING chain refuses as full, and a plain NONSCALING value too.
        sbf.scaling = false;
        assert_eq!(
            sbf.insert_hashes(&batch[room + 10..], &mut new[..1], &mut |_| true),
            Err((0, Refusal::Full))
        );
        let mut plain = Sbf::new(10, 0.01, None).unwrap();
        let fresh: Vec<u64> = (0..12).map(|key| hash(key + 2_000_000)).collect();
        let mut new = vec![false; 12];
        assert_eq!(
            plain.insert_hashes(&fresh, &mut new, &mut |_| true),
            Err((10, Refusal::Full))
        );
        assert_eq!(plain.items, 10);
        assert!(matches!(plain.body, Body::Split(Filters::Plain(_))));
    }
}
