#!/usr/bin/env bash
# Soak benchmark: the unmodified daemon on the emulated camera (libFakeCamera.so, docs/emulated-camera.md)
# at replay speed for SOAK_SECONDS, the camera unplugged about every 30 s and plugged back, one socket
# client reading every event the whole time. Samples the daemon's RSS, descriptors, threads and CPU,
# and says whether memory and descriptors stay flat. A benchmark, not a CI test: the result goes in
# docs/benchmarks.md.
#
#   swift build -c release            # scannerd and libFakeCamera.so in .build/release
#   Tests/soak/soak.sh                # 10 minutes; prints a markdown section
#   SOAK_OUTPUT=docs/benchmarks.md Tests/soak/soak.sh   # ... and writes it between the soak markers
#
# Environment (all optional):
#   SCANNERD            daemon binary                     (.build/release/scannerd)
#   FAKECAM_LIB         emulated camera library           (.build/release/libFakeCamera.so)
#   SOAK_FRAMES         clip the camera loops             (Sources/CDemoClip/demo.mjpeg, 640×480)
#   SOAK_SECONDS        soak duration, s                  (600)
#   SOAK_INTERVAL       sampling interval, s              (10)
#   SOAK_WARMUP         warm-up excluded from the flatness checks, s (60; at most a third of the run)
#   SOAK_UNPLUG_FRAMES  frames dequeued between unplugs   (900 = 30 s at 30 fps)
#   SOAK_REPLUG_MS      outage length, ms                 (2000)
#   SOAK_TABLE_EVERY    one table row every N s           (a tenth of the run, rounded to the interval)
#   SOAK_RSS_GROWTH_PCT verdict threshold, %              (5)
#   SOAK_RSS_TREND_KB_MIN verdict threshold, kB/min     (30)
#   SOAK_STOP_TIMEOUT   s to wait for exit after SIGTERM  (10)
#   SOAK_OUTPUT         file to write the section into, between <!-- soak:begin --> and <!-- soak:end -->
#                       (appended at the end with the markers if they are absent)
#   SOAK_KEEP=1         keep the work directory (daemon log, samples.csv); it is always kept on failure
#
# Exit status: 0 flat; 1 the daemon died, did not start or did not stop cleanly (its log tail is
# shown), or a setup error; 2 the soak ran but the verdict is "not flat".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

SCANNERD=${SCANNERD:-$ROOT/.build/release/scannerd}
FAKECAM_LIB=${FAKECAM_LIB:-$ROOT/.build/release/libFakeCamera.so}
SOAK_FRAMES=${SOAK_FRAMES:-$ROOT/Sources/CDemoClip/demo.mjpeg}
SOAK_SECONDS=${SOAK_SECONDS:-600}
SOAK_INTERVAL=${SOAK_INTERVAL:-10}
SOAK_UNPLUG_FRAMES=${SOAK_UNPLUG_FRAMES:-900}
SOAK_REPLUG_MS=${SOAK_REPLUG_MS:-2000}
SOAK_RSS_GROWTH_PCT=${SOAK_RSS_GROWTH_PCT:-5}
# A percentage over ten minutes hides a slow leak (1.5 % in 10 min is 190 MB a day): the trend of the
# second half of the run after warm-up (least-squares slope of RSS) must stay under this too. Only the
# second half: in the first minutes malloc's arenas still grow in steps until they hold the largest
# working set the frames need, and that levels off; a leak keeps its rate in both halves (the zbar QR
# leak grew 130–170 kB/min throughout). Both trends are reported.
SOAK_RSS_TREND_KB_MIN=${SOAK_RSS_TREND_KB_MIN:-30}
SOAK_STOP_TIMEOUT=${SOAK_STOP_TIMEOUT:-10}
SOAK_OUTPUT=${SOAK_OUTPUT:-}
SOAK_KEEP=${SOAK_KEEP:-0}
FPS=30
WIDTH=640
HEIGHT=480

