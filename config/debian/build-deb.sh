#!/bin/bash
# `make deb`: scannerd_VERSION_ARCH.deb from the static release binaries in BUILD (issue #18).
#   build-deb.sh BUILD_DIR OUTPUT_DIR
# The files come from `make install` (PREFIX=/usr into a staging root), so the package installs what
# a source install does; the man pages are written from the binaries' own help (swift-argument-parser's
# generate-manual) and from the settings schema (`scannerd check-config --manual-page`); Depends is
# computed by dpkg-shlibdeps from what the binaries link.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "$1" && pwd)"
output="$2"
version="$("$build/scannerd" --version)"
arch="$(dpkg --print-architecture)"
stage="$build/deb-stage"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}"
date="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"

rm -rf "$stage"
make -s -C "$root" install DESTDIR="$stage" PREFIX=/usr BUILD_DIR="$build" >/dev/null
# The conffile is the shipped default, whatever an earlier `make install` left beside it.
rm -f "$stage/etc/scannerd/scannerd.conf.default"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/scannerd" "$stage/usr/bin/scanctl"

man="$stage/usr/share/man"
mkdir -p "$man/man1" "$man/man5" "$man/man8"
"$build/generate-manual" "$build/scannerd" --section 8 --date "$date" -o "$man/man8"
"$build/generate-manual" "$build/scanctl" --section 1 --date "$date" -o "$man/man1"
"$build/scannerd" check-config --manual-page > "$man/man5/scannerd.conf.5"
gzip -9n "$man/man1/scanctl.1" "$man/man5/scannerd.conf.5" "$man/man8/scannerd.8"

doc="$stage/usr/share/doc/scannerd"
install -m 0644 "$here/copyright" "$doc/copyright"
printf 'scannerd (%s) unstable; urgency=medium\n\n  * Release %s; see /usr/share/doc/scannerd/README.md.\n\n -- scannerd developers <scannerd@example.org>  %s\n' \
    "$version" "$version" "$(date -u -d "@$SOURCE_DATE_EPOCH" -R)" | gzip -9n > "$doc/changelog.gz"
# Yams (the YAML parser) compiles its own copy of libyaml into the binary, as SwiftPM builds every
# dependency from source: there is no Debian libyaml to link instead without forking Yams.
install -d "$stage/usr/share/lintian/overrides"
printf '# Yams builds its bundled libyaml into the binary (SwiftPM); the Swift runtime is static too.\nscannerd: embedded-library libyaml [usr/bin/scannerd]\n' \
    > "$stage/usr/share/lintian/overrides/scannerd"

# Depends: the Debian packages of the libraries the binaries link.
shlibs="$(mktemp -d)"
trap 'rm -rf "$shlibs"' EXIT
mkdir -p "$shlibs/debian"
printf 'Source: scannerd\n\nPackage: scannerd\nArchitecture: any\n' > "$shlibs/debian/control"
# OpenVINO's libraries are the package's own (/usr/lib/scannerd, found through the binary's run path
# $ORIGIN/../lib/scannerd): no package provides them, so their shlibs information is missing by design;
# what they link in turn (libstdc++, libgcc) is computed from them. dpkg-shlibdeps does not follow
# $ORIGIN, hence -l; and Debian's libtbb12, where installed, is not the oneTBB that runs (ours, beside
# OpenVINO), hence -x.
depends="$(cd "$shlibs" && dpkg-shlibdeps -O --ignore-missing-info -xlibtbb12 -l"$stage/usr/lib/scannerd" "$stage/usr/bin/scannerd" "$stage/usr/bin/scanctl" \
    "$stage"/usr/lib/scannerd/*.so* 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$stage/DEBIAN"
size="$(du -sk --exclude=DEBIAN "$stage" | cut -f1)"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" "$here/control.in" > "$stage/DEBIAN/control"
echo /etc/scannerd/scannerd.conf > "$stage/DEBIAN/conffiles"
install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$stage/DEBIAN/"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 0755 {} +

mkdir -p "$output"
deb="$output/scannerd_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
