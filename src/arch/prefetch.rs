//! The software prefetch hint the batch loops issue a few keys ahead, one instruction per
//! architecture: `prefetcht0` on x86_64 (SSE, part of the x86_64 baseline), `prfm pldl1keep` on
//! aarch64 (through `asm!`, since the aarch64 prefetch intrinsic is not stable), nothing
//! elsewhere.
//!
//! A prefetch is only a hint: it never faults, whatever the address, and it has no effect on
//! the program's memory as the language sees it. That is why [`prefetch`] can take a raw
//! pointer that is never dereferenced and still be a safe function.

/// Asks the CPU to start loading the cache line at `address` into L1.
#[inline(always)]
pub(crate) fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint that cannot fault or change memory, for any address; SSE
    // is part of the x86_64 baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: `prfm` is a hint that cannot fault or change memory, for any address; the asm
    // touches no stack, flags or memory.
    unsafe {
        core::arch::asm!(
            "prfm pldl1keep, [{address}]",
            address = in(reg) address,
            options(nostack, preserves_flags, readonly),
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = address;
}
