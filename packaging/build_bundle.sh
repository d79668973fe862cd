#!/usr/bin/env bash
# Builds the one-folder bundle dist/edgehost/ and checks it (packaging/smoke_bundle.py).
#   packaging/build_bundle.sh                        # without the default model
#   packaging/build_bundle.sh --with-default-model   # also bundles SmolLM2-135M (same as WITH_DEFAULT_MODEL=1)
# Environment: VENV (default .venv) — the environment whose packages go into the bundle.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
for arg in "$@"; do
    case "$arg" in
        --with-default-model) export WITH_DEFAULT_MODEL=1 ;;
        *) echo "build_bundle.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

"$VENV/bin/pyinstaller" packaging/edgehost.spec --noconfirm --distpath dist --workpath build --log-level WARN
echo "bundle: $(du -sh dist/edgehost | cut -f1) in dist/edgehost"
"$VENV/bin/python" packaging/smoke_bundle.py --bundle dist/edgehost
