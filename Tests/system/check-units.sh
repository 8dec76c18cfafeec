#!/usr/bin/env bash
# Static checks of the systemd integration (systemd/): the units verify cleanly, keep their hardening, and
# rate 2.0 or lower on `systemd-analyze security`. The udev rule parses and matches capture devices only,
# and `make install` / `make uninstall` put in and take out exactly the expected files. Nothing is started:
# systemd need not be PID 1.
#
#   bash Tests/system/check-units.sh [SCANNERD]
#
# SCANNERD is a built scannerd, with scanctl beside it (`make test` passes the debug build). Without it, the
# checks run on /bin/true stand-ins and skip the one that asks scannerd itself.
# Prints one line per check and stops at the first failure, exiting 1. The last line is the count
# ("check-units: N passed, N failed, N skipped").
#
# shellcheck disable=SC2015,SC2016 # `A && B || fail` is meant (fail exits); '$MAINPID' and the namespace script stay literal
set -euo pipefail
# The units' own settings are what is checked: none of the caller's SCANNERD_* variables (a shell
# with a daemon's settings exported, or a hostile environment) reaches the commands run here.
for variable in "${!SCANNERD_@}"; do unset "$variable"; done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
check_name=check-units
# shellcheck source=Tests/system/checks.sh
. "$repo/Tests/system/checks.sh"

