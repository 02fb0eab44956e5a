//! The CLI's hashers: the `--hasher` choices, the ids files store, sizing new filters, and the
//! errors for a hasher this build cannot compute.

use std::path::Path;

use splitbloom::parquet::{ParquetHash, Sizing};
use splitbloom::{Filter, FilterHasher, HasherKind};

use crate::print::{approx_number, short_number};

/// The CLI's three hashers, named in this one place: every `--hasher` value and every hasher id
/// the CLI reads maps to one of these types.
pub use splitbloom::{GxHash, Xxh3};
/// Parquet's XXH64 (see [`Xxh3`]).
pub type Parquet = ParquetHash;

/// The hasher id stored in files hashed with [`Xxh3`].
pub const XXH3_ID: u8 = <Xxh3 as FilterHasher>::KIND.id();
/// The hasher id stored in files hashed with [`GxHash`].
pub const GXHASH_ID: u8 = <GxHash as FilterHasher>::KIND.id();
/// The hasher id stored in files hashed with [`Parquet`].
pub const PARQUET_ID: u8 = <Parquet as FilterHasher>::KIND.id();

/// How to get a build that computes gxhash, for error messages.
const GXHASH_BUILD: &str = "gxhash needs AES enabled at compile time: build with RUSTFLAGS=\"-C target-feature=+aes\" (or -C target-cpu=native), e.g. `RUSTFLAGS=\"-C target-feature=+aes\" cargo install --path cli`";

/// The `--hasher` choices of `build` and `dedup`.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub enum HasherChoice {
    /// XXH3-64 of the key bytes (hasher id 4): the library's default, which every build reads.
    #[default]
    Xxh3,
    /// gxhash of keys from 16 bytes up, XXH3-64 below (hasher id 6): faster on long keys, but
    /// only builds with AES enabled at compile time can write or read such a filter.
    Gxhash,
    /// Parquet's XXH64 (seed 0) of the key bytes (hasher id 3), with Parquet's power-of-two
    /// size, so the bitset can go into a Parquet file as is.
    Parquet,
}

/// How a new filter is sized and hashed: the options `build` and `dedup` share.
#[derive(clap::Args)]
pub struct NewFilterOptions {
    /// Expected number of distinct keys (sizes the filter): 1000000, 1_000_000, 1e6 or 2.5e6.
    /// `--capacity` is the same option (RedisBloom's word).
    #[arg(
        short = 'n',
        long,
        visible_alias = "capacity",
        value_name = "COUNT",
        value_parser = crate::numbers::parse_count
    )]
    pub items: u64,
    /// Target false-positive rate, strictly between 0 and 1: a fraction (0.01, 1e-3) or a
    /// percentage (1%); too small a rate for --items gives an error naming the largest filter
    /// this build makes. `--error-rate` and `--rate` are the same option.
    #[arg(
        short = 'p',
        long,
        visible_aliases = ["error-rate", "rate"],
        value_name = "RATE",
        value_parser = crate::numbers::parse_rate
    )]
    pub fpr: f64,
    /// How keys are hashed (stored in the filter, so `query` and `merge` need no option).
    #[arg(long, value_enum, default_value_t)]
    pub hasher: HasherChoice,
}

impl NewFilterOptions {
    /// `--items` as the library's item count; a count beyond `usize` (32-bit targets) becomes
    /// `usize::MAX`, which sizing refuses as too large with the usual message.
    pub fn item_count(&self) -> usize {
        usize::try_from(self.items).unwrap_or(usize::MAX)
    }

    /// The one-line message for a filter these options cannot size.
    pub fn sizing_error(&self, error: splitbloom::Error) -> String {
        let (items, fpr) = (self.items, short_number(self.fpr));
        match error {
            splitbloom::Error::TooLargeForRate { max_bytes, .. } => format!(
                "cannot size a filter for --items {items} --fpr {fpr}: it would need more than the largest filter ({} bytes); use a larger --fpr or a smaller --items",
                approx_number(max_bytes as f64),
            ),
            error => format!("cannot size a filter for --items {items} --fpr {fpr}: {error}"),
        }
    }
}

/// Calls `$body` with `$S` bound to the hasher type of `$kind` (a `HasherKind`); returns the
/// error of [`unsupported_hasher`] from the enclosing function for any other id. The gxhash
/// hasher is nameable in every build; where it cannot run, [`require_hasher`] says so first.
macro_rules! with_hasher {
    ($kind:expr, $S:ident => $body:expr) => {
        match $kind.id() {
            $crate::hashers::XXH3_ID => {
                type $S = $crate::hashers::Xxh3;
                $body
            }
            $crate::hashers::GXHASH_ID => {
                type $S = $crate::hashers::GxHash;
                $body
            }
            $crate::hashers::PARQUET_ID => {
                type $S = $crate::hashers::Parquet;
                $body
            }
            id => return Err($crate::hashers::unsupported_hasher(id)),
        }
    };
}
pub(crate) use with_hasher;

