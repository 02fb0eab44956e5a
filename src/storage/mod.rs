//! The memory a filter's blocks live in: [`Blocks`], an owned, lazily zeroed array of blocks
//! (2 MiB-aligned with a huge-page hint when large), its atomic view for `AtomicFilter`
//! (`atomic`), which takes over the same allocation without copying, and the counter blocks
//! of `CountingFilter` (`counters`). Not ISA code: the kernels in `arch` only receive slices
//! of these blocks.

// Atomic lanes need 32-bit atomic read-modify-write instructions, which a few embedded targets
// lack; everything else in the crate works without them.
#[cfg(target_has_atomic = "32")]
pub(crate) mod atomic;
mod blocks;
pub(crate) mod counters;
mod quotient;
mod wide;
pub(crate) mod window;

pub(crate) use blocks::{BlockStorage, Blocks, HUGE_PAGE_THRESHOLD};
