#!/usr/bin/env python3
# ------------------------------------------------------------------------------------------------
# tests/cli/bench_io.py: filterview's image input and output against OpenCV's, on the same machine.
# Not a test: it prints figures. Needs python3-opencv (Debian) and photos.
#
#   bench_io.py FILTERVIEW PHOTO.jpg                 one photo: read + write PNG, median of 5
#   bench_io.py FILTERVIEW FOLDER [-v VARIANT]       a folder: images/s of filterview's batch
#                                                    (gaussian, default 5x5, sigma 1) against OpenCV's loop of
#                                                    imread + GaussianBlur + imwrite, on one
#                                                    thread and on a process per core
#   bench_io.py --make-photos N FOLDER               N photo-like 4032x3024 JPEGs (12 Mpixels) from
#                                                    the bundled images: scaled, cropped, flipped,
#                                                    with sensor-like noise so they compress like
#                                                    photos (the README's 100-photo figures)
#   bench_io.py --build BUILD [--quick] [--out FILE] the JPEG-to-JPEG table of docs/perf/io.md:
#                                                    100 x 4000x3000 and 2,000 x 640x400 photos
#                                                    (4:2:0, quality 90, made by BUILD's
#                                                    jpeg_gpu_check), Gaussian sigma 2: the CPU
#                                                    codec on all cores, the GPU codec (and its
#                                                    --stats line), OpenCV on a process per core,
#                                                    nvJPEG's decode alone; images/s from the
#                                                    wall clock of each whole command, median of 3
#                                                    runs after a warm-up. --quick: 8 and 64
#                                                    photos (a smoke test). FILE: the table also
#                                                    written there (markdown)
# ------------------------------------------------------------------------------------------------
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool

import cv2


def median_seconds(run, n=5):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cv_one(args):
    src, dst = args
    img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
    cv2.imwrite(dst, cv2.GaussianBlur(img, (5, 5), 1.0))


def one_photo(fv, photo, out):
    png = os.path.join(out, "one.png")
    ours = median_seconds(lambda: subprocess.run([fv, photo, "-f", "invert", "-v", "cpu", "-o", png],
                                                 check=True, stdout=subprocess.DEVNULL))
    cv2.setNumThreads(1)
    def cv_run():
        cv2.imwrite(os.path.join(out, "cv.png"), cv2.imread(photo, cv2.IMREAD_UNCHANGED))
    theirs = median_seconds(cv_run)
    print(f"{photo}: filterview read + invert (cpu) + write PNG {ours:.3f} s "
          f"({os.path.getsize(png) / 1e6:.1f} MB); OpenCV imread + imwrite {theirs:.3f} s "
          f"({os.path.getsize(os.path.join(out, 'cv.png')) / 1e6:.1f} MB)")


def folder(fv, photos, out, variant):
    names = sorted(f for f in os.listdir(photos) if f.lower().endswith((".jpg", ".jpeg", ".png")))
    n = len(names)
    dest = os.path.join(out, "fv")
    os.makedirs(dest, exist_ok=True)
    t = time.perf_counter()
    done = subprocess.run([fv, photos, "-f", "gaussian", "-v", variant, "-o", dest + "/"],
                          stdout=subprocess.PIPE, text=True)
    ours = time.perf_counter() - t
    print(done.stdout.strip())
    jobs = [(os.path.join(photos, f), os.path.join(out, "cv", os.path.splitext(f)[0] + ".png")) for f in names]
    os.makedirs(os.path.join(out, "cv"), exist_ok=True)
    cv2.setNumThreads(1)
    t = time.perf_counter()
    for j in jobs:
        cv_one(j)
    single = time.perf_counter() - t
    t = time.perf_counter()
    with Pool(os.cpu_count()) as pool:
        pool.map(cv_one, jobs)
    multi = time.perf_counter() - t
    print(f"{n} images: filterview -v {variant} {n / ours:.1f} images/s (wall, process included); "
          f"OpenCV one thread {n / single:.1f} images/s; OpenCV {os.cpu_count()} processes {n / multi:.1f} images/s")


