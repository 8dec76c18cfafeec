#!/bin/bash
# zxing-cpp (issue #41), the barcode reader, built from its release source: the PyPI sdist `zxing-cpp`
# carries the C++ core (Apache-2.0). Debian 12 packages zxing-cpp 1.4 (2022), which finds one DataMatrix
# per image, reads 1-D codes one at a time and aborts the process on failed assertions. Pinned by version
# and SHA-256; never committed, never fetched from anywhere but PyPI (files.pythonhosted.org is PyPI's
# file host; the URL is the one https://pypi.org/simple/zxing-cpp/ lists for this file).
#
#   build-zxing.sh DEST
#
# DEST gets lib/libZXing.a (static, position-independent, readers only, C API on, release: no assertions),
# include/ZXing/ (ZXingC.h and what it includes) and licenses/LICENSE. Needs cmake, a C++20 compiler
# (Debian 12's GCC 12) and curl. Does nothing when DEST already holds this version.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/put-in-place.sh"
dest=$1
version=3.1.1
sha256=1051a521b21a9fe206702ad4186aeb195154e3e1badcd99576d030723f36382b
url=https://files.pythonhosted.org/packages/b9/30/ad0e0352c593712ebb47143571ff11b130812e2852d7540e7c80cdf23340/zxing_cpp-$version.tar.gz
# The stamp names the way it was built too: a change of flags rebuilds it.
build=unity2
stamp="$dest/.zxing-$version-$sha256-$build"
[ -f "$stamp" ] && exit 0

work=$(mktemp -d "${TMPDIR:-/tmp}/zxing.XXXXXX")
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 3 -o "$work/src.tar.gz" "$url"
got=$(sha256sum "$work/src.tar.gz" | cut -d' ' -f1)
if [ "$got" != "$sha256" ]; then
    echo "build-zxing: zxing_cpp-$version.tar.gz: SHA-256 $got, expected $sha256" >&2
    exit 1
fi
tar -xzf "$work/src.tar.gz" -C "$work" "zxing_cpp-$version/core" "zxing_cpp-$version/LICENSE"
src="$work/zxing_cpp-$version"
echo "build-zxing: building zxing-cpp $version (about half a minute on 2 cores)"
# Readers only (no writers, so no zint), the C API, every symbology; static and position-independent so
# it links into the products and the static release build of the .deb alike. A unity build (the sources
# compiled 24 to a unit, four units and five files for two cores: 36 -> 26 s, docs/benchmarks.md), but for
# the 1-D readers whose file-local tables share names (ALPHABET, CHAR_LEN, ...), compiled one by one.
cat >"$work/unity.cmake" <<'UNITY'
set_source_files_properties(src/oned/ODCodabarReader.cpp src/oned/ODCode39Reader.cpp src/oned/ODCode93Reader.cpp
    src/oned/ODDataBarLimitedReader.cpp src/oned/ODMultiUPCEANReader.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
UNITY
cmake -S "$src/core" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DZXING_READERS=ON -DZXING_WRITERS=OFF -DZXING_C_API=ON \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=24 -DCMAKE_PROJECT_INCLUDE="$work/unity.cmake" \
    -DZXING_USE_BUNDLED_ZINT=OFF -DCMAKE_INSTALL_PREFIX="$work/out" -DCMAKE_INSTALL_LIBDIR=lib >"$work/cmake.log" 2>&1 \
    || { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" --parallel "$(nproc)" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; exit 1; }
cmake --install "$work/build" >/dev/null
mkdir -p "$work/out/licenses"
cp "$src/LICENSE" "$work/out/licenses/LICENSE"
rm -rf "$work/out/lib/cmake" "$work/out/lib/pkgconfig"
touch "$work/out/.zxing-$version-$sha256-$build"
put_in_place "$work/out" "$dest"
echo "build-zxing: zxing-cpp $version in $dest"
