#!/usr/bin/env python3
"""Oracle for the run level of `dumpscope-cli` (issue 16) on the real msprobe corpus.

    python3 runs_oracle.py --cli build/app/dumpscope-cli --samples samples --tmp /tmp/x

samples/msprobe_real/expected.json holds the designed answers, written before any DumpScope
code read the corpus. This script takes every pair and overflow case from it, assembles more
runs from the committed ones in --tmp (real step/rank folders of symbolic links; the designed
steps and ranks mapped to where they were put), and checks the CLI:

- `compare NPU BENCH --json`: the `run` object (first divergence step, rank, op; "agree up to
  step"; per-step counts equal to the JSON rows summed by step; every rank of the step listed);
- `compare NPU BENCH` (text): the first line is the answer, naming the same step, rank and op;
- `overflow RUN --json` / text: the first anomaly across the run;
- `info --json`: one `runs` entry per run of the corpus (path, steps, ranks) and of a folder
  holding two runs side by side; `compare` refuses a folder of several runs (exit 2).

Cases whose per-scope analysis is known to be wrong (KNOWN, empty today) must still fail; one that
passes is reported (XPASS) and fails the run, so that the list is kept honest.
One line per failed check, then "N passed, M failed"; exit 1 on failure.
"""

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from checker import Checker

# case id -> why the per-scope analysis cannot give the designed answer (none since the
# msprobe-exact compare of issue 15; a case listed here must fail, or the oracle reports XPASS)
KNOWN = {}


def run(cli, *args):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=900)
    return p.returncode, p.stdout, p.stderr


def designed(case, step_map=None, rank_map=None):
    """(step, rank, [ops], agree_up_to) of a case's designed run answer, mapped."""
    step_map, rank_map = step_map or {}, rank_map or {}
    d = case["designed"]
    first = d["run_first_anomaly"] if case["kind"] == "overflow" else d["run_first_divergence"]
    ops = [first["op"]]
    if "alternative" in first:  # "Torch.exp.0.forward if a reader treats ..."
        ops.append(first["alternative"].split(" ")[0])
    agree = d.get("runs_agree_up_to_step")
    if agree is None and case["kind"] == "overflow":
        # "no anomaly up to step N": every designed scope before the first anomaly's step is quiet
        before = {int(k.split("/")[0][4:]): v for k, v in d.get("per_scope_first_anomaly", {}).items()
                  if int(k.split("/")[0][4:]) < first["step"]}
        if before and all(v is None for v in before.values()):
            agree = max(before)
    return (step_map.get(first["step"], first["step"]), rank_map.get(first["rank"], first["rank"]), ops,
            None if agree is None else step_map.get(agree, agree))


def link_scope(target, source):
    target.mkdir(parents=True)
    for e in sorted(source.iterdir()):
        (target / e.name).symlink_to(e.resolve())


