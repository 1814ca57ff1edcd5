#!/usr/bin/env python3
"""Many ranks x many steps (issue 35 item 3, docs/scale/graphs-runs.md).

    python3 bench/bench_scale_runs.py --build build/ci RUN_DIR [RUN_DIR ...] [--repeat 3] [--mpi 4] [--no-gui]

Each RUN_DIR is written by bench/gen_scale_run.py (RUN_DIR/npu and RUN_DIR/bench, statistics
dumps). For each, in one command, REPEAT times (page cache warm after a first untimed `info`),
each program as its own process under /usr/bin/time (wall, peak RSS):

- `dumpscope-cli info RUN_DIR/npu --json`,
- `dumpscope-cli compare RUN_DIR/npu RUN_DIR/bench --json` (the run compare),
- bench_gui_latency RUN_DIR/npu (the real main window, offscreen: indexed, runs overview and
  Trends built; `settled_ms` is when the runs overview has its answer),
- `mpirun -n MPI --oversubscribe dumpscope-cli compare ... --json`, whose output must be byte
  for byte the one-process output (checked every repeat).

Prints JSON: per RUN_DIR the scopes, and per program the median and range of wall seconds and
peak RSS (MB), and whether the MPI output was identical.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl_vader_single_copy_mechanism="none", QT_QPA_PLATFORM="offscreen")


def run(cmd):
    p = subprocess.run(["/usr/bin/time", "-f", "@@%e %M", *cmd], capture_output=True, env=ENV, timeout=7200)
    m = re.search(rb"@@([\d.]+) (\d+)", p.stderr)
    if p.returncode not in (0, 4) or not m:
        sys.exit(f"{cmd} failed ({p.returncode}): {p.stderr[-800:]!r}")
    return float(m.group(1)), int(m.group(2)) / 1024, p.stdout


def summary(values):
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--build", default="build/ci")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mpi", type=int, default=4)
    ap.add_argument("--no-gui", action="store_true")
    a = ap.parse_args()
    build = Path(a.build).resolve()
    cli = str(build / "app" / "dumpscope-cli")
    gui = str(build / "bench" / "bench_gui_latency")
    report = {}
    for d in a.runs:
        d = Path(d).resolve()
        npu, bench = str(d / "npu"), str(d / "bench")
        scopes = sum(1 for s in (d / "npu").iterdir() for _ in s.iterdir())
        run([cli, "info", npu, "--json"])  # warm the page cache
        res = {"info": [], "compare": [], "gui": [], "mpi": []}
        gui_out, identical = [], True
        for _ in range(a.repeat):
            t, rss, _ = run([cli, "info", npu, "--json"])
            res["info"].append((t, rss))
            t, rss, ref = run([cli, "compare", npu, bench, "--json"])
            res["compare"].append((t, rss))
            if not a.no_gui:
                t, rss, out = run([gui, npu])
                res["gui"].append((t, rss))
                gui_out.append(json.loads(out))
            if a.mpi > 1:
                t, rss, out = run(["mpirun", "-n", str(a.mpi), "--oversubscribe", cli, "compare", npu, bench, "--json"])
                res["mpi"].append((t, rss))
                identical = identical and out == ref
        entry = {"scopes": scopes, "compare_report_bytes": len(ref)}
        for k, v in res.items():
            if v:
                entry[k] = {"wall_s": summary([x[0] for x in v]), "peak_rss_mb": summary([x[1] for x in v])}
        if gui_out:
            for key in ("indexing_finished_ms", "settled_ms", "worst_gui_gap_ms", "ops"):
                entry["gui"][key] = summary([g[key] for g in gui_out])
        if a.mpi > 1:
            entry["mpi"]["processes"] = a.mpi
            entry["mpi"]["identical_to_one_process"] = identical
        report[str(d)] = entry
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
