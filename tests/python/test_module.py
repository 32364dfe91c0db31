"""The Python module against the field's references, with the plain-C reference (variant="cpu"):
no GPU needed. Canny against cv2.Canny, the median against scipy.ndimage.median_filter, the
Gaussian against SciPy (its integer weights exactly, the exact Gaussian within a bound), the box
filter against an integer NumPy reference, invert against 255 - x, compare against NumPy's
counts, the bench's time growing with the image; every shape, awkward sizes, strided inputs,
out= and in place; the errors; the registry against the command line's --list."""

import inspect
import math
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import filterview
from conftest import random_image

CPU = "cpu"
HAVE_DEVICE = filterview.device_available()[0]
# a build without CUDA (-DFV_CUDA=OFF) has the reference variants alone
CUDA_BUILD = filterview.filter_info("box").fastest is not None


# ---- references -------------------------------------------------------------------------------

def colour_alpha(img):
    """(the channels a filter changes, alpha or None) as int arrays of 3 dimensions."""
    a = img if img.ndim == 3 else img[:, :, None]
    if a.shape[2] == 4:
        return a[:, :, :3], a[:, :, 3:]
    return a, None


def with_alpha(colour, alpha, like):
    out = colour if alpha is None else np.concatenate([colour, alpha], axis=2)
    return out.astype(np.uint8).reshape(like.shape)


def box_reference(img, r):
    """kernels/box/box_ref.c in NumPy: replicated borders, (sum + area / 2) / area in integers,
    alpha kept."""
    colour, alpha = colour_alpha(img)
    k = 2 * r + 1
    p = np.pad(colour.astype(np.int64), ((r, r), (r, r), (0, 0)), mode="edge")
    s = np.zeros((p.shape[0] + 1, p.shape[1] + 1, p.shape[2]), np.int64)
    s[1:, 1:] = p.cumsum(0).cumsum(1)
    total = s[k:, k:] - s[:-k, k:] - s[k:, :-k] + s[:-k, :-k]
    area = k * k
    return with_alpha((total + area // 2) // area, alpha, img)


def median_reference(img, size):
    """scipy.ndimage.median_filter per channel with replicated borders (mode "nearest")."""
    ndimage = pytest.importorskip("scipy.ndimage")
    colour, alpha = colour_alpha(img)
    return with_alpha(ndimage.median_filter(colour, size=(size, size, 1), mode="nearest"), alpha,
                      img)


def invert_reference(img):
    colour, alpha = colour_alpha(img)
    return with_alpha(255 - colour.astype(np.int64), alpha, img)


def assert_same(got, want, what=""):
    assert got.shape == want.shape and got.dtype == np.uint8, (got.shape, got.dtype, want.shape)
    diff = got.astype(np.int16) - want.astype(np.int16)
    bad = np.argwhere(diff != 0)
    assert len(bad) == 0, "%s: %d values differ, first at %s: got %s, want %s" % (
        what, len(bad), tuple(bad[0]), got[tuple(bad[0])], want[tuple(bad[0])])


SHAPES = [(1, 1), (1, 7), (7, 1), (13, 1), (1, 13), (31, 17), (17, 31), (64, 48)]
CHANNELS = [1, 3, 4]


# ---- the filters against references, every shape --------------------------------------------------

@pytest.mark.parametrize("channels", CHANNELS)
@pytest.mark.parametrize("h,w", SHAPES)
def test_box_equals_integer_reference(rng, h, w, channels):
    img = random_image(rng, h, w, channels)
    for r in (1, 3, 20):
        assert_same(filterview.box(img, radius=r, variant=CPU), box_reference(img, r),
                    "box r=%d %dx%dx%d" % (r, w, h, channels))


@pytest.mark.parametrize("channels", CHANNELS)
@pytest.mark.parametrize("h,w", SHAPES)
def test_median_equals_scipy(rng, h, w, channels):
    img = random_image(rng, h, w, channels)
    for size in (3, 5, 9):
        assert_same(filterview.median(img, size=size, variant=CPU), median_reference(img, size),
                    "median %d %dx%dx%d" % (size, w, h, channels))


@pytest.mark.parametrize("channels", CHANNELS)
@pytest.mark.parametrize("h,w", SHAPES)
def test_invert_is_255_minus_x(rng, h, w, channels):
    img = random_image(rng, h, w, channels)
    got = filterview.invert(img, variant=CPU)
    assert_same(got, invert_reference(img))
    if channels == 4:
        assert_same(got[:, :, 3], img[:, :, 3], "alpha kept")
    assert_same(filterview.invert(img, variant=CPU, iterations=2), img, "invert twice")


def test_box_and_median_on_the_photo(photo_rgba):
    crop = np.ascontiguousarray(photo_rgba[100:196, 200:280])
    assert_same(filterview.box(crop, radius=64, variant=CPU), box_reference(crop, 64), "box 64")
    assert_same(filterview.median(crop, size=25, variant=CPU), median_reference(crop, 25),
                "median 25")
    twice = box_reference(box_reference(crop, 2), 2)
    assert_same(filterview.box(crop, radius=2, iterations=2, variant=CPU), twice, "iterations")


def gaussian_reference(img, sigma, radius=0):
    """SciPy's correlation with the integer weights worked out from their definition
    (tests/cpu/gaussian_photos_scipy.py), value for value, and the exact Gaussian with its bound."""
    pytest.importorskip("scipy.ndimage")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "cpu"))
    from gaussian_photos_scipy import blur  # noqa: PLC0415
    r = radius or math.ceil(3 * sigma - 1e-9)
    colour, alpha = colour_alpha(img)
    integer = np.empty(colour.shape, np.int64)
    true = np.empty(colour.shape)
    for c in range(colour.shape[2]):
        integer[:, :, c], true[:, :, c], bound = blur(colour[:, :, c], sigma, r)
    return with_alpha(integer, alpha, img), true.reshape(colour.shape), bound


