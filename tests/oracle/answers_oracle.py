#!/usr/bin/env python3
"""msprobe's own answers read back by the CLI (issue 33, items 1 and 2), against the real
msprobe 26.0.0 corpus (samples/msprobe_real, expected.json):

  * `compare diff_analyze_*.json --json` and `compare compare_result_rank*.json --json` name, per
    rank, the ops Python's json reads from the file (the first entry with is_same false for the
    per-rank file); where -da kept its per-rank files, the dumps are found beside the file and
    DumpScope's own first divergence is the case's designed origin, marked as agreeing with
    msprobe where the two name the same op;
  * `compare diff_analyze_*.json --npu A --bench B --json` with the pair's step folders: the
    designed origin of every rank of every step;
  * `overflow anomaly_analyze_*.json --json` without --npu finds the folder the producer's
    command gave overflow_check as -i (expected.json producer.commands);
  * bad input (not JSON, another shape) exits 1 naming the file; a path that is not there exits 3.

Prints one line per failed check, then "N passed, M failed"; exit 1 on any failure.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

from checker import Checker


def run(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    root = os.path.join(a.samples, "msprobe_real")
    with open(os.path.join(root, "expected.json")) as f:
        expected = json.load(f)
    ck = Checker()

    for case in expected["cases"]:
        designed = (case.get("designed") or {}).get("per_scope_origin") or {}
        for step, found in sorted((case.get("msprobe") or {}).items()):
            da = found.get("diff_analyze") or {}
            if not da.get("file"):
                continue
            where = f"{case['id']} {step}"
            code, out, err = run(a.cli, "compare", os.path.join(root, da["file"]), "--json")
            if not ck.check(code == 0, where, f"exit {code}: {err.strip()}"):
                continue
            got = json.loads(out)
            ops = {}
            for d in got["first_diffs"]:
                ops.setdefault(d["rank"], []).append(d["op_name"])
            ck.check(ops == da["ops_by_rank"], where, f"ops {ops}, msprobe wrote {da['ops_by_rank']}")
            kept = da.get("compare_result_json") or []
            ck.check(got["dumps_found"] == bool(kept), where, f"dumps_found {got['dumps_found']}: {got['dumps']}")
            for d in got["first_diffs"]:
                want = designed.get(f"{step}/rank{d['rank'][5:]}")
                if got["dumps_found"] and want:
                    ours = d.get("dumpscope") or {}
                    ck.check(ours.get("op_name") == want["op"], f"{where} {d['rank']}", f"DumpScope {ours}, designed {want['op']}")
                    ck.check(d["agree"] == (want["op"] == d["op_name"]), f"{where} {d['rank']}", f"agree {d['agree']}")
            for rank_file in kept:
                with open(os.path.join(root, rank_file)) as f:
                    entries = json.load(f)
                first = next((k for k, v in entries.items() if not v["is_same"]), None)
                code, out, err = run(a.cli, "compare", os.path.join(root, rank_file), "--json")
                if not ck.check(code == 0, rank_file, f"exit {code}: {err.strip()}"):
                    continue
                got = json.loads(out)
                ck.check([d["op_name"] for d in got["first_diffs"]] == [first], rank_file, f"{got['first_diffs']} vs {first}")
                ck.check(got["entries"] == len(entries), rank_file, f"{got['entries']} entries")
                ck.check(got["differing"] == sum(not v["is_same"] for v in entries.values()), rank_file, "differing")
            # the dumps given: the designed origin of every rank
            npu = os.path.join(root, "dumps", case["npu"], step)
            bench = os.path.join(root, "dumps", case["bench"], step)
            code, out, err = run(a.cli, "compare", os.path.join(root, da["file"]), "--npu", npu, "--bench", bench, "--json")
            if not ck.check(code == 0, where + " given", f"exit {code}: {err.strip()}"):
                continue
            got = json.loads(out)
            ours = {d["rank"]: (d.get("dumpscope") or {}).get("op_name") for d in got["first_diffs"]}
            ours.update({k: v["op_name"] for k, v in got["dumpscope_only"].items()})
            for scope, want in designed.items():
                if scope.startswith(step + "/") and "structural_region" not in case["designed"]:
                    rank = "rank_" + scope.split("/rank")[1]
                    ck.check(ours.get(rank) == want["op"], f"{where} given {rank}", f"DumpScope {ours.get(rank)}, designed {want['op']}")

    # overflow_check's answers: the -i folder found beside each
    inputs = {}
    for c in expected["producer"]["commands"]:
        m = re.search(r"overflow_check -i (\S+) -o (\S+)", c)
        if m:
            inputs[m.group(2)] = m.group(1)
    answers = 0
    for case in expected["cases"]:
        for step, found in sorted((case.get("msprobe") or {}).items()):
            f = found.get("file") or ""
            if not f.startswith("overflow_check/"):
                continue
            answers += 1
            code, out, err = run(a.cli, "overflow", os.path.join(root, f), "--json")
            if not ck.check(code == 0, f, f"exit {code}: {err.strip()}"):
                continue
            got = json.loads(out)
            want = os.path.realpath(os.path.join(root, inputs[os.path.dirname(f)]))
            ck.check(got["dump"] and os.path.realpath(got["dump"]) == want, f, f"dump {got['dump']}, producer read {want}")
            ck.check(all(r.get("dumpscope") is not None for r in got["anomalies"]), f, "DumpScope's answer beside every rank")
    ck.check(answers >= 5, "overflow answers", f"{answers} files")

    # bad input: exit 1, the file named; a missing path: exit 3
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    for name, text in [("diff_analyze_1.json", "{\"rank_0\": ["), ("diff_analyze_2.json", "[1, 2]"),
                       ("compare_result_rank0_3.json", "{\"a\": {\"op_items\": []}}"),
                       ("anomaly_analyze_4.json", "rank_1: Torch.exp")]:
        path = os.path.join(a.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        command = "overflow" if name.startswith("anomaly") else "compare"
        code, out, err = run(a.cli, command, path)
        ck.check(code == 1 and err.startswith(path + ": "), name, f"exit {code}, stderr {err.strip()!r}")
    code, _, err = run(a.cli, "compare", os.path.join(a.tmp, "diff_analyze_9.json"))
    ck.check(code == 3, "missing file", f"exit {code}, {err.strip()!r}")
    return ck.finish(min_checks=60)


if __name__ == "__main__":
    sys.exit(main())
