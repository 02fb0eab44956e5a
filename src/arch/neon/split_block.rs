//! The NEON kernel's split-block primitives: the AVX2 kernel's algorithm on two 128-bit
//! halves.

use core::arch::aarch64::{
    uint32x4_t, vbicq_u32, vdupq_n_u32, vld1q_u32, vmaxvq_u32, vmulq_u32, vorrq_u32,
    vreinterpretq_s32_u32, vshlq_u32, vshrq_n_u32, vst1q_u32,
};

use super::super::primitives::SplitBlockKernel;
use super::Neon;
use crate::layout::split_block::{LANES, SALT};

/// A block as two vectors (lanes 0..4 and 4..8).
type Halves = (uint32x4_t, uint32x4_t);

/// Loads a block. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn load(block: &[u32; LANES]) -> Halves {
    // SAFETY: `block` is a valid reference to 32 readable, 4-byte aligned bytes, and each load
    // reads 16 of them (lanes 0..4, then 4..8); `vld1q_u32` needs only `u32` alignment.
    unsafe { (vld1q_u32(block.as_ptr()), vld1q_u32(block.as_ptr().add(4))) }
}

/// Stores a block. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn store(block: &mut [u32; LANES], (low, high): Halves) {
    // SAFETY: `block` is a valid exclusive reference to 32 writable, 4-byte aligned bytes, and
    // each store writes 16 of them (lanes 0..4, then 4..8).
    unsafe {
        vst1q_u32(block.as_mut_ptr(), low);
        vst1q_u32(block.as_mut_ptr().add(4), high);
    }
}

/// The mask of `x` as two vectors. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn mask_vector(x: u32) -> Halves {
    let (salt_low, salt_high) = load(&SALT);
    let key = vdupq_n_u32(x);
    let one = vdupq_n_u32(1);
    let shift_low = vreinterpretq_s32_u32(vshrq_n_u32::<27>(vmulq_u32(key, salt_low)));
    let shift_high = vreinterpretq_s32_u32(vshrq_n_u32::<27>(vmulq_u32(key, salt_high)));
    (vshlq_u32(one, shift_low), vshlq_u32(one, shift_high))
}

/// Whether every bit of `mask` is set in `words`. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn covers((words_low, words_high): Halves, (mask_low, mask_high): Halves) -> bool {
    // vbic(a, b) = a & !b: the mask bits the block lacks.
    let missing = vorrq_u32(
        vbicq_u32(mask_low, words_low),
        vbicq_u32(mask_high, words_high),
    );
    vmaxvq_u32(missing) == 0
}

/// `mask` for the token. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn mask(x: u32) -> [u32; LANES] {
    let mut words = [0; LANES];
    store(&mut words, mask_vector(x));
    words
}

/// `insert` for the token. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn insert(block: &mut [u32; LANES], x: u32) -> bool {
    let mask = mask_vector(x);
    let words = load(block);
    store(
        block,
        (vorrq_u32(words.0, mask.0), vorrq_u32(words.1, mask.1)),
    );
    covers(words, mask)
}

/// `contains` for the token. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn contains(block: &[u32; LANES], x: u32) -> bool {
    covers(load(block), mask_vector(x))
}

impl SplitBlockKernel for Neon {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        // SAFETY: `self` proves NEON is available.
        unsafe { mask(x) }
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        // SAFETY: `self` proves NEON is available.
        unsafe { insert(block, x) }
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        // SAFETY: `self` proves NEON is available.
        unsafe { contains(block, x) }
    }
}
