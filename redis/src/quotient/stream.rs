//! A deletable value's byte stream for `CF.SCANDUMP`/`CF.LOADCHUNK`, the RDB and AOF rewrites:
//! its header ([`Meta`]), then every stage's blocks in [`crate::stream`]'s chunks, through the
//! crate's `QuotientFilter::block_bytes` and `load_block_bytes` (which validates every block
//! as it arrives and keeps the stage's count of keys exact), so that a chunk costs its own
//! bytes, never a pass over its whole stage.

use std::borrow::Cow;
use std::ops::Range;

use splitbloom::FilterHasher;

use super::meta::BadHeader;
use super::{Body, Deletable, Meta, Stage};
use crate::Hash;
use crate::stream::{Chunked, Filling, NOT_NEXT, Received, check_chunk, chunk_at, whole_chunk_at};

/// A stage's blocks, through the crate's `block_bytes`.
impl Chunked for Stage {
    fn stream_len(&self) -> usize {
        self.size_in_bytes()
    }

    fn stream_bytes(&self, range: Range<usize>) -> Option<Cow<'_, [u8]>> {
        self.block_bytes(range).ok().map(Cow::Borrowed)
    }
}

/// A restore fills the stage itself, each chunk's blocks validated as they arrive: it is done
/// when its bytes are.
impl Filling for Stage {
    type Stage = Self;

    fn load_stream_bytes(&mut self, offset: usize, bytes: &[u8]) -> Result<(), String> {
        self.load_block_bytes(offset, bytes)
            .map_err(|error| error.to_string())
    }

    fn finish(self) -> Result<Self, (Self, String)> {
        Ok(self)
    }
}

impl Meta {
    /// Stage `index` of this reservation, empty, as a restore receives it (the caller checked
    /// the limits).
    fn incoming_stage(&self, index: usize) -> Result<Stage, String> {
        let blocks = self.stage_blocks.get(index).copied().ok_or(NOT_NEXT)?;
        let blocks = usize::try_from(blocks).map_err(|_| NOT_NEXT)?;
        Stage::with_num_blocks_and_hasher(blocks, self.tag_bits, Hash::with_seed(self.seed))
            .map_err(|error| error.to_string())
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
    use splitbloom::TagBits;

    use super::*;

    /// A stage goes out in chunks and comes back in bit for bit with its count of keys; a chunk
    /// with an invalid block, or not whole blocks, is refused, and the right chunk is taken
    /// after it.
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
        let mut incoming =
            Stage::with_num_blocks_and_hasher(4, TagBits::Eight, Hash::with_seed(7)).unwrap();
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