@pytest.mark.parametrize("sigma,radius", [(0.5, 0), (1.0, 0), (2.5, 0), (7.7, 0), (1.0, 1)])
def test_gaussian_equals_scipy(rng, photo_rgba, sigma, radius):
    for img in (random_image(rng, 40, 30, 4), random_image(rng, 13, 1, 3),
                np.ascontiguousarray(photo_rgba[100:196, 200:280])):
        want, true, bound = gaussian_reference(img, sigma, radius)
        got = filterview.gaussian(img, sigma=sigma, radius=radius, variant=CPU)
        assert_same(got, want, "gaussian sigma %g radius %d %s" % (sigma, radius, img.shape))
        colour, _ = colour_alpha(got)
        assert np.abs(colour - true).max() <= bound
    flat = np.full((9, 11, 3), 77, np.uint8)
    assert_same(filterview.gaussian(flat, sigma=3.0, variant=CPU), flat, "a flat image stays")


def test_conv_defaults_and_box_shape(rng):
    flat = np.full((20, 25, 4), 123, np.uint8)
    assert_same(filterview.conv(flat, variant=CPU), flat, "a flat image stays")
    img = random_image(rng, 30, 20, 3)
    out = filterview.conv(img, shape="box", radius=2, variant=CPU)
    # the same window as the box filter; rounding may differ by one level
    assert np.abs(out.astype(int) - box_reference(img, 2).astype(int)).max() <= 1


# ---- Canny against OpenCV ----------------------------------------------------------------------

def interior(a):
    return a[1:-1, 1:-1]


@pytest.mark.parametrize("low,high,norm", [(50, 150, "l1"), (100, 200, "l2"), (20, 60, "l1"),
                                           (150, 90, "l2")])
