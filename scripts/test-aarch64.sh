#!/usr/bin/env bash
# The test suite on aarch64, emulated with qemu-user, built with Debian's Rust toolchain.
#
# This machine is x86_64, so the NEON kernel would otherwise never run. Debian 12 ships a
# current Rust (rustc-web/cargo-web in bookworm-security) together with its standard library
# for arm64 (libstd-rust-web-dev:arm64), which is enough to cross-compile with Debian's
# aarch64 gcc as the linker and run the tests, doctests included, under qemu-aarch64-static.
# Using Debian's toolchain explicitly (not the rustup one first on PATH) also checks that the
# crate builds with the Rust that Debian ships, which the crate's rust-version must not exceed.
#
# The suite runs twice: without AES (as on a Raspberry Pi 4, which lacks the crypto extension:
# the opt-in GxHash is unavailable) and with `-C target-feature=+aes` (GxHash available). The
# default hasher is XXH3 in both, and tests/cross_build.rs checks that both write the pinned
# fixture byte for byte. Each time it runs with the kernel chosen at run time (NEON) and with
# `portable` and `scalar` forced through SPLITBLOOM_KERNEL; tests/suite/platform.rs fails when
# the kernel or gxhash availability is not the expected one, and the differential tests in
# tests/suite/kernels.rs compare NEON with scalar bit for bit.
#
# What runs under qemu: the library's unit tests and every test binary of the splitbloom package,
# with default features. The CLI (`cli/`), the tests against arrow-rs (`interop/`) and the serde
# feature are CPU-independent code over the same kernels and hashers, tested natively; leaving
# them out means neither the CLI's dependencies nor arrow-rs is compiled for aarch64.
# Not the doctests: usage examples, which .ci/run runs natively in three builds. The sizing
# formulas' unit tests run once (without AES, neon), not per forced kernel (see below).
#
# `--cross-build-only` runs only tests/cross_build.rs (for scripts/cross-build-matrix.sh, which
# sets SPLITBLOOM_CROSS_DIR), reusing the builds of a full run.
#
# Idempotent: packages already installed are not downloaded again; builds are incremental in
# target/aarch64 (also clippy's), target/aarch64-aes and target/debian-x86_64, one directory per
# set of flags so that no run rebuilds another's artifacts.
#
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

section "setup: Debian's arm64 cross toolchain and qemu-user"
packages=(qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  rustc-web cargo-web rust-web-clippy libstd-rust-web-dev:arm64)
add_architecture arm64
apt_install "${packages[@]}"
msrv=$(rust_version)
debian_rustc=$(/usr/bin/rustc --version | cut -d' ' -f2)
if ! version_at_least "$debian_rustc" "$msrv"; then
  # Installed earlier from bookworm main (1.85); bookworm-security has a newer one.
  echo "Debian's rustc $debian_rustc is older than rust-version $msrv; upgrading"
  retry apt_get update
  retry apt_get install -y --no-install-recommends --only-upgrade rustc-web cargo-web \
    rust-web-clippy libstd-rust-web-dev libstd-rust-web-dev:arm64
  debian_rustc=$(/usr/bin/rustc --version | cut -d' ' -f2)
  version_at_least "$debian_rustc" "$msrv" || {
    echo "Debian's rustc $debian_rustc cannot build a crate with rust-version $msrv" >&2
    exit 1
  }
fi

# Debian's toolchain, explicitly: ~/.cargo/bin (rustup) usually comes first on PATH.
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
cargo=/usr/bin/cargo
target=aarch64-unknown-linux-gnu
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
# -L: where the arm64 dynamic loader and libc live. -E: without it the loader also finds the
# multiarch libraries and thread spawns hang at 100% CPU.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64-static -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib"
# A real core (Neoverse N1: NEON and AES, no SVE) rather than qemu's default "max" CPU.
export QEMU_CPU=neoverse-n1
# Flags come only from this script (RUSTFLAGS would override the per-target ones set below).
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS SPLITBLOOM_KERNEL
echo "rust-version (MSRV) $msrv; Debian toolchain: $("$RUSTC" --version), $("$cargo" --version)"

cross_build_only=no
[ "${1:-}" = --cross-build-only ] && cross_build_only=yes

if [ "$cross_build_only" = no ]; then
  section "Debian's toolchain: the library for x86_64 (the AVX2 kernel), clippy for aarch64"
  "$cargo" check -p splitbloom --lib --target-dir target/debian-x86_64
  # clippy (the `# Safety` / `// SAFETY:` lints included) on the code only aarch64 compiles.
  # cargo-clippy runs the clippy-driver next to it, so Debian's must come first on PATH.
  clippy=(env PATH="/usr/bin:$PATH" "$cargo" clippy -p splitbloom --target "$target" --target-dir target/aarch64)
  "${clippy[@]}" --all-targets -- -D warnings
  "${clippy[@]}" --no-default-features -- -D warnings
fi

sizing=(--skip math::tests:: --skip scalable::tests::)
# Tests named `every_kernel` run every available kernel themselves (tests/suite/main.rs): once
# per build, in the run with the kernel chosen at run time, not again per forced kernel.
every_kernel=(--skip every_kernel)
for aes in no yes; do
  if [ "$aes" = yes ]; then
    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C target-feature=+aes"
    target_dir=target/aarch64-aes
    export SPLITBLOOM_EXPECT_GXHASH=available SPLITBLOOM_CROSS_CONFIG=aarch64-aes
  else
    unset CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS
    target_dir=target/aarch64
    export SPLITBLOOM_EXPECT_GXHASH=unavailable SPLITBLOOM_CROSS_CONFIG=aarch64
  fi
  build=(-p splitbloom --target "$target" --target-dir "$target_dir")

  if [ "$cross_build_only" = yes ]; then
    section "aarch64, AES: $aes: cross-build check"
    "$cargo" test "${build[@]}" --test cross_build -- --show-output
    continue
  fi

  section "aarch64, AES: $aes: build (gxhash $SPLITBLOOM_EXPECT_GXHASH)"
  "$cargo" test "${build[@]}" --tests --no-run

  # The library's sizing-formula unit tests (math::tests::, scalable::tests::: f64 arithmetic,
  # no kernel, no hasher, no AES) take about a minute per run under qemu; they run once, in
  # the first build's neon run, not again per forced kernel or in the +aes build.
  if [ "$aes" = no ]; then once=(); else once=("${sizing[@]}"); fi
  section "aarch64, AES: $aes: kernel chosen at run time (expect neon)"
  SPLITBLOOM_EXPECT_KERNEL=neon "$cargo" test "${build[@]}" --tests -- "${once[@]}" --show-output

  for kernel in portable scalar; do
    section "aarch64, AES: $aes: SPLITBLOOM_KERNEL=$kernel"
    SPLITBLOOM_KERNEL=$kernel SPLITBLOOM_EXPECT_KERNEL=$kernel \
      "$cargo" test "${build[@]}" --tests -- "${sizing[@]}" "${every_kernel[@]}" --show-output
  done
done

section "aarch64 tests passed"
