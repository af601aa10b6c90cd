#!/usr/bin/env python3
"""Draws the Restaurant example's dish pictures: one flat, friendly illustration per dish.

Reads the menu (``menu.json``) and writes, for every dish, ``Images/<id>.png``: a 320x320
picture of the dish on a plate, in a bowl or on a board, over a soft colour of its category.
It also writes ``Images/dish.png``, an empty plate with a knife and fork, which the app shows
for a dish that has no picture of its own.

Everything is drawn here from simple shapes (circles, ellipses, rounded rectangles, polygons,
strokes) with the Python standard library alone: shapes are filled span by span at three times
the size, box-filtered down for smooth edges, and written as PNG with zlib. The output is the
same on every run.

Run it from the repository's root:

    python3 Examples/Restaurant/Scripts/draw_dishes.py [--menu PATH] [--out DIR]

``--menu`` defaults to ``Examples/Restaurant/Sources/Restaurant/Resources/menu.json`` and
``--out`` to the ``Images`` folder next to it.
"""

import argparse
import json
import math
import os
import struct
import sys
import zlib

SIZE = 320          # pixels of a finished picture, square
SS = 3              # supersampling factor: drawn at SIZE * SS, box-filtered down

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.join(HERE, "..", "Sources", "Restaurant", "Resources")

# --------------------------------------------------------------------------------------------
# Colours


def rgb(hexcode):
    hexcode = hexcode.lstrip("#")
    return tuple(int(hexcode[i:i + 2], 16) for i in (0, 2, 4))


def mix(a, b, t):
    """`a` moved towards `b` by `t` (0...1)."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b))


def dark(c, t=0.2):
    return mix(c, (0, 0, 0), t)


def light(c, t=0.2):
    return mix(c, (255, 255, 255), t)


BLACK = (0, 0, 0)
WHITE = (255, 255, 255)

CATEGORY_BACKGROUNDS = {
    "appetizers": rgb("#FCE3CC"),   # peach
    "salads": rgb("#DCF0D2"),       # mint
    "soups": rgb("#D6E8F6"),        # sky
    "entrees": rgb("#FAEBC0"),      # butter
    "desserts": rgb("#F8DAE6"),     # pink
    "sandwiches": rgb("#E4DDF4"),   # lavender
}
DEFAULT_BACKGROUND = rgb("#E8E6E1")

# --------------------------------------------------------------------------------------------
# A little deterministic random number generator (xorshift32), so that every run draws the same.


class Rng:
    def __init__(self, seed):
        self.state = (seed * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF or 1

    def random(self):
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x / 4294967296.0

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def choice(self, seq):
        return seq[int(self.random() * len(seq)) % len(seq)]


# --------------------------------------------------------------------------------------------
# Geometry helpers: lists of points in picture coordinates (0...320, y down).


def rotate(points, angle, cx=0.0, cy=0.0):
    c, s = math.cos(angle), math.sin(angle)
    return [(cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c) for x, y in points]


def move(points, dx, dy):
    return [(x + dx, y + dy) for x, y in points]


def flip_x(points, axis=SIZE / 2):
    return [(2 * axis - x, y) for x, y in points]


def arc(cx, cy, rx, ry, a0, a1, n=None):
    """Points on an ellipse from angle a0 to a1 (radians; 0 is to the right, pi/2 is down)."""
    if n is None:
        n = max(6, int(abs(a1 - a0) * max(rx, ry) * SS / 6) + 2)
    return [(cx + rx * math.cos(a0 + (a1 - a0) * i / (n - 1)),
             cy + ry * math.sin(a0 + (a1 - a0) * i / (n - 1))) for i in range(n)]


def ellipse_pts(cx, cy, rx, ry, angle=0.0, n=None):
    pts = arc(0, 0, rx, ry, 0, 2 * math.pi, n)[:-1]
    return move(rotate(pts, angle), cx, cy)


def rrect(cx, cy, w, h, r, angle=0.0):
    """A rounded rectangle centred on (cx, cy), turned by `angle`."""
    r = max(0.0, min(r, w / 2, h / 2))
    x0, y0, x1, y1 = -w / 2 + r, -h / 2 + r, w / 2 - r, h / 2 - r
    pts = []
    for (x, y, a) in ((x1, y0, -math.pi / 2), (x1, y1, 0.0), (x0, y1, math.pi / 2), (x0, y0, math.pi)):
        if r > 0:
            pts += arc(x, y, r, r, a, a + math.pi / 2)
        else:
            pts.append((x, y))
    return move(rotate(pts, angle), cx, cy)


def leaf(cx, cy, length, width, angle=0.0, bend=0.15, ruffle=0.0, ruffles=5, n=28):
    """A pointed leaf along `angle`, `length` long from tip to tip."""
    top, bottom = [], []
    for i in range(n + 1):
        u = -1 + 2 * i / n
        w = width / 2 * (1 - u * u) * (1 + 0.25 * u)
        wob = 1 + ruffle * math.sin((u + 1) * ruffles * math.pi) if ruffle else 1
        y_mid = bend * width * (u * u - 1) * 0.5
        top.append((u * length / 2, y_mid - w * wob))
        bottom.append((u * length / 2, y_mid + w * (2 - wob if ruffle else 1)))
    pts = top + bottom[::-1]
    return move(rotate(pts, angle), cx, cy)


def blob(cx, cy, r, rng, wobble=0.12, n=36, ry=None, angle=0.0, lobes=(2, 3, 5)):
    """A lumpy circle: sauce, cheese, a meatball."""
    ry = r if ry is None else ry
    phases = [(k, rng.uniform(0, 2 * math.pi), rng.uniform(0.4, 1.0)) for k in lobes]
    total = sum(a for _, _, a in phases)
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        f = 1 + wobble * sum(a * math.sin(k * t + p) for k, p, a in phases) / total
        pts.append((r * f * math.cos(t), ry * f * math.sin(t)))
    return move(rotate(pts, angle), cx, cy)


def star(cx, cy, r0, r1, points, angle=0.0):
    pts = []
    for i in range(points * 2):
        r = r0 if i % 2 == 0 else r1
        t = angle + math.pi * i / points
        pts.append((cx + r * math.cos(t), cy + r * math.sin(t)))
    return pts


def wave(x0, x1, y, amp, period, n=None, phase=0.0):
    if n is None:
        n = max(8, int(abs(x1 - x0) / 2))
    return [(x0 + (x1 - x0) * i / (n - 1),
             y + amp * math.sin(phase + 2 * math.pi * (x0 + (x1 - x0) * i / (n - 1)) / period)) for i in range(n)]


# --------------------------------------------------------------------------------------------
# The canvas: spans of pixels per row, filled with slices of a bytearray.


class Canvas:
    def __init__(self, background, size=SIZE, ss=SS):
        self.size, self.ss = size, ss
        self.w = size * ss
        self.buf = bytearray(bytes(background) * (self.w * self.w))
        self.clips = [None]

    # Spans: {row: [(x0, x1), ...]} in device pixels, x1 exclusive.

    def _span(self, xa, xb):
        x0 = max(0, int(math.ceil(xa - 0.5)))
        x1 = min(self.w, int(math.ceil(xb - 0.5)))
        return x0, x1

    def s_ellipse(self, cx, cy, rx, ry, angle=0.0):
        s = self.ss
        cx, cy, rx, ry = cx * s, cy * s, max(rx * s, 1e-3), max(ry * s, 1e-3)
        c, sn = math.cos(angle), math.sin(angle)
        a = c * c / (rx * rx) + sn * sn / (ry * ry)
        b_k = 2 * c * sn * (1 / (rx * rx) - 1 / (ry * ry))
        c_k = sn * sn / (rx * rx) + c * c / (ry * ry)
        ext = math.sqrt((rx * sn) ** 2 + (ry * c) ** 2)
        spans = {}
        for y in range(max(0, int(cy - ext) - 1), min(self.w, int(cy + ext) + 2)):
            dy = y + 0.5 - cy
            b = b_k * dy
            cc = c_k * dy * dy - 1
            disc = b * b - 4 * a * cc
            if disc <= 0:
                continue
            r = math.sqrt(disc)
            x0, x1 = self._span(cx + (-b - r) / (2 * a), cx + (-b + r) / (2 * a))
            if x0 < x1:
                spans[y] = [(x0, x1)]
        return spans

    def s_poly(self, *contours):
        """Even-odd fill of one or more closed contours (a contour inside another makes a hole)."""
        s = self.ss
        edges = []
        ymin, ymax = float("inf"), float("-inf")
        for pts in contours:
            n = len(pts)
            for i in range(n):
                x0, y0 = pts[i]
                x1, y1 = pts[(i + 1) % n]
                x0, y0, x1, y1 = x0 * s, y0 * s, x1 * s, y1 * s
                if y0 == y1:
                    continue
                if y0 > y1:
                    x0, y0, x1, y1 = x1, y1, x0, y0
                edges.append((y0, y1, x0, (x1 - x0) / (y1 - y0)))
                ymin, ymax = min(ymin, y0), max(ymax, y1)
        spans = {}
        if not edges:
            return spans
        edges.sort()
        first = max(0, int(math.ceil(ymin - 0.5)))
        last = min(self.w, int(math.ceil(ymax - 0.5)))
        active, k = [], 0
        for y in range(first, last):
            yc = y + 0.5
            while k < len(edges) and edges[k][0] <= yc:
                active.append(edges[k])
                k += 1
            active = [e for e in active if e[1] > yc]
            xs = sorted(e[2] + (yc - e[0]) * e[3] for e in active if e[0] <= yc)
            row = []
            for i in range(0, len(xs) - 1, 2):
                x0, x1 = self._span(xs[i], xs[i + 1])
                if x0 < x1:
                    row.append((x0, x1))
            if row:
                spans[y] = row
        return spans

    @staticmethod
    def union(*span_sets):
        out = {}
        for spans in span_sets:
            for y, row in spans.items():
                out.setdefault(y, []).extend(row)
        for y, row in out.items():
            row.sort()
            merged = [list(row[0])]
            for x0, x1 in row[1:]:
                if x0 <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], x1)
                else:
                    merged.append([x0, x1])
            out[y] = [tuple(m) for m in merged]
        return out

    @staticmethod
    def intersect(a, b):
        out = {}
        for y, row in a.items():
            other = b.get(y)
            if not other:
                continue
            res = []
            for x0, x1 in row:
                for c0, c1 in other:
                    lo, hi = max(x0, c0), min(x1, c1)
                    if lo < hi:
                        res.append((lo, hi))
            if res:
                out[y] = res
        return out

    @staticmethod
    def subtract(a, b):
        out = {}
        for y, row in a.items():
            cut = b.get(y)
            if not cut:
                out[y] = row
                continue
            res = []
            for x0, x1 in row:
                pieces = [(x0, x1)]
                for c0, c1 in cut:
                    nxt = []
                    for p0, p1 in pieces:
                        if c1 <= p0 or c0 >= p1:
                            nxt.append((p0, p1))
                        else:
                            if p0 < c0:
                                nxt.append((p0, c0))
                            if c1 < p1:
                                nxt.append((c1, p1))
                    pieces = nxt
                res.extend(pieces)
            if res:
                out[y] = res
        return out

    def s_stroke(self, pts, width, closed=False, caps=True):
        """A polyline `width` wide with round joins (and round caps)."""
        if closed:
            pts = list(pts) + [pts[0]]
        h = width / 2
        parts = []
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            dx, dy = x1 - x0, y1 - y0
            d = math.hypot(dx, dy)
            if d == 0:
                continue
            nx, ny = -dy / d * h, dx / d * h
            parts.append(self.s_poly([(x0 + nx, y0 + ny), (x1 + nx, y1 + ny), (x1 - nx, y1 - ny), (x0 - nx, y0 - ny)]))
        joints = pts if caps else pts[1:-1]
        for x, y in joints:
            parts.append(self.s_ellipse(x, y, h, h))
        return self.union(*parts)

    # Filling.

    def fill(self, spans, color, alpha=1.0):
        clip = self.clips[-1]
        if clip is not None:
            spans = self.intersect(spans, clip)
        buf, w = self.buf, self.w
        if alpha >= 1.0:
            full = bytes(color) * w
            for y, row in spans.items():
                base = y * w * 3
                for x0, x1 in row:
                    buf[base + x0 * 3: base + x1 * 3] = full[: (x1 - x0) * 3]
            return
        tables = [bytes(int(round(v + (c - v) * alpha)) for v in range(256)) for c in color]
        for y, row in spans.items():
            base = y * w * 3
            for x0, x1 in row:
                seg = buf[base + x0 * 3: base + x1 * 3]
                for ch in range(3):
                    seg[ch::3] = seg[ch::3].translate(tables[ch])
                buf[base + x0 * 3: base + x1 * 3] = seg

    def push_clip(self, spans):
        current = self.clips[-1]
        self.clips.append(spans if current is None else self.intersect(spans, current))

    def pop_clip(self):
        self.clips.pop()

    # Drawing shortcuts.

    def ellipse(self, cx, cy, rx, ry, color, alpha=1.0, angle=0.0):
        self.fill(self.s_ellipse(cx, cy, rx, ry, angle), color, alpha)

    def circle(self, cx, cy, r, color, alpha=1.0):
        self.fill(self.s_ellipse(cx, cy, r, r), color, alpha)

    def poly(self, pts, color, alpha=1.0):
        self.fill(self.s_poly(pts), color, alpha)

    def stroke(self, pts, width, color, alpha=1.0, closed=False):
        self.fill(self.s_stroke(pts, width, closed), color, alpha)

    def ring(self, cx, cy, r_out, r_in, color, alpha=1.0, ry_scale=1.0):
        self.fill(self.s_poly(ellipse_pts(cx, cy, r_out, r_out * ry_scale),
                              ellipse_pts(cx, cy, r_in, r_in * ry_scale)), color, alpha)

    # Output.

    def rows(self):
        """The picture at its final size: SIZE rows of RGB bytes, each the mean of SS x SS samples."""
        return downsample(self.buf, self.w, self.ss)


def downsample(buf, w, ss):
    """Box filter by `ss`, done with big integers: every byte gets a 32-bit field of its own,
    so that whole rows are added, scaled and rounded at once."""
    rowlen = w * 3
    fields = rowlen
    mask = (1 << (32 * fields)) - 1
    divisor = ss * ss
    mult = -(-65536 // divisor)
    rounding = int.from_bytes(struct.pack(">I", divisor // 2) * fields, "big")
    spaced = bytearray(4 * fields)
    out_rows = []
    for j in range(w // ss):
        v = 0
        for k in range(ss):
            r = (j * ss + k) * rowlen
            spaced[3::4] = buf[r: r + rowlen]
            v += int.from_bytes(spaced, "big")
        h = 0
        for k in range(ss):
            h += v << (32 * 3 * k)
        h = (((h + rounding) * mult) >> 16) & mask
        sums = h.to_bytes(4 * fields, "big")[3::4]
        row = bytearray(rowlen // ss)
        for ch in range(3):
            row[ch::3] = sums[ch::3 * ss]
        out_rows.append(bytes(row))
    return out_rows


# --------------------------------------------------------------------------------------------
# PNG


def _minus(a, b):
    """(a - b) mod 256, byte by byte, with 16-bit fields in one big integer."""
    n = len(a)
    sa, sb = bytearray(2 * n), bytearray(2 * n)
    sa[1::2] = a
    sb[1::2] = b
    lift = int.from_bytes(b"\x01\x00" * n, "big")
    return (int.from_bytes(sa, "big") + lift - int.from_bytes(sb, "big")).to_bytes(2 * n, "big")[1::2]


_COST = bytes(min(v, 256 - v) for v in range(256))


def encode_png(rows, width, height):
    """RGB PNG; each row's filter (None, Sub or Up) picked by the usual smallest-sum heuristic,
    or one filter for all rows, whichever compresses smaller."""
    zero = bytes(len(rows[0]))
    choices = []
    prev = zero
    for row in rows:
        choices.append((row, _minus(row, b"\0\0\0" + row[:-3]), _minus(row, prev)))
        prev = row
    candidates = []
    for pick in ("heuristic", 0, 1, 2):
        raw = bytearray()
        for opts in choices:
            if pick == "heuristic":
                f = min(range(3), key=lambda i: sum(opts[i].translate(_COST)))
            else:
                f = pick
            raw.append(f)
            raw += opts[f]
        candidates.append(zlib.compress(bytes(raw), 9))
    idat = min(candidates, key=len)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", idat)
            + chunk(b"IEND", b""))


# --------------------------------------------------------------------------------------------
# Tableware


PLATE = rgb("#FDFDFA")
CX = CY = SIZE / 2


def backdrop(cv, bg):
    """A slightly lighter disc behind the dish, like a place mat."""
    cv.circle(CX, CY + 4, 152, light(bg, 0.35))


def plate(cv, cx=CX, cy=CY, r=128, rim=PLATE):
    """A round plate seen from above; returns the radius of its well."""
    cv.circle(cx + 3, cy + 7, r + 1, BLACK, 0.10)
    cv.circle(cx, cy, r, rim)
    cv.circle(cx, cy, r * 0.79, dark(rim, 0.07))
    cv.circle(cx + 1.2, cy + 2, r * 0.77, dark(rim, 0.035))
    cv.fill(cv.s_stroke(arc(cx, cy, r * 0.9, r * 0.9, math.pi * 1.05, math.pi * 1.45), 4), WHITE, 0.9)
    return r * 0.77


def side_plate(cv, cx=CX, cy=246, rx=142, ry=40, rim=PLATE):
    """A plate seen from the side, for food that stands up (cakes, sundaes)."""
    cv.ellipse(cx + 3, cy + 10, rx, ry, BLACK, 0.10)
    cv.ellipse(cx, cy + 5, rx, ry, dark(rim, 0.16))
    cv.ellipse(cx, cy, rx, ry, rim)
    cv.ellipse(cx, cy + 2, rx * 0.7, ry * 0.62, dark(rim, 0.06))


def board(cv, cx=CX, cy=246, w=290, h=64, wood=rgb("#D9A46A")):
    """A wooden board seen from the side, for sandwiches."""
    cv.poly(rrect(cx + 3, cy + 16, w, h, 22), BLACK, 0.10)
    cv.poly(rrect(cx, cy + 10, w, h, 22), dark(wood, 0.25))
    top = cv.s_poly(rrect(cx, cy, w, h, 22))
    cv.fill(top, wood)
    cv.push_clip(top)
    for i, (y, x0, x1) in enumerate(((cy - 18, cx - 120, cx + 60), (cy - 4, cx - 80, cx + 125),
                                      (cy + 12, cx - 135, cx + 30), (cy + 22, cx + 40, cx + 130))):
        cv.stroke(wave(x0, x1, y, 1.5, 90, phase=i), 2.2, dark(wood, 0.12))
    cv.pop_clip()


def bowl(cv, color, inside, cx=CX, cy=136, rx=132, ry=54, depth=112, band=None):
    """A bowl seen from slightly above. Returns (cx, cy, rx, ry) of its opening."""
    cv.ellipse(cx + 3, cy + depth + 4, rx * 0.72, 15, BLACK, 0.12)
    cv.poly(rrect(cx, cy + depth - 6, rx * 0.62, 22, 9), dark(color, 0.28))
    body = cv.s_poly(arc(cx, cy, rx, depth, 0, math.pi))
    cv.fill(body, dark(color, 0.16))
    cv.push_clip(body)
    cv.ellipse(cx - rx * 0.14, cy - 8, rx * 1.0, depth * 1.0, color)
    if band is not None:
        lower = arc(cx, cy + 30, rx, ry + 8, 0, math.pi)
        upper = arc(cx, cy + 18, rx, ry + 8, math.pi, 0)
        cv.poly(lower + upper, band)
    cv.pop_clip()
    cv.ellipse(cx, cy, rx, ry, light(color, 0.35))
    cv.ellipse(cx, cy + 2, rx - 9, ry - 7, inside)
    return cx, cy + 2, rx - 9, ry - 7


def steam(cv, xs, y0=14, y1=70, color=WHITE):
    for i, x in enumerate(xs):
        pts = [(x + 6 * math.sin(y / 9.0 + i * 1.7), y) for y in range(int(y0 + 6 * (i % 2)), int(y1 - 4 * (i % 2)), 2)]
        cv.stroke(pts, 5, color, 0.75)


def soup_bowl(cv, soup, color, inside, band=None, surface_drop=8):
    """A bowl of soup; returns the spans of the soup's surface, to draw the garnish on."""
    cx, cy, rx, ry = bowl(cv, color, inside, band=band)
    opening = cv.s_ellipse(cx, cy, rx, ry)
    surface = cv.intersect(cv.s_ellipse(cx, cy + surface_drop, rx - 3, ry - surface_drop + 2), opening)
    cv.fill(surface, soup)
    cv.fill(cv.intersect(cv.s_ellipse(cx - 14, cy + surface_drop - 8, rx - 16, ry - 12), surface), light(soup, 0.08))
    return surface, (cx, cy + surface_drop, rx - 3, ry - surface_drop + 2)


