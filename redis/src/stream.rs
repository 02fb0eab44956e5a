//! The chunked byte stream of every value made of stages (`SCANDUMP`/`LOADCHUNK`, AOF
//! rewrites, a restore in progress in the RDB), after the value's own header: each stage's
//! bytes, oldest stage first, in chunks of at most 16 MiB that never cross a stage. Each chunk
//! is its bytes followed by the XXH3-64 of them seeded with the chunk's offset in the stream,
//! so a chunk is checked, and bound to its place, on its own: a whole-stage checksum would make
//! the first chunk of a 200 MB stage hash all of it while every other client waits.
//!
//! A stage's bytes go out through [`Chunked`] and back in through [`Filling`], through the
//! crate's chunked accessors (a Bloom stage's bitset, a quotient stage's blocks), so nothing
//! is copied whole and every chunk is validated as it arrives.

use std::borrow::Cow;
use std::ops::Range;

/// The largest chunk `SCANDUMP` returns, as RedisBloom's (16 MiB): small enough that building
/// and sending one reply stalls other clients for milliseconds, not for the whole filter.
pub const MAX_CHUNK: usize = 16 << 20;

/// Bytes of a chunk's checksum, after its stage bytes.
const CHECK: usize = 8;

/// Stage bytes in a full chunk: whole 64-byte blocks, so that every stage type (words of 4 or 8
/// bytes, blocks of 32 or 64) is cut between whole blocks, and the checksum still fits.
pub const MAX_PAYLOAD: usize = MAX_CHUNK - 64;
/// Bytes of a full chunk in the stream: its stage bytes and its checksum.
const WIRE_CHUNK: usize = MAX_PAYLOAD + CHECK;
const _: () = assert!(WIRE_CHUNK <= MAX_CHUNK && MAX_PAYLOAD.is_multiple_of(64));

/// What a restore answers for bytes that are not the next chunk of the stream.
pub const NOT_NEXT: &str = "not the next chunk of the filter";
/// What a restore answers for a chunk whose checksum does not match.
const BAD_CHUNK: &str = "chunk checksum mismatch";

/// A stage whose bytes the stream carries.
pub trait Chunked: Sized {
    /// Bytes of the stage in the stream.
    fn stream_len(&self) -> usize;
    /// Its bytes `range` (whole chunks, or the end of the stage), as the format stores them.
    fn stream_bytes(&self, range: Range<usize>) -> Option<Cow<'_, [u8]>>;
}

/// A stage a restore fills chunk by chunk, in order, then turns into the stage that answers.
pub trait Filling: Chunked {
    /// What the filled stage becomes.
    type Stage: Chunked;
    /// Writes `bytes` at `offset`, validated as the stage's format requires; an error changes
    /// nothing of the first `offset` bytes.
    fn load_stream_bytes(&mut self, offset: usize, bytes: &[u8]) -> Result<(), String>;
    /// The stage, once all its bytes are in; on an error, itself and why.
    fn finish(self) -> Result<Self::Stage, (Self, String)>;
}

/// Bytes of a stage of `len` bytes in the stream: the stage and one checksum per chunk.
pub fn wire_len(len: u64) -> u64 {
    len + CHECK as u64 * len.div_ceil(MAX_PAYLOAD as u64)
}

/// The stream's chunk at `offset`, over `stages` and the first `received` bytes of a stage a
/// restore holds in part: at most [`MAX_CHUNK`] bytes, never across a stage, ending with its
/// checksum; from the middle of a chunk, the rest of it. `None` at or past the end.
pub fn chunk_at<S: Chunked, P: Chunked>(
    stages: &[S],
    partial: Option<&(P, usize)>,
    offset: u64,
) -> Option<Vec<u8>> {
    let mut start = 0u64;
    for stage in stages {
        let len = stage.stream_len();
        let wire = wire_len(len as u64);
        if offset < start + wire {
            return wire_chunk(start, offset - start, len, stage);
        }
        start += wire;
    }
    let (stage, received) = partial?;
    let within = offset.checked_sub(start)?;
    if within >= wire_len(*received as u64) {
        return None;
    }
    wire_chunk(start, within, *received, stage)
}

/// [`chunk_at`] of stages that are all whole.
pub fn whole_chunk_at<S: Chunked>(stages: &[S], offset: u64) -> Option<Vec<u8>> {
    chunk_at::<S, S>(stages, None, offset)
}

/// The payload of the chunk at `offset`: its bytes, once its checksum matches.
pub fn check_chunk(offset: u64, chunk: &[u8]) -> Result<&[u8], String> {
    let Some(len) = chunk.len().checked_sub(CHECK).filter(|&len| len > 0) else {
        return Err(BAD_CHUNK.into());
    };
    let (payload, check) = chunk.split_at(len);
    if xxhash_rust::xxh3::xxh3_64_with_seed(payload, offset).to_le_bytes() != check {
        return Err(BAD_CHUNK.into());
    }
    Ok(payload)
}

