#!/usr/bin/env bash
# tests/python/mypy.sh PYTHON CACHE_DIR - the static type check of the
# Python package: mypy with bindings/python/pyproject.toml's [tool.mypy]
# (strict, Python 3.11) over bindings/python/netsched; then the examples in
# examples/python, as a user's code, checked against those annotations
# (their bodies too: --check-untyped-defs). Run by make check; prints a
# SKIPPED line (and passes) where mypy is not installed.
set -u
PY=${1:-/usr/bin/python3}
CACHE=${2:-build/mypy-cache}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! "$PY" -c 'import mypy' 2>/dev/null; then
  echo "tests/python/mypy: SKIPPED - mypy is not installed for $PY (Debian: apt-get install mypy)"
  exit 0
fi
"$PY" -m mypy --version
echo "mypy --strict: bindings/python/netsched"
(cd "$ROOT/bindings/python" && "$PY" -m mypy --config-file pyproject.toml --cache-dir "$CACHE" netsched) || exit 1
echo "mypy --check-untyped-defs: examples/python (the package's annotations as users meet them)"
cd "$ROOT" && MYPYPATH=bindings/python "$PY" -m mypy --python-version 3.11 --cache-dir "$CACHE-examples" \
  --check-untyped-defs --follow-imports silent examples/python
