"""What scipy.ndimage, scikit-image and OpenCV users expect of the module, on the reference
(variant="cpu"): conv with the caller's own kernel array against scipy.ndimage.convolve (exactly
where the weights are exact, within the quantisation's bound otherwise), the errors of a bad
kernel; signatures whose defaults are what runs (the Gaussian's radius follows sigma); Canny's
2-D mask for a 2-D image in every type."""

import inspect

import numpy as np
import pytest

import filterview
from conftest import random_image

CPU = "cpu"
TOP = {np.uint8: 255, np.uint16: 65535}


def random_typed(rng, h, w, channels, dtype):
    shape = (h, w) if channels == 1 else (h, w, channels)
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32)
    return rng.integers(0, TOP[dtype] + 1, size=shape, dtype=dtype)


def scipy_convolve(img, kernel):
    """scipy.ndimage.convolve of R, G and B with the kernel scaled to sum 1, replicated borders
    (mode "nearest"), in float64; alpha kept; integers rounded half up and saturated."""
    ndimage = pytest.importorskip("scipy.ndimage")
    k = np.asarray(kernel, np.float64)
    k = k / k.sum()
    a = img.astype(np.float64)
    colour = a if a.ndim == 2 else a[:, :, :3]
    out = ndimage.convolve(colour, k if a.ndim == 2 else k[:, :, None], mode="nearest")
    if img.dtype != np.float32:
        out = np.clip(np.floor(out + 0.5), 0, TOP[img.dtype.type])
    if a.ndim == 3 and a.shape[2] == 4:
        out = np.dstack([out, a[:, :, 3]])
    return out


# ---- conv(img, kernel=array) -------------------------------------------------------------------

# weights whose shares are multiples of 2^-16: the quantised kernel is the kernel itself
EXACT_KERNELS = {
    "binomial 5x5": np.outer([1, 4, 6, 4, 1], [1, 4, 6, 4, 1]).astype(np.float64),
    # asymmetric: a correlation instead of a convolution, or a transposed kernel, shows
    "asymmetric 3x5": np.array([[0, 1, 0, 0, 3], [2, 4, 0, 0, 0], [0, 0, 0, 1, 5]], np.float64),
    "1x1": np.array([[2.5]]),
}


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("name", list(EXACT_KERNELS))
def test_conv_kernel_equals_scipy_where_weights_are_exact(rng, dtype, channels, name):
    kernel = EXACT_KERNELS[name]
    img = random_typed(rng, 23, 31, channels, dtype)
    got = filterview.conv(img, kernel=kernel, variant=CPU)
    assert got.shape == img.shape and got.dtype == img.dtype
    want = scipy_convolve(img, kernel)
    if dtype == np.float32:  # the same sums in double, each rounded once to float32
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want.astype(dtype))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("shape", [(7, 7), (3, 9), (15, 5)])
def test_conv_kernel_float_weights_within_quantisation(rng, dtype, shape):
    """Any float weights: each is quantised to a multiple of 2^-16 of the sum (off by less than
    one such unit), so the output is within taps x 2^-16 of the image's largest value of scipy's,
    plus the last rounding for integers."""
    kernel = rng.random(shape) + 0.01
    img = random_typed(rng, 40, 33, 3, dtype)
    got = filterview.conv(img, kernel=kernel, variant=CPU).astype(np.float64)
    ndimage = pytest.importorskip("scipy.ndimage")
    exact = ndimage.convolve(img.astype(np.float64), (kernel / kernel.sum())[:, :, None],
                             mode="nearest")
    top = 1.0 if dtype == np.float32 else TOP[dtype]
    bound = kernel.size * 2.0 ** -16 * top + (1e-6 if dtype == np.float32 else 0.5)
    assert np.abs(got - exact).max() <= bound, (np.abs(got - exact).max(), bound)


