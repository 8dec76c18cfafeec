#!/bin/bash
# OpenVINO's C runtime (issue #40) for the text detector and recognizer networks, from the PyPI wheel
# `openvino` (Apache-2.0; Debian 12 packages no inference runtime with C headers). Pinned by version and
# SHA-256; never committed, never fetched from anywhere but PyPI.
#
#   fetch-openvino.sh DEST PIP
#
# DEST gets lib/ (the C API, the core, the CPU plugin, the ONNX reader and oneTBB: what reading an
# ONNX model on the CPU needs; and the IR reader, which the CPU plugin uses to import a network it
# compiled before: the compiled-network cache), include/openvino/c/ (the C API's headers) and licenses/ (the wheel's).
# PIP is a pip to download with. Does nothing when DEST already holds this version.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/put-in-place.sh"
dest=$1 pip=$2
version=2026.4.1
case "$(uname -m)" in
    x86_64) platform=manylinux_2_28_x86_64 sha256=2d22b1da03f7caf74df30e9f6417d0ab2f637e4a38e08e1dcd294d2c37407aaf ;;
    aarch64) platform=manylinux_2_35_aarch64 sha256=bea1eb3733c34ef331adc945da0ccda5937865031139073663be84c517ffda22 ;;
    *) echo "fetch-openvino: no pinned OpenVINO wheel for $(uname -m)" >&2; exit 1 ;;
esac
# The stamp names what is unpacked too ("ir": the IR reader was added later), so an older DEST is
# unpacked again.
stamp="$dest/.openvino-$version-$sha256-ir"
[ -f "$stamp" ] && exit 0

work=$(mktemp -d "${TMPDIR:-/tmp}/openvino.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The wheel for Debian 12's Python (3.11); only its C libraries are used.
"$pip" download -q --no-deps --only-binary=:all: --python-version 3.11 --platform "$platform" \
    "openvino==$version" -d "$work"
wheel=$(ls "$work"/openvino-"$version"-*.whl)
got=$(sha256sum "$wheel" | cut -d' ' -f1)
if [ "$got" != "$sha256" ]; then
    echo "fetch-openvino: $(basename "$wheel"): SHA-256 $got, expected $sha256" >&2
    exit 1
fi
# The libraries' version suffix: 2026.4.1 → 2641.
abi=$(echo "${version#20}" | tr -d .)
unzip -q "$wheel" -d "$work/wheel" \
    "openvino/include/openvino/c/*" "openvino-$version.dist-info/licenses/*" \
    "openvino/libs/libopenvino.so.$abi" "openvino/libs/libopenvino_c.so.$abi" \
    "openvino/libs/libopenvino_onnx_frontend.so.$abi" "openvino/libs/libopenvino_ir_frontend.so.$abi" \
    "openvino/libs/libopenvino_intel_cpu_plugin.so" \
    "openvino/libs/libtbb.so.12"
mkdir -p "$work/out/lib" "$work/out/include/openvino"
mv "$work/wheel/openvino/libs/"* "$work/out/lib/"
mv "$work/wheel/openvino/include/openvino/c" "$work/out/include/openvino/c"
mv "$work/wheel/openvino-$version.dist-info/licenses" "$work/out/licenses"
# The linker's name for the C API (-lopenvino_c); the wheel ships only the versioned file.
ln -s "libopenvino_c.so.$abi" "$work/out/lib/libopenvino_c.so"
touch "$work/out/$(basename "$stamp")"
put_in_place "$work/out" "$dest"
echo "fetch-openvino: OpenVINO $version ($platform) in $dest"
