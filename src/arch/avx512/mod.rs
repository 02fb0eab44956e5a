//! The AVX-512 kernel: the AVX2 kernel's 256-bit arithmetic in EVEX encoding (AVX-512F,
//! AVX-512VL and AVX-512DQ), with the single-key assembly's test done by `vptestmd` into a mask
//! register; 512-bit words for the wide layout. `split_block.rs` and `wide.rs` hold each
//! layout's primitives and its inline-assembly single-key operations. No 512-bit operation is used, so CPUs that split zmm operations in two run it at
//! full width too.
//!
//! What it buys is the single-key operations: EVEX instructions reach the registers
//! `ymm16`-`ymm31`, which are outside the SSE/AVX transition state, so the inline assembly of
//! `split_block.rs`'s `contains_hash_inline` needs no `vzeroupper` for callers compiled without AVX, and a
//! `vzeroupper` in every lookup keeps a loop of lookups from overlapping its cache misses
//! (BENCHMARKS.md, "Workload"). The batch loops are the AVX2 ones compiled with AVX-512
//! enabled, and with BMI2, which every AVX-512 CPU has, so that the keys' hashes in those loops
//! use `mulx` (the hasher's folded multiply) as a `-C target-cpu=native` build does.
//!
//! The `#[target_feature]` functions here are safe to call only where AVX2, AVX-512F,
//! AVX-512VL and AVX-512DQ are present; the [`Avx512`] token can only be built after detecting
//! them, and every call goes through the token.

mod quotient;
mod split_block;
mod wide;
mod window;

/// Token of the AVX-512 kernel: a value of this type proves the CPU supports AVX2, BMI2, POPCNT,
/// AVX-512F, AVX-512VL, AVX-512DQ and AVX-512BW (every AVX-512 CPU with VL has DQ and BW: Intel
/// since Skylake-SP, AMD since Zen 4). The quotient layout's byte and word compares need BW,
/// and it counts metadata bits with POPCNT.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

impl Avx512 {
    /// The token, when this CPU has AVX2, BMI2, POPCNT, AVX-512F, AVX-512VL, AVX-512DQ and
    /// AVX-512BW.
    #[inline]
    pub(crate) fn new() -> Option<Avx512> {
        #[cfg(feature = "std")]
        let available = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt");
        // Without std there is no run-time detection: trust the compile-time target features.
        #[cfg(not(feature = "std"))]
        let available = COMPILED_WITH_FEATURES;
        available.then_some(Avx512(()))
    }
}

/// Whether this crate is compiled with every feature of the kernel (`-C target-cpu=native` on
/// an AVX-512 CPU, say): then the primitives inline anywhere and need no assembly.
pub(super) const COMPILED_WITH_FEATURES: bool = cfg!(all(
    target_feature = "avx2",
    target_feature = "bmi2",
    target_feature = "avx512f",
    target_feature = "avx512vl",
    target_feature = "avx512dq",
    target_feature = "avx512bw",
    target_feature = "popcnt"
));

// The one entry point every operation runs through, and the one place the kernel's features
// are written: it makes the token without detection, since it is an `unsafe fn` that requires
// them and is compiled with them (see `kernel_entry_point!`).
crate::arch::kernel_entry_point!(Avx512, Avx512(()), #[inline], #[target_feature(enable = "avx2,bmi2,avx512f,avx512vl,avx512dq,avx512bw,popcnt")]);
