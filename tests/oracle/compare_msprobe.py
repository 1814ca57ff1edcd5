#!/usr/bin/env python3
"""`dumpscope-cli compare --style msprobe` against msprobe 26's own compare CSVs, as text.

The oracles are msprobe's own CSVs:
- samples/msprobe_real: every pair case of expected.json lists, per step and rank, the CSV the
  real msprobe 26.0.0 wrote (`msprobe compare -tp <npu>/step<N> -gp <bench>/step<N>`);
- samples/msprobe_fixtures: msprobe's quick-start GPU dump (Ascend/msprobe examples/quick_start)
  and the compare CSV msprobe 26.0.0 wrote for it (fixtures.json lists the pairs).
For each of them this test runs the CLI on the same folders with `--style msprobe --csv` and
compares the two files as text: the same bytes line for line, and cell for cell where a line
differs (so a report names the cell). Numbers must be the same text, not merely close: `967.0`
is not `967`, `0.0406579785048961` is not `0.040657978504896164`. The only cells that may differ
are the ones docs/COMPARE.md lists ("Differences from msprobe's CSV"), each named here in KNOWN
with its reason and a predicate that checks the difference is that one; any other difference
fails.

It also writes the .xlsx of a few pairs (`--xlsx`) and opens it with openpyxl next to msprobe's
own .xlsx: same sheet, header, cell types and values (numbers equal), and no highlighted cell.

Prints the per-mode agreement (rows equal / rows) that docs/COMPARE.md quotes.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
from collections import defaultdict


def number(text):
    t = text.strip()
    if t.endswith("%"):
        t = t[:-1]
    try:
        return float(t)
    except ValueError:
        return None


def last_digits_only(ours, theirs, row):
    """Both are numbers within 1e-13 relative: the same sum of squares added in another order
    (float64 rounding, a few units in the last place per thousand terms at worst)."""
    x, y = number(ours), number(theirs)
    return x is not None and y is not None and abs(x - y) <= 1e-13 * max(abs(x), abs(y))


def cosine_rounding(ours, theirs, row):
    """Both are numbers one unit apart in the printed (12th or 6th) decimal."""
    x, y = number(ours), number(theirs)
    return x is not None and y is not None and abs(x - y) <= 1.0000001e-12 + (1e-6 if y > 0.9999 else 0)


# Cells that may differ, with the reason (docs/COMPARE.md, "Differences from msprobe's CSV"):
# (mode, column) -> (reason, predicate(ours, theirs, row) -> True when the difference is that one).
KNOWN = {
    ("tensor", "EucDist"): (
        "numpy sums the squares in BLAS ddot, whose order depends on the BLAS library and the CPU "
        "(netlib: sequential; OpenBLAS: interleaved partial sums with FMA); DumpScope's fixed "
        "8-lane blocks give the same value to a few units in the last place", last_digits_only),
    ("tensor", "Cosine"): (
        "the dot product and the norms come from BLAS too: a value within rounding of a 12th "
        "(above 0.9999: 6th) decimal boundary can round the other way", cosine_rounding),
}


def same_cell(a, b):
    return a == b


def mode_of(header):
    if "NPU MD5" in header:
        return "md5"
    return "tensor" if "Cosine" in header else "statistics"


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def run(cli, args):
    return subprocess.run([cli, "compare", *args, "--quiet"], capture_output=True, text=True)


def compare_tables(ours_path, theirs_path, label, failures, known_hits):
    """Rows equal as text; the file's bytes must be msprobe's unless a documented cell differs."""
    with open(ours_path, "rb") as f:
        ours_bytes = f.read()
    with open(theirs_path, "rb") as f:
        theirs_bytes = f.read()
    oh, orows = read_csv(ours_path)
    th, trows = read_csv(theirs_path)
    mode = mode_of(th)
    if ours_bytes == theirs_bytes:
        return mode, len(trows), len(trows)
    if oh != th:
        failures.append(f"{label}: header differs\n  ours   {oh}\n  msprobe {th}")
        return mode, 0, len(trows)
    if len(orows) != len(trows):
        failures.append(f"{label}: {len(orows)} rows, msprobe {len(trows)}")
    equal = 0
    only_known = True
    for i, (o, t) in enumerate(zip(orows, trows)):
        row_ok = True
        if len(o) != len(t):
            failures.append(f"{label} row {i + 2} ({t[0]}): {len(o)} cells, msprobe {len(t)}")
            only_known = row_ok = False
        for col, a, b in zip(th, o, t):
            if same_cell(a, b):
                continue
            row_ok = False
            known = KNOWN.get((mode, col))
            if known and known[1](a, b, t):
                known_hits[(mode, col)].append(f"{label} {t[0]}: ours {a}, msprobe {b}")
                continue
            only_known = False
            failures.append(f"{label} row {i + 2} ({t[0]}) column {col!r}: ours {a[:160]!r}, msprobe {b[:160]!r}")
        equal += row_ok
    if only_known and len(orows) == len(trows) and equal == len(trows):
        failures.append(f"{label}: every cell equal but the bytes differ (quoting, line endings or encoding)")
    return mode, equal, len(trows)


def check_pair(cli, npu, bench, out, theirs, label, corpus, failures, known_hits, totals):
    """`compare --style msprobe --csv out` of one pair against msprobe's CSV `theirs`, counted in
    totals[(corpus, mode)] as [rows equal, rows, tables]."""
    r = run(cli, [npu, bench, "--style", "msprobe", "--csv", out])
    if r.returncode != 0:
        failures.append(f"{label}: exit {r.returncode}: {r.stderr.strip()}")
        return
    mode, equal, rows = compare_tables(out, theirs, label, failures, known_hits)
    t = totals[(corpus, mode)]
    t[0] += equal
    t[1] += rows
    t[2] += 1


def check_xlsx(cli, samples, case, step, tmp, failures):
    import openpyxl
    x = case["msprobe"][f"step{step}"].get("compare_xlsx")
    if not x:
        return 0
    checked = 0
    for rank in (0, 1):
        npu = os.path.join(samples, "msprobe_real", "dumps", case["npu"], f"step{step}", f"rank{rank}")
        bench = os.path.join(samples, "msprobe_real", "dumps", case["bench"], f"step{step}", f"rank{rank}")
        out = os.path.join(tmp, f"{case['id']}_step{step}_rank{rank}.xlsx")
        r = run(cli, [npu, bench, "--style", "msprobe", "--xlsx", out])
        if r.returncode != 0:
            failures.append(f"xlsx {case['id']} step{step} rank{rank}: exit {r.returncode}: {r.stderr}")
            continue
        ours = openpyxl.load_workbook(out)
        theirs = openpyxl.load_workbook(os.path.join(samples, "msprobe_real", x[f"rank{rank}"]))
        label = f"xlsx {case['id']} step{step} rank{rank}"
        if ours.sheetnames != theirs.sheetnames:
            failures.append(f"{label}: sheets {ours.sheetnames}, msprobe {theirs.sheetnames}")
            continue
        a, b = ours.active, theirs.active
        if (a.max_row, a.max_column) != (b.max_row, b.max_column):
            failures.append(f"{label}: {a.max_row}x{a.max_column}, msprobe {b.max_row}x{b.max_column}")
            continue
        header = [c.value for c in b[1]]
        mode = mode_of(header)
        for ra, rb in zip(a.iter_rows(), b.iter_rows()):
            for ca, cb, col in zip(ra, rb, header):
                if ca.row == 1 and (bool(ca.font.b) != bool(cb.font.b) or ca.border.left.style != cb.border.left.style
                                    or ca.alignment.horizontal != cb.alignment.horizontal):
                    failures.append(f"{label} {ca.coordinate}: header style differs")
                if ca.fill is not None and ca.fill.fill_type is not None:
                    failures.append(f"{label} {ca.coordinate}: filled ({ca.fill.fgColor.rgb}); msprobe 26 fills no cell")
                if cb.fill is not None and cb.fill.fill_type is not None:
                    failures.append(f"{label} {cb.coordinate}: msprobe's file has a fill: update the test and the docs")
                if ca.data_type != cb.data_type:
                    failures.append(f"{label} {ca.coordinate} ({col}): type {ca.data_type}, msprobe {cb.data_type}")
                    continue
                va, vb = ca.value, cb.value
                if isinstance(vb, (int, float)) and not isinstance(vb, bool):
                    ok = va == vb
                    if not ok and KNOWN.get((mode, col)) and KNOWN[(mode, col)][1](repr(va), repr(vb), None):
                        ok = True
                else:
                    ok = va == vb
                if not ok:
                    failures.append(f"{label} {ca.coordinate} ({col}): ours {str(va)[:120]!r}, msprobe {str(vb)[:120]!r}")
        checked += 1
    return checked


def check_fixtures(cli, samples, tmp, failures, known_hits, totals):
    """Every pair of samples/msprobe_fixtures/fixtures.json against msprobe's CSV of it."""
    root = os.path.join(samples, "msprobe_fixtures")
    with open(os.path.join(root, "fixtures.json")) as f:
        fixtures = json.load(f)
    for p in fixtures["pairs"]:
        out = os.path.join(tmp, f"fixture_{p['id']}.csv")
        check_pair(cli, os.path.join(root, p["npu"]), os.path.join(root, p["bench"]), out, os.path.join(root, p["csv"]),
                   f"fixture {p['id']}", "msprobe_fixtures", failures, known_hits, totals)
    return len(fixtures["pairs"])


