#!/usr/bin/env python3
"""Write a many-rank, many-step pair of msprobe statistics runs (issue 35 item 3; not a sample).

    python3 bench/gen_scale_run.py OUT [--ranks 1024] [--steps 100] [--variants 8]

Writes OUT/npu/step{s}/rank{r}/ and OUT/bench/step{s}/rank{r}/, each scope holding dump.json,
construct.json and stack.json of the real msprobe 26 statistics dumps in
samples/msprobe_real/dumps: the NPU run from npu_weight_statistics_mix, the bench run from
base_statistics_mix (a real pair: the NPU run's weight was perturbed), step0/rank{r % 2}.
Every tensor's Max/Min/Mean/Norm is scaled by 1 + 0.001 x step + 1e-4 x (rank % VARIANTS), so
the Trends have a slope and ranks differ; the files are written the way msprobe writes them
(json.dumps(indent=1)). Scopes with the same (step, rank % VARIANTS) hold the same bytes, so
they are hard links to one file: STEPS x VARIANTS distinct dump.json per side (about 25 KB
each), which keeps the disk small (what is read and parsed per scope is unchanged: every path
is opened and parsed on its own). Deterministic.
"""

import argparse
import json
import os
from pathlib import Path

STATS = ("Max", "Min", "Mean", "Norm")
SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "msprobe_real" / "dumps"


def scaled(v, f):
    if isinstance(v, dict):
        return {k: (x * f if k in STATS and isinstance(x, float) else scaled(x, f)) for k, x in v.items()}
    if isinstance(v, list):
        return [scaled(x, f) for x in v]
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--variants", type=int, default=8)
    a = ap.parse_args()
    out = Path(a.out)
    files = 0
    for side, source in (("npu", "npu_weight_statistics_mix"), ("bench", "base_statistics_mix")):
        templates = [json.loads((SAMPLES / source / "step0" / f"rank{r}" / "dump.json").read_text()) for r in (0, 1)]
        pool = out / side / ".files"
        pool.mkdir(parents=True, exist_ok=True)
        sidecars = {}
        for r in (0, 1):
            for name in ("construct.json", "stack.json"):
                p = pool / f"{r}_{name}"
                p.write_bytes((SAMPLES / source / "step0" / f"rank{r}" / name).read_bytes())
                sidecars[(r, name)] = p
        for s in range(a.steps):
            for v in range(a.variants):
                for r in (0, 1):
                    doc = scaled(templates[r], 1 + 0.001 * s + 1e-4 * v)
                    (pool / f"s{s}_v{v}_r{r}.json").write_text(json.dumps(doc, indent=1))
            for r in range(a.ranks):
                d = out / side / f"step{s}" / f"rank{r}"
                d.mkdir(parents=True, exist_ok=True)
                os.link(pool / f"s{s}_v{r % a.variants}_r{r % 2}.json", d / "dump.json")
                for name in ("construct.json", "stack.json"):
                    os.link(sidecars[(r % 2, name)], d / name)
                files += 3
        # The pool is no scope folder of the run: hard links keep the data when it goes.
        for p in pool.iterdir():
            p.unlink()
        pool.rmdir()
    print(json.dumps({"out": str(out), "ranks": a.ranks, "steps": a.steps, "files": files}))


if __name__ == "__main__":
    main()
