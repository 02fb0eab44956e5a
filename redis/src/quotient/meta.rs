//! The header of a deletable value's byte stream (`CF.SCANDUMP` iterator 0, the first
//! `CF.LOADCHUNK`, the RDB and AOF encodings): the reservation (capacity, expansion, RedisBloom's
//! bucket size and iterations), the deletes counted, the hasher's seed, the tag width and each
//! stage's block count, checksummed, every field checked before anything is allocated.

use splitbloom::{FilterHasher, TagBits};

use crate::{Hash, MAX_COUNT};

const MAGIC: &[u8; 4] = b"SQFC";
/// The header's version; a reader refuses any other.
const VERSION: u8 = 1;
const FIXED: usize = 64;
const CHECKSUM: usize = 8;

/// At most this many stages, as RedisBloom allows a cuckoo filter 32 sub-filters before it
/// answers `Maximum expansions reached`.
pub const MAX_STAGES: usize = 32;

/// The largest expansion RedisBloom accepts.
pub const MAX_EXPANSION: u64 = 32768;

/// Why a header is refused: its length cannot be a header's, or its content is not one.
#[derive(Debug, PartialEq)]
pub enum BadHeader {
    Length,
    Content(String),
}

/// What a deletable value is, apart from its tags.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// The capacity reserved: the first stage holds this many keys.
    pub capacity: u64,
    /// Each new stage holds this many times the previous one's keys (a power of two, as
    /// RedisBloom rounds it); 0: the value never grows.
    pub expansion: u64,
    /// RedisBloom's `BUCKETSIZE` and `MAXITERATIONS`, kept and reported.
    pub bucket_size: u64,
    pub max_iterations: u64,
    /// Keys removed (`CF.INFO`'s `Number of items deleted`).
    pub deletes: u64,
    pub seed: u64,
    pub tag_bits: TagBits,
    /// Each stage's number of 64-byte blocks, oldest first.
    pub stage_blocks: Vec<u64>,
}

