#!/usr/bin/env bash
# Issue 16's measurement protocol on the machine at hand, in one command: the workload bench
# (every kernel and the peers) in a default build with each prefetch level and in a
# `-C target-cpu=native` build, Boost.Bloom's bench of the same workload back to back with them,
# and the key-length and single-key-parts benches in both builds, alternated for ROUNDS rounds
# (default 3), then the medians per build. Not part of CI: run it on a machine whose figures the
# BENCHMARKS.md lacks (an Intel one, say) and quote the summary with the CPU it prints.
#
#   bash scripts/measure-cpu.sh [ROUNDS]
#
# SPLITBLOOM_MEASURE_SIZES (default 1e4,1e6,1e7) sets the workload sizes. Everything, the
# binaries included, goes to target/measure/<time>-<cpu>/, with workload.svg, BENCHMARKS.md's
# per-CPU plot, drawn from the default build's runs at the prefetch level this CPU is given and
# from Boost's. Boost.Bloom runs from a copy of ../shared/anchors/boost-bloom (its run.sh writes
# next to itself, and the anchor may be read-only), when that directory exists; its code stays
# outside this repository.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh

rounds=${1:-3}
sizes=${SPLITBLOOM_MEASURE_SIZES:-1e4,1e6,1e7}
case "$rounds" in
'' | *[!0-9]* | 0)
  echo "ROUNDS must be a positive number, not '$rounds'" >&2
  exit 64
  ;;
esac
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
slug=$(printf '%s' "${model:-unknown}" | tr -cs 'A-Za-z0-9' '-' | sed 's/-*$//')
out="target/measure/$(date -u +%Y%m%dT%H%M%SZ)-$slug"
mkdir -p "$out/bin"
{
  echo "cpu: ${model:-unknown}"
  grep -m1 -E '^(vendor_id|cpu family|model)[[:space:]]' /proc/cpuinfo || true
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "rounds: $rounds, workload sizes: $sizes"
} | tee "$out/machine.txt"

# The bench executables of one build: cargo prints "Executable <name> (<path>)" for each.
build_benches() { # label, then env assignments for cargo
  local label=$1 line path name
  shift
  while IFS= read -r line; do
    path=${line##*(}
    path=${path%)}
    name=$(basename "$path")
    cp "$path" "$out/bin/${name%%-*}-$label"
  done < <(env "$@" cargo bench -p splitbloom-bench --bench workload --bench key_lengths \
    --bench single_key_parts --no-run 2>&1 | tee "$out/build-$label.log" | grep 'Executable')
  for name in workload key_lengths single_key_parts; do
    [ -x "$out/bin/$name-$label" ] || {
      echo "the $label build did not produce the $name bench (see $out/build-$label.log)" >&2
      exit 1
    }
  done
}
section "building the benches: default flags, then -C target-cpu=native"
build_benches default
build_benches native CARGO_TARGET_DIR=target/native-measure RUSTFLAGS="-C target-cpu=native"

boost=()
anchor=../shared/anchors/boost-bloom
if [ -d "$anchor" ]; then
  section "Boost.Bloom: a working copy of the anchor, compiled"
  mkdir -p target/boost-anchor
  cp -R "$anchor"/. target/boost-anchor/
  chmod -R u+w target/boost-anchor
  bash target/boost-anchor/run.sh build
  boost=(target/boost-anchor/build/bench-native)
else
  echo "no $anchor: Boost.Bloom is left out"
fi

for round in $(seq 1 "$rounds"); do
  section "round $round of $rounds"
  for level in l1 l2; do
    SPLITBLOOM_PREFETCH=$level SPLITBLOOM_WORKLOAD_SIZES=$sizes \
      SPLITBLOOM_WORKLOAD_JSON="$out/workload-default-$level-$round.json" "$out/bin/workload-default" \
      >"$out/workload-default-$level-$round.txt"
  done
  SPLITBLOOM_WORKLOAD_SIZES=$sizes SPLITBLOOM_WORKLOAD_JSON="$out/workload-native-$round.json" \
    "$out/bin/workload-native" >"$out/workload-native-$round.txt"
  if [ "${#boost[@]}" -gt 0 ]; then
    "${boost[@]}" --sizes "$sizes" --reps 5 --json "$out/boost-$round.json" >"$out/boost-$round.txt"
  fi
  for build in default native; do
    SPLITBLOOM_BENCH=interleaved "$out/bin/key_lengths-$build" >"$out/key_lengths-$build-$round.txt"
    SPLITBLOOM_PARTS_SIZES=$sizes "$out/bin/single_key_parts-$build" \
      >"$out/single_key_parts-$build-$round.txt"
  done
done

