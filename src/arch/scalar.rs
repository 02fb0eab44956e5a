//! The scalar kernel: the reference implementation of [`crate::block`] behind the same token
//! interface as the SIMD kernels. No `unsafe`, runs everywhere.

use super::{BlockKernel, contains_hashes_with, insert_hashes_with};
use crate::block::{self, LANES};

/// Token of the scalar kernel; always constructible.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl BlockKernel for Scalar {
    #[inline(always)]
    fn mask(self, x: u32) -> [u32; LANES] {
        block::mask(x)
    }

    #[inline(always)]
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool {
        block::insert(block, x)
    }

    #[inline(always)]
    fn contains(self, block: &[u32; LANES], x: u32) -> bool {
        block::contains(block, x)
    }

    fn insert_hashes(self, blocks: &mut [[u32; LANES]], hashes: &[u64], distance: usize) {
        insert_hashes_with(self, blocks, hashes, distance);
    }

    fn contains_hashes(
        self,
        blocks: &[[u32; LANES]],
        hashes: &[u64],
        out: &mut [bool],
        distance: usize,
    ) {
        contains_hashes_with(self, blocks, hashes, out, distance);
    }
}
