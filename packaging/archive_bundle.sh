#!/usr/bin/env bash
# The download of a built bundle: DIST/edgehost/ packed as DIST/edgehost-<version>-linux-<arch>.tar.gz
# (one folder, edgehost/, inside), and DIST/SHA256SUMS listing every such archive in DIST.
#   packaging/archive_bundle.sh [DIST [ARCH]]     # defaults: dist, this machine's `uname -m`
# A board user checks and unpacks it with `sha256sum -c --ignore-missing SHA256SUMS` and `tar xzf`.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
arch=${2:-$(uname -m)}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
[ -x "$dist/edgehost/edgehost" ] || { echo "archive_bundle.sh: no bundle in $dist/edgehost" >&2; exit 1; }
name=edgehost-$version-linux-$arch.tar.gz
# Same bytes for the same bundle: sorted names, no owners, no gzip timestamp.
tar -C "$dist" --sort=name --owner=0 --group=0 --numeric-owner -cf - edgehost | gzip -n -6 > "$dist/$name.tmp"
mv "$dist/$name.tmp" "$dist/$name"
(cd "$dist" && sha256sum edgehost-*-linux-*.tar.gz > SHA256SUMS)
echo "$dist/$name ($(du -m "$dist/$name" | cut -f1) MiB); $dist/SHA256SUMS:"
sed 's/^/  /' "$dist/SHA256SUMS"
