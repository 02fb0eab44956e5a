//! The two layouts a value's filters may have, behind one small trait, so that every command,
//! the chain, the byte stream and the persistence are written once for both:
//! [`splitbloom::Filter`]'s split-block layout (RedisBloom's default rates), and
//! [`splitbloom::WideFilter`] for values reserved at [`WIDE_ERROR_RATE`] and below, where the
//! split-block layout needs 1.17x (0.1%) to 2.25x (10^-6) the memory of the classic optimum
//! RedisBloom allocates, and the wide one 1.08-1.14x.

use std::borrow::Cow;

use splitbloom::{FilterHasher, Kernel, LayoutKind};

use crate::Hash;

/// One stage (sub-filter) of a value, split-block.
pub type Stage = splitbloom::Filter<Hash>;
/// A stage at low error rates: a wide filter.
pub type Wide = splitbloom::WideFilter<Hash>;

/// The error rate at and below which a `NONSCALING` value is a [`splitbloom::WideFilter`]:
/// where the split-block layout starts to need clearly more memory than the classic optimum
/// (1.17x at 0.1%, against the wide layout's 1.098x). The CLI's `build --layout auto` switches
/// at the same rate.
pub const WIDE_ERROR_RATE: f64 = 0.001;

/// The layout of a value reserved at `error_rate` (a `NONSCALING` filter, or every stage of a
/// chain): wide at [`WIDE_ERROR_RATE`] and below, split-block above.
pub fn layout_for_rate(error_rate: f64) -> LayoutKind {
    if error_rate <= WIDE_ERROR_RATE {
        LayoutKind::Wide
    } else {
        LayoutKind::SplitBlock
    }
}

/// What the module reads from, and writes to, one filter, whatever its layout.
pub trait Bitset {
    /// The layout of its blocks.
    fn layout(&self) -> LayoutKind;
    /// The blocks each key sets its bits in: 1 for the split-block layout, 1 or 2 for the
    /// wide one.
    fn probes(&self) -> u8;
    fn num_blocks(&self) -> usize;
    /// Bytes of its blocks.
    fn size_in_bytes(&self) -> usize;
    fn seed(&self) -> u64;
    fn kernel(&self) -> Kernel;
    fn fill_ratio(&self) -> f64;
    /// Distinct keys inserted, estimated from the fill ratio.
    fn estimated_items(&self) -> f64;
    /// The false-positive rate at the estimated number of keys.
    fn estimated_fpr(&self) -> f64;
    /// Bytes `from..to` of the bitset in the format's byte order (little-endian words).
    fn bitset_bytes(&self, from: usize, to: usize) -> Cow<'_, [u8]>;
    /// The crate's `SBLM` bytes, under this layout's id.
    fn to_bytes(&self) -> Vec<u8>;
    fn serialized_len(&self) -> usize;
    fn hash_bytes(&self, key: &[u8]) -> u64;
    fn contains_hash(&self, hash: u64) -> bool;
    fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]);
    fn contains_bytes_batch(&self, keys: &[&[u8]], out: &mut [bool]);
    /// Adds a pre-hashed key; `true` when it was new.
    fn insert_hash(&mut self, hash: u64) -> bool;
}

/// The [`Bitset`] methods both filter types have under the same names and contracts.
macro_rules! forward_to_the_filter {
    ($Type:ident) => {
        fn num_blocks(&self) -> usize {
            $Type::num_blocks(self)
        }
        fn size_in_bytes(&self) -> usize {
            $Type::size_in_bytes(self)
        }
        fn seed(&self) -> u64 {
            self.hasher().seed()
        }
        fn kernel(&self) -> Kernel {
            $Type::kernel(self)
        }
        fn fill_ratio(&self) -> f64 {
            $Type::fill_ratio(self)
        }
        fn estimated_items(&self) -> f64 {
            $Type::estimated_items(self)
        }
        fn estimated_fpr(&self) -> f64 {
            $Type::estimated_fpr(self)
        }
        fn bitset_bytes(&self, from: usize, to: usize) -> Cow<'_, [u8]> {
            le_bytes(self.as_words(), from, to)
        }
        fn to_bytes(&self) -> Vec<u8> {
            $Type::to_bytes(self)
        }
        fn serialized_len(&self) -> usize {
            $Type::serialized_len(self)
        }
        fn hash_bytes(&self, key: &[u8]) -> u64 {
            $Type::hash_bytes(self, key)
        }
        fn contains_hash(&self, hash: u64) -> bool {
            $Type::contains_hash(self, hash)
        }
        fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
            $Type::contains_hash_batch(self, hashes, out)
        }
        fn contains_bytes_batch(&self, keys: &[&[u8]], out: &mut [bool]) {
            $Type::contains_bytes_batch(self, keys, out)
        }
        fn insert_hash(&mut self, hash: u64) -> bool {
            $Type::insert_hash(self, hash)
        }
    };
}

