#!/usr/bin/env python3
"""Hostile images for scannerd's input limits (docs/security.md): headers that claim far more pixels
than the file holds, and damaged files whose libraries print warnings. Standard library only, so
`python3 Tests/Fixtures/hostile/generate.py` runs anywhere; the outputs are committed (each < 5 kB).

Each bomb states its size in the header the decoder reads first; none holds the pixels, so a
decoder that trusts the header allocates gigabytes before it finds out."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(width, height, color_type, rows):
    """A PNG whose IDAT holds only `rows` rows (zeros) of the `width`x`height` image it declares."""
    channels = {0: 1, 2: 3}[color_type]
    raw = b"".join(b"\0" + b"\0" * (width * channels) for _ in range(rows))
    return (b"\x89PNG\r\n\x1a\n"
            + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(raw, 9))
            + png_chunk(b"IEND", b""))


def tiff(width, height, pixels):
    """Little-endian, uncompressed 8-bit gray, one strip of width*height bytes, the file holding
    `pixels` of them."""
    entries = [
        (256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
        (273, 4, 1, 8), (277, 3, 1, 1), (278, 4, 1, height), (279, 4, 1, width * height),
    ]
    ifd_offset = 8 + len(pixels)
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        ifd += struct.pack("<HHII", tag, kind, count, value) if kind == 4 else struct.pack("<HHIHH", tag, kind, count, value, 0)
    ifd += struct.pack("<I", 0)
    return b"II*\0" + struct.pack("<I", ifd_offset) + pixels + ifd


def rgb_tiff_cut(width, height):
    entries_n = 10
    bps_offset = 8 + 2 + entries_n * 12 + 4
    offsets = bps_offset + 6
    counts = offsets + 4 * height
    data = counts + 4 * height
    strip = width * 3
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 3, bps_offset), (259, 3, 1, 1), (262, 3, 1, 2),
               (273, 4, height, offsets), (277, 3, 1, 3), (278, 4, 1, 1), (279, 4, height, counts), (284, 3, 1, 1)]
    ifd = struct.pack("<H", entries_n)
    for tag, kind, count, value in entries:
        ifd += struct.pack("<HHII", tag, kind, count, value) if kind == 4 or count > 1 else struct.pack("<HHIHH", tag, kind, count, value, 0)
    ifd += struct.pack("<I", 0)
    pixels = bytes((i * 5) & 0xFF for i in range(width * height * 3))
    whole = (b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<HHH", 8, 8, 8)
             + b"".join(struct.pack("<I", data + i * strip) for i in range(height))
             + b"".join(struct.pack("<I", strip) for _ in range(height)) + pixels)
    return whole[: data + len(pixels) // 3]


def main():
    # 74 bytes that claim 65535x65535 gray (4.3 GB of pixels).
    write("bomb-65535.png", png(65535, 65535, 0, 0))
    # 20000x20000 RGB (1.2 GB decoded), a few real rows.
    write("bomb-20000-rgb.png", png(20000, 20000, 2, 4))
    # PGM claiming 60000x60000.
    write("bomb.pgm", b"P5\n60000 60000\n255\n" + b"\0" * 64)
    # TIFF claiming 40000x40000 with 64 bytes of strip.
    t = tiff(40000, 40000, b"\0" * 64)
    write("bomb.tif", t)
    # BMP: 30000x30000, 24-bit.
    bmp_header = struct.pack("<2sIHHI", b"BM", 54 + 64, 0, 0, 54)
    dib = struct.pack("<IiiHHIIiiII", 40, 30000, 30000, 1, 24, 0, 0, 2835, 2835, 0, 0)
    write("bomb.bmp", bmp_header + dib + b"\0" * 64)
    # GIF: a 65535x65535 logical screen and image.
    gif = (b"GIF89a" + struct.pack("<HHBBB", 65535, 65535, 0, 0, 0)
           + b"," + struct.pack("<HHHHB", 0, 0, 65535, 65535, 0) + b"\x02\x02\x44\x01\x00;")
    write("bomb.gif", gif)
    # WebP, lossless (VP8L): signature 0x2f, then width-1 and height-1 in 14 bits each, an alpha bit
    # and a 3-bit version: 16384x16384 (268 megapixels) in 4 kB.
    bits = 16383 | 16383 << 14
    vp8l = b"\x2f" + struct.pack("<I", bits) + b"\0" * 3995
    body = b"WEBP" + b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l
    write("bomb.webp", b"RIFF" + struct.pack("<I", len(body)) + body)
    # JPEG: SOI, a quantization table, a baseline SOF0 for 65500x65500 gray, a Huffman table, the
    # start of a scan with two bytes of data, EOI. Its header reads as a whole image.
    dqt = b"\xFF\xDB" + struct.pack(">H", 67) + b"\x00" + bytes([1] * 64)
    sof = b"\xFF\xC0" + struct.pack(">HBHHB", 11, 8, 65500, 65500, 1) + b"\x01\x11\x00"
    dht = b"\xFF\xC4" + struct.pack(">H", 20) + b"\x00" + bytes([1] + [0] * 15) + b"\x00"
    dht += b"\xFF\xC4" + struct.pack(">H", 20) + b"\x10" + bytes([1] + [0] * 15) + b"\x00"
    sos = b"\xFF\xDA" + struct.pack(">HB", 8, 1) + b"\x01\x00" + b"\x00\x3F\x00"
    write("bomb.jpg", b"\xFF\xD8" + dqt + sof + dht + sos + b"\x00\x00\xFF\xD9")
    # A real 64x64 RGB TIFF, one row per strip, cut after a third of its rows: Leptonica prints
    # "Bad file: amount too big" once per missing strip (43 lines) and still returns an image.
    write("truncated.tif", rgb_tiff_cut(64, 64))


if __name__ == "__main__":
    main()
