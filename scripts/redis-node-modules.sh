#!/usr/bin/env bash
# Installs (or reuses) node-redis, for the Redis module's node-redis test
# (redis/tests/clients/node_redis.js), into a directory of its own (target/redis-node by
# default), so nothing outside it changes. Exits non-zero when node, npm or the registry is
# unavailable; scripts/test-redis.sh then skips that test and says why.
#
# Idempotent: the pinned version already installed is reused without touching the network.
# The pin is node-redis 5 (its `client.bf` commands, RESP2 and RESP3).
#
# Usage: bash scripts/redis-node-modules.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

NODE_REDIS_VERSION=5.12.4
dir=${1:-target/redis-node}

installed() {
  [ "$(node -p "require('./$dir/node_modules/redis/package.json').version" 2>/dev/null)" = \
    "$NODE_REDIS_VERSION" ]
}

command -v node >/dev/null && command -v npm >/dev/null || {
  echo "node or npm is not installed" >&2
  exit 1
}
if ! installed; then
  mkdir -p "$dir"
  # A package.json of its own, so npm never walks up to another project's.
  [ -f "$dir/package.json" ] || echo '{ "private": true }' >"$dir/package.json"
  retry npm install --prefix "$dir" --no-audit --no-fund --silent "redis@$NODE_REDIS_VERSION"
  installed
fi
echo "$dir"
