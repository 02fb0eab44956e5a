//! Kernels and the one place that chooses among them.
//!
//! Every kernel lives in a file of its own (`scalar`, `portable`, `avx2`, `neon`) and exposes a
//! zero-sized token type implementing [`BlockKernel`], the three block primitives written down
//! once. A token can only be constructed (`Token::new() -> Option<Self>`) when the CPU has the
//! kernel's features, so holding a token is the proof that its `#[target_feature]` functions are
//! safe to call (the pattern of aho-corasick's Teddy and memchr's `arch` modules).
//!
//! Each kernel file then instantiates [`entry_points!`], which compiles the operations a filter
//! calls ([`EntryPoints`]: single-key and batch lookups and inserts, block index included) as
//! one function each, with the kernel's features, so the primitives inline into them.
//! [`Dispatch`] is the private enum of tokens a filter stores by value: the kernel is chosen
//! once, when the filter is built, and every operation is a `match` on a value that never
//! changes (the compiler usually hoists it out of the caller's loop) followed by one direct
//! call into code compiled for that kernel. Batch loops run inside that call, and the batch
//! entry points are generic over the hasher, so keys are hashed there too (pre-hashed batches
//! use an identity hasher, [`PreHashed`]).
//!
//! Two measured details shape the entry points (single-key lookups, Zen 4, 10^4 keys): a call
//! through a table of function pointers cost 0.45 ns more than a direct call (2.46 vs 2.01 ns),
//! and so does an entry point compiled only in this crate, because calls into another crate's
//! code go through the GOT, which is an indirect call too. The SIMD entry points are therefore
//! `#[inline]`, which makes every calling crate compile its own copy to call directly (a
//! `#[target_feature]` function never inlines into a caller without the features, so each stays
//! one call); the scalar and portable ones are `#[inline(never)]` so that their code, which
//! would inline, does not make every caller save registers for it.
//!
//! `unsafe` code in this crate lives only under `src/arch/`.

use core::fmt;
use core::hash::{BuildHasher, Hash};
use core::str::FromStr;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::block::{LANES, block_index};

// Atomic lanes need 32-bit atomic read-modify-write instructions, which a few embedded targets
// lack; everything else in the crate works without them.
#[cfg(target_has_atomic = "32")]
pub(crate) mod atomic;
#[cfg(target_arch = "x86_64")]
mod avx2;
mod memory;
#[cfg(target_arch = "aarch64")]
mod neon;
mod portable;
mod prefetch;
mod scalar;

pub(crate) use memory::Blocks;

/// The block primitives every kernel implements, with identical results.
///
/// `x` is the in-block hash (the low 32 bits of a key's hash). Implementations must match
/// [`crate::block`] bit for bit. Everything else a filter does is built from these three, once,
/// in this module.
pub(crate) trait BlockKernel: Copy {
    /// The eight-lane mask of `x`: one bit per lane.
    fn mask(self, x: u32) -> [u32; LANES];
    /// ORs the mask of `x` into `block`; `true` when every bit was already set.
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool;
    /// Whether every bit of the mask of `x` is set in `block` (branch-free).
    fn contains(self, block: &[u32; LANES], x: u32) -> bool;
}

/// How many keys ahead the batch loops hash and prefetch, on filters of at least
/// [`PREFETCH_MIN_BLOCKS`] blocks; also the size of their ring of hashes in flight (1 KiB of
/// stack). A power of two.
///
/// Tuned on AMD Zen 4 (AVX2 kernel, criterion `insert_batch` / `contains_batch` of 1024 keys,
/// hashing included, huge pages granted) together with the prefetch hint (see
/// [`prefetch`](prefetch::prefetch)): into L2, ns per key at 10^7 / 10^8 keys,
///
/// | distance | batch insert | batched lookup |
/// |---:|---|---|
/// | 16 | – / 8.8 | – / 9.2 |
/// | 24 | – / 7.4 | – / 7.8 |
/// | 32 | 4.5 / 6.1 | 4.9 / 6.3 |
/// | 64 | 3.4-3.5 / 4.6-4.9 | 3.6-3.7 / 4.8-5.4 |
/// | 128 | 3.1-3.4 / 4.3-4.5 | 3.3-3.5 / 4.5-4.8 |
/// | 256 | 3.3 / 4.5 | 3.4 / 6.6 |
///
/// whereas prefetching into L1 was best at 16 (10.6 / 11.1 ns at 10^8) and got worse beyond.
/// At 10^6 keys (in L3) every combination measured 2.4-3.0 ns, within the noise.
pub(crate) const PREFETCH_DISTANCE: usize = 128;

