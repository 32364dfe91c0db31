"""filterview.dask against one call on the whole image: every filter, parameter set, border the
filter offers, pixel type the reference runs and channel count, on prime-sized images cut into
chunks of 1 to 7 pixels (thinner than most reaches) and at random places; the refusals; a local
distributed cluster of two worker processes; a Zarr store read and written chunk by chunk. With a
CUDA device, the GPU variants on NumPy and CuPy chunks too. Integer results must be equal bit for
bit; float32 ones within float rounding (a sum may be ordered differently across chunks).

ctest runs this file as `python_dask` (labels python, dask); it skips without python3-dask."""

import os

import numpy as np
import pytest

import filterview

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
fvdask = pytest.importorskip("filterview.dask")

CPU = "cpu"
HAVE_DEVICE = filterview.device_available()[0]
SEED = 20261127

# Parameter sets per filter (a filter not named here is run with its defaults). Each must have a
# bounded reach; the unbounded ones are in UNBOUNDED.
CASES = {
    "gaussian": [{}, {"sigma": 2.0}, {"sigma": 0.7, "radius": 5}],
    "invert": [{}],
    "box": [{}, {"radius": 4}, {"radius": 2, "iterations": 3}],
    "median": [{}, {"size": 7}, {"size": 25}],
    "canny": [{"hysteresis": "one-pass"},
              {"hysteresis": "one-pass", "norm": "l2", "low": 10, "high": 30},
              {"hysteresis": "one-pass", "sigma": 0.0, "low": 5, "high": 60}]
             + [{"stage": s} for s in ("gray", "blur", "magnitude", "direction", "nms",
                                       "thresholds")],
    "conv": [{}, {"shape": "disk", "radius": 4}, {"shape": "motion", "length": 9, "angle": 30.0},
             {"shape": "box", "radius": 3}],
}
UNBOUNDED = [
    ("canny", {"sweeps": 3}, "sweeps=0 (full hysteresis, exact across chunks)"),
    ("canny", {"hysteresis": "one-pass", "thresholds": "auto"}, "give low= and high="),
    ("canny", {"stage": "thresholds", "thresholds": "auto"}, "give low= and high="),
    ("conv", {"stage": "kernel"}, "only stage='output' runs in chunks"),
]


def _env(**extra):
    """This environment, with the filterview this test imported first on PYTHONPATH (for the
    processes a test starts)."""
    where = os.path.dirname(os.path.dirname(os.path.abspath(filterview.__file__)))
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=where + (os.pathsep + path if path else ""), **extra)


def _cases():
    out = []
    for name in filterview.filters():
        for params in CASES.get(name, [{}]):
            out.append(pytest.param(name, params, id="%s-%s" % (name, _id(params))))
    return out


def _first_set(name):
    """A filter's first parameter set in CASES (its defaults where it has none)."""
    return CASES.get(name, [{}])[0]


def _id(params):
    return ",".join("%s=%s" % kv for kv in sorted(params.items())) or "defaults"


def _param(name, keyword):
    for p in filterview.filter_info(name).params:
        if p.keyword == keyword:
            return p
    return None


def _borders(name):
    """The borders the filter's `border` parameter offers and its reference runs, as keyword
    sets (with a cval for the constant one); [{}] for a filter without a border parameter."""
    p = _param(name, "border")
    if p is None:
        return [{}]
    info = filterview.filter_info(name)
    mask = filterview._clib.filterview_variant_borders(name.encode(), info.reference.encode())
    out = []
    for i, choice in enumerate(p.choices):
        if mask & (1 << i):
            kw = {"border": choice}
            if choice == "constant" and _param(name, "cval") is not None:
                kw["cval"] = 77
            out.append(kw)
    return out


def _dtypes(name, variant=CPU):
    mask = filterview._clib.filterview_variant_dtypes(name.encode(), variant.encode())
    return [d for d, code in filterview._arrays.DTYPES.items() if mask & (1 << code)]


def _image(rng, h, w, channels, dtype="uint8"):
    shape = (h, w) if channels is None else (h, w, channels)
    if dtype == "float32":
        return rng.random(shape, dtype=np.float32)
    top = np.iinfo(dtype).max
    return rng.integers(0, top + 1, size=shape, dtype=dtype)


