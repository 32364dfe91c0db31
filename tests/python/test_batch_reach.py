"""Batches, reach and pixel types through the module.

- apply_batch / Context.run_batch: a stack (N x H x W [x C]) and a list of images of different
  sizes with per-image parameters equal N single calls bit for bit; the reference everywhere, and
  every filter's fastest GPU variant on host and device stacks where there is a device, its
  batches run as CUDA graphs equal to them run without (FILTERVIEW_BATCH_GRAPHS=0).
- reach: a tile cut from the image with a halo of `reach` pixels, filtered alone, equals the
  whole image's result inside the tile (checked with the reference, every filter, several
  parameter sets; an off-by-one reach fails it).
- dtypes: uint16 and float32 arrays go in and come out in their type; a variant that does not
  run a type says which it runs; other dtypes, masked arrays and a dtype mismatch with out= are
  refused with the types named.
"""

import numpy as np
import pytest

import filterview

HAVE_DEVICE, WHY = filterview.device_available()
CPU = "cpu"

# parameter sets whose reach is bounded, per filter (keywords as the module takes them)
REACH_CASES = [
    ("invert", {}),
    ("box", {"radius": 1}), ("box", {"radius": 4}), ("box", {"radius": 2, "iterations": 2}),
    ("gaussian", {}), ("gaussian", {"sigma": 2.0}), ("gaussian", {"sigma": 1.0, "radius": 5}),
    ("median", {"size": 3}), ("median", {"size": 7}),
    ("conv", {"shape": "disk", "radius": 3}), ("conv", {"shape": "motion", "length": 9, "angle": 30}),
    ("canny", {"hysteresis": "one-pass"}), ("canny", {"stage": "nms", "sigma": 1.0}),
    ("canny", {"stage": "blur"}),
]


def rng_image(rng, shape, dtype=np.uint8):
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32)
    return rng.integers(0, np.iinfo(dtype).max + 1, size=shape, dtype=dtype)


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy % 2**32
    print("seed", seed)
    return np.random.default_rng(seed)


# ---- reach ----

def test_reach_values():
    assert filterview.reach("invert") == 0
    assert filterview.reach("box", radius=5) == 5
    assert filterview.reach("box", radius=5, iterations=3) == 15
    # taps to ceil(3 sigma) = 6, but the weight at 6 rounds to 0 of 256: the last that reads is 5
    assert filterview.reach("gaussian", sigma=2.0) == 5
    assert filterview.reach("gaussian", sigma=2.0, radius=3) == 3
    assert filterview.reach("median", size=7) == 3
    assert filterview.reach("canny") is None  # full hysteresis
    assert filterview.reach("canny", thresholds="auto", hysteresis="one-pass") is None
    assert filterview.reach("conv", stage="kernel") is None
    with pytest.raises(ValueError):
        filterview.reach("box", radius=500)


@pytest.mark.parametrize("name,params", REACH_CASES)
def test_reach_is_enough_and_tight(rng, name, params):
    """A tile with a halo of `reach` gives the whole image's pixels; one pixel less does not
    (for filters whose reach is above 0, on random images some pixel must change)."""
    reach = filterview.reach(name, **params)
    assert reach is not None
    img = rng_image(rng, (41, 53, 3))
    whole = filterview.apply(name, img, variant=CPU, **params)
    y0, y1, x0, x1 = 17, 29, 19, 37  # a tile well inside

    def tile(halo):
        sub = img[y0 - halo:y1 + halo, x0 - halo:x1 + halo]
        out = filterview.apply(name, sub, variant=CPU, **params)
        return out[halo:halo + (y1 - y0), halo:halo + (x1 - x0)]

    assert np.array_equal(tile(reach), whole[y0:y1, x0:x1]), "%s %s reach %d" % (name, params,
                                                                               reach)
    if reach > 0 and name != "canny":  # Canny's edges can agree by chance on a small tile
        assert not np.array_equal(tile(reach - 1), whole[y0:y1, x0:x1]), \
            "%s %s: reach %d is not tight" % (name, params, reach)


# ---- batches ----

