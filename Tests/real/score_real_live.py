#!/usr/bin/env python3
"""`make score-real-live` (issue #52): the real development photos held up to a camera, read live.

Each chosen receipt of ../shared/real-dev (WildReceipt's test split, photographed in the wild; the
images from a mirror, as for `make score-real`) becomes a clip: the receipt (the photo cropped to its
transcribed lines and a margin) enters the frame, is held with a hand's jitter and leaves, over a
desk, with the footage generator's camera (Tests/Fixtures/footage/generate.py `film`: perspective,
motion blur along the motion, uneven light, sensor noise, a thumb, 4:2:0 JPEG at webcam quality;
1280×720, 30 fps, 6 s). It is held at the distance a person holds a receipt to a kiosk's camera: the
lines of its phone numbers and addresses 10–15 px high in the frame (the seed decides; capitals of
7–10 px), or smaller where the receipt would not fit the frame otherwise.

Truth, per clip: the items `make score-real` derives from the photo's transcription (phone numbers,
URLs, e-mail addresses; Tests/real/score_real.py), each placed where its line is, frame by frame:
`visible` (inside the frame, not under the thumb) and `legible` (visible, moving less than 2 px a
frame, its line at least 9 px high: capitals of about 6 px). Items on lines the dataset gives no box
(Tests/real/truth-fixes.json's additions) are left out of the clips' truth.

Scored, in one run:
- `scannerd run --pace realtime` on each clip (the daemon as a kiosk runs it, at the camera's pace):
  recall of the items legible in some frame; precision (reports that are not false, over all reports:
  an `added`, or an `updated` that changes its payload; false as `make score-real` says: matching no
  item of the photo and not printed in it); duplicates (a second id for one item saying the same: two
  numbers on one transcribed line are two items); flicker (an item removed while visible, then added
  again); frames from first legible to added (phone numbers apart);
  CPU per frame (the process's user + system time over the clip's frames);
- `scannerd scan` on the same photos: recall of the same items (those legible in the clips), and of
  every item of the chosen photos.

    score_real_live.py SCANNERD MIRROR OUT [--dev JSON] [--every N] [--limit N] [--show] [--pace none --jobs N]

`--pace none` reads every frame, so a run gives the same events every time: the way to compare two
builds (at realtime, runs of the same build differ by several items). The score is the realtime one.

The photos are cached in OUT/images as `make score-real` caches them (OUT: .build/real-dev), the clips
made once into OUT/live (made again when this script, the generator or the set changes),
never committed. Needs numpy, Pillow and phonenumbers (the score venv of `make score-real-live`).
"""

import collections
import concurrent.futures
import hashlib
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "footage"))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

import generate  # noqa: E402
import score_real  # noqa: E402

WIDTH, HEIGHT, FPS, SECONDS = 1280, 720, 30, 6.0
# The height of the items' lines in the frame while held (px), drawn per clip; a line box is about
# 1.45 times its capitals (measured on the transcription's boxes).
HELD_LINE_HEIGHT = (10.0, 15.0)
# The smallest line height (px) at which a line is legible: capitals of about 6 px.
LEGIBLE_LINE_HEIGHT = 9.0
CAP_PER_LINE = 1 / 1.45
# The receipt's crop: its lines' bounding box grown by this share of its longer side on every side.
MARGIN = 0.04


def box_of(line):
    xs, ys = line["box"][0::2], line["box"][1::2]
    return [min(xs), min(ys), max(xs), max(ys)]


class Receipt:
    """The receipt as the footage generator's document: an RGB image and its items with their boxes."""

    def __init__(self, photo, image):
        boxes = [box_of(line) for line in image["lines"] if len(line.get("box", [])) == 8]
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        grow = MARGIN * max(x1 - x0, y1 - y0)
        crop = [max(0, int(x0 - grow)), max(0, int(y0 - grow)), min(photo.width, int(x1 + grow)), min(photo.height, int(y1 + grow))]
        self.image = photo.crop(crop)
        self.items = []
        self.typed = []
        for line in image["lines"]:
            if len(line.get("box", [])) != 8:
                continue
            bx0, by0, bx1, by1 = box_of(line)
            box = [bx0 - crop[0], by0 - crop[1], bx1 - crop[0], by1 - crop[1]]
            for kind, value in score_real.required_items(line):
                self.items.append({
                    "kind": "text", "contentType": kind, "payload": value, "box": box,
                    "capHeight": (by1 - by0) * CAP_PER_LINE,
                })
        heights = [item["box"][3] - item["box"][1] for item in self.items]
        self.line_height = statistics.median(heights) if heights else None


