#!/usr/bin/env python3
"""scale_bench.py: a large image from a tiled store through filterview.dask back to a store, on
1..N GPUs of one host (one Dask worker process per GPU), against scipy.ndimage on the CPU cores
and cupyx.scipy.ndimage on the GPUs through the same map_overlap graph (what dask-image does).

    PYTHONPATH=build/python python3 tests/python/scale_bench.py --gpus 1,2,4 --out scale.md

The input is a square uint8 gray image of random pixels (seeded), written once into DIR as a
Zarr array (uncompressed, chunk x chunk tiles) or, where Zarr does not load, a .npy file read
and written through memory maps (--store npy). Each run reads it chunk by chunk, filters with a
halo of the filter's reach (filterview.dask's plan: median 7x7, halo 3; Gaussian sigma 3, halo
9) and writes a store of the same tiles. Before the runs the input is read once, so every run
finds it in the page cache. Engines:

  filterview      the fastest GPU variant, NumPy chunks (the module's copies to and from the GPU)
  cupyx           cupyx.scipy.ndimage (mode "nearest"): chunks copied to the GPU and back
  scipy           scipy.ndimage (mode "nearest") on CPU worker processes, one thread each
  filterview-cpu  the module's plain-C reference on CPU worker processes

GPU engines run on 1, 2, ... GPUs (--gpus), each count a fresh cluster; CPU engines on
--cpu-workers processes, on the image's top-left --cpu-size square (default 16384: scipy's 7x7
median filtered about 1 Mpixel/s on a core of a development machine, so the whole image would
take minutes; the table names the
size each row ran on, and its Mpixel/s are of that size). --time-limit S ends a run that takes
longer (its row says so; the next filter gets a new cluster) so that a cut-off engine does not
cost the others their turn. --scheduler threads needs no distributed: this process alone, on its
current GPU (--gpus 1) or on --cpu-workers threads. Reported per run: wall time, Mpixel/s, scaling
against one GPU, the filter's time per chunk inside the graph (median) against one in-memory call
on a block of the same shape on an idle worker, the share of worker time spent filtering (the rest
is reading, writing, moving halos, scheduling), peak resident memory of any worker process (and of
all together), and the peak GPU memory used on any GPU (nvidia-smi, above what was in use before).
Each run's output is checked on --verify windows (corners, chunk edges) against one in-memory call
of the same engine on that window and its halo. Prints a Markdown table row by row as the runs end
(flushed, so that a run cut off still leaves its rows); --out writes the same rows as they come.

Needs numpy, dask, distributed (but for --scheduler threads) and filterview; cupy for the GPU
engines, scipy for scipy, zarr for --store zarr, psutil for memory figures (else they are left
out), nvidia-smi for GPU memory.
"""

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

import dask
import dask.array as da
import filterview
import filterview.dask as fvdask

FILTERS = {
    "median": ("median", {"size": 7}),
    "gaussian": ("gaussian", {"sigma": 3.0}),
}
# scipy and cupyx are given our Gaussian's radius: with scipy's own (truncate 3: radius 9) the
# halo of 8 is a pixel short, and their chunks differ from one call by a level here and there
GAUSSIAN_RADIUS = filterview.reach("gaussian", sigma=3.0)
GPU_ENGINES = ("filterview", "cupyx")
CPU_ENGINES = ("scipy", "filterview-cpu")


# ---- the chunk functions (run in the workers) ---------------------------------------------------

def _ndimage_call(nd, name, block):
    if name == "median":
        return nd.median_filter(block, size=7, mode="nearest")
    # the same taps' reach as ours (sigma 3: radius 8), so that the halo is the same for both
    return nd.gaussian_filter(block, sigma=3.0, mode="nearest", truncate=GAUSSIAN_RADIUS / 3.0)


def filter_block(block, engine, name):
    fv_name, params = FILTERS[name]
    if engine == "filterview":
        return filterview.apply(fv_name, block, **params)
    if engine == "filterview-cpu":
        return filterview.apply(fv_name, block, variant="cpu", **params)
    if engine == "cupyx":
        import cupy
        import cupyx.scipy.ndimage as cnd
        return cupy.asnumpy(_ndimage_call(cnd, name, cupy.asarray(block)))
    import scipy.ndimage as nd
    return _ndimage_call(nd, name, block)


