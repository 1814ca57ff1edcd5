#!/usr/bin/env python3
"""The GUI opens every kind of sample without a crash, and answers --help without a display.

--smoke: one sample of each format kind (CANN, OpDebug overflow, GE graph, msprobe, real
msprobe dump, run, msprobe graph database, ptdbg, .h5, .npy, a torch .pt, a compare pair) is
opened by `dumpscope --screenshot` on the offscreen platform; each must exit 0 within the
timeout and write a PNG of the window's size. The samples are looked up at run time (a kind
whose sample is gone fails). `--shard K/N` deals the kinds round-robin.

--no-display: `dumpscope --help` and `--version` with an environment holding PATH only (no
DISPLAY, no QT_QPA_PLATFORM, no WAYLAND_DISPLAY): exit 0 and the usage text / version, where a
QApplication would abort for want of a display.

    gui_smoke.py --gui dumpscope --samples DIR --tmp DIR (--smoke [--shard K/N] | --no-display)
"""
import argparse
import glob
import os
import shutil
import signal
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from checker import Checker  # noqa: E402

SIZE = (1280, 800)


def first(samples, pattern):
    hits = sorted(glob.glob(os.path.join(samples, pattern), recursive=True))
    return hits[0] if hits else None


def kinds(samples):
    """(kind, path to open, extra arguments); path None when the sample is missing."""
    return [
        ("cann", first(samples, "cann/model_dump"), []),
        ("overflow", first(samples, "overflow/magic"), ["--tab", "overflow"]),
        ("graph", first(samples, "graph/dump"), ["--tab", "graph"]),
        ("msprobe", first(samples, "msprobe"), []),
        ("msprobe_real dump", first(samples, "msprobe_real/dumps/base_statistics_mix"), []),
        ("run", first(samples, "msprobe_real/dumps/npu_step1_statistics_mix"), ["--tab", "runs"]),
        ("vis.db", first(samples, "**/*.vis.db"), ["--tab", "graph"]),
        ("ptdbg", first(samples, "ptdbg"), []),
        ("h5", first(samples, "h5/*.h5"), []),
        ("npy", first(samples, "npy"), []),
        ("torch .pt", first(samples, "torch/*.pt"), []),
        ("compare pair", first(samples, "compare/npu"), ["--compare", os.path.join(samples, "compare", "bench")]),
    ]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def run(argv, env, timeout):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def smoke(ck, args):
    k, n = (int(x) for x in args.shard.split("/"))
    mine = [x for i, x in enumerate(kinds(args.samples)) if i % n == k - 1]
    for kind, path, extra in mine:
        if not ck.check(path is not None, kind, "no sample of this kind under the samples"):
            continue
        home = os.path.join(args.tmp, "home_" + kind.replace(" ", "_"))
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(home)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
        png = os.path.join(args.tmp, kind.replace(" ", "_") + ".png")
        if os.path.exists(png):
            os.remove(png)
        argv = [args.gui, "--screenshot", png, "--size", f"{SIZE[0]}x{SIZE[1]}", *extra, path]
        code, out, err = run(argv, env, args.timeout)
        where = f"{kind} ({os.path.relpath(path, args.samples)})"
        if code is None:
            ck.check(False, where, f"hangs: no exit within {args.timeout} s\n{err[-2000:]}")
            continue
        signalled = code < 0 or code >= 128
        ck.check(not signalled, where, f"exit {code}: killed by a signal\n{err[-2000:]}")
        if signalled:
            continue
        ck.check(code == 0, where, f"exit {code}\n{err[-2000:]}")
        size = png_size(png) if os.path.exists(png) else None
        ck.check(size == SIZE, where, f"screenshot {png}: {'no PNG' if size is None else size} (expected {SIZE})")
        print(f"{where}: exit {code}, {png}", flush=True)


def no_display(ck, args):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    code, out, err = run([args.gui, "--help"], env, 60)
    ck.check(code == 0, "--help", f"exit {code} without a display\n{err[-2000:]}")
    ck.check("Usage:" in out and "--screenshot" in out and "PATH" in out, "--help", f"no usage text:\n{out[:2000]}\n{err[-2000:]}")
    code, out, err = run([args.gui, "--version"], env, 60)
    ck.check(code == 0, "--version", f"exit {code} without a display\n{err[-2000:]}")
    ck.check(out.startswith("DumpScope ") and out.strip().split()[-1][:1].isdigit(), "--version", f"no version: {out!r} {err[-500:]!r}")
    code, out, err = run([args.gui, "--no-such-option"], env, 60)
    ck.check(code not in (None, 0) and code > 0 and code < 128 and "no-such-option" in err, "--no-such-option",
             f"exit {code}: a bad option is refused with a message, without a display\n{err[-2000:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gui", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--no-display", action="store_true")
    ap.add_argument("--shard", default="1/1")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    args.samples = os.path.abspath(args.samples)
    os.makedirs(args.tmp, exist_ok=True)
    ck = Checker()
    if args.no_display:
        no_display(ck, args)
    if args.smoke:
        smoke(ck, args)
    return ck.finish(min_checks=1)


if __name__ == "__main__":
    sys.exit(main())
