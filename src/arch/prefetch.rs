//! The software prefetch hint the batch loops issue a few keys ahead: on x86_64 `prefetcht0`
//! (into L1) or `prefetcht1` (into L2), whichever this CPU was measured faster with
//! ([`level`]); `prfm pldl1keep` on aarch64 (through `asm!`, since the aarch64 prefetch
//! intrinsic is not stable); nothing elsewhere. Both x86_64 hints are SSE, part of the x86_64
//! baseline.
//!
//! **Into L2, the default.** The L2 cache keeps track of many more outstanding misses than
//! L1, so far more of a batch's DRAM accesses can be in flight at once. Measured on AMD Zen 4
//! with criterion at 10^8 keys (10 bits per key, hashing included, huge pages granted):
//! `prefetcht0` was best at a distance of 16 (batched lookup 11.1 ns per key, batch insert
//! 10.6) and got slower beyond; `prefetcht1` at 16 already gave 9.2 / 8.8 ns and keeps
//! improving up to 128 keys ahead, 4.5-4.8 / 4.3-4.5 ns (see
//! [`PREFETCH_DISTANCE`](super::PREFETCH_DISTANCE)). On Intel it stays too: an Emerald Rapids
//! Xeon, measured with it only, had batched lookups within 1.08x of the gather floor at 10^7
//! keys and 1.00x at 10^8, and on a Granite Rapids class Xeon (480 MiB L3), measured both ways
//! in the workload bench (avx512, medians, `prefetcht1` / `prefetcht0`), batched hits took
//! 8.36 / 10.91 ns per key at 10^8 and the batch build 8.84 / 10.60, while at 10^6 and 10^7,
//! inside that L3, the two were level (2.07 / 2.01 and 6.19 / 6.00 ns; README, "Per CPU").
//!
//! **Into L1 on AMD Zen 5** (family 0x1A). There `prefetcht1` left batches that miss L2 but
//! fit the L3 slower than a loop of single lookups, and `prefetcht0` at the same distance gains
//! at every size measured. Workload bench, one binary run with `SPLITBLOOM_PREFETCH=l2` and
//! `l1` alternated (four times at 10^6 and 10^7, twice at 10^8), avx512 kernel, 128 keys
//! ahead, medians, ns per key (`prefetcht1` / `prefetcht0`; single-key hits 1.82 ns at 10^6):
//!
//! | keys | batched hit | batched miss | batch insert |
//! |---:|---|---|---|
//! | 10^6 (1.25 MB) | 1.96 / 1.61 | 2.04 / 1.59 | 1.90 / 1.64 |
//! | 10^7 (12.5 MB) | 2.59 / 2.28 | 2.48 / 1.96 | 2.42 / 1.62 |
//! | 10^8 (125 MB) | 3.29 / 3.13 | 3.25 / 3.10 | 3.20 / 2.88 |
//!
//! **Into L2 on AMD Zen 4** (family 0x19, as Zen 3), measured both ways in the same
//! workload bench (three alternations, 10^7 keys, medians, `prefetcht1` / `prefetcht0`): batched hits 3.83 /
//! 8.87 ns per key, batch insert 3.68 / 6.21; at 10^6 keys batched hits took 0.60-0.82x the
//! single-key time with `prefetcht1` and 0.90-0.92x with `prefetcht0` (README, "Per CPU", Zen
//! 4). So the family, not the vendor, decides.
//!
//! Issuing both, `prefetcht1` 128 keys ahead and `prefetcht0` 16 or 32 ahead, measured as slow
//! as `prefetcht1` alone at 10^6 and 10^7. Wang et al. ("The Hitchhiker's Guide to Programming
//! and Optimizing CXL-Based Heterogeneous Systems", arXiv:2411.02814, 2024) report that AMD
//! documents Zen 4's `prefetcht1` and `prefetcht2` as filling L2 only, and saw Zen 4 drop some
//! of them: what the hint does is the CPU's choice, so it is chosen per CPU family, and only
//! where measured.
//!
//! `SPLITBLOOM_PREFETCH=l1` or `l2` (read once, with `std`) overrides the choice, so that
//! another CPU can be measured both ways without rebuilding. The aarch64 hint is unchanged:
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

    /// The measured choices (module docs, README "Per CPU"): Zen 5 prefetches into L1; Zen 4,
    /// whose batches took 2.3x as long with `prefetcht0` at 10^7 keys, and Intel into L2.
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