def _cuts(rng, n, lo=1, hi=7):
    """n split into chunks of lo..hi pixels at random places."""
    out = []
    while sum(out) < n:
        out.append(int(min(rng.integers(lo, hi + 1), n - sum(out))))
    return tuple(out)


def _chunked(img, rng, lo=1, hi=7):
    chunks = (_cuts(rng, img.shape[0], lo, hi), _cuts(rng, img.shape[1], lo, hi))
    if img.ndim == 3:
        chunks += (_cuts(rng, img.shape[2], 1, 2),)  # the channels split too: rejoined
    return da.from_array(img, chunks=chunks)


def assert_exact(got, want, what):
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, got.dtype,
                                                                 want.shape, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=what)
        return
    bad = np.argwhere(got != want)
    assert len(bad) == 0, "%s: %d values differ, first at %s: got %s, want %s" % (
        what, len(bad), tuple(bad[0]), got[tuple(bad[0])], want[tuple(bad[0])])


def run_both(name, img, x, variant=CPU, scheduler="sync", **params):
    result = fvdask.apply(name, x, variant=variant, **params)
    assert result.dtype == x.dtype and type(result._meta) is type(x._meta)
    got = result.compute(scheduler=scheduler)
    want = filterview.apply(name, img, variant=variant, **params)
    return result, got, want


# ---- every filter, parameter set and border, chunked at awkward places --------------------------

@pytest.mark.parametrize("channels", [None, 3, 4])
@pytest.mark.parametrize("name,params", _cases())
def test_chunked_equals_whole_image(name, params, channels):
    """Gray through every border; colour through the default border (the borders do not depend
    on the channels, and CI time is kept small)."""
    rng = np.random.default_rng(SEED)
    img = _image(rng, 31, 37, channels)
    for border in _borders(name) if channels is None else [{}]:
        kw = dict(params, **border)
        x = _chunked(img, rng)
        if name == "canny" and kw.get("border") == "wrap":  # refused: see test_canny_wrap_refused
            continue
        result, got, want = run_both(name, img, x, **kw)
        what = "%s %s on %s in chunks %s" % (name, kw, img.shape, x.chunks)
        assert_exact(got, want, what)
        assert result.chunks == x.chunks, what  # merged to filter, cut back as they came


@pytest.mark.parametrize("name", filterview.filters())
def test_every_filter_runs_in_chunks(name):
    """Each filter has a parameter set that runs chunked (a new filter runs with its defaults)."""
    runnable = [p for p in CASES.get(name, [{}]) if filterview.reach(name, **p) is not None]
    assert runnable, "%s: no parameter set with a bounded reach is tested" % name


@pytest.mark.parametrize("name", filterview.filters())
def test_pixel_types(name):
    """Every type the reference runs: the dtype and the chunk type kept, the result exact."""
    rng = np.random.default_rng(SEED + 1)
    params = next(p for p in CASES.get(name, [{}]) if filterview.reach(name, **p) is not None)
    dtypes = _dtypes(name)
    assert "uint8" in dtypes
    for dtype in dtypes:
        img = _image(rng, 29, 31, 3, dtype)
        x = _chunked(img, rng, 2, 9)
        _, got, want = run_both(name, img, x, **params)
        assert_exact(got, want, "%s %s %s" % (name, params, dtype))


@pytest.mark.parametrize("shape,chunks", [((7, 5), (2, 3)), ((1, 40), (1, 3)), ((40, 1), (6, 1)),
                                          ((13, 11), (13, 11)), ((30, 30), (29, 29))])
def test_image_smaller_than_the_reach(shape, chunks):
    """median 25x25 (reach 12) where the whole image or an axis is thinner than the halo, and
    where one axis has a single pixel of a second chunk."""
    rng = np.random.default_rng(SEED + 2)
    img = _image(rng, shape[0], shape[1], None)
    x = da.from_array(img, chunks=chunks)
    for border in _borders("median"):
        _, got, want = run_both("median", img, x, size=25, **border)
        assert_exact(got, want, "median 25 %s on %s in %s" % (border, shape, x.chunks))


