#!/usr/bin/env python3
"""tests/cpu/box_scipy.py CASES...: each case file (written by tests/cpu/test_box_types.c) holds a
header line "width height type radius border cval", then the source's and the reference's RGBA
rows of that type (uint8, uint16 or float32). For each it checks, on R, G and B, the reference
against scipy.ndimage with the border's scipy mode:

- integers: the window sums from scipy.ndimage.correlate1d with a row of ones along rows and then
  columns (outside, a column of constants sums size * cval), in float64 (every partial sum an
  integer below 2^53, so exact), rounded the project's
  way, (sum + area // 2) // area in int64: bit for bit. scipy.ndimage.uniform_filter's own
  integer output is not the reference (it truncates its float mean): the mean is taken apart.
- float32: scipy.ndimage.uniform_filter(size=2r+1) in float64 within 1e-6 (the reference sums in
  double and rounds once to float; values in 0..1).
- alpha kept.
Exit 0 when all match, 1 on a mismatch, 77 when numpy or scipy is missing (skipped)."""
import sys

try:
    import numpy as np
    from scipy_rules import DTYPES, MODES, box_expected
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

BITS = {np.uint8: np.uint8, np.uint16: np.uint16, np.float32: np.uint32}  # alpha, NaN == NaN

if len(sys.argv) < 2:  # no case compared is no evidence
    print("FAIL: no case files given")
    sys.exit(1)

failed = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        fields = f.readline().split()
        w, h, type_name, radius = int(fields[0]), int(fields[1]), fields[2].decode(), int(fields[3])
        border, cval = fields[4].decode(), float(fields[5])
        dtype = DTYPES[type_name]
        n = w * h * 4 * np.dtype(dtype).itemsize
        src = np.frombuffer(f.read(n), dtype).reshape(h, w, 4)
        ref = np.frombuffer(f.read(n), dtype).reshape(h, w, 4)
    mode = MODES[border]
    name = f"{w}x{h} {type_name} radius {radius} {border}"
    ok = True
    for c in range(3):
        x = src[:, :, c].astype(np.float64)
        got = ref[:, :, c].astype(np.float64)
        want = box_expected(x, radius, mode, cval, integer=dtype != np.float32)
        err = np.max(np.abs(got - want))
        good = err <= 1e-6 if dtype == np.float32 else err == 0
        if not good:
            y, xx = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
            print(f"FAIL: {name} channel {c}: reference {got[y, xx]!r}, scipy {want[y, xx]!r} "
                  f"at ({xx}, {y}), largest difference {err:.3g}")
            ok = False
    bits = BITS[dtype]
    if not np.array_equal(src[:, :, 3].view(bits), ref[:, :, 3].view(bits)):
        print(f"FAIL: {name}: alpha changed")
        ok = False
    if ok:
        print(f"ok: {name} equals scipy.ndimage ({mode})")
    else:
        failed += 1
sys.exit(1 if failed else 0)
