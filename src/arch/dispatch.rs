//! The one place that chooses a kernel: [`Dispatch`], the enum of kernel tokens a filter stores
//! by value, the run-time detection behind [`Kernel::is_available`] and [`Kernel::best`], and the
//! forwarding of every operation to the chosen kernel: one `match` on the token per operation
//! ([`Dispatch::run`]).
//!
//! The single-key operations of the Bloom layouts ([`Dispatch::contains_hash`],
//! [`Dispatch::insert_hash`]) give AVX2 and AVX-512 an arm each, where the layout's hook may be
//! inline assembly, and share one out-of-line function among the other kernels
//! ([`out_of_line`]). A caller's loop of lookups, with the key's hash inlined, then sees three
//! cases, which LLVM unswitches (one copy of the loop per case); with every kernel a case of
//! its own, LLVM emits a jump table inside the loop instead, an indirect jump per key.

use core::hash::{BuildHasher, Hash};
use core::sync::atomic::{AtomicU8, Ordering};

use super::batch::{ContainsKeys, InsertKeys};
#[cfg(target_arch = "aarch64")]
use super::neon;
use super::primitives::{BloomOps, ContainsHash, InsertHash, SplitBlockKernel, WindowKernel};
use super::{OnEveryKernel, Operation, OperationOn, Token, portable, scalar};
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use crate::kind::Kernel;
use crate::layout::split_block::LANES;
use crate::layout::window::{Generations, Plane, with_shape};

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

/// Forwards a call to the kernel `$dispatch` holds, with one arm per kernel: the one `match`
/// of [`Dispatch::run`].
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
// The layouts' kernel tests reach each kernel's primitives through it.
#[cfg(test)]
pub(crate) use every_kernel;

impl Dispatch {
    /// Runs `operation` on the kernel this token names: one `match`, then one call into that
    /// kernel's entry point ([`Token::run`]).
    #[inline]
    pub(crate) fn run<O: OnEveryKernel>(self, operation: O) -> O::Output {
        every_kernel!(self, kernel => kernel.run(operation))
    }

    /// Whether the pre-hashed key may be present in `blocks` of `layout`. AVX2 and AVX-512
    /// answer through the layout's hook (inline assembly for the split-block and wide
    /// layouts); every other kernel through one out-of-line call.
    #[inline(always)]
    pub(crate) fn contains_hash<P: BloomLayout>(
        self,
        layout: P,
        blocks: &[P::Block],
        hash: u64,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        match self {
            Dispatch::Avx2(kernel) => return layout.contains_hash(kernel, blocks, hash),
            Dispatch::Avx512(kernel) => return layout.contains_hash(kernel, blocks, hash),
            _ => {}
        }
        out_of_line(
            self,
            ContainsHash {
                layout,
                blocks,
                hash,
            },
        )
    }

    /// Inserts the pre-hashed key into `blocks` of `layout`; `true` when every bit was already
    /// set. Forwarded as [`contains_hash`](Dispatch::contains_hash) is.
    #[inline(always)]
    pub(crate) fn insert_hash<P: BloomLayout>(
        self,
        layout: P,
        blocks: &mut [P::Block],
        hash: u64,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        match self {
            Dispatch::Avx2(kernel) => return layout.insert_hash(kernel, blocks, hash),
            Dispatch::Avx512(kernel) => return layout.insert_hash(kernel, blocks, hash),
            _ => {}
        }
        out_of_line(
            self,
            InsertHash {
                layout,
                blocks,
                hash,
            },
        )
    }

    /// Writes into `out[i]` whether `keys[i]` may be present in `blocks` of `layout`, each key
    /// hashed with `hasher` and prefetched `distance` keys ahead (0: none). Panics unless
    /// `out.len() == keys.len()`.
    #[inline]
    pub(crate) fn contains_keys<P: BloomLayout, S: BuildHasher, K: Hash>(
        self,
        layout: P,
        blocks: &[P::Block],
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    ) {
        self.run(ContainsKeys {
            layout,
            blocks,
            hasher,
            keys,
            out,
            distance,
        });
    }

    /// Inserts every key of `keys` into `blocks` of `layout`, hashed with `hasher` and
    /// prefetched `distance` keys ahead (0: none).
    #[inline]
    pub(crate) fn insert_keys<P: BloomLayout, S: BuildHasher, K: Hash>(
        self,
        layout: P,
        blocks: &mut [P::Block],
        hasher: &S,
        keys: &[K],
        distance: usize,
    ) {
        self.run(InsertKeys {
            layout,
            blocks,
            hasher,
            keys,
            distance,
        });
    }

    /// The split-block mask of `x`, for the filters whose blocks are not plain words (atomic
    /// lanes, counters).
    #[inline]
    pub(crate) fn mask(self, x: u32) -> [u32; LANES] {
        self.run(Mask(x))
    }

    /// Whether every bit of `x`'s split-block mask is set in `block`, for the filters whose
    /// blocks are not plain words (a block loaded from atomic lanes).
    #[inline]
    pub(crate) fn contains_block(self, block: &[u32; LANES], x: u32) -> bool {
        self.run(ContainsBlock(block, x))
    }
}

