#!/usr/bin/env python3
"""Makes the image-scanning fixtures: card QR codes as a vendor's counter meets them, and hostile files.

The cards are the service's own: `peez card issue --png` signs them with the test-vector key
(Fixtures/keys/vectors-primary.pem, never trusted anywhere real) and renders them. Pillow then scales,
rotates, photographs and damages them. Run from the repository root after `swift build`:

    pip install pillow && python3 Fixtures/images/generate.py [path/to/peez]

It rewrites every file here and images.json, which lists each file with what a scanner must make of it.
The tokens are signed anew on each run (their issue time is the run's), so the images change too.
"""
import io
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEEZ = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "peez")
KEY = os.path.join(ROOT, "Fixtures", "keys", "vectors-primary.pem")
EXPIRES = "2030-12-31"
CARDS = [("PEEZ-20251103-00001", "Ahmed Mohamed"), ("PEEZ-20251104-00002", "Fatima Zohra Benali")]

random.seed(2026)


def issue(member, name, folder):
    os.chmod(KEY, 0o600)
    png = os.path.join(folder, member + ".png")
    token = subprocess.run([PEEZ, "card", "issue", "--key", KEY, "--member", member, "--name", name,
                            "--expires", EXPIRES, "--png", png], check=True, capture_output=True, text=True).stdout.strip()
    return token, Image.open(png).convert("L")


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_claiming(width, height, rows_available):
    """A well-formed PNG header for a huge picture, followed by only a few real rows."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = zlib.compress(b"".join(b"\x00" + b"\xff" * min(width, 4096) for _ in range(rows_available)))
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", raw) + png_chunk(b"IEND", b"")


def save(image, name, **options):
    image.save(os.path.join(HERE, name), **options)
    return name


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
    return name


def photo(card):
    """A 1280 × 720 webcam-like photo: the card tilted on a desk, soft focus, noise, JPEG at quality 80."""
    desk = Image.new("L", (1280, 720))
    draw = ImageDraw.Draw(desk)
    for y in range(720):
        draw.line([(0, y), (1280, y)], fill=90 + y * 60 // 720)
    phone = Image.new("L", (440, 520), 30)
    screen = Image.new("L", (400, 480), 250)
    screen.paste(card.resize((360, 360), Image.Resampling.BILINEAR), (20, 60))
    ImageDraw.Draw(screen).rectangle([20, 10, 380, 40], fill=200)
    phone.paste(screen, (20, 20))
    phone = phone.rotate(8, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=0)
    mask = Image.new("L", (440, 520), 255).rotate(8, expand=True)
    desk.paste(phone, (420, 80), mask)
    desk = desk.filter(ImageFilter.GaussianBlur(1.2))
    noisy = desk.point(lambda v: v)
    pixels = noisy.load()
    for _ in range(60000):
        x, y = random.randrange(1280), random.randrange(720)
        pixels[x, y] = max(0, min(255, pixels[x, y] + random.randint(-25, 25)))
    return noisy


def main():
    with tempfile.TemporaryDirectory() as folder:
        (first, card), (second, other) = [issue(member, name, folder) for member, name in CARDS]
    now = int(time.time())
    images = []

    def add(file, description, codes=None, error=None):
        expected = {"codes": codes} if codes is not None else {"error": error}
        images.append({"file": file, "description": description, "expected": expected})

    add(save(card, "card.png", optimize=True), "the service's own PNG, as `peez card issue --png` writes it", [first])
    quarter = card.resize((card.width // 4, card.height // 4), Image.Resampling.BOX)
    add(save(quarter, "card-quarter.png"), "the same scaled to 25 % (2 pixels a module, greys at the edges)", [first])
    rotated = card.rotate(15, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    add(save(rotated, "card-rotated-15.png"), "the same rotated 15 degrees", [first])
    add(save(photo(card), "card-photo.jpg", quality=80), "a 1280 x 720 JPEG photo of a phone showing the card", [first])
    progressive = card.convert("RGB")
    add(save(progressive, "card-progressive.jpg", quality=90, progressive=True), "a progressive colour JPEG", [first])
    transparent = Image.merge("LA", (Image.new("L", card.size, 0), card.point(lambda v: 255 - v)))
    add(save(transparent, "card-transparent.png"), "black modules on a transparent background (laid over white)", [first])
    pair = Image.new("L", (card.width * 2 + 40, card.height), 255)
    pair.paste(card, (0, 0))
    pair.paste(other, (card.width + 40, 0))
    add(save(pair, "two-cards.png"), "two cards side by side: both are answered, left to right", [first, second])

    blank = Image.new("RGB", (480, 320), (240, 236, 228))
    draw = ImageDraw.Draw(blank)
    draw.rectangle([40, 40, 200, 200], fill=(20, 20, 20))
    draw.ellipse([260, 60, 440, 240], outline=(10, 80, 160), width=12)
    draw.text((40, 260), "PEEZ - pas de code ici", fill=(0, 0, 0))
    add(save(blank, "no-code.png"), "a picture with no QR code in it", error="no_qr_code")

    whole = open(os.path.join(HERE, "card.png"), "rb").read()
    add(write("truncated.png", whole[: len(whole) * 3 // 5]), "card.png cut at 60 % of its bytes", error="damaged")
    add(write("truncated.jpg", open(os.path.join(HERE, "card-photo.jpg"), "rb").read()[:1500]),
        "card-photo.jpg cut after its first 1,500 bytes: libjpeg greys out the rest", error="no_qr_code")
    add(write("huge-dimensions.png", png_claiming(200000, 200000, 4)),
        "a well-formed PNG header claiming 200,000 x 200,000 pixels", error="too_large")
    bomb = io.BytesIO()
    Image.new("1", (12000, 12000), 1).save(bomb, "PNG")
    add(write("white-144-megapixels.png", bomb.getvalue()),
        "a real 12,000 x 12,000 PNG that compresses to a few kilobytes", error="too_large")
    jpeg = bytearray(open(os.path.join(HERE, "card-photo.jpg"), "rb").read())
    sof = jpeg.index(b"\xff\xc0")
    jpeg[sof + 5: sof + 9] = struct.pack(">HH", 60000, 60000)
    add(write("huge-dimensions.jpg", bytes(jpeg)), "card-photo.jpg with its frame header claiming 60,000 x 60,000", error="too_large")
    add(write("not-an-image.png", b"PEEZ1:this is text with a .png name\n"), "a text file named .png", error="not_an_image")
    add(write("empty.jpg", b""), "an empty file", error="not_an_image")

    manifest = {
        "format": "PEEZ image-scanning fixtures",
        "how_to_use": "Scan each file for QR codes. Where `expected.codes` is given, the scanner must find exactly "
                      "those texts, left to right; each is a card token that verifies as valid at `now` with the "
                      "`primary` key of Fixtures/vectors/card-token-vectors.json. Where `expected.error` is given, "
                      "the scanner must refuse the file for that reason (not_an_image, too_large, damaged) or, for "
                      "no_qr_code, find no code, all within bounded memory and without crashing.",
        "generator": "Fixtures/images/generate.py (Pillow; the cards from `peez card issue --png`)",
        "now": now,
        "images": images,
    }
    with open(os.path.join(HERE, "images.json"), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
