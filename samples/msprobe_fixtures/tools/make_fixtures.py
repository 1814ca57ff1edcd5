#!/usr/bin/env python3
"""Regenerate samples/msprobe_fixtures from an Ascend/msprobe checkout.

    /usr/bin/python3 tools/make_fixtures.py --msprobe /path/to/msprobe-checkout

1. copies msprobe's own example and test dumps (unmodified) from the checkout:
   examples/quick_start/gpu_dump (the quick-start GPU dump) -> quick_start/,
   test/msprobe_test/{mindspore_ut/compare/dump_file/pytorch_data, pytorch_ut/api_accuracy_checker/run_ut,
   resources/layer_mapping/pytorch} dump.json files (with their stack.json/construct.json) -> msprobe_test/;
2. writes the crafted pairs under crafted/ (small dump.json files of our own, written here: each
   isolates one rule of msprobe's table that the other dumps do not reach);
3. runs the real `msprobe compare -tp NPU/dump.json -gp BENCH/dump.json -o DIR` on every pair
   of PAIRS and keeps msprobe's compare_result CSV as compare/<id>.csv;
4. writes fixtures.json (the pairs, the CSVs, the producer's versions).

msprobe is only executed, never copied: PYTHONPATH = ../msprobe_real/tools/shims : <checkout>/python,
the same shims and command line as samples/msprobe_real (see its README).
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHIMS = os.path.join(ROOT, "..", "msprobe_real", "tools", "shims")
MSPROBE_CLI = os.path.join(ROOT, "..", "msprobe_real", "tools", "msprobe_cli.py")
PY = "/usr/bin/python3"

COPIED = [
    ("examples/quick_start/gpu_dump/step0/proc2016", "quick_start/gpu_dump/step0/proc2016"),
    ("examples/quick_start/gpu_dump/step1/proc2016", "quick_start/gpu_dump/step1/proc2016"),
    ("test/msprobe_test/mindspore_ut/compare/dump_file/pytorch_data", "msprobe_test/pytorch_data"),
    ("test/msprobe_test/pytorch_ut/api_accuracy_checker/run_ut", "msprobe_test/run_ut"),
    ("test/msprobe_test/resources/layer_mapping/pytorch", "msprobe_test/layer_mapping_pytorch"),
]
COPIED_FILES = ("dump.json", "stack.json", "construct.json")

# id, NPU folder, bench folder, what it shows
PAIRS = [
    ("quick_start_step0_vs_step1", "quick_start/gpu_dump/step0/proc2016", "quick_start/gpu_dump/step1/proc2016",
     "msprobe's quick-start GPU dump, step 0 against step 1 (2,822 rows; an int64 tensor whose Max is written 967.0)"),
    ("quick_start_step1_vs_step0", "quick_start/gpu_dump/step1/proc2016", "quick_start/gpu_dump/step0/proc2016",
     "the same, the other way round"),
    ("pytorch_data_self", "msprobe_test/pytorch_data", "msprobe_test/pytorch_data", "msprobe's test dump against itself"),
    ("run_ut_self", "msprobe_test/run_ut", "msprobe_test/run_ut", "msprobe's api_accuracy_checker test dump against itself"),
    ("layer_mapping_pytorch_self", "msprobe_test/layer_mapping_pytorch", "msprobe_test/layer_mapping_pytorch",
     "msprobe's layer-mapping test dump against itself"),
    ("int_in_float_columns", "crafted/int_in_float_columns/npu", "crafted/int_in_float_columns/bench",
     "tensors only: every statistics column holds numbers, so pandas makes them float64 and prints the int Max/Min as 9.0"),
    ("int_columns", "crafted/int_columns/npu", "crafted/int_columns/bench",
     "int64 tensors only: Max and Min hold ints only (int64 columns: 9, differences 2), Mean is None"),
    ("md5_as_numbers", "crafted/md5_as_numbers/npu", "crafted/md5_as_numbers/bench",
     "summary_mode md5 with md5 values written as JSON numbers (12345678, 0) next to strings"),
    ("nothing_matched", "crafted/nothing_matched/npu", "crafted/nothing_matched/bench",
     "a statistics dump whose entries the bench does not have: msprobe still writes its statistics table"),
    ("statistics_names_missing_pt", "crafted/statistics_names_missing_pt/npu", "crafted/statistics_names_missing_pt/bench",
     "a statistics dump whose leaves name .pt files that do not exist: msprobe compares the statistics"),
]


def tensor(dtype, shape, mx, mn, mean, norm, grad=False, **extra):
    t = OrderedDict([("type", "torch.Tensor"), ("dtype", dtype), ("shape", shape), ("Max", mx), ("Min", mn),
                     ("Mean", mean), ("Norm", norm), ("requires_grad", grad)])
    t.update(extra)
    return t


def dump(data, task="statistics"):
    return OrderedDict([("task", task), ("level", "L1"), ("framework", "pytorch"), ("dump_data_dir", None),
                        ("data", data)])


def crafted():
    """The crafted pairs: {case: (npu dump.json, bench dump.json)}."""
    f32, i64 = "torch.float32", "torch.int64"
    out = OrderedDict()

    def entry(inputs, outputs):
        return OrderedDict([("input_args", inputs), ("input_kwargs", OrderedDict()), ("output", outputs)])

    # every cell of every statistics column a number: float64 columns (ints print as 9.0)
    out["int_in_float_columns"] = tuple(dump(OrderedDict([
        ("Functional.embedding.0.forward", entry(
            [tensor(i64, [4], 9, 1, 4.5, 10.677078252031311), tensor(f32, [10, 3], 1.5 * k, -1.25, 0.125 * k, 3.75 * k, True)],
            [tensor(f32, [4, 3], 1.5 * k, -1.25, 0.25 * k, 2.5 + k)])),
        ("Functional.linear.0.forward", entry(
            [tensor(f32, [4, 3], 1.5 * k, -1.25, 0.25 * k, 2.5 + k), tensor(f32, [2, 3], 0.5, -0.5, 0.0, 1.0, True)],
            [tensor(f32, [4, 2], 2.0 * k, -3 + k, 0.1 * k, 4.0 + 0.3 * k)])),
    ])) for k in (1, 2))
    # int64 tensors only: ints only in Max and Min; Mean is null (the string None)
    out["int_columns"] = tuple(dump(OrderedDict([
        ("Functional.argmax.0.forward", entry(
            [tensor(i64, [6], 9 + k, 1, None, 12.0 + k)],
            [tensor(i64, [], 3 * k, 3 * k, None, 3.0 * k)])),
        ("Functional.add.0.forward", entry(
            [tensor(i64, [6], 7, -2 * k, None, 9.5), tensor(i64, [6], 4, 0, None, 5.0)],
            [tensor(i64, [6], 11, -2 * k + 1, None, 13.25 * k)])),
    ])) for k in (1, 2))
    # md5 values as JSON numbers (an all-digit CRC), 0 (falsy: msprobe recomputes), and strings
    md5 = lambda s: OrderedDict([("type", "torch.Tensor"), ("dtype", f32), ("shape", [2]), ("Max", 1.0), ("Min", 0.0),
                                 ("Mean", 0.5), ("Norm", 1.0), ("requires_grad", False), ("md5", s)])
    out["md5_as_numbers"] = (
        dump(OrderedDict([("Functional.relu.0.forward", entry([md5(12345678), md5(0)], [md5("0000abcd")])),
                          ("Functional.relu.1.forward", entry([md5(87654321)], [md5(12345678)]))])),
        dump(OrderedDict([("Functional.relu.0.forward", entry([md5("12345678"), md5(0)], [md5("0000abcd")])),
                          ("Functional.relu.1.forward", entry([md5(87654321)], [md5("1234abcd")]))])),
    )
    # entries the bench does not have
    out["nothing_matched"] = (
        dump(OrderedDict([("Functional.relu.0.forward", entry([tensor(f32, [2, 2], 1.0, 0.0, 0.5, 1.25)],
                                                              [tensor(f32, [2, 2], 1.0, 0.0, 0.5, 1.25)]))])),
        dump(OrderedDict([("Functional.gelu.0.forward", entry([tensor(f32, [2, 2], 1.0, 0.0, 0.5, 1.25)],
                                                              [tensor(f32, [2, 2], 0.75, -0.125, 0.375, 1.0)]))])),
    )
    # statistics task, leaves naming .pt files that were never written
    named = lambda n, *a: tensor(*a, data_name=f"Functional.relu.0.forward.{n}.pt")
    out["statistics_names_missing_pt"] = tuple(dump(OrderedDict([
        ("Functional.relu.0.forward", entry([named("input.0", f32, [2, 2], 1.0, -1.0, 0.25 * k, 1.5)],
                                            [named("output.0", f32, [2, 2], 1.0, 0.0, 0.5 * k, 1.25)]))])) for k in (1, 3))
    return out


def write_json(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--msprobe", required=True, help="an Ascend/msprobe checkout (commit in fixtures.json)")
    a = ap.parse_args()
    commit = subprocess.run(["git", "-C", a.msprobe, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    for src, dst in COPIED:
        target = os.path.join(ROOT, dst)
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        for name in COPIED_FILES:
            if os.path.exists(os.path.join(a.msprobe, src, name)):
                shutil.copyfile(os.path.join(a.msprobe, src, name), os.path.join(target, name))
    shutil.rmtree(os.path.join(ROOT, "crafted"), ignore_errors=True)
    for case, (npu, bench) in crafted().items():
        write_json(os.path.join(ROOT, "crafted", case, "npu", "dump.json"), npu)
        write_json(os.path.join(ROOT, "crafted", case, "bench", "dump.json"), bench)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SHIMS, os.path.join(a.msprobe, "python")]),
               OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env.pop("MSPROBE_LOG_LEVEL", None)
    os.makedirs(os.path.join(ROOT, "compare"), exist_ok=True)
    pairs = []
    for pid, npu, bench, what in PAIRS:
        out = os.path.join("/tmp", "msprobe_fixtures_out", pid)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        argv = [PY, MSPROBE_CLI, "compare", "-tp", os.path.join(npu, "dump.json"), "-gp", os.path.join(bench, "dump.json"),
                "-o", out]
        r = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
        found = glob.glob(os.path.join(out, "compare_result_*.csv"))
        if r.returncode != 0 or len(found) != 1:
            sys.exit(f"{pid}: msprobe compare failed (exit {r.returncode})\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
        shutil.copyfile(found[0], os.path.join(ROOT, "compare", pid + ".csv"))
        pairs.append(OrderedDict([("id", pid), ("npu", npu), ("bench", bench), ("csv", f"compare/{pid}.csv"),
                                  ("what", what),
                                  ("command", "msprobe compare -tp %s/dump.json -gp %s/dump.json -o OUT" % (npu, bench))]))
    import numpy
    import pandas
    write_json(os.path.join(ROOT, "fixtures.json"), OrderedDict([
        ("producer", OrderedDict([("msprobe", "Ascend/msprobe " + commit), ("python", sys.version.split()[0]),
                                  ("pandas", pandas.__version__), ("numpy", numpy.__version__)])),
        ("pairs", pairs)]))


if __name__ == "__main__":
    main()
