"""filterview.dask: every filter on a dask.array, chunk by chunk, equal to one whole-image call.

Each chunk is given a halo of its neighbours' pixels as wide as the filter's reach
(:func:`filterview.reach`) through ``dask.array.map_overlap``, filtered by the module (NumPy
chunks on the host, CuPy chunks on the device; ``variant=`` as in ``filterview.box``), and cut
back to its own pixels; what dask-image does for scipy.ndimage, with the depth from the registry.
So images larger than memory (``da.from_zarr``) and many GPUs or machines (a ``distributed``
client) run the same code::

    import dask.array as da, filterview.dask
    image = da.from_zarr("scan.zarr")                        # H x W or H x W x C, any chunks
    filterview.dask.median(image, size=7).to_zarr("median.zarr")

Exactness: the result equals ``filterview.median(image.compute(), size=7)`` bit for bit (the same
variant). Chunks are extended only towards their neighbours; at the image's outer edge the filter
applies its own ``border``, as on the whole image (``wrap`` alone takes its halo from the far
side: dask's ``periodic``). Chunks thinner than the reach are merged with a neighbour while they
are filtered (``dask.array.overlap.ensure_minimum_chunksize``), an axis no longer than the reach
is filtered as one chunk, and so is the channel axis; the result has the input's chunks.
Canny's full hysteresis (the default: chains of any length) is made exact by passes: the stages
up to the double threshold in chunks, then the edges grown through the weak pixels inside each
chunk and a one-pixel halo, pass after pass, until a pass adds nothing; it runs when called,
not lazily, and holds two bytes a pixel. Other parameters with no bounded reach are refused
with the exact alternatives: automatic Canny thresholds (from the whole image's magnitudes:
give ``low`` and ``high``), Canny's ``sweeps`` limit, and the kernel and spectrum stages of
``conv`` (the whole image's transform).

Several GPUs: one Dask worker process per GPU, each seeing only its own
(``CUDA_VISIBLE_DEVICES``), as :func:`gpu_cluster` starts them on one host; or workers that
see every GPU, each pinned to one by ``FILTERVIEW_DEVICE`` in its environment (set at its start,
or by :func:`pin_gpus` for the workers of any client: a LocalCluster, a remote scheduler). NumPy
chunks then run on the worker's GPU (``device=`` overrides it); CuPy chunks where they live.
docs/scale.md has the recipes (a stack, a Zarr on one GPU, four GPUs, a cluster).
"""

from __future__ import annotations

import numbers
import os
import shutil
import subprocess
from typing import Any, Dict, List, Optional, Sequence, Tuple

try:
    import dask.array as da
    import numpy as np
    from dask.array.overlap import ensure_minimum_chunksize
except ImportError as e:  # the module itself needs only NumPy: say what this part needs
    raise ImportError("filterview.dask needs Dask's arrays (Debian: python3-dask; pip: "
                      "dask[array]): %s" % e) from e

import filterview as _fv
from filterview import ArgumentError, FilterInfo, _arrays

__all__ = ["apply", "depth", "gpu_cluster", "pin_gpus", "worker_device"]

#: The environment variable that pins a worker process to a GPU for NumPy chunks.
DEVICE_ENV = "FILTERVIEW_DEVICE"

_WRAP = "wrap"


# ---- what a chunk needs ------------------------------------------------------------------------

def _border(info: FilterInfo, params: Dict[str, Any]) -> str:
    """The border the filter applies: the `border` keyword, else its default (replicate for a
    filter without one)."""
    if "border" in params:
        return str(params["border"])
    for p in info.params:
        if p.keyword == "border":
            return str(p.default)
    return "replicate"


def _unbounded_message(info: FilterInfo, params: Dict[str, Any]) -> str:
    """Why these parameters have no bounded reach, and what runs exactly instead."""
    name = info.name
    if name == "canny" and params.get("thresholds") == "auto":
        return ("canny: thresholds='auto' takes its thresholds from the whole image's gradient "
                "magnitudes, so no chunk can compute them: give low= and high= (e.g. from one "
                "call on a reduced image), or filter the whole image in one call")
    if name == "canny":
        return ("canny: sweeps=%s stops hysteresis at chains of that many pixels, for which the "
                "registry gives no reach. Exact alternatives: sweeps=0 (full hysteresis, exact "
                "across chunks); hysteresis='one-pass'; a stage before hysteresis (stage='nms' "
                "or stage='thresholds'); or the whole image in one call "
                "(filterview.canny(image.compute(), ...))" % params.get("sweeps"))
    if name == "conv":
        return ("conv: stage=%r shows the whole image's transform, which no chunk has: only "
                "stage='output' runs in chunks" % params.get("stage"))
    return ("%s: these parameters have no bounded reach (each pixel may depend on the whole "
            "image): filter the whole image in one call" % name)


