#!/usr/bin/env python3
"""tests/cpu/median_scipy.py CASES...: each case file (written by tests/cpu/test_median_ref.c) holds a
header line "width height size type border cval" (type a NumPy dtype name: uint8, uint16,
float32; border one of filterview's names), then the source's and the reference's RGBA pixels of
that type. A case without NaN is checked against scipy.ndimage.median_filter on R, G and B with
the border's scipy mode (replicate 'nearest', reflect 'reflect', mirror 'mirror', constant
'constant' with cval, wrap 'grid-wrap'); the median of an odd count is one of the values, so
the comparison is exact in every type (float32: -0 equals +0, as NumPy compares). A case with
NaN is checked against sorting each window with numpy.sort, which puts NaN last, as the
reference does: scipy's own selection compares with <, which NaN fails, so where NaN lands there
depends on its place in the window. So is a reflect case whose window reaches 4 image widths or
heights past the edge (along a side longer than 1): scipy's rank filters (1.10 at least) fold
'reflect' wrongly that far out (their 1-D extension, numpy.pad and filterview agree). Alpha must be the source's, bit for bit. Exit 0 when all
match, 1 on a mismatch, 77 when numpy or scipy is missing (skipped)."""
import sys

try:
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view
    from scipy import ndimage
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

SCIPY_MODE = {"replicate": "nearest", "reflect": "reflect", "mirror": "mirror",
              "constant": "constant", "wrap": "grid-wrap"}
# numpy.pad's names for the same extensions (reflect and mirror swap names; a pad wider than the
# image repeats periodically, as scipy's modes do, and a single pixel mirrors onto itself)
NUMPY_PAD = {"replicate": "edge", "reflect": "symmetric", "mirror": "reflect",
             "constant": "constant", "wrap": "wrap"}


def sorted_median(channel, k, border, cval):
    r = k // 2
    extra = {"constant_values": cval} if border == "constant" else {}
    padded = np.pad(channel, r, mode=NUMPY_PAD[border], **extra)
    windows = sliding_window_view(padded, (k, k)).reshape(channel.shape + (k * k,))
    return np.sort(windows, axis=-1)[..., (k * k - 1) // 2]


if len(sys.argv) < 2:  # no case compared is no evidence
    print("FAIL: no case files given")
    sys.exit(1)

failed = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        fields = f.readline().split()
        w, h, k = (int(v) for v in fields[:3])
        dtype, border, cval = np.dtype(fields[3].decode()), fields[4].decode(), float(fields[5])
        n = w * h * 4 * dtype.itemsize
        src = np.frombuffer(f.read(n), dtype).reshape(h, w, 4)
        ref = np.frombuffer(f.read(n), dtype).reshape(h, w, 4)
    has_nan = bool(np.isnan(src[:, :, :3]).any()) if dtype.kind == "f" else False
    far_reflect = border == "reflect" and any(1 < n <= k // 2 // 4 for n in (w, h))
    want = np.empty_like(src)
    if has_nan:
        oracle = "numpy.sort (NaN last)"
    elif far_reflect:
        oracle = "numpy.sort (scipy's far reflect is off)"
    else:
        oracle = f"scipy mode '{SCIPY_MODE[border]}'"
    for c in range(3):
        if has_nan or far_reflect:
            want[:, :, c] = sorted_median(src[:, :, c], k, border, cval)
        else:
            want[:, :, c] = ndimage.median_filter(src[:, :, c], size=k, mode=SCIPY_MODE[border],
                                                  cval=cval)
    want[:, :, 3] = src[:, :, 3]
    same = want[:, :, :3] == ref[:, :, :3]
    if dtype.kind == "f":
        same |= np.isnan(want[:, :, :3]) & np.isnan(ref[:, :, :3])
    alpha_same = want[:, :, 3].view(f"u{dtype.itemsize}") == ref[:, :, 3].view(f"u{dtype.itemsize}")
    bad = np.argwhere(~(np.all(same, axis=2) & alpha_same))
    what = f"{w}x{h} {dtype} size {k} border {border}" + (f" cval {cval:g}" if border == "constant" else "")
    if len(bad):
        y, x = bad[0]
        print(f"FAIL: {what}: {len(bad)} pixels differ from {oracle}, first at ({x}, {y}): "
              f"reference {ref[y, x]}, expected {want[y, x]}")
        failed += 1
    else:
        print(f"ok: {what} equals {oracle}")
sys.exit(1 if failed else 0)
