//! The AVX2 kernel: one 256-bit multiply, shift and variable shift build a key's mask, one
//! `vptest` (split-block) or compare (wide) answers. `split_block.rs` and `wide.rs` hold each
//! layout's primitives and its inline-assembly single-key operations.
//!
//! The entry point is compiled with BMI2 as well, which every AVX2 CPU has (Intel since
//! Haswell, AMD since Excavator), so that the keys' hashes in the batch loops use `mulx` and
//! `rorx` as a `-C target-cpu=native` build does.
//!
//! The `#[target_feature]` functions here are safe to call only where AVX2 (and, for the entry
//! point, BMI2) is present; the [`Avx2`] token can only be built after detecting both, and
//! every call goes through the token.

mod quotient;
mod split_block;
mod wide;
mod window;

/// Token of the AVX2 kernel: a value of this type proves the CPU supports AVX2, BMI2 and POPCNT
/// (every AVX2 CPU has the other two: Intel since Haswell, AMD since Excavator). The quotient
/// layout counts metadata bits with POPCNT.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// The token, when this CPU has AVX2, BMI2 and POPCNT.
    #[inline]
    pub(crate) fn new() -> Option<Avx2> {
        #[cfg(feature = "std")]
        let available = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt");
        // Without std there is no run-time detection: trust the compile-time target features.
        #[cfg(not(feature = "std"))]
        let available = COMPILED_WITH_FEATURES;
        available.then_some(Avx2(()))
    }
}

/// Whether this crate is compiled with the kernel's features (`-C target-cpu=native`,
/// `x86-64-v3`): then the entry point inlines anywhere and the single-key operations need no
/// assembly.
pub(super) const COMPILED_WITH_FEATURES: bool = cfg!(all(
    target_feature = "avx2",
    target_feature = "bmi2",
    target_feature = "popcnt"
));

// The one entry point every operation runs through, and the one place the kernel's features
// are written: it makes the token without detection, since it is an `unsafe fn` that requires
// them and is compiled with them (see `kernel_entry_point!`).
crate::arch::kernel_entry_point!(Avx2, Avx2(()), #[inline], #[target_feature(enable = "avx2,bmi2,popcnt")]);
