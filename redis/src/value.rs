//! A key's value: a scaling chain of filters (the default, RedisBloom's model), a plain filter
//! (`NONSCALING`, or `SBF.LOAD` of the crate's `SBLM` bytes) of either layout ([`Part`]), or a
//! filter half-way through a chunked restore; and the byte stream of `SCANDUMP`/`LOADCHUNK`
//! and AOF rewrites.
//!
//! The stream is a header ([`Meta`]: what the value is, its layout, its hasher's seed, each
//! stage's block count, checksummed) followed by every stage's bitset, oldest stage first, in chunks of at
//! most 16 MiB that never cross a stage. Each chunk is its bitset bytes followed by the XXH3-64
//! of them seeded with the chunk's offset in the stream, so a chunk is checked, and bound to
//! its place, on its own: a whole-stage checksum would make the first chunk of a 200 MB stage
//! hash all of it while every other client waits.

use std::borrow::Cow;

use splitbloom::{FilterHasher, Layout, ScalableParameters};

use crate::Hash;
use crate::chain::Chain;
use crate::memory::allocated_for;
use crate::stage::{Bitset, Part, layout_for_rate};

/// RedisBloom's tightening: each new sub-filter has half the error rate of the one before, and
/// the first has half the target.
pub const TIGHTENING_RATIO: f64 = 0.5;

/// The largest chunk `SCANDUMP` returns, as RedisBloom's (16 MiB): small enough that building
/// and sending one reply stalls other clients for milliseconds, not for the whole filter.
pub const MAX_CHUNK: usize = 16 << 20;

/// Bytes of a chunk's checksum, after its bitset bytes.
const CHECK: usize = 8;

/// Bitset bytes in a full chunk.
const MAX_PAYLOAD: usize = MAX_CHUNK - CHECK;

/// Bytes of a stage's `SBLM` header (`splitbloom::format::HEADER_BYTES`).
const STAGE_HEADER: usize = splitbloom::format::HEADER_BYTES;

/// At most this many stages: far more than a chain reaches before its sub-filters' sizes are
/// refused (see `commands::add_all`), so only hostile header bytes have more, and they are
/// refused before anything is allocated.
const MAX_STAGES: u64 = 1 << 16;

const META_MAGIC: &[u8; 4] = b"SBFC";
/// Version 2 added each stage's layout id (version 1, split-block only, was never released).
const META_VERSION: u8 = 2;
const META_FIXED: usize = 88;
/// Bytes of each stage's entry: its block count and its layout id, a `u64` each.
const META_STAGE: usize = 16;

/// What a value is, apart from its bits.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// True for a plain filter (`SBF.LOAD` of `SBLM` bytes), false for a chain.
    pub plain: bool,
    /// True unless `NONSCALING`: a chain that adds stages when its newest is full.
    pub scaling: bool,
    /// The capacity the value was made with (a chain's first stage; 0 when unknown).
    pub capacity: u64,
    /// The target false-positive rate (0 when unknown).
    pub error_rate: f64,
    /// Items added that were not present before (`CARD`).
    pub items: u64,
    /// A chain's parameters (zero for a plain filter).
    pub parameters: ScalableParameters,
    /// Keys in a chain's newest stage.
    pub items_in_last_stage: u64,
    /// The hasher's seed (every stage has the same).
    pub seed: u64,
    /// The stages' layout (one for all of them).
    pub layout: Layout,
    /// Each stage's blocks per key (1 for split-block, 1 or 2 for wide), oldest first.
    pub stage_probes: Vec<u8>,
    /// Each stage's number of blocks, oldest first.
    pub stage_blocks: Vec<u64>,
}

