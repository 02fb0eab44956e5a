//! Filter files: reading them, choosing the hasher type from their header, creating new ones.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use splitbloom::format::{self, Header};
use splitbloom::parquet::{ParquetHash, Sizing};
use splitbloom::{Filter, FilterHasher, HasherKind, LayoutKind, WideFilter, math};

use crate::out::{approx_number, short_number};

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
const GXHASH_BUILD: &str = "gxhash needs AES enabled at compile time: build with RUSTFLAGS=\"-C target-feature=+aes\" (or -C target-cpu=native), e.g. `RUSTFLAGS=\"-C target-feature=+aes\" cargo install splitbloom --features cli`";

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
    #[arg(short = 'n', long, value_name = "COUNT", value_parser = crate::count::parse_count)]
    pub items: u64,
    /// Target false-positive rate, strictly between 0 and 1 (e.g. 0.01); too small a rate for
    /// --items gives an error naming the largest filter this build makes.
    #[arg(short = 'p', long, value_name = "RATE")]
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
            splitbloom::Error::TooLarge { blocks } => format!(
                "cannot size a filter for --items {items} --fpr {fpr}: it would need about {} blocks, more than the maximum of {} ({} bytes); use a larger --fpr or a smaller --items",
                approx_number(blocks),
                math::MAX_BLOCKS,
                approx_number(math::MAX_BLOCKS as f64 * splitbloom::BLOCK_BYTES as f64),
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
            $crate::filters::XXH3_ID => {
                type $S = $crate::filters::Xxh3;
                $body
            }
            $crate::filters::GXHASH_ID => {
                type $S = $crate::filters::GxHash;
                $body
            }
            $crate::filters::PARQUET_ID => {
                type $S = $crate::filters::Parquet;
                $body
            }
            id => return Err($crate::filters::unsupported_hasher(id)),
        }
    };
}
pub(crate) use with_hasher;