@pytest.mark.parametrize("mode", ["nearest", "reflect", "mirror", "constant", "wrap"])
def test_chunk_plan_every_border(mode):
    """The halos and the outer edge for all five borders, whichever the filters offer yet: with
    scipy.ndimage's median as the filter (its modes are the five: replicate is "nearest"), on
    random cuts and reaches up to wider than the image."""
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(SEED + 7)
    img = _image(rng, 31, 37, None)

    def median(block, size):
        return ndimage.median_filter(block, size=size, mode=mode, cval=77)

    for reach in (1, 3, 19):
        for _ in range(2):
            x = _chunked(img, rng)
            got = fvdask._map_chunks(x, reach, mode == "wrap", median, size=2 * reach + 1)
            assert got.chunks == x.chunks
            assert_exact(got.compute(scheduler="sync"), median(img, 2 * reach + 1),
                         "median %d, %s, chunks %s" % (2 * reach + 1, mode, x.chunks))


def test_threads_and_wide_chunks():
    """The threaded scheduler (contexts shared by threads) and chunks wider than the reach."""
    rng = np.random.default_rng(SEED + 3)
    img = _image(rng, 211, 157, 3)
    x = da.from_array(img, chunks=(64, 50, 3))
    _, got, want = run_both("gaussian", img, x, scheduler="threads", sigma=1.5)
    assert_exact(got, want, "gaussian on 211x157 in 64x50 chunks, threads")


# ---- what is refused, and how ------------------------------------------------------------------

@pytest.mark.parametrize("name,params,says", UNBOUNDED)
def test_unbounded_reach_is_refused(name, params, says):
    x = da.zeros((16, 16), dtype=np.uint8, chunks=8)
    assert filterview.reach(name, **params) is None
    with pytest.raises(ValueError, match="whole image") as e:
        fvdask.apply(name, x, variant=CPU, **params)
    assert says in str(e.value)
    assert isinstance(e.value, filterview.ArgumentError)


def test_canny_wrap_refused():
    x = da.zeros((16, 16), dtype=np.uint8, chunks=8)
    with pytest.raises(filterview.ArgumentError, match="border='wrap' wraps the blur"):
        fvdask.canny(x, border="wrap", hysteresis="one-pass")


def test_canny_refusal_names_the_alternatives():
    x = da.zeros((16, 16), dtype=np.uint8, chunks=8)
    with pytest.raises(filterview.ArgumentError) as e:
        fvdask.canny(x, sweeps=2)
    msg = str(e.value)
    for alternative in ("sweeps=0", "hysteresis='one-pass'", "stage='nms'", "stage='thresholds'",
                        "filterview.canny(image.compute()"):
        assert alternative in msg, msg
    with pytest.raises(filterview.ArgumentError, match="takes uint8 images, got uint16"):
        fvdask.canny(da.zeros((16, 16), dtype=np.uint16, chunks=8))


def _long_chain(channels):
    """A step edge just above `low` down the whole image, strong only in its first rows: full
    hysteresis follows it through every chunk below, one-pass stops after a pixel."""
    img = np.zeros((67, 41), np.uint8)
    img[:, 20:] = 60
    img[:4, 20:] = 250
    if channels in (None, 1):
        return img if channels is None else img[:, :, None]
    alpha = np.random.default_rng(SEED).integers(0, 256, img.shape, dtype=np.uint8)
    return np.dstack([img] * 3 + ([alpha] if channels == 4 else []))


def _walk(channels):
    """Random walks along the rows: edges of every length and direction."""
    rng = np.random.default_rng(SEED + 10)
    img = np.clip(np.cumsum(rng.normal(0, 25, (53, 71)), axis=1) + rng.normal(0, 10, (53, 71)),
                  0, 255).astype(np.uint8)
    if channels in (None, 1):
        return img if channels is None else img[:, :, None]
    return np.dstack([img, img[::-1], img[:, ::-1]] + ([img] if channels == 4 else []))


@pytest.mark.parametrize("picture,channels", [(_long_chain, None), (_long_chain, 4),
                                              (_walk, 1), (_walk, 3)])
