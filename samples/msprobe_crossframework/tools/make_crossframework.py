#!/usr/bin/env python3
"""Regenerate samples/msprobe_crossframework from samples/msprobe_real and an Ascend/msprobe checkout.

    /usr/bin/python3 tools/make_crossframework.py --msprobe /path/to/msprobe-checkout

1. ms_npu/<run>/: a MindSpore-shaped copy of a real PyTorch dump of samples/msprobe_real
   (step 0, rank 0). It only renames and retypes the way msprobe's MindSpore dump processor
   names the same calls of a ported model (RENAMES below): framework "mindspore", API names of
   mindspore.ops ("Functional.dense"), mindspore.mint ("Mint.*") and mint.nn.functional
   ("MintFunctional.*"), Cell.<name>.<MindSpore class> entries, MindSpore dtype spellings
   ("Float32"), "mindspore.Tensor", and no "requires_grad" (MindSpore records none). Every
   number, shape and the entry order are unchanged.
2. fixtures/: msprobe's own mindspore_ut compare fixtures (mindspore_data, pytorch_data,
   layer_mapping.yaml), copied unmodified.
3. runs the real `msprobe compare` (tools/msprobe_ms_cli.py) on each pair of PAIRS and keeps
   msprobe's CSV (and the data_mapping YAML that -lm writes) under compare/.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import tempfile
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REAL = os.path.join(ROOT, "..", "msprobe_real")
SHIMS = os.path.join(REAL, "tools", "shims")
PY = "/usr/bin/python3"

# NPU run of msprobe_real -> its MindSpore-shaped copy; the bench is base_statistics_mix.
RUNS = {"npu_weight": "npu_weight_statistics_mix", "npu_bf16": "npu_bf16_statistics_mix"}
BENCH = "base_statistics_mix"
# The md5 run of the bfloat16 model, MindSpore-shaped (ms_npu/npu_bf16_md5) against itself as
# PyTorch wrote it (pt_bench_bf16_md5). MindSpore hashes a bfloat16 tensor after casting it to
# float32 (mindspore_processor._analyze_tensor: convert_bf16_to_fp32, then compute_crc32_bytes of
# asnumpy()), PyTorch over its own 16-bit bytes (pytorch_processor.compute_crc32_from_tensor).
# The float32 bytes come from the tensor run of the same model: every CRC-32 of a tensor's own
# bytes is first checked to be the md5 the md5 run recorded (the runs are deterministic).
MD5_RUN, MD5_TENSORS = "npu_bf16_md5_mix", "npu_bf16_tensor_mix"
# The weight run as MindSpore under MSAdapter writes it (framework "mindtorch"): msprobe's
# MindSpore processor (mindspore.Tensor, MindSpore dtypes, no requires_grad) with PyTorch's API
# names (mindtorch registers torch's APIs) and Module.* cells (cell_processor: Const.MODULE
# when is_mindtorch()).
MINDTORCH_RUN = "npu_weight_statistics_mix"
# PyTorch API -> the MindSpore API a port calls, as msprobe's MindSpore processor names it.
RENAMES = {
    "Functional.linear": "Functional.dense",          # mindspore.ops.dense
    "Functional.conv2d": "Functional.conv2d",         # mindspore.ops.conv2d
    "Functional.relu": "Functional.relu",             # mindspore.ops.relu
    "Functional.cross_entropy": "Functional.cross_entropy",
    "Functional.layer_norm": "MintFunctional.layer_norm",  # mindspore.mint.nn.functional
    "Functional.softmax": "MintFunctional.softmax",
    "Torch.flatten": "Mint.flatten",                  # mindspore.mint
    "Torch.cat": "Mint.cat",
}
CELL_CLASSES = {"Linear": "Dense", "Conv2d": "Conv2d", "LayerNorm": "LayerNorm"}
DTYPES = {"torch.float32": "Float32", "torch.bfloat16": "BFloat16", "torch.float16": "Float16",
          "torch.int64": "Int64", "torch.int32": "Int32", "torch.bool": "Bool", "torch.float64": "Float64"}

MAPPINGS = {
    # msprobe's api_mapping format: a list of {ms_api, pt_api, ms_args, pt_args, ms_outputs, pt_outputs}
    # (msprobe 26 reads the outputs' lists as ms_output / pt_output: with only the documented
    # ms_outputs / pt_outputs its compare stops with "'NoneType' object is not iterable")
    "api_mapping.yaml": "- ms_api: Functional.dense\n  pt_api: Functional.linear\n  ms_args: [0, 1]\n"
                        "  pt_args: [0, 1]\n  ms_output: [0]\n  pt_output: [0]\n",
    # cell_mapping: by cell name ({cell}.{class}) and by a string in the cell name
    "cell_mapping.yaml": "fc1.Dense: fc1.Linear\nDense: Linear\n",
    # data_mapping: full row names
    "data_mapping.yaml": "MintFunctional.softmax.0.forward.input.0: Functional.softmax.0.forward.input.0\n"
                         "MintFunctional.softmax.0.forward.output.0: Functional.softmax.0.forward.output.0\n"
                         "Functional.dense.0.forward.input.0: Functional.linear.0.forward.input.0\n",
}

# id, npu dump.json, bench dump.json, msprobe options
PAIRS = [
    ("weight_am", "ms_npu/npu_weight/dump.json", "pt_bench/dump.json", ["-am"]),
    ("weight_am_file", "ms_npu/npu_weight/dump.json", "pt_bench/dump.json", ["-am", "mappings/api_mapping.yaml"]),
    ("weight_cm_file", "ms_npu/npu_weight/dump.json", "pt_bench/dump.json", ["-cm", "mappings/cell_mapping.yaml"]),
    ("weight_dm_file", "ms_npu/npu_weight/dump.json", "pt_bench/dump.json", ["-dm", "mappings/data_mapping.yaml"]),
    ("weight_none", "ms_npu/npu_weight/dump.json", "pt_bench/dump.json", []),
    ("bf16_am", "ms_npu/npu_bf16/dump.json", "pt_bench/dump.json", ["-am"]),
    ("bf16_md5_am", "ms_npu/npu_bf16_md5/dump.json", "pt_bench_bf16_md5/dump.json", ["-am"]),
    ("mindtorch_weight", "ms_npu/mt_npu_weight/dump.json", "pt_bench/dump.json", []),
    ("fixtures_am", "fixtures/mindspore_data/dump.json", "fixtures/pytorch_data/dump.json", ["-am"]),
    ("fixtures_lm", "fixtures/mindspore_data/dump.json", "fixtures/pytorch_data/dump.json",
     ["-lm", "fixtures/layer_mapping.yaml"]),
]


def rename_entry(name):
    parts = name.split(".")
    if parts[0] == "Module":
        parts[0] = "Cell"
        direction = next(i for i, p in enumerate(parts) if p in ("forward", "backward", "parameters_grad"))
        parts[direction - 1] = CELL_CLASSES.get(parts[direction - 1], parts[direction - 1])
        return ".".join(parts)
    api = ".".join(parts[:2])
    if api in RENAMES:
        return RENAMES[api] + "." + ".".join(parts[2:])
    return name


def retype(value):
    if isinstance(value, list):
        return [retype(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = OrderedDict()
    for k, v in value.items():
        if k == "requires_grad":
            continue
        if k == "type" and v == "torch.Tensor":
            v = "mindspore.Tensor"
        elif k == "dtype" and v in DTYPES:
            v = DTYPES[v]
        out[k] = retype(v)
    return out


def tensor_leaves(value, path=()):
    """(path, leaf) of every tensor leaf (a dict with dtype and shape) of an entry."""
    if isinstance(value, dict):
        if "dtype" in value and "shape" in value:
            yield path, value
            return
        for k, v in value.items():
            yield from tensor_leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from tensor_leaves(v, path + (i,))


def mindspore_md5(data, tensor_run):
    """The md5 of every bfloat16 leaf as MindSpore computes it: CRC-32 of the float32 cast."""
    import torch  # noqa: PLC0415 (only this run needs it)
    import zlib  # noqa: PLC0415
    run = os.path.join(REAL, "dumps", tensor_run, "step0", "rank0")
    with open(os.path.join(run, "dump.json")) as f:
        tensors = json.load(f)["data"]
    for name, entry in data.items():
        files = dict(tensor_leaves(tensors[name]))
        for path, leaf in tensor_leaves(entry):
            if "md5" not in leaf:
                continue
            t = torch.load(os.path.join(run, "dump_tensor_data", files[path]["data_name"]))
            own = t.contiguous().view(torch.int16) if t.dtype == torch.bfloat16 else t
            if "%08x" % zlib.crc32(own.numpy().tobytes()) != leaf["md5"]:
                raise SystemExit("%s %s: the tensor run's bytes are not the md5 run's" % (name, path))
            if t.dtype == torch.bfloat16:
                leaf["md5"] = "%08x" % zlib.crc32(t.float().numpy().tobytes())


def convert(src_dir, dst_dir, framework="mindspore", md5_tensors=None):
    os.makedirs(dst_dir, exist_ok=True)
    with open(os.path.join(src_dir, "dump.json")) as f:
        dump = json.load(f, object_pairs_hook=OrderedDict)
    if md5_tensors:
        mindspore_md5(dump["data"], md5_tensors)
    dump["framework"] = framework
    rename = rename_entry if framework == "mindspore" else (lambda n: n)
    dump["data"] = OrderedDict((rename(k), retype(v)) for k, v in dump["data"].items())
    with open(os.path.join(dst_dir, "dump.json"), "w") as f:
        json.dump(dump, f, indent=1)
    with open(os.path.join(src_dir, "stack.json")) as f:
        stack = json.load(f, object_pairs_hook=OrderedDict)
    for v in stack.values():
        v[0] = [rename(n) for n in v[0]]
    with open(os.path.join(dst_dir, "stack.json"), "w") as f:
        json.dump(stack, f, indent=1)
    with open(os.path.join(src_dir, "construct.json")) as f:
        construct = json.load(f, object_pairs_hook=OrderedDict)
    construct = OrderedDict((rename(k), rename(v) if v else v) for k, v in construct.items())
    with open(os.path.join(dst_dir, "construct.json"), "w") as f:
        json.dump(construct, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--msprobe", required=True)
    args = ap.parse_args()
    os.chdir(ROOT)
    for ms, run in RUNS.items():
        convert(os.path.join(REAL, "dumps", run, "step0", "rank0"), os.path.join("ms_npu", ms))
    md5_run = os.path.join(REAL, "dumps", MD5_RUN, "step0", "rank0")
    convert(md5_run, os.path.join("ms_npu", "npu_bf16_md5"), md5_tensors=MD5_TENSORS)
    convert(os.path.join(REAL, "dumps", MINDTORCH_RUN, "step0", "rank0"), os.path.join("ms_npu", "mt_npu_weight"),
            framework="mindtorch")
    bench = os.path.join(REAL, "dumps", BENCH, "step0", "rank0")
    for folder, run in (("pt_bench", bench), ("pt_bench_bf16_md5", md5_run)):
        os.makedirs(folder, exist_ok=True)
        for f in ("dump.json", "stack.json", "construct.json"):
            shutil.copy(os.path.join(run, f), os.path.join(folder, f))
    fixtures = os.path.join(args.msprobe, "test/msprobe_test/mindspore_ut/compare/dump_file")
    for d in ("mindspore_data", "pytorch_data"):
        os.makedirs(os.path.join("fixtures", d), exist_ok=True)
        for f in ("dump.json", "stack.json", "construct.json"):
            shutil.copy(os.path.join(fixtures, d, f), os.path.join("fixtures", d, f))
    shutil.copy(os.path.join(fixtures, "layer_mapping.yaml"), "fixtures/layer_mapping.yaml")
    os.makedirs("mappings", exist_ok=True)
    for name, text in MAPPINGS.items():
        with open(os.path.join("mappings", name), "w") as f:
            f.write(text)
    env = dict(os.environ, PYTHONPATH=SHIMS + ":" + os.path.join(args.msprobe, "python"),
               OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    os.makedirs("compare", exist_ok=True)
    commands = []
    for pid, npu, bench_json, opts in PAIRS:
        with tempfile.TemporaryDirectory() as out:
            cmd = [PY, os.path.join(HERE, "msprobe_ms_cli.py"), "compare", "-tp", npu, "-gp", bench_json, "-o", out] + opts
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            csvs = glob.glob(os.path.join(out, "compare_result_*.csv"))
            shutil.copy(csvs[0], os.path.join("compare", pid + ".csv"))
            for y in glob.glob(os.path.join(out, "data_mapping_*.yaml")):
                shutil.copy(y, os.path.join("compare", pid + "_data_mapping.yaml"))
            commands.append({"id": pid, "npu": npu, "bench": bench_json, "options": opts,
                             "csv": "compare/" + pid + ".csv",
                             "command": "msprobe compare -tp %s -gp %s -o OUT %s" % (npu, bench_json, " ".join(opts))})
    with open("pairs.json", "w") as f:
        json.dump({"producer": {"msprobe": "Ascend/msprobe 8ff00da37660ef42e2ba945a2ec349b6f85314e1 (26.0.0)"},
                   "pairs": commands}, f, indent=1)


if __name__ == "__main__":
    main()