/// Filters smaller than this many blocks (1 MiB, one Zen 4 L2 cache) are probed without
/// prefetching: their blocks are in cache and the extra instructions only cost (measured: a
/// lookup takes 1.6 ns instead of 1.2-1.3 ns at 10^4 and 10^5 keys; at 10^6 keys, 1.25 MB,
/// prefetching already gains, 1.8 vs 2.1 ns).
pub(crate) const PREFETCH_MIN_BLOCKS: usize = (1 << 20) / crate::block::BLOCK_BYTES;

/// The prefetch distance the batch operations use on a filter of `num_blocks` blocks: 0 (no
/// prefetching) below [`PREFETCH_MIN_BLOCKS`].
#[inline]
pub(crate) fn prefetch_distance(num_blocks: usize) -> usize {
    if num_blocks >= PREFETCH_MIN_BLOCKS {
        PREFETCH_DISTANCE
    } else {
        0
    }
}

/// Calls `visit(i, hasher.hash_one(&keys[i]))` for every key in order, after prefetching the
/// block of the key `distance` places later: each key is hashed `distance` keys before its
/// visit and its block prefetched then, so the hashing of later keys overlaps the memory latency
/// of earlier ones; the hashes in flight wait in a ring on the stack. `blocks` only locates the
/// blocks to prefetch and is never dereferenced.
///
/// `distance` 0 means no prefetching (each key is hashed just before its visit). Other values
/// are rounded up to a power of two (so the ring index is a mask) and capped at
/// [`PREFETCH_DISTANCE`], the ring's size. Pre-hashed batches use [`PreHashed`] as the hasher.
#[inline(always)]
fn visit_prefetching<S: BuildHasher, K: Hash>(
    blocks: *const [u32; LANES],
    num_blocks: usize,
    hasher: &S,
    keys: &[K],
    distance: usize,
    mut visit: impl FnMut(usize, u64),
) {
    const RING: usize = PREFETCH_DISTANCE;
    const { assert!(RING.is_power_of_two()) };
    if distance == 0 {
        for (index, key) in keys.iter().enumerate() {
            visit(index, hasher.hash_one(key));
        }
        return;
    }
    let distance = distance.min(RING).next_power_of_two();
    // `& (RING - 1)` is implied by the mask (distance <= RING); it lets the compiler see that
    // every ring index is in bounds.
    let mask = (distance - 1) & (RING - 1);
    let hash_ahead = |key: &K| {
        let hash = hasher.hash_one(key);
        prefetch::prefetch(blocks.wrapping_add(block_index(hash, num_blocks)));
        hash
    };
    // Key `i`'s hash waits in slot `i & mask` from its hashing until its visit.
    let mut ring = [0u64; RING];
    let (first, later) = keys.split_at(distance.min(keys.len()));
    for (slot, key) in ring.iter_mut().zip(first) {
        *slot = hash_ahead(key);
    }
    for (index, key) in later.iter().enumerate() {
        let hash = core::mem::replace(&mut ring[index & mask], hash_ahead(key));
        visit(index, hash);
    }
    for index in later.len()..keys.len() {
        visit(index, ring[index & mask]);
    }
}

/// The [`BuildHasher`] of pre-hashed batches: a `u64` key hashes to itself, so the batch loops
/// below serve both keys and hashes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PreHashed;

/// The [`Hasher`](core::hash::Hasher) of [`PreHashed`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PreHashedHasher(u64);

impl core::hash::Hasher for PreHashedHasher {
    #[inline(always)]
    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }

    /// Only `u64`s are hashed with [`PreHashed`]; other input is folded in so the result is
    /// still deterministic.
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl BuildHasher for PreHashed {
    type Hasher = PreHashedHasher;

    #[inline(always)]
    fn build_hasher(&self) -> PreHashedHasher {
        PreHashedHasher::default()
    }
}