def test_canny_full_hysteresis_across_chunks(picture, channels):
    img = picture(channels)
    x = da.from_array(img, chunks=(9, 7) + img.shape[2:])
    params = {"low": 100, "high": 600} if picture is _long_chain else {"low": 20, "high": 60}
    want = filterview.canny(img, variant=CPU, **params)
    one_pass = filterview.canny(img, variant=CPU, hysteresis="one-pass", **params)
    assert not np.array_equal(want, one_pass)  # the chains do cross chunks
    result = fvdask.canny(x, variant=CPU, **params)
    assert result.chunks == x.chunks and result.dtype == x.dtype
    assert_exact(result.compute(), want, "canny, full hysteresis, in 9x7 chunks")


def test_bad_inputs():
    x = da.zeros((16, 16), dtype=np.uint8, chunks=8)
    with pytest.raises(TypeError, match="dask.array.from_array"):
        fvdask.box(np.zeros((16, 16), np.uint8))
    with pytest.raises(ValueError, match="H x W"):
        fvdask.box(da.zeros((4, 4, 2), dtype=np.uint8))
    with pytest.raises(TypeError, match="uint8, uint16 or float32"):
        fvdask.box(da.zeros((4, 4), dtype=np.int32))
    with pytest.raises(TypeError, match="unexpected keyword argument 'radius_'"):
        fvdask.box(x, radius_=3)
    with pytest.raises(ValueError, match="radius must be an integer in 1..128"):
        fvdask.box(x, radius=0)
    with pytest.raises(ValueError, match="variant must be one of"):
        fvdask.box(x, variant="nosuch")
    with pytest.raises(TypeError, match="takes no out="):
        fvdask.box(x, out=x)
    with pytest.raises(ValueError, match="iterations must be an integer"):
        fvdask.box(x, iterations=0)


