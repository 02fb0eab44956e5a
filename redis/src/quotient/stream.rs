//! A deletable value's byte stream for `CF.SCANDUMP`/`CF.LOADCHUNK`, the RDB and AOF rewrites:
//! its header ([`Meta`]), then every stage's blocks in [`crate::stream`]'s chunks. The crate
//! gives a `QuotientFilter`'s blocks out and in only as its whole `SBLM` bytes, so a stage goes
//! out cut from those, and comes in as those bytes ([`IncomingStage`]), each chunk validated as
//! it arrives, then read as the stage once all are there.

use std::borrow::Cow;
use std::ops::Range;

use splitbloom::format::HEADER_BYTES;
use splitbloom::math::quotient::QUOTIENT_BLOCK_BYTES;
use splitbloom::{FilterHasher, QuotientFilterRef, TagBits};

use super::meta::BadHeader;
use super::{Body, Deletable, Meta, Stage};
use crate::Hash;
use crate::stream::{Chunked, Filling, NOT_NEXT, Received, check_chunk, chunk_at, whole_chunk_at};

/// A stage's blocks out, cut from what [`QuotientFilter::write_to`] writes (its `SBLM` bytes,
/// `docs/FORMAT.md`), the only public way out of a `QuotientFilter`'s blocks: nothing is
/// copied whole, but each chunk costs a pass over the whole stage (its checksum comes first).
impl Chunked for Stage {
    fn stream_len(&self) -> usize {
        self.size_in_bytes()
    }

    fn stream_bytes(&self, range: Range<usize>) -> Option<Cow<'_, [u8]>> {
        let start = HEADER_BYTES.checked_add(range.start)?;
        let end = HEADER_BYTES.checked_add(range.end)?;
        let mut window = Window {
            start,
            end,
            at: 0,
            out: Vec::with_capacity(range.len()),
        };
        // The writer stops the stream with an error once it has its range.
        let _ = self.write_to(&mut window);
        (window.out.len() == range.len()).then_some(Cow::Owned(window.out))
    }
}

/// A writer that keeps the bytes `start..end` of what is written to it, and stops the writing
/// once it has them.
struct Window {
    start: usize,
    end: usize,
    at: usize,
    out: Vec<u8>,
}

impl std::io::Write for Window {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.at >= self.end {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        let from = self.start.clamp(self.at, self.at + buf.len()) - self.at;
        let to = self.end.clamp(self.at, self.at + buf.len()) - self.at;
        self.out.extend_from_slice(&buf[from..to]);
        self.at += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A stage as a restore receives it: the header of its `SBLM` bytes, then the blocks received so
/// far, each chunk's blocks validated as they arrive; once all are there, the checksum is written
/// and the bytes are read as the stage (every block validated again, the tags counted).
#[derive(Clone, Debug)]
pub struct IncomingStage {
    bytes: Vec<u8>,
    /// Bytes of the stage's blocks, all of them.
    len: usize,
}

/// Bytes of an `SBLM` header before its block count: magic, version, hasher, layout and seed.
const HEADER_PREFIX: usize = 16;
/// Where the header's checksum starts.
const CHECKSUM_AT: usize = 24;

impl IncomingStage {
    /// An empty one for `blocks` blocks of `tag_bits` tags hashed with `seed`, its bytes
    /// reserved whole (the caller checked the limits).
    pub fn new(tag_bits: TagBits, seed: u64, blocks: usize) -> Result<IncomingStage, String> {
        // The header's fixed fields, as the crate writes them for one block of this shape.
        let one = Stage::with_num_blocks_and_hasher(1, tag_bits, Hash::with_seed(seed))
            .map_err(|error| error.to_string())?
            .to_bytes();
        let len = blocks
            .checked_mul(QUOTIENT_BLOCK_BYTES)
            .ok_or("a stage past the address space")?;
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(HEADER_BYTES + len)
            .map_err(|error| error.to_string())?;
        bytes.extend_from_slice(&one[..HEADER_PREFIX]);
        bytes.extend_from_slice(&(blocks as u64).to_le_bytes());
        bytes.extend_from_slice(&[0; HEADER_BYTES - CHECKSUM_AT]);
        Ok(IncomingStage { bytes, len })
    }

    /// Bytes allocated (what `MEMORY USAGE` counts).
    pub fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

impl Chunked for IncomingStage {
    fn stream_len(&self) -> usize {
        self.len
    }