@pytest.mark.parametrize("shape", [(4, 9, 11), (3, 17, 13, 3), (2, 5, 7, 4), (1, 1, 1), (6, 1, 23)])
def test_stack_equals_single_calls(rng, shape):
    stack = rng_image(rng, shape)
    for name, params in (("box", {"radius": 2}), ("median", {"size": 3}), ("gaussian", {})):
        got = filterview.apply_batch(name, stack, variant=CPU, **params)
        assert got.shape == stack.shape and got.dtype == stack.dtype
        for i in range(shape[0]):
            want = filterview.apply(name, stack[i], variant=CPU, **params)
            assert np.array_equal(got[i], want), "%s image %d" % (name, i)


def test_stack_out_and_errors(rng):
    stack = rng_image(rng, (3, 8, 9, 3))
    out = np.zeros_like(stack)
    ctx = filterview.Context("box", 9, 8, variant=CPU, radius=1)
    assert ctx.run_batch(stack, out=out) is out
    assert np.array_equal(out[2], filterview.box(stack[2], radius=1, variant=CPU))
    with pytest.raises(ValueError, match="images up to 9x8"):
        ctx.run_batch(rng_image(rng, (2, 9, 8, 3)))
    # a smaller stack: the context serves any size up to its own
    small = rng_image(rng, (2, 5, 7, 3))
    got = ctx.run_batch(small)
    for i in range(2):
        assert np.array_equal(got[i], filterview.box(small[i], radius=1, variant=CPU))
    with pytest.raises(ValueError, match="stack"):
        ctx.run_batch(rng_image(rng, (8, 9)))
    with pytest.raises(ValueError, match="same shape"):
        ctx.run_batch(stack, out=np.zeros((2, 8, 9, 3), np.uint8))
    ctx.close()


def test_list_of_sizes_with_parameters_each(rng):
    images = [rng_image(rng, (7, 5)), rng_image(rng, (12, 31, 3)), rng_image(rng, (2, 2, 4))]
    got = filterview.apply_batch("box", images, radius=[1, 3, 2], variant=CPU)
    for img, r, g in zip(images, [1, 3, 2], got):
        assert np.array_equal(g, filterview.box(img, radius=r, variant=CPU))
    with pytest.raises(ValueError, match="2 values for 3 images"):
        filterview.apply_batch("box", images, radius=[1, 2], variant=CPU)


@pytest.mark.skipif(not HAVE_DEVICE, reason="no CUDA device")
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_gpu_host_stack_equals_single_calls(rng, dtype, channels):
    shape = (5, 67, 129) if channels == 1 else (5, 67, 129, channels)
    stack = rng_image(rng, shape, dtype)
    for name in filterview.filters():
        if not filterview.filter_info(name).variants:
            continue
        try:
            got = filterview.apply_batch(name, stack)
        except ValueError as e:  # the fastest variant does not run this type yet: it says so
            assert "runs" in str(e)
            continue
        for i in range(shape[0]):
            want = filterview.apply(name, stack[i])
            assert np.array_equal(got[i], want, equal_nan=dtype == np.float32), \
                "%s %s x%d image %d" % (name, np.dtype(dtype).name, channels, i)


@pytest.mark.skipif(not HAVE_DEVICE, reason="no CUDA device")
@pytest.mark.parametrize("shape", [(70, 200, 300, 3), (300, 128, 160), (3, 2000, 3000)])
def test_gpu_host_stack_of_many_groups(rng, shape):
    """More images than a group of the pipeline holds (16 MiB of RGBA), so that both slots take
    turns and the last group is short; in place too."""
    stack = rng_image(rng, shape)
    want = [filterview.median(stack[i], size=5) for i in range(shape[0])]
    got = filterview.apply_batch("median", stack, size=5)
    for i in range(shape[0]):
        assert np.array_equal(got[i], want[i]), "image %d of %s" % (i, shape)
    filterview.apply_batch("median", stack, size=5, out=stack)
    for i in range(shape[0]):
        assert np.array_equal(stack[i], want[i]), "in place, image %d of %s" % (i, shape)


@pytest.mark.skipif(not HAVE_DEVICE, reason="no CUDA device")
def test_gpu_device_stack_equals_single_calls(rng):
    cupy = pytest.importorskip("cupy")
    stack = rng_image(rng, (6, 64, 96, 4))
    d = cupy.asarray(stack)
    for name in ("box", "gaussian", "median"):
        got = filterview.apply_batch(name, d)
        assert isinstance(got, cupy.ndarray)
        for i in range(stack.shape[0]):
            assert np.array_equal(cupy.asnumpy(got[i]), filterview.apply(name, stack[i])), name


