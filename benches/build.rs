//! Compiles the Vector Quotient Filter's own C code (`../shared/anchors/vqf`, outside this
//! repository; `SPLITBLOOM_VQF_DIR` overrides the path) into the `quotient` benchmark, from
//! where it lies: nothing is copied. Where the directory is absent the benchmark builds without
//! it and says so when it runs (`cfg(vqf)` is then unset).
//!
//! VQF's sources are C++ in `.c` files (its Makefile compiles them with `g++`), built for this
//! CPU (`-march=native`) as its own `run.sh` builds them: with AVX-512BW, its 512-bit paths and
//! their shuffle tables; else its AVX2 paths.

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(vqf)");
    println!("cargo:rerun-if-env-changed=SPLITBLOOM_VQF_DIR");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let vqf = env::var_os("SPLITBLOOM_VQF_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../shared/anchors/vqf"));
    println!("cargo:rerun-if-changed={}", vqf.display());
    let source = vqf.join("src/vqf_filter.c");
    if !source.exists() || env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86_64") {
        println!(
            "cargo:warning=VQF's sources are not at {} (or the target is not x86_64): the quotient benchmark runs without it",
            vqf.display()
        );
        return;
    }
    let mut build = cc::Build::new();
    // The link directives are the benchmark's own (`#[link]` in `quotient.rs`): Cargo would
    // give cc's only to this package's library, which the benchmark does not link.
    build
        .cargo_metadata(false)
        .cpp(true)
        .include(vqf.join("include"))
        .file(&source)
        .flag("-std=c++11")
        .flag("-march=native")
        .flag("-w")
        .opt_level(3);
    if host_has_avx512bw() {
        for table in ["src/shuffle_matrix_512.c", "src/shuffle_matrix_512_16.c"] {
            build.file(vqf.join(table));
        }
    }
    build.compile("vqf");
    let out = env::var("OUT_DIR").unwrap_or_default();
    println!("cargo:rustc-link-search=native={out}");
    println!("cargo:rustc-cfg=vqf");
}

/// Whether the CPU this builds on (the one `-march=native` targets) has AVX-512BW, which
/// switches VQF to its 512-bit code and its shuffle tables.
fn host_has_avx512bw() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