def test_without_dask_the_import_says_what_is_needed():
    import subprocess
    import sys

    code = ("import sys; sys.modules['dask'] = None\n"
            "try:\n    import filterview.dask\nexcept ImportError as e:\n    print(e)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=_env())
    assert "filterview.dask needs Dask's arrays (Debian: python3-dask" in run.stdout, (
        run.stdout + run.stderr)


def test_functions_mirror_the_module():
    import inspect

    for name in filterview.filters():
        ours = inspect.signature(getattr(fvdask, name)).parameters
        theirs = inspect.signature(getattr(filterview, name)).parameters
        assert list(ours) == [p for p in theirs if p not in ("out", "stream")]
        assert fvdask.depth(name, **_first_set(name)) == filterview.reach(
            name, **_first_set(name))


# ---- out of core: a Zarr store in, another out -------------------------------------------------

def test_zarr_round_trip(tmp_path):
    zarr = pytest.importorskip("zarr")
    rng = np.random.default_rng(SEED + 4)
    img = _image(rng, 97, 131, None)
    src = zarr.open(str(tmp_path / "in.zarr"), mode="w", shape=img.shape, chunks=(24, 40),
                    dtype=img.dtype)
    src[:] = img
    x = da.from_zarr(str(tmp_path / "in.zarr"))
    fvdask.median(x, size=7, variant=CPU).to_zarr(str(tmp_path / "out.zarr"))
    out = zarr.open(str(tmp_path / "out.zarr"), mode="r")
    assert out.chunks == (24, 40)
    assert_exact(out[:], filterview.median(img, size=7, variant=CPU), "median 7 through Zarr")


def test_tiled_tiff(tmp_path):
    """A tiled TIFF read tile by tile through tifffile's Zarr view."""
    tifffile = pytest.importorskip("tifffile")
    pytest.importorskip("zarr")
    rng = np.random.default_rng(SEED + 9)
    img = _image(rng, 150, 211, 3)
    tifffile.imwrite(str(tmp_path / "in.tif"), img, tile=(64, 64))
    x = da.from_zarr(tifffile.imread(str(tmp_path / "in.tif"), aszarr=True))
    assert x.chunks[:2] == ((64, 64, 22), (64, 64, 64, 19))
    got = fvdask.box(x, radius=5, variant=CPU).compute()
    assert_exact(got, filterview.box(img, radius=5, variant=CPU), "box 5 from a tiled TIFF")


# ---- a local distributed cluster: two worker processes -----------------------------------------

@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_distributed_two_workers():
    distributed = pytest.importorskip("distributed")
    rng = np.random.default_rng(SEED + 5)
    img = _image(rng, 120, 97, 3)
    with fvdask.gpu_cluster(devices=["0", "1"], silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        # each worker process was started seeing only its own GPU
        seen = client.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))
        assert sorted(seen.values()) == ["0", "1"]
        x = da.from_array(img, chunks=(17, 23, 3))
        results = {}
        for name, params in (("box", {"radius": 3}), ("median", {"size": 5}),
                             ("canny", {"hysteresis": "one-pass"})):
            results[name] = (fvdask.apply(name, x, variant=CPU, **params), params)
        computed = client.compute([r for r, _ in results.values()], sync=True)
        for (name, (_, params)), got in zip(results.items(), computed):
            assert_exact(got, filterview.apply(name, img, variant=CPU, **params),
                         "%s under distributed" % name)
        ran_on = client.run(lambda: __import__("filterview").cache_info()["created"])
        assert all(n > 0 for n in ran_on.values()), ran_on  # both workers filtered chunks


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_scheduler_address(tmp_path):
    """docs/scale.md's cluster recipe: a dask-scheduler, one dask-worker per GPU each started
    with its CUDA_VISIBLE_DEVICES, and the client given the scheduler's address."""
    import json
    import subprocess
    import sys
    import time

    distributed = pytest.importorskip("distributed")
    sched_file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                               "--scheduler-file", str(sched_file), "--port", "0",
                               "--no-dashboard"], env=_env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        for device in ("0", "1"):
            env = _env(CUDA_VISIBLE_DEVICES=device)
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                 str(sched_file), "--nthreads", "1", "--name", "gpu-" + device, "--no-dashboard"],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            seen = client.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))
            assert sorted(seen.values()) == ["0", "1"]
            img = _image(np.random.default_rng(SEED + 8), 90, 130, 4)
            x = da.from_array(img, chunks=(30, 40, 4))
            got = fvdask.gaussian(x, sigma=1.2, variant=CPU).compute()
            assert_exact(got, filterview.gaussian(img, sigma=1.2, variant=CPU),
                         "gaussian through a scheduler's address")
            client.shutdown()  # the scheduler and the workers, at once
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _cached_devices():
    return sorted({key[6] for key in filterview._cache._items}, key=str)


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_local_cluster_pinned_to_gpus():
    """docs/scale.md's LocalCluster recipe: workers that see every GPU, pinned by pin_gpus; each
    worker's NumPy chunks go to its own device (the contexts it keeps are keyed by it)."""
    distributed = pytest.importorskip("distributed")
    if filterview.device_count() == 1:
        pytest.skip("one CUDA device: two workers would share it")
    img = _image(np.random.default_rng(SEED + 9), 100, 90, None)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        plan = fvdask.pin_gpus(client)
        assert sorted(plan.values()) == [0, 1]
        assert client.run(fvdask.worker_device) == plan
        got = fvdask.median(da.from_array(img, chunks=(20, 30)), size=5, variant=CPU).compute()
        assert_exact(got, filterview.median(img, size=5, variant=CPU), "median, pinned workers")
        used = client.run(_cached_devices)
        assert all(devices == [plan[w]] for w, devices in used.items()), (used, plan)
        with pytest.raises(ValueError, match="2 workers for 1 GPUs"):
            fvdask.pin_gpus(client, devices=[3])
        with pytest.raises(ValueError, match="distinct GPUs"):
            fvdask.pin_gpus(client, devices=[1, 1])


