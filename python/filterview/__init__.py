"""filterview: GPU image filters (Gaussian, invert, box, median, Canny, convolution) from Python.

A thin ctypes binding of the C library libfilterview (``include/libfilterview.h``). One function
per filter is generated from the library's registry when the module is imported::

    import cv2, filterview
    rgb = cv2.cvtColor(cv2.imread("assets/astronaut.png"), cv2.COLOR_BGR2RGB)
    blurred = filterview.box(rgb, radius=8)                  # the fastest GPU variant
    edges = filterview.canny(rgb, low=50, high=150, variant="cpu")   # the plain-C reference

Images are uint8 arrays of H x W (gray), H x W x 3 (RGB) or H x W x 4 (RGBA; alpha is kept).
NumPy arrays live on the host; CuPy arrays, PyTorch CUDA tensors and any object with
``__cuda_array_interface__`` are read and written on the device without a copy, on the caller's
CUDA stream. ``variant=None`` runs the fastest variant (without an NVIDIA GPU: the reference, with
a RuntimeWarning); ``variant="cpu"`` runs the plain-C reference on host images anywhere.

Contents: :func:`filters`, :func:`filter_info`, :func:`device_available`, :func:`device_count`, one function per filter
(``filterview.box`` ...) and :func:`apply` (any filter by name), :class:`Context` (a filter set up
once for a largest size, run many times), :func:`compare`, :func:`bench`, :func:`imread` and
:func:`imwrite` (image files, decoded on the GPU with ``device="cuda"``), the exceptions
(:class:`Error` and its subclasses, which are also ``ValueError`` or ``RuntimeError``).

The C library is found through ``$FILTERVIEW_LIBRARY`` (a path), else the path CMake wrote into
``filterview/_libpath.py``, else ``ctypes.util.find_library("filterview")``.
"""

from __future__ import annotations

import atexit
import ctypes
import dataclasses
import hashlib
import inspect
import keyword
import math
import numbers
import os
import statistics
import threading
import warnings
import time
from collections import OrderedDict
from typing import Any, Dict, List, Literal, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _arrays, _lib

_clib, __library__ = _lib.load()
_text = _lib.text
# the module and its library are one release (the version is written once, in libfilterview.h)
__version__ = _text(_clib.filterview_version())

Image = Any
"""An image: a NumPy uint8 array (H x W, H x W x 3, H x W x 4), or a CUDA array (CuPy, PyTorch,
anything with ``__cuda_array_interface__``) of the same shapes."""

Stream = Any
"""A CUDA stream: an int (a ``cudaStream_t``), a CuPy stream (``.ptr``) or a PyTorch stream
(``.cuda_stream``); None for the default (the input's stream, or the default stream)."""

_ERROR_SIZE = 1024
_HOST_HINT = 'variant="cpu" runs the reference on the host'


# ---- errors ------------------------------------------------------------------------------------

class Error(Exception):
    """A filterview failure. ``status`` is the C library's fv_status code (an int) and
    ``status_name`` its name ("bad argument", "no CUDA device", ...)."""

    def __init__(self, message: str, status: int = _lib.FV_ERR_ARG):
        super().__init__(message)
        self.status = status
        self.status_name = _text(_clib.filterview_status_name(status))


class ArgumentError(Error, ValueError):
    """A bad parameter, image or size, or a case a variant declines (FV_ERR_ARG, FV_ERR_SIZE,
    FV_ERR_UNSUPPORTED); a ValueError."""


class NoDeviceError(Error, RuntimeError):
    """A GPU variant and no usable CUDA device (FV_ERR_NO_DEVICE); a RuntimeError. The message
    says why; ``variant="cpu"`` runs the reference on the host."""


class LibraryError(Error, RuntimeError):
    """Any other failure of the C library (memory, CUDA, ...); a RuntimeError."""


def _error(status: int, message: str, who: Optional[str] = None) -> Error:
    message = message or _text(_clib.filterview_status_name(status)) or "status %d" % status
    if who and not message.startswith((who + ":", who + "/", who + " ")):
        message = "%s: %s" % (who, message)
    if status in (_lib.FV_ERR_ARG, _lib.FV_ERR_SIZE, _lib.FV_ERR_UNSUPPORTED):
        return ArgumentError(message, status)
    if status == _lib.FV_ERR_NO_DEVICE:
        if "runs the reference" not in message:
            message = "%s (%s)" % (message, _HOST_HINT)
        return NoDeviceError(message, status)
    return LibraryError(message, status)


# ---- the registry ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ParamInfo:
    """One parameter of a filter, as the registry describes it.

    ``type`` is "int", "real", "choice" or "image" (an array of weights: conv's ``kernel``, which
    the command line loads from a file, ``kernel-file``). ``min``/``max`` are inclusive (a
    choice's index runs 0..len(choices)-1; an image's largest side is ``max``); ``default`` is the
    library's (the command line's) default, a number or a choice's name; ``odd_only``: odd
    integers only; ``auto_means``: when not None, 0 is allowed too and means this, and the
    Python functions' default is None, which means this too (the Gaussian's radius:
    ceil(3 sigma), whatever sigma is). ``keyword`` is the Python keyword (the name with '-' as
    '_', an image's without its "-file"), None when it cannot be set from Python."""

    name: str
    help: str
    type: str
    min: float
    max: float
    default: Union[int, float, str, None]
    odd_only: bool
    choices: Tuple[str, ...]
    auto_means: Optional[str]
    keyword: Optional[str]


@dataclasses.dataclass(frozen=True)
class VariantInfo:
    """One way a filter runs: ``role`` is "teaching", "fastest" (the default), "peer" (another
    library's, e.g. NPP) or "reference" (the plain-C "cpu"); ``on_host``: runs on the CPU, on
    host images only."""

    name: str
    summary: str
    role: str
    on_host: bool


@dataclasses.dataclass(frozen=True)
class FilterInfo:
    """A filter: its one-line summary, parameters, variants and the most iterations one run may
    apply (``dataclasses.asdict(info)`` gives plain dicts)."""

    name: str
    summary: str
    params: Tuple[ParamInfo, ...]
    variants: Tuple[VariantInfo, ...]
    max_iterations: int

    @property
    def fastest(self) -> Optional[str]:
        """The variant run when none is asked for."""
        for v in self.variants:
            if v.role == "fastest":
                return v.name
        return None

    @property
    def reference(self) -> Optional[str]:
        """The plain-C reference variant ("cpu")."""
        for v in self.variants:
            if v.role == "reference":
                return v.name
        return None

    def variant(self, name: str) -> Optional[VariantInfo]:
        """The variant of that name, None when there is none."""
        for v in self.variants:
            if v.name == name:
                return v
        return None


