#!/usr/bin/env python3
"""Generates the recognition test fixtures in this directory.

Run by hand after changing it; the outputs are committed (tests never run this script):

    pip install pillow segno treepoem numpy ppf-datamatrix   # treepoem also needs Debian's ghostscript
    python3 Tests/Fixtures/generate.py

Every image is deterministic (fixed random seeds) and small. Barcodes come from BWIPP (through
treepoem) and segno, i.e. encoders independent of the zbar decoder under test. Text is rendered with
DejaVu Sans (Debian's fonts-dejavu-core) and degraded a little like a webcam frame: slight blur,
sensor noise, JPEG compression.
"""
import io
import os
import random

import segno
import treepoem
from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def out(name):
    return os.path.join(HERE, name)


def gray(img):
    return img.convert("L")


def bwipp(kind, data, scale=3, options=None):
    img = treepoem.generate_barcode(barcode_type=kind, data=data, options=options or {})
    img = gray(img)
    return img.resize((img.width * scale, img.height * scale), Image.NEAREST)


def on_canvas(symbol, size=(480, 320), at=None, background=255):
    canvas = Image.new("L", size, background)
    if at is None:
        at = ((size[0] - symbol.width) // 2, (size[1] - symbol.height) // 2)
    canvas.paste(symbol, at)
    return canvas


def camera(img, seed, blur=0.6, noise=6):
    """A little of what a webcam does to a printed page."""
    rng = random.Random(seed)
    img = img.filter(ImageFilter.GaussianBlur(blur)) if blur else img
    px = img.load()
    for y in range(img.height):
        for x in range(img.width):
            v = px[x, y] + rng.randint(-noise, noise)
            px[x, y] = 0 if v < 0 else 255 if v > 255 else v
    return img


def save_png(img, name):
    img.save(out(name), optimize=True)


def save_jpeg(img, name, quality=75):
    img.save(out(name), quality=quality, optimize=True)


def qr_image(data, scale=6, border=4):
    buf = io.BytesIO()
    segno.make_qr(data, error="m").save(buf, kind="png", scale=scale, border=border)
    buf.seek(0)
    return gray(Image.open(buf))


def footage_module():
    """Tests/Fixtures/footage/generate.py, whose documents (the code sheet) some fixtures photograph."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("footage", os.path.join(HERE, "footage", "generate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def photographed(doc, seed, width=1280, height=720, tilt=(0.12, -0.10, 0.04)):
    """`doc` held up tilted in front of a desk at width x height: a little blur, uneven light, sensor
    noise (the caller saves it as JPEG). Needs numpy."""
    import numpy as np
    footage = footage_module()
    rng = random.Random(seed)
    frame = footage.desk_background(rng, width, height)
    scale = 0.9 * min(width / doc.image.width, height / doc.image.height)
    corners = footage.pose_corners(doc.image.size, (width / 2 + 6, height / 2 - 4), scale, *tilt)
    w0, h0 = doc.image.size
    from_frame = np.linalg.inv(footage.homography([(0, 0), (w0, 0), (w0, h0), (0, h0)], corners))
    coeffs = tuple((from_frame / from_frame[2, 2]).flatten()[:8])
    layer = doc.image.transform((width, height), Image.PERSPECTIVE, coeffs, Image.BICUBIC)
    mask = Image.new("L", doc.image.size, 255).transform((width, height), Image.PERSPECTIVE, coeffs, Image.BILINEAR)
    frame.paste(layer, (0, 0), mask)
    frame = frame.filter(ImageFilter.GaussianBlur(0.7))
    arr = np.asarray(frame, np.float32)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    arr *= (1 - 0.18 * (xx / width) - 0.08 * (yy / height))[..., None]
    noise = np.random.default_rng(41).normal(0, 3.5, arr.shape[:2]).astype(np.float32)
    arr += noise[..., None]
    return gray(Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)))


def code_sheet():
    """sheet.jpg: the footage's sheet of 30 EAN-13 and 30 DataMatrix (issue #41), photographed: held up
    tilted in front of a desk at 1280x720, a little blur, uneven light, sensor noise, JPEG; and
    sheet.txt, its 60 payloads (what `scan` must read, each once). Needs numpy and ppf-datamatrix."""
    footage = footage_module()
    doc = footage.code_sheet(random.Random("code-sheet"))
    photographed(doc, "code-sheet").save(out("sheet.jpg"), quality=80, optimize=True)
    eans, dms = footage.sheet_payloads()
    with open(out("sheet.txt"), "w") as f:
        f.write("".join(payload + "\n" for payload in eans + dms))


def typed_document(name, make, size, tilt, typed):
    """NAME.jpg: a document of the footage generator's (`make`) photographed as the code sheet is, at
    `size`; NAME.txt, what `scan` must type on it with issue #43's content types ("contentType
    payload", in reading order), and nothing else."""
    footage = footage_module()
    doc = getattr(footage, make)(random.Random(make.replace("_", "-")))
    photographed(doc, make.replace("_", "-"), width=size[0], height=size[1], tilt=tilt).save(out(name + ".jpg"), quality=80, optimize=True)
    with open(out(name + ".txt"), "w") as f:
        f.write("".join(line + "\n" for line in getattr(footage, typed)))


def tracking_label():
    """label.jpg: a parcel label with a UPS, a USPS and an S10 tracking number, a sender's and a
    recipient's address and the date shipped, among an order number, an account number that passes
    FedEx's check digit, a weight and a reference, at 1280x960 (a label is taller than wide)."""
    typed_document("label", "tracking_label", (1280, 960), (0.08, -0.06, 0.03), "LABEL_TYPED")


def money_receipt():
    """receipt.jpg: a receipt with the shop's address on two lines, a date and time and five dollar
    amounts, among a price without a symbol, a tax rate, an order number, a card number, a register's
    numbers and a phone number, at 960x1280 (a receipt is tall)."""
    typed_document("receipt", "money_receipt", (960, 1280), (0.06, -0.08, -0.03), "RECEIPT_TYPED")


def boarding_pass():
    """boarding.jpg: a boarding pass, its flight number, date, times and flight time among a gate, a
    seat, a zone, a sequence number, a booking reference and a ticket number, at 1280x720."""
    typed_document("boarding", "boarding_pass", (1280, 720), (0.10, -0.08, 0.03), "BOARDING_TYPED")


def letterhead():
    """letterhead.jpg: a letter on a letterhead, the sender's address, the letter's date, a date, an
    amount, a period and a range of days among an invoice number, a reference and registration and VAT
    numbers, at 960x1280."""
    typed_document("letterhead", "letterhead", (960, 1280), (0.05, -0.07, 0.02), "LETTERHEAD_TYPED")


# --- one fixture per symbology -------------------------------------------------------------------
SYMBOLOGIES = [
    # (file, BWIPP encoder, data given to the encoder, options)
    ("ean13.png", "ean13", "5901234123457", {"includetext": True}),
    ("ean8.png", "ean8", "96385074", {"includetext": True}),
    ("upce.png", "upce", "01234565", {"includetext": True}),
    ("upca.png", "upca", "036000291452", {"includetext": True}),
    ("code128.png", "code128", "SCANNERD-128", {}),
    ("code39.png", "code39", "SCAN-39", {}),
    ("code93.png", "code93", "SCAN93", {"includecheck": True}),
    ("i2of5.png", "interleaved2of5", "12345670", {}),
    ("codabar.png", "rationalizedCodabar", "A40156B", {}),
    ("gs1databar.png", "databaromni", "(01)09521234543213", {}),
    ("gs1databar-expanded.png", "databarexpanded", "(01)09521234543213(3103)000123", {}),
    ("pdf417.png", "pdf417", "SCANNERD PDF417 TEST", {"columns": 3}),
]


# The symbologies zxing-cpp 3.x added (issue #41), each on its own canvas like the others.
MORE_SYMBOLOGIES = [
    ("maxicode.png", "maxicode", "SCANNERD MAXICODE", {"mode": 4}, 3),
    ("rmqr.png", "rectangularmicroqrcode", "RMQR-42", {"version": "R11x27"}, 6),
    ("micropdf417.png", "micropdf417", "SCANNERD MICROPDF", {}, 3),
    ("gs1databar-limited.png", "databarlimited", "(01)15012345678907", {}, 3),
    ("telepen.png", "telepen", "SCANNERD", {}, 2),
]


def more_symbologies():
    for name, kind, data, options, scale in MORE_SYMBOLOGIES:
        symbol = bwipp(kind, data, scale=scale, options=options)
        pad = 40
        save_png(on_canvas(symbol, (symbol.width + 2 * pad, symbol.height + 2 * pad)), name)


def symbologies():
    for name, kind, data, options in SYMBOLOGIES:
        symbol = bwipp(kind, data, scale=2 if kind in ("pdf417", "databarexpanded") else 3, options=options)
        pad = 40
        save_png(on_canvas(symbol, (symbol.width + 2 * pad, symbol.height + 2 * pad)), name)
    save_png(on_canvas(qr_image("https://example.com/scannerd"), (360, 360)), "qr.png")


# --- QR codes as a camera sees them --------------------------------------------------------------
def qr_rotated():
    code = qr_image("ROTATED-QR-30", scale=5)
    rotated = code.rotate(30, resample=Image.BICUBIC, expand=True, fillcolor=255)
    save_jpeg(camera(on_canvas(rotated, (640, 480)), seed=1), "qr-rotated.jpg")


def perspective_coeffs(src, dst):
    """Coefficients for PIL's PERSPECTIVE transform mapping output points `dst` to input `src`."""
    import numpy as np

    rows = []
    for (x, y), (u, v) in zip(dst, src):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.array(rows, dtype=float)
    b = np.array([c for p in src for c in p], dtype=float)
    return np.linalg.solve(a, b).tolist()


def qr_tilted():
    code = qr_image("TILTED-QR", scale=8)
    w, h = code.size
    canvas = on_canvas(code, (640, 480))
    x0, y0 = (640 - w) // 2, (480 - h) // 2
    src = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
    # The top edge leans away from the camera: narrower and shifted, as a card tilted back.
    # zbar's QR reader gives up on stronger keystone than this (measured: 20 px on a 232 px code decodes,
    # 30 px does not at 6 px/module).
    dst = [(x0 + 20, y0 + 10), (x0 + w - 20, y0 + 20), (x0 + w, y0 + h), (x0, y0 + h)]
    tilted = canvas.transform(canvas.size, Image.PERSPECTIVE, perspective_coeffs(src, dst), Image.BICUBIC, fillcolor=255)
    save_jpeg(camera(tilted, seed=2), "qr-tilted.jpg")


def multiple_codes():
    canvas = Image.new("L", (960, 540), 255)
    canvas.paste(qr_image("MULTI-QR-LEFT", scale=5), (40, 60))
    canvas.paste(qr_image("MULTI-QR-RIGHT", scale=5), (700, 60))
    canvas.paste(bwipp("ean13", "4006381333931", scale=1, options={"includetext": True, "height": 0.8}), (620, 330))
    canvas.paste(bwipp("code128", "MULTI-128", scale=1, options={"height": 0.6}), (40, 380))
    save_jpeg(camera(canvas, seed=3), "multiple.jpg")


def inverted_qr():
    code = qr_image("INVERTED-QR", scale=6).point(lambda v: 255 - v)
    save_png(on_canvas(code, (360, 360), background=0), "qr-inverted.png")


# --- 2-D codes zxing-cpp reads, and payloads with a format (issue #17) ------------------------------
# Written by BWIPP (DataMatrix, Aztec, GS1, PDF417) and segno (Micro QR, QR): not by zxing-cpp, the
# decoder under test. Each malformed variant is a real symbol whose payload breaks its format.
WIFI = "WIFI:T:WPA;S:Kiosk Guest;P:correct horse;H:false;;"
MECARD = "MECARD:N:Lindqvist,Avery;ORG:Northgate Optics;TEL:+15125550173;EMAIL:avery@northgate-optics.com;;"
VCARD = ("BEGIN:VCARD\r\nVERSION:3.0\r\nN:Raman;Priya;;;\r\nFN:Priya Raman\r\nORG:Kestrel Labs\r\n"
         "TEL;TYPE=CELL:+44 113 496 0639\r\nEMAIL:priya@kestrel-labs.co.uk\r\nURL:https://kestrel-labs.co.uk/team\r\nEND:VCARD\r\n")
# An AAMVA-like licence: header, one DL subfile designator (offset 31 = header + designator), elements.
AAMVA_ELEMENTS = ["DAQD1234567", "DCSLINDQVIST", "DACAVERY", "DADJ", "DBB07041990", "DBA07042030", "DAJTX", "DCGUSA"]


def aamva(elements):
    body = "DL" + "\n".join(elements) + "\r"
    header = "@\n\x1e\rANSI 636014080001"
    return header + "DL%04d%04d" % (len(header) + 10, len(body)) + body


def caret(data):
    """BWIPP's `parse` option reads ^NNN as the byte NNN: how control characters get into a symbol."""
    return "".join("^%03d" % ord(c) if ord(c) < 32 or c == "^" else c for c in data)


def padded(symbol, pad=40, background=255):
    return on_canvas(symbol, (symbol.width + 2 * pad, symbol.height + 2 * pad), background=background)


def microqr_image(data, scale=8):
    buf = io.BytesIO()
    segno.make_micro(data).save(buf, kind="png", scale=scale, border=2)
    buf.seek(0)
    return gray(Image.open(buf))


def codes_2d():
    save_png(padded(bwipp("datamatrix", "SCANNERD DATAMATRIX", scale=2)), "datamatrix.png")
    # Off the centre lines of the image, where zxing-cpp 1.4 alone does not look (zxing-cpp#189).
    canvas = Image.new("L", (640, 480), 255)
    canvas.paste(bwipp("datamatrix", "OFF-CENTRE DM", scale=1), (40, 40))
    save_png(canvas, "datamatrix-offcentre.png")
    # Two, each about 75 px: above the eighth of the image height the tiles are sure to cross.
    canvas = Image.new("L", (640, 480), 255)
    def larger(symbol):
        return symbol.resize((symbol.width * 7 // 5, symbol.height * 7 // 5), Image.NEAREST)
    canvas.paste(larger(bwipp("datamatrix", "DM LEFT", scale=1)), (70, 330))
    canvas.paste(larger(bwipp("datamatrix", "DM RIGHT", scale=1)), (470, 50))
    save_png(camera(canvas, seed=17, blur=0.4, noise=4), "datamatrix-two.png")
    dark = bwipp("datamatrix", "INVERTED DM", scale=2).point(lambda v: 255 - v)
    save_png(padded(dark, background=0), "datamatrix-inverted.png")
    save_png(padded(bwipp("azteccode", "SCANNERD AZTEC", scale=2)), "aztec.png")
    save_png(padded(microqr_image("MICRO42")), "microqr.png")
    save_png(on_canvas(qr_image(WIFI), (400, 400)), "qr-wifi.png")
    save_png(on_canvas(qr_image("WIFI:T:WPA;P:no ssid here;;"), (400, 400)), "qr-wifi-malformed.png")
    save_png(on_canvas(qr_image(MECARD, scale=5), (480, 480)), "qr-mecard.png")
    save_png(on_canvas(qr_image(VCARD, scale=4), (560, 560)), "qr-vcard.png")
    save_png(on_canvas(qr_image(VCARD.replace("VERSION:3.0\r\n", ""), scale=4), (560, 560)), "qr-vcard-malformed.png")
    gs1 = bwipp("gs1-128", "(01)09521234543213(17)261231(10)LOT42(21)SN7", scale=2, options={"height": 0.8})
    save_png(padded(gs1), "gs1-128.png")
    # FNC1 first, then a GTIN whose check digit is wrong: a GS1-128 symbol, not GS1 data.
    bad = bwipp("code128", "^FNC10109521234543214", scale=2, options={"parsefnc": True, "height": 0.8})
    save_png(padded(bad), "gs1-128-malformed.png")
    save_png(padded(bwipp("gs1datamatrix", "(01)09521234543213(17)261231(10)LOT42", scale=2)), "gs1-datamatrix.png")
    licence = bwipp("pdf417", caret(aamva(AAMVA_ELEMENTS)), scale=2, options={"parse": True, "columns": 6})
    save_png(padded(licence), "aamva.png")
    no_name = [e for e in AAMVA_ELEMENTS if not e.startswith(("DCS", "DAC", "DAD"))]
    licence = bwipp("pdf417", caret(aamva(no_name)), scale=2, options={"parse": True, "columns": 6})
    save_png(padded(licence), "aamva-malformed.png")


# --- text -----------------------------------------------------------------------------------------
def text_image(lines, size, seed, font_size=34, start=(60, 50), spacing=1.6, rotate=0.0, noise=5):
    img = Image.new("L", size, 250)
    draw = ImageDraw.Draw(img)
    x, y = start
    for text in lines:
        bold = text.startswith("**")
        text = text.strip("*")
        font = ImageFont.truetype(FONT_BOLD if bold else FONT, font_size)
        draw.text((x, y), text, font=font, fill=20)
        y += int(font_size * spacing)
    if rotate:
        img = img.rotate(rotate, resample=Image.BICUBIC, fillcolor=250)
    return camera(img, seed=seed, blur=0.5, noise=noise)


def business_card():
    lines = [
        "**Jane Doe",
        "Head of Scanning, Acme Optics",
        "Tel: (415) 555-0123",
        "Mobile +1 650 253 0000",
        "jane.doe@example.com",
        "www.acme-optics.com/contact",
    ]
    save_jpeg(text_image(lines, (1280, 720), seed=4, font_size=40, start=(80, 60), rotate=1.5), "card-us.jpg")


def international_phones():
    lines = [
        "London office: +44 20 7946 0958",
        "Berlin: +49 30 901820",
        "Paris +33 1 42 68 53 00",
        "Tokyo +81 3-3224-9999",
    ]
    # PNG, so kept noiseless (noise does not compress).
    save_png(text_image(lines, (1100, 360), seed=5, font_size=36, noise=0), "phones-international.png")


def distractors():
    lines = [
        "Total: $415.55",
        "Order #4155550199",
        "Invoice No. 6505550143",
        "Date: 12/25/2024",
        "Delivered 2024-12-25 10:30",
        "ZIP 94103-1234",
        "Price $1,234,567.89",
        "Ref 2125551234",
    ]
    save_jpeg(text_image(lines, (900, 620), seed=6, font_size=32, start=(50, 30), spacing=1.5), "distractors.jpg")


def phone_with_distractors():
    """A flyer line with a real number between things that are not phone numbers."""
    lines = [
        "Sale price $129.99 until 12/31/2024",
        "Call 212-555-0187 to order",
        "Order #9175550123 ships to ZIP 10001",
    ]
    save_jpeg(text_image(lines, (1000, 260), seed=7, font_size=32), "flyer.jpg")


def empty():
    save_jpeg(camera(Image.new("L", (640, 480), 200), seed=8, blur=0, noise=10), "empty.jpg", quality=60)


def region_of_interest():
    """A QR code on the left half and an EAN-13 on the right half."""
    canvas = Image.new("L", (800, 400), 255)
    canvas.paste(qr_image("ROI-LEFT", scale=5), (60, 80))
    canvas.paste(bwipp("ean13", "9780201379624", scale=1, options={"includetext": True, "height": 0.8}), (520, 140))
    save_png(canvas, "roi.png")


def bench_scenes():
    """What a kiosk camera sees: a card with a phone number and a QR code, at 640×480 and 1280×720."""
    for w, h in ((640, 480), (1280, 720)):
        k = w / 1280
        img = text_image(
            ["**Jane Doe", "Tel: (415) 555-0123", "jane.doe@example.com"], (w, h), seed=10,
            font_size=int(40 * k) + 4, start=(int(60 * k), int(60 * k)))
        code = qr_image("https://example.com/bench", scale=max(3, int(6 * k)))
        img.paste(code, (w - code.width - int(40 * k), h - code.height - int(40 * k)))
        save_jpeg(img, f"bench-{w}x{h}.jpg")


def bench_empty():
    """A 1280×720 frame with nothing to recognise (a wall with a little texture): the idle cost."""
    img = Image.linear_gradient("L").resize((1280, 720)).point(lambda v: 150 + v // 6)
    save_jpeg(camera(img, seed=11, blur=0, noise=4), "bench-empty-1280x720.jpg", quality=60)


def demo_clip():
    """The bundled demo (`scannerd run --source demo`): a QR code and then a business card come into
    view and go again. 30 frames of 640×480, 1 s at 30 fps (loop it with --loop, slow it with --fps).
    Flat backgrounds keep it small."""
    frames = []
    desk = Image.new("L", (640, 480), 225)
    code = qr_image("https://example.com/scannerd-demo", scale=5)
    card = Image.new("L", (420, 200), 250)
    draw = ImageDraw.Draw(card)
    draw.text((20, 20), "Jane Doe", font=ImageFont.truetype(FONT_BOLD, 34), fill=20)
    draw.text((20, 80), "Tel: (415) 555-0123", font=ImageFont.truetype(FONT, 30), fill=20)
    draw.text((20, 130), "jane.doe@example.com", font=ImageFont.truetype(FONT, 26), fill=20)
    for i in range(30):
        img = desk.copy()
        if 3 <= i < 13:  # the QR code drifts left a few pixels a frame, as if held by a hand
            img.paste(code, (300 - 4 * (i - 3), 120 + (i % 3)))
        elif 17 <= i < 27:
            img.paste(card, (110 + 2 * (i - 17), 140 - (i % 2)))
        frames.append(img)
    path = os.path.join(HERE, "..", "..", "Sources", "CDemoClip", "demo.mjpeg")
    with open(path, "wb") as f:
        for img in frames:
            buf = io.BytesIO()
            img.save(buf, format="JPEG", quality=60, optimize=True)
            f.write(buf.getvalue())


def clip(name, frames):
    """Writes a replay clip as a directory of numbered frames (Tests/Fixtures/clips/NAME/0000.jpg …).
    `frames` is a list of (key, make) pairs: frames with the same key are one image, stored once
    (under _images/) and linked, so a 140-frame clip costs a dozen JPEGs."""
    root = os.path.join(HERE, "clips", name)
    images = os.path.join(root, "_images")
    if os.path.isdir(root):
        for dirpath, _, files in os.walk(root, topdown=False):
            for f in files:
                os.remove(os.path.join(dirpath, f))
            os.rmdir(dirpath)
    os.makedirs(images)
    made = {}
    for i, (key, make) in enumerate(frames):
        if key not in made:
            path = os.path.join(images, f"{key}.jpg")
            make().save(path, quality=60, optimize=True)
            made[key] = path
        os.symlink(os.path.join("_images", f"{key}.jpg"), os.path.join(root, f"{i:04d}.jpg"))


def scene(seed, qr_at=None, card_at=None, blur=0, desk=215):
    """A 640×480 desk (of luma `desk`) with optionally a QR code and a business card, with a little
    sensor noise."""
    img = Image.new("L", (640, 480), desk)
    if qr_at is not None:
        img.paste(qr_image("https://example.com/clip", scale=5), qr_at)
    if card_at is not None:
        card = Image.new("L", (430, 170), 250)
        draw = ImageDraw.Draw(card)
        draw.text((18, 14), "Call (212) 555-0187", font=ImageFont.truetype(FONT, 30), fill=20)
        draw.text((18, 64), "Order #4155550199", font=ImageFont.truetype(FONT, 30), fill=20)
        draw.text((18, 114), "$129.99 until 12/31", font=ImageFont.truetype(FONT, 30), fill=20)
        img.paste(card, card_at)
    if blur:
        img = img.filter(ImageFilter.BoxBlur(blur))
    return camera(img, seed=seed, blur=0, noise=3)


def sequence_clip():
    """The tracker's replay test, at 30 fps: a QR code enters, is held with hand jitter, leaves; an
    empty pause; a flyer card is held blurred (out of focus), then sharp, then leaves. The card carries
    a phone number next to an order number and a price and date (distractors)."""
    frames = []
    empty = [(f"empty{k}", lambda k=k: scene(100 + k)) for k in range(3)]
    def hold(prefix, positions, count, **extra):
        for i in range(count):
            j = i % len(positions)
            frames.append((f"{prefix}{j}", lambda p=positions[j], e=extra, j=j: scene(200 + j, **{k: p if v == "at" else v for k, v in e.items()})))
    def pause(count):
        for i in range(count):
            frames.append(empty[i % 3])
    pause(10)                                                   # 0–9 empty
    for i, x in enumerate([-150, -60]):                         # 10–11 QR entering (partly outside)
        frames.append((f"qrin{i}", lambda x=x: scene(300, qr_at=(x, 160))))
    hold("qr", [(40, 160), (41, 161), (40, 159)], 30, qr_at="at")  # 12–41 held with ±1 px jitter
    frames.append(("qrout", lambda: scene(301, qr_at=(-100, 160))))  # 42 leaving
    pause(47)                                                   # 43–89 empty
    hold("blurcard", [(100, 150), (101, 151), (100, 149)], 15, card_at="at", blur=4)  # 90–104 out of focus
    hold("card", [(100, 150), (101, 151), (100, 149)], 30, card_at="at")  # 105–134 sharp
    pause(60)                                                   # 135–194 empty
    clip("sequence", frames)


def several_clip():
    """Several items at once, at 30 fps: two identical QR codes side by side and a card with a phone
    number, all held together for a second, then gone."""
    def make(j):
        img = Image.new("L", (640, 480), 215)
        code = qr_image("https://example.com/twin", scale=4)
        img.paste(code, (30 + j, 20))
        img.paste(code, (330 + j, 20))
        card = Image.new("L", (420, 110), 250)
        ImageDraw.Draw(card).text((18, 30), "Tel +44 20 7946 0958", font=ImageFont.truetype(FONT, 30), fill=20)
        img.paste(card, (100 + j, 320))
        return camera(img, seed=500 + j, blur=0, noise=3)
    frames = [(f"empty{k % 3}", lambda k=k: scene(100 + k % 3)) for k in range(5)]
    frames += [(f"all{i % 3}", lambda j=i % 3: make(j)) for i in range(30)]
    frames += [(f"empty{k % 3}", lambda k=k: scene(100 + k % 3)) for k in range(60)]
    clip("several", frames)


def dark_clip():
    """A card held up in a dark corner (8 % of the light: the desk at luma ~15, the card ~30): the
    dark desk alone for half a second, then the card, trembling a pixel. Guidance says tooDark though
    no line can be found on it; lines the detector finds in the dark desk's noise say nothing
    (issues #17, #43)."""
    def dark(seed, card):
        img = scene(seed, card_at=(110 + seed % 2, 150) if card else None, desk=120).point(lambda v: int(v * 0.13))
        return camera(img, seed=seed + 1, blur=0, noise=2)
    frames = [(f"empty{i % 3}", (lambda i=i: dark(600 + i % 3, False))) for i in range(15)]
    frames += [(f"dark{i % 3}", (lambda i=i: dark(500 + i % 3, True))) for i in range(45)]
    clip("dark", frames)


def static_clip():
    """An empty static scene: the idle cost (one frame, played with --loop)."""
    clip("static", [("empty", lambda: scene(400))])


def pnm():
    img = qr_image("PGM-QR", scale=4)
    img.save(out("qr.pgm"))


def broken():
    with open(out("card-us.jpg"), "rb") as f:
        data = f.read()
    with open(out("truncated.jpg"), "wb") as f:
        f.write(data[: len(data) // 3])
    rng = random.Random(9)
    with open(out("garbage.jpg"), "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(2048)))
    with open(out("not-an-image.txt"), "w") as f:
        f.write("This is a text file, not an image.\n")
    open(out("zero-bytes.png"), "wb").close()


if __name__ == "__main__":
    import sys
    # `generate.py codes_2d …` makes only the named groups, leaving the other fixtures as committed.
    if len(sys.argv) > 1:
        for name in sys.argv[1:]:
            globals()[name]()
        sys.exit(0)
    symbologies()
    more_symbologies()
    code_sheet()
    tracking_label()
    money_receipt()
    boarding_pass()
    letterhead()
    qr_rotated()
    qr_tilted()
    multiple_codes()
    inverted_qr()
    codes_2d()
    business_card()
    international_phones()
    distractors()
    phone_with_distractors()
    empty()
    region_of_interest()
    pnm()
    bench_scenes()
    bench_empty()
    demo_clip()
    sequence_clip()
    several_clip()
    static_clip()
    dark_clip()
    broken()
