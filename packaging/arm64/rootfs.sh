#!/usr/bin/env bash
# The recipe of the Debian 12 arm64 board userland that `make test-arm64` runs EdgeHost in.
#   packaging/arm64/rootfs.sh ROOT      # builds ROOT from nothing (as root; a few minutes)
# packaging/test_arm64.sh keeps the result under build/ and builds it again only when this file
# changes (its sha256 names the cached folder), so every package the steps need is installed here.
set -euo pipefail
root=${1:?usage: rootfs.sh ROOT}

# The Debian mirror this machine's apt uses (deb822 `URIs:` or a one-line `deb` source).
mirror=${DEBIAN_MIRROR:-$(grep -hE '^URIs:.*/debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | awk '{print $2}')}
mirror=${mirror:-$(grep -hE '^deb [^ ]*/debian/? ' /etc/apt/sources.list 2>/dev/null | head -n1 | awk '{print $2}')}
mirror=${mirror:-http://deb.debian.org/debian}

# What a Debian 12 board image has (Python 3.11, venv) plus:
#   the libraries Qt offscreen needs (libegl1 ... libdbus-1-3) and those Qt's xcb plugin needs, which
#   PyInstaller copies into the bundle (build_bundle.sh would otherwise install them with apt);
#   binutils: strip, used by the bundle's spec; libpython3.11: the Python library PyInstaller puts
#   into the bundle; gcc, libc6-dev: the tests' RKLLM stand-in library is compiled here, by the
#   board's own compiler, as the x86 tests compile it.
packages=(
    python3 python3-venv libpython3.11 ca-certificates binutils file gcc libc6-dev
    libegl1 libgl1 libxkbcommon0 libfontconfig1 libglib2.0-0 libdbus-1-3
    libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0 libxcb-image0 libxcb-render-util0
    libxcb-randr0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libx11-xcb1 libxcb-shm0 libxcb-sync1
    libxcb-xfixes0 libxcb-render0 libxcb-util1 libsm6 libice6 libwayland-client0 libwayland-cursor0
    libwayland-egl1
)
include=$(IFS=,; echo "${packages[*]}")

rm -rf "$root"
debootstrap --arch=arm64 --variant=minbase --include="$include" bookworm "$root" "$mirror"
# Keep apt's downloads out of the cached folder.
chroot "$root" apt-get clean
