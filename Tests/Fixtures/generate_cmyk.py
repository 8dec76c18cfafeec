#!/usr/bin/env python3
"""Generates the CMYK JPEG fixtures (issue #54): the QR fixture on white with a red patch, as print and
scan workflows write JPEGs. Run by hand after changing it (Pillow only); the outputs are committed:

    .build/score-venv/bin/python Tests/Fixtures/generate_cmyk.py

- cmyk-adobe.jpg: as Adobe's applications (and Pillow) write CMYK: the channels inverted, with the
  APP14 "Adobe" marker that says so.
- cmyk-plain.jpg: CMYK storing the ink itself, without the Adobe marker.
- cmyk-card-adobe.jpg, cmyk-card-plain.jpg: the card fixture (card-us.jpg) at 960 × 540, written the same two ways.
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


def write_both(cmyk, stem, quality):
    cmyk.save(os.path.join(HERE, stem + "-adobe.jpg"), quality=quality)
    # Pillow inverts CMYK as it saves (Adobe's convention): inverted first, the file stores the ink.
    buffer = io.BytesIO()
    ImageChops.invert(cmyk).save(buffer, format="JPEG", quality=quality)
    plain = without_app14(buffer.getvalue())
    assert b"Adobe" not in plain[:200]
    with open(os.path.join(HERE, stem + "-plain.jpg"), "wb") as f:
        f.write(plain)


def main():
    write_both(scene(), "cmyk", 92)
    card = Image.open(os.path.join(HERE, "card-us.jpg")).convert("RGB").resize((960, 540), Image.LANCZOS).convert("CMYK")
    write_both(card, "cmyk-card", 60)


if __name__ == "__main__":
    main()