def test_conv_kernel_from_a_list_and_in_a_context(rng):
    img = random_image(rng, 17, 19, 3)
    kernel = [[1, 2, 1], [2, 4, 2], [1, 2, 1]]
    want = filterview.conv(img, kernel=np.array(kernel, np.float32), variant=CPU)
    np.testing.assert_array_equal(filterview.conv(img, kernel=kernel, variant=CPU), want)
    with filterview.Context("conv", 19, 17, variant=CPU, kernel=kernel) as ctx:
        assert ctx.params == "stage output, shape file"
        np.testing.assert_array_equal(ctx.run(img), want)
    np.testing.assert_array_equal(filterview.apply("conv", img, kernel=kernel, variant=CPU), want)


def test_conv_kernels_of_the_same_shape_are_not_confused(rng):
    """The context cache tells kernels apart by their weights, not by their shape."""
    img = random_image(rng, 16, 16, 1)
    left = np.zeros((3, 3))
    left[1, 0] = 1
    right = np.zeros((3, 3))
    right[1, 2] = 1
    a = filterview.conv(img, kernel=left, variant=CPU)
    b = filterview.conv(img, kernel=right, variant=CPU)
    # a true convolution: a weight left of the centre brings the pixel on the right
    np.testing.assert_array_equal(a[:, :-1], img[:, 1:])
    np.testing.assert_array_equal(b[:, 1:], img[:, :-1])


def test_conv_without_kernel_is_the_shape_it_names(rng):
    img = random_image(rng, 12, 14, 3)
    np.testing.assert_array_equal(
        filterview.conv(img, kernel=None, shape="box", radius=1, variant=CPU),
        filterview.conv(img, shape="box", radius=1, variant=CPU))


@pytest.mark.parametrize("kernel,message", [
    (np.ones((3, 3, 3)), r"conv: kernel must be 2-D \(rows x columns of weights\), got shape "
                         r"\(3, 3, 3\)"),
    (np.ones(5), r"conv: kernel must be 2-D .*got shape \(5,\)"),
    (np.ones((4, 3)), r"conv: kernel must have odd sides \(its centre is a tap\), got shape "
                      r"\(4, 3\)"),
    (np.ones((3, 129)), r"conv: kernel is at most 127x127, got shape \(3, 129\)"),
    (np.array([[1, -1, 1]]), r"conv: kernel weights must be finite and not negative \(conv "
                             r"computes a weighted mean\), got -1.0 at \[0, 1\]"),
    (np.array([[1, np.nan, 1]]), r"got nan at \[0, 1\]"),
    (np.array([[np.inf]]), r"got inf at \[0, 0\]"),
    (np.zeros((3, 3)), r"conv: kernel weights are all 0: a kernel needs a weight above 0"),
    ("box", r"conv: kernel must be a 2-D array of numbers \(the weights\), got str"),
    (np.ones((3, 3), bool), r"conv: kernel must be a 2-D array of numbers"),
])
def test_conv_bad_kernels_say_what_is_wrong(kernel, message):
    img = np.zeros((8, 8), np.uint8)
    with pytest.raises(filterview.ArgumentError, match=message):
        filterview.conv(img, kernel=kernel, variant=CPU)


def test_conv_kernel_with_another_shape_is_refused():
    img = np.zeros((8, 8), np.uint8)
    with pytest.raises(filterview.ArgumentError,
                       match=r"conv: kernel= is the kernel of shape='file', but shape is "
                             r"'gaussian'"):
        filterview.conv(img, kernel=np.ones((3, 3)), shape="gaussian", variant=CPU)


def test_reach_names_what_a_kernel_reaches():
    with pytest.raises(filterview.ArgumentError,
                       match=r"conv: kernel= is not taken by reach\(\); a kernel of R x C "
                             r"weights reaches max\(R, C\) // 2 pixels"):
        filterview.reach("conv", kernel=np.ones((3, 3)))


# ---- signatures whose defaults are what runs ---------------------------------------------------

