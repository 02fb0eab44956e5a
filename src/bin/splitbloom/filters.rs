//! Filter files: reading them, choosing the hasher type from their header, creating new ones.

use std::path::Path;

use splitbloom::format::{self, Header};
use splitbloom::parquet::{ParquetHash, Sizing};
use splitbloom::{Filter, FilterHasher, HasherKind, math};

/// The `--hasher` choices of `build` and `dedup`.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub enum HasherChoice {
    /// This build's default: gxhash where the target has AES, XXH3 elsewhere.
    #[default]
    Default,
    /// XXH3-64, available on every target.
    Xxh3,
    /// Parquet's XXH64 (seed 0) over the key bytes, with a Parquet-compatible power-of-two size.
    Parquet,
}

/// How a new filter is sized and hashed: the options `build` and `dedup` share.
#[derive(clap::Args)]
pub struct NewFilterOptions {
    /// Expected number of distinct keys (sizes the filter).
    #[arg(short = 'n', long)]
    pub items: u64,
    /// Target false-positive rate, strictly between 0 and 1 (e.g. 0.01).
    #[arg(short = 'p', long)]
    pub fpr: f64,
    /// How keys are hashed (stored in the filter, so `query` needs no option).
    #[arg(long, value_enum, default_value_t)]
    pub hasher: HasherChoice,
}

impl NewFilterOptions {
    /// The one-line message for a filter these options cannot size.
    fn sizing_error(&self, error: splitbloom::Error) -> String {
        format!(
            "cannot size a filter for --items {} --fpr {}: {error}",
            self.items, self.fpr
        )
    }
}

/// Calls `$body` with `$S` bound to the hasher type of `$kind`. `GxHash` is nameable in every
/// build; where it cannot run, its reader reports `HasherUnavailable`.
macro_rules! with_hasher {
    ($kind:expr, $S:ident => $body:expr) => {
        match $kind {
            splitbloom::HasherKind::GxHash => {
                type $S = splitbloom::GxHash;
                $body
            }
            splitbloom::HasherKind::Xxh3 => {
                type $S = splitbloom::Xxh3Hash;
                $body
            }
            splitbloom::HasherKind::ParquetXxh64 => {
                type $S = splitbloom::parquet::ParquetHash;
                $body
            }
            _ => {
                type $S = splitbloom::DefaultHasher;
                $body
            }
        }
    };
}
pub(crate) use with_hasher;

/// Calls `$body` with `$filter` bound to a new, empty `Filter` for [`NewFilterOptions`]. The Parquet hasher gets Parquet's power-of-two sizing, so the bitset can go
/// into a Parquet file as is.
macro_rules! with_new_filter {
    ($options:expr, $filter:ident => $body:expr) => {{
        let options: &$crate::filters::NewFilterOptions = &$options;
        match options.hasher {
            $crate::filters::HasherChoice::Default => {
                let $filter = $crate::filters::sized::<splitbloom::DefaultHasher>(options)?;
                $body
            }
            $crate::filters::HasherChoice::Xxh3 => {
                let $filter = $crate::filters::sized::<splitbloom::Xxh3Hash>(options)?;
                $body
            }
            $crate::filters::HasherChoice::Parquet => {
                let $filter = $crate::filters::parquet_filter(options)?;
                $body
            }
        }
    }};
}
pub(crate) use with_new_filter;

/// An empty filter with hasher `S` (default seed) sized for `options`.
pub fn sized<S: FilterHasher + Default>(options: &NewFilterOptions) -> Result<Filter<S>, String> {
    Filter::with_fpr_and_hasher(options.items, options.fpr, S::default())
        .map_err(|error| options.sizing_error(error))
}

/// An empty Parquet-hashed filter with Parquet's sizing.
pub fn parquet_filter(options: &NewFilterOptions) -> Result<Filter<ParquetHash>, String> {
    Sizing::for_items(options.items, options.fpr)
        .and_then(|sizing| sizing.filter())
        .map_err(|error| options.sizing_error(error))
}

/// The name `info` prints for a hasher.
pub fn hasher_name(kind: HasherKind) -> &'static str {
    match kind {
        HasherKind::GxHash => "gxhash",
        HasherKind::Xxh3 => "xxh3",
        HasherKind::ParquetXxh64 => "parquet-xxh64",
        _ => "unknown",
    }
}

/// A filter file read into memory, with its header checked. Lookups run on a `FilterRef` over
/// these bytes (no second copy). The file is read rather than memory-mapped: a map is `unsafe`
/// (the file could change underneath it), the crate keeps `unsafe` to its kernel modules, and
/// the checksum check reads every byte anyway, so a map would save no I/O.
pub struct FilterFile {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The decoded header.
    pub header: Header,
}

impl FilterFile {
    /// Maps `path` and parses its header; errors name the file.
    pub fn open(path: &Path) -> Result<FilterFile, String> {
        let name = path.display();
        let bytes = std::fs::read(path).map_err(|error| format!("cannot open {name}: {error}"))?;
        let header = Header::parse(&bytes).map_err(|error| format!("{name}: {error}"))?;
        Ok(FilterFile { bytes, header })
    }
}

/// Everything `info` and the build summary report about a filter.
pub struct Stats {
    /// Blocks of 32 bytes.
    pub blocks: usize,
    /// Serialized size: header and bitset.
    pub bytes: usize,
    /// Fraction of bits set.
    pub fill_ratio: f64,
    /// Distinct keys estimated from the fill.
    pub estimated_items: f64,
    /// False-positive rate of the filter as it is.
    pub estimated_fpr: f64,
}

impl Stats {
    /// The statistics of a filter of `blocks` blocks with this fill and rate.
    pub fn new(blocks: usize, fill_ratio: f64, estimated_fpr: f64) -> Stats {
        Stats {
            blocks,
            bytes: format::HEADER_BYTES + blocks * splitbloom::BLOCK_BYTES,
            fill_ratio,
            estimated_items: math::keys_per_block_for_fill(fill_ratio) * blocks as f64,
            estimated_fpr,
        }
    }

    /// The statistics of `filter`.
    pub fn of<S>(filter: &Filter<S>) -> Stats {
        Stats::new(
            filter.num_blocks(),
            filter.fill_ratio(),
            filter.estimated_fpr(),
        )
    }

    /// Bits of bitset per estimated key, once at least one key is estimated.
    pub fn bits_per_key(&self) -> Option<f64> {
        (self.estimated_items >= 0.5)
            .then(|| (self.blocks * splitbloom::BLOCK_BYTES * 8) as f64 / self.estimated_items)
    }
}
