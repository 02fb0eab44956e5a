//! The header of a value's byte stream (`SCANDUMP` iterator 0, the first `LOADCHUNK`, the RDB
//! and AOF encodings): what the value is, its layout, its hasher's seed and each stage's block
//! count, checksummed, every field checked before anything is allocated.

use splitbloom::{FilterHasher, LayoutKind, ScalableParameters};

use crate::{Hash, MAX_COUNT};

/// Bytes of a stage's `SBLM` header (`splitbloom::format::HEADER_BYTES`).
pub const STAGE_HEADER: usize = splitbloom::format::HEADER_BYTES;

/// At most this many stages: far more than a chain reaches before its sub-filters' sizes are
/// refused (see [`crate::bloom::insert`]), so only hostile header bytes have more, and they are
/// refused before anything is allocated.
const MAX_STAGES: u64 = 1 << 16;

const META_MAGIC: &[u8; 4] = b"SBFC";
/// The header's version; a reader refuses any other.
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
    pub layout: LayoutKind,
    /// Each stage's `SBLM` layout id (0 split-block, 1 or 2 wide with that many probes),
    /// oldest first.
    pub stage_ids: Vec<u8>,
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
            out.extend_from_slice(&u64::from(self.stage_ids[index]).to_le_bytes());
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
        let mut stage_ids = Vec::with_capacity(num_stages as usize);
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
            stage_ids.push(layout_id);
        }
        let layout = layout.expect("at least one stage");
        let count = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
        let mut parameters = ScalableParameters::new(count(word(32)), f64::from_bits(word(40)));
        parameters.growth_factor = f64::from_bits(word(48));
        parameters.tightening_ratio = f64::from_bits(word(56));
        if !plain {
            parameters.check().map_err(|error| error.to_string())?;
        }
        let meta = Meta {
            plain,
            scaling: bytes[6] == 0,
            capacity: word(8),
            error_rate: f64::from_bits(word(16)),
            items: word(24),
            parameters,
            items_in_last_stage: word(64),
            seed,
            layout,
            stage_ids,
            stage_blocks,
        };
        meta.check_fields()?;
        Ok(meta)
    }

    /// What a header must hold beyond its format, so that a value made from it is one the
    /// module could have made: a plain filter never scales; the rate is below 1 (0 when
    /// unknown); counts fit RESP's integers; a chain's stages have exactly the sizes its
    /// parameters give (as a chain made by `RESERVE` has), and its newest holds at most its
    /// capacity. Checked before anything is allocated for the stages, so a hostile header
    /// cannot declare stages no chain has, nor counts that print negative or overflow.
    fn check_fields(&self) -> Result<(), String> {
        if self.plain && self.scaling {
            return Err("a plain filter cannot scale".into());
        }
        if !(self.error_rate >= 0.0 && self.error_rate < 1.0) {
            return Err(format!("bad error rate {}", self.error_rate));
        }
        for (name, value) in [
            ("capacity", self.capacity),
            ("item count", self.items),
            ("newest stage's item count", self.items_in_last_stage),
        ] {
            if value > MAX_COUNT {
                return Err(format!("{name} {value} is above {MAX_COUNT}"));
            }
        }
        if self.plain {
            return Ok(());
        }
        let parameters = &self.parameters;
        for (index, (&blocks, &id)) in self.stage_blocks.iter().zip(&self.stage_ids).enumerate() {
            let expected = stage_shape(
                self.layout,
                parameters.stage_capacity(index),
                parameters.stage_fpr(index),
            )
            .map_err(|error| format!("stage {index}: {error}"))?;
            if (blocks, id) != (expected.0 as u64, expected.1) {
                return Err(format!(
                    "stage {index} is not the {} stage its parameters give",
                    self.layout.name()
                ));
            }
        }
        let newest = parameters.stage_capacity(self.stage_blocks.len() - 1) as u64;
        if self.items_in_last_stage > newest {
            return Err(format!(
                "the newest stage is said to hold {} keys, above its capacity {newest}",
                self.items_in_last_stage
            ));
        }
        Ok(())
    }

    /// Bytes of every stage's bitset.
    pub fn bitset_len(&self) -> u64 {
        self.stage_blocks
            .iter()
            .fold(0, |sum, &blocks| sum.saturating_add(self.stage_len(blocks)))
    }

    /// Bytes of the largest stage's bitset.
    pub fn largest_stage_len(&self) -> u64 {
        self.stage_blocks
            .iter()
            .map(|&blocks| self.stage_len(blocks))
            .max()
            .unwrap_or(0)
    }

    /// Bytes of the bitset of a stage of `blocks` blocks.
    pub fn stage_len(&self, blocks: u64) -> u64 {
        blocks.saturating_mul(self.layout.block_bytes() as u64)
    }

    /// The `SBLM` header of stage `index`.
    pub fn stage_header(&self, index: usize) -> [u8; STAGE_HEADER] {
        stage_header(self.stage_ids[index], self.seed, self.stage_blocks[index])
    }

    /// Bytes the header's vectors take on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.stage_blocks.capacity() * size_of::<u64>() + self.stage_ids.capacity()
    }
}

