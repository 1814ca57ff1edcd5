#!/usr/bin/python3
"""Writes samples/msprobe_fixtures/nan_check: msprobe's `nan_check` dump layout, written as
msprobe 26.0.0's writer would (the task needs an Ascend NPU, torch_npu and msprobe built with
`include-mod=nan_check`, none of which runs here; see README.md).

The source is a real msprobe dump: samples/msprobe_real/dumps/overflow_statistics_mix/step1
(task statistics, level mix, 2 ranks). For each rank this keeps what a level-L1 nan_check
run writes, following Ascend/msprobe 8ff00da3:

- python/msprobe/pytorch/dump/debugger/debugger_config.py:94-97: nan_check requires level L1,
  so only API entries are kept (no `Module.*` entry; construct.json is `{}` as in L1 dumps).
- python/msprobe/core/dump/data_dump/data_processor/pytorch_processor.py:1170-1180
  (NanCheckDataProcessor._analyze_tensor): a tensor leaf is only `type`, `dtype`, `shape`,
  `requires_grad` (+ DTensor info); no Max/Min/Mean/Norm. Other leaves as the base processor.
- pytorch_processor.py:1182-1200 (_store_nan_result, analyze_forward_output, analyze_backward):
  each forward and backward entry gets `is_nan_index` after its output, or `is_nan: null`
  when npu_over_flow failed; json_writer.py:146-160 (_replace_nan_placeholders) deletes
  `is_nan_index` and appends `is_nan` = the first int64 of the NPU float-overflow status
  (ccsrc/nan_check/nan_check.cpp:39-58), documented as 0 (no overflow) or 1
  (docs/zh/user_guide/dump/pytorch_data_dump_instruct.md:372).
- The header: json_writer.py initialize_json_file: task, level, framework, dump_data_dir, data.

The register value is our stand-in for the hardware: 1 when the entry's outputs hold NaN/Inf
in the real statistics (the register is set by the computation that produced them), else 0;
on rank 0 `Distributed.all_reduce.1.forward` gets `null` (the writer's failure path).
Run: /usr/bin/python3 samples/msprobe_fixtures/tools/make_nan_check.py
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(SAMPLES, "msprobe_real", "dumps", "overflow_statistics_mix", "step1")
OUT = os.path.join(SAMPLES, "msprobe_fixtures", "nan_check", "step1")
TENSOR_KEYS = ("type", "dtype", "shape", "requires_grad")
NULL_ENTRY = ("rank0", "Distributed.all_reduce.1.forward")


def non_finite(v):
    if isinstance(v, str):
        return v.lower() in ("nan", "inf", "-inf")
    return isinstance(v, float) and not math.isfinite(v)


def is_tensor(leaf):
    return isinstance(leaf, dict) and str(leaf.get("type", "")).endswith("Tensor") and "dtype" in leaf


def strip(x, flags):
    """The nan_check leaf of a statistics leaf; flags[0] |= NaN/Inf among its Max/Min."""
    if is_tensor(x):
        if non_finite(x.get("Max")) or non_finite(x.get("Min")):
            flags[0] = True
        return {k: x[k] for k in x if k in TENSOR_KEYS or k in ("device_mesh", "placements")}
    if isinstance(x, dict):
        return {k: strip(v, flags) for k, v in x.items()}
    if isinstance(x, list):
        return [strip(v, flags) for v in x]
    return x


def convert(rank):
    with open(os.path.join(SOURCE, rank, "dump.json"), encoding="utf-8") as f:
        src = json.load(f)
    data = {}
    for name, entry in src["data"].items():
        if name.startswith("Module."):
            continue
        out = {}
        overflow = [False]
        for key, value in entry.items():
            flags = [False]
            out[key] = strip(value, flags)
            if key == "output":
                overflow = flags
        out["is_nan"] = None if (rank, name) == NULL_ENTRY else int(overflow[0])
        data[name] = out
    doc = {"task": "nan_check", "level": "L1", "framework": "pytorch", "dump_data_dir": None, "data": data}
    os.makedirs(os.path.join(OUT, rank), exist_ok=True)
    with open(os.path.join(OUT, rank, "dump.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    with open(os.path.join(SOURCE, rank, "stack.json"), encoding="utf-8") as f:
        stack = json.load(f)
    kept = {}
    for key, value in stack.items():  # {"0": [[entry names], [frames]], ...}
        names = [n for n in value[0] if n in data]
        if names:
            kept[str(len(kept))] = [names, value[1]]
    with open(os.path.join(OUT, rank, "stack.json"), "w", encoding="utf-8") as f:
        json.dump(kept, f, indent=1)
    with open(os.path.join(OUT, rank, "construct.json"), "w", encoding="utf-8") as f:
        json.dump({}, f, indent=1)
    return {n: e["is_nan"] for n, e in data.items()}


if __name__ == "__main__":
    answers = {rank: convert(rank) for rank in ("rank0", "rank1")}
    print(json.dumps(answers, indent=1))
