#!/usr/bin/env python3
"""Many codes in one image (issue #54): `scannerd scan` on generated mosaics of distinct QR codes,
timed as whole processes; prints a markdown table for docs/benchmarks.md.

  many_codes.py SCANNERD [--max-seconds N] [--runs N] [SCANNERD_OLD ...]

Mosaics: n x n cells of 140 px (QR version 1-2 at 4 px a module) from 7 x 7 (49 codes, 980 px) to
49 x 49 (2,401 codes, 6,860 px); and a 66 x 66 page of 4,356 codes at 2 px a module (60 px cells,
3,960 px). Each code says `mosaic-<n>-<i>`; a code read is one whose payload is printed. Needs segno,
numpy and Pillow (.build/footage-venv).
"""
import argparse, json, os, subprocess, tempfile, time

import numpy as np
import segno
from PIL import Image


def mosaic(path, n, cell, scale):
    side = n * cell
    page = np.full((side, side), 255, dtype=np.uint8)
    for i in range(n * n):
        code = segno.make_qr(f"mosaic-{n}-{i}", error="m")
        matrix = np.array(code.matrix, dtype=np.uint8)
        block = np.kron(1 - matrix, np.ones((scale, scale), dtype=np.uint8)) * 255
        row, col = divmod(i, n)
        y = row * cell + (cell - block.shape[0]) // 2
        x = col * cell + (cell - block.shape[1]) // 2
        page[y:y + block.shape[0], x:x + block.shape[1]] = block
    Image.fromarray(page).save(path)
    return side


def timed(command):
    """Wall seconds, CPU seconds, peak RSS (MB), stdout and stderr of one whole process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, _, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, out.read().decode(), err.read().decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--sizes", default="7,14,20,28,49")
    parser.add_argument("--small", action="store_true", help="also the 4,356 codes at 2 px a module")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="scannerd-codes.")
    cases = [(n, 140, 4) for n in map(int, args.sizes.split(","))]
    if args.small:
        cases.append((66, 60, 2))
    print("| binary | codes | image | read | wall | CPU | per code (CPU) | peak RSS | stopped |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    for n, cell, scale in cases:
        path = os.path.join(work, f"mosaic-{n}-{scale}.png")
        side = mosaic(path, n, cell, scale)
        for binary in args.binaries:
            command = [binary, "scan", "--types", "qr", path]
            if args.max_seconds is not None:
                command[2:2] = ["--max-seconds", str(args.max_seconds)]
            wall, cpu, rss, out, err = timed(command)
            payloads = {json.loads(line)["payload"] for line in out.splitlines() if line.startswith("{")}
            read = sum(1 for i in range(n * n) if f"mosaic-{n}-{i}" in payloads)
            stopped = "yes" if "limit" in err else ""
            print(f"| `{binary}` | {n * n} | {side}² | {read} | {wall:.2f} s | {cpu:.2f} s | {1000 * cpu / (n * n):.1f} ms "
                  f"| {rss} MB | {stopped} |", flush=True)
        os.remove(path)
    os.rmdir(work)


if __name__ == "__main__":
    main()
