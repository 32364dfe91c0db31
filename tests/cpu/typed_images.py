#!/usr/bin/python3
"""tests/cpu/typed_images.py make|check DIR: files of every pixel type made by other writers, and
filterview's own files read back by other readers, for tests/cpu/test_image_io_typed.c.

make DIR   writes DIR/in/NAME.{png,tif,pgm,ppm} made by hand (PNG chunks on zlib, PNM bytes), by
           OpenCV (cv2.imwrite: 16-bit PNG, TIFF with every compression its libtiff has) and by
           tifffile (strips, tiles, separate planes, big-endian, BigTIFF, min-is-white, float32),
           each beside NAME.expect: a line "width height type channels", then the pixels filterview
           must read natively, rows packed, in host byte order. Files filterview must refuse get
           NAME.refuse instead: the words its message must hold.
check DIR  reads every DIR/ours/NAME.{png,tif,pgm,ppm} (written by the C test) with cv2, tifffile
           or by hand, and holds it against DIR/ours/NAME.expect.
Exit 0 when all is well, 1 on a mismatch, 77 when numpy, cv2 or tifffile is missing (skipped)."""
import os
import struct
import sys
import zlib

try:
    import numpy as np
    import cv2
    import tifffile
except ImportError as e:
    print(f"skipped: {e} (Debian: python3-numpy python3-opencv python3-tifffile)")
    sys.exit(77)

TYPE_NAMES = {np.dtype(np.uint8): "uint8", np.dtype(np.uint16): "uint16",
              np.dtype(np.float32): "float32"}


def expect(path, pixels):
    """pixels: HxW or HxWxC array of the native layout."""
    a = np.ascontiguousarray(pixels)
    h, w = a.shape[:2]
    c = 1 if a.ndim == 2 else a.shape[2]
    with open(path, "wb") as f:
        f.write(f"{w} {h} {TYPE_NAMES[a.dtype.newbyteorder('=')]} {c}\n".encode())
        f.write(a.astype(a.dtype.newbyteorder("=")).tobytes())