def _read_param(filter_name: bytes, index: int) -> ParamInfo:
    c = _lib.ParamInfoC()
    status = _clib.filterview_param_get(filter_name, index, ctypes.byref(c))
    if status != _lib.FV_OK:
        raise ImportError("filterview: the registry has no parameter %d of %s"
                          % (index, filter_name.decode()))
    kind = _lib.PARAM_TYPE_NAMES.get(c.type, "unknown")
    choices = tuple(_text(c.choices[i]) for i in range(c.n_choices)) if c.choices else ()
    if kind == "choice":
        default: Union[int, float, str, None] = choices[int(c.default_value)] if choices else None
    elif kind == "int":
        default = int(c.default_value)
    elif kind == "real":
        default = float(c.default_value)
    else:
        default = None
    name = _text(c.name)
    # an image parameter is a file on the command line ("kernel-file"), an array here ("kernel")
    kw = (name[:-len("-file")] if kind == "image" and name.endswith("-file") else name)
    kw = kw.replace("-", "_")
    if kind == "unknown" or not kw.isidentifier() or keyword.iskeyword(kw):
        kw = None
    return ParamInfo(name=name, help=_text(c.help), type=kind, min=c.min, max=c.max,
                     default=default, odd_only=bool(c.odd_only), choices=choices,
                     auto_means=_text(c.auto_means) or None, keyword=kw)


def _read_filter(name: str) -> FilterInfo:
    b = name.encode()
    params = tuple(_read_param(b, i) for i in range(max(0, _clib.filterview_param_count(b))))
    variants = []
    for i in range(max(0, _clib.filterview_variant_count(b))):
        c = _lib.VariantInfoC()
        if _clib.filterview_variant_get(b, i, ctypes.byref(c)) != _lib.FV_OK:
            raise ImportError("filterview: the registry has no variant %d of %s" % (i, name))
        variants.append(VariantInfo(name=_text(c.name), summary=_text(c.summary),
                                    role=_lib.ROLE_NAMES.get(c.role, "unknown"),
                                    on_host=bool(c.on_host)))
    return FilterInfo(name=name, summary=_text(_clib.filterview_filter_summary(b)), params=params,
                      variants=tuple(variants),
                      max_iterations=int(_clib.filterview_filter_max_iterations(b)))


def _read_registry() -> "OrderedDict[str, FilterInfo]":
    out: "OrderedDict[str, FilterInfo]" = OrderedDict()
    for i in range(_clib.filterview_filter_count()):
        name = _text(_clib.filterview_filter_name(i))
        out[name] = _read_filter(name)
    return out


_REGISTRY = _read_registry()


def filters() -> List[str]:
    """The filters' names, in the registry's (menu) order."""
    return list(_REGISTRY)


def filter_info(name: str) -> FilterInfo:
    """What the registry says about a filter: summary, parameters (name, help, type, min, max,
    default, odd_only, choices, auto_means), variants (name, summary, role, on_host) and
    max_iterations. Raises ValueError for an unknown name."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ArgumentError("unknown filter %r; the filters are: %s"
                            % (name, ", ".join(_REGISTRY))) from None


def device_available() -> Tuple[bool, str]:
    """(True, "") when a CUDA device can be used; else (False, one line that says why)."""
    buf = ctypes.create_string_buffer(_ERROR_SIZE)
    ok = _clib.filterview_device_available(buf, _ERROR_SIZE)
    return bool(ok), ("" if ok else _text(buf.value))


def device_count() -> int:
    """How many CUDA devices this process can use (0 where :func:`device_available` says no);
    ``device=`` takes 0 .. device_count() - 1."""
    return int(_clib.filterview_device_count())


def library_version() -> str:
    """The loaded C library's version ("0.1.0"); its path is ``filterview.__library__``."""
    return _text(_clib.filterview_version())


# ---- checking parameters in Python --------------------------------------------------------------

def _num(v: float) -> str:
    return "%g" % v


def _expectation(p: ParamInfo) -> str:
    """ "an integer in 1..128", "an odd integer in 3..25", "one of 'l1', 'l2'", "... or 0 (auto:
    ceil(3 sigma))" """
    if p.type == "choice":
        return "one of " + ", ".join(repr(c) for c in p.choices)
    what = "a number" if p.type == "real" else "an odd integer" if p.odd_only else "an integer"
    text = "%s in %s..%s" % (what, _num(p.min), _num(p.max))
    if p.auto_means:
        text += " or 0 (auto: %s)" % p.auto_means
    return text


def _param_value_text(who: str, p: ParamInfo, value: Any) -> str:
    """The value as the C library's text, after checking its type and range (ValueError that
    names the range)."""
    def bad() -> ArgumentError:
        return ArgumentError("%s: %s must be %s, got %r" % (who, p.keyword or p.name,
                                                           _expectation(p), value))

    if p.type == "choice":
        if not isinstance(value, str) or value not in p.choices:
            raise bad()
        return value
    if value is None and p.auto_means:
        return "0"  # the library's "auto"
    if isinstance(value, bool) or isinstance(value, (np.bool_,)):
        raise bad()
    if p.type == "int":
        if not isinstance(value, numbers.Integral):
            raise bad()
        v = int(value)
        ok = p.min <= v <= p.max and (not p.odd_only or v % 2 == 1)
        if not ok and not (p.auto_means and v == 0):
            raise bad()
        return str(v)
    if p.type == "real":
        if not isinstance(value, numbers.Real):
            raise bad()
        v = float(value)
        ok = math.isfinite(v) and p.min <= v <= p.max
        if not ok and not (p.auto_means and v == 0):
            raise bad()
        return repr(v)
    raise ArgumentError("%s: %s cannot be set from Python (%s)" % (who, p.name, p.help))


_OPTIONS = ("variant", "iterations", "out", "stream", "device")


def _keywords(info: FilterInfo) -> Dict[str, ParamInfo]:
    return {p.keyword: p for p in info.params if p.keyword}


class _Setup(NamedTuple):
    """What a context is made with besides its size: the parameters' text for the C library, and
    the image parameters' arrays ((name, 2-D float32 array), ...) with a digest of their bytes
    (for the context cache's key)."""

    text: str
    images: Tuple[Tuple[str, np.ndarray], ...] = ()
    digest: str = ""


def _kernel_array(info: FilterInfo, p: ParamInfo, value: Any) -> np.ndarray:
    """An image parameter's value (conv's kernel) as the C-contiguous 2-D float32 array of weights
    the library takes, after the checks that name what is wrong."""
    who = "%s: %s" % (info.name, p.keyword)
    try:
        host = _arrays.to_host(value, p.keyword) if not isinstance(value, (list, tuple)) else value
        a = np.asarray(host)
        if a.dtype.kind not in "biuf" or a.dtype.kind == "b":
            raise ValueError(a.dtype)
        a = a.astype(np.float64)
    except (TypeError, ValueError):
        raise ArgumentError("%s must be a 2-D array of numbers (the weights), got %s"
                            % (who, type(value).__name__)) from None
    largest = int(p.max)
    if a.ndim != 2:
        raise ArgumentError("%s must be 2-D (rows x columns of weights), got shape %s"
                            % (who, a.shape))
    if not (a.shape[0] % 2 and a.shape[1] % 2):
        raise ArgumentError("%s must have odd sides (its centre is a tap), got shape %s"
                            % (who, a.shape))
    if a.shape[0] > largest or a.shape[1] > largest:
        raise ArgumentError("%s is at most %dx%d, got shape %s" % (who, largest, largest, a.shape))
    bad = ~np.isfinite(a) | (a < 0)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ArgumentError("%s weights must be finite and not negative (conv computes a weighted "
                            "mean), got %r at [%d, %d]" % (who, float(a[i, j]), i, j))
    if not a.sum() > 0:
        raise ArgumentError("%s weights are all 0: a kernel needs a weight above 0" % who)
    return np.ascontiguousarray(a, dtype=np.float32)


