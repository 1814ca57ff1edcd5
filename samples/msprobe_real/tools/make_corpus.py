#!/usr/bin/env python3
"""Regenerate samples/msprobe_real from a clean Ascend/msprobe checkout.

    /usr/bin/python3 tools/make_corpus.py --msprobe /path/to/msprobe-checkout [--work DIR]
    /usr/bin/python3 tools/make_corpus.py --msprobe /path/to/msprobe-checkout --only RUN[,RUN...]

1. writes configs/<run>.json for every run listed in expected.json ("runs"),
2. runs tools/train.py as 2 gloo ranks per run (tools/launch.py) with the real PrecisionDebugger,
3. runs msprobe's own tools on the results: `compare` (CSV, --xlsx, -da), `overflow_check`,
   `graph_visualize` (build with -oc, and compare),
4. copies everything into this folder (dumps/, compare/, overflow_check/, graph/, logs/),
5. fills the "msprobe" half of expected.json from msprobe's output files.

Everything runs in --work (default /tmp/msprobe_corpus_work) with relative paths, so the
files mention `dumps/<run>/...` and the scratch folder, never this repository. msprobe is
only executed, never copied: PYTHONPATH = tools/shims : <checkout>/python.

--only adds runs to the corpus without regenerating the rest (whose file names hold time
stamps and random numbers that would all change): steps 2-3 for the named runs and their
overflow cases only, their files copied in beside the others, their commands and console
output appended (logs/dumps.log, producer.commands), then step 5 as usual.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUTPUT_DIRS = ["configs", "dumps", "compare", "overflow_check", "graph", "logs"]
PY = "/usr/bin/python3"

# compare outputs kept for every pair: per-rank CSV (msprobe's default) and diff_analyze JSON.
# --xlsx is kept for the cases in XLSX_CASES and the -da per-rank compare_result_rank*.json
# (about 250 kB each, mostly stacks) only for DA_FULL (case, step), to stay well under 20 MB.
XLSX_CASES = {"weight_statistics_mix", "weight_tensor_mix", "weight_md5_mix",
              "bf16_statistics_mix", "bf16_tensor_mix", "bf16_md5_mix"}
DA_FULL = {("weight_statistics_mix", 0)}
# msprobe's fuzzy match (-fm) as well, for the cases whose op streams do not line up (issue 31)
FM_CASES = {"align_unfused", "align_unfused_weight", "align_missing"}
GRAPH_BUILDS = ["overflow_statistics_mix"]
GRAPH_COMPARES = ["weight_statistics_mix", "weight_tensor_mix"]
TQDM = re.compile(r".*\d+%\|.*")


def load_expected():
    with open(os.path.join(ROOT, "expected.json")) as f:
        return json.load(f, object_pairs_hook=OrderedDict)


def config_for(run):
    key = run["task"]
    body = OrderedDict(scope=[], list=[], data_mode=["all"], summary_mode=run["summary_mode"])
    if key == "statistics":
        body["tensor_list"] = []
    steps = [] if run["steps"] == [0, 1] else run["steps"]  # [] = every step
    return OrderedDict([("task", run["task"]), ("dump_path", run["path"]), ("rank", []), ("step", steps),
                        ("level", run["level"]), ("async_dump", False), (key, body)])


def clean_log(text):
    lines = [l for l in text.splitlines() if not TQDM.match(l)]
    return "\n".join(lines) + "\n"


class Runner:
    """Runs the scripts from a copy in <work>/tools, with paths relative to <work>."""

    def __init__(self, msprobe, work):
        self.work = work
        tools = os.path.join(work, "tools")
        shutil.rmtree(tools, ignore_errors=True)
        shutil.copytree(HERE, tools, ignore=shutil.ignore_patterns("__pycache__", "make_corpus.py",
                                                                   "collect_answers.py", "design_expected.py"))
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(tools, "shims"),
                                                               os.path.join(msprobe, "python")]),
                        OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
        self.env.pop("MSPROBE_LOG_LEVEL", None)
        self.commands = []

    def run(self, argv, log_name, check=True):
        shown = " ".join(argv)
        print("+", shown, flush=True)
        self.commands.append(shown)
        proc = subprocess.run([PY] + argv, cwd=self.work, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=900)
        log_path = os.path.join(self.work, "logs", log_name)
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "a") as f:  # one log per case: its commands one after the other
            f.write("$ msprobe " + " ".join(argv[1:]) + "\n" if argv[0] == "tools/msprobe_cli.py"
                    else "$ python3 " + shown + "\n")
            f.write(clean_log(proc.stdout))
        if check and proc.returncode != 0:
            sys.exit(f"failed ({proc.returncode}): {shown}\nsee {log_path}")
        return proc

    def msprobe(self, args, log_name, check=True):
        # msprobe creates only the last level of -o (overflow_check fails with "illegal path"
        # when the parent is missing), so create the parents here
        out = args[args.index("-o") + 1]
        os.makedirs(os.path.dirname(os.path.join(self.work, out)), exist_ok=True)
        return self.run(["tools/msprobe_cli.py"] + args, log_name, check)


def dump_runs(runner, expected, only=None):
    os.makedirs(os.path.join(runner.work, "configs"), exist_ok=True)
    for name, run in expected["runs"].items():
        if only is not None and name not in only:
            continue
        cfg = os.path.join("configs", name + ".json")
        with open(os.path.join(runner.work, cfg), "w") as f:
            json.dump(config_for(run), f, indent=4)
        runner.run(["tools/launch.py", "--nproc", "2", "--",
                    "tools/train.py", "--config", cfg, "--variant", run["variant"]],
                   "dumps.log")


def analyse(runner, expected, only=None):
    runs = expected["runs"]
    for case in expected["cases"]:
        if only is not None and not (case["kind"] == "overflow" and case["run"] in only) and \
                not (case["kind"] == "pair" and case["npu"] in only and case["bench"] in only):
            continue
        if case["kind"] == "pair":
            npu, bench = runs[case["npu"]]["path"], runs[case["bench"]]["path"]
            for step in runs[case["npu"]]["steps"]:
                out = f"compare/{case['id']}/step{step}"
                base = ["compare", "-tp", f"{npu}/step{step}", "-gp", f"{bench}/step{step}"]
                log = f"compare/{case['id']}.log"
                runner.msprobe(base + ["-o", out + "/csv"], log)
                if case["id"] in XLSX_CASES:
                    runner.msprobe(base + ["-o", out + "/xlsx", "--xlsx"], log)
                runner.msprobe(base + ["-o", out + "/diff_analyze", "-da"], log)
                if case["id"] in FM_CASES:  # msprobe 26's -fm may fail on these (its log says why)
                    runner.msprobe(base + ["-o", out + "/fuzzy_csv", "-fm"], log, check=False)
                if (case["id"], step) not in DA_FULL:
                    for f in glob.glob(os.path.join(runner.work, out, "diff_analyze", "compare_result_rank*.json")):
                        os.remove(f)
        elif case["kind"] == "overflow":
            path = runs[case["run"]]["path"]
            for step in runs[case["run"]]["steps"]:
                out = f"overflow_check/{case['run']}/step{step}"
                runner.msprobe(["overflow_check", "-i", f"{path}/step{step}", "-o", out],
                               f"overflow_check/{case['run']}.log")
    if only is not None:
        return
    for name in GRAPH_BUILDS:
        runner.msprobe(["graph_visualize", "-tp", runs[name]["path"], "-o", f"graph/build_{name}", "-oc"],
                       f"graph/build_{name}.log")
    cases = {c["id"]: c for c in expected["cases"]}
    for cid in GRAPH_COMPARES:
        c = cases[cid]
        runner.msprobe(["graph_visualize", "-tp", runs[c["npu"]]["path"], "-gp", runs[c["bench"]]["path"],
                        "-o", f"graph/compare_{cid}"], f"graph/compare_{cid}.log")


def versions(msprobe):
    def out(cmd):
        return subprocess.run(cmd, stdout=subprocess.PIPE, text=True).stdout.strip()
    info = OrderedDict()
    info["msprobe_repository"] = "Ascend/msprobe (public GitHub mirror)"
    info["msprobe_commit"] = out(["git", "-C", msprobe, "rev-parse", "HEAD"])
    info["msprobe_commit_date"] = out(["git", "-C", msprobe, "log", "-1", "--format=%cI"])
    with open(os.path.join(msprobe, "pyproject.toml")) as f:
        m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
    info["package"] = "mindstudio-probe " + (m.group(1) if m else "?")
    info["python"] = out([PY, "-c", "import sys; print(sys.version.split()[0])"])
    info["torch"] = out([PY, "-c", "import torch; print(torch.__version__)"])
    info["numpy"] = out([PY, "-c", "import numpy; print(numpy.__version__)"])
    info["pandas"] = out([PY, "-c", "import pandas; print(pandas.__version__)"])
    info["openpyxl"] = out([PY, "-c", "import openpyxl; print(openpyxl.__version__)"])
    return info


def add_runs(runner, expected, only):
    """--only: dump and check the named runs, copy their files in beside the corpus's."""
    unknown = [r for r in only if r not in expected["runs"]]
    if unknown:
        sys.exit(f"not in expected.json runs: {unknown}")
    shutil.rmtree(os.path.join(runner.work, "logs"), ignore_errors=True)
    dump_runs(runner, expected, set(only))
    analyse(runner, expected, set(only))
    for case in expected["cases"]:
        if case["kind"] == "pair" and case["npu"] in only and case["bench"] in only:
            for d in (f"compare/{case['id']}", f"logs/compare/{case['id']}.log"):
                src, dst = os.path.join(runner.work, d), os.path.join(ROOT, d)
                if os.path.isdir(src):
                    shutil.rmtree(dst, ignore_errors=True)
                    shutil.copytree(src, dst)
                elif os.path.isfile(src):
                    shutil.copy(src, dst)
    for run in only:
        rel = expected["runs"][run]["path"]
        for d in (rel, f"overflow_check/{run}"):
            src, dst = os.path.join(runner.work, d), os.path.join(ROOT, d)
            if os.path.isdir(src):
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst)
        shutil.copy(os.path.join(runner.work, "configs", run + ".json"), os.path.join(ROOT, "configs", run + ".json"))
        log = os.path.join(runner.work, "logs", "overflow_check", run + ".log")
        if os.path.exists(log):
            shutil.copy(log, os.path.join(ROOT, "logs", "overflow_check", run + ".log"))
    with open(os.path.join(runner.work, "logs", "dumps.log")) as src, open(os.path.join(ROOT, "logs", "dumps.log"), "a") as dst:
        dst.write(src.read())
    expected["producer"]["commands"] = expected["producer"].get("commands", []) + runner.commands
    with open(os.path.join(ROOT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    subprocess.run([PY, os.path.join(HERE, "collect_answers.py")], check=True)
    print("added:", ", ".join(only))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--msprobe", required=True, help="Ascend/msprobe source checkout (has python/msprobe)")
    parser.add_argument("--work", default="/tmp/msprobe_corpus_work")
    parser.add_argument("--skip-dumps", action="store_true", help="reuse the dumps already in --work")
    parser.add_argument("--only", help="comma-separated runs of expected.json to add (the rest is kept as it is)")
    args = parser.parse_args()
    msprobe = os.path.abspath(args.msprobe)
    if not os.path.isfile(os.path.join(msprobe, "python", "msprobe", "msprobe.py")):
        sys.exit(f"{msprobe} is not an msprobe checkout (python/msprobe/msprobe.py missing)")
    work = os.path.abspath(args.work)
    if not args.skip_dumps and os.path.exists(work):
        shutil.rmtree(work)
    for d in OUTPUT_DIRS[2:]:
        shutil.rmtree(os.path.join(work, d), ignore_errors=True)
    os.makedirs(work, exist_ok=True)

    expected = load_expected()
    runner = Runner(msprobe, work)
    if args.only:
        add_runs(runner, expected, args.only.split(","))
        return
    if not args.skip_dumps:
        dump_runs(runner, expected)
    analyse(runner, expected)

    for d in OUTPUT_DIRS:
        shutil.rmtree(os.path.join(ROOT, d), ignore_errors=True)
        shutil.copytree(os.path.join(work, d), os.path.join(ROOT, d))
    expected["producer"] = versions(msprobe)
    expected["producer"]["commands"] = runner.commands if not args.skip_dumps else expected["producer"].get("commands", [])
    with open(os.path.join(ROOT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    subprocess.run([PY, os.path.join(HERE, "collect_answers.py")], check=True)
    print("done:", ROOT)


if __name__ == "__main__":
    main()