def salad_bowl(cv, color, inside, band=None, base=None):
    """A bowl for a salad; returns the clip that keeps the salad inside the bowl's front rim.
    `base` fills the bowl with a mound of that colour, for the leaves to lie on."""
    cx, cy, rx, ry = bowl(cv, color, inside, band=band)
    front = arc(cx, cy, rx, ry, 0, math.pi)
    heap = cv.s_poly(front + [(cx - rx - 14, cy), (cx - rx - 14, 0), (cx + rx + 14, 0), (cx + rx + 14, cy)])
    if base is not None:
        cv.fill(cv.intersect(cv.s_ellipse(cx, cy - 8, rx - 2, ry + 18), heap), base)
    return heap, (cx, cy, rx, ry)


def fork(cv, cx, cy, scale=1.0, angle=0.0, color=rgb("#C9CED6")):
    parts = [rrect(cx, cy + 52 * scale, 15 * scale, 112 * scale, 7.5 * scale),
             rrect(cx, cy - 22 * scale, 9 * scale, 30 * scale, 4 * scale),
             rrect(cx, cy - 40 * scale, 30 * scale, 22 * scale, 9 * scale)]
    for dx in (-11.5, -3.8, 3.8, 11.5):
        parts.append(rrect(cx + dx * scale, cy - 62 * scale, 5 * scale, 44 * scale, 2.5 * scale))
    parts = [rotate(p, angle, cx, cy) for p in parts]
    shadow = cv.union(*[cv.s_poly(move(p, 3, 4)) for p in parts])
    cv.fill(shadow, BLACK, 0.10)
    shape = cv.union(*[cv.s_poly(p) for p in parts])
    cv.fill(shape, color)
    cv.push_clip(shape)
    cv.poly(rotate([(cx + 2 * scale, cy - 100 * scale), (cx + 30 * scale, cy - 100 * scale),
                    (cx + 30 * scale, cy + 120 * scale), (cx + 2 * scale, cy + 120 * scale)], angle, cx, cy), dark(color, 0.12))
    cv.pop_clip()


