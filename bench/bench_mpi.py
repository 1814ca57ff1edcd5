#!/usr/bin/env python3
"""Distributed compare benchmark (issue 17, docs/DISTRIBUTED.md "Measured").

    python3 bench/bench_mpi.py --cli build/release/app/dumpscope-cli [--steps 64] [--repeat 3]
                               [--command compare|overflow|info] [--text]

Assembles an NPU and a bench run of STEPS steps x 2 ranks in a temporary folder from the real
msprobe tensor-mode corpus (samples/msprobe_real/dumps/{npu_weight,base}_tensor_mix: every scope
folder holds links to a committed scope's files, so the runs are real msprobe output), then
times in the same run, best of REPEAT (page cache warm):

- one process without mpirun (the reference),
- mpirun -n 1 and -n 2 (shared layout),

checks that the JSON reports are identical, and prints JSON: seconds, scopes, input bytes
(all files of both runs), MB/s and scopes/s per configuration, and the bytes rank 0 gathered
(the CLI's "distributed over" line of the -n 2 run: catalogs, summaries and the rows of the
JSON report) per scope pair.

--command overflow / info: one run of STEPS steps x 2 ranks assembled from the real overflow run
(samples/msprobe_real/dumps/overflow_tensor_mix: tensors with NaN/Inf), the same timings of
`dumpscope-cli overflow|info RUN --json`, and the bytes gathered per scope (catalogs and report
parts). --text: the text report instead of --json (what travels is the text's parts).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_rmaps_base_oversubscribe="1")


def link_scope(target, source):
    target.mkdir(parents=True)
    for e in sorted(source.iterdir()):
        (target / e.name).symlink_to(e.resolve())


def size_of(path):
    total = 0
    for root, _, files in os.walk(path, followlinks=True):
        for f in files:
            total += os.stat(os.path.join(root, f)).st_size
    return total


def timed(cmd, repeat):
    best, out, err = None, b"", b""
    for _ in range(repeat):
        start = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, env=ENV, timeout=3600)
        took = time.monotonic() - start
        if p.returncode not in (0, 4):
            sys.exit(f"{cmd} failed ({p.returncode}): {p.stderr[-500:]!r}")
        if best is None or took < best:
            best, out, err = took, p.stdout, p.stderr
    return best, out, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", default=str(Path(__file__).resolve().parent.parent / "samples"))
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--command", choices=("compare", "overflow", "info"), default="compare")
    ap.add_argument("--text", action="store_true", help="the text report instead of --json")
    a = ap.parse_args()
    cli = str(Path(a.cli).resolve())
    corpus = Path(a.samples) / "msprobe_real" / "dumps"
    tmp = Path(tempfile.mkdtemp(prefix="dumpscope-bench-mpi."))
    try:
        report = [] if a.text else ["--json"]
        if a.command == "compare":
            for side, source in (("npu", "npu_weight_tensor_mix"), ("bench", "base_tensor_mix")):
                for s in range(a.steps):
                    for r in (0, 1):
                        link_scope(tmp / side / f"step{s}" / f"rank{r}", corpus / source / f"step{s % 2}" / f"rank{r}")
            npu, bench = str(tmp / "npu"), str(tmp / "bench")
            input_bytes = size_of(npu) + size_of(bench)
            args = ["compare", npu, bench, *report]
        else:
            for s in range(a.steps):
                for r in (0, 1):
                    link_scope(tmp / "run" / f"step{s}" / f"rank{r}", corpus / "overflow_tensor_mix" / "step1" / f"rank{r}")
            input_bytes = size_of(tmp / "run")
            args = [a.command, str(tmp / "run"), *report]
        scopes = a.steps * 2
        results = {}
        ref_t, ref_out, _ = timed([cli, *args], a.repeat)
        results["1 process (no mpirun)"] = ref_t
        gathered = None
        for n in (1, 2):
            t, out, err = timed(["mpirun", "-n", str(n), cli, *args], a.repeat)
            if out != ref_out:
                sys.exit(f"mpirun -n {n}: the report differs from one process's")
            results[f"mpirun -n {n}"] = t
        m = re.search(rb"gathered (\d+) bytes \(catalogs (\d+), summaries (\d+), rows (\d+)\), (\d+) bytes per scope pair", err)
        if m:
            gathered = dict(zip(("total", "catalogs", "summaries", "rows", "per_scope_pair"), map(int, m.groups())))
        m = re.search(rb"gathered (\d+) bytes \(catalogs (\d+), report parts (\d+)\), (\d+) bytes per scope", err)
        if m:
            gathered = dict(zip(("total", "catalogs", "report_parts", "per_scope"), map(int, m.groups())))
        print(json.dumps({
            "scopes": scopes, "input_bytes": input_bytes, "command": a.command, "report": "text" if a.text else "json", "report_bytes": len(ref_out), "gathered_bytes": gathered,
            "runs": {k: {"seconds": round(v, 3), "MB_per_s": round(input_bytes / v / 1e6, 1),
                         "scopes_per_s": round(scopes / v, 1), "ratio_to_one_process": round(ref_t / v, 2)}
                     for k, v in results.items()},
        }, indent=2))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
