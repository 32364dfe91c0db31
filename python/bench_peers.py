#!/usr/bin/env python3
"""bench_peers.py [--types] [OUT.md]: filterview's Python module against what a Python user would
reach for otherwise (CuPy's cupyx.scipy, PyTorch, OpenCV), in one process on one GPU.

--types prints another table instead, row by row as each is measured: every filter x pixel type
(uint8, uint16, float32) at 3840x2160 and 9984x6400, RGBA on the device, filterview's fastest
variant beside NVIDIA NPP's function for that type (the `npp` variant; "none" where the build has
no NPP peer for the filter, "declines" where its NPP function does not take the case) and
cupyx.scipy.ndimage on the same type, each with its share of the copy bandwidth: the
time of a device-to-device copy of the same image (read once, written once) over the filter's.
It runs each case 5 times after 1 untimed run (1 time when a run takes over a second), about
three minutes on an H100.

Every GPU figure is the median of at least 20 timed runs after 3 untimed ones, each run between
two CUDA events (cupy.cuda.Event) recorded on one non-default stream: the GPU time of the call as
the stream sees it (kernels, and any gap while the host is still launching). Images: random
uint8 RGBA, 3840x2160 and 512x512, already on the device (CuPy arrays); results go into arrays
allocated once. filterview runs its fastest variant through the module's functions (the
context cache makes repeated calls allocate nothing). Peers run on the same uint8 data where they
take uint8 (cupyx.scipy.ndimage), or on float32 copies made before timing (FFT convolution,
PyTorch): their conversions are not timed. Canny is compared with OpenCV's CPU cv2.Canny on the
gray image, both timed with time.perf_counter around the call (filterview: until its stream is
done). A peer missing or failing prints "-" and the rest goes on.

Needs numpy, cupy and the filterview module (PYTHONPATH=build/python); torch, cv2 and scipy are
optional. Prints a Markdown table and writes it to OUT.md when given.
"""

import datetime
import math
import os
import statistics
import sys
import time
import traceback

import numpy as np

try:
    import cupy
except ImportError:
    sys.exit("bench_peers.py needs CuPy (and a CUDA device)")

# python/filterview beside this script is the source, without the built library's path: the
# module of PYTHONPATH (build/python) comes first, this folder last
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _HERE] + [_HERE]
import filterview  # noqa: E402

RUNS = 21
WARMUP = 3
SLOW_MS = 1500.0  # one run slower than this: 3 timed runs (marked *)
TOO_SLOW_MS = 20000.0  # one run slower than this: not timed ("-")


def optional(name):
    try:
        return __import__(name)
    except Exception:  # ImportError, or a broken install
        return None


torch = optional("torch")
cv2 = optional("cv2")
try:
    import cupyx.scipy.ndimage as cundimage
except Exception:
    cundimage = None
try:
    import cupyx.scipy.signal as cusignal
except Exception:
    cusignal = None

STREAM = cupy.cuda.Stream(non_blocking=True)
notes = []


class Skipped(Exception):
    pass


def gpu_ms(fn, runs=RUNS, warmup=WARMUP):
    """Median CUDA-event time of fn() (which enqueues its work on STREAM), in ms; a string
    suffix "*" when it was slow and ran only 3 times."""
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    with STREAM:
        first = None
        for i in range(max(1, warmup)):
            start.record(STREAM)
            fn()
            end.record(STREAM)
            end.synchronize()
            first = cupy.cuda.get_elapsed_time(start, end)
        if first > TOO_SLOW_MS:
            raise Skipped("one run took %.1f s" % (first / 1e3))
        n = runs if first < SLOW_MS else 3
        times = []
        for _ in range(n):
            start.record(STREAM)
            fn()
            end.record(STREAM)
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times), n < runs


def host_ms(fn, runs=RUNS, warmup=WARMUP):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), False


def attempt(what, fn):
    """(ms, slow) or None when it failed (said on stderr)."""
    try:
        return fn()
    except Skipped as e:
        notes.append("%s: not timed (%s)" % (what, e))
    except Exception as e:  # a peer that is missing or fails: "-" and go on
        print("bench_peers: %s failed: %s" % (what, e), file=sys.stderr)
        traceback.print_exc(limit=2, file=sys.stderr)
    return None


rows = []


def row(operation, ours, peer, theirs):
    rows.append((operation, ours, peer, theirs))


def fmt(t):
    if t is None:
        return "-"
    ms, slow = t
    return ("%.3f" % ms if ms < 10 else "%.2f" % ms if ms < 100 else "%.1f" % ms) + \
        ("*" if slow else "")


