#!/usr/bin/env python3
"""tests/mutate/mutate.py: does the test suite catch a broken product? Plants small deliberate
bugs (the MUTANTS below), one at a time, in a scratch copy of the tree, builds it, runs the CPU-side
tests against each and reports which bugs survive: a bug no test catches marks a check that
grades the product by itself, or none at all.

    python3 tests/mutate/mutate.py [--scratch DIR] [--only NAME...] [--list]
                                   [--label REGEX] [--exclude REGEX] [--all-failures] [--jobs N]
                                   [--cuda-arch ARCH]

- The scratch copy (default $TMPDIR/filterview-mutate) holds the working tree's files as they are,
  committed or not (git ls-files: tracked, and untracked but not ignored), kept between runs so
  that a run rebuilds only what changed; it is built once
  (Ninja and ccache where installed, one CUDA architecture: --cuda-arch, default 75-real) and then
  again after each bug, which recompiles one file.
- The tests: ctest -L LABEL -E EXCLUDE, by default the labels cpu, cli and python without the
  slowest (the codec corpus, valgrind, NVRTC, the install and the package), about a minute on two
  cores. They must all pass on the unchanged copy first, or nothing is tried. Each bug's run stops
  at its first failure (--all-failures: every test runs, every failure named).
- A bug whose text is not found exactly once in its file, or that does not build, is reported as
  such (the list needs updating), not as caught.
Exit 0 when every bug was caught, 1 when one survived or could not be planted, 2 on trouble.
docs/testing.md says more."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# name, file, the text to find (exactly once), what replaces it, the bug in words
MUTANTS = [
    ("gaussian_sigma", "kernels/gaussian/gaussian_taps.c",
     "g[k] = exp(-(double)k * k / (2.0 * sigma * sigma));",
     "g[k] = exp(-(double)k * k / (2.0 * sigma));",
     "Gaussian weights from a wrong sigma (right at sigma 1 only)"),
    ("diff_last_row", "kernels/core/common.c",
     "for (int y = 0; y < a->height; y++) {\n        const uint8_t *pa",
     "for (int y = 0; y < a->height - 1; y++) {\n        const uint8_t *pa",
     "the host diff ignores the last row"),
    ("batch_drops_params", "viewer/modes/batch.c",
     "st = run_variant_to_host(f, v, &src, &dst, p, &ms);",
     "st = run_variant_to_host(f, v, &src, &dst, (fv_params[]){fv_params_default(f)}, &ms);",
     "a batch run drops --radius (every parameter) while printing it"),
    ("bench_constant_time", "viewer/modes/bench.c",
     "r->ms = fv_now_ms() - t0;",
     "r->ms = 1.0 + 0 * t0;",
     "the bench reports a constant time for the reference"),
    ("folder_batch_drops_params", "viewer/modes/batch_many.c",
     "s = fv_runner_prepare(&runner, b->f, b->v, b->p, j->src.width, j->src.height);",
     "s = fv_runner_prepare(&runner, b->f, b->v, (fv_params[]){fv_params_default(b->f)}, "
     "j->src.width, j->src.height);",
     "a folder batch runs the defaults whatever the command line says"),
    ("diff_ignores_alpha", "kernels/core/common.c",
     "for (int c = 0; c < channels; c++) {",
     "for (int c = 0; c < channels - 1; c++) {",
     "the host diff ignores the last channel (alpha)"),
    ("diff_nan_unequal", "kernels/core/common.c",
     "return isnan(a) && isnan(b) ? 0.0 : INFINITY;",
     "return INFINITY;",
     "the host diff counts NaN against NaN as a difference"),
    ("tolerance_ignores_share", "kernels/core/common.c",
     "const int share_holds = share <= t->max_share ||",
     "const int share_holds = 1 ||",
     "fv_tolerance_holds ignores the share of differing pixels"),
    ("gaussian_rounds_down", "kernels/gaussian/gaussian_ref.c",
     "uint32_t s0 = 32768, s1 = 32768, s2 = 32768;",
     "uint32_t s0 = 0, s1 = 0, s2 = 0;",
     "the Gaussian reference truncates instead of rounding"),
    ("canny_blur_off", "kernels/canny/canny_ref.c",
     "if (sigma > 0.0) {",
     "if (sigma > 100.0) {",
     "Canny's reference never blurs"),
    ("canny_threshold_swap_lost", "kernels/canny/canny_ref.c",
     "if (c->low > c->high) {",
     "if (0) {",
     "Canny keeps low above high instead of swapping them as cv2.Canny does"),
    ("median_rank", "kernels/median/median_ref.c",
     "const uint32_t rank = (uint32_t)(k * k - 1) / 2;",
     "const uint32_t rank = (uint32_t)(k * k - 1) / 2 + 1;",
     "the median reference takes the next value up"),
    ("invert_alpha", "kernels/invert/invert_ref.c",
     "out[4 * x + 3] = in[4 * x + 3];",
     "out[4 * x + 3] = (uint8_t)(255 - in[4 * x + 3]);",
     "invert also inverts alpha"),
    ("conv_flipped", "kernels/conv/conv_ref.c",
     "src->data + (size_t)conv_clamp(y - i + k->cy, h - 1) * src->pitch;",
     "src->data + (size_t)conv_clamp(y + i - k->cy, h - 1) * src->pitch;",
     "conv correlates instead of convolving (the kernel not flipped vertically)"),
    ("compare_runs_a_twice", "viewer/modes/compare.c",
     "st = run_variant_to_host(side[k].filter, side[k].variant, &src, &out[k],\n"
     "                                     cli_params(o, side[k].filter), &ms[k]);",
     "st = run_variant_to_host(side[0].filter, side[0].variant, &src, &out[k],\n"
     "                                     cli_params(o, side[0].filter), &ms[k]);",
     "--compare runs side A for both sides (a cpu-with-cpu comparison cannot tell)"),
    ("python_bench_constant_time", "python/filterview/__init__.py",
     "times.append((t1 - t0) * 1e3)",
     "times.append(1.0 + 0 * (t1 - t0))",
     "Python's bench reports a constant time on the host"),
    ("help_keys_empty", "viewer/main.c",
     "case CLI_MODE_HELP_KEYS: keys_print_help(stdout, 1); return 0;",
     "case CLI_MODE_HELP_KEYS: return 0;",
     "--help-keys prints nothing (readme_keys looked for every line it printed)"),
    ("hud_no_text", "viewer/window/hud_layout.c",
     "if (L->n_runs >= HUD_MAX_RUNS) return -1;",
     "if (1) return -1;",
     "the HUD lays out no text at all (no glyph is outside the window either)"),
    ("batch_writes_nothing", "viewer/modes/batch_many.c",
     "if (s == FV_OK) s = image_save(j->out, &j->dst, &b->save);",
     "if (s == FV_OK && j->src.width < 0) s = image_save(j->out, &j->dst, &b->save);",
     "a folder batch writes no file and says nothing"),
    ("compare_exit_zero", "viewer/modes/compare.c",
     "return d.n_differing > 0 || d.max_abs > 0 ? 1 : 0;",
     "return 0;",
     "--compare says identical (exit 0) whatever it found"),
]

DEFAULT_LABEL = "cpu|cli|python"
DEFAULT_EXCLUDE = "valgrind|image_io|user_compile|kernel_host|cli_install|cli_package"


def run(cmd, cwd=None, log=None, timeout=None):
    """Runs cmd; returns (exit status, output)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or "") + "\n(timed out)"
    if log:
        with open(log, "w") as f:
            f.write(p.stdout)
    return p.returncode, p.stdout