def depth(filter: str, iterations: int = 1, **params: Any) -> int:
    """The halo each chunk gets, in pixels: :func:`filterview.reach` with these parameters.
    Raises ValueError (filterview.ArgumentError) where the filter has no bounded reach, saying
    what runs exactly instead."""
    info = _fv.filter_info(filter)
    r = _fv.reach(info.name, iterations=iterations, **params)
    if r is None:
        raise ArgumentError(_unbounded_message(info, params))
    return r


def _array_kind(meta: Any) -> str:
    return type(meta).__module__.split(".")[0]


def _check_image(info: FilterInfo, image: Any, variant: Optional[str]) -> None:
    if not isinstance(image, da.Array):
        raise TypeError("filterview.dask.%s: image must be a dask.array.Array, got %s (wrap an "
                        "array with dask.array.from_array(x, chunks=...), or call filterview.%s "
                        "on it directly)" % (info.name, type(image).__name__, info.name))
    try:
        _arrays.check_shape(image.shape, "filterview.dask.%s: image" % info.name)
    except ValueError as e:
        raise ArgumentError(str(e)) from None
    _arrays.dtype_code(image.dtype, "filterview.dask.%s: image" % info.name)
    kind = _array_kind(image._meta)
    if kind not in ("numpy", "cupy"):
        raise TypeError("filterview.dask.%s: chunks must be NumPy or CuPy arrays, got %s"
                        % (info.name, type(image._meta).__name__))
    v = info.variant(variant) if variant is not None else None
    if v is not None and v.on_host and kind != "numpy":
        raise ArgumentError("filterview.dask.%s: variant %r runs on host images only, and these "
                            "chunks are %s arrays: image.map_blocks(cupy.asnumpy) first, or use a "
                            "GPU variant" % (info.name, variant, kind))


# ---- the chunking ------------------------------------------------------------------------------

def _axis_plan(chunks: Tuple[int, ...], reach: int) -> Tuple[Tuple[int, ...], int]:
    """(the chunks to use on one spatial axis, the halo on it). No halo where the axis is one
    chunk: the filter's own border is then the image's. Otherwise every chunk at least `reach`
    wide (a thinner one merged into a neighbour), so each halo comes from one neighbour and each
    edge chunk is wide enough for the border to read inside it."""
    if reach == 0 or len(chunks) == 1:
        return chunks, 0
    if sum(chunks) <= reach:
        return (sum(chunks),), 0
    merged = ensure_minimum_chunksize(reach, chunks)
    return tuple(merged), (0 if len(merged) == 1 else reach)


def worker_device() -> Optional[int]:
    """This process's pinned GPU: ``$FILTERVIEW_DEVICE`` as an index, or None (the current
    device). ValueError for a value that is no index."""
    text = os.environ.get(DEVICE_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise ArgumentError("%s=%r: expected a CUDA device index 0, 1, ..." % (DEVICE_ENV, text))
    return int(text)


def _run_chunk(block: Any, *, filter: str, variant: Optional[str], iterations: int,
               device: Optional[int], params: Dict[str, Any]) -> Any:
    # read in the worker, not where the graph is built: each worker has its own GPU
    if device is None and isinstance(block, np.ndarray):
        device = worker_device()
    return _fv.apply(filter, block, variant=variant, iterations=iterations, device=device,
                     **params)


def apply(filter: str, image: "da.Array", *, variant: Optional[str] = None, iterations: int = 1,
          device: Optional[int] = None, **params: Any) -> "da.Array":
    """Runs the filter named `filter` on the dask array `image` (H x W or H x W x C, C in 1, 3, 4;
    uint8, uint16 or float32 chunks of NumPy or CuPy) lazily, chunk by chunk with a halo of the
    filter's reach: ``apply("box", img, radius=3)`` is ``filterview.dask.box(img, radius=3)``.
    The result is a dask array of the same shape, dtype, chunks and chunk type; computed, it
    equals the filter on the whole image. Canny with full hysteresis is computed here, in passes
    (see the module's help). NumPy chunks run on `device` (None: each worker's pinned GPU, see
    :func:`worker_device`, else its current one); CuPy chunks where they live. ValueError
    (filterview.ArgumentError) for parameters with no bounded reach (the message names the exact
    alternatives)."""
    info = _fv.filter_info(filter)
    device = _fv._check_device(device, "filterview.dask.%s" % info.name)
    _check_image(info, image, variant)
    if isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral):
        raise ArgumentError("%s: iterations must be an integer in 1..%d, got %r"
                            % (info.name, info.max_iterations, iterations))
    _fv._check_variant(info, variant)
    if info.name == "canny" and _border(info, params) == _WRAP:
        # the blur and Sobel wrap, but suppression reads 0 past the image's edge (as cv2.Canny
        # does): a periodic halo would feed it the far side's magnitudes instead
        raise ArgumentError("filterview.dask.canny: border='wrap' wraps the blur and the Sobel "
                            "but not the suppression, which reads 0 past the image's edge, so "
                            "chunks cannot reproduce it: use another border, or filter the whole "
                            "image in one call (filterview.canny(image.compute(), ...))")
    if info.name == "canny" and _full_hysteresis(info, params):
        _fv.reach(info.name, iterations=int(iterations), **params)  # the parameters checked
        return _canny_full_hysteresis(image, variant, device, params)
    reach = depth(info.name, iterations=int(iterations), **params)
    return _map_chunks(image, reach, _border(info, params) == _WRAP, _run_chunk, filter=info.name,
                       variant=variant, iterations=int(iterations), device=device, params=params)


