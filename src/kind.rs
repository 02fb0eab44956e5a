//! The public labels: [`HasherKind`], which names a hasher in serialized filters, and [`Kernel`],
//! which names a kernel. A leaf module, so that every other module (the error type among them)
//! can name a hasher or a kernel without importing the code behind it: whether a kernel can run
//! here, and which is best, is decided in `arch::dispatch` (`Kernel::is_available`,
//! `Kernel::available`, `Kernel::best`), next to the detection.

use core::fmt;
use core::str::FromStr;

/// Which algorithm a hasher computes; stored in serialized filters (the header's hasher id) so
/// that a reader refuses a filter whose hashes it would not reproduce.
///
/// The ids are frozen: 4 ([`Xxh3`](crate::Xxh3), the default), 6 ([`GxHash`](crate::GxHash)) and
/// 3 ([`ParquetHash`](crate::parquet::ParquetHash)). Ids 1, 2 and 5 are reserved: they named
/// hashers that were never released, and reading a filter with one is
/// [`Error::UnknownHasher`](crate::Error::UnknownHasher).
///
/// ```
/// use splitbloom::{FilterHasher, HasherKind, Xxh3};
/// assert_eq!(Xxh3::KIND, HasherKind::Xxh3);
/// assert_eq!(HasherKind::from_id(HasherKind::Xxh3.id()), Some(HasherKind::Xxh3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HasherKind {
    /// [`Xxh3`](crate::Xxh3), the default (id 4): exactly `XXH3_64_withSeed(bytes, seed)` for a
    /// string or byte string, one folded multiply for an integer.
    Xxh3,
    /// [`GxHash`](crate::GxHash), opt-in (id 6): `XXH3_64_withSeed(bytes, seed)` under 16 bytes,
    /// `gxhash64(bytes, seed ^ len)` from 16 bytes up, one folded multiply for an integer.
    GxHash,
    /// [`ParquetHash`](crate::parquet::ParquetHash) (id 3): XXH64, as Parquet hashes values.
    Parquet,
}

impl HasherKind {
    /// Every hasher kind this crate knows, available here or not.
    ///
    /// ```
    /// assert_eq!(splitbloom::HasherKind::ALL.len(), 3);
    /// ```
    pub const ALL: [HasherKind; 3] = [HasherKind::Xxh3, HasherKind::GxHash, HasherKind::Parquet];

    /// The ids that named hashers which were never released: never reused, and refused by
    /// every reader.
    ///
    /// ```
    /// use splitbloom::HasherKind;
    /// assert!(HasherKind::RESERVED_IDS.iter().all(|&id| HasherKind::from_id(id).is_none()));
    /// ```
    pub const RESERVED_IDS: [u8; 3] = [1, 2, 5];

    /// The stable numeric id stored in a filter's header: 3, 4 or 6.
    ///
    /// ```
    /// use splitbloom::HasherKind;
    /// assert_eq!(HasherKind::Xxh3.id(), 4);
    /// assert_eq!(HasherKind::GxHash.id(), 6);
    /// assert_eq!(HasherKind::Parquet.id(), 3);
    /// ```
    pub const fn id(self) -> u8 {
        match self {
            HasherKind::Parquet => 3,
            HasherKind::Xxh3 => 4,
            HasherKind::GxHash => 6,
        }
    }

    /// The kind with numeric id `id`; `None` for the reserved ids 1, 2 and 5 and every
    /// unassigned one.
    ///
    /// ```
    /// use splitbloom::HasherKind;
    /// assert_eq!(HasherKind::from_id(4), Some(HasherKind::Xxh3));
    /// assert_eq!(HasherKind::from_id(6), Some(HasherKind::GxHash));
    /// assert_eq!(HasherKind::from_id(3), Some(HasherKind::Parquet));
    /// assert_eq!(HasherKind::from_id(2), None); // reserved
    /// assert_eq!(HasherKind::from_id(7), None);
    /// ```
    pub const fn from_id(id: u8) -> Option<HasherKind> {
        match id {
            3 => Some(HasherKind::Parquet),
            4 => Some(HasherKind::Xxh3),
            6 => Some(HasherKind::GxHash),
            _ => None,
        }
    }

