#!/bin/bash
# zxing-cpp (issue #41), the barcode reader, built from its release source: the PyPI sdist `zxing-cpp`
# carries the C++ core (Apache-2.0). Debian 12 packages zxing-cpp 1.4 (2022), which finds one DataMatrix
# per image, reads 1-D codes one at a time and aborts the process on failed assertions. Pinned by version
# and SHA-256; never committed, never fetched from anywhere but PyPI (files.pythonhosted.org is PyPI's
# file host; the URL is the one https://pypi.org/simple/zxing-cpp/ lists for this file).
#
#   build-zxing.sh headers DEST   DEST/include/ZXing: the headers (src/*.h and the Version.h CMake makes)
#   build-zxing.sh library DEST   DEST/lib/libZXing.a (static, position-independent, readers only, C API on,
#                                 release: no assertions) and DEST/licenses/LICENSE; the headers first if missing
#
# Two steps so that what includes the headers compiles while the library is built (`make run`, issue #42).
# They share DEST.src (the verified source, configured), which the library step removes when it is done.
# Needs cmake, a C++20 compiler (Debian 12's GCC 12) and curl. Each step does nothing when DEST already
# holds its part of this version.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/put-in-place.sh"
step=$1
dest=$(realpath -m "$2")
version=3.1.1
sha256=1051a521b21a9fe206702ad4186aeb195154e3e1badcd99576d030723f36382b
url=https://files.pythonhosted.org/packages/b9/30/ad0e0352c593712ebb47143571ff11b130812e2852d7540e7c80cdf23340/zxing_cpp-$version.tar.gz
# The stamps name the way it was built too: a change of flags rebuilds it.
build=unity3
id="zxing-$version-$sha256-$build"
work="$dest.src"
src="$work/zxing_cpp-$version"

# The source, verified, unpacked and configured in $work (kept for the other step).
prepare() {
    [ -f "$work/.$id" ] && return
    rm -rf "$work"
    mkdir -p "$work"
    curl -fsSL --retry 3 -o "$work/src.tar.gz" "$url"
    local got
    got=$(sha256sum "$work/src.tar.gz" | cut -d' ' -f1)
    if [ "$got" != "$sha256" ]; then
        echo "build-zxing: zxing_cpp-$version.tar.gz: SHA-256 $got, expected $sha256" >&2
        rm -rf "$work"
        exit 1
    fi
    tar -xzf "$work/src.tar.gz" -C "$work" "zxing_cpp-$version/core" "zxing_cpp-$version/LICENSE"
    # Readers only (no writers, so no zint), the C API, every symbology; static and position-independent so
    # it links into the products and the static release build of the .deb alike. A unity build (the sources
    # compiled 24 to a unit, four units and five files for two cores: 36 -> 26 s, docs/benchmarks.md), but
    # for the 1-D readers whose file-local tables share names (ALPHABET, CHAR_LEN, ...), compiled one by one.
    cat >"$work/unity.cmake" <<'UNITY'
set_source_files_properties(src/oned/ODCodabarReader.cpp src/oned/ODCode39Reader.cpp src/oned/ODCode93Reader.cpp
    src/oned/ODDataBarLimitedReader.cpp src/oned/ODMultiUPCEANReader.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
UNITY
    cmake -S "$src/core" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DZXING_READERS=ON -DZXING_WRITERS=OFF -DZXING_C_API=ON \
        -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=24 -DCMAKE_PROJECT_INCLUDE="$work/unity.cmake" \
        -DZXING_USE_BUNDLED_ZINT=OFF >"$work/cmake.log" 2>&1 \
        || { cat "$work/cmake.log" >&2; exit 1; }
    touch "$work/.$id"
}

# The headers: every header at the top of src/ (the public ones are among them; ZXingC.h includes the
# C++ ones only in C++) and the Version.h that configuring made.
headers() {
    [ -f "$dest/include/.$id" ] && return
    prepare
    local out="$work/include.new"
    rm -rf "$out"
    mkdir -p "$out/ZXing"
    cp "$src"/core/src/*.h "$work/build/Version.h" "$out/ZXing/"
    touch "$out/.$id"
    mkdir -p "$dest"
    put_in_place "$out" "$dest/include"
}

library() {
    [ -f "$dest/.$id" ] && return
    headers
    prepare
    echo "build-zxing: building zxing-cpp $version (about half a minute on 2 cores)"
    cmake --build "$work/build" --parallel "$(nproc)" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; exit 1; }
    local out="$work/lib.new"
    rm -rf "$out" "$work/licenses.new"
    mkdir -p "$out" "$work/licenses.new"
    cp "$work/build/libZXing.a" "$out/"
    cp "$src/LICENSE" "$work/licenses.new/LICENSE"
    put_in_place "$out" "$dest/lib"
    put_in_place "$work/licenses.new" "$dest/licenses"
    touch "$dest/.$id"
    rm -rf "$work"
    echo "build-zxing: zxing-cpp $version in $dest"
}

case "$step" in
headers | library) "$step" ;;
*)
    echo "usage: build-zxing.sh headers|library DEST" >&2
    exit 2
    ;;
esac