/// The stages a restore has received: those whole, oldest first, and the next one, allocated
/// when its first chunk came, with the bytes it has received.
#[derive(Clone, Debug)]
pub struct Received<P: Filling> {
    pub done: Vec<P::Stage>,
    pub partial: Option<(P, usize)>,
}

impl<P: Filling> Default for Received<P> {
    fn default() -> Self {
        Received {
            done: Vec::new(),
            partial: None,
        }
    }
}

impl<P: Filling> Received<P> {
    /// The offset in the stream where the next chunk starts, `lens` giving each stage's bytes.
    pub fn offset(&self, lens: &[u64]) -> u64 {
        let done: u64 = lens[..self.done.len()]
            .iter()
            .map(|&len| wire_len(len))
            .sum();
        let received = self.partial.as_ref().map_or(0, |(_, received)| *received);
        done + wire_len(received as u64)
    }

    /// Bytes of the stage the next chunk starts, when it starts one (it is allocated whole
    /// then): what a command checks against the limits first.
    pub fn next_stage_len(&self, lens: &[u64]) -> Option<u64> {
        match self.partial {
            Some(_) => None,
            None => lens.get(self.done.len()).copied(),
        }
    }

    /// Appends the next chunk's bytes (the whole next chunk of the current stage), allocating
    /// the stage with `make(index)` when this is its first chunk; a stage whose bytes are all
    /// there is finished and moves to [`done`](Received::done). Errors, the stream where it
    /// was, on bytes that are not that chunk or that the stage refuses.
    pub fn push(
        &mut self,
        bytes: &[u8],
        lens: &[u64],
        make: impl FnOnce(usize) -> Result<P, String>,
    ) -> Result<(), String> {
        let index = self.done.len();
        let len = lens
            .get(index)
            .and_then(|&len| usize::try_from(len).ok())
            .ok_or(NOT_NEXT)?;
        let received = self.partial.as_ref().map_or(0, |(_, received)| *received);
        if bytes.len() != MAX_PAYLOAD.min(len - received) {
            return Err(NOT_NEXT.into());
        }
        let (mut stage, received) = match self.partial.take() {
            Some(partial) => partial,
            None => (make(index)?, 0),
        };
        if let Err(why) = stage.load_stream_bytes(received, bytes) {
            self.partial = Some((stage, received));
            return Err(why);
        }
        if received + bytes.len() < len {
            self.partial = Some((stage, received + bytes.len()));
            return Ok(());
        }
        match stage.finish() {
            Ok(stage) => {
                self.done.push(stage);
                Ok(())
            }
            Err((stage, why)) => {
                self.partial = Some((stage, received));
                Err(why)
            }
        }
    }

    /// The first `received` bytes of the stage held in part (empty without one).
    pub fn partial_bytes(&self) -> Cow<'_, [u8]> {
        self.partial
            .as_ref()
            .and_then(|(stage, received)| stage.stream_bytes(0..*received))
            .unwrap_or_default()
    }

    /// Takes the partial bytes the RDB kept for the next stage, a chunk's worth at a time.
    pub fn push_partial(
        &mut self,
        partial: &[u8],
        lens: &[u64],
        mut make: impl FnMut(usize) -> Result<P, String>,
    ) -> Result<(), String> {
        for chunk in partial.chunks(MAX_PAYLOAD) {
            self.push(chunk, lens, &mut make)?;
        }
        Ok(())
    }
}

/// The chunk of a stage's stream (the stage starting at `start` in the stream, its first `len`
/// bytes read from `stage`) that holds the stage's stream offset `within`, from there on;
/// `None` if the stage cannot give those bytes (never for ranges of whole chunks).
fn wire_chunk<S: Chunked>(start: u64, within: u64, len: usize, stage: &S) -> Option<Vec<u8>> {
    let index = (within / WIRE_CHUNK as u64) as usize;
    let from = index * MAX_PAYLOAD;
    let to = len.min(from + MAX_PAYLOAD);
    let payload = stage.stream_bytes(from..to)?;
    let at = (index * WIRE_CHUNK) as u64;
    let check = xxhash_rust::xxh3::xxh3_64_with_seed(&payload, start + at);
    let skip = (within - at) as usize;
    let mut out = Vec::with_capacity(payload.len() + CHECK - skip.min(payload.len() + CHECK));
    if skip < payload.len() {
        out.extend_from_slice(&payload[skip..]);
        out.extend_from_slice(&check.to_le_bytes());
    } else {
        out.extend_from_slice(&check.to_le_bytes()[skip - payload.len()..]);
    }
    Some(out)
}