def test_canny_equals_cv2(photo_rgb, low, high, norm):
    """Like tests/cpu/canny_opencv.py: the gray stage is cv2.cvtColor's, and with the blur off
    (sigma=0) the edges are cv2.Canny(gray, low, high, L2gradient) inside the outermost rows and
    columns (border conventions differ there)."""
    cv2 = pytest.importorskip("cv2")
    gray = cv2.cvtColor(photo_rgb, cv2.COLOR_RGB2GRAY)
    got_gray = filterview.canny(photo_rgb, stage="gray", variant=CPU)
    assert_same(got_gray[:, :, 0], gray, "gray stage")
    want = cv2.Canny(gray, low, high, L2gradient=(norm == "l2"))
    edges = filterview.canny(photo_rgb, low=low, high=high, norm=norm, sigma=0, stage="edges",
                             variant=CPU)
    assert edges.shape == photo_rgb.shape
    for c in range(3):
        assert_same(interior(edges[:, :, c]), interior(want), "edges, channel %d" % c)
    assert 1000 < np.count_nonzero(want) < want.size / 4  # edges, not nothing or everything
    # the gray image itself gives the same edges (gray in, gray out)
    assert_same(interior(filterview.canny(gray, low=low, high=high, norm=norm, sigma=0,
                                          variant=CPU)), interior(want), "gray input")


def test_canny_rgba_is_an_opaque_edge_map(photo_rgba):
    """Every Canny variant writes R = G = B = the stage's value and alpha 255."""
    out = filterview.canny(photo_rgba, variant=CPU)
    assert (out[:, :, 3] == 255).all()
    assert_same(out[:, :, 1], out[:, :, 0], "G = R")
    assert_same(out[:, :, 2], out[:, :, 0], "B = R")
    assert set(np.unique(out[:, :, 0])) == {0, 255}


# ---- layouts, out= and in place ----------------------------------------------------------------

def test_strided_and_padded_inputs(rng):
    base = random_image(rng, 60, 50, 4)
    cases = {
        "every 2nd row, every 3rd column": base[::2, ::3],
        "a window (padded rows)": base[5:40, 7:31],
        "channels reversed": base[:, :, ::-1],
        "transposed": base.transpose(1, 0, 2),
        "gray column": base[:, 3, :].reshape(60, 1, 4)[:, :, 0],
    }
    for what, img in cases.items():
        assert_same(filterview.box(img, radius=2, variant=CPU), box_reference(img, 2), what)
        assert_same(filterview.invert(img, variant=CPU), invert_reference(img), what)


def test_out_and_in_place(rng):
    img = random_image(rng, 23, 19, 4)
    want = box_reference(img, 3)
    out = np.zeros_like(img)
    got = filterview.box(img, radius=3, variant=CPU, out=out)
    assert got is out
    assert_same(out, want, "out=")

    inplace = img.copy()
    got = filterview.box(inplace, radius=3, variant=CPU, out=inplace)
    assert got is inplace
    assert_same(inplace, want, "in place")

    # out whose pixels are not side by side: filled through a temporary
    wide = np.zeros((23, 38, 4), np.uint8)
    got = filterview.box(img, radius=3, variant=CPU, out=wide[:, ::2])
    assert_same(wide[:, ::2], want, "strided out")
    assert not wide[:, 1::2].any()

    # out overlapping the source without being it
    both = np.zeros((24, 19, 4), np.uint8)
    both[1:] = img
    got = filterview.box(both[1:], radius=3, variant=CPU, out=both[:-1])
    assert_same(both[:-1], want, "overlapping out")

    with pytest.raises(ValueError, match="shape"):
        filterview.box(img, radius=3, variant=CPU, out=np.zeros((23, 19, 3), np.uint8))
    with pytest.raises(TypeError, match="uint8"):
        filterview.box(img, radius=3, variant=CPU, out=np.zeros((23, 19, 4), np.float32))


def test_bad_images():
    with pytest.raises(TypeError, match="uint8"):
        filterview.box(np.zeros((8, 8, 4), np.float64), variant=CPU)
    with pytest.raises(ValueError, match="H x W"):
        filterview.box(np.zeros((8, 8, 2), np.uint8), variant=CPU)
    with pytest.raises(ValueError, match="empty"):
        filterview.box(np.zeros((0, 8, 4), np.uint8), variant=CPU)