def speedup(ours, theirs):
    if ours is None or theirs is None or ours[0] <= 0:
        return "-"
    ratio = theirs[0] / ours[0]
    return "%.2fx" % ratio if ratio < 1 else "%.1fx" % ratio if ratio < 100 else "%.0fx" % ratio


def fastest(name):
    return filterview.filter_info(name).fastest or "?"


# ---- the cases -----------------------------------------------------------------------------------

def images(w, h):
    rng = np.random.default_rng(2026)
    host = rng.integers(0, 256, size=(h, w, 4), dtype=np.uint8)
    with STREAM:
        dev = cupy.asarray(host)
        out = cupy.empty_like(dev)
    STREAM.synchronize()
    return host, dev, out


def bench_size(w, h):
    size = "%dx%d" % (w, h)
    host, src, dst = images(w, h)

    # box filter vs uniform_filter (uint8 in and out, replicated borders)
    for r in (1, 8, 64):
        ours = attempt("box r=%d" % r, lambda: gpu_ms(
            lambda: filterview.box(src, radius=r, out=dst, stream=STREAM)))
        peer_out = cupy.empty_like(src)
        theirs = attempt("uniform_filter r=%d" % r, lambda: gpu_ms(
            lambda: cundimage.uniform_filter(src, size=(2 * r + 1, 2 * r + 1, 1), mode="nearest",
                                             output=peer_out)))
        row("box r=%d, %s (%s)" % (r, size, fastest("box")), ours,
            "cupyx.scipy.ndimage.uniform_filter (uint8)", theirs)

    # median vs median_filter
    for k in (3, 7, 25):
        ours = attempt("median %d" % k, lambda: gpu_ms(
            lambda: filterview.median(src, size=k, out=dst, stream=STREAM)))
        peer_out = cupy.empty_like(src)
        theirs = attempt("median_filter %d" % k, lambda: gpu_ms(
            lambda: cundimage.median_filter(src, size=(k, k, 1), mode="nearest",
                                            output=peer_out)))
        row("median %dx%d, %s (%s)" % (k, k, size, fastest("median")), ours,
            "cupyx.scipy.ndimage.median_filter (uint8)", theirs)

    # Gaussian vs gaussian_filter (the same radius: ceil(3 sigma))
    for sigma in (2.0, 8.0):
        ours = attempt("gaussian %g" % sigma, lambda: gpu_ms(
            lambda: filterview.gaussian(src, sigma=sigma, radius=0, out=dst, stream=STREAM)))
        peer_out = cupy.empty_like(src)
        theirs = attempt("gaussian_filter %g" % sigma, lambda: gpu_ms(
            lambda: cundimage.gaussian_filter(src, sigma=(sigma, sigma, 0), truncate=3.0,
                                              mode="nearest", output=peer_out)))
        row("gaussian sigma %g, %s (%s)" % (sigma, size, fastest("gaussian")), ours,
            "cupyx.scipy.ndimage.gaussian_filter (uint8)", theirs)

    # Canny on the gray image: filterview on the GPU vs OpenCV on the CPU, wall time
    gray_host = np.ascontiguousarray(
        (0.299 * host[:, :, 0] + 0.587 * host[:, :, 1] + 0.114 * host[:, :, 2]).astype(np.uint8))
    # random pixels are all edges: a smooth picture with structure instead
    yy, xx = np.mgrid[0:h, 0:w]
    gray_host = ((np.sin(xx / 37.0) * np.cos(yy / 23.0) * 100 + 128 + (gray_host >> 4))
                 .astype(np.uint8))
    with STREAM:
        gray_dev = cupy.asarray(gray_host)
        gray_out = cupy.empty_like(gray_dev)
    STREAM.synchronize()

    def canny_dev():
        filterview.canny(gray_dev, sigma=0, low=50, high=150, out=gray_out, stream=STREAM)
        STREAM.synchronize()

    ours = attempt("canny", lambda: host_ms(canny_dev))
    theirs = attempt("cv2.Canny", lambda: host_ms(lambda: cv2.Canny(gray_host, 50, 150)))
    row("canny (blur off), gray %s, device arrays, wall (%s)" % (size, fastest("canny")), ours,
        "cv2.Canny on the CPU, wall", theirs)
    gray_host_out = np.empty_like(gray_host)
    ours_host = attempt("canny host", lambda: host_ms(
        lambda: filterview.canny(gray_host, sigma=0, low=50, high=150, out=gray_host_out)))
    row("canny (blur off), gray %s, NumPy in and out, wall" % size, ours_host,
        "cv2.Canny on the CPU, wall", theirs)

    # convolution with a 63x63 kernel (box shape, radius 31) vs FFT convolution and conv2d
    kr = 31
    ks = 2 * kr + 1
    ours = attempt("conv 63x63", lambda: gpu_ms(
        lambda: filterview.conv(src, shape="box", radius=kr, out=dst, stream=STREAM)))
    with STREAM:
        src_f = src[:, :, :3].astype(cupy.float32)
        kern = cupy.full((ks, ks, 1), 1.0 / (ks * ks), cupy.float32)
    STREAM.synchronize()
    theirs = attempt("fftconvolve", lambda: gpu_ms(
        lambda: cusignal.fftconvolve(src_f, kern, mode="same", axes=(0, 1))))
    row("conv 63x63 kernel, %s (%s)" % (size, fastest("conv")), ours,
        "cupyx.scipy.signal.fftconvolve (float32, RGB)", theirs)
    if torch is not None and torch.cuda.is_available():
        tstream = torch.cuda.ExternalStream(STREAM.ptr)
        with torch.cuda.stream(tstream):
            x = torch.as_tensor(src_f, device="cuda").permute(2, 0, 1).unsqueeze(0).contiguous()
            wgt = torch.full((3, 1, ks, ks), 1.0 / (ks * ks), device="cuda")
        STREAM.synchronize()
        torch.backends.cudnn.benchmark = True

        def conv2d():
            with torch.no_grad(), torch.cuda.stream(tstream):
                torch.nn.functional.conv2d(x, wgt, padding=kr, groups=3)

        theirs = attempt("conv2d", lambda: gpu_ms(conv2d))
    else:
        theirs = None
    row("conv 63x63 kernel, %s (%s)" % (size, fastest("conv")), ours,
        "torch.nn.functional.conv2d (float32, RGB, cuDNN)", theirs)