def assemble(corpus, expected, tmp):
    """The assembled cases (see tests/core/runcorpus.h for the same set in C++)."""
    runs = {k: corpus / v["path"] for k, v in expected["runs"].items()}
    cases = {c["id"]: c for c in expected["cases"]}
    out = []
    # steps_late: the bench's steps 0-1 on both sides, then the step1 case as steps 2 and 10
    c = cases["step1_statistics_mix"]
    for rank in ("rank0", "rank1"):
        for side in ("npu", "bench"):
            for step in ("step0", "step1"):
                link_scope(tmp / "steps_late" / side / step / rank, runs[c["bench"]] / step / rank)
        for src, dst in (("step0", "step2"), ("step1", "step10")):
            link_scope(tmp / "steps_late/npu" / dst / rank, runs[c["npu"]] / src / rank)
            link_scope(tmp / "steps_late/bench" / dst / rank, runs[c["bench"]] / src / rank)
    out.append(("steps_late", tmp / "steps_late/npu", tmp / "steps_late/bench", designed(c, {0: 2, 1: 10}), c["id"]))
    # ranks_swapped: the rank1 case with ranks 0 and 1 exchanged on both sides
    c = cases["rank1_statistics_mix"]
    for step in ("step0", "step1"):
        for r in (0, 1):
            link_scope(tmp / f"ranks_swapped/npu/{step}/rank{r}", runs[c["npu"]] / step / f"rank{1 - r}")
            link_scope(tmp / f"ranks_swapped/bench/{step}/rank{r}", runs[c["bench"]] / step / f"rank{1 - r}")
    out.append(("ranks_swapped", tmp / "ranks_swapped/npu", tmp / "ranks_swapped/bench", designed(c, None, {0: 1, 1: 0}), c["id"]))
    # four_ranks: the md5 step1 case on ranks 0-1, the bench's ranks again as ranks 2-3
    c = cases["step1_md5_mix"]
    for step in ("step0", "step1"):
        for r in range(4):
            link_scope(tmp / f"four_ranks/npu/{step}/rank{r}", runs[c["npu"] if r < 2 else c["bench"]] / step / f"rank{r % 2}")
            link_scope(tmp / f"four_ranks/bench/{step}/rank{r}", runs[c["bench"]] / step / f"rank{r % 2}")
    out.append(("four_ranks", tmp / "four_ranks/npu", tmp / "four_ranks/bench", designed(c), c["id"]))
    # weight_late: a step that agrees (the bench against itself), then the weight case's step 0
    c = cases["weight_statistics_mix"]
    for rank in ("rank0", "rank1"):
        link_scope(tmp / "weight_late/npu/step0" / rank, runs[c["bench"]] / "step0" / rank)
        link_scope(tmp / "weight_late/npu/step1" / rank, runs[c["npu"]] / "step0" / rank)
        link_scope(tmp / "weight_late/bench/step0" / rank, runs[c["bench"]] / "step0" / rank)
        link_scope(tmp / "weight_late/bench/step1" / rank, runs[c["bench"]] / "step0" / rank)
    step, rank, ops, _ = designed(c, {0: 1})
    out.append(("weight_late", tmp / "weight_late/npu", tmp / "weight_late/bench", (step, rank, ops, 0), c["id"]))
    # overflow_late: overflow_statistics_mix's step 0 (designed: no anomaly), overflow_tensor_mix's step 1
    quiet, c = cases["overflow_statistics_mix"], cases["overflow_tensor_mix"]
    assert all(quiet["designed"]["per_scope_first_anomaly"][f"step0/rank{r}"] is None for r in (0, 1))
    for rank in ("rank0", "rank1"):
        link_scope(tmp / "overflow_late/run/step0" / rank, runs[quiet["run"]] / "step0" / rank)
        link_scope(tmp / "overflow_late/run/step1" / rank, runs[c["run"]] / "step1" / rank)
    step, rank, ops, _ = designed(c)
    out.append(("overflow_late", tmp / "overflow_late/run", None, (step, rank, ops, 0), c["id"]))
    # mixed_modes (CSV only): an md5 step 0, then a tensor step 1: the run's columns are tensor
    for rank in ("rank0", "rank1"):
        link_scope(tmp / "mixed_modes/npu/step0" / rank, runs["base_md5_mix"] / "step0" / rank)
        link_scope(tmp / "mixed_modes/bench/step0" / rank, runs["base_md5_mix"] / "step0" / rank)
        link_scope(tmp / "mixed_modes/npu/step1" / rank, runs["npu_weight_tensor_mix"] / "step1" / rank)
        link_scope(tmp / "mixed_modes/bench/step1" / rank, runs["base_tensor_mix"] / "step1" / rank)
    # a folder holding two runs side by side
    c = cases["bf16_statistics_mix"]
    for side, name in (("npu", "npu_bf16"), ("bench", "bench")):
        for step in ("step0", "step1"):
            for rank in ("rank0", "rank1"):
                link_scope(tmp / "experiments" / name / step / rank, runs[c[side]] / step / rank)
    return out


def judge(ck, name, case_id, ok, detail):
    """A known failure must fail (XFAIL); an unexpected pass is reported (XPASS) and fails."""
    if case_id in KNOWN:
        if ok:
            ck.check(False, name, f"XPASS: {KNOWN[case_id]} no longer holds; remove {case_id} from KNOWN")
        else:
            print(f"XFAIL {name}: {KNOWN[case_id]} ({detail})", flush=True)
        return
    ck.check(ok, name, detail)


