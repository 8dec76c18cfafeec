#!/usr/bin/env python3
"""Unpacks the text networks scannerd reads with (docs/recognition.md, issue #40).

PaddleOCR's PP-OCRv6 small text detector and text-line recognizer (Apache-2.0), as shipped in the
`rapidocr` 3.10.0 wheel on PyPI. Nothing here is committed or fetched from anywhere but PyPI: the
wheel's SHA-256 is checked and the models are used as shipped (OpenVINO reads them; the rewrites
Debian's OpenCV 4.6 needed are gone with it).

    build-models.py OUTPUT_DIR --wheel rapidocr-3.10.0-py3-none-any.whl

writes OUTPUT_DIR/text-detector.onnx, OUTPUT_DIR/text-recognizer.onnx and OUTPUT_DIR/alphabet.json
(the recognizer's CTC classes: index 0 is the blank, then the model's characters, then a space; the
model keeps them in its metadata, which OpenVINO's C API does not expose). The file names are
`ModelDirectory`'s (Sources/InferenceRuntime).
"""

import argparse
import hashlib
import json
import os
import sys
import zipfile

import onnx

WHEEL_SHA256 = "2fc34e26cd0f48514804a94f8832283039c7334076bff60768b1fed9ad068050"
MEMBERS = {
    "text-detector.onnx": "rapidocr/models/PP-OCRv6_det_small.onnx",
    "text-recognizer.onnx": "rapidocr/models/PP-OCRv6_rec_small.onnx",
}


def fail(message):
    print(f"build-models: {message}", file=sys.stderr)
    sys.exit(1)


def checked_wheel(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != WHEEL_SHA256:
        fail(f"{path}: SHA-256 {digest.hexdigest()}, expected {WHEEL_SHA256}")
    return zipfile.ZipFile(path)


def alphabet(model_bytes):
    props = {p.key: p.value for p in onnx.load_from_string(model_bytes).metadata_props}
    if "character" not in props:
        fail(f"{MEMBERS['text-recognizer.onnx']} has no 'character' metadata")
    # PaddleOCR's CTC head: class 0 is the blank, then the listed characters, then a space.
    return ["<blank>"] + props["character"].split("\n") + [" "]


def write(path, data):
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)
    print(f"build-models: {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--wheel", required=True)
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    with checked_wheel(args.wheel) as wheel:
        models = {name: wheel.read(member) for name, member in MEMBERS.items()}
    for name, data in models.items():
        write(os.path.join(args.output, name), data)
    classes = alphabet(models["text-recognizer.onnx"])
    write(os.path.join(args.output, "alphabet.json"), json.dumps(classes, ensure_ascii=False).encode("utf-8"))


if __name__ == "__main__":
    main()
