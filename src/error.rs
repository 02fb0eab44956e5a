//! The crate's error type.

use core::fmt;

use crate::kind::{HasherKind, Kernel, LayoutKind};

/// Everything that can go wrong when building or combining filters.
///
/// ```
/// use splitbloom::{Error, Filter};
/// assert_eq!(Filter::with_fpr(0, 0.01).unwrap_err(), Error::ZeroItems);
/// println!("{}", Filter::with_fpr(10, 1.5).unwrap_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A filter was sized for zero items.
    ZeroItems,
    /// A false-positive rate outside the open interval (0, 1), or NaN.
    InvalidFpr(f64),
    /// Bits per key that are not a positive finite number.
    InvalidBitsPerKey(f64),
    /// A filter with zero blocks.
    ZeroBlocks,
    /// The filter would need more blocks than [`MAX_BLOCKS`](crate::math::MAX_BLOCKS).
    TooLarge {
        /// The number of blocks that was asked for.
        blocks: f64,
    },
    /// `items` keys at a false-positive rate of `fpr` would need more than the largest filter
    /// of the type being sized, `max_bytes` bytes.
    TooLargeForRate {
        /// The keys the filter was sized for.
        items: usize,
        /// The false-positive rate it was sized for.
        fpr: f64,
        /// The bytes of the largest filter of the type.
        max_bytes: u64,
    },
    /// A range of a bitset's bytes that is not whole words inside it (`bitset_bytes`,
    /// `load_bitset_bytes`).
    BitsetRange {
        /// The range's first byte.
        start: usize,
        /// One past its last byte.
        end: usize,
        /// The bitset's size in bytes.
        bitset_bytes: usize,
        /// The size of its words in bytes.
        word_bytes: usize,
    },
    /// The allocator could not provide the filter's memory.
    AllocationFailed {
        /// The number of bytes requested.
        bytes: usize,
    },
    /// Two filters with different numbers of blocks were combined.
    ShapeMismatch {
        /// Blocks of the filter being changed.
        left: usize,
        /// Blocks of the other filter.
        right: usize,
    },
    /// A [`WideFilter`](crate::WideFilter) shape that cannot exist: probes other than 1 or 2,
    /// or two probes on a block count that is not a multiple of 64.
    InvalidWideShape {
        /// The number of blocks asked for.
        num_blocks: usize,
        /// The probes per key asked for.
        probes: u8,
    },
    /// Two [`WideFilter`](crate::WideFilter)s with different probes per key were combined.
    ProbesMismatch {
        /// Probes of the filter being changed.
        left: u8,
        /// Probes of the other filter.
        right: u8,
    },
    /// Two filters with different hashers (kind or seed) were combined.
    HasherMismatch,
    /// The requested kernel cannot run on this CPU.
    KernelUnavailable(Kernel),
    /// Serialized bytes do not start with the magic of what was being read: `SBLM` for a
    /// filter, `SBLS` for a scalable filter (see [`format`](crate::format)).
    WrongMagic {
        /// The magic the reader expected.
        expected: [u8; 4],
        /// The first four bytes found.
        found: [u8; 4],
    },
    /// Serialized bytes use a format version this build cannot read.
    UnsupportedVersion {
        /// The version in the header.
        found: u16,
        /// The newest version this build reads.
        supported: u16,
    },
    /// Serialized bytes set header flags this build does not know.
    UnsupportedFlags(u8),
    /// A serialized filter's layout id (header byte 7) is not one this build reads: 0
    /// (split-block), 1 or 2 (wide, one or two probes per key), 5 or 6 (quotient, 8- or 16-bit
    /// tags).
    UnknownLayout(u8),
    /// Serialized bytes hold a filter of another [`LayoutKind`] than the type reading them (a wide
    /// filter read as a [`Filter`](crate::Filter), or the reverse).
    LayoutMismatch {
        /// The layout of the type reading the bytes.
        expected: LayoutKind,
        /// The layout the bytes hold.
        found: LayoutKind,
    },
    /// Serialized bytes end before the header or the bitset it announces is complete.
    Truncated {
        /// Bytes the header and bitset need.
        needed: u64,
        /// Bytes available.
        available: usize,
    },
    /// Serialized bytes are longer than the header and bitset they announce.
    LengthMismatch {
        /// Bytes the header and bitset need.
        expected: u64,
        /// Bytes given.
        found: usize,
    },
    /// The checksum stored in serialized bytes does not match their content: the bytes are
    /// corrupt.
    ChecksumMismatch {
        /// The checksum in the header.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
    /// Serialized bytes name a hasher id that is not 3, 4 or 6: one of the reserved ids 1, 2 and
    /// 5 ([`HasherKind::RESERVED_IDS`]), or one this build does not know.
    UnknownHasher(u8),
    /// The filter's hashes need a hasher this build cannot compute (gxhash, in a build without
    /// AES at compile time). The filter is fine: a build with AES reads it; answering with
    /// another hasher would give false negatives.
    HasherUnavailable(HasherKind),
    /// The filter was built with another kind of hasher than the one asked for.
    HasherKindMismatch {
        /// The kind the caller's type computes.
        expected: HasherKind,
        /// The kind the filter was built with.
        found: HasherKind,
    },
    /// Bytes that should hold a Parquet `BloomFilterHeader` (Thrift compact protocol) do not.
    InvalidParquetHeader(&'static str),
    /// A Parquet bloom filter this crate does not write: it writes bitsets whose size is a power
    /// of two from 32 bytes to 128 MiB ([`parquet::MIN_BITSET_BYTES`](crate::parquet::MIN_BITSET_BYTES)
    /// to [`parquet::MAX_BITSET_BYTES`](crate::parquet::MAX_BITSET_BYTES)), the sizes Parquet
    /// writers choose.
    InvalidParquetSize {
        /// The size in bytes.
        bytes: u64,
    },
    /// A Parquet bloom filter bitset length that no Parquet filter can have: it must be a
    /// positive multiple of 32 bytes (whole blocks), and at most `max` bytes where a bound
    /// applies (a header's `numBytes` is an `i32`).
    InvalidParquetBitsetLength {
        /// The length in bytes.
        bytes: u64,
        /// The largest length accepted where one is (2,147,483,616 bytes for a header).
        max: Option<u64>,
    },
    /// Parquet bloom filters hash with seed 0; this filter's hasher has another seed.
    ParquetSeed(u64),
    /// Only filters with an even number of blocks can be folded.
    CannotFold {
        /// The filter's number of blocks.
        blocks: usize,
    },
    /// A scalable filter's growth factor is not a finite number of at least 1.
    InvalidGrowthFactor(f64),
    /// A scalable filter's tightening ratio is not strictly between 0 and 1.
    InvalidTighteningRatio(f64),
    /// A scalable filter was assembled from no stages.
    NoStages,
    /// A scalable filter's stage does not have the size its parameters give it.
    StageMismatch {
        /// The stage, counted from 0 (the oldest).
        stage: usize,
        /// The blocks the parameters give this stage.
        expected_blocks: usize,
        /// The blocks the stage has.
        found_blocks: usize,
    },
    /// A scalable filter's newest stage was said to hold more items than its capacity.
    StageOverfilled {
        /// The items said to be in the stage.
        items: usize,
        /// The stage's capacity.
        capacity: usize,
    },
    /// A [`QuotientFilter`](crate::QuotientFilter) insert found no free slot in either block its
    /// key may go to, even after trying to move a stored tag to its other block: the filter is
    /// full for this key (near full load, or after many copies of one key). The filter is
    /// unchanged by that key.
    Full {
        /// How many keys of the call went in (or were already present) before the one that did
        /// not fit: 0 for a single insert, the index of the key in a batch. Those stay in.
        processed: usize,
    },
    /// A false-positive rate below what a [`QuotientFilter`](crate::QuotientFilter) is sized
    /// for: 16-bit tags at half load ([`math::quotient::lowest_fpr`](crate::math::quotient::lowest_fpr)).
    FprTooLow {
        /// The rate asked for.
        fpr: f64,
        /// The lowest rate it sizes for.
        lowest: f64,
    },
    /// A serialized [`QuotientFilter`](crate::QuotientFilter)'s block whose metadata does not
    /// describe at most its slots' tags in its buckets, or whose free slots are not zero.
    InvalidQuotientBlock {
        /// The block, counted from 0.
        block: usize,
    },
    /// A window filter's number of generations is not between 1 and
    /// [`MAX_GENERATIONS`](crate::math::MAX_GENERATIONS).
    InvalidGenerations(usize),
    /// A serialized window filter's header holds a field out of range (the reason says which).
    InvalidWindowHeader(&'static str),
    /// Reading or writing a filter's bytes failed; converted from [`std::io::Error`] (kind and
    /// message, so that `Error` stays `Clone` and `PartialEq`), so `?` works on `write_to`.
    #[cfg(feature = "std")]
    Io {
        /// The kind of the I/O error.
        kind: std::io::ErrorKind,
        /// Its message.
        message: alloc::string::String,
    },
}

/// A byte count as a person reads it: `256 GiB`, `1.5 TiB`.
struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        let mut value = self.0 as f64;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        if unit == 0 || libm::trunc(value) == value {
            write!(f, "{value} {}", UNITS[unit])
        } else {
            write!(f, "{value:.1} {}", UNITS[unit])
        }
    }
}