def make_photo(job):
    import numpy as np
    i, out, bases = job
    rng = np.random.default_rng(i)
    big = cv2.resize(bases[i % len(bases)], (4600, 4600), interpolation=cv2.INTER_CUBIC)
    x, y = rng.integers(0, 4600 - 4032), rng.integers(0, 4600 - 3024)
    img = big[y:y + 3024, x:x + 4032].astype(np.int16) + rng.normal(0, 6, (3024, 4032, 3)).astype(np.int16)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if i % 3 == 0:
        img = img[:, ::-1]
    cv2.imwrite(os.path.join(out, f"photo{i:03d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])


def make_photos(n, out):
    assets = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")
    bases = [cv2.imread(os.path.join(assets, f), cv2.IMREAD_COLOR) for f in ("astronaut.png", "camera.png")]
    os.makedirs(out, exist_ok=True)
    with Pool(os.cpu_count()) as pool:
        pool.map(make_photo, [(i, out, bases) for i in range(n)])
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f.startswith("photo"))
    print(f"{n} photos of 4032x3024 in {out} ({size / 1e6:.0f} MB)")


# ---- the JPEG-to-JPEG table (--build) ----

# (photos, --quick photos, size)
SETS = [(100, 8, "4000x3000"), (2000, 64, "640x400")]


def cv_blur_file(args):
    src, dst = args
    img = cv2.imread(src, cv2.IMREAD_COLOR)
    cv2.imwrite(dst, cv2.GaussianBlur(img, (0, 0), 2.0), [cv2.IMWRITE_JPEG_QUALITY, 90])


def cv_single_thread():
    cv2.setNumThreads(1)


def opencv_folder(src, dst):
    """The OpenCV column's command: every .jpg of src blurred into dst, a process per core."""
    names = sorted(f for f in os.listdir(src) if f.endswith(".jpg"))
    jobs = [(os.path.join(src, f), os.path.join(dst, f)) for f in names]
    with Pool(os.cpu_count(), initializer=cv_single_thread) as pool:
        pool.map(cv_blur_file, jobs, chunksize=max(1, len(jobs) // (8 * os.cpu_count())))


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        if out:
            return out.splitlines()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    return "no GPU named by nvidia-smi"


def scratch_root():
    """A tmpfs where there is one (the files' reads and writes then cost no disk), and its kind."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return "/dev/shm", "tmpfs /dev/shm"
    return tempfile.gettempdir(), tempfile.gettempdir() + " (no tmpfs: /dev/shm missing)"


def make_set(check, folder, n, size):
    """n photos of size in folder, made by jpeg_gpu_check in a process per core (seeds 1..)."""
    os.makedirs(folder, exist_ok=True)
    parts = min(n, os.cpu_count() or 1)
    procs = []
    for k in range(parts):
        count = n // parts + (1 if k < n % parts else 0)
        env = dict(os.environ, FV_TEST_SEED=str(k + 1))
        procs.append(subprocess.Popen([check, "--photos", os.path.join(folder, f"part{k}"),
                                       str(count), size], env=env, stdout=subprocess.DEVNULL))
    for k, p in enumerate(procs):
        if p.wait() != 0:
            sys.exit(f"jpeg_gpu_check --photos failed (part {k})")
    for k in range(parts):
        part = os.path.join(folder, f"part{k}")
        for f in os.listdir(part):
            os.rename(os.path.join(part, f), os.path.join(folder, f"p{k:02d}_{f}"))
        os.rmdir(part)


def timed_runs(command, out_dir, runs=3):
    """Wall seconds of the whole command: a warm-up, then the median of `runs`; its last stdout."""
    times, stdout = [], ""
    for i in range(runs + 1):
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        t = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seconds = time.perf_counter() - t
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)}: exit {done.returncode}\n{done.stdout}{done.stderr}")
        if i:
            times.append(seconds)
        stdout = done.stdout
    return statistics.median(times), stdout


def table(build, quick, out_file):
    fv = os.path.join(build, "filterview")
    check = os.path.join(build, "tests", "jpeg_gpu_check")
    for tool in (fv, check):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} is missing: build with nvJPEG first")
    root, where = scratch_root()
    work = tempfile.mkdtemp(prefix="fv_io_bench_", dir=root)
    lines = [f"JPEG to JPEG through the Gaussian, sigma 2, on {gpu_name()} and {os.cpu_count()} CPU "
             f"cores, {time.strftime('%Y-%m-%d')}; files in {where}; images/s from the wall "
             f"clock of each whole command, median of 3 runs after a warm-up"
             + (" (--quick sizes)" if quick else ""),
             "",
             "| set | CPU codec, all cores | GPU codec | OpenCV, a process per core | "
             "nvJPEG decode alone (the bound) | GPU / CPU | GPU / bound |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    notes = []
    try:
        for full_n, quick_n, size in SETS:
            n = quick_n if quick else full_n
            w, h = (int(v) for v in size.split("x"))
            label = f"{n:,} x {w * h / 1e6:.2g} Mpixels ({size})"
            photos = os.path.join(work, f"in_{size}")
            t = time.perf_counter()
            make_set(check, photos, n, size)
            print(f"{n} photos of {size} made in {time.perf_counter() - t:.1f} s", flush=True)
            out = os.path.join(work, "out")
            base = [fv, photos, "-f", "gaussian", "--sigma", "2", "--format", "jpeg", "-q"]
            cpu_s, _ = timed_runs(base + ["--codec", "cpu", "-o", out + "/"], out)
            # -q would hide the summary and the --stats line: the GPU runs keep them
            gpu_cmd = [c for c in base if c != "-q"] + ["--codec", "gpu", "--stats", "-o", out + "/"]
            gpu_s, gpu_out = timed_runs(gpu_cmd, out)
            cv_s, _ = timed_runs([sys.executable, os.path.abspath(__file__), "--opencv-folder",
                                  photos, out], out)
            bench = subprocess.run([check, "--decode-bench", photos], capture_output=True, text=True)
            rate = [l.split()[1] for l in bench.stdout.splitlines()
                    if l.startswith("decode_images_per_s ")]
            if bench.returncode != 0 or not rate:
                sys.exit(f"jpeg_gpu_check --decode-bench: exit {bench.returncode}\n{bench.stdout}")
            bound = float(rate[0])
            cpu, gpu, cv = n / cpu_s, n / gpu_s, n / cv_s
            row = (f"| {label} | "
                   f"{cpu:.1f} | {gpu:.1f} | {cv:.1f} | {bound:.1f} | {gpu / cpu:.1f}x | "
                   f"{100 * gpu / bound:.0f} % |")
            lines.append(row)
            print(row, flush=True)
            summary = [l for l in gpu_out.splitlines() if l.startswith(("filtered ", "stages busy"))]
            decoders = [l for l in bench.stdout.splitlines() if l.startswith("decode-bench:")]
            notes.append(f"- {label}, GPU codec: " + "; ".join(summary + decoders))
            shutil.rmtree(photos, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(lines + [""] + notes) + "\n"
    print()
    print(text, end="")
    if out_file:
        with open(out_file, "w") as f:
            f.write(text)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--opencv-folder":
        opencv_folder(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) >= 3 and sys.argv[1] == "--build":
        args = sys.argv[3:]
        out_file = args[args.index("--out") + 1] if "--out" in args else None
        table(sys.argv[2], "--quick" in args, out_file)
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--make-photos":
        make_photos(int(sys.argv[2]), sys.argv[3])
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__ or "usage: bench_io.py FILTERVIEW PHOTO.jpg|FOLDER [-v VARIANT]")
    fv, what = sys.argv[1], sys.argv[2]
    variant = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "-v" else "fast"
    with tempfile.TemporaryDirectory() as out:
        if os.path.isdir(what):
            folder(fv, what, out, variant)
        else:
            one_photo(fv, what, out)


if __name__ == "__main__":
    main()
