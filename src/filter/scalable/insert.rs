//! [`ScalableFilter`]'s writes: a key found in some stage is not added again; a new one goes
//! into the newest stage, after a new stage is made when that one is full.

use crate::error::Error;
use crate::filter::{BloomFilter, Layout, ScalableFilter};

/// Hashes are probed this many at a time: the stages' batch lookups fill their prefetch
/// pipelines, and the answers stay on the stack.
const CHUNK: usize = 256;

write_methods! {
    type: {S: Clone, L: Layout} ScalableFilter {S, L},
    writer: exclusive,
    error: Error,
    // A key found in some stage is not added again; a new one goes into the newest stage.
    insert_one: |filter, hash| {
        if filter.contains_hash(hash) {
            return Ok(false);
        }
        filter.add_absent(hash)?;
        Ok(true)
    },
    insert_all: |filter, hashes| {
        let mut new = [false; CHUNK];
        for chunk in hashes.chunks(CHUNK) {
            filter
                .insert_chunk(chunk, &mut new[..chunk.len()])
                .map_err(|(_, error)| error)?;
        }
        Ok(())
    },
    setup: "let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;",
    lookup: "filter",
    note: "The key is hashed once for all stages; a key no stage holds goes into the newest \
           stage, after a new stage is made when that one holds its planned number. Errors, \
           leaving the filter unchanged, when that new stage cannot be made (it would exceed \
           [`math::MAX_BLOCKS`](crate::math::MAX_BLOCKS) or the allocator refuses it).",
    batch_note: "Every stage answers a chunk of 256 hashes in its batch path first (the \
                 answers are those of inserting in order, repeats within the batch included). \
                 Stops at the first error: the keys before it are in, the rest are not.",
    extend_note: "# Panics\n\nWhen a new stage cannot be made, as `Vec::extend` panics on \
                  capacity overflow: [`insert_batch`](ScalableFilter::insert_batch) gives that \
                  as an [`Error`] instead.",
}

impl<S: Clone, L: Layout> ScalableFilter<S, L> {
    /// Adds every hash of `hashes` and writes into `new[i]` what
    /// [`insert_hash`](Self::insert_hash) would have answered for `hashes[i]` inserted in
    /// order: `true` when it was newly added, `false` when some stage (or an earlier hash of
    /// the batch) already probably held it. The stages are probed a batch at a time, so this
    /// is the fast path for a caller that reports each key (a `BF.MADD`).
    ///
    /// Errors with `(processed, error)` when a needed new stage cannot be made: the hashes
    /// before index `processed` went in (their answers are written), the rest did not.
    ///
    /// # Panics
    ///
    /// When `new.len() != hashes.len()`.
    ///
    /// ```
    /// let mut filter = splitbloom::ScalableFilter::with_fpr(10, 0.01)?;
    /// let (a, b, c) = (0x9e37_79b9_7f4a_7c15, 0xc2b2_ae3d_27d4_eb4f, 0x1656_67b1_9e37_79f9);
    /// filter.insert_hash(b)?;
    /// let hashes = [a, b, c, a];
    /// let mut new = [false; 4];
    /// filter.insert_hash_batch_answers(&hashes, &mut new).map_err(|(_, error)| error)?;
    /// assert_eq!(new, [true, false, true, false]);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn insert_hash_batch_answers(
        &mut self,
        hashes: &[u64],
        new: &mut [bool],
    ) -> Result<(), (usize, Error)> {
        assert_eq!(
            new.len(),
            hashes.len(),
            "ScalableFilter::insert_hash_batch_answers: one answer per hash"
        );
        for (index, (hashes, new)) in hashes.chunks(CHUNK).zip(new.chunks_mut(CHUNK)).enumerate() {
            self.insert_chunk(hashes, new)
                .map_err(|(processed, error)| (index * CHUNK + processed, error))?;
        }
        Ok(())
    }

    /// [`insert_hash_batch_answers`](Self::insert_hash_batch_answers) for one chunk: every
    /// stage answers the whole chunk in its batch path, then each hash no stage held is
    /// checked again, one at a time, against the stages this chunk can have written (the
    /// newest at its start and any it added), which answers exactly as inserting in order
    /// would, since the older stages do not change.
    fn insert_chunk(&mut self, hashes: &[u64], new: &mut [bool]) -> Result<(), (usize, Error)> {
        self.stages_batch(hashes, new);
        let written_from = self.stages.len() - 1;
        for (index, (&hash, answer)) in hashes.iter().zip(new.iter_mut()).enumerate() {
            *answer = !*answer
                && !self.stages[written_from..]
                    .iter()
                    .any(|stage| stage.contains_hash(hash));
            if *answer {
                self.add_absent(hash).map_err(|error| (index, error))?;
            }
        }
        Ok(())
    }

    /// Adds a hash no stage holds to the newest stage, after making a new stage when that one
    /// is full. Errors, changing nothing, when that stage cannot be made.
    fn add_absent(&mut self, hash: u64) -> Result<(), Error> {
        if self.items_in_last_stage >= self.last_stage_capacity {
            let next = self.stages.len();
            let stage = Self::new_stage(&self.parameters, next, self.hasher.clone())?
                .with_kernel(self.kernel())?;
            self.stages
                .try_reserve(1)
                .map_err(|_| Error::AllocationFailed {
                    bytes: size_of::<BloomFilter<S, L>>(),
                })?;
            self.stages.push(stage);
            self.items_in_last_stage = 0;
            self.last_stage_capacity = self.parameters.stage_capacity(next);
        }
        self.newest_mut().insert_hash(hash);
        self.items_in_last_stage += 1;
        Ok(())
    }

    /// The newest stage.
    fn newest_mut(&mut self) -> &mut BloomFilter<S, L> {
        let newest = self.stages.len() - 1;
        &mut self.stages[newest]
    }
}
