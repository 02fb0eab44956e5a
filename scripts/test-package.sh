#!/usr/bin/env bash
# The crate as crates.io would ship it: `cargo package` builds the tarball from the files
# Cargo.toml's `include` lists, and the unpacked tarball, outside this repository, is checked
# for what a user of it would hit first: a test or example that needs a file the package leaves
# out, or a dependency only this workspace provides.
#
# - Compile time (`include_bytes!`, `include_str!`, modules, every dependency and dev-dependency
#   with the package's own Cargo.lock): `cargo check` of the library, its tests and examples in
#   the unpacked tarball.
# - Run time: every path a test or example names under the crate's directory (a string literal
#   beginning with tests/, docs/, examples/ or src/, after `CARGO_MANIFEST_DIR` or not) must be
#   in the tarball, as a file or as the directory of one.
#
# In target/, reusing the dependencies the lints checked. Compiling and running the suite from the tarball too would repeat the README's test command
# on the same sources (about 7 minutes of CPU, a fifth of a CI run) to learn nothing more.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

section "package: cargo package (the file list, then the tarball)"
list=$(mktemp)
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked" "$list"' EXIT
cargo package -p splitbloom --no-verify --allow-dirty --list >"$list"
cargo package -p splitbloom --no-verify --allow-dirty
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
crate="$PWD/target/package/splitbloom-$version.crate"
tar -xzf "$crate" -C "$unpacked"

section "package: the paths the tests and examples read are in the tarball"
missing=0
while IFS= read -r path; do
  path=${path#/}
  path=${path%/}
  if ! grep -qx -e "$path" -e "$path/.*" "$list"; then
    echo "the tests or examples read $path, which the package leaves out (Cargo.toml's include)" >&2
    missing=1
  fi
done < <(grep -rhoE '"/?(tests|docs|examples|src)/[A-Za-z0-9_./-]+"' tests examples | tr -d '"' | sort -u)
[ "$missing" -eq 0 ]
echo "$(grep -rhoE '"/?(tests|docs|examples|src)/[A-Za-z0-9_./-]+"' tests examples | sort -u | wc -l) paths, all in the tarball"

section "package: the unpacked tarball's library, tests and examples compile"
repo=$PWD
(cd "$unpacked/splitbloom-$version" &&
  CARGO_TARGET_DIR="$repo/target" cargo check --all-features --locked --all-targets)
section "package: checked from the tarball"
