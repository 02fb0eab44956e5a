//! The portable wide kernel: `wide::u32x8` for the eight salted multiplies and shifts, then
//! plain `[u64; 8]` loops the compiler vectorises for the build's own features. No `unsafe`.

use wide::u32x8;

use super::portable::Portable;
use super::wide_generic::{WideKernel, wide_entry_points};
use crate::block::SALT;
use crate::wide_block::WORDS;

/// The mask of `x`: `1 << ((x * SALT[j]) >> 26)` in word `j`.
#[inline(always)]
fn mask(x: u32) -> [u64; WORDS] {
    let hashed: u32x8 = u32x8::splat(x) * u32x8::from(SALT);
    let shifts: u32x8 = hashed >> 26_u32;
    let shifts = shifts.to_array();
    shifts.map(|shift| 1u64 << shift)
}

impl WideKernel for Portable {
    #[inline(always)]
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool {
        let mask = mask(x);
        let mut missing = 0;
        for (word, bit) in block.iter_mut().zip(mask) {
            missing |= bit & !*word;
            *word |= bit;
        }
        missing == 0
    }

    #[inline(always)]
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool {
        let mask = mask(x);
        let mut missing = 0;
        for (word, bit) in block.iter().zip(mask) {
            missing |= bit & !word;
        }
        missing != 0
    }
}

wide_entry_points!(Portable, Portable, #[inline(never)]);
