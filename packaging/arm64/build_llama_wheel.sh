#!/usr/bin/env bash
# llama-cpp-python for the RK3588's Cortex-A76 cores, cross-compiled on this (x86-64) machine:
#   packaging/arm64/build_llama_wheel.sh OUT_DIR VERSION
# writes OUT_DIR/llama_cpp_python-VERSION-py3-none-linux_aarch64.whl.
#
# llama-cpp-python is source-only on PyPI and compiling llama.cpp under qemu-user takes hours on two
# cores. Its native part is a set of shared libraries loaded with ctypes (llama_cpp/lib/*.so) that
# never link against Python, so Debian's gcc-aarch64-linux-gnu builds them here with the flags a
# board's own build uses (Makefile: LLAMA_CMAKE_ARGS) and the wheel is tagged for aarch64.
set -euo pipefail
out=${1:?usage: build_llama_wheel.sh OUT_DIR VERSION}
version=${2:?usage: build_llama_wheel.sh OUT_DIR VERSION}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-$here/../../.venv/bin/python}

for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ cmake; do
    command -v "$tool" >/dev/null || { echo "build_llama_wheel.sh: $tool is missing (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu cmake)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/aarch64.cmake" <<'CMAKE'
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
CMAKE

"$python" -m pip download --quiet --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$work/sdist"
# The A76 cores: ARMv8.2-A with the dot-product and half-precision extensions (as the Makefile says).
export CMAKE_ARGS="-DCMAKE_TOOLCHAIN_FILE=$work/aarch64.cmake -DGGML_NATIVE=OFF -DGGML_CPU_ARM_ARCH=armv8.2-a+dotprod+fp16"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
"$python" -m pip wheel --quiet --no-deps "$work"/sdist/llama_cpp_python-*.tar.gz -w "$work/wheel"

mkdir -p "$out"
"$python" - "$work"/wheel/llama_cpp_python-*.whl "$out" <<'PY'
"""Retag py3-none-linux_x86_64 (the build machine's) as py3-none-linux_aarch64, after checking that
every shared library inside really is AArch64 code."""
import base64, hashlib, re, sys, zipfile
from pathlib import Path

source, out = Path(sys.argv[1]), Path(sys.argv[2])
target = out / re.sub(r"linux_x86_64\.whl$", "linux_aarch64.whl", source.name)
EM_AARCH64 = 183
with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
    libraries = 0
    records = []
    record_name = None
    for item in zin.infolist():
        data = zin.read(item)
        if item.filename.endswith("/RECORD"):
            record_name = item.filename
            continue
        if item.filename.endswith("/WHEEL"):
            data = data.replace(b"linux_x86_64", b"linux_aarch64")
        if data[:4] == b"\x7fELF":
            machine = int.from_bytes(data[18:20], "little")
            if machine != EM_AARCH64:
                sys.exit(f"{item.filename} is not AArch64 code (ELF machine {machine})")
            libraries += 1
        zout.writestr(item, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        records.append(f"{item.filename},sha256={digest},{len(data)}")
    if libraries == 0 or record_name is None:
        sys.exit("the wheel has no shared libraries or no RECORD")
    records.append(f"{record_name},,")
    zout.writestr(record_name, "\n".join(records) + "\n")
print(f"{target} ({libraries} AArch64 libraries)")
PY
