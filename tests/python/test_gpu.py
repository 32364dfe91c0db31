"""The module on a CUDA device (every test here is skipped without one): every filter and every
GPU variant equals the reference ("cpu") within the filter's tolerance, where the expected image is
worked out outside the module (NumPy's box and invert, SciPy's median and Gaussian) that one,
which the reference must equal too; peers within their bound and, on the photo, nearer the
reference than any flat picture; CuPy arrays and PyTorch CUDA tensors in and out without host
copies (pointer identity in place), on the caller's stream."""

import numpy as np
import pytest

import filterview
from conftest import random_image

HAVE_DEVICE, WHY = filterview.device_available()
pytestmark = pytest.mark.skipif(not HAVE_DEVICE, reason="no CUDA device: %s" % WHY)

# The tolerances of kernels/*/: every GPU variant is bit-exact (tolerance {0, 0}) but conv's FFT
# variants (conv_fft_tolerance: 1 level, at most 3 % of the pixels or one pixel). Peers (NPP)
# state their own bound per pass in R, G and B, alpha exact (canny's: alpha alone).
TOLERANCE = {("conv", "fft"): (1, 0.03), ("conv", "fft_fast"): (1, 0.03),
             ("conv", "auto"): (1, 0.03)}
PEER_BOUND = {"box": 1, "gaussian": 2, "median": 0, "conv": 1, "canny": 255}

PARAMS = {
    "gaussian": [{}, {"sigma": 2.0}, {"sigma": 1.0, "radius": 5}, {"sigma": 8.0}],
    "invert": [{}, {"iterations": 3}],
    "box": [{}, {"radius": 8}, {"radius": 64}, {"radius": 2, "iterations": 2}],
    "median": [{}, {"size": 7}, {"size": 25}],
    "canny": [{}, {"sigma": 0, "norm": "l2"}, {"stage": "magnitude"},
              {"hysteresis": "one-pass"}, {"thresholds": "auto"}],
    "conv": [{}, {"shape": "disk", "radius": 7}, {"shape": "motion", "length": 31, "angle": 30}],
}


def gpu_cases():
    cases = []
    for name in filterview.filters():
        info = filterview.filter_info(name)
        for v in info.variants:
            if v.on_host:
                continue
            for params in PARAMS.get(name, [{}]):
                cases.append(pytest.param(name, v.name, v.role, params,
                                          id="%s-%s-%s" % (name, v.name, "-".join(
                                              "%s%s" % kv for kv in params.items()) or "default")))
    return cases


def within(got, want, max_abs, max_share, alpha_exact=True):
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
    if got.ndim == 3 and got.shape[2] == 4 and alpha_exact:
        assert not diff[:, :, 3].any(), "alpha differs"
    pixels = diff.reshape(got.shape[0], got.shape[1], -1).max(axis=2)
    n = pixels.size
    assert pixels.max() <= max_abs, "max |difference| %d > %d" % (pixels.max(), max_abs)
    allowed = max(max_share * n, 1 if max_share > 0 else 0)
    assert np.count_nonzero(pixels) <= allowed, \
        "%d of %d pixels differ, at most %g allowed" % (np.count_nonzero(pixels), n, allowed)


def run_or_skip_declined(fn):
    try:
        return fn()
    except filterview.ArgumentError as e:
        if e.status == filterview._lib.FV_ERR_UNSUPPORTED:
            pytest.skip("the variant declines this case: %s" % e)
        raise


@pytest.fixture(scope="module")
def images(photo_rgba):
    rng = np.random.default_rng(7)
    return [random_image(rng, 45, 67, 4), np.ascontiguousarray(photo_rgba[60:180, 150:310]),
            random_image(rng, 17, 31, 3), random_image(rng, 1, 13, 1)]


def outside_reference(name, img, params):
    """The expected image from outside the module where one is worked out in NumPy or SciPy
    (tests/python/test_module.py), else None."""
    from test_module import (box_reference, gaussian_reference, invert_reference,  # noqa: PLC0415
                             median_reference)
    iterations = params.get("iterations", 1)
    out = img
    for _ in range(iterations):
        if name == "box":
            out = box_reference(out, params.get("radius", 1))
        elif name == "invert":
            out = invert_reference(out)
        elif name == "median":
            out = median_reference(out, params.get("size", 3))
        elif name == "gaussian":  # the radius follows sigma unless given (0: auto)
            radius = params.get("radius", 0)
            out = gaussian_reference(out, params.get("sigma", 1.0), radius)[0]
        else:
            return None
    return out


