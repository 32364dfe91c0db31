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
# ------------------------------------------------------------------------------------------------
import os
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


def main():
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
