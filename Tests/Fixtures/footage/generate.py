#!/usr/bin/env python3
"""Realistic webcam footage with exact truth, for measuring scannerd (issue #13).

    python3 Tests/Fixtures/footage/generate.py OUTDIR [--seeds 1,2,3] [--size 1280x720]
        [--scenarios card,phone,label,receipt,poster,sheet,desk,smallprint] [--fps 30]

`smallprint` is the card held at arm's length (capitals of 6–7 px: issue #52's test); `make footage`
leaves it out of its default set, whose figures docs/benchmarks.md compares over time. `film` is
the camera alone, for any document (Tests/real/score_real_live.py holds real receipts up to it).

Needs numpy, pillow, segno and ppf-datamatrix (`make footage` installs them in .build/footage-venv), and Debian's
fonts-dejavu-core. Writes, per scenario and seed, `SCENARIO-sSEED.mjpeg` (concatenated JPEGs, what an
MJPEG webcam sends) and `SCENARIO-sSEED.json` (the truth). Clips are made at run time, never
committed; the same arguments give the same bytes.

What a real kiosk camera adds to a printed or shown item, and what this adds:
- perspective (the item tilted up to ±30° about both axes, rotated in-plane), held at a distance
  that gives a cap height of 9-20 px at 1280x720;
- the item entering from a side, held with hand jitter, leaving; motion blur along the motion, as
  long as the distance covered during the exposure;
- uneven light (a gradient across the frame), vignetting, auto-exposure flicker, dim light (low
  signal, high gain: more noise), glare on glossy phone screens;
- sensor noise (shot noise that grows with brightness, plus read noise), then JPEG 4:2:0 at webcam
  quality (70-85);
- a thumb over one corner of the item (never over the truth items it is told to avoid);
- a cluttered desk behind it.

Truth, per item: `kind` (`barcode`/`text`), `symbology` or `contentType`, `payload` as scannerd
reports it (E.164 phone numbers, URLs with scheme), `distractor: true` for text that must NOT be
reported as a typed item (order numbers, prices, dates, ZIP codes), and per frame its four corners
in normalized frame coordinates with `visible` (entirely in the frame, not covered) and `legible`
(visible, and blur and size allow a person to read it). `legible` is what recall is measured
against; `visible` ranges give the removal latency.
"""
import argparse
import io
import json
import math
import os
import random

import numpy as np
import segno
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
FONT_MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"

# MARK: - EAN-13, drawn here (an encoder independent of the decoders under test)

EAN_L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
EAN_G = ["0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001", "0010111"]
EAN_R = ["1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100", "1001000", "1110100"]
EAN_PARITY = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]


def ean13_check(digits12):
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits12))
    return str((10 - total % 10) % 10)


def ean13_modules(code):
    first, left, right = code[0], code[1:7], code[7:]
    bits = "101"
    for digit, parity in zip(left, EAN_PARITY[int(first)]):
        bits += (EAN_L if parity == "L" else EAN_G)[int(digit)]
    bits += "01010"
    for digit in right:
        bits += EAN_R[int(digit)]
    return bits + "101"


def ean13_image(code, module=4, height=160):
    bits = ean13_modules(code)
    quiet = 11 * module
    img = Image.new("L", (len(bits) * module + 2 * quiet, height + 44), 255)
    draw = ImageDraw.Draw(img)
    for i, bit in enumerate(bits):
        if bit == "1":
            draw.rectangle([quiet + i * module, 8, quiet + (i + 1) * module - 1, 8 + height], fill=0)
    font = ImageFont.truetype(FONT_MONO, 30)
    draw.text((quiet, height + 10), f"{code[0]} {code[1:7]} {code[7:]}", font=font, fill=0)
    return img


def datamatrix_image(data, module=5, quiet=2):
    """An ECC 200 DataMatrix by ppf-datamatrix (pure Python, MIT): an encoder independent of the decoders
    under test, as the EAN-13 above is."""
    from ppf.datamatrix import DataMatrix

    matrix = DataMatrix(data).matrix
    rows, cols = len(matrix), len(matrix[0])
    img = Image.new("L", ((cols + 2 * quiet) * module, (rows + 2 * quiet) * module), 255)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(matrix):
        for x, dark in enumerate(row):
            if dark:
                x0, y0 = (x + quiet) * module, (y + quiet) * module
                draw.rectangle([x0, y0, x0 + module - 1, y0 + module - 1], fill=0)
    return img


def qr_image(data, module=8):
    qr = segno.make(data, error="m", micro=False)
    out = io.BytesIO()
    qr.save(out, kind="png", scale=module, border=4)
    return Image.open(io.BytesIO(out.getvalue())).convert("L")


# MARK: - Items (documents), drawn flat at high resolution with their truth boxes

class Document:
    """An RGB image of the item, and the truth items with their boxes in its pixel coordinates."""

    def __init__(self, size, background):
        self.image = Image.new("RGB", size, background)
        self.draw = ImageDraw.Draw(self.image)
        self.items = []
        # What issue #43's types (off by default) may type on it, "contentType payload", whole or in part
        # (a date printed with its time, read apart from it, is still the date; an address without the
        # unit printed before its street is still the address): a replay with them on must add nothing
        # else (`TypedFootageTests`).
        self.typed = []

    def text(self, xy, text, size, fill, bold=False, mono=False, truth=None):
        font = ImageFont.truetype(FONT_MONO if mono else FONT_BOLD if bold else FONT, size)
        self.draw.text(xy, text, font=font, fill=fill)
        left, top, right, bottom = self.draw.textbbox(xy, text, font=font)
        if truth is not None:
            truth = dict(truth)
            truth["box"] = [left, top, right, bottom]
            # Cap height in document pixels: legibility is judged from it once projected.
            truth["capHeight"] = size * 0.73
            self.items.append(truth)
        return bottom

    def paste(self, img, xy, truth=None):
        self.image.paste(img.convert("RGB"), xy)
        if truth is not None:
            truth = dict(truth)
            truth["box"] = [xy[0], xy[1], xy[0] + img.width, xy[1] + img.height]
            self.items.append(truth)


