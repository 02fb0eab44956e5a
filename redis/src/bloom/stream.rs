//! A value's byte stream for `SCANDUMP`/`LOADCHUNK`, the RDB and AOF rewrites: its header
//! ([`Meta`]), then every stage's bitset in [`crate::stream`]'s chunks, through the crate's
//! `BloomFilter::bitset_bytes` and `load_bitset_bytes`.

use std::borrow::Cow;
use std::ops::Range;

use splitbloom::layout::{SplitBlock, Wide};
use splitbloom::{Layout, LayoutKind, ScalableFilter};

use super::meta::{Meta, STAGE_HEADER};
use super::{Body, Filters, Restore, Sbf, Stage, ValueLayout, with_filters};
use crate::Hash;
use crate::stream::{Chunked, Filling, Received, check_chunk, chunk_at, whole_chunk_at};

/// A stage's bitset, through the crate's `bitset_bytes` and `load_bitset_bytes`.
impl<L: Layout> Chunked for Stage<L> {
    fn stream_len(&self) -> usize {
        self.size_in_bytes()
    }

    fn stream_bytes(&self, range: Range<usize>) -> Option<Cow<'_, [u8]>> {
        self.bitset_bytes(range).ok()
    }
}

/// A restore fills the stage itself: every bitset is valid, so it is done when its bytes are.
impl<L: Layout> Filling for Stage<L> {
    type Stage = Self;

    fn load_stream_bytes(&mut self, offset: usize, bytes: &[u8]) -> Result<(), String> {
        self.load_bitset_bytes(offset, bytes)
            .map_err(|error| error.to_string())
    }

    fn finish(self) -> Result<Self, (Self, String)> {
        Ok(self)
    }
}

impl Sbf {
    /// A value that `LOADCHUNK` will fill, of the layout its header names.
    pub fn restoring(meta: Meta) -> Sbf {
        fn empty<L: ValueLayout>(meta: Meta) -> Body {
            L::body(Filters::Restoring(Restore {
                meta,
                received: Received::default(),
            }))
        }
        let (scaling, capacity, error_rate, items) =
            (meta.scaling, meta.capacity, meta.error_rate, meta.items);
        let body = match meta.layout {
            LayoutKind::Wide => empty::<Wide>(meta),
            _ => empty::<SplitBlock>(meta),
        };
        Sbf {
            body,
            scaling,
            capacity,
            error_rate,
            items,
        }
    }

    /// The stream's chunk at `offset` (past the header); `None` at or past the end of what the
    /// value holds (for a restore in progress: what it has received).
    pub fn chunk_at(&self, offset: u64) -> Option<Vec<u8>> {
        with_filters!(&self.body, filters => match filters {
            Filters::Restoring(restore) => {
                chunk_at(&restore.received.done, restore.received.partial.as_ref(), offset)
            }
            filters => whole_chunk_at(filters.stages(), offset),
        })
    }

    /// The offset in the stream (past the header) where the next `LOADCHUNK` must start;
    /// `None` unless the value is being restored.
    pub fn restore_offset(&self) -> Option<u64> {
        with_filters!(&self.body, filters => match filters {
            Filters::Restoring(restore) => {
                Some(restore.received.offset(&restore.meta.stage_lens()))
            }
            _ => None,
        })
    }

    /// Bytes of the stage the next chunk of a restore starts, when it starts one (it is
    /// allocated whole then): what `LOADCHUNK` checks against the limits first.
    pub fn next_stage_len(&self) -> Option<u64> {
        with_filters!(&self.body, filters => match filters {
            Filters::Restoring(restore) => {
                restore.received.next_stage_len(&restore.meta.stage_lens())
            }
            _ => None,
        })
    }

    /// Takes the stream's chunk at `offset` (which [`restore_offset`](Sbf::restore_offset)
    /// gave): its checksum must match, and it must be the whole next chunk of its stage. A
    /// restore whose stages are then all there becomes the value they make.
    pub fn push_chunk(&mut self, offset: u64, chunk: &[u8]) -> Result<(), String> {
        let payload = check_chunk(offset, chunk)?;
        with_filters!(&mut self.body, filters => filters.push_bitset(payload))
    }

    /// Takes stage `index` of a restore whole, as the crate's `SBLM` bytes (the RDB keeps a
    /// restore in progress as its stages, then [`push_partial`](Sbf::push_partial)).
    pub fn push_stage(&mut self, index: usize, bytes: &[u8]) -> Result<(), String> {
        with_filters!(&mut self.body, filters => filters.push_stage(index, bytes))
    }

    /// Takes the bitset bytes a restore has of its next stage, then becomes the value its
    /// stages make when they are all there.
    pub fn push_partial(&mut self, partial: &[u8]) -> Result<(), String> {
        with_filters!(&mut self.body, filters => {
            if let Filters::Restoring(restore) = filters {
                let (meta, received) = (&restore.meta, &mut restore.received);
                received.push_partial(partial, &meta.stage_lens(), |index| meta.empty_stage(index))?;
            }
            filters.finish_if_complete()
        })
    }

