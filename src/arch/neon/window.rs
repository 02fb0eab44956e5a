//! The NEON kernel's window primitives: a key's plane mask built once, then each generation's
//! plane tested with one (128-bit planes) or two (256-bit) vector operations and a `umaxv`.

use core::arch::aarch64::{
    uint16x8_t, vbicq_u16, vcombine_u16, vdupq_n_u32, vld1q_u16, vld1q_u32, vmaxvq_u16, vmovn_u32,
    vmulq_u32, vorrq_u16, vreinterpretq_s32_u32, vshlq_u32, vshrq_n_u32, vst1q_u16,
};

use super::super::primitives::{SplitBlockKernel, WindowKernel};
use super::Neon;
use crate::layout::split_block::{LANES, SALT};
use crate::layout::window::Plane;

/// The 128-bit plane mask of `x`: eight 16-bit lanes, narrowed from 32-bit ones (exact: each
/// is below 2^16). Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn mask128(x: u32) -> uint16x8_t {
    // SAFETY: `SALT` is eight readable, 4-byte aligned `u32`s, and each load reads four of
    // them; `vld1q_u32` needs only `u32` alignment.
    let (salt_low, salt_high) =
        unsafe { (vld1q_u32(SALT.as_ptr()), vld1q_u32(SALT.as_ptr().add(4))) };
    let key = vdupq_n_u32(x);
    let one = vdupq_n_u32(1);
    let shift = |salt| vreinterpretq_s32_u32(vshrq_n_u32::<28>(vmulq_u32(key, salt)));
    let low = vmovn_u32(vshlq_u32(one, shift(salt_low)));
    let high = vmovn_u32(vshlq_u32(one, shift(salt_high)));
    vcombine_u16(low, high)
}

/// Whether the 128-bit plane `plane` (four words) holds every bit of `mask`. Requires NEON.
#[target_feature(enable = "neon")]
#[inline]
fn holds128(plane: &[u32; 4], mask: uint16x8_t) -> bool {
    // SAFETY: `plane` is 16 readable bytes, 4-byte aligned; `vld1q_u16` needs only `u16`
    // alignment.
    let lanes = unsafe { vld1q_u16(plane.as_ptr().cast()) };
    vmaxvq_u16(vbicq_u16(mask, lanes)) == 0
}

impl WindowKernel for Neon {
    #[inline(always)]
    fn contains_any(self, group: &[u32], plane: Plane, x: u32) -> bool {
        match plane {
            Plane::Bits256 => {
                let (planes, _) = group.as_chunks::<LANES>();
                planes.iter().fold(false, |found, plane| {
                    found | SplitBlockKernel::contains(self, plane, x)
                })
            }
            Plane::Bits128 => {
                // SAFETY: `self` proves NEON is available.
                let mask = unsafe { mask128(x) };
                let (planes, _) = group.as_chunks::<4>();
                planes.iter().fold(false, |found, plane| {
                    // SAFETY: as above.
                    found | unsafe { holds128(plane, mask) }
                })
            }
        }
    }

    #[inline(always)]
    fn insert_plane(self, words: &mut [u32], plane: Plane, x: u32) {
        match plane {
            Plane::Bits256 => {
                let block: &mut [u32; LANES] = words.try_into().expect("8 words");
                SplitBlockKernel::insert(self, block, x);
            }
            Plane::Bits128 => {
                let block: &mut [u32; 4] = words.try_into().expect("4 words");
                // SAFETY: `self` proves NEON is available; `block` is 16 readable and
                // writable bytes, 4-byte aligned, and the `u16` loads and stores need only
                // `u16` alignment.
                unsafe {
                    let mask = mask128(x);
                    let lanes = vld1q_u16(block.as_ptr().cast());
                    vst1q_u16(block.as_mut_ptr().cast(), vorrq_u16(lanes, mask));
                }
            }
        }
    }
}