def knife(cv, cx, cy, scale=1.0, angle=0.0, color=rgb("#C9CED6")):
    blade = [(cx - 8 * scale, cy + 8 * scale), (cx - 8 * scale, cy - 70 * scale)]
    blade += arc(cx - 8 * scale + 16 * scale, cy - 70 * scale, 16 * scale, 26 * scale, math.pi, math.pi * 1.5)[1:]
    blade += [(cx + 9 * scale, cy - 90 * scale), (cx + 9 * scale, cy + 8 * scale)]
    handle = rrect(cx, cy + 58 * scale, 17 * scale, 100 * scale, 8 * scale)
    blade, handle = rotate(blade, angle, cx, cy), rotate(handle, angle, cx, cy)
    cv.fill(cv.union(cv.s_poly(move(blade, 3, 4)), cv.s_poly(move(handle, 3, 4))), BLACK, 0.10)
    cv.poly(blade, light(color, 0.15))
    cv.push_clip(cv.s_poly(blade))
    cv.poly(rotate([(cx + 2 * scale, cy - 100 * scale), (cx + 30 * scale, cy - 100 * scale),
                    (cx + 30 * scale, cy + 20 * scale), (cx + 2 * scale, cy + 20 * scale)], angle, cx, cy), dark(color, 0.05))
    cv.pop_clip()
    cv.poly(handle, dark(color, 0.08))
    cv.push_clip(cv.s_poly(handle))
    cv.poly(rotate([(cx + 2 * scale, cy), (cx + 30 * scale, cy), (cx + 30 * scale, cy + 120 * scale),
                    (cx + 2 * scale, cy + 120 * scale)], angle, cx, cy), dark(color, 0.2))
    cv.pop_clip()


def empty_plate(cv, rng):
    cv.poly(rrect(50, 178, 62, 200, 10), rgb("#E9756A"))
    for y in (100, 256):
        cv.stroke([(22, y), (78, y)], 3, light(rgb("#E9756A"), 0.4))
    fork(cv, 50, 150, 0.95)
    knife(cv, 276, 150, 0.95)
    plate(cv, cx=163, cy=166, r=100)


# --------------------------------------------------------------------------------------------
# Little pieces that several dishes share


def basil_leaf(cv, x, y, size, angle, color=rgb("#3E9A45")):
    cv.poly(leaf(x, y, size, size * 0.62, angle, bend=0.2), color)
    cv.stroke([(x - math.cos(angle) * size * 0.35, y - math.sin(angle) * size * 0.35),
               (x + math.cos(angle) * size * 0.35, y + math.sin(angle) * size * 0.35)], max(1.2, size * 0.06), light(color, 0.3))


