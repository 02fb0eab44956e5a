//! The byte stream of `SCANDUMP`/`LOADCHUNK` and AOF rewrites, after the header ([`Meta`]):
//! every stage's bitset, oldest stage first, in chunks of at most 16 MiB that never cross a
//! stage. Each chunk is its bitset bytes followed by the XXH3-64 of them seeded with the
//! chunk's offset in the stream, so a chunk is checked, and bound to its place, on its own: a
//! whole-stage checksum would make the first chunk of a 200 MB stage hash all of it while every
//! other client waits. A stage's bytes go out and back in through the crate's
//! `BloomFilter::bitset_bytes` and `load_bitset_bytes`, so nothing is copied whole.

use std::borrow::Cow;

use splitbloom::layout::{SplitBlock, Wide};
use splitbloom::{Layout, LayoutKind, ScalableFilter};

use super::meta::Meta;
use super::{Body, Filters, Restore, Sbf, Stage, ValueLayout, with_filters};
use crate::Hash;

/// The largest chunk `SCANDUMP` returns, as RedisBloom's (16 MiB): small enough that building
/// and sending one reply stalls other clients for milliseconds, not for the whole filter.
pub const MAX_CHUNK: usize = 16 << 20;

/// Bytes of a chunk's checksum, after its bitset bytes.
const CHECK: usize = 8;

/// Bitset bytes in a full chunk: whole words of either layout.
const MAX_PAYLOAD: usize = MAX_CHUNK - CHECK;

/// Bytes of a stage of `bitset` bytes in the stream: the bitset and one checksum per chunk.
fn wire_len(bitset: u64) -> u64 {
    bitset + CHECK as u64 * bitset.div_ceil(MAX_PAYLOAD as u64)
}

/// What `push_bitset` answers for bytes that are not the next chunk of the stream.
pub const TOO_BIG: &str = "not the next chunk of the filter";
/// What `push_chunk` answers for a chunk whose checksum does not match.
const BAD_CHUNK: &str = "chunk checksum mismatch";

