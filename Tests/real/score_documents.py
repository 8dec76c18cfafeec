#!/usr/bin/env python3
"""`make score-documents` (issue #53): documents straightened from real photos, scored end to end.

The photos are the development receipts of `make score-real` (../shared/real-dev, WildReceipt's
test split: receipts photographed on a table or in a hand), cached in OUT/images as that target
caches them. For each photo, `scannerd scan --types document --document OUT/documents/…` finds the
receipt and writes it straightened. A reference OCR — PP-OCRv6 alone (RapidOCR 3.10.0, onnxruntime,
one thread; its lines typed as `make score-real` types them: libphonenumber's matcher with the
photo's region, the same URL and e-mail expressions) — reads the photo and the straightened
document, in the same run. Scored:

- documents: the share of photos for which `scan` writes one;
- kept: of the typed items the reference reads on the photos, the share it reads on the documents
  (an item on a photo without a document counts as lost: what a person would get is nothing);
- colour: of the documents of colour photos (a channel differing from another by more than 24 levels
  on 1 % of the pixels), the share written in colour (a JPEG of three components: a white receipt
  on a colourful table is gray all over, and still a colour picture);
- time: `scan`'s per photo (the whole process).

The reference's lines are kept in OUT (the photos' in `make score-real`'s cache; the documents' by
their bytes' hash, so a changed document is read again).

    score_documents.py SCANNERD MIRROR OUT [--dev JSON] [--limit N] [--show]
"""

import hashlib
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

import score_real  # noqa: E402


def in_colour(path):
    """Whether the picture at `path` is in colour: a channel differs from another by more than 24
    levels on at least 1 % of its pixels (a gray picture's JPEG chroma noise stays under that)."""
    with Image.open(path) as image:
        if image.mode not in ("RGB", "RGBA", "CMYK", "YCbCr", "P"):
            return False
        rgb = np.asarray(image.convert("RGB"), dtype=np.int16)[::4, ::4]
    spread = rgb.max(axis=2) - rgb.min(axis=2)
    return float((spread > 24).mean()) >= 0.01


def straightened(scannerd, photo, out_dir):
    """The document `scan` writes for `photo` (named by its bytes' hash), or None; and the seconds."""
    target = os.path.join(out_dir, "document.tmp.jpeg")
    if os.path.exists(target):
        os.remove(target)
    start = time.monotonic()
    done = subprocess.run(
        [scannerd, "scan", "--types", "document", "--document", target, photo], capture_output=True, text=True
    )
    seconds = time.monotonic() - start
    if done.returncode not in (0, 1):
        sys.exit(f"score-documents: {scannerd} scan exited with {done.returncode}: {done.stderr.strip()}")
    if not os.path.exists(target):
        return None, seconds
    with open(target, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    kept = os.path.join(out_dir, f"{digest}.jpeg")
    os.replace(target, kept)
    return kept, seconds


def main():
    parser = score_real.development_arguments(__doc__)
    parser.add_argument("--show", action="store_true", help="list each photo's lost items and gray documents")
    args = parser.parse_args()
    dev = score_real.load_dev(args.dev, args.mirror, "score-documents")
    chosen, photos = score_real.images(dev, args.mirror, args.out, args.limit)
    chosen = score_real.corrected(chosen)
    regions = [score_real.region_of(image) for image in chosen]
    out_dir = os.path.join(args.out, "documents")
    os.makedirs(out_dir, exist_ok=True)

    documents, seconds = [], 0.0
    for photo in photos:
        document, spent = straightened(args.scannerd, photo, out_dir)
        documents.append(document)
        seconds += spent
    on_photos, _ = score_real.run_rapidocr(photos, regions, os.path.join(args.out, "rapidocr-3.10.0-lines.json"))
    found = [(d, r) for d, r in zip(documents, regions) if d]
    on_documents, _ = score_real.run_rapidocr(
        [d for d, _ in found], [r for _, r in found], os.path.join(args.out, "rapidocr-3.10.0-documents.json")
    )

    wanted = kept = colour_photos = colour_kept = 0
    for photo, document in zip(photos, documents):
        items = sorted(set(on_photos.get(photo, [])))
        read = on_documents.get(document, []) if document else []
        lost = [item for item in items if not any(score_real.matches(other, item) for other in read)]
        wanted += len(items)
        kept += len(items) - len(lost)
        gray = False
        if in_colour(photo) and document:
            colour_photos += 1
            with Image.open(document) as written:
                gray = written.mode != "RGB"
            colour_kept += not gray
        if args.show and (lost or gray or not document):
            name = os.path.basename(photo)
            said = "no document" if not document else f"{os.path.basename(document)}{' gray' if gray else ''}"
            print(f"    {name}: {said}; lost {lost}")

    n = len(photos)
    print(f"{n} photos, {wanted} typed items read by the reference on them")
    print("| what | measured |")
    print("|---|---|")
    print(f"| a document written | {len(found) / max(1, n):.2f} ({len(found)} / {n}) |")
    print(f"| the reference's typed items still read on the documents | {kept / max(1, wanted):.2f} ({kept} / {wanted}) |")
    print(f"| documents of colour photos in colour | {colour_kept / max(1, colour_photos):.2f} ({colour_kept} / {colour_photos}) |")
    print(f"| `scan --types document --document` per photo | {seconds / max(1, n):.2f} s |")


if __name__ == "__main__":
    main()