def flecks(cv, rng, spans_or_box, count, color, size=(1.2, 2.2), alpha=1.0):
    """Small dots (pepper, parsley) spread over a box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = spans_or_box
    for _ in range(count):
        r = rng.uniform(*size)
        cv.ellipse(rng.uniform(x0, x1), rng.uniform(y0, y1), r, r * 0.8, color, alpha, angle=rng.uniform(0, 3))


def lemon_wedge(cv, x, y, r, angle):
    peel, pith, flesh = rgb("#F4CC2F"), rgb("#FFF6CF"), rgb("#FBE27A")
    half = lambda rr: [(x, y)] + arc(x, y, rr, rr, angle, angle + math.pi)
    cv.poly(move(half(r), 2, 3), BLACK, 0.10)
    cv.poly(half(r), peel)
    cv.poly(half(r * 0.86), pith)
    cv.poly(half(r * 0.8), flesh)
    for k in (1, 2, 3):
        a = angle + math.pi * k / 4
        cv.stroke([(x, y), (x + r * 0.78 * math.cos(a), y + r * 0.78 * math.sin(a))], 2, pith)


def lemon_slice(cv, x, y, r):
    peel, pith, flesh = rgb("#F4CC2F"), rgb("#FFF6CF"), rgb("#FBE27A")
    cv.circle(x + 2, y + 3, r, BLACK, 0.10)
    cv.circle(x, y, r, peel)
    cv.circle(x, y, r * 0.88, pith)
    for k in range(8):
        a0 = 2 * math.pi * k / 8 + 0.1
        cv.poly([(x + 2.2 * math.cos(a0 + 0.35), y + 2.2 * math.sin(a0 + 0.35))] + arc(x, y, r * 0.78, r * 0.78, a0, a0 + 2 * math.pi / 8 - 0.2), flesh)


def ramekin(cv, x, y, r, sauce, rng, speck=None):
    cv.circle(x + 2, y + 4, r, BLACK, 0.12)
    cv.circle(x, y, r, PLATE)
    cv.circle(x, y, r * 0.8, dark(PLATE, 0.08))
    cv.circle(x + 0.5, y + 1, r * 0.76, sauce)
    cv.ellipse(x - r * 0.25, y - r * 0.3, r * 0.3, r * 0.14, WHITE, 0.35, angle=-0.5)
    if speck:
        for _ in range(7):
            a, d = rng.uniform(0, 2 * math.pi), rng.uniform(0, r * 0.6)
            cv.circle(x + d * math.cos(a), y + d * math.sin(a), rng.uniform(1.3, 2.3), speck)


def tomato_dice(cv, rng, x, y, size):
    reds = [rgb("#D8352A"), rgb("#E64A36"), rgb("#C42B22"), rgb("#EF6A4C")]
    cv.poly(rrect(x + 0.8, y + 1.2, size, size, size * 0.3, rng.uniform(0, 1.5)), dark(reds[2], 0.3))
    cv.poly(rrect(x, y, size, size, size * 0.3, rng.uniform(0, 1.5)), rng.choice(reds))


# --------------------------------------------------------------------------------------------
# The dishes

# Appetizers


def tomato_bruschetta(cv, rng):
    plate(cv)
    crust, crumb = rgb("#B9782F"), rgb("#EBC27E")
    for (x, y, a) in ((110, 118, -0.35), (214, 136, 0.25), (152, 214, -0.1)):
        cv.ellipse(x + 3, y + 5, 60, 37, BLACK, 0.12, angle=a)
        cv.ellipse(x, y, 60, 37, crust, angle=a)
        cv.ellipse(x - 1, y - 1, 54, 31, crumb, angle=a)
        inner = cv.s_ellipse(x - 1, y - 1, 54, 31, a)
        cv.push_clip(inner)
        for _ in range(6):
            cv.ellipse(x + rng.uniform(-45, 45), y + rng.uniform(-25, 25), rng.uniform(4, 9), rng.uniform(3, 6),
                       rgb("#D9A04E"), 0.7, angle=rng.uniform(0, 3))
        cv.pop_clip()
        # the topping: a heap of diced tomato with basil
        for _ in range(22):
            u, v = rng.uniform(-1, 1), rng.uniform(-1, 1)
            if u * u + v * v > 1:
                continue
            px, py = rotate([(u * 40, v * 20)], a)[0]
            tomato_dice(cv, rng, x + px, y + py, rng.uniform(8, 11))
        for _ in range(4):
            px, py = rotate([(rng.uniform(-32, 32), rng.uniform(-14, 14))], a)[0]
            basil_leaf(cv, x + px, y + py, rng.uniform(10, 14), rng.uniform(0, 3.1), rgb("#2F8A3C"))
        for _ in range(5):
            px, py = rotate([(rng.uniform(-36, 36), rng.uniform(-16, 16))], a)[0]
            cv.circle(x + px, y + py, 1.6, rgb("#FFF1D6"))


def crispy_calamari(cv, rng):
    plate(cv)
    ramekin(cv, 222, 98, 32, rgb("#C8381F"), rng, speck=rgb("#4E8C3A"))
    lemon_wedge(cv, 226, 208, 34, -math.pi * 0.2)
    batter, deep = rgb("#EDB45A"), rgb("#C98733")
    spots = [(96, 128), (132, 108), (166, 138), (110, 170), (148, 180), (82, 204), (122, 214),
             (168, 230), (186, 186), (70, 164), (140, 250), (104, 245), (196, 250)]
    for x, y in spots:
        r = rng.uniform(19, 24)
        hole = r * rng.uniform(0.42, 0.52)
        sq = rng.uniform(0.78, 1.0)
        ang = rng.uniform(0, 3)
        outer, inner = ellipse_pts(x, y, r, r * sq, ang), ellipse_pts(x, y, hole, hole * sq, ang)
        cv.fill(cv.s_poly(move(outer, 2, 3), move(inner, 2, 3)), BLACK, 0.10)
        ring = cv.s_poly(outer, inner)
        cv.fill(ring, deep)
        cv.push_clip(ring)
        cv.fill(cv.s_poly(move(outer, -1.5, -2), move(inner, -1.5, -2)), batter)
        for _ in range(9):
            a = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(hole + 2, r - 2)
            cv.circle(x + d * math.cos(a), y + d * sq * math.sin(a), rng.uniform(1.2, 2.2),
                      rng.choice([deep, light(batter, 0.35)]), 0.8)
        cv.pop_clip()
    flecks(cv, rng, (70, 110, 200, 250), 18, rgb("#3F8A3A"), (1.2, 2.0))


def spinach_artichoke_dip(cv, rng):
    plate(cv)
    iron = rgb("#3D3A3E")
    # the skillet's handle, then the skillet
    handle = rrect(226, 226, 84, 20, 9, math.radians(42))
    cv.poly(move(handle, 3, 4), BLACK, 0.12)
    cv.poly(handle, iron)
    cv.circle(151, 151, 76, BLACK, 0.14)
    cv.circle(146, 146, 76, iron)
    cv.circle(146, 146, 68, dark(iron, 0.3))
    dip = cv.s_poly(blob(146, 148, 63, rng, wobble=0.03))
    cv.fill(dip, rgb("#EFE2B8"))
    cv.push_clip(dip)
    for _ in range(7):
        cv.fill(cv.s_poly(blob(146 + rng.uniform(-42, 42), 148 + rng.uniform(-42, 42), rng.uniform(9, 16), rng)),
                rgb("#DDA34E"), 0.65)
    for _ in range(30):
        cv.fill(cv.s_poly(blob(146 + rng.uniform(-52, 52), 148 + rng.uniform(-52, 52), rng.uniform(5, 9), rng,
                               wobble=0.35, ry=rng.uniform(3, 6), angle=rng.uniform(0, 3))), rgb("#2F6B2E"))
    for _ in range(6):
        x, y = 146 + rng.uniform(-40, 40), 148 + rng.uniform(-40, 40)
        a = rng.uniform(0, 2 * math.pi)
        cv.poly([(x, y)] + arc(x, y, 12, 12, a, a + 1.3), rgb("#B9C27A"))
        cv.poly([(x, y)] + arc(x, y, 7, 7, a + 0.15, a + 1.15), rgb("#D8DB9E"))
    cv.pop_clip()
    # one chip dipped in
    tri = move(rotate([(0, -26), (22, 16), (-22, 16)], -0.5), 186, 112)
    cv.poly(move(tri, 3, 4), BLACK, 0.15)
    cv.poly(tri, rgb("#F2C45A"))
    cv.poly(move([((px - 186) * 0.72 + 186, (py - 112) * 0.72 + 112) for px, py in tri], -1, -1), rgb("#F8D77E"))
    cv.fill(cv.intersect(cv.s_poly(tri), cv.s_ellipse(176, 130, 22, 14, -0.5)), rgb("#EFE2B8"))
    # tortilla chips around it
    for ang in (1.6, 2.1, 2.6, 3.1, 3.6):
        d = 102
        x, y = CX + d * math.cos(ang), CY + d * math.sin(ang)
        tri = rotate([(0, -22), (19, 14), (-19, 14)], ang + math.pi / 2 + rng.uniform(-0.4, 0.4))
        tri = move(tri, x, y)
        cv.poly(move(tri, 2, 3), BLACK, 0.1)
        cv.poly(tri, rgb("#F2C45A"))
        cv.poly(move([((px - x) * 0.72 + x, (py - y) * 0.72 + y) for px, py in tri], -1, -1), rgb("#F8D77E"))
        flecks(cv, rng, (x - 8, y - 8, x + 8, y + 8), 3, rgb("#C98A2C"), (0.9, 1.4))


def buffalo_chicken_wings(cv, rng):
    plate(cv)
    ramekin(cv, 222, 96, 31, rgb("#F4EFDD"), rng, speck=rgb("#7E93B8"))
    celery, celery_dark = rgb("#9CCB5E"), rgb("#6FA43D")
    for i in range(3):
        x, y = 234 + i * 14, 190 + i * 6
        stick = rrect(x, y, 16, 92, 7, 0.28)
        cv.poly(move(stick, 2, 3), BLACK, 0.1)
        cv.poly(stick, celery_dark)
        cv.poly(rrect(x - 2, y, 11, 90, 5, 0.28), celery)
        for dx in (-3, 1):
            cv.stroke(rotate([(x + dx, y - 38), (x + dx, y + 38)], 0.28, x, y), 1.4, light(celery, 0.35))
    sauce, deep, shine = rgb("#D9542A"), rgb("#A8361A"), rgb("#F08A55")
    wings = [(90, 130, 0.5), (140, 108, -0.3), (126, 162, 2.6), (76, 188, 1.9), (128, 214, 0.3),
             (176, 168, -1.1), (178, 238, 2.2)]
    for x, y, a in wings:
        c, s = math.cos(a), math.sin(a)
        body = blob(x, y, 29, rng, wobble=0.08, ry=19, angle=a)
        knob = ellipse_pts(x - 24 * c, y - 24 * s, 14, 11, a)
        cv.fill(cv.union(cv.s_poly(move(body, 2, 4)), cv.s_poly(move(knob, 2, 4))), BLACK, 0.12)
        shape = cv.union(cv.s_poly(body), cv.s_poly(knob))
        cv.fill(shape, deep)
        cv.push_clip(shape)
        cv.fill(cv.union(cv.s_poly(move(body, -2, -3)), cv.s_poly(move(knob, -2, -3))), sauce)
        cv.ellipse(x + 6 * c - 5, y + 6 * s - 7, 12, 4.5, shine, 0.8, angle=a)
        for _ in range(4):
            cv.circle(x + rng.uniform(-18, 18), y + rng.uniform(-10, 10), rng.uniform(1.4, 2.2), deep, 0.7)
        cv.pop_clip()
    for _ in range(16):
        x, y = rng.uniform(70, 190), rng.uniform(100, 245)
        cv.ring(x, y, 3.2, 1.6, rgb("#5FA844"))


# Salads


def _salad_leaves(cv, rng, cx, cy, colors, count, size, width, ruffle=0.1, spread=(105, 42)):
    for i in range(count):
        a = rng.uniform(0, 2 * math.pi)
        d = math.sqrt(rng.random())
        x = cx + spread[0] * d * math.cos(a)
        y = cy + spread[1] * d * math.sin(a) - rng.uniform(0, 10)
        col = colors[i % len(colors)]
        ang = rng.uniform(-0.9, 0.9) + (math.pi if rng.random() < 0.5 else 0)
        pts = leaf(x, y, size * rng.uniform(0.85, 1.15), width, ang, bend=0.2, ruffle=ruffle, ruffles=6)
        cv.poly(move(pts, 1.5, 3), dark(col, 0.3))
        cv.poly(pts, col)
        cv.stroke(rotate([(x - size * 0.4, y), (x + size * 0.4, y)], ang, x, y), 1.6, light(col, 0.35))


def _cherry_tomato_half(cv, x, y, r, angle=0.0):
    red = rgb("#E23B2E")
    cv.circle(x + 1.5, y + 2.5, r, BLACK, 0.15)
    cv.circle(x, y, r, red)
    cv.circle(x, y, r * 0.78, rgb("#F26A4F"))
    for k in range(3):
        a = angle + 2 * math.pi * k / 3
        cv.ellipse(x + r * 0.42 * math.cos(a), y + r * 0.42 * math.sin(a), r * 0.26, r * 0.16, rgb("#FBD28A"), angle=a)
    cv.circle(x, y, r * 0.16, light(red, 0.3))


def _cucumber(cv, x, y, r, squash=1.0, half=None):
    skin, flesh, seeds = rgb("#2E7D32"), rgb("#D9EFB0"), rgb("#B7D98A")
    if half is None:
        cv.ellipse(x + 1.5, y + 2.5, r, r * squash, BLACK, 0.12)
        cv.ellipse(x, y, r, r * squash, skin)
        cv.ellipse(x, y, r * 0.86, r * 0.86 * squash, flesh)
        cv.ellipse(x, y, r * 0.45, r * 0.45 * squash, seeds)
        for k in range(3):
            a = 2 * math.pi * k / 3 + 0.4
            cv.circle(x + r * 0.28 * math.cos(a), y + r * 0.28 * squash * math.sin(a), r * 0.09, flesh)
    else:
        h = lambda rr: [(x, y)] + arc(x, y, rr, rr * squash, half, half + math.pi)
        cv.poly(move(h(r), 1.5, 2.5), BLACK, 0.12)
        cv.poly(h(r), skin)
        cv.poly(h(r * 0.86), flesh)
        cv.poly(h(r * 0.45), seeds)


def garden_salad(cv, rng):
    heap, (cx, cy, rx, ry) = salad_bowl(cv, rgb("#C98B55"), rgb("#A9693A"), base=rgb("#3A7F36"))
    cv.push_clip(heap)
    greens = [rgb("#4FA845"), rgb("#76C152"), rgb("#3C8F3B"), rgb("#8FD15F"), rgb("#5DB04A")]
    _salad_leaves(cv, rng, cx, cy - 10, greens, 26, 70, 40, ruffle=0.16)
    onion = rgb("#9B4A9C")
    for _ in range(4):
        x, y = cx + rng.uniform(-80, 80), cy + rng.uniform(-40, 20)
        a = rng.uniform(0, 2 * math.pi)
        cv.stroke(arc(x, y, 14, 10, a, a + 3.6), 3, onion)
    for _ in range(7):
        x, y = cx + rng.uniform(-85, 85), cy + rng.uniform(-40, 22)
        a = rng.uniform(0, 3)
        cv.stroke([(x, y), (x + 22 * math.cos(a), y + 22 * math.sin(a) * 0.5)], 3.5, rgb("#F28C28"))
    for x, y in ((cx - 70, cy - 22), (cx + 62, cy - 30), (cx - 15, cy + 12), (cx + 28, cy - 52)):
        _cucumber(cv, x, y, 15, 0.8)
    for x, y in ((cx - 30, cy - 48), (cx + 80, cy + 2), (cx - 92, cy + 8), (cx + 34, cy + 4), (cx - 48, cy - 6)):
        _cherry_tomato_half(cv, x, y, 13, rng.uniform(0, 2))
    cv.pop_clip()


def caesar_salad(cv, rng):
    heap, (cx, cy, rx, ry) = salad_bowl(cv, rgb("#F4F4F0"), rgb("#DEDDD6"), band=rgb("#5D8FC9"),
                                            base=rgb("#7CAE45"))
    cv.push_clip(heap)
    romaine = [rgb("#9ECB5B"), rgb("#B8D96D"), rgb("#7DB74C"), rgb("#C9E28A")]
    _salad_leaves(cv, rng, cx, cy - 8, romaine, 22, 92, 36, ruffle=0.08)
    # dressing
    for _ in range(4):
        x, y = cx + rng.uniform(-70, 60), cy + rng.uniform(-40, 10)
        cv.stroke(wave(x, x + rng.uniform(30, 50), y, 3, 24, phase=rng.uniform(0, 3)), 3, rgb("#F7F0D8"))
    # croutons
    for x, y in ((cx - 62, cy - 30), (cx + 38, cy - 44), (cx + 76, cy - 6), (cx - 18, cy + 6), (cx - 88, cy + 4),
                 (cx + 8, cy - 30), (cx + 50, cy + 14)):
        a = rng.uniform(0, 1.5)
        cv.poly(rrect(x + 2, y + 3, 18, 18, 4, a), dark(rgb("#B07030"), 0.25))
        cv.poly(rrect(x, y, 18, 18, 4, a), rgb("#D99A48"))
        cv.poly(rrect(x - 1.5, y - 1.5, 11, 11, 3, a), rgb("#EDBE6E"))
    # parmesan shavings
    for _ in range(9):
        x, y = cx + rng.uniform(-90, 90), cy + rng.uniform(-52, 18)
        a = rng.uniform(0, 3)
        pts = rotate([(-12, -4), (10, -6), (13, 3), (-8, 5)], a)
        cv.poly(move(pts, x, y), rgb("#FBF3D0"))
        cv.poly(move(rotate([(-8, 2), (10, 1), (12, 3), (-8, 5)], a), x, y), rgb("#E7DAA8"))
    flecks(cv, rng, (cx - 100, cy - 60, cx + 100, cy + 25), 30, rgb("#3A3530"), (0.9, 1.5))
    cv.pop_clip()


def greek_salad(cv, rng):
    heap, (cx, cy, rx, ry) = salad_bowl(cv, rgb("#2F6DB5"), rgb("#E9EEF5"), band=rgb("#F4F4F0"),
                                            base=rgb("#3F8A3A"))
    cv.push_clip(heap)
    _salad_leaves(cv, rng, cx, cy - 6, [rgb("#5DB04A"), rgb("#7FC35A"), rgb("#4C9C40")], 18, 66, 38, ruffle=0.14)
    # tomato wedges
    for x, y, a in ((cx - 64, cy - 26, 0.3), (cx + 46, cy - 36, 2.3), (cx + 82, cy + 2, 1.2),
                    (cx - 20, cy + 8, -0.4), (cx - 94, cy + 6, 1.9)):
        w = [(x, y)] + arc(x, y, 27, 27, a, a + 1.5)
        cv.poly(move(w, 1.5, 2.5), BLACK, 0.15)
        cv.poly(w, rgb("#D7322A"))
        cv.poly([(x, y)] + arc(x, y, 20, 20, a + 0.15, a + 1.35), rgb("#F06A50"))
        for k in range(2):
            b = a + 0.5 + k * 0.5
            cv.ellipse(x + 11 * math.cos(b), y + 11 * math.sin(b), 2.6, 1.6, rgb("#FCCB8A"), angle=b)
    # cucumbers
    for x, y, h in ((cx + 10, cy - 48, 0.2), (cx - 38, cy - 50, 2.6), (cx + 70, cy - 28, 3.6), (cx - 60, cy + 8, 1.0)):
        _cucumber(cv, x, y, 20, 0.85, half=h)
    # red onion rings
    for _ in range(4):
        cv.ring(cx + rng.uniform(-80, 80), cy + rng.uniform(-44, 10), 13, 10, rgb("#A2509F"), ry_scale=0.7)
    # olives
    for x, y in ((cx - 8, cy - 24), (cx + 30, cy - 6), (cx - 44, cy - 4), (cx + 62, cy - 52), (cx - 80, cy - 40),
                 (cx + 100, cy - 20)):
        cv.ellipse(x + 1.5, y + 2, 12, 9, BLACK, 0.2)
        cv.ellipse(x, y, 12, 9, rgb("#4B2440"))
        cv.ellipse(x - 4, y - 3, 4, 2.2, rgb("#9A6A8C"), angle=-0.5)
    # a slab of feta on top
    fx, fy = cx + 2, cy - 58
    top = [(fx - 44, fy - 14), (fx + 26, fy - 24), (fx + 50, fy - 8), (fx - 20, fy + 4)]
    front = [(fx - 44, fy - 14), (fx - 20, fy + 4), (fx - 20, fy + 28), (fx - 44, fy + 10)]
    side = [(fx - 20, fy + 4), (fx + 50, fy - 8), (fx + 50, fy + 16), (fx - 20, fy + 28)]
    cv.poly(move(front + side[1:3], 4, 6), BLACK, 0.15)
    cv.poly(front, rgb("#E4E1D0"))
    cv.poly(side, rgb("#F1EEE0"))
    cv.poly(top, rgb("#FFFFFB"))
    flecks(cv, rng, (fx - 30, fy - 16, fx + 34, fy - 4), 16, rgb("#5E7D3A"), (0.9, 1.5))
    cv.pop_clip()


def caprese_salad(cv, rng):
    heap, (cx, cy, rx, ry) = salad_bowl(cv, rgb("#F4F4F0"), rgb("#E2E1DA"), base=rgb("#5E9F45"))
    cv.push_clip(heap)
    _salad_leaves(cv, rng, cx, cy - 6, [rgb("#6DB550"), rgb("#83C45E"), rgb("#5AA646")], 22, 46, 18, ruffle=0.3,
                  spread=(110, 44))
    tomato, tomato_in, mozz = rgb("#D8322B"), rgb("#EE5B45"), rgb("#FBF8EE")
    n = 12
    slices = []
    for i in range(n):
        a = 2 * math.pi * i / n + 0.2
        slices.append((cy - 16 + 34 * math.sin(a), cx + 76 * math.cos(a), i % 2 == 0))
    for y, x, is_tomato in sorted(slices):
        if is_tomato:
            cv.ellipse(x + 2, y + 3, 27, 20, BLACK, 0.15)
            cv.ellipse(x, y, 27, 20, tomato)
            cv.ellipse(x, y, 22, 16, tomato_in)
            for k in range(4):
                b = 2 * math.pi * k / 4 + 0.5
                cv.ellipse(x + 10 * math.cos(b), y + 8 * math.sin(b), 5, 3, rgb("#FCCB8A"), angle=b)
            cv.circle(x, y, 3, light(tomato_in, 0.3))
        else:
            cv.ellipse(x + 2, y + 3, 26, 20, BLACK, 0.15)
            cv.ellipse(x, y, 26, 20, dark(mozz, 0.09))
            cv.ellipse(x - 1, y - 1.5, 24, 18, mozz)
    for x, y, a in ((cx - 8, cy - 22, -0.5), (cx + 12, cy - 12, 0.6), (cx - 16, cy - 8, 2.5), (cx + 4, cy - 34, 1.7),
                    (cx + 22, cy - 28, -1.2)):
        basil_leaf(cv, x, y, 32, a, rgb("#2E8B3A"))
    for x0, y0, ang in ((cx - 96, cy - 30, 0.15), (cx - 40, cy + 2, -0.1), (cx + 30, cy - 46, 0.1)):
        cv.stroke(arc(x0 + 34, y0 + 30, 40, 30, math.pi * 1.15 + ang, math.pi * 1.85 + ang), 2.6, rgb("#4A2A1A"), 0.9)
    flecks(cv, rng, (cx - 100, cy - 55, cx + 100, cy + 20), 24, rgb("#3A3530"), (0.8, 1.3))
    cv.pop_clip()


# Soups


def tomato_basil_soup(cv, rng):
    steam(cv, (122, 160, 198))
    surface, (cx, cy, rx, ry) = soup_bowl(cv, rgb("#D9492B"), rgb("#F6F5F0"), rgb("#E4E2DA"), band=rgb("#E8A33D"))
    cv.push_clip(surface)
    spiral = [(cx + 6 + (4 + 7 * t) * math.cos(t * 1.0) * 1.2, cy + (4 + 7 * t) * math.sin(t * 1.0) * 0.42)
              for t in [i * 0.12 for i in range(90)]]
    cv.stroke(spiral, 4, rgb("#FBEFE2"), 0.95)
    for x, y, a in ((cx + 66, cy - 12, -0.4), (cx + 80, cy + 2, 0.5), (cx - 72, cy - 6, 2.8)):
        basil_leaf(cv, x, y, 30, a)
    for x, y in ((cx - 50, cy + 14), (cx - 30, cy - 20), (cx + 40, cy + 18)):
        a = rng.uniform(0, 1.5)
        cv.poly(rrect(x + 1.5, y + 2, 14, 14, 3, a), dark(rgb("#B07030"), 0.25))
        cv.poly(rrect(x, y, 14, 14, 3, a), rgb("#E2A857"))
    flecks(cv, rng, (cx - 95, cy - 25, cx + 95, cy + 25), 18, rgb("#3A2A20"), (0.8, 1.3))
    cv.pop_clip()


def french_onion_soup(cv, rng):
    steam(cv, (130, 190), y1=62)
    crock, inside = rgb("#8E4B2C"), rgb("#5E301C")
    for side in (-1, 1):
        ear = rrect(CX + side * 134, 176, 34, 22, 10)
        cv.poly(ear, dark(crock, 0.15))
    cx, cy, rx, ry = bowl(cv, crock, inside)
    cheese, brown = rgb("#F4C45E"), rgb("#D98A34")
    # the cheese crust spills over the rim, with drips down the crock's front
    top = arc(cx, cy - 4, rx + 12, ry + 8, 0, math.pi) + arc(cx, cy - 4, rx + 12, ry + 30, math.pi, 2 * math.pi)[1:-1]
    drips = []
    for x, length in ((cx - 92, 20), (cx - 60, 40), (cx - 34, 14), (cx + 4, 30), (cx + 44, 18), (cx + 78, 36)):
        base_y = cy - 4 + (ry + 8) * math.sqrt(max(0.0, 1 - ((x - cx) / (rx + 12)) ** 2))
        drips.append(rrect(x, base_y + length / 2 - 6, 19, length + 12, 9.5))
    shape = cv.union(cv.s_poly(top), *[cv.s_poly(d) for d in drips])
    cv.fill(cv.union(cv.s_poly(move(top, 0, 4)), *[cv.s_poly(move(d, 0, 3)) for d in drips]), dark(cheese, 0.3))
    cv.fill(shape, cheese)
    cv.push_clip(cv.s_poly(top))
    cv.fill(cv.s_poly(move(top, 0, -2)), mix(cheese, brown, 0.55))
    cv.fill(cv.s_poly(blob(cx - 4, cy - 14, rx - 6, rng, wobble=0.06, ry=ry + 2, n=60, lobes=(5, 7, 9))), cheese)
    cv.ellipse(cx - 40, cy - 38, 44, 12, light(cheese, 0.35), angle=-0.1)
    for _ in range(14):
        a, d = rng.uniform(0, 2 * math.pi), 0.15 + 0.8 * math.sqrt(rng.random())
        x, y = cx + (rx - 10) * d * math.cos(a), cy - 12 + (ry - 4) * d * math.sin(a)
        r = rng.uniform(8, 15)
        patch = blob(x, y, r, rng, wobble=0.22, ry=r * 0.55, angle=rng.uniform(-0.3, 0.3))
        cv.poly(patch, mix(cheese, brown, 0.75))
        cv.poly(move([((px - x) * 0.5 + x, (py - y) * 0.5 + y) for px, py in patch], -1.5, -1), mix(cheese, brown, 0.35))
    for _ in range(12):
        x, y = cx + rng.uniform(-80, 80), cy - 10 + rng.uniform(-36, 30)
        cv.circle(x, y, rng.uniform(1.8, 3), rgb("#8C4A1E"), 0.85)
    flecks(cv, rng, (cx - 60, cy - 40, cx + 60, cy + 30), 12, rgb("#4C8A3A"), (1.0, 1.8))
    cv.pop_clip()


def chicken_noodle_soup(cv, rng):
    steam(cv, (126, 166, 204))
    surface, (cx, cy, rx, ry) = soup_bowl(cv, rgb("#EDB745"), rgb("#6FA6D6"), rgb("#DDE8F2"), band=rgb("#F4F4F0"))
    cv.push_clip(surface)
    noodle = rgb("#FBE6A8")
    for _ in range(13):
        x, y = cx + rng.uniform(-95, 85), cy + rng.uniform(-28, 24)
        length = rng.uniform(26, 44)
        ph = rng.uniform(0, 6)
        pts = [(x + t, y + 4 * math.sin(ph + t / 7.0)) for t in range(0, int(length), 2)]
        cv.stroke(move(pts, 0.8, 1.5), 5, dark(noodle, 0.18))
        cv.stroke(pts, 5, noodle)
    for _ in range(6):
        x, y = cx + rng.uniform(-90, 90), cy + rng.uniform(-25, 22)
        cv.fill(cv.s_poly(blob(x + 1, y + 2, 10, rng, wobble=0.25, ry=7)), dark(rgb("#F3E3C8"), 0.2))
        cv.fill(cv.s_poly(blob(x, y, 10, rng, wobble=0.25, ry=7)), rgb("#F6E8CF"))
    for _ in range(8):
        x, y = cx + rng.uniform(-95, 95), cy + rng.uniform(-26, 24)
        cv.ellipse(x + 1, y + 1.5, 7.5, 5.5, dark(rgb("#F07F22"), 0.3))
        cv.ellipse(x, y, 7.5, 5.5, rgb("#F07F22"))
        cv.ellipse(x, y, 4.5, 3.2, rgb("#F8A451"))
    for _ in range(7):
        x, y = cx + rng.uniform(-95, 95), cy + rng.uniform(-26, 24)
        cv.poly(rrect(x, y, 9, 6, 2, rng.uniform(0, 3)), rgb("#8DC25A"))
    flecks(cv, rng, (cx - 100, cy - 28, cx + 100, cy + 28), 18, rgb("#3E8A34"), (1.0, 1.7))
    cv.pop_clip()


# Entrees


def spaghetti_and_meatballs(cv, rng):
    plate(cv)
    cx, cy = 158, 162
    pasta, pasta_dark = rgb("#F6D27A"), rgb("#E0B255")
    cv.fill(cv.s_poly(blob(cx + 2, cy + 5, 92, rng, wobble=0.06)), BLACK, 0.10)
    cv.fill(cv.s_poly(blob(cx, cy, 90, rng, wobble=0.06)), pasta_dark)
    nest = cv.s_poly(blob(cx, cy, 96, rng, wobble=0.05))
    cv.push_clip(nest)
    for i in range(70):
        a = rng.uniform(0, 2 * math.pi)
        d = 84 * math.sqrt(rng.random())
        x, y = cx + d * math.cos(a), cy + d * math.sin(a)
        r = rng.uniform(14, 34)
        a0 = rng.uniform(0, 2 * math.pi)
        pts = arc(x, y, r, r * rng.uniform(0.6, 1.0), a0, a0 + rng.uniform(2.0, 3.8))
        cv.stroke(move(pts, 0.8, 1.4), 4.2, dark(pasta_dark, 0.12))
        cv.stroke(pts, 3.6, pasta if i % 4 else light(pasta, 0.25))
    cv.pop_clip()
    sauce = cv.s_poly(blob(cx - 4, cy - 4, 58, rng, wobble=0.16, lobes=(3, 5, 7)))
    cv.fill(sauce, rgb("#C7341F"))
    cv.push_clip(sauce)
    for _ in range(10):
        cv.fill(cv.s_poly(blob(cx + rng.uniform(-45, 45), cy + rng.uniform(-45, 45), rng.uniform(4, 7), rng, wobble=0.3)),
                rgb("#A3231A"))
    cv.pop_clip()
    for x, y in ((cx - 26, cy - 22), (cx + 22, cy - 14), (cx - 4, cy + 22)):
        cv.circle(x + 2, y + 4, 22, BLACK, 0.18)
        cv.circle(x, y, 22, rgb("#6E3A22"))
        ball = cv.s_ellipse(x, y, 22, 22)
        cv.push_clip(ball)
        cv.circle(x - 3, y - 3, 20, rgb("#8D4E2D"))
        for _ in range(6):
            cv.circle(x + rng.uniform(-14, 14), y + rng.uniform(-14, 14), rng.uniform(1.5, 2.5), rgb("#5E2F1A"))
        cv.fill(cv.s_poly(blob(x + 2, y - 8, 12, rng, wobble=0.3, ry=8)), rgb("#C7341F"))
        cv.pop_clip()
        cv.ellipse(x - 8, y - 11, 5, 3, WHITE, 0.35, angle=-0.6)
    for _ in range(16):
        a = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(0, 60)
        cv.poly(rrect(cx + d * math.cos(a), cy + d * math.sin(a), 3.4, 2.4, 0.8, rng.uniform(0, 3)), rgb("#3E8E3A"))
    flecks(cv, rng, (cx - 50, cy - 50, cx + 50, cy + 50), 18, rgb("#FFF6DA"), (1.2, 2.0))


def grilled_salmon(cv, rng):
    plate(cv)
    # asparagus
    green, tip = rgb("#6DAE45"), rgb("#4E8C34")
    for i in range(5):
        y = 196 + i * 13
        x0, x1 = 70 + i * 4, 232 - i * 2
        a = -0.12
        spear = rotate([(x0, y - 4.5), (x1, y - 4.5), (x1, y + 4.5), (x0, y + 4.5)], a, 150, 220)
        cv.poly(move(spear, 1, 3), BLACK, 0.12)
        cv.stroke(rotate([(x0, y), (x1, y)], a, 150, 220), 10, green)
        cv.stroke(rotate([(x0, y - 2), (x1 - 10, y - 2)], a, 150, 220), 2.2, light(green, 0.3))
        tx, ty = rotate([(x1 + 6, y)], a, 150, 220)[0]
        cv.poly(leaf(tx, ty, 26, 14, a, bend=0), tip)
        for k in range(3):
            sx, sy = rotate([(x1 - 16 - k * 18, y - 3)], a, 150, 220)[0]
            cv.poly(leaf(sx, sy, 9, 4, a - 0.4, bend=0), tip)
    # the fillet
    fillet = [(70, 118), (96, 84), (200, 72), (246, 96), (236, 150), (200, 168), (100, 170), (72, 152)]
    fillet = rotate(fillet, -0.08, 160, 120)
    smooth = []
    for i in range(len(fillet)):
        (x0, y0), (x1, y1), (x2, y2) = fillet[i - 1], fillet[i], fillet[(i + 1) % len(fillet)]
        for t in range(6):
            t /= 6.0
            ax, ay = (x0 + x1) / 2, (y0 + y1) / 2
            bx, by = (x1 + x2) / 2, (y1 + y2) / 2
            smooth.append(((1 - t) ** 2 * ax + 2 * (1 - t) * t * x1 + t * t * bx,
                           (1 - t) ** 2 * ay + 2 * (1 - t) * t * y1 + t * t * by))
    cv.poly(move(smooth, 3, 6), BLACK, 0.13)
    cv.poly(move(smooth, 0, 5), rgb("#D9663F"))
    body = cv.s_poly(smooth)
    cv.fill(body, rgb("#F58A5E"))
    cv.push_clip(body)
    for k in range(7):
        x = 84 + k * 24
        cv.stroke(arc(x - 60, 190, 80, 110, -1.25, -0.55), 3.2, rgb("#FFC2A2"))
    for k in range(4):
        x = 100 + k * 36
        cv.stroke([(x, 62), (x + 50, 182)], 8, rgb("#8A4424"), 0.75)
    cv.pop_clip()
    for _ in range(14):
        x, y = rng.uniform(100, 220), rng.uniform(85, 155)
        cv.poly(rrect(x, y, 5, 2.6, 1, rng.uniform(0, 3)), rgb("#3A7A30"))
    flecks(cv, rng, (95, 85, 225, 155), 14, rgb("#3A2A20"), (0.9, 1.4))
    lemon_slice(cv, 224, 116, 24)


def margherita_pizza(cv, rng):
    plate(cv)
    cx, cy = CX, CY
    cv.circle(cx + 2, cy + 5, 116, BLACK, 0.12)
    cv.fill(cv.s_poly(blob(cx, cy, 116, rng, wobble=0.02, n=90, lobes=(5, 7, 11))), rgb("#D98E3A"))
    cv.fill(cv.s_poly(blob(cx - 1, cy - 2, 112, rng, wobble=0.02, n=90, lobes=(5, 7, 11))), rgb("#EDB35E"))
    for _ in range(14):
        a = rng.uniform(0, 2 * math.pi)
        cv.ellipse(cx + 106 * math.cos(a), cy + 106 * math.sin(a), rng.uniform(5, 9), rng.uniform(3, 5), rgb("#B86D28"),
                   0.7, angle=a + math.pi / 2)
    sauce = cv.s_poly(blob(cx, cy, 94, rng, wobble=0.04, n=80, lobes=(6, 9, 13)))
    cv.fill(sauce, rgb("#D23A24"))
    cv.push_clip(sauce)
    for _ in range(10):
        cv.circle(cx + rng.uniform(-80, 80), cy + rng.uniform(-80, 80), rng.uniform(3, 6), rgb("#B52A1A"), 0.8)
    cv.pop_clip()
    spots = [(cx - 44, cy - 46), (cx + 30, cy - 56), (cx + 62, cy + 2), (cx - 62, cy + 16), (cx + 12, cy + 4),
             (cx - 18, cy + 60), (cx + 44, cy + 56), (cx - 16, cy - 8)]
    for x, y in spots:
        cheese = blob(x, y, rng.uniform(18, 23), rng, wobble=0.18)
        cv.poly(move(cheese, 1, 2), dark(rgb("#F3E6C6"), 0.2))
        cv.poly(cheese, rgb("#FBF3DC"))
        cv.circle(x + rng.uniform(-6, 6), y + rng.uniform(-6, 6), rng.uniform(3, 5), rgb("#E9C67E"), 0.8)
    for x, y, a in ((cx - 40, cy - 16, 0.5), (cx + 30, cy - 24, -0.9), (cx + 34, cy + 30, 2.2), (cx - 36, cy + 42, 1.2),
                    (cx + 2, cy - 62, 2.7)):
        basil_leaf(cv, x, y, 28, a)
    for k in range(3):
        a = math.pi / 6 + k * math.pi / 3
        cv.stroke([(cx - 112 * math.cos(a), cy - 112 * math.sin(a)), (cx + 112 * math.cos(a), cy + 112 * math.sin(a))],
                  1.6, rgb("#9A4A20"), 0.55)


def steak_frites(cv, rng):
    plate(cv)
    # fries
    fry, fry_side = rgb("#F7CD52"), rgb("#E0A93A")
    fries = []
    for i in range(30):
        x = rng.uniform(186, 240)
        y = rng.uniform(112, 222)
        a = rng.uniform(-2.4, -0.7) if i % 3 else rng.uniform(-0.4, 0.4)
        fries.append((x, y, rng.uniform(50, 72), a))
    for x, y, length, a in fries:
        cv.poly(move(rrect(x, y, length, 14, 3, a), 1.5, 3), BLACK, 0.12)
        cv.poly(rrect(x, y, length, 14, 3, a), fry_side)
        cv.poly(rrect(x - 1, y - 1.5, length - 4, 8, 2.5, a), fry)
    # steak
    steak = blob(124, 164, 76, rng, wobble=0.09, ry=56, angle=-0.35, n=48)
    cv.poly(move(steak, 3, 6), BLACK, 0.15)
    cv.poly(move(steak, 0, 4), rgb("#5C2E1A"))
    body = cv.s_poly(steak)
    cv.fill(body, rgb("#8C4A2B"))
    cv.push_clip(body)
    cv.ellipse(124, 164, 60, 38, rgb("#9B5733"), angle=-0.35)
    for k in range(5):
        x = 40 + k * 34
        cv.stroke([(x, 90), (x + 80, 250)], 6.5, rgb("#4A2414"), 0.8)
    for k in range(4):
        y = 100 + k * 34
        cv.stroke([(40, y + 60), (220, y - 20)], 6.5, rgb("#4A2414"), 0.8)
    cv.fill(cv.s_stroke(arc(124, 164, 76, 56, 0.5, 1.9), 9), rgb("#F1DDB5"), 0.9)
    cv.pop_clip()
    # herb butter
    cv.poly(rrect(128, 150, 34, 26, 8, 0.3), dark(rgb("#FCE7A0"), 0.15))
    cv.poly(rrect(126, 147, 32, 24, 8, 0.3), rgb("#FDECAE"))
    flecks(cv, rng, (114, 138, 140, 158), 9, rgb("#3A8A34"), (1.0, 1.6))
    # a sprig of rosemary
    stem = [(70 + t * 1.6, 102 - t * 0.55 + 4 * math.sin(t / 9.0)) for t in range(0, 44)]
    cv.stroke(stem, 2.2, rgb("#6E5A3A"))
    for i in range(0, len(stem), 4):
        x, y = stem[i]
        for side in (-1, 1):
            cv.poly(leaf(x + side * 4, y + side * 5, 14, 4, -0.35 + side * 0.9, bend=0), rgb("#3E7E4A"))


# Desserts


def _wedge(cv, layers, top_color, wall_layers, mirror=False, tip=(52, 148), radius=214, squash=0.42,
           a_back=-0.78, a_side=0.22, height=92):
    """A wedge of round cake in three-quarter view. `layers`: [(thickness, colour), ...] from the top
    of the cut face down; `wall_layers` likewise for the outer wall. Returns the top face's points."""
    tx, ty = tip
    outer = arc(tx, ty, radius, radius * squash, a_back, a_side)
    bx, by = outer[-1]
    f = (lambda pts: flip_x(pts)) if mirror else (lambda pts: pts)
    rim = arc(tx, ty, radius, radius * squash, 0.0, a_side)
    # shadow on the plate
    cv.poly(f(move([(tx, ty + height)] + rim + [(bx, by + height)], 6, 6)), BLACK, 0.12)
    # outer wall
    wall = rim + move(rim[::-1], 0, height)
    d = 0
    cv.poly(f(wall), wall_layers[0][1])
    cv.push_clip(cv.s_poly(f(wall)))
    for thick, col in wall_layers:
        cv.poly(f(move(rim, 0, d) + move(rim[::-1], 0, d + thick)), col)
        d += thick
    cv.poly(f([(bx - 18, by - 10), (bx + 40, by - 10), (bx + 40, by + height + 40), (bx - 18, by + height + 40)]), BLACK, 0.10)
    cv.pop_clip()
    # cut face
    face = [(tx, ty), (bx, by), (bx, by + height), (tx, ty + height)]
    cv.poly(f(face), layers[0][1])
    cv.push_clip(cv.s_poly(f(face)))
    d = 0
    for thick, col in layers:
        cv.poly(f([(tx, ty + d), (bx, by + d), (bx, by + d + thick), (tx, ty + d + thick)]), col)
        d += thick
    cv.pop_clip()
    top = [(tx, ty)] + outer
    cv.poly(f(top), top_color)
    return f


