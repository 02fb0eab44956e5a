#!/usr/bin/env bash
# The Redis module's tests (redis/tests/): commands and bad input, persistence (DEBUG RELOAD,
# RDB, AOF), replication, and a three-node cluster, each against redis-server processes the
# tests start on free localhost ports and stop.
#
# Idempotent: installs Debian's redis-server and redis-tools (redis-cli, for
# `redis-cli --cluster create`) and libclang-dev (redis-module's bindgen) only when missing, with
# retries. The servers are started by the tests themselves; none is left running.
#
# `--bench` instead runs the measured comparison (redis/examples/bench.rs, a release build,
# 10^6 keys; several minutes on the shared machine): not for CI.
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

section "redis: module tests"
cargo test -p splitbloom-redis
