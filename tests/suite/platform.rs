//! What this build and CPU chose, checked against what the test scripts expect.
//!
//! `scripts/test-aarch64.sh` and `scripts/test-x86-baseline.sh` run the suite on emulated CPUs
//! with and without AES. A run-time fallback that silently picks another kernel, or a
//! `RUSTFLAGS` override that does not reach the build, would still pass every other test, so
//! the scripts say what they expect through `SPLITBLOOM_EXPECT_KERNEL` (a kernel name) and
//! `SPLITBLOOM_EXPECT_GXHASH` (`available` or `unavailable`: whether the build has AES, so
//! that the opt-in `GxHash` can run), and these tests fail when it differs. The default hasher
//! is XXH3 (hasher id 4, `Xxh3`) in every build, which is checked unconditionally
//! (`SPLITBLOOM_EXPECT_HASHER`, if set, must therefore say `xxh3`). Without the variables
//! (a plain `cargo test`) they only print what was chosen.

use splitbloom::{Error, Filter, FilterHasher, GxHash, HasherKind, Kernel, Xxh3};

/// The value of environment variable `name`, if set.
fn expected(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[test]
fn the_expected_kernel_is_chosen() {
    let chosen = Kernel::best();
    let available: Vec<&str> = Kernel::available().map(Kernel::name).collect();
    println!(
        "kernel chosen: {chosen} (available here: {})",
        available.join(", ")
    );
    assert_eq!(Filter::with_num_blocks(1).unwrap().kernel(), chosen);
    if let Some(name) = expected("SPLITBLOOM_EXPECT_KERNEL") {
        let expected: Kernel = name
            .parse()
            .unwrap_or_else(|_| panic!("SPLITBLOOM_EXPECT_KERNEL={name} is not a kernel"));
        assert_eq!(chosen, expected, "SPLITBLOOM_EXPECT_KERNEL={name}");
    }
}

#[test]
fn the_default_hasher_is_xxh3_in_every_build() {
    let chosen = Xxh3::KIND;
    println!("default hasher: {chosen:?}");
    assert_eq!(chosen, HasherKind::Xxh3);
    if let Some(name) = expected("SPLITBLOOM_EXPECT_HASHER") {
        assert_eq!(
            name, "xxh3",
            "SPLITBLOOM_EXPECT_HASHER: the default is XXH3 everywhere"
        );
    }
}

#[test]
fn gxhash_is_available_exactly_where_expected() {
    let available = HasherKind::GxHash.is_available();
    println!(
        "opt-in gxhash: {}",
        if available {
            "available"
        } else {
            "unavailable"
        }
    );
    // Nameable in every build; an error, not a compile failure, where it cannot run.
    match GxHash::new(0) {
        Ok(_) => assert!(available),
        Err(error) => {
            assert!(!available);
            assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHash));
        }
    }
    if let Some(name) = expected("SPLITBLOOM_EXPECT_GXHASH") {
        let expected = match name.as_str() {
            "available" => true,
            "unavailable" => false,
            _ => panic!("SPLITBLOOM_EXPECT_GXHASH={name} is neither available nor unavailable"),
        };
        assert_eq!(available, expected, "SPLITBLOOM_EXPECT_GXHASH={name}");
    }
}

/// The L2 size of CPU 0 as Linux reports it, the independent oracle of the prefetch threshold.
fn sysfs_l2_bytes() -> Option<usize> {
    (0..8).find_map(|index| {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).ok();
        if read("level")?.trim() != "2" || read("type")?.trim() == "Instruction" {
            return None;
        }
        let size = read("size")?;
        let kib: usize = size.trim().strip_suffix('K')?.parse().ok()?;
        Some(kib << 10)
    })
}

/// Batch operations prefetch exactly on filters of at least half this CPU's L2 cache, detected
/// (not a constant, since L2 sizes differ by a factor of two between the CPUs measured, and not
/// the whole L2, which leaves filters that nearly fill it unprefetched and slower). Where Linux
/// does not report the L2 size, only the shape is checked.
#[test]
fn batches_prefetch_from_the_detected_l2_size() {
    use splitbloom::__kernel_testing as kernel;
    let (distance, min_blocks) = kernel::prefetch();
    assert!(distance.is_power_of_two());
    assert_eq!(
        kernel::prefetch_distance(1),
        0,
        "a one-block filter is in cache"
    );
    // The rule, against the threshold the crate detected: below it no prefetching, from it on
    // the full distance.
    println!(
        "{}: prefetching from {min_blocks} blocks",
        kernel::cache_summary()
    );
    for blocks in [min_blocks / 2, min_blocks * 3 / 4, min_blocks - 1] {
        assert_eq!(
            kernel::prefetch_distance(blocks),
            0,
            "{blocks} blocks fit in L2"
        );
    }
    for blocks in [min_blocks, min_blocks * 2, min_blocks * 64] {
        assert_eq!(
            kernel::prefetch_distance(blocks),
            distance,
            "{blocks} blocks"
        );
    }
    // The detection, against the kernel's own account of this CPU. Under qemu-user, CPUID
    // describes the emulated CPU model while sysfs describes the host, so the x86 emulation
    // script sets SPLITBLOOM_EMULATED_CPUID and only the rule above is checked there.
    if std::env::var_os("SPLITBLOOM_EMULATED_CPUID").is_some() {
        println!("emulated CPUID: detection not compared with sysfs");
        return;
    }
    let Some(l2) = sysfs_l2_bytes() else {
        println!("no L2 size in sysfs: detection not compared");
        return;
    };
    let half_l2_blocks = l2 / 2 / splitbloom::BLOCK_BYTES;
    assert_eq!(
        min_blocks,
        half_l2_blocks,
        "the threshold is half of one core's L2 ({} KiB in sysfs)",
        l2 >> 10
    );
}