section "the plot: the default build at the level this CPU is given, and Boost.Bloom"
# The level this CPU is given: the native runs, the only ones without SPLITBLOOM_PREFETCH, print
# it in their header ("..., into l2").
detected=$(sed -n 's/.*, into \(l[12]\)$/\1/p' "$out/workload-native-1.txt" | head -1)
plot_from=""
for json in "$out"/workload-default-"${detected:-l2}"-*.json "$out"/boost-*.json; do
  [ -f "$json" ] && plot_from="${plot_from:+$plot_from,}$json"
done
SPLITBLOOM_WORKLOAD_PLOT="$out/workload.svg" SPLITBLOOM_WORKLOAD_PLOT_FROM="$plot_from" \
  "$out/bin/workload-default" || echo "the plot could not be drawn (see above)" >&2

section "summary (medians over the rounds, ns per key)"
python3 - "$out" <<'EOF' | tee "$out/summary.md"
import glob, os, re, statistics, sys

out = sys.argv[1]
COLUMNS = ["build", "bbuild", "pos", "neg", "bpos", "bneg", "floor"]

def rows(path):
    """The table rows of one workload or Boost output: {(contender, N): {column: value}}."""
    table, header = {}, None
    for line in open(path):
        cells = line.split()
        if cells[:2] == ["contender", "N"]:
            header = cells
            continue
        if header and len(cells) >= len(COLUMNS) and re.fullmatch(r"1e\d+", cells[1] if len(cells) > 1 else ""):
            values = {}
            for name, cell in zip(header, cells):
                try:
                    values[name] = float(cell)
                except ValueError:
                    pass
            table[(cells[0], cells[1])] = values
    return table

variants = {}
for path in sorted(glob.glob(os.path.join(out, "workload-*.txt")) + glob.glob(os.path.join(out, "boost-*.txt"))):
    variant = re.sub(r"-\d+\.txt$", "", os.path.basename(path))
    for key, values in rows(path).items():
        variants.setdefault((variant, *key), []).append(values)

print("| build | contender | N | " + " | ".join(COLUMNS) + " |")
print("|---|---|---:|" + "---:|" * len(COLUMNS))
for (variant, contender, n), runs in sorted(variants.items(), key=lambda item: (item[0][2], item[0][1], item[0][0])):
    cells = []
    for column in COLUMNS:
        values = [run[column] for run in runs if column in run]
        cells.append(f"{statistics.median(values):.2f}" if values else "-")
    print(f"| {variant} | {contender} | {n} | " + " | ".join(cells) + " |")

for build in ("default", "native"):
    files = sorted(glob.glob(os.path.join(out, f"key_lengths-{build}-*.txt")))
    if not files:
        continue
    print(f"\nkey lengths, {build} build: median ns (median ratio to plain XXH3) over {len(files)} rounds")
    tables = []
    for path in files:
        lines = [line for line in open(path).read().split("\n\n")[0].splitlines() if line.startswith("|")]
        tables.append(lines)
    print(tables[0][0])
    print(tables[0][1])
    for index in range(2, len(tables[0])):
        cells = [table[index].strip("|").split("|") for table in tables]
        row = [cells[0][0].strip()]
        for column in range(1, len(cells[0])):
            ns = statistics.median(float(cell[column].split()[0]) for cell in cells)
            ratios = [float(re.search(r"\(([\d.]+)x\)", cell[column]).group(1)) for cell in cells]
            row.append(f"{ns:.2f} ({statistics.median(ratios):.2f}x)")
        print("| " + " | ".join(row) + " |")

for build in ("default", "native"):
    files = sorted(glob.glob(os.path.join(out, f"single_key_parts-{build}-*.txt")))
    if not files:
        continue
    print(f"\nsingle-key parts, {build} build: median ns, median ratios to Filter::contains and to sbbf-rs-safe, over {len(files)} rounds")
    print("| loop | keys | ns | ratio | vs sbbf |")
    print("|---|---:|---:|---:|---:|")
    parts = {}
    for path in files:
        for line in open(path):
            # name..., keys, ns, ratio to Filter::contains, ratio to sbbf-rs-safe
            cells = line.split()
            if len(cells) >= 5 and cells[-1].endswith("x") and cells[-4].isdigit():
                key = (" ".join(cells[:-4]), int(cells[-4]))
                parts.setdefault(key, []).append(
                    (float(cells[-3]), float(cells[-2][:-1]), float(cells[-1][:-1])))
    for (name, keys), runs in sorted(parts.items(), key=lambda item: item[0][1]):
        ns, ratio, sbbf = (statistics.median(run[i] for run in runs) for i in range(3))
        print(f"| {name} | {keys} | {ns:.2f} | {ratio:.2f}x | {sbbf:.2f}x |")
EOF
echo "everything is in $out"
