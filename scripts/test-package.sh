#!/usr/bin/env bash
# The crate as crates.io would ship it: `cargo package` builds the tarball from the files
# Cargo.toml's `include` lists, and its test suite is then built and run from the unpacked
# tarball, outside this repository, so a test that needs a file the package leaves out, or a
# dependency only this workspace provides, fails here instead of for a user.
#
# Builds in target/, so the dependencies are reused (the package pins the same versions in its
# Cargo.lock); only splitbloom itself is compiled again, from the unpacked sources.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

section "package: cargo package (the file list, then the tarball)"
cargo package -p splitbloom --no-verify --allow-dirty --list >/dev/null
cargo package -p splitbloom --no-verify --allow-dirty
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
crate="$PWD/target/package/splitbloom-$version.crate"
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
tar -xzf "$crate" -C "$unpacked"

section "package: the unpacked tarball's test suite"
repo=$PWD
# Its tests, not its doc examples: those read no file, and the README's test command runs them.
(cd "$unpacked/splitbloom-$version" && CARGO_TARGET_DIR="$repo/target" cargo test --all-features --locked --tests)
section "package: built and tested from the tarball"
