//! The portable kernel: `wide::u32x8`, which compiles to SSE2 on x86_64, NEON on aarch64 and
//! simd128 on wasm32 (two 128-bit halves each), and to scalar code elsewhere. No `unsafe`.
//!
//! `wide` picks its instructions from the features the whole build is compiled with, so this
//! kernel does not become AVX2 inside a `#[target_feature(enable = "avx2")]` function; that is
//! why the AVX2 kernel is written with intrinsics instead.

use wide::{u8x16, u16x8, u32x8};

use super::primitives::{SplitBlockKernel, WideKernel, WindowKernel};
use super::quotient::{QuotientKernel, select};
use crate::layout::quotient::{self, BLOCK_BYTES, Block, BucketEnds, Width};
use crate::layout::split_block::{LANES, SALT};
use crate::layout::wide::WORDS;
use crate::layout::window::Plane;

/// Token of the portable kernel; always constructible.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

/// `x · SALT[i]` in every lane: the multiply every layout's mask starts from.
#[inline(always)]
fn salted(x: u32) -> u32x8 {
    u32x8::splat(x) * u32x8::from(SALT)
}

/// The split-block mask of `x` as a vector: `1 << ((x · SALT[i]) >> 27)` in every lane.
#[inline(always)]
fn mask_vector(x: u32) -> u32x8 {
    u32x8::ONE.unbounded_shl(salted(x) >> 27)
}

impl SplitBlockKernel for Portable {
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

/// The wide mask of `x`: `1 << ((x · SALT[j]) >> 26)` in word `j`, the shifts from the vector
/// multiply, the words from plain loops the compiler vectorises for the build's own features.
#[inline(always)]
fn wide_mask(x: u32) -> [u64; WORDS] {
    let shifts: u32x8 = salted(x) >> 26_u32;
    shifts.to_array().map(|shift| 1u64 << shift)
}

impl WideKernel for Portable {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        let mut missing = 0;
        for (word, bit) in block.iter_mut().zip(wide_mask(x)) {
            missing |= bit & !*word;
            *word |= bit;
        }
        missing == 0
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        let mut missing = 0;
        for (word, bit) in block.iter().zip(wide_mask(x)) {
            missing |= bit & !word;
        }
        missing != 0
    }
}

/// The 128-bit plane mask of `x` as two 64-bit words (its eight 16-bit lanes in memory
/// order): the lanes' shifts from the vector multiply.
#[inline(always)]
fn mask128(x: u32) -> [u64; 2] {
    let shifts: u32x8 = salted(x) >> 28_u32;
    let lanes: [u16; LANES] = shifts.to_array().map(|shift| 1u16 << shift);
    bytemuck::cast(lanes)
}

/// Whether the 128-bit plane `plane` (four words) lacks some bit of `mask`.
#[inline(always)]
fn missing128(plane: &[u32], mask: [u64; 2]) -> bool {
    let words: [u64; 2] = bytemuck::pod_read_unaligned(bytemuck::cast_slice(plane));
    (mask[0] & !words[0]) | (mask[1] & !words[1]) != 0
}

impl WindowKernel for Portable {
    /// The mask is computed once for every plane: the 256-bit planes tested as split-block
    /// blocks, the 128-bit ones as two 64-bit words each.
    #[inline(always)]
    fn contains_any(self, group: &[u32], plane: Plane, x: u32) -> bool {
        match plane {
            Plane::Bits256 => {
                let mask = mask_vector(x);
                let (planes, _) = group.as_chunks::<LANES>();
                planes.iter().fold(false, |found, plane| {
                    found | (u32x8::from(*plane) & mask).simd_eq(mask).all()
                })
            }
            Plane::Bits128 => {
                let mask = mask128(x);
                let (planes, _) = group.as_chunks::<4>();
                planes
                    .iter()
                    .fold(false, |found, plane| found | !missing128(plane, mask))
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
                let mask: [u32; 4] = bytemuck::cast(mask128(x));
                for (word, bit) in words.iter_mut().zip(mask) {
                    *word |= bit;
                }
            }
        }
    }
}

/// The block's bytes as four 16-byte vectors.
#[inline(always)]
fn chunks(block: &Block) -> &[[u8; 16]; BLOCK_BYTES / 16] {
    let (chunks, _) = block.as_chunks::<16>();
    chunks.try_into().unwrap_or(&[[0; 16]; BLOCK_BYTES / 16])
}

impl QuotientKernel for Portable {
    #[inline(always)]
    fn bucket_range<W: Width>(self, metadata: W::Metadata, bucket: u32) -> BucketEnds {
        select::bucket_range::<W>(metadata, bucket)
    }

    #[inline(always)]
    fn tag_matches<W: Width>(self, block: &Block, tag: W::Tag) -> u64 {
        let tag: u64 = tag.into();
        let mut bits = 0u64;
        if W::TAG_BITS == 8 {
            let tag = u8x16::splat(tag as u8);
            for (at, chunk) in chunks(block).iter().enumerate() {
                let equal = u8x16::from(*chunk).simd_eq(tag).to_bitmask();
                bits |= u64::from(equal) << (16 * at);
            }
        } else {
            let tag = u16x8::splat(tag as u16);
            for (at, chunk) in chunks(block).iter().enumerate() {
                let words: [u16; 8] =
                    core::array::from_fn(|i| u16::from_le_bytes([chunk[2 * i], chunk[2 * i + 1]]));
                let equal = u16x8::from(words).simd_eq(tag).to_bitmask();
                bits |= u64::from(equal) << (8 * at);
            }
        }
        // The metadata's bytes (16, or 4 words) come first.
        bits >> (8 * W::METADATA_BYTES as u32 / W::TAG_BITS)
    }

    #[inline(always)]
    fn shift_in<W: Width>(self, block: &mut Block, slot: u32, tag: W::Tag) {
        quotient::shift_in::<W>(block, slot, tag);
    }

    #[inline(always)]
    fn shift_out<W: Width>(self, block: &mut Block, slot: u32) {
        quotient::shift_out::<W>(block, slot);
    }
}

// The one entry point every operation runs through (see `kernel_entry_point!`).
crate::arch::kernel_entry_point!(Portable, Portable, #[inline(never)]);
