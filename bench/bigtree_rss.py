#!/usr/bin/env python3
"""Peak memory while opening and browsing a ~20 GB dump tree (docs/RELIABILITY.md, resources).

    python3 bench/bigtree_rss.py --cli build/ci/app/dumpscope-cli --gui build/ci/app/gui/dumpscope \
        [--tree /tmp/ds20g] [--tmp DIR]

Generates the sparse tree with gen_sparse_tree.py when --tree does not exist, then runs each
step as its own process under /usr/bin/time -v and samples /proc/PID/status every 20 ms:
max RSS (VmHWM) and the peaks of its anonymous part (heap: what DumpScope allocates) and its
file-backed part (pages of the mapped dump that were read; the kernel can drop them at will).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            m = re.search(rf"^{key}:\s+(\d+) kB", f.read(), re.M)
            return int(m.group(1)) if m else 0
    except OSError:
        return 0


def measure(cmd, env):
    """(wall s, max RSS MB, peak anon MB, peak file MB, exit code, stdout)."""
    full = ["/usr/bin/time", "-v"] + cmd
    t0 = time.monotonic()
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    peaks = {"RssAnon": 0, "RssFile": 0}

    def poll():
        child = None
        while p.poll() is None:
            if child is None:  # the measured program is /usr/bin/time's child
                try:
                    with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                        ids = f.read().split()
                        child = int(ids[0]) if ids else None
                except OSError:
                    pass
            if child:
                for k in peaks:
                    peaks[k] = max(peaks[k], status_kb(child, k))
            time.sleep(0.02)

    th = threading.Thread(target=poll)
    th.start()
    out, err = p.communicate()
    th.join()
    wall = time.monotonic() - t0
    m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", err)
    maxrss = int(m.group(1)) / 1024 if m else float("nan")
    return wall, maxrss, peaks["RssAnon"] / 1024, peaks["RssFile"] / 1024, p.returncode, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--gui")
    ap.add_argument("--tree", default="/tmp/ds20g")
    ap.add_argument("--tmp", default=tempfile.gettempdir())
    ap.add_argument("--only", help="run only the steps whose name contains this text")
    a = ap.parse_args()
    if not os.path.isdir(a.tree):
        subprocess.run([sys.executable, str(HERE / "gen_sparse_tree.py"), a.tree], check=True)
    apparent = sum(f.stat().st_size for f in Path(a.tree).rglob("*") if f.is_file())
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=os.path.join(a.tmp, "rss_config"))

    info = json.loads(subprocess.run([a.cli, "info", a.tree, "--json"], capture_output=True, check=True).stdout)
    listing = json.loads(subprocess.run([a.cli, "list", a.tree, "--json"], capture_output=True, check=True).stdout)
    big = next(t["id"] for op in listing["ops"] if "bench_big" in op["file"] for t in op["outputs"])
    print(f"tree: {a.tree}, apparent {apparent / 1e9:.1f} GB, {info['files']} files, {info['tensors']} tensors")
    print(f"big tensor: {big}")
    export_dir = os.path.join(a.tmp, "rss_export")
    steps = [
        ("cli info", [a.cli, "info", a.tree]),
        ("cli list --json", [a.cli, "list", a.tree, "--json"]),
        ("cli stats (1 GiB float16 tensor, 64 bins)", [a.cli, "stats", a.tree, big, "--bins", "64"]),
        ("cli overflow (software scan of every tensor, 19 GiB)", [a.cli, "overflow", a.tree]),
        ("cli export 1 GiB tensor to .npy", [a.cli, "export", a.tree, big, "--format", "npy", "--out", export_dir, "--force"]),
    ]
    if a.gui:
        shot = os.path.join(a.tmp, "rss_shot.png")
        steps += [
            ("gui open (tree, no selection)", [a.gui, "--screenshot", shot, a.tree]),
            ("gui select 1 GiB tensor, values tab", [a.gui, "--screenshot", shot, "--select", big, "--tab", "values", a.tree]),
            ("gui select 1 GiB tensor, heatmap tab", [a.gui, "--screenshot", shot, "--select", big, "--tab", "heatmap", a.tree]),
        ]
    print(f"| step | wall s | max RSS MB | peak anon MB | peak file-backed MB | exit |")
    print(f"|---|---|---|---|---|---|")
    for name, cmd in steps:
        if a.only and a.only not in name:
            continue
        wall, rss, anon, filed, rc, _ = measure(cmd, env)
        print(f"| {name} | {wall:.1f} | {rss:.0f} | {anon:.0f} | {filed:.0f} | {rc} |", flush=True)
    shutil.rmtree(export_dir, ignore_errors=True)  # the exported 1 GiB .npy


if __name__ == "__main__":
    main()