/// Calls `$body` with `$filter` bound to a new, empty `Filter` for [`NewFilterOptions`]. The
/// Parquet hasher gets Parquet's power-of-two sizing, so the bitset can go into a Parquet file
/// as is.
macro_rules! with_new_filter {
    ($options:expr, $filter:ident => $body:expr) => {{
        let options: &$crate::filters::NewFilterOptions = &$options;
        match options.hasher {
            $crate::filters::HasherChoice::Xxh3 => {
                let $filter = $crate::filters::sized::<$crate::filters::Xxh3>(options)?;
                $body
            }
            $crate::filters::HasherChoice::Gxhash => {
                let $filter = $crate::filters::gx_filter(options)?;
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

/// A filter file read into memory, with its header checked. Lookups run on a `FilterRef` over
/// these bytes (no second copy). The file is read rather than memory-mapped: a map is `unsafe`
/// (the file could change underneath it), the crate keeps `unsafe` to its kernel modules, and
/// the checksum check reads every byte anyway, so a map would save no I/O.
///
/// Only the 32-byte header is read first; the rest is read only if the header is valid, and
/// then exactly the length it announces (a regular file of another length is refused unread),
/// so a wrong file costs 32 bytes of reading, whatever its size.
pub struct FilterFile {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The decoded header.
    pub header: Header,
}

/// A file `info` can describe: a filter, or the start of a scalable filter.
pub enum AnyFilterFile {
    /// A plain filter (magic `SBLM`), header checked, bytes not read yet.
    Plain(OpenFilter),
    /// A scalable filter (magic `SBLS`): the open file and its first 64 bytes (or fewer, if
    /// the file is shorter).
    Scalable(File, Vec<u8>),
}

/// A plain filter file whose header has been read and checked.
pub struct OpenFilter {
    file: File,
    /// The decoded header.
    pub header: Header,
    /// The first 32 bytes.
    head: [u8; format::HEADER_BYTES],
    name: String,
}

/// Reads into `buffer` until it is full or the input ends; returns the bytes read.
pub fn read_up_to(file: &mut File, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// The first 4 bytes of every Parquet file, and its last 4.
const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// Opens `path` and reads what identifies it: a plain filter's checked header or a scalable
/// filter's start. Anything else is an error that says what the file is when it can tell
/// (a Parquet file) and what the library found otherwise.
pub fn open_any(path: &Path) -> Result<AnyFilterFile, String> {
    let name = path.display().to_string();
    let read_error = |error: io::Error| format!("cannot read {name}: {error}");
    let mut file = File::open(path).map_err(|error| format!("cannot open {name}: {error}"))?;
    let mut head = [0u8; format::HEADER_BYTES];
    let read = read_up_to(&mut file, &mut head).map_err(read_error)?;
    if head[..read].starts_with(&format::SCALABLE_MAGIC) {
        let mut start = vec![0; format::SCALABLE_HEADER_BYTES];
        start[..read].copy_from_slice(&head[..read]);
        let more = read_up_to(&mut file, &mut start[read..]).map_err(read_error)?;
        start.truncate(read + more);
        return Ok(AnyFilterFile::Scalable(file, start));
    }
    match Header::parse(&head[..read]) {
        Ok(header) => Ok(AnyFilterFile::Plain(OpenFilter {
            file,
            header,
            head,
            name,
        })),
        Err(error) => {
            if head[..read].starts_with(PARQUET_MAGIC) || ends_with_parquet_magic(&mut file) {
                Err(format!(
                    "{name} is a Parquet file, not a splitbloom filter: `splitbloom parquet-info {name}` lists its bloom filters and tests values against them"
                ))
            } else {
                Err(format!("{name}: {error}"))
            }
        }
    }
}

/// Whether a regular file ends with Parquet's magic.
fn ends_with_parquet_magic(file: &mut File) -> bool {
    let regular = file.metadata().is_ok_and(|metadata| metadata.is_file());
    let mut tail = [0u8; 4];
    regular
        && file.seek(SeekFrom::End(-4)).is_ok()
        && read_up_to(file, &mut tail).is_ok_and(|read| read == 4)
        && &tail == PARQUET_MAGIC
}

impl OpenFilter {
    /// Reads the rest of the filter: exactly the length the header announces. A regular file
    /// of another length is refused before anything more is read.
    pub fn read(mut self) -> Result<FilterFile, String> {
        let name = &self.name;
        let expected = self.header.serialized_len();
        let metadata = self
            .file
            .metadata()
            .map_err(|error| format!("cannot read {name}: {error}"))?;
        if metadata.is_file() && metadata.len() != expected {
            let found = usize::try_from(metadata.len()).unwrap_or(usize::MAX);
            let error = if metadata.len() < expected {
                splitbloom::Error::Truncated {
                    needed: expected,
                    available: found,
                }
            } else {
                splitbloom::Error::LengthMismatch { expected, found }
            };
            return Err(format!("{name}: {error}"));
        }
        // One byte more than announced, so a longer stream (a pipe) is detected too.
        let capacity = usize::try_from(expected)
            .ok()
            .and_then(|length| length.checked_add(1));
        let mut bytes = Vec::new();
        capacity
            .and_then(|capacity| bytes.try_reserve_exact(capacity).ok())
            .ok_or_else(|| {
                format!("{name}: cannot allocate {expected} bytes to read the filter")
            })?;
        bytes.extend_from_slice(&self.head);
        (&mut self.file)
            .take(expected + 1 - format::HEADER_BYTES as u64)
            .read_to_end(&mut bytes)
            .map_err(|error| format!("cannot read {name}: {error}"))?;
        Ok(FilterFile {
            bytes,
            header: self.header,
        })
    }
}

impl FilterFile {
    /// Opens `path`, checks its header, then reads it; errors name the file. A scalable filter
    /// is refused with a message saying what it is.
    pub fn open(path: &Path) -> Result<FilterFile, String> {
        match open_any(path)? {
            AnyFilterFile::Plain(filter) => filter.read(),
            AnyFilterFile::Scalable(..) => Err(format!(
                "{} is a scalable filter (magic SBLS); this command reads plain filters only (`splitbloom info` shows its header; a program reads it with ScalableFilter::from_bytes)",
                path.display()
            )),
        }
    }

    /// Opens `path` and checks only its header.
    pub fn header(path: &Path) -> Result<Header, String> {
        match open_any(path)? {
            AnyFilterFile::Plain(filter) => Ok(filter.header),
            AnyFilterFile::Scalable(..) => FilterFile::open(path).map(|file| file.header),
        }
    }
}

/// Errors unless this build can compute the hasher of the filter in `name` (a supported id;
/// gxhash only in builds with AES).
pub fn require_hasher(name: &Path, header: &Header) -> Result<(), String> {
    require_supported(name, header)?;
    if header.hasher.is_available() {
        Ok(())
    } else {
        Err(format!(
            "{}: its keys were hashed with {}, which this build of splitbloom cannot compute; {GXHASH_BUILD}; or rebuild the filter with the default --hasher xxh3",
            name.display(),
            hasher_name(header.hasher)
        ))
    }
}

/// Errors unless the filter in `name` has one of the three hasher ids the CLI reads (whether
/// or not this build can compute it).
pub fn require_supported(name: &Path, header: &Header) -> Result<(), String> {
    let id = header.hasher.id();
    if [XXH3_ID, GXHASH_ID, PARQUET_ID].contains(&id) {
        Ok(())
    } else {
        Err(format!("{}: {}", name.display(), unsupported_hasher(id)))
    }
}

/// Everything `info` and the build summary report about a filter.
pub struct Stats {
    /// The filter's layout.
    pub layout: LayoutKind,
    /// Blocks a key's bits go into: 1, or 2 for a two-probe wide filter.
    pub probes: u8,
    /// Blocks (32 bytes each in the split-block layout, 64 in the wide one).
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
    /// The statistics of a split-block filter of `blocks` blocks with this fill and rate.
    pub fn new(blocks: usize, fill_ratio: f64, estimated_fpr: f64) -> Stats {
        Stats {
            layout: LayoutKind::SplitBlock,
            probes: 1,
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

    /// The statistics of a wide filter of `blocks` blocks and `probes` probes with this fill:
    /// the keys the fill implies (`math::wide::items_for_fill`), and the layout's rate at that
    /// many keys (`math::wide::false_positive_rate`).
    pub fn wide(blocks: usize, probes: u8, fill_ratio: f64) -> Stats {
        let estimated_items = math::wide::items_for_fill(fill_ratio, blocks, probes);
        let items = if estimated_items.is_finite() {
            estimated_items.round() as usize
        } else {
            usize::MAX
        };
        Stats {
            layout: LayoutKind::Wide,
            probes,
            blocks,
            bytes: format::HEADER_BYTES + blocks * math::wide::WIDE_BLOCK_BYTES,
            fill_ratio,
            estimated_items,
            estimated_fpr: math::wide::false_positive_rate(items, blocks, probes),
        }
    }

    /// The statistics of a wide `filter`.
    pub fn of_wide<S>(filter: &WideFilter<S>) -> Stats {
        Stats::wide(
            filter.num_blocks(),
            filter.layout().probes(),
            filter.fill_ratio(),
        )
    }

    /// The layout as the summaries name it: `split-block`, or `wide (2 probes)`.
    pub fn describe_layout(&self) -> String {
        match self.layout {
            LayoutKind::Wide => format!(
                "wide ({} {})",
                self.probes,
                if self.probes == 1 { "probe" } else { "probes" }
            ),
            layout => layout.name().to_owned(),
        }
    }

    /// Bits of bitset per estimated key, once at least one key is estimated.
    pub fn bits_per_key(&self) -> Option<f64> {
        let bits = ((self.bytes - format::HEADER_BYTES) * 8) as f64;
        (self.estimated_items >= 0.5).then(|| bits / self.estimated_items)
    }
}
