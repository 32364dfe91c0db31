"""Arrays as the C library sees them: NumPy arrays on the host; CuPy arrays, PyTorch CUDA tensors
and any object with ``__cuda_array_interface__`` (or DLPack) on the device, without copies.

Internal module: :mod:`filterview` uses it. CuPy and PyTorch are imported only when an array of
theirs is seen (they are then already in ``sys.modules``).
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from typing import Any, Optional, Tuple

import numpy as np

from . import _lib

KIND_NUMPY = "numpy"
KIND_TORCH_CPU = "torch-cpu"  # a host tensor, run through its NumPy view
KIND_CUPY = "cupy"
KIND_TORCH = "torch"
KIND_CAI = "cuda-array"  # some other library's __cuda_array_interface__

_DLPACK_CPU = 1
_DLPACK_CUDA = 2
_DLPACK_CUDA_HOST = 3
_DLPACK_CUDA_MANAGED = 13


# The library's dtypes (filterview_dtype), by NumPy name, and the typestrs of
# __cuda_array_interface__ that name them.
DTYPES = {"uint8": 0, "uint16": 1, "float32": 2}
_TYPESTRS = {"|u1": "uint8", "<u1": "uint8", ">u1": "uint8", "=u1": "uint8",
             "<u2": "uint16", "=u2": "uint16", "<f4": "float32", "=f4": "float32"}
if sys.byteorder == "big":  # pragma: no cover - the library runs little-endian machines only
    _TYPESTRS = {}


def dtype_code(dtype: Any, what: str) -> int:
    """filterview_dtype of a NumPy dtype; TypeError naming the three taken."""
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name not in DTYPES or (not isinstance(dtype, str) and not np.dtype(dtype).isnative):
        raise TypeError("%s must have dtype uint8, uint16 or float32, got %s" % (what, name))
    return DTYPES[name]


class Operand:
    """One image for filterview_run: its pointer, size, pitch, channels and memory, and the object
    that owns that memory (kept alive while the operand lives)."""

    __slots__ = ("obj", "kind", "ptr", "shape", "pitch", "channels", "memory", "stream", "device",
                 "readonly", "dtype")

    def __init__(self, obj, kind, ptr, shape, pitch, memory, stream=None, device=None,
                 readonly=False, dtype="uint8"):
        self.obj = obj
        self.kind = kind
        self.ptr = int(ptr)
        self.shape = tuple(int(s) for s in shape)
        self.pitch = int(pitch)
        self.channels = self.shape[2] if len(self.shape) == 3 else 1
        self.memory = memory
        self.stream = stream  # the producer's stream (__cuda_array_interface__ v3), or None
        self.device = device  # CUDA device ordinal where known
        self.readonly = readonly
        self.dtype = dtype  # "uint8", "uint16" or "float32"

    @property
    def itemsize(self) -> int:
        return np.dtype(self.dtype).itemsize

    @property
    def width(self) -> int:
        return self.shape[1]

    @property
    def height(self) -> int:
        return self.shape[0]

    @property
    def on_device(self) -> bool:
        return self.memory == _lib.DEVICE

    def extent(self) -> Tuple[int, int]:
        """[first byte, one past the last byte] the image covers."""
        return self.ptr, self.ptr + (self.height - 1) * self.pitch + \
            self.width * self.channels * self.itemsize

    def image(self) -> _lib.ImageC:
        return _lib.ImageC(self.ptr, self.width, self.height, self.pitch, self.channels,
                           self.memory, DTYPES[self.dtype])


# ---- shapes and layouts ----

def check_shape(shape, what: str) -> None:
    """H x W (gray), H x W x 1, H x W x 3 (RGB) or H x W x 4 (RGBA), H and W at least 1."""
    ok = len(shape) in (2, 3) and (len(shape) == 2 or shape[2] in (1, 3, 4))
    if not ok:
        raise ValueError("%s must be H x W (gray), H x W x 3 (RGB) or H x W x 4 (RGBA), got shape %s"
                         % (what, tuple(shape)))
    if shape[0] < 1 or shape[1] < 1:
        raise ValueError("%s is empty: shape %s" % (what, tuple(shape)))


def row_pitch(shape, strides, itemsize: int = 1) -> Optional[int]:
    """The row pitch in bytes when each row's pixels lie side by side (channels contiguous, one
    pixel after another, rows not overlapping and going forwards, and every element on its
    type's alignment); None otherwise."""
    h, w = shape[0], shape[1]
    c = shape[2] if len(shape) == 3 else 1
    if len(shape) == 3 and c > 1 and strides[2] != itemsize:
        return None
    if w > 1 and strides[1] != c * itemsize:
        return None
    if h == 1:
        return w * c * itemsize
    if strides[0] % itemsize:
        return None
    return strides[0] if strides[0] >= w * c * itemsize else None