def _map_chunks(image: "da.Array", reach: int, wrap: bool, func: Any, **kwargs: Any) -> "da.Array":
    """func(block, **kwargs) on each chunk of `image` with a halo of `reach` pixels towards its
    neighbours (and, for `wrap`, from the far side at the outer edge), cut back to the chunk and to
    the caller's chunks. Exact for any function that applies its own border at a block's edge
    (so at the image's) in one of the five modes, as filterview's filters do."""
    x = image
    if x.ndim == 3 and len(x.chunks[2]) > 1:
        x = x.rechunk({2: -1})  # a pixel's channels together: the filter takes whole pixels
    rows, halo_y = _axis_plan(x.chunks[0], reach)
    cols, halo_x = _axis_plan(x.chunks[1], reach)
    if (rows, cols) != x.chunks[:2]:
        x = x.rechunk((rows, cols) + x.chunks[2:])
    halo = {0: halo_y, 1: halo_x}
    outer = "periodic" if wrap else "none"
    boundary = {0: outer if halo_y else "none", 1: outer if halo_x else "none"}
    if x.ndim == 3:
        halo[2], boundary[2] = 0, "none"
    if halo_y == 0 and halo_x == 0:
        out = x.map_blocks(func, dtype=x.dtype, meta=x._meta, **kwargs)
    else:
        out = x.map_overlap(func, depth=halo, boundary=boundary, trim=True, dtype=x.dtype,
                            meta=x._meta, **kwargs)
    # the caller's chunks back (a store such as Zarr takes its own regular chunks only)
    return out if out.chunks == image.chunks else out.rechunk(image.chunks)


# ---- Canny's full hysteresis: passes over the chunks until nothing changes ----------------------

def _value(info: FilterInfo, params: Dict[str, Any], keyword: str) -> Any:
    if keyword in params:
        return params[keyword]
    for p in info.params:
        if p.keyword == keyword:
            return p.default
    return None


def _full_hysteresis(info: FilterInfo, params: Dict[str, Any]) -> bool:
    """Canny's edges with full, unlimited hysteresis and given thresholds: what
    _canny_full_hysteresis makes exact."""
    return (_value(info, params, "stage") == "edges"
            and _value(info, params, "hysteresis") == "full"
            and _value(info, params, "thresholds") == "manual"
            and not _value(info, params, "sweeps"))


def _propagate(block: np.ndarray) -> np.ndarray:
    """Channel 1 (edges) grown through channel 0 (weak or strong pixels), 8-connected, inside
    the block: every candidate joined to an edge by candidates becomes one."""
    from scipy.ndimage import binary_propagation  # noqa: PLC0415
    grown = binary_propagation(block[..., 1] > 0, structure=np.ones((3, 3), bool),
                               mask=block[..., 0] > 0)
    return np.stack([block[..., 0], grown.astype(block.dtype)], axis=2)