def refuse(path, words):
    with open(path, "w") as f:
        f.write(words)


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png_by_hand(path, samples, colour, depth, extra=b""):
    """samples: HxWxN integers as stored; rows filtered with filter 0."""
    h, w, n = samples.shape
    if depth == 16:
        raw = samples.astype(">u2").tobytes()
        row_bytes = w * n * 2
    elif depth == 8:
        raw = samples.astype(np.uint8).tobytes()
        row_bytes = w * n
    else:  # sub-byte gray: pack
        per = 8 // depth
        rows = []
        for y in range(h):
            bits = 0
            out = bytearray()
            for x in range(w):
                bits = bits << depth | int(samples[y, x, 0])
                if x % per == per - 1:
                    out.append(bits)
                    bits = 0
            if w % per:
                out.append(bits << (depth * (per - w % per)))
            rows.append(bytes(out))
        raw = b"".join(rows)
        row_bytes = len(rows[0])
    filtered = b"".join(b"\0" + raw[y * row_bytes:(y + 1) * row_bytes] for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0)
    data = (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra +
            png_chunk(b"IDAT", zlib.compress(filtered, 6)) + png_chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(data)


def make(root):
    d = os.path.join(root, "in")
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    w, h = 37, 23  # no multiple of any strip, tile or filter block

    def u(dtype, *shape):
        if dtype == np.float32:
            return rng.random(shape, dtype=np.float32)
        return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)

    # ---- PNG by hand: 16-bit of every colour type, sub-byte gray, gray with tRNS ----
    g16 = u(np.uint16, h, w, 1)
    png_by_hand(f"{d}/hand_gray16.png", g16, 0, 16)
    expect(f"{d}/hand_gray16.expect", g16[:, :, 0])
    rgb16 = u(np.uint16, h, w, 3)
    png_by_hand(f"{d}/hand_rgb16.png", rgb16, 2, 16)
    expect(f"{d}/hand_rgb16.expect", rgb16)
    rgba16 = u(np.uint16, h, w, 4)
    png_by_hand(f"{d}/hand_rgba16.png", rgba16, 6, 16)
    expect(f"{d}/hand_rgba16.expect", rgba16)
    ga16 = u(np.uint16, h, w, 2)
    png_by_hand(f"{d}/hand_graya16.png", ga16, 4, 16)
    expect(f"{d}/hand_graya16.expect", ga16[:, :, [0, 0, 0, 1]])
    g8 = u(np.uint8, h, w, 1)
    png_by_hand(f"{d}/hand_gray8.png", g8, 0, 8)
    expect(f"{d}/hand_gray8.expect", g8[:, :, 0])
    g4 = rng.integers(0, 16, (h, w, 1))
    png_by_hand(f"{d}/hand_gray4.png", g4, 0, 4)
    expect(f"{d}/hand_gray4.expect", (g4[:, :, 0] * 17).astype(np.uint8))
    trns = png_chunk(b"tRNS", struct.pack(">H", int(g8[0, 0, 0])))
    png_by_hand(f"{d}/hand_gray8_trns.png", g8, 0, 8, trns)
    alpha = np.where(g8[:, :, 0] == g8[0, 0, 0], 0, 255).astype(np.uint8)
    expect(f"{d}/hand_gray8_trns.expect", np.dstack([g8[:, :, 0]] * 3 + [alpha]))

    # ---- OpenCV: 16-bit PNG (BGR order in its arrays) and TIFF of every compression ----
    for n in (1, 3, 4):
        a = u(np.uint16, h, w, n)[:, :, :n] if n > 1 else u(np.uint16, h, w)
        bgr = a if n == 1 else (a[:, :, [2, 1, 0]] if n == 3 else a[:, :, [2, 1, 0, 3]])
        cv2.imwrite(f"{d}/cv2_png16_{n}.png", bgr)
        expect(f"{d}/cv2_png16_{n}.expect", a)
    for comp, label in ((1, "none"), (5, "lzw"), (8, "deflate"), (32773, "packbits"),
                        (34925, "lzma"), (50000, "zstd")):
        for dtype in (np.uint8, np.uint16, np.float32):
            if dtype == np.float32 and comp == 32773:
                continue
            a = u(dtype, h, w, 3)
            if not cv2.imwrite(f"{d}/cv2_{label}_{TYPE_NAMES[np.dtype(dtype)]}.tif",
                               a[:, :, ::-1], [cv2.IMWRITE_TIFF_COMPRESSION, comp]):
                continue  # a compression this OpenCV's libtiff lacks
            expect(f"{d}/cv2_{label}_{TYPE_NAMES[np.dtype(dtype)]}.expect", a)
    jp = np.kron(u(np.uint8, 3, 4, 3), np.ones((8, 8, 1), np.uint8))  # flat 8x8 blocks: exact
    if cv2.imwrite(f"{d}/cv2_jpeg_rgb.tif", jp[:, :, ::-1], [cv2.IMWRITE_TIFF_COMPRESSION, 7]):
        back = cv2.imread(f"{d}/cv2_jpeg_rgb.tif", cv2.IMREAD_UNCHANGED)  # libjpeg's decode
        expect(f"{d}/cv2_jpeg_rgb.expect", back[:, :, ::-1])

    # ---- tifffile: strips, tiles, planes, byte orders, BigTIFF, min-is-white, alpha ----
    for dtype in (np.uint8, np.uint16, np.float32):
        t = TYPE_NAMES[np.dtype(dtype)]
        for n in (1, 2, 3, 4):
            a = u(dtype, h, w, n) if n > 1 else u(dtype, h, w)
            native = a[:, :, [0, 0, 0, 1]] if n == 2 else a
            photometric = "minisblack" if n <= 2 else "rgb"
            extra = {"extrasamples": [2]} if n in (2, 4) else {}
            name = f"tf_{t}_{n}"
            tifffile.imwrite(f"{d}/{name}_strips.tif", a, photometric=photometric,
                             rowsperstrip=5, compression="zlib", **extra)
            expect(f"{d}/{name}_strips.expect", native)
            tifffile.imwrite(f"{d}/{name}_tiles.tif", a, photometric=photometric,
                             tile=(16, 16), compression="zlib", **extra)
            expect(f"{d}/{name}_tiles.expect", native)
            if n > 1:
                tifffile.imwrite(f"{d}/{name}_planes.tif", np.moveaxis(a, 2, 0),
                                 photometric=photometric, planarconfig="separate",
                                 rowsperstrip=4, **extra)
                expect(f"{d}/{name}_planes.expect", native)
                tifffile.imwrite(f"{d}/{name}_planes_tiles.tif", np.moveaxis(a, 2, 0),
                                 photometric=photometric, planarconfig="separate",
                                 tile=(16, 32), compression="lzma", **extra)
                expect(f"{d}/{name}_planes_tiles.expect", native)
        a = u(dtype, h, w, 3)
        tifffile.imwrite(f"{d}/tf_{t}_bigendian.tif", a, byteorder=">", photometric="rgb")
        expect(f"{d}/tf_{t}_bigendian.expect", a)
        tifffile.imwrite(f"{d}/tf_{t}_bigtiff.tif", a, bigtiff=True, photometric="rgb",
                         compression="zlib", predictor=dtype != np.float32)
        expect(f"{d}/tf_{t}_bigtiff.expect", a)
    for dtype in (np.uint8, np.uint16):
        a = u(dtype, h, w)
        t = TYPE_NAMES[np.dtype(dtype)]
        tifffile.imwrite(f"{d}/tf_{t}_miniswhite.tif", a, photometric="miniswhite")
        expect(f"{d}/tf_{t}_miniswhite.expect", np.iinfo(dtype).max - a)

    # ---- BMP and JPEG by OpenCV: 8-bit with their channel counts ----
    for n in (1, 3, 4):
        a = u(np.uint8, h, w, n) if n > 1 else u(np.uint8, h, w)
        cv2.imwrite(f"{d}/cv2_bmp_{n}.bmp", a if n == 1 else a[:, :, [2, 1, 0, 3][:n]])
        # a gray BMP is a palette of grays: RGB; a 32-bit one keeps its alpha
        expect(f"{d}/cv2_bmp_{n}.expect", np.dstack([a] * 3) if n == 1 else a)
    for n in (1, 3):
        a = np.kron(u(np.uint8, 4, 5, n), np.ones((8, 8, 1), np.uint8))
        cv2.imwrite(f"{d}/cv2_jpeg_{n}.jpg", a if n == 1 else a[:, :, ::-1])
        back = cv2.imread(f"{d}/cv2_jpeg_{n}.jpg", cv2.IMREAD_UNCHANGED)  # libjpeg's decode
        expect(f"{d}/cv2_jpeg_{n}.expect", back if n == 1 else back[:, :, ::-1])

    # ---- TIFF filterview refuses, by name ----
    tifffile.imwrite(f"{d}/no_palette.tif", u(np.uint8, h, w), photometric="palette",
                     colormap=rng.integers(0, 65536, (3, 256), dtype=np.uint16))
    refuse(f"{d}/no_palette.refuse", "palette")
    tifffile.imwrite(f"{d}/no_cmyk.tif", u(np.uint8, h, w, 4), photometric="separated")
    refuse(f"{d}/no_cmyk.refuse", "CMYK")
    tifffile.imwrite(f"{d}/no_int16.tif", u(np.uint16, h, w).astype(np.int16))
    refuse(f"{d}/no_int16.refuse", "signed")
    tifffile.imwrite(f"{d}/no_float64.tif", rng.random((h, w)))
    refuse(f"{d}/no_float64.refuse", "64-bit floating-point")
    tifffile.imwrite(f"{d}/no_bilevel.tif", rng.random((h, w)) > 0.5)
    refuse(f"{d}/no_bilevel.refuse", "1-bit")
    tifffile.imwrite(f"{d}/no_uint32.tif", u(np.uint16, h, w).astype(np.uint32))
    refuse(f"{d}/no_uint32.refuse", "32-bit")
    tifffile.imwrite(f"{d}/no_five.tif", u(np.uint8, h, w, 5), photometric="rgb",
                     extrasamples=[2, 0])
    refuse(f"{d}/no_five.refuse", "5 samples")

    # ---- PNM: 16-bit with a maxval that is no power of two, kept as stored ----
    p = rng.integers(0, 4096, (h, w), dtype=np.uint16)
    with open(f"{d}/hand_gray12.pgm", "wb") as f:
        f.write(b"P5\n# twelve bits\n%d %d\n4095\n" % (w, h) + p.astype(">u2").tobytes())
    expect(f"{d}/hand_gray12.expect", p)
    q = u(np.uint16, h, w, 3)
    with open(f"{d}/hand_ppm_rgb16.ppm", "wb") as f:
        f.write(b"P6 %d %d 65535\n" % (w, h) + q.astype(">u2").tobytes())
    expect(f"{d}/hand_ppm_rgb16.expect", q)
    return 0