def test_masked_arrays_are_refused():
    masked = np.ma.masked_array(np.zeros((8, 8, 4), np.uint8), mask=False)
    masked[2, 3] = np.ma.masked
    with pytest.raises(TypeError, match=r"image is a numpy\.ma masked array.*filled"):
        filterview.box(masked, variant=CPU)
    with pytest.raises(TypeError, match=r"out is a numpy\.ma masked array"):
        filterview.box(np.zeros((8, 8, 4), np.uint8), variant=CPU, out=masked)
    with pytest.raises(TypeError, match=r"a is a numpy\.ma masked array"):
        filterview.compare(masked, masked.data)
    assert filterview.box(masked.filled(0), variant=CPU).shape == (8, 8, 4)


# ---- errors ------------------------------------------------------------------------------------

def test_out_of_range_names_the_range():
    img = np.zeros((8, 8, 4), np.uint8)
    with pytest.raises(ValueError, match=r"box: radius must be an integer in 1\.\.128, got 500"):
        filterview.box(img, radius=500, variant=CPU)
    with pytest.raises(ValueError, match=r"median: size must be an odd integer in 3\.\.25, got 4"):
        filterview.median(img, size=4, variant=CPU)
    with pytest.raises(ValueError, match=r"stage must be one of 'gray', .*'edges', got 'outline'"):
        filterview.canny(img, stage="outline", variant=CPU)
    with pytest.raises(ValueError, match=r"radius must be an integer in 1\.\.\d+ or 0 \(auto: "):
        filterview.gaussian(img, radius=1000, variant=CPU)
    with pytest.raises(ValueError, match=r"sigma must be a number in"):
        filterview.gaussian(img, sigma=float("nan"), variant=CPU)
    with pytest.raises(ValueError, match=r"iterations must be an integer in 1\.\.1, got 2"):
        filterview.canny(img, iterations=2, variant=CPU)
    for bad in (2.5, True, "3", None):
        with pytest.raises(ValueError, match="radius must be an integer"):
            filterview.box(img, radius=bad, variant=CPU)
    with pytest.raises(ValueError, match="variant must be one of .*cpu"):
        filterview.box(img, variant="fastest")


def test_auto_value_zero_is_accepted(rng):
    img = random_image(rng, 12, 10, 4)
    a = filterview.gaussian(img, sigma=1.0, radius=0, variant=CPU)
    b = filterview.gaussian(img, sigma=1.0, radius=3, variant=CPU)  # ceil(3 sigma) = 3
    assert_same(a, b, "radius 0 = ceil(3 sigma)")
    filterview.canny(img, sweeps=0, variant=CPU)


def test_unknown_keyword_is_a_type_error():
    img = np.zeros((8, 8, 4), np.uint8)
    with pytest.raises(TypeError, match=r"'radiu'.*radius"):
        filterview.box(img, radiu=3, variant=CPU)
    with pytest.raises(TypeError):
        filterview.box(img, 3)  # parameters are keyword-only


def test_library_messages_pass_through():
    """What Python does not check, the C library does; its message is the exception's."""
    with pytest.raises(ValueError) as e:
        filterview.Context("box", 0, 10, variant=CPU)
    assert str(e.value).startswith("box: ") and len(str(e.value)) > len("box: ") + 5
    assert isinstance(e.value, filterview.ArgumentError)
    with pytest.raises(ValueError, match="unknown filter 'blur'"):
        filterview.Context("blur", 8, 8)


