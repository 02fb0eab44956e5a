#!/usr/bin/env bash
# The test suite on x86_64 CPUs without AVX2, emulated with qemu-user, so that run-time
# detection really falls back instead of always finding this machine's AVX-512 CPU.
#
# * `-cpu Westmere` (2010: AES-NI, no AVX): built as usual (.cargo/config.toml adds +aes), so
#   the opt-in GxHash can run, and the kernel chosen at run time must be `portable`.
# * `-cpu Nehalem` (2008: no AES-NI either): built with RUSTFLAGS overriding that +aes, so
#   GxHash is unavailable and the binaries contain no AES instruction; again `portable`.
# The default hasher is XXH3 in both (and everywhere): tests/cross_build.rs checks that both
# write the pinned fixture byte for byte.
#
# tests/platform.rs fails when the kernel or gxhash availability is not the expected one;
# tests/kernels.rs checks that the AVX2 kernel is refused (not crashed on) where the CPU lacks
# it. The tests, doctests included, run under qemu through cargo's runner setting.
#
# `--cross-build-only` runs only tests/cross_build.rs (for scripts/cross-build-matrix.sh, which
# sets SPLITBLOOM_CROSS_DIR), reusing the builds of a full run.
#
# Idempotent: qemu-user-static is installed only when missing; builds are incremental in
# target/x86-westmere and target/x86-nehalem (separate from target/, since the flags differ
# and sharing a directory would rebuild everything on every switch).
#
# Measured on the project's shared 2-core machine (load average about 6): from a clean machine
# about 4.5-5.5 min (2.5 min of CPU), warm about 1 min.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

section "setup: qemu-user"
apt_install qemu-user-static
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS SPLITBLOOM_KERNEL
export SPLITBLOOM_EXPECT_KERNEL=portable
cross_build_only=no
[ "${1:-}" = --cross-build-only ] && cross_build_only=yes

for cpu in Westmere Nehalem; do
  if [ "$cpu" = Westmere ]; then
    export SPLITBLOOM_EXPECT_GXHASH=available
    target_dir=target/x86-westmere
  else
    # Replaces the rustflags of .cargo/config.toml (RUSTFLAGS takes precedence over them).
    export RUSTFLAGS="-C target-feature=-aes"
    export SPLITBLOOM_EXPECT_GXHASH=unavailable
    target_dir=target/x86-nehalem
  fi
  export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="qemu-x86_64-static -cpu $cpu"
  export SPLITBLOOM_CROSS_CONFIG="x86_64-$cpu"

  if [ "$cross_build_only" = yes ]; then
    section "x86_64 -cpu $cpu: cross-build check"
    cargo test --target-dir "$target_dir" --test cross_build -- --show-output
    continue
  fi

  section "x86_64 -cpu $cpu: build"
  cargo test --target-dir "$target_dir" --no-run

  section "x86_64 -cpu $cpu: test suite, doctests included (expect portable, gxhash $SPLITBLOOM_EXPECT_GXHASH)"
  cargo test --target-dir "$target_dir" -- --show-output
done

section "x86_64 baseline tests passed"
