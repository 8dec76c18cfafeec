#!/usr/bin/env python3
"""Builds the line recognizer `scannerd scan` reads typed lines with (docs/recognition.md).

The model is PP-OCRv6 small's text-line recognizer (PaddleOCR, Apache-2.0), as shipped in the
`rapidocr` 3.10.0 wheel on PyPI. Nothing here is committed or fetched from anywhere but PyPI: the
wheel's SHA-256 is checked, then the model is rewritten so that Debian 12's OpenCV 4.6 DNN loads it.
Every rewrite keeps the arithmetic; `--check` compares the result with onnxruntime on random input.

    build-line-model.py OUTPUT_DIR --wheel rapidocr-3.10.0-py3-none-any.whl

writes OUTPUT_DIR/rec-48xW.onnx for each width in WIDTHS (OpenCV 4.6 needs a fixed input size; a line
is squeezed or padded to one of them) and OUTPUT_DIR/alphabet.json (the CTC classes: index 0 is the blank,
then the model's own characters that scannerd reads, then a space).

The model reads 18,709 characters, most of them Chinese; scannerd wants the Latin ones (phone
numbers, e-mail addresses, links). Its last layer, which scores every character at every step, is
cut down to the blank and the characters of `reads`: the same scores for those, and a softmax over
them alone. That made a 48x320 line 80 ms in OpenCV instead of 117, and a 48x640 line 162 instead
of 234 (one thread, 2026-11-24).
"""

import argparse
import hashlib
import json
import os
import sys
import zipfile

import numpy as np
import onnx
import onnxsim
from onnx import helper, numpy_helper

WHEEL_SHA256 = "2fc34e26cd0f48514804a94f8832283039c7334076bff60768b1fed9ad068050"
MEMBER = "rapidocr/models/PP-OCRv6_rec_small.onnx"
HEIGHT = 48
WIDTHS = (320, 640, 960, 1280)


def fail(message):
    print(f"build-line-model: {message}", file=sys.stderr)
    sys.exit(1)


def load_from_wheel(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != WHEEL_SHA256:
        fail(f"{path}: SHA-256 {digest.hexdigest()}, expected {WHEEL_SHA256}")
    with zipfile.ZipFile(path) as wheel:
        return onnx.load_from_string(wheel.read(MEMBER))


def alphabet(model):
    props = {p.key: p.value for p in model.metadata_props}
    if "character" not in props:
        fail(f"{MEMBER} has no 'character' metadata")
    # PaddleOCR's CTC head: class 0 is the blank, then the listed characters, then a space.
    return ["<blank>"] + props["character"].split("\n") + [" "]


def reads(character):
    """The characters kept: Latin letters with their accents, digits and ASCII punctuation (up to
    U+024F), the general punctuation of U+2010-U+2027 (dashes, quotes, bullets), the euro sign."""
    code = ord(character)
    return code < 0x250 or 0x2010 <= code <= 0x2027 or character == "\u20ac"


def kept_classes(classes):
    """Indices of the classes kept: the blank, then each character `reads`."""
    return [0] + [i for i, c in enumerate(classes) if i > 0 and len(c) == 1 and reads(c)]


def cut_head(model, classes, kept):
    """The last Gemm scores all of `classes` (its weights are (out, in) once transposed); only the
    rows of `kept` stay, and the Reshape after it and the output take the new count."""
    inits = {i.name: i for i in model.graph.initializer}
    gemms = [n for n in model.graph.node if n.op_type == "Gemm" and n.input[1] in inits
             and numpy_helper.to_array(inits[n.input[1]]).shape[0] == len(classes)]
    if len(gemms) != 1:
        fail(f"expected one Gemm scoring {len(classes)} classes, found {len(gemms)}")
    gemm = gemms[0]
    for name in gemm.input[1:3]:
        values = numpy_helper.to_array(inits[name])
        inits[name].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(values[kept]), name))
    for node in model.graph.node:
        if node.op_type == "Reshape" and node.input[1] in inits:
            shape = numpy_helper.to_array(inits[node.input[1]])
            if len(classes) in shape:
                shape = np.where(shape == len(classes), len(kept), shape).astype(shape.dtype)
                inits[node.input[1]].CopyFrom(numpy_helper.from_array(shape, node.input[1]))
    model.graph.output[0].type.tensor_type.shape.dim[-1].dim_value = len(kept)
    # The shapes onnx-simplifier recorded still say the old count; none is needed to run the model.
    del model.graph.value_info[:]


