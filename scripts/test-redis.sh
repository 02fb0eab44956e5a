#!/usr/bin/env bash
# The Redis module's tests (redis/tests/): commands and bad input, limits (limits.rs: no stall,
# no bypass of MAX_FILTER_BYTES or maxmemory, no overflow), persistence (DEBUG RELOAD, RDB,
# AOF), replication, windowed keys (window.rs: rotation decided on the primary), deletable keys
# (cuckoo.rs, and RedisBloom's cuckoo tests ported in peers_cuckoo.rs), and a three-node
# cluster, each against server processes the tests start on free localhost ports
# and stop. Then the real clients against the module and RedisBloom (redis/tests/clients/):
# redis-py, in a venv under target/redis-venv (scripts/redis-py-venv.sh), and node-redis, in
# target/redis-node (scripts/redis-node-modules.sh; skipped when npm fails).
#
# All of it twice: on Debian's redis-server 7.0.15, and on Valkey 8.0.1 (valkey-server and
# valkey-cli from ../shared/peers/valkey/ beside the repository, as the peers below are found).
#
# Idempotent: installs Debian's redis-server and redis-tools (redis-cli, for
# `redis-cli --cluster create`) and libclang-dev (redis-module's bindgen), redis-py from PyPI and
# node-redis from npm only when missing, with retries. The servers are started by the tests
# themselves; none is left running.
#
# `--bench` instead runs the measured comparison (redis/examples/bench/, a release build,
# `modules [keys] [rounds]` by default: the three Bloom modules; `contenders [keys] [batch]`:
# the module against a Redis set and SETBIT; `window [keys] [generations] [periods] [batch]`:
# windowed keys against a set per period and a sorted set by time; minutes on the shared
# machine): not for CI.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

section "setup: redis-server, redis-tools, libclang-dev"
apt_install redis-server redis-tools libclang-dev
redis-server --version

if [ "${1:-}" = "--bench" ]; then
  section "redis: benchmark"
  cargo run --release -p splitbloom-redis --example bench -- "${@:2}"
  exit 0
fi

# The peers (RedisBloom 2.4.23, valkey-bloom) for the differential and ported tests
# (redis/tests/peers.rs, redisbloom.rs): ../shared/peers/redis/ beside the repository, as CI
# has it. Without it those tests say SKIPPED.
if [ -z "${SPLITBLOOM_PEERS_DIR:-}" ] && [ -f ../shared/peers/redis/redisbloom-2.4.23.so ]; then
  SPLITBLOOM_PEERS_DIR="$(cd ../shared/peers/redis && pwd)"
  export SPLITBLOOM_PEERS_DIR
fi
echo "peers: ${SPLITBLOOM_PEERS_DIR:-absent (the differential and ported tests will skip)}"

# Valkey 8.0.1 (../shared/peers/valkey/, beside the repository as CI has it, read-only there):
# copied into the target directory, so that it runs whatever the copy's permissions. Without
# it the Valkey runs say SKIPPED.
valkey_dir="${CARGO_TARGET_DIR:-target}/valkey"
valkey_source="${SPLITBLOOM_VALKEY_DIR:-../shared/peers/valkey}"
if [ -f "$valkey_source/valkey-server" ]; then
  mkdir -p "$valkey_dir"
  for tool in valkey-server valkey-cli; do
    cmp -s "$valkey_source/$tool" "$valkey_dir/$tool" || cp -f "$valkey_source/$tool" "$valkey_dir/$tool"
    chmod u+rwx "$valkey_dir/$tool"
  done
  valkey_dir="$(cd "$valkey_dir" && pwd)"
  "$valkey_dir/valkey-server" --version
else
  valkey_dir=
fi
echo "valkey: ${valkey_dir:-absent (the Valkey runs will skip)}"

python=$(bash scripts/redis-py-venv.sh | tail -n 1)
module="${CARGO_TARGET_DIR:-target}/debug/deps/libsplitbloom_redis.so"
redisbloom=()
if [ -n "${SPLITBLOOM_PEERS_DIR:-}" ]; then
  redisbloom=("$SPLITBLOOM_PEERS_DIR/redisbloom-2.4.23.so")
fi
node_dir=
if ! node_dir=$(bash scripts/redis-node-modules.sh | tail -n 1); then
  node_dir=
fi

# The whole suite on one server: SERVER names it (redis-server, or Valkey's binaries through
# SPLITBLOOM_REDIS_SERVER and SPLITBLOOM_REDIS_CLI, which the tests and clients start).
run_suite() {
  local server=$1
  section "$server: module tests"
  # With overflow checks, as the test profile has them by default (stated, so that no profile
  # change turns them off): an arithmetic overflow a client can reach in the module aborts the
  # server, and the test that reached it fails (redis/tests/limits.rs). The second server's run
  # reuses the first's build.
  CARGO_PROFILE_TEST_OVERFLOW_CHECKS=true cargo test -p splitbloom-redis

  # redis-py's `r.bf()` against the module with BF_COMMANDS yes, and against RedisBloom 2.4.23
  # as the oracle (redis/tests/clients/redis_py.py): the module `cargo test` just built, a venv
  # with the pinned redis-py (scripts/redis-py-venv.sh, reused when present).
  section "$server: redis-py client tests"
  "$python" redis/tests/clients/redis_py.py "$module" "${redisbloom[@]}"

  # node-redis's `client.bf` the same way, a smaller set (redis/tests/clients/node_redis.js), in
  # target/redis-node; skipped, with the reason, when node, npm or the registry is unavailable.
  section "$server: node-redis client tests"
  if [ -n "$node_dir" ]; then
    node redis/tests/clients/node_redis.js "$node_dir" "$module" "${redisbloom[@]}"
  else
    echo "SKIPPED: node-redis could not be installed (scripts/redis-node-modules.sh failed above)"
  fi
}

run_suite "redis-server $(redis-server --version | awk '{ print $3 }' | sed 's/^v=//')"
if [ -n "$valkey_dir" ]; then
  SPLITBLOOM_REDIS_SERVER="$valkey_dir/valkey-server" SPLITBLOOM_REDIS_CLI="$valkey_dir/valkey-cli" \
    run_suite "valkey-server 8.0.1"
else
  section "valkey: SKIPPED (no $valkey_source/valkey-server beside the repository)"
fi
