#!/usr/bin/env bash
# Builds the one-folder bundle dist/edgehost/ and checks it (packaging/smoke_bundle.py).
#   packaging/build_bundle.sh                        # without the default model
#   packaging/build_bundle.sh --with-default-model   # also bundles SmolLM2-135M (same as WITH_DEFAULT_MODEL=1)
# Environment: VENV (default .venv) — the environment whose packages go into the bundle;
#   BUNDLE_ARCHIVE=0 — do not pack dist/edgehost-<version>-linux-<arch>.tar.gz and SHA256SUMS
#   (packaging/archive_bundle.sh; test_arm64.sh packs the arm64 bundle outside the emulator).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
for arg in "$@"; do
    case "$arg" in
        --with-default-model) export WITH_DEFAULT_MODEL=1 ;;
        *) echo "build_bundle.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

# Qt's xcb (X11) plugin needs libraries that board images often lack (libxcb-cursor0, libxcb-icccm4 ...).
# PyInstaller bundles them from this machine, so they must be here: install the missing ones.
missing=$(QT_QPA_PLATFORM=xcb "$VENV/bin/python" -c \
    'from edgehost.boards.gui_platform import check_gui_platform; print(*check_gui_platform().packages)')
if [ -n "$missing" ]; then
    echo "build_bundle.sh: installing $missing for the bundle (Qt's xcb plugin needs them)"
    sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
    $sudo apt-get update -qq
    # shellcheck disable=SC2086  # one word per package
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

"$VENV/bin/pyinstaller" packaging/edgehost.spec --noconfirm --distpath dist --workpath build --log-level WARN
"$VENV/bin/python" bench/bundle_size.py --top 0 | grep RESULT
"$VENV/bin/python" packaging/smoke_bundle.py --bundle dist/edgehost
[ "${BUNDLE_ARCHIVE:-1}" = 0 ] || packaging/archive_bundle.sh dist
