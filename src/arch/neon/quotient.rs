//! The NEON kernel of the quotient layout (aarch64): the block as four 128-bit registers, tag
//! compares turned into a slot mask by weighted pairwise adds, slot shifts with `ext`, and the
//! word-parallel select of [`select`](super::select) for the bucket bounds.

use core::arch::aarch64::{
    uint8x16_t, vaddq_u8, vandq_u8, vbslq_u8, vceqq_u8, vceqq_u16, vcgtq_u8, vcombine_u8,
    vdupq_n_u8, vdupq_n_u16, vextq_u8, vgetq_lane_u64, vld1q_u8, vmovn_u16, vpaddq_u8,
    vreinterpretq_u8_u16, vreinterpretq_u16_u8, vreinterpretq_u64_u8, vst1q_u8,
};

use super::Neon;
use crate::arch::quotient::{QuotientKernel, select};
use crate::layout::quotient::{Block, BucketEnds, Width};

/// The block as four registers: bytes 0..16, 16..32, 32..48, 48..64.
#[target_feature(enable = "neon")]
#[inline]
fn load(block: &Block) -> [uint8x16_t; 4] {
    let at = block.as_ptr();
    // SAFETY: `block` is 64 readable bytes and the four loads read bytes 0..64 of it, 16 at a
    // time; `vld1q_u8` needs no alignment.
    unsafe { [0, 16, 32, 48].map(|offset| vld1q_u8(at.add(offset))) }
}

/// Stores four registers as the block's bytes 0..64.
#[target_feature(enable = "neon")]
#[inline]
fn store(block: &mut Block, registers: [uint8x16_t; 4]) {
    let at = block.as_mut_ptr();
    // SAFETY: `block` is 64 writable bytes under an exclusive borrow, and the four stores
    // write bytes 0..64 of it.
    unsafe {
        for (offset, register) in [0, 16, 32, 48].into_iter().zip(registers) {
            vst1q_u8(at.add(offset), register);
        }
    }
}

/// One bit per byte lane of four compare results (each lane 0 or 0xff): bit `i` for byte `i`.
/// Each lane keeps its weight `1 << (i mod 8)`, and three rounds of pairwise adds sum each
/// group of eight lanes into one byte.
#[target_feature(enable = "neon")]
#[inline]
fn byte_mask(equal: [uint8x16_t; 4]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: `WEIGHTS` is 16 readable bytes.
    let weights = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
    let [a, b, c, d] = equal.map(|lanes| vandq_u8(lanes, weights));
    let halves = vpaddq_u8(vpaddq_u8(a, b), vpaddq_u8(c, d));
    vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(halves, halves)))
}

/// The slots holding `tag`, bit `i` for slot `i`.
#[target_feature(enable = "neon")]
#[inline]
fn tag_matches<W: Width>(block: &Block, tag: u64) -> u64 {
    let bytes = load(block);
    if W::TAG_BITS == 8 {
        let tag = vdupq_n_u8(tag as u8);
        byte_mask(bytes.map(|lanes| vceqq_u8(lanes, tag))) >> W::METADATA_BYTES
    } else {
        let tag = vdupq_n_u16(tag as u16);
        let [a, b, c, d] =
            bytes.map(|lanes| vmovn_u16(vceqq_u16(vreinterpretq_u16_u8(lanes), tag)));
        let zero = vdupq_n_u8(0);
        byte_mask([vcombine_u8(a, b), vcombine_u8(c, d), zero, zero]) >> (W::METADATA_BYTES / 2)
    }
}

/// The byte lanes of the block with index above `after`, per register.
#[target_feature(enable = "neon")]
#[inline]
fn above(after: u8) -> [uint8x16_t; 4] {
    const INDICES: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    // SAFETY: `INDICES` is 16 readable bytes.
    let indices = unsafe { vld1q_u8(INDICES.as_ptr()) };
    let after = vdupq_n_u8(after);
    [0u8, 16, 32, 48].map(|offset| vcgtq_u8(vaddq_u8(indices, vdupq_n_u8(offset)), after))
}

/// Byte-wise `if mask { b } else { a }`.
#[target_feature(enable = "neon")]
#[inline]
fn blend(a: [uint8x16_t; 4], b: [uint8x16_t; 4], mask: [uint8x16_t; 4]) -> [uint8x16_t; 4] {
    [0, 1, 2, 3].map(|i| vbslq_u8(mask[i], b[i], a[i]))
}

/// The 64 bytes moved up by `16 − KEEP` bytes, zeros entering at byte 0.
#[target_feature(enable = "neon")]
#[inline]
fn shifted_up<const KEEP: i32>(bytes: [uint8x16_t; 4]) -> [uint8x16_t; 4] {
    let zero = vdupq_n_u8(0);
    let below = [zero, bytes[0], bytes[1], bytes[2]];
    [0, 1, 2, 3].map(|i| vextq_u8::<KEEP>(below[i], bytes[i]))
}

/// The 64 bytes moved down by `SHIFT` bytes, zeros entering at byte 63.
#[target_feature(enable = "neon")]
#[inline]
fn shifted_down<const SHIFT: i32>(bytes: [uint8x16_t; 4]) -> [uint8x16_t; 4] {
    let zero = vdupq_n_u8(0);
    let next = [bytes[1], bytes[2], bytes[3], zero];
    [0, 1, 2, 3].map(|i| vextq_u8::<SHIFT>(bytes[i], next[i]))
}

/// `shift_in`: the block moved up by one slot in registers, blended with the original below
/// the slot and with the tag at it.
#[target_feature(enable = "neon")]
#[inline]
fn shift_in<W: Width>(block: &mut Block, slot: u32, tag: u64) {
    if slot >= W::SLOTS {
        return;
    }
    let bytes = load(block);
    let at = (W::METADATA_BYTES as u32 + slot * W::TAG_BITS / 8) as u8;
    let (moved, tags, width) = if W::TAG_BITS == 8 {
        let tag = vdupq_n_u8(tag as u8);
        (shifted_up::<15>(bytes), [tag; 4], 1)
    } else {
        let tag = vreinterpretq_u8_u16(vdupq_n_u16(tag as u16));
        (shifted_up::<14>(bytes), [tag; 4], 2)
    };
    let with_tag = blend(bytes, tags, above(at - 1));
    store(block, blend(with_tag, moved, above(at + width - 1)));
}

/// `shift_out`: the block moved down by one slot in registers, blended with the original below
/// the slot.
#[target_feature(enable = "neon")]
#[inline]
fn shift_out<W: Width>(block: &mut Block, slot: u32) {
    if slot >= W::SLOTS {
        return;
    }
    let bytes = load(block);
    let at = (W::METADATA_BYTES as u32 + slot * W::TAG_BITS / 8) as u8;
    let moved = if W::TAG_BITS == 8 {
        shifted_down::<1>(bytes)
    } else {
        shifted_down::<2>(bytes)
    };
    store(block, blend(bytes, moved, above(at - 1)));
}

impl QuotientKernel for Neon {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        select::bucket_range::<W>(metadata, bucket)
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        // SAFETY: `self` proves the CPU has NEON.
        unsafe { tag_matches::<W>(block, tag.into()) }
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        // SAFETY: `self` proves the CPU has NEON.
        unsafe { shift_in::<W>(block, slot, tag.into()) }
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        // SAFETY: `self` proves the CPU has NEON.
        unsafe { shift_out::<W>(block, slot) }
    }
}
