//! The software prefetch hint the batch loops issue a few keys ahead: on x86_64 `prefetcht0`
//! (into L1) or `prefetcht1` (into L2), whichever this CPU family was measured faster with
//! ([`level`]); `prfm pldl1keep` on aarch64 (through `asm!`, since the aarch64 prefetch
//! intrinsic is not stable); nothing elsewhere. Both x86_64 hints are SSE, part of the x86_64
//! baseline.
//!
//! **Into L2, the default.** The L2 cache keeps track of many more outstanding misses than
//! L1, so far more of a batch's DRAM accesses can be in flight at once, and the ring can run
//! `Policy::PREFETCH_DISTANCE` keys ahead. It measured faster, or level,
//! on every Intel CPU and on AMD Zen 3 and Zen 4 (family 0x19).
//!
//! **Into L1 on AMD Zen 5** (family 0x1A). There `prefetcht1` left batches that miss L2 but
//! fit the L3 slower than a loop of single lookups, and `prefetcht0` at the same distance
//! gained at every size measured. So the family, not the vendor, decides.
//!
//! What the hint does is the CPU's choice (AMD documents Zen 4's `prefetcht1` and
//! `prefetcht2` as filling L2 only; Wang et al., arXiv:2411.02814, saw Zen 4 drop some of
//! them), so it is chosen per CPU family, and only where measured; issuing both hints at two
//! distances gained nothing. The measurements are in BENCHMARKS.md, "Prefetch".
//!
//! `SPLITBLOOM_PREFETCH=l1` or `l2` (read once, with `std`) overrides the choice, so that
//! another CPU can be measured both ways without rebuilding. The aarch64 hint is fixed:
//! this project only runs aarch64 under emulation, where no timing means anything.
//!
//! A prefetch is only a hint: it never faults, whatever the address, and it has no effect on
//! the program's memory as the language sees it. That is why [`prefetch`] can take a raw
//! pointer that is never dereferenced and still be a safe function.

use core::sync::atomic::{AtomicU8, Ordering};

/// The cache level a batch loop's prefetches ask for; its discriminant is what [`LEVEL`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Level {
    /// `prefetcht0` on x86_64.
    L1 = 1,
    /// `prefetcht1` on x86_64.
    L2 = 2,
}

impl Level {
    /// The name `SPLITBLOOM_PREFETCH` takes and benchmarks print.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Level::L1 => "l1",
            Level::L2 => "l2",
        }
    }
}

/// The cached [`level`]: 0 before the first call, then the `Level`'s discriminant.
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The level this CPU's batch loops prefetch into: `SPLITBLOOM_PREFETCH` if set to `l1` or
/// `l2`, else L1 on AMD family 0x1A (Zen 5) and L2 everywhere else, Zen 4 included (see the
/// module docs).
/// Detected at the first call and cached.
#[inline]
pub(crate) fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        value if value == Level::L1 as u8 => Level::L1,
        value if value == Level::L2 as u8 => Level::L2,
        _ => {
            let level = requested().unwrap_or_else(detect);
            set_level(level);
            level
        }
    }
}

/// Replaces the cached [`level`] (tests run the batch loops both ways with it). Any thread
/// racing with it sees one level or the other, and both give the same answers and bits.
pub(crate) fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// The level measured best on this CPU.
fn detect() -> Level {
    level_for(super::cache::amd_family())
}

/// The level measured best for an AMD CPU family (`None`: not AMD): L1 on Zen 5 (0x1A), L2 on
/// Zen 3 and Zen 4 (0x19), on every other family and on other vendors (see the module docs).
fn level_for(amd_family: Option<u32>) -> Level {
    match amd_family {
        Some(0x1a) => Level::L1,
        _ => Level::L2,
    }
}

/// The level named by `SPLITBLOOM_PREFETCH`, if set to a known one.
#[cfg(feature = "std")]
fn requested() -> Option<Level> {
    let requested = std::env::var("SPLITBLOOM_PREFETCH").ok()?;
    [Level::L1, Level::L2]
        .into_iter()
        .find(|level| level.name() == requested)
}

/// Without `std` there is no environment to read.
#[cfg(not(feature = "std"))]
fn requested() -> Option<Level> {
    None
}

/// Asks the CPU to start loading the cache line at `address`: on x86_64 into L1 when `L1`,
/// else into L2; into L1 on aarch64 either way.
#[inline(always)]
pub(crate) fn prefetch<const L1: bool, T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` and `prefetcht1` are hints that cannot fault or change memory, for
    // any address; SSE is part of the x86_64 baseline.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1, _mm_prefetch};
        if L1 {
            _mm_prefetch::<_MM_HINT_T0>(address.cast());
        } else {
            _mm_prefetch::<_MM_HINT_T1>(address.cast());
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_is_cached_and_can_be_replaced() {
        let level = level();
        assert_eq!(level, super::level());
        let other = match level {
            Level::L1 => Level::L2,
            Level::L2 => Level::L1,
        };
        set_level(other);
        assert_eq!(super::level(), other);
        set_level(level);
        assert_eq!(super::level(), level);
    }

    /// The measured choices (module docs; BENCHMARKS.md, "Prefetch"): Zen 5 prefetches into
    /// L1; Zen 3, Zen 4 and Intel into L2.
    #[test]
    fn each_measured_cpu_gets_its_level() {
        assert_eq!(level_for(Some(0x1a)), Level::L1, "Zen 5");
        assert_eq!(level_for(Some(0x19)), Level::L2, "Zen 3 and Zen 4");
        assert_eq!(
            level_for(Some(0x17)),
            Level::L2,
            "Zen 1 and Zen 2, not measured"
        );
        assert_eq!(level_for(None), Level::L2, "Intel and other vendors");
    }
}
