//! The one place that chooses a kernel: [`Dispatch`], the enum of kernel tokens a filter stores
//! by value, the run-time detection behind [`Kernel::is_available`] and [`Kernel::best`], and the
//! forwarding of every operation to the chosen kernel: one `match` on the token per operation.
//!
//! The kernels whose single-key operations are calls (all but AVX2 and AVX-512, whose are
//! inline assembly) share one arm of that `match`, [`OutOfLine`], whose single-key operations
//! are one out-of-line function each on x86_64. A caller's loop of lookups, with the
//! key's hash inlined, then sees three cases, which LLVM unswitches (one copy of the loop per
//! case); with every kernel a case of its own, LLVM emits a jump table inside the loop
//! instead, an indirect jump per key.

use core::hash::{BuildHasher, Hash};
use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "aarch64")]
use super::neon;
use super::wide_generic::WideEntryPoints;
use super::window_generic::{self as window, WindowEntryPoints};
use super::{BlockKernel, EntryPoints, portable, scalar};
use super::{OnEveryKernel, Token};
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use crate::block::LANES;
use crate::kind::Kernel;
use crate::wide_block::WORDS;

/// Whether a kernel can run here, and which one filters use.
impl Kernel {
    /// Whether this kernel can run on this CPU (with the `std` feature, detected at run time;
    /// without it, decided by the target features the crate was compiled with).
    ///
    /// ```
    /// use splitbloom::Kernel;
    /// assert!(Kernel::Portable.is_available());
    /// # #[cfg(not(target_arch = "aarch64"))]
    /// assert!(!Kernel::Neon.is_available());
    /// ```
    pub fn is_available(self) -> bool {
        Dispatch::new(self).is_some()
    }

    /// The kernels that can run here, slowest first.
    ///
    /// ```
    /// let names: Vec<_> = splitbloom::Kernel::available().map(|k| k.name()).collect();
    /// assert_eq!(names[0], "scalar");
    /// ```
    pub fn available() -> impl Iterator<Item = Kernel> {
        Kernel::ALL
            .into_iter()
            .filter(|kernel| kernel.is_available())
    }

    /// The kernel new filters use: the fastest available one, detected once and cached.
    ///
    /// With the `std` feature, the `SPLITBLOOM_KERNEL` environment variable (read once, at the
    /// first call) can name another available kernel; tests and benchmarks use it to force a
    /// path. A name that is unknown or unavailable here is ignored.
    ///
    /// ```
    /// let kernel = splitbloom::Kernel::best();
    /// assert_eq!(splitbloom::Filter::with_num_blocks(1).unwrap().kernel(), kernel);
    /// ```
    pub fn best() -> Kernel {
        static CHOSEN: AtomicU8 = AtomicU8::new(u8::MAX);
        let cached = CHOSEN.load(Ordering::Relaxed);
        if let Some(&kernel) = Kernel::ALL.get(usize::from(cached)) {
            return kernel;
        }
        let kernel = requested_kernel().unwrap_or_else(fastest_kernel);
        let index = Kernel::ALL.iter().position(|&k| k == kernel).unwrap_or(0);
        // Any thread racing here computes the same value, so a relaxed store is enough.
        CHOSEN.store(index as u8, Ordering::Relaxed);
        kernel
    }
}

/// The fastest available kernel: the widest first. Portable beats scalar wherever `wide` has
/// real vectors, and AVX-512 is ahead of AVX2 or level with it on every CPU measured, Intel
/// and AMD, so a per-vendor order would gain nothing (BENCHMARKS.md, "Workload").
fn fastest_kernel() -> Kernel {
    [Kernel::Avx512, Kernel::Avx2, Kernel::Neon, Kernel::Portable]
        .into_iter()
        .find(|kernel| kernel.is_available())
        .unwrap_or(Kernel::Scalar)
}

/// The kernel named by `SPLITBLOOM_KERNEL`, if it is set, known and available.
#[cfg(feature = "std")]
fn requested_kernel() -> Option<Kernel> {
    let name = std::env::var("SPLITBLOOM_KERNEL").ok()?;
    name.parse::<Kernel>()
        .ok()
        .filter(|kernel| kernel.is_available())
}

/// Without `std` there is no environment to read.
#[cfg(not(feature = "std"))]
fn requested_kernel() -> Option<Kernel> {
    None
}

/// The kernel a filter uses, as the token that proves it can run here.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Dispatch {
    Scalar(scalar::Scalar),
    Portable(portable::Portable),
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512(avx512::Avx512),
    #[cfg(target_arch = "aarch64")]
    Neon(neon::Neon),
}

