#!/usr/bin/env bash
# Runs the criterion benchmarks (benches/filters.rs) and turns their medians into the
# performance table (benches/results.md, quoted in BENCHMARKS.md and the README) and plot
# (docs/performance.svg, which the README shows).
#
#   bash benches/report.sh          # quick: 10^4, 10^6, 10^7 keys, every contender (minutes)
#   bash benches/report.sh full     # also 10^8 keys (about 6 GB of memory, much longer)
#   bash benches/report.sh report   # only redraw from the results already in target/criterion
#
# SPLITBLOOM_BENCH_SIZES and SPLITBLOOM_BENCH_ONLY (see benches/filters.rs) narrow a run; the
# report merges whatever results target/criterion holds.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-quick}" in
  quick) cargo bench -p splitbloom-bench --bench filters ;;
  full) SPLITBLOOM_BENCH=full cargo bench -p splitbloom-bench --bench filters ;;
  report) ;;
  *) echo "usage: $0 [quick|full|report]" >&2; exit 2 ;;
esac
SPLITBLOOM_BENCH=report cargo bench -p splitbloom-bench --bench filters
# The report writes its plot next to the table; the README's copy lives in docs/ because the
# published package leaves out benches/.
mv benches/performance.svg docs/performance.svg
echo "moved the plot to docs/performance.svg"