def phone(text, e164):
    return {"kind": "text", "contentType": "telephoneNumber", "payload": e164, "transcript": text}


def url(text, payload):
    return {"kind": "text", "contentType": "url", "payload": payload, "transcript": text}


def email(text):
    return {"kind": "text", "contentType": "emailAddress", "payload": text, "transcript": text}


def distractor(text):
    return {"kind": "text", "distractor": True, "transcript": text}


def business_card(rng):
    doc = Document((1050, 600), (246, 244, 238))
    doc.text((60, 50), "Avery Lindqvist", 64, (20, 20, 30), bold=True)
    doc.text((60, 130), "Senior Field Engineer, Northgate Optics", 34, (70, 70, 80))
    doc.draw.line([(60, 200), (990, 200)], fill=(180, 40, 40), width=4)
    doc.text((60, 250), "Tel. 512.555.0173", 44, (20, 20, 30), truth=phone("Tel. 512.555.0173", "+15125550173"))
    doc.text((60, 330), "avery.lindqvist@northgate-optics.com", 38, (20, 20, 30), truth=email("avery.lindqvist@northgate-optics.com"))
    doc.text((60, 410), "www.northgate-optics.com", 38, (20, 20, 30), truth=url("www.northgate-optics.com", "http://www.northgate-optics.com"))
    doc.text((60, 500), "Suite 400, 1100 Congress Ave, Austin TX 78701", 28, (90, 90, 90), truth=distractor("78701"))
    doc.typed = ["fullStreetAddress 1100 Congress Ave, Suite 400, Austin TX 78701", "fullStreetAddress 1100 Congress Ave, Austin TX 78701"]
    return doc


def phone_screen(rng):
    # Dark mode: light text on near-black, a coloured header bar, white-on-colour button.
    doc = Document((560, 1100), (18, 18, 22))
    doc.draw.rectangle([0, 0, 560, 150], fill=(28, 92, 170))
    doc.text((40, 45), "Contact", 56, (250, 250, 255), bold=True)
    doc.text((40, 220), "Priya Raman", 52, (235, 235, 240), bold=True)
    doc.text((40, 320), "mobile", 30, (150, 150, 160))
    doc.text((40, 360), "+44 113 496 0639", 46, (235, 235, 240), truth=phone("+44 113 496 0639", "+441134960639"))
    doc.text((40, 470), "email", 30, (150, 150, 160))
    doc.text((40, 510), "priya@kestrel-labs.co.uk", 36, (120, 180, 255), truth=email("priya@kestrel-labs.co.uk"))
    doc.text((40, 620), "homepage", 30, (150, 150, 160))
    doc.text((40, 660), "kestrel-labs.co.uk/team", 36, (120, 180, 255), truth=url("kestrel-labs.co.uk/team", "http://kestrel-labs.co.uk/team"))
    doc.draw.rounded_rectangle([40, 820, 520, 920], radius=30, fill=(40, 160, 90))
    doc.text((150, 845), "Call now", 42, (255, 255, 255), bold=True)
    doc.text((40, 990), "Last seen 12:41 · 23 Nov 2026", 28, (120, 120, 130), truth=distractor("23 Nov 2026"))
    doc.glossy = True
    doc.typed = ["dateTimeDuration 12:41", "dateTimeDuration 2026-11-23"]
    return doc


def shipping_label(rng):
    doc = Document((900, 1200), (252, 252, 250))
    doc.draw.rectangle([10, 10, 890, 1190], outline=(0, 0, 0), width=6)
    doc.text((40, 40), "PRIORITY", 72, (0, 0, 0), bold=True)
    doc.text((40, 150), "SHIP TO:", 30, (0, 0, 0), bold=True)
    doc.text((40, 195), "Marguerite Okafor", 40, (0, 0, 0))
    doc.text((40, 250), "2210 Harbor Lane, Apt 5", 36, (0, 0, 0))
    doc.text((40, 300), "Oakland CA 94607", 36, (0, 0, 0), truth=distractor("94607"))
    code = "178195863767"
    code += ean13_check(code)
    doc.paste(ean13_image(code), (40, 380), truth={"kind": "barcode", "symbology": "ean13", "payload": code})
    qr = qr_image("https://trk.example.com/p/7QX4-22LM", module=7)
    doc.paste(qr, (620, 380), truth={"kind": "barcode", "symbology": "qr", "payload": "https://trk.example.com/p/7QX4-22LM"})
    doc.text((40, 660), "Ref 4155550198-A", 32, (0, 0, 0), truth=distractor("4155550198"))
    doc.text((40, 720), "Weight 2.35 kg   Pkgs 1/1", 32, (0, 0, 0))
    doc.text((40, 800), "Questions? (415) 555-0169", 42, (0, 0, 0), truth=phone("Questions? (415) 555-0169", "+14155550169"))
    doc.text((40, 900), "Shipped 2026-11-21 14:03", 30, (0, 0, 0), truth=distractor("2026-11-21"))
    doc.typed = [
        "fullStreetAddress 2210 Harbor Lane, Apt 5, Oakland CA 94607",
        "dateTimeDuration 2026-11-21T14:03", "dateTimeDuration 2026-11-21", "dateTimeDuration 14:03",
    ]
    return doc


