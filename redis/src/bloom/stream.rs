//! The byte stream of `SCANDUMP`/`LOADCHUNK` and AOF rewrites, after the header ([`Meta`]):
//! every stage's bitset, oldest stage first, in chunks of at most 16 MiB that never cross a
//! stage. Each chunk is its bitset bytes followed by the XXH3-64 of them seeded with the
//! chunk's offset in the stream, so a chunk is checked, and bound to its place, on its own: a
//! whole-stage checksum would make the first chunk of a 200 MB stage hash all of it while every
//! other client waits.

use std::borrow::Cow;

use super::meta::{Meta, STAGE_HEADER};
use super::{Body, Restore, Sbf};
use crate::bloom::chain::Chain;
use crate::bloom::stage::Part;

/// The largest chunk `SCANDUMP` returns, as RedisBloom's (16 MiB): small enough that building
/// and sending one reply stalls other clients for milliseconds, not for the whole filter.
pub const MAX_CHUNK: usize = 16 << 20;

/// Bytes of a chunk's checksum, after its bitset bytes.
const CHECK: usize = 8;

/// Bitset bytes in a full chunk.
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
    /// The stream's chunk at `offset` (past the header): at most [`MAX_CHUNK`] bytes, never
    /// across a stage, ending with its checksum; from the middle of a chunk, the rest of it.
    /// `None` at or past the end of what the value holds (for a restore in progress: what it
    /// has received).
    pub fn chunk_at(&self, offset: u64) -> Option<Vec<u8>> {
        let partial: &[u8] = match &self.body {
            Body::Restoring(restore) => restore.partial.get(STAGE_HEADER..).unwrap_or(&[]),
            _ => &[],
        };
        let mut start = 0u64;
        for stage in self.stored_stages() {
            let bitset = stage.size_in_bytes();
            let len = wire_len(bitset as u64);
            if offset < start + len {
                return Some(wire_chunk(start, offset - start, bitset, |from, to| {
                    stage.bitset_bytes(from, to)
                }));
            }
            start += len;
        }
        let within = offset.checked_sub(start)?;
        (within < wire_len(partial.len() as u64)).then(|| {
            wire_chunk(start, within, partial.len(), |from, to| {
                Cow::Borrowed(&partial[from..to])
            })
        })
    }

    /// A value from its header, every stage it has and the bitset bytes of the next (the RDB
    /// keeps a restore in progress that way): complete when every stage is there.
    pub fn assemble(meta: Meta, stages: Vec<Part>, partial: &[u8]) -> Result<Sbf, String> {
        let mut restore = Restore {
            meta,
            done: Vec::new(),
            partial: Vec::new(),
        };
        for (index, stage) in stages.into_iter().enumerate() {
            let bits = stage.bits();
            if index >= restore.meta.stage_blocks.len()
                || bits.num_blocks() as u64 != restore.meta.stage_blocks[index]
                || bits.layout() != restore.meta.layout
                || bits.probes() != restore.meta.stage_probes[index]
            {
                return Err(format!("stage {index} does not match its header"));
            }
            restore.done.push(stage);
        }
        let mut sbf = Sbf::restoring(restore);
        for chunk in partial.chunks(MAX_PAYLOAD) {
            sbf.push_bitset(chunk)?;
        }
        sbf.finish_if_complete()?;
        Ok(sbf)
    }

    /// A value that will be filled by `LOADCHUNK`.
    pub fn restoring(restore: Restore) -> Sbf {
        Sbf {
            scaling: restore.meta.scaling,
            capacity: restore.meta.capacity,
            error_rate: restore.meta.error_rate,
            items: restore.meta.items,
            body: Body::Restoring(restore),
        }
    }

    /// The offset in the stream (past the header) where the next `LOADCHUNK` must start.
    pub fn restore_offset(&self) -> Option<u64> {
        let Body::Restoring(restore) = &self.body else {
            return None;
        };
        let done: u64 = restore.meta.stage_blocks[..restore.done.len()]
            .iter()
            .map(|&blocks| wire_len(restore.meta.stage_len(blocks)))
            .sum();
        let received = restore.partial.len().saturating_sub(STAGE_HEADER) as u64;
        Some(done + wire_len(received))
    }

    /// Bitset bytes of the stage the next chunk of a restore starts, when it starts one (it is
    /// allocated whole then): what `LOADCHUNK` checks against the limits first.
    pub fn next_stage_len(&self) -> Option<u64> {
        let Body::Restoring(restore) = &self.body else {
            return None;
        };
        if !restore.partial.is_empty() {
            return None;
        }
        let blocks = restore.meta.stage_blocks.get(restore.done.len())?;
        Some(restore.meta.stage_len(*blocks))
    }

    /// Takes the stream's chunk at `offset` (which [`restore_offset`](Sbf::restore_offset)
    /// gave): its checksum must match, and it must be the whole next chunk of its stage.
    pub fn push_chunk(&mut self, offset: u64, chunk: &[u8]) -> Result<(), String> {
        let Some(payload_len) = chunk.len().checked_sub(CHECK).filter(|&len| len > 0) else {
            return Err(BAD_CHUNK.into());
        };
        let (payload, check) = chunk.split_at(payload_len);
        if xxhash_rust::xxh3::xxh3_64_with_seed(payload, offset).to_le_bytes() != check {
            return Err(BAD_CHUNK.into());
        }
        self.push_bitset(payload)
    }

    /// Appends bitset bytes to a restore in progress, a chunk's worth at a time (the whole
    /// next chunk of the current stage); a stage whose bytes are complete becomes a filter.
    /// Errors (the value unchanged) on bytes that are not that chunk.
    pub fn push_bitset(&mut self, bytes: &[u8]) -> Result<(), String> {
        let Body::Restoring(restore) = &mut self.body else {
            return Err("the filter is not being restored".into());
        };
        let index = restore.done.len();
        let Some(&blocks) = restore.meta.stage_blocks.get(index) else {
            return Err(TOO_BIG.into());
        };
        let bitset = restore.meta.stage_len(blocks) as usize;
        if restore.partial.is_empty() {
            restore
                .partial
                .try_reserve_exact(STAGE_HEADER + bitset)
                .map_err(|_| format!("cannot allocate {bitset} bytes"))?;
            restore
                .partial
                .extend_from_slice(&restore.meta.stage_header(index));
        }
        let received = restore.partial.len() - STAGE_HEADER;
        if bytes.len() != MAX_PAYLOAD.min(bitset - received) {
            return Err(TOO_BIG.into());
        }
        restore.partial.extend_from_slice(bytes);
        if restore.partial.len() == STAGE_HEADER + bitset {
            let stage = Part::from_trusted_bytes(&restore.partial).map_err(|error| {
                restore.partial.truncate(STAGE_HEADER + received);
                format!(
                    "stage {} does not make a filter: {error}",
                    restore.done.len()
                )
            })?;
            restore.done.push(stage);
            restore.partial = Vec::new();
        }
        Ok(())
    }

    /// Turns a restore whose stages are all there into the value they make. On stages that
    /// do not make a filter together, the restore starts over (header kept, no stages).
    pub fn finish_if_complete(&mut self) -> Result<(), String> {
        let Body::Restoring(restore) = &mut self.body else {
            return Ok(());
        };
        if restore.done.len() < restore.meta.stage_blocks.len() {
            return Ok(());
        }
        let meta = restore.meta.clone();
        let mut done = std::mem::take(&mut restore.done);
        self.body = if meta.plain {
            Body::Plain(done.pop().expect("one stage"))
        } else {
            let items_in_last_stage = usize::try_from(meta.items_in_last_stage)
                .map_err(|_| "bad item count".to_string())?;
            Body::Chain(
                Chain::from_stages(meta.parameters, done, items_in_last_stage)
                    .map_err(|error| format!("stages do not make a filter: {error}"))?,
            )
        };
        Ok(())
    }
}