impl Meta {
    /// The header bytes: little-endian fields at fixed offsets, for each stage its block count
    /// and its `SBLM` layout id (0 split-block, 1 or 2 wide with that many probes) as `u64`s,
    /// and the XXH3-64 (seed 0) of all that, so a corrupted header is refused as a whole.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(META_FIXED + META_STAGE * self.stage_blocks.len() + 8);
        out.extend_from_slice(META_MAGIC);
        out.push(META_VERSION);
        out.push(u8::from(self.plain));
        out.push(u8::from(!self.scaling));
        out.push(Hash::KIND.id());
        let p = &self.parameters;
        for word in [
            self.capacity,
            self.error_rate.to_bits(),
            self.items,
            p.initial_capacity as u64,
            p.fpr.to_bits(),
            p.growth_factor.to_bits(),
            p.tightening_ratio.to_bits(),
            self.items_in_last_stage,
            self.stage_blocks.len() as u64,
            self.seed,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for (index, &blocks) in self.stage_blocks.iter().enumerate() {
            out.extend_from_slice(&blocks.to_le_bytes());
            out.extend_from_slice(&u64::from(self.layout_id(index)).to_le_bytes());
        }
        let checksum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads [`encode`](Meta::encode)'s bytes; every field is checked before anything is
    /// allocated for the stages, each stage's layout and size by the crate's own header check
    /// on the `SBLM` header it will be restored under.
    pub fn decode(bytes: &[u8]) -> Result<Meta, String> {
        if bytes.len() < META_FIXED + 8 || &bytes[..4] != META_MAGIC {
            return Err("not a splitbloom SCANDUMP header".into());
        }
        let (body, checksum) = bytes.split_at(bytes.len() - 8);
        if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != checksum {
            return Err("header checksum mismatch".into());
        }
        if bytes[4] != META_VERSION {
            return Err(format!(
                "header version {} (this module reads {META_VERSION})",
                bytes[4]
            ));
        }
        if bytes[5] > 1 || bytes[6] > 1 {
            return Err("unknown header flags".into());
        }
        if bytes[7] != Hash::KIND.id() {
            return Err(format!(
                "hasher id {} (this module stores {})",
                bytes[7],
                Hash::KIND.id()
            ));
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let num_stages = word(72);
        if num_stages == 0 || num_stages > MAX_STAGES {
            return Err(format!("bad stage count {num_stages}"));
        }
        if bytes.len() as u64 != META_FIXED as u64 + META_STAGE as u64 * num_stages + 8 {
            return Err("header length does not match its stage count".into());
        }
        let plain = bytes[5] == 1;
        if plain && num_stages != 1 {
            return Err("a plain filter has one stage".into());
        }
        let seed = word(80);
        let mut layout = None;
        let mut stage_blocks = Vec::with_capacity(num_stages as usize);
        let mut stage_probes = Vec::with_capacity(num_stages as usize);
        for index in 0..num_stages as usize {
            let at = META_FIXED + META_STAGE * index;
            let blocks = word(at);
            let layout_id = u8::try_from(word(at + 8))
                .map_err(|_| format!("bad stage {index}: unknown layout id"))?;
            let header = splitbloom::format::Header::parse(&stage_header(layout_id, seed, blocks))
                .map_err(|error| format!("bad stage {index}: {error}"))?;
            if *layout.get_or_insert(header.layout) != header.layout {
                return Err("the stages differ in layout".into());
            }
            stage_blocks.push(blocks);
            stage_probes.push(header.probes);
        }
        let layout = layout.expect("at least one stage");
        let count = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
        let mut parameters = ScalableParameters::new(count(word(32)), f64::from_bits(word(40)));
        parameters.growth_factor = f64::from_bits(word(48));
        parameters.tightening_ratio = f64::from_bits(word(56));
        if !plain {
            parameters.check().map_err(|error| error.to_string())?;
        }
        Ok(Meta {
            plain,
            scaling: bytes[6] == 0,
            capacity: word(8),
            error_rate: f64::from_bits(word(16)),
            items: word(24),
            parameters,
            items_in_last_stage: word(64),
            seed,
            layout,
            stage_probes,
            stage_blocks,
        })
    }

    /// The `SBLM` layout id of stage `index`.
    fn layout_id(&self, index: usize) -> u8 {
        layout_id(self.layout, self.stage_probes[index])
    }

    /// Bytes of every stage's bitset.
    pub fn bitset_len(&self) -> u64 {
        self.stage_blocks
            .iter()
            .map(|&blocks| self.stage_len(blocks))
            .sum()
    }

    /// Bytes of the bitset of a stage of `blocks` blocks.
    fn stage_len(&self, blocks: u64) -> u64 {
        blocks * self.layout.block_bytes() as u64
    }

    /// The `SBLM` header of stage `index`.
    fn stage_header(&self, index: usize) -> [u8; STAGE_HEADER] {
        stage_header(self.layout_id(index), self.seed, self.stage_blocks[index])
    }
}

/// The `SBLM` header (`docs/FORMAT.md`) of a stage under layout id `layout_id` (its checksum
/// field 0: a restored stage is read with `from_trusted_bytes`, its chunks having been
/// checked one by one).
fn stage_header(layout_id: u8, seed: u64, blocks: u64) -> [u8; STAGE_HEADER] {
    let mut header = [0; STAGE_HEADER];
    header[..4].copy_from_slice(&splitbloom::format::MAGIC);
    header[4..6].copy_from_slice(&splitbloom::format::VERSION.to_le_bytes());
    header[6] = Hash::KIND.id();
    header[7] = layout_id;
    header[8..16].copy_from_slice(&seed.to_le_bytes());
    header[16..24].copy_from_slice(&blocks.to_le_bytes());
    header
}

/// The format's layout id (`SBLM` header byte 7): 0 for split-block, the probes per key for
/// wide.
fn layout_id(layout: Layout, probes: u8) -> u8 {
    match layout {
        Layout::Wide => probes,
        _ => 0,
    }
}

/// Bytes of a stage of `bitset` bytes in the stream: the bitset and one checksum per chunk.
fn wire_len(bitset: u64) -> u64 {
    bitset + CHECK as u64 * bitset.div_ceil(MAX_PAYLOAD as u64)
}

/// What `push_bitset` answers for bytes that are not the next chunk of the stream.
pub const TOO_BIG: &str = "not the next chunk of the filter";
/// What `push_chunk` answers for a chunk whose checksum does not match.
const BAD_CHUNK: &str = "chunk checksum mismatch";

/// A chunked restore in progress: the stages rebuilt so far and the bytes of the next.
#[derive(Clone, Debug)]
pub struct Restore {
    pub meta: Meta,
    pub done: Vec<Part>,
    /// The current stage's `SBLM` bytes received so far: its header, then its bitset.
    pub partial: Vec<u8>,
}

#[derive(Clone, Debug)]
pub enum Body {
    Chain(Chain),
    Plain(Part),
    Restoring(Restore),
}

/// One key's value.
#[derive(Clone, Debug)]
pub struct Sbf {
    pub body: Body,
    /// False for `NONSCALING`: past its capacity the chain refuses new items.
    pub scaling: bool,
    /// The capacity the value was created with (a chain's first stage).
    pub capacity: u64,
    /// The target false-positive rate; 0 when unknown.
    pub error_rate: f64,
    /// Items added that were not present before, as RedisBloom counts them; after `MERGE`,
    /// the stages' estimate.
    pub items: u64,
}

impl Sbf {
    /// A `NONSCALING` filter, sized as RedisBloom sizes one: `capacity` items at the full
    /// error rate, in one plain filter that refuses new items once `capacity` are in; wide
    /// at [`WIDE_ERROR_RATE`](crate::stage::WIDE_ERROR_RATE) and below.
    pub fn nonscaling(capacity: u64, error_rate: f64) -> Result<Sbf, splitbloom::Error> {
        Ok(Sbf {
            body: Body::Plain(Part::for_rate(capacity, error_rate)?),
            scaling: false,
            capacity,
            error_rate,
            items: 0,
        })
    }

    /// A chain sized like RedisBloom's: the first stage holds `capacity` items at half the
    /// error rate, and each new stage `expansion` times the previous capacity at half its rate;
    /// every stage wide at [`WIDE_ERROR_RATE`](crate::stage::WIDE_ERROR_RATE) and below.
    pub fn chain(
        capacity: u64,
        error_rate: f64,
        expansion: u64,
        scaling: bool,
    ) -> Result<Sbf, splitbloom::Error> {
        let mut parameters =
            ScalableParameters::new(usize::try_from(capacity).unwrap_or(usize::MAX), error_rate);
        parameters.growth_factor = expansion as f64;
        parameters.tightening_ratio = TIGHTENING_RATIO;
        let chain = Chain::new(parameters, layout_for_rate(error_rate))?;
        Ok(Sbf {
            body: Body::Chain(chain),
            scaling,
            capacity,
            error_rate,
            items: 0,
        })
    }

    /// The stages that answer lookups (none while restoring).
    pub fn stages(&self) -> Vec<&dyn Bitset> {
        match &self.body {
            Body::Chain(chain) => chain.stages().iter().map(Part::bits).collect(),
            Body::Plain(part) => vec![part.bits()],
            Body::Restoring(_) => Vec::new(),
        }
    }

    /// The stages a restore has received, or the stages that answer lookups.
    fn stored_stages(&self) -> Vec<&dyn Bitset> {
        match &self.body {
            Body::Restoring(restore) => restore.done.iter().map(Part::bits).collect(),
            _ => self.stages(),
        }
    }

    /// Bytes of the value as `MEMORY USAGE` counts them: the struct, every stage's bitset and
    /// the vectors holding them.
    pub fn memory(&self) -> usize {
        let stages = match &self.body {
            Body::Chain(chain) => std::mem::size_of_val(chain.stages()),
            Body::Plain(_) => 0,
            Body::Restoring(restore) => {
                restore.done.capacity() * size_of::<Part>()
                    + restore.partial.capacity()
                    + restore.meta.stage_blocks.capacity() * 8
                    + restore.meta.stage_probes.capacity()
            }
        };
        let bits: usize = self
            .stored_stages()
            .iter()
            .map(|stage| allocated_for(stage.size_in_bytes()))
            .sum();
        size_of::<Sbf>() + stages + bits
    }

    /// The value's header: what it is and the size of each stage.
    pub fn meta(&self) -> Meta {
        match &self.body {
            Body::Restoring(restore) => restore.meta.clone(),
            Body::Chain(chain) => Meta {
                plain: false,
                scaling: self.scaling,
                capacity: self.capacity,
                error_rate: self.error_rate,
                items: self.items,
                parameters: *chain.parameters(),
                items_in_last_stage: chain.items_in_last_stage() as u64,
                seed: chain.seed(),
                layout: chain.layout(),
                stage_probes: chain
                    .stages()
                    .iter()
                    .map(|stage| stage.bits().probes())
                    .collect(),
                stage_blocks: chain
                    .stages()
                    .iter()
                    .map(|stage| stage.bits().num_blocks() as u64)
                    .collect(),
            },
            Body::Plain(part) => Meta {
                plain: true,
                scaling: false,
                capacity: self.capacity,
                error_rate: self.error_rate,
                items: self.items,
                parameters: zero_parameters(),
                items_in_last_stage: 0,
                seed: part.bits().seed(),
                layout: part.bits().layout(),
                stage_probes: vec![part.bits().probes()],
                stage_blocks: vec![part.bits().num_blocks() as u64],
            },
        }
    }

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
        if meta.plain && meta.scaling {
            return Err("a plain filter cannot scale".into());
        }
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

/// Placeholder parameters for plain filters, which have none.
fn zero_parameters() -> ScalableParameters {
    let mut parameters = ScalableParameters::new(0, 0.0);
    parameters.growth_factor = 0.0;
    parameters.tightening_ratio = 0.0;
    parameters
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

    fn wide_meta(probes: u8, blocks: u64) -> Meta {
        Meta {
            plain: true,
            scaling: false,
            capacity: 1000,
            error_rate: 1e-4,
            items: 3,
            parameters: zero_parameters(),
            items_in_last_stage: 0,
            seed: 5,
            layout: Layout::Wide,
            stage_probes: vec![probes],
            stage_blocks: vec![blocks],
        }
    }

    /// The header with its first stage's layout id word replaced and its checksum made to
    /// match again.
    fn with_layout_word(meta: &Meta, word: u64) -> Vec<u8> {
        let mut bytes = meta.encode();
        bytes[META_FIXED + 8..META_FIXED + 16].copy_from_slice(&word.to_le_bytes());
        let body = bytes.len() - 8;
        let checksum = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
        bytes[body..].copy_from_slice(&checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn the_header_carries_the_layout() {
        for meta in [wide_meta(1, 100), wide_meta(2, 128)] {
            let decoded = Meta::decode(&meta.encode()).unwrap();
            assert_eq!(decoded, meta);
            assert_eq!(decoded.bitset_len(), decoded.stage_blocks[0] * 64);
        }
        let split = Meta {
            layout: Layout::SplitBlock,
            stage_probes: vec![1],
            ..wide_meta(1, 100)
        };
        let decoded = Meta::decode(&split.encode()).unwrap();
        assert_eq!(decoded, split);
        assert_eq!(decoded.bitset_len(), 100 * 32);
    }

    #[test]
    fn headers_of_impossible_layouts_are_refused() {
        let meta = wide_meta(1, 100);
        assert!(Meta::decode(&with_layout_word(&meta, 1)).is_ok());
        for word in [3, 255, 256, u64::MAX] {
            assert!(
                Meta::decode(&with_layout_word(&meta, word)).is_err(),
                "{word}"
            );
        }
        // Two probes need whole groups of blocks.
        assert!(Meta::decode(&with_layout_word(&meta, 2)).is_err());
        // A chain's stages have one layout, each its own probes.
        let chain = Meta {
            plain: false,
            scaling: true,
            parameters: ScalableParameters::new(100, 0.01),
            stage_probes: vec![1, 2],
            stage_blocks: vec![100, 128],
            ..wide_meta(1, 100)
        };
        assert_eq!(Meta::decode(&chain.encode()).unwrap(), chain);
        let mut mixed = chain.encode();
        let second_id = META_FIXED + META_STAGE + 8;
        mixed[second_id] = 0;
        let body = mixed.len() - 8;
        let checksum = xxhash_rust::xxh3::xxh3_64(&mixed[..body]);
        mixed[body..].copy_from_slice(&checksum.to_le_bytes());
        assert!(
            Meta::decode(&mixed)
                .unwrap_err()
                .contains("differ in layout")
        );
        let huge = wide_meta(1, u64::MAX / 64);
        assert!(Meta::decode(&huge.encode()).is_err());
    }

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
