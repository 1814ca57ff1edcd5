#!/usr/bin/env python3
"""Oracle for `dumpscope-cli compare`, driven by the "compare" key of samples/manifest.json.

    python3 compare_oracle.py --cli build/app/dumpscope-cli --samples samples --tmp /tmp/x

samples/generate_compare.py wrote the expectations with numpy (tests/oracle/compare_numpy.py)
from the arrays it encoded; this script runs the CLI on the sample pair and compares: the CSV
header (msprobe 26's tensor-mode columns, shared/specs/compare.md §10.2, + msaccucmp §9 +
DumpScope §10.4), every row's verdict, its reason codes (exactly: none missing, none extra)
and metrics (1e-6 relative), the first divergence, the bench-only rows, the exit codes of
--fail-on, and that nothing is written into a dump directory.  The manifest must hold at least
MIN_ROWS rows of every verdict (the sample has pass, warning, error and not-comparable rows)
and the run at least MIN_CHECKS checks.  One line per failed check, then "N passed, M failed";
exit 1 on failure.
"""

import argparse
import csv
import hashlib
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from checker import Checker

# msprobe 26 tensor mode (compare.md §10.2; a CANN dump has no stacks: no NPU_Stack_Info), §9
# algorithm columns, §10.4 additions
MSPROBE = ["NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
           "NPU Requires_grad", "Bench Requires_grad", "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
           "One Thousandth Err Ratio", "Five Thousandths Err Ratio", "NPU max", "NPU min", "NPU mean",
           "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Requires_grad Consistent",
           "Result", "Err_message", "Data_name"]
MSACCUCMP = ["RelativeEuclideanDistance", "KullbackLeiblerDivergence", "StandardDeviation", "MeanAbsoluteError",
             "RootMeanSquareError", "AccumulatedRelativeError", "MaxRelativeError", "MeanRelativeError"]
DUMPSCOPE = ["Verdict", "ReasonCode", "MatchSource", "NPU Saturated Count", "Notes"]
# Rows of each verdict the manifest must expect (samples/generate_compare.py writes 15 pass,
# 2 warning, 11 error, 3 not comparable), and checks a run must make at least.
MIN_ROWS = {"pass": 15, "warning": 2, "error": 11, "none": 3}
MIN_CHECKS = 470


def close(got, want):
    if isinstance(want, str) or isinstance(got, str):
        return got == want
    if want == 0:
        return abs(got) < 1e-12
    return abs(got - want) <= 1e-6 * abs(want)


