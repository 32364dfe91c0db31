"""Shared fixtures of the Python module's tests.

Run from the repository root, against a build:
    PYTHONPATH=build/python python3 -m pytest tests/python
or against the source tree and a library elsewhere:
    PYTHONPATH=python FILTERVIEW_LIBRARY=/path/to/libfilterview.so.0 python3 -m pytest tests/python
"""

import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    import filterview  # noqa: F401
except ImportError as e:
    # no PYTHONPATH given: the source tree's package (it still needs the library: it says how)
    if "No module named" not in str(e):
        raise
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import filterview  # noqa: F401,E402


def pytest_runtest_logreport(report):
    """A failure is printed as it happens, not only in the summary: a run stopped by its time
    limit (a hung GPU test) still says what failed before it."""
    if report.failed:
        sys.stderr.write("\nFAILED %s (%s)\n%s\n" % (report.nodeid, report.when,
                                                      report.longreprtext[-3000:]))
        sys.stderr.flush()


def pytest_report_header(config):
    ok, why = filterview.device_available()
    return ["filterview %s from %s, library %s at %s; CUDA device: %s"
            % (filterview.__version__, os.path.dirname(filterview.__file__),
               filterview.library_version(), filterview.__library__, "yes" if ok else "no (%s)" % why)]


@pytest.fixture(scope="session")
def photo_rgb():
    """assets/astronaut.png as RGB (OpenCV reads BGR)."""
    cv2 = pytest.importorskip("cv2")
    bgr = cv2.imread(os.path.join(ROOT, "assets", "astronaut.png"), cv2.IMREAD_COLOR)
    assert bgr is not None, "cannot read assets/astronaut.png"
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


@pytest.fixture(scope="session")
def photo_rgba(photo_rgb):
    """The photo with a varied alpha channel (alpha must be kept)."""
    h, w = photo_rgb.shape[:2]
    alpha = ((np.arange(h)[:, None] * 7 + np.arange(w)[None, :] * 3) % 256).astype(np.uint8)
    return np.dstack([photo_rgb, alpha])


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def random_image(rng, h, w, channels):
    shape = (h, w) if channels == 1 else (h, w, channels)
    return rng.integers(0, 256, size=shape, dtype=np.uint8)