/// The single-key insert, written once: the block index and the kernel's insert, compiled
/// together inside each kernel's entry point.
#[inline(always)]
pub(crate) fn insert_hash_with<K: BlockKernel>(
    kernel: K,
    blocks: &mut [[u32; LANES]],
    hash: u64,
) -> bool {
    let index = block_index(hash, blocks.len());
    kernel.insert(&mut blocks[index], hash as u32)
}

/// The single-key lookup, written once (see [`insert_hash_with`]).
#[inline(always)]
pub(crate) fn contains_hash_with<K: BlockKernel>(
    kernel: K,
    blocks: &[[u32; LANES]],
    hash: u64,
) -> bool {
    kernel.contains(&blocks[block_index(hash, blocks.len())], hash as u32)
}

/// The batch insert loop, written once: the keys are hashed, prefetched and inserted inside
/// the kernel's entry point, so that `kernel.insert` inlines with the right instructions (see
/// [`visit_prefetching`]).
#[inline(always)]
pub(crate) fn insert_keys_with<Kn: BlockKernel, S: BuildHasher, K: Hash>(
    kernel: Kn,
    blocks: &mut [[u32; LANES]],
    hasher: &S,
    keys: &[K],
    distance: usize,
) {
    let num_blocks = blocks.len();
    let base = blocks.as_ptr();
    visit_prefetching(base, num_blocks, hasher, keys, distance, |_, hash| {
        kernel.insert(&mut blocks[block_index(hash, num_blocks)], hash as u32);
    });
}

/// The batch lookup loop, written once (see [`insert_keys_with`]).
#[inline(always)]
pub(crate) fn contains_keys_with<Kn: BlockKernel, S: BuildHasher, K: Hash>(
    kernel: Kn,
    blocks: &[[u32; LANES]],
    hasher: &S,
    keys: &[K],
    out: &mut [bool],
    distance: usize,
) {
    assert_eq!(keys.len(), out.len(), "one answer slot per key");
    let num_blocks = blocks.len();
    visit_prefetching(
        blocks.as_ptr(),
        num_blocks,
        hasher,
        keys,
        distance,
        |index, hash| {
            out[index] = kernel.contains(&blocks[block_index(hash, num_blocks)], hash as u32);
        },
    );
}

/// The operations filters call, each compiled as one function with the kernel's target
/// features (so [`BlockKernel`]'s primitives inline into it), written by
/// [`entry_points!`] in every kernel's file.
///
/// They are separate from [`BlockKernel`] because a filter should make exactly one call per
/// operation: the block index, the probe and, for batches, the whole loop run inside it.
pub(crate) trait EntryPoints: Copy {
    /// Inserts a pre-hashed key into `blocks`; `true` when all its bits were already set.
    /// Panics when `blocks` is empty.
    fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool;
    /// Whether a pre-hashed key may be present in `blocks`. Panics when `blocks` is empty.
    fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool;
    /// Hashes every key of `keys` with `hasher` and inserts it into `blocks`, prefetching
    /// `distance` keys ahead (0: no prefetching; see [`visit_prefetching`]).
    fn insert_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &mut [[u32; LANES]],
        hasher: &S,
        keys: &[K],
        distance: usize,
    );
    /// Writes into `out[i]` whether `keys[i]` may be present, hashing and prefetching as
    /// [`insert_keys`](EntryPoints::insert_keys) does. Panics unless `out.len() == keys.len()`.
    fn contains_keys<S: BuildHasher, K: Hash>(
        self,
        blocks: &[[u32; LANES]],
        hasher: &S,
        keys: &[K],
        out: &mut [bool],
        distance: usize,
    );
}