def _c_strides(shape, itemsize: int = 1) -> Tuple[int, ...]:
    out, step = [], itemsize
    for s in reversed(shape):
        out.append(step)
        step *= s
    return tuple(reversed(out))


# ---- which library an object comes from ----

def _module_of(x) -> str:
    return type(x).__module__.split(".")[0]


def _is_torch(x) -> bool:
    return _module_of(x) == "torch" and "torch" in sys.modules


def _is_cupy(x) -> bool:
    return _module_of(x) == "cupy" and "cupy" in sys.modules


def _cupy():
    import cupy  # noqa: PLC0415 (lazily: only once a CuPy array is seen)
    return cupy


def _torch():
    import torch  # noqa: PLC0415
    return torch


# ---- streams ----

def stream_handle(stream) -> Optional[int]:
    """A cudaStream_t as an int from an int, a CuPy stream (.ptr), a PyTorch stream
    (.cuda_stream), an object with __cuda_stream__, or a ctypes pointer; None stays None."""
    if stream is None:
        return None
    if isinstance(stream, bool):
        raise TypeError("stream must be a CUDA stream, got %r" % (stream,))
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("ptr", "cuda_stream", "handle", "value"):
        v = getattr(stream, attr, None)
        if v is None:
            continue
        if hasattr(v, "value"):  # ctypes.c_void_p (Numba's handle)
            v = v.value or 0
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    raise TypeError("stream must be an int (a cudaStream_t), an object with .ptr (CuPy) or "
                    ".cuda_stream (PyTorch), got %r" % (stream,))


def default_stream(op: Operand) -> Optional[int]:
    """The stream a device operand's library works on now: __cuda_array_interface__'s stream (v3),
    else CuPy's or PyTorch's current stream; None for the default stream."""
    if op.stream is not None:
        return op.stream
    if op.kind == KIND_CUPY:
        return _cupy().cuda.get_current_stream().ptr or None
    if op.kind == KIND_TORCH:
        torch = _torch()
        return torch.cuda.current_stream(op.obj.device).cuda_stream or None
    return None


class _StreamHandle:
    """A raw cudaStream_t as the CUDA stream protocol (__cuda_stream__) sees it."""

    def __init__(self, handle: int):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


_cupy_streams: dict = {}


def _cupy_stream(handle: Optional[int]):
    """A CuPy stream object for a raw handle (CuPy's current stream when it is that one)."""
    cupy = _cupy()
    if not handle or handle == 1:  # the default stream (1: cudaStreamLegacy)
        return cupy.cuda.Stream.null
    current = cupy.cuda.get_current_stream()
    if current.ptr == handle:
        return current
    s = _cupy_streams.get(handle)
    if s is None:
        from_external = getattr(cupy.cuda.Stream, "from_external", None)
        s = None
        if from_external is not None:
            try:
                s = from_external(_StreamHandle(handle))
            except Exception:  # an older or different signature
                s = None
        if s is None:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                s = cupy.cuda.ExternalStream(handle)
        if len(_cupy_streams) > 32:
            _cupy_streams.clear()
        _cupy_streams[handle] = s
    return s


@contextlib.contextmanager
def on_stream(kind: str, handle: Optional[int], device: Optional[int]):
    """Makes `handle` the current stream (and `device` the current device) of CuPy or PyTorch,
    so that their copies and allocations are ordered with filterview's work on it."""
    if kind == KIND_CUPY:
        cupy = _cupy()
        dev = cupy.cuda.Device(device) if device is not None else contextlib.nullcontext()
        with dev:
            with _cupy_stream(handle):
                yield
    elif kind == KIND_TORCH:
        torch = _torch()
        dev = torch.cuda.device(device) if device is not None else contextlib.nullcontext()
        with dev:
            if handle:
                with torch.cuda.stream(torch.cuda.ExternalStream(handle)):
                    yield
            else:
                yield
    else:
        yield


