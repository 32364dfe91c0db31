#!/usr/bin/env python3
"""tests/cpu/canny_scipy.py CASES...: each case file (written by tests/cpu/test_canny_ref.c --scipy)
holds a header line "width height type border cval radius l2", a line of the blur's integer taps
(summing to 256), then the source's RGBA pixels and the reference's blur and magnitude stages, of
that type. Checks the two stages the border shapes against scipy.ndimage.correlate with the
border's mode (replicate 'nearest', reflect 'reflect', mirror 'mirror', constant 'constant' with
cval, wrap 'grid-wrap'), as 2-D kernels so that a constant border is the image's own extension:

  blur       the gray image (the project's formula) correlated with taps x taps (sum 2^16): exact
             integer sums in double, then (S + 2^15) >> 16 for the integer types (equal to the
             level); float32 S / 2^16 within 1e-5 (another order of the same additions)
  magnitude  the reference's blur correlated with the 3x3 Sobel kernels: half of |dx| + |dy| (l2:
             of the integer square root of dx^2 + dy^2), floored and saturated for the integer
             types (equal), float32 within 1e-5

Exit 0 when all match, 1 on a mismatch, 77 when numpy or scipy is missing (skipped)."""
import math
import sys

try:
    import numpy as np
    from scipy import ndimage
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

MODES = {"replicate": "nearest", "reflect": "reflect", "mirror": "mirror",
         "constant": "constant", "wrap": "grid-wrap"}
DTYPES = {"uint8": np.uint8, "uint16": np.uint16, "float32": np.float32}
SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float64)

if len(sys.argv) < 2:  # no case compared is no evidence
    print("FAIL: no case files given")
    sys.exit(1)


def gray_of(src, tname):
    r, g, b = (src[:, :, c] for c in range(3))
    if tname != "float32":
        r, g, b = (v.astype(np.int64) for v in (r, g, b))
        return ((9798 * r + 19235 * g + 3735 * b + 16384) >> 15).astype(np.float64)
    f = np.float32  # the same operations in the same order, each rounded to float
    s = (f(9798) * r + f(19235) * g) + f(3735) * b
    return (s / f(32768)).astype(np.float64)


failed = 0
for path in sys.argv[1:]:
    with open(path, "rb") as fh:
        head = fh.readline().split()
        w, h = int(head[0]), int(head[1])
        tname, border, cval = head[2].decode(), head[3].decode(), float(head[4])
        radius, l2 = int(head[5]), int(head[6])
        taps = np.array([int(v) for v in fh.readline().split()], np.float64)
        dt = np.dtype(DTYPES[tname])
        n = w * h * 4
        src, blur, mag = (np.frombuffer(fh.read(n * dt.itemsize), dt).reshape(h, w, 4)
                          for _ in range(3))
    mode = MODES[border]
    top = 1.0 if tname == "float32" else float(np.iinfo(dt).max)
    what = f"{w}x{h} {tname} {border} radius {radius} {'l2' if l2 else 'l1'}"
    gray = gray_of(src, tname)
    s = ndimage.correlate(gray, np.outer(taps, taps), mode=mode, cval=cval)
    if tname == "float32":
        want_blur, tol = s / 65536.0, 1e-5
    else:
        want_blur, tol = np.floor((s + 32768.0) / 65536.0), 0.0
    got_blur = blur[:, :, 0].astype(np.float64)
    bad = np.abs(got_blur - want_blur) > tol
    b = got_blur
    dx = ndimage.correlate(b, SOBEL_X, mode=mode, cval=cval)
    dy = ndimage.correlate(b, SOBEL_X.T, mode=mode, cval=cval)
    if l2:
        m = dx * dx + dy * dy
        root = np.sqrt(m) if tname == "float32" else np.vectorize(math.isqrt)(m.astype(np.int64))
    else:
        root = np.abs(dx) + np.abs(dy)
    want_mag = root * 0.5 if tname == "float32" else np.minimum(np.floor(root / 2.0), top)
    got_mag = mag[:, :, 0].astype(np.float64)
    bad_mag = np.abs(got_mag - want_mag) > (1e-5 * np.maximum(1.0, np.abs(want_mag))
                                            if tname == "float32" else 0.0)
    if bad.any() or bad_mag.any():
        stage, which, got, want = (("blur", bad, got_blur, want_blur) if bad.any()
                                   else ("magnitude", bad_mag, got_mag, want_mag))
        y, x = np.argwhere(which)[0]
        print(f"FAIL: {what}: {stage} differs from scipy in {np.count_nonzero(which)} pixels, "
              f"first at ({x}, {y}): reference {got[y, x]}, scipy {want[y, x]}")
        failed += 1
    else:
        print(f"ok: {what}: blur and magnitude equal scipy.ndimage.correlate(mode='{mode}')")
sys.exit(1 if failed else 0)
