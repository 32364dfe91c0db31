#!/usr/bin/env python3
"""tests/cpu/conv_scipy.py CASES...: each case file (written by tests/cpu/test_conv_ref.c --scipy)
holds a header line "width height type border cval kw kh", a line of the kernel's kw x kh integer
weights (summing to 2^16), then the source's and the reference's RGBA pixels of that type. Checks
the reference against scipy.ndimage.convolve (the true convolution, its centre at (kw // 2,
kh // 2) for even sizes too, as ours) on R, G and B with the border's scipy mode
(replicate 'nearest', reflect 'reflect', mirror 'mirror', constant 'constant' with cval, wrap
'grid-wrap'), and that alpha is kept.

scipy convolves with the integer weights in double: every product and sum is an integer below 2^33,
exact, so the integer types get the project's rounding applied to exact sums, floor((S + 2^15) /
2^16), and must match to the level. float32: S / 2^16 rounded to float, within 1e-6 (the two
sums add the same terms in another order). Exit 0 when all match, 1 on a mismatch, 77 when numpy
or scipy is missing (skipped)."""
import sys

try:
    import numpy as np
    from scipy_rules import DTYPES, MODES, conv_sum
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

if len(sys.argv) < 2:  # no case compared is no evidence
    print("FAIL: no case files given")
    sys.exit(1)

failed = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        head = f.readline().split()
        w, h = int(head[0]), int(head[1])
        tname, border, cval = head[2].decode(), head[3].decode(), float(head[4])
        kw, kh = int(head[5]), int(head[6])
        weights = np.array([int(v) for v in f.readline().split()], np.float64).reshape(kh, kw)
        dt = np.dtype(DTYPES[tname])
        n = w * h * 4
        src = np.frombuffer(f.read(n * dt.itemsize), dt).reshape(h, w, 4)
        ref = np.frombuffer(f.read(n * dt.itemsize), dt).reshape(h, w, 4)
    want = np.empty((h, w, 4), np.float64)
    for c in range(3):
        s = conv_sum(src[:, :, c], weights, MODES[border], cval)
        if tname == "float32":
            want[:, :, c] = (s / 65536.0).astype(np.float32)
        else:
            want[:, :, c] = np.clip(np.floor((s + 32768.0) / 65536.0), 0, np.iinfo(dt).max)
    want[:, :, 3] = src[:, :, 3]
    got = ref.astype(np.float64)
    tol = 1e-6 if tname == "float32" else 0.0
    err = np.abs(got - want)
    what = f"{w}x{h} {tname} {border} kernel {kw}x{kh}"
    if err.max() > tol:
        y, x, c = np.unravel_index(np.argmax(err), err.shape)
        print(f"FAIL: {what}: differs from scipy by {err.max():g} at ({x}, {y}) channel {c}: "
              f"reference {got[y, x]}, scipy {want[y, x]}")
        failed += 1
    else:
        print(f"ok: {what} equals scipy.ndimage.convolve(mode='{MODES[border]}')")
sys.exit(1 if failed else 0)