def chocolate_layer_cake(cv, rng):
    side_plate(cv)
    sponge, cream, ganache = rgb("#6B3A22"), rgb("#C98A5E"), rgb("#3F1F14")
    layers = [(12, ganache), (22, sponge), (7, cream), (22, sponge), (7, cream), (22, sponge)]
    f = _wedge(cv, layers, light(ganache, 0.08), [(92, ganache)])
    # drips of ganache over the cut face
    tx, ty, bx, by = 52, 148, 52 + 214 * math.cos(0.22), 148 + 214 * 0.42 * math.sin(0.22)
    for t, length in ((0.12, 16), (0.3, 26), (0.5, 12), (0.66, 22), (0.86, 14)):
        x, y = tx + (bx - tx) * t, ty + (by - ty) * t
        cv.poly(f(rrect(x, y + length / 2 + 4, 10, length, 5)), ganache)
    # shine, cream rosette and cherry on top
    cv.poly(f(leaf(180, 118, 90, 10, -0.05, bend=0)), light(ganache, 0.25), 0.8)
    for k, (dx, dy, r) in enumerate(((0, 0, 20), (0, -9, 15), (0, -17, 10), (0, -23, 5))):
        cv.ellipse(*f([(214 + dx, 112 + dy)])[0], r, r * 0.62, dark(rgb("#FFF6EA"), 0.06 if k % 2 else 0.0))
    cx, cy = f([(216, 78)])[0]
    cv.stroke([(cx, cy - 4), (cx + 4, cy - 18), (cx + 14, cy - 30)], 2.4, rgb("#5B7A2A"))
    cv.circle(cx + 1, cy + 3, 15, BLACK, 0.15)
    cv.circle(cx, cy, 15, rgb("#C0142B"))
    cv.ellipse(cx - 5, cy - 5, 5, 3.2, WHITE, 0.6, angle=-0.7)
    top = cv.s_poly(f([(52, 148)] + arc(52, 148, 214, 214 * 0.42, -0.78, 0.22)))
    cv.push_clip(top)
    for _ in range(14):
        x, y = rng.uniform(90, 186), rng.uniform(106, 146)
        cv.poly(f(rrect(x, y, 6, 2.4, 1, rng.uniform(0, 3))), rgb("#2A120A"))
    cv.pop_clip()