def _canny_full_hysteresis(image: "da.Array", variant: Optional[str], device: Optional[int],
                           params: Dict[str, Any]) -> "da.Array":
    """Canny with full hysteresis, exact across chunks. The stages up to the double threshold
    run chunk by chunk (bounded reach); then the edges start as the strong pixels and grow
    through the weak ones inside each chunk and its one-pixel halo, pass after pass, until a
    pass adds nothing: then every weak pixel joined to a strong one by weak pixels is an edge,
    as on the whole image. Runs when called (each pass is computed), holding the two masks (two
    bytes a pixel) in memory, the cluster's under distributed."""
    if image.dtype != np.uint8:
        raise ArgumentError("filterview.dask.canny: full hysteresis across chunks takes uint8 "
                            "images, got %s: use hysteresis='one-pass', or the whole image in "
                            "one call" % image.dtype)
    try:
        __import__("scipy.ndimage")  # only whether it loads: the chunks import it
    except ImportError:
        raise ArgumentError("filterview.dask.canny: full hysteresis across chunks needs SciPy "
                            "(Debian: python3-scipy); or use hysteresis='one-pass', or the "
                            "whole image in one call") from None
    gray = image if image.ndim == 2 else image[..., 0]
    # the classes in colour: strong white, weak (255, 160, 0); a gray image as R = G = B, which
    # Canny's gray conversion gives back exactly (its weights sum to 2^15)
    rgb = da.stack([gray] * 3, axis=2) if image.ndim == 2 or image.shape[2] == 1 else image
    classes = apply("canny", rgb, variant=variant, device=device,
                    **dict(params, stage="thresholds"))
    on_device = _array_kind(image._meta) == "cupy"
    if on_device:
        # the passes on the host, SciPy's binary_propagation on NumPy masks, the classes brought
        # over once and the edges sent back once: cupyx's propagation grows a chain by one pixel
        # a sweep over the whole chunk, and CuPy compiles each kernel the passes use on first use
        # (over 40 s on a fresh machine for a test's few small chunks)
        import cupy  # noqa: PLC0415
        classes = classes.map_blocks(cupy.asnumpy, dtype=classes.dtype,
                                     meta=np.empty((0, 0, 0), classes.dtype))
    state = da.stack([(classes[..., 0] == 255), (classes[..., 1] == 255)], axis=2)
    state = state.astype(np.uint8).persist()
    count = int(state[..., 1].sum().compute())
    while True:
        grown = _map_chunks(state, 1, False, _propagate).persist()
        grown_count = int(grown[..., 1].sum().compute())
        state = grown
        if grown_count == count:
            break
        count = grown_count
    edges = state[..., 1] * np.uint8(255)
    if image.ndim == 2:
        out = edges
    elif image.shape[2] == 4:  # every stage is shown opaque
        out = da.stack([edges, edges, edges, da.full_like(edges, 255)], axis=2)
    else:
        out = da.stack([edges] * image.shape[2], axis=2)
    out = out.rechunk(image.chunks)
    if on_device:
        out = out.map_blocks(cupy.asarray, dtype=out.dtype, meta=image._meta)
    return out


# ---- one function per filter, as in filterview -------------------------------------------------

def _doc(info: FilterInfo) -> str:
    keywords = [p.keyword for p in info.params if p.keyword]
    return "\n".join([
        "%s, on a dask array chunk by chunk (see filterview.dask)." % (
            info.summary[:1].upper() + info.summary[1:]),
        "",
        "image : dask.array.Array of H x W or H x W x C (C in 1, 3, 4), NumPy or CuPy chunks",
        "The keywords are filterview.%s's (%s), with variant=, iterations= and device=; out= and"
        % (info.name, ", ".join(keywords) or "none"),
        "stream= do not apply. Returns a lazy dask array: .compute(), .to_zarr(...), da.store.",
        "Its halo: filterview.dask.depth(%r, ...) pixels." % info.name,
    ])


def _make_function(info: FilterInfo):
    name = info.name

    def run_filter(image, /, **kwargs):
        for k in ("out", "stream"):
            if k in kwargs:
                raise TypeError("filterview.dask.%s() takes no %s= (the result is a new dask "
                                "array)" % (name, k))
        return apply(name, image, **kwargs)

    full = _fv._signature(info)
    sig = full.replace(parameters=[p for p in full.parameters.values()
                                   if p.name not in ("out", "stream")],
                       return_annotation="dask.array.Array")
    run_filter.__name__ = name
    run_filter.__qualname__ = name
    run_filter.__module__ = __name__
    run_filter.__doc__ = _doc(info)
    run_filter.__signature__ = sig  # type: ignore[attr-defined]
    return run_filter


def _publish() -> None:
    for name in _fv.filters():
        if name.isidentifier() and name not in globals():
            globals()[name] = _make_function(_fv.filter_info(name))
            __all__.append(name)