def test_device_keyword_and_environment(monkeypatch):
    img = _image(np.random.default_rng(SEED + 10), 30, 20, 3)
    x = da.from_array(img, chunks=(10, 10, 3))
    # indices this machine has (any index without a GPU: the reference ignores it)
    count = filterview.device_count()
    last, first = (count - 1, 0) if count else (2, 1)
    filterview.clear_cache()
    got = fvdask.box(x, radius=2, variant=CPU, device=last).compute(scheduler="threads")
    assert _cached_devices() == [last]
    assert_exact(got, filterview.box(img, radius=2, variant=CPU), "box, device=%d" % last)
    monkeypatch.setenv("FILTERVIEW_DEVICE", str(first))
    filterview.clear_cache()
    fvdask.box(x, radius=2, variant=CPU).compute(scheduler="threads")
    assert _cached_devices() == [first]
    monkeypatch.setenv("FILTERVIEW_DEVICE", "gpu1")
    with pytest.raises(ValueError, match="FILTERVIEW_DEVICE='gpu1': expected a CUDA device"):
        fvdask.box(x, radius=2, variant=CPU).compute(scheduler="threads")
    with pytest.raises(ValueError, match="device must be None"):
        fvdask.box(x, radius=2, variant=CPU, device=-1)
    filterview.clear_cache()


def test_gpu_cluster_refuses_nothing_and_twice():
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="no GPU found"):
        fvdask.gpu_cluster(devices=[])
    with pytest.raises(ValueError, match="names a GPU twice"):
        fvdask.gpu_cluster(devices=[0, "0"])


# ---- the GPU variants (skipped without a CUDA device) --------------------------------------------

def _gpu_variants(name):
    return [v.name for v in filterview.filter_info(name).variants if not v.on_host]


def _gpu_chunk_cases():
    """Every parameter set on NumPy chunks; each filter's first set on CuPy chunks (what CuPy
    chunks add is the device path of a chunk, the same for every set: Canny's nine sets on CuPy
    chunks took 112.7 s on an H200)."""
    out = []
    for case in _cases():
        name, params = case.values
        out.append(pytest.param(name, params, "numpy", id=case.id + "-numpy"))
        if params == _first_set(name):
            out.append(pytest.param(name, params, "cupy", id=case.id + "-cupy"))
    return out


@pytest.mark.skipif(not HAVE_DEVICE, reason="needs a CUDA device")
@pytest.mark.parametrize("name,params,chunk_lib", _gpu_chunk_cases())
def test_gpu_chunked_equals_whole_image(name, params, chunk_lib):
    """Every GPU variant on chunks (89 x 113 and the remainders, 79 and 105: nine chunks of few
    shapes, so few contexts and a run well under a minute on a loaded GPU machine; the CPU tests
    above take the awkward chunkings) against it on the whole image:
    equal bit for bit where the variant equals the reference there; where it does not (conv's
    FFT variants, auto where it picks one, peers), within the bound it shows on the whole image,
    since the rounding of each chunk's sums differs. Every border for the filter's first
    parameter set, the default border for the others (a variant's border code does not change
    with them; the CPU tests above take every border with every set); borders the variant does
    not take, and those filterview.dask refuses (Canny's wrap), are left out."""
    rng = np.random.default_rng(SEED + 6)
    img = _image(rng, 257, 331, 3)
    x = da.from_array(img, chunks=(89, 113, 3))
    if chunk_lib == "cupy":
        cupy = pytest.importorskip("cupy")
        x = x.map_blocks(cupy.asarray)
    ran = 0
    first_set = params == _first_set(name)
    for variant in _gpu_variants(name):
        mask = filterview._clib.filterview_variant_borders(name.encode(), variant.encode())
        for border in _borders(name) if first_set else [{}]:
            choices = _param(name, "border").choices if border else ()
            if border and not mask & (1 << choices.index(border["border"])):
                continue
            if name == "canny" and border.get("border") == "wrap":  # test_canny_wrap_refused
                continue
            kw = dict(params, **border)
            what = "%s/%s %s on %s chunks" % (name, variant, kw, chunk_lib)
            try:
                want = filterview.apply(name, img, variant=variant, **kw)
            except filterview.ArgumentError as e:
                if e.status == filterview._lib.FV_ERR_UNSUPPORTED:
                    continue  # the variant declines these parameters on any image
                raise
            result = fvdask.apply(name, x, variant=variant, **kw)
            assert type(result._meta) is type(x._meta)
            got = result.compute(scheduler="threads")
            if chunk_lib == "cupy":
                got = cupy.asnumpy(got)
            ref = filterview.apply(name, img, variant=CPU, **kw)
            ran += 1
            if np.array_equal(want, ref):
                assert_exact(got, want, what)
                continue
            bound = int(np.abs(want.astype(np.int32) - ref).max())
            worst = int(np.abs(got.astype(np.int32) - ref).max())
            assert worst <= bound, "%s: %d from the reference, the whole image %d" % (
                what, worst, bound)
    assert ran, "%s %s: no GPU variant ran" % (name, params)