def _setup(info: FilterInfo, params: Dict[str, Any], iterations: Any, who: str) -> _Setup:
    """The parameters as the library takes them: image parameters (arrays) apart, the choice that
    uses one ("file", as the command line's --shape file) made for the caller, the rest as text."""
    params = dict(params)
    images = []
    for p in info.params:
        value = params.pop(p.keyword, None) if p.type == "image" and p.keyword else None
        if value is None:  # None: the filter's built-in default
            continue
        images.append((p.name, _kernel_array(info, p, value)))
        for c in info.params:  # the choice that takes the image: made, or refused if another
            if c.type == "choice" and "file" in c.choices and c.keyword:
                chosen = params.setdefault(c.keyword, "file")
                if chosen != "file":
                    raise ArgumentError("%s: %s= is the kernel of %s='file', but %s is %r"
                                        % (info.name, p.keyword, c.keyword, c.keyword, chosen))
    text = _params_text(info, params, iterations, who)
    digest = hashlib.sha1()
    for name, a in images:
        digest.update(("%s %s;" % (name, a.shape)).encode())
        digest.update(a.tobytes())
    return _Setup(text, tuple(images), digest.hexdigest() if images else "")


def _params_text(info: FilterInfo, params: Dict[str, Any], iterations: Any, who: str) -> str:
    """The "name=value ..." text for the C library, in the registry's order (so that a parameter
    that follows another, like the Gaussian's radius after sigma, is set after it). The parameters
    given are sent, and those whose default here is None (auto) as 0: the others keep the
    library's defaults. Image parameters go apart (_setup)."""
    by_kw = _keywords(info)
    unknown = [k for k in params if k not in by_kw]
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument %r; its keywords are: %s"
                        % (who, unknown[0], ", ".join(list(by_kw) + list(_OPTIONS))))
    parts = []
    for p in info.params:
        if p.type == "image":
            if params.get(p.keyword) is not None:  # reach: from the text alone
                raise ArgumentError("%s: %s= is not taken by %s(); a kernel of R x C weights "
                                    "reaches max(R, C) // 2 pixels" % (info.name, p.keyword, who))
            continue
        if p.keyword in params:
            parts.append("%s=%s" % (p.name, _param_value_text(info.name, p, params[p.keyword])))
        elif p.auto_means and p.default != 0:  # None here: auto, whatever the library's default
            parts.append("%s=0" % p.name)
    if iterations is None:
        iterations = 1
    if (isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral)
            or not 1 <= int(iterations) <= info.max_iterations):
        raise ArgumentError("%s: iterations must be an integer in 1..%d, got %r"
                            % (info.name, info.max_iterations, iterations))
    if int(iterations) != 1:
        parts.append("iterations=%d" % int(iterations))
    return " ".join(parts)


def _check_variant(info: FilterInfo, variant: Optional[str]) -> Optional[VariantInfo]:
    """The variant's description (None for the default); ValueError for an unknown name. Names
    the registry does not list but the library may know ("user=FILE") go to the library."""
    if variant is None:
        return None
    if not isinstance(variant, str):
        raise ArgumentError("%s: variant must be a str or None, got %r" % (info.name, variant))
    v = info.variant(variant)
    if v is None and "=" not in variant:
        raise ArgumentError("%s: variant must be one of %s (or None: the fastest), got %r"
                            % (info.name, ", ".join(x.name for x in info.variants), variant))
    return v


# ---- contexts ----------------------------------------------------------------------------------

