#!/bin/bash
# The floods of issue #39, measured on each binary named (default: the release build), on a fresh
# daemon each: prints a markdown table for docs/benchmarks.md ("Floods").
#
#   Tests/soak/flood.sh [SCANNERD ...]     e.g. .build/release/scannerd /tmp/old/.build/debug/scannerd
#
#   photos  4 socket + 8 WebSocket clients send `capture` and never read, 1280x720 frames (~600 kB
#           JPEG) from the emulated camera, 45 s: resident memory and a control client's ping
#   idle    2000 idle HTTP connections against a daemon run with 1024 open files: a socket ping and a
#           new /items meanwhile
#   events  63 /events clients that never read, `set` sent until all have overflowed: how many are
#           still connected 1.5 s later, and whether a new /events is served
#   snapshots  140 clients ask for /snapshot.jpg (1280x720) and never read, twice 30 s apart: a new
#           /items every 0.5 s meanwhile, and when the server holds none of the stalled any more
#
# Needs: the FakeCamera product built beside the first binary's directory (or FAKECAMERA=path),
# python3, curl, ss, and .build/footage-venv (make footage-venv) for the 720p frame.
set -u
cd "$(dirname "$0")/../.."
binaries=("$@")
[[ ${#binaries[@]} -gt 0 ]] || binaries=(.build/release/scannerd)
fake=${FAKECAMERA:-$(dirname "${binaries[0]}")/libFakeCamera.so}
seconds=${FLOOD_SECONDS:-45}
die() { echo "flood.sh: $*" >&2; exit 2; }
[[ -f $fake ]] || die "no emulated camera at $fake (swift build --product FakeCamera)"
[[ -x .build/footage-venv/bin/python ]] || die "no .build/footage-venv (make footage-venv)"
work=$(mktemp -d /tmp/scannerd-flood.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
.build/footage-venv/bin/python - "$work/frame.jpg" <<'EOF'
import sys, numpy as np
from PIL import Image
rng = np.random.default_rng(1)
base = Image.fromarray(rng.integers(0, 255, (90, 160, 3), dtype=np.uint8)).resize((1280, 720), Image.BICUBIC)
pixels = np.clip(np.asarray(base).astype(float) + rng.normal(0, 18, (720, 1280, 3)), 0, 255).astype(np.uint8)
Image.fromarray(pixels).save(sys.argv[1], quality=92)
EOF

# start BINARY PORT [prlimit args] -- daemon args: starts it, waits for its socket; prints its pid.
start() {
  local binary=$1 port=$2; shift 2
  rm -f "$work/s.sock"
  "$@" "$binary" run --no-config --socket "$work/s.sock" --http "127.0.0.1:$port" ${DAEMON_ARGS[@]} >/dev/null 2>"$work/daemon.err" &
  local pid=$!
  for _ in $(seq 100); do [[ -S $work/s.sock ]] && break; sleep 0.1; done
  [[ -S $work/s.sock ]] || die "$binary did not start: $(tail -3 "$work/daemon.err")"
  sleep 1
  # prlimit execs the daemon: the pid is the daemon's.
  echo "$pid"
}

echo "| binary | flood | result |"
echo "|---|---|---|"
port=18390
for binary in "${binaries[@]}"; do
  port=$((port + 1))
  DAEMON_ARGS=(--device /dev/video0 --width 1280 --height 720 --quality fast)
  pid=$(LD_PRELOAD=$fake FAKECAM_FRAMES=$work/frame.jpg FAKECAM_DEVICE=/dev/video0 FAKECAM_FPS=30 start "$binary" "$port" env)
  echo "| \`$binary\` | photos, ${seconds} s | $(python3 Tests/soak/flood.py photos "$pid" "$work/s.sock" "$port" "$seconds") |"
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  port=$((port + 1))
  DAEMON_ARGS=(--device /dev/video0 --width 1280 --height 720 --quality fast)
  pid=$(LD_PRELOAD=$fake FAKECAM_FRAMES=$work/frame.jpg FAKECAM_DEVICE=/dev/video0 FAKECAM_FPS=30 start "$binary" "$port" env)
  echo "| \`$binary\` | 140 never-reading /snapshot.jpg, twice | $(python3 Tests/soak/flood.py snapshots "$pid" "$work/s.sock" "$port" 140) |"
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  port=$((port + 1))
  DAEMON_ARGS=(--source demo --loop)
  pid=$(start "$binary" "$port" prlimit --nofile=1024)
  echo "| \`$binary\` | 2000 idle HTTP connections, 1024 open files | $(python3 Tests/soak/flood.py idle "$pid" "$work/s.sock" "$port" 2000) |"
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  port=$((port + 1))
  pid=$(start "$binary" "$port" env)
  echo "| \`$binary\` | 63 never-reading /events | $(python3 Tests/soak/flood.py events "$pid" "$work/s.sock" "$port" 63) |"
  kill -9 "$pid"; wait "$pid" 2>/dev/null
done
