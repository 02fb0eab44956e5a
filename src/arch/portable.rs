//! The portable kernel: `wide::u32x8`, which compiles to SSE2 on x86_64, NEON on aarch64 and
//! simd128 on wasm32 (two 128-bit halves each), and to scalar code elsewhere. No `unsafe`.
//!
//! `wide` picks its instructions from the features the whole build is compiled with, so this
//! kernel does not become AVX2 inside a `#[target_feature(enable = "avx2")]` function; that is
//! why the AVX2 kernel is written with intrinsics instead.

use wide::u32x8;

use super::{BlockKernel, entry_points};
use crate::block::{LANES, SALT};

/// Token of the portable kernel; always constructible.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

/// The mask of `x` as a vector: `1 << ((x * SALT[i]) >> 27)` in every lane.
#[inline(always)]
fn mask_vector(x: u32) -> u32x8 {
    let hashed = u32x8::splat(x) * u32x8::from(SALT);
    u32x8::ONE.unbounded_shl(hashed >> 27)
}

impl BlockKernel for Portable {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        mask_vector(x).to_array()
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        let mask = mask_vector(x);
        let words = u32x8::from(*block);
        *block = (words | mask).to_array();
        (words & mask).simd_eq(mask).all()
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        let mask = mask_vector(x);
        (u32x8::from(*block) & mask).simd_eq(mask).all()
    }
}

entry_points!(Portable, Portable, #[inline(never)]);

// The one entry point every operation runs through (see `kernel_entry_point!`).
crate::arch::kernel_entry_point!(Portable, Portable, #[inline(never)]);