def make_clip(photo_path, image, index):
    """The clip of one receipt and its truth; None when no item of it has a box."""
    with Image.open(photo_path) as photo:
        receipt = Receipt(photo.convert("RGB"), image)
    if not receipt.items:
        return None
    rng = random.Random(f"real-live-{index}")
    nrng = np.random.default_rng(52_000 + index)
    scale = rng.uniform(*HELD_LINE_HEIGHT) / receipt.line_height
    # As large as the shot lets a document be (generate.Shot: 0.82 of the width, 0.9 of the height).
    fit = min(0.82 * WIDTH / receipt.image.width, 0.9 * HEIGHT / receipt.image.height)
    clip, truth = generate.film(
        receipt, "receipt", rng, nrng, WIDTH, HEIGHT, FPS, SECONDS, scale=min(scale, fit), legible_cap=LEGIBLE_LINE_HEIGHT * CAP_PER_LINE)
    truth["scale"] = round(min(scale, fit), 4)
    return clip, truth


def stamp(dev_path):
    digest = hashlib.sha256()
    for path in (__file__, generate.__file__, score_real.__file__, dev_path):
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16]


def clips(chosen, paths, indices, out, dev_path):
    """Each chosen image's clip and truth in OUT/live (made when missing or stale)."""
    directory = os.path.join(out, "live")
    os.makedirs(directory, exist_ok=True)
    version = stamp(dev_path)
    made = []
    for image, path, index in zip(chosen, paths, indices):
        stem = os.path.join(directory, f"{index:03d}")
        truth_path = stem + ".json"
        truth = None
        if os.path.exists(truth_path):
            with open(truth_path) as f:
                truth = json.load(f)
            if truth.get("version") != version or not os.path.exists(stem + ".mjpeg"):
                truth = None
        if truth is None:
            done = make_clip(path, image, index)
            if done is None:
                continue
            clip, truth = done
            truth["version"] = version
            truth["image"] = path
            with open(stem + ".mjpeg.tmp", "wb") as f:
                f.write(clip)
            os.replace(stem + ".mjpeg.tmp", stem + ".mjpeg")
            with open(truth_path + ".tmp", "w") as f:
                json.dump(truth, f)
            os.replace(truth_path + ".tmp", truth_path)
        made.append((stem, truth))
    return made