# The binaries the checks use: symlinks in $bin (install(1) copies what they point to).
bin=$tmp/bin
mkdir -p "$bin"
if [ $# -ge 1 ]; then
    [ -x "$1" ] && [ -f "$1" ] || fail "$1: not an executable file"
    [ -x "$(dirname "$1")/scanctl" ] || fail "$(dirname "$1")/scanctl: missing (build every product: swift build)"
    ln -s "$(readlink -f "$1")" "$bin/scannerd"
    ln -s "$(readlink -f "$(dirname "$1")/scanctl")" "$bin/scanctl"
    real_binary=1
else
    ln -s /bin/true "$bin/scannerd"
    ln -s /bin/true "$bin/scanctl"
    real_binary=0
fi
for tool in systemd-analyze systemd-sysusers make; do
    command -v "$tool" >/dev/null || fail "$tool not found (make deps installs systemd and udev)"
done

# --- (a) the templates, substituted as make install does, with bindir = the binary under test
units=$tmp/units
mkdir -p "$units"
for unit in scannerd.service scannerd.socket; do
    sed -e "s|@bindir@|$bin|g" -e 's|@sysconfdir@|/etc|g' -e 's|@docdir@|/usr/local/share/doc/scannerd|g' \
        "$repo/systemd/$unit.in" >"$units/$unit"
done
if grep -n '@[a-z]*@' "$units"/* >"$tmp/placeholders"; then
    fail "placeholders that make install does not substitute" "$tmp/placeholders"
fi
pass "templates substituted (@bindir@, @sysconfdir@, @docdir@)"

# systemd-analyze verify prints nothing for good units. Anything that names our units or files is a failure
# (a bad value, a missing executable, an unknown key), and so is a non-zero exit.
# Filtered precisely, because they depend on the machine rather than the unit:
#   - "unit configures an IP firewall, but the local system does not support BPF/cgroup firewalling" or
#     "... but not running as root", and its "(This warning is only shown ...)" follow-up. These come from
#     IPAddressDeny= on kernels or containers without cgroup BPF, or when not run as root. The unit is fine.
#   - lines that do not name scannerd: they come from system units that verify loads as dependencies
#     (modprobe@.service, sysinit.target, …). They are printed as notes, not counted.
set +e
(cd "$units" && systemd-analyze verify ./scannerd.service ./scannerd.socket) >"$tmp/verify" 2>&1
verify_status=$?
set -e
grep -v -E 'unit configures an IP firewall, but (the local system does not support BPF/cgroup firewalling|not running as root)\.$|^\(This warning is only shown for the first unit using IP firewalling\.\)$' \
    "$tmp/verify" >"$tmp/verify.relevant" || true
if grep -q 'scannerd' "$tmp/verify.relevant" || [ "$verify_status" != 0 ]; then
    fail "systemd-analyze verify scannerd.service scannerd.socket (exit $verify_status)" "$tmp/verify"
fi
if [ -s "$tmp/verify.relevant" ]; then
    sed 's/^/      note (not about scannerd): /' "$tmp/verify.relevant"
fi
pass "systemd-analyze verify scannerd.service scannerd.socket"

# The settings the service must state itself. Several are implied by DynamicUser=yes and would not change
# the score if deleted, but they must stay if DynamicUser= ever goes. Whole lines, exactly.
required_service=(
    "Type=notify" "NotifyAccess=main"
    "ExecStart=$bin/scannerd run --config /etc/scannerd/scannerd.conf"
    'ExecReload=/bin/kill -HUP $MAINPID'
    "WatchdogSec=10s" "Restart=on-failure" "RestartSec=2s" "TimeoutStopSec=5s"
    "Requires=scannerd.socket" "After=scannerd.socket" "WantedBy=multi-user.target"
    "DynamicUser=yes" "SupplementaryGroups=video" "DevicePolicy=closed" "DeviceAllow=char-video4linux rw"
    "ProtectSystem=strict" "ProtectHome=yes" "PrivateTmp=yes" "PrivateMounts=yes" "ProcSubset=pid"
    "PrivateNetwork=yes" "RestrictAddressFamilies=AF_UNIX" "IPAddressDeny=any"
    "NoNewPrivileges=yes" "MemoryDenyWriteExecute=yes" "CapabilityBoundingSet="
    "SystemCallFilter=@system-service" "SystemCallFilter=~@privileged @resources"
    "SystemCallErrorNumber=EPERM" "SystemCallArchitectures=native"
    "ProtectKernelTunables=yes" "ProtectKernelModules=yes" "ProtectKernelLogs=yes" "ProtectControlGroups=yes"
    "ProtectClock=yes" "ProtectHostname=yes" "RestrictNamespaces=yes" "LockPersonality=yes"
    "RestrictRealtime=yes" "RestrictSUIDSGID=yes" "UMask=0077"
)
for line in "${required_service[@]}"; do
    grep -qxF -- "$line" "$units/scannerd.service" || fail "scannerd.service lacks the line: $line"
done
# PrivateDevices= would hide the cameras; PrivateUsers= would unmap the video group; RuntimeDirectory=
# would chown the socket to the dynamic user (see the comments in the unit).
for key in PrivateDevices=yes PrivateUsers=yes RuntimeDirectory=; do
    if grep -q "^$key" "$units/scannerd.service"; then fail "scannerd.service must not set $key"; fi
done
pass "scannerd.service states its ${#required_service[@]} required settings, and none of the excluded ones"

required_socket=("ListenStream=/run/scannerd/scannerd.sock" "SocketMode=0660" "SocketGroup=scannerd"
    "RemoveOnStop=yes" "WantedBy=sockets.target")
for line in "${required_socket[@]}"; do
    grep -qxF -- "$line" "$units/scannerd.socket" || fail "scannerd.socket lacks the line: $line"
done
pass "scannerd.socket states its ${#required_socket[@]} required settings"

if [ "$real_binary" = 1 ]; then
    "$bin/scannerd" run --help >"$tmp/help" 2>&1 || fail "scannerd run --help failed" "$tmp/help"
    grep -q -- '--config' "$tmp/help" || fail "scannerd run has no --config option, which ExecStart passes"
    pass "scannerd run accepts the options ExecStart passes (--config)"
else
    skip "scannerd run --help (no scannerd binary given)"
fi

# --- (b) exposure: overall at most 2.0, and nothing exposed beyond the accepted items
systemd-analyze security --offline=true "$units/scannerd.service" >"$tmp/security" 2>&1 ||
    fail "systemd-analyze security --offline=true failed" "$tmp/security"
exposure=$(sed -n 's/^→ Overall exposure level for scannerd\.service: \([0-9.]*\) .*/\1/p' "$tmp/security")
[ -n "$exposure" ] || fail "no overall exposure in the output of systemd-analyze security" "$tmp/security"
awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' ||
    fail "exposure $exposure > 2.0" "$tmp/security"
pass "systemd-analyze security: overall exposure $exposure (at most 2.0)"
# Each item still exposed must be a decision recorded in the unit. Anything new fails here even though the
# total would stay under 2.0.
accepted=(
    "RootDirectory=/RootImage=" # runs in the host's tree: it needs the host's /dev, /usr/share/tesseract-ocr, /etc/scannerd
    "SupplementaryGroups="      # video, for /dev/video*
    "PrivateDevices="           # would hide /dev/video*
    "DeviceAllow="              # char-video4linux rw (and char-rtc r from ProtectClock=)
    "PrivateUsers="             # would unmap the video group
    "ProtectProc="              # the daemon reads /proc/<peer>/status for supplementary groups
    "RestrictAddressFamilies=~AF_UNIX" # the clients' socket and sd_notify
)
grep '^✗' "$tmp/security" | awk '{ print $2 }' >"$tmp/exposed"
for item in "${accepted[@]}"; do
    grep -vxF -- "$item" "$tmp/exposed" >"$tmp/exposed.rest" || true
    mv "$tmp/exposed.rest" "$tmp/exposed"
done
if [ -s "$tmp/exposed" ]; then
    fail "exposed beyond the accepted items: $(tr '\n' ' ' <"$tmp/exposed")" "$tmp/security"
fi
pass "systemd-analyze security: only the ${#accepted[@]} accepted items are exposed"

# --- (c) the network drop-ins (systemd/http.conf, docs/http.md; systemd/mqtt.conf, docs/mqtt.md): the unit
# with each still verifies, rates 2.0 or lower, and exposes only what the network needs beyond the above;
# the setting each puts in the environment is one the daemon takes
accepted_network=("${accepted[@]}"
    "PrivateNetwork="                       # the daemon binds or connects in the host's network namespace
    "RestrictAddressFamilies=~AF_(INET|INET6)" # and needs the IP families for it
    "IPAddressDeny="                        # deny any, allow what the drop-in names
)
check_dropin() { # NAME (http or mqtt) VARIABLE (SCANNERD_…)
    local name=$1 variable=$2 dir=$tmp/$1-units
    mkdir -p "$dir/scannerd.service.d"
    cp "$units/scannerd.service" "$units/scannerd.socket" "$dir/"
    cp "$repo/systemd/$name.conf" "$dir/scannerd.service.d/$name.conf"
    (cd "$dir" && systemd-analyze verify ./scannerd.service ./scannerd.socket) >"$tmp/verify-$name" 2>&1 ||
        fail "systemd-analyze verify with the $name drop-in" "$tmp/verify-$name"
    grep -v 'is not executable\|/bin/true' "$tmp/verify-$name" | grep -q 'scannerd' &&
        fail "systemd-analyze verify complains about the unit with the $name drop-in" "$tmp/verify-$name"
    systemd-analyze security --offline=true "$dir/scannerd.service" >"$tmp/security-$name" 2>&1 ||
        fail "systemd-analyze security --offline=true failed with the $name drop-in" "$tmp/security-$name"
    grep -q '^✗ PrivateNetwork=' "$tmp/security-$name" || fail "the $name drop-in was not applied" "$tmp/security-$name"
    exposure=$(sed -n 's/^→ Overall exposure level for scannerd\.service: \([0-9.]*\) .*/\1/p' "$tmp/security-$name")
    awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || fail "exposure with the $name drop-in $exposure > 2.0" "$tmp/security-$name"
    grep '^✗' "$tmp/security-$name" | awk '{ print $2 }' >"$tmp/exposed"
    for item in "${accepted_network[@]}"; do
        grep -vxF -- "$item" "$tmp/exposed" >"$tmp/exposed.rest" || true
        mv "$tmp/exposed.rest" "$tmp/exposed"
    done
    [ ! -s "$tmp/exposed" ] || fail "exposed with the $name drop-in beyond the accepted items: $(tr '\n' ' ' <"$tmp/exposed")" "$tmp/security-$name"
    for line in "IPAddressDeny=any" "IPAddressAllow=localhost" "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"; do
        grep -qxF -- "$line" "$repo/systemd/$name.conf" || fail "systemd/$name.conf lacks the line: $line"
    done
    value=$(sed -n "s/^Environment=$variable=//p" "$repo/systemd/$name.conf")
    [ -n "$value" ] || fail "systemd/$name.conf sets no $variable"
    if [ "$real_binary" = 1 ]; then
        env "$variable=$value" "$bin/scannerd" check-config --environment "$repo/config/scannerd.conf" >"$tmp/$name-config" 2>&1 ||
            fail "scannerd check-config refuses the $name drop-in's $variable=$value" "$tmp/$name-config"
    fi
    pass "$name drop-in: verifies, exposure $exposure (at most 2.0), only ${#accepted_network[@]} accepted items, $variable=$value"
}
check_dropin http SCANNERD_HTTP_LISTEN
check_dropin mqtt SCANNERD_MQTT_BROKER

# --- the sysusers file: systemd-sysusers applies it to an empty root
mkdir -p "$tmp/sysroot/etc"
systemd-sysusers --root="$tmp/sysroot" "$repo/systemd/scannerd.sysusers" >"$tmp/sysusers" 2>&1 ||
    fail "systemd-sysusers rejects systemd/scannerd.sysusers" "$tmp/sysusers"
grep -q '^scannerd:x:[0-9]*:$' "$tmp/sysroot/etc/group" || fail "systemd-sysusers created no scannerd group" "$tmp/sysusers"
[ "$(grep -c . "$tmp/sysroot/etc/group")" = 1 ] && [ ! -e "$tmp/sysroot/etc/passwd" ] ||
    fail "systemd-sysusers created more than the scannerd group" "$tmp/sysroot/etc/group"
pass "systemd-sysusers: scannerd.sysusers creates exactly the group scannerd"

# --- the udev rule
# udevadm 252 has no offline syntax check (`udevadm verify` arrived in 253). `udevadm test` parses every rule
# file it loads, reporting errors as FILE:LINE, and runs the rules on a device. The device is a fake
# video4linux node in sysfs, made in a private mount namespace where /run, /dev and /sys/devices/virtual
# are tmpfs and the only rule file is ours. SYSTEMD_DEVICE_VERIFY_SYSFS=0 is systemd's switch for testing
# on such a tree, and the uevent file gives the device its properties, as v4l_id would.
# This needs root, unshare(1) and permission to mount. Without them the rule is only grepped for its key pieces.
rule=$repo/systemd/70-scannerd.rules
udev_run() { # ACTION CAPABILITIES → udevadm test output in $tmp/udev.out
    RULE="$rule" ACTION_="$1" CAPS="$2" unshare --mount --propagation private bash -c '
        set -e
        mount -t tmpfs tmpfs /run
        mkdir -p /run/udev/rules.d /run/empty
        cp "$RULE" /run/udev/rules.d/70-scannerd.rules
        for dir in /etc/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d /usr/local/lib/udev/rules.d; do
            if [ -d "$dir" ]; then mount --bind /run/empty "$dir"; fi
        done
        mount -t tmpfs tmpfs /sys/devices/virtual
        device=/sys/devices/virtual/video4linux/video0
        mkdir -p "$device"
        printf "MAJOR=81\nMINOR=0\nDEVNAME=video0\nID_V4L_CAPABILITIES=%s\n" "$CAPS" >"$device/uevent"
        ln -s ../../../../class/video4linux "$device/subsystem"
        mount -t tmpfs tmpfs /dev
        SYSTEMD_DEVICE_VERIFY_SYSFS=0 udevadm test --action="$ACTION_" "$device"
    ' >"$tmp/udev.out" 2>&1
}
if [ "$(id -u)" = 0 ] && command -v udevadm >/dev/null &&
    unshare --mount --propagation private sh -c 'mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /sys/devices/virtual' 2>/dev/null; then
    udev_run add :capture: || fail "udevadm test failed" "$tmp/udev.out"
    grep -q 'Reading rules file: /run/udev/rules.d/70-scannerd.rules' "$tmp/udev.out" ||
        fail "udevadm test did not read the rule" "$tmp/udev.out"
    if grep -q '^/run/udev/rules.d/70-scannerd.rules:' "$tmp/udev.out"; then
        fail "udevadm reports errors in systemd/70-scannerd.rules" "$tmp/udev.out"
    fi
    pass "udev rule parses (udevadm test)"
    grep -qx 'SYSTEMD_WANTS=scannerd.service' "$tmp/udev.out" && grep -qx 'CURRENT_TAGS=:systemd:' "$tmp/udev.out" ||
        fail "a capture device added: no SYSTEMD_WANTS=scannerd.service with the systemd tag" "$tmp/udev.out"
    pass "udev rule: a capture device added is tagged systemd and wants scannerd.service"
    udev_run change :capture: || fail "udevadm test --action=change failed" "$tmp/udev.out"
    grep -qx 'CURRENT_TAGS=:systemd:' "$tmp/udev.out" || fail "a capture device changed: the systemd tag is lost" "$tmp/udev.out"
    pass "udev rule: the systemd tag stays on change events"
    udev_run add :video_output: || fail "udevadm test failed" "$tmp/udev.out"
    if grep -q -e '^SYSTEMD_WANTS=' -e '^CURRENT_TAGS=' "$tmp/udev.out"; then
        fail "a device without :capture: matched the rule" "$tmp/udev.out"
    fi
    pass "udev rule: a device without capture is left alone"
else
    for piece in 'SUBSYSTEM!="video4linux", GOTO="scannerd_end"' 'ENV{ID_V4L_CAPABILITIES}=="*:capture:*"' \
        'TAG+="systemd"' 'ENV{SYSTEMD_WANTS}+="scannerd.service"' 'LABEL="scannerd_end"'; do
        grep -qF -- "$piece" "$rule" || fail "systemd/70-scannerd.rules lacks: $piece"
    done
    skip "udevadm test (needs root, udevadm, unshare and mount); grepped the rule's key pieces instead"
fi

# --- (c) make install / uninstall into a DESTDIR, taking the binaries from $bin (no build)
run_make() { # TARGET DESTDIR → log in $tmp/make.log
    # Without the calling make's MAKEFLAGS (make test), whose variables would override ours.
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$repo" "$1" DESTDIR="$2" \
        PREFIX=/usr/local BUILD_DIR="$bin" >"$tmp/make.log" 2>&1
}
dest=$tmp/dest
run_make install "$dest" || fail "make install DESTDIR=… PREFIX=/usr/local" "$tmp/make.log"
expected=(
    "0755 usr/local/bin/scannerd" "0755 usr/local/bin/scanctl"
    "0644 usr/local/lib/systemd/system/scannerd.service" "0644 usr/local/lib/systemd/system/scannerd.socket"
    "0644 usr/local/lib/systemd/system/scannerd@.service" "0644 usr/local/lib/systemd/system/scannerd@.socket"
    "0644 etc/udev/rules.d/70-scannerd.rules" "0644 usr/local/lib/sysusers.d/scannerd.conf"
    "0644 etc/scannerd/scannerd.conf" "0644 usr/local/share/doc/scannerd/README.md"
    "0644 usr/local/share/doc/scannerd/systemd/README.md" "0644 usr/local/share/doc/scannerd/systemd/http.conf" "0644 usr/local/share/doc/scannerd/systemd/mqtt.conf"
)
for doc in "$repo"/docs/*.md "$repo"/docs/*.png; do expected+=("0644 usr/local/share/doc/scannerd/docs/$(basename "$doc")"); done
# The text networks and OpenVINO's libraries, which `make deps` put in .build (make test runs it first).
for model in alphabet.json text-detector.onnx text-recognizer.onnx; do
    expected+=("0644 usr/local/share/scannerd/models/$model")
done
for notice in "$repo"/.build/openvino/licenses/LICENSE "$repo"/.build/openvino/licenses/licensing/*.txt; do
    expected+=("0644 usr/local/share/doc/scannerd/openvino/$(basename "$notice")")
done
for library in "$repo"/.build/openvino/lib/*.so*; do
    [ -L "$library" ] || expected+=("0644 usr/local/lib/scannerd/$(basename "$library")")
done
for entry in "${expected[@]}"; do
    mode=${entry%% *} path=${entry#* }
    [ -f "$dest/$path" ] || fail "make install did not install /$path"
    [ "$(stat -c %a "$dest/$path")" = "${mode#0}" ] || fail "/$path has mode $(stat -c %a "$dest/$path"), not $mode"
done
(cd "$dest" && find . -type f -o -type l) | sed 's|^\./||' | sort >"$tmp/installed"
printf '%s\n' "${expected[@]#* }" | sort >"$tmp/expected"
diff "$tmp/expected" "$tmp/installed" >"$tmp/diff" || fail "make install installed other files than expected" "$tmp/diff"
pass "make install: ${#expected[@]} files with the right modes, nothing else"

cmp -s "$bin/scannerd" "$dest/usr/local/bin/scannerd" || fail "the installed scannerd is not the given binary"
# The installed binary loads the runtime installed beside it (../lib/scannerd), not the build's.
# ldd's output taken whole first: `ldd | grep -q` under pipefail fails when grep stops reading early
# and ldd dies of SIGPIPE (a fresh clone's make test, 2026-11-26, with the line right there).
ldd "$dest/usr/local/bin/scannerd" >"$tmp/ldd"
grep -qF "libopenvino_c.so.$(ls "$repo"/.build/openvino/lib/libopenvino_c.so.* | sed 's/.*\.so\.//') => $dest/usr/local/bin/../lib/scannerd/" "$tmp/ldd" ||
    fail "the installed scannerd does not load OpenVINO from /usr/local/lib/scannerd" "$tmp/ldd"
pass "the installed scannerd loads OpenVINO from beside it"
cmp -s "$repo/config/scannerd.conf" "$dest/etc/scannerd/scannerd.conf" || fail "the installed scannerd.conf is not config/scannerd.conf"
service=$dest/usr/local/lib/systemd/system/scannerd.service
grep -qxF 'ExecStart=/usr/local/bin/scannerd run --config /etc/scannerd/scannerd.conf' "$service" ||
    fail "installed scannerd.service: ExecStart is not /usr/local/bin/scannerd run --config /etc/scannerd/scannerd.conf" "$service"
if grep -n '@[a-z]*@' "$dest"/usr/local/lib/systemd/system/* >"$tmp/placeholders"; then
    fail "placeholders left in the installed units" "$tmp/placeholders"
fi
pass "installed units point at /usr/local/bin/scannerd and /etc/scannerd/scannerd.conf"

# The per-camera templates (systemd/instance.sed, docs/kiosk.md): an instance verifies with its socket,
# rates as the singleton does, and keeps every required setting of the singleton but the four it changes.
camera=usb-046d_HD_Pro_Webcam_C920_A1B2C3D4-video-index0
instances=$tmp/instances
mkdir -p "$instances"
cp "$dest/usr/local/lib/systemd/system/scannerd@.service" "$dest/usr/local/lib/systemd/system/scannerd@.socket" "$instances/"
sed -i "s|/usr/local/bin/scannerd|$bin/scannerd|" "$instances/scannerd@.service"
verify_instance=0
(cd "$instances" && systemd-analyze verify "./scannerd@$camera.service" "./scannerd@$camera.socket") >"$tmp/verify-instance" 2>&1 || verify_instance=$?
grep -q 'scannerd' "$tmp/verify-instance" && verify_instance=1
[ "$verify_instance" = 0 ] || fail "systemd-analyze verify scannerd@$camera.service" "$tmp/verify-instance"
systemd-analyze security --offline=true "$instances/scannerd@$camera.service" >"$tmp/security-instance" 2>&1 ||
    fail "systemd-analyze security on an instance" "$tmp/security-instance"
instance_exposure=$(sed -n 's/^→ Overall exposure level for scannerd@.*: \([0-9.]*\) .*/\1/p' "$tmp/security-instance")
[ "$instance_exposure" = "$(sed -n 's/^→ Overall exposure level for scannerd\.service: \([0-9.]*\) .*/\1/p' "$tmp/security")" ] ||
    fail "an instance rates $instance_exposure, the singleton otherwise" "$tmp/security-instance"
template=$instances/scannerd@.service
for line in "${required_service[@]}"; do
    case $line in Requires=scannerd.socket | After=scannerd.socket | ExecStart=*) continue ;; esac
    grep -qxF -- "$line" "$template" || fail "scannerd@.service lacks the singleton's line: $line"