# Documents for the content types of issue #43, photographed by `Tests/Fixtures/generate.py` for
# `scannerd scan` (not footage scenarios: the footage's truth has none of these types). With each, what
# `scan --types shipmentTrackingNumber,currency,dateTimeDuration,flightNumber,fullStreetAddress` must
# type ("contentType payload"), in reading order; every other number on them is a distractor.
TRACKING_NUMBERS = ["1Z999AA10123456784", "9400111899223397881238", "RR473124829GB"]
LABEL_TYPED = [
    "fullStreetAddress 1100 Congress Ave, Austin TX 78701",
    "fullStreetAddress 2210 Harbor Lane, Apt 5, Oakland CA 94607",
    "shipmentTrackingNumber 1Z999AA10123456784",
    "shipmentTrackingNumber 9400111899223397881238",
    "shipmentTrackingNumber RR473124829GB",
    "dateTimeDuration 2026-11-21T14:03",
]


def tracking_label(rng):
    """A parcel label: a sender's address on one line, the recipient's on two, three carriers'
    tracking numbers among an order number, an account number that passes FedEx's check digit, a
    weight, a reference and the date shipped."""
    doc = Document((900, 1200), (252, 252, 250))
    doc.draw.rectangle([10, 10, 890, 1190], outline=(0, 0, 0), width=6)
    doc.text((40, 40), "UPS GROUND", 64, (0, 0, 0), bold=True)
    doc.text((40, 125), "FROM: 1100 Congress Ave, Austin TX 78701", 28, (0, 0, 0))
    doc.text((40, 180), "SHIP TO:", 30, (0, 0, 0), bold=True)
    doc.text((40, 220), "Marguerite Okafor", 40, (0, 0, 0))
    doc.text((40, 275), "2210 Harbor Lane, Apt 5", 36, (0, 0, 0))
    doc.text((40, 325), "Oakland CA 94607", 36, (0, 0, 0))
    doc.text((40, 410), "TRACKING #: 1Z 999 AA1 01 2345 6784", 34, (0, 0, 0), bold=True)
    doc.text((40, 490), "USPS TRACKING # 9400 1118 9922 3397 8812 38", 32, (0, 0, 0))
    doc.text((40, 565), "Registered RR 473 124 829 GB", 36, (0, 0, 0))
    # Digits alone that no line calls a tracking number; 568838414941 even passes FedEx's check digit.
    doc.text((40, 660), "Order #5125550147   Acct 568838414941", 32, (0, 0, 0))
    doc.text((40, 720), "Weight 2.35 kg   Pkgs 1/1", 32, (0, 0, 0))
    doc.text((40, 800), "Shipped 2026-11-21 14:03", 30, (0, 0, 0))
    doc.text((40, 880), "Ref 4155550198-A", 32, (0, 0, 0))
    return doc


MONEY_AMOUNTS = ["5.25 USD", "12.90 USD", "25.95 USD", "2.14 USD", "28.09 USD"]
RECEIPT_TYPED = [
    "fullStreetAddress 1100 Congress Ave, Austin, TX 78701",
    "dateTimeDuration 2026-11-22T09:41",
] + ["currency " + amount for amount in MONEY_AMOUNTS]


def money_receipt(rng):
    """A receipt: the shop's address on two lines, the date and time, prices with their currency
    among a price without one, a tax rate, an order number, a card number, a register's numbers and a
    phone number."""
    doc = Document((620, 1060), (250, 249, 244))
    y = 40
    y = doc.text((150, y), "CORNER MARKET", 46, (10, 10, 10), bold=True) + 16
    for text in ["1100 Congress Ave", "Austin, TX 78701"]:
        y = doc.text((150, y), text, 30, (25, 25, 25), mono=True) + 12
    y += 14
    for text in [
        "Order #5125550147",
        "11/22/2026  09:41",
        "Sourdough loaf   $5.25",
        "Coffee 500g     $12.90",
        "Apples 1.2kg      4.31",
        "SUBTOTAL        $25.95",
        "TAX 8.25%        $2.14",
        "TOTAL           $28.09",
        "VISA **** 4410",
        "Store 07  Reg 3  Op 12",
    ]:
        y = doc.text((40, y), text, 30, (25, 25, 25), mono=True) + 22
    doc.text((40, y + 20), "Questions? 1-737-555-0142", 32, (10, 10, 10))
    return doc


BOARDING_TYPED = [
    "flightNumber LH400",
    "dateTimeDuration 2026-11-25",
    "dateTimeDuration 17:35",
    "dateTimeDuration 18:05",
    "dateTimeDuration PT8H40M",
]


