//! The one place that chooses a kernel: [`Dispatch`], the enum of kernel tokens a filter stores
//! by value, the run-time detection behind [`Kernel::is_available`] and [`Kernel::best`], and the
//! forwarding of every operation to the chosen kernel's entry points.

use core::hash::{BuildHasher, Hash};
use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "aarch64")]
use super::neon;
use super::{BlockKernel, EntryPoints, portable, scalar};
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use crate::block::LANES;
use crate::kind::Kernel;

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

/// The fastest available kernel. Portable beats scalar wherever `wide` has real vectors
/// (measured: see the README's kernel table), so the order is simply widest first. AVX-512
/// goes before AVX2 on every vendor: it wins in cache on Intel (0.85x AVX2's single-key time
/// at 10^4 keys on Emerald Rapids; on a Granite Rapids class Xeon misses 0.82-0.95x and hits
/// 0.98-1.01x at 10^4-10^7), is level with it on AMD Zen 5 (1.00-1.02x) and ahead on AMD Zen 4
/// (0.87-0.97x at 10^4), so a per-vendor order would gain nothing measured (README, "Per
/// CPU"). In builds with `-C target-cpu=native` on Zen 4 AVX2's inlined lookup had been the
/// faster one (AVX-512 1.10-1.12x), through AVX-512's `vptestmd`; both kernels now inline the
/// same `vptest` there.
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

/// Forwards a call to whichever token `$dispatch` holds.
macro_rules! dispatch {
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

/// The single-key lookup of the kernels without inline assembly (scalar and portable), out of
/// line: see [`Dispatch::contains_hash`]. One compare and a jump to the kernel's entry point
/// (a tail call: their entry points are out-of-line functions already).
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn contains_hash_other(dispatch: Dispatch, blocks: &[[u32; LANES]], hash: u64) -> bool {
    match dispatch {
        Dispatch::Portable(kernel) => kernel.contains_hash(blocks, hash),
        // The scalar kernel, and the kernels that `Dispatch::contains_hash` answers inline
        // (never passed here): every kernel computes the scalar kernel's answer bit for bit.
        _ => scalar::Scalar.contains_hash(blocks, hash),
    }
}

/// The single-key insert of the kernels without inline assembly, out of line, as
/// [`contains_hash_other`] is for lookups.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn insert_hash_other(dispatch: Dispatch, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
    match dispatch {
        Dispatch::Portable(kernel) => kernel.insert_hash(blocks, hash),
        _ => scalar::Scalar.insert_hash(blocks, hash),
    }
}

impl EntryPoints for Dispatch {
    #[inline(always)]
    fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
        // As for `contains_hash` below: AVX2 and AVX-512 insert with inline assembly, the other
        // kernels in one out-of-line arm. Through the four-way match and a call into the
        // entry point, a loop of `u64` inserts paid an indirect jump, a call and the kernel's
        // `vzeroupper` per key: on AMD Zen 5 (issue 16's workload, 10^4 keys, avx512, the same
        // runs) 1.45-2.5x the time of a `-C target-cpu=native` build, and 0.86-1.17x with this.
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx2(k) => avx2::insert_hash_inline(k, blocks, hash),
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx512(k) => avx512::insert_hash_inline(k, blocks, hash),
            #[cfg(target_arch = "x86_64")]
            _ => insert_hash_other(self, blocks, hash),
            #[cfg(not(target_arch = "x86_64"))]
            _ => dispatch!(self, k => k.insert_hash(blocks, hash)),
        }
    }

    #[inline(always)]
    fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
        match self {
            // The single-key lookup is the one operation where a call costs as much as the
            // work, so AVX2 answers it with inline assembly instead of its entry point (see
            // `avx2::contains_hash_inline`). Measured at 10^4 keys (Zen 4): `contains_hash` 1.37
            // instead of 1.91 ns per lookup; `contains` of a `u64` key, hashing included, 2.1-2.3
            // instead of 2.2-2.35 in criterion (its hashing, not the call, is then the limit).
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx2(k) => avx2::contains_hash_inline(k, blocks, hash),
            // The same with EVEX registers and no `vzeroupper` (see
            // `avx512::contains_hash_inline`).
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx512(k) => avx512::contains_hash_inline(k, blocks, hash),
            // Everything else in one out-of-line arm, so that a caller's loop of lookups sees
            // three cases, not a jump table over every kernel: LLVM then unswitches the loop
            // on the kernel (one copy per arm, no dispatch per key). With the four-way match
            // inlined, once the key's hash was inlined too (`hash::hash_key`) the loop was
            // no longer unswitched and paid an indirect jump per lookup: on Zen 5, issue 16's
            // workload, 1.55 instead of 1.20 ns per `u64` lookup at 10^4 keys. The portable
            // kernel pays for it (x86_64 without AVX2): 2.50 instead of 2.25-2.28 ns there.
            #[cfg(target_arch = "x86_64")]
            _ => contains_hash_other(self, blocks, hash),
            #[cfg(not(target_arch = "x86_64"))]
            _ => dispatch!(self, k => k.contains_hash(blocks, hash)),
        }
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
