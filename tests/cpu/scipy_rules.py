"""tests/cpu/scipy_rules.py: what scipy.ndimage says each filter's output is, in the project's
rounding, for one channel. Shared by the reference checks (tests/cpu/*_scipy.py, on case files
the C tests write) and the module's GPU check (tests/python/test_gpu_scipy.py), so that both
hold the product to one reading of scipy.

Integer types: scipy sums in float64, and every partial sum here is a binary fraction float64
holds exactly, so the project's rounding applied to scipy's sum must match bit for bit. float32:
the reference sums in double and rounds once to float; the functions return that double sum,
and the caller states its tolerance.
"""
import math

import numpy as np
from scipy import ndimage

# filterview's border names -> scipy.ndimage's modes ('grid-wrap' is the true periodic wrap)
MODES = {"replicate": "nearest", "reflect": "reflect", "mirror": "mirror",
         "constant": "constant", "wrap": "grid-wrap"}
DTYPES = {"uint8": np.uint8, "uint16": np.uint16, "float32": np.float32}


def gaussian_taps(sigma, radius):
    """kernels/gaussian/gaussian_taps.c: 2 * radius + 1 integer taps, sum 256, symmetric, the
    missing units given to the largest remainders."""
    g = [math.exp(-k * k / (2.0 * sigma * sigma)) for k in range(radius + 1)]
    total = g[0] + 2.0 * sum(g[1:])
    e = [256.0 * v / total for v in g]
    w = [math.floor(v) for v in e]
    rem = [v - f for v, f in zip(e, w)]
    missing = 256 - (w[0] + 2 * sum(w[1:]))
    if missing % 2:
        w[0] += 1
        missing -= 1
    while missing >= 2:
        best = 0
        for k in range(1, radius + 1):
            if rem[k] >= 0.0 and (best == 0 or rem[k] > rem[best]):
                best = k
        if best == 0:
            w[0] += missing
            break
        w[best] += 1
        rem[best] = -1.0
        missing -= 2
    return np.array(w[:0:-1] + w, dtype=np.float64)


def gaussian_sum(x, sigma, radius, mode, cval):
    """The separable sum with the project's taps / 256 along rows then columns (float64); an
    integer output is floor(sum + 0.5)."""
    wt = gaussian_taps(sigma, radius) / 256.0
    s = ndimage.correlate1d(np.asarray(x, np.float64), wt, axis=0, mode=mode, cval=cval)
    return ndimage.correlate1d(s, wt, axis=1, mode=mode, cval=cval)


def box_expected(x, radius, mode, cval, integer):
    """Integers: the window's exact sum rounded (sum + area // 2) // area (scipy's own
    uniform_filter truncates its float mean, so the mean is taken apart); float: the mean."""
    size = 2 * radius + 1
    x = np.asarray(x, np.float64)
    if not integer:
        return ndimage.uniform_filter(x, size=size, mode=mode, cval=cval)
    ones = np.ones(size)
    s = ndimage.correlate1d(x, ones, axis=0, mode=mode, cval=cval)
    # past the edge the second pass sums a column of constants: size * cval
    s = ndimage.correlate1d(s, ones, axis=1, mode=mode, cval=size * cval)
    area = size * size
    return ((s.astype(np.int64) + area // 2) // area).astype(np.float64)


def conv_sum(x, weights, mode, cval):
    """scipy.ndimage.convolve with the integer weights (summing to 2^16), exact in float64; an
    integer output is clip(floor((S + 2^15) / 2^16)), a float32 one S / 2^16."""
    return ndimage.convolve(np.asarray(x, np.float64), weights, mode=mode, cval=cval)


def median_expected(x, size, mode, cval):
    """The median of an odd window is one of its values: exact in every type (no NaN)."""
    return ndimage.median_filter(x, size=size, mode=mode, cval=cval)
