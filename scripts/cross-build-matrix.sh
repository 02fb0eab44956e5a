#!/usr/bin/env bash
# The cross-build matrix: every configuration CI builds writes the filter of tests/cross_build.rs
# (a fixed key set: strings of many lengths through the byte-key contract, and u64s) and reads
# every other configuration's file with the default hasher type, answering identically.
#
# Configurations: native x86_64 (the flags a dependent gets: no AES), x86_64 with +aes, x86_64
# under qemu as Westmere and Nehalem (scripts/test-x86-baseline.sh), aarch64 under qemu with
# and without +aes (scripts/test-aarch64.sh). Run after those scripts (and .ci/run's AES
# suite): it reuses their builds and runs only the one small test, twice per configuration. In pass 1 each
# configuration writes its file and reads those written before it; in pass 2 each reads all of
# them, so every pair is checked both ways. Then the byte-for-byte matrix is printed.
#
# Measured on the project's shared 2-core machine with warm builds: about 1 min.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

export SPLITBLOOM_CROSS_DIR="$PWD/target/cross-build"
rm -rf "$SPLITBLOOM_CROSS_DIR"
mkdir -p "$SPLITBLOOM_CROSS_DIR"
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS SPLITBLOOM_KERNEL

for pass in 1 2; do
  section "pass $pass: x86_64 native (no AES)"
  SPLITBLOOM_CROSS_CONFIG=x86_64-native cargo test --all-features --test cross_build -- --show-output
  section "pass $pass: x86_64 +aes"
  SPLITBLOOM_CROSS_CONFIG=x86_64-aes CARGO_TARGET_DIR=target/aes \
    RUSTFLAGS="-C target-feature=+aes" cargo test "${other_flags_build[@]}" --test cross_build -- --show-output
  section "pass $pass: x86_64 under qemu (Westmere, Nehalem)"
  bash scripts/test-x86-baseline.sh --cross-build-only
  section "pass $pass: aarch64 under qemu (without and with +aes)"
  bash scripts/test-aarch64.sh --cross-build-only
done

section "the matrix: files written by each configuration, compared byte for byte"
files=("$SPLITBLOOM_CROSS_DIR"/*.sblm)
printf '%-16s' ""
for column in "${files[@]}"; do printf ' %-15s' "$(basename "$column" .sblm)"; done
echo
for row in "${files[@]}"; do
  printf '%-16s' "$(basename "$row" .sblm)"
  for column in "${files[@]}"; do
    if cmp -s "$row" "$column"; then printf ' %-15s' identical; else printf ' %-15s' DIFFER; fi
  done
  echo
done
for file in "${files[@]}"; do
  cmp -s "$file" tests/fixtures/cross_build.sblm || {
    echo "$(basename "$file") differs from tests/fixtures/cross_build.sblm" >&2
    exit 1
  }
done
section "cross-build matrix passed: ${#files[@]} configurations, all identical, each read by all"
