"""A tiny PNG writer for the gallery (zlib + struct, no plotting library),
so the examples need nothing beyond NumPy, on a laptop, in CI and on a GPU
machine with no network. Also a colour map and a bar chart drawn in pixels.

    from _png import write_png, colormap, out_path
    write_png(out_path("picture.png"), colormap(values))   # values in [0, 1]

PNGs go to $PYCUDAC_EXAMPLES_OUT if set, else to examples/out/.
"""
import os
import struct
import zlib

import numpy as np


def out_path(name):
    """Where an example writes its file `name` (the folder is created)."""
    folder = os.environ.get("PYCUDAC_EXAMPLES_OUT") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "out")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


def write_png(path, rgb):
    """Write an (height, width, 3) uint8 array (or (h, w) grey) as a PNG."""
    img = np.ascontiguousarray(rgb, dtype=np.uint8)
    if img.ndim == 2:
        img = np.repeat(img[:, :, None], 3, axis=2)
    h, w, _ = img.shape
    # each row starts with its filter type (0: none)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * 3)], axis=1)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))  # 8-bit RGB
        f.write(chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)))
        f.write(chunk(b"IEND", b""))
    return path


# A perceptual-ish colour map (dark blue -> teal -> yellow), 5 stops.
_STOPS = np.array([[13, 8, 135], [84, 2, 163], [33, 145, 140], [94, 201, 98],
                   [253, 231, 37]], np.float64)


def colormap(values):
    """(h, w) floats in [0, 1] -> (h, w, 3) uint8 colours."""
    v = np.clip(np.asarray(values, np.float64), 0.0, 1.0) * (len(_STOPS) - 1)
    lo = np.minimum(v.astype(np.int64), len(_STOPS) - 2)
    t = (v - lo)[..., None]
    return (_STOPS[lo] * (1 - t) + _STOPS[lo + 1] * t).astype(np.uint8)


# 3x5 pixel digits, for the numbers on a chart: each row is 3 bits.
_DIGITS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001001001001", "8": "111101111101111",
    "9": "111101111001111", ".": "000000000000010", " ": "000000000000000",
}


def draw_text(img, x, y, text, scale=2, colour=(0, 0, 0)):
    """Draw digits (and '.') with their top-left corner at (x, y)."""
    for k, ch in enumerate(text):
        bits = _DIGITS.get(ch, _DIGITS[" "])
        for r in range(5):
            for c in range(3):
                if bits[r * 3 + c] == "1":
                    x0, y0 = x + (k * 4 + c) * scale, y + r * scale
                    img[y0:y0 + scale, x0:x0 + scale] = colour


def bar_chart(values, labels=None, height=240, bar=36, gap=14):
    """An RGB image of one bar per value (scaled to the largest), with the
    value above each bar and its label (digits) under it."""
    values = [float(v) for v in values]
    top = max(values) or 1.0
    w = gap + len(values) * (bar + gap)
    img = np.full((height + 40, w, 3), 255, np.uint8)
    base = height + 10
    img[base:base + 2, :] = 0                                   # the axis
    for k, v in enumerate(values):
        x = gap + k * (bar + gap)
        h = int(round((height - 30) * v / top))
        img[base - h:base, x:x + bar] = _STOPS[1 + k % 4]
        draw_text(img, x, base - h - 14, f"{v:.3g}"[:6])
        if labels is not None:
            draw_text(img, x, base + 8, str(labels[k])[:6])
    return img
