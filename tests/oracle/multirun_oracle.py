#!/usr/bin/env python3
"""Oracle for `dumpscope-cli compare RUN1 RUN2 RUN3 RUN4` (issue 34 item 2) on real msprobe dumps.

    python3 multirun_oracle.py --cli build/app/dumpscope-cli --samples samples

samples/msprobe_multirun holds four runs of one training written by the real msprobe 26.0.0:
run1..run3 the same training repeated, run4 with fc1.weight[0, :] += 0.25 (the designed change),
each as an md5 dump (statistics + CRC-32, 2 steps x 2 ranks, optimizer updates inside) and as a
tensor dump (.pt files, step 0 of rank 0). This script reads the dumps itself (json, torch) and
works out, without DumpScope:

- which runs are the same in every recorded leaf (md5 set: CRC-32, dtype, shape; tensor set: the
  .pt tensors' bytes through numpy);
- the first leaf (step, entry position, rank) where a strict majority agrees and a run does not;
- per phase (forward, backward, after the last backward = optimizer) the first entry whose input
  leaves agree in every run (a backward entry: its forward entry's too) while an output leaf does not;

then checks the CLI's JSON and text against that, and the designed answer: run4 departs at step 0,
rank 0, the op receiving fc1.weight (Functional.linear.0.forward, its input.1), whose dumped
tensor differs from run1's by exactly +0.25 in row 0 and nowhere else (torch).
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

from checker import Checker

RUNS = ["run1", "run2", "run3", "run4"]


def leaves(entry_name, entry, data_dir, tensors):
    """(row name, io, identity) of every leaf of one dump.json entry, in msprobe's row order."""
    out = []

    def leaf_id(leaf):
        if leaf is None:
            return ("None",)
        if isinstance(leaf, list):
            return None
        if leaf.get("type") in ("torch.Tensor",):
            if tensors:
                t = torch.load(data_dir / leaf["data_name"])
                a = t.detach().numpy()
                return (str(a.dtype), a.shape, a.tobytes())
            return (leaf["dtype"], tuple(leaf["shape"]), leaf.get("md5"))
        return (leaf.get("type"), json.dumps(leaf.get("value"), sort_keys=True), json.dumps(leaf, sort_keys=True))

    def walk(prefix, value, io):
        if isinstance(value, list):
            for i, v in enumerate(value):
                walk(f"{prefix}.{i}", v, io)
        else:
            out.append((prefix, io, leaf_id(value)))

    if ".parameters_grad." in entry_name:
        for k, v in entry.items():  # {"bias": [leaf]} -> row ".bias"
            out.append((f"{entry_name}.{k}", "output", leaf_id(v[0] if isinstance(v, list) else v)))
        return out
    for i, v in enumerate(entry.get("input_args", entry.get("input", []))):  # backward entries: "input"
        walk(f"{entry_name}.input.{i}", v, "input")
    for k, v in entry.get("input_kwargs", {}).items():
        walk(f"{entry_name}.input.{k}", v, "input")
    outp = entry.get("output", [])
    for i, v in enumerate(outp if isinstance(outp, list) else [outp]):
        walk(f"{entry_name}.output.{i}", v, "output")
    for k, v in (entry.get("parameters") or {}).items():
        walk(f"{entry_name}.parameters.{k}", v, "input")
    return out


def is_backward(name):
    return ".backward" in name or ".parameters_grad" in name


def read_set(root, tensors):
    """{(step, rank): [(entry, phase, [(row, io, id)])]} of one run."""
    scopes = {}
    for dump in sorted(root.glob("step*/rank*/dump.json")):
        step, rank = int(dump.parent.parent.name[4:]), int(dump.parent.name[4:])
        data = json.load(open(dump))["data"]
        names = list(data)
        last_bw = max([i for i, n in enumerate(names) if is_backward(n)], default=-1)
        ents = []
        for i, n in enumerate(names):
            phase = "backward" if is_backward(n) else "optimizer" if last_bw >= 0 and i > last_bw else "forward"
            ents.append((n, phase, leaves(n, data[n], dump.parent / "dump_tensor_data", tensors)))
        scopes[(step, rank)] = ents
    return scopes


def forward_of(name):
    if name.endswith(".backward"):
        return name[: -len(".backward")] + ".forward"
    if ".backward." in name:
        return name.replace(".backward.", ".forward.")
    return None