impl Bitset for Stage {
    fn layout(&self) -> LayoutKind {
        LayoutKind::SplitBlock
    }
    fn probes(&self) -> u8 {
        1
    }
    forward_to_the_filter!(Stage);
}

impl Bitset for Wide {
    fn layout(&self) -> LayoutKind {
        LayoutKind::Wide
    }
    fn probes(&self) -> u8 {
        Wide::probes(self)
    }
    forward_to_the_filter!(Wide);
}

/// Bytes `from..to` of `words` written as little-endian words (the format's byte order):
/// borrowed on little-endian machines.
fn le_bytes<W: bytemuck::Pod>(words: &[W], from: usize, to: usize) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(&bytemuck::cast_slice::<W, u8>(words)[from..to])
    } else {
        let size = size_of::<W>();
        let bytes: Vec<u8> = words[from / size..to.div_ceil(size)]
            .iter()
            .flat_map(|word| bytemuck::bytes_of(word).iter().rev().copied())
            .collect();
        let skip = from % size;
        Cow::Owned(bytes[skip..skip + (to - from)].to_vec())
    }
}

/// One filter, in either layout: a plain value's (`NONSCALING`, `SBF.LOAD` of `SBLM` bytes), a
/// chain's stage, or a stage a restore has received.
#[derive(Clone, Debug)]
pub enum Part {
    Split(Stage),
    Wide(Wide),
}

impl Part {
    /// An empty filter of `layout` for `capacity` keys at `fpr`, sized by that layout's
    /// formula.
    pub fn for_stage(
        layout: LayoutKind,
        capacity: usize,
        fpr: f64,
    ) -> Result<Part, splitbloom::Error> {
        Ok(match layout {
            LayoutKind::Wide => {
                Part::Wide(Wide::with_fpr_and_hasher(capacity, fpr, Hash::default())?)
            }
            _ => Part::Split(Stage::with_fpr_and_hasher(capacity, fpr, Hash::default())?),
        })
    }

    /// The blocks and probes [`for_stage`](Part::for_stage) gives, without allocating.
    pub fn shape_for(
        layout: LayoutKind,
        capacity: usize,
        fpr: f64,
    ) -> Result<(usize, u8), splitbloom::Error> {
        match layout {
            LayoutKind::Wide => splitbloom::math::wide::num_blocks_for_fpr(capacity, fpr),
            _ => splitbloom::math::num_blocks_for_fpr(capacity, fpr).map(|blocks| (blocks, 1)),
        }
    }

    /// Bitset bytes [`for_stage`](Part::for_stage) allocates (`u64::MAX` when it would fail).
    pub fn bytes_for(layout: LayoutKind, capacity: usize, fpr: f64) -> u64 {
        Part::shape_for(layout, capacity, fpr).map_or(u64::MAX, |(blocks, _)| {
            (blocks as u64).saturating_mul(layout.block_bytes() as u64)
        })
    }

    /// A `NONSCALING` filter for `capacity` keys at `error_rate`, in the layout
    /// [`layout_for_rate`] picks.
    pub fn for_rate(capacity: u64, error_rate: f64) -> Result<Part, splitbloom::Error> {
        let items = usize::try_from(capacity).unwrap_or(usize::MAX);
        Part::for_stage(layout_for_rate(error_rate), items, error_rate)
    }

    /// Bitset bytes [`for_rate`](Part::for_rate) allocates (`u64::MAX` when it would fail).
    pub fn bytes_for_rate(capacity: u64, error_rate: f64) -> u64 {
        let items = usize::try_from(capacity).unwrap_or(usize::MAX);
        Part::bytes_for(layout_for_rate(error_rate), items, error_rate)
    }

    /// The filter read from `SBLM` bytes in either layout, every check of the crate's
    /// `from_bytes` made before anything is allocated.
    pub fn from_bytes(bytes: &[u8]) -> Result<Part, splitbloom::Error> {
        match splitbloom::format::Header::parse(bytes)?.layout {
            LayoutKind::Wide => Wide::from_bytes_with_hasher_type(bytes).map(Part::Wide),
            _ => Stage::from_bytes_with_hasher_type(bytes).map(Part::Split),
        }
    }

    /// The filter of `bytes`, whose bitset's checksums the caller checked, chunk by chunk:
    /// the `SBLM` header's layout says which type reads it.
    pub fn from_trusted_bytes(bytes: &[u8]) -> Result<Part, splitbloom::Error> {
        match splitbloom::format::Header::parse(bytes)?.layout {
            LayoutKind::Wide => {
                splitbloom::WideFilterRef::<Hash>::from_trusted_bytes_with_hasher_type(bytes)
                    .and_then(|view| view.to_filter())
                    .map(Part::Wide)
            }
            _ => splitbloom::FilterRef::<Hash>::from_trusted_bytes_with_hasher_type(bytes)
                .and_then(|view| view.to_filter())
                .map(Part::Split),
        }
    }

