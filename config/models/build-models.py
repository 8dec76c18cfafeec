#!/usr/bin/env python3
"""Unpacks the text networks scannerd reads with (docs/recognition.md, issue #40).

PaddleOCR's PP-OCRv6 small text detector and text-line recognizer (Apache-2.0), as shipped in the
`rapidocr` 3.10.0 wheel on PyPI. Nothing here is committed or fetched from anywhere but PyPI: the
wheel's SHA-256 is checked. The detector is used as shipped; the recognizer's last layer (one score
for each of 18,710 characters at every step, most of them Chinese) keeps the characters scannerd reads
(`reads`: 538 and the blank), so its softmax is taken among those, as scannerd's decoding took it
before, for a fifth less time a line (15.2 → 12.0 ms at 48×320, 26.9 → 23.1 ms at 48×640, one
thread, 2026-11-25) and 9 MB less of weights.

    build-models.py OUTPUT_DIR --wheel rapidocr-3.10.0-py3-none-any.whl

writes OUTPUT_DIR/text-detector.onnx, OUTPUT_DIR/text-recognizer.onnx and OUTPUT_DIR/alphabet.json
(the recognizer's CTC classes it keeps: index 0 is the blank, then the characters in the model's
order; the model lists them in its metadata, which OpenVINO's C API does not expose). The file names are
`ModelDirectory`'s (Sources/InferenceRuntime).
"""

import argparse
import hashlib
import json
import os
import sys
import zipfile

import onnx
from onnx import numpy_helper

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


def reads(character):
    """The characters scannerd reads: Latin letters with their accents, digits and ASCII punctuation
    (up to U+024F), the general punctuation of U+2010-U+2027 (dashes, quotes, bullets), the euro sign."""
    if len(character) != 1:
        return False
    code = ord(character)
    return code < 0x250 or 0x2010 <= code <= 0x2027 or code == 0x20AC


# The recognizer's classifier: a MatMul by this weight, then an Add of this bias, then the softmax.
CLASSIFIER = ("linear_8.w_0", "linear_8.b_0")


def latin_recognizer(model_bytes, classes):
    """The recognizer with only the classes `reads` keeps (and the blank), and those classes."""
    model = onnx.load_from_string(model_bytes)
    keep = [0] + [i for i in range(1, len(classes)) if reads(classes[i])]
    found = 0
    for initializer in model.graph.initializer:
        if initializer.name in CLASSIFIER:
            values = numpy_helper.to_array(initializer)
            if values.shape[-1] != len(classes):
                fail(f"{initializer.name} has {values.shape[-1]} classes, the metadata {len(classes)}")
            initializer.CopyFrom(numpy_helper.from_array(values[..., keep], initializer.name))
            found += 1
    if found != len(CLASSIFIER):
        fail(f"{MEMBERS['text-recognizer.onnx']}: no classifier {CLASSIFIER}")
    dims = model.graph.output[0].type.tensor_type.shape.dim
    dims[len(dims) - 1].dim_value = len(keep)
    onnx.checker.check_model(model)
    return model.SerializeToString(), [classes[i] for i in keep]


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
    recognizer, classes = latin_recognizer(models["text-recognizer.onnx"], alphabet(models["text-recognizer.onnx"]))
    models["text-recognizer.onnx"] = recognizer
    for name, data in models.items():
        write(os.path.join(args.output, name), data)
    write(os.path.join(args.output, "alphabet.json"), json.dumps(classes, ensure_ascii=False).encode("utf-8"))


if __name__ == "__main__":
    main()
