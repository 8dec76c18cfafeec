#!/usr/bin/env python3
"""`make score-real` (issue #40): `scannerd scan` on real photos nobody here made, beside PP-OCRv6 alone.

The development set is ../shared/real-dev/wildreceipt-dev.json: 381 receipts photographed in the
wild (WildReceipt's test split), each line transcribed with its quad and label. The images are read
from a mirror of the repository the file names (`git --git-dir=MIRROR show COMMIT:PATH`), cached in
OUT/images, never committed.

Truth, derived from the transcriptions (the annotators removed spaces):
- phone numbers: the lines the dataset labels as a telephone value (label 5), with at least 7 digits
  (not a placeholder), matched on digits; an image's region is the country of a place its address
  names (PLACES), else the first of REGIONS where libphonenumber (the `phonenumbers` port) finds
  its phone lines valid, else US;
- e-mail addresses and web addresses: a regular expression over every line (`www.`/`http` or a
  domain ending in a common top-level domain; e-mail: local@domain.tld);
- also accepted (neither missed nor false): any other number libphonenumber finds valid in a line,
  and anything printed verbatim in a line (a phone number's national digits among a line's digits,
  an address's host or an e-mail address in a line's text).

Corrections (Tests/real/truth-fixes.json): transcription typos and printed lines the annotators left
out (watermarks, a fax number), each checked by eye on the photo, are applied before the truth is
derived; they change the truth for every reader alike.

Scored (per reader): recall of the truth items, false items (reported, matching nothing accepted)
per image, and time per image. Readers: `scannerd scan --types contentTypes --region R` (with its
models) and PP-OCRv6 alone — RapidOCR (PyPI rapidocr 3.10.0, onnxruntime, one thread) with the same
PP-OCRv6 small detector and recognizer, its lines typed by libphonenumber's matcher (VALID) and the
same two regular expressions.

    score_real.py SCANNERD MIRROR OUT [--limit N] [--readers scan,rapidocr[,rapidocr-gray]] [--scan-args "…"] [--show]
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

import phonenumbers

DEV = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "real-dev", "wildreceipt-dev.json")
REGIONS = ["US", "GB", "CA", "AU", "MY", "SG", "ID", "IN", "FR", "DE", "AT", "BE", "NL", "IT", "ES", "PH", "ZA", "HK", "CN", "AE"]
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# Top-level domains a bare domain (no `www.`, no scheme) must end in to count: the common ones of
# the receipts' countries. Two-letter words after a dot (`Trans.ID`, `incl.of`) are no domains.
TLDS = r"(?:com(?:\.[a-z]{2})?|net|org|edu|gov|co\.uk|ca|fr|de|be|at|nl|es|ie)"
URL = re.compile(
    r"(?:https?://)?(?:www\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:" + TLDS + r"|co\.[a-z]{2}|[a-z]{2}(?![a-z0-9]))"
    r"|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\." + TLDS + r"(?![A-Za-z0-9]))(?:/[A-Za-z0-9._~/-]*)?",
    re.IGNORECASE,
)


def digits(text):
    return re.sub(r"\D", "", text)


def host(url):
    u = url.lower()
    u = re.sub(r"^https?://", "", u)
    u = re.sub(r"^www\.", "", u)
    return u.split("/")[0].rstrip(".,")


# Places printed in the receipts' addresses (labels 1 and 3), by country: the country of the printed
# address is the region their phone numbers are read in. Checked by eye on every image that is not in
# the US (2026-11-25); where no place is printed, the first region where the phone lines are valid.
PLACES = {
    "GB": ["london", "edgbaston", "manchester", "camden", "morrisons", "plc", "abbeywood", "abboywood", "soho", "selfridges"],
    "AE": ["dubai", "u.a.e", "jumeirah", "umm suqeim", "ummsuqeim"],
    "SG": ["singapore", "orchardrd", "luckyplaza", "keppel", "anchorpoint"],
    "MY": ["selangor", "kuala", "bukitbintang", "sdn.bhd", "sdn bhd", "jaya"],
    "BE": ["bruxelles", "brussel"],
    "DE": ["berlin", "münchen", "hamburg"],
    "AT": ["wien"],
    "ES": ["barcelona", "madrid", "manzanares"],
    "LK": ["nuwaraeliya", "numaraeliya"],
    "IT": ["00193roma", "vaticano", "veneto", "milano", "stresa"],
    "IN": ["mumbai", "numbai", "chennai", "chennal", "kolkata", "lowerparel"],
    "HK": ["hongkong", "hong kong", "shatin", "sheungwan"],
    "TH": ["bangkok", "sukhumvit"],
    "FR": ["paris", "villefranche", "luxembourg"],
    "NL": ["breda", "cassen", "hazeldonk"],
    "ID": ["jakarta", "cikini", "pekanbaru", "pekanbanu"],
    "AU": ["vic3", "nsw", "southbank"],
    "IE": ["dundalk"],
    "ZA": ["pinelands", "plnelands"],
    "PH": ["jollibee"],
}
REGIONS = ["US", "CA", "GB", "AU", "MY", "SG", "ID", "IN", "FR", "DE", "AT", "BE", "NL", "IT", "ES", "PH", "ZA", "HK", "AE"]


US_PLACE = re.compile(r"(?:\b|[a-z,.])(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[AT]|W[AIVY])\.?\s?\d{5}\b|newyork|lasvegas|california")


def region_of(image):
    address = " ".join(l["text"] for l in image["lines"] if l["label"] in (1, 3))
    if US_PLACE.search(address) or US_PLACE.search(address.lower()):
        return "US"
    for region, places in PLACES.items():
        if any(place in address.lower() for place in places):
            return region
    # No place named: numbers written with a trunk 0 or a + are not North American; the first
    # region where they are valid. Otherwise US.
    phones = [l["text"] for l in image["lines"] if l["label"] == 5 and len(digits(l["text"])) >= 7]
    for region in REGIONS:
        for text in phones:
            if re.match(r"\D*[0+]", text) and phone_items(text, region):
                return region
    return "US"


def web_items(text):
    items = []
    for m in EMAIL.finditer(text):
        items.append(("emailAddress", m.group(0).lower()))
    stripped = EMAIL.sub(" ", text)
    for m in URL.finditer(stripped):
        url = m.group(0)
        # Words run into the address where the annotators removed spaces (`Visitwww.…`).
        if "www." in url.lower():
            url = url[url.lower().index("www."):]
        if "@" not in url and len(host(url)) >= 5:
            items.append(("url", host(url)))
    return items


def phone_items(text, region, leniency=phonenumbers.Leniency.VALID):
    found = []
    for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=leniency):
        found.append(("telephoneNumber", phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)))
    return found


FIXES = os.path.join(os.path.dirname(__file__), "truth-fixes.json")


def corrected(images):
    """`images` with the transcription fixes and additions of FIXES applied (by image path)."""
    with open(FIXES) as f:
        fixes = json.load(f)
    by_path = {image["path"]: image for image in images}
    for fix in fixes["fixes"]:
        image = by_path.get(fix["path"])
        if image is None:
            continue
        lines = [line for line in image["lines"] if line["text"] == fix["transcribed"]]
        if not lines:
            sys.exit(f"score-real: {FIXES}: no line {fix['transcribed']!r} in {fix['path']}")
        for line in lines:
            line["text"] = fix["printed"]
    for addition in fixes["additions"]:
        image = by_path.get(addition["path"])
        if image is not None:
            image["lines"].append({"text": addition["printed"], "label": addition["label"], "box": []})
    return images


def truth(image, region):
    """What must be read (`required`), and what may be reported without being false (`accepted`):
    the required items, every number libphonenumber finds valid in a line, and anything printed
    verbatim in a line (`printed`: its text, lowercase, and its digits)."""
    required, accepted = [], []
    for line in image["lines"]:
        required += required_items(line)
        accepted += phone_items(line["text"], region)
    printed = [(l["text"].lower(), digits(l["text"])) for l in image["lines"]]
    return required, accepted, printed


def required_items(line):
    """The items one transcribed line holds that a reader must read."""
    text = line["text"]
    required = []
    # A phone line's digits; not a placeholder such as `(000)000-0000`.
    if line["label"] == 5 and len(digits(text)) >= 7 and len(set(digits(text))) >= 3:
        required.append(("telephoneNumber", digits(text)))
    return required + web_items(text)


def printed_verbatim(item, printed):
    kind, value = item
    if kind == "telephoneNumber":
        try:
            national = str(phonenumbers.parse(value, None).national_number)
        except phonenumbers.NumberParseException:
            return False
        return len(national) >= 7 and any(national in line_digits for _, line_digits in printed)
    wanted = host(value) if kind == "url" else value.lower()
    return len(wanted) >= 5 and any(wanted in text for text, _ in printed)


def matches(item, want):
    kind, value = item
    want_kind, want_value = want
    if kind != want_kind:
        return False
    if kind == "telephoneNumber":
        # The item's national number (E.164 without its country code) among the line's digits, or
        # the line's digits (without a trunk 0) ending the item's: on digits, as the annotators
        # removed spaces and kept whatever else the line held (`**STORE#204(705)745-3381**`).
        try:
            national = str(phonenumbers.parse(value, None).national_number) if value.startswith("+") else digits(value)
        except phonenumbers.NumberParseException:
            national = digits(value)
        printed = digits(want_value)
        return (len(national) >= 6 and national in printed) or (len(printed.lstrip("0")) >= 7 and digits(value).endswith(printed.lstrip("0")))
    if kind == "url":
        a, b = host(value), host(want_value)
        shorter = min(a, b, key=len)
        return "." in shorter and len(shorter) >= 5 and (a.endswith(b) or b.endswith(a))
    return value.lower() == want_value.lower()


def score(reports, truths):
    found = total = false = 0
    misses, falses = [], []
    for key, (required, accepted, printed) in truths.items():
        reported = reports.get(key, [])
        total += len(required)
        for want in required:
            if any(matches(item, want) for item in reported):
                found += 1
            else:
                misses.append((key, want))
        for item in reported:
            if not any(matches(item, want) for want in required + accepted) and not printed_verbatim(item, printed):
                false += 1
                falses.append((key, item))
    return found, total, false, misses, falses


def load_dev(path, mirror, tool):
    """The development set at `path`, once it and the mirror of its images are there (else a one-line error)."""
    if not os.path.isfile(path):
        sys.exit(f"{tool}: {path}: no development set (REAL_DEV=)")
    if not os.path.isdir(mirror):
        sys.exit(f"{tool}: {mirror}: no mirror of the images' repository (REAL_DEV_MIRROR=; ../shared/real-dev/README.md)")
    with open(path) as f:
        return json.load(f)


def images(dev, mirror, out, limit):
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    chosen = dev["images"][:limit] if limit else dev["images"]
    paths = []
    for index, image in enumerate(chosen):
        path = os.path.join(out, "images", f"{index:03d}.jpeg")
        if not os.path.exists(path):
            data = subprocess.run(
                ["git", "--git-dir", mirror, "show", f"{image['commit']}:{image['path']}"], capture_output=True, check=True
            ).stdout
            with open(path + ".tmp", "wb") as f:
                f.write(data)
            os.replace(path + ".tmp", path)
        paths.append(path)
    return chosen, paths


def run_scan(scannerd, paths, regions, extra, details=None):
    """`details`, when given, gets each report's JSON object keyed by image and (type, payload)."""
    reports = collections.defaultdict(list)
    seconds = 0.0
    by_region = collections.defaultdict(list)
    for path, region in zip(paths, regions):
        by_region[region].append(path)
    for region, group in by_region.items():
        start = time.monotonic()
        done = subprocess.run(
            [scannerd, "scan", "--types", "contentTypes", "--region", region, *extra, *group], capture_output=True, text=True
        )
        seconds += time.monotonic() - start
        for line in done.stdout.splitlines():
            item = json.loads(line)
            reports[item["image"]].append((item["contentType"], item["payload"]))
            if details is not None:
                details[(item["image"], item["contentType"], item["payload"])] = item
        for line in done.stderr.splitlines()[:5]:
            print(f"  scan: {line}", file=sys.stderr)
        # An image past scan's time limit has what was found by then printed, and makes the exit
        # status 2: that is scan's behaviour on this machine, scored as it is (a slow CPU: more
        # time with --scan-args "--max-seconds 60"). Any other error ends the run.
        errors = [line for line in done.stderr.splitlines() if line.startswith("scannerd: ")]
        limited = [line for line in errors if "s limit (--max-seconds)" in line]
        if limited:
            print(f"  scan: {len(limited)} image(s) stopped at the time limit, scored with what was found by then", file=sys.stderr)
        if done.returncode not in (0, 1) and not (done.returncode == 2 and errors and len(limited) == len(errors)):
            sys.exit(f"score-real: {scannerd} scan exited with {done.returncode}")
    return reports, seconds


