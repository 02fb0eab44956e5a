#!/usr/bin/env bash
# The test suite on x86_64 CPUs without AVX2, emulated with qemu-user, so that run-time
# detection really falls back instead of always finding this machine's AVX-512 CPU.
#
# * `-cpu Westmere` (2010: AES-NI, no AVX): built as usual (.cargo/config.toml adds +aes), so
#   the default hasher is gxhash, and the kernel chosen at run time must be `portable`.
# * `-cpu Nehalem` (2008: no AES-NI either): built with RUSTFLAGS overriding that +aes, so the
#   default hasher is XXH3 and the binaries contain no AES instruction; again `portable`.
#
# tests/platform.rs fails when the kernel or hasher is not the expected one; tests/kernels.rs
# checks that the AVX2 kernel is refused (not crashed on) where the CPU lacks it. The tests,
# doctests included, run under qemu through cargo's runner setting.
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

for cpu in Westmere Nehalem; do
  if [ "$cpu" = Westmere ]; then
    export SPLITBLOOM_EXPECT_HASHER=gxhash
    target_dir=target/x86-westmere
  else
    # Replaces the rustflags of .cargo/config.toml (RUSTFLAGS takes precedence over them).
    export RUSTFLAGS="-C target-feature=-aes"
    export SPLITBLOOM_EXPECT_HASHER=xxh3
    target_dir=target/x86-nehalem
  fi
  export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="qemu-x86_64-static -cpu $cpu"

  section "x86_64 -cpu $cpu: build"
  cargo test --target-dir "$target_dir" --no-run

  section "x86_64 -cpu $cpu: test suite, doctests included (expect portable, $SPLITBLOOM_EXPECT_HASHER)"
  cargo test --target-dir "$target_dir" -- --show-output
done

section "x86_64 baseline tests passed"