def best_flat_distance(want):
    """Mean |difference| over R, G and B of the best flat picture (each channel's median)."""
    colour = want if want.ndim == 3 else want[:, :, None]
    colour = colour[:, :, :3].astype(np.float64)
    return float(np.abs(colour - np.median(colour, axis=(0, 1))).mean())


@pytest.mark.parametrize("name,variant,role,params", gpu_cases())
def test_gpu_variant_equals_reference(images, name, variant, role, params):
    for k, img in enumerate(images):
        want = filterview.apply(name, img, variant="cpu", **params)
        outside = outside_reference(name, img, params)
        if outside is not None:  # the expected values come from outside the module
            np.testing.assert_array_equal(want, outside)
            want = outside
        got = run_or_skip_declined(lambda: filterview.apply(name, img, variant=variant, **params))
        if role == "peer":
            bound = PEER_BOUND.get(name, 255) * params.get("iterations", 1)
            within(got, want, bound, 1.0, alpha_exact=True)
            if k == 1:  # the photo: whatever its bound, a peer shows the picture (not black)
                colour = got if got.ndim == 3 else got[:, :, None]
                far = float(np.abs(colour[:, :, :3].astype(np.float64) -
                                   (want if want.ndim == 3 else want[:, :, None])[:, :, :3]).mean())
                assert far < best_flat_distance(want), (far, best_flat_distance(want))
        else:
            max_abs, share = TOLERANCE.get((name, variant), (0, 0.0))
            within(got, want, max_abs, share)
        cupy = _cupy_or_none()
        if cupy is not None:  # the same from device memory
            got_d = filterview.apply(name, cupy.asarray(img), variant=variant, **params)
            assert isinstance(got_d, cupy.ndarray)
            np.testing.assert_array_equal(cupy.asnumpy(got_d), got)


def test_default_variant_is_the_fastest(rng):
    img = random_image(rng, 33, 20, 4)
    with filterview.Context("box", 20, 33, radius=3) as ctx:
        assert ctx.variant == filterview.filter_info("box").fastest
        assert ctx.device_bytes >= 0
        np.testing.assert_array_equal(ctx.run(img), filterview.box(img, radius=3, variant="cpu"))


def _cupy_or_none():
    try:
        import cupy
    except ImportError:
        return None
    return cupy


@pytest.fixture
def cupy():
    return pytest.importorskip("cupy")


def test_cupy_in_and_out(cupy, photo_rgba):
    host = np.ascontiguousarray(photo_rgba[:200, :300])
    want = filterview.box(host, radius=8, variant="cpu")
    a = cupy.asarray(host)
    got = filterview.box(a, radius=8)
    assert isinstance(got, cupy.ndarray) and got.shape == a.shape and got.dtype == cupy.uint8
    np.testing.assert_array_equal(cupy.asnumpy(got), want)

    ptr = a.data.ptr
    res = filterview.box(a, radius=8, out=a)
    assert res is a and a.data.ptr == ptr
    np.testing.assert_array_equal(cupy.asnumpy(a), want)

    out = cupy.zeros_like(a)
    assert filterview.box(cupy.asarray(host), radius=8, out=out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), want)

    # a window of a larger array: padded rows, read where it lies
    big = cupy.asarray(photo_rgba)
    view = big[10:90, 20:120]
    np.testing.assert_array_equal(
        cupy.asnumpy(filterview.invert(view)),
        filterview.invert(np.ascontiguousarray(photo_rgba[10:90, 20:120]), variant="cpu"))
    # pixels not side by side: a copy on the device
    np.testing.assert_array_equal(
        cupy.asnumpy(filterview.invert(big[::2, ::3])),
        filterview.invert(photo_rgba[::2, ::3], variant="cpu"))
    # host in, device out
    out = cupy.empty_like(a)
    filterview.box(host, radius=8, out=out)
    np.testing.assert_array_equal(cupy.asnumpy(out), want)


def test_cupy_on_the_callers_stream(cupy, rng):
    host = random_image(rng, 512, 640, 4)
    want = filterview.median(host, size=7, variant="cpu")
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        a = cupy.asarray(host)
        s.synchronize()
    got = filterview.median(a, size=7, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    with s:  # no stream=: the array's stream (__cuda_array_interface__ v3), CuPy's current one
        got = filterview.median(a, size=7)
        s.synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(got), want)
    got = filterview.median(a, size=7, stream=s.ptr)  # a raw handle
    s.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(got), want)