# ---- the module's own overhead -------------------------------------------------------------------

def spin_kernel():
    try:
        k = cupy.RawKernel(r'''
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}''', "spin")
        k((1,), (1,), (np.int64(1000),), stream=STREAM)
        STREAM.synchronize()
        return k
    except Exception as e:
        print("bench_peers: no spin kernel (%s): kernel times include launch gaps" % e,
              file=sys.stderr)
        return None


def overhead(w, h, spin, calls=2000):
    """(per call wall ms of filterview.invert, of Context.run, GPU time of one call with the host
    out of the way, per call wall ms of CuPy's 255 - a)."""
    _, src, dst = images(w, h)
    calls = calls if w * h <= 1 << 20 else 200
    with STREAM:
        for _ in range(10):
            filterview.invert(src, out=dst, stream=STREAM)
        STREAM.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            filterview.invert(src, out=dst, stream=STREAM)
        STREAM.synchronize()
        call = (time.perf_counter() - t0) * 1e3 / calls
        ctx = filterview.Context("invert", w, h)
        for _ in range(10):
            ctx.run(src, dst, STREAM)
        STREAM.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            ctx.run(src, dst, STREAM)
        STREAM.synchronize()
        run = (time.perf_counter() - t0) * 1e3 / calls
        # the kernel alone: the call is enqueued while a spin kernel keeps the GPU busy, so the
        # events bracket GPU work only, not the host's launching
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        times = []
        rate = cupy.cuda.runtime.getDeviceProperties(0)["clockRate"] * 1e3  # Hz
        for _ in range(RUNS):
            if spin is not None:
                spin((1,), (1,), (np.int64(rate * 0.005),), stream=STREAM)  # 5 ms
            start.record(STREAM)
            ctx.run(src, dst, STREAM)
            end.record(STREAM)
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end))
        kernel = statistics.median(times)
        ctx.close()
        for _ in range(10):
            cupy.subtract(255, src, out=dst)
        STREAM.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            cupy.subtract(255, src, out=dst)
        STREAM.synchronize()
        cp = (time.perf_counter() - t0) * 1e3 / calls
    return call, run, kernel, cp


# ---- every filter x type: ours, NPP's, cupyx's, against the copy ---------------------------------

TYPE_RUNS = 5
TYPE_SLOW_MS = 1000.0  # one run slower than this: timed once
TYPES = ("uint8", "uint16", "float32")
TYPE_SIZES = ((3840, 2160), (9984, 6400))
# (filter, its keywords, what cupyx runs on the same type, how that is named); the cases are the
# same neighbourhoods: a 13x13 Gaussian (sigma 2, ceil(3 sigma)), a 7x7 box, a 5x5 median, a
# 13x13 kernel, replicated borders throughout (cupyx's mode "nearest")
GAUSS_SIGMA = 2.0