/// The chunk of a stage's stream (the stage starting at `start` in the stream, `bitset` bytes
/// long, read through `bytes`) that holds the stage's stream offset `within`, from there on.
fn wire_chunk<'a>(
    start: u64,
    within: u64,
    bitset: usize,
    bytes: impl Fn(usize, usize) -> Cow<'a, [u8]>,
) -> Vec<u8> {
    let index = (within / MAX_CHUNK as u64) as usize;
    let from = index * MAX_PAYLOAD;
    let to = bitset.min(from + MAX_PAYLOAD);
    let payload = bytes(from, to);
    let check = xxhash_rust::xxh3::xxh3_64_with_seed(&payload, start + (index * MAX_CHUNK) as u64);
    let skip = (within - (index * MAX_CHUNK) as u64) as usize;
    let mut out = Vec::with_capacity(payload.len() + CHECK - skip.min(payload.len() + CHECK));
    if skip < payload.len() {
        out.extend_from_slice(&payload[skip..]);
        out.extend_from_slice(&check.to_le_bytes());
    } else {
        out.extend_from_slice(&check.to_le_bytes()[skip - payload.len()..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::stage::Part;

    /// A wide value's stream restores the same filter, chunk by chunk.
    #[test]
    fn a_wide_value_streams_back_whole() {
        let mut sbf = Sbf::nonscaling(50_000, 1e-5).unwrap();
        let Body::Plain(Part::Wide(filter)) = &mut sbf.body else {
            panic!("not wide")
        };
        for key in 0..1000u32 {
            filter.insert_bytes(&key.to_le_bytes());
        }
        let meta = Meta::decode(&sbf.meta().encode()).unwrap();
        let mut copy = Sbf::restoring(Restore {
            meta,
            done: Vec::new(),
            partial: Vec::new(),
        });
        let mut offset = 0;
        while let Some(chunk) = sbf.chunk_at(offset) {
            copy.push_chunk(offset, &chunk).unwrap();
            offset += chunk.len() as u64;
        }
        copy.finish_if_complete().unwrap();
        let (Body::Plain(Part::Wide(left)), Body::Plain(Part::Wide(right))) =
            (&sbf.body, &copy.body)
        else {
            panic!("not wide")
        };
        assert_eq!(left, right);
    }
}
