#!/usr/bin/env python3
"""A run compare's report is written from a temporary file, not kept in memory (issue 35, item 3).

    run_compare_streamed.py --cli DUMPSCOPE_CLI --tmp DIR

Generates a 128-rank x 10-step pair of statistics runs (bench/gen_scale_run.py, 1,280 scope
pairs) and compares them with --csv. The CSV is about 62 MB; before the report was spooled per
scope pair, every pair's CSV stayed in memory until the end and was joined into one buffer (peak
RSS 288 MB); now the process keeps one pair at a time (33 MB). The check is that the peak RSS
(getrusage of the child) stays under three quarters of the CSV's size, which the old code
exceeded four times over. The bytes of the text and CSV reports are checked by cli_matrix,
runs_oracle and mpi_compare (unchanged). Not a timing test.
"""

import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from scaletest import fresh_tmp, gen_run, parse_args  # noqa: E402


def peak_rss(cmd, out):
    """Runs cmd (stdout to `out`) in a child and returns its peak RSS in bytes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(out, "wb") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE)
    if p.returncode not in (0, 4):
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace")[-500:]))
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of the children is the largest of any child so far: the first child run is the one measured
    return max(after, before) * 1024


def main():
    a = parse_args("cli")
    with fresh_tmp(a.tmp) as tmp:
        gen_run(str(tmp / "run"), 128)
        csv = tmp / "report.csv"
        rss = peak_rss([a.cli, "compare", str(tmp / "run" / "npu"), str(tmp / "run" / "bench"), "--quiet", "--csv", str(csv)],
                       tmp / "text.txt")
        size = csv.stat().st_size
        print("csv: %d bytes, peak RSS %d bytes (%.2fx)" % (size, rss, rss / size))
        if size < 40 << 20:
            sys.exit("the CSV is smaller than expected (%d bytes): the run generator changed" % size)
        if rss > 0.75 * size:
            sys.exit("peak RSS %d bytes is more than 0.75x the CSV's %d bytes: the report is kept in memory" % (rss, size))
    print("ok")


if __name__ == "__main__":
    main()
