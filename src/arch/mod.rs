//! Kernels and the one place that chooses among them.
//!
//! Every kernel lives in a file of its own (`scalar`, `portable`, `avx2`, `avx512`, `neon`) and
//! exposes a zero-sized token type implementing the two traits written down here:
//! [`BlockKernel`], the three block primitives, and [`EntryPoints`], the operations a filter
//! calls. A token can only be constructed (`Token::new() -> Option<Self>`) when the CPU has the
//! kernel's features, so holding a token is the proof that its `#[target_feature]` functions
//! are safe to call (the pattern of aho-corasick's Teddy and memchr's `arch` modules).
//!
//! Each kernel file instantiates [`entry_points!`], which compiles every operation as one
//! function with the kernel's features, written once over [`BlockKernel`] in `generic.rs`, so
//! that the primitives inline into it and batch loops (hashing included; pre-hashed batches use
//! the identity hasher [`PreHashed`]) run inside that one call. [`Dispatch`], in `dispatch.rs`,
//! is the enum of tokens a filter stores by value: the kernel is chosen once, when the filter
//! is built, and every operation is one `match` on a value that never changes (the compiler
//! hoists it out of a caller's loop) followed by one direct call.
//!
//! How each call is made is chosen for speed (BENCHMARKS.md, "Workload"):
//!
//! * The SIMD entry points are `#[inline]`, so that every calling crate compiles its own copy
//!   and calls it directly: a call into another crate's code goes through the GOT, an indirect
//!   call. A `#[target_feature]` function never inlines into a caller without the features, so
//!   each stays one call.
//! * The scalar and portable entry points are `#[inline(never)]`, so that their code, which
//!   would inline, does not make every caller save registers for it.
//! * A call costs a single-key operation as much as its work, so AVX2 and AVX-512 answer
//!   single-key lookups and inserts with inline assembly (`contains_hash_inline` and
//!   `insert_hash_inline` in their files, over the frame in `x86.rs`), which inlines into any
//!   caller.
//!
//! ## Files
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | the two traits every kernel implements and [`entry_points!`] |
//! | `scalar.rs`, `portable.rs`, `avx2.rs`, `avx512.rs`, `neon.rs` | one kernel each: its token, its three primitives, one `entry_points!` line (and, for AVX2 and AVX-512, the inline-assembly single-key operations) |
//! | `x86.rs` | what AVX2 and AVX-512 share: 256-bit intrinsics, the assembly's constants and frame |
//! | `generic.rs` | everything written once for all kernels: single-key operations, the prefetching batch loops, [`PreHashed`] |
//! | `prefetch.rs` | the prefetch instruction of each architecture, and the cache level it asks for on this CPU |
//! | `cache.rs` | the cache sizes (CPUID, sysfs, fallback) the prefetch threshold comes from |
//! | `dispatch.rs` | [`Dispatch`], run-time detection, `Kernel::{is_available, available, best}` |
//! | `testing.rs` | hidden hooks that reach each kernel directly (`splitbloom::__kernel_testing`) |
//! | `xxh3_long.rs` | XXH3's long-input (over 240 bytes) loop in AVX2 and AVX-512, detected at run time |
//! | `type_cast.rs` | castaway's `LifetimeFree` for the three hashers, so filters recognise them at compile time |
//!
//! ## Adding a kernel
//!
//! 1. A file `newkernel.rs` with a token `NewKernel(())`, `NewKernel::new() -> Option<Self>`
//!    that detects the CPU feature (and trusts `cfg!(target_feature)` without `std`), the
//!    [`BlockKernel`] impl calling `#[target_feature]` functions, and one
//!    `entry_points!(NewKernel, NewKernel(()), #[inline], #[target_feature(enable = "...")]);`.
//! 2. Its `mod` line below, under the `cfg` of its architecture.
//! 3. A variant in the public [`Kernel`](crate::Kernel) (`src/kind.rs`: the enum, `ALL`, `name`).
//! 4. In `dispatch.rs`: a variant of [`Dispatch`], an arm in `Dispatch::new` and
//!    `Dispatch::kernel`, an arm in `out_of_line!` (or, with inline-assembly single-key
//!    operations, in `dispatch!`), and its place in `fastest_kernel`'s order.
//! 5. Nothing else: `tests/suite/kernels.rs`, `tests/caller_registers.rs` and the fuzz targets
//!    run every available kernel against the scalar oracle; CI runs the suite once per kernel
//!    (`SPLITBLOOM_KERNEL`), so add its name to `.ci/run`'s list where the CPU has it. Any
//!    `asm!` must declare every register it changes, `vzeroupper`'s included.
//!
//! The block storage these kernels work on (aligned, huge pages, lazily zeroed, and its atomic
//! view) is in `src/storage/`. `unsafe` code lives only here and there (XXH3's SIMD long-input
//! loop too: `xxh3_long.rs`); the crate denies `unsafe_code` elsewhere.

