//! The cache sizes the batch loops' prefetching is tuned from, detected once at run time.
//!
//! Prefetching pays only when a filter's blocks miss the core's private cache: below that, every
//! probe hits L2 within a dozen cycles, out-of-order execution hides it, and the extra hashing
//! ahead and prefetch instructions only cost. So the batch operations prefetch on filters
//! larger than one core's L2 ([`Caches::l2`]): 1 MiB on AMD Zen 4, 2 MiB on Intel Sapphire /
//! Emerald / Granite Rapids.
//!
//! Sources, in order:
//!
//! * x86_64: CPUID's deterministic cache parameters, leaf 4 on Intel and leaf `0x8000_001D` on
//!   AMD and Hygon (same layout); needs no `std`.
//! * Linux with `std`: `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}` (other
//!   architectures, and hypervisors that hide the CPUID leaves).
//! * Otherwise [`FALLBACK`]: a common size.
//!
//! The result is cached after the first call, like [`Kernel::best`](crate::Kernel::best).
//!
//! [`amd_family`] reads the CPU family the same way, for the prefetch hint
//! ([`prefetch::level`](super::prefetch::level)), which depends on the core, not on the sizes.

use core::sync::atomic::{AtomicUsize, Ordering};

/// The caches that matter to prefetching, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caches {
    /// One core's L2 (unified) cache.
    pub(crate) l2: usize,
    /// The last-level (L3) cache, 0 when there is none.
    pub(crate) l3: usize,
    /// Where the sizes come from.
    pub(crate) source: Source,
}

/// Where [`Caches`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// CPUID's cache-parameter leaves (x86_64).
    Cpuid,
    /// Linux sysfs.
    Sysfs,
    /// Nothing usable was found: [`FALLBACK`].
    Fallback,
}

impl Source {
    /// The source's name, for benchmark output.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Source::Cpuid => "cpuid",
            Source::Sysfs => "sysfs",
            Source::Fallback => "fallback",
        }
    }
}

/// The caches assumed when nothing is detected: AMD Zen 4's (1 MiB L2 per core, 32 MiB L3 per
/// CCD), whose L2 is the smallest of the CPUs the prefetch threshold was measured on, so a
/// filter that fits it is not prefetched where that costs.
pub(crate) const FALLBACK: Caches = Caches {
    l2: 1 << 20,
    l3: 32 << 20,
    source: Source::Fallback,
};

/// An L2 outside this range is a misreading (no CPU has one), so it is ignored.
const PLAUSIBLE_L2: core::ops::RangeInclusive<usize> = (64 << 10)..=(64 << 20);

/// The caches of this CPU, detected at the first call and cached.
pub(crate) fn caches() -> Caches {
    // 0: not detected yet. The source is packed into the low bits of `L2`'s value: sizes are
    // multiples of 1 KiB, so the low two bits are free.
    static L2: AtomicUsize = AtomicUsize::new(0);
    static L3: AtomicUsize = AtomicUsize::new(0);
    let packed = L2.load(Ordering::Relaxed);
    if packed != 0 {
        let source = match packed & 3 {
            1 => Source::Cpuid,
            2 => Source::Sysfs,
            _ => Source::Fallback,
        };
        return Caches {
            l2: packed & !3,
            l3: L3.load(Ordering::Relaxed),
            source,
        };
    }
    let caches = detect();
    let tag = match caches.source {
        Source::Cpuid => 1,
        Source::Sysfs => 2,
        Source::Fallback => 3,
    };
    // Racing threads compute the same value; L3 is stored first so that a thread that sees
    // L2 also sees L3 (or at worst an L3 of 0, which only the summary shows).
    L3.store(caches.l3, Ordering::Relaxed);
    L2.store((caches.l2 & !3) | tag, Ordering::Relaxed);
    caches
}

/// Detects the caches without caching: CPUID, then sysfs, then [`FALLBACK`].
pub(crate) fn detect() -> Caches {
    let plausible = |caches: &Caches| PLAUSIBLE_L2.contains(&caches.l2);
    cpuid()
        .filter(plausible)
        .or_else(|| sysfs().filter(plausible))
        .unwrap_or(FALLBACK)
}

/// The L2 and L3 sizes from CPUID's deterministic cache parameters.
#[cfg(target_arch = "x86_64")]
fn cpuid() -> Option<Caches> {
    use core::arch::x86_64::__cpuid_count;

    let vendor = vendor();
    let is = |name: &[u8; 12]| vendor == *name;
    let leaf = if is(b"GenuineIntel") {
        if vendor_max(0) < 4 {
            return None;
        }
        4
    } else if is(b"AuthenticAMD") || is(b"HygonGenuine") {
        if vendor_max(0x8000_0000) < 0x8000_001D {
            return None;
        }
        0x8000_001D
    } else {
        return None;
    };
    let (mut l2, mut l3) = (0, 0);
    // Sub-leaves list the caches until one of type 0; a bound keeps a broken CPUID finite.
    for subleaf in 0..16 {
        let info = __cpuid_count(leaf, subleaf);
        let kind = info.eax & 0x1f;
        if kind == 0 {
            break;
        }
        // Types 1 (data) and 3 (unified) hold data; 2 is instructions only.
        if kind == 2 {
            continue;
        }
        let level = (info.eax >> 5) & 7;
        let ways = (info.ebx >> 22) as usize + 1;
        let partitions = ((info.ebx >> 12) & 0x3ff) as usize + 1;
        let line = (info.ebx & 0xfff) as usize + 1;
        let sets = info.ecx as usize + 1;
        let size = ways
            .saturating_mul(partitions)
            .saturating_mul(line)
            .saturating_mul(sets);
        match level {
            2 => l2 = size,
            3 => l3 = size,
            _ => {}
        }
    }
    (l2 != 0).then_some(Caches {
        l2,
        l3,
        source: Source::Cpuid,
    })
}

