"""Four runs of msprobe_real's TinyNet dumped by the real msprobe 26.0.0, for `compare A B C D`.

    /usr/bin/python3 tools/make_runs.py --msprobe /path/to/msprobe-checkout [--work /tmp/multirun_work]

run1, run2, run3: the same training repeated (same seeds, same data, one thread per rank).
run4: fc1.weight[0, :] += 0.25 before step 0 (train.py's `weight` variant).
Each run: 2 gloo ranks, 2 steps, level mix, with the SGD update INSIDE the dumped region
(its Tensor.add_ calls are the optimizer part). Two dumps per run:
  md5/<run>     task statistics, summary_mode md5 (statistics and CRC-32 of every tensor)
  tensor/<run>  task tensor, step 0 of rank 0 only (the .pt files; size)
Nothing here is msprobe code; msprobe is run from the checkout in PYTHONPATH.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REAL_TOOLS = os.path.join(HERE, "..", "..", "msprobe_real", "tools")
OUT = os.path.join(HERE, "..")
RUNS = {"run1": "base", "run2": "base", "run3": "base", "run4": "weight"}


def config(task, path):
    body = {"scope": [], "list": [], "data_mode": ["all"]}
    if task == "md5":
        body.update({"summary_mode": "md5", "tensor_list": []})
        return {"task": "statistics", "dump_path": path, "rank": [], "step": [], "level": "mix",
                "async_dump": False, "statistics": body}
    body["summary_mode"] = "statistics"
    return {"task": "tensor", "dump_path": path, "rank": [0], "step": [0], "level": "mix",
            "async_dump": False, "tensor": body}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--msprobe", required=True)
    p.add_argument("--work", default="/tmp/multirun_work")
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    tools = os.path.join(a.work, "tools")
    shutil.copytree(REAL_TOOLS, tools, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(HERE, "train_multirun.py"), tools)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tools, os.path.join(tools, "shims"),
                                                       os.path.join(a.msprobe, "python")]),
               OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env.pop("MSPROBE_LOG_LEVEL", None)
    os.makedirs(os.path.join(a.work, "configs"))
    for task in ("md5", "tensor"):
        for run, variant in RUNS.items():
            path = f"dumps/{task}/{run}"
            cfg = f"configs/{task}_{run}.json"
            with open(os.path.join(a.work, cfg), "w") as f:
                json.dump(config(task, path), f, indent=4)
            argv = [sys.executable, "tools/launch.py", "--nproc", "2", "--",
                    "tools/train_multirun.py", "--config", cfg, "--variant", variant]
            print("+", " ".join(argv[1:]), flush=True)
            subprocess.run(argv, cwd=a.work, env=env, check=True, stdout=subprocess.DEVNULL)
    for sub in ("dumps", "configs"):
        dst = os.path.join(OUT, sub)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(os.path.join(a.work, sub), dst)


if __name__ == "__main__":
    main()