LOCAL_TIMES = []  # --scheduler threads: the chunks' times, in this process


def timed_block(block, engine, which):
    """filter_block, its time kept on the worker (distributed.get_worker) for the report, or
    in this process under the threaded scheduler."""
    t0 = time.perf_counter()
    out = filter_block(block, engine, which)
    dt = time.perf_counter() - t0
    try:
        from distributed import get_worker
        w = get_worker()
        w._fv_chunk_times = getattr(w, "_fv_chunk_times", []) + [(dt, block.shape)]
    except (ImportError, ValueError):
        LOCAL_TIMES.append((dt, block.shape))
    return out


def take_chunk_times(dask_worker=None):
    times = getattr(dask_worker, "_fv_chunk_times", [])
    dask_worker._fv_chunk_times = []
    return times


def in_memory_ms(shape, engine, name):
    """One call on a random block of `shape`: on a GPU the median of 5 after two warm-ups, on the
    CPU one call (a CPU call on a 4096 block takes seconds, and nothing needs warming)."""
    runs, warm = (5, 2) if engine in GPU_ENGINES else (1, 0)
    block = np.random.default_rng(7).integers(0, 256, size=shape, dtype=np.uint8)
    times = []
    for i in range(runs + warm):
        t0 = time.perf_counter()
        filter_block(block, engine, name)
        if i >= warm:
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


# ---- stores ------------------------------------------------------------------------------------

class NpyStore:
    """A .npy file as an array dask reads and writes region by region through memory maps; each
    access maps the file again, so the object pickles small and works in any worker process."""

    def __init__(self, path, mode="r"):
        self.path, self.mode = path, mode
        m = np.load(path, mmap_mode="r")
        self.shape, self.dtype, self.ndim = m.shape, m.dtype, m.ndim

    def __getitem__(self, key):
        return np.array(np.load(self.path, mmap_mode="r")[key])

    def __setitem__(self, key, value):
        m = np.load(self.path, mmap_mode="r+")
        m[key] = value
        del m


def make_input(args, path):
    """The random image, written band by band (a band of chunk rows at a time)."""
    shape = (args.size, args.size)
    rng = np.random.default_rng(20261127)
    if args.store == "zarr":
        import zarr
        z = zarr.open(path, mode="w", shape=shape, chunks=(args.chunk, args.chunk),
                      dtype=np.uint8, compressor=None)
    else:
        z = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=shape)
    for y in range(0, args.size, args.chunk):
        rows = min(args.chunk, args.size - y)
        z[y:y + rows] = rng.integers(0, 256, size=(rows, args.size), dtype=np.uint8)
    if args.store == "npy":
        z.flush()
        del z


def open_input(args, path):
    if args.store == "zarr":
        return da.from_zarr(path)
    return da.from_array(NpyStore(path), chunks=(args.chunk, args.chunk), lock=False,
                         meta=np.empty((0, 0), np.uint8))


def make_output(args, path, side):
    shape = (side, side)
    if args.store == "zarr":
        import zarr
        return zarr.open(path, mode="w", shape=shape, chunks=(args.chunk, args.chunk),
                         dtype=np.uint8, compressor=None)
    np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=shape).flush()
    return NpyStore(path, "r+")


def read_region(args, path, ys, xs):
    if args.store == "zarr":
        import zarr
        return np.asarray(zarr.open(path, mode="r")[ys, xs])
    return NpyStore(path)[ys, xs]


def warm_page_cache(path):
    files = [path] if os.path.isfile(path) else [os.path.join(d, f) for d, _, fs in os.walk(path)
                                                  for f in fs]
    for f in files:
        with open(f, "rb") as fh:
            while fh.read(64 << 20):
                pass


# ---- monitoring --------------------------------------------------------------------------------