# ---- operands ----

def _from_numpy(a: np.ndarray, what: str, kind=KIND_NUMPY, owner=None) -> Operand:
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError("%s is a numpy.ma masked array: the filters would ignore its mask; pass "
                        "numpy.ma.filled(x, value) or x.data" % what)
    dtype_code(a.dtype, what)
    check_shape(a.shape, what)
    pitch = row_pitch(a.shape, a.strides, a.itemsize)
    if pitch is None or a.__array_interface__["data"][0] % a.itemsize:
        a = np.ascontiguousarray(a)
        pitch = row_pitch(a.shape, a.strides, a.itemsize)
    return Operand(a if owner is None else (a, owner), kind, a.__array_interface__["data"][0],
                   a.shape, pitch, _lib.HOST, readonly=not a.flags.writeable,
                   dtype=a.dtype.name)


def _cai(x) -> dict:
    if _is_torch(x):
        x = x.detach()
    return x.__cuda_array_interface__


def _from_cai(x, what: str, allow_copy: bool) -> Operand:
    kind = KIND_CUPY if _is_cupy(x) else KIND_TORCH if _is_torch(x) else KIND_CAI
    cai = _cai(x)
    typestr = cai.get("typestr", "")
    if typestr not in _TYPESTRS:
        raise TypeError("%s must have dtype uint8, uint16 or float32 ('|u1', '<u2', '<f4'), got "
                        "typestr %r" % (what, typestr))
    dtype = _TYPESTRS[typestr]
    itemsize = np.dtype(dtype).itemsize
    if cai.get("mask") is not None:
        raise ValueError("%s: masked CUDA arrays are not supported" % what)
    shape = tuple(int(s) for s in cai["shape"])
    check_shape(shape, what)
    strides = cai.get("strides")
    strides = _c_strides(shape, itemsize) if strides is None else tuple(int(s) for s in strides)
    ptr, readonly = cai["data"]
    stream = cai.get("stream") if int(cai.get("version", 0)) >= 3 else None
    device = None
    if kind == KIND_CUPY:
        device = x.device.id
    elif kind == KIND_TORCH:
        device = x.device.index
    pitch = row_pitch(shape, strides, itemsize)
    if pitch is None:
        if not allow_copy:
            return None
        if kind == KIND_CAI:
            raise ValueError("%s: each row's pixels must lie side by side (strides %s); pass a "
                             "contiguous array" % (what, strides))
        op = Operand(x, kind, ptr, shape, 0, _lib.DEVICE, stream, device, dtype=dtype)
        handle = default_stream(op)
        with on_stream(kind, handle, device):
            x = _cupy().ascontiguousarray(x) if kind == KIND_CUPY else x.contiguous()
        return _from_cai_contiguous(x, kind, shape, stream if stream is not None else handle,
                                    device, dtype)
    return Operand(x, kind, ptr or 0, shape, pitch, _lib.DEVICE, stream, device, bool(readonly),
                   dtype)


def _from_cai_contiguous(x, kind, shape, stream, device, dtype="uint8") -> Operand:
    cai = _cai(x)
    row = shape[1] * (shape[2] if len(shape) == 3 else 1) * np.dtype(dtype).itemsize
    return Operand(x, kind, cai["data"][0], shape, row, _lib.DEVICE, stream, device, dtype=dtype)


