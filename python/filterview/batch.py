"""filterview.batch: the driver of the program's ``--dask ADDRESS`` (a folder batch on a cluster).

The program names every output, refuses outputs that are inputs and makes the folders, then
runs this with the scheduler's address, its own path and the options of a one-file run, and
writes the (input, output) pairs on standard input, NUL-separated. One task per file goes to the
scheduler; each runs the program on its file (``PROGRAM INPUT OPTIONS -o OUTPUT``), so each
output is written as the local folder batch writes it: the same pixels and bytes, to a temporary
name and renamed. A failed file is said in one line and skipped; the summary follows, and the
exit status is 1 when any file failed (or the scheduler cannot be reached), else 0.

A worker runs the program at the path given, or at ``$FILTERVIEW_PROGRAM`` in its own
environment; a worker pinned to a GPU (``FILTERVIEW_DEVICE``, see :func:`filterview.dask.pin_gpus`)
runs it on that GPU alone. The tasks are shipped by value: the workers need the program and
Dask, not this module.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import List, Optional, Sequence, Tuple

#: A worker's pinned GPU (the same variable as filterview.dask's).
DEVICE_ENV = "FILTERVIEW_DEVICE"


def _filter_file(src: str, dst: str, program: str, options: Sequence[str]) -> Optional[str]:
    """On a worker: the program on one file. None when it was written, else the one-line
    reason."""
    program = os.environ.get("FILTERVIEW_PROGRAM") or program
    env = dict(os.environ)
    device = env.get(DEVICE_ENV, "").strip()
    if device.isdigit():  # the worker's GPU alone, as the program's device 0
        visible = [d for d in env.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
        env["CUDA_VISIBLE_DEVICES"] = visible[int(device)] if int(device) < len(visible) else device
    try:
        done = subprocess.run([program, src, *options, "-o", dst], env=env, capture_output=True,
                              text=True, errors="replace", check=False)
    except OSError as e:
        return "cannot run %s on the worker (%s): set FILTERVIEW_PROGRAM there" % (program, e)
    if done.returncode == 0:
        return None
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    reason = lines[-1] if lines else "exit status %d" % done.returncode
    return reason[len("filterview: "):] if reason.startswith("filterview: ") else reason


def _read_pairs(stream) -> List[Tuple[str, str]]:
    fields = stream.read().split(b"\0")
    if fields and fields[-1] == b"":
        fields.pop()
    names = [os.path.abspath(os.fsdecode(f)) for f in fields]
    return list(zip(names[0::2], names[1::2]))


def _ship_by_value() -> None:
    """The task function travels with the task, so workers need no filterview module."""
    try:
        import cloudpickle  # noqa: PLC0415

        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    except (ImportError, AttributeError, ValueError):
        pass  # an older cloudpickle: by reference, and the workers need the module


def _say(line: str) -> None:
    sys.stderr.write("filterview: %s\n" % line.replace("\n", " "))
    sys.stderr.flush()


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="filterview --dask")
    parser.add_argument("--scheduler", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--label", default="")
    parser.add_argument("--into", default="")
    parser.add_argument("--left-out", type=int, default=0)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("options", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    options = args.options[1:] if args.options[:1] == ["--"] else args.options
    pairs = _read_pairs(sys.stdin.buffer)

    from distributed import Client, as_completed  # noqa: PLC0415

    start = time.monotonic()
    try:
        client = Client(args.scheduler)
    except Exception as e:  # OSError (refused, timed out), or what the address makes it raise
        _say("cannot reach the Dask scheduler at %s: %s" % (args.scheduler, e))
        return 1
    failed = 0
    with client:
        workers = len(client.scheduler_info().get("workers", {}))
        _ship_by_value()
        futures = {client.submit(_filter_file, src, dst, args.program, options, pure=False):
                   src for src, dst in pairs}
        for future in as_completed(futures):
            try:
                reason = future.result()
            except Exception as e:  # a worker lost, a task that could not run
                reason = "%s: %s" % (type(e).__name__, e)
            if reason is not None:
                failed += 1
                _say("%s (skipped)" % reason)
        # everything to say on standard error is said: what distributed may print while the
        # client closes (a timed-out internal future, seen with 2022.12) is not ours to show
        sys.stderr.flush()
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
    seconds = time.monotonic() - start
    if not args.quiet:
        done = len(pairs) - failed
        line = ("filtered %d of %d images (%s) into '%s' in %.2f s: %.1f images/s on %d Dask "
                "worker%s" % (done, len(pairs) + args.left_out, args.label, args.into, seconds,
                              done / seconds if seconds > 0 else 0.0, workers,
                              "" if workers == 1 else "s"))
        if failed + args.left_out:
            line += "; %d failed" % (failed + args.left_out)
        print(line, flush=True)
    return 1 if failed or args.left_out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
