#!/usr/bin/env python3
"""`mpirun -n 2 dumpscope-cli compare` of a many-scope run keeps no pair's indexes (issue 35, item 3).

    mpi_compare_streamed.py --cli DUMPSCOPE_CLI --tmp DIR

Generates a 128-rank x 10-step pair of statistics runs (bench/gen_scale_run.py, 1,280 scope
pairs) and compares it under mpirun on 2 processes (text report, 8.3 MB). Each process used to
keep every pair it compared (both indexes and the rows) until rank 0 had chosen the report's
columns, and rank 0 kept every pair's text until the end: the peak RSS of the largest process
was 176 MB, 21x the report. Now a pair's report parts are rendered as soon as it is compared
and its indexes dropped (a pair whose CSV rows are in other columns than the report's is
compared again, as one process does), and rank 0 spools the pairs' text to a temporary file:
71 MB, 8.6x. The check: at most 12x the report, and the report byte-identical to one process's.

A worker (rank 1) kept its pairs' rendered text (UTF-16) until all its pairs were compared and
sent it after: from 32 x 10 to 128 x 10 its peak RSS grew 24.4 MB for 6.2 MB more report
(3.9x). Now each piece is encoded (UTF-8) when rendered and sent while the pairs are compared:
+4.1 MB (0.7x, the walked trees). The check: the worker's growth at most 2x the report's.
Not a timing test.
"""

import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from scaletest import fresh_tmp, gen_run, parse_args  # noqa: E402
sys.path.insert(0, str(HERE))
from mpi_compare import mpi_env  # noqa: E402

RATIO = 12
WORKER_GROWTH = 2

# Runs the command and writes its peak RSS (KB) to ARGV[1].<MPI rank>; stdout passes through.
WRAP = """import os, resource, subprocess, sys
r = subprocess.run(sys.argv[2:])
with open(sys.argv[1] + "." + os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "x")), "w") as f:
    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(r.returncode)
"""


def worker_rss(cli, run, tmp):
    """mpirun -n 2 compare of `run`: (rank 1's peak RSS in bytes, the report)."""
    prefix = str(tmp / ("rss-" + run.name))
    out = subprocess.run(["mpirun", "-n", "2", "--oversubscribe", sys.executable, "-c", WRAP, prefix, cli, "compare",
                          str(run / "npu"), str(run / "bench"), "--quiet"], capture_output=True, env=mpi_env())
    if out.returncode not in (0, 4):
        sys.exit("mpirun -n 2 on %s failed (%d): %s" % (run.name, out.returncode, out.stderr.decode(errors="replace")[-500:]))
    return int(Path(prefix + ".1").read_text()) * 1024, out.stdout


def main():
    a = parse_args("cli")
    with fresh_tmp(a.tmp) as tmp:
        gen_run(str(tmp / "run"), 128)
        args = ["compare", str(tmp / "run" / "npu"), str(tmp / "run" / "bench"), "--quiet"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        spread = subprocess.run(["mpirun", "-n", "2", "--oversubscribe", a.cli] + args, capture_output=True, env=mpi_env())
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # mpirun's processes first: the largest child so far
        one = subprocess.run([a.cli] + args, capture_output=True)
        if one.returncode not in (0, 4):
            sys.exit("one process failed (%d): %s" % (one.returncode, one.stderr.decode(errors="replace")[-500:]))
        if spread.returncode != one.returncode:
            sys.exit("mpirun -n 2 exited %d, one process %d: %s" % (spread.returncode, one.returncode,
                                                                    spread.stderr.decode(errors="replace")[-500:]))
        if spread.stdout != one.stdout:
            sys.exit("mpirun -n 2 wrote another report than one process")
        if after <= before:
            sys.exit("the peak RSS of mpirun's processes was not measured (%d KB before, %d after)" % (before, after))
        rss, size = after * 1024, len(one.stdout)
        print("report: %d bytes, peak RSS of a process %d bytes (%.1fx)" % (size, rss, rss / size))
        if size < 6 << 20:
            sys.exit("the report is smaller than expected (%d bytes): the run generator changed" % size)
        if rss > RATIO * size:
            sys.exit("peak RSS %d bytes is more than %dx the report's %d bytes: a process keeps every pair" % (rss, RATIO, size))
        # A worker's memory does not grow with the text it rendered.
        gen_run(str(tmp / "small"), 32)
        small_rss, small_report = worker_rss(a.cli, tmp / "small", tmp)
        big_rss, big_report = worker_rss(a.cli, tmp / "run", tmp)
        if big_report != one.stdout:
            sys.exit("mpirun -n 2 (wrapped) wrote another report than one process")
        grew, more = big_rss - small_rss, len(big_report) - len(small_report)
        print("worker peak RSS %d -> %d bytes (+%d) for %d more bytes of report (%.2fx)" % (small_rss, big_rss, grew, more,
                                                                                           grew / more))
        if grew > WORKER_GROWTH * more:
            sys.exit("a worker's peak RSS grew %d bytes for %d more bytes of report: more than %dx, it keeps its pairs' text"
                     % (grew, more, WORKER_GROWTH))
    print("ok")


if __name__ == "__main__":
    main()