def transposed_gemm_weights(model):
    """OpenCV 4.6's Gemm import takes B as (out, in): a Gemm with transB=0 and constant B gets B
    transposed and transB=1, the same product."""
    inits = {i.name: i for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "Gemm" or node.input[1] not in inits:
            continue
        attrs = {a.name: a for a in node.attribute}
        if "transB" in attrs and helper.get_attribute_value(attrs["transB"]) == 1:
            continue
        w = inits[node.input[1]]
        w.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(numpy_helper.to_array(w).T), w.name))
        for a in list(node.attribute):
            if a.name == "transB":
                node.attribute.remove(a)
        node.attribute.append(helper.make_attribute("transB", 1))


def shapes(model):
    inferred = onnx.shape_inference.infer_shapes(model)
    out = {}
    for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        dims = v.type.tensor_type.shape.dim
        out[v.name] = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    return out


def channel_last_scales_between_transposes(model):
    """OpenCV 4.6 imports Mul/Add of a tensor by a constant vector as a per-channel scale over axis 1;
    on a (1, T, C) tensor (the transformer's layer norms) the vector belongs to axis 2. Such a node
    gets a transpose to (1, C, T) before it and one back after it, and its vector the shape (C, 1).
    Also where T equals C: OpenCV takes axis 1 then too (the 960 px model has T = C = 120, and read
    every line garbled until 2026-11-24)."""
    inits = {i.name: i for i in model.graph.initializer}
    known = shapes(model)
    nodes = []
    for node in model.graph.node:
        const = [i for i in node.input if i in inits]
        other = [i for i in node.input if i not in inits]
        if node.op_type in ("Mul", "Add") and len(const) == 1 and len(other) == 1:
            shape = known.get(other[0])
            vector = numpy_helper.to_array(inits[const[0]])
            if shape and len(shape) == 3 and vector.ndim == 1 and vector.size == shape[2]:
                before, after = node.name + "_to_ct", node.name + "_from_ct"
                t_in, t_out = other[0] + "__ct_" + node.name, node.output[0] + "__ct"
                nodes.append(helper.make_node("Transpose", [other[0]], [t_in], name=before, perm=[0, 2, 1]))
                reshaped = const[0] + "__c1_" + node.name
                model.graph.initializer.append(numpy_helper.from_array(vector.reshape(-1, 1), reshaped))
                output = node.output[0]
                node.ClearField("input")
                node.input.extend([t_in, reshaped])
                node.ClearField("output")
                node.output.append(t_out)
                nodes.append(node)
                nodes.append(helper.make_node("Transpose", [t_out], [output], name=after, perm=[0, 2, 1]))
                continue
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    used = {i for n in model.graph.node for i in n.input}
    for init in [i for i in model.graph.initializer if i.name not in used]:
        model.graph.initializer.remove(init)


def build(model, width, classes, kept):
    fixed, ok = onnxsim.simplify(model, overwrite_input_shapes={model.graph.input[0].name: [1, 3, HEIGHT, width]})
    if not ok:
        fail(f"onnx-simplifier could not check the {width} px model")
    transposed_gemm_weights(fixed)
    channel_last_scales_between_transposes(fixed)
    cut_head(fixed, classes, kept)
    onnx.checker.check_model(fixed)
    return fixed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--wheel", required=True)
    parser.add_argument("--check", action="store_true", help="compare with onnxruntime (needs it installed)")
    args = parser.parse_args()
    model = load_from_wheel(args.wheel)
    os.makedirs(args.output, exist_ok=True)
    classes = alphabet(model)
    kept = kept_classes(classes)
    for width in WIDTHS:
        built = build(model, width, classes, kept)
        path = os.path.join(args.output, f"rec-{HEIGHT}x{width}.onnx")
        onnx.save(built, path + ".tmp")
        os.replace(path + ".tmp", path)
        outputs = built.graph.output[0].type.tensor_type.shape.dim
        if outputs[-1].dim_value != len(kept):
            fail(f"{path}: {outputs[-1].dim_value} classes, the alphabet has {len(kept)}")
        if args.check:
            import onnxruntime

            x = np.random.default_rng(width).uniform(-1, 1, (1, 3, HEIGHT, width)).astype(np.float32)
            want = onnxruntime.InferenceSession(model.SerializeToString()).run(None, {model.graph.input[0].name: x})[0]
            got = onnxruntime.InferenceSession(built.SerializeToString()).run(None, {built.graph.input[0].name: x})[0]
            # The cut head's softmax is the original's over the kept classes, renormalized.
            want = want[..., kept] / want[..., kept].sum(axis=-1, keepdims=True)
            print(f"{path}: max difference from the original {np.abs(want - got).max():.2e}")
        print(f"build-line-model: {path}")
    with open(os.path.join(args.output, "alphabet.json.tmp"), "w", encoding="utf-8") as f:
        json.dump([classes[i] for i in kept], f, ensure_ascii=False)
    os.replace(os.path.join(args.output, "alphabet.json.tmp"), os.path.join(args.output, "alphabet.json"))


if __name__ == "__main__":
    main()
