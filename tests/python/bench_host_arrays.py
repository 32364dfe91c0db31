#!/usr/bin/env python3
# ------------------------------------------------------------------------------------------------
# tests/python/bench_host_arrays.py: what a NumPy call costs against its bound, and batches against
# single calls and the peers. Not a test: it prints figures (needs a CUDA device and CuPy; torch,
# torchvision and cv2 where present).
#
#   bench_host_arrays.py host [--size 3840x2160]   every filter on a gray and an RGBA uint8 NumPy
#        array: the module call (median of 20 after 3 warm-ups, wall time) against the bound
#        measured in the same run, host-to-device + kernel + device-to-host (the array's own
#        bytes over the bus from pinned memory, the kernel on device arrays, CUDA events), and
#        cv2 (Canny, GaussianBlur, blur, medianBlur) on the CPU on the same array
#   bench_host_arrays.py batch [--n 2048]           2,048 images of 512x512 and of 64x64: one
#        apply_batch against 2,048 calls, against cupyx.scipy.ndimage.gaussian_filter on the
#        3-D stack (sigma 0 on the stack axis: each 2-D plane alone, checked on the first
#        planes against 2-D calls) and torchvision's gaussian_blur on a batched tensor, in
#        images per second; the batches' results checked against the single calls
# ------------------------------------------------------------------------------------------------
import argparse
import statistics
import time

import numpy as np

import filterview


