#!/usr/bin/env python3
"""Generates the CMYK JPEG fixtures (issue #54): the QR fixture on white with a red patch, as print and
scan workflows write JPEGs. Run by hand after changing it (Pillow only); the outputs are committed:

    .build/score-venv/bin/python Tests/Fixtures/generate_cmyk.py

- cmyk-adobe.jpg: as Adobe's applications (and Pillow) write CMYK: the channels inverted, with the
  APP14 "Adobe" marker that says so.
- cmyk-plain.jpg: CMYK storing the ink itself, without the Adobe marker.
"""
import io
import os

from PIL import Image, ImageChops

HERE = os.path.dirname(os.path.abspath(__file__))


def scene():
    qr = Image.open(os.path.join(HERE, "qr.png")).convert("RGB")
    image = Image.new("RGB", (qr.width + 140, max(qr.height, 120)), "white")
    image.paste(qr, (0, 0))
    image.paste((220, 20, 20), (qr.width + 20, 20, qr.width + 120, 100))
    return image.convert("CMYK")


def without_app14(jpeg):
    """The JPEG's segments before its first scan, APP14 left out, then the rest as it is."""
    out = bytearray(jpeg[:2])
    i = 2
    while jpeg[i + 1] != 0xDA:
        length = jpeg[i + 2] << 8 | jpeg[i + 3]
        if jpeg[i + 1] != 0xEE:
            out += jpeg[i:i + 2 + length]
        i += 2 + length
    return bytes(out + jpeg[i:])


def main():
    cmyk = scene()
    cmyk.save(os.path.join(HERE, "cmyk-adobe.jpg"), quality=92)
    # Pillow inverts CMYK as it saves (Adobe's convention): inverted first, the file stores the ink.
    buffer = io.BytesIO()
    ImageChops.invert(cmyk).save(buffer, format="JPEG", quality=92)
    plain = without_app14(buffer.getvalue())
    assert b"Adobe" not in plain[:200]
    with open(os.path.join(HERE, "cmyk-plain.jpg"), "wb") as f:
        f.write(plain)


if __name__ == "__main__":
    main()