def test_gaussian_radius_follows_sigma_by_default(rng):
    sig = inspect.signature(filterview.gaussian)
    assert sig.parameters["radius"].default is None
    assert sig.parameters["sigma"].default == 1.0
    assert "default None: ceil(3 sigma)" in filterview.gaussian.__doc__
    img = random_image(rng, 30, 40, 3)
    with_defaults = filterview.gaussian(img, variant=CPU)
    # what the signature says: sigma 1, and the radius that follows it, ceil(3 sigma) = 3
    np.testing.assert_array_equal(with_defaults, filterview.gaussian(img, sigma=1.0,
                                                                     variant=CPU))
    np.testing.assert_array_equal(with_defaults, filterview.gaussian(img, sigma=1.0, radius=3,
                                                                     variant=CPU))
    np.testing.assert_array_equal(with_defaults, filterview.gaussian(img, radius=None,
                                                                     variant=CPU))
    with filterview.Context("gaussian", 40, 30, variant=CPU) as ctx:
        assert ctx.params == "sigma 1, radius 3"
    with filterview.Context("gaussian", 40, 30, variant=CPU, sigma=2.5) as ctx:
        assert ctx.params == "sigma 2.5, radius 8"
    assert filterview.reach("gaussian") == 3
    # a radius given is the radius run
    assert not np.array_equal(with_defaults, filterview.gaussian(img, radius=2, variant=CPU))


def test_every_automatic_parameter_defaults_to_none():
    """A parameter with an automatic value (auto_means) shows None in its function's signature,
    and its documentation says what None means; the others show the library's default."""
    for name in filterview.filters():
        sig = inspect.signature(getattr(filterview, name))
        for p in filterview.filter_info(name).params:
            if not p.keyword:
                continue
            shown = sig.parameters[p.keyword].default
            if p.auto_means:
                assert shown is None, (name, p.name)
                assert "default None: %s" % p.auto_means in getattr(filterview, name).__doc__
            elif p.type != "image":
                assert shown == p.default, (name, p.name)
    assert inspect.signature(filterview.canny).parameters["low"].default is None
    assert inspect.signature(filterview.canny).parameters["sweeps"].default is None


def test_canny_thresholds_none_is_the_automatic_pair(rng):
    img = random_image(rng, 32, 32, 1)
    np.testing.assert_array_equal(filterview.canny(img, variant=CPU),
                                  filterview.canny(img, low=50, high=150, variant=CPU))
    np.testing.assert_array_equal(filterview.canny(img, low=None, high=None, variant=CPU),
                                  filterview.canny(img, low=50, high=150, variant=CPU))


def test_an_automatic_parameter_out_of_range_still_names_the_range():
    with pytest.raises(filterview.ArgumentError,
                       match=r"gaussian: radius must be an integer in 1..32 or 0 \(auto: "
                             r"ceil\(3 sigma\)\), got 40"):
        filterview.gaussian(np.zeros((4, 4), np.uint8), radius=40, variant=CPU)


# ---- Canny: a 2-D mask for a 2-D image ---------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_canny_gray_in_is_a_2d_mask_out(rng, dtype):
    """As cv2.Canny (uint8 0/255, one channel) and skimage.feature.canny (one channel): a 2-D image
    gives a 2-D edge map of its own type, 0 or the type's top (255, 65535, 1.0); an RGB image
    gives H x W x 3 with R = G = B."""
    yy, xx = np.mgrid[0:48, 0:64]
    smooth = (np.sin(xx / 5.0) * np.cos(yy / 4.0) + 1) / 2  # edges, not noise
    top = 1.0 if dtype == np.float32 else TOP[dtype]
    gray = (smooth * top).astype(dtype)
    edges = filterview.canny(gray, variant=CPU)
    assert edges.shape == gray.shape and edges.dtype == gray.dtype
    assert set(np.unique(edges).tolist()) == {0, top}
    rgb = filterview.canny(np.dstack([gray] * 3), variant=CPU)
    assert rgb.shape == gray.shape + (3,)
    for c in range(3):
        np.testing.assert_array_equal(rgb[:, :, c], edges)