    /// An empty filter of the same layout, size, probes and hasher.
    pub fn empty_like(&self) -> Result<Part, splitbloom::Error> {
        Ok(match self {
            Part::Split(filter) => Part::Split(Stage::with_num_blocks_and_hasher(
                filter.num_blocks(),
                *filter.hasher(),
            )?),
            Part::Wide(filter) => Part::Wide(Wide::with_num_blocks_and_hasher(
                filter.num_blocks(),
                filter.probes(),
                *filter.hasher(),
            )?),
        })
    }

    /// Makes `self` the union of both; errors when they differ in layout, shape or hasher.
    pub fn union(&mut self, other: &Part) -> Result<(), String> {
        match (self, other) {
            (Part::Split(left), Part::Split(right)) => left.union(right),
            (Part::Wide(left), Part::Wide(right)) => left.union(right),
            (left, right) => {
                return Err(format!(
                    "filters differ in layout ({} and {})",
                    left.bits().layout().name(),
                    right.bits().layout().name()
                ));
            }
        }
        .map_err(|error| error.to_string())
    }

    /// The split-block filter, for the crate's `SBLS` chain; `None` for a wide one.
    pub fn into_split(self) -> Option<Stage> {
        match self {
            Part::Split(filter) => Some(filter),
            Part::Wide(_) => None,
        }
    }

    /// The filter, whatever its layout, for everything the module reads.
    pub fn bits(&self) -> &dyn Bitset {
        match self {
            Part::Split(filter) => filter,
            Part::Wide(filter) => filter,
        }
    }

    /// The filter, whatever its layout, for inserts.
    pub fn bits_mut(&mut self) -> &mut dyn Bitset {
        match self {
            Part::Split(filter) => filter,
            Part::Wide(filter) => filter,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout's bitset bytes are exactly the bitset of its `SBLM` bytes, from any offset.
    #[test]
    fn bitset_bytes_are_the_format_bitset() {
        let parts = [
            Part::for_rate(1000, 0.01).unwrap(),
            Part::for_rate(1000, 1e-3).unwrap(),
            Part::for_rate(1000, 1e-6).unwrap(),
        ];
        for mut part in parts {
            for key in 0..500u64 {
                let hash = part.bits().hash_bytes(&key.to_le_bytes());
                part.bits_mut().insert_hash(hash);
            }
            let bits = part.bits();
            let bytes = bits.to_bytes();
            let bitset = &bytes[splitbloom::format::HEADER_BYTES..];
            assert_eq!(bitset.len(), bits.size_in_bytes());
            for (from, to) in [(0, bitset.len()), (3, 77), (bitset.len() - 5, bitset.len())] {
                assert_eq!(&*bits.bitset_bytes(from, to), &bitset[from..to]);
            }
        }
    }

    #[test]
    fn rates_at_and_below_the_threshold_are_wide() {
        let layout = |rate| Part::for_rate(10_000, rate).unwrap().bits().layout();
        assert_eq!(layout(0.0011), LayoutKind::SplitBlock);
        assert_eq!(layout(WIDE_ERROR_RATE), LayoutKind::Wide);
        assert_eq!(layout(1e-6), LayoutKind::Wide);
        for rate in [0.01, 1e-3, 1e-4, 1e-6] {
            let part = Part::for_rate(10_000, rate).unwrap();
            assert_eq!(
                Part::bytes_for_rate(10_000, rate),
                part.bits().size_in_bytes() as u64
            );
        }
    }

    /// The wide filter's estimates follow the keys it holds.
    #[test]
    fn wide_estimates_track_the_keys() {
        let mut part = Part::for_rate(100_000, 1e-4).unwrap();
        for key in 0..100_000u64 {
            let hash = part.bits().hash_bytes(&key.to_le_bytes());
            part.bits_mut().insert_hash(hash);
        }
        let estimated = part.bits().estimated_items();
        assert!((estimated - 100_000.0).abs() < 3_000.0, "{estimated}");
        let fpr = part.bits().estimated_fpr();
        assert!(fpr > 2e-5 && fpr < 2e-4, "{fpr}");
    }

    #[test]
    fn layouts_do_not_union() {
        let mut wide = Part::for_rate(1000, 1e-4).unwrap();
        let split = Part::for_rate(1000, 0.01).unwrap();
        assert!(wide.union(&split).unwrap_err().contains("layout"));
        let twin = wide.empty_like().unwrap();
        wide.union(&twin).unwrap();
    }
}