done
for line in "Requires=scannerd@%i.socket" "After=scannerd@%i.socket" "EnvironmentFile=-/etc/scannerd/%i.env" \
    "ExecStart=$bin/scannerd run --config /etc/scannerd/scannerd.conf --device /dev/v4l/by-id/%i"; do
    grep -qxF -- "$line" "$template" || fail "scannerd@.service lacks the line: $line" "$template"
done
grep -qxF "ListenStream=/run/scannerd/%i.sock" "$instances/scannerd@.socket" || fail "scannerd@.socket: no per-camera socket" "$instances/scannerd@.socket"
pass "per-camera templates: scannerd@$camera verifies with its socket, exposure $instance_exposure as the singleton's"

conf=$dest/etc/scannerd/scannerd.conf
echo "# changed by the operator" >>"$conf"
cp "$conf" "$tmp/changed.conf"
run_make install "$dest" || fail "second make install" "$tmp/make.log"
cmp -s "$tmp/changed.conf" "$conf" || fail "a second make install overwrote the changed scannerd.conf"
cmp -s "$repo/config/scannerd.conf" "$conf.default" || fail "a second make install did not put the shipped defaults in scannerd.conf.default"
pass "second make install keeps a changed scannerd.conf and installs scannerd.conf.default beside it"

run_make uninstall "$dest" || fail "make uninstall DESTDIR=… PREFIX=/usr/local" "$tmp/make.log"
(cd "$dest" && find . -type f -o -type l) | sed 's|^\./||' >"$tmp/left"
[ "$(cat "$tmp/left")" = "etc/scannerd/scannerd.conf" ] || fail "make uninstall left other files than the changed scannerd.conf" "$tmp/left"
cmp -s "$tmp/changed.conf" "$conf" || fail "make uninstall changed the operator's scannerd.conf"
[ ! -e "$dest/usr/local/share/doc/scannerd" ] || fail "make uninstall left /usr/local/share/doc/scannerd"
[ ! -e "$dest/usr/local/share/scannerd" ] || fail "make uninstall left /usr/local/share/scannerd"
pass "make uninstall removes everything but the changed scannerd.conf"

dest=$tmp/dest2
run_make install "$dest" || fail "make install (second tree)" "$tmp/make.log"
run_make uninstall "$dest" || fail "make uninstall (second tree)" "$tmp/make.log"
[ -z "$(cd "$dest" && find . -type f -o -type l)" ] && [ ! -e "$dest/etc/scannerd" ] ||
    fail "make uninstall left files or /etc/scannerd behind with an unchanged scannerd.conf"
pass "make uninstall removes an unchanged scannerd.conf and /etc/scannerd"

finish
