//! Kernels, and the one place that chooses among them.
//!
//! A kernel is a token type ([`Token`]): a value proves this CPU can run the kernel's
//! instructions, since one is only made once its features are detected
//! (`Token::new() -> Option<Self>`), which makes its `#[target_feature]` functions safe to call
//! (the pattern of aho-corasick's Teddy and memchr's `arch` modules). Each kernel has one entry
//! point, [`Token::run`], compiled with its target features, through which every operation a
//! filter asks of it runs: a single-key probe, a batch loop with its prefetching. An operation
//! ([`Operation`], [`OperationOn`]) is written once, generically over the block primitives a
//! layout asks of every kernel (`primitives.rs`), so those primitives inline into it with the
//! kernel's instructions. [`Dispatch`] (`dispatch.rs`) is the enum of tokens a filter stores by
//! value: the kernel is chosen once, when the filter is built, and every operation is one
//! `match` on a value that never changes (the compiler hoists it out of a caller's loop)
//! followed by one call.
//!
//! How each call is made is chosen for speed (BENCHMARKS.md, "Workload"):
//!
//! * The SIMD entry points are `#[inline]`, so that every calling crate compiles its own copy
//!   and calls it directly: a call into another crate's code goes through the GOT, an indirect
//!   call. A `#[target_feature]` function never inlines into a caller without the features, so
//!   each stays one call.
//! * The scalar and portable entry points are `#[inline(never)]`, so that their code, which
//!   would inline, does not make every caller save registers for it.
//! * A call costs a single-key operation as much as its work, so AVX2 and AVX-512 answer the
//!   split-block and wide layouts' single-key lookups (and the split-block inserts) with inline
//!   assembly, which inlines into any caller: the hooks `contains_hash`/`insert_hash` of the
//!   layouts' kernel traits, whose default is a call into the entry point.
//!
//! ## Files
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | the contract: [`Token`], [`Operation`], [`OperationOn`], `kernel_entry_point!` |
//! | `primitives.rs` | what each layout asks of every kernel (`SplitBlockKernel`, `WideKernel`, `WindowKernel`), `BloomOps`, the layouts' operations written once over them, and the single-key operations |
//! | `batch.rs` | the batch operations every layout shares: the prefetching loops (one ring, parameterised by where a key's lines are), [`PreHashed`] |
//! | `scalar.rs`, `portable.rs` | the scalar reference and the portable (`wide`) kernel: token, every layout's primitives, entry point |
//! | `avx2/`, `avx512/`, `neon/` | one SIMD kernel each: `mod.rs` (token, detection, entry point: its target features written once), one file per layout |
//! | `x86.rs` | what AVX2 and AVX-512 share: the salted multiply, loads, the inline assembly's frame and constants |
//! | `prefetch.rs`, `cache.rs` | the prefetch instruction and the cache level it asks for on this CPU; the cache sizes the prefetch threshold comes from |
//! | `dispatch.rs` | [`Dispatch`], run-time detection, `Kernel::{is_available, available, best}`, and `BloomLayout`, the bound a layout meets by having every kernel's primitives |
//! | `testing.rs` | hidden hooks that reach each kernel directly (`splitbloom::__kernel_testing`) |
//!
//! ## Adding a kernel
//!
//! 1. A folder (or, for a kernel of plain Rust, a file) with a token `NewKernel(())`,
//!    `NewKernel::new() -> Option<Self>` that detects the CPU features (and trusts
//!    `cfg!(target_feature)` without `std`), one
//!    `kernel_entry_point!(NewKernel, NewKernel(()), #[inline], #[target_feature(enable = "...")]);`
//!    (the only place the feature string is written), and one file per layout implementing
//!    that layout's primitives trait (`primitives.rs`).
//! 2. Its `mod` line below and its place in [`OnArchKernels`] and `BloomArch`
//!    (`dispatch.rs`), under the `cfg` of its architecture.
//! 3. A variant in the public [`Kernel`](crate::Kernel) (`src/kind.rs`: the enum, `ALL`, `name`)
//!    and in [`Dispatch`] (`dispatch.rs`: `new`, `kernel`, `every_kernel!`, and its place in
//!    `fastest_kernel`'s order).
//! 4. Nothing else: the unit tests of each layout, `tests/suite/kernels.rs`,
//!    `tests/caller_registers.rs` and the fuzz targets run every available kernel against the
//!    scalar reference; CI runs the suite once per kernel (`SPLITBLOOM_KERNEL`), so add its
//!    name to `.ci/run`'s list where the CPU has it. Any `asm!` must declare every register it
//!    changes, `vzeroupper`'s included.
//!
//! ## Adding a layout
//!
//! 1. The layout in `src/layout/`: a type implementing [`Policy`](crate::layout::Policy)
//!    (where a key's bits lie) and its scalar reference.
//! 2. Its primitives trait in `primitives.rs` (the block test and insert every kernel must
//!    provide), with `BloomOps` written once over it, and one file implementing it in each
//!    kernel's folder; its per-kernel test against the reference.
//!
//! The block storage these kernels work on (aligned, huge pages, lazily zeroed, and its atomic
//! view) is in `src/storage/`. `unsafe` code lives only here, there, and in the hashers' SIMD
//! long-input loop (`src/hash/xxh3_long.rs`); the crate denies `unsafe_code` elsewhere.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod batch;
mod cache;
mod dispatch;
#[cfg(target_arch = "aarch64")]
mod neon;
mod portable;
mod prefetch;
mod primitives;
// The quotient layout (`QuotientFilter`): what it asks of every kernel, its operations written
// once over that.
pub(crate) mod quotient;
mod scalar;
pub mod testing;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use batch::{PreHashed, prefetch_distance, prefetch_min_blocks};
pub(crate) use dispatch::BloomLayout;
pub(crate) use dispatch::Dispatch;

#[cfg(test)]
mod tests;

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
