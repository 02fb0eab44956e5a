//! What this build and CPU chose, checked against what the test scripts expect.
//!
//! `scripts/test-aarch64.sh` and `scripts/test-x86-baseline.sh` run the suite on emulated CPUs
//! with and without AES. A run-time fallback that silently picks another kernel, or a
//! `RUSTFLAGS` override that does not reach the build, would still pass every other test, so
//! the scripts say what they expect through `SPLITBLOOM_EXPECT_KERNEL` (a kernel name) and
//! `SPLITBLOOM_EXPECT_HASHER` (`gxhash` or `xxh3`), and these tests fail when it differs.
//! Without the variables (a plain `cargo test`) they only print what was chosen.

use splitbloom::{DefaultHasher, Filter, FilterHasher, HasherKind, Kernel};

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
fn the_expected_default_hasher_is_compiled_in() {
    let chosen = DefaultHasher::KIND;
    println!("default hasher: {chosen:?}");
    if let Some(name) = expected("SPLITBLOOM_EXPECT_HASHER") {
        let expected = match name.as_str() {
            "gxhash" => HasherKind::GxHash,
            "xxh3" => HasherKind::Xxh3,
            _ => panic!("SPLITBLOOM_EXPECT_HASHER={name} is neither gxhash nor xxh3"),
        };
        assert_eq!(chosen, expected, "SPLITBLOOM_EXPECT_HASHER={name}");
    }
}