/// Calls `$body` with `$filter` bound to a new, empty `Filter` for [`NewFilterOptions`]. The
/// Parquet hasher gets Parquet's power-of-two sizing, so the bitset can go into a Parquet file
/// as is.
macro_rules! with_new_filter {
    ($options:expr, $filter:ident => $body:expr) => {{
        let options: &$crate::hashers::NewFilterOptions = &$options;
        match options.hasher {
            $crate::hashers::HasherChoice::Xxh3 => {
                let $filter = $crate::hashers::sized::<$crate::hashers::Xxh3>(options)?;
                $body
            }
            $crate::hashers::HasherChoice::Gxhash => {
                let $filter = $crate::hashers::gx_filter(options)?;
                $body
            }
            $crate::hashers::HasherChoice::Parquet => {
                let $filter = $crate::hashers::parquet_filter(options)?;
                $body
            }
        }
    }};
}
pub(crate) use with_new_filter;

/// The error for a file whose hasher id the CLI does not read.
pub fn unsupported_hasher(id: u8) -> String {
    format!(
        "hasher id {id} is not one splitbloom reads: filters are hashed with id {XXH3_ID} (xxh3), {GXHASH_ID} (gxhash) or {PARQUET_ID} (parquet); ids 1, 2 and 5 are reserved"
    )
}

/// An empty filter with hasher `S` (default seed) sized for `options`.
pub fn sized<S: FilterHasher + Default>(options: &NewFilterOptions) -> Result<Filter<S>, String> {
    Filter::with_fpr_and_hasher(options.item_count(), options.fpr, S::default())
        .map_err(|error| options.sizing_error(error))
}

/// An empty gxhash filter (default seed) sized for `options`, or the error for a build that
/// cannot compute gxhash.
pub fn gx_filter(options: &NewFilterOptions) -> Result<Filter<GxHash>, String> {
    Filter::with_fpr_and_hasher(options.item_count(), options.fpr, gx_hasher()?)
        .map_err(|error| options.sizing_error(error))
}

/// The gxhash hasher (default seed), or the error for a build that cannot compute gxhash.
pub fn gx_hasher() -> Result<GxHash, String> {
    GxHash::try_with_seed(splitbloom::DEFAULT_SEED).map_err(|_| {
        format!(
            "--hasher gxhash: this build of splitbloom cannot compute gxhash; {GXHASH_BUILD}; filters written with it are read only by such builds; or use the default --hasher xxh3"
        )
    })
}

/// An empty Parquet-hashed filter with Parquet's sizing.
pub fn parquet_filter(options: &NewFilterOptions) -> Result<Filter<ParquetHash>, String> {
    Sizing::for_items(options.items, options.fpr)
        .and_then(|sizing| sizing.filter())
        .map_err(|error| options.sizing_error(error))
}

/// A hasher's name, as `--hasher` spells it.
pub fn hasher_name(kind: HasherKind) -> &'static str {
    match kind.id() {
        XXH3_ID => "xxh3",
        GXHASH_ID => "gxhash",
        PARQUET_ID => "parquet",
        _ => "unsupported",
    }
}

/// Errors unless this build can compute `hasher`, the hasher of the filter in `name` (a
/// supported id; gxhash only in builds with AES).
pub fn require_hasher(name: &Path, hasher: HasherKind) -> Result<(), String> {
    require_supported(name, hasher)?;
    if hasher.is_available() {
        Ok(())
    } else {
        Err(format!(
            "{}: its keys were hashed with {}, which this build of splitbloom cannot compute; {GXHASH_BUILD}; or rebuild the filter with the default --hasher xxh3",
            name.display(),
            hasher_name(hasher)
        ))
    }
}

/// Errors unless `hasher`, the hasher of the filter in `name`, is one of the three the CLI
/// reads (whether or not this build can compute it).
pub fn require_supported(name: &Path, hasher: HasherKind) -> Result<(), String> {
    let id = hasher.id();
    if [XXH3_ID, GXHASH_ID, PARQUET_ID].contains(&id) {
        Ok(())
    } else {
        Err(format!("{}: {}", name.display(), unsupported_hasher(id)))
    }
}
