//! Compile-time facts for splitbloom. Kept to what `cfg` attributes alone cannot say.

fn main() {
    // Re-run only when this file changes: the facts below come from the target, not from files.
    println!("cargo::rerun-if-changed=build.rs");
    // Declare the custom cfg so the `unexpected_cfgs` lint accepts it.
    println!("cargo::rustc-check-cfg=cfg(splitbloom_gxhash)");
    // The target's features, comma-separated, as cargo passes them to build scripts.
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    // Whether one named feature is enabled for the target.
    let has = |name: &str| features.split(',').any(|feature| feature == name);
    // The target architecture, e.g. "x86_64" or "aarch64".
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    // gxhash is a dependency under exactly this condition (the target table in Cargo.toml); name
    // it once here instead of repeating the expression at every use. It decides only whether
    // the opt-in `GxHash` can run (src/hash/gxhash.rs), never which hasher is the default.
    let gxhash =
        has("aes") && ((arch == "x86_64" && has("sse2")) || (arch == "aarch64" && has("neon")));
    if gxhash {
        println!("cargo::rustc-cfg=splitbloom_gxhash");
    }
}