def groups_of(ids):
    """Agreement classes of the runs (lists of run indexes) for one leaf's identities."""
    groups = []
    for r, i in enumerate(ids):
        for g in groups:
            if ids[g[0]] == i:
                g.append(r)
                break
        else:
            groups.append([r])
    return groups


def analyse(sets):
    n = len(sets)
    base = sets[0]
    rows = []  # (step, position, rank, entry, phase, row, io, groups)
    for (step, rank), ents in base.items():
        pos = 0
        for k, (entry, phase, ls) in enumerate(ents):
            for j, (row, io, _) in enumerate(ls):
                ids = [s[(step, rank)][k][2][j][2] for s in sets]
                assert all(s[(step, rank)][k][2][j][0] == row for s in sets), row
                rows.append((step, pos, rank, entry, phase, row, io, groups_of(ids)))
                pos += 1
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    def together(x, y):
        return all(any(x in g and y in g for g in row[7]) for row in rows)

    same = []
    for r in range(n):
        for g in same:
            if together(g[0], r):
                g.append(r)
                break
        else:
            same.append([r])
    same = [g for g in same if len(g) > 1]
    departure = None
    for row in rows:
        gs = row[7]
        big = max(gs, key=len)
        if len(gs) > 1 and 2 * len(big) > n:
            departure = (row, [r for r in range(n) if r not in big])
            break
    agree_in, collective = {}, {}  # a Distributed.* op computes from every rank's input of the step
    for row in rows:
        if row[6] == "input":
            key = (row[0], row[2], row[3])
            agree_in[key] = agree_in.get(key, True) and len(row[7]) == 1
            if row[3].startswith("Distributed."):
                collective[(row[0], row[3])] = collective.get((row[0], row[3]), True) and len(row[7]) == 1
    nd = {}
    for row in rows:
        if row[4] in nd or row[6] != "output" or len(row[7]) < 2:
            continue
        key = (row[0], row[2], row[3])
        if not agree_in.get(key, False) or not collective.get((row[0], row[3]), True):
            continue
        fwd = forward_of(row[3])
        if fwd and not agree_in.get((row[0], row[2], fwd), True):
            continue
        nd[row[4]] = row
    return rows, same, departure, nd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    a = ap.parse_args()
    ck = Checker()
    root = Path(a.samples) / "msprobe_multirun" / "dumps"
    for kind, mode in (("md5", "md5"), ("tensor", "tensor")):
        paths = [root / kind / r for r in RUNS]
        sets = [read_set(p, kind == "tensor") for p in paths]
        rows, same, departure, nd = analyse(sets)
        where = f"{kind}"
        got = subprocess.run([a.cli, "compare", *map(str, paths), "--json"], capture_output=True, text=True)
        if not ck.check(got.returncode == 0, where, f"exit {got.returncode}: {got.stderr.strip()}"):
            continue
        j = json.loads(got.stdout)
        ck.check(j["mode"] == mode, where, f"mode {j['mode']}, expected {mode}")
        ck.check(len(j["pairs"]) == 6, where, f"{len(j['pairs'])} pairs")
        # the oracle's own finding: the three repeated runs are bit-identical, run4 is not
        ck.check(same == [[0, 1, 2]], where, f"oracle: runs same in every leaf {same} (expected [[0, 1, 2]])")
        ck.check(j["same_groups"] == same, where, f"same_groups {j['same_groups']}, oracle {same}")
        for p in j["pairs"]:
            expect = any(p["a"] in g and p["b"] in g for g in same)
            ck.check(p["bit_identical"] == expect and p["same"] == expect, where,
                     f"pair {p['a']}-{p['b']} bit_identical {p['bit_identical']}, oracle {expect}")
            ck.check(p["rows"] == len(rows), where, f"pair {p['a']}-{p['b']} rows {p['rows']}, oracle {len(rows)}")
            differ = sum(1 for r in rows if not any(p["a"] in g and p["b"] in g for g in r[7]))
            ck.check(p["differing_rows"] == differ, where, f"pair {p['a']}-{p['b']} differing {p['differing_rows']}, oracle {differ}")
        # departure: oracle, designed answer, CLI
        d = j["departure"]
        ck.check(departure is not None and departure[1] == [3], where, f"oracle departure {departure}")
        if ck.check(d is not None, where, "no departure in the CLI's JSON") and departure:
            row = departure[0]
            ck.check((d["step"], d["rank"], d["op"], d["row"]) == (row[0], row[2], row[3], row[5]), where,
                     f"departure {d['step']} {d['rank']} {d['op']} {d['row']}, oracle {row[0]} {row[2]} {row[3]} {row[5]}")
            ck.check(d["runs"] == departure[1], where, f"departing runs {d['runs']}, oracle {departure[1]}")
            # the designed change: fc1.weight is input.1 of the first linear
            ck.check((d["step"], d["rank"], d["op"], d["row"])
                     == (0, 0, "Functional.linear.0.forward", "Functional.linear.0.forward.input.1"), where,
                     f"departure {d['op']} {d['row']} is not the designed fc1.weight row")
        for phase in ("forward", "backward", "optimizer"):
            o = nd.get(phase)
            c = j["nondeterministic"][phase]
            ck.check((c is None) == (o is None), where, f"nondeterministic {phase}: CLI {c}, oracle {o and o[5]}")
            if c and o:
                ck.check((c["step"], c["rank"], c["row"]) == (o[0], o[2], o[5]), where, f"{phase}: {c['row']} vs {o[5]}")
        text = subprocess.run([a.cli, "compare", *map(str, paths)], capture_output=True, text=True).stdout
        ck.check("runs 1, 2, 3 are bit-identical" in text, where, "text does not name runs 1, 2, 3 bit-identical")
        ck.check("departs first: run 4 at step 0, rank 0, Functional.linear.0.forward" in text, where,
                 "text does not say run 4 departs first at linear.0")
    # torch: the departing tensor differs by the designed +0.25 in row 0 only, and every tensor
    # dumped before it in step 0 rank 0 is bit-equal between run1 and run4
    t1 = root / "tensor/run1/step0/rank0/dump_tensor_data"
    t4 = root / "tensor/run4/step0/rank0/dump_tensor_data"
    w1 = torch.load(t1 / "Functional.linear.0.forward.input.1.pt")
    w4 = torch.load(t4 / "Functional.linear.0.forward.input.1.pt")
    delta = (w4 - w1).numpy()
    ck.check(np.allclose(delta[0], 0.25, atol=1e-6) and not delta[1:].any(), "torch", "fc1.weight delta is not +0.25 in row 0 only")
    order = list(json.load(open(root / "tensor/run1/step0/rank0/dump.json"))["data"])
    for entry in order[: order.index("Functional.linear.0.forward")]:
        for f in sorted(t1.glob(entry + ".*.pt")):
            ck.check(torch.equal(torch.load(f), torch.load(t4 / f.name)), "torch", f"{f.name} differs before linear.0")
    # parameter updates seen across steps (msprobe_real: the update is outside the dump): two
    # base runs and npu_step1, whose fc1.weight was changed on rank 0 just before step 1 (designed)
    real = Path(a.samples) / "msprobe_real" / "dumps"
    paths = [real / "base_md5_mix", real / "base_md5_mix", real / "npu_step1_md5_mix"]
    sets = [read_set(p, False) for p in paths]
    rows = {(r[0], r[2], r[5]): r for r in analyse(sets)[0]}
    name = "Module.fc1.Linear.forward.0.parameters.weight"
    grad = "Module.fc1.Linear.parameters_grad.0.weight"
    ck.check(len(rows[(1, 0, name)][7]) == 2 and len(rows[(0, 0, name)][7]) == 1 and len(rows[(0, 0, grad)][7]) == 1,
             "step1", "oracle: fc1.weight does not differ at step 1 only with an agreeing step-0 gradient")
    got = subprocess.run([a.cli, "compare", *map(str, paths), "--json"], capture_output=True, text=True)
    if ck.check(got.returncode == 0, "step1", f"exit {got.returncode}: {got.stderr.strip()}"):
        o = json.loads(got.stdout)["nondeterministic"]["optimizer"]
        ck.check(o is not None and o["between_steps"] and (o["step"], o["rank"], o["row"]) == (1, 0, name), "step1",
                 f"optimizer finding {o}, expected the step-1 rank-0 update of fc1.weight")
        ck.check(json.loads(got.stdout)["same_groups"] == [[0, 1]], "step1", "the two base runs are not the same")
    bad = subprocess.run([a.cli, "compare", str(root / "md5/run1"), str(root / "md5/run2"), str(root / "md5/nope")],
                         capture_output=True, text=True)
    ck.check(bad.returncode == 3 and "md5/nope" in bad.stderr, "missing path", f"exit {bad.returncode}: {bad.stderr.strip()}")
    return ck.finish(min_checks=40)


if __name__ == "__main__":
    sys.exit(main())