def sync_tree(root, dest):
    """Makes dest hold the working tree's files (tracked, and untracked but not ignored) and
    nothing else, writing only those whose content differs: their time is then new, so the build
    recompiles exactly them (a copy that kept the tree's times would look older than the objects
    an earlier run built from a planted bug)."""
    files = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                           stdout=subprocess.PIPE, check=True).stdout.split(b"\0")
    wanted = set()
    for name in files:
        rel = name.decode()
        src = os.path.join(root, rel)
        if not rel or not os.path.isfile(src):  # deleted but still tracked
            continue
        wanted.add(rel)
        target = os.path.join(dest, rel)
        with open(src, "rb") as f:
            data = f.read()
        if os.path.isfile(target):
            with open(target, "rb") as f:
                if f.read() == data:
                    continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        shutil.copymode(src, target)
    for top, _, names in os.walk(dest):
        for n in names:
            rel = os.path.relpath(os.path.join(top, n), dest)
            if rel not in wanted:
                os.remove(os.path.join(top, n))


def configure(src, build, arch):
    cmd = ["cmake", "-S", src, "-B", build, "-DCMAKE_CUDA_ARCHITECTURES=" + arch]
    if shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    if shutil.which("ccache"):
        cmd += ["-D%s_COMPILER_LAUNCHER=ccache" % lang for lang in ("CMAKE_C", "CMAKE_CUDA",
                                                                       "CMAKE_CXX")]
    return run(cmd)


def failed_tests(output):
    """The names ctest lists under 'The following tests FAILED'."""
    names = []
    if "The following tests FAILED" in output:
        tail = output.split("The following tests FAILED", 1)[1]
        names = re.findall(r"^\s*\d+ - (\S+) \((?:Failed|Timeout|SEGFAULT|Exception|"
                           r"Subprocess aborted|Child aborted|[^)]*)\)", tail, re.M)
    return names