die() { echo "soak: $*" >&2; exit 1; }

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
for v in SOAK_SECONDS SOAK_INTERVAL SOAK_UNPLUG_FRAMES SOAK_REPLUG_MS SOAK_STOP_TIMEOUT; do
  is_uint "${!v}" || die "$v must be a whole number (got '${!v}')"
done
[[ $SOAK_RSS_GROWTH_PCT =~ ^[0-9]+([.][0-9]+)?$ ]] || die "SOAK_RSS_GROWTH_PCT must be a number"
(( SOAK_INTERVAL >= 1 )) || die "SOAK_INTERVAL must be at least 1"
(( SOAK_SECONDS >= 3 * SOAK_INTERVAL )) || die "SOAK_SECONDS must be at least 3 × SOAK_INTERVAL"

# Warm-up: the first minute, or a third of a short run; a whole number of intervals.
SOAK_WARMUP=${SOAK_WARMUP:-60}
is_uint "$SOAK_WARMUP" || die "SOAK_WARMUP must be a whole number"
(( SOAK_WARMUP > SOAK_SECONDS / 3 )) && SOAK_WARMUP=$(( SOAK_SECONDS / 3 ))
SOAK_WARMUP=$(( (SOAK_WARMUP + SOAK_INTERVAL - 1) / SOAK_INTERVAL * SOAK_INTERVAL ))
# Table rows: about ten, on sample boundaries.
if [[ -z ${SOAK_TABLE_EVERY:-} ]]; then
  SOAK_TABLE_EVERY=$(( (SOAK_SECONDS / 10 + SOAK_INTERVAL / 2) / SOAK_INTERVAL * SOAK_INTERVAL ))
fi
is_uint "$SOAK_TABLE_EVERY" || die "SOAK_TABLE_EVERY must be a whole number"
(( SOAK_TABLE_EVERY < SOAK_INTERVAL )) && SOAK_TABLE_EVERY=$SOAK_INTERVAL

[[ -x $SCANNERD ]] || die "no daemon at $SCANNERD (swift build -c release, or SCANNERD=…)"
[[ -f $FAKECAM_LIB ]] || die "no emulated camera at $FAKECAM_LIB (swift build -c release, or FAKECAM_LIB=…)"
[[ -f $SOAK_FRAMES ]] || die "no clip at $SOAK_FRAMES"
command -v python3 >/dev/null || die "python3 is needed for the socket client"
[[ -d /proc/self ]] || die "needs /proc (Linux)"
# LD_PRELOAD wants a path with a slash; make both absolute so the daemon's cwd does not matter.
SCANNERD=$(cd "$(dirname "$SCANNERD")" && pwd)/$(basename "$SCANNERD")
FAKECAM_LIB=$(cd "$(dirname "$FAKECAM_LIB")" && pwd)/$(basename "$FAKECAM_LIB")
SOAK_FRAMES=$(cd "$(dirname "$SOAK_FRAMES")" && pwd)/$(basename "$SOAK_FRAMES")
if [[ -n $SOAK_OUTPUT ]]; then
  [[ -d $(dirname "$SOAK_OUTPUT") ]] || die "no directory for SOAK_OUTPUT=$SOAK_OUTPUT"
  if [[ -f $SOAK_OUTPUT ]] && grep -q '^<!-- soak:begin' "$SOAK_OUTPUT" && ! grep -q '^<!-- soak:end' "$SOAK_OUTPUT"; then
    die "$SOAK_OUTPUT has <!-- soak:begin --> but no <!-- soak:end -->; fix the markers first"
  fi
fi

CLK_TCK=$(getconf CLK_TCK)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scannerd-soak.XXXXXX")
SOCK=$WORK/scannerd.sock
LOG=$WORK/scannerd.log
CSV=$WORK/samples.csv
DAEMON_PID=
CLIENT_PID=
FAILED=1   # cleared when the run completes normally