def strawberry_cheesecake(cv, rng):
    side_plate(cv)
    glaze, body, crust = rgb("#D8263A"), rgb("#FBEFD2"), rgb("#C98A4A")
    layers = [(10, glaze), (62, body), (20, crust)]
    f = _wedge(cv, layers, glaze, [(10, glaze), (62, dark(body, 0.04)), (20, crust)], mirror=True, height=92)
    tx, ty, bx, by = 52, 148, 52 + 214 * math.cos(0.22), 148 + 214 * 0.42 * math.sin(0.22)
    for t, length in ((0.2, 12), (0.45, 18), (0.7, 10), (0.9, 14)):
        x, y = tx + (bx - tx) * t, ty + (by - ty) * t
        cv.poly(f(rrect(x, y + length / 2 + 2, 9, length, 4.5)), glaze)
    # crumbs on the crust
    for _ in range(10):
        x = rng.uniform(60, 250)
        y = ty + (by - ty) * (x - tx) / (bx - tx) + 72 + rng.uniform(3, 17)
        cv.circle(*f([(x, y)])[0], rng.uniform(1.2, 2.2), dark(crust, 0.2))
    # strawberries on top
    for x, y, s in ((196, 100, 1.25), (146, 112, 1.35), (96, 128, 1.2)):
        x, y = f([(x, y)])[0]
        berry = [(x - 16 * s, y - 2 * s), (x + 16 * s, y - 2 * s)] + arc(x, y - 2 * s, 16 * s, 24 * s, 0, math.pi)
        cv.poly(move(berry, 1.5, 3), BLACK, 0.18)
        cv.poly(berry, rgb("#E8323F"))
        cv.poly(arc(x, y - 2 * s, 11 * s, 17 * s, 0, math.pi), rgb("#F76A70"))
        for _ in range(5):
            cv.ellipse(x + rng.uniform(-9, 9) * s, y + rng.uniform(2, 14) * s, 1.3, 2, rgb("#FFE08A"))
        cv.poly(star(x, y - 4 * s, 13 * s, 5 * s, 5, -math.pi / 2), rgb("#3E9A45"))
        cv.ellipse(x, y - 4 * s, 13 * s, 4 * s, rgb("#3E9A45"))


