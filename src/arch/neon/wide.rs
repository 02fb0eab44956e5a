//! The NEON kernel's wide primitives: the AVX2 wide kernel's algorithm on 128-bit vectors. Two
//! multiplies by the salts and shifts give the eight bit positions, four widenings and
//! variable shifts the four quarters of the 512-bit mask, and one `umaxv` over the OR of the
//! missing bits answers.

use core::arch::aarch64::{
    uint64x2_t, vbicq_u64, vdupq_n_u32, vdupq_n_u64, vget_low_u32, vld1q_u32, vld1q_u64,
    vmaxvq_u32, vmovl_high_u32, vmovl_u32, vmulq_u32, vorrq_u64, vreinterpretq_s64_u64,
    vreinterpretq_u32_u64, vshlq_u64, vshrq_n_u32, vst1q_u64,
};

use super::super::primitives::WideKernel;
use super::Neon;
use crate::layout::split_block::SALT;
use crate::layout::wide::WORDS;

/// A block, or a mask, as four vectors of two words (words 0..2, 2..4, 4..6, 6..8).
type Quarters = [uint64x2_t; 4];

/// The mask of `x`: `1 << ((x · SALT[j]) >> 26)` in word `j`. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn mask(x: u32) -> Quarters {
    // SAFETY: `SALT` is eight readable, 4-byte aligned `u32`s, and each load reads four of
    // them (0..4, then 4..8); `vld1q_u32` needs only `u32` alignment.
    let (salt_low, salt_high) =
        unsafe { (vld1q_u32(SALT.as_ptr()), vld1q_u32(SALT.as_ptr().add(4))) };
    let key = vdupq_n_u32(x);
    let low = vshrq_n_u32::<26>(vmulq_u32(key, salt_low));
    let high = vshrq_n_u32::<26>(vmulq_u32(key, salt_high));
    let one = vdupq_n_u64(1);
    // Each shift is below 64, so `vshlq_u64` shifts left by it.
    let shift = |positions: uint64x2_t| vshlq_u64(one, vreinterpretq_s64_u64(positions));
    [
        shift(vmovl_u32(vget_low_u32(low))),
        shift(vmovl_high_u32(low)),
        shift(vmovl_u32(vget_low_u32(high))),
        shift(vmovl_high_u32(high)),
    ]
}

/// Loads a block. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn load(block: &[u64; WORDS]) -> Quarters {
    // SAFETY: `block` is a valid reference to 64 readable, 8-byte aligned bytes, and each load
    // reads 16 of them (words 2i and 2i + 1, i < 4); `vld1q_u64` needs only `u64` alignment.
    core::array::from_fn(|i| unsafe { vld1q_u64(block.as_ptr().add(2 * i)) })
}

/// Whether some bit of `mask` is clear in `words`. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn any_missing(words: &Quarters, mask: &Quarters) -> bool {
    // vbic(a, b) = a & !b: the mask bits the block lacks.
    let missing = vorrq_u64(
        vorrq_u64(vbicq_u64(mask[0], words[0]), vbicq_u64(mask[1], words[1])),
        vorrq_u64(vbicq_u64(mask[2], words[2]), vbicq_u64(mask[3], words[3])),
    );
    vmaxvq_u32(vreinterpretq_u32_u64(missing)) != 0
}

/// `insert` for the token. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn insert(block: &mut [u64; WORDS], x: u32) -> bool {
    let mask = mask(x);
    let words = load(block);
    for (i, (words, mask)) in words.iter().zip(&mask).enumerate() {
        // SAFETY: `block` is a valid exclusive reference to 64 writable, 8-byte aligned bytes,
        // and each store writes 16 of them (words 2i and 2i + 1, i < 4).
        unsafe { vst1q_u64(block.as_mut_ptr().add(2 * i), vorrq_u64(*words, *mask)) };
    }
    !any_missing(&words, &mask)
}

/// `missing` for the token. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn missing(block: &[u64; WORDS], x: u32) -> bool {
    any_missing(&load(block), &mask(x))
}

impl WideKernel for Neon {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        // SAFETY: `self` proves NEON is available.
        unsafe { insert(block, x) }
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        // SAFETY: `self` proves NEON is available.
        unsafe { missing(block, x) }
    }
}
