//! Compiles two anchors' own code into the benchmarks, from where it lies outside this
//! repository: nothing is copied. Where an anchor is absent its benchmark builds without it and
//! says so when it runs (its `cfg` is then unset).
//!
//! * The Vector Quotient Filter's C code (`../shared/anchors/vqf`, or `SPLITBLOOM_VQF_DIR`) for
//!   the `quotient` benchmark, `cfg(vqf)`. Its sources are C++ in `.c` files (its Makefile
//!   compiles them with `g++`), built for this CPU (`-march=native`) as its own `run.sh` builds
//!   them: with AVX-512BW, its 512-bit paths and their shuffle tables; else its AVX2 paths.
//! * Boost.Bloom's headers (`../shared/anchors/boost-bloom`, or `SPLITBLOOM_BOOST_DIR`) for the
//!   `workload` benchmark, `cfg(boost_bloom)`: this package's own `boost/shim.cpp` puts its
//!   split-block filter behind a C interface, compiled as Boost's own benchmark is
//!   (`-std=c++17 -O3 -march=native`). Boost.Bloom also needs the system's Boost headers
//!   (1.81 or later; Debian: `libboost1.81-dev`); without them it is left out too. Boost older
//!   than 1.87 lacks `<boost/container_hash/hash_is_avalanching.hpp>`, which the anchor's
//!   `shim/` directory then provides.
//!
//! Both are compiled with `-march=native`, so only when building for the machine that builds.

use std::env;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    vqf(&manifest);
    boost_bloom(&manifest);
}

/// The anchor directory: `variable` if set, else `default` beside this repository.
fn anchor(manifest: &Path, variable: &str, default: &str) -> PathBuf {
    println!("cargo:rerun-if-env-changed={variable}");
    let dir = env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../shared/anchors").join(default));
    println!("cargo:rerun-if-changed={}", dir.display());
    dir
}

fn vqf(manifest: &Path) {
    println!("cargo:rustc-check-cfg=cfg(vqf)");
    let vqf = anchor(manifest, "SPLITBLOOM_VQF_DIR", "vqf");
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
    link_search();
    println!("cargo:rustc-cfg=vqf");
}

fn boost_bloom(manifest: &Path) {
    println!("cargo:rustc-check-cfg=cfg(boost_bloom)");
    let boost = anchor(manifest, "SPLITBLOOM_BOOST_DIR", "boost-bloom");
    let shim = manifest.join("boost/shim.cpp");
    println!("cargo:rerun-if-changed={}", shim.display());
    let left_out = |why: &str| {
        println!("cargo:warning=Boost.Bloom {why}: the workload benchmark runs without it");
    };
    if !boost.join("include/boost/bloom.hpp").exists() {
        return left_out(&format!("is not at {}", boost.display()));
    }
    // `-march=native` describes the machine that builds.
    if env::var("TARGET").ok() != env::var("HOST").ok() {
        return left_out("is compiled for this machine only, and the target is another");
    }
    let mut build = cc::Build::new();
    // The link directives are the benchmark's own (`#[link]` in `workload.rs`), as for VQF.
    build
        .cargo_metadata(false)
        .cpp(true)
        .std("c++17")
        .include(boost.join("include"))
        .flag("-march=native")
        .define("NDEBUG", None)
        .opt_level(3)
        .file(&shim);
    if !compiles(
        &build,
        "#include <boost/config.hpp>\n#include <boost/container_hash/hash.hpp>\n",
    ) {
        return left_out(
            "needs the system's Boost headers and a C++17 compiler (Debian: g++ libboost1.81-dev), which were not found",
        );
    }
    if !compiles(
        &build,
        "#include <boost/container_hash/hash_is_avalanching.hpp>\n",
    ) {
        build.include(boost.join("shim"));
    }
    build.compile("splitbloom_boost");
    link_search();
    println!("cargo:rustc-cfg=boost_bloom");
}

/// Where the benchmarks' `#[link]` directives find the libraries cc writes.
fn link_search() {
    let out = env::var("OUT_DIR").unwrap_or_default();
    println!("cargo:rustc-link-search=native={out}");
}

/// Whether `build`'s compiler, with its flags and include paths, accepts `source`.
fn compiles(build: &cc::Build, source: &str) -> bool {
    let Ok(compiler) = build.try_get_compiler() else {
        return false;
    };
    let mut command = compiler.to_command();
    command
        .args(["-fsyntax-only", "-x", "c++", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let Ok(mut child) = command.spawn() else {
        return false;
    };
    let written = child
        .stdin
        .take()
        .is_some_and(|mut stdin| stdin.write_all(source.as_bytes()).is_ok());
    child.wait().is_ok_and(|status| status.success()) && written
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
