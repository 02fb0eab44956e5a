#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS (default 30) and fails on any crash.
#
# With a nightly toolchain the targets run under AddressSanitizer (what catches an over-reading
# hash); without one they run on stable with `-s none` (no sanitizer, still libFuzzer coverage
# and every assertion of the checks). cargo-fuzz is installed if missing.
#
# New inputs go to fuzz/target/corpus-work/TARGET (not committed); the committed seeds in
# fuzz/corpus/TARGET are read. A crash leaves its reproducer in fuzz/artifacts/TARGET.
set -euo pipefail
seconds=${1:-30}
cd "$(dirname "$0")"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

if cargo +nightly --version >/dev/null 2>&1; then
  toolchain=(+nightly)
  sanitizer=(--sanitizer address)
  echo "fuzzing with nightly + AddressSanitizer"
else
  toolchain=()
  sanitizer=(--sanitizer none)
  echo "no nightly toolchain: fuzzing on stable without a sanitizer"
fi

# cargo-fuzz replaces RUSTFLAGS; keep AES on x86_64 so the opt-in GxHash hasher can run and is
# fuzzed next to the default XXH3, as the repository's .cargo/config.toml does for ordinary builds.
if [ "$(uname -m)" = x86_64 ]; then
  export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+aes"
fi

# Debug assertions and overflow checks on (`--debug-assertions`, and the release profile of
# fuzz/Cargo.toml too): an arithmetic overflow in a parser is a crash to find, not a silent wrap.
checks=(--release --debug-assertions)

targets=$(cargo "${toolchain[@]}" fuzz list)
cargo "${toolchain[@]}" fuzz build "${sanitizer[@]}" "${checks[@]}"
for target in $targets; do
  work="target/corpus-work/$target"
  mkdir -p "$work" "corpus/$target"
  echo "== $target for ${seconds}s"
  log="target/fuzz-$target.log"
  if ! cargo "${toolchain[@]}" fuzz run "${sanitizer[@]}" "${checks[@]}" "$target" "$work" "corpus/$target" -- \
    -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz target $target failed: reproducer in fuzz/artifacts/$target" >&2
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^Done" "$log" || true
done
echo "fuzzing passed:" $targets