use core::hash::{BuildHasher, Hash};

use crate::block::LANES;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod cache;
mod dispatch;
mod generic;
#[cfg(target_arch = "aarch64")]
mod neon;
mod portable;
mod prefetch;
// The quotient layout (`QuotientFilter`): its primitives per kernel, its operations written once.
pub(crate) mod quotient;
mod scalar;
pub mod testing;
mod type_cast;
// The wide layout (`WideFilter`): its primitives per kernel, and its operations written once.
#[cfg(target_arch = "x86_64")]
mod wide_avx2;
#[cfg(target_arch = "x86_64")]
mod wide_avx512;
pub(crate) mod wide_generic;
#[cfg(target_arch = "aarch64")]
mod wide_neon;
// The window layout (`WindowFilter`): its operations per kernel, from the loops of `generic.rs`.
mod wide_portable;
mod wide_scalar;
pub(crate) mod window_generic;
#[cfg(target_arch = "x86_64")]
mod x86;
pub(crate) mod xxh3_long;

pub(crate) use dispatch::Dispatch;
pub(crate) use generic::{
    PREFETCH_DISTANCE, PreHashed, contains_hash_with, contains_keys_with, insert_hash_with,
    insert_keys_with, prefetch_distance, prefetch_min_blocks,
};

/// A kernel: a token whose value proves that this CPU can run the kernel's instructions, and
/// the one entry point through which a filter's work runs compiled with them.
///
/// A token can only be constructed once its CPU features are detected (`Token::new() ->
/// Option<Self>`), so holding one proves its `#[target_feature]` functions may be called.
/// Each kernel's file implements this trait with one [`kernel_entry_point!`] line, the only
/// place its target-feature string is written.
pub(crate) trait Token: Copy + core::fmt::Debug + Send + Sync + 'static {
    /// Runs `operation` inside one function compiled with this kernel's target features, so
    /// that the primitives it calls, and for a batch its whole loop, inline into it.
    fn run<O: OperationOn<Self>>(self, operation: O) -> O::Output;
}

/// Work a filter hands to a kernel: a single-key probe, a batch loop. [`OperationOn`] says how
/// it runs on each kernel; this trait says what it returns, the same on every kernel.
pub(crate) trait Operation {
    /// What the work returns.
    type Output;
}

/// How an [`Operation`] runs on kernel `K`: written once, generically over the primitives a
/// layout's kernels implement, and compiled inside `K`'s entry point ([`Token::run`]).
pub(crate) trait OperationOn<K>: Operation {
    /// Does the work with `kernel`'s primitives.
    fn run_on(self, kernel: K) -> Self::Output;
}

/// An [`Operation`] every kernel of this target can run: what [`Dispatch::run`] takes.
pub(crate) trait OnEveryKernel:
    OperationOn<scalar::Scalar> + OperationOn<portable::Portable> + OnArchKernels
{
}

impl<O> OnEveryKernel for O where
    O: OperationOn<scalar::Scalar> + OperationOn<portable::Portable> + OnArchKernels
{
}

/// The kernels of this architecture, as a bound: [`OnEveryKernel`] without the `cfg`s.
#[cfg(target_arch = "x86_64")]
pub(crate) trait OnArchKernels:
    OperationOn<avx2::Avx2> + OperationOn<avx512::Avx512>
{
}
#[cfg(target_arch = "x86_64")]
impl<O: OperationOn<avx2::Avx2> + OperationOn<avx512::Avx512>> OnArchKernels for O {}

/// The kernels of this architecture, as a bound: [`OnEveryKernel`] without the `cfg`s.
#[cfg(target_arch = "aarch64")]
pub(crate) trait OnArchKernels: OperationOn<neon::Neon> {}
#[cfg(target_arch = "aarch64")]
impl<O: OperationOn<neon::Neon>> OnArchKernels for O {}

/// The kernels of this architecture, as a bound: none beyond scalar and portable here.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) trait OnArchKernels {}
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
impl<O> OnArchKernels for O {}