@pytest.mark.skipif(HAVE_DEVICE, reason="a CUDA device is available")
@pytest.mark.skipif(not CUDA_BUILD, reason="a build without CUDA: the reference is the only variant")
def test_default_variant_without_device_is_the_reference(rng):
    """No variant named: the reference runs, said once (a RuntimeWarning), as the program does."""
    filterview.clear_cache()
    img = random_image(rng, 9, 11, 4)
    with pytest.warns(RuntimeWarning, match=r"no CUDA device .*box/cpu, the reference, runs"):
        got = filterview.box(img, radius=2)
    assert np.array_equal(got, filterview.box(img, radius=2, variant=CPU))
    with pytest.warns(RuntimeWarning, match="the reference"):
        ctx = filterview.Context("box", 11, 9, radius=2)
    assert ctx.variant == "cpu"


@pytest.mark.skipif(HAVE_DEVICE, reason="a CUDA device is available")
@pytest.mark.skipif(not CUDA_BUILD, reason="a build without CUDA has no GPU variant to name")
@pytest.mark.parametrize("variant", ["naive", "fast"])
def test_gpu_variant_without_device_is_a_runtime_error(variant):
    img = np.zeros((8, 8, 4), np.uint8)
    with pytest.raises(RuntimeError, match=r"variant[ =]\"?cpu\"? runs the reference") as e:
        filterview.box(img, radius=2, variant=variant)
    assert isinstance(e.value, filterview.NoDeviceError)
    assert e.value.status_name
    why = filterview.device_available()[1]
    assert why and why in str(e.value)


def test_device_available_says_why():
    ok, why = filterview.device_available()
    assert isinstance(ok, bool)
    assert (why == "") if ok else (len(why) > 5)


# ---- the registry and the generated functions -----------------------------------------------------

def cli_path():
    path = os.environ.get("FILTERVIEW_CLI")
    if path:
        return path
    lib = filterview.__library__
    if os.path.isabs(lib):
        beside = os.path.join(os.path.dirname(os.path.realpath(lib)), "filterview")
        if os.access(beside, os.X_OK):
            return beside
        beside = os.path.join(os.path.dirname(lib), "filterview")
        if os.access(beside, os.X_OK):
            return beside
    return shutil.which("filterview")


def parse_list(text):
    """{filter: (param flags, variant names)} from `filterview --list`."""
    out = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^([a-z][a-z0-9_]*) {2,}\S", line)
        if m:
            current = m.group(1)
            out[current] = ([], [])
            continue
        if current is None:
            continue
        m = re.match(r"^  --([a-z][a-z0-9-]*)\s", line)
        if m:
            out[current][0].append(m.group(1))
            continue
        m = re.match(r"^  ([a-z][a-z0-9_]*)\s", line)
        if m:
            out[current][1].append(m.group(1))
    return out


def test_registry_equals_the_command_line():
    exe = cli_path()
    if not exe:
        pytest.skip("the filterview program is not found (set FILTERVIEW_CLI)")
    text = subprocess.run([exe, "--list"], capture_output=True, text=True, check=True,
                          timeout=60).stdout
    listed = parse_list(text)
    assert list(listed) == filterview.filters()
    for name, (flags, variants) in listed.items():
        info = filterview.filter_info(name)
        assert variants == [v.name for v in info.variants], name
        settable = [p.name for p in info.params if p.type != "image"]
        assert [f for f in flags if f != "iters"] == settable, name


def test_registry_contents():
    names = filterview.filters()
    assert len(names) == filterview._clib.filterview_filter_count() >= 6
    for want in ("gaussian", "invert", "box", "median", "canny", "conv"):
        assert want in names
    box = filterview.filter_info("box")
    radius = box.params[0]
    assert (radius.name, radius.type, radius.min, radius.max, radius.default) == \
        ("radius", "int", 1, 128, 1)
    assert box.reference == "cpu"
    assert box.fastest != "cpu" if CUDA_BUILD else [v.name for v in box.variants] == ["cpu"]
    assert box.variant("cpu").on_host and box.variant("cpu").role == "reference"
    med = filterview.filter_info("median").params[0]
    assert med.odd_only and med.name == "size"
    stage = filterview.filter_info("canny").params[0]
    assert stage.type == "choice" and stage.default == "edges" and "gray" in stage.choices
    radius = [p for p in filterview.filter_info("gaussian").params if p.name == "radius"][0]
    assert radius.auto_means
    assert filterview.filter_info("canny").max_iterations == 1
    with pytest.raises(ValueError):
        filterview.filter_info("nope")