def run_rapidocr(paths, regions, cache, gray=False):
    """RapidOCR's lines of each image, typed here. Its lines and times are kept in `cache` (they do
    not change from run to run; delete it to measure again). `gray`: the image is made gray first
    (the three channels equal), as scannerd sees it: what colour is worth to the networks."""
    lines = {}
    if os.path.exists(cache):
        with open(cache) as f:
            lines = json.load(f)
    missing = [path for path in paths if os.path.basename(path) not in lines]
    if missing:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        from rapidocr import RapidOCR

        # RapidOCR 3.10's defaults are PP-OCRv6 small detection and recognition, its models in the wheel.
        engine = RapidOCR(params={
            "Global.use_cls": False,
            "Global.log_level": "warning",
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        })
        for path in missing:
            start = time.monotonic()
            if gray:
                import numpy
                from PIL import Image

                with Image.open(path) as image:
                    result = engine(numpy.asarray(image.convert("L").convert("RGB")), use_cls=False)
            else:
                result = engine(path, use_cls=False)
            lines[os.path.basename(path)] = {"seconds": time.monotonic() - start, "lines": list(result.txts or ())}
        with open(cache + ".tmp", "w") as f:
            json.dump(lines, f)
        os.replace(cache + ".tmp", cache)
    reports = collections.defaultdict(list)
    seconds = 0.0
    for path, region in zip(paths, regions):
        entry = lines[os.path.basename(path)]
        seconds += entry["seconds"]
        for text in entry["lines"]:
            for kind, value in phone_items(text, region) + web_items(text):
                reports[path].append((kind, value))
    return reports, seconds


