# The reporting shared by the system checks (check-units.sh, check-deb.sh), sourced after `check_name=…`:
# one line per check ("ok", "skip", "FAIL" with an optional file shown indented), a stop at the first
# failure, and the count as the last line ("NAME: N passed, N failed, N skipped"). Also $tmp, a
# directory of the check's own, removed on exit.
# shellcheck shell=bash disable=SC2154 # check_name is set by the script that sources this
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0 skipped=0
pass() { printf 'ok    %s\n' "$*"; passed=$((passed + 1)); }
skip() { printf 'skip  %s\n' "$*"; skipped=$((skipped + 1)); }
fail() { # MESSAGE [FILE to show]
    printf 'FAIL  %s\n' "$1" >&2
    [ $# -lt 2 ] || sed 's/^/      /' "$2" >&2
    echo "$check_name: $passed passed, 1 failed, $skipped skipped"
    exit 1
}
finish() { echo "$check_name: $passed passed, 0 failed, $skipped skipped"; }