@pytest.mark.parametrize("name", filterview.filters())
def test_every_filter_has_a_generated_function(name):
    fn = getattr(filterview, name)
    assert name in filterview.__all__
    info = filterview.filter_info(name)
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    assert params[0].name == "image" and params[0].kind == inspect.Parameter.POSITIONAL_ONLY
    keywords = [p for p in params[1:]]
    assert all(p.kind == inspect.Parameter.KEYWORD_ONLY for p in keywords)
    settable = [p for p in info.params if p.keyword]
    assert [p.name for p in keywords] == [p.keyword for p in settable] + \
        ["variant", "iterations", "out", "stream", "device"]
    for p in settable:
        # None where the value is automatic (it follows another, or the type) or an array
        want = None if p.auto_means or p.type == "image" else p.default
        assert sig.parameters[p.keyword].default == want
        assert sig.parameters[p.keyword].annotation is not inspect.Parameter.empty
        assert p.keyword in fn.__doc__ and p.help in fn.__doc__
        if p.type == "image":
            assert "%dx%d" % (p.max, p.max) in fn.__doc__
        elif p.type != "choice":
            assert "%g..%g" % (p.min, p.max) in fn.__doc__
        else:
            assert all(repr(c) in fn.__doc__ for c in p.choices)
    for v in info.variants:
        assert v.name in fn.__doc__
    assert fn.__doc__.startswith(info.summary[:1].upper() + info.summary[1:])
    # and it runs with its defaults on the reference
    img = np.full((6, 5, 4), 100, np.uint8)
    out = fn(img, variant=CPU)
    assert out.shape == img.shape and out.dtype == np.uint8


def test_apply_is_the_same_as_the_function(rng):
    img = random_image(rng, 10, 9, 3)
    assert_same(filterview.apply("box", img, radius=2, variant=CPU),
                filterview.box(img, radius=2, variant=CPU))


# ---- contexts, the cache, compare, bench --------------------------------------------------------

def test_context(rng):
    img = random_image(rng, 21, 34, 4)
    with filterview.Context("box", 34, 21, variant=CPU, radius=3) as ctx:
        assert ctx.variant == "cpu" and ctx.filter == "box"
        assert "3" in ctx.params
        assert ctx.device_bytes == 0
        assert_same(ctx.run(img), box_reference(img, 3), "Context.run")
        out = np.empty_like(img)
        assert ctx.run(img, out=out) is out
        assert_same(out, box_reference(img, 3), "Context.run out=")
        # any size up to the context's: each as a context of its own size makes it
        assert_same(ctx.run(img[:20, :9]), box_reference(img[:20, :9], 3), "Context.run smaller")
        with pytest.raises(ValueError, match="images up to 34x21"):
            ctx.run(random_image(rng, 22, 34, 4))
    assert ctx.closed
    with pytest.raises(ValueError, match="closed"):
        ctx.run(img)
    ctx.close()  # twice is fine
    with pytest.raises(ValueError, match="radius must be an integer in 1..128"):
        filterview.Context("box", 8, 8, variant=CPU, radius=0)