def gpu_memory_mib():
    """{gpu index: MiB used} from nvidia-smi, {} where it does not answer."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,memory.used",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True,
                             timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    used = {}
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit():
            used[int(parts[0])] = float(parts[1])
    return used


def gpu_names():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


class Monitor:
    """Peak resident memory of this process's children (the workers) and peak GPU memory, sampled
    in a thread."""

    def __init__(self, base_gpu, period=0.25, itself=False):
        self.period = period
        self.itself = itself  # this process too (the threaded scheduler's workers)
        self.base_gpu = base_gpu
        self.peak_rss = {}
        self.peak_gpu = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        try:
            import psutil
            self._me = psutil.Process()
        except ImportError:
            self._me = None

    def _sample(self):
        if self._me is not None:
            for p in self._me.children(recursive=True) + ([self._me] if self.itself else []):
                try:
                    rss = p.memory_info().rss
                except Exception:  # the process ended between the listing and the read
                    continue
                self.peak_rss[p.pid] = max(self.peak_rss.get(p.pid, 0), rss)
        for gpu, mib in gpu_memory_mib().items():
            used = mib - self.base_gpu.get(gpu, 0.0)
            self.peak_gpu[gpu] = max(self.peak_gpu.get(gpu, 0.0), used)

    def _run(self):
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.period)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


# ---- one run -----------------------------------------------------------------------------------

def warm_up(engine, which):
    """CUDA, CuPy and the module loaded in a worker before its timed run."""
    filter_block(np.zeros((64, 64), np.uint8), engine, which)


def release_driver_memory():
    """What verify() left on the GPU in this process (cached contexts, CuPy's pool)."""
    filterview.clear_cache()
    if "cupy" in sys.modules:
        sys.modules["cupy"].get_default_memory_pool().free_all_blocks()


class RunTimedOut(Exception):
    pass


def run_once(args, client, engine, name, n_workers, threads, base_gpu, side):
    """One engine on one filter over the top-left side x side of the image (the whole of it for
    the GPU engines). RunTimedOut past --time-limit."""
    src = os.path.join(args.dir, "input." + args.store)
    dst = os.path.join(args.dir, "output." + args.store)
    fv_name, params = FILTERS[name]
    reach = fvdask.depth(fv_name, **params)
    x = open_input(args, src)[:side, :side]
    y = fvdask._map_chunks(x, reach, False, timed_block, engine=engine, which=name)
    target = make_output(args, dst, side)
    store = da.store(y, target, lock=False, compute=False)
    if client is None:  # --scheduler threads: this process, on its current GPU
        warm_up(engine, name)
        del LOCAL_TIMES[:]
        with Monitor(base_gpu, itself=True) as mon:
            t0 = time.perf_counter()
            dask.compute(store, scheduler="threads", num_workers=n_workers * threads)
            wall = time.perf_counter() - t0
        times = list(LOCAL_TIMES)
    else:
        client.run(warm_up, engine, name)
        client.run(take_chunk_times)
        with Monitor(base_gpu) as mon:
            t0 = time.perf_counter()
            future = client.compute(store)
            try:
                future.result(timeout=args.time_limit)
            except TimeoutError:
                client.cancel(future)
                raise RunTimedOut() from None
            wall = time.perf_counter() - t0
        times = [t for ts in client.run(take_chunk_times).values() for t in ts]
    if not times:
        raise RuntimeError("no chunk reported its time")
    interior = max((s for _, s in times), key=lambda s: s[0] * s[1])
    chunk_ms = statistics.median(dt * 1e3 for dt, s in times if s == interior)
    if client is None:
        ref_ms = in_memory_ms(interior, engine, name)
    else:
        worker = sorted(client.scheduler_info()["workers"])[0]
        ref_ms = client.submit(in_memory_ms, interior, engine, name, workers=[worker],
                               pure=False).result()
    busy = sum(dt for dt, _ in times) / (wall * n_workers * threads)
    rss = sorted(mon.peak_rss.values())
    row = {
        "engine": engine, "filter": name, "workers": n_workers, "wall_s": wall, "side": side,
        "mpx_s": side * side / wall / 1e6, "chunk_ms": chunk_ms, "ref_ms": ref_ms,
        "block": "%dx%d" % interior, "busy": busy,
        "rss_worker_mib": rss[-1] / 2**20 if rss else float("nan"),
        "rss_total_mib": sum(rss) / 2**20 if rss else float("nan"),
        "gpu_mib": max(mon.peak_gpu.values()) if mon.peak_gpu else float("nan"),
        "checked": verify(args, engine, name, reach, src, dst, side),
    }
    release_driver_memory()
    return row


def verify(args, engine, name, reach, src, dst, side):
    """Windows of the output against one in-memory call on the window and its halo: the four
    corners, windows across chunk edges, and random ones. Returns the number checked."""
    rng = np.random.default_rng(5)
    n, w = side, min(args.chunk, 256, side)
    spots = [(0, 0), (0, n - w), (n - w, 0), (n - w, n - w)]
    edge = max(args.chunk - w // 2, 0)
    spots.append((edge, edge))
    while len(spots) < args.verify:
        spots.append(tuple(int(v) for v in rng.integers(0, n - w + 1, size=2)))
    for y, x in spots[:max(args.verify, 0)]:
        y0, x0 = max(y - reach, 0), max(x - reach, 0)
        y1, x1 = min(y + w + reach, n), min(x + w + reach, n)
        # past the window's edge the run saw its border, not the image's next pixels
        region = read_region(args, src, slice(y0, y1), slice(x0, x1))
        want = filter_block(region, engine, name)[y - y0:y - y0 + w, x - x0:x - x0 + w]
        got = read_region(args, dst, slice(y, y + w), slice(x, x + w))
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)[0]
            raise SystemExit("%s %s: the output differs from an in-memory call at (%d, %d)"
                             % (engine, name, y + bad[0], x + bad[1]))
    return min(len(spots), max(args.verify, 0))


# ---- clusters ----------------------------------------------------------------------------------

def cpu_cluster(n):
    from distributed import LocalCluster
    return LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=40)