def _conv_kernel():
    r = int(math.ceil(3 * GAUSS_SIGMA))
    y, x = np.mgrid[-r:r + 1, -r:r + 1]
    k = np.exp(-(x * x + y * y) / (2 * GAUSS_SIGMA ** 2))
    return (k / k.sum()).astype(np.float32)


def _typed_cases():
    k = cupy.asarray(_conv_kernel())[:, :, None]  # on the device once, not in the timing
    return [
        ("gaussian", {"sigma": GAUSS_SIGMA, "radius": 0},
         lambda a, o: cundimage.gaussian_filter(a, sigma=(GAUSS_SIGMA, GAUSS_SIGMA, 0),
                                                truncate=3.0, mode="nearest", output=o),
         "gaussian_filter"),
        ("box", {"radius": 3},
         lambda a, o: cundimage.uniform_filter(a, size=(7, 7, 1), mode="nearest", output=o),
         "uniform_filter"),
        ("median", {"size": 5},
         lambda a, o: cundimage.median_filter(a, size=(5, 5, 1), mode="nearest", output=o),
         "median_filter"),
        ("conv", {"shape": "gaussian", "sigma": GAUSS_SIGMA},
         lambda a, o: cundimage.convolve(a, k, mode="nearest", output=o),
         "convolve 13x13"),
        ("canny", {}, None, "-"),
        ("invert", {},
         lambda a, o: cupy.subtract(a.dtype.type(1 if a.dtype.kind == "f" else
                                                 np.iinfo(a.dtype).max), a, out=o),
         "cupy max - a"),
    ]


def _typed_ms(fn):
    """(median ms, runs) of fn() on STREAM by CUDA events: 1 untimed run, then TYPE_RUNS (1 when
    the untimed one took over TYPE_SLOW_MS)."""
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    with STREAM:
        start.record(STREAM)
        fn()
        end.record(STREAM)
        end.synchronize()
        first = cupy.cuda.get_elapsed_time(start, end)
        times = []
        for _ in range(1 if first > TYPE_SLOW_MS else TYPE_RUNS):
            start.record(STREAM)
            fn()
            end.record(STREAM)
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def _typed_cell(fn):
    """(ms, "") of fn(), or (None, what went wrong in a word)."""
    try:
        return _typed_ms(fn), ""
    except filterview.ArgumentError as e:
        return None, "declines" if "npp" in str(e) else "refused"
    except Exception as e:  # a peer that fails: said on stderr, "-" here, the table goes on
        print("bench_peers: %s" % e, file=sys.stderr)
        return None, "failed"


def _typed_text(ms, why, copy_ms):
    if ms is None:
        return why or "-"
    return "%s (%.0f%%)" % (fmt((ms, False)), 100.0 * copy_ms / ms)


def _typed_source(w, h, dtype):
    """Random RGBA pixels of the type on the device (floats in 0..1), made there."""
    rng = cupy.random.default_rng(2026)
    with STREAM:
        if dtype == "float32":
            a = rng.random((h, w, 4), dtype=cupy.float32)
        else:
            top = np.iinfo(dtype).max
            a = (rng.random((h, w, 4), dtype=cupy.float32) * (top + 1)).astype(dtype)
    STREAM.synchronize()
    return a


