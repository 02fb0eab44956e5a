# Helpers shared by the scripts in this directory; sourced, not run.
#
# Test scripts install what they need themselves (Debian packages through apt), idempotently:
# nothing is downloaded when everything is already installed, and transient download failures
# are retried before giving up.

# Prints a section header, so a CI log shows where time goes.
section() {
  printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"
}

# Runs "$@", and again up to three more times (after 5, 10, 15 s) if it fails.
retry() {
  local attempt
  for attempt in 1 2 3 4; do
    "$@" && return 0
    if [ "$attempt" -lt 4 ]; then
      echo "attempt $attempt of 4 failed: $*; retrying in $((attempt * 5)) s" >&2
      sleep $((attempt * 5))
    fi
  done
  echo "failed 4 times: $*" >&2
  return 1
}

# Runs "$@" as root (through sudo when not already root).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# apt-get, non-interactive, waiting for a lock held by another apt instead of failing, and
# retrying each download itself too.
apt_get_now() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -q \
    -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3 "$@"
}

# apt_get_now, after finishing what an install killed half-way (a cancelled CI run, say) left:
# dpkg's journal in /var/lib/dpkg/updates, after which every apt-get fails with "dpkg was
# interrupted, you must manually run 'dpkg --configure -a'", and packages unpacked without the
# dependencies that were still to come ("dpkg --audit" lists them), after which every install
# fails with "Unmet dependencies. Try 'apt --fix-broken install'".
apt_get() {
  if [ -n "$(ls -A /var/lib/dpkg/updates 2>/dev/null)" ] || [ -n "$(dpkg --audit 2>/dev/null)" ]; then
    echo "an earlier dpkg run did not finish: dpkg --configure -a, then apt-get -f install" >&2
    as_root env DEBIAN_FRONTEND=noninteractive dpkg --configure -a || true
    apt_get_now -f install -y || return 1
  fi
  apt_get_now "$@"
}

# Whether Debian package $1 (e.g. "gcc" or "libfoo:arm64") is installed.
is_installed() {
  dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^ii'
}

# Makes dpkg accept packages of foreign architecture $1 (e.g. arm64).
add_architecture() {
  if ! { dpkg --print-architecture; dpkg --print-foreign-architectures; } | grep -qx "$1"; then
    echo "dpkg --add-architecture $1"
    as_root dpkg --add-architecture "$1"
  fi
}

# Installs the Debian packages among "$@" that are not installed yet; does nothing (no network)
# when all are.
apt_install() {
  local package missing=()
  for package in "$@"; do
    is_installed "$package" || missing+=("$package")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "already installed: $*"
    return 0
  fi
  echo "installing: ${missing[*]}"
  retry apt_get update
  retry apt_get install -y --no-install-recommends "${missing[@]}"
}

# The crate's minimum supported Rust version, from Cargo.toml.
rust_version() {
  sed -n 's/^rust-version *= *"\(.*\)"/\1/p' Cargo.toml
}

# Whether version $1 (like 1.96.0) is at least version $2 (like 1.89).
version_at_least() {
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}

# Per-step timing for .ci/run: `step NAME` ends the previous step and starts NAME; each step's
# wall time and CPU time (user+sys of every process it ran, from bash's `times`, which counts
# waited-for children) is printed when it ends, and `step_summary` prints them all. CPU time is
# what another load on the machine changes least; the wall time is what a CI run waits for.
step_name=
step_table=
# Sets step_mark_wall (seconds since the epoch) and step_mark_cpu (children's CPU seconds).
# `times` must run in this shell, not in a $(...) subshell, to see this shell's children.
step_mark() {
  local file
  file=$(mktemp)
  times >"$file"
  # The second line holds the children's user and system time, each as XmY.YYYs.
  step_mark_cpu=$(awk 'NR == 2 {
    for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
    printf "%.1f", t
  }' "$file")
  rm -f "$file"
  step_mark_wall=$(date +%s.%N)
}
step_end() {
  [ -n "$step_name" ] || return 0
  local wall=$step_mark_wall cpu=$step_mark_cpu
  step_mark
  awk -v w="$step_mark_wall" -v w0="$wall" -v c="$step_mark_cpu" -v c0="$cpu" -v name="$step_name" \
    'BEGIN { printf "%8.1f s wall %8.1f s cpu  %s\n", w - w0, c - c0, name }' | tee -a "$step_table"
  step_name=
}
step() {
  [ -n "$step_table" ] || step_table=$(mktemp)
  step_end
  step_name=$*
  printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"
  step_mark
}
step_summary() {
  step_end
  echo
  echo "== time per step"
  cat "$step_table"
  awk '{ w += $1; c += $4 } END { printf "%8.1f s wall %8.1f s cpu  total\n", w, c }' "$step_table"
  rm -f "$step_table"
}

# The packages and features of the x86_64 builds made with other flags than the native one
# (x86-64-v3 and AES, in .ci/run, scripts/test-x86-baseline.sh and
# scripts/cross-build-matrix.sh): the library with every feature and the CLI without its
# `parquet` feature, and not the tests against arrow-rs (`interop/`). arrow-rs, which reads
# Parquet footers for `splitbloom parquet-info` and is the reference of those tests, has no path
# that depends on the CPU or on the flags, and runs in the native build; leaving it out spares
# compiling it once more per set of flags. (The aarch64 builds leave out the CLI and serde too;
# see scripts/test-aarch64.sh.)
other_flags_build=(-p splitbloom -p splitbloom-cli --features splitbloom/serde)

# The splitbloom package's own tests (its unit tests and every test binary under tests/), named
# one by one so that a run under emulation can select the same packages as the build it reuses
# (the default members natively, `other_flags_build` with AES) and still run only these: cargo
# unifies the dependencies' features over the packages it selects, so selecting only the
# library would build everything again.
library_tests=(--lib)
for library_test in tests/*.rs tests/*/main.rs; do
  library_test=${library_test#tests/}
  library_tests+=(--test "${library_test%%[/.]*}")
done
unset library_test
