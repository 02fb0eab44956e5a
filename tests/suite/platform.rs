//! What this build and CPU chose, checked against what the test scripts expect.
//!
//! `scripts/test-aarch64.sh` and `scripts/test-x86-baseline.sh` run the suite on emulated CPUs
//! with and without AES. A run-time fallback that silently picks another kernel, or a
//! `RUSTFLAGS` override that does not reach the build, would still pass every other test, so
//! the scripts say what they expect through `SPLITBLOOM_EXPECT_KERNEL` (a kernel name) and
//! `SPLITBLOOM_EXPECT_GXHASH` (`available` or `unavailable`: whether the build has AES, so
//! that the opt-in `GxHash` can run), and these tests fail when it differs. The default hasher
//! is XXH3 in every build, which is checked unconditionally (`SPLITBLOOM_EXPECT_HASHER`, if
//! set, must therefore say `xxh3`). Without the variables (a plain `cargo test`) they only print
//! what was chosen.

use splitbloom::{DefaultHasher, Error, Filter, FilterHasher, GxHash, HasherKind, Kernel};

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
    let chosen = DefaultHasher::KIND;
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