def wall_ms(fn, runs=20, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def event_ms(cupy, fn, runs=20, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    stream = cupy.cuda.get_current_stream()
    for _ in range(runs):
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record(stream)
        fn()
        b.record(stream)
        b.synchronize()
        times.append(cupy.cuda.get_elapsed_time(a, b))
    return statistics.median(times)


def bus_ms(cupy, host):
    """Host-to-device plus device-to-host of the array's bytes, from and to pinned memory."""
    pinned = cupy.cuda.alloc_pinned_memory(host.nbytes)
    src = np.frombuffer(pinned, host.dtype, host.size).reshape(host.shape)
    src[...] = host
    dev = cupy.empty_like(host)
    up = event_ms(cupy, lambda: dev.set(src))
    down = event_ms(cupy, lambda: dev.get(out=src))
    return up, down


PARAMS = {"gaussian": {"sigma": 2.0}, "box": {"radius": 3}, "median": {"size": 5},
          "canny": {}, "conv": {"shape": "disk", "radius": 7}, "invert": {}}


def host(args):
    import cupy
    w, h = (int(v) for v in args.size.split("x"))
    rng = np.random.default_rng(1)
    try:
        import cv2
    except ImportError:
        cv2 = None
    print("GPU: %s" % cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
    print("| filter | image | NumPy call ms | H2D ms | kernel ms | D2H ms | bound ms | call/bound "
          "| cv2 ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for channels in (1, 4):
        shape = (h, w) if channels == 1 else (h, w, channels)
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        up, down = bus_ms(cupy, img)
        dimg = cupy.asarray(img)
        dout = cupy.empty_like(dimg)
        for name in filterview.filters():
            params = PARAMS.get(name, {})
            call = wall_ms(lambda: filterview.apply(name, img, **params))
            kernel = event_ms(cupy, lambda: filterview.apply(name, dimg, out=dout, **params))
            bound = up + kernel + down
            peer = ""
            if cv2 is not None:
                gray = img if channels == 1 else img[:, :, :3]
                fn = {"canny": lambda: cv2.Canny(img if channels == 1 else
                                                 cv2.cvtColor(gray, cv2.COLOR_RGB2GRAY), 50, 150),
                      "gaussian": lambda: cv2.GaussianBlur(img, (0, 0), 2.0),
                      "box": lambda: cv2.blur(img, (7, 7)),
                      "median": lambda: cv2.medianBlur(img, 5)}.get(name)
                if fn is not None:
                    peer = "%.2f" % wall_ms(fn, runs=10)
            print("| %s | %dx%dx%d | %.2f | %.2f | %.3f | %.2f | %.2f | %.2fx | %s |"
                  % (name, w, h, channels, call, up, kernel, down, bound, call / bound, peer))


def batch(args):
    import cupy
    print("GPU: %s" % cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
    print("Gaussian sigma 2 (13 taps), uint8 gray; device stacks timed with CUDA events around "
          "the Python call, host stacks with the wall clock (bus included)")
    print("| images | where | one apply_batch img/s | %d calls img/s | batch/calls | "
          "cupyx 3-D img/s | torchvision img/s |" % args.n)
    print("|---|---|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(2)
    params = {"sigma": 2.0}
    for side in (512, 64):
        n = args.n
        stack = rng.integers(0, 256, (n, side, side), dtype=np.uint8)
        dstack = cupy.asarray(stack)
        dout = cupy.empty_like(dstack)
        dev_one = event_ms(cupy, lambda: filterview.apply_batch("gaussian", dstack, out=dout,
                                                                **params), runs=5, warmup=1)
        dev_calls = event_ms(cupy, lambda: [filterview.gaussian(dstack[i], out=dout[i], **params)
                                            for i in range(n)], runs=3, warmup=1)
        batch_out = cupy.asnumpy(filterview.apply_batch("gaussian", dstack, **params))
        for i in (0, n // 2, n - 1):
            assert np.array_equal(batch_out[i], filterview.gaussian(stack[i], **params)), \
                "the device batch's image %d differs from its own call" % i
        from cupyx.scipy import ndimage
        cx = event_ms(cupy, lambda: ndimage.gaussian_filter(dstack, sigma=(0, 2.0, 2.0),
                                                            truncate=3.0, mode="nearest",
                                                            output=dout), runs=5)
        for i in (0, n - 1):  # sigma 0 on the stack axis: the planes are filtered apart
            plane = ndimage.gaussian_filter(dstack[i], sigma=2.0, truncate=3.0, mode="nearest")
            assert bool((dout[i] == plane).all()), "cupyx's 3-D call mixes planes"
        tv = float("nan")
        try:
            import torch
            from torchvision.transforms.v2 import functional as F
            t = torch.as_tensor(dstack, device="cuda").unsqueeze(1)
            torch.cuda.synchronize()
            tv = wall_ms(lambda: (F.gaussian_blur(t, [13, 13], [2.0, 2.0]),
                                  torch.cuda.synchronize()), runs=5)
        except Exception as e:  # torchvision missing or too old: say so
            print("torchvision: %s" % e)
        print("| %d x %dx%d | device (CuPy) | %.0f | %.0f | %.1fx | %.0f | %.0f |"
              % (n, side, side, n / dev_one * 1e3, n / dev_calls * 1e3, dev_calls / dev_one,
                 n / cx * 1e3, n / tv * 1e3))
        out = np.empty_like(stack)
        host_one = wall_ms(lambda: filterview.apply_batch("gaussian", stack, out=out, **params),
                           runs=5, warmup=1)
        assert np.array_equal(out, batch_out), "the host batch differs from the device batch"
        host_calls = wall_ms(lambda: [filterview.gaussian(stack[i], out=out[i], **params)
                                      for i in range(n)], runs=3, warmup=1)
        up, down = bus_ms(cupy, stack)
        print("| %d x %dx%d | host (NumPy); bus alone %.0f img/s | %.0f | %.0f | %.1fx | | |"
              % (n, side, side, n / (up + down) * 1e3, n / host_one * 1e3,
                 n / host_calls * 1e3, host_calls / host_one))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["host", "batch"])
    ap.add_argument("--size", default="3840x2160")
    ap.add_argument("--n", type=int, default=2048)
    args = ap.parse_args()
    {"host": host, "batch": batch}[args.what](args)


if __name__ == "__main__":
    main()