def test_device_index_is_checked(rng):
    img = random_image(rng, 12, 10, 3)
    for bad in (-1, 1.0, "0", True):
        with pytest.raises(ValueError, match="device must be None .* or a device index 0, 1"):
            filterview.median(img, size=3, variant=CPU, device=bad)
        with pytest.raises(ValueError, match="device must be None"):
            filterview.Context("median", 10, 12, variant=CPU, device=bad)
    # the reference runs on the host whatever the index, and equals the run without one
    want = median_reference(img, 3)
    assert_same(filterview.median(img, size=3, variant=CPU, device=0), want, "device=0")
    assert_same(filterview.apply_batch("median", np.stack([img, img]), size=3, variant=CPU,
                                       device=0)[1], want, "apply_batch device=0")
    # an index this machine has; without a GPU any index (the reference ignores it)
    count = filterview.device_count()
    some = count - 1 if count else 3
    with filterview.Context("median", 10, 12, variant=CPU, device=some, size=3) as ctx:
        assert ctx.device == some
        assert_same(ctx.run(img), want, "Context device=%d" % some)
    if count:  # one it lacks is refused, whatever the variant
        with pytest.raises(ValueError, match="device %d: this machine has %d CUDA device"
                           % (count, count)):
            filterview.median(img, size=3, variant=CPU, device=count)
    assert "device" in inspect.signature(filterview.median).parameters
    assert "device : int or None" in filterview.median.__doc__


@pytest.mark.skipif(HAVE_DEVICE, reason="the no-device case")
@pytest.mark.skipif(not CUDA_BUILD, reason="a build without CUDA has no GPU variant to name")
def test_device_index_without_a_device(rng):
    img = random_image(rng, 8, 8, 1)
    with pytest.raises(RuntimeError, match="needs a CUDA device"):
        filterview.median(img, variant="fast", device=0)


@pytest.mark.skipif(not HAVE_DEVICE, reason="needs a CUDA device")
def test_device_index_past_the_last_is_refused(rng):
    img = random_image(rng, 8, 8, 1)
    with pytest.raises(ValueError, match=r"device 64: this machine has \d+ CUDA device"):
        filterview.median(img, device=64)


def test_cache_is_keyed_by_device(rng):
    filterview.clear_cache()
    img = random_image(rng, 16, 16, 1)
    before = filterview.cache_info()["created"]
    filterview.box(img, radius=2, variant=CPU)
    filterview.box(img, radius=2, variant=CPU, device=0)
    filterview.box(img, radius=2, variant=CPU, device=0)
    devices = filterview.device_count()
    if devices != 1:  # a second index (without a GPU: any, which the reference ignores)
        filterview.box(img, radius=2, variant=CPU, device=1)
    assert filterview.cache_info()["created"] == before + (3 if devices != 1 else 2)
    filterview.clear_cache()


def test_contexts_are_reused(rng):
    filterview.clear_cache()
    img = random_image(rng, 16, 16, 4)
    before = filterview.cache_info()["created"]
    for _ in range(3):
        filterview.box(img, radius=2, variant=CPU)
    assert filterview.cache_info()["created"] == before + 1
    filterview.box(img, radius=3, variant=CPU)
    assert filterview.cache_info()["created"] == before + 2
    for r in range(1, 13):
        filterview.box(img, radius=r, variant=CPU)
    info = filterview.cache_info()
    assert info["size"] == info["capacity"] == 8
    filterview.clear_cache()
    assert filterview.cache_info()["size"] == 0


def test_cache_serves_smaller_images_from_a_larger_context(rng):
    """A cached context runs any image up to its size: a smaller image (a dask graph's edge
    chunk) takes the smallest free context that holds it instead of making its own; one that
    no cached context holds (wider, or taller, or of another dtype) gets its own."""
    filterview.clear_cache()
    before = filterview.cache_info()["created"]
    full = random_image(rng, 40, 50, 4)
    assert_same(filterview.box(full, radius=2, variant=CPU), box_reference(full, 2), "full")
    for h, w, channels in ((40, 17, 4), (9, 50, 3), (1, 1, 1), (40, 50, 4)):
        img = random_image(rng, h, w, channels)
        assert_same(filterview.box(img, radius=2, variant=CPU), box_reference(img, 2),
                    "%dx%d in the 50x40 context" % (w, h))
    assert filterview.cache_info()["created"] == before + 1
    assert [(k.width, k.height) for k in filterview._cache._items] == [(50, 40)]
    filterview.box(random_image(rng, 45, 60, 4), radius=2, variant=CPU)  # larger: its own
    filterview.box(random_image(rng, 20, 30, 4).astype(np.uint16), radius=2, variant=CPU)
    assert filterview.cache_info()["created"] == before + 3
    # of two that hold it, the smaller serves (and goes back last, most recently used)
    filterview.box(random_image(rng, 20, 30, 4), radius=2, variant=CPU)
    assert filterview.cache_info()["created"] == before + 3
    last = list(filterview._cache._items)[-1]
    assert (last.width, last.height, str(last.dtype)) == (50, 40, "uint8")
    filterview.clear_cache()