def check_compare(ck, cli, name, npu, bench, answer, case_id):
    step, rank, ops, agree = answer
    rc, out, err = run(cli, "compare", npu, bench, "--json")
    if not ck.check(rc == 0, name, f"compare exit {rc}: {err}"):
        return
    doc = json.loads(out)
    r = doc["run"]
    f = r["first_divergence"]
    ok = f is not None and f["step"] == step and f["rank"] == rank and f["op"] in ops and r["agree_up_to_step"] == agree
    judge(ck, name + " json", case_id, ok, f"got {f and (f['step'], f['rank'], f['op'])}, agree {r['agree_up_to_step']}; "
                                            f"want {(step, rank, ops)}, agree {agree}")
    # per-step counts are the rows' verdicts summed by step (rows are "step<N>/rank<R>/...")
    by_step = {}
    for row in doc["rows"]:
        s = int(re.match(r"step(\d+)/", row["npu_id"]).group(1))
        v = row["verdict"] if row["verdict"] != "none" else "not_compared"
        by_step.setdefault(s, {}).setdefault(v, 0)
        by_step[s][v] += 1
    for st in r["steps"]:
        for k in ("pass", "warning", "error", "not_compared"):
            ck.check(st[k] == by_step.get(st["step"], {}).get(k, 0), name, f"step {st['step']} {k}: {st[k]}")
    ck.check([s["step"] for s in r["steps"]] == sorted(by_step), name, "steps in numeric order")
    if f is not None:
        in_step = [s for s in r["scopes"] if s["step"] == f["step"]]
        ck.check(sorted(x["rank"] for x in f["ranks"]) == sorted(s["rank"] for s in in_step), name, "every rank of the step listed")
        ck.check(f["rank"] in f["tied_ranks"], name, "tied ranks hold the reported rank")
    ck.check(r["answer"].startswith(f"runs agree up to step {agree};") if agree is not None else "up to" not in r["answer"],
             name, f"answer {r['answer']}")
    rc, text, err = run(cli, "compare", npu, bench)
    first_line = text.splitlines()[0] if text else ""
    ck.check(first_line == r["answer"], name + " text", f"first line {first_line!r} is not the JSON answer {r['answer']!r}")
    if f is not None:
        judge(ck, name + " text", case_id, f"first divergence: step {step}, rank {rank}, op {f['op']}" in first_line and f["op"] in ops,
              first_line)


def check_csv(ck, cli, name, npu, bench, tmp):
    """The run's CSV (written scope by scope as each is compared) holds the JSON's rows in order,
    under one header of the run's column set."""
    csv_path = tmp / (name.replace(" ", "_") + ".csv")
    rc, out, err = run(cli, "compare", npu, bench, "--json", "--csv", csv_path)
    if not ck.check(rc == 0, name + " csv", f"compare exit {rc}: {err}"):
        return
    doc = json.loads(out)
    with open(csv_path, newline="") as f:
        lines = list(csv.reader(f))
    header, body = lines[0], lines[1:]
    ck.check(header.count("NPU Name") == 1 and not any(r and r[0] == "NPU Name" for r in body), name + " csv", "one header")
    want_cols = {"tensor": "Cosine", "summary": "Max diff", "md5": "NPU MD5"}[doc["mode"]]
    ck.check(want_cols in header, name + " csv", f"mode {doc['mode']} but header {header[:12]}")
    ck.check([r[0] for r in body] == [r["npu_name"] for r in doc["rows"]], name + " csv",
             f"{len(body)} CSV rows vs {len(doc['rows'])} JSON rows, or another order")
    col = header.index("Verdict")
    ck.check([r[col] for r in body] == [r["verdict"] if r["verdict"] != "none" else "" for r in doc["rows"]]
             or [r[col] for r in body] == [r["verdict"] for r in doc["rows"]], name + " csv", "verdicts as in the JSON")
    ck.check(doc["summary"]["rows"] == len(body), name + " csv",
             f"summary {doc['summary']} vs {len(body)} rows")


def check_overflow(ck, cli, name, path, answer, case_id):
    step, rank, ops, agree = answer
    rc, out, err = run(cli, "overflow", path, "--json")
    if not ck.check(rc == 0, name, f"overflow exit {rc}: {err}"):
        return
    r = json.loads(out)["run"]
    f = r["first_anomaly"]
    ok = f is not None and f["step"] == step and f["rank"] == rank and f["op"] in ops and (agree is None or r["no_anomaly_up_to_step"] == agree)
    judge(ck, name + " json", case_id, ok, f"got {f and (f['step'], f['rank'], f['op'])}; want {(step, rank, ops)}")
    rc, text, err = run(cli, "overflow", path)
    ck.check(text.splitlines()[0] == r["answer"], name + " text", f"first line {text.splitlines()[0]!r}")