    /// The path of the hasher type that computes this kind: the type to name to read a filter
    /// built with it (`FilterRef::<T>::from_bytes_with_hasher_type`).
    ///
    /// ```
    /// use splitbloom::HasherKind;
    /// assert_eq!(HasherKind::Xxh3.type_name(), "splitbloom::Xxh3");
    /// assert_eq!(HasherKind::Parquet.type_name(), "splitbloom::parquet::ParquetHash");
    /// ```
    pub const fn type_name(self) -> &'static str {
        match self {
            HasherKind::Xxh3 => "splitbloom::Xxh3",
            HasherKind::GxHash => "splitbloom::GxHash",
            HasherKind::Parquet => "splitbloom::parquet::ParquetHash",
        }
    }

    /// Whether this build can compute this kind of hash: gxhash needs AES at compile time (e.g.
    /// `RUSTFLAGS="-C target-feature=+aes"` on x86_64); the others run everywhere.
    ///
    /// ```
    /// use splitbloom::HasherKind;
    /// assert!(HasherKind::Xxh3.is_available());
    /// assert!(HasherKind::Parquet.is_available());
    /// ```
    pub const fn is_available(self) -> bool {
        match self {
            HasherKind::GxHash => cfg!(splitbloom_gxhash),
            HasherKind::Xxh3 | HasherKind::Parquet => true,
        }
    }
}

/// The kernels splitbloom can run, as a public label.
///
/// Every kernel produces the same bits and answers; they differ only in speed. A filter picks
/// [`Kernel::best`] unless told otherwise with [`Filter::with_kernel`](crate::Filter::with_kernel).
///
/// ```
/// use splitbloom::Kernel;
/// // The scalar reference kernel runs everywhere.
/// assert!(Kernel::Scalar.is_available());
/// assert!(Kernel::best().is_available());
/// for kernel in Kernel::available() {
///     println!("{kernel} can run here");
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kernel {
    /// Plain Rust, one lane at a time: the reference oracle. Runs everywhere.
    Scalar,
    /// `wide::u32x8`: SSE2 on x86_64, NEON on aarch64, simd128 on wasm32, scalar elsewhere.
    Portable,
    /// AVX2 intrinsics (x86_64 with AVX2, BMI2 and POPCNT, detected at run time).
    Avx2,
    /// The AVX2 arithmetic in AVX-512 (EVEX) encoding, 256 bits wide, with mask-register tests
    /// (x86_64 with AVX-512F, VL, DQ and BW, detected at run time): its single-key lookup needs
    /// no `vzeroupper`. The quotient layout's compares and shifts use all 512 bits.
    Avx512,
    /// NEON intrinsics (aarch64).
    Neon,
}

impl Kernel {
    /// Every kernel this crate knows, available here or not.
    ///
    /// ```
    /// assert!(splitbloom::Kernel::ALL.contains(&splitbloom::Kernel::Scalar));
    /// ```
    pub const ALL: [Kernel; 5] = [
        Kernel::Scalar,
        Kernel::Portable,
        Kernel::Avx2,
        Kernel::Avx512,
        Kernel::Neon,
    ];

    /// The kernel's lower-case name, as accepted by [`str::parse`] and `SPLITBLOOM_KERNEL`.
    ///
    /// ```
    /// use splitbloom::Kernel;
    /// assert_eq!(Kernel::Avx2.name(), "avx2");
    /// assert_eq!("avx2".parse::<Kernel>(), Ok(Kernel::Avx2));
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
            Kernel::Neon => "neon",
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Kernel`] from a name that is not one of [`Kernel::ALL`].
///
/// ```
/// assert!("sse9".parse::<splitbloom::Kernel>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKernel;

impl fmt::Display for UnknownKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown kernel (expected one of: scalar, portable, avx2, avx512, neon)")
    }
}

impl core::error::Error for UnknownKernel {}

impl FromStr for Kernel {
    type Err = UnknownKernel;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Kernel::ALL
            .into_iter()
            .find(|kernel| kernel.name().eq_ignore_ascii_case(name.trim()))
            .ok_or(UnknownKernel)
    }
}

/// How a filter's bits are laid out, stored in a serialized filter's header (byte 7) so that a
/// reader refuses bytes of a layout its type would misread.
///
/// ```
/// use splitbloom::{LayoutKind, WideFilter, format::Header};
/// let bytes = WideFilter::with_num_blocks(64, 2)?.to_bytes();
/// let header = Header::parse(&bytes)?;
/// assert_eq!((header.layout, header.probes), (LayoutKind::Wide, 2));
/// assert_eq!(LayoutKind::SplitBlock.name(), "split-block");
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayoutKind {
    /// [`Filter`](crate::Filter)'s 32-byte blocks, eight bits per key in one block: the
    /// Parquet split-block layout (layout id 0).
    SplitBlock,
    /// [`WideFilter`](crate::WideFilter)'s 64-byte blocks, eight bits per key in each of one or
    /// two blocks (layout ids 1 and 2: the probes per key).
    Wide,
    /// [`QuotientFilter`](crate::QuotientFilter)'s 64-byte blocks of tags and bucket metadata,
    /// one tag per key in one of two blocks (layout ids 5 and 6: 8- and 16-bit tags).
    Quotient,
}