impl Meta {
    /// Little-endian fields at fixed offsets, each stage's block count, and the XXH3-64 (seed 0)
    /// of all that.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FIXED + 8 * self.stage_blocks.len() + CHECKSUM);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[VERSION, self.tag_bits.bits() as u8, Hash::KIND.id(), 0]);
        for word in [
            self.capacity,
            self.expansion,
            self.bucket_size,
            self.max_iterations,
            self.deletes,
            self.seed,
            self.stage_blocks.len() as u64,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for blocks in &self.stage_blocks {
            out.extend_from_slice(&blocks.to_le_bytes());
        }
        let checksum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads [`encode`](Meta::encode)'s bytes; every field is checked, the stages' sizes
    /// against the expansion rule, before anything is allocated.
    pub fn decode(bytes: &[u8]) -> Result<Meta, BadHeader> {
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        if bytes.len() < FIXED + CHECKSUM {
            return Err(BadHeader::Length);
        }
        let stages = word(56);
        if stages > MAX_STAGES as u64 || bytes.len() != FIXED + 8 * stages as usize + CHECKSUM {
            return Err(BadHeader::Length);
        }
        let bad = |why: &str| Err(BadHeader::Content(why.to_owned()));
        let (body, checksum) = bytes.split_at(bytes.len() - CHECKSUM);
        if &bytes[..4] != MAGIC || xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != checksum {
            return bad("not a header of this module, or corrupted");
        }
        if bytes[4] != VERSION || bytes[6] != Hash::KIND.id() || bytes[7] != 0 {
            return bad("another version, hasher or flags");
        }
        let Some(tag_bits) = TagBits::from_bits(u32::from(bytes[5])) else {
            return bad("unknown tag width");
        };
        let meta = Meta {
            capacity: word(8),
            expansion: word(16),
            bucket_size: word(24),
            max_iterations: word(32),
            deletes: word(40),
            seed: word(48),
            tag_bits,
            stage_blocks: (0..stages as usize).map(|i| word(FIXED + 8 * i)).collect(),
        };
        meta.check().map_err(BadHeader::Content)?;
        Ok(meta)
    }

    /// What a header must hold so that a value made from it is one the module could have
    /// made: RedisBloom's ranges, counts that fit RESP's integers, and each stage exactly the
    /// size the expansion rule gives it.
    fn check(&self) -> Result<(), String> {
        check_options(self.bucket_size, self.max_iterations, self.expansion)?;
        if self.capacity == 0 || self.capacity > MAX_COUNT || self.deletes > MAX_COUNT {
            return Err("capacity or delete count out of range".into());
        }
        if self.stage_blocks.is_empty() || (self.expansion == 0 && self.stage_blocks.len() > 1) {
            return Err("stages the expansion does not give".into());
        }
        for (index, &blocks) in self.stage_blocks.iter().enumerate() {
            let expected = self.stage_shape(index).map(|(_, blocks)| blocks as u64);
            if expected != Some(blocks) {
                return Err(format!(
                    "stage {index} is not the size its reservation gives"
                ));
            }
        }
        Ok(())
    }

    /// Keys and blocks of stage `index`: the capacity times the expansion to the `index`-th
    /// power, at the crate's design load; `None` past what a filter can hold.
    pub fn stage_shape(&self, index: usize) -> Option<(u64, usize)> {
        let growth = self.expansion.checked_pow(u32::try_from(index).ok()?)?;
        let keys = self.capacity.checked_mul(growth)?;
        let items = usize::try_from(keys).ok()?;
        let blocks =
            splitbloom::math::quotient::num_blocks_for_capacity(items, self.tag_bits).ok()?;
        Some((keys, blocks))
    }

    /// Bytes of each stage's blocks, oldest first.
    pub fn stage_lens(&self) -> Vec<u64> {
        let block = splitbloom::math::quotient::QUOTIENT_BLOCK_BYTES as u64;
        let blocks = self.stage_blocks.iter();
        blocks.map(|&blocks| blocks.saturating_mul(block)).collect()
    }

    /// Bytes the header's vector holds (its length, not its capacity, so that a value counts
    /// the same after a reload).
    pub fn heap_bytes(&self) -> usize {
        self.stage_blocks.len() * size_of::<u64>()
    }
}

/// RedisBloom's ranges for `BUCKETSIZE` (1 to 255), `MAXITERATIONS` (1 to 65535) and
/// `EXPANSION` (0 to 32768, a power of two once rounded).
pub fn check_options(bucket_size: u64, max_iterations: u64, expansion: u64) -> Result<(), String> {
    if !(1..=255).contains(&bucket_size) || !(1..=65535).contains(&max_iterations) {
        return Err("bucket size or iterations out of range".into());
    }
    if expansion > MAX_EXPANSION || !(expansion == 0 || expansion.is_power_of_two()) {
        return Err("expansion out of range".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Meta {
        let mut meta = Meta {
            capacity: 1000,
            expansion: 2,
            bucket_size: 2,
            max_iterations: 20,
            deletes: 3,
            seed: 7,
            tag_bits: TagBits::Eight,
            stage_blocks: Vec::new(),
        };
        meta.stage_blocks = (0..3)
            .map(|i| meta.stage_shape(i).unwrap().1 as u64)
            .collect();
        meta
    }

    /// The header with byte `at` changed and its checksum made to match again.
    fn with_byte(meta: &Meta, at: usize, value: u8) -> Vec<u8> {
        let mut bytes = meta.encode();
        bytes[at] = value;
        let body = bytes.len() - CHECKSUM;
        let checksum = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
        bytes[body..].copy_from_slice(&checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn headers_round_trip_and_hostile_ones_are_refused() {
        let good = meta();
        assert_eq!(Meta::decode(&good.encode()), Ok(good.clone()));
        let mut bytes = good.encode();
        bytes[..9].fill(0);
        assert!(matches!(Meta::decode(&bytes), Err(BadHeader::Content(_))));
        assert_eq!(Meta::decode(&good.encode()[1..]), Err(BadHeader::Length));
        assert_eq!(Meta::decode(b"SQFC"), Err(BadHeader::Length));
        let refused = [
            (
                "a stage of another size",
                Meta {
                    stage_blocks: vec![1, 2, 3],
                    ..good.clone()
                },
            ),
            (
                "a stage past expansion 0",
                Meta {
                    expansion: 0,
                    ..good.clone()
                },
            ),
            (
                "expansion 3",
                Meta {
                    expansion: 3,
                    ..good.clone()
                },
            ),
            (
                "bucket size 0",
                Meta {
                    bucket_size: 0,
                    ..good.clone()
                },
            ),
            (
                "iterations 65536",
                Meta {
                    max_iterations: 65536,
                    ..good.clone()
                },
            ),
            (
                "capacity 2^63",
                Meta {
                    capacity: 1 << 63,
                    ..good.clone()
                },
            ),
            (
                "deletes 2^64-1",
                Meta {
                    deletes: u64::MAX,
                    ..good.clone()
                },
            ),
            (
                "no stage",
                Meta {
                    stage_blocks: Vec::new(),
                    ..good.clone()
                },
            ),
        ];
        for (name, meta) in refused {
            assert!(Meta::decode(&meta.encode()).is_err(), "{name}");
        }
        // A tag width the crate does not have, and a count of 2^32 stages.
        assert!(Meta::decode(&with_byte(&good, 5, 12)).is_err());
        assert_eq!(
            Meta::decode(&with_byte(&good, 60, 1)),
            Err(BadHeader::Length)
        );
        // Stages of a reservation past what a filter can hold cannot be declared.
        let huge = Meta {
            capacity: MAX_COUNT,
            expansion: 32768,
            ..good
        };
        assert_eq!(huge.stage_shape(1), None);
    }
}
