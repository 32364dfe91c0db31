"""Finding and loading libfilterview, and its C declarations for ctypes.

Internal module: everything public is in :mod:`filterview`. The declarations below mirror
``include/libfilterview.h`` one for one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import POINTER, c_char_p, c_double, c_int, c_longlong, c_size_t, c_void_p
from typing import List, Optional, Tuple

#: The library major version this module is written for (the soname's number).
EXPECTED_MAJOR = 0
SONAME = "libfilterview.so.%d" % EXPECTED_MAJOR

# ---- fv_status ----
FV_OK = 0
FV_ERR_ARG = 1
FV_ERR_IO = 2
FV_ERR_FORMAT = 3
FV_ERR_SIZE = 4
FV_ERR_NO_DEVICE = 5
FV_ERR_MEMORY = 6
FV_ERR_CUDA = 7
FV_ERR_GL = 8
FV_ERR_UNSUPPORTED = 9

# ---- filterview_param_type ----
PARAM_INT = 0
PARAM_REAL = 1
PARAM_CHOICE = 2
PARAM_IMAGE = 3
PARAM_TYPE_NAMES = {PARAM_INT: "int", PARAM_REAL: "real", PARAM_CHOICE: "choice",
                    PARAM_IMAGE: "image"}

# ---- filterview_role ----
ROLE_NAMES = {0: "teaching", 1: "fastest", 2: "peer", 3: "reference"}

# ---- filterview_memory ----
HOST = 1
DEVICE = 2


class _Sized(ctypes.Structure):
    """A struct that starts with its own size (libfilterview.h, "growing"): set on creation, so
    that the library reads and fills only the fields this module knows."""

    def __init__(self, *args, **kwargs):
        super().__init__(ctypes.sizeof(self), *args, **kwargs)


class ParamInfoC(_Sized):
    """filterview_param_info"""

    _fields_ = [
        ("size", c_size_t),
        ("name", c_char_p),
        ("help", c_char_p),
        ("type", c_int),
        ("min", c_double),
        ("max", c_double),
        ("default_value", c_double),
        ("odd_only", c_int),
        ("auto_means", c_char_p),
        ("choices", POINTER(c_char_p)),
        ("n_choices", c_int),
    ]


class VariantInfoC(_Sized):
    """filterview_variant_info"""

    _fields_ = [
        ("size", c_size_t),
        ("name", c_char_p),
        ("summary", c_char_p),
        ("role", c_int),
        ("on_host", c_int),
    ]


class ImageC(_Sized):
    """filterview_image"""

    _fields_ = [
        ("size", c_size_t),
        ("data", c_void_p),
        ("width", c_int),
        ("height", c_int),
        ("pitch", c_size_t),
        ("channels", c_int),
        ("memory", c_int),
        ("dtype", c_int),
    ]


class ParamImageC(_Sized):
    """filterview_param_image"""

    _fields_ = [
        ("size", c_size_t),
        ("name", c_char_p),
        ("image", POINTER(ImageC)),
    ]


class DiffC(_Sized):
    """filterview_diff"""

    _fields_ = [
        ("size", c_size_t),
        ("max_abs", c_int),
        ("mean_abs", c_double),
        ("differing", c_longlong),
        ("max_abs_value", c_double),
    ]


# ---- filterview_codec ----
CODEC_NAMES = {0: "cpu", 1: "nvjpeg"}


class FileInfoC(_Sized):
    """filterview_file_info"""

    _fields_ = [
        ("size", c_size_t),
        ("format", ctypes.c_char * 8),
        ("codec", c_int),
        ("lossy", c_int),
        ("note", ctypes.c_char * 320),
    ]


class WriteOptionsC(_Sized):
    """filterview_write_options"""

    _fields_ = [
        ("size", c_size_t),
        ("jpeg_quality", c_int),
    ]


def _declare(lib: ctypes.CDLL) -> None:
    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)

    fn("filterview_status_name", c_char_p, c_int)
    fn("filterview_version", c_char_p)
    fn("filterview_device_available", c_int, c_char_p, c_size_t)
    fn("filterview_device_count", c_int)
    fn("filterview_filter_count", c_int)
    fn("filterview_filter_name", c_char_p, c_int)
    fn("filterview_filter_summary", c_char_p, c_char_p)
    fn("filterview_filter_max_iterations", c_int, c_char_p)
    fn("filterview_param_count", c_int, c_char_p)
    fn("filterview_param_get", c_int, c_char_p, c_int, POINTER(ParamInfoC))
    fn("filterview_variant_count", c_int, c_char_p)
    fn("filterview_variant_get", c_int, c_char_p, c_int, POINTER(VariantInfoC))
    fn("filterview_context_create", c_int, POINTER(c_void_p), c_char_p, c_char_p, c_int, c_int,
       c_char_p, c_char_p, c_size_t)
    fn("filterview_context_create_typed", c_int, POINTER(c_void_p), c_char_p, c_char_p, c_int,
       c_int, c_int, c_char_p, c_char_p, c_size_t)
    fn("filterview_context_create_on", c_int, POINTER(c_void_p), c_int, c_char_p, c_char_p,
       c_int, c_int, c_int, c_char_p, c_char_p, c_size_t)
    fn("filterview_context_create_with_images", c_int, POINTER(c_void_p), c_int, c_char_p,
       c_char_p, c_int, c_int, c_int, c_char_p, POINTER(ParamImageC), c_int, c_char_p, c_size_t)
    fn("filterview_filter_reach", c_int, c_char_p, c_char_p, POINTER(c_longlong), c_char_p,
       c_size_t)
    fn("filterview_variant_dtypes", ctypes.c_uint, c_char_p, c_char_p)
    fn("filterview_variant_borders", ctypes.c_uint, c_char_p, c_char_p)
    fn("filterview_run", c_int, c_void_p, POINTER(ImageC), POINTER(ImageC), c_void_p)
    fn("filterview_run_batch", c_int, c_void_p, POINTER(ImageC), POINTER(ImageC), c_int, c_void_p)
    fn("filterview_context_error", c_char_p, c_void_p)
    fn("filterview_context_variant", c_char_p, c_void_p)
    fn("filterview_context_params", c_char_p, c_void_p)
    fn("filterview_context_device_bytes", c_size_t, c_void_p)
    fn("filterview_context_destroy", None, c_void_p)
    fn("filterview_compare", c_int, POINTER(ImageC), POINTER(ImageC), POINTER(DiffC), c_char_p,
       c_size_t)
    fn("filterview_image_read", c_int, c_char_p, c_int, POINTER(ImageC), POINTER(FileInfoC),
       c_char_p, c_size_t)
    fn("filterview_image_free", None, POINTER(ImageC))
    fn("filterview_image_write", c_int, c_char_p, POINTER(ImageC), POINTER(WriteOptionsC),
       POINTER(FileInfoC), c_char_p, c_size_t)


def _candidates() -> List[Tuple[str, str]]:
    """(where the name came from, path or name) in the order they are tried."""
    out: List[Tuple[str, str]] = []
    try:
        from ._libpath import LIBRARY  # written by CMake into the build tree and the install
    except ImportError:
        LIBRARY = None
    if LIBRARY:
        out.append(("_libpath.py", str(LIBRARY)))
    found = ctypes.util.find_library("filterview")
    if found:
        out.append(("ctypes.util.find_library", found))
    out.append(("the dynamic loader", SONAME))
    return out


def _major(version: str) -> Optional[int]:
    try:
        return int(version.split(".")[0])
    except ValueError:
        return None


def load() -> Tuple[ctypes.CDLL, str]:
    """Loads libfilterview: $FILTERVIEW_LIBRARY, else the path in _libpath.py, else
    ctypes.util.find_library("filterview"), else libfilterview.so.0 through the dynamic loader.
    Returns (the library, the path or name it was loaded from); raises ImportError."""
    hint = ("build it (cmake -S . -B build && cmake --build build) and use "
            "PYTHONPATH=build/python, or set FILTERVIEW_LIBRARY=/path/to/%s" % SONAME)
    env = os.environ.get("FILTERVIEW_LIBRARY")
    if env:
        try:
            lib = ctypes.CDLL(env)
        except OSError as e:
            raise ImportError("filterview: FILTERVIEW_LIBRARY=%s cannot be loaded: %s" % (env, e))
        where = env
    else:
        lib = None
        tried = []
        for origin, name in _candidates():
            try:
                lib = ctypes.CDLL(name)
                where = name
                break
            except OSError as e:
                tried.append("%s (%s): %s" % (name, origin, e))
        if lib is None:
            raise ImportError("filterview: cannot find the C library %s; tried %s. To fix: %s"
                              % (SONAME, "; ".join(tried), hint))
    try:
        _declare(lib)
    except AttributeError as e:
        raise ImportError("filterview: %s is not libfilterview (or too old): %s" % (where, e))
    version = (lib.filterview_version() or b"").decode("utf-8", "replace")
    if _major(version) != EXPECTED_MAJOR:
        raise ImportError("filterview: %s is version %s, this module needs %d.x (%s); %s"
                          % (where, version or "unknown", EXPECTED_MAJOR, SONAME, hint))
    return lib, where


def text(b: Optional[bytes]) -> str:
    """A C string as str ("" for NULL)."""
    return b.decode("utf-8", "replace") if b else ""