class Context:
    """A filter set up once for one variant, a largest image size and one parameter set; it
    runs images of any size up to that one, and each :meth:`run` at the size of the last
    allocates nothing in the C library.

    ``Context("box", width, height, variant=None, iterations=1, radius=64)``: the parameters are
    keywords as in ``filterview.box``; they are checked here (ValueError naming the range), and
    the variant's device memory is allocated here (RuntimeError without a CUDA device for a GPU
    variant). Use it as a context manager, or call :meth:`close`.

    ``device=N`` makes it on CUDA device N (ValueError for an index the machine lacks): each run
    goes there whatever the calling thread's current device, and device images given to it must
    live there. ``device=None`` (the default) takes the current device when it is made.

    A context runs one image at a time (runs from several threads are serialised). Runs on device
    images are enqueued on the stream given to :meth:`run`; the caller orders runs of one context
    on different streams (the context's buffers are reused by each run).
    """

    def __init__(self, filter: str, width: int, height: int, *, variant: Optional[str] = None,
                 dtype: Any = "uint8", iterations: int = 1, device: Optional[int] = None,
                 **params: Any):
        info = filter_info(filter)
        setup = _setup(info, params, iterations, "Context")
        _arrays.dtype_code(dtype, "Context dtype")
        device = _check_device(device, "Context")
        self._setup(info, width, height, variant, setup, np.dtype(dtype).name, device)

    @classmethod
    def _make(cls, info: FilterInfo, width: int, height: int, variant: Optional[str],
              setup: _Setup, dtype: str = "uint8", device: Optional[int] = None) -> "Context":
        self = cls.__new__(cls)
        self._setup(info, width, height, variant, setup, dtype, device)
        return self

    def _setup(self, info: FilterInfo, width: int, height: int, variant: Optional[str],
               setup: _Setup, dtype: str = "uint8", device: Optional[int] = None) -> None:
        self._ptr: Optional[int] = None
        self._lock = threading.Lock()
        self._destroy = _clib.filterview_context_destroy
        v = _check_variant(info, variant)
        for name, value in (("width", width), ("height", height)):
            if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                    or not -2**31 <= int(value) < 2**31):
                raise ArgumentError("%s: %s must be an integer, got %r" % (info.name, name, value))
        self._info = info
        self._text = setup.text
        self._on_host = bool(v.on_host) if v is not None else False
        self.width = int(width)
        self.height = int(height)
        self.dtype = dtype
        #: the CUDA device index it was made on, or None (the current device at creation)
        self.device = device
        ptr = ctypes.c_void_p()
        err = ctypes.create_string_buffer(_ERROR_SIZE)
        # the image parameters as host images (gray float32); the library copies them
        kernels = [_lib.ImageC(a.ctypes.data, a.shape[1], a.shape[0], a.strides[0], 1, _lib.HOST,
                               _arrays.DTYPES["float32"]) for _, a in setup.images]
        images = (_lib.ParamImageC * max(1, len(kernels)))(
            *[_lib.ParamImageC(name.encode(), ctypes.pointer(k))
              for (name, _), k in zip(setup.images, kernels)])
        status = _clib.filterview_context_create_with_images(
            ctypes.byref(ptr), -1 if device is None else device, info.name.encode(), variant.encode() if variant is not None else None,
            self.width, self.height, _arrays.DTYPES[dtype], setup.text.encode(), images,
            len(kernels), err, _ERROR_SIZE)
        if status != _lib.FV_OK or not ptr.value:
            raise _error(status if status != _lib.FV_OK else _lib.FV_ERR_MEMORY, _text(err.value),
                         info.name)
        self._ptr = ptr.value
        if err.value:  # a notice: no device, so the reference runs instead of the fastest
            warnings.warn("%s: %s" % (info.name, _text(err.value)), RuntimeWarning, stacklevel=3)
        resolved = info.variant(self.variant)
        if resolved is not None:
            self._on_host = resolved.on_host

    # -- what it runs --
    @property
    def filter(self) -> str:
        """The filter's name."""
        return self._info.name

    @property
    def variant(self) -> str:
        """The variant it runs (the fastest's name when None was asked)."""
        return _text(_clib.filterview_context_variant(self._live()))

    @property
    def params(self) -> str:
        """The parameters in words, as the library has resolved them ("sigma 2, radius 6")."""
        return _text(_clib.filterview_context_params(self._live()))

    @property
    def device_bytes(self) -> int:
        """Device memory the context holds, in bytes."""
        return int(_clib.filterview_context_device_bytes(self._live()))

    @property
    def on_host(self) -> bool:
        """True for the reference ("cpu"): it takes host (NumPy) images only."""
        return self._on_host

    @property
    def closed(self) -> bool:
        return self._ptr is None

    def _live(self) -> int:
        ptr = self._ptr
        if ptr is None:
            raise ArgumentError("%s: the context is closed" % self._info.name)
        return ptr

    # -- running --
    def run(self, src: Image, out: Optional[Image] = None, stream: Stream = None) -> Image:
        """Runs the filter on `src` (width x height, as the context) into `out` or a new array of
        the same library (NumPy, CuPy, PyTorch), which it returns. `out` may be `src` (in
        place). Device images go on `stream` (default: the input's stream, else the default
        stream); the call returns once the work is enqueued when both images are on the device,
        once it is done otherwise."""
        op = _arrays.operand(src)
        handle = _arrays.stream_handle(stream)
        if handle is None and op.on_device:
            handle = _arrays.default_stream(op)
        return self._run(op, out, handle)

    def _run(self, src: _arrays.Operand, out: Optional[Image], handle: Optional[int]) -> Image:
        name = self._info.name
        if src.width > self.width or src.height > self.height:
            raise ArgumentError("%s: the context is for images up to %dx%d, got %dx%d (shape %s)"
                                % (name, self.width, self.height, src.width, src.height,
                                   src.shape))
        if src.dtype != self.dtype:
            raise ArgumentError("%s: the context is for %s images, got %s" % (name, self.dtype,
                                                                               src.dtype))
        if self._on_host and src.on_device:
            raise ArgumentError("%s: variant %r runs on host images only: pass NumPy arrays "
                                "(e.g. cupy.asnumpy(x), x.cpu().numpy())" % (name, self.variant))
        self._check_on_device(src)
        if out is None:
            dst, target = _arrays.new_like(src, handle), None
        else:
            dst, target = _arrays.output(out, src)
        if self._on_host and dst.on_device:
            raise ArgumentError("%s: variant %r runs on host images only: pass NumPy arrays "
                                "(e.g. cupy.asnumpy(x), x.cpu().numpy())" % (name, self.variant))
        self._check_on_device(dst)
        if src.memory == dst.memory and (src.ptr, src.pitch) != (dst.ptr, dst.pitch):
            (a0, a1), (b0, b1) = src.extent(), dst.extent()
            if a0 < b1 and b0 < a1:  # overlapping without being the same image
                src = _arrays.copy_of(src, handle)
        s_img, d_img = src.image(), dst.image()
        with self._lock:
            ptr = self._live()
            status = _clib.filterview_run(ptr, ctypes.byref(s_img), ctypes.byref(d_img),
                                          ctypes.c_void_p(handle) if handle else None)
            if status != _lib.FV_OK:
                raise _error(status, _text(_clib.filterview_context_error(ptr)), name)
        if target is not None:
            _arrays.copy_into(target, dst, handle)
        return out if out is not None else _arrays.result_object(dst)

    def _check_on_device(self, op: _arrays.Operand) -> None:
        """A device array must live on the context's device (the library reads it there)."""
        if (self.device is not None and op.on_device and op.device is not None
                and op.device != self.device):
            raise ArgumentError("%s: the context is on CUDA device %d, the array on device %d"
                                % (self._info.name, self.device, op.device))

    def run_batch(self, stack: Image, out: Optional[Image] = None, stream: Stream = None) -> Image:
        """Runs the filter on every image of `stack`, an N x H x W (gray) or N x H x W x C array
        (NumPy, CuPy or PyTorch) of the context's dtype and at most its size, in one call into
        the C library (``filterview_run_batch``): host stacks are pipelined (the next image goes
        up and the last comes down while one is filtered), device stacks run back to back on
        `stream`; a group's filter launches are replayed as one CUDA graph
        (``FILTERVIEW_BATCH_GRAPHS=0`` in the environment: launched one by one). Returns `out`
        (same shape and dtype) or a new stack; each image equals its own :meth:`run` bit for
        bit."""
        name = self._info.name
        ops = _arrays.stack_operands(stack, "stack")
        if not ops:
            return stack if out is None else out
        handle = _arrays.stream_handle(stream)
        if handle is None and ops[0].on_device:
            handle = _arrays.default_stream(ops[0])
        op = ops[0]  # a stack's images all have its shape
        if op.width > self.width or op.height > self.height or op.dtype != self.dtype:
            raise ArgumentError("%s: the context is for %s images up to %dx%d, the stack holds "
                                "%dx%d %s" % (name, self.dtype, self.width, self.height,
                                              op.width, op.height, op.dtype))
        if self._on_host and ops[0].on_device:
            raise ArgumentError("%s: variant %r runs on host images only: pass NumPy arrays "
                                "(e.g. cupy.asnumpy(x), x.cpu().numpy())" % (name, self.variant))
        self._check_on_device(ops[0])
        result = _arrays.new_stack_like(stack, handle) if out is None else out
        dsts = _arrays.stack_operands(result, "out", writable=True)
        self._check_on_device(dsts[0])
        if len(dsts) != len(ops) or dsts[0].shape != ops[0].shape or dsts[0].dtype != ops[0].dtype:
            raise ArgumentError("%s: out must be a stack of the same shape and dtype" % name)
        if ops[0].memory == dsts[0].memory and ops[0].ptr != dsts[0].ptr:
            (a0, _), (b0, _) = ops[0].extent(), dsts[0].extent()
            a1, b1 = ops[-1].extent()[1], dsts[-1].extent()[1]
            if a0 < b1 and b0 < a1:
                raise ArgumentError("%s: out overlaps the stack without being it" % name)
        n = len(ops)
        srcs, outs = ops.images(), dsts.images()
        with self._lock:
            ptr = self._live()
            status = _clib.filterview_run_batch(ptr, srcs, outs, n,
                                                ctypes.c_void_p(handle) if handle else None)
            if status != _lib.FV_OK:
                raise _error(status, _text(_clib.filterview_context_error(ptr)), name)
        return result

    # -- lifetime --
    def close(self) -> None:
        """Waits for the context's last work on its stream, then frees it. Idempotent."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            ptr, self._ptr = self._ptr, None
            if ptr is not None:
                self._destroy(ptr)

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __repr__(self) -> str:
        if self._ptr is None:
            return "<filterview.Context %s %dx%d closed>" % (self.filter, self.width, self.height)
        return "<filterview.Context %s:%s %dx%d (%s)>" % (self.filter, self.variant, self.width,
                                                          self.height, self.params)


class _CacheKey(NamedTuple):
    """What a cached context is made for: width and height are its own, the largest it runs."""
    filter: str
    variant: Optional[str]
    width: int
    height: int
    dtype: Any
    params: str
    device: Optional[int]
    stream: Optional[int]
    digest: Any


class _ContextCache:
    """The contexts the filter functions reuse, least recently used last out. A context is taken
    out while it runs (so two threads never share one) and put back after."""

    def __init__(self, capacity: int = 8):
        self.capacity = capacity
        self.created = 0
        self._lock = threading.Lock()
        self._items: "OrderedDict[_CacheKey, Context]" = OrderedDict()

    def take(self, key: _CacheKey) -> Optional[Context]:
        """The context made for `key`, else the smallest one made for a larger image and
        otherwise the same key (a context runs any image up to its size: the edge chunks of a
        dask graph reuse the full chunks' context), else None."""
        with self._lock:
            ctx = self._items.pop(key, None)
            if ctx is not None:
                return ctx
            larger = [k for k in self._items
                      if k._replace(width=key.width, height=key.height) == key
                      and k.width >= key.width and k.height >= key.height]
            if not larger:
                return None
            return self._items.pop(min(larger, key=lambda k: k.width * k.height))

    def give(self, key: _CacheKey, ctx: Context) -> None:
        evicted = []
        with self._lock:
            if key in self._items:
                evicted.append(ctx)
            else:
                self._items[key] = ctx
            while len(self._items) > self.capacity:
                evicted.append(self._items.popitem(last=False)[1])
        for c in evicted:
            c.close()

    def clear(self) -> None:
        with self._lock:
            items, self._items = list(self._items.values()), OrderedDict()
        for c in items:
            c.close()

    def info(self) -> Dict[str, int]:
        with self._lock:
            return {"size": len(self._items), "capacity": self.capacity, "created": self.created}


_cache = _ContextCache(8)
atexit.register(_cache.clear)


def clear_cache() -> None:
    """Frees the contexts the filter functions keep for reuse (8 at most; freed at exit too)."""
    _cache.clear()


def cache_info() -> Dict[str, int]:
    """{"size": contexts kept now, "capacity": the most kept, "created": contexts made so far}."""
    return _cache.info()


# ---- running a filter --------------------------------------------------------------------------

def _apply(info: FilterInfo, image: Image, kwargs: Dict[str, Any], who: str) -> Image:
    variant = kwargs.pop("variant", None)
    iterations = kwargs.pop("iterations", 1)
    out = kwargs.pop("out", None)
    stream = kwargs.pop("stream", None)
    device = _check_device(kwargs.pop("device", None), who)
    setup = _setup(info, kwargs, iterations, who)
    _check_variant(info, variant)
    src = _arrays.operand(image)
    return _with_cached_context(info, variant, setup, src, stream, device,
                                lambda ctx, handle: ctx._run(src, out, handle))


def _check_device(device: Any, who: str) -> Optional[int]:
    """None, or a CUDA device index (whether the machine has it is the library's to say)."""
    if device is None:
        return None
    if isinstance(device, bool) or not isinstance(device, numbers.Integral) or device < 0:
        raise ArgumentError("%s: device must be None (the current CUDA device) or a device "
                            "index 0, 1, ..., got %r" % (who, device))
    return int(device)


def _run_device(src: _arrays.Operand, device: Optional[int], who: str) -> Optional[int]:
    """The device a run goes to: a device array's own (device= may only repeat it), else
    device= for host arrays (None: the current device)."""
    if not src.on_device or src.device is None:
        return device
    if device is not None and device != src.device:
        raise ArgumentError("%s: the image lives on CUDA device %d and device=%d asks for another:"
                            " a device array is filtered where it lives (move it, or leave "
                            "device= out)" % (who, src.device, device))
    return src.device


def _with_cached_context(info: FilterInfo, variant: Optional[str], setup: _Setup,
                         src: _arrays.Operand, stream: Stream, device: Optional[int],
                         run: Any) -> Any:
    """run(context, stream handle) with a context from the cache for src's size (or a larger
    one), dtype, device and stream (made for src's size when none is free), given back
    afterwards."""
    device = _run_device(src, device, info.name)
    handle = _arrays.stream_handle(stream)
    if handle is None and src.on_device:
        handle = _arrays.default_stream(src)
    key = _CacheKey(info.name, variant, src.width, src.height, src.dtype, setup.text, device,
                    handle, setup.digest)
    ctx = _cache.take(key)
    if ctx is None:
        with _device_scope(src):
            ctx = Context._make(info, src.width, src.height, variant, setup, src.dtype, device)
        with _cache._lock:
            _cache.created += 1
    try:
        with _device_scope(src):
            return run(ctx, handle)
    finally:
        _cache.give(key._replace(width=ctx.width, height=ctx.height), ctx)


def _device_scope(op: _arrays.Operand):
    """The operand's CUDA device made current (CuPy, PyTorch), where it is known."""
    if op.device is None:
        return _nullcontext()
    if op.kind == _arrays.KIND_CUPY:
        return _arrays._cupy().cuda.Device(op.device)
    if op.kind == _arrays.KIND_TORCH:
        return _arrays._torch().cuda.device(op.device)
    return _nullcontext()


class _nullcontext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def apply(filter: str, image: Image, *, variant: Optional[str] = None, iterations: int = 1,
          out: Optional[Image] = None, stream: Stream = None, device: Optional[int] = None,
          **params: Any) -> Image:
    """Runs the filter named `filter` on `image`: ``apply("box", img, radius=3)`` is
    ``box(img, radius=3)``. See the filter's own function for its parameters."""
    info = filter_info(filter)
    kwargs = dict(params, variant=variant, iterations=iterations, out=out, stream=stream,
                  device=device)
    return _apply(info, image, kwargs, filter)


def apply_batch(filter: str, images: Any, *, variant: Optional[str] = None, iterations: int = 1,
                out: Optional[Image] = None, stream: Stream = None, device: Optional[int] = None,
                **params: Any) -> Any:
    """Runs `filter` on many images in one call.

    `images` is a stack, an N x H x W (gray) or N x H x W x C array (NumPy, CuPy or PyTorch):
    one context, one call into the library (:meth:`Context.run_batch`), the stack's type kept;
    or a list of images of any sizes, each run with its own context from the cache. With a
    list, a parameter may be a list of one value per image (``radius=[1, 3, 5]``). Each result
    equals the single call's bit for bit."""
    info = filter_info(filter)
    if isinstance(images, (list, tuple)):
        n = len(images)
        per = {k: v for k, v in params.items() if isinstance(v, (list, tuple))}
        for k, v in per.items():
            if len(v) != n:
                raise ArgumentError("%s: %s has %d values for %d images" % (info.name, k, len(v),
                                                                            n))
        outs = out if out is not None else [None] * n
        return [_apply(info, img, dict(params, **{k: v[i] for k, v in per.items()},
                                       variant=variant, iterations=iterations, out=outs[i],
                                       stream=stream, device=device), filter)
                for i, img in enumerate(images)]
    first = _arrays.stack_operands(images, "images")
    if not first:
        return images
    setup = _setup(info, params, iterations, "apply_batch")
    _check_variant(info, variant)
    device = _check_device(device, "apply_batch")
    return _with_cached_context(info, variant, setup, first[0], stream, device,
                                lambda ctx, handle: ctx.run_batch(images, out, stream))


# ---- one generated function per filter ---------------------------------------------------------

def _annotation(p: ParamInfo) -> Any:
    if p.type == "choice":
        return Literal[p.choices] if p.choices else str
    if p.type == "image":
        return Optional[Any]
    kind = int if p.type == "int" else float
    return Optional[kind] if p.auto_means else kind


def _signature_default(p: ParamInfo) -> Any:
    """What the Python functions show and do when the keyword is left out: None for an image and
    for a parameter that has an automatic value (it follows another, or the image's type),
    else the library's default."""
    return None if p.type == "image" or p.auto_means else p.default


def _param_doc(p: ParamInfo) -> str:
    if p.type == "image":
        side = int(p.max)
        return ("%s : 2-D array of weights (NumPy, CuPy, PyTorch) or None; default None\n"
                "    Rows x columns, odd sides up to %dx%d, finite and not negative; giving it\n"
                "    selects shape='file' (None there: a built-in 9x7 sample). The weights are\n"
                "    scaled to sum 1 (a weighted mean: scipy.ndimage.convolve(img, k / k.sum()))\n"
                "    and quantised to multiples of 2^-16 as the built-in shapes are. On the\n"
                "    command line, --%s: %s"
                % (p.keyword, side, side, p.name, p.help))
    if p.type == "choice":
        head = "%s : str, one of %s; default %r" % (p.keyword, ", ".join(repr(c) for c in p.choices),
                                                     p.default)
    else:
        kind = "int" if p.type == "int" else "float"
        rng = "%s..%s" % (_num(p.min), _num(p.max))
        if p.odd_only:
            rng = "odd, " + rng
        if p.auto_means:
            head = "%s : %s, %s, or None (or 0); default None: %s" % (p.keyword, kind, rng,
                                                                     p.auto_means)
            return "%s\n    %s" % (head, p.help)
        head = "%s : %s, %s; default %s" % (p.keyword, kind, rng, _num(p.default))
    return "%s\n    %s" % (head, p.help)


def _doc(info: FilterInfo) -> str:
    kws = [p for p in info.params if p.keyword]
    fixed = [p for p in info.params if not p.keyword]
    example = ", ".join("%s=%r" % (p.keyword, p.default) for p in kws[:2]
                        if p.type != "image" and not p.auto_means)
    lines = [
        info.summary[:1].upper() + info.summary[1:] + ".",
        "",
        "Parameters",
        "----------",
        "image : NumPy uint8 array, or a CUDA array (CuPy, PyTorch, __cuda_array_interface__)",
        "    H x W (gray), H x W x 3 (RGB) or H x W x 4 (RGBA, alpha kept). Rows may be padded;",
        "    each row's pixels must lie side by side, else a contiguous copy is made. Device",
        "    arrays are read and written in place on the device, without host copies.",
    ]
    for p in kws:
        lines.append(_param_doc(p))
    fastest = info.fastest
    lines += [
        "variant : str or None; default None (the fastest%s)" % (": %r" % fastest if fastest else ""),
        "    Which implementation runs (GPU variants need an NVIDIA GPU):",
    ]
    width = max([len(v.name) for v in info.variants] + [4])
    for v in info.variants:
        where = ", host images only" if v.on_host else ""
        lines.append("      %-*s  (%s%s) %s" % (width, v.name, v.role, where, v.summary))
    lines += [
        "iterations : int, 1..%d; default 1" % info.max_iterations,
        "    Applies the filter this many times in one run.",
        "out : array, optional",
        "    Written instead of a new array: the same shape and memory kind may differ (host or",
        "    device); it may be `image` itself (in place).",
        "stream : int, cupy.cuda.Stream, torch.cuda.Stream or None",
        "    The CUDA stream device images are read and written on; default: the input's",
        "    (__cuda_array_interface__ 'stream', CuPy's or PyTorch's current stream).",
        "device : int or None; default None",
        "    The CUDA device a NumPy image is filtered on (None: the current device). Device",
        "    arrays are filtered on their own device; a different index is refused.",
    ]
    for p in fixed:
        lines.append("(%s: %s; not settable from Python: the built-in default is used)"
                     % (p.name, p.help))
    lines += [
        "",
        "Returns",
        "-------",
        "A new array of the input's shape and library (NumPy, CuPy or PyTorch), or `out`.",
        "",
        "Raises",
        "------",
        "TypeError for an unknown keyword; ValueError (filterview.ArgumentError) for a value out",
        "of range, a bad image or a case the variant declines; RuntimeError",
        "(filterview.NoDeviceError) for a GPU variant without a CUDA device (%s)," % _HOST_HINT,
        "or another library failure.",
        "",
        "Example",
        "-------",
        ">>> out = filterview.%s(image%s, variant=\"cpu\")"
        % (info.name, (", " + example) if example else ""),
    ]
    return "\n".join(lines)


def _signature(info: FilterInfo) -> inspect.Signature:
    P = inspect.Parameter
    ps = [P("image", P.POSITIONAL_ONLY, annotation=Image)]
    for p in info.params:
        if p.keyword:
            ps.append(P(p.keyword, P.KEYWORD_ONLY, default=_signature_default(p),
                        annotation=_annotation(p)))
    ps += [
        P("variant", P.KEYWORD_ONLY, default=None, annotation=Optional[str]),
        P("iterations", P.KEYWORD_ONLY, default=1, annotation=int),
        P("out", P.KEYWORD_ONLY, default=None, annotation=Optional[Image]),
        P("stream", P.KEYWORD_ONLY, default=None, annotation=Stream),
        P("device", P.KEYWORD_ONLY, default=None, annotation=Optional[int]),
    ]
    return inspect.Signature(ps, return_annotation=Image)


def _make_function(info: FilterInfo):
    name = info.name

    def run_filter(image, /, **kwargs):
        return _apply(info, image, kwargs, name)

    run_filter.__name__ = name
    run_filter.__qualname__ = name
    run_filter.__module__ = __name__
    run_filter.__doc__ = _doc(info)
    run_filter.__signature__ = _signature(info)
    run_filter.__annotations__ = {p.name: p.annotation for p in
                                  run_filter.__signature__.parameters.values()}
    run_filter.__annotations__["return"] = Image
    return run_filter


# ---- comparing ---------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Diff:
    """How two images differ: the largest |a - b| of any channel, the mean |a - b| over all
    channels, and the number of pixels with any channel different."""

    max_abs: int
    mean_abs: float
    differing: int
    max_abs_value: float = 0.0


def reach(filter: str, iterations: int = 1, **params: Any) -> Optional[int]:
    """How far `filter` reads from each output pixel with these parameters (the keywords of
    ``filterview.<filter>``), in pixels: a tile given a halo this wide of its neighbours comes out
    as the whole image's result does (the depth of dask's ``map_overlap``). None where the filter
    has no bounded reach (Canny's full hysteresis or automatic thresholds)."""
    info = filter_info(filter)
    text = _params_text(info, params, iterations, "reach")
    out = ctypes.c_longlong()
    err = ctypes.create_string_buffer(_ERROR_SIZE)
    status = _clib.filterview_filter_reach(info.name.encode(), text.encode(), ctypes.byref(out),
                                           err, _ERROR_SIZE)
    if status != _lib.FV_OK:
        raise _error(status, _text(err.value), info.name)
    return None if out.value < 0 else int(out.value)


def compare(a: Image, b: Image) -> Diff:
    """Compares two images of the same shape (what ``filterview --compare`` says), on the host:
    CUDA arrays are copied to the host first."""
    ha, hb = _arrays.to_host(a, "a"), _arrays.to_host(b, "b")
    oa, ob = _arrays.operand(ha, "a"), _arrays.operand(hb, "b")
    if oa.shape != ob.shape:
        raise ArgumentError("compare: a has shape %s, b %s" % (oa.shape, ob.shape))
    ia, ib = oa.image(), ob.image()
    d = _lib.DiffC()
    err = ctypes.create_string_buffer(_ERROR_SIZE)
    status = _clib.filterview_compare(ctypes.byref(ia), ctypes.byref(ib), ctypes.byref(d), err,
                                      _ERROR_SIZE)
    if status != _lib.FV_OK:
        raise _error(status, _text(err.value), "compare")
    return Diff(int(d.max_abs), float(d.mean_abs), int(d.differing), float(d.max_abs_value))


# ---- image files --------------------------------------------------------------------------------

class FileError(Error, OSError):
    """A file that cannot be read or written (FV_ERR_IO), or is no image filterview reads or is
    damaged (FV_ERR_FORMAT); an OSError. The message names the file."""


@dataclasses.dataclass(frozen=True)
class FileInfo:
    """What :func:`imread` read or :func:`imwrite` wrote: ``format`` ("PNG", "JPEG", "PNM", "BMP",
    "TIFF"), ``codec`` ("cpu": the host's codecs; "nvjpeg": the GPU's JPEG codec) and ``note``:
    one line on what the file holds less than the image (a 16-bit image written as JPEG ...), ""
    when nothing was lost."""

    format: str
    codec: str
    note: str


def _file_info(c: _lib.FileInfoC) -> FileInfo:
    return FileInfo(_text(c.format), _lib.CODEC_NAMES.get(int(c.codec), str(c.codec)),
                    _text(c.note))


def _file_error(status: int, message: str) -> Error:
    message = message or _text(_clib.filterview_status_name(status))
    if status in (_lib.FV_ERR_IO, _lib.FV_ERR_FORMAT):
        return FileError(message, status)
    if status == _lib.FV_ERR_NO_DEVICE:
        return NoDeviceError("%s (device=None reads into host memory)" % message, status)
    return _error(status, message)


_NP_DTYPES = {0: np.uint8, 1: np.uint16, 2: np.float32}
_TYPESTR = {0: "|u1", 1: "<u2", 2: "<f4"}


def _shape_of(img: _lib.ImageC) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """The image's shape (gray: H x W) and its strides in bytes."""
    item = np.dtype(_NP_DTYPES[img.dtype]).itemsize
    if img.channels == 1:
        return (img.height, img.width), (img.pitch, item)
    return (img.height, img.width, img.channels), (img.pitch, img.channels * item, item)


class _DeviceFile:
    """An image :func:`imread` decoded into device memory: the library's allocation, shown
    through ``__cuda_array_interface__`` and freed when the last array over it goes."""

    def __init__(self, img: _lib.ImageC):
        self._img = img
        shape, strides = _shape_of(img)
        self.__cuda_array_interface__ = {
            "shape": shape, "strides": strides, "typestr": _TYPESTR[img.dtype],
            "data": (int(img.data), False), "version": 3,
            "stream": None}  # decoded and copied before imread returns: nothing to wait for

    def __del__(self):
        if self._img.data and _clib is not None:  # (None while the interpreter shuts down)
            _clib.filterview_image_free(ctypes.byref(self._img))


def _device_array(owner: _DeviceFile) -> Any:
    """CuPy's array over the image where CuPy is there, else PyTorch's tensor, else the owner
    itself (any library that reads __cuda_array_interface__ takes it)."""
    try:
        import cupy  # noqa: PLC0415
        return cupy.asarray(owner)
    except ImportError:
        pass
    try:
        import torch  # noqa: PLC0415
        return torch.as_tensor(owner, device="cuda")
    except ImportError:
        return owner


def _path_bytes(path: Any, who: str) -> bytes:
    if isinstance(path, bytes):
        return path
    try:
        return os.fsencode(path)
    except TypeError:
        raise TypeError("%s: path must be a str, bytes or os.PathLike, got %s"
                        % (who, type(path).__name__)) from None


def imread(path: Any, device: Optional[str] = None, *, return_info: bool = False) -> Any:
    """Reads an image file (PNG, JPEG, PNM, BMP, TIFF; "-": standard input) with the file's own
    type and channels: a NumPy array of uint8, uint16 or float32, H x W for gray, H x W x 3 or
    H x W x 4 for colour (a JPEG's EXIF orientation applied), as the command line reads it.

    ``device="cuda"``: the image in GPU memory, a CuPy array (a PyTorch tensor where there is no
    CuPy; else an object with ``__cuda_array_interface__``), of the current CUDA device. A JPEG is
    decoded there by nvJPEG where the library was built with it and the file suits it, any other
    file on the CPU and copied up. ``return_info=True`` returns ``(image, FileInfo)``, whose
    ``codec`` says which ("nvjpeg" or "cpu").

    Raises :class:`FileError` (an OSError) naming the file when it is missing, unreadable, no
    image or damaged, :class:`NoDeviceError` for ``device="cuda"`` without a GPU."""
    if device not in (None, "cpu", "cuda"):
        raise ValueError('imread: device must be None, "cpu" or "cuda", got %r' % (device,))
    name = _path_bytes(path, "imread")
    img = _lib.ImageC()
    info = _lib.FileInfoC()
    err = ctypes.create_string_buffer(_ERROR_SIZE)
    memory = _lib.DEVICE if device == "cuda" else _lib.HOST
    status = _clib.filterview_image_read(name, memory, ctypes.byref(img), ctypes.byref(info), err,
                                         _ERROR_SIZE)
    if status != _lib.FV_OK:
        raise _file_error(status, _text(err.value))
    if memory == _lib.DEVICE:
        image = _device_array(_DeviceFile(img))
    else:
        try:
            shape, strides = _shape_of(img)
            raw = (ctypes.c_uint8 * (img.pitch * (img.height - 1) + strides[1] * img.width)) \
                .from_address(img.data)
            image = np.lib.stride_tricks.as_strided(
                np.frombuffer(raw, _NP_DTYPES[img.dtype]), shape, strides).copy()
        finally:
            _clib.filterview_image_free(ctypes.byref(img))
    return (image, _file_info(info)) if return_info else image


def _synchronize(op: _arrays.Operand) -> None:
    """Waits for the work CuPy or PyTorch has queued on the device (the array's pixels may still
    be being written): the library copies or encodes them on its own stream."""
    if op.kind == _arrays.KIND_CUPY:
        _arrays._cupy().cuda.runtime.deviceSynchronize()
    elif op.kind == _arrays.KIND_TORCH:
        _arrays._torch().cuda.synchronize(op.device)


def imwrite(path: Any, image: Image, *, quality: Optional[int] = None) -> FileInfo:
    """Writes `image` (NumPy, or a CUDA array: CuPy, PyTorch, ``__cuda_array_interface__``; uint8,
    uint16 or float32; H x W, H x W x 1, 3 or 4) to `path` as ``filterview -o`` writes it: the
    format by the name's ending (.png, .jpg/.jpeg, .pgm/.ppm/.pnm, .tif/.tiff; "-": PNG on
    standard output), through a temporary file renamed over the target, so that a failure leaves
    no half file. 16-bit PNG and TIFF, and float32 TIFF, keep every value. ``quality``: JPEG's,
    1..100 (None: 90).

    A uint8 gray or RGB device image written as JPEG is encoded on the GPU by nvJPEG where the
    library has it; any other device image is copied to the host and written there. Returns a
    :class:`FileInfo`: its ``note`` says what the file could not hold (alpha or 16 bits to JPEG,
    ...) and ``codec`` which codec wrote it. Raises, naming the file, :class:`ArgumentError` (a
    ValueError) for an ending filterview does not write, :class:`FileError` (an OSError) for a
    folder, a read-only file or a failed write; ValueError for a bad quality."""
    name = _path_bytes(path, "imwrite")
    if quality is not None and (isinstance(quality, bool) or not isinstance(
            quality, numbers.Integral) or not 1 <= quality <= 100):
        raise ArgumentError("imwrite: quality must be an integer 1..100, got %r" % (quality,))
    op = _arrays.operand(image, "image")
    if op.on_device:
        _synchronize(op)
    img = op.image()
    opt = _lib.WriteOptionsC(int(quality or 0))
    info = _lib.FileInfoC()
    err = ctypes.create_string_buffer(_ERROR_SIZE)
    status = _clib.filterview_image_write(name, ctypes.byref(img), ctypes.byref(opt),
                                          ctypes.byref(info), err, _ERROR_SIZE)
    if status != _lib.FV_OK:
        raise _file_error(status, _text(err.value))
    return _file_info(info)


# ---- benchmarking ------------------------------------------------------------------------------

class BenchRow(NamedTuple):
    """One variant's time: the median over the timed runs, in milliseconds (nan when the variant
    declines the case)."""

    variant: str
    median_ms: float


def _bench_source(image_or_shape: Any) -> np.ndarray:
    if isinstance(image_or_shape, (tuple, list)) and all(
            isinstance(s, numbers.Integral) for s in image_or_shape):
        shape = tuple(int(s) for s in image_or_shape)
        _arrays.check_shape(shape, "bench shape")
        return np.random.default_rng(12345).integers(0, 256, size=shape, dtype=np.uint8)
    return np.ascontiguousarray(_arrays.to_host(image_or_shape, "image"))


def bench(filter: str, image_or_shape: Any, variants: Optional[Sequence[str]] = None,
          runs: int = 20, warmup: int = 3, **params: Any) -> List[BenchRow]:
    """Times :meth:`Context.run` of `filter` for each variant; returns one :class:`BenchRow`
    (variant, median_ms) per variant.

    `image_or_shape`: an image, or a shape (H, W) / (H, W, C) for random pixels. `params`: the
    filter's keywords (and ``iterations``). The context is made before timing (its allocation
    and set-up are not timed); `warmup` runs are not timed; then the median of `runs` runs.

    What is measured: with a CUDA device and CuPy importable, GPU variants run on device (CuPy)
    arrays on a stream of their own, each run between two CUDA events recorded on that stream
    (``cupy.cuda.Event``): the GPU time of one run (the filter's kernels, and whatever else the
    run enqueues), not the Python call. By default every GPU variant is timed then. Otherwise,
    and for the reference ("cpu") always, runs take host (NumPy) images and are timed with
    ``time.perf_counter`` around the call: wall time including the Python call (and, for a GPU
    variant without CuPy, the library's uploads and downloads). By default only "cpu" is timed
    then.
    """
    info = filter_info(filter)
    if isinstance(runs, bool) or not isinstance(runs, numbers.Integral) or runs < 1:
        raise ArgumentError("bench: runs must be an integer >= 1, got %r" % (runs,))
    if isinstance(warmup, bool) or not isinstance(warmup, numbers.Integral) or warmup < 0:
        raise ArgumentError("bench: warmup must be an integer >= 0, got %r" % (warmup,))
    host = _bench_source(image_or_shape)
    height, width = host.shape[0], host.shape[1]
    cupy = None
    if device_available()[0]:
        try:
            import cupy  # noqa: PLC0415
        except ImportError:
            cupy = None
    if variants is None:
        if cupy is not None:
            variants = [v.name for v in info.variants if not v.on_host]
        else:
            variants = [info.reference or "cpu"]
    elif isinstance(variants, str):
        variants = [variants]
    rows: List[BenchRow] = []
    for name in variants:
        try:
            ctx = Context(info.name, width, height, variant=name, **params)
        except ArgumentError as e:
            if e.status == _lib.FV_ERR_UNSUPPORTED:
                rows.append(BenchRow(name, float("nan")))
                continue
            raise
        with ctx:
            times = []
            if ctx.on_host or cupy is None:
                dst = np.empty_like(host)
                for i in range(warmup + runs):
                    t0 = time.perf_counter()
                    ctx.run(host, dst)
                    t1 = time.perf_counter()
                    if i >= warmup:
                        times.append((t1 - t0) * 1e3)
            else:
                src_d = cupy.asarray(host)
                dst_d = cupy.empty_like(src_d)
                stream = cupy.cuda.Stream(non_blocking=True)
                start, end = cupy.cuda.Event(), cupy.cuda.Event()
                cupy.cuda.Device().synchronize()
                for i in range(warmup + runs):
                    start.record(stream)
                    ctx.run(src_d, dst_d, stream)
                    end.record(stream)
                    end.synchronize()
                    if i >= warmup:
                        times.append(cupy.cuda.get_elapsed_time(start, end))
            rows.append(BenchRow(name if name is not None else ctx.variant,
                                 float(statistics.median(times))))
    return rows


# ---- the module's names ------------------------------------------------------------------------

__all__ = [
    "__version__", "filters", "filter_info", "device_available", "device_count", "library_version",
    "apply",
    "Context", "compare", "Diff", "reach", "apply_batch", "bench", "BenchRow", "clear_cache", "cache_info",
    "FilterInfo", "ParamInfo", "VariantInfo", "Error", "ArgumentError", "NoDeviceError",
    "LibraryError", "imread", "imwrite", "FileInfo", "FileError",
]

def _publish() -> None:
    for name, info in _REGISTRY.items():
        if name.isidentifier() and not keyword.iskeyword(name) and name not in globals():
            globals()[name] = _make_function(info)
            __all__.append(name)


_publish()
