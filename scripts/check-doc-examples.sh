#!/usr/bin/env bash
# Fails when a public item of the library has no code example in its documentation (the crate's
# promise: every public item has a runnable example; the doc tests run them), or when rustdoc
# warns about the documentation otherwise (a broken or private intra-doc link).
#
# rustdoc's `missing_doc_code_examples` lint is unstable. RUSTC_BOOTSTRAP=1 lets the stable
# toolchain run it, so no nightly is needed. The lint runs as a warning, and its reports are read
# from cargo's JSON messages. About 40 s from nothing (the dependencies are checked, not built).
set -euo pipefail
cd "$(dirname "$0")/.."

# RUSTC_BOOTSTRAP changes every fingerprint: a directory of its own keeps it from invalidating
# the other builds.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/doc-examples"
# rustdoc's warnings are printed only when the crate is documented again; cleaning it in this
# directory (not touching a source file) leaves the other builds' fingerprints alone.
cargo clean -q -p splitbloom
log=$(mktemp)
rustdoc_status=0
RUSTC_BOOTSTRAP=1 cargo rustdoc -q -p splitbloom --all-features --lib --message-format=json -- \
  -Z unstable-options -Zcrate-attr="feature(rustdoc_missing_doc_code_examples)" \
  -W rustdoc::missing_doc_code_examples >"$log" || rustdoc_status=$?
# Every error is printed (they are in the JSON too), and every missing example except those whose
# span is an `impl` block: rustdoc 1.95 reports the inherent impl blocks that hold a documented
# crate-private function (e.g. `Header`'s `check_hasher`) when a doc comment there has no
# example; nightly rustdoc (1.97) does not.
status=0
python3 - "$log" "$rustdoc_status" <<'PY' || status=$?
import json, re, sys
missing = []
other = []
for line in open(sys.argv[1]):
    try:
        message = json.loads(line)
    except ValueError:
        continue
    diagnostic = message.get("message") or {}
    text = diagnostic.get("message") or ""
    if message.get("reason") != "compiler-message":
        continue
    if diagnostic.get("level") == "error":
        print(diagnostic["rendered"], end="")
        continue
    code = (diagnostic.get("code") or {}).get("code") or ""
    if not text.startswith("missing code example"):
        if diagnostic.get("level") == "warning" and code.startswith("rustdoc::"):
            other.append(diagnostic["rendered"])
        continue
    span = next((s for s in diagnostic["spans"] if s.get("is_primary")), diagnostic["spans"][0])
    first = span["text"][0]["text"] if span.get("text") else ""
    if re.match(r"\s*impl\b", first):
        continue
    missing.append(diagnostic["rendered"])
for rendered in missing + other:
    print(rendered, end="")
if sys.argv[2] != "0":
    sys.exit(f"rustdoc failed (exit status {sys.argv[2]})")
if missing or other:
    sys.exit(f"{len(missing)} public items have no code example, {len(other)} other rustdoc "
             "warnings (shown above)")
print("every public item has a code example")
PY
rm -f "$log"
exit $status