    fn stream_bytes(&self, range: Range<usize>) -> Option<Cow<'_, [u8]>> {
        let start = HEADER_BYTES.checked_add(range.start)?;
        let end = HEADER_BYTES.checked_add(range.end)?;
        self.bytes.get(start..end).map(Cow::Borrowed)
    }
}

impl Filling for IncomingStage {
    type Stage = Stage;

    /// Validates the chunk's blocks as a filter of their own (the stage's header with their
    /// count, checksummed), then appends them at `offset`, dropping any bytes past it.
    fn load_stream_bytes(&mut self, offset: usize, chunk: &[u8]) -> Result<(), String> {
        let at = HEADER_BYTES.saturating_add(offset);
        let end = offset.checked_add(chunk.len());
        if at > self.bytes.len() || end.is_none_or(|end| end > self.len) {
            return Err(NOT_NEXT.into());
        }
        if chunk.is_empty() || !chunk.len().is_multiple_of(QUOTIENT_BLOCK_BYTES) {
            return Err(NOT_NEXT.into());
        }
        let blocks = (chunk.len() / QUOTIENT_BLOCK_BYTES) as u64;
        let mut alone = Vec::new();
        alone
            .try_reserve_exact(HEADER_BYTES + chunk.len())
            .map_err(|error| error.to_string())?;
        alone.extend_from_slice(&self.bytes[..HEADER_PREFIX]);
        alone.extend_from_slice(&blocks.to_le_bytes());
        alone.extend_from_slice(&checksum(&alone, chunk).to_le_bytes());
        alone.extend_from_slice(chunk);
        QuotientFilterRef::<Hash>::from_bytes_with_hasher_type(&alone)
            .map_err(|error| error.to_string())?;
        self.bytes.truncate(at);
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    fn finish(mut self) -> Result<Stage, (Self, String)> {
        let (header, blocks) = self.bytes.split_at(HEADER_BYTES);
        let sum = checksum(&header[..CHECKSUM_AT], blocks);
        self.bytes[CHECKSUM_AT..HEADER_BYTES].copy_from_slice(&sum.to_le_bytes());
        match Stage::from_bytes_with_hasher_type(&self.bytes) {
            Ok(stage) => Ok(stage),
            Err(error) => Err((self, error.to_string())),
        }
    }
}

/// An `SBLM` checksum: the XXH3-64 (seed 0) of the header's first 24 bytes, then the blocks.
fn checksum(header: &[u8], blocks: &[u8]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&header[..CHECKSUM_AT]);
    hasher.update(blocks);
    hasher.digest()
}

impl Meta {
    /// Stage `index` of this reservation as a restore receives it.
    fn incoming_stage(&self, index: usize) -> Result<IncomingStage, String> {
        let blocks = self.stage_blocks.get(index).copied().ok_or(NOT_NEXT)?;
        let blocks = usize::try_from(blocks).map_err(|_| NOT_NEXT)?;
        IncomingStage::new(self.tag_bits, self.seed, blocks)
    }
}

/// The stream of `CF.SCANDUMP`/`CF.LOADCHUNK`, the RDB and the AOF.
impl Deletable {
    /// A value that `CF.LOADCHUNK` will fill, from its header.
    pub fn restoring(meta: Meta) -> Deletable {
        Deletable {
            body: Body::Restoring(Received::default()),
            meta,
        }
    }

    /// A value from a header's bytes, or why it cannot be one.
    pub fn from_header(bytes: &[u8]) -> Result<Deletable, BadHeader> {
        Meta::decode(bytes).map(Deletable::restoring)
    }

    /// The stream's chunk at `offset` (past the header).
    pub fn chunk_at(&self, offset: u64) -> Option<Vec<u8>> {
        match &self.body {
            Body::Stages(stages) => whole_chunk_at(stages, offset),
            Body::Restoring(received) => {
                chunk_at(&received.done, received.partial.as_ref(), offset)
            }
        }
    }

    /// The offset where the next chunk of a restore starts; `None` unless restoring.
    pub fn restore_offset(&self) -> Option<u64> {
        match &self.body {
            Body::Restoring(received) => Some(received.offset(&self.meta.stage_lens())),
            Body::Stages(_) => None,
        }
    }

