#!/usr/bin/env python3
"""tests/cpu/median_scipy.py CASES...: each case file (written by tests/cpu/test_median_ref.c) holds a
header line "width height size", then the source's and the reference's RGBA8 bytes. Checks the
reference against scipy.ndimage.median_filter(mode='nearest') on R, G and B, and that alpha is
kept. Exit 0 when all match, 1 on a mismatch, 77 when numpy or scipy is missing (skipped)."""
import sys

try:
    import numpy as np
    from scipy import ndimage
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

if len(sys.argv) < 2:  # no case compared is no evidence
    print("FAIL: no case files given")
    sys.exit(1)

failed = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        w, h, k = (int(v) for v in f.readline().split())
        src = np.frombuffer(f.read(w * h * 4), np.uint8).reshape(h, w, 4)
        ref = np.frombuffer(f.read(w * h * 4), np.uint8).reshape(h, w, 4)
    want = np.empty_like(src)
    for c in range(3):
        want[:, :, c] = ndimage.median_filter(src[:, :, c], size=k, mode="nearest")
    want[:, :, 3] = src[:, :, 3]
    bad = np.argwhere(np.any(want != ref, axis=2))
    if len(bad):
        y, x = bad[0]
        print(f"FAIL: {w}x{h} size {k}: {len(bad)} pixels differ from scipy, first at ({x}, {y}): "
              f"reference {ref[y, x]}, scipy {want[y, x]}")
        failed += 1
    else:
        print(f"ok: {w}x{h} size {k} equals scipy.ndimage.median_filter(mode='nearest')")
sys.exit(1 if failed else 0)