def typed_table(out_path=None):
    props = cupy.cuda.runtime.getDeviceProperties(0)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    lines = []

    def say(line):
        lines.append(line)
        print(line, flush=True)

    say("%s, %s; filterview %s, CuPy %s." % (gpu, datetime.date.today().isoformat(),
                                            filterview.__version__, cupy.__version__))
    say("")
    say("| size | type | filter | ours: variant, ms (% copy) | NPP ms (% copy) | "
        "cupyx.scipy.ndimage ms (% copy) | cupyx runs |")
    say("|---|---|---|---:|---:|---:|---|")
    for w, h in TYPE_SIZES:
        for dtype in TYPES:
            src = _typed_source(w, h, dtype)
            with STREAM:
                dst = cupy.empty_like(src)
                other = cupy.empty_like(src)
            copy_ms = _typed_ms(lambda: cupy.copyto(dst, src))
            for name, params, peer, peer_name in _typed_cases():
                ours, why = _typed_cell(lambda: filterview.apply(
                    name, src, out=dst, stream=STREAM, **params))
                if "npp" in [v.name for v in filterview.filter_info(name).variants]:
                    npp, npp_why = _typed_cell(lambda: filterview.apply(
                        name, src, variant="npp", out=dst, stream=STREAM, **params))
                else:  # no NPP function (invert), or a build without NPP
                    npp, npp_why = None, "none"
                if peer is None or cundimage is None:
                    theirs, their_why = None, "-"
                else:
                    theirs, their_why = _typed_cell(lambda: peer(src, other))
                say("| %dx%d | %s | %s | %s: %s | %s | %s | %s |"
                    % (w, h, dtype, name, fastest(name), _typed_text(ours, why, copy_ms),
                       _typed_text(npp, npp_why, copy_ms), _typed_text(theirs, their_why, copy_ms),
                       peer_name))
                filterview.clear_cache()  # a context holds ~3 images of this size: not 8 of them
            src = dst = other = None  # this size and type is done: its memory goes back
            cupy.get_default_memory_pool().free_all_blocks()
    say("")
    say("Each cell: the median CUDA-event time of %d runs after 1 untimed (1 run where that took "
        "over %.0f s) on a non-default stream, random RGBA of the type on the device (floats in "
        "0..1); %% copy: a device-to-device copy of the same image, read and written once, over "
        "the filter's time. Cases: gaussian sigma %g (13x13), box 7x7, median 5x5, conv with a "
        "13x13 Gaussian kernel (cupyx: convolve with the same normalised weights), Canny with "
        "its defaults (NPP: uint8 only; cupyx has none), invert (cupy: max - a); replicated "
        "borders everywhere. NPP runs through filterview's `npp` variant on the same arrays."
        % (TYPE_RUNS, TYPE_SLOW_MS / 1e3, GAUSS_SIGMA))
    if out_path:
        with open(out_path, "w") as f:
            f.write("\n".join(lines) + "\n")


# ---- main ----------------------------------------------------------------------------------------

def main():
    props = cupy.cuda.runtime.getDeviceProperties(0)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    ok, why = filterview.device_available()
    if not ok:
        sys.exit("bench_peers.py: filterview sees no CUDA device: %s" % why)
    if "--types" in sys.argv[1:]:
        paths = [a for a in sys.argv[1:] if a != "--types"]
        typed_table(paths[0] if paths else None)
        return
    for w, h in ((3840, 2160), (512, 512)):
        bench_size(w, h)
    spin = spin_kernel()
    over = []
    for w, h in ((16, 16), (512, 512), (3840, 2160)):
        try:
            over.append(((w, h), overhead(w, h, spin)))
        except Exception as e:
            print("bench_peers: overhead %dx%d failed: %s" % (w, h, e), file=sys.stderr)

    lines = []
    versions = ["filterview %s (library %s)" % (filterview.__version__,
                                                filterview.library_version()),
                "CuPy %s" % cupy.__version__]
    if torch is not None:
        versions.append("PyTorch %s" % torch.__version__)
    if cv2 is not None:
        versions.append("OpenCV %s" % cv2.__version__)
    lines.append("%s, %s; %s." % (gpu, datetime.date.today().isoformat(), ", ".join(versions)))
    lines.append("")
    lines.append("| operation | filterview ms | peer | peer ms | speed-up |")
    lines.append("|---|---:|---|---:|---:|")
    for op, ours, peer, theirs in rows:
        lines.append("| %s | %s | %s | %s | %s |" % (op, fmt(ours), peer, fmt(theirs),
                                                     speedup(ours, theirs)))
    lines.append("")
    lines.append("GPU rows: median CUDA-event time of %d runs on a non-default stream, uint8 RGBA "
                 "on the device; canny rows: wall time (perf_counter) of the call until done. "
                 "* = one run took over %.1f s: median of 3." % (RUNS, SLOW_MS / 1e3))
    for n in notes:
        lines.append("- %s" % n)
    if over:
        lines.append("")
        lines.append("Call overhead of the module, filterview.invert on device arrays:")
        lines.append("")
        lines.append("| image | filterview.invert per call ms | Context.run per call ms | "
                     "GPU time of one run ms | overhead per call ms | CuPy `255 - a` per call ms |")
        lines.append("|---|---:|---:|---:|---:|---:|")
        for (w, h), (call, run, kernel, cp) in over:
            lines.append("| %dx%d | %.4f | %.4f | %.4f | %.4f | %.4f |"
                         % (w, h, call, run, kernel, max(0.0, call - kernel), cp))
        lines.append("")
        lines.append("Per call: wall time of many back-to-back calls on one stream, divided by "
                     "their count; GPU time: CUDA events around one run enqueued while the GPU "
                     "is still busy with a spin kernel (the host's launching hidden).")
    text = "\n".join(lines) + "\n"
    print(text)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