def test_threads_share_the_cache(rng):
    import concurrent.futures
    img = random_image(rng, 40, 30, 4)
    want = box_reference(img, 4)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: filterview.box(img, radius=4, variant=CPU), range(16)))
    for r in results:
        assert_same(r, want, "threads")


def test_compare(rng):
    a = random_image(rng, 10, 12, 4)
    same = filterview.compare(a, a.copy())
    assert (same.max_abs, same.mean_abs, same.differing) == (0, 0.0, 0)
    b = a.copy()
    b[3, 4, 1] = a[3, 4, 1] ^ 0x05
    b[7, 2, 0] = 255 - a[7, 2, 0]
    b[9, 11, 3] = a[9, 11, 3] ^ 0x80  # alpha of the last pixel of the last row
    d = filterview.compare(a, b)
    # the answers from NumPy: per-pixel largest |difference|, pixels that differ, the mean over
    # every channel of every pixel
    diff = np.abs(a.astype(np.int64) - b.astype(np.int64))
    assert d.max_abs == diff.max() == max(abs(int(a[7, 2, 0]) - int(b[7, 2, 0])), 128)
    assert d.differing == np.count_nonzero(diff.max(axis=2)) == 3
    assert d.mean_abs == pytest.approx(diff.mean(), rel=1e-12)
    gray = random_image(rng, 5, 7, 1)
    other = gray.copy()
    other[-1, -1] ^= 0x21
    g = filterview.compare(gray, other)
    gdiff = np.abs(gray.astype(np.int64) - other.astype(np.int64))
    assert (g.max_abs, g.differing) == (gdiff.max(), 1) and g.max_abs > 0
    assert g.mean_abs == pytest.approx(gdiff.mean(), rel=1e-12)
    with pytest.raises(ValueError):
        filterview.compare(a, a[:5])


def test_bench(rng):
    rows = filterview.bench("box", (32, 24, 4), runs=3, warmup=1, radius=2)
    assert rows and all(isinstance(r, filterview.BenchRow) for r in rows)
    for variant, ms in rows:
        assert isinstance(variant, str)
        assert math.isnan(ms) or ms > 0
    if not HAVE_DEVICE:
        assert [r.variant for r in rows] == ["cpu"]
    cpu = filterview.bench("median", random_image(rng, 20, 20, 3), variants=["cpu"], runs=2)
    assert cpu[0].variant == "cpu" and cpu[0].median_ms > 0


@pytest.mark.parametrize("name", ["box", "median", "gaussian"])
def test_bench_time_grows_with_the_work(name):
    """A time that does not grow with the image is no measurement: the reference on 512x512 is
    slower than on 16x16 (about a thousand times the pixels)."""
    small = filterview.bench(name, (16, 16, 4), variants=["cpu"], runs=3, warmup=1)[0]
    large = filterview.bench(name, (512, 512, 4), variants=["cpu"], runs=3, warmup=1)[0]
    assert small.median_ms > 0 and large.median_ms > small.median_ms, (small, large)


def test_version():
    assert filterview.__version__.split(".")[0] == filterview.library_version().split(".")[0] == "0"


def test_torch_cpu_tensor(rng):
    torch = pytest.importorskip("torch")
    img = random_image(rng, 9, 11, 4)
    t = torch.from_numpy(img.copy())
    out = filterview.box(t, radius=2, variant=CPU)
    assert isinstance(out, torch.Tensor)
    assert_same(out.numpy(), box_reference(img, 2), "torch host tensor")
