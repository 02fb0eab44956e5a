#!/usr/bin/env bash
# WideFilter against Filter (benches/wide.rs) and Boost.Bloom's multiblock filters
# (benches/boost/wide_anchor.cpp) on the same keys, back to back, twice, in one run:
#
#   bash benches/wide-vs-boost.sh [BOOST_BLOOM_DIR]
#
# BOOST_BLOOM_DIR holds Boost.Bloom's `include/` (and, for a system Boost older than 1.87,
# a `shim/` with <boost/container_hash/hash_is_avalanching.hpp>); the default is the copy
# beside this repository, ../shared/anchors/boost-bloom. Boost.Bloom is not part of splitbloom:
# without it the script says so and stops. Needs g++ and the system Boost headers
# (Debian 12: libboost1.81-dev; Boost.Bloom needs 1.81 or later), installed here when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
boost_dir="${1:-../shared/anchors/boost-bloom}"
if [ ! -d "$boost_dir/include/boost/bloom" ]; then
  echo "wide-vs-boost: no Boost.Bloom headers under $boost_dir/include; pass their directory" >&2
  exit 2
fi
if ! echo '#include <boost/config.hpp>' | g++ -x c++ -fsyntax-only - 2>/dev/null; then
  apt-get update && apt-get install -y --no-install-recommends g++ libboost1.81-dev
fi
includes=(-I "$boost_dir/include")
if ! echo '#include <boost/container_hash/hash_is_avalanching.hpp>' |
  g++ -std=c++17 -x c++ -fsyntax-only - 2>/dev/null; then
  includes+=(-I "$boost_dir/shim")
fi
mkdir -p target
binary=target/boost-wide-anchor
g++ -std=c++17 -O3 -march=native -DNDEBUG "${includes[@]}" benches/boost/wide_anchor.cpp -o "$binary"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for pass in 1 2; do
  echo "== pass $pass: splitbloom"
  cargo bench -q -p splitbloom-bench --bench wide 2>/dev/null
  echo "== pass $pass: Boost.Bloom (g++ -O3 -march=native)"
  "$binary"
done
