//! The public label of a kernel: its names, [`Display`](fmt::Display) and [`FromStr`]. A leaf
//! module: whether a kernel can run here, and which is best, is decided in `arch::dispatch`
//! (`Kernel::is_available`, `Kernel::available`, `Kernel::best`), next to the detection.

use core::fmt;
use core::str::FromStr;

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
    /// AVX2 intrinsics (x86_64 with AVX2 and BMI2, detected at run time).
    Avx2,
    /// The AVX2 arithmetic in AVX-512 (EVEX) encoding, 256 bits wide, with mask-register tests
    /// (x86_64 with AVX-512F, VL and DQ, detected at run time): its single-key lookup needs no
    /// `vzeroupper`.
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