def run_live(scannerd, clip, region, extra, pace="realtime"):
    """The daemon's events on `clip` (at the camera's pace, or every frame with `pace` none), and its CPU seconds."""
    with subprocess.Popen(
        [scannerd, "run", "--no-config", "--no-socket", "--source", clip, "--pace", pace, "--events-stdout",
         "--types", "contentTypes", "--region", region, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        streams = {}
        readers = [threading.Thread(target=lambda name=name: streams.__setitem__(name, getattr(process, name).read()))
                   for name in ("stdout", "stderr")]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
        # The child's own CPU time (clips may run side by side with --jobs).
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"score-real-live: scannerd run on {clip} exited with {process.returncode}: {streams['stderr'].strip()[-400:]}")
    events = [json.loads(line) for line in streams["stdout"].splitlines() if line.startswith("{")]
    return events, usage.ru_utime + usage.ru_stime


def same_item(key):
    """What two reports of one item share: a link's host (with or without `www.` and a scheme), any
    other item's payload (a phone number's is its E.164 form)."""
    kind, value = key
    return (kind, score_real.host(value)) if kind == "url" else (kind, value.lower())


def score_live(truth, events, accepted, printed):
    """The clip's figures: each legible item found or not, reports, false ones, duplicates, flicker, latencies."""
    items = []
    for item in truth["items"]:
        legible = [fr["frame"] for fr in item["frames"] if fr["legible"]]
        visible = {fr["frame"] for fr in item["frames"] if fr["visible"]}
        items.append({"want": (item["contentType"], item["payload"]), "legible": legible, "visible": visible})
    reports = []  # (frame, id, (type, payload))
    current = {}
    removed = {}
    for event in events:
        item = event.get("item")
        if not item or item.get("kind") != "text":
            continue
        key = (item.get("contentType") or "text", item["payload"])
        if event["event"] == "added":
            current[item["id"]] = key
            reports.append((event["frame"], item["id"], key))
        elif event["event"] == "updated" and current.get(item["id"]) not in (None, key):
            current[item["id"]] = key
            reports.append((event["frame"], item["id"], key))
        elif event["event"] == "removed":
            removed[item["id"]] = event["frame"]
    wants = [entry["want"] for entry in items]
    false = [key for _, _, key in reports
             if not any(score_real.matches(key, want) for want in wants + accepted) and not score_real.printed_verbatim(key, printed)]
    result = {"found": [], "missed": [], "false": false, "reports": len(reports), "duplicates": 0, "flicker": 0,
              "latency": [], "phoneLatency": []}
    for entry in items:
        if not entry["legible"]:
            continue
        # The ids reported for the item, by what they said: a second id saying the same is a duplicate.
        # Two numbers said of one transcribed line are two items (`02 512 20 84 - 02 512 44 82` is
        # one item of the truth, its digits joined), not one said twice.
        ids, seen = collections.defaultdict(list), set()
        for frame, identifier, key in reports:
            if score_real.matches(key, entry["want"]) and identifier not in seen:
                seen.add(identifier)
                ids[same_item(key)].append((identifier, frame))
        if not ids:
            result["missed"].append(entry["want"])
            continue
        result["found"].append(entry["want"])
        for said in ids.values():
            result["duplicates"] += len(said) - 1
            for (first, _), (_, again) in zip(said, said[1:]):
                gone = removed.get(first)
                if gone is not None and gone in entry["visible"] and again > gone:
                    result["flicker"] += 1
        latency = min(frame for said in ids.values() for _, frame in said) - entry["legible"][0]
        result["latency"].append(latency)
        if entry["want"][0] == "telephoneNumber":
            result["phoneLatency"].append(latency)
    return result


def median(values):
    return statistics.median(values) if values else float("nan")


def p90(values):
    return sorted(values)[int(0.9 * (len(values) - 1))] if values else float("nan")


def main():
    parser = score_real.development_arguments(__doc__, limit_help="at most N clips")
    parser.add_argument("--every", type=int, default=3, help="every N-th image that has an item (default 3: 82 clips)")
    parser.add_argument("--run-args", default="", help="more arguments for scannerd run, space-separated")
    parser.add_argument("--scan-args", default="", help="more arguments for scannerd scan, space-separated (a slow machine: --max-seconds 60)")
    parser.add_argument("--pace", choices=["realtime", "none"], default="realtime",
                        help="none: every frame, the same events on every run (to compare two builds; not the score)")
    parser.add_argument("--jobs", type=int, default=1, help="clips at once (only with --pace none: realtime needs the machine)")
    parser.add_argument("--show", action="store_true", help="each clip's misses, false items, duplicates and flicker")
    parser.add_argument("--only-clips", action="store_true", help="make the clips and stop")
    args = parser.parse_args()
    if args.jobs > 1 and args.pace == "realtime":
        parser.error("--jobs needs --pace none: clips side by side would take each other's time")
    dev = score_real.load_dev(args.dev, args.mirror, "score-real-live")
    # Every image of the set, cached as `make score-real` caches them (its numbering).
    images, paths = score_real.images(dev, args.mirror, args.out, 0)
    images = score_real.corrected(images)
    regions = [score_real.region_of(image) for image in images]
    truths = [score_real.truth(image, region) for image, region in zip(images, regions)]
    with_items = [i for i, t in enumerate(truths) if t[0]]
    chosen = with_items[:: max(1, args.every)]
    if args.limit:
        chosen = chosen[: args.limit]
    started = time.monotonic()
    made = clips([images[i] for i in chosen], [paths[i] for i in chosen], chosen, args.out, args.dev)
    print(f"{len(made)} clips ({WIDTH}×{HEIGHT}, {FPS} fps, {SECONDS:.0f} s) from every {args.every}-th receipt with an item, "
          f"ready in {time.monotonic() - started:.0f} s")
    if args.only_clips:
        return
    index_of = {paths[i]: i for i in chosen}
    extra = args.run_args.split()
    totals = collections.Counter()
    latency, phone_latency, cpu_ms = [], [], []
    scan_paths, scan_regions, legible_wants = [], [], {}
    def run(entry):
        stem, truth = entry
        return run_live(args.scannerd, stem + ".mjpeg", regions[index_of[truth["image"]]], extra, args.pace)

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        runs = list(pool.map(run, made))
    for (stem, truth), (events, cpu) in zip(made, runs):
        i = index_of[truth["image"]]
        required, accepted, printed = truths[i]
        result = score_live(truth, events, accepted, printed)
        legible = len(result["found"]) + len(result["missed"])
        totals.update(legible=legible, found=len(result["found"]), reports=result["reports"], false=len(result["false"]),
                      duplicates=result["duplicates"], flicker=result["flicker"], frames=truth["frames"])
        latency += result["latency"]
        phone_latency += result["phoneLatency"]
        cpu_ms.append(1000 * cpu / truth["frames"])
        scan_paths.append(truth["image"])
        scan_regions.append(regions[i])
        legible_wants[truth["image"]] = result["found"] + result["missed"]
        if args.show and (result["missed"] or result["false"] or result["duplicates"] or result["flicker"]):
            print(f"  {os.path.basename(stem)} ({os.path.basename(truth['image'])}, scale {truth['scale']}): "
                  f"missed {result['missed']} false {result['false']} duplicates {result['duplicates']} flicker {result['flicker']}")
    reports, scan_seconds = score_real.run_scan(args.scannerd, scan_paths, scan_regions, args.scan_args.split())
    scan_found = sum(any(score_real.matches(item, want) for item in reports.get(path, [])) for path, wants in legible_wants.items() for want in wants)
    scan_all_found = scan_all = 0
    for path in scan_paths:
        required = truths[index_of[path]][0]
        scan_all += len(required)
        scan_all_found += sum(any(score_real.matches(item, want) for item in reports.get(path, [])) for want in required)
    legible = totals["legible"]
    live_recall = totals["found"] / max(1, legible)
    scan_recall = scan_found / max(1, legible)
    print(f"{sum(len(truths[index_of[p]][0]) for p in scan_paths)} items on the chosen photos, {legible} legible in the clips")
    print("| reader | recall (legible in the clips) | precision | dup. / flicker | add latency median (p90), frames | phone numbers | CPU ms/frame |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    precision = (totals["reports"] - totals["false"]) / max(1, totals["reports"])
    print(f"| `scannerd run --pace {args.pace}` | {live_recall:.2f} ({totals['found']} / {legible}) | "
          f"{precision:.3f} ({totals['reports'] - totals['false']} / {totals['reports']}) | {totals['duplicates']} / {totals['flicker']} | "
          f"{median(latency):.0f} ({p90(latency):.0f}) | {median(phone_latency):.0f} ({p90(phone_latency):.0f}) | {statistics.mean(cpu_ms):.1f} |")
    print(f"| `scannerd scan` on the photos | {scan_recall:.2f} ({scan_found} / {legible}); all items {scan_all_found / max(1, scan_all):.2f} "
          f"({scan_all_found} / {scan_all}) | | | | | {1000 * scan_seconds / max(1, len(scan_paths)):.0f} ms an image |")
    print(f"live recall / scan recall: {live_recall / max(1e-9, scan_recall):.3f}")


if __name__ == "__main__":
    main()