def test_numpy_on_device_one(cupy, rng):
    """device=1 with two GPUs: the context's memory is made on device 1, the result equals device
    0's, and device 0 stays current."""
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one CUDA device")
    img = random_image(rng, 300, 411, 3)
    filterview.clear_cache()
    want = filterview.median(img, size=7, device=0)
    with cupy.cuda.Device(1):
        cupy.cuda.runtime.deviceSynchronize()
        free_before = cupy.cuda.runtime.memGetInfo()[0]
    with filterview.Context("median", 411, 300, size=7, device=1) as ctx:
        with cupy.cuda.Device(1):
            free_after = cupy.cuda.runtime.memGetInfo()[0]
        assert free_before - free_after >= ctx.device_bytes > 0
        np.testing.assert_array_equal(ctx.run(img), want)
        assert cupy.cuda.runtime.getDevice() == 0
        with cupy.cuda.Device(1):
            on_one = cupy.asarray(img)
        np.testing.assert_array_equal(cupy.asnumpy(ctx.run(on_one)), want)
        with pytest.raises(ValueError, match="context is on CUDA device 1, the array on device 0"):
            ctx.run(cupy.asarray(img))
    np.testing.assert_array_equal(filterview.median(img, size=7, device=1), want)
    assert cupy.cuda.runtime.getDevice() == 0


def test_device_array_refuses_another_device(cupy, rng):
    a = cupy.asarray(random_image(rng, 20, 30, 1))
    np.testing.assert_array_equal(cupy.asnumpy(filterview.box(a, radius=2, device=0)),
                                  cupy.asnumpy(filterview.box(a, radius=2)))
    with pytest.raises(ValueError, match="lives on CUDA device 0 and device=1 asks for another"):
        filterview.box(a, radius=2, device=1)


def test_cupy_cpu_variant_is_refused(cupy):
    a = cupy.zeros((8, 8, 4), cupy.uint8)
    with pytest.raises(ValueError, match="host images only"):
        filterview.box(a, variant="cpu")


def test_compare_takes_device_arrays(cupy, rng):
    host = random_image(rng, 10, 10, 4)
    d = filterview.compare(cupy.asarray(host), host)
    assert d.max_abs == 0 and d.differing == 0


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device")
    return torch


def test_torch_in_and_out(torch, photo_rgba):
    host = np.ascontiguousarray(photo_rgba[:150, :170])
    want = filterview.box(host, radius=8, variant="cpu")
    t = torch.from_numpy(host.copy()).cuda()
    got = filterview.box(t, radius=8)
    assert isinstance(got, torch.Tensor) and got.is_cuda and got.dtype == torch.uint8
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    ptr = t.data_ptr()
    assert filterview.box(t, radius=8, out=t) is t and t.data_ptr() == ptr
    np.testing.assert_array_equal(t.cpu().numpy(), want)


def test_torch_on_the_callers_stream(torch, rng):
    host = random_image(rng, 300, 400, 3)
    want = filterview.gaussian(host, sigma=2.0, variant="cpu")
    t = torch.from_numpy(host).cuda()
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    got = filterview.gaussian(t, sigma=2.0, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    with torch.cuda.stream(s):  # no stream=: PyTorch's current stream
        got = filterview.gaussian(t, sigma=2.0)
    s.synchronize()
    np.testing.assert_array_equal(got.cpu().numpy(), want)


def test_contexts_outlive_the_callers_stream(cupy):
    """The cache keeps a context after its stream is gone (a CuPy stream is destroyed when it is
    collected); freeing it later (eviction, clear_cache, exit) must not touch that stream. In a
    child process: a crash there fails this test instead of ending the session."""
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import gc, cupy, numpy as np, filterview
        a = cupy.asarray(np.full((64, 48, 4), 9, np.uint8))
        for i in range(3):
            s = cupy.cuda.Stream(non_blocking=True)
            filterview.box(a, radius=2, stream=s)
            s.synchronize()
            del s
            gc.collect()
        cupy.cuda.runtime.deviceSynchronize()
        for r in range(3, 20):                  # evicts the contexts of the dead streams
            filterview.box(a, radius=r)
        filterview.clear_cache()
        print("ok")
    """)
    import os
    here = os.path.dirname(os.path.dirname(os.path.abspath(filterview.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    env.setdefault("FILTERVIEW_LIBRARY", filterview.__library__)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0 and "ok" in done.stdout, \
        "exit %d: %s" % (done.returncode, (done.stderr or done.stdout)[-2000:])
