#!/usr/bin/env python3
"""Draws the Wallet pass's icon and logo at 1x, 2x and 3x (the PNGs beside this file, built into peez).

Apple's sizes: icon 29 x 29 points, logo at most 160 x 50 points. Run after changing the drawing, with Pillow:

    python3 -m venv /tmp/pil && /tmp/pil/bin/pip install pillow
    /tmp/pil/bin/python Sources/WalletPass/images/make-images.py

The output is the same for the same Pillow version (no dates, no randomness).
"""
import os

from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
GREEN = (0, 122, 94, 255)
WHITE = (255, 255, 255, 255)


def mark(draw, box):
    """The PEEZ mark: a rounded green square holding a white P made of a stem and a bowl."""
    x0, y0, x1, y1 = box
    side = x1 - x0
    draw.rounded_rectangle(box, radius=side // 5, fill=GREEN)
    stem = [x0 + side * 0.30, y0 + side * 0.20, x0 + side * 0.44, y0 + side * 0.80]
    draw.rectangle(stem, fill=WHITE)
    bowl = [x0 + side * 0.30, y0 + side * 0.20, x0 + side * 0.72, y0 + side * 0.56]
    draw.rounded_rectangle(bowl, radius=side * 0.18, outline=WHITE, width=max(1, round(side * 0.13)))


def icon(scale):
    side = 29 * scale
    image = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    mark(ImageDraw.Draw(image), (0, 0, side - 1, side - 1))
    return image


def logo(scale):
    width, height = 160 * scale, 50 * scale
    image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    side = 40 * scale
    top = (height - side) // 2
    mark(draw, (0, top, side - 1, top + side - 1))
    font = ImageFont.load_default(size=28 * scale)
    draw.text((side + 8 * scale, height // 2), "PEEZ", font=font, fill=WHITE, anchor="lm")
    return image


if __name__ == "__main__":
    for name, draw in (("icon", icon), ("logo", logo)):
        for scale in (1, 2, 3):
            suffix = "" if scale == 1 else f"@{scale}x"
            draw(scale).save(os.path.join(HERE, f"{name}{suffix}.png"), optimize=True)
    print("wrote icon and logo at 1x, 2x, 3x")
