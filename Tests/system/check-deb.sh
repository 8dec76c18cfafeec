#!/usr/bin/env bash
# The Debian package as a kiosk gets it (issue #18): built by `make deb`, checked by lintian, installed with
# dpkg -i, run with no Swift toolchain in sight, then removed and purged — and what each step leaves behind.
#
#   bash Tests/system/check-deb.sh DEB
#
# The install happens in a throwaway root: a private mount namespace in which / is an overlay whose upper
# layer is a tmpfs, so dpkg, systemd-sysusers and groupadd change nothing on this machine, and the upper
# layer is exactly what they changed. /opt/swift (the toolchain) is an empty tmpfs there. This needs root,
# unshare(1) and overlayfs; without them the package's contents are still checked and the install is skipped.
# Prints one line per check and stops at the first failure, exiting 1. The last line is the count
# ("check-deb: N passed, N failed, N skipped").
#
# shellcheck disable=SC2015,SC2016 # `A && B || fail` is meant (fail exits); $ORIGIN and the probe script stay literal
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# = 1 ] && [ -f "$1" ] || { echo "usage: check-deb.sh DEB (built by make deb)" >&2; exit 2; }
deb=$(readlink -f "$1")
check_name=check-deb
# shellcheck source=Tests/system/checks.sh
. "$repo/Tests/system/checks.sh"
for tool in dpkg-deb lintian readelf; do
    command -v "$tool" >/dev/null || fail "$tool not found (make deps installs lintian and binutils)"
done

# --- (a) what is in the package, without installing it
field() { dpkg-deb --field "$deb" "$1"; }
x=$tmp/extracted
dpkg-deb --extract "$deb" "$x"
version=$("$x/usr/bin/scannerd" --version)
[ "$(field Package)" = scannerd ] && [ "$(field Version)" = "$version" ] &&
    [ "$(field Architecture)" = "$(dpkg --print-architecture)" ] ||
    fail "control: Package $(field Package), Version $(field Version), Architecture $(field Architecture); the binary says $version"
[ "$(basename "$deb")" = "scannerd_${version}_$(dpkg --print-architecture).deb" ] || fail "$(basename "$deb") is not named after the version $version"
[ "$("$x/usr/bin/scanctl" --version)" = "$version" ] || fail "scanctl --version is not $version"
pass "scannerd $version: the package, its file name, scannerd --version and scanctl --version agree"

