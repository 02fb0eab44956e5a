//! Register-only optimization barriers for the benchmarks' timed loops, shared by
//! `workload.rs` and `key_lengths.rs`.
//!
//! `std::hint::black_box` makes the compiler assume any memory may have changed, so a loop
//! that passes each key through it reloads everything it reads from memory (a filter's
//! fields, its kernel) for every key, which a caller's loop does not do. An empty `asm!` that
//! only names a register hides that one value and nothing else.

/// `x`, unknown to the optimizer: it can no longer fold the work on it into a constant, move
/// it out of the loop or vectorize it, and nothing else changes.
#[inline(always)]
pub fn opaque_u64(mut x: u64) -> u64 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: an empty asm that only names a register; it reads and writes no memory, touches
    // no stack and leaves `x` as it was.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(nomem, nostack, preserves_flags))
    };
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        x = std::hint::black_box(x);
    }
    x
}

/// `value`, unknown to the optimizer (its address goes through [`opaque_u64`]), so a lookup of
/// it cannot be folded into a constant or moved out of the loop.
#[inline(always)]
#[allow(dead_code, reason = "`workload.rs` hides only integers")]
pub fn opaque<T>(value: &T) -> &T {
    let address = opaque_u64((value as *const T).expose_provenance() as u64) as usize;
    // SAFETY: `address` is still `value`'s address (`opaque_u64` returns its input), whose
    // provenance was exposed above, so this is the reference passed in, with its lifetime.
    unsafe { &*core::ptr::with_exposed_provenance::<T>(address) }
}
