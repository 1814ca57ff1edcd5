#!/usr/bin/env python3
"""The first divergence of `dumpscope-cli compare --json` on every pair of samples/msprobe_real,
against the designed answer and next to what msprobe 26's own `compare -da` said.

For every pair case of expected.json and every step, the CLI compares the step folders (both
ranks in one comparison; each rank is a scope). For each scope the test

  * requires DumpScope's origin to be the designed one (expected.json `designed.per_scope_origin`):
    the operator, the row that starts it, the parameter (name; "from the call stack" at level
    L1) and, where the design names it, the module entry around the operator; scopes designed
    without a divergence must have none;
  * states what msprobe's `-da` reported for that rank (expected.json `msprobe.stepN.diff_analyze`,
    read from its diff_analyze_<n>.json / log) and what DumpScope reports;
  * where the two differ, states why, and checks the reason: either `-da` flags an operator
    only when one of its outputs has a statistic relative error above 50 % (md5 mode: a CRC-32
    difference), so DumpScope's origin must be an operator whose outputs stay at or below 50 %
    in msprobe's own compare CSV of that rank and the operator `-da` names must come later and
    cross 50 %; or `-da` stopped at other ranks that differ before their first communication op,
    and this rank's origin is the communication op that brought it their value; or the two op
    streams differ in structure (designed `structural_region`, the align_* cases) and `-da`,
    pairing by names, compares an operator that the structure aligner pairs with another call.

Before that it checks that tools/design_expected.py (the designed half of expected.json, written
before any DumpScope code read the data) still writes every run and every case's designed answer
that expected.json holds, the align_* cases included; and for the align_* cases it states what
msprobe's `-fm` (fuzzy match) said: on the unfused pairs msprobe 26 fails (its log holds the
exception), on align_missing its CSV pairs no row at all (every Bench Name N/A or None), where
the structure aligner pairs them.

Prints the table; exits 1 when an origin differs from the design or a stated reason does not hold.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

STATS = ["max", "min", "mean", "l2norm"]
REL_COLUMNS = ["MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"]


def op_of(row_name):
    for sep in (".input.", ".output.", ".parameters."):
        if sep in row_name:
            return row_name.split(sep)[0]
    return row_name.rsplit(".", 1)[0]


def rel_cell(text):
    """A statistics-mode relative error cell as a fraction; None when not a number."""
    t = text.strip()
    if t in ("0", ""):
        return 0.0
    if t.endswith("%"):
        return float(t[:-1]) / 100
    if t.lower() in ("inf", "nan"):
        return math.inf
    return None


def rel(n, b):
    try:
        x, y = float(n), float(b)
    except ValueError:
        return 0.0 if n == b else None
    if x == y:
        return 0.0
    return abs(x - y) / abs(y) if y != 0 else math.inf


def output_errors(csv_path):
    """op -> the largest output relative error -da would see (statistics, or 1 for a CRC
    difference in md5 mode), and the op order of the CSV."""
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    worst, order = {}, []
    for r in rows:
        op = op_of(r["NPU Name"])
        if op not in worst:
            worst[op] = 0.0
            order.append(op)
        if ".output." not in r["NPU Name"]:
            continue
        if "NPU MD5" in r:
            e = 0.0 if r["NPU MD5"] == r["BENCH MD5"] else 1.0
        elif "MaxRelativeErr" in r and "Max diff" in r:
            vals = [rel_cell(r[c]) for c in REL_COLUMNS]
            e = max(v for v in vals if v is not None) if any(v is not None for v in vals) else 0.0
        else:  # tensor mode: -da switches to statistics; recompute them from the recorded columns
            vals = [rel(r[f"NPU {s}"], r[f"Bench {s}"]) for s in STATS]
            e = max(v for v in vals if v is not None) if any(v is not None for v in vals) else 0.0
        worst[op] = max(worst[op], e)
    return worst, order


def design_failures(root, expected):
    """tools/design_expected.py writes the runs and the designed half of every case of expected.json."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "expected.json")
        r = subprocess.run([sys.executable, os.path.abspath(os.path.join(root, "tools", "design_expected.py")), out],
                           capture_output=True, text=True, cwd=tmp)
        if r.returncode != 0:
            return [f"design_expected.py failed: {r.stderr.strip()}"]
        designed = json.load(open(out))
    failures = []
    if designed["runs"] != expected["runs"]:
        failures.append("design_expected.py: runs differ from expected.json's: "
                        + ", ".join(sorted(k for k in set(designed["runs"]) | set(expected["runs"])
                                           if designed["runs"].get(k) != expected["runs"].get(k))))
    mine = {c["id"]: c for c in designed["cases"]}
    for case in expected["cases"]:
        theirs = {k: v for k, v in case.items() if k not in ("msprobe", "design_matches_compare_csv")}
        if case["id"] not in mine:
            failures.append(f"design_expected.py: no case {case['id']}")
        elif mine[case["id"]] != theirs:
            failures.append(f"design_expected.py: case {case['id']} differs from expected.json's designed answer")
    return failures