def _batches(name, stacks, graphs, monkeypatch, calls=2):
    """Each stack through one Context of `name`'s fastest variant, `calls` times, its batches
    taking FILTERVIEW_BATCH_GRAPHS=graphs (None: unset, graphs on), which its first batch reads."""
    if graphs is None:
        monkeypatch.delenv("FILTERVIEW_BATCH_GRAPHS", raising=False)
    else:
        monkeypatch.setenv("FILTERVIEW_BATCH_GRAPHS", graphs)
    height, width = stacks[0].shape[1:3]
    results = []
    with filterview.Context(name, width, height) as ctx:
        for _ in range(calls):
            results.append([ctx.run_batch(s) for s in stacks])
    monkeypatch.delenv("FILTERVIEW_BATCH_GRAPHS", raising=False)
    return results


@pytest.mark.skipif(not HAVE_DEVICE, reason="no CUDA device")
def test_gpu_batch_graphs_equal_direct_launches(rng, monkeypatch):
    """Every filter's fastest variant: a batch's runs replayed as CUDA graphs (the default) equal
    them launched one by one (FILTERVIEW_BATCH_GRAPHS=0), bit for bit, on the first call (graphs
    captured) and the next (launched again, or updated where the addresses are the caller's).
    Host stacks of more images than a group holds (both slots, a short last group), and device
    stacks of gray (the context's buffers) and RGBA images (the caller's) where CuPy is."""
    stacks = [rng_image(rng, (40, 300, 400)), rng_image(rng, (7, 300, 400, 3))]
    try:
        import cupy
        stacks += [cupy.asarray(rng_image(rng, (9, 300, 400))),
                   cupy.asarray(rng_image(rng, (9, 300, 400, 4)))]
    except ImportError:
        cupy = None
    as_host = cupy.asnumpy if cupy is not None else np.asarray
    names = [n for n in filterview.filters() if filterview.filter_info(n).variants]
    assert names
    for name in names:
        direct = _batches(name, stacks, "0", monkeypatch)
        graphs = _batches(name, stacks, None, monkeypatch)
        for call in range(2):
            for k, (a, b) in enumerate(zip(direct[call], graphs[call])):
                assert np.array_equal(as_host(a), as_host(b)), \
                    "%s: stack %d, call %d: graphs differ from direct launches" % (name, k, call)


# ---- pixel types ----

@pytest.mark.parametrize("dtype", [np.uint16, np.float32])
def test_types_kept_or_refused_with_the_types_named(rng, dtype):
    img = rng_image(rng, (9, 10), dtype)
    for name in filterview.filters():
        try:
            out = filterview.apply(name, img, variant=CPU)
        except ValueError as e:
            assert "runs" in str(e) and "not %s" % np.dtype(dtype).name in str(e), str(e)
            continue
        assert out.dtype == img.dtype and out.shape == img.shape, name


def test_other_dtypes_refused(rng):
    img = rng_image(rng, (6, 7))
    for bad in (np.int16, np.float64, np.int32, np.bool_):
        with pytest.raises(TypeError, match="uint8, uint16 or float32"):
            filterview.box(img.astype(bad), variant=CPU)
    with pytest.raises(TypeError, match="masked"):
        filterview.box(np.ma.masked_array(img, mask=img > 100), variant=CPU)
    with pytest.raises(TypeError, match="dtype uint8"):
        filterview.box(img, variant=CPU, out=np.zeros(img.shape, np.uint16))
    with pytest.raises(TypeError, match="uint8, uint16 or float32"):
        filterview.box(img.astype(">u2"), variant=CPU)


def test_compare_in_the_images_units():
    a = np.zeros((2, 3), np.float32)
    b = a.copy()
    b[1, 2] = 0.125
    d = filterview.compare(a, b)
    assert d.max_abs_value == 0.125 and d.differing == 1 and d.max_abs == 1
    a[0, 0] = b[0, 0] = np.nan
    assert filterview.compare(a, b).differing == 1  # NaN equals NaN
    b[0, 0] = 1.0
    assert filterview.compare(a, b).max_abs_value == np.inf
    u = np.array([[0, 65535]], np.uint16)
    assert filterview.compare(u, u[:, ::-1].copy()).max_abs == 65535