@pytest.mark.skipif(not HAVE_DEVICE, reason="needs a CUDA device")
@pytest.mark.parametrize("chunk_lib", ["numpy", "cupy"])
def test_gpu_canny_full_hysteresis(chunk_lib):
    """The fastest variant's full hysteresis in chunks (on CuPy chunks the passes on the host,
    the result CuPy chunks again) against the whole image."""
    img = _walk(3)
    x = da.from_array(img, chunks=(18, 24, 3))  # nine chunks: the CPU test takes the small ones
    if chunk_lib == "cupy":
        cupy = pytest.importorskip("cupy")
        x = x.map_blocks(cupy.asarray)
    result = fvdask.canny(x, low=20, high=60)
    assert type(result._meta) is type(x._meta)
    got = result.compute()
    if chunk_lib == "cupy":
        assert type(got) is cupy.ndarray
        got = cupy.asnumpy(got)
    assert_exact(got, filterview.canny(img, low=20, high=60), "canny/fastest full, " + chunk_lib)
    assert_exact(got, filterview.canny(img, low=20, high=60, variant=CPU),
                 "canny/fastest full against the reference, " + chunk_lib)


def test_host_variant_on_device_chunks_is_refused():
    cupy = pytest.importorskip("cupy")
    if not HAVE_DEVICE:
        pytest.skip("needs a CUDA device")
    x = da.zeros((16, 16), dtype=np.uint8, chunks=8).map_blocks(cupy.asarray)
    with pytest.raises(ValueError, match="runs on host images only"):
        fvdask.box(x, variant=CPU)


# ---- the scaling benchmark, at a small size ------------------------------------------------------

def test_scale_bench_runs(tmp_path):
    """tests/python/scale_bench.py end to end on two CPU worker processes and a .npy store: it
    writes the input, filters it through the graph with both CPU engines (on a window of it, as
    --cpu-size asks), checks windows of the output against in-memory calls and prints its table
    row by row; a run past --time-limit is stopped and said, and the next one still runs."""
    import subprocess
    import sys

    pytest.importorskip("distributed")
    pytest.importorskip("scipy.ndimage")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scale_bench.py")
    out = tmp_path / "table.md"
    run = subprocess.run([sys.executable, script, "--size", "300", "--chunk", "64", "--store",
                          "npy", "--dir", str(tmp_path), "--engines", "filterview-cpu,scipy",
                          "--filters", "median,gaussian", "--cpu-workers", "2", "--cpu-size", "200",
                          "--verify", "6", "--time-limit", "120", "--out", str(out)],
                         capture_output=True, text=True, timeout=300, env=_env())
    assert run.returncode == 0, run.stdout + run.stderr
    table = out.read_text()
    for engine in ("filterview-cpu", "scipy"):
        for name in ("median", "gaussian"):
            row = "| %s | %s | 2 CPU | 200² |" % (engine, name)
            assert row in table and row in run.stdout, table
    assert table.rstrip().endswith("| 6 |"), table
    stopped = subprocess.run([sys.executable, script, "--size", "1024", "--chunk", "256",
                              "--store", "npy", "--dir", str(tmp_path / "cut"), "--engines",
                              "scipy", "--cpu-workers", "2", "--cpu-size", "1024", "--verify", "2",
                              "--time-limit", "0.05"], capture_output=True, text=True, timeout=300,
                             env=_env())
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert "| scipy | median | 2 CPU | 1024² | > 0.05 (stopped) |" in stopped.stdout, stopped.stdout