def ice_cream_sundae(cv, rng):
    side_plate(cv, cy=258, rx=112, ry=30)
    glass, glass_edge = rgb("#E3F2F8"), rgb("#A9CFE0")
    vanilla, shade, fudge_col = rgb("#FFF4D9"), rgb("#EBD5A8"), rgb("#5A2A16")
    # the stem and foot of the glass
    cv.ellipse(CX, 257, 46, 11, glass_edge)
    cv.ellipse(CX, 255, 42, 9, glass)
    cv.poly(rrect(CX, 236, 16, 42, 4), glass_edge)
    cv.poly(rrect(CX - 2, 236, 7, 40, 3), glass)
    # wafer, behind the scoops
    wafer = rrect(226, 84, 22, 90, 3, 0.45)
    cv.poly(move(wafer, 2, 3), BLACK, 0.12)
    cv.poly(wafer, rgb("#E3A95A"))
    cv.push_clip(cv.s_poly(wafer))
    for k in range(-6, 7):
        cv.stroke(rotate([(226 - 20, 84 + k * 9), (226 + 20, 84 + k * 9)], 0.45, 226, 84), 1.6, rgb("#C07F35"))
    cv.pop_clip()
    # three scoops: two side by side, one on top
    for x, y, r in ((114, 136, 40), (206, 136, 40), (CX, 102, 44)):
        scoop = cv.s_poly(blob(x, y, r, rng, wobble=0.05))
        cv.fill(cv.s_poly(blob(x + 1, y + 4, r, rng, wobble=0.05)), dark(shade, 0.12))
        cv.fill(scoop, shade)
        cv.push_clip(scoop)
        cv.circle(x - 6, y - 7, r - 3, vanilla)
        cv.pop_clip()
        for _ in range(5):
            cv.ellipse(x + rng.uniform(-r * 0.6, r * 0.5), y + rng.uniform(-r * 0.6, r * 0.3), 1.1, 2.2, rgb("#3A2418"), 0.6,
                       angle=rng.uniform(0, 3))
    # the bowl of the glass, filled with ice cream and a ribbon of fudge
    cup = arc(CX, 150, 88, 76, 0, math.pi)
    cup_s = cv.s_poly(cup)
    cv.fill(cv.s_poly(move(cup, 3, 5)), BLACK, 0.08)
    cv.fill(cup_s, vanilla)
    cv.push_clip(cup_s)
    cv.stroke(wave(60, 260, 188, 6, 56), 11, fudge_col)
    cv.stroke(wave(60, 260, 166, 5, 46, phase=1), 7, rgb("#F29BB5"))
    cv.fill(cup_s, glass, 0.45)
    cv.ellipse(CX - 52, 176, 7, 26, WHITE, 0.7, angle=0.45)
    cv.ellipse(CX + 56, 186, 4, 14, WHITE, 0.5, angle=-0.45)
    cv.pop_clip()
    cv.fill(cv.s_stroke(arc(CX, 150, 88, 76, 0, math.pi), 3), glass_edge)
    cv.fill(cv.s_poly(ellipse_pts(CX, 150, 90, 9), ellipse_pts(CX, 150, 84, 6)), glass_edge)
    # hot fudge over the top scoop
    fudge = blob(CX, 86, 40, rng, wobble=0.1, ry=24)
    drips = [rrect(x, 100 + l / 2, 11, l, 5.5) for x, l in ((CX - 30, 24), (CX - 10, 40), (CX + 12, 30), (CX + 32, 20))]
    cv.fill(cv.union(cv.s_poly(fudge), *[cv.s_poly(d) for d in drips]), fudge_col)
    cv.ellipse(CX - 14, 76, 12, 4, light(fudge_col, 0.3), angle=-0.2)
    # whipped cream and a cherry
    for k, (dy, r) in enumerate(((0, 26), (-11, 19), (-21, 13), (-29, 6))):
        cv.ellipse(CX, 64 + dy, r, r * 0.55, WHITE if k % 2 == 0 else rgb("#F2EEE6"))
    cv.stroke([(CX + 2, 28), (CX + 8, 14), (CX + 18, 6)], 2.4, rgb("#5B7A2A"))
    cv.circle(CX + 1, 35, 13, BLACK, 0.15)
    cv.circle(CX, 32, 13, rgb("#C0142B"))
    cv.ellipse(CX - 4, 27, 4.5, 2.8, WHITE, 0.6, angle=-0.7)
    sprinkles = [rgb("#E94B7A"), rgb("#4FB3E0"), rgb("#F6C343"), rgb("#7BC96F")]
    placed = 0
    while placed < 16:
        x, y = rng.uniform(80, 240), rng.uniform(60, 150)
        if any((x - sx) ** 2 + (y - sy) ** 2 < (sr - 6) ** 2 for sx, sy, sr in ((114, 136, 40), (206, 136, 40), (CX, 102, 44))) and y < 146:
            cv.poly(rrect(x, y, 6, 2.2, 1, rng.uniform(0, 3)), rng.choice(sprinkles))
            placed += 1


# Sandwiches


def _sandwich_half(cv, tip, left, right, height, layers, top_color, crust):
    """Half a sandwich lying flat, seen from the front: the top slice, and the cut face's layers."""
    face = [left, right, (right[0], right[1] + height), (left[0], left[1] + height)]
    cv.poly(move(face, 5, 6), BLACK, 0.12)
    cv.poly(face, layers[0][1])
    cv.push_clip(cv.s_poly(face))
    d = 0
    for thick, col, wavy in layers:
        top = wave(left[0] - 8, right[0] + 8, 0, 2.5 if wavy else 0, 22, phase=d)
        top = [(x, left[1] + (right[1] - left[1]) * (x - left[0]) / (right[0] - left[0]) + d + y) for x, y in top]
        bottom = [(x, y + thick) for x, y in top[::-1]]
        cv.poly(top + bottom, col)
        d += thick
    cv.pop_clip()
    top = [tip, left, right]
    cv.poly(top, crust)
    inset = [((x * 0.86 + (tip[0] + left[0] + right[0]) / 3 * 0.14), (y * 0.86 + (tip[1] + left[1] + right[1]) / 3 * 0.14)) for x, y in top]
    cv.poly(inset, top_color)