    /// What the RDB keeps of the value: every stage it holds whole (for a restore, those
    /// received), and the bitset bytes of a stage a restore holds in part (empty otherwise).
    pub fn stored_stages(&self) -> (Vec<&dyn StageBytes>, Cow<'_, [u8]>) {
        with_filters!(&self.body, filters => {
            let (stages, partial) = match filters {
                Filters::Restoring(restore) => {
                    (&restore.received.done[..], restore.received.partial_bytes())
                }
                filters => (filters.stages(), Cow::Borrowed(&[][..])),
            };
            (stages.iter().map(|stage| stage as &dyn StageBytes).collect(), partial)
        })
    }
}

/// A stage's `SBLM` bytes (checksummed by the crate), whatever its layout.
pub trait StageBytes {
    fn to_bytes(&self) -> Vec<u8>;
}

impl<L: Layout> StageBytes for Stage<L> {
    fn to_bytes(&self) -> Vec<u8> {
        Stage::to_bytes(self)
    }
}

impl<L: ValueLayout> Filters<L> {
    /// Appends a chunk's bitset bytes to a restore in progress (see `stream::Received::push`);
    /// the value is finished when its last stage is whole.
    fn push_bitset(&mut self, bytes: &[u8]) -> Result<(), String> {
        let Filters::Restoring(restore) = self else {
            return Err("the filter is not being restored".into());
        };
        let (meta, received) = (&restore.meta, &mut restore.received);
        received.push(bytes, &meta.stage_lens(), |index| meta.empty_stage(index))?;
        self.finish_if_complete()
    }

    /// Turns a restore whose stages are all there into the value they make. On stages that do
    /// not make a filter together, the restore starts over (header kept, no stages).
    fn finish_if_complete(&mut self) -> Result<(), String> {
        let Filters::Restoring(restore) = self else {
            return Ok(());
        };
        if restore.received.done.len() < restore.meta.stage_blocks.len() {
            return Ok(());
        }
        let (plain, parameters) = (restore.meta.plain, restore.meta.parameters);
        let items_in_last_stage = usize::try_from(restore.meta.items_in_last_stage)
            .map_err(|_| "bad item count".to_string())?;
        let mut done = std::mem::take(&mut restore.received.done);
        *self = if plain {
            Filters::Plain(done.pop().ok_or("a plain filter has one stage")?)
        } else {
            Filters::Chain(
                ScalableFilter::from_stages(parameters, done, items_in_last_stage)
                    .map_err(|error| format!("stages do not make a filter: {error}"))?,
            )
        };
        Ok(())
    }

    /// Takes stage `index` whole, as the crate's `SBLM` bytes (checksummed), after checking
    /// that its header is the one the value's header gives it.
    fn push_stage(&mut self, index: usize, bytes: &[u8]) -> Result<(), String> {
        let Filters::Restoring(restore) = self else {
            return Err("the filter is not being restored".into());
        };
        let declared = index == restore.received.done.len()
            && index < restore.meta.stage_blocks.len()
            && bytes.get(..SHAPE) == Some(&restore.meta.stage_header(index)[..SHAPE]);
        if !declared {
            return Err(format!("stage {index} does not match its header"));
        }
        let stage = Stage::<L>::from_bytes_with_hasher_type(bytes)
            .map_err(|error| format!("bad filter in RDB: {error}"))?;
        restore.received.done.push(stage);
        Ok(())
    }
}

/// The bytes of an `SBLM` header that say what the filter is (magic, version, hasher, layout,
/// seed, blocks); its checksum comes after.
const SHAPE: usize = 24;
const _: () = assert!(SHAPE < STAGE_HEADER);

impl Meta {
    /// The empty stage `index` of this header, of layout `L`, allocated now.
    fn empty_stage<L: Layout>(&self, index: usize) -> Result<Stage<L>, String> {
        let layout = L::from_id(self.stage_ids[index])
            .ok_or_else(|| format!("stage {index}: not a {} layout", self.layout.name()))?;
        let blocks = usize::try_from(self.stage_blocks[index])
            .map_err(|_| format!("stage {index}: too many blocks"))?;
        Stage::with_layout(blocks, layout, Hash::with_seed(self.seed))
            .map_err(|error| format!("stage {index}: {error}"))
    }

    /// Bytes of each stage's bitset, oldest first.
    fn stage_lens(&self) -> Vec<u64> {
        let blocks = self.stage_blocks.iter();
        blocks.map(|&blocks| self.stage_len(blocks)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wide value's stream restores the same filter, chunk by chunk.
    #[test]
    fn a_wide_value_streams_back_whole() {
        let mut sbf = Sbf::new(50_000, 1e-5, None).unwrap();
        let Body::Wide(Filters::Plain(filter)) = &mut sbf.body else {
            panic!("not wide")
        };
        for key in 0..1000u32 {
            filter.insert_bytes(&key.to_le_bytes());
        }
        let mut copy = Sbf::restoring(Meta::decode(&sbf.meta().encode()).unwrap());
        let mut offset = 0;
        while let Some(chunk) = sbf.chunk_at(offset) {
            copy.push_chunk(offset, &chunk).unwrap();
            offset += chunk.len() as u64;
        }
        let (Body::Wide(Filters::Plain(left)), Body::Wide(Filters::Plain(right))) =
            (&sbf.body, &copy.body)
        else {
            panic!("not wide")
        };
        assert_eq!(left, right);
    }
}
