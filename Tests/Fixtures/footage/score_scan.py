#!/usr/bin/env python3
"""Scores `scannerd scan` on still frames of generated clips (issue #13): does it read every phone
number, URL and e-mail address a person can read, and nothing else?

    python3 Tests/Fixtures/footage/score_scan.py SCANNERD WORKDIR (mid|qhq) CLIPDIR... [-- SCAN-OPTIONS]

Standard library only. For each clip's truth, the frames where a typed item is legible: `mid` takes
the middle one of each item's legible frames, `qhq` the ones a quarter, half and three quarters in.
A clip with no typed item legible anywhere (the empty desk) gives its middle frame (`qhq`: the three),
where anything typed scan reports is false.
Those frames are cut out of the clip into WORKDIR and scanned in one `scannerd scan` run. Per frame:
read = the truth items legible there whose payload scan reports; false = typed payloads scan reports
that are no truth item of the clip (a distractor, a misread, a part of something). Prints the totals,
then every miss and every false payload.
"""
import glob
import json
import os
import subprocess
import sys


def frames_of(clip):
    """The JPEG frames of an MJPEG file (each from its SOI to its EOI marker)."""
    data = open(clip, "rb").read()
    frames, i = [], 0
    while True:
        start = data.find(b"\xff\xd8", i)
        end = data.find(b"\xff\xd9", start) if start >= 0 else -1
        if end < 0:
            return frames
        frames.append(data[start:end + 2])
        i = end + 2


def main():
    args = sys.argv[1:]
    options = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    if len(args) < 4 or args[2] not in ("mid", "qhq"):
        sys.exit(__doc__)
    scannerd, work, mode, dirs = args[0], args[1], args[2], args[3:]
    os.makedirs(work, exist_ok=True)
    jobs = []  # (frame file, clip name, payloads legible there, every payload of the clip)
    for directory in dirs:
        for truth_path in sorted(glob.glob(os.path.join(directory, "*.json"))):
            truth = json.load(open(truth_path))
            name = os.path.basename(truth_path)[:-5]
            wanted = {}
            for item in truth["items"]:
                if not item.get("contentType") or item.get("distractor"):
                    continue
                legible = [fr["frame"] for fr in item["frames"] if fr["legible"]]
                if not legible:
                    continue
                n = len(legible)
                picks = [legible[n // 2]] if mode == "mid" else [legible[n // 4], legible[n // 2], legible[3 * n // 4]]
                for frame in picks:
                    wanted.setdefault(frame, set()).add(item["payload"])
            frames = frames_of(truth_path[:-5] + ".mjpeg")
            if not wanted:
                n = len(frames)
                for frame in ([n // 2] if mode == "mid" else [n // 4, n // 2, 3 * n // 4]):
                    wanted[frame] = set()
            payloads = {item["payload"] for item in truth["items"] if item.get("payload")}
            for frame, legible in sorted(wanted.items()):
                path = os.path.join(work, f"{name}-{frame}.jpg")
                with open(path, "wb") as f:
                    f.write(frames[frame])
                jobs.append((path, name, legible, payloads))
    result = subprocess.run([scannerd, "scan", *options, *[job[0] for job in jobs]], capture_output=True, text=True)
    if result.returncode == 2:
        sys.exit(f"score_scan: scannerd scan failed: {result.stderr.strip()}")
    reported = {}
    for line in result.stdout.splitlines():
        item = json.loads(line)
        if item.get("contentType"):
            reported.setdefault(item["image"], set()).add(item["payload"])
    read = total = false = 0
    report = []
    for path, name, legible, payloads in jobs:
        got = reported.get(path, set())
        total += len(legible)
        read += len(legible & got)
        report += [f"  missed {os.path.basename(path)}: {p}" for p in sorted(legible - got)]
        wrong = got - payloads
        false += len(wrong)
        report += [f"  FALSE  {os.path.basename(path)}: {p}" for p in sorted(wrong)]
    print(f"{mode} frames of {len(dirs)} clip set(s): read {read}/{total}, false {false}")
    print("\n".join(report))


if __name__ == "__main__":
    main()
