#!/bin/bash
# Runs the Swift test suites (already built) with a temporary directory of their own, and fails if
# they leave anything in it: every test cleans up after itself, on the machine it runs on as in CI.
# Usage: swift-test.sh SWIFT [swift test arguments…]
set -u
swift=$1
shift
scratch=$(mktemp -d /tmp/scannerd.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# 0755 like /tmp's own subdirectories: tests run clients as other users (setpriv), who must reach
# the sockets inside.
chmod 0755 "$scratch"
# The compiled-network cache the daemons and scans the tests start share (Tests/TestSupport/Subprocess.swift
# passes it on): the package's own, as for `make run`, not one in the temporary directory.
export CACHE_DIRECTORY=${CACHE_DIRECTORY:-$PWD/.build/cache}
TMPDIR=$scratch "$swift" test --skip-build "$@"
status=$?
# SwiftPM's own lock files and its TemporaryDirectory.* (made by `swift test` itself, not by a test).
left=$(find "$scratch" -mindepth 1 -maxdepth 1 ! -name '*.lock' ! -name 'TemporaryDirectory.*' -printf '%f\n' | sort)
if [ -n "$left" ]; then
    echo "FAIL  the tests left these in their temporary directory:" >&2
    head -20 <<<"$left" | sed 's/^/      /' >&2
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