    /// Bytes of the stage the next chunk of a restore allocates, if it starts one.
    pub fn next_stage_len(&self) -> Option<u64> {
        match &self.body {
            Body::Restoring(received) => received.next_stage_len(&self.meta.stage_lens()),
            Body::Stages(_) => None,
        }
    }

    /// Takes the chunk at `offset`, which must be the next one, checksum and every block
    /// checked; a restore whose stages are all there becomes the value.
    pub fn push_chunk(&mut self, offset: u64, chunk: &[u8]) -> Result<(), String> {
        let payload = check_chunk(offset, chunk)?;
        self.push_blocks(payload)
    }

    fn push_blocks(&mut self, bytes: &[u8]) -> Result<(), String> {
        let Body::Restoring(received) = &mut self.body else {
            return Err("the filter is not being restored".into());
        };
        let meta = &self.meta;
        received.push(bytes, &meta.stage_lens(), |index| {
            meta.incoming_stage(index)
        })?;
        self.finish_if_complete();
        Ok(())
    }

    fn finish_if_complete(&mut self) {
        if let Body::Restoring(received) = &mut self.body
            && received.done.len() == self.meta.stage_blocks.len()
        {
            self.body = Body::Stages(std::mem::take(&mut received.done));
        }
    }

    /// Takes stage `index` of a restore whole, as the crate's `SBLM` bytes (checksummed, every
    /// block validated), once its shape is the header's.
    pub fn push_stage(&mut self, index: usize, bytes: &[u8]) -> Result<(), String> {
        let Body::Restoring(received) = &mut self.body else {
            return Err("the filter is not being restored".into());
        };
        let stage = Stage::from_bytes_with_hasher_type(bytes)
            .map_err(|error| format!("bad stage in RDB: {error}"))?;
        let expected = self.meta.stage_blocks.get(index).copied();
        if index != received.done.len()
            || expected != Some(stage.num_blocks() as u64)
            || stage.tag_bits() != self.meta.tag_bits
            || stage.hasher().seed() != self.meta.seed
        {
            return Err(format!("stage {index} does not match its header"));
        }
        received.done.push(stage);
        Ok(())
    }

    /// Takes the bytes the RDB kept of the next stage, then becomes the value when complete.
    pub fn push_partial(&mut self, partial: &[u8]) -> Result<(), String> {
        for chunk in partial.chunks(crate::stream::MAX_PAYLOAD) {
            self.push_blocks(chunk)?;
        }
        self.finish_if_complete();
        Ok(())
    }

    /// What the RDB keeps: every stage held whole, and the bytes of a stage held in part.
    pub fn stored_stages(&self) -> (&[Stage], Cow<'_, [u8]>) {
        match &self.body {
            Body::Stages(stages) => (stages, Cow::Borrowed(&[][..])),
            Body::Restoring(received) => (&received.done, received.partial_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stage goes out in chunks and comes back in bit for bit; a chunk with an invalid block
    /// is refused, and the right chunk is taken after it.
    #[test]
    fn a_stage_comes_back_chunk_by_chunk_and_a_bad_block_is_refused() {
        let mut stage =
            Stage::with_num_blocks_and_hasher(4, TagBits::Eight, Hash::with_seed(7)).unwrap();
        for key in 0..100u64 {
            stage
                .insert_copy_hash(key.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .unwrap();
        }
        let first = stage.stream_bytes(0..128).unwrap().into_owned();
        let second = stage.stream_bytes(128..256).unwrap().into_owned();
        assert!(stage.stream_bytes(128..320).is_none());
        let mut incoming = IncomingStage::new(TagBits::Eight, 7, 4).unwrap();
        incoming.load_stream_bytes(0, &first).unwrap();
        assert_eq!(incoming.stream_bytes(0..128).unwrap(), &first[..]);
        let mut bad = second.clone();
        bad[..64].fill(0xff);
        assert!(incoming.load_stream_bytes(128, &bad).is_err());
        assert!(incoming.load_stream_bytes(128, &second[..100]).is_err());
        assert!(incoming.load_stream_bytes(192, &second).is_err());
        incoming.load_stream_bytes(128, &second).unwrap();
        let restored = incoming.finish().unwrap();
        assert_eq!(restored.to_bytes(), stage.to_bytes());
        assert_eq!(restored.len(), 100);
    }
}