/// A rate as a person writes it: `0.01`, `1e-300` (not three hundred zeros).
struct Rate(f64);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 != 0.0 && self.0.abs() < 1e-4 {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl Error {
    /// `Ok` when `start..end` is whole `unit`-byte units inside `size` bytes, else
    /// [`Error::BitsetRange`]: the check of every chunked accessor of a filter's bytes.
    pub(crate) fn check_whole_units(
        start: usize,
        end: usize,
        size: usize,
        unit: usize,
    ) -> Result<(), Error> {
        if start <= end && end <= size && start.is_multiple_of(unit) && end.is_multiple_of(unit) {
            Ok(())
        } else {
            Err(Error::BitsetRange {
                start,
                end,
                bitset_bytes: size,
                word_bytes: unit,
            })
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroItems => f.write_str("the expected number of items must be at least 1"),
            Error::InvalidFpr(fpr) => {
                write!(
                    f,
                    "false-positive rate {fpr} is not strictly between 0 and 1"
                )
            }
            Error::InvalidBitsPerKey(bits) => {
                write!(f, "bits per key {bits} is not a positive finite number")
            }
            Error::ZeroBlocks => f.write_str("a filter needs at least one block"),
            Error::InvalidGenerations(generations) => write!(
                f,
                "a window filter needs 1 to {} generations, not {generations}",
                crate::layout::window::MAX_GENERATIONS
            ),
            // The byte size depends on the filter type (a counting block is four times larger)
            // and MAX_BLOCKS on the pointer width, so the message states blocks only.
            // Absurd rates ask for astronomically many blocks: past a billion, scientific
            // notation keeps the message one short line (`{:.0}` would print 300 digits).
            Error::TooLarge { blocks } if blocks.abs() >= 1e9 || !blocks.is_finite() => write!(
                f,
                "a filter of {blocks:.3e} blocks exceeds the maximum of {} blocks",
                crate::layout::split_block::MAX_BLOCKS
            ),
            Error::TooLarge { blocks } => write!(
                f,
                "a filter of {blocks:.0} blocks exceeds the maximum of {} blocks",
                crate::layout::split_block::MAX_BLOCKS
            ),
            Error::TooLargeForRate {
                items,
                fpr,
                max_bytes,
            } => write!(
                f,
                "{items} keys at a false-positive rate of {} need more than the largest filter \
                 of this type ({}); allow a higher rate, or spread the keys over several filters \
                 (a ScalableFilter adds stages as keys arrive)",
                Rate(*fpr),
                Bytes(*max_bytes)
            ),
            Error::BitsetRange {
                start,
                end,
                bitset_bytes,
                word_bytes,
            } => write!(
                f,
                "bytes {start}..{end} of a {bitset_bytes}-byte bitset are not whole {word_bytes}-byte \
                 words inside it"
            ),
            Error::AllocationFailed { bytes } => {
                write!(f, "could not allocate {bytes} bytes for the filter")
            }
            Error::ShapeMismatch { left, right } => {
                write!(
                    f,
                    "filters of {left} and {right} blocks cannot be combined: union and intersection need the same number of blocks"
                )
            }
            Error::HasherMismatch => f.write_str(
                "filters with different hashers or seeds cannot be combined: union and intersection need the same hasher and seed",
            ),
            Error::KernelUnavailable(kernel) => {
                write!(
                    f,
                    "the {kernel} kernel cannot run here: this CPU or target lacks its instructions (Kernel::available() lists the kernels that can)"
                )
            }
            Error::WrongMagic { expected, found } => {
                let what = if *expected == *b"SBLS" {
                    "scalable filter"
                } else {
                    "filter"
                };
                write!(
                    f,
                    "not a splitbloom {what}: expected magic bytes \"{}\", found {found:02x?}",
                    expected.escape_ascii()
                )
            }
            Error::UnsupportedVersion { found, supported } => write!(
                f,
                "filter format version {found} is not supported (this build reads versions 1 to {supported}); upgrade splitbloom"
            ),
            Error::UnsupportedFlags(flags) => write!(
                f,
                "filter header flags {flags:#04x} are not known to this build, which reads only flags 0x00; a newer splitbloom may read them"
            ),
            Error::UnknownLayout(id) => write!(
                f,
                "serialized filter uses layout id {id}, unknown to this build, which reads layout ids 0 (split-block), 1 and 2 (wide, one or two probes per key), 5 and 6 (quotient, 8- or 16-bit tags); a newer splitbloom may read it"
            ),
            Error::LayoutMismatch { expected, found } => write!(
                f,
                "the bytes hold a {found} filter, but were read as a {expected} filter; read them with `{name}::from_bytes` (or `{name}Ref::from_bytes` to view them in place)",
                name = found.type_name()
            ),
            Error::Truncated { needed, available } => write!(
                f,
                "serialized filter is truncated: {needed} bytes needed, {available} available"
            ),
            Error::LengthMismatch { expected, found } => write!(
                f,
                "serialized filter has the wrong length: the header announces {expected} bytes, {found} were given (pass exactly one filter)"
            ),
            Error::ChecksumMismatch { stored, computed } => write!(
                f,
                "serialized filter is corrupt: checksum {computed:#018x} does not match the stored {stored:#018x}"
            ),
            Error::UnknownHasher(id) if HasherKind::RESERVED_IDS.contains(id) => write!(
                f,
                "serialized filter uses hasher id {id}, which is reserved: it named a hasher that was never released; this build reads hasher ids 3, 4 and 6"
            ),
            Error::UnknownHasher(id) => write!(
                f,
                "serialized filter uses hasher id {id}, unknown to this build, which reads hasher ids 3, 4 and 6; a newer splitbloom may read it"
            ),
            Error::HasherUnavailable(kind) => write!(
                f,
                "the filter is fine, but it was built with the {kind:?} hasher (hasher id {id}), which this build of splitbloom cannot compute: gxhash needs AES enabled at compile time; rebuild with RUSTFLAGS=\"-C target-feature=+aes\" (or -C target-cpu=native) on x86_64, or on aarch64 with the aes target feature",
                id = kind.id()
            ),
            Error::HasherKindMismatch { expected, found } => write!(
                f,
                "the filter was built with the {found:?} hasher (hasher id {id}), but was read as a filter using {expected:?}; read it with the type `{name}` (e.g. `FilterRef::<{name}>::from_bytes_with_hasher_type`)",
                id = found.id(),
                name = found.type_name()
            ),
            Error::Full { processed: 0 } => f.write_str(
                "the quotient filter is full for this key: both blocks it may go to have no free slot, and no stored tag could move to make room; build a larger filter (QuotientFilter::with_fpr or with_capacity for more keys) or remove keys first",
            ),
            Error::Full { processed } => write!(
                f,
                "the quotient filter is full for key {processed} of the batch: both blocks it may go to have no free slot, and no stored tag could move to make room; the {processed} keys before it went in; build a larger filter (QuotientFilter::with_fpr or with_capacity for more keys) or remove keys first"
            ),
            Error::FprTooLow { fpr, lowest } => write!(
                f,
                "a quotient filter is not sized for a false-positive rate of {fpr}: its lowest is {lowest:.3e} (16-bit tags at half load); use a higher rate, or a WideFilter if keys need not be removed"
            ),
            Error::InvalidQuotientBlock { block } => write!(
                f,
                "serialized quotient filter is invalid: block {block}'s metadata does not describe its tags (more tags than slots, tags after the last bucket, or free slots not zero)"
            ),
            Error::InvalidWindowHeader(reason) => {
                write!(f, "invalid window filter header: {reason}")
            }
            Error::InvalidParquetHeader(reason) => {
                write!(f, "invalid Parquet bloom filter header: {reason}")
            }
            Error::InvalidParquetSize { bytes } => write!(
                f,
                "a Parquet bloom filter of {bytes} bytes is not written: Parquet bitsets are written with a power-of-two size from 32 bytes to 128 MiB, the sizes Parquet writers choose; size the filter with parquet::Sizing"
            ),
            Error::InvalidParquetBitsetLength {
                bytes,
                max: Some(max),
            } => write!(
                f,
                "a Parquet bloom filter bitset of {bytes} bytes is invalid: its length must be a positive multiple of 32 bytes (whole blocks) and at most {max} bytes"
            ),
            Error::InvalidParquetBitsetLength { bytes, max: None } => write!(
                f,
                "a Parquet bloom filter bitset of {bytes} bytes is invalid: its length must be a positive multiple of 32 bytes (whole blocks)"
            ),
            Error::ParquetSeed(seed) => write!(
                f,
                "Parquet bloom filters hash values with seed 0, but this filter uses seed {seed}; build it with ParquetHash::default()"
            ),
            Error::InvalidWideShape { num_blocks, probes } => write!(
                f,
                "a wide filter cannot have {num_blocks} blocks with {probes} probes per key: probes are 1 or 2, and two probes need a multiple of 64 blocks"
            ),
            Error::ProbesMismatch { left, right } => write!(
                f,
                "wide filters with {left} and {right} probes per key cannot be combined: build both with the same shape"
            ),
            Error::CannotFold { blocks } => write!(
                f,
                "a filter of {blocks} blocks cannot be folded: folding halves the number of blocks, which must be even"
            ),
            Error::InvalidGrowthFactor(factor) => write!(
                f,
                "growth factor {factor} must be a finite number of at least 1 (2 is usual)"
            ),
            Error::InvalidTighteningRatio(ratio) => write!(
                f,
                "tightening ratio {ratio} must be strictly between 0 and 1 (0.8 to 0.9 is usual)"
            ),
            Error::NoStages => f.write_str("a scalable filter needs at least one stage"),
            Error::StageMismatch {
                stage,
                expected_blocks,
                found_blocks,
            } => write!(
                f,
                "stage {stage} has {found_blocks} blocks but the parameters give it \
                 {expected_blocks}: the stages were built with other parameters"
            ),
            Error::StageOverfilled { items, capacity } => write!(
                f,
                "the newest stage cannot hold {items} items: its capacity is {capacity}"
            ),
            #[cfg(feature = "std")]
            Error::Io { message, .. } => write!(f, "I/O error: {message}"),
        }
    }
}

impl core::error::Error for Error {}
