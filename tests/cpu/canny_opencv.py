#!/usr/bin/python3
"""tests/cpu/canny_opencv.py CASES...: each case file (written by tests/cpu/test_canny_ref.c --opencv)
holds a header line "width height low high l2 sigma" (thresholds may be reals: both floor them),
then the source's RGBA8 bytes, the
reference's gray stage, its blur stage and its edge map (one byte a pixel; edges 0 or 255).
Checks that the gray stage equals cv2.cvtColor(RGBA2GRAY); that the blur stage is the gray image
itself with sigma 0, and otherwise equals the Gaussian's integer-weight blur worked out with scipy
and lies within its stated bound of scipy.ndimage.gaussian_filter (tests/cpu/gaussian_photos_scipy.py,
radius ceil(3 sigma)); and that the edge map equals cv2.Canny(blurred, low, high, L2gradient=l2)
pixel for pixel. Differences on the outermost rows and columns (border conventions) are counted
and reported apart; any difference inside fails. Exit 0 when all match, 1 on a mismatch, 77 when
cv2, numpy or scipy is missing (skipped)."""
import sys

try:
    import math
    import os

    import numpy as np
    import cv2

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gaussian_photos_scipy import blur as scipy_blur
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

if len(sys.argv) < 2:  # no case compared is no evidence
    print("FAIL: no case files given")
    sys.exit(1)

failed = 0
border_total = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        fields = f.readline().split()
        w, h, l2 = int(fields[0]), int(fields[1]), int(fields[4])
        low, high = float(fields[2]), float(fields[3])
        sigma = float(fields[5])
        src = np.frombuffer(f.read(w * h * 4), np.uint8).reshape(h, w, 4)
        gray = np.frombuffer(f.read(w * h), np.uint8).reshape(h, w)
        blurred = np.frombuffer(f.read(w * h), np.uint8).reshape(h, w)
        edges = np.frombuffer(f.read(w * h), np.uint8).reshape(h, w)
    name = f"{w}x{h} low {low} high {high} {'l2' if l2 else 'l1'} sigma {sigma:g}"
    want_gray = cv2.cvtColor(np.ascontiguousarray(src), cv2.COLOR_RGBA2GRAY)
    if not np.array_equal(want_gray, gray):
        print(f"FAIL: {name}: gray differs from cv2.cvtColor in {np.count_nonzero(want_gray != gray)} pixels")
        failed += 1
        continue
    if sigma == 0:
        want_blur, far, bound = gray, 0.0, 0.0
    else:
        r = math.ceil(3 * sigma - 1e-9)
        want_blur, true, bound = scipy_blur(gray, sigma, r)
        far = float(np.abs(blurred.astype(np.float64) - true).max())
    if not np.array_equal(want_blur, blurred) or far > bound:
        print(f"FAIL: {name}: the blur stage differs from the integer-weight blur in "
              f"{np.count_nonzero(want_blur != blurred)} pixels; {far:.3f} from "
              f"scipy.ndimage.gaussian_filter (bound {bound:.3f})")
        failed += 1
        continue
    want = cv2.Canny(blurred, low, high, L2gradient=bool(l2))
    diff = want != edges
    border = np.zeros_like(diff)
    border[0, :] = border[-1, :] = True
    border[:, 0] = border[:, -1] = True
    inside, at_border = np.count_nonzero(diff & ~border), np.count_nonzero(diff & border)
    border_total += at_border
    if inside:
        y, x = np.argwhere(diff & ~border)[0]
        print(f"FAIL: {name}: {inside} pixels inside differ from cv2.Canny, first at ({x}, {y}): "
              f"ours {edges[y, x]}, OpenCV {want[y, x]}")
        failed += 1
    else:
        print(f"ok: {name}: {np.count_nonzero(edges)} edge pixels, equal to cv2.Canny"
              + (f" except {at_border} on the border" if at_border else ""))
print(f"{len(sys.argv) - 1 - failed} of {len(sys.argv) - 1} cases agree with OpenCV {cv2.__version__}; "
      f"{border_total} border pixels differ in all")
sys.exit(1 if failed else 0)
