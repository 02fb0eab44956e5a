//! The software prefetch hint the batch loops issue a few keys ahead, one instruction per
//! architecture: `prefetcht1` on x86_64 (SSE, part of the x86_64 baseline), `prfm pldl1keep` on
//! aarch64 (through `asm!`, since the aarch64 prefetch intrinsic is not stable), nothing
//! elsewhere.
//!
//! On x86_64 the hint asks for the line in L2 rather than L1 (`prefetcht0`): the L2 cache keeps
//! track of many more outstanding misses than L1, so far more of a batch's DRAM accesses can be
//! in flight at once. Measured on Zen 4 with criterion at 10^8 keys (10 bits per key, hashing
//! included, huge pages granted): `prefetcht0` was best at a distance of 16 (batched lookup
//! 11.1 ns per key, batch insert 10.6) and got slower beyond; `prefetcht1` at 16 already gave
//! 9.2 / 8.8 ns and keeps improving up to 128 keys ahead, 4.5-4.8 / 4.3-4.5 ns (see
//! [`PREFETCH_DISTANCE`](super::PREFETCH_DISTANCE)). The aarch64 hint is unchanged: this
//! project only runs aarch64 under emulation, where no timing means anything.
//!
//! A prefetch is only a hint: it never faults, whatever the address, and it has no effect on
//! the program's memory as the language sees it. That is why [`prefetch`] can take a raw
//! pointer that is never dereferenced and still be a safe function.

/// Asks the CPU to start loading the cache line at `address` (into L2 on x86_64, L1 on
/// aarch64).
#[inline(always)]
pub(crate) fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht1` is a hint that cannot fault or change memory, for any address; SSE
    // is part of the x86_64 baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T1 }>(address.cast());
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