def tree_digest(root):
    h = hashlib.sha256()
    for p in sorted(Path(root).rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def run(cli, *args):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    samples = Path(a.samples)
    tmp = Path(a.tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    ck = Checker()
    manifest = json.loads((samples / "manifest.json").read_text())
    # generate_samples.py rewrites the manifest: a lost "compare" key must not pass silently
    ck.check(manifest.get("compare"), "manifest", 'no "compare" entries (rerun samples/generate_compare.py)')
    for case in manifest.get("compare", []):
        name = case["name"]
        for verdict, least in MIN_ROWS.items():
            n = sum(e["verdict"] == verdict for e in case["expected_rows"])
            ck.check(n >= least, name, f"the manifest expects {n} {verdict} rows, at least {least} required")
        npu, bench = samples / case["npu_path"], samples / case["bench_path"]
        before = (tree_digest(npu), tree_digest(bench))
        csv_path = tmp / f"{name}.csv"
        if csv_path.exists():
            csv_path.unlink()
        rc, out, err = run(a.cli, "compare", npu, bench, "--json", "--csv", csv_path)
        if not ck.check(rc == 0, name, f"exit {rc}: {err}"):
            continue
        report = json.loads(out)
        rows = report["rows"]
        ck.check(len(rows) == case["rows"], name, f"{len(rows)} rows, expected {case['rows']}")
        by_name = {r["npu_name"]: r for r in rows}
        for e in case["expected_rows"]:
            r = by_name.get(e["npu_name"])
            where = f"{name} {e['npu_name']}"
            if not ck.check(r is not None, where, "row missing"):
                continue
            ck.check(r["verdict"] == e["verdict"], where, f"verdict {r['verdict']}, expected {e['verdict']}")
            ck.check(sorted(r["reasons"]) == sorted(e["reasons"]), where, f"reasons {r['reasons']}, expected {e['reasons']}")
            # a compared row (no reason) has numpy metrics to check
            ck.check(e["reasons"] or e.get("metrics"), where, "the manifest has no metrics for a compared row")
            for k, want in e.get("metrics", {}).items():
                got = r["metrics"].get(k)
                ck.check(got is not None and close(got, want), where, f"{k} {got}, numpy {want}")
        d = case["first_divergence"]
        fd = report["first_divergence"]
        if ck.check(len(fd) == 1, name, f"{len(fd)} divergences, expected 1"):
            ck.check(fd[0]["origin"]["name"] == d["origin"], name, f"origin {fd[0]['origin']['name']}, expected {d['origin']}")
            ck.check(fd[0]["origin"]["row_name"] == d["row"], name, f"origin row {fd[0]['origin']['row_name']}")
            ck.check(fd[0]["inputs_agree"] == d["inputs_agree"], name, "inputs_agree")
            ck.check([c["name"] for c in fd[0]["chain"]] == d["chain"], name, f"chain {[c['name'] for c in fd[0]['chain']]}")
        ck.check(sorted(b["bench_name"] for b in report["bench_only"]) == sorted(case["bench_only"]), name,
                 f"bench only {report['bench_only']}")

        # CSV: header and one line per row, in the JSON's order
        if ck.check(csv_path.exists(), name, "CSV not written"):
            table = list(csv.reader(io.StringIO(csv_path.read_text())))
            ck.check(table[0] == MSPROBE + MSACCUCMP + DUMPSCOPE, name, f"CSV header {table[0]}")
            ck.check([t[0] for t in table[1:]] == [r["npu_name"] for r in rows], name, "CSV rows differ from JSON rows")
            col = {c: i for i, c in enumerate(table[0])}
            for t in table[1:]:
                r = by_name[t[0]]
                ck.check(t[col["Verdict"]] == ("" if r["verdict"] == "none" else r["verdict"]), name, f"CSV verdict of {t[0]}")
                if isinstance(r["metrics"].get("max_abs_err"), float):
                    ck.check(close(float(t[col["MaxAbsErr"]]), r["metrics"]["max_abs_err"]) or
                             abs(float(t[col["MaxAbsErr"]]) - r["metrics"]["max_abs_err"]) < 1e-12, name,
                             f"CSV MaxAbsErr of {t[0]}")

        # text output names the origin; --fail-on exit codes
        rc, out, _ = run(a.cli, "compare", npu, bench)
        ck.check(rc == 0 and f"first divergence" in out and d["origin"] in out.split("first divergence", 1)[1].splitlines()[0],
                 name, "text output does not name the first divergence")
        rc, _, _ = run(a.cli, "compare", npu, bench, "--fail-on", "error", "--quiet")
        ck.check(rc == 4, name, f"--fail-on error exit {rc}, expected 4")
        rc, _, _ = run(a.cli, "compare", npu, bench, "--fail-on", "warning", "--quiet")
        ck.check(rc == 4, name, f"--fail-on warning exit {rc}, expected 4")
        rc, _, _ = run(a.cli, "compare", bench, bench, "--fail-on", "warning", "--quiet")
        ck.check(rc == 0, name, f"bench vs itself with --fail-on warning exit {rc}, expected 0")
        rc, _, _ = run(a.cli, "compare", npu, bench, "--fail-on", "bad")
        ck.check(rc == 2, name, f"--fail-on bad exit {rc}, expected 2")
        # never write into a dump directory; clear errors for bad input
        rc, _, err = run(a.cli, "compare", npu, bench, "--csv", npu / "report.csv")
        ck.check(rc == 2 and "dump directory" in err and not (npu / "report.csv").exists(), name, f"CSV inside the dump: {rc} {err}")
        bad_map = tmp / "bad_mapping.json"
        bad_map.write_text("{\"a\": 1}")
        rc, _, err = run(a.cli, "compare", npu, bench, "--mapping", bad_map)
        ck.check(rc == 2 and str(bad_map) in err, name, f"bad mapping: {rc} {err}")
        rc, _, err = run(a.cli, "compare", npu, tmp / "missing")
        ck.check(rc == 3 and "missing" in err, name, f"missing bench path: {rc} {err}")
        # a user mapping renames an operator: the row is matched by the user's name
        mapping = tmp / "mapping.yaml"
        mapping.write_text("trans_TransData_1: layer1/MatMul\n")
        rc, out, _ = run(a.cli, "compare", npu, bench, "--json", "--mapping", mapping)
        trans = [r for r in json.loads(out)["rows"] if r["npu_name"] == "trans_TransData_1.input.0"] if rc == 0 else []
        ck.check(trans and trans[0]["match_source"] == "user" and trans[0]["bench_name"] == "layer1/MatMul.input.0",
                 name, f"mapping not applied: {trans}")
        ck.check((tree_digest(npu), tree_digest(bench)) == before, name, "a dump directory changed")

    return ck.finish(min_checks=MIN_CHECKS)


if __name__ == "__main__":
    sys.exit(main())
