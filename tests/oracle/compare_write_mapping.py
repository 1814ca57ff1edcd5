#!/usr/bin/env python3
"""`dumpscope-cli compare --write-mapping` (issue 31 item 3) on the align_* pairs of
samples/msprobe_real, with the real msprobe 26 as the oracle.

For every align_* case and rank of step 0:
  * the data_mapping the CLI writes now holds the same entries (PyYAML's safe_load, as msprobe
    reads it) as compare/<case>/step0/data_mapping/<rank>/data_mapping.yaml, the file msprobe's
    compare was run with (tools/make_data_mapping.py);
  * msprobe's own compare with `-dm` that file (its CSV there) pairs every NPU row with the bench
    row DumpScope's structure aligner pairs it with (N/A where the aligner leaves it unpaired);
  * `dumpscope-cli compare --no-align --mapping FILE` (exact names plus the file, no aligner)
    pairs every row as the aligner does, without a warning about the file;
  * without the file, `--no-align` pairs differently (the file is what carries the alignment).
And the refusals: a single file for a compare of several scopes (the step folders: two ranks)
exits 2 naming the scopes and writes nothing; a folder gets one data_mapping_<scope>.yaml per
scope; a path inside a dump directory exits 2 and writes nothing.
"""
import argparse
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml


def pairs_of_report(report):
    return {r["npu_name"]: (r.get("bench_name") or "N/A") for r in report["rows"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    root = os.path.join(a.samples, "msprobe_real")
    cases = [c for c in json.load(open(os.path.join(root, "expected.json")))["cases"] if c["id"].startswith("align_")]
    failures = []
    tmp = tempfile.mkdtemp(prefix="write_mapping_")

    def cli(*args):
        return subprocess.run([a.cli, "compare", *args, "--quiet"], capture_output=True, text=True)

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    try:
        for c in cases:
            for rank in ("rank0", "rank1"):
                npu = os.path.join(root, "dumps", c["npu"], "step0", rank)
                bench = os.path.join(root, "dumps", c["bench"], "step0", rank)
                here = os.path.join(root, "compare", c["id"], "step0", "data_mapping", rank)
                mapping = os.path.join(tmp, "%s_%s.yaml" % (c["id"], rank))
                aligned = cli(npu, bench, "--json", "--write-mapping", mapping)
                check(aligned.returncode == 0, "%s %s: compare --write-mapping exits 0" % (c["id"], rank))
                aligned_pairs = pairs_of_report(json.loads(aligned.stdout))
                written = yaml.safe_load(open(mapping))
                committed = yaml.safe_load(open(os.path.join(here, "data_mapping.yaml")))
                check(written == committed and len(written) > 0,
                      "%s %s: the written mapping (%d entries) is the one msprobe ran with" % (c["id"], rank, len(written)))
                # msprobe's pairing with -dm FILE: NPU Name -> Bench Name of its CSV
                with open(glob.glob(os.path.join(here, "compare_result_*.csv"))[0], newline="") as f:
                    ms = {r[0]: r[1] for r in list(csv.reader(f))[1:]}
                differ = sorted(k for k in aligned_pairs if ms.get(k) != aligned_pairs[k])
                check(not differ and len(ms) == len(aligned_pairs),
                      "%s %s: msprobe compare -dm pairs the %d rows as the aligner does%s"
                      % (c["id"], rank, len(aligned_pairs), "" if not differ else ": " + ", ".join(
                          "%s aligner %s msprobe %s" % (k, aligned_pairs[k], ms.get(k)) for k in differ[:5])))
                mapped = cli(npu, bench, "--json", "--no-align", "--mapping", mapping)
                report = json.loads(mapped.stdout)
                mapped_pairs = pairs_of_report(report)
                check(mapped_pairs == aligned_pairs, "%s %s: --no-align --mapping FILE pairs as the aligner" % (c["id"], rank))
                warnings = [w for s in report.get("scopes", [report]) for w in s.get("warnings", [])] + report.get("warnings", [])
                check(not [w for w in warnings if "mapping" in w], "%s %s: no warning about the file: %s" % (c["id"], rank, warnings))
                plain = pairs_of_report(json.loads(cli(npu, bench, "--json", "--no-align").stdout))
                check(plain != aligned_pairs, "%s %s: without the file --no-align pairs otherwise" % (c["id"], rank))

        c = cases[0]
        npu = os.path.join(root, "dumps", c["npu"], "step0")
        bench = os.path.join(root, "dumps", c["bench"], "step0")
        one = os.path.join(tmp, "one.yaml")
        r = cli(npu, bench, "--write-mapping", one)
        check(r.returncode == 2 and "2 scopes (step0/rank0, step0/rank1)" in r.stderr and not os.path.exists(one),
              "a file for two scopes is refused: %r" % r.stderr.strip())
        folder = os.path.join(tmp, "maps") + "/"
        r = cli(npu, bench, "--write-mapping", folder)
        files = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        check(r.returncode == 0 and files == ["data_mapping_step0_rank0.yaml", "data_mapping_step0_rank1.yaml"],
              "a folder gets one file per scope: %s" % files)
        for rank in ("rank0", "rank1"):
            if files:
                check(yaml.safe_load(open(os.path.join(folder, "data_mapping_step0_%s.yaml" % rank)))
                      == yaml.safe_load(open(os.path.join(root, "compare", c["id"], "step0", "data_mapping", rank, "data_mapping.yaml"))),
                      "the folder's %s file is the rank's mapping" % rank)
        inside = os.path.join(npu, "rank0", "data_mapping.yaml")
        r = cli(os.path.join(npu, "rank0"), os.path.join(bench, "rank0"), "--write-mapping", inside)
        check(r.returncode == 2 and "inside a dump directory" in r.stderr and not os.path.exists(inside),
              "a file inside the NPU dump is refused: %r" % r.stderr.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