cleanup() {
  local rc=$?
  [[ -n $CLIENT_PID ]] && kill "$CLIENT_PID" 2>/dev/null || true
  [[ -n $DAEMON_PID ]] && kill -KILL "$DAEMON_PID" 2>/dev/null || true
  if [[ $FAILED == 1 || $SOAK_KEEP == 1 || $rc != 0 ]]; then
    echo "soak: work directory kept: $WORK (scannerd.log, samples.csv, client.json)" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { date +%s%3N; }

# ---------------------------------------------------------------------------------------------------
# The socket client: reads every event for the whole soak, checks seq has no gaps, tracks the camera
# state (the sampler records it), asks for `stats` every interval, and writes a summary when the
# daemon closes the connection.
cat >"$WORK/client.py" <<'PY'
import datetime, json, os, select, signal, socket, sys, time

sock_path, work, stats_every = sys.argv[1], sys.argv[2], float(sys.argv[3])

def write_json(name, obj):
    tmp = os.path.join(work, name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, os.path.join(work, name))

summary = {"connected": False, "events": 0, "byEvent": {}, "seqGaps": 0, "malformed": 0,
           "ended": False, "closedBy": None, "lastSeq": None, "camera": None, "outages": []}
lost_at = None

def event_time(msg):
    try:
        t = datetime.datetime.strptime(msg["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
        return t.replace(tzinfo=datetime.timezone.utc).timestamp()
    except (KeyError, ValueError):
        return time.time()

def finish(closed_by):
    summary["closedBy"] = closed_by
    summary["closedAt"] = time.time()
    write_json("client.json", summary)
    sys.exit(0)

signal.signal(signal.SIGTERM, lambda *_: finish("client-killed"))

deadline = time.time() + 30
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sock_path)
        break
    except OSError:
        s.close()
        if time.time() > deadline:
            summary["error"] = "could not connect to " + sock_path
            finish("never-connected")
        time.sleep(0.1)

summary["connected"] = True
summary["connectedAt"] = time.time()
buf = b""
next_stats = time.time() + stats_every / 2   # replies land between the samples
stats_id = 0

def set_camera(state):
    summary["camera"] = state
    with open(os.path.join(work, "camera.tmp"), "w") as f:
        f.write(state + "\n")
    os.replace(os.path.join(work, "camera.tmp"), os.path.join(work, "camera"))

while True:
    r, _, _ = select.select([s], [], [], max(0.0, next_stats - time.time()))
    if r:
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if not data:
            finish("daemon")
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                summary["malformed"] += 1
                continue
            ev = msg.get("event")
            if ev is not None:
                summary["events"] += 1
                summary["byEvent"][ev] = summary["byEvent"].get(ev, 0) + 1
                seq = msg.get("seq")
                if isinstance(seq, int):
                    last = summary["lastSeq"]
                    if last is not None and seq != last + 1:
                        summary["seqGaps"] += 1
                    summary["lastSeq"] = seq
                if ev == "hello":
                    set_camera(msg.get("camera", "?"))
                elif ev in ("available", "unavailable"):
                    set_camera(ev)
                    # outage = `unavailable` → `available`, by the daemon's own event times
                    if ev == "unavailable" and lost_at is None:
                        lost_at = event_time(msg)
                    elif ev == "available" and lost_at is not None:
                        summary["outages"].append(round(event_time(msg) - lost_at, 3))
                        lost_at = None
                elif ev == "end":
                    summary["ended"] = True
            elif msg.get("reply") == "stats" and msg.get("ok"):
                write_json("stats.json", msg)
    if time.time() >= next_stats:
        next_stats += stats_every
        stats_id += 1
        try:
            s.sendall(json.dumps({"request": "stats", "id": stats_id}).encode() + b"\n")
        except OSError:
            pass
PY

# ---------------------------------------------------------------------------------------------------
# Start the daemon (its own pid: bash execs it directly) and the client.
START_MS=$(now_ms)
env -u FAKECAM_BY_ID \
  LD_PRELOAD="$FAKECAM_LIB" \
  FAKECAM_FRAMES="$SOAK_FRAMES" FAKECAM_DEVICE=/dev/video0 FAKECAM_FORMATS=MJPG FAKECAM_FPS=$FPS \
  FAKECAM_LOOP=1 FAKECAM_UNPLUG_AFTER="$SOAK_UNPLUG_FRAMES" FAKECAM_REPLUG_AFTER_MS="$SOAK_REPLUG_MS" \
  FAKECAM_CORRUPT_EVERY=0 FAKECAM_LOG=0 \
  "$SCANNERD" run --device /dev/video0 --width $WIDTH --height $HEIGHT --fps $FPS --socket "$SOCK" \
  >"$WORK/scannerd.out" 2>"$LOG" </dev/null &
DAEMON_PID=$!

# exits 0 while the daemon runs (a zombie counts as dead)
daemon_alive() {
  local st
  st=$(cat "/proc/$DAEMON_PID/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [[ ${st%% *} != [ZX] ]]
}

daemon_died() {
  local status=0
  wait "$DAEMON_PID" || status=$?
  DAEMON_PID=
  local how="exit status $status"
  (( status > 128 )) && how="killed by signal $(( status - 128 )) ($(kill -l $(( status - 128 )) 2>/dev/null || echo '?'))"
  echo "soak: FAILED — the daemon died $1 ($how)." >&2
  echo "soak: last lines of its log ($LOG):" >&2
  tail -n 30 "$LOG" | sed 's/^/    /' >&2
  if [[ -s $WORK/scannerd.out ]]; then
    echo "soak: last lines of its stdout:" >&2
    tail -n 5 "$WORK/scannerd.out" | sed 's/^/    /' >&2
  fi
  exit 1
}

for _ in $(seq 100); do
  [[ -S $SOCK ]] && break
  daemon_alive || daemon_died "while starting"
  sleep 0.1
done
[[ -S $SOCK ]] || { echo "soak: the daemon did not create $SOCK within 10 s" >&2; tail -n 30 "$LOG" >&2; exit 1; }

python3 "$WORK/client.py" "$SOCK" "$WORK" "$SOAK_INTERVAL" </dev/null >"$WORK/client.log" 2>&1 &
CLIENT_PID=$!
for _ in $(seq 100); do   # the client has its `hello`
  [[ -f $WORK/camera ]] && break
  daemon_alive || daemon_died "while starting"
  kill -0 "$CLIENT_PID" 2>/dev/null || die "the socket client failed: $(cat "$WORK/client.log" "$WORK/client.json" 2>/dev/null)"
  sleep 0.1
done
[[ -f $WORK/camera ]] || die "the socket client got no hello within 10 s"

# ---------------------------------------------------------------------------------------------------
# Sampling.
echo "t,rss_kb,hwm_kb,fds,threads,cpu_s,unplugs,replugs,camera,frames" >"$CSV"
shopt -s nullglob

sample() {   # $1 = elapsed s
  local status rss hwm st fds threads ticks cpu unplugs replugs camera frames
  status=$(cat "/proc/$DAEMON_PID/status" 2>/dev/null) || return 1
  rss=$(awk '/^VmRSS:/ {print $2}' <<<"$status")
  hwm=$(awk '/^VmHWM:/ {print $2}' <<<"$status")
  st=$(cat "/proc/$DAEMON_PID/stat" 2>/dev/null) || return 1
  st=${st##*) }                       # fields from 3 (state) on; comm may hold spaces
  read -r -a f <<<"$st"
  ticks=$(( f[11] + f[12] ))         # utime (14) + stime (15)
  threads=${f[17]}                    # num_threads (20)
  cpu=$(awk -v t="$ticks" -v h="$CLK_TCK" 'BEGIN {printf "%.2f", t / h}')
  local fdlist=( "/proc/$DAEMON_PID/fd/"* )
  fds=${#fdlist[@]}
  unplugs=$(grep -c ' warning camera lost ' "$LOG" || true)
  replugs=$(grep -c ' notice camera available ' "$LOG" || true)
  camera=$(cat "$WORK/camera" 2>/dev/null || echo '?')
  frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("capture",{}).get("decoded",""))' \
    "$WORK/stats.json" 2>/dev/null || true)
  [[ -n $rss && -n $hwm ]] || return 1
  echo "$1,$rss,$hwm,$fds,$threads,$cpu,$unplugs,$replugs,$camera,$frames" >>"$CSV"
}

echo "soak: scannerd pid $DAEMON_PID, ${SOAK_SECONDS} s, a sample every ${SOAK_INTERVAL} s, unplug every" \
  "$SOAK_UNPLUG_FRAMES frames for $SOAK_REPLUG_MS ms; work directory $WORK" >&2
T0_MS=$(now_ms)
for (( t = 0; t <= SOAK_SECONDS; t += SOAK_INTERVAL )); do
  wake=$(( T0_MS + t * 1000 ))
  delay=$(( wake - $(now_ms) ))
  (( delay > 0 )) && sleep "$(awk -v d="$delay" 'BEGIN {printf "%.3f", d / 1000}')"
  daemon_alive || daemon_died "after $(( ($(now_ms) - T0_MS) / 1000 )) s of the soak"
  sample "$t" || daemon_alive || daemon_died "after $(( ($(now_ms) - T0_MS) / 1000 )) s of the soak"
  if (( t % 60 == 0 || t == SOAK_SECONDS )); then
    tail -n 1 "$CSV" | awk -F, '{printf "soak: %4d s  RSS %6d kB  fds %3d  threads %3d  cpu %7.2f s  unplugs %d  camera %s\n", $1, $2, $4, $5, $6, $7, $9}' >&2
  fi
done
END_MS=$(now_ms)

# ---------------------------------------------------------------------------------------------------
# Stop: SIGTERM, then how long it takes to exit and with what status.
kill -TERM "$DAEMON_PID"
STOP_T0=$(now_ms)
STOP_STATUS=
while (( $(now_ms) - STOP_T0 < SOAK_STOP_TIMEOUT * 1000 )); do
  daemon_alive || break
  sleep 0.02
done
if daemon_alive; then
  kill -KILL "$DAEMON_PID" 2>/dev/null || true
  wait "$DAEMON_PID" 2>/dev/null || true
  STOP_MS=$(( $(now_ms) - STOP_T0 ))
  STOP_STATUS="did not exit within ${SOAK_STOP_TIMEOUT} s (killed)"
else
  STOP_MS=$(( $(now_ms) - STOP_T0 ))
  rc=0; wait "$DAEMON_PID" || rc=$?
  if (( rc > 128 )); then STOP_STATUS="killed by signal $(( rc - 128 ))"; else STOP_STATUS="exit $rc"; fi
fi
DAEMON_PID=
# The client sees the end of the connection; give it a moment to write its summary.
for _ in $(seq 50); do kill -0 "$CLIENT_PID" 2>/dev/null || break; sleep 0.1; done
kill "$CLIENT_PID" 2>/dev/null || true
wait "$CLIENT_PID" 2>/dev/null || true
CLIENT_PID=

# ---------------------------------------------------------------------------------------------------
# Figures.
UNPLUGS=$(grep -c ' warning camera lost ' "$LOG" || true)
REPLUGS=$(grep -c ' notice camera available ' "$LOG" || true)
STOPPED_LINE=$(grep ' info stopped ' "$LOG" | tail -n 1 || true)
DAEMON_RECONNECTS=$(sed -n 's/.* reconnects=\([0-9]*\).*/\1/p' <<<"$STOPPED_LINE")
DAEMON_FRAMES=$(sed -n 's/.* frames=\([0-9]*\).*/\1/p' <<<"$STOPPED_LINE")
DAEMON_DROPPED=$(sed -n 's/.* dropped=\([0-9]*\).*/\1/p' <<<"$STOPPED_LINE")
WARNINGS=$(grep -Evc ' (info|notice) | warning camera (lost|not available) ' "$LOG" || true)

{ read -r CLIENT_OK CLIENT_DESC; read -r OUTAGES; } < <(python3 - "$WORK/client.json" "$END_MS" <<'PY'
import json, sys
try:
    c = json.load(open(sys.argv[1]))
except Exception:
    print("0 no summary from the client\n–"); sys.exit()
by = c.get("byEvent", {})
ok = (c.get("connected") and c.get("closedBy") == "daemon" and c.get("ended")
      and c.get("seqGaps", 0) == 0 and by.get("overflow", 0) == 0
      and c.get("closedAt", 0) * 1000 >= int(sys.argv[2]))
parts = ", ".join(f"{k} {v}" for k, v in sorted(by.items(), key=lambda kv: -kv[1]))
desc = (f"{c.get('events', 0)} events ({parts}); seq gaps {c.get('seqGaps', 0)}; "
        f"{'connected until the daemon stopped' if c.get('closedBy') == 'daemon' and c.get('ended') else 'closed by: ' + str(c.get('closedBy'))}")
print(("1 " if ok else "0 ") + desc)
o = c.get("outages", [])
print(f"{len(o)}, {sum(o) / len(o):.1f} s on average (max {max(o):.1f} s)" if o else "–")
PY
)

# Summary statistics over the samples (warm-up = samples before SOAK_WARMUP).
read -r BASE_T BASE_RSS END_RSS GROWTH_KB GROWTH_PCT MAX_RSS MAX_HWM SLOPE SLOPE2 HALF_T \
        FD_WMAX FD_MIN FD_MAX FD_SMIN FD_SMAX TH_WMAX TH_MIN TH_MAX CPU_ALL CPU_AFTER FPS_AFTER < <(
awk -F, -v warm="$SOAK_WARMUP" -v half="$(( (SOAK_WARMUP + SOAK_SECONDS) / 2 ))" '
  NR == 1 { next }
  { t = $1; rss = $2; hwm = $3; fd = $4; th = $5; cpu = $6; cam = $9; fr = $10
    if (n == 0) { t0 = t; cpu0 = cpu }
    n++
    if (rss > maxrss) maxrss = rss
    if (hwm > maxhwm) maxhwm = hwm
    if (t < warm) { if (fd > fdw) fdw = fd; if (th > thw) thw = th; next }
    if (!based) { based = 1; bt = t; brss = rss; bcpu = cpu; bfr = fr }
    if (fdmin == "" || fd < fdmin) fdmin = fd; if (fd > fdmax) fdmax = fd
    if (cam == "available") { if (fsmin == "" || fd < fsmin) fsmin = fd; if (fd > fsmax) fsmax = fd }
    if (thmin == "" || th < thmin) thmin = th; if (th > thmax) thmax = th
    # least-squares slope of RSS over time after warm-up
    m++; sx += t; sy += rss; sxx += t * t; sxy += t * rss
    if (t >= half) { if (!h) ht = t; h++; hx += t; hy += rss; hxx += t * t; hxy += t * rss }
    lt = t; lrss = rss; lhwm = hwm; lcpu = cpu; lfr = fr
  }
  END {
    slope = (m > 1 && m * sxx - sx * sx != 0) ? (m * sxy - sx * sy) / (m * sxx - sx * sx) * 60 : 0
    slope2 = (h > 1 && h * hxx - hx * hx != 0) ? (h * hxy - hx * hy) / (h * hxx - hx * hx) * 60 : 0
    cpuall = (lt > t0) ? (lcpu - cpu0) / (lt - t0) * 100 : 0
    cpuaft = (lt > bt) ? (lcpu - bcpu) / (lt - bt) * 100 : 0
    fps = (lt > bt && lfr != "" && bfr != "") ? (lfr - bfr) / (lt - bt) : -1
    if (fsmin == "") { fsmin = "-"; fsmax = "-" }
    printf "%d %d %d %d %.2f %d %d %.1f %.1f %d %d %d %d %s %s %d %d %d %.1f %.1f %.1f\n",
      bt, brss, lrss, lrss - brss, (brss ? (lrss - brss) * 100 / brss : 0), maxrss, maxhwm, slope, slope2, ht,
      fdw, fdmin, fdmax, fsmin, fsmax, thw, thmin, thmax, cpuall, cpuaft, fps
  }' "$CSV")

# ---------------------------------------------------------------------------------------------------
# Verdict. Flat = RSS at the end within SOAK_RSS_GROWTH_PCT % of RSS after warm-up, no descriptor and
# no thread after warm-up beyond what warm-up already had, the camera really was unplugged and came
# back, the client was served to the end, and the daemon stopped cleanly.
REASONS=()
awk -v g="$GROWTH_PCT" -v lim="$SOAK_RSS_GROWTH_PCT" 'BEGIN {exit !(g < lim)}' ||
  REASONS+=("RSS grew ${GROWTH_PCT} % after warm-up (limit ${SOAK_RSS_GROWTH_PCT} %)")
awk -v t="$SLOPE2" -v lim="$SOAK_RSS_TREND_KB_MIN" 'BEGIN {exit !(t < lim)}' ||
  REASONS+=("RSS trend over the second half (from $HALF_T s) ${SLOPE2} kB/min (limit ${SOAK_RSS_TREND_KB_MIN} kB/min)")
(( FD_MAX <= FD_WMAX )) || REASONS+=("descriptors reached $FD_MAX after warm-up (warm-up max $FD_WMAX)")
(( TH_MAX <= TH_WMAX )) || REASONS+=("threads reached $TH_MAX after warm-up (warm-up max $TH_WMAX)")
(( UNPLUGS >= 1 )) || REASONS+=("the camera was never unplugged (SOAK_UNPLUG_FRAMES too large for the run?)")
(( REPLUGS >= UNPLUGS - 1 && REPLUGS >= 1 )) || REASONS+=("the camera came back $REPLUGS times after $UNPLUGS unplugs")
[[ $CLIENT_OK == 1 ]] || REASONS+=("the socket client was not served to the end ($CLIENT_DESC)")
[[ $STOP_STATUS == "exit 0" ]] || REASONS+=("on SIGTERM the daemon: $STOP_STATUS")
if (( ${#REASONS[@]} == 0 )); then
  VERDICT="**Flat.**"
else
  VERDICT="**Not flat:** $(IFS=';'; echo "${REASONS[*]}" | sed 's/;/; /g')."
fi

# ---------------------------------------------------------------------------------------------------
# The markdown section.
MODEL=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
[[ -n $MODEL ]] || MODEL=$(uname -m)
MEM_GIB=$(awk '/^MemTotal:/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)
VERSION=$("$SCANNERD" --version 2>/dev/null || echo '?')
COMMIT=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')
RUN_S=$(( (END_MS - T0_MS) / 1000 ))
PERIOD_S=$(awk -v f="$SOAK_UNPLUG_FRAMES" -v r="$SOAK_REPLUG_MS" -v fps=$FPS 'BEGIN {printf "%.1f", f / fps + r / 1000}')
FPS_TEXT=$( [[ $FPS_AFTER == -1.0 ]] && echo "–" || echo "$FPS_AFTER" )

SECTION=$WORK/section.md
{
  echo "## Soak: ${SOAK_SECONDS} s on the emulated camera with unplug/replug"
  echo
  echo "Measured $(date -u +%F) on $MODEL, $(nproc) cores, $MEM_GIB GiB, Linux $(uname -r); scannerd $VERSION" \
       "(source tree $COMMIT; binary \`${SCANNERD#"$ROOT"/}\`). Written by \`Tests/soak/soak.sh\`."
  echo
  echo "\`scannerd run --device /dev/video0 --width $WIDTH --height $HEIGHT --fps $FPS --socket …\` under" \
       "\`LD_PRELOAD=libFakeCamera.so\`: \`$(basename "$SOAK_FRAMES")\` looping at $FPS fps, unplugged after every" \
       "$SOAK_UNPLUG_FRAMES dequeued frames for $SOAK_REPLUG_MS ms (a cycle of ≈ $PERIOD_S s plus the daemon's retry" \
       "delay), one socket client reading every event and asking for \`stats\` every ${SOAK_INTERVAL} s." \
       "A sample every ${SOAK_INTERVAL} s; warm-up: the first ${SOAK_WARMUP} s."
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| RSS after warm-up ($BASE_T s) → end | $BASE_RSS kB → $END_RSS kB ($( ((GROWTH_KB >= 0)) && echo +)$GROWTH_KB kB, $( [[ $GROWTH_PCT != -* ]] && echo +)$GROWTH_PCT %) |"
  echo "| RSS trend (least-squares slope) | $SLOPE kB/min after warm-up; **$SLOPE2 kB/min over the second half** (from $HALF_T s) |"
  echo "| max RSS / max VmHWM sampled | $MAX_RSS kB / $MAX_HWM kB (the kernel updates VmHWM lazily, so it can lag RSS) |"
  echo "| descriptors after warm-up | $FD_MIN–$FD_MAX (while streaming $FD_SMIN–$FD_SMAX; warm-up max $FD_WMAX) |"
  echo "| threads after warm-up | $TH_MIN–$TH_MAX (warm-up max $TH_WMAX) |"
  echo "| unplugs / camera back | $UNPLUGS / $REPLUGS (daemon's count of reconnects: ${DAEMON_RECONNECTS:-?}) |"
  echo "| outages seen by the client (\`unavailable\` → \`available\`) | $OUTAGES |"
  echo "| frames delivered | ${DAEMON_FRAMES:-?} (dropped ${DAEMON_DROPPED:-?}); $FPS_TEXT fps after warm-up, outages included |"
  echo "| CPU, mean | $CPU_ALL % of a core over the run, $CPU_AFTER % after warm-up |"
  echo "| socket client | $CLIENT_DESC |"
  echo "| SIGTERM | $STOP_STATUS after $STOP_MS ms |"
  echo "| log lines above notice (besides camera lost/not available) | $WARNINGS |"
  echo
  echo "| t (s) | RSS (kB) | VmHWM (kB) | fds | threads | CPU (s) | unplugs | camera |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---|"
  awk -F, -v every="$SOAK_TABLE_EVERY" -v last="$SOAK_SECONDS" '
    NR > 1 && ($1 % every == 0 || $1 == last) {
      printf "| %d | %d | %d | %d | %d | %.1f | %d | %s |\n", $1, $2, $3, $4, $5, $6, $7, $9 }' "$CSV"
  echo
  echo "Verdict (flat = RSS at the end less than ${SOAK_RSS_GROWTH_PCT} % above RSS after warm-up and its trend" \
       "over the second half under ${SOAK_RSS_TREND_KB_MIN} kB/min; no more" \
       "descriptors or threads after warm-up than during it; the camera unplugged and back; the client served to" \
       "the end; exit 0 on SIGTERM): $VERDICT"
} >"$SECTION"

echo
cat "$SECTION"

if [[ -n $SOAK_OUTPUT ]]; then
  NEW=$WORK/output.md
  if [[ -f $SOAK_OUTPUT ]] && grep -q '^<!-- soak:begin' "$SOAK_OUTPUT"; then
    awk -v section="$SECTION" '
      /^<!-- soak:begin/ { print; while ((getline line < section) > 0) print line; skip = 1; next }
      /^<!-- soak:end/   { skip = 0 }
      !skip' "$SOAK_OUTPUT" >"$NEW"
  else
    { if [[ -s $SOAK_OUTPUT ]]; then cat "$SOAK_OUTPUT"; [[ -z $(tail -c 1 "$SOAK_OUTPUT") ]] || echo; echo; fi
      echo "<!-- soak:begin -->"; cat "$SECTION"; echo "<!-- soak:end -->"; } >"$NEW"
  fi
  cat "$NEW" >"$SOAK_OUTPUT"
  echo "soak: wrote the section into $SOAK_OUTPUT" >&2
fi

FAILED=0
if [[ $STOP_STATUS != "exit 0" ]]; then
  echo "soak: FAILED — on SIGTERM the daemon: $STOP_STATUS. Last lines of its log:" >&2
  tail -n 30 "$LOG" | sed 's/^/    /' >&2
  FAILED=1
  exit 1
fi
(( ${#REASONS[@]} == 0 )) || exit 2
exit 0
