"""Every filter x pixel type x border through the module on a CUDA device, held to scipy.ndimage
(skipped without a device). A gray image of awkward size (61 x 37: no block divides it) and an
RGB one, uint8, uint16 and float32, the five borders (constant with a value of its own), run by
the default variant (the fastest GPU one):

- box, Gaussian, median and invert against scipy.ndimage read the project's way
  (tests/cpu/scipy_rules.py, the rules the reference checks use too): integer types bit for bit,
  float32 within 1e-5 of scipy's double (the GPU sums in float: a few units of float's last
  place on values in 0..1);
- conv and Canny against the module's plain-C reference ("cpu"), bit for bit (conv by its exact
  direct variant, and `auto` within its stated tolerance), the reference being held to
  scipy.ndimage.convolve and to scipy's Canny stages in every type and border by the CPU tests
  (conv_scipy, canny_scipy).
"""
import os
import sys

import numpy as np
import pytest

import filterview

HAVE_DEVICE, WHY = filterview.device_available()
pytestmark = pytest.mark.skipif(not HAVE_DEVICE, reason="no CUDA device: %s" % WHY)
ndimage = pytest.importorskip("scipy.ndimage")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cpu"))
import scipy_rules  # noqa: E402

BORDERS = ["replicate", "reflect", "mirror", "constant", "wrap"]
DTYPES = [np.uint8, np.uint16, np.float32]
SHAPES = [(37, 61), (23, 29, 3)]
FLOAT_ABS = 1.1e-5  # the variants' own (box 4e-6, Gaussian 1e-5) and the float rounding of a sum


def random_image(rng, shape, dtype):
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32)
    return rng.integers(0, np.iinfo(dtype).max, size=shape, dtype=dtype, endpoint=True)


def border_kwargs(border, dtype):
    """constant with a value inside the type's range and away from 0, so a case that ignored
    cval would fail"""
    if border != "constant":
        return {"border": border}
    return {"border": border, "cval": 0.75 if dtype == np.float32 else int(np.iinfo(dtype).max) // 3}


def per_channel(image, fn):
    if image.ndim == 2:
        return fn(image)
    return np.stack([fn(image[:, :, c]) for c in range(image.shape[2])], axis=2)


def expected(name, image, dtype, border, cval):
    mode = scipy_rules.MODES[border]
    integer = dtype != np.float32
    if name == "box":
        return per_channel(image, lambda x: scipy_rules.box_expected(x, 3, mode, cval, integer))
    if name == "gaussian":
        radius = filterview.reach("gaussian", sigma=2.0)
        s = per_channel(image, lambda x: scipy_rules.gaussian_sum(x, 2.0, radius, mode, cval))
        return np.floor(s + 0.5) if integer else s
    if name == "median":
        return per_channel(image, lambda x: scipy_rules.median_expected(x, 5, mode, cval))
    if name == "invert":
        top = np.iinfo(dtype).max if integer else 1.0
        return top - image.astype(np.float64)
    raise AssertionError(name)


SCIPY_PARAMS = {"box": {"radius": 3}, "gaussian": {"sigma": 2.0}, "median": {"size": 5},
                "invert": {}}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("name", sorted(SCIPY_PARAMS))
def test_gpu_equals_scipy(rng, name, border, dtype, shape):
    image = random_image(rng, shape, dtype)
    kwargs = dict(SCIPY_PARAMS[name])
    if name != "invert":  # invert reads no neighbour: it has no border
        kwargs.update(border_kwargs(border, dtype))
    elif border != "replicate":
        pytest.skip("invert has no border")
    got = getattr(filterview, name)(image, **kwargs)
    assert got.dtype == image.dtype and got.shape == image.shape
    want = expected(name, image, dtype, kwargs.get("border", "replicate"), kwargs.get("cval", 0.0))
    err = np.abs(got.astype(np.float64) - want)
    limit = FLOAT_ABS if dtype == np.float32 else 0
    y, x = np.unravel_index(np.argmax(err), err.shape)[:2]
    assert err.max() <= limit, (
        f"{name} {np.dtype(dtype).name} {border}: {err.max():.3g} from scipy (allowed {limit}) "
        f"at ({x}, {y}): ours {got[y, x]!r}, scipy {want[y, x]!r}")


REFERENCE_CASES = [("conv", "direct_smem", {"shape": "disk", "radius": 4}, 0),
                   ("conv", "auto", {"shape": "gaussian", "sigma": 2.0}, 1),
                   ("canny", None, {"low": 20, "high": 60}, 0),
                   ("canny", None, {"stage": "magnitude", "norm": "l2"}, 0)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("case", REFERENCE_CASES, ids=lambda c: "%s-%s-%d" % (c[0], c[1], len(c[2])))
def test_gpu_equals_reference(rng, case, border, dtype, shape):
    name, variant, params, levels = case
    image = random_image(rng, shape, dtype)
    if name == "canny" and dtype != np.uint8 and "low" in params:
        # thresholds are in the image's units: scale them to the type's range
        scale = 1.0 / 255 if dtype == np.float32 else 257
        params = dict(params, low=params["low"] * scale, high=params["high"] * scale)
    kwargs = dict(params, **border_kwargs(border, dtype))
    fn = getattr(filterview, name)
    try:
        got = fn(image, variant=variant, **kwargs)
    except filterview.Error as e:
        if "runs" in str(e):  # a variant that declares it does not run this border or type
            pytest.skip(str(e))
        raise
    want = fn(image, variant="cpu", **kwargs)
    assert got.shape == want.shape and got.dtype == want.dtype
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    limit = (2e-4 if levels else 0) if dtype == np.float32 else levels
    assert np.nanmax(diff, initial=0) <= limit, (
        f"{name}/{variant} {np.dtype(dtype).name} {border}: {np.nanmax(diff):.3g} from the reference")
    assert np.array_equal(np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64)))
