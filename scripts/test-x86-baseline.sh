#!/usr/bin/env bash
# The test suite on x86_64 CPUs without AVX2, emulated with qemu-user, so that run-time
# detection really falls back instead of always finding this machine's AVX-512 CPU.
#
# * `-cpu Westmere` (2010: AES-NI, no AVX): built with `-C target-feature=+aes`, so the opt-in
#   GxHash can run, and the kernel chosen at run time must be `portable`.
# * `-cpu Nehalem` (2008: no AES-NI either): built with the flags a dependent gets, so GxHash is
#   unavailable and the binaries contain no AES instruction; again `portable`.
# The default hasher is XXH3 in both (and everywhere): tests/cross_build.rs checks that both
# write the pinned fixture byte for byte.
#
# No build of its own: the binaries are exactly those of .ci/run's native suite (target/, the
# default members with `--all-features`, no AES) and of its AES suite (target/aes,
# `other_flags_build` of scripts/common.sh, +aes), which contain no instruction these CPUs lack
# (no -C target-cpu), run through cargo's runner setting; run alone, this script builds them
# there.
#
# Under qemu run the library's unit tests and every test binary of the splitbloom package
# (`library_tests` of scripts/common.sh: tests/suite, tests/cross_build.rs, tests/lazy_memory.rs,
# tests/caller_registers.rs), where the kernel, the hashers and the dispatch answer for the
# emulated CPU: tests/suite/platform.rs fails when the kernel or gxhash availability is not the
# expected one; tests/suite/kernels.rs checks that the AVX2 and AVX-512 kernels are refused (not
# crashed on) where the CPU lacks them; every test builds its filters with the kernel chosen for
# the emulated CPU; the fuzz corpus replay runs the differential check there. Not run under
# qemu, because the binaries are the native ones and only code behind run-time CPU detection can
# behave differently here:
# * the CLI's tests (`cli/`), which spawn the `splitbloom` binary as a child process that runs
#   natively, not under qemu, and the tests against arrow-rs (`interop/`);
# * the library's unit tests of the sizing formulas (math::tests::, scalable::tests::: stage
#   sizes), plain floating-point arithmetic with no dispatched code, which take a minute under
#   qemu (the aarch64 runs, built apart, do run them);
# * the doctests, usage examples that .ci/run runs natively in three builds;
# * the `every_kernel` tests (tests/suite/main.rs), which force each available kernel (here
#   scalar and portable, the same machine code the native run of these binaries executed).
#
# `--cross-build-only` runs only tests/cross_build.rs (for scripts/cross-build-matrix.sh, which
# sets SPLITBLOOM_CROSS_DIR), reusing the builds of a full run.
#
# Idempotent: qemu-user-static is installed only when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

section "setup: qemu-user"
apt_install qemu-user-static
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS SPLITBLOOM_KERNEL
export SPLITBLOOM_EXPECT_KERNEL=portable
# CPUID answers for the emulated CPU model, sysfs for the host: tests/suite/platform.rs then
# checks the prefetch rule against what the crate detected, not the detection against sysfs.
export SPLITBLOOM_EMULATED_CPUID=1
cross_build_only=no
[ "${1:-}" = --cross-build-only ] && cross_build_only=yes

# Tests that cannot answer differently under qemu (see above).
# `every_kernel` tests (tests/suite/main.rs) run the scalar and portable kernels, which are the
# same machine code natively, where they already ran; here they would only test qemu.
skip=(--skip math::tests:: --skip scalable::tests:: --skip every_kernel)
for cpu in Westmere Nehalem; do
  if [ "$cpu" = Westmere ]; then
    export RUSTFLAGS="-C target-feature=+aes"
    export SPLITBLOOM_EXPECT_GXHASH=available
    target_dir=target/aes
    selection=("${other_flags_build[@]}")
  else
    unset RUSTFLAGS
    export SPLITBLOOM_EXPECT_GXHASH=unavailable
    target_dir=target
    selection=(--all-features)
  fi
  build=("${selection[@]}" --target-dir "$target_dir")
  export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="qemu-x86_64-static -cpu $cpu"
  export SPLITBLOOM_CROSS_CONFIG="x86_64-$cpu"

  if [ "$cross_build_only" = yes ]; then
    section "x86_64 -cpu $cpu: cross-build check"
    cargo test "${build[@]}" --test cross_build -- --show-output
    continue
  fi

  section "x86_64 -cpu $cpu: tests (expect portable, gxhash $SPLITBLOOM_EXPECT_GXHASH)"
  cargo test "${build[@]}" "${library_tests[@]}" -- "${skip[@]}" --show-output
done

section "x86_64 baseline tests passed"