def fuzzy_lines(root, case, step_key, report, failures):
    """What msprobe's -fm said on an align_* pair, and why it differs from DumpScope's pairing."""
    label = f"{case['id']} {step_key} -fm"
    folder = os.path.join(root, "compare", case["id"], step_key, "fuzzy_csv")
    log = open(os.path.join(root, case["msprobe"][step_key]["log"]), encoding="utf-8").read()
    fm = log[log.find(" -fm\n"):] if " -fm\n" in log else ""
    if not os.path.isdir(folder):
        # msprobe 26's fuzzy match builds its match table with one length and assigns another
        if "Length mismatch" not in fm:
            failures.append(f"{label}: no fuzzy_csv and the log's -fm run states no failure")
        return [f"{label:34s} msprobe 26's -fm fails on this pair (log: {fm[fm.find('Length mismatch'):].splitlines()[0]}); "
                f"DumpScope aligns the region {case['designed']['structural_region']}"]
    lines = []
    for name in sorted(os.listdir(folder)):
        rank_key = "rank" + name.split("_rank")[1].split("_")[0]
        with open(os.path.join(folder, name), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        unpaired = [r["NPU Name"] for r in rows if r["Bench Name"] in ("N/A", "None", "")]
        ours = {r["npu_name"]: r.get("bench_name") for r in report["rows"] if r["npu_id"].startswith(rank_key + "/")}
        paired_here = [n for n in unpaired if ours.get(n)]
        if not paired_here:
            failures.append(f"{label} {rank_key}: every row -fm leaves unpaired is unpaired by DumpScope too")
        lines.append(f"{label + ' ' + rank_key:34s} -fm pairs {len(rows) - len(unpaired)} of {len(rows)} rows (the others' "
                     f"Bench Name N/A or None); aligned by structure DumpScope pairs {len(paired_here)} of those "
                     f"{len(unpaired)}")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    root = os.path.join(a.samples, "msprobe_real")
    expected = json.load(open(os.path.join(root, "expected.json")))
    failures, lines, agree, total = [], [], 0, 0
    failures += design_failures(root, expected)
    for case in expected["cases"]:
        if case["kind"] != "pair":
            continue
        designed = case["designed"]["per_scope_origin"]
        for step_key in sorted(case["msprobe"]):
            found = case["msprobe"][step_key]
            npu = os.path.join(root, "dumps", case["npu"], step_key)
            bench = os.path.join(root, "dumps", case["bench"], step_key)
            r = subprocess.run([a.cli, "compare", npu, bench, "--json"], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{case['id']} {step_key}: exit {r.returncode} {r.stderr.strip()}")
                continue
            report = json.loads(r.stdout)
            region = case["designed"].get("structural_region")
            if region:
                # the text report names the designed region, NPU ops against bench ops, and that it
                # is numerically equal (every align_* change is numerically identical by design)
                where = region.split(".", 1)[1].rsplit(".", 3)[0]  # Module.blocks.0.Block.forward.0 -> blocks.0
                text = subprocess.run([a.cli, "compare", npu, bench], capture_output=True, text=True).stdout
                found_lines = [l for l in text.splitlines() if l.startswith(f"  {where}: ") and " vs NPU " in l
                               or l.startswith(f"  {where}: only ")]
                if "aligned by structure" not in text or not found_lines:
                    failures.append(f"{case['id']} {step_key}: the text names no structure region in {where}")
                for l in found_lines:
                    if not l.endswith(": numerically equal"):
                        failures.append(f"{case['id']} {step_key}: region not numerically equal: {l.strip()}")
                lines.extend(fuzzy_lines(root, case, step_key, report, failures))
            ours = {}
            for d in report["first_divergence"]:
                ours[f"{d['levels']['step']}/{d['levels']['rank']}"] = d
            da = (found.get("diff_analyze") or {}).get("ops_by_rank") or {}
            for rank_key in sorted(found["compare_csv"]):
                scope = f"{step_key}/{rank_key}"
                total += 1
                want, got = designed.get(scope), ours.get(scope)
                label = f"{case['id']} {scope}"
                # DumpScope against the design
                if want is None:
                    if got is not None:
                        failures.append(f"{label}: DumpScope reports {got['origin']['name']}, designed: no divergence")
                elif got is None:
                    failures.append(f"{label}: DumpScope reports no divergence, designed {want['op']}")
                else:
                    if got["origin"]["name"] != want["op"] or got["origin"]["row_name"] != want["row"]:
                        failures.append(f"{label}: DumpScope origin {got['origin']['row_name']}, designed {want['row']}")
                    param = (got.get("parameter") or {}).get("name")
                    if param != want.get("parameter"):
                        failures.append(f"{label}: DumpScope parameter {param}, designed {want.get('parameter')}")
                    if "module" in want and want["module"] not in [m["name"] for m in got["modules"]]:
                        failures.append(f"{label}: modules {[m['name'] for m in got['modules']]} lack {want['module']}")
                    if want.get("parameter") and got["cause"] != "parameter":
                        failures.append(f"{label}: cause {got['cause']}, expected parameter")
                mine = got["origin"]["name"] if got else None
                if got and got.get("parameter"):
                    p = got["parameter"]
                    mine_text = f"{mine} ({p['name']}{' from the stack' if p['from_stack'] else ''})"
                else:
                    mine_text = f"{mine} ({got['cause']})" if got else "none"
                theirs = (da.get(f"rank_{rank_key[4:]}") or [None])[0]
                others = sorted(k for k, v in da.items() if v and k != f"rank_{rank_key[4:]}")
                if theirs == mine:
                    why = "agree"
                    agree += 1
                elif theirs is None and mine and mine.startswith("Distributed.") and others:
                    # -da searches every rank up to its first communication op and stops when one
                    # differs there; this rank first differs at the communication op itself
                    if got["cause"] != "output":
                        failures.append(f"{label}: DumpScope's communication origin should be cause output")
                    why = (f"-da stops at the ranks that differ before their first communication op ({', '.join(others)}); "
                           f"this rank first differs at {mine}, which carries the other rank's value")
                elif theirs is not None and case["designed"].get("structural_region"):
                    # the op streams differ in structure (designed); -da pairs rows by name, so
                    # after the region equal names are different calls: the rows of -da's op pair,
                    # aligned by structure, with no bench call or a bench call of another name
                    rows = [r for r in report["rows"] if r["npu_id"].startswith(rank_key + "/")
                            and op_of(r["npu_name"]) == theirs]
                    partners = sorted({op_of(r["bench_name"]) for r in rows if r.get("bench_name")})
                    if not rows or theirs in partners:
                        failures.append(f"{label}: -da's {theirs} is paired by its own name here too; "
                                        f"the structure reason does not hold")
                    why = (f"-da pairs by names, which no longer name the same calls after "
                           f"{case['designed']['structural_region']}; aligned, {theirs} pairs with "
                           f"{' + '.join(partners) or 'no bench call'}")
                else:
                    worst, order = output_errors(os.path.join(root, found["compare_csv"][rank_key]["file"]))
                    mine_err = worst.get(mine, 0.0) if mine else 0.0
                    if mine and mine_err > 0.5:
                        failures.append(f"{label}: -da names {theirs} but DumpScope's origin {mine} has an output "
                                        f"relative error {mine_err:.3g} > 50 %: the stated reason does not hold")
                    if theirs is not None:
                        if mine and order.index(theirs) <= order.index(mine):
                            failures.append(f"{label}: -da's {theirs} is not after DumpScope's {mine}")
                        if worst.get(theirs, 0.0) <= 0.5:
                            failures.append(f"{label}: -da's {theirs} has no output above 50 % in msprobe's CSV")
                        why = (f"-da needs an output relative error > 50 %; {mine}'s outputs change by "
                               f"{mine_err:.1%} at most, {theirs} is the first op above it ({worst[theirs]:.0%})")
                    else:
                        why = (f"-da needs an output relative error > 50 %; {mine}'s outputs change by "
                               f"{mine_err:.1%} at most and no later op of this rank crosses it")
                lines.append(f"{label:34s} -da: {str(theirs):34s} DumpScope: {mine_text:58s} {why}")
    print("\n".join(lines))
    print(f"{total} scopes; -da and DumpScope name the same operator in {agree}")
    if failures:
        print(f"{len(failures)} failures:")
        for f in failures:
            print("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
