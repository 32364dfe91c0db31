"""filterview.imread and filterview.imwrite against the command line's own files.

Each host test writes an image with imwrite, has the program invert it with the reference
(``filterview IN -f invert -v cpu -o OUT``: exact in every type) and reads its output back with
imread: the pixels must be the inverse bit for bit, in the file's type and channels. The device
tests (``device="cuda"``) skip without a GPU; one test checks the refusal where there is none.
The program is $FILTERVIEW_PROGRAM (set by CTest), else build/filterview.
"""

import os
import subprocess

import numpy as np
import pytest

import filterview

from conftest import ROOT

PROGRAM = os.environ.get("FILTERVIEW_PROGRAM", os.path.join(ROOT, "build", "filterview"))
HAVE_DEVICE = filterview.device_available()[0]
needs_device = pytest.mark.skipif(not HAVE_DEVICE, reason="no CUDA device")


def rng():
    seed = int.from_bytes(os.urandom(4), "little")
    print("seed", seed)
    return np.random.default_rng(seed)


def cli_invert(src, dst):
    if not os.access(PROGRAM, os.X_OK):
        pytest.fail("no program at %s: build it, or set FILTERVIEW_PROGRAM" % PROGRAM)
    run = subprocess.run([PROGRAM, str(src), "-f", "invert", "-v", "cpu", "-o", str(dst)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("shape", [(37, 41), (23, 19, 3), (16, 31, 4)])
def test_png16_round_trip_through_the_program(tmp_path, shape):
    img = rng().integers(0, 65536, shape, dtype=np.uint16)
    info = filterview.imwrite(tmp_path / "in.png", img)
    assert (info.format, info.codec, info.note) == ("PNG", "cpu", "")
    cli_invert(tmp_path / "in.png", tmp_path / "out.png")
    out, info = filterview.imread(tmp_path / "out.png", return_info=True)
    assert info.format == "PNG" and info.codec == "cpu"
    expected = (65535 - img).astype(np.uint16)
    if len(shape) == 3 and shape[2] == 4:
        expected[..., 3] = img[..., 3]  # invert keeps alpha
    assert same_bits(out, expected)


@pytest.mark.parametrize("shape", [(29, 33), (17, 21, 3), (9, 14, 4)])
def test_float32_tiff_round_trip_through_the_program(tmp_path, shape):
    img = (rng().standard_normal(shape) * 3).astype(np.float32)  # outside 0..1 too: kept
    filterview.imwrite(tmp_path / "in.tif", img)
    assert same_bits(filterview.imread(tmp_path / "in.tif"), img)
    cli_invert(tmp_path / "in.tif", tmp_path / "out.tiff")
    out = filterview.imread(str(tmp_path / "out.tiff"))
    expected = np.float32(1) - img
    if len(shape) == 3 and shape[2] == 4:
        expected[..., 3] = img[..., 3]
    assert same_bits(out, expected)


@pytest.mark.parametrize("name", ["g.png", "g.pgm", "g.tif", "g.jpg"])
def test_gray_stays_gray(tmp_path, name):
    img = rng().integers(0, 256, (40, 24), dtype=np.uint8)
    filterview.imwrite(tmp_path / name, img)
    cli_invert(tmp_path / name, tmp_path / ("out_" + name))
    out, info = filterview.imread(tmp_path / ("out_" + name), return_info=True)
    assert out.dtype == np.uint8 and out.shape == img.shape
    if name.endswith(".jpg"):  # twice through JPEG: close, not exact
        assert np.abs(out.astype(int) - (255 - img.astype(int))).mean() < 24
        assert info.format == "JPEG"
    else:
        assert same_bits(out, 255 - img)


def test_host_layouts_written_as_they_are(tmp_path):
    """Strided, Fortran-ordered and H x W x 1 arrays are written as their values."""
    img = rng().integers(0, 256, (30, 40, 3), dtype=np.uint8)
    filterview.imwrite(tmp_path / "a.png", img[::2, ::3])
    assert same_bits(filterview.imread(tmp_path / "a.png"), np.ascontiguousarray(img[::2, ::3]))
    filterview.imwrite(tmp_path / "b.png", np.asfortranarray(img))
    assert same_bits(filterview.imread(tmp_path / "b.png"), img)
    filterview.imwrite(tmp_path / "c.png", img[..., :1])
    assert same_bits(filterview.imread(tmp_path / "c.png"), img[..., 0])


def test_what_a_format_cannot_hold_is_said(tmp_path):
    img = rng().integers(0, 65536, (8, 8, 4), dtype=np.uint16)
    info = filterview.imwrite(tmp_path / "lossy.jpg", img, quality=95)
    assert info.format == "JPEG" and "lossy.jpg" in info.note
    back = filterview.imread(tmp_path / "lossy.jpg")
    assert back.dtype == np.uint8 and back.shape == (8, 8, 3)


def test_read_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.png"
    with pytest.raises(filterview.FileError, match="missing.png"):
        filterview.imread(missing)
    text = tmp_path / "notes.png"
    text.write_text("not a picture\n")
    with pytest.raises(filterview.FileError, match="notes.png"):
        filterview.imread(text)
    with pytest.raises(ValueError, match="device"):
        filterview.imread(text, device="gpu")


def test_write_refusals_name_the_file_and_leave_it_alone(tmp_path):
    img = np.zeros((4, 4), np.uint8) + 7
    with pytest.raises(filterview.Error, match="out.gif"):
        filterview.imwrite(tmp_path / "out.gif", img)
    assert not (tmp_path / "out.gif").exists()
    (tmp_path / "folder.png").mkdir()
    with pytest.raises(filterview.Error, match="folder.png"):
        filterview.imwrite(tmp_path / "folder.png", img)
    with pytest.raises(ValueError, match="quality"):
        filterview.imwrite(tmp_path / "q.jpg", img, quality=0)
    kept = tmp_path / "kept.png"
    filterview.imwrite(kept, img)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.png", "kept.png"]  # no temp
    before = kept.read_bytes()
    kept.chmod(0o444)  # refused by its mode, as the program refuses it, even for root
    with pytest.raises(filterview.Error, match="kept.png"):
        filterview.imwrite(kept, img + 1)
    assert kept.read_bytes() == before


@pytest.mark.skipif(HAVE_DEVICE, reason="a CUDA device is there")
def test_device_read_without_a_device_says_so():
    with pytest.raises(filterview.NoDeviceError, match="device"):
        filterview.imread(os.path.join(ROOT, "assets", "astronaut.png"), device="cuda")


def host_of(x, tmp_path):
    """A device image on the host, through imwrite's own copy down (float TIFF keeps every type
    exactly), so that no CuPy or PyTorch is needed."""
    filterview.imwrite(tmp_path / "host_of.tif", x)
    return filterview.imread(tmp_path / "host_of.tif")


@needs_device
def test_device_read_of_a_png_equals_the_host_read(tmp_path):
    path = os.path.join(ROOT, "assets", "astronaut.png")
    d, info = filterview.imread(path, device="cuda", return_info=True)
    assert info.codec == "cpu"  # not a JPEG: decoded on the host and copied up
    assert same_bits(host_of(d, tmp_path), filterview.imread(path))


@needs_device
@pytest.mark.parametrize("gray", [False, True])
def test_device_jpeg_read_is_near_the_cpu_decode(tmp_path, gray):
    img = filterview.imread(os.path.join(ROOT, "assets", "astronaut.png"))
    if gray:
        img = img[..., 1].copy()
    filterview.imwrite(tmp_path / "a.jpg", img)
    host = filterview.imread(tmp_path / "a.jpg")
    d, info = filterview.imread(tmp_path / "a.jpg", device="cuda", return_info=True)
    print("device JPEG decoded by", info.codec)
    got = host_of(d, tmp_path)
    assert got.shape == host.shape and got.dtype == np.uint8
    diff = np.abs(got.astype(int) - host.astype(int))
    print("largest difference", diff.max(), "mean", diff.mean())
    assert diff.max() <= 4 and diff.mean() < 0.5


@needs_device
def test_device_writes(tmp_path):
    cupy = pytest.importorskip("cupy")
    img = rng().integers(0, 65536, (21, 34, 3), dtype=np.uint16)
    info = filterview.imwrite(tmp_path / "d.png", cupy.asarray(img))
    assert info.codec == "cpu"
    assert same_bits(filterview.imread(tmp_path / "d.png"), img)
    photo = filterview.imread(os.path.join(ROOT, "assets", "astronaut.png"))
    info = filterview.imwrite(tmp_path / "d.jpg", cupy.asarray(photo))
    print("device JPEG encoded by", info.codec)
    back = filterview.imread(tmp_path / "d.jpg")
    filterview.imwrite(tmp_path / "h.jpg", photo)
    cpu = filterview.imread(tmp_path / "h.jpg")
    assert back.shape == photo.shape
    assert np.abs(back.astype(int) - cpu.astype(int)).mean() < 2