/// Implements [`Token`] for a token type, in the kernel's file: `$token` is the expression
/// that makes the token inside the entry point, and the attributes go on the entry point: the
/// kernel's `#[target_feature]`s and its inlining (`#[inline]` for the SIMD kernels, so each
/// calling crate compiles its own copy and calls it directly; `#[inline(never)]` for scalar
/// and portable, whose code would otherwise inline into every caller and make it save
/// registers). The entry point is an `unsafe fn` whose one precondition is that the CPU has
/// the kernel's features; [`Token::run`] calls it with `self`, the token, as the proof, which
/// is also why making the token inside it, without detection, is sound.
macro_rules! kernel_entry_point {
    ($Token:ident, $token:expr $(, #[$attr:meta])*) => {
        impl $crate::arch::Token for $Token {
            #[inline(always)]
            fn run<O: $crate::arch::OperationOn<Self>>(self, operation: O) -> O::Output {
                /// The kernel's entry point: `operation` compiled with its features.
                ///
                /// # Safety
                ///
                /// The CPU must have the kernel's target features.
                $(#[$attr])*
                unsafe fn entry<O: $crate::arch::OperationOn<$Token>>(operation: O) -> O::Output {
                    operation.run_on($token)
                }
                // SAFETY: `self`, a token, proves the CPU has the kernel's features.
                unsafe { entry(operation) }
            }
        }
    };
}
pub(crate) use kernel_entry_point;

/// The block primitives every kernel implements, with identical results.
///
/// `x` is the in-block hash (the low 32 bits of a key's hash). Implementations must match
/// [`crate::block`] bit for bit. Everything else a filter does is built from these three, once,
/// in `generic.rs`.
pub(crate) trait BlockKernel: Copy {
    /// The eight-lane mask of `x`: one bit per lane.
    fn mask(self, x: u32) -> [u32; LANES];
    /// ORs the mask of `x` into `block`; `true` when every bit was already set.
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool;
    /// Whether every bit of the mask of `x` is set in `block` (branch-free).
    fn contains(self, block: &[u32; LANES], x: u32) -> bool;
}

/// The operations filters call, each compiled as one function with the kernel's target
/// features (so [`BlockKernel`]'s primitives inline into it), written by
/// [`entry_points!`] in every kernel's file, or, for single-key operations, as inline
/// assembly that inlines into the caller.
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
    /// `distance` keys ahead (0: no prefetching; see `generic::visit_prefetching`).
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
/// [`BlockKernel`] token and the loops of `generic.rs`.
///
/// `$token` is the expression that makes the token inside the entry points, and the attributes
/// go on every entry point: the kernel's `#[target_feature]`s and its inlining (see the module
/// docs for why SIMD kernels use `#[inline]` and the others `#[inline(never)]`). Each entry
/// point is an `unsafe fn` whose one precondition is that the CPU has the kernel's features;
/// the trait methods call them with `self`, the token, as the proof. That precondition is also
/// why making the token inside them, without detection, is sound.
///
/// A kernel whose single-key operations are inline assembly names them with
/// `single_key(insert, contains)`: two functions `fn(Token, blocks, hash) -> bool`, always
/// inlined, which the trait's `insert_hash` and `contains_hash` then are.
macro_rules! entry_points {
    ($Token:ident, $token:expr, single_key($insert:path, $contains:path) $(, #[$attr:meta])*) => {
        /// This kernel's batch entry points (see `crate::arch::EntryPoints`).
        mod entry {
            use super::*;
            use core::hash::{BuildHasher, Hash};

            use crate::arch;
            use crate::block::LANES;

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
                $insert(self, blocks, hash)
            }

            #[inline(always)]
            fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
                $contains(self, blocks, hash)
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
    ($Token:ident, $token:expr $(, #[$attr:meta])*) => {
        /// This kernel's single-key entry points (see `crate::arch::EntryPoints`).
        mod single_key {
            use super::*;

            use crate::arch;
            use crate::block::LANES;

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            unsafe fn insert_hash(blocks: &mut [[u32; LANES]], hash: u64) -> bool {
                arch::insert_hash_with($token, blocks, hash)
            }

            /// # Safety
            ///
            /// The CPU must have the kernel's target features.
            $(#[$attr])*
            unsafe fn contains_hash(blocks: &[[u32; LANES]], hash: u64) -> bool {
                arch::contains_hash_with($token, blocks, hash)
            }

            /// [`insert_hash`] behind the token that proves it safe.
            #[inline(always)]
            pub(super) fn insert(_: $Token, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
                // SAFETY: the token proves the CPU has the kernel's features.
                unsafe { insert_hash(blocks, hash) }
            }

            /// [`contains_hash`] behind the token that proves it safe.
            #[inline(always)]
            pub(super) fn contains(_: $Token, blocks: &[[u32; LANES]], hash: u64) -> bool {
                // SAFETY: the token proves the CPU has the kernel's features.
                unsafe { contains_hash(blocks, hash) }
            }
        }

        entry_points!(
            $Token, $token, single_key(single_key::insert, single_key::contains) $(, #[$attr])*
        );
    };
}
use entry_points;