def gpu_cluster(devices, threads):
    return fvdask.gpu_cluster(devices=devices, threads_per_worker=threads, silence_logs=40)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=65536, help="the image's side (default 65536)")
    ap.add_argument("--chunk", type=int, default=4096, help="the tiles' side (default 4096)")
    ap.add_argument("--store", choices=("zarr", "npy"), default=None,
                    help="zarr where it loads, else npy")
    ap.add_argument("--dir", default="/tmp/filterview_scale", help="where the stores go")
    ap.add_argument("--filters", default="median,gaussian")
    ap.add_argument("--engines", default=None,
                    help="default: filterview,cupyx,scipy with a GPU, scipy,filterview-cpu without")
    ap.add_argument("--gpus", default=None, help="GPU counts to run, e.g. 1,2,4 (default: 1 and "
                    "every power of two up to the GPUs visible)")
    ap.add_argument("--cupyx-gpus", default=None,
                    help="GPU counts for cupyx alone (default: --gpus's), e.g. 4")
    ap.add_argument("--threads-per-gpu", type=int, default=2,
                    help="threads of each GPU worker (one filters while another reads; default 2)")
    ap.add_argument("--cpu-workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--verify", type=int, default=8, help="output windows checked (default 8)")
    ap.add_argument("--scheduler", choices=("distributed", "threads"), default="distributed",
                    help="threads: no distributed, this process alone on its current GPU "
                    "(--gpus 1) or --cpu-workers threads")
    ap.add_argument("--cpu-size", type=int, default=16384,
                    help="the CPU engines' square, from the image's top-left (default 16384; "
                    "at most --size)")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds one run may take before it is stopped and said (default: none)")
    ap.add_argument("--out", help="also write the table to this Markdown file, row by row")
    args = ap.parse_args()

    if args.store is None:
        try:
            __import__("zarr")  # only whether it loads (numcodecs is compiled)
            args.store = "zarr"
        except ImportError:
            args.store = "npy"
    have_gpu = filterview.device_available()[0]
    engines = (args.engines.split(",") if args.engines else
               ["filterview", "cupyx", "scipy"] if have_gpu else ["scipy", "filterview-cpu"])
    for e in engines:
        if e not in GPU_ENGINES + CPU_ENGINES:
            raise SystemExit("unknown engine %r (there are %s)" % (e, ", ".join(GPU_ENGINES +
                                                                               CPU_ENGINES)))
        if e in GPU_ENGINES and not have_gpu:
            raise SystemExit("engine %s needs a CUDA device: %s"
                             % (e, filterview.device_available()[1]))
    devices = fvdask._visible_gpus() if have_gpu else []
    if args.gpus:
        counts = [int(c) for c in args.gpus.split(",")]
    else:
        counts = [c for c in (1, 2, 4, 8, 16) if c <= len(devices)]
    cupyx_counts = [int(c) for c in args.cupyx_gpus.split(",")] if args.cupyx_gpus else counts
    if (any(c > len(devices) for c in counts + cupyx_counts)
            and any(e in GPU_ENGINES for e in engines)):
        raise SystemExit("--gpus %s: %d GPUs visible" % (args.gpus, len(devices)))

    os.makedirs(args.dir, exist_ok=True)
    src = os.path.join(args.dir, "input." + args.store)
    t0 = time.perf_counter()
    make_input(args, src)
    print("input: %dx%d uint8 (%.2f GiB) as %s tiles of %d in %s, written in %.1f s"
          % (args.size, args.size, args.size**2 / 2**30, args.store, args.chunk, src,
             time.perf_counter() - t0), flush=True)
    warm_page_cache(src)

    threaded = args.scheduler == "threads"
    if (threaded and any(c != 1 for c in counts + cupyx_counts)
            and any(e in GPU_ENGINES for e in engines)):
        raise SystemExit("--scheduler threads runs on one GPU: --gpus 1")
    base_gpu = gpu_memory_mib()  # before any worker or call of this process uses a GPU
    plans = []
    for e in engines:
        if e in GPU_ENGINES:
            plans += [(e, c) for c in (cupyx_counts if e == "cupyx" else counts)]
        else:
            plans.append((e, args.cpu_workers))
    table = Table(args)
    one = {}  # (engine, filter): Mpx/s on one GPU, for the scaling column
    for engine, n in plans:
        gpu = engine in GPU_ENGINES
        threads = args.threads_per_gpu if gpu else 1
        side = args.size if gpu else min(args.cpu_size, args.size)
        cluster = client = None
        try:
            for name in args.filters.split(","):
                if client is None and not threaded:
                    from distributed import Client
                    cluster = gpu_cluster(devices[:n], threads) if gpu else cpu_cluster(n)
                    client = Client(cluster)
                try:
                    row = run_once(args, client, engine, name, n, threads, base_gpu, side)
                except RunTimedOut:
                    table.timed_out(engine, name, n, gpu, side)
                    release_driver_memory()
                    # what it still runs goes with its workers: the next filter gets new ones
                    client.close()
                    cluster.close()
                    cluster = client = None
                    continue
                row["gpu"] = gpu
                if gpu and n == 1:
                    one[(engine, name)] = row["mpx_s"]
                table.row(row, one.get((engine, name)))
        finally:
            if client is not None:
                client.close()
                cluster.close()
    table.close()