def boarding_pass(rng):
    """A boarding pass: the flight, its date, boarding and departure times and the flight time, among
    a gate, a seat, a zone, a sequence number, a booking reference and a ticket number."""
    doc = Document((1200, 560), (250, 250, 252))
    doc.draw.rectangle([0, 0, 1200, 90], fill=(20, 50, 110))
    doc.text((40, 18), "BOARDING PASS", 50, (255, 255, 255), bold=True)
    doc.text((40, 120), "NAME  OKAFOR/MARGUERITE MS", 32, (20, 20, 30))
    doc.text((40, 180), "FLIGHT  LH 400     DATE  25 NOV 2026", 40, (20, 20, 30), bold=True)
    doc.text((40, 250), "FROM  FRANKFURT FRA     TO  NEW YORK JFK", 32, (20, 20, 30))
    doc.text((40, 310), "BOARDING  17:35     DEPARTS  18:05", 36, (20, 20, 30), bold=True)
    doc.text((40, 375), "GATE  B22     SEAT  14C     ZONE  3     SEQ  045", 32, (20, 20, 30))
    doc.text((40, 435), "Flight time 8h 40m     Booking ref X7K2LM", 30, (60, 60, 70))
    doc.text((40, 490), "Ticket 220 2412345678 9", 28, (60, 60, 70))
    return doc


LETTERHEAD_TYPED = [
    "fullStreetAddress 221B Baker Street, London NW1 6XE",
    "dateTimeDuration 2026-11-03",
    "dateTimeDuration --10-28",
    "currency 1250.00 GBP",
    "dateTimeDuration P30D",
    "dateTimeDuration --12-24/--12-26",
]


def letterhead(rng):
    """A letter on a letterhead: the sender's address on one line under the name, the letter's date,
    a date, an amount and a period in its text, among an invoice number, a reference and the company's
    registration and VAT numbers."""
    doc = Document((1000, 1300), (253, 253, 250))
    doc.text((70, 60), "KESTREL LABS LTD", 54, (30, 60, 90), bold=True)
    doc.text((70, 135), "221B Baker Street · London NW1 6XE", 30, (60, 60, 70))
    doc.draw.line([(70, 190), (930, 190)], fill=(30, 60, 90), width=3)
    y = 240
    for text in [
        "3 November 2026",
        "Reference KL/4471/26",
        "",
        "Dear Ms Okafor,",
        "",
        "Thank you for your order of 28 October.",
        "Invoice INV-2026-1187 for £1,250.00",
        "is due within 30 days.",
        "Our offices are closed 24–26 December.",
        "",
        "Yours sincerely,",
        "Avery Lindqvist",
    ]:
        y = (doc.text((70, y), text, 32, (25, 25, 30)) if text else y) + 26
    doc.text((70, 1210), "Registered in England No. 08452197 · VAT GB 123 4567 89", 22, (90, 90, 100))
    return doc


def receipt(rng):
    doc = Document((620, 1300), (250, 249, 244))
    y = 40
    y = doc.text((150, y), "CORNER MARKET", 46, (10, 10, 10), bold=True) + 20
    lines = [
        ("Order #5125550147", distractor("5125550147")),
        ("Terminal 00431  Cashier 17", None),
        ("11/22/2026  09:41", distractor("11/22/2026")),
        ("Oat milk 1L            3.49", None),
        ("Sourdough loaf         5.25", None),
        ("Coffee beans 500g     12.90", None),
        ("Apples 1.2kg           4.31", None),
        ("SUBTOTAL              25.95", None),
        ("TAX 8.25%              2.14", None),
        ("TOTAL                 28.09", distractor("28.09")),
        ("VISA **** 4410", None),
        ("Auth 512555 Ref 0011940173", distractor("0011940173")),
        ("Store 07 Austin TX 78704", distractor("78704")),
    ]
    for text, truth in lines:
        y = doc.text((40, y), text, 30, (25, 25, 25), mono=True, truth=truth) + 22
    y += 20
    doc.text((40, y), "Questions? 1-737-555-0142", 32, (10, 10, 10), truth=phone("Questions? 1-737-555-0142", "+17375550142"))
    # Its prices have no currency sign or code: no amount of money.
    doc.typed = ["dateTimeDuration 2026-11-22T09:41", "dateTimeDuration 2026-11-22", "dateTimeDuration 09:41"]
    return doc


def poster(rng):
    doc = Document((900, 1260), (235, 120, 60))
    doc.draw.rectangle([0, 700, 900, 1260], fill=(250, 246, 236))
    doc.text((60, 80), "OPEN", 150, (255, 250, 240), bold=True)
    doc.text((60, 270), "STUDIO", 150, (255, 250, 240), bold=True)
    doc.text((60, 500), "Sat 6 Dec, 10-16", 52, (255, 250, 240), truth=distractor("6 Dec"))
    doc.text((60, 780), "Pottery, prints and tea", 44, (40, 30, 30))
    doc.text((60, 880), "oldmill-studios.com/info", 48, (40, 30, 30), truth=url("oldmill-studios.com/info", "http://oldmill-studios.com/info"))
    doc.text((60, 980), "hello@oldmill-studios.com", 44, (40, 30, 30), truth=email("hello@oldmill-studios.com"))
    doc.typed = ["dateTimeDuration --12-06"]
    return doc


# A sheet of 30 EAN-13 and 30 DataMatrix (issue #41: every code of a page read, each its own item). Its
# payloads, in reading order, for the still fixture's truth (Tests/Fixtures/generate.py).
def sheet_payloads():
    eans, dms = [], []
    for i in range(30):
        body = f"40{(i * 7919 + 1234567) % 10 ** 10:010d}"
        eans.append(body + ean13_check(body))
        dms.append(f"SHEET-{i + 1:02d}-{(i * 37 + 11) % 100:02d}")
    return eans, dms


