#!/usr/bin/env bash
# Writes the Parquet fixtures of cli/tests/suite/parquet_info/ with real writers (DuckDB and pyarrow
# from PyPI) and the answers the tests compare against; `cargo test` needs no Python, as the files are
# committed. Run it again only to regenerate them (after changing this script or to try newer
# writers): `bash scripts/parquet-fixtures.sh`.
#
# The virtual environment lives in ~/.cache/splitbloom-parquet-venv (override with
# SPLITBLOOM_PARQUET_VENV); nothing is downloaded when DuckDB and pyarrow are already there.
#
# Each fixture NAME.parquet comes with NAME.expected.tsv: one line per (column, value) with
#   column, form (text: as a user types it; hex: the bytes, for `--hex`), value,
#   the row groups that hold the value (comma-separated, empty when none does),
#   the row groups whose filter DuckDB's parquet_bloom_probe says excludes it ("?": not probed).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

venv="${SPLITBLOOM_PARQUET_VENV:-$HOME/.cache/splitbloom-parquet-venv}"
out=cli/tests/fixtures/parquet

section "python environment ($venv)"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if "$venv/bin/python" -c 'import duckdb, pyarrow' 2>/dev/null; then
  echo "already installed: duckdb pyarrow"
else
  retry "$venv/bin/python" -m pip install --quiet duckdb pyarrow
fi

section "fixtures ($out)"
mkdir -p "$out"
"$venv/bin/python" - "$out" <<'PYTHON'
import datetime as dt
import decimal
import sys
import uuid

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

out = sys.argv[1]
GROUP_ROWS = 2048  # DuckDB's smallest row group
GROUPS = 3
DISTINCT = 100  # distinct values per row group
ABSENT = range(100_000, 100_300)  # value indices in no row group

EPOCH = dt.datetime(1970, 1, 1)
UTC = dt.timezone.utc


def index(row):
    group = row // GROUP_ROWS
    return group * DISTINCT + (row % DISTINCT)


def signed(bits):
    return lambda j: (j * 7919) % (1 << bits) - (1 << (bits - 1))


def unsigned(bits):
    return lambda j: (1 << bits) - 1 - (j * 7919) % (1 << bits)


def ts(j, digits):
    # Microsecond-resolution datetimes; digits only decides the text.
    return EPOCH + dt.timedelta(days=j % 20000, seconds=j * 37 % 86400, microseconds=(j * 1009) % 1000 * (1000 if digits == 3 else 1))


def text_ts(value, zone):
    text = value.isoformat()
    return text + "Z" if zone else text