_publish()


# ---- one worker per GPU ------------------------------------------------------------------------

def _visible_gpus() -> List[str]:
    """This host's GPUs as CUDA_VISIBLE_DEVICES names them: the variable's own list where it is
    set, else one index per line of `nvidia-smi -L`."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d.strip() for d in env.split(",") if d.strip()]
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        listing = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30,
                                 check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [str(i) for i, line in enumerate(l for l in listing.splitlines()
                                            if l.startswith("GPU "))]


def gpu_cluster(devices: Optional[Sequence[Any]] = None, *, threads_per_worker: int = 1,
                memory_limit: Any = "auto", scheduler_options: Optional[Dict[str, Any]] = None,
                **cluster_options: Any):
    """A ``distributed.SpecCluster`` on this host with one worker process per GPU, each started
    with ``CUDA_VISIBLE_DEVICES`` set to its own GPU (so each sees it as device 0 and the
    module's NumPy and CuPy calls run there). `devices`: the GPUs (indices or UUIDs; default:
    ``$CUDA_VISIBLE_DEVICES``'s list, else every GPU ``nvidia-smi -L`` lists). Workers are named
    ``gpu-<device>``; `scheduler_options` go to the scheduler (default: no dashboard), the
    other keywords to ``SpecCluster`` (``silence_logs=logging.ERROR``, ``asynchronous=True``).
    Use it as a context manager, with ``distributed.Client(cluster)``. What dask_cuda's
    LocalCUDACluster does, with plain distributed."""
    from distributed import Nanny, Scheduler, SpecCluster  # noqa: PLC0415

    gpus = [str(d) for d in (devices if devices is not None else _visible_gpus())]
    if not gpus:
        raise ArgumentError("gpu_cluster: no GPU found (CUDA_VISIBLE_DEVICES is empty or "
                            "nvidia-smi lists none): pass devices=[0, 1, ...]")
    if len(set(gpus)) != len(gpus):
        raise ArgumentError("gpu_cluster: devices names a GPU twice: %s" % gpus)
    workers = {
        "gpu-%s" % d: {
            "cls": Nanny,
            "options": {"nthreads": threads_per_worker, "memory_limit": memory_limit,
                        "env": {"CUDA_VISIBLE_DEVICES": d}},
        } for d in gpus
    }
    scheduler = {"cls": Scheduler,
                 "options": dict({"dashboard_address": None}, **(scheduler_options or {}))}
    return SpecCluster(workers=workers, scheduler=scheduler, **cluster_options)


def pin_gpus(client: Any, devices: Optional[Sequence[int]] = None) -> Dict[str, int]:
    """Pins each worker of `client` (a ``distributed.Client``: a LocalCluster's, or a remote
    scheduler's) to one GPU of its host for NumPy chunks, by setting ``FILTERVIEW_DEVICE`` in the
    worker process: the workers of each host, in the order of their addresses, take `devices`
    (default: the host's GPUs, 0 to ``device_count() - 1`` as one of its workers counts them; on
    a host without a GPU, 0, 1, ... one per worker, which the reference variants ignore) in turn.
    Returns {worker address: device}. ValueError when a host has more workers than devices (two
    would share one GPU's work unevenly: start one worker per GPU). Workers started later are not
    pinned: call it again."""
    if devices is not None:
        devices = [_fv._check_device(d, "pin_gpus") for d in devices]
        if not devices or len(set(devices)) != len(devices):
            raise ArgumentError("pin_gpus: devices must name distinct GPUs, got %r" % (devices,))
    by_host: Dict[str, List[str]] = {}
    for address, info in client.scheduler_info()["workers"].items():
        by_host.setdefault(info.get("host", address), []).append(address)
    plan: Dict[str, int] = {}
    for host, addresses in sorted(by_host.items()):
        gpus = devices
        if gpus is None:
            first = sorted(addresses)[0]
            count = client.run(_fv.device_count, workers=[first])[first]
            gpus = list(range(count if count else len(addresses)))
        if len(addresses) > len(gpus):
            raise ArgumentError("pin_gpus: %s has %d workers for %d GPUs (%s): start one worker "
                                "per GPU" % (host, len(addresses), len(gpus), gpus))
        for address, gpu in zip(sorted(addresses), gpus):
            plan[address] = gpu
    for address, gpu in plan.items():
        client.run(_set_device_env, gpu, workers=[address])
    return plan


def _set_device_env(device: int) -> None:
    os.environ[DEVICE_ENV] = str(device)
