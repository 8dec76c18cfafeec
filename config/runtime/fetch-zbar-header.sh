#!/bin/bash
# zbar's headers (zbar.h, zbar/*.h) from Debian's own libzbar-dev, of the version of the installed libzbar0,
# unpacked into DEST/include. Installing libzbar-dev would bring ImageMagick's and GTK's development packages
# with it (71 packages, 29 MB on Debian 12: it depends on libmagick++-dev and zbar's GTK widget), which
# only zbar's own optional parts use; scannerd calls the library's C API alone, through Sources/CZBar, and
# links the installed libzbar.so.0. The package comes from the machine's apt sources, verified by apt as
# any package is; nothing else of it is used.
#
#   fetch-zbar-header.sh DEST
#
# DEST gets include/ and licenses/copyright (zbar: LGPL-2.1). Does nothing when DEST holds this version.
# SUDO (empty as root) runs `apt-get update` when the package lists do not know the package yet.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/put-in-place.sh"
dest=$1
version=$(dpkg-query -W -f='${Version}' libzbar0 2>/dev/null) || {
    echo "fetch-zbar-header: libzbar0 is not installed (make apt-deps)" >&2
    exit 1
}
stamp="$dest/.libzbar-dev-$version"
[ -f "$stamp" ] && exit 0

work=$(mktemp -d "${TMPDIR:-/tmp}/zbar.XXXXXX")
trap 'rm -rf "$work"' EXIT
download() { (cd "$work" && apt-get download -qq -o APT::Sandbox::User=root "libzbar-dev=$version"); }
if ! download 2>/dev/null; then
    ${SUDO:-} apt-get update -qq
    download
fi
dpkg-deb -x "$work"/libzbar-dev_*.deb "$work/deb"
mkdir -p "$work/out/include" "$work/out/licenses"
cp -r "$work/deb/usr/include/." "$work/out/include/"
cp "$work/deb/usr/share/doc/libzbar-dev/copyright" "$work/out/licenses/copyright"
[ -f "$work/out/include/zbar.h" ] || { echo "fetch-zbar-header: libzbar-dev $version holds no zbar.h" >&2; exit 1; }
touch "$work/out/.libzbar-dev-$version"
put_in_place "$work/out" "$dest"
echo "fetch-zbar-header: zbar's headers ($version) in $dest"