# name -> (arrow type, value of index j, text of a value; None: hex of the bytes)
COLUMNS = {
    "i8": (pa.int8(), signed(8), str),
    "i16": (pa.int16(), signed(16), str),
    "i32": (pa.int32(), signed(32), str),
    "i64": (pa.int64(), signed(64), str),
    "u8": (pa.uint8(), unsigned(8), str),
    "u16": (pa.uint16(), unsigned(16), str),
    "u32": (pa.uint32(), unsigned(32), str),
    "u64": (pa.uint64(), unsigned(64), str),
    "f32": (pa.float32(), lambda j: (j - 1000) * 0.25, repr),
    "f64": (pa.float64(), lambda j: (j - 1000) / 8 + j * 1e-9, repr),
    "f16": (pa.float16(), lambda j: (j % 4000 - 2000) * 0.5, repr),
    "str": (pa.string(), lambda j: f"value-{j}", str),
    "bin": (pa.binary(), lambda j: bytes([j % 256, 0, j // 256 % 256, 10]), None),
    "fixed": (pa.binary(4), lambda j: (j * 2654435761 % 2**32).to_bytes(4, "big"), None),
    "date": (pa.date32(), lambda j: dt.date(1970, 1, 1) + dt.timedelta(days=j * 13 - 5000), str),
    "ts_ms": (pa.timestamp("ms"), lambda j: ts(j, 3), lambda v: text_ts(v, False)),
    "ts_us": (pa.timestamp("us"), lambda j: ts(j, 6), lambda v: text_ts(v, False)),
    "ts_us_utc": (pa.timestamp("us", tz="UTC"), lambda j: ts(j, 6).replace(tzinfo=UTC), lambda v: v.isoformat()),
    "ts_ns": (pa.timestamp("ns"), lambda j: ts(j, 6), lambda v: text_ts(v, False)),
    "time_ms": (pa.time32("ms"), lambda j: (dt.datetime(2000, 1, 1) + dt.timedelta(milliseconds=j * 86_399_999 // 997)).time(), lambda v: v.isoformat()),
    "time_us": (pa.time64("us"), lambda j: (dt.datetime(2000, 1, 1) + dt.timedelta(microseconds=j * 86_399_999_999 // 997)).time(), lambda v: v.isoformat()),
    "dec9": (pa.decimal128(9, 2), lambda j: decimal.Decimal(j * 37 - 20000) / 100, str),
    "dec18": (pa.decimal128(18, 4), lambda j: decimal.Decimal(j * 123457 - 10**9) / 10**4, str),
    "dec38": (pa.decimal128(38, 10), lambda j: decimal.Decimal(j * 10**20 + 12345) / 10**10, str),
    "uuid": (pa.uuid(), lambda j: uuid.UUID(int=(j * 0x9E3779B97F4A7C15F39CC0605CEDC835) % 2**128).bytes, lambda v: str(uuid.UUID(bytes=v))),
}
# Columns a nested schema adds: struct field and list element (values as "str").
NESTED = {"st.a": "i32", "tags.list.element": "str"}


def values(name):
    return [COLUMNS[name][1](index(row)) for row in range(GROUP_ROWS * GROUPS)]


def table():
    arrays = {}
    for name, (kind, _, _) in COLUMNS.items():
        data = values(name)
        if name == "uuid":
            arrays[name] = pa.ExtensionArray.from_storage(pa.uuid(), pa.array(data, pa.binary(16)))
        else:
            arrays[name] = pa.array(data, kind)
    arrays["st"] = pa.StructArray.from_arrays([arrays["i32"]], names=["a"])
    arrays["tags"] = pa.array([[v] for v in values("str")], pa.list_(pa.string()))
    return pa.table(arrays)


def text(name, value):
    to_text = COLUMNS[name][2]
    return ("hex", value.hex()) if to_text is None else ("text", to_text(value))


def expected(path, columns, probe_columns, groups_of, absent=ABSENT):
    """Writes path's expected answers: for each column, every present value and the absent ones."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    lines = []
    for column in columns:
        base = NESTED.get(column, column)
        make = COLUMNS[base][1]
        present = groups_of(column)
        absent_values = [make(j) for j in absent]
        absent_values = [v for v in absent_values if v not in present]
        cases = [(v, present[v]) for v in present] + [(v, set()) for v in dict.fromkeys(absent_values)]
        for n, (value, groups) in enumerate(cases):
            probed = "?"
            # DuckDB's probe, on a sample (every present value would take minutes).
            if column in probe_columns and (n % 5 == 0 or not groups):
                probe_value = value
                if base == "uuid":
                    probe_value = uuid.UUID(bytes=value)
                rows = con.execute(
                    "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)",
                    [path, column, probe_value],
                ).fetchall()
                probed = ",".join(str(g) for g, excluded in sorted(rows) if excluded)
            form, shown = text(base, value)
            lines.append(f"{column}\t{form}\t{shown}\t{','.join(map(str, sorted(groups)))}\t{probed}\n")
    with open(path.replace(".parquet", ".expected.tsv"), "w") as f:
        f.writelines(lines)


def groups_by_value(name):
    present = {}
    for row, value in enumerate(values(name)):
        present.setdefault(value, set()).add(row // GROUP_ROWS)
    return present


# pyarrow: every column with a bloom filter.
data = table()
leaves = list(COLUMNS) + list(NESTED)
path = f"{out}/pyarrow.parquet"
pq.write_table(
    data, path, row_group_size=GROUP_ROWS, compression="zstd",
    bloom_filter_options={c: {"ndv": DISTINCT, "fpp": 0.01} for c in leaves},
    store_schema=False,
)
print(path, "pyarrow", pa.__version__)
expected(path, leaves, set(COLUMNS) - {"f16"}, lambda c: groups_by_value(NESTED.get(c, c)))

# DuckDB: the types it stores (no FLOAT16; its own UUID and time stamp types), with its default
# filters (written for dictionary-encoded chunks).
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.register("data", data.drop_columns(["f16"]))
duck_columns = [c for c in COLUMNS if c != "f16"]
select = ", ".join(
    {"uuid": "uuid::UUID AS uuid", "ts_us_utc": "ts_us_utc::TIMESTAMPTZ AS ts_us_utc"}.get(c, c)
    for c in duck_columns
) + ", st, tags"
path = f"{out}/duckdb.parquet"
con.execute(
    f"COPY (SELECT {select} FROM data) TO '{path}' "
    f"(FORMAT parquet, ROW_GROUP_SIZE {GROUP_ROWS}, COMPRESSION zstd)"
)
print(path, "duckdb", duckdb.__version__)
leaves = duck_columns + list(NESTED)
expected(path, leaves, set(duck_columns), lambda c: groups_by_value(NESTED.get(c, c)))

# DuckDB, mixed: row group 1's chunk has too many distinct values for a dictionary, so DuckDB
# writes it without a bloom filter while row groups 0 and 2 have one.
def mixed(row):
    group = row // GROUP_ROWS
    return row % 100 + group * 100 if group != 1 else 50_000 + row
ids = [mixed(row) for row in range(GROUP_ROWS * GROUPS)]
con.register("mixed", pa.table({"id": pa.array(ids, pa.int64())}))
path = f"{out}/duckdb-mixed.parquet"
con.execute(
    f"COPY (SELECT id FROM mixed) TO '{path}' "
    f"(FORMAT parquet, ROW_GROUP_SIZE {GROUP_ROWS}, COMPRESSION zstd, DICTIONARY_SIZE_LIMIT 1000)"
)
present = {}
for row, value in enumerate(ids):
    present.setdefault(value, set()).add(row // GROUP_ROWS)
lines = []
for value in list(present) + list(range(200_000, 200_300)):
    groups = present.get(value, set())
    rows = con.execute(
        "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, 'id', ?)", [path, value]
    ).fetchall() if value % 7 == 0 or not groups else None
    probed = "?" if rows is None else ",".join(str(g) for g, e in sorted(rows) if e)
    lines.append(f"id\ttext\t{value}\t{','.join(map(str, sorted(groups)))}\t{probed}\n")
with open(path.replace(".parquet", ".expected.tsv"), "w") as f:
    f.writelines(lines)
print(path, "duckdb", duckdb.__version__)
with open(f"{out}/WRITERS", "w") as f:
    f.write(f"duckdb {duckdb.__version__}\npyarrow {pa.__version__}\n")
PYTHON
ls -l "$out"