def read_pnm(path):
    data = open(path, "rb").read()
    fields, i = [], 2
    while len(fields) < 3:
        while data[i:i + 1].isspace():
            i += 1
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        fields.append(int(data[i:j]))
        i = j
    w, h, maxval = fields
    i += 1
    n = 1 if data[1:2] == b"5" else 3
    a = np.frombuffer(data[i:], ">u2" if maxval > 255 else np.uint8, w * h * n)
    return a.reshape(h, w, n) if n > 1 else a.reshape(h, w)


def check(root):
    d = os.path.join(root, "ours")
    names = sorted(f[:-7] for f in os.listdir(d) if f.endswith(".expect"))
    if not names:
        print("FAIL: no files of filterview's to check")
        return 1
    failed = 0
    for name in names:
        with open(f"{d}/{name}.expect", "rb") as f:
            w, h, t, n = f.readline().split()
            w, h, n = int(w), int(h), int(n)
            want = np.frombuffer(f.read(), np.dtype(t.decode()).newbyteorder("="))
        want = want.reshape((h, w, n) if n > 1 else (h, w))
        path = next(f"{d}/{name}{e}" for e in (".png", ".tif", ".tiff", ".pgm", ".ppm")
                    if os.path.exists(f"{d}/{name}{e}"))
        got = None
        if path.endswith((".tif", ".tiff")):
            try:
                got = tifffile.imread(path)
            except (KeyError, ValueError):  # the float predictor, without imagecodecs: OpenCV's
                pass
        if path.endswith(".png") or (path.endswith((".tif", ".tiff")) and got is None):
            got = cv2.imread(path, cv2.IMREAD_UNCHANGED)
            if got is not None and got.ndim == 3:
                got = got[:, :, [2, 1, 0, 3][:got.shape[2]]]
        elif not path.endswith((".tif", ".tiff")):
            got = read_pnm(path)
        if got is None or got.shape != want.shape or got.dtype.newbyteorder("=") != want.dtype \
                or not np.array_equal(got, want):
            print(f"FAIL: {path}: read back as {None if got is None else (got.shape, got.dtype)}, "
                  f"expected {want.shape} {want.dtype}"
                  + ("" if got is None or got.shape != want.shape else " (values differ)"))
            failed += 1
    print(f"{len(names) - failed} of {len(names)} files of filterview's read back exactly")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("make", "check"):
        print(__doc__)
        sys.exit(2)
    sys.exit(make(sys.argv[2]) if sys.argv[1] == "make" else check(sys.argv[2]))
