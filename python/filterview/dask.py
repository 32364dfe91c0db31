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
Parameters with no bounded reach are refused with the exact alternatives: Canny's full
hysteresis (chains of any length: use ``hysteresis="one-pass"``, a stage before hysteresis, or
the whole image), automatic Canny thresholds (from the whole image's magnitudes: give ``low``
and ``high``), and the kernel and spectrum stages of ``conv`` (the whole image's transform).

Several GPUs: one Dask worker process per GPU, each seeing only its own
(``CUDA_VISIBLE_DEVICES``); :func:`gpu_cluster` starts them on one host. docs/scale.md has the
recipes (a stack, a Zarr on one GPU, four GPUs, a cluster).
"""

from __future__ import annotations

import numbers
import os
import shutil
import subprocess
from typing import Any, Dict, List, Optional, Sequence, Tuple

try:
    import dask.array as da
    from dask.array.overlap import ensure_minimum_chunksize
except ImportError as e:  # the module itself needs only NumPy: say what this part needs
    raise ImportError("filterview.dask needs Dask's arrays (Debian: python3-dask; pip: "
                      "dask[array]): %s" % e) from e

import filterview as _fv
from filterview import ArgumentError, FilterInfo, _arrays

__all__ = ["apply", "depth", "gpu_cluster"]

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
        return ("canny: full hysteresis follows edge chains of any length across the image, so "
                "no halo makes a chunk exact. Exact alternatives: hysteresis='one-pass' (weak "
                "pixels next to a strong one); a stage before hysteresis (stage='nms' or "
                "stage='thresholds'); or the whole image in one call "
                "(filterview.canny(image.compute(), ...))")
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


def _run_chunk(block: Any, *, filter: str, variant: Optional[str], iterations: int,
               params: Dict[str, Any]) -> Any:
    return _fv.apply(filter, block, variant=variant, iterations=iterations, **params)


def apply(filter: str, image: "da.Array", *, variant: Optional[str] = None, iterations: int = 1,
          **params: Any) -> "da.Array":
    """Runs the filter named `filter` on the dask array `image` (H x W or H x W x C, C in 1, 3, 4;
    uint8, uint16 or float32 chunks of NumPy or CuPy) lazily, chunk by chunk with a halo of the
    filter's reach: ``apply("box", img, radius=3)`` is ``filterview.dask.box(img, radius=3)``.
    The result is a dask array of the same shape, dtype, chunks and chunk type; computed, it
    equals the filter on the whole image.
    ValueError (filterview.ArgumentError) for parameters with no bounded reach (the message names
    the exact alternatives)."""
    info = _fv.filter_info(filter)
    _check_image(info, image, variant)
    if isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral):
        raise ArgumentError("%s: iterations must be an integer in 1..%d, got %r"
                            % (info.name, info.max_iterations, iterations))
    _fv._check_variant(info, variant)
    reach = depth(info.name, iterations=int(iterations), **params)
    return _map_chunks(image, reach, _border(info, params) == _WRAP, _run_chunk, filter=info.name,
                       variant=variant, iterations=int(iterations), params=params)


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


# ---- one function per filter, as in filterview -------------------------------------------------

def _doc(info: FilterInfo) -> str:
    keywords = [p.keyword for p in info.params if p.keyword]
    return "\n".join([
        "%s, on a dask array chunk by chunk (see filterview.dask)." % (
            info.summary[:1].upper() + info.summary[1:]),
        "",
        "image : dask.array.Array of H x W or H x W x C (C in 1, 3, 4), NumPy or CuPy chunks",
        "The keywords are filterview.%s's (%s), with variant= and iterations=; out= and"
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
