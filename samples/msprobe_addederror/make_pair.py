#!/usr/bin/env python3
"""Write samples/msprobe_addederror with the real msprobe 26.0.0 (issue 34, error added per op).

    /usr/bin/python3 samples/msprobe_addederror/make_pair.py --msprobe /path/to/msprobe-checkout [--work DIR]

The npu run is samples/msprobe_real's TinyNet with the `fc1_bf16` variant of
msprobe_real/tools/train.py (fc1 alone under torch.autocast bfloat16, output cast back to
float32), dumped in tensor mode at level mix, step 0 only, by msprobe_real's own tools
(launch.py, shims, make_corpus.py's Runner: same environment and relative paths). The bench is
msprobe_real's committed dumps/base_tensor_mix (not copied here). msprobe's own compare CSV of
step 0 is kept beside the dump.
"""

import argparse
import json
import os
import shutil
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(os.path.dirname(HERE), "msprobe_real")
sys.path.insert(0, os.path.join(REAL, "tools"))
import make_corpus  # noqa: E402  (msprobe_real's Runner: tools copied into --work, relative paths)

RUN = "npu_fc1bf16_tensor_mix"
BENCH = "base_tensor_mix"
CASE = "fc1bf16_tensor_mix"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--msprobe", required=True)
    parser.add_argument("--work", default="/tmp/msprobe_addederror_work")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "configs"))
    runner = make_corpus.Runner(os.path.abspath(args.msprobe), work)
    config = OrderedDict([("task", "tensor"), ("dump_path", f"dumps/{RUN}"), ("rank", []), ("step", [0]),
                          ("level", "mix"), ("async_dump", False),
                          ("tensor", OrderedDict(scope=[], list=[], data_mode=["all"], summary_mode="statistics"))])
    with open(os.path.join(work, "configs", RUN + ".json"), "w") as f:
        json.dump(config, f, indent=4)
    runner.run(["tools/launch.py", "--nproc", "2", "--", "tools/train.py", "--config", f"configs/{RUN}.json",
                "--variant", "fc1_bf16"], "dumps.log")
    shutil.copytree(os.path.join(REAL, "dumps", BENCH), os.path.join(work, "dumps", BENCH))
    runner.msprobe(["compare", "-tp", f"dumps/{RUN}/step0", "-gp", f"dumps/{BENCH}/step0",
                    "-o", f"compare/{CASE}/step0/csv"], f"compare/{CASE}.log")
    for d in ("configs", "compare", "logs", os.path.join("dumps", RUN)):
        shutil.rmtree(os.path.join(HERE, d), ignore_errors=True)
        shutil.copytree(os.path.join(work, d), os.path.join(HERE, d))
    with open(os.path.join(HERE, "commands.txt"), "w") as f:
        f.write("\n".join(runner.commands) + "\n")
    print("done:", HERE)


if __name__ == "__main__":
    main()