/// The block count and `SBLM` layout id of a filter of `layout` for `capacity` keys at `fpr`,
/// as the crate sizes it (`BloomFilter::with_fpr`), without allocating.
pub fn stage_shape(
    layout: LayoutKind,
    capacity: usize,
    fpr: f64,
) -> Result<(usize, u8), splitbloom::Error> {
    match layout {
        LayoutKind::Wide => splitbloom::math::wide::num_blocks_for_fpr(capacity, fpr),
        _ => splitbloom::math::num_blocks_for_fpr(capacity, fpr).map(|blocks| (blocks, 0)),
    }
}

/// Bitset bytes of that filter ([`stage_shape`]); `u64::MAX` when it cannot be made.
pub fn stage_bytes(layout: LayoutKind, capacity: usize, fpr: f64) -> u64 {
    stage_shape(layout, capacity, fpr).map_or(u64::MAX, |(blocks, _)| {
        (blocks as u64).saturating_mul(layout.block_bytes() as u64)
    })
}

/// The `SBLM` header (`docs/FORMAT.md`) of a stage under layout id `layout_id`, checksum field
/// 0: what the crate's header check reads before anything is allocated for the stage.
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

/// Placeholder parameters for plain filters, which have none.
pub fn zero_parameters() -> ScalableParameters {
    let mut parameters = ScalableParameters::new(0, 0.0);
    parameters.growth_factor = 0.0;
    parameters.tightening_ratio = 0.0;
    parameters
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
            layout: LayoutKind::Wide,
            stage_ids: vec![probes],
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
            layout: LayoutKind::SplitBlock,
            stage_ids: vec![0],
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
        let chain = wide_chain(4);
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

    /// A wide chain's header as `RESERVE key 0.001 100` makes it, with `stages` stages.
    fn wide_chain(stages: usize) -> Meta {
        let mut parameters = ScalableParameters::new(100, 0.001);
        parameters.growth_factor = 2.0;
        parameters.tightening_ratio = crate::bloom::TIGHTENING_RATIO;
        let shapes: Vec<(usize, u8)> = (0..stages)
            .map(|stage| {
                stage_shape(
                    LayoutKind::Wide,
                    parameters.stage_capacity(stage),
                    parameters.stage_fpr(stage),
                )
                .unwrap()
            })
            .collect();
        Meta {
            plain: false,
            scaling: true,
            capacity: 100,
            error_rate: 0.001,
            items: 700,
            parameters,
            items_in_last_stage: 100,
            seed: 0,
            layout: LayoutKind::Wide,
            stage_ids: shapes.iter().map(|&(_, id)| id).collect(),
            stage_blocks: shapes.iter().map(|&(blocks, _)| blocks as u64).collect(),
        }
    }

    /// Headers that pass the format but describe no value the module could make.
    #[test]
    fn headers_of_values_no_command_makes_are_refused() {
        let good = wide_chain(3);
        assert!(Meta::decode(&good.encode()).is_ok());
        let mut bigger = good.clone();
        bigger.stage_blocks[1] *= 2;
        let mut longer = wide_chain(3);
        longer.stage_blocks.push(longer.stage_blocks[2]);
        longer.stage_ids.push(longer.stage_ids[2]);
        let cases = [
            ("a stage of another size", bigger),
            ("a stage the parameters do not give", longer),
            (
                "the newest stage over its capacity",
                Meta {
                    items_in_last_stage: 401,
                    ..good.clone()
                },
            ),
            (
                "an error rate of 2",
                Meta {
                    error_rate: 2.0,
                    ..good.clone()
                },
            ),
            (
                "a capacity past RESP's integers",
                Meta {
                    capacity: u64::MAX,
                    ..good.clone()
                },
            ),
            (
                "an item count past RESP's integers",
                Meta {
                    items: MAX_COUNT + 1,
                    ..good.clone()
                },
            ),
            (
                "a plain filter that scales",
                Meta {
                    scaling: true,
                    ..wide_meta(1, 100)
                },
            ),
        ];
        for (name, meta) in cases {
            assert!(Meta::decode(&meta.encode()).is_err(), "{name}");
        }
    }
}
