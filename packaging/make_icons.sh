#!/usr/bin/env bash
# Regenerates the PNG icons in resources/icons/ from the two SVGs. The PNGs are committed, so this
# runs only when an SVG changes. Needs rsvg-convert (Debian: apt-get install librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")/../resources/icons"

if ! command -v rsvg-convert >/dev/null; then
    echo "make_icons.sh: rsvg-convert not found (apt-get install librsvg2-bin)" >&2
    exit 1
fi

render() {  # render SVG SIZE OUT
    rsvg-convert --width "$2" --height "$2" --keep-aspect-ratio "$1" --output "$3"
}

for size in 16 24 32 48 64 128 256 512; do
    render edgehost.svg "$size" "edgehost-${size}.png"
done
for size in 16 22 24 32; do
    render edgehost-tray.svg "$size" "edgehost-tray-${size}.png"
done
echo "icons written to $(pwd)"
