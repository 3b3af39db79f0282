"""A fake camera for Chromium (--use-file-for-fake-video-capture): the service's card PNG shown on a phone held
at an angle in front of the counter's camera, as a Y4M video Chromium loops."""
from PIL import Image, ImageDraw

WIDTH, HEIGHT = 640, 480


def phone_frame(card_png, angle=12.0):
    """The card QR on a phone screen, the phone tilted by `angle` degrees and seen in perspective."""
    card = Image.open(card_png).convert("L")
    qr = card.resize((300, 300), Image.NEAREST)
    phone = Image.new("L", (360, 560), 255)
    draw = ImageDraw.Draw(phone)
    draw.rounded_rectangle((0, 0, 359, 559), radius=40, fill=30)
    draw.rounded_rectangle((14, 40, 345, 520), radius=12, fill=250)
    phone.paste(qr, (30, 130))
    tilted = phone.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=140)
    # Perspective: the top edge farther from the camera than the bottom.
    w, h = tilted.size
    squeeze = w * 0.08
    coefficients = perspective_coefficients(
        [(0, 0), (w, 0), (w, h), (0, h)],
        [(squeeze, 0), (w - squeeze, 0), (w, h), (0, h)],
    )
    seen = tilted.transform((w, h), Image.PERSPECTIVE, coefficients, Image.BICUBIC, fillcolor=140)
    scale = min(WIDTH / w, HEIGHT / h) * 0.92
    seen = seen.resize((int(w * scale), int(h * scale)), Image.BICUBIC)
    frame = Image.new("L", (WIDTH, HEIGHT), 140)
    frame.paste(seen, ((WIDTH - seen.width) // 2, (HEIGHT - seen.height) // 2))
    return frame


def perspective_coefficients(target, source):
    """The 8 coefficients PIL's PERSPECTIVE transform takes, mapping `target` corners to `source` ones."""
    matrix, vector = [], []
    for (x, y), (u, v) in zip(target, source):
        matrix.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        matrix.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        vector += [u, v]
    return solve(matrix, vector)


def solve(a, b):
    """Gaussian elimination for the 8x8 system (no numpy needed)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def write_y4m(frame, path, frames=10):
    """`frames` copies of a greyscale frame as 4:2:0 Y4M (neutral chroma)."""
    luma = frame.tobytes()
    chroma = bytes([128]) * ((WIDTH // 2) * (HEIGHT // 2))
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            out.write(b"FRAME\n" + luma + chroma + chroma)
