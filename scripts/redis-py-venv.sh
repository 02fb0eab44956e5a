#!/usr/bin/env bash
# Creates (or reuses) a Python venv with redis-py, for the Redis module's client tests
# (redis/tests/clients/redis_py.py), and prints its python's path on the last line.
#
# Idempotent: a venv that already has the pinned redis-py is reused without touching the
# network; otherwise the venv is (re)made and `pip install redis==$REDIS_PY_VERSION` runs, with
# retries. The pin is the newest redis-py 5 release, whose `r.bf()` and RESP3 support the tests
# exercise; a new pin is a new venv, so an upgrade is one edit here.
#
# Usage: bash scripts/redis-py-venv.sh [DIR]   (DIR defaults to target/redis-venv)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

REDIS_PY_VERSION=5.2.1
venv=${1:-target/redis-venv}
python=${PYTHON:-python3}

installed() {
  [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -c 'import redis; print(redis.__version__)' 2>/dev/null)" = "$REDIS_PY_VERSION" ]
}

if ! installed; then
  # Debian's python3 ships venv without ensurepip, in python3-venv.
  if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    apt_install python3-venv
  fi
  rm -rf "$venv"
  "$python" -m venv "$venv"
  retry "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "redis==$REDIS_PY_VERSION"
  installed
fi
echo "$venv/bin/python"
