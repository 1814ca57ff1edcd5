#!/usr/bin/env python3
"""The data_mapping files of the align_* pairs and msprobe's own compare with them (issue 31 item 3).

    cd samples/msprobe_real
    /usr/bin/python3 tools/make_data_mapping.py --cli <build>/app/dumpscope-cli --msprobe /work/msprobe-src

For every align_* case of expected.json and every rank of step 0:
  1. `dumpscope-cli compare dumps/<npu>/step0/<rank> dumps/<bench>/step0/<rank> --write-mapping
     compare/<case>/step0/data_mapping/<rank>/data_mapping.yaml` (DumpScope's structure alignment
     as msprobe's data_mapping YAML; the only DumpScope output here);
  2. the real msprobe compare with it, rank by rank (-tp/-gp the two dump.json files):
     `msprobe compare -tp .../dump.json -gp .../dump.json -o compare/<case>/step0/data_mapping/<rank>
     -dm compare/<case>/step0/data_mapping/<rank>/data_mapping.yaml`, environment as make_corpus.py
     (PYTHONPATH=tools/shims:<checkout>/python, OMP_NUM_THREADS=1, PYTHONHASHSEED=0).
The commands and msprobe's output go to logs/data_mapping.log. tests/oracle/compare_write_mapping.py
reads the CSVs as the oracle of msprobe's pairing with the file.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--msprobe", required=True, help="msprobe source checkout (its python/ folder is imported)")
    a = ap.parse_args()
    os.chdir(HERE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, "tools", "shims"),
                                                       os.path.join(os.path.abspath(a.msprobe), "python")]),
               OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    cases = [c for c in json.load(open("expected.json"))["cases"] if c["id"].startswith("align_")]
    with open(os.path.join("logs", "data_mapping.log"), "w") as log:
        for c in cases:
            for rank in ("rank0", "rank1"):
                out = os.path.join("compare", c["id"], "step0", "data_mapping", rank)
                os.makedirs(out, exist_ok=True)
                for old in glob.glob(os.path.join(out, "*")):
                    os.remove(old)
                npu = os.path.join("dumps", c["npu"], "step0", rank)
                bench = os.path.join("dumps", c["bench"], "step0", rank)
                mapping = os.path.join(out, "data_mapping.yaml")
                for cmd, e in (([os.path.abspath(a.cli), "compare", npu, bench, "--quiet", "--write-mapping", mapping], None),
                               ([sys.executable, "tools/msprobe_cli.py", "compare", "-tp", npu + "/dump.json", "-gp",
                                 bench + "/dump.json", "-o", out, "-dm", mapping], env)):
                    shown = ["dumpscope-cli"] + cmd[1:] if e is None else ["msprobe"] + cmd[2:]
                    log.write("$ " + " ".join(shown) + "\n")
                    log.flush()
                    r = subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL if e is None else log, stderr=log)
                    if r.returncode != 0:
                        raise SystemExit("failed: " + " ".join(shown))
                print(out, sorted(os.listdir(out)))


if __name__ == "__main__":
    main()