impl Dispatch {
    /// The token of `kernel`, or `None` when this CPU cannot run it.
    pub(crate) fn new(kernel: Kernel) -> Option<Dispatch> {
        match kernel {
            Kernel::Scalar => Some(Dispatch::Scalar(scalar::Scalar)),
            Kernel::Portable => Some(Dispatch::Portable(portable::Portable)),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => avx2::Avx2::new().map(Dispatch::Avx2),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => avx512::Avx512::new().map(Dispatch::Avx512),
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => neon::Neon::new().map(Dispatch::Neon),
            #[allow(
                unreachable_patterns,
                reason = "which kernels exist depends on the target"
            )]
            _ => None,
        }
    }

    /// The token of [`Kernel::best`].
    pub(crate) fn best() -> Dispatch {
        Dispatch::new(Kernel::best()).unwrap_or(Dispatch::Scalar(scalar::Scalar))
    }

    /// The public label of this token.
    pub(crate) fn kernel(self) -> Kernel {
        match self {
            Dispatch::Scalar(_) => Kernel::Scalar,
            Dispatch::Portable(_) => Kernel::Portable,
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx2(_) => Kernel::Avx2,
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx512(_) => Kernel::Avx512,
            #[cfg(target_arch = "aarch64")]
            Dispatch::Neon(_) => Kernel::Neon,
        }
    }
}

/// Forwards a call to the kernel `$dispatch` holds: one `match`, written once for every
/// operation. The kernels without inline assembly share one arm, as [`OutOfLine`].
#[cfg(target_arch = "x86_64")]
macro_rules! dispatch {
    ($dispatch:expr, $kernel:ident => $call:expr) => {
        match $dispatch {
            Dispatch::Avx2($kernel) => $call,
            Dispatch::Avx512($kernel) => $call,
            other => {
                let $kernel = OutOfLine(other);
                $call
            }
        }
    };
}

/// Forwards a call to the kernel `$dispatch` holds: elsewhere every kernel is an
/// [`OutOfLine`] one.
#[cfg(not(target_arch = "x86_64"))]
macro_rules! dispatch {
    ($dispatch:expr, $kernel:ident => $call:expr) => {{
        let $kernel = OutOfLine($dispatch);
        $call
    }};
}

/// The kernels whose single-key operations are calls into their entry points (every kernel
/// but AVX2 and AVX-512), as one token: it holds a [`Dispatch`] of one of them.
///
/// On x86_64 its single-key operations are one out-of-line function each, so that a caller
/// sees one call for all these kernels; elsewhere there is nothing to group, and its `match`
/// inlines as it does for every other operation.
#[derive(Clone, Copy)]
struct OutOfLine(Dispatch);

/// Forwards a call to the kernel an [`OutOfLine`] holds. The arm of AVX2 and AVX-512, which
/// [`dispatch!`] never passes here, runs the scalar kernel: every kernel computes its answer
/// bit for bit.
macro_rules! out_of_line {
    ($out_of_line:expr, $kernel:ident => $call:expr) => {
        match $out_of_line.0 {
            Dispatch::Portable($kernel) => $call,
            #[cfg(target_arch = "aarch64")]
            Dispatch::Neon($kernel) => $call,
            _ => {
                let $kernel = scalar::Scalar;
                $call
            }
        }
    };
}

impl BlockKernel for Dispatch {
    #[inline]
    fn mask(self, x: u32) -> [u32; LANES] {
        dispatch!(self, k => k.mask(x))
    }

    #[inline]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        dispatch!(self, k => k.insert(block, x))
    }

    #[inline]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        dispatch!(self, k => k.contains(block, x))
    }
}

impl EntryPoints for Dispatch {
    #[inline(always)]
    fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
        dispatch!(self, k => k.insert_hash(blocks, hash))
    }

    #[inline(always)]
    fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
        dispatch!(self, k => k.contains_hash(blocks, hash))
    }

    #[inline]
    fn insert_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &mut [[u32; LANES]],
        hasher: &S,
        keys: &[K],
        distance: usize,
    ) {
        dispatch!(self, k => k.insert_keys(blocks, hasher, keys, distance))
    }

    #[inline]
    fn contains_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &[[u32; LANES]],
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    ) {
        dispatch!(self, k => k.contains_keys(blocks, hasher, keys, out, distance))
    }
}

impl BlockKernel for OutOfLine {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        out_of_line!(self, k => k.mask(x))
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        out_of_line!(self, k => k.insert(block, x))
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        out_of_line!(self, k => k.contains(block, x))
    }
}