def check_text_report(cli, samples, failures):
    """The text report stays readable and says what it did not compare: on the quick-start pair
    (a first divergence followed by hundreds of operators) the chain is listed one operator per
    line, the first CHAIN_SHOWN of them, then "... and K more", while --json keeps all of them;
    no line is longer than MAX_LINE. On a pair where nothing matched, the answer says so and
    never that the runs agree."""
    CHAIN_SHOWN, MAX_LINE = 10, 1000
    root = os.path.join(samples, "msprobe_fixtures")
    npu, bench = (os.path.join(root, "quick_start", "gpu_dump", s, "proc2016") for s in ("step0", "step1"))
    text = subprocess.run([cli, "compare", npu, bench], capture_output=True, text=True)
    doc = subprocess.run([cli, "compare", npu, bench, "--json"], capture_output=True, text=True)
    if text.returncode != 0 or doc.returncode != 0:
        failures.append(f"text report: exit {text.returncode} / {doc.returncode}")
        return
    lines = text.stdout.splitlines()
    longest = max(lines, key=len)
    if len(longest) > MAX_LINE:
        failures.append(f"text report: a line of {len(longest)} characters: {longest[:120]}...")
    chain = [c["name"] for c in json.loads(doc.stdout)["first_divergence"][0]["chain"]]
    if len(chain) <= CHAIN_SHOWN + 1:
        failures.append(f"text report: the quick-start chain has {len(chain)} operators; the check needs a long one")
    head = f"  then {len(chain)} more:"
    if head not in lines:
        failures.append(f"text report: no line {head!r}")
    else:
        at = lines.index(head)
        listed = [l.strip() for l in lines[at + 1:at + 1 + CHAIN_SHOWN]]
        if listed != chain[:CHAIN_SHOWN]:
            failures.append(f"text report: chain lines {listed[:3]}..., JSON {chain[:3]}...")
        rest = lines[at + 1 + CHAIN_SHOWN].strip()
        want = f"... and {len(chain) - CHAIN_SHOWN} more (--json lists every one)"
        if rest != want:
            failures.append(f"text report: after the chain {rest!r}, want {want!r}")
    # nothing matched: no agreement claimed, the rows not compared counted with their reason
    npu, bench = (os.path.join(root, "crafted", "nothing_matched", s) for s in ("npu", "bench"))
    text = subprocess.run([cli, "compare", npu, bench], capture_output=True, text=True)
    doc = subprocess.run([cli, "compare", npu, bench, "--json"], capture_output=True, text=True)
    first = text.stdout.splitlines()[0] if text.stdout else ""
    want = "nothing was compared; 2 of 2 rows not compared: No bench data matched 2"
    if first != want:
        failures.append(f"nothing matched: the answer is {first!r}, want {want!r}")
    if "agree" in text.stdout or "\nno divergence\n" in text.stdout:
        failures.append("nothing matched: the text claims agreement")
    run_steps = json.loads(doc.stdout)["run"]["steps"] if doc.returncode == 0 else []
    if [s.get("not_compared_by") for s in run_steps] != [{"UNMATCHED_BENCH": 2}]:
        failures.append(f"nothing matched: run steps {run_steps}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--no-xlsx", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    root = os.path.join(a.samples, "msprobe_real")
    expected = json.load(open(os.path.join(root, "expected.json")))
    failures, known_hits = [], defaultdict(list)
    totals = defaultdict(lambda: [0, 0, 0])  # mode -> [rows equal, rows, tables]
    xlsx_checked = 0
    for case in expected["cases"]:
        # KNOWN GAP (issue 31, h11): on the align_* pairs msprobe 26 pairs some backward entries
        # other than by name (align_unfused: NPU Functional.linear.4.backward with bench
        # Functional.linear.5.backward); --style msprobe pairs by name and does not reproduce that
        # yet. tst_compare_align checks these pairs' forward rows against msprobe's CSVs instead.
        if case["kind"] != "pair" or case["id"].startswith("align_"):
            continue
        for step_key, found in sorted(case["msprobe"].items()):
            step = int(step_key[4:])
            for rank_key, info in sorted(found["compare_csv"].items()):
                npu = os.path.join(root, "dumps", case["npu"], step_key, rank_key)
                bench = os.path.join(root, "dumps", case["bench"], step_key, rank_key)
                out = os.path.join(a.tmp, f"{case['id']}_{step_key}_{rank_key}.csv")
                check_pair(a.cli, npu, bench, out, os.path.join(root, info["file"]), f"{case['id']} {step_key} {rank_key}",
                           "msprobe_real", failures, known_hits, totals)
            if not a.no_xlsx:
                xlsx_checked += check_xlsx(a.cli, a.samples, case, step, a.tmp, failures)

    fixture_pairs = check_fixtures(a.cli, a.samples, a.tmp, failures, known_hits, totals)
    check_text_report(a.cli, a.samples, failures)

    # reports are never written into a dump; an unwritable target and a bad style are errors
    case = next(c for c in expected["cases"] if c["kind"] == "pair")
    npu = os.path.join(root, "dumps", case["npu"], "step0", "rank0")
    bench = os.path.join(root, "dumps", case["bench"], "step0", "rank0")
    inside = os.path.join(npu, "report.xlsx")
    r = run(a.cli, [npu, bench, "--xlsx", inside])
    if r.returncode != 2 or os.path.exists(inside) or "dump directory" not in r.stderr:
        failures.append(f"--xlsx inside the NPU dump: exit {r.returncode}, {r.stderr.strip()}")
    r = run(a.cli, [npu, bench, "--xlsx", os.path.join(a.tmp, "no_such_dir", "x.xlsx")])
    if r.returncode != 1 or "x.xlsx" not in r.stderr:
        failures.append(f"--xlsx into a missing folder: exit {r.returncode}, {r.stderr.strip()}")
    r = run(a.cli, [npu, bench, "--style", "pandas", "--csv", os.path.join(a.tmp, "s.csv")])
    if r.returncode != 2 or os.path.exists(os.path.join(a.tmp, "s.csv")):
        failures.append(f"--style pandas: exit {r.returncode}")

    for (corpus, mode) in sorted(totals):
        eq, n, tables = totals[(corpus, mode)]
        print(f"{corpus:16s} {mode:10s} {eq}/{n} rows equal to msprobe's CSV as text ({tables} tables)")
    for key, hits in sorted(known_hits.items()):
        print(f"documented difference {key}: {len(hits)} cells ({KNOWN[key][0]})")
        for h in hits[:6]:
            print("   ", h)
    print(f"xlsx: {xlsx_checked} workbooks opened with openpyxl and compared")
    if sum(t[2] for k, t in totals.items() if k[0] == "msprobe_real") == 0:
        failures.append("no msprobe compare CSV found in expected.json")
    if fixture_pairs < 10:
        failures.append(f"only {fixture_pairs} pairs in msprobe_fixtures/fixtures.json")
    if failures:
        print(f"{len(failures)} failures:")
        for f in failures[:80]:
            print("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
