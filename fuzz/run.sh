#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS (default 30) and fails on any crash; as many targets
# at once as there are cores (FUZZ_JOBS to override).
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
# fuzzed next to the default XXH3 (ordinary builds compute it only when built with +aes too).
if [ "$(uname -m)" = x86_64 ]; then
  export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+aes"
fi

# Debug assertions and overflow checks on (`--debug-assertions`, and the release profile of
# fuzz/Cargo.toml too): an arithmetic overflow in a parser is a crash to find, not a silent wrap.
checks=(--release --debug-assertions)

targets=$(cargo "${toolchain[@]}" fuzz list)
cargo "${toolchain[@]}" fuzz build "${sanitizer[@]}" "${checks[@]}"

# Runs one target for $seconds; prints its stats, or its log's tail and where the reproducer is.
fuzz_one() {
  local target=$1 work="target/corpus-work/$1" log="target/fuzz-$1.log"
  mkdir -p "$work" "corpus/$target"
  if ! cargo "${toolchain[@]}" fuzz run "${sanitizer[@]}" "${checks[@]}" "$target" "$work" \
    "corpus/$target" -- -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz target $target failed: reproducer in fuzz/artifacts/$target" >&2
    return 1
  fi
  echo "== $target: $(grep -E '^stat::number_of_executed_units' "$log" || echo 'no stats')"
}

# One fuzzer per core at a time (each libFuzzer process is single-threaded). FUZZ_JOBS overrides.
jobs=${FUZZ_JOBS:-$(nproc)}
echo "fuzzing each target for ${seconds}s, $jobs at a time"
failed=0
running=0
for target in $targets; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzzing passed:" $targets