# Depends: the package of every library the binaries link (what dpkg-shlibdeps computes), and besides
# those only the English model and what the maintainer scripts call.
depends=$(field Depends)
dependency_names=$(tr ',' '\n' <<<"$depends" | sed -e 's/^ *//' -e 's/[ (].*//' | sort -u)
# The package's own libraries (OpenVINO's, in /usr/lib/scannerd) are counted as what they link.
private=$(cd "$x/usr/lib/scannerd" && ls)
linked_packages=$(for binary in "$x/usr/bin/scannerd" "$x/usr/bin/scanctl" "$x"/usr/lib/scannerd/*.so*; do
    readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
done | sort -u | grep -vxF -f <(echo "$private") | while read -r soname; do
    path=$(ldconfig -p | awk -v s="$soname" '$1 == s && /x86-64|AArch64|64bit/ { print $NF; exit }')
    [ -n "$path" ] || { echo "UNRESOLVED:$soname"; continue; }
    # dpkg knows a library by the path its package ships (/lib or /usr/lib, the soname's link or the file).
    { dpkg -S "$path" || dpkg -S "$(readlink -f "$path")" || dpkg -S "${path#/usr}" || echo "UNOWNED:$soname"; } 2>/dev/null | head -1 | cut -d: -f1
done | sort -u)
grep -q 'UN' <<<"$linked_packages" && fail "linked libraries without a Debian package: $(grep UN <<<"$linked_packages" | tr '\n' ' ')"
# A library's package may be named by a virtual package it provides (libphonenumber8's shlibs file names
# libphonenumber8-protobuf32, the ABI it was built against): each linked package is named by itself or
# by one of its Provides, and every name in Depends is one of those or one of the three added by hand.
: >"$tmp/depends.problems"
accepted=$(printf '%s\n' tesseract-ocr-eng init-system-helpers systemd)
for package in $linked_packages; do
    names=$(printf '%s\n' "${package%%:*}"; dpkg-query -W -f='${Provides}\n' "$package" | tr ',' '\n' | sed -e 's/^ *//' -e 's/[ (].*//' | grep . || true)
    grep -qxF -f <(echo "$names") <<<"$dependency_names" || echo "the linked $package is not in Depends" >>"$tmp/depends.problems"
    accepted=$(printf '%s\n%s\n' "$accepted" "$names")
done
for name in $dependency_names; do
    grep -qxF "$name" <<<"$accepted" || echo "$name is in Depends but no binary links it" >>"$tmp/depends.problems"
done
[ ! -s "$tmp/depends.problems" ] || fail "Depends: $depends" "$tmp/depends.problems"
pass "Depends: the $(wc -w <<<"$linked_packages") packages of the linked libraries, tesseract-ocr-eng, init-system-helpers, systemd"

# SwiftPM links every executable with RUNPATH $ORIGIN (for its own shared products beside it): harmless
# in /usr/bin, which only root writes; scannerd adds $ORIGIN/../lib/scannerd (OpenVINO's libraries,
# /usr/lib/scannerd). Any other run path (the toolchain's) is not.
for binary in scannerd scanctl; do
    if readelf -d "$x/usr/bin/$binary" | grep -E 'RPATH|RUNPATH|libswift|libFoundation|libdispatch' |
        grep -vF 'Library runpath: [$ORIGIN:$ORIGIN/../lib/scannerd]' | grep -vF 'Library runpath: [$ORIGIN]' >"$tmp/dynamic"; then
        fail "/usr/bin/$binary links the Swift runtime or carries a run path" "$tmp/dynamic"
    fi
done
pass "the binaries carry the Swift runtime (no libswift*/Foundation/dispatch linked, no run path but \$ORIGIN and \$ORIGIN/../lib/scannerd)"

expected_files=(
    usr/bin/scannerd usr/bin/scanctl
    usr/lib/systemd/system/scannerd.service usr/lib/systemd/system/scannerd.socket
    usr/lib/systemd/system/scannerd@.service usr/lib/systemd/system/scannerd@.socket
    usr/lib/udev/rules.d/70-scannerd.rules usr/lib/sysusers.d/scannerd.conf etc/scannerd/scannerd.conf
    usr/share/man/man8/scannerd.8.gz usr/share/man/man1/scanctl.1.gz usr/share/man/man5/scannerd.conf.5.gz
    usr/share/doc/scannerd/copyright usr/share/doc/scannerd/changelog.gz usr/share/doc/scannerd/README.md
    usr/share/scannerd/models/text-detector.onnx usr/share/scannerd/models/text-recognizer.onnx usr/share/scannerd/models/alphabet.json
    usr/lib/scannerd/libopenvino_c.so.2641 usr/share/doc/scannerd/openvino/LICENSE
)
for path in "${expected_files[@]}"; do [ -f "$x/$path" ] || fail "the package has no /$path"; done
[ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" = /etc/scannerd/scannerd.conf ] || fail "conffiles is not /etc/scannerd/scannerd.conf"
cmp -s "$repo/config/scannerd.conf" "$x/etc/scannerd/scannerd.conf" || fail "the conffile is not config/scannerd.conf"
for unit in scannerd.service scannerd.socket; do
    sed -e 's|@bindir@|/usr/bin|g' -e 's|@sysconfdir@|/etc|g' -e 's|@docdir@|/usr/share/doc/scannerd|g' "$repo/systemd/$unit.in" >"$tmp/$unit"
    cmp -s "$tmp/$unit" "$x/usr/lib/systemd/system/$unit" || fail "the packaged $unit is not systemd/$unit.in for /usr (what check-units.sh checks)"
done
# The man pages come from the binaries' help and the settings schema: each names what it documents.
zcat "$x/usr/share/man/man8/scannerd.8.gz" | grep -q -- 'check-config' || fail "scannerd.8 does not document check-config"
zcat "$x/usr/share/man/man1/scanctl.1.gz" | grep -q -- 'watch' || fail "scanctl.1 does not document watch"
zcat "$x/usr/share/man/man5/scannerd.conf.5.gz" | grep -q -- 'SCANNERD_' || fail "scannerd.conf.5 names no environment variable"
pass "${#expected_files[@]} files: binaries, units (as in systemd/), udev rule, sysusers, conffile, man pages 8/1/5, docs, models, OpenVINO"

# lintian: no errors. Warnings and informational tags are shown, not counted.
# Its exit status is 1 for error tags (its default --fail-on error) and more when lintian itself fails.
lintian_status=0
lintian --tag-display-limit 0 "$deb" >"$tmp/lintian" 2>&1 || lintian_status=$?
if [ "$lintian_status" != 0 ] || grep -q '^E: ' "$tmp/lintian"; then fail "lintian (exit $lintian_status)" "$tmp/lintian"; fi
grep -v "^running with root privileges is not recommended!$" "$tmp/lintian" >"$tmp/lintian.tags" || true
[ -s "$tmp/lintian.tags" ] && sed 's/^/      note: /' "$tmp/lintian.tags"
pass "lintian: no errors ($(grep -c '^W: ' "$tmp/lintian" || true) warnings)"

# --- (b) install, run, remove and purge in a throwaway root
mkdir "$tmp/probe"
if [ "$(id -u)" != 0 ] || ! d=$tmp/probe unshare --mount --propagation private sh -c \
    'mount -t tmpfs tmpfs "$d" && mkdir "$d/u" "$d/w" "$d/r" && mount -t overlay overlay -o "lowerdir=/,upperdir=$d/u,workdir=$d/w" "$d/r"' 2>/dev/null; then
    skip "dpkg -i / -r / -P in a throwaway root (needs root, unshare and overlayfs)"
    finish
    exit 0
fi

# The steps inside the throwaway root, each printing "ok …" or "FAIL …" (and then stopping).
cat >"$tmp/prelude.sh" <<'INSIDE'
set -uo pipefail
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $1"; [ $# -lt 2 ] || sed 's/^/      /' "$2"; exit 1; }
w=/tmp/check-deb
conf=/etc/scannerd/scannerd.conf
INSIDE

cat >"$tmp/inside.sh" <<'INSIDE'
. /tmp/check-deb/prelude.sh

dpkg -i "$w/scannerd.deb" >"$w/log" 2>&1 || bad "dpkg -i" "$w/log"
for path in /usr/bin/scannerd /usr/bin/scanctl /usr/lib/systemd/system/scannerd.socket $conf; do
    [ -f "$path" ] || bad "dpkg -i installed no $path"
done
getent group scannerd >/dev/null || bad "postinst created no scannerd group" "$w/log"
[ -L /etc/systemd/system/sockets.target.wants/scannerd.socket ] || bad "postinst did not enable scannerd.socket" "$w/log"
[ ! -e /etc/systemd/system/multi-user.target.wants/scannerd.service ] || bad "postinst enabled scannerd.service (the socket starts it)"
ok "dpkg -i: installed, the scannerd group created, scannerd.socket enabled (not the service)"

[ -z "$(ls -A /opt/swift)" ] && ! command -v swift >/dev/null || bad "/opt/swift is not hidden"
[ ! -e "$REPO/Package.swift" ] || bad "the source tree $REPO is not hidden"
ldd /usr/bin/scannerd /usr/bin/scanctl >"$w/ldd" 2>&1 || bad "ldd" "$w/ldd"
if grep -E '/opt/swift|not found' "$w/ldd" >"$w/ldd.bad"; then bad "ldd: libraries under /opt/swift or not found" "$w/ldd.bad"; fi
ok "/opt/swift and the source tree hidden; ldd: every library found, none under /opt/swift"

scannerd scan "$w/qr.png" "$w/card-us.jpg" >"$w/scan" 2>"$w/scan.err" || bad "scannerd scan (exit $?)" "$w/scan.err"
grep -q '"payload":"https://example.com/scannerd"' "$w/scan" || bad "scannerd scan did not read the QR fixture" "$w/scan"
grep -q '"contentType":"telephoneNumber"' "$w/scan" || bad "scannerd scan read no phone number on the card (Tesseract's model?)" "$w/scan"
[ ! -s "$w/scan.err" ] || bad "scannerd scan said something (its models, /usr/share/scannerd/models?)" "$w/scan.err"
ok "the installed scannerd scan reads the QR fixture and the card's phone number, with the models beside it"

timeout 120 scannerd run --config $conf --no-socket --source demo --pace none --events-stdout >"$w/run" 2>"$w/run.err" ||
    bad "scannerd run --config $conf --source demo (exit $?)" "$w/run.err"
[ "$(grep -c '"event":"added"' "$w/run")" = 3 ] || bad "scannerd run --source demo: not 3 items added" "$w/run"
ok "the installed scannerd run --source demo with the installed configuration adds its 3 items"

(cd /usr/lib/systemd/system && systemd-analyze verify scannerd.service scannerd.socket) >"$w/verify" 2>&1 || bad "systemd-analyze verify (exit $?)" "$w/verify"
grep -v -E 'unit configures an IP firewall, but (the local system does not support BPF/cgroup firewalling|not running as root)\.$|^\(This warning is only shown for the first unit using IP firewalling\.\)$' \
    "$w/verify" | grep scannerd >"$w/verify.bad" && bad "systemd-analyze verify complains about the installed units" "$w/verify"
systemd-analyze security --offline=true /usr/lib/systemd/system/scannerd.service >"$w/security" 2>&1 || bad "systemd-analyze security" "$w/security"
exposure=$(sed -n 's/^→ Overall exposure level for scannerd\.service: \([0-9.]*\) .*/\1/p' "$w/security")
awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.0) }' || bad "installed scannerd.service: exposure '$exposure' > 2.0" "$w/security"
ok "installed units: systemd-analyze verify clean, security exposure $exposure (at most 2.0)"

echo "# the operator's line" >>$conf
cp $conf "$w/changed.conf"
dpkg -r scannerd >"$w/log" 2>&1 || bad "dpkg -r" "$w/log"
cmp -s "$w/changed.conf" $conf || bad "dpkg -r did not keep the changed $conf"
! getent group scannerd >/dev/null || bad "dpkg -r left the scannerd group, which nobody was added to"
echo removed >"$w/stage"
ok "dpkg -r: the changed conffile kept as it was, the unused group gone"
INSIDE

cat >"$tmp/reinstall.sh" <<'INSIDE'
. /tmp/check-deb/prelude.sh
dpkg -i "$w/scannerd.deb" >"$w/log" 2>&1 || bad "dpkg -i again" "$w/log"
cmp -s "$w/changed.conf" $conf || bad "reinstalling replaced the changed $conf"
getent group scannerd >/dev/null || bad "reinstalling did not create the scannerd group again"
gpasswd -a root scannerd >/dev/null || bad "gpasswd -a root scannerd"
dpkg -r scannerd >"$w/log" 2>&1 || bad "dpkg -r (group with a member)" "$w/log"
[ "$(getent group scannerd | cut -d: -f4)" = root ] || bad "dpkg -r removed the scannerd group the operator added root to"
ok "reinstalled: the changed conffile kept; dpkg -r keeps a group the operator added a member to"
dpkg -P scannerd >"$w/log" 2>&1 || bad "dpkg -P" "$w/log"
! getent group scannerd >/dev/null || bad "dpkg -P left the scannerd group"
[ ! -e /etc/scannerd ] || bad "dpkg -P left /etc/scannerd"
echo purged >"$w/stage"
ok "dpkg -P: the conffile, /etc/scannerd and the group gone"
INSIDE

# What the throwaway root's upper layer holds beyond dpkg's and the tools' own bookkeeping: each path
# that is new, changed or deleted (an overlay whiteout) against this machine's root.
cat >"$tmp/leftovers.sh" <<'LEFT'
upper=$1 lower=/
cd "$upper" && find . -mindepth 1 | sed 's|^\./||' | sort | while read -r path; do
    case $path in
        tmp | tmp/* | run | run/*) continue ;;                                # tmpfs, not on the overlay
        var/lib/dpkg/* | var/log/dpkg.log | var/cache/man | var/cache/man/*) continue ;;  # dpkg's database and log, man-db's index
        etc/group- | etc/gshadow- | etc/.pwd.lock) continue ;;                 # shadow's backups and lock
    esac
    if [ -c "$path" ] && [ "$(stat -c %t:%T "$path")" = 0:0 ]; then echo "deleted /$path"; continue; fi
    [ -d "$path" ] && [ -d "$lower$path" ] && continue
    [ -f "$path" ] && [ -f "$lower$path" ] && cmp -s "$path" "$lower$path" && continue
    echo "/$path"
done
LEFT

# One namespace for the whole sequence, so that the upper layer carries over from step to step.
cat >"$tmp/namespace.sh" <<'NS'
set -euo pipefail
tmp=$1 repo=$2 deb=$3
t=$tmp/root-layers
mkdir -p "$t"
mount -t tmpfs tmpfs "$t"
mkdir -p "$t/upper" "$t/work" "$t/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$t/upper,workdir=$t/work" "$t/root"
r=$t/root
for m in proc sys dev; do mount --rbind "/$m" "$r/$m"; done
mount -t tmpfs tmpfs "$r/run"
mount -t tmpfs tmpfs "$r/tmp"
[ -d "$r/opt/swift" ] && mount -t tmpfs tmpfs "$r/opt/swift"
w=$r/tmp/check-deb
mkdir -p "$w"
cp "$deb" "$w/scannerd.deb"
cp "$repo/Tests/Fixtures/qr.png" "$repo/Tests/Fixtures/card-us.jpg" "$tmp/prelude.sh" "$tmp/inside.sh" "$tmp/reinstall.sh" "$w/"
# The source tree and the build directory are hidden too: an installed binary must not reach back into
# them (a SwiftPM resource bundle is looked up in the build directory when it is not beside the binary).
for hide in "$repo" "$(dirname "$deb")"; do
    if [ -d "$r$hide" ] && ! mountpoint -q "$r$hide"; then mount -t tmpfs tmpfs "$r$hide"; fi
done
inside() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 REPO="$repo" bash "/tmp/check-deb/$1"; }
inside inside.sh || exit 1
[ "$(cat "$w/stage")" = removed ] || exit 1
bash "$tmp/leftovers.sh" "$t/upper" >"$tmp/left-removed"
inside reinstall.sh || exit 1
[ "$(cat "$w/stage")" = purged ] || exit 1
bash "$tmp/leftovers.sh" "$t/upper" >"$tmp/left-purged"
NS

unshare --mount --propagation private bash "$tmp/namespace.sh" "$tmp" "$repo" "$deb" >"$tmp/inside.out" 2>&1 || {
    grep '^ok' "$tmp/inside.out" || true
    fail "in the throwaway root" "$tmp/inside.out"
}
while read -r line; do pass "${line#ok    }"; done < <(grep '^ok' "$tmp/inside.out")

[ "$(cat "$tmp/left-removed")" = "$(printf '/etc/scannerd\n/etc/scannerd/scannerd.conf')" ] ||
    fail "after dpkg -r, other changes than the changed conffile" "$tmp/left-removed"
pass "after dpkg -r, nothing on the system but the changed /etc/scannerd/scannerd.conf"
[ ! -s "$tmp/left-purged" ] || fail "after dpkg -P, files left, changed or deleted" "$tmp/left-purged"
pass "after dpkg -P, nothing left, changed or deleted (beyond dpkg's database and log, man-db's index)"

finish