def _refuse_masked(x: Any, what: str) -> None:
    """A numpy.ma masked array is an ndarray whose mask the filters would never see: refused,
    with the two ways to say what the masked pixels are."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError("%s is a numpy.ma masked array, whose mask the filters would ignore; "
                        "pass %s.filled(value) or %s.data" % (what, what, what))


def operand(x: Any, what: str = "image") -> Operand:
    """The operand for an input image; copies it (on the host, or on the device on its stream)
    when its rows' pixels do not lie side by side."""
    _refuse_masked(x, what)
    if isinstance(x, np.ndarray):
        return _from_numpy(x, what)
    if _is_torch(x):  # (before hasattr: a tensor that requires grad raises RuntimeError there)
        if x.is_cuda:
            return _from_cai(x, what, allow_copy=True)
        return _from_numpy(x.detach().numpy(), what, KIND_TORCH_CPU, owner=x)
    if hasattr(x, "__cuda_array_interface__"):
        return _from_cai(x, what, allow_copy=True)
    if hasattr(x, "__dlpack_device__") and hasattr(x, "__dlpack__"):
        dev_type, _ = x.__dlpack_device__()
        if dev_type in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
            return _from_numpy(np.from_dlpack(x), what)
        if dev_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            try:
                cupy = _cupy()
            except ImportError:
                raise TypeError("%s: a DLPack CUDA array needs CuPy to be read; pass an object "
                                "with __cuda_array_interface__" % what) from None
            return _from_cai(cupy.from_dlpack(x), what, allow_copy=True)
    a = np.asarray(x)
    if a.dtype == object:
        raise TypeError("%s must be a NumPy array (uint8, uint16, float32) or a CUDA array, got %s"
                        % (what, type(x).__name__))
    return _from_numpy(a, what)


def output(out: Any, like: Operand) -> Tuple[Operand, Any]:
    """The operand for a caller's `out`: (operand to write, None), or (a temporary, out) when
    out's layout cannot be written directly (it is copied into out after the run)."""
    what = "out"
    _refuse_masked(out, what)
    if isinstance(out, np.ndarray) or (_is_torch(out) and not out.is_cuda):
        a = out if isinstance(out, np.ndarray) else out.detach().numpy()
        if a.dtype.name != like.dtype or not a.dtype.isnative:
            raise TypeError("out must have the image's dtype %s, got %s" % (like.dtype, a.dtype))
        if tuple(a.shape) != like.shape:
            raise ValueError("out has shape %s, the image %s" % (tuple(a.shape), like.shape))
        if not a.flags.writeable:
            raise ValueError("out is read-only")
        pitch = row_pitch(a.shape, a.strides, a.itemsize)
        if pitch is not None and a.__array_interface__["data"][0] % a.itemsize == 0:
            return Operand(out, KIND_NUMPY, a.__array_interface__["data"][0], a.shape, pitch,
                           _lib.HOST, dtype=like.dtype), None
        return new_like_host(like.shape, like.dtype), a
    if (_is_torch(out) and out.is_cuda) or hasattr(out, "__cuda_array_interface__"):
        op = _from_cai(out, what, allow_copy=False)
        if op is not None and op.dtype != like.dtype:
            raise TypeError("out must have the image's dtype %s, got %s" % (like.dtype, op.dtype))
        if op is not None and op.shape != like.shape:
            raise ValueError("out has shape %s, the image %s" % (op.shape, like.shape))
        if op is not None and op.readonly:
            raise ValueError("out is read-only")
        if op is not None:
            return op, None
        kind = KIND_CUPY if _is_cupy(out) else KIND_TORCH if _is_torch(out) else KIND_CAI
        if kind == KIND_CAI:
            raise ValueError("out: each row's pixels must lie side by side; pass a contiguous array")
        cai = _cai(out)
        shape = tuple(int(s) for s in cai["shape"])
        if shape != like.shape:
            raise ValueError("out has shape %s, the image %s" % (shape, like.shape))
        device = out.device.id if kind == KIND_CUPY else out.device.index
        tmp_owner = Operand(out, kind, 0, shape, 0, _lib.DEVICE, None, device, dtype=like.dtype)
        return new_like(tmp_owner, None), out
    raise TypeError("out must be a NumPy array or a CUDA array, got %s" % type(out).__name__)


def new_like_host(shape, dtype="uint8") -> Operand:
    a = np.empty(shape, dtype)
    return Operand(a, KIND_NUMPY, a.__array_interface__["data"][0], shape,
                   shape[1] * (shape[2] if len(shape) == 3 else 1) * a.itemsize, _lib.HOST,
                   dtype=dtype)


