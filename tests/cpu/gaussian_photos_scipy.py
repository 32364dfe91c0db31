#!/usr/bin/env python3
"""tests/cpu/gaussian_photos_scipy.py CASES...: each case file (written by tests/cpu/test_ref.c --scipy)
holds a header line "width height sigma radius", then the source's and the reference's RGBA8
bytes. Two checks on R, G and B, and alpha kept exactly:

- exact: the reference equals scipy.ndimage.correlate1d (mode 'nearest': replicated borders) with
  integer weights worked out here from their definition (kernels/gaussian/gaussian_taps.h: the
  exact 256 g_k / sum(g) rounded by largest remainder in symmetric pairs, summing to 256), down
  the columns then along the rows, then (sum + 32768) // 65536, value for value;
- near the true Gaussian: within BOUND of scipy.ndimage.gaussian_filter (mode 'nearest', the same
  window: truncate = radius / sigma) in floating point, where BOUND = 0.5 (the final rounding) +
  127.5 x the L1 distance between the 2-D integer weights / 65536 and the exact ones (two
  weightings that each sum to 1 differ on any image by at most half their L1 distance times the
  range 255). Integer weights of another sigma miss the first check and, on the photos, the
  second.
Exit 0 when all hold, 1 otherwise, 77 when numpy or scipy is missing (skipped)."""
import math
import sys

try:
    import numpy as np
    from scipy import ndimage
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)


def weights(sigma, r):
    """The integer weights of offsets -r..r and the exact ones they round (both summing to 256)."""
    g = np.exp(-np.arange(-r, r + 1, dtype=np.float64) ** 2 / (2 * sigma * sigma))
    exact = 256 * g / g.sum()
    w = np.floor(exact).astype(np.int64)
    missing = 256 - int(w.sum())
    if missing % 2:
        w[r] += 1
        missing -= 1
    rem = exact - np.floor(exact)
    for k in sorted(range(1, r + 1), key=lambda k: -rem[r + k]):  # stable: the nearer first
        if missing < 2:
            break
        w[r + k] += 1
        w[r - k] += 1
        missing -= 2
    w[r] += missing
    return w, exact


def blur(plane, sigma, r):
    """One plane (2-D uint8) blurred two ways: (the integer-weight result the references must
    equal, the exact Gaussian as floats, the bound between them)."""
    wi, exact = weights(sigma, r)
    bound = 0.5 + 127.5 * float(np.abs(np.outer(wi, wi) - np.outer(exact, exact)).sum()) / 65536
    f = plane.astype(np.float64)
    wf = wi.astype(np.float64)
    sums = ndimage.correlate1d(ndimage.correlate1d(f, wf, axis=0, mode="nearest"), wf, axis=1,
                               mode="nearest")
    true = ndimage.gaussian_filter(f, sigma, mode="nearest", truncate=r / sigma)
    return (sums.astype(np.int64) + 32768) // 65536, true, bound


def main():
    if len(sys.argv) < 2:  # no case compared is no evidence
        print("FAIL: no case files given")
        sys.exit(1)
    failed = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            fields = f.readline().split()
            w, h, sigma, r = int(fields[0]), int(fields[1]), float(fields[2]), int(fields[3])
            src = np.frombuffer(f.read(w * h * 4), np.uint8).reshape(h, w, 4)
            ref = np.frombuffer(f.read(w * h * 4), np.uint8).reshape(h, w, 4)
        name = f"{w}x{h} sigma {sigma:g} radius {r}"
        integer = np.empty((h, w, 3), np.int64)
        true = np.empty((h, w, 3))
        for c in range(3):
            integer[:, :, c], true[:, :, c], bound = blur(src[:, :, c], sigma, r)
        got = ref[:, :, :3].astype(np.int64)
        off = np.argwhere(got != integer)
        far = np.abs(got - true)
        if not np.array_equal(ref[:, :, 3], src[:, :, 3]):
            print(f"FAIL: {name}: alpha is not kept")
            failed += 1
        elif len(off):
            y, x, c = off[0]
            print(f"FAIL: {name}: {len(off)} values differ from scipy's correlation with the "
                  f"weights {list(weights(sigma, r)[0][r:])} (offsets 0..r), first at ({x}, {y}) "
                  f"channel {c}: reference {got[y, x, c]}, scipy {integer[y, x, c]}")
            failed += 1
        elif far.max() > bound:
            y, x, c = np.unravel_index(np.argmax(far), far.shape)
            print(f"FAIL: {name}: {far.max():.3f} from scipy.ndimage.gaussian_filter at ({x}, {y}) "
                  f"channel {c}, beyond the bound {bound:.3f}")
            failed += 1
        else:
            print(f"ok: {name}: equal to the integer-weight correlation; within {far.max():.3f} "
                  f"(bound {bound:.3f}) of the exact Gaussian, mean {far.mean():.4f}")
    print(f"{len(sys.argv) - 1 - failed} of {len(sys.argv) - 1} cases agree with scipy "
          f"{__import__('scipy').__version__}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