impl Sbf {
    /// A value that `LOADCHUNK` will fill, of the layout its header names.
    pub fn restoring(meta: Meta) -> Sbf {
        fn empty<L: ValueLayout>(meta: Meta) -> Body {
            L::body(Filters::Restoring(Restore {
                meta,
                done: Vec::new(),
                partial: None,
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

    /// The stream's chunk at `offset` (past the header): at most [`MAX_CHUNK`] bytes, never
    /// across a stage, ending with its checksum; from the middle of a chunk, the rest of it.
    /// `None` at or past the end of what the value holds (for a restore in progress: what it
    /// has received).
    pub fn chunk_at(&self, offset: u64) -> Option<Vec<u8>> {
        with_filters!(&self.body, filters => filters.chunk_at(offset))
    }

    /// The offset in the stream (past the header) where the next `LOADCHUNK` must start;
    /// `None` unless the value is being restored.
    pub fn restore_offset(&self) -> Option<u64> {
        with_filters!(&self.body, filters => match filters {
            Filters::Restoring(restore) => Some(restore.offset()),
            _ => None,
        })
    }

    /// Bitset bytes of the stage the next chunk of a restore starts, when it starts one (it is
    /// allocated whole then): what `LOADCHUNK` checks against the limits first.
    pub fn next_stage_len(&self) -> Option<u64> {
        with_filters!(&self.body, filters => match filters {
            Filters::Restoring(restore) if restore.partial.is_none() => {
                let blocks = restore.meta.stage_blocks.get(restore.done.len())?;
                Some(restore.meta.stage_len(*blocks))
            }
            _ => None,
        })
    }

    /// Takes the stream's chunk at `offset` (which [`restore_offset`](Sbf::restore_offset)
    /// gave): its checksum must match, and it must be the whole next chunk of its stage. A
    /// restore whose stages are then all there becomes the value they make.
    pub fn push_chunk(&mut self, offset: u64, chunk: &[u8]) -> Result<(), String> {
        let Some(payload_len) = chunk.len().checked_sub(CHECK).filter(|&len| len > 0) else {
            return Err(BAD_CHUNK.into());
        };
        let (payload, check) = chunk.split_at(payload_len);
        if xxhash_rust::xxh3::xxh3_64_with_seed(payload, offset).to_le_bytes() != check {
            return Err(BAD_CHUNK.into());
        }
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
            for chunk in partial.chunks(MAX_PAYLOAD) {
                filters.push_bitset(chunk)?;
            }
            filters.finish_if_complete()
        })
    }

    /// What the RDB keeps of the value: every stage it holds whole (for a restore, those
    /// received), and the bitset bytes of a stage a restore holds in part (empty otherwise).
    pub fn stored_stages(&self) -> (Vec<&dyn StageBytes>, Cow<'_, [u8]>) {
        with_filters!(&self.body, filters => {
            let (stages, partial) = match filters {
                Filters::Restoring(restore) => (&restore.done[..], restore.partial.as_ref()),
                filters => (filters.stages(), None),
            };
            let partial = partial
                .and_then(|(stage, received)| stage.bitset_bytes(0..*received).ok())
                .unwrap_or_default();
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
    fn chunk_at(&self, offset: u64) -> Option<Vec<u8>> {
        let (stages, partial) = match self {
            Filters::Restoring(restore) => (&restore.done[..], restore.partial.as_ref()),
            _ => (self.stages(), None),
        };
        let mut start = 0u64;
        for stage in stages {
            let bitset = stage.size_in_bytes();
            let len = wire_len(bitset as u64);
            if offset < start + len {
                return wire_chunk(start, offset - start, bitset, stage);
            }
            start += len;
        }
        let (stage, received) = partial?;
        let within = offset.checked_sub(start)?;
        if within >= wire_len(*received as u64) {
            return None;
        }
        wire_chunk(start, within, *received, stage)
    }

    /// Appends bitset bytes to a restore in progress, a chunk's worth at a time (the whole next
    /// chunk of the current stage), allocating the stage with its first chunk; the value is
    /// finished when its last stage is whole. Errors, the value unchanged, on bytes that are
    /// not that chunk.
    fn push_bitset(&mut self, bytes: &[u8]) -> Result<(), String> {
        let Filters::Restoring(restore) = self else {
            return Err("the filter is not being restored".into());
        };
        let index = restore.done.len();
        let Some(&blocks) = restore.meta.stage_blocks.get(index) else {
            return Err(TOO_BIG.into());
        };
        let bitset = restore.meta.stage_len(blocks) as usize;
        let received = restore
            .partial
            .as_ref()
            .map_or(0, |(_, received)| *received);
        if bytes.len() != MAX_PAYLOAD.min(bitset - received) {
            return Err(TOO_BIG.into());
        }
        let (mut stage, received) = match restore.partial.take() {
            Some(partial) => partial,
            None => (restore.meta.empty_stage(index)?, 0),
        };
        let loaded = stage.load_bitset_bytes(received, bytes);
        let received = received + if loaded.is_ok() { bytes.len() } else { 0 };
        if received == bitset {
            restore.done.push(stage);
        } else {
            restore.partial = Some((stage, received));
        }
        loaded.map_err(|error| error.to_string())?;
        self.finish_if_complete()
    }

    /// Turns a restore whose stages are all there into the value they make. On stages that do
    /// not make a filter together, the restore starts over (header kept, no stages).
    fn finish_if_complete(&mut self) -> Result<(), String> {
        let Filters::Restoring(restore) = self else {
            return Ok(());
        };
        if restore.done.len() < restore.meta.stage_blocks.len() {
            return Ok(());
        }
        let (plain, parameters) = (restore.meta.plain, restore.meta.parameters);
        let items_in_last_stage = usize::try_from(restore.meta.items_in_last_stage)
            .map_err(|_| "bad item count".to_string())?;
        let mut done = std::mem::take(&mut restore.done);
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
        let declared = index == restore.done.len()
            && index < restore.meta.stage_blocks.len()
            && bytes.get(..SHAPE) == Some(&restore.meta.stage_header(index)[..SHAPE]);
        if !declared {
            return Err(format!("stage {index} does not match its header"));
        }
        let stage = Stage::<L>::from_bytes_with_hasher_type(bytes)
            .map_err(|error| format!("bad filter in RDB: {error}"))?;
        restore.done.push(stage);
        Ok(())
    }
}

impl<L: ValueLayout> Restore<L> {
    /// The offset in the stream (past the header) where the next chunk starts.
    fn offset(&self) -> u64 {
        let done: u64 = self.meta.stage_blocks[..self.done.len()]
            .iter()
            .map(|&blocks| wire_len(self.meta.stage_len(blocks)))
            .sum();
        let received = self.partial.as_ref().map_or(0, |(_, received)| *received);
        done + wire_len(received as u64)
    }
}

/// The bytes of an `SBLM` header that say what the filter is (magic, version, hasher, layout,
/// seed, blocks); its checksum comes after.
const SHAPE: usize = 24;

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
}

/// The chunk of a stage's stream (the stage starting at `start` in the stream, its first
/// `bitset` bytes read from `stage`) that holds the stage's stream offset `within`, from there
/// on; `None` if the stage cannot give those bytes (never for ranges of whole chunks).
fn wire_chunk<L: Layout>(
    start: u64,
    within: u64,
    bitset: usize,
    stage: &Stage<L>,
) -> Option<Vec<u8>> {
    let index = (within / MAX_CHUNK as u64) as usize;
    let from = index * MAX_PAYLOAD;
    let to = bitset.min(from + MAX_PAYLOAD);
    let payload = stage.bitset_bytes(from..to).ok()?;
    let check = xxhash_rust::xxh3::xxh3_64_with_seed(&payload, start + (index * MAX_CHUNK) as u64);
    let skip = (within - (index * MAX_CHUNK) as u64) as usize;
    let mut out = Vec::with_capacity(payload.len() + CHECK - skip.min(payload.len() + CHECK));
    if skip < payload.len() {
        out.extend_from_slice(&payload[skip..]);
        out.extend_from_slice(&check.to_le_bytes());
    } else {
        out.extend_from_slice(&check.to_le_bytes()[skip - payload.len()..]);
    }
    Some(out)
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