/// Writes a kernel's [`EntryPoints`], in the kernel's file, from the primitives of its
/// [`BlockKernel`] token and the loops above.
///
/// `$token` is the expression that makes the token inside the entry points, and the attributes
/// go on every entry point: the kernel's `#[target_feature]`s and its inlining (see the module
/// docs for why SIMD kernels use `#[inline]` and the others `#[inline(never)]`). Each entry
/// point is an `unsafe fn` whose one precondition is that the CPU has the kernel's features;
/// the trait methods call them with `self`, the token, as the proof. That precondition is also
/// why making the token inside them, without detection, is sound.
macro_rules! entry_points {
    ($Token:ident, $token:expr $(, #[$attr:meta])*) => {
        /// This kernel's entry points (see `crate::arch::EntryPoints`).
        mod entry {
            use super::*;
            use core::hash::{BuildHasher, Hash};

            use crate::arch;
            use crate::block::LANES;

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn insert_hash(blocks: &mut [[u32; LANES]], hash: u64) -> bool {
                arch::insert_hash_with($token, blocks, hash)
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn contains_hash(blocks: &[[u32; LANES]], hash: u64) -> bool {
                arch::contains_hash_with($token, blocks, hash)
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn insert_keys<S: BuildHasher, K: Hash>(
                blocks: &mut [[u32; LANES]],
                hasher: &S,
                keys: &[K],
                distance: usize,
            ) {
                arch::insert_keys_with($token, blocks, hasher, keys, distance);
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            pub(super) unsafe fn contains_keys<S: BuildHasher, K: Hash>(
                blocks: &[[u32; LANES]],
                hasher: &S,
                keys: &[K],
                out: &mut [bool],
                distance: usize,
            ) {
                arch::contains_keys_with($token, blocks, hasher, keys, out, distance);
            }
        }

        impl crate::arch::EntryPoints for $Token {
            #[inline(always)]
            fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { entry::insert_hash(blocks, hash) }
            }

            #[inline(always)]
            fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { entry::contains_hash(blocks, hash) }
            }

            #[inline(always)]
            fn insert_keys<S: core::hash::BuildHasher, K: core::hash::Hash>(
                self,
                blocks: &mut [[u32; LANES]],
                hasher: &S,
                keys: &[K],
                distance: usize,
            ) {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { entry::insert_keys(blocks, hasher, keys, distance) }
            }

            #[inline(always)]
            fn contains_keys<S: core::hash::BuildHasher, K: core::hash::Hash>(
                self,
                blocks: &[[u32; LANES]],
                hasher: &S,
                keys: &[K],
                out: &mut [bool],
                distance: usize,
            ) {
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { entry::contains_keys(blocks, hasher, keys, out, distance) }
            }
        }
    };
}
use entry_points;

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
    /// AVX2 intrinsics (x86_64, detected at run time).
    Avx2,
    /// NEON intrinsics (aarch64).
    Neon,
}

impl Kernel {
    /// Every kernel this crate knows, available here or not.
    ///
    /// ```
    /// assert!(splitbloom::Kernel::ALL.contains(&splitbloom::Kernel::Scalar));
    /// ```
    pub const ALL: [Kernel; 4] = [Kernel::Scalar, Kernel::Portable, Kernel::Avx2, Kernel::Neon];

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
            Kernel::Neon => "neon",
        }
    }

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
/// (measured: see the README's kernel table), so the order is simply widest first.
fn fastest_kernel() -> Kernel {
    [Kernel::Avx2, Kernel::Neon, Kernel::Portable]
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
        f.write_str("unknown kernel (expected one of: scalar, portable, avx2, neon)")
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

/// A kernel token held by value: constructing one proves the CPU can run it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Dispatch {
    Scalar(scalar::Scalar),
    Portable(portable::Portable),
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Avx2),
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