impl LayoutKind {
    /// The layout's lower-case name: `"split-block"`, `"wide"` or `"quotient"`.
    ///
    /// ```
    /// assert_eq!(splitbloom::LayoutKind::Wide.name(), "wide");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            LayoutKind::SplitBlock => "split-block",
            LayoutKind::Wide => "wide",
            LayoutKind::Quotient => "quotient",
        }
    }

    /// The path of the owned filter type that reads this layout.
    ///
    /// ```
    /// assert_eq!(splitbloom::LayoutKind::Wide.type_name(), "splitbloom::WideFilter");
    /// ```
    pub const fn type_name(self) -> &'static str {
        match self {
            LayoutKind::SplitBlock => "splitbloom::Filter",
            LayoutKind::Wide => "splitbloom::WideFilter",
            LayoutKind::Quotient => "splitbloom::QuotientFilter",
        }
    }

    /// The size of one block of this layout in bytes: 32 or 64.
    ///
    /// ```
    /// assert_eq!(splitbloom::LayoutKind::SplitBlock.block_bytes(), 32);
    /// assert_eq!(splitbloom::LayoutKind::Wide.block_bytes(), 64);
    /// ```
    pub const fn block_bytes(self) -> usize {
        match self {
            LayoutKind::SplitBlock => 32,
            LayoutKind::Wide | LayoutKind::Quotient => 64,
        }
    }
}

/// The layout's [`name`](LayoutKind::name).
///
/// ```
/// assert_eq!(splitbloom::LayoutKind::Wide.to_string(), "wide");
/// ```
impl fmt::Display for LayoutKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The width of a [`QuotientFilter`](crate::QuotientFilter)'s tags: what each stored key
/// keeps of its hash, besides its bucket. Wider tags give lower false-positive rates for more
/// memory per key (see [`math::quotient`](crate::math::quotient)).
///
/// ```
/// use splitbloom::TagBits;
/// assert_eq!(TagBits::Eight.bits(), 8);
/// assert_eq!(TagBits::from_bits(16), Some(TagBits::Sixteen));
/// assert_eq!(TagBits::from_bits(12), None);
/// assert_eq!(TagBits::Sixteen.slots_per_block(), 28);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TagBits {
    /// 8-bit tags: 48 slots and 80 buckets per 64-byte block (SBLM layout id 5).
    Eight,
    /// 16-bit tags: 28 slots and 36 buckets per 64-byte block (SBLM layout id 6).
    Sixteen,
}

impl TagBits {
    /// Both widths, narrowest first.
    ///
    /// ```
    /// assert_eq!(splitbloom::TagBits::ALL.len(), 2);
    /// ```
    pub const ALL: [TagBits; 2] = [TagBits::Eight, TagBits::Sixteen];

    /// Bits per tag: 8 or 16.
    ///
    /// ```
    /// assert_eq!(splitbloom::TagBits::Sixteen.bits(), 16);
    /// ```
    pub const fn bits(self) -> u32 {
        match self {
            TagBits::Eight => 8,
            TagBits::Sixteen => 16,
        }
    }

    /// The width of `bits`-bit tags, or `None` for a width this crate does not have.
    ///
    /// ```
    /// assert_eq!(splitbloom::TagBits::from_bits(8), Some(splitbloom::TagBits::Eight));
    /// ```
    pub const fn from_bits(bits: u32) -> Option<TagBits> {
        match bits {
            8 => Some(TagBits::Eight),
            16 => Some(TagBits::Sixteen),
            _ => None,
        }
    }

    /// Tag slots per 64-byte block: 48 or 28.
    ///
    /// ```
    /// assert_eq!(splitbloom::TagBits::Eight.slots_per_block(), 48);
    /// ```
    pub const fn slots_per_block(self) -> usize {
        match self {
            TagBits::Eight => 48,
            TagBits::Sixteen => 28,
        }
    }

    /// Buckets per 64-byte block: 80 or 36.
    ///
    /// ```
    /// assert_eq!(splitbloom::TagBits::Sixteen.buckets_per_block(), 36);
    /// ```
    pub const fn buckets_per_block(self) -> usize {
        match self {
            TagBits::Eight => 80,
            TagBits::Sixteen => 36,
        }
    }
}