def code_sheet(rng):
    """Five columns by six rows, each cell an EAN-13 (4 px a module, short bars as on labels) above a
    DataMatrix (5 px a module): about the fill of a 16:9 frame when held up close."""
    doc = Document((2390, 1480), (250, 250, 247))
    eans, dms = sheet_payloads()
    for i in range(30):
        row, column = divmod(i, 5)
        x, y = 20 + column * 470, 20 + row * 240
        doc.paste(ean13_image(eans[i], module=4, height=80), (x, y),
                  truth={"kind": "barcode", "symbology": "ean13", "payload": eans[i], "module": 4})
        dm = datamatrix_image(dms[i], module=5)
        doc.paste(dm, (x + 180, y + 132), truth={"kind": "barcode", "symbology": "datamatrix", "payload": dms[i], "module": 5})
    doc.close_up = True
    return doc


def small_print(rng):
    """The business card held at arm's length (issue #52): its phone number's capitals 7 px high,
    its e-mail and web addresses' 6 px (legible: capitals of 6 px and more)."""
    doc = business_card(rng)
    doc.held_scale = 7 / (44 * 0.73)
    doc.legible_cap = 6
    doc.thumb_scale = 0.45
    return doc


SCENARIOS = {
    "card": business_card,
    "phone": phone_screen,
    "label": shipping_label,
    "receipt": receipt,
    "poster": poster,
    "sheet": code_sheet,
    "desk": None,  # nothing held up: the empty, cluttered desk
    # Last in sorted order: each scenario's noise is drawn by its index in that order.
    "smallprint": small_print,
}

# MARK: - The camera


def desk_background(rng, width, height):
    """A cluttered desk: wood-ish gradient, a keyboard edge, a mug, papers with scribbles (no text)."""
    base = Image.new("RGB", (width, height), (0, 0, 0))
    arr = np.zeros((height, width, 3), np.float32)
    y = np.linspace(0, 1, height)[:, None]
    x = np.linspace(0, 1, width)[None, :]
    tone = np.array([118, 92, 70], np.float32)
    grain = np.sin(x * 80 + np.sin(y * 6) * 3) * 6
    arr[:] = tone * (0.8 + 0.3 * y)[..., None] + grain[..., None]
    base = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(base)
    for _ in range(rng.randint(3, 6)):  # papers
        w, h = rng.randint(width // 8, width // 4), rng.randint(height // 6, height // 3)
        x0, y0 = rng.randint(0, width - w), rng.randint(0, height - h)
        shade = rng.randint(200, 240)
        draw.rectangle([x0, y0, x0 + w, y0 + h], fill=(shade, shade, shade - 6))
        for _ in range(rng.randint(2, 6)):  # scribbles, not text
            pts = [(x0 + rng.randint(5, w - 5), y0 + rng.randint(5, h - 5)) for _ in range(4)]
            draw.line(pts, fill=(60, 60, 90), width=2)
    cx, cy, r = rng.randint(0, width), rng.randint(0, height), rng.randint(height // 12, height // 6)
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(200, 200, 210), outline=(90, 90, 100), width=6)  # mug
    ky = rng.randint(int(height * 0.75), height - 20)
    draw.rectangle([0, ky, width, height], fill=(40, 40, 45))  # keyboard edge
    for k in range(0, width, 48):
        draw.rectangle([k + 4, ky + 8, k + 40, ky + 40], fill=(60, 60, 66))
    return base


def homography(src, dst):
    """3x3 matrix mapping the four `src` points to the four `dst` points."""
    rows = []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.array(rows, np.float64))
    h = vt[-1].reshape(3, 3)
    return h / h[2, 2]


def apply(h, points):
    pts = np.array([[x, y, 1.0] for x, y in points]).T
    out = h @ pts
    return list(zip(out[0] / out[2], out[1] / out[2]))


def pose_corners(doc_size, center, scale, tilt_x, tilt_y, roll):
    """The document's corners in the frame: a rectangle scaled and rolled, then foreshortened as if
    tilted about its horizontal (tilt_x) and vertical (tilt_y) axes (a pinhole view)."""
    w, h = doc_size[0] * scale, doc_size[1] * scale
    corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    focal = 1.6 * max(w, h)
    out = []
    for x, y in corners:
        # Rotate in 3-D: about x (tilt_x), then y (tilt_y), then roll in the image plane.
        y1, z1 = y * math.cos(tilt_x), y * math.sin(tilt_x)
        x2, z2 = x * math.cos(tilt_y) + z1 * math.sin(tilt_y), -x * math.sin(tilt_y) + z1 * math.cos(tilt_y)
        factor = focal / (focal + z2)
        px, py = x2 * factor, y1 * factor
        rx = px * math.cos(roll) - py * math.sin(roll)
        ry = px * math.sin(roll) + py * math.cos(roll)
        out.append((center[0] + rx, center[1] + ry))
    return out


