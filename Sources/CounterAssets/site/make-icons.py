#!/usr/bin/env python3
"""Draws the web counter's home-screen icons (icon-192.png, icon-512.png beside this file, built into peez) with
the Wallet pass's PEEZ mark (Sources/WalletPass/images/make-images.py). Run after changing the mark, with Pillow:

    python3 -m venv /tmp/pil && /tmp/pil/bin/pip install pillow
    /tmp/pil/bin/python Sources/CounterWeb/site/make-icons.py
"""
import importlib.util
import os

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("wallet_images", os.path.join(HERE, "../../WalletPass/images/make-images.py"))
wallet_images = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wallet_images)

for size in (192, 512):
    image = Image.new("RGBA", (size, size), wallet_images.WHITE)
    wallet_images.mark(ImageDraw.Draw(image), (0, 0, size - 1, size - 1))
    image.save(os.path.join(HERE, f"icon-{size}.png"), optimize=True)
