#!/usr/bin/env python3
"""The GUI opens a many-scope run scope by scope: memory grows with the scopes, not the operators
(issue 35, item 3).

    gui_scopes_rss.py --gui DUMPSCOPE --tmp DIR

Generates two statistics runs with bench/gen_scale_run.py, 32 ranks x 10 steps (320 scopes) and
256 x 10 (2,560 scopes, 79,360 operators), and opens each NPU side in the main window on the Runs
tab (`--screenshot --tab runs`: it waits until the runs overview has read every scope's details)
with DS_SCOPE_BY_SCOPE_ABOVE=100, so that both open scope by scope. The peak RSS (getrusage of the
child) may grow by at most 12 KB per added scope between the two runs: indexing every operator
grew by about 60 KB per scope (262 MB at 2,560 scopes); the walk, the tree's scope nodes, the
probes and the grid's cells grow by about 5 KB. The screenshot must be written. Not a timing test.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from scaletest import fresh_tmp, gen_run, parse_args  # noqa: E402
KB_PER_SCOPE = 12


def peak_rss(cmd, env):
    """Runs cmd in a child of its own (a fresh ru_maxrss) and returns its peak RSS in bytes."""
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
             "sys.stderr.write(p.stderr.decode(errors='replace')[-500:])\n"
             "sys.stdout.write('%d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(p.returncode)\n")
    p = subprocess.run([sys.executable, "-c", probe] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace")))
    return int(p.stdout.split()[-1]) * 1024


def main():
    a = parse_args("gui")
    with fresh_tmp(a.tmp) as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DS_SCOPE_BY_SCOPE_ABOVE="100",
                   XDG_CONFIG_HOME=str(tmp / "config"))
        rss = {}
        for ranks in (32, 256):
            out = tmp / ("r%d" % ranks)
            gen_run(str(out), ranks)
            png = tmp / ("r%d.png" % ranks)
            rss[ranks] = peak_rss([a.gui, "--screenshot", str(png), "--size", "1280x800", "--tab", "runs",
                                   str(out / "npu")], env)
            if not png.is_file() or png.stat().st_size == 0:
                sys.exit("no screenshot of %d ranks" % ranks)
            print("%d ranks x 10 steps: peak RSS %.1f MB" % (ranks, rss[ranks] / 1e6))
            shutil.rmtree(out)
        per_scope = (rss[256] - rss[32]) / (2560 - 320)
        print("growth: %.1f KB per scope (at most %d)" % (per_scope / 1024, KB_PER_SCOPE))
        if per_scope > KB_PER_SCOPE * 1024:
            sys.exit("the GUI's peak RSS grows by %.1f KB per scope (more than %d KB): it indexes every operator"
                     % (per_scope / 1024, KB_PER_SCOPE))
    print("ok")


if __name__ == "__main__":
    main()