class Table:
    """The Markdown table, printed (and written to --out) a row at a time, each flushed."""

    HEAD = ("| engine | filter | workers | image | wall s | Mpx/s | x 1 GPU | chunk ms (block) "
            "| in-memory ms | filtering share | peak RSS MiB (a worker / all) | peak GPU MiB "
            "| windows checked |")

    def __init__(self, args):
        self.file = open(args.out, "w", encoding="utf-8") if args.out else None
        self.limit = args.time_limit
        self._line("Image %dx%d uint8 (%.2f Gpixel), %s tiles of %dx%d; %s; Python %s, dask %s."
                   % (args.size, args.size, args.size**2 / 1e9, args.store, args.chunk,
                      args.chunk, "; ".join(gpu_names()) or "no GPU", sys.version.split()[0],
                      __import__("dask").__version__))
        self._line("")
        self._line(self.HEAD)
        self._line("|---" * self.HEAD.count(" | ") + "|---|")

    def _line(self, text):
        print(text, flush=True)
        if self.file:
            self.file.write(text + "\n")
            self.file.flush()

    def row(self, r, one_gpu):
        scale = "%.2f" % (r["mpx_s"] / one_gpu) if r["gpu"] and one_gpu else "-"
        self._line("| %s | %s | %d %s | %d² | %.2f | %.1f | %s | %.1f (%s) | %.1f | %.0f %% "
                   "| %.0f / %.0f | %.0f | %d |" % (
                       r["engine"], r["filter"], r["workers"], "GPU" if r["gpu"] else "CPU",
                       r["side"], r["wall_s"], r["mpx_s"], scale, r["chunk_ms"], r["block"],
                       r["ref_ms"], 100 * r["busy"], r["rss_worker_mib"], r["rss_total_mib"],
                       r["gpu_mib"], r["checked"]))

    def timed_out(self, engine, name, n, gpu, side):
        self._line("| %s | %s | %d %s | %d² | > %g (stopped) | - | - | - | - | - | - | - | 0 |"
                   % (engine, name, n, "GPU" if gpu else "CPU", side, self.limit))

    def close(self):
        if self.file:
            self.file.close()


if __name__ == "__main__":
    main()
