#!/usr/bin/env python3
"""tests/cpu/gaussian_scipy.py CASES...: each case file (written by tests/cpu/test_gaussian_types.c)
holds a header line "width height type sigma radius border cval", then the source's and the
reference's RGBA rows of that type (uint8, uint16 or float32). For each it checks, on R, G and B:

- the reference against scipy.ndimage.correlate1d along rows and then columns, in float64, with
  the project's integer taps / 256 (the same taps, rebuilt here from sigma and radius by the same
  largest-remainder rule) and the border's scipy mode. Integer outputs: every partial sum is a
  binary fraction float64 holds exactly, so scipy's value is S / 65536 exactly and
  floor(value + 0.5) must equal the reference bit for bit. float32: within 1e-6 (the reference
  sums in double, rounds once to float; values in 0..1).
- the float32 reference against scipy.ndimage.gaussian_filter(sigma, truncate=radius/sigma,
  same mode) within 2 D (D = sum of |tap/256 - scipy's weight|: what rounding the taps to
  integers may move a 2-D sum of values in 0..1, see docs/design/gaussian.md).
- alpha kept.
Exit 0 when all match, 1 on a mismatch, 77 when numpy or scipy is missing (skipped)."""
import sys

try:
    import numpy as np
    from scipy import ndimage
    from scipy_rules import DTYPES, MODES, gaussian_sum, gaussian_taps
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

if len(sys.argv) < 2:  # no case compared is no evidence
    print("FAIL: no case files given")
    sys.exit(1)

failed = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        fields = f.readline().split()
        w, h, type_name = int(fields[0]), int(fields[1]), fields[2].decode()
        sigma, radius = float(fields[3]), int(fields[4])
        border, cval = fields[5].decode(), float(fields[6])
        dtype = DTYPES[type_name]
        n = w * h * 4
        src = np.frombuffer(f.read(n * np.dtype(dtype).itemsize), dtype).reshape(h, w, 4)
        ref = np.frombuffer(f.read(n * np.dtype(dtype).itemsize), dtype).reshape(h, w, 4)
    mode = MODES[border]
    wt = gaussian_taps(sigma, radius) / 256.0
    name = f"{w}x{h} {type_name} sigma {sigma:g} radius {radius} {border}"
    ok = True
    for c in range(3):
        x = src[:, :, c].astype(np.float64)
        s = gaussian_sum(x, sigma, radius, mode, cval)
        got = ref[:, :, c].astype(np.float64)
        if dtype == np.float32:
            err = np.max(np.abs(got - s))
            exact = err <= 1e-6
            # the taps' quantisation: 1-D weights against scipy's own Gaussian of that radius
            g = ndimage.gaussian_filter(x, sigma, truncate=radius / sigma, mode=mode, cval=cval)
            k = np.exp(-np.arange(-radius, radius + 1) ** 2 / (2 * sigma * sigma))
            bound = 2 * np.sum(np.abs(wt - k / k.sum())) * max(1.0, abs(cval)) + 1e-6
            near = np.max(np.abs(got - g)) <= bound
            if not near:
                print(f"FAIL: {name} channel {c}: {np.max(np.abs(got - g)):.3g} from "
                      f"gaussian_filter, above the taps' bound {bound:.3g}")
        else:
            want = np.floor(s + 0.5)
            err = np.max(np.abs(got - want))
            exact, near = err == 0, True
        if not exact:
            want = s if dtype == np.float32 else np.floor(s + 0.5)
            y, xx = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
            print(f"FAIL: {name} channel {c}: reference {got[y, xx]!r}, scipy {s[y, xx]!r} "
                  f"at ({xx}, {y}), largest difference {err:.3g}")
        ok = ok and exact and near
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[np.dtype(dtype).itemsize]  # NaN == NaN
    if not np.array_equal(src[:, :, 3].view(bits), ref[:, :, 3].view(bits)):
        print(f"FAIL: {name}: alpha changed")
        ok = False
    if ok:
        print(f"ok: {name} equals scipy.ndimage.correlate1d ({mode})")
    else:
        failed += 1
sys.exit(1 if failed else 0)