impl Dispatch {
    /// Whether the pre-hashed key may be present in window `layout` (`words`: at least its
    /// groups). AVX2 and AVX-512 answer the shapes whose groups are whole lines with inline
    /// assembly; every other kernel and shape goes through one out-of-line call, inside which
    /// the shape is chosen ([`WindowContainsHash`]), so that a caller's loop holds one call
    /// site, as for [`contains_hash`](Dispatch::contains_hash).
    #[inline(always)]
    pub(crate) fn window_contains_hash(
        self,
        layout: Generations,
        words: &[u32],
        hash: u64,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        let inline = match self {
            Dispatch::Avx2(kernel) => kernel.contains_hash_inline(layout, words, hash),
            Dispatch::Avx512(kernel) => kernel.contains_hash_inline(layout, words, hash),
            _ => None,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let inline = None;
        match inline {
            Some(found) => found,
            None => out_of_line(
                self,
                WindowContainsHash {
                    layout,
                    words,
                    hash,
                },
            ),
        }
    }

    /// Whether any plane of `group` (one block index's planes of `plane`'s size) holds every
    /// bit of `x`'s mask, for windows whose planes are not plain words (loaded from atomic
    /// ones).
    #[cfg_attr(not(target_has_atomic = "64"), allow(dead_code))]
    #[inline]
    pub(crate) fn window_contains_any(self, group: &[u32], plane: Plane, x: u32) -> bool {
        self.run(ContainsAny { group, plane, x })
    }
}

/// The window's test of one block index's planes, on the kernel that runs it.
#[cfg_attr(not(target_has_atomic = "64"), allow(dead_code))]
struct ContainsAny<'a> {
    group: &'a [u32],
    plane: Plane,
    x: u32,
}

impl Operation for ContainsAny<'_> {
    type Output = bool;
}

impl<K: WindowKernel> OperationOn<K> for ContainsAny<'_> {
    #[inline(always)]
    fn run_on(self, kernel: K) -> bool {
        kernel.contains_any(self.group, self.plane, self.x)
    }
}

/// The window's single-key lookup inside a kernel's entry point: the shape chosen
/// (`with_shape!`), then that shape's lookup.
struct WindowContainsHash<'a> {
    layout: Generations,
    words: &'a [u32],
    hash: u64,
}

impl Operation for WindowContainsHash<'_> {
    type Output = bool;
}

impl<K: WindowKernel> OperationOn<K> for WindowContainsHash<'_> {
    #[inline(always)]
    fn run_on(self, kernel: K) -> bool {
        let (words, hash) = (self.words, self.hash);
        with_shape!(self.layout, layout => ContainsHash {
            layout,
            blocks: words,
            hash,
        }
        .run_on(kernel))
    }
}

/// [`Dispatch::run`] behind a call, for the single-key operations of the kernels without an
/// inline path: one function for all of them (see the module docs).
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline(always))]
fn out_of_line<O: OnEveryKernel>(dispatch: Dispatch, operation: O) -> O::Output {
    dispatch.run(operation)
}

/// The split-block mask of an in-block hash, on the kernel that runs it.
struct Mask(u32);

impl Operation for Mask {
    type Output = [u32; LANES];
}

impl<K: SplitBlockKernel> OperationOn<K> for Mask {
    #[inline(always)]
    fn run_on(self, kernel: K) -> [u32; LANES] {
        kernel.mask(self.0)
    }
}

/// The split-block test of one block, on the kernel that runs it.
struct ContainsBlock<'a>(&'a [u32; LANES], u32);

impl Operation for ContainsBlock<'_> {
    type Output = bool;
}

impl<K: SplitBlockKernel> OperationOn<K> for ContainsBlock<'_> {
    #[inline(always)]
    fn run_on(self, kernel: K) -> bool {
        SplitBlockKernel::contains(kernel, self.0, self.1)
    }
}

/// A Bloom layout every kernel of this target implements: what the filters' generic code
/// bounds its layout parameter by, so that [`Dispatch`] can run its
/// operations on whichever kernel a filter holds.
pub(crate) trait BloomLayout:
    BloomOps<scalar::Scalar> + BloomOps<portable::Portable> + BloomArch
{
}

impl<P: BloomOps<scalar::Scalar> + BloomOps<portable::Portable> + BloomArch> BloomLayout for P {}

/// The kernels of this architecture, as a bound ([`BloomLayout`] without the `cfg`s).
#[cfg(target_arch = "x86_64")]
pub(crate) trait BloomArch: BloomOps<avx2::Avx2> + BloomOps<avx512::Avx512> {}
#[cfg(target_arch = "x86_64")]
impl<P: BloomOps<avx2::Avx2> + BloomOps<avx512::Avx512>> BloomArch for P {}

/// The kernels of this architecture, as a bound ([`BloomLayout`] without the `cfg`s).
#[cfg(target_arch = "aarch64")]
pub(crate) trait BloomArch: BloomOps<neon::Neon> {}
#[cfg(target_arch = "aarch64")]
impl<P: BloomOps<neon::Neon>> BloomArch for P {}

/// The kernels of this architecture, as a bound: none beyond scalar and portable here.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) trait BloomArch {}
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
impl<P> BloomArch for P {}
