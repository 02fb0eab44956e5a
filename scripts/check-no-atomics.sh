#!/usr/bin/env bash
# Proves that the crate builds for targets without 32-bit atomic read-modify-write (AtomicFilter
# is then absent; everything else works), as the crate docs promise: `cargo check` of the no_std
# library for thumbv6m-none-eabi (Cortex-M0: atomic loads and stores, no compare-and-swap) and
# riscv32i-unknown-none-elf (no atomics at all), with no warnings.
#
# rustup cannot fetch other targets' standard libraries here, so core and alloc are built from
# source with Debian's Rust toolchain (rustc-web, and its sources in rust-web-src) and
# `-Zbuild-std`, which a stable toolchain accepts under RUSTC_BOOTSTRAP=1. About a minute per
# target the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh

section "Debian's Rust toolchain and its library sources"
apt_install rustc-web cargo-web rust-web-src

export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/no-atomics"
for target in thumbv6m-none-eabi riscv32i-unknown-none-elf; do
  section "cargo check --target $target --no-default-features"
  if "$RUSTC" --print cfg --target "$target" | grep -qx 'target_has_atomic="32"'; then
    echo "$target has 32-bit atomics: it proves nothing here" >&2
    exit 1
  fi
  log=$(mktemp)
  /usr/bin/cargo check -p splitbloom -Zbuild-std=core,alloc --target "$target" --no-default-features \
    2>&1 | tee "$log"
  # Warnings in splitbloom itself (dead code behind a cfg, say) fail the check too.
  if grep -q '^warning: .*splitbloom' "$log" || grep -B2 -A3 '^warning' "$log" | grep -q ' --> src/'; then
    echo "splitbloom has warnings on $target" >&2
    exit 1
  fi
done
echo "no-atomics targets build"