impl EntryPoints for Dispatch {
    #[inline]
    fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
        dispatch!(self, k => k.insert_hash(blocks, hash))
    }

    #[inline]
    fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
        match self {
            // The single-key lookup is the one operation where a call costs as much as the
            // work, so AVX2 answers it with inline assembly instead of its entry point (see
            // `avx2::contains_inline`). Measured at 10^4 keys (Zen 4): `contains_hash` 1.37
            // instead of 1.91 ns per lookup; `contains` of a `u64` key, hashing included, 2.1-2.3
            // instead of 2.2-2.35 in criterion (its hashing, not the call, is then the limit).
            #[cfg(target_arch = "x86_64")]
            Dispatch::Avx2(k) => {
                avx2::contains_inline(k, &blocks[block_index(hash, blocks.len())], hash as u32)
            }
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

/// Direct access to each kernel's primitives, for the differential tests, fuzz targets and
/// benchmarks that check every kernel against the scalar oracle. Not part of the stable API.
#[doc(hidden)]
pub mod testing {
    use super::{BlockKernel, Dispatch, EntryPoints, Kernel, PreHashed};
    use crate::block::LANES;

    /// The mask of `x` computed by `kernel`, or `None` when it cannot run here.
    pub fn mask(kernel: Kernel, x: u32) -> Option<[u32; LANES]> {
        Some(Dispatch::new(kernel)?.mask(x))
    }

    /// `kernel`'s insert of `x` into `block`, or `None` when it cannot run here.
    pub fn insert(kernel: Kernel, block: &mut [u32; LANES], x: u32) -> Option<bool> {
        Some(Dispatch::new(kernel)?.insert(block, x))
    }

    /// `kernel`'s lookup of `x` in `block`, or `None` when it cannot run here.
    pub fn contains(kernel: Kernel, block: &[u32; LANES], x: u32) -> Option<bool> {
        Some(Dispatch::new(kernel)?.contains(block, x))
    }

    /// `kernel`'s single-key lookup of a pre-hashed key in `blocks`, the path of
    /// `Filter::contains` (for AVX2, inline assembly rather than the primitive above), or
    /// `None` when the kernel cannot run here.
    pub fn contains_hash(kernel: Kernel, blocks: &[[u32; LANES]], hash: u64) -> Option<bool> {
        Some(Dispatch::new(kernel)?.contains_hash(blocks, hash))
    }

    /// The prefetch distance filters use, and the smallest filter (in blocks) that uses it.
    pub const PREFETCH: (usize, usize) = (super::PREFETCH_DISTANCE, super::PREFETCH_MIN_BLOCKS);

    /// Filters of at least this many bytes get 2 MiB-aligned storage and, on Linux, a
    /// transparent-huge-page hint.
    pub const HUGE_PAGE_THRESHOLD: usize = super::memory::HUGE_PAGE_THRESHOLD;

    /// Zeroed blocks allocated as filters allocate them (2 MiB-aligned, with the huge-page
    /// hint from [`HUGE_PAGE_THRESHOLD`] bytes up), so that benchmarks of the raw batch loops
    /// measure the memory filters get; `None` when the allocation fails.
    pub struct FilterMemory(super::Blocks);

    impl FilterMemory {
        /// `num_blocks` zeroed blocks.
        pub fn zeroed(num_blocks: usize) -> Option<FilterMemory> {
            super::Blocks::zeroed(num_blocks).map(FilterMemory)
        }
    }

    impl core::ops::Deref for FilterMemory {
        type Target = [[u32; LANES]];

        fn deref(&self) -> &[[u32; LANES]] {
            bytemuck::cast_slice(&self.0)
        }
    }

    impl core::ops::DerefMut for FilterMemory {
        fn deref_mut(&mut self) -> &mut [[u32; LANES]] {
            bytemuck::cast_slice_mut(&mut self.0)
        }
    }

    /// `kernel`'s batch insert into `blocks`, prefetching `distance` keys ahead (0: none; other
    /// values are rounded up to a power of two and capped at the tuned distance),
    /// whatever the filter size; `None` when the kernel cannot run here.
    pub fn insert_hashes(
        kernel: Kernel,
        blocks: &mut [[u32; LANES]],
        hashes: &[u64],
        distance: usize,
    ) -> Option<()> {
        Dispatch::new(kernel)?.insert_keys(blocks, &PreHashed, hashes, distance);
        Some(())
    }

    /// `kernel`'s batch lookup in `blocks`, prefetching `distance` keys ahead (0: none; other
    /// values are rounded up to a power of two and capped at the tuned distance),
    /// whatever the filter size; `None` when the kernel cannot run here.
    pub fn contains_hashes(
        kernel: Kernel,
        blocks: &[[u32; LANES]],
        hashes: &[u64],
        out: &mut [bool],
        distance: usize,
    ) -> Option<()> {
        Dispatch::new(kernel)?.contains_keys(blocks, &PreHashed, hashes, out, distance);
        Some(())
    }
}