def club_sandwich(cv, rng):
    board(cv)
    bread, crust = rgb("#F3D9A4"), rgb("#C9853D")
    lettuce, tomato, turkey, bacon, cheese = rgb("#74BF4E"), rgb("#E0392B"), rgb("#F2C7A5"), rgb("#B5452E"), rgb("#F8C840")
    layers = [(3, crust, False), (12, bread, False), (8, lettuce, True), (8, tomato, False), (10, turkey, True),
              (3, crust, False), (10, bread, False), (3, crust, False), (9, bacon, True), (7, cheese, False),
              (8, lettuce, True), (3, crust, False), (12, bread, False), (3, crust, False)]
    height = sum(t for t, _, _ in layers)
    # back half, then front half
    _sandwich_half(cv, (236, 62), (150, 122), (290, 132), height, layers, light(crust, 0.45), crust)
    _sandwich_half(cv, (100, 72), (24, 152), (196, 152), height, layers, light(crust, 0.45), crust)
    # toothpicks with frills
    for x, y, col in ((106, 104, rgb("#E94B3C")), (232, 92, rgb("#3C8FE9"))):
        cv.stroke([(x, y), (x, y - 56)], 3, rgb("#E8C894"))
        cv.poly(star(x, y - 60, 11, 5, 8), col)
        cv.circle(x, y - 60, 4, light(col, 0.4))


def grilled_cheese(cv, rng):
    # a round board seen from above
    wood = rgb("#9C6840")
    cv.circle(CX + 3, CY + 8, 132, BLACK, 0.10)
    cv.circle(CX, CY, 132, dark(wood, 0.2))
    top = cv.s_ellipse(CX, CY - 3, 128, 128)
    cv.fill(top, wood)
    cv.push_clip(top)
    for k in range(6):
        cv.stroke(wave(20, 300, 70 + k * 36, 2, 110, phase=k), 2.2, light(wood, 0.12))
    cv.pop_clip()
    cheese, toast, crust = rgb("#F9B928"), rgb("#E9A64C"), rgb("#A8612A")

    # a slice of bread: a square with a rounded top
    full = [(-60, 62), (-60, -30)] + arc(-28, -38, 34, 32, math.pi * 1.0, math.pi * 1.5)[1:]
    full += arc(28, -38, 34, 32, math.pi * 1.5, math.pi * 2.0)[1:] + [(60, 62)]
    full = [(x * 1.16, y * 1.16) for x, y in full]
    inner = [(x * 0.86, y * 0.86 + 1) for x, y in full]
    # cut along the diagonal x + y = 0; the halves move apart, with cheese stretching between them
    gap = 15
    u = 1 / math.sqrt(2)

    def side(sign, reach):
        """The half plane sign * (x + y) / sqrt(2) > -reach, as a big polygon (its edge wavy when reach is not 0)."""
        pts = []
        for i in range(41):
            t = -150 + 300 * i / 40
            w = -reach + (2.5 * math.sin(i * 1.3) if reach else 0)
            pts.append((t * u + sign * w * u, -t * u + sign * w * u))
        far = [(150 * u + sign * 300 * u, -150 * u + sign * 300 * u), (-150 * u + sign * 300 * u, 150 * u + sign * 300 * u)]
        return pts + far

    for sign in (-1, 1):
        ox, oy = CX + sign * gap * u, CY + 4 + sign * gap * u
        region = cv.s_poly(move(side(sign, 0), ox, oy))
        slab = cv.s_poly(move(full, ox, oy))
        bread = cv.intersect(slab, region)
        cv.fill(cv.intersect(cv.s_poly(move(full, ox + 3, oy + 6)), cv.s_poly(move(side(sign, 0), ox + 3, oy + 6))), BLACK, 0.14)
        # cheese peeking out along the cut, and a drip over an outer edge
        cv.fill(cv.intersect(cv.s_poly(move([(x * 1.02, y * 1.02) for x, y in full], ox, oy)),
                             cv.s_poly(move(side(sign, 9), ox, oy))), cheese)
        if sign < 0:
            cv.ellipse(ox - 68, oy + 16, 13, 20, cheese)
        else:
            cv.ellipse(ox + 22, oy + 72, 20, 12, cheese)
        cv.fill(bread, crust)
        crumb = cv.intersect(cv.s_poly(move(inner, ox, oy)), cv.s_poly(move(side(sign, -5), ox, oy)))
        cv.fill(crumb, toast)
        cv.push_clip(crumb)
        for k in range(-5, 6):
            cv.stroke([(ox - 100 + k * 24, oy - 100), (ox + 100 + k * 24, oy + 100)], 4, dark(toast, 0.22), 0.45)
            cv.stroke([(ox - 100 + k * 24, oy + 100), (ox + 100 + k * 24, oy - 100)], 4, dark(toast, 0.22), 0.45)
        cv.ellipse(ox - 18, oy - 22, 26, 13, light(toast, 0.3), 0.55, angle=-0.6)
        cv.pop_clip()
    # strings of cheese across the gap
    for t in (-48, -28, -6, 16, 38):
        x0, y0 = CX + t * u - (gap - 4) * u, CY + 4 - t * u - (gap - 4) * u
        x1, y1 = CX + t * u + (gap - 4) * u, CY + 4 - t * u + (gap - 4) * u
        mx, my = (x0 + x1) / 2 + 2, (y0 + y1) / 2 + 3
        pts = [((1 - s) ** 2 * x0 + 2 * (1 - s) * s * mx + s * s * x1, (1 - s) ** 2 * y0 + 2 * (1 - s) * s * my + s * s * y1)
               for s in [i / 8 for i in range(9)]]
        cv.stroke(pts, 6 if t % 2 == 0 else 4.5, cheese)
        cv.stroke(move(pts, -1, -1), 1.6, light(cheese, 0.45))


def classic_cheeseburger(cv, rng):
    board(cv)
    cx = CX
    bun, bun_dark, bun_light = rgb("#EFA84E"), rgb("#C97E2E"), rgb("#F8C679")
    # bottom bun
    cv.poly(move(rrect(cx, 222, 196, 38, 18), 4, 6), BLACK, 0.12)
    cv.poly(rrect(cx, 224, 196, 36, 18), bun_dark)
    cv.poly(rrect(cx, 218, 194, 26, 13), bun)
    # patty
    cv.poly(rrect(cx, 194, 214, 34, 17), rgb("#5A2C17"))
    cv.poly(rrect(cx, 190, 208, 22, 11), rgb("#7A3F22"))
    for _ in range(14):
        cv.circle(cx + rng.uniform(-95, 95), rng.uniform(184, 204), rng.uniform(1.5, 2.8), rgb("#4A2212"))
    # cheese with drips
    cheese = rgb("#FBC531")
    sheet = [(cx - 100, 168), (cx + 100, 168), (cx + 100, 178)]
    for x, l in ((cx + 80, 22), (cx + 30, 14), (cx - 20, 28), (cx - 70, 16)):
        sheet += [(x + 12, 178), (x, 178 + l), (x - 12, 178)]
    sheet += [(cx - 100, 178)]
    cv.poly(sheet, cheese)
    # tomato
    cv.poly(rrect(cx, 163, 200, 14, 7), rgb("#D93025"))
    cv.poly(rrect(cx - 4, 161, 184, 5, 2.5), rgb("#F0644E"))
    # lettuce
    lettuce = wave(cx - 112, cx + 112, 150, 5, 26) + wave(cx + 108, cx - 108, 158, 4, 20)
    cv.poly(lettuce, rgb("#6DBE47"))
    cv.stroke(wave(cx - 100, cx + 100, 149, 4, 26), 2, light(rgb("#6DBE47"), 0.35))
    # top bun
    dome = [(cx - 104, 150)] + arc(cx, 146, 104, 92, math.pi, 2 * math.pi) + [(cx + 104, 150)]
    dome += arc(cx, 140, 104, 10, 0, math.pi)
    cv.poly(dome, bun_dark)
    cv.push_clip(cv.s_poly(dome))
    cv.ellipse(cx - 8, 130, 104, 86, bun)
    cv.ellipse(cx - 44, 88, 36, 16, bun_light, 0.8, angle=-0.5)
    cv.pop_clip()
    for x, y, a in ((cx - 52, 96, -0.6), (cx - 18, 78, 0.3), (cx + 24, 82, -0.3), (cx + 62, 104, 0.7), (cx - 70, 124, 1.0),
                    (cx + 8, 110, 1.5), (cx + 50, 130, -0.9), (cx - 30, 122, 0.2), (cx + 84, 130, 0.4), (cx - 6, 60, 1.2)):
        cv.ellipse(x, y, 5.5, 2.8, rgb("#FFF5DA"), angle=a)


# --------------------------------------------------------------------------------------------
# Which drawing goes with which dish

DISHES = {
    "tomato bruschetta": tomato_bruschetta,
    "crispy calamari": crispy_calamari,
    "spinach artichoke dip": spinach_artichoke_dip,
    "buffalo chicken wings": buffalo_chicken_wings,
    "chicken wings": buffalo_chicken_wings,
    "garden salad": garden_salad,
    "caesar salad": caesar_salad,
    "greek salad": greek_salad,
    "caprese salad": caprese_salad,
    "tomato basil soup": tomato_basil_soup,
    "tomato soup": tomato_basil_soup,
    "french onion soup": french_onion_soup,
    "chicken noodle soup": chicken_noodle_soup,
    "spaghetti and meatballs": spaghetti_and_meatballs,
    "grilled salmon": grilled_salmon,
    "margherita pizza": margherita_pizza,
    "steak frites": steak_frites,
    "chocolate layer cake": chocolate_layer_cake,
    "strawberry cheesecake": strawberry_cheesecake,
    "ice cream sundae": ice_cream_sundae,
    "club sandwich": club_sandwich,
    "grilled cheese": grilled_cheese,
    "classic cheeseburger": classic_cheeseburger,
    "cheeseburger": classic_cheeseburger,
}


def render(draw, background, seed):
    cv = Canvas(background)
    backdrop(cv, background)
    draw(cv, Rng(seed))
    return encode_png(cv.rows(), SIZE, SIZE)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Draw the Restaurant example's dish pictures.")
    parser.add_argument("--menu", default=os.path.normpath(os.path.join(RESOURCES, "menu.json")),
                        help="the menu file to read (default: %(default)s)")
    parser.add_argument("--out", default=None,
                        help="the folder to write the pictures to (default: Images next to the menu)")
    parser.add_argument("--only", default=None, help="comma-separated ids to draw (and 'dish'), for trying things out")
    args = parser.parse_args(argv)
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.menu)), "Images")
    os.makedirs(out, exist_ok=True)
    with open(args.menu, encoding="utf-8") as f:
        menu = json.load(f)
    items = menu["items"] if isinstance(menu, dict) else menu
    only = set(args.only.split(",")) if args.only else None

    jobs = []
    if only is None or "dish" in only:
        jobs.append(("dish.png", empty_plate, DEFAULT_BACKGROUND, 0, "an empty plate"))
    for item in items:
        if only is not None and str(item["id"]) not in only:
            continue
        draw = DISHES.get(item["name"].strip().lower())
        background = CATEGORY_BACKGROUNDS.get(item["category"], DEFAULT_BACKGROUND)
        if draw is None:
            print("no drawing for %r: it gets an empty plate" % item["name"], file=sys.stderr)
            draw = empty_plate
        jobs.append(("%d.png" % item["id"], draw, background, item["id"], item["name"]))
    for filename, draw, background, seed, name in jobs:
        data = render(draw, background, seed)
        with open(os.path.join(out, filename), "wb") as f:
            f.write(data)
        print("%-8s %6d bytes  %s" % (filename, len(data), name))


if __name__ == "__main__":
    main()
