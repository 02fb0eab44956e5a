//! The NEON kernel (aarch64): the AVX2 kernel's algorithms on 128-bit vectors, with the same
//! functions in the same order; `split_block.rs` and `wide.rs` hold each layout's primitives.
//!
//! NEON is part of the aarch64 baseline, but the token is still only built after checking, so
//! the proof-by-token rule holds on every architecture.

mod quotient;
mod split_block;
mod wide;
mod window;

/// Token of the NEON kernel: a value of this type proves the CPU supports NEON.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon(());

impl Neon {
    /// The token, when this CPU has NEON.
    #[inline]
    pub(crate) fn new() -> Option<Neon> {
        #[cfg(feature = "std")]
        let available = std::arch::is_aarch64_feature_detected!("neon");
        // Without std there is no run-time detection: trust the compile-time target features.
        #[cfg(not(feature = "std"))]
        let available = cfg!(target_feature = "neon");
        available.then_some(Neon(()))
    }
}

// The one entry point every operation runs through, and the one place the kernel's features
// are written: it makes the token without detection, since it is an `unsafe fn` that requires
// NEON and is compiled with it (see `kernel_entry_point!`).
crate::arch::kernel_entry_point!(Neon, Neon(()), #[inline], #[target_feature(enable = "neon")]);