impl EntryPoints for OutOfLine {
    #[cfg_attr(target_arch = "x86_64", inline(never))]
    #[cfg_attr(not(target_arch = "x86_64"), inline(always))]
    fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
        out_of_line!(self, k => k.insert_hash(blocks, hash))
    }

    #[cfg_attr(target_arch = "x86_64", inline(never))]
    #[cfg_attr(not(target_arch = "x86_64"), inline(always))]
    fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
        out_of_line!(self, k => k.contains_hash(blocks, hash))
    }

    #[inline(always)]
    fn insert_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &mut [[u32; LANES]],
        hasher: &S,
        keys: &[K],
        distance: usize,
    ) {
        out_of_line!(self, k => k.insert_keys(blocks, hasher, keys, distance))
    }

    #[inline(always)]
    fn contains_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &[[u32; LANES]],
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    ) {
        out_of_line!(self, k => k.contains_keys(blocks, hasher, keys, out, distance))
    }
}

/// Forwards a call to the kernel `$dispatch` holds, with one arm per kernel (no grouping as
/// [`dispatch!`] does for the single-key inline assembly): the wide layout's operations
/// (`WideFilter`) and the window layout's (`WindowFilter`), one `match` per operation.
macro_rules! every_kernel {
    ($dispatch:expr, $kernel:ident => $call:expr) => {
        match $dispatch {
            Dispatch::Scalar($kernel) => $call,
            Dispatch::Portable($kernel) => $call,
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx2($kernel) => $call,
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx512($kernel) => $call,
            #[cfg(target_arch = "aarch64")]
            Dispatch::Neon($kernel) => $call,
        }
    };
}

impl Dispatch {
    /// Runs `operation` on the kernel this token names: one `match`, then one call into that
    /// kernel's entry point ([`Token::run`]).
    #[inline]
    pub(crate) fn run<O: OnEveryKernel>(self, operation: O) -> O::Output {
        every_kernel!(self, kernel => kernel.run(operation))
    }
}

/// [`WideEntryPoints::wide_contains_hash`] for the kernels whose lookup is a call: one
/// function for all of them.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn wide_contains_hash_out_of_line(
    dispatch: Dispatch,
    blocks: &[[u64; WORDS]],
    probes: u8,
    hash: u64,
) -> bool {
    every_kernel!(dispatch, kernel => kernel.wide_contains_hash(blocks, probes, hash))
}

impl WideEntryPoints for Dispatch {
    #[inline(always)]
    fn wide_insert_hash(self, blocks: &mut [[u64; WORDS]], probes: u8, hash: u64) -> bool {
        every_kernel!(self, kernel => kernel.wide_insert_hash(blocks, probes, hash))
    }

    /// AVX2's and AVX-512's lookups are inline assembly (`wide_avx2.rs`, `wide_avx512.rs`);
    /// every other kernel's is one out-of-line call, so that a caller's loop sees three arms
    /// and chooses between them once, outside the loop, as for the split-block lookups.
    #[inline(always)]
    fn wide_contains_hash(self, blocks: &[[u64; WORDS]], probes: u8, hash: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        match self {
            Dispatch::Avx2(token) => {
                return super::wide_avx2::contains_hash_inline(token, blocks, probes, hash);
            }
            Dispatch::Avx512(token) => {
                return super::wide_avx512::contains_hash_inline(token, blocks, probes, hash);
            }
            _ => {}
        }
        wide_contains_hash_out_of_line(self, blocks, probes, hash)
    }

    #[inline]
    fn wide_insert_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &mut [[u64; WORDS]],
        probes: u8,
        hasher: &S,
        keys: &[K],
        distance: usize,
    ) {
        every_kernel!(
            self,
            kernel => kernel.wide_insert_keys(blocks, probes, hasher, keys, distance)
        )
    }

    #[inline]
    fn wide_contains_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &[[u64; WORDS]],
        probes: u8,
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    ) {
        every_kernel!(
            self,
            kernel => kernel.wide_contains_keys(blocks, probes, hasher, keys, out, distance)
        )
    }
}

impl WindowEntryPoints for Dispatch {
    #[inline(always)]
    fn window_contains_hash(
        self,
        blocks: &[[u32; LANES]],
        shape: (usize, usize),
        hash: u64,
    ) -> bool {
        self.run(window::ContainsHash {
            blocks,
            shape,
            hash,
        })
    }

    #[inline(always)]
    fn window_insert_hash(
        self,
        blocks: &mut [[u32; LANES]],
        shape: (usize, usize),
        newest: usize,
        hash: u64,
    ) -> bool {
        self.run(window::InsertHash {
            blocks,
            shape,
            newest,
            hash,
        })
    }

    #[inline]
    fn window_contains_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &[[u32; LANES]],
        shape: (usize, usize),
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    ) {
        self.run(window::ContainsKeys {
            blocks,
            shape,
            hasher,
            keys,
            out,
            distance,
        });
    }

    #[inline]
    fn window_insert_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &mut [[u32; LANES]],
        shape: (usize, usize),
        newest: usize,
        hasher: &S,
        keys: &[K],
        distance: usize,
    ) {
        self.run(window::InsertKeys {
            blocks,
            shape,
            newest,
            hasher,
            keys,
            distance,
        });
    }
}
