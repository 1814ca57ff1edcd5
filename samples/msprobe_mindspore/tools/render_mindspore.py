"""Renders MindSpore msprobe dumps from real msprobe 26 PyTorch dumps (samples/msprobe_real).

MindSpore does not install here, so these dumps are renderings: every number, shape and the entry
order come from the real PyTorch run; names, types and files are written the way msprobe 26's
MindSpore processor writes them (msprobe core/dump/data_dump/data_processor/mindspore_processor.py,
core/dump/data_dump/json_writer.py, mindspore/dump/dump_processor/cell_dump_process.py,
mindspore/api_accuracy_checker/api_accuracy_checker.py). Names and dtypes are renamed by
samples/msprobe_crossframework/tools/make_crossframework.py's rules.

    python3 tools/render_mindspore.py        # from samples/msprobe_mindspore; needs numpy, torch
"""

import json
import os
import shutil
import sys
from collections import OrderedDict

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REAL = os.path.join(ROOT, "..", "msprobe_real", "dumps")
sys.path.insert(0, os.path.join(ROOT, "..", "msprobe_crossframework", "tools"))
from make_crossframework import rename_entry, retype  # noqa: E402


def load(path):
    with open(path) as f:
        return json.load(f, object_pairs_hook=OrderedDict)


def save(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, indent=1)  # msprobe's save_json(..., indent=1)