def new_like(src: Operand, stream: Optional[int]) -> Operand:
    """A new, C-contiguous image of src's shape in src's library and memory (allocated on
    `stream` so that the allocator orders its reuse after the run)."""
    if src.kind == KIND_NUMPY:
        return new_like_host(src.shape, src.dtype)
    if src.kind == KIND_TORCH_CPU:
        torch = _torch()
        t = torch.empty(src.shape, dtype=getattr(torch, src.dtype))
        op = _from_numpy(t.numpy(), "result", KIND_TORCH_CPU, owner=t)
        op.obj = t
        return op
    if src.kind == KIND_CUPY or src.kind == KIND_CAI:
        try:
            cupy = _cupy()
        except ImportError:
            raise ValueError("a CUDA array that is neither CuPy's nor PyTorch's needs out= (or "
                             "CuPy installed) for the result") from None
        with on_stream(KIND_CUPY, stream, src.device):
            a = cupy.empty(src.shape, dtype=src.dtype)
        return _from_cai_contiguous(a, KIND_CUPY, src.shape, None, src.device, src.dtype)
    if src.kind == KIND_TORCH:
        torch = _torch()
        with on_stream(KIND_TORCH, stream, src.device):
            t = torch.empty(src.shape, dtype=getattr(torch, src.dtype), device=src.obj.device)
        return _from_cai_contiguous(t, KIND_TORCH, src.shape, None, src.device, src.dtype)
    raise AssertionError(src.kind)


def copy_into(target: Any, tmp: Operand, stream: Optional[int]) -> None:
    """Copies a temporary result into the caller's `out` (on `stream` for device arrays)."""
    if isinstance(target, np.ndarray):
        target[...] = tmp.obj
    elif _is_cupy(target):
        with on_stream(KIND_CUPY, stream, target.device.id):
            target[...] = tmp.obj
    elif _is_torch(target):
        with on_stream(KIND_TORCH, stream, target.device.index):
            target.copy_(tmp.obj)
    else:
        raise AssertionError(type(target))


def copy_of(src: Operand, stream: Optional[int]) -> Operand:
    """A private copy of an input (when the output overlaps it without being it)."""
    if not src.on_device:
        a = src.obj[0] if isinstance(src.obj, tuple) else src.obj
        return _from_numpy(np.array(a, copy=True), "image")
    if src.kind == KIND_CUPY:
        with on_stream(KIND_CUPY, stream, src.device):
            c = src.obj.copy()
        return _from_cai_contiguous(_cupy().ascontiguousarray(c), KIND_CUPY, src.shape, None,
                                    src.device, src.dtype)
    if src.kind == KIND_TORCH:
        with on_stream(KIND_TORCH, stream, src.device):
            c = src.obj.detach().clone(memory_format=_torch().contiguous_format)
        return _from_cai_contiguous(c, KIND_TORCH, src.shape, None, src.device, src.dtype)
    return src  # another library's array: the C library stages overlapping runs itself


def result_object(op: Operand) -> Any:
    """What the caller gets back for a new result operand."""
    return op.obj


def to_host(x: Any, what: str) -> np.ndarray:
    """A host NumPy view or copy of an image (CuPy: .get(); PyTorch: .cpu().numpy())."""
    if isinstance(x, np.ndarray):
        return x
    if _is_cupy(x):
        return x.get()
    if _is_torch(x):
        return x.detach().cpu().numpy()
    if hasattr(x, "__cuda_array_interface__"):
        try:
            return _cupy().asnumpy(_cupy().asarray(x))
        except ImportError:
            raise TypeError("%s: a CUDA array that is neither CuPy's nor PyTorch's needs CuPy to "
                            "be read back" % what) from None
    return np.asarray(x)


# ---- stacks ----

def _stack_shape(shape, what: str) -> None:
    if len(shape) not in (3, 4) or (len(shape) == 4 and shape[3] not in (1, 3, 4)):
        raise ValueError("%s must be a stack: N x H x W (gray) or N x H x W x C (C = 1, 3, 4), "
                         "got shape %s" % (what, tuple(shape)))