def dump(path, reports, truths, details):
    """Each report of scan with its verdict: `right` (a required item), `accepted` (a valid phone
    number on the image, or printed verbatim) or `false`; for choosing a threshold on the whole set."""
    rows = []
    for key, (required, accepted, printed) in truths.items():
        for item in reports.get(key, []):
            if any(matches(item, want) for want in required):
                verdict = "right"
            elif any(matches(item, want) for want in accepted) or printed_verbatim(item, printed):
                verdict = "accepted"
            else:
                verdict = "false"
            rows.append({**details.get((key, *item), {}), "verdict": verdict})
    with open(path, "w") as f:
        json.dump(rows, f, indent=1)


def development_arguments(doc, limit_help=None):
    """The arguments every scorer of the development set takes: SCANNERD MIRROR OUT [--dev] [--limit]."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("scannerd")
    parser.add_argument("mirror")
    parser.add_argument("out")
    parser.add_argument("--dev", default=DEV, help="the development set's JSON (default: ../shared/real-dev beside the repository)")
    parser.add_argument("--limit", type=int, default=0, help=limit_help)
    return parser


def main():
    parser = development_arguments(__doc__)
    parser.add_argument("--min-side", type=int, default=0, help="only the images whose longer side is at least this many pixels")
    parser.add_argument("--readers", default="scan,rapidocr")
    parser.add_argument("--show", action="store_true", help="list every miss and false item")
    parser.add_argument("--scan-args", default="", help="more arguments for scannerd scan, space-separated")
    parser.add_argument("--dump", help="write scan's reports to this JSON file, each with its verdict (right, accepted, false)")
    args = parser.parse_args()
    dev = load_dev(args.dev, args.mirror, "score-real")
    chosen, paths = images(dev, args.mirror, args.out, args.limit)
    chosen = corrected(chosen)
    if args.min_side:
        kept = [(image, path) for image, path in zip(chosen, paths) if max(image["width"], image["height"]) >= args.min_side]
        chosen, paths = [image for image, _ in kept], [path for _, path in kept]
    regions = [region_of(image) for image in chosen]
    truths = {path: truth(image, region) for path, image, region in zip(paths, chosen, regions)}
    required = sum(len(r) for r, _, _ in truths.values())
    kinds = collections.Counter(k for r, _, _ in truths.values() for k, _ in r)
    print(f"{len(paths)} images, {required} items to read ({dict(kinds)}), regions {dict(collections.Counter(regions))}")
    print("| reader | recall | false items (per image) | time per image |")
    print("|---|---|---|---|")
    for reader in args.readers.split(","):
        if reader == "scan":
            details = {}
            reports, seconds = run_scan(args.scannerd, paths, regions, args.scan_args.split(), details)
            if args.dump:
                dump(args.dump, reports, truths, details)
            name = "`scannerd scan`"
        elif reader == "rapidocr":
            reports, seconds = run_rapidocr(paths, regions, os.path.join(args.out, "rapidocr-3.10.0-lines.json"))
            name = "PP-OCRv6 alone (RapidOCR, onnxruntime, one thread)"
        elif reader == "rapidocr-gray":
            reports, seconds = run_rapidocr(paths, regions, os.path.join(args.out, "rapidocr-3.10.0-gray-lines.json"), gray=True)
            name = "PP-OCRv6 alone on the gray image"
        else:
            sys.exit(f"score-real: unknown reader {reader}")
        found, total, false, misses, falses = score(reports, truths)
        print(f"| {name} | {found / max(1, total):.2f} ({found} / {total}) | {false} ({false / len(paths):.3f}) | {seconds / len(paths):.2f} s |")
        if args.show:
            for key, want in misses:
                print(f"    missed {os.path.basename(key)} {want}")
            for key, item in falses:
                print(f"    false  {os.path.basename(key)} {item}")


if __name__ == "__main__":
    main()