/// CPUID's vendor string (`GenuineIntel`, `AuthenticAMD`, ...).
#[cfg(target_arch = "x86_64")]
fn vendor() -> [u8; 12] {
    let leaf = core::arch::x86_64::__cpuid(0);
    let mut vendor = [0; 12];
    for (bytes, word) in vendor
        .chunks_exact_mut(4)
        .zip([leaf.ebx, leaf.edx, leaf.ecx])
    {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
    vendor
}

/// The CPU family of an AMD CPU (CPUID leaf 1: the base family, plus the extended family when
/// the base one is 0xF; 0x19 is Zen 3 and Zen 4, 0x1A Zen 5), `None` on other vendors and
/// architectures.
pub(crate) fn amd_family() -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if vendor() == *b"AuthenticAMD" && vendor_max(0) >= 1 {
        return Some(family(core::arch::x86_64::__cpuid(1).eax));
    }
    None
}

/// The CPU family in CPUID leaf 1's `eax`: the base family (bits 8-11), plus the extended
/// family (bits 20-27) when the base one is 0xF.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn family(eax: u32) -> u32 {
    let base = (eax >> 8) & 0xf;
    let extended = (eax >> 20) & 0xff;
    if base == 0xf { base + extended } else { base }
}

/// The highest CPUID leaf of the range starting at `base` (0 or `0x8000_0000`).
#[cfg(target_arch = "x86_64")]
fn vendor_max(base: u32) -> u32 {
    core::arch::x86_64::__cpuid(base).eax
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid() -> Option<Caches> {
    None
}

/// The L2 and L3 sizes of CPU 0 from Linux sysfs.
#[cfg(all(feature = "std", target_os = "linux"))]
fn sysfs() -> Option<Caches> {
    let (mut l2, mut l3) = (0, 0);
    for index in 0..8 {
        let dir = std::format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let read = |name: &str| std::fs::read_to_string(std::format!("{dir}/{name}")).ok();
        let Some(level) = read("level") else { break };
        if read("type").is_some_and(|kind| kind.trim() == "Instruction") {
            continue;
        }
        let Some(size) = read("size").as_deref().and_then(parse_size) else {
            continue;
        };
        match level.trim() {
            "2" => l2 = size,
            "3" => l3 = size,
            _ => {}
        }
    }
    (l2 != 0).then_some(Caches {
        l2,
        l3,
        source: Source::Sysfs,
    })
}

#[cfg(not(all(feature = "std", target_os = "linux")))]
fn sysfs() -> Option<Caches> {
    None
}

/// A sysfs cache size: `2048K`, `260M`, or plain bytes.
#[cfg_attr(not(all(feature = "std", target_os = "linux")), allow(dead_code))]
pub(crate) fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, scale) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_parse() {
        assert_eq!(parse_size("2048K\n"), Some(2 << 20));
        assert_eq!(parse_size("260M"), Some(260 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size("12x"), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
    }

    #[test]
    fn cpu_families_decode() {
        // Leaf 1 `eax` of an AMD EPYC Zen 5 (family 0x1A, model 2, stepping 1), Zen 4
        // (family 0x19, model 0x11), Zen 2 (0x17, model 0x31) and an Intel Xeon (family 6,
        // model 0xCF, whose family has no extension).
        assert_eq!(family(0x00b0_0f21), 0x1a);
        assert_eq!(family(0x00a1_0f11), 0x19);
        assert_eq!(family(0x0083_0f10), 0x17);
        assert_eq!(family(0x000c_06f2), 6);
    }

    /// `amd_family` against Linux's own decoding of the same CPUID leaf, where the CPU that
    /// `/proc/cpuinfo` describes is the one CPUID answers for (not under an emulator that
    /// reports another vendor).
    #[cfg(all(feature = "std", target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn amd_family_agrees_with_linux() {
        let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        let field = |name: &str| {
            cpuinfo.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == name).then(|| value.trim().to_owned())
            })
        };
        if field("vendor_id").as_deref().map(str::as_bytes) != Some(&vendor()[..]) {
            return;
        }
        let linux = field("cpu family").and_then(|family| family.parse::<u32>().ok());
        match amd_family() {
            Some(family) => assert_eq!(Some(family), linux),
            None => assert_ne!(&vendor(), b"AuthenticAMD"),
        }
    }

    #[test]
    fn detection_is_plausible_and_cached() {
        let caches = caches();
        assert!(PLAUSIBLE_L2.contains(&caches.l2), "{caches:?}");
        assert_eq!(caches, super::caches());
        assert_eq!(caches, detect());
    }
}