class StackOperands:
    """The images of a stack as operands: `count` like `first`, the i-th `step` bytes after it.
    An operand is made only when indexed; :meth:`images` gives the C array of all of them in one
    vectorised step (a Python object per image would cost more than the image's filter)."""

    def __init__(self, first: Operand, count: int, step: int, owner: Any):
        self.first, self.count, self.step, self.owner = first, count, step, owner

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> Operand:
        if i < 0:
            i += self.count
        if not 0 <= i < self.count:
            raise IndexError(i)
        f = self.first
        return Operand(self.owner, f.kind, f.ptr + i * self.step, f.shape, f.pitch, f.memory,
                       f.stream, f.device, f.readonly, f.dtype)

    def images(self) -> Any:
        """(filterview_image * count), filled from one NumPy record array that it keeps."""
        fields = [name for name, _ in _lib.ImageC._fields_]
        layout = np.dtype({"names": fields,
                           "formats": [np.uint64 if ctype in (ctypes.c_size_t, ctypes.c_void_p)
                                       else np.int32 for _, ctype in _lib.ImageC._fields_],
                           "offsets": [getattr(_lib.ImageC, name).offset for name in fields],
                           "itemsize": ctypes.sizeof(_lib.ImageC)})
        records = np.zeros(self.count, layout)
        one = self.first.image()
        for name in fields:
            records[name] = getattr(one, name) or 0
        records["data"] = np.uint64(self.first.ptr) + \
            np.arange(self.count, dtype=np.uint64) * np.uint64(self.step)
        return (_lib.ImageC * self.count).from_buffer(records)


def _image_operands(first: Operand, count: int, step: int, owner: Any) -> StackOperands:
    return StackOperands(first, count, step, owner)


def stack_operands(stack: Any, what: str, writable: bool = False) -> list:
    """One operand per image of an N x H x W [x C] stack, each a view into the stack: its
    pointer is the first image's plus i times the stack's first stride (a C-contiguous copy is
    made first where the stack is not one, except for `out`, which must be)."""
    if isinstance(stack, np.ndarray) or (_is_torch(stack) and not stack.is_cuda):
        a = stack if isinstance(stack, np.ndarray) else stack.detach().numpy()
        _stack_shape(a.shape, what)
        if writable and not a.flags.writeable:
            raise ValueError("%s is read-only" % what)
        if not a.flags.c_contiguous:
            if writable:
                raise ValueError("%s must be C-contiguous" % what)
            a = np.ascontiguousarray(a)
        kind = KIND_NUMPY if isinstance(stack, np.ndarray) else KIND_TORCH_CPU
        first = _from_numpy(a[0], what, kind, owner=a)
        return _image_operands(first, a.shape[0], a.strides[0], (a, stack))
    if (_is_torch(stack) and stack.is_cuda) or hasattr(stack, "__cuda_array_interface__"):
        shape = tuple(int(s) for s in _cai(stack)["shape"])
        _stack_shape(shape, what)
        contiguous = (stack.is_contiguous() if _is_torch(stack)
                      else stack.flags.c_contiguous if _is_cupy(stack)
                      else _cai(stack).get("strides") is None)
        if not contiguous:
            if writable or not (_is_torch(stack) or _is_cupy(stack)):
                raise ValueError("%s must be C-contiguous" % what)
            stack = stack.contiguous() if _is_torch(stack) else _cupy().ascontiguousarray(stack)
        first = _from_cai(stack[0], what, allow_copy=False)
        step = int(np.prod(shape[1:])) * first.itemsize
        return _image_operands(first, shape[0], step, stack)
    return stack_operands(np.asarray(stack), what, writable)


def new_stack_like(stack: Any, stream: Optional[int]) -> Any:
    """An empty stack of the same shape, dtype and library (on `stream` for device arrays)."""
    if isinstance(stack, np.ndarray):
        return np.empty(stack.shape, stack.dtype)
    if _is_torch(stack):
        torch = _torch()
        if not stack.is_cuda:
            return torch.empty(stack.shape, dtype=stack.dtype)
        with on_stream(KIND_TORCH, stream, stack.device.index):
            return torch.empty(stack.shape, dtype=stack.dtype, device=stack.device)
    if _is_cupy(stack):
        with on_stream(KIND_CUPY, stream, stack.device.id):
            return _cupy().empty(stack.shape, dtype=stack.dtype)
    return np.empty(np.asarray(stack).shape, np.asarray(stack).dtype)