def check_overflow_folder(ck, cli, folder):
    """A folder of several runs: one answer per run, each the answer of that run opened alone."""
    rc, out, err = run(cli, "overflow", folder, "--json")
    if not ck.check(rc == 0, "overflow of a folder of runs", f"exit {rc}: {err}"):
        return
    doc = json.loads(out)
    answers = doc.get("run_answers", [])
    ck.check("run" not in doc and len(answers) > 1, "overflow of a folder of runs", f"{len(answers)} run answers, keys {list(doc)}")
    rc, text, err = run(cli, "overflow", folder)
    for a in answers:
        alone_rc, alone, _ = run(cli, "overflow", folder / a["name"], "--json")
        if not ck.check(alone_rc == 0, a["name"], f"alone: exit {alone_rc}"):
            continue
        mine = {k: v for k, v in a.items() if k not in ("name", "scopes")}
        theirs = {k: v for k, v in json.loads(alone)["run"].items() if k != "scopes"}
        ck.check(mine == theirs, a["name"], f"answer in the folder {mine} != alone {theirs}")
        ck.check([s["scope"] for s in a["scopes"]] == [s["scope"] for s in json.loads(alone)["run"]["scopes"]],
                 a["name"], "the scopes differ from the run opened alone")
        _, alone_text, _ = run(cli, "overflow", folder / a["name"])
        ck.check(f"run {a['name']}: {alone_text.splitlines()[0]}" in text.splitlines(), a["name"],
                 f"text line missing: run {a['name']}: {alone_text.splitlines()[0]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    corpus = Path(args.samples) / "msprobe_real"
    expected = json.loads((corpus / "expected.json").read_text())
    tmp = Path(args.tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    ck = Checker()

    for c in expected["cases"]:
        if c["kind"] == "pair" and c["designed"].get("run_first_divergence", 0) is None:
            continue  # designed without a divergence (align_* pairs): tst_compare_align checks them
        if c["kind"] == "pair":
            check_compare(ck, args.cli, c["id"], corpus / expected["runs"][c["npu"]]["path"],
                          corpus / expected["runs"][c["bench"]]["path"], designed(c), c["id"])
        elif c["kind"] == "overflow":
            check_overflow(ck, args.cli, c["id"], corpus / expected["runs"][c["run"]]["path"], designed(c), c["id"])
    for name, npu, bench, answer, case_id in assemble(corpus, expected, tmp):
        if bench is None:
            check_overflow(ck, args.cli, "assembled " + name, npu, answer, case_id)
        else:
            check_compare(ck, args.cli, "assembled " + name, npu, bench, answer, case_id)
            check_csv(ck, args.cli, "assembled " + name, npu, bench, tmp)
    check_csv(ck, args.cli, "assembled mixed_modes", tmp / "mixed_modes/npu", tmp / "mixed_modes/bench", tmp)

    check_overflow_folder(ck, args.cli, corpus)

    # info: the runs of the corpus and of a folder of two runs
    rc, out, err = run(args.cli, "info", corpus / "dumps", "--json")
    runs = {r["path"]: r for r in json.loads(out)["runs"]}
    for name, r in expected["runs"].items():
        got = runs.get(r["path"][len("dumps/"):])
        ck.check(got is not None and got["steps"] == r["steps"] and got["ranks"] == r["ranks"] and got["name"] == name
                 and got["format"] == "msprobe", "info runs", f"{name}: {got}")
    ck.check(len(runs) == len(expected["runs"]), "info runs", f"{len(runs)} runs")
    rc, out, err = run(args.cli, "info", tmp / "experiments", "--json")
    runs = json.loads(out)["runs"]
    ck.check([r["path"] for r in runs] == ["bench", "npu_bf16"], "info experiments", f"{runs}")
    ck.check(all(r["steps"] == [0, 1] and r["ranks"] == [0, 1] and len(r["scopes"]) == 4 for r in runs), "info experiments", f"{runs}")
    rc, out, err = run(args.cli, "compare", tmp / "experiments", corpus / expected["runs"]["base_statistics_mix"]["path"])
    ck.check(rc == 2 and "holds 2 runs (bench, npu_bf16)" in err, "compare a folder of runs", f"exit {rc}: {err}")

    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