def run_tests(build, args):
    cmd = ["ctest", "--test-dir", build, "-L", args.label, "-j", str(args.jobs)]
    if args.exclude:
        cmd += ["-E", args.exclude]
    if not args.all_failures:
        cmd += ["--stop-on-failure"]
    code, out = run(cmd, timeout=3600)
    ran = re.search(r"tests passed, (\d+) tests failed out of (\d+)", out)
    return code, out, failed_tests(out), int(ran.group(2)) if ran else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "filterview-mutate"))
    ap.add_argument("--only", nargs="+", metavar="NAME", help="these bugs only")
    ap.add_argument("--list", action="store_true", help="list the bugs and exit")
    ap.add_argument("--label", default=DEFAULT_LABEL, help="ctest -L (default %(default)s)")
    ap.add_argument("--exclude", default=DEFAULT_EXCLUDE, help="ctest -E (default %(default)s)")
    ap.add_argument("--all-failures", action="store_true",
                    help="run every test for each bug, not only up to the first failure")
    ap.add_argument("--jobs", type=int, default=2, help="ctest -j (default %(default)s)")
    ap.add_argument("--cuda-arch", default="75-real", help="CMAKE_CUDA_ARCHITECTURES")
    args = ap.parse_args()

    if args.list:
        for name, path, _, _, why in MUTANTS:
            print("%-26s %-36s %s" % (name, path, why))
        return 0
    chosen = MUTANTS
    if args.only:
        unknown = set(args.only) - {m[0] for m in MUTANTS}
        if unknown:
            print("mutate: no bug named %s (--list)" % ", ".join(sorted(unknown)))
            return 2
        chosen = [m for m in MUTANTS if m[0] in args.only]

    src = os.path.join(args.scratch, "src")
    build = os.path.join(args.scratch, "build")
    logs = os.path.join(args.scratch, "logs")
    os.makedirs(src, exist_ok=True)
    os.makedirs(logs, exist_ok=True)
    sync_tree(root, src)
    print("mutate: %d bugs; scratch copy of %s in %s" % (len(chosen), root, src), flush=True)

    code, out = configure(src, build, args.cuda_arch)
    if code == 0:
        code, out = run(["cmake", "--build", build], log=os.path.join(logs, "build.log"))
    if code != 0:
        print(out[-3000:])
        print("mutate: the unchanged copy does not build (logs in %s)" % logs)
        return 2
    start = time.time()
    code, out, failed, n = run_tests(build, args)
    if code != 0 or n == 0:
        with open(os.path.join(logs, "baseline.log"), "w") as f:
            f.write(out)
        print("mutate: the unchanged copy fails %s (of %d tests); nothing tried"
              % (", ".join(failed) or "its tests", n))
        return 2
    print("mutate: the unchanged copy passes its %d tests in %.0f s" % (n, time.time() - start),
          flush=True)

    results = []
    for name, path, find, replace, why in chosen:
        target = os.path.join(src, path)
        with open(target) as f:
            original = f.read()
        count = original.count(find)
        if count != 1:
            results.append((name, why, "NOT PLANTED", "its text is found %d times in %s"
                            % (count, path)))
            print("%-26s NOT PLANTED (its text is found %d times)" % (name, count), flush=True)
            continue
        with open(target, "w") as f:
            f.write(original.replace(find, replace))
        try:
            code, out = run(["cmake", "--build", build], log=os.path.join(logs, name + ".build"))
            if code != 0:
                verdict, detail = "DOES NOT BUILD", "see %s.build" % os.path.join(logs, name)
            else:
                t0 = time.time()
                code, out, failed, n = run_tests(build, args)
                with open(os.path.join(logs, name + ".log"), "w") as f:
                    f.write(out)
                if code == 0:
                    verdict, detail = "SURVIVED", "all %d tests pass" % n
                else:
                    verdict = "caught"
                    detail = "by " + (", ".join(failed) or "a failing test") + \
                        " (%.0f s)" % (time.time() - t0)
        finally:
            with open(target, "w") as f:
                f.write(original)
        results.append((name, why, verdict, detail))
        print("%-26s %-8s %s" % (name, verdict, detail), flush=True)

    print()
    print("| bug | what it plants | verdict |")
    print("|---|---|---|")
    for name, why, verdict, detail in results:
        print("| %s | %s | %s %s |" % (name, why, verdict, detail))
    bad = [r for r in results if r[2] != "caught"]
    print("\nmutate: %d of %d bugs caught%s" % (len(results) - len(bad), len(results),
                                                "; " + ", ".join("%s %s" % (r[0], r[2])
                                                                 for r in bad) if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