def motion_blur(rgb, alpha, dx, dy):
    """Averages the moving item (its colours and its coverage) along the motion vector, the distance
    covered during the exposure; the desk behind it stands still and stays sharp. The exposure is
    sampled finely along the vector and each sample shared between the four whole-pixel shifts round
    it (bilinear), so a smear of 1.3 px is a smear of 1.3 px: whole-pixel samples alone made it two
    sharp copies 2 px apart, a double image no lens gives. Integer sums: a third of the float
    version's time."""
    length = math.hypot(dx, dy)
    if length < 1.0:
        return rgb, alpha
    samples = min(int(length * 4) + 2, 97)
    kernel = {}  # whole-pixel shift (dy, dx) -> weight
    for i in range(samples):
        t = i / (samples - 1) - 0.5
        x, y = dx * t, dy * t
        x0, y0 = math.floor(x), math.floor(y)
        fx, fy = x - x0, y - y0
        for oy, ox, w in ((y0, x0, (1 - fx) * (1 - fy)), (y0, x0 + 1, fx * (1 - fy)), (y0 + 1, x0, (1 - fx) * fy), (y0 + 1, x0 + 1, fx * fy)):
            if w > 0:
                kernel[(oy, ox)] = kernel.get((oy, ox), 0) + w / samples
    # Weights in 1/256ths (summing to 256), dropping shifts that would get none.
    weights = {shift: round(w * 256) for shift, w in kernel.items() if round(w * 256) > 0}
    total = sum(weights.values())
    # Premultiplied, so the item's edge blurs into the desk, not into black.
    planes = np.concatenate([rgb.astype(np.uint16) * alpha[..., None] // 255, alpha[..., None].astype(np.uint16)], axis=2)
    # Shifted within a transparent border, so that nothing wraps round from the far edge.
    pad = int(math.ceil(max(abs(dx), abs(dy)) / 2)) + 2
    planes = np.pad(planes, ((pad, pad), (pad, pad), (0, 0)))
    acc = np.zeros(planes.shape, np.uint32)
    for shift, w in weights.items():
        acc += np.roll(planes, shift, axis=(0, 1)).astype(np.uint32) * np.uint32(w)
    acc = acc[pad:-pad, pad:-pad] // np.uint32(total)
    alpha = acc[..., 3].astype(np.uint8)
    rgb = (acc[..., :3] * 255 // np.maximum(acc[..., 3:], 1)).clip(0, 255).astype(np.uint8)
    return rgb, alpha


def covers(ellipse, quad, margin=6):
    """Whether the ellipse (its bounding box, grown by `margin`) covers any point of the quad's outline
    or centre: sampled at 8 points per side."""
    x0, y0, x1, y1 = ellipse
    cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2 + margin, (y1 - y0) / 2 + margin
    points = [((quad[0][0] + quad[2][0]) / 2, (quad[0][1] + quad[2][1]) / 2)]
    for i in range(4):
        (ax, ay), (bx, by) = quad[i], quad[(i + 1) % 4]
        points += [(ax + (bx - ax) * t / 8, ay + (by - ay) * t / 8) for t in range(8)]
    return any(((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1 for x, y in points)


class Shot:
    """Where the item is in each frame: enters, held with jitter, leaves."""

    def __init__(self, rng, frames, width, height, doc_size, dim, close_up=False):
        self.rng = rng
        self.frames = frames
        side = rng.choice(["left", "right", "bottom"])
        # Cap height 9-20 px at 1280x720 for the body text (about 40 px in the document).
        self.scale = rng.uniform(0.55, 0.9) * height / max(doc_size[1], doc_size[0] * 0.75)
        self.scale = min(self.scale, 0.82 * width / doc_size[0], 0.9 * height / doc_size[1])
        if close_up:
            # A page of codes held up close and square to the camera: it fills the frame.
            self.scale = rng.uniform(0.9, 0.95) * min(width / doc_size[0], height / doc_size[1])
        hold = (width * rng.uniform(0.4, 0.6), height * rng.uniform(0.45, 0.55))
        if close_up:
            hold = (width * 0.5, height * 0.5)
        off = {"left": (-width * 0.6, hold[1]), "right": (width * 1.6, hold[1]), "bottom": (hold[0], height * 1.8)}[side]
        self.enter = (int(frames * 0.15), int(frames * 0.3))
        self.leave = (int(frames * 0.75), int(frames * 0.88))
        self.hold, self.off = hold, off
        limit = (8, 4) if close_up else (30, 12)
        self.tilt = (math.radians(rng.uniform(-limit[0], limit[0])), math.radians(rng.uniform(-limit[0], limit[0])))
        self.roll = math.radians(rng.uniform(-limit[1], limit[1]))
        self.jitter_seed = rng.random() * 1000

    def center(self, f):
        a0, a1 = self.enter
        b0, b1 = self.leave
        if f < a0 or f >= b1:
            return None
        if f < a1:
            t = (f - a0) / max(1, a1 - a0)
            t = t * t * (3 - 2 * t)
            base = (self.off[0] + (self.hold[0] - self.off[0]) * t, self.off[1] + (self.hold[1] - self.off[1]) * t)
        elif f < b0:
            base = self.hold
        else:
            t = (f - b0) / max(1, b1 - b0)
            t = t * t * (3 - 2 * t)
            base = (self.hold[0] + (self.off[0] - self.hold[0]) * t, self.hold[1] + (self.off[1] - self.hold[1]) * t)
        # Hand jitter: a few pixels, smooth (two sines of different periods).
        s = self.jitter_seed
        return (base[0] + 3 * math.sin(f * 0.37 + s) + 1.5 * math.sin(f * 1.3 + 2 * s),
                base[1] + 3 * math.sin(f * 0.29 + 3 * s) + 1.5 * math.sin(f * 1.1 + s))


def render(scenario, seed, width, height, fps, seconds=6.0, exposure=None):
    """`exposure`: the light on the scene as a share of the usual (0.08: a dark corner), with the
    camera's gain and noise turned up as in dim light; None: the seed decides (a third of the clips dim)."""
    rng = random.Random(f"{scenario}-{seed}")
    nrng = np.random.default_rng(seed * 1000 + sorted(SCENARIOS).index(scenario))
    make = SCENARIOS[scenario]
    doc = make(rng) if make else None
    clip, truth = film(doc, scenario, rng, nrng, width, height, fps, seconds, exposure)
    return clip, {"scenario": scenario, "seed": seed, **truth}


def film(doc, kind, rng, nrng, width, height, fps, seconds, exposure=None, scale=None, legible_cap=8):
    """`doc` (None: the empty desk) held up over a desk, entering, held and leaving, as a webcam films
    it: the clip's JPEG frames and the truth (without scenario and seed). `scale`: document pixels to
    frame pixels while held (None: the shot chooses, a cap height of 9-20 px); `legible_cap`: the
    smallest projected cap height (px) a text item is legible at."""
    frames = int(seconds * fps)
    if doc is not None:
        scale = scale if scale is not None else getattr(doc, "held_scale", None)
        legible_cap = getattr(doc, "legible_cap", legible_cap)
    background = desk_background(rng, width, height)
    dim = rng.random() < 0.34  # a third of the clips in dim light
    if exposure is not None:
        dim = True
    light_angle = rng.uniform(0, 2 * math.pi)
    quality = rng.randint(70, 85)
    shot = Shot(rng, frames, width, height, doc.image.size, dim, close_up=getattr(doc, "close_up", False)) if doc else None
    if shot and scale is not None:
        shot.scale = scale
    thumb_corner = rng.randrange(4) if doc else None

    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    nx, ny = (xx / width - 0.5), (yy / height - 0.5)
    vignette = 1 - 0.45 * (nx ** 2 + ny ** 2) * 2
    gradient = 1 + 0.25 * (nx * math.cos(light_angle) + ny * math.sin(light_angle)) * 2
    gain = exposure if exposure is not None else 0.45 if dim else 1.0
    light = (vignette * gradient * gain).astype(np.float32)
    read_noise = 5.5 if dim else 2.0
    shot_factor = 0.35 if dim else 0.12
    # Sensor noise, unit normals: two fields a little larger than the frame, each frame a random one
    # at a random offset (2 x 32 x 32 placements; consecutive frames share no pixel's value unless
    # both fall the same way). Drawing 2.8 M normals a frame was most of the generator's time.
    pad = 32
    noise_bank = nrng.standard_normal((2, height + pad, width + pad, 3), dtype=np.float32)

    out_frames = []
    truth_items = []
    # The document itself (issue #43): its four corners each frame it is in the picture at all,
    # whether all four are in the frame, and how far it moved (px of blur).
    truth_document = {"kind": getattr(doc, "kind", None) or kind, "frames": []} if doc else None
    if doc:
        for item in doc.items:
            entry = {k: v for k, v in item.items() if k not in ("box", "capHeight", "module")}
            entry["frames"] = []
            truth_items.append(entry)

    previous_center = None
    glare_offset = None
    for f in range(frames):
        frame = background.copy()
        center = shot.center(f) if shot else None
        per_item = [None] * len(truth_items)
        if center is not None:
            corners = pose_corners(doc.image.size, center, shot.scale, shot.tilt[0], shot.tilt[1], shot.roll)
            w0, h0 = doc.image.size
            src = [(0, 0), (w0, 0), (w0, h0), (0, h0)]
            to_frame = homography(src, corners)
            dx = dy = 0.0
            if previous_center is not None:
                # Exposure ~ half the frame time: the blur is half the distance moved per frame.
                dx, dy = (center[0] - previous_center[0]) * 0.5, (center[1] - previous_center[1]) * 0.5
            # The item is drawn only within its bounds (and the reach of its blur): a perspective
            # warp of the whole frame cost three times as much. Where it runs off the frame, it is
            # drawn that reach beyond, so that what the blur brings into view from beyond the edge
            # is the item, as a camera would see it.
            reach = math.ceil(abs(dx) / 2 + abs(dy) / 2) + 2
            bx0 = max(-reach, math.floor(min(x for x, _ in corners)) - reach)
            by0 = max(-reach, math.floor(min(y for _, y in corners)) - reach)
            bx1 = min(width + reach, math.ceil(max(x for x, _ in corners)) + reach)
            by1 = min(height + reach, math.ceil(max(y for _, y in corners)) + reach)
            if getattr(doc, "glossy", False):
                # The glare band lies where the light falls on the screen: placed by the clip's first
                # draw, then swaying with the hand by ~1 % of the frame. (It was drawn anew on every
                # frame, up to 0.4 of the frame away from the last: a glare that jumps is no held
                # screen's, and it changed the look of every line of the phone on every frame.) One
                # draw a frame as before, so the rest of the clip is made of the same draws.
                sway = rng.uniform(-1, 1)
                if glare_offset is None:
                    glare_offset = 0.2 * sway
                gx = int(center[0] + (glare_offset + 0.01 * sway) * width)
            if bx1 > bx0 and by1 > by0:
                box = (bx1 - bx0, by1 - by0)
                to_box = np.array([[1, 0, -bx0], [0, 1, -by0], [0, 0, 1]], np.float64) @ to_frame
                from_box = np.linalg.inv(to_box)
                coeffs = tuple((from_box / from_box[2, 2]).flatten()[:8])
                layer = doc.image.transform(box, Image.PERSPECTIVE, coeffs, Image.BICUBIC)
                mask = Image.new("L", doc.image.size, 255).transform(box, Image.PERSPECTIVE, coeffs, Image.BILINEAR)
                if getattr(doc, "glossy", False):
                    # A soft bright band over the screen, drawn at an eighth of the size (it is smooth).
                    small = Image.new("L", (width // 8, height // 8), 0)
                    ImageDraw.Draw(small).ellipse([(gx - 60) / 8, 0, (gx + 60) / 8, height / 8], fill=40)
                    glare = small.filter(ImageFilter.GaussianBlur(5)).resize((width, height), Image.BILINEAR).crop((bx0, by0, bx1, by1))
                    layer = Image.composite(Image.new("RGB", box, (255, 255, 255)), layer, glare)
                if math.hypot(dx, dy) >= 1:
                    rgb, alpha = motion_blur(np.asarray(layer), np.asarray(mask), dx, dy)
                    layer, mask = Image.fromarray(rgb), Image.fromarray(alpha)
                inside = (max(0, -bx0), max(0, -by0), min(width, bx1) - bx0, min(height, by1) - by0)
                if inside[2] > inside[0] and inside[3] > inside[1]:
                    frame.paste(layer.crop(inside), (bx0 + inside[0], by0 + inside[1]), mask.crop(inside))
            # A thumb over one corner of the item; a page held up close is held at its bottom edge,
            # the thumb below it (its corners are codes).
            tx, ty = corners[thumb_corner]
            inward = ((center[0] - tx) * 0.12, (center[1] - ty) * 0.12)
            if getattr(doc, "close_up", False):
                tx, ty = (corners[2][0] + corners[3][0]) / 2, (corners[2][1] + corners[3][1]) / 2
                inward = (0, 80)
            # A thumb is as far from the camera as what it holds: smaller on a card held far away.
            tw, th = 45 * getattr(doc, "thumb_scale", 1.0), 70 * getattr(doc, "thumb_scale", 1.0)
            thumb = [tx + inward[0] - tw, ty + inward[1] - th, tx + inward[0] + tw, ty + inward[1] + th]
            ImageDraw.Draw(frame).ellipse(thumb, fill=(206, 150, 125))
            blur_px = math.hypot(dx, dy)
            truth_document["frames"].append({
                "frame": f,
                "corners": [[round(x / width, 4), round(y / height, 4)] for x, y in corners],
                "inView": all(0 <= x < width and 0 <= y < height for x, y in corners),
                "blur": round(blur_px, 2),
            })
            for index, item in enumerate(doc.items):
                x0, y0, x1, y1 = item["box"]
                quad = apply(to_frame, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
                inside = all(0 <= x < width and 0 <= y < height for x, y in quad)
                covered = covers(thumb, quad)
                # Legible: the projected cap height (from the shorter side of the box) and blur.
                side = min(math.dist(quad[0], quad[3]), math.dist(quad[1], quad[2])) / max(1, y1 - y0)
                cap = item.get("capHeight", (y1 - y0)) * side
                if item["kind"] == "barcode":
                    module = (math.dist(quad[0], quad[1]) / max(1, x1 - x0)) * item.get("module", 4)
                    legible = inside and not covered and blur_px < 2.5 and module >= 1.2
                else:
                    legible = inside and not covered and blur_px < 2.0 and cap >= legible_cap
                per_item[index] = {
                    "frame": f,
                    "corners": [[round(x / width, 4), round(y / height, 4)] for x, y in quad],
                    "visible": inside and not covered,
                    "legible": legible,
                }
        previous_center = center

        # Light, exposure flicker, sensor noise.
        arr = np.asarray(frame, np.float32)
        flicker = 1 + 0.04 * math.sin(f * 2 * math.pi / rng.uniform(8, 14)) + nrng.normal(0, 0.01)
        arr *= (light * np.float32(flicker))[..., None]
        # Shot noise (variance growing with the signal) and read noise, independent: one normal of
        # their summed variance.
        field, oy, ox = nrng.integers(0, 2), nrng.integers(0, pad), nrng.integers(0, pad)
        noise = noise_bank[field, oy:oy + height, ox:ox + width]
        arr += noise * np.sqrt(np.maximum(arr, 0) * np.float32(shot_factor) + np.float32(read_noise ** 2))
        if dim:
            arr *= np.float32(1.6)  # the camera's gain, amplifying the noise with the signal
        img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
        data = io.BytesIO()
        img.save(data, format="JPEG", quality=quality, subsampling=2)  # 4:2:0, as webcams send MJPEG
        out_frames.append(data.getvalue())
        for index, entry in enumerate(per_item):
            if entry is not None:
                truth_items[index]["frames"].append(entry)

    truth = {
        "width": width, "height": height, "fps": fps, "frames": frames,
        "dim": dim, "exposure": exposure, "jpegQuality": quality, "items": truth_items, "document": truth_document,
        "typed": doc.typed if doc else [],
    }
    return b"".join(out_frames), truth


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--exposure", type=float, help="light on the scene, a share of the usual (0.08: a dark corner)")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    os.makedirs(args.outdir, exist_ok=True)
    for scenario in args.scenarios.split(","):
        if scenario not in SCENARIOS:
            parser.error(f"unknown scenario {scenario!r} ({', '.join(SCENARIOS)})")
        for seed in (int(s) for s in args.seeds.split(",")):
            clip, truth = render(scenario, seed, width, height, args.fps, args.seconds, args.exposure)
            stem = os.path.join(args.outdir, f"{scenario}-s{seed}")
            with open(stem + ".mjpeg", "wb") as f:
                f.write(clip)
            with open(stem + ".json", "w") as f:
                json.dump(truth, f, indent=1)
            legible = {i.get("payload", i.get("transcript")): sum(fr["legible"] for fr in i["frames"]) for i in truth["items"]}
            print(f"{stem}.mjpeg: {truth['frames']} frames, {len(clip) // 1024} kB, dim={truth['dim']}, legible frames {legible}")


if __name__ == "__main__":
    main()