def rename_files(value):
    """data_name: MindSpore saves .npy (save_tensor_as_npy), named as PyTorch's .pt."""
    if isinstance(value, list):
        return [rename_files(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = OrderedDict()
    for k, v in value.items():
        if k == "data_name" and isinstance(v, str) and v.endswith(".pt"):
            v = rename_entry(v[:-3]) + ".npy"
        out[k] = rename_files(v)
    return out


def npy_of_pt(pt_path, npy_path):
    """save_tensor_as_npy: bf16 is cast to fp32 first (mindspore/common/utils.py), then np.save."""
    t = torch.load(pt_path)
    if t.dtype == torch.bfloat16:
        t = t.float()
    os.makedirs(os.path.dirname(npy_path), exist_ok=True)
    np.save(npy_path, t.numpy())


def convert_rank(src, dst, keep=None, tensors=True):
    dump = load(os.path.join(src, "dump.json"))
    dump["framework"] = "mindspore"
    data = OrderedDict()
    for k, v in dump["data"].items():
        name = rename_entry(k)
        if keep is None or keep(name):
            data[name] = rename_files(retype(v))
    dump["data"] = data
    construct = load(os.path.join(src, "construct.json"))
    construct = OrderedDict((rename_entry(k), rename_entry(v) if v else v) for k, v in construct.items()
                            if rename_entry(k) in data)
    stack = load(os.path.join(src, "stack.json"))
    groups = OrderedDict()
    for key, (names, lines) in stack.items():
        names = [rename_entry(n) for n in names if rename_entry(n) in data]
        if names:
            groups[str(len(groups))] = [names, lines]
    if tensors:
        pt_dir = os.path.join(src, "dump_tensor_data")
        for f in sorted(os.listdir(pt_dir)):
            entry = rename_entry(f[:-3]) + ".npy"
            if any(entry.startswith(n + ".") for n in data):
                npy_of_pt(os.path.join(pt_dir, f), os.path.join(dst, "dump_tensor_data", entry))
    return dump, construct, groups


# The MindSpore-only API kinds of msprobe 26, for names_statistics_mix:
# - mindspore.mint.distributed calls are "MintDistributed.*" (api_register: MINT_DIST_API_TYPE_PREFIX
#   when not is_mindtorch());
# - a Primitive held by a cell attribute is "Primitive.{attribute}.{PrimitiveClass}.{n}.forward"
#   (mindspore_service.register_primitive_hook: pname + "." + class name; primitive_hooks.py:
#   PRIMITIVE_PREFIX + "." + name + "." + count): the model's F.relu call as `self.relu = ops.ReLU()`.
MS_ONLY = (("Distributed.all_reduce.", "MintDistributed.all_reduce."), ("Functional.relu.", "Primitive.relu.ReLU."))


def ms_only(name):
    for old, new in MS_ONLY:
        if name and name.startswith(old):
            return new + name[len(old):]
    return name


def main():
    out = ROOT
    for d in ("pynative_bf16_tensor_mix", "jit_split", "acc_check_error_data", "names_statistics_mix"):
        shutil.rmtree(os.path.join(out, d), ignore_errors=True)

    # 1. PyNative mix, task tensor, bf16 model: .npy tensors saved as fp32, dtype "BFloat16" recorded.
    src = os.path.join(REAL, "npu_bf16_tensor_mix", "step0", "rank0")
    dst = os.path.join(out, "pynative_bf16_tensor_mix", "step0", "rank0")
    dump, construct, stack = convert_rank(src, dst)
    dump["dump_data_dir"] = "/home/user/dump/step0/rank0/dump_tensor_data"
    # A semi-auto-parallel weight: _analyze_tensor adds layout and hsdp_shard_size after the
    # statistics (json_writer._replace_stat_placeholders keeps them for mindspore types).
    weight = dump["data"]["Cell.fc1.Dense.forward.0"]["parameters"]["weight"]
    layout = OrderedDict([("Device Matrix", [2, 1]), ("Alias Name", ["dp", "mp"]), ("Interleaved", "No"),
                          ("Partial", []), ("Tensor Map", [-1, 1]), ("Rank List", [0, 1])])
    moved = OrderedDict()
    for k, v in weight.items():
        if k == "data_name":
            moved["layout"] = layout
            moved["hsdp_shard_size"] = 2
        moved[k] = v
    dump["data"]["Cell.fc1.Dense.forward.0"]["parameters"]["weight"] = moved
    save(os.path.join(dst, "dump.json"), dump)
    save(os.path.join(dst, "construct.json"), construct)
    save(os.path.join(dst, "stack.json"), stack)

    # 2. jit split (MindSpore >= 2.7, L0/mix with @jit cells): graph-mode cells under graph/,
    # the rest under pynative/ (core/dump/service.py). The graph part is a static-graph L0
    # statistics dump as cell_dump_process.generate_dump_info/generate_stack_info write it:
    # task statistics, level L0, dump_data_dir null, input_args/input_kwargs/output only, and a
    # stack.json of empty lists per cell.
    for side, run in (("npu", "npu_weight_statistics_mix"), ("bench", "base_statistics_mix")):
        src = os.path.join(REAL, run, "step0", "rank0")
        is_cell = lambda n: n.startswith("Cell.") and ".forward." in n  # noqa: E731
        g = os.path.join(out, "jit_split", side, "graph", "step0", "rank0")
        dump, construct, _ = convert_rank(src, g, keep=is_cell, tensors=False)
        graph = OrderedDict([("task", "statistics"), ("level", "L0"), ("framework", "mindspore"),
                             ("dump_data_dir", None), ("data", OrderedDict())])
        for name, body in dump["data"].items():
            graph["data"][name] = OrderedDict([("input_args", body.get("input_args", [])), ("input_kwargs", {}),
                                               ("output", body.get("output", []))])
        save(os.path.join(g, "dump.json"), graph)
        save(os.path.join(g, "construct.json"), OrderedDict((n, None) for n in graph["data"]))
        save(os.path.join(g, "stack.json"), OrderedDict((n, []) for n in graph["data"]))
        p = os.path.join(out, "jit_split", side, "pynative", "step0", "rank0")
        dump, construct, stack = convert_rank(src, p, keep=lambda n: not n.startswith("Cell."), tensors=False)
        save(os.path.join(p, "dump.json"), dump)
        save(os.path.join(p, "construct.json"), OrderedDict((k, v if v in dump["data"] else None)
                                                            for k, v in construct.items()))
        save(os.path.join(p, "stack.json"), stack)

    # 3. acc_check -save_error_data: dump.json beside error_data/ (api_accuracy_checker.py
    # init_save_error_data: dump_tensor_data_dir = <out>/error_data), task tensor, level L1.
    src = os.path.join(REAL, "npu_bf16_tensor_mix", "step0", "rank0")
    dst = os.path.join(out, "acc_check_error_data")
    keep = {"MintFunctional.softmax.0.forward", "Functional.dense.0.forward"}
    dump, _, stack = convert_rank(src, os.path.join(out, "acc_check_error_data_tmp"), keep=lambda n: n in keep)
    shutil.move(os.path.join(out, "acc_check_error_data_tmp", "dump_tensor_data"), os.path.join(dst, "error_data"))
    shutil.rmtree(os.path.join(out, "acc_check_error_data_tmp"))
    dump["level"] = "L1"
    dump["dump_data_dir"] = "/home/user/acc_check_out/error_data"
    save(os.path.join(dst, "dump.json"), dump)
    save(os.path.join(dst, "stack.json"), stack)


    # 4. MintDistributed and Primitive names (MS_ONLY above) in a statistics dump of both ranks.
    for rank in ("rank0", "rank1"):
        src = os.path.join(REAL, "base_statistics_mix", "step0", rank)
        dst = os.path.join(out, "names_statistics_mix", "step0", rank)
        dump, construct, stack = convert_rank(src, dst, tensors=False)
        dump["data"] = OrderedDict((ms_only(k), v) for k, v in dump["data"].items())
        construct = OrderedDict((ms_only(k), ms_only(v)) for k, v in construct.items())
        for names, _ in stack.values():
            names[:] = [ms_only(n) for n in names]
        save(os.path.join(dst, "dump.json"), dump)
        save(os.path.join(dst, "construct.json"), construct)
        save(os.path.join(dst, "stack.json"), stack)


if __name__ == "__main__":
    main()
