#!/usr/bin/python3
"""Generate the msprobe (Gen B/C) and ptdbg_ascend (Gen A) framework-dump samples.

Run with the Debian interpreter (torch and numpy live there):

    /usr/bin/python3 samples/generate_msprobe.py

A small real torch model (conv1 -> relu -> flatten -> fc) runs forward and backward; every
dump.json entry is built from the real tensors (statistics computed by torch, CRC-32 from
the tensor bytes, tensor files written with torch.save / numpy.save) and serialised with
Python's json module with allow_nan, so non-finite statistics appear as the bare tokens
NaN / Infinity / -Infinity.  Layout and naming follow shared/specs/msprobe.md (§2, §3, §4,
§5, §6, §9) and overflow.md §12.

Written:
  samples/msprobe/step0/rank0   tensor task, mix level, .pt files, OLD stack.json, plain construct.json,
                                debug.json (single-point save, `.debug.` and `.tensor.` file infixes)
  samples/msprobe/step0/rank1   statistics + md5, no tensor files, NEW stack.json,
                                Megatron construct.json, parameters_grad with a counter
  samples/msprobe/step0/rank    non-distributed, statistics, L1 (construct.json "{}")
  samples/msprobe/step0/proc2016  Gen C directory name, xor checksums, no stack.json
  samples/msprobe/expected.json the oracle: every op and leaf flattened from the Python objects
  samples/msprobe_truncated/step0/rank0/dump.json  rank0's dump.json cut inside an entry
  samples/ptdbg/ptdbg_dump_v6.0/step0/rank0  dump.pkl (v6 `.` names) + dump/*.npy + an overflow
                                .pkl with its same-name .npy directory
  samples/ptdbg/ptdbg_dump_v6.0/step0/rank1  api_stack_dump.pkl with old `_` names, no tensors
  samples/ptdbg/forward_info_4242.json, backward_info_4242.json  (concatenated objects)
  samples/ptdbg/expected.json   the ptdbg oracle
"""

import json
import os
import math
import shutil
import sys
import zlib
from pathlib import Path

import numpy as np
import torch

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = Path(os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE)
MS = ROOT / "msprobe"
MS_TRUNC = ROOT / "msprobe_truncated"
PT = ROOT / "ptdbg"

torch.manual_seed(7)
np.random.seed(7)

TENSOR_KEYS = ("dtype", "shape", "Max", "Min", "Mean", "Norm", "data_name", "md5", "Max_origin", "Min_origin",
               "datapath")


def dumps(obj):
    return json.dumps(obj, allow_nan=True)


# ----------------------------------------------------------------------------
# Leaves (msprobe.md §3.4, §3.5), statistics computed by torch
# ----------------------------------------------------------------------------

def num(v):
    """A Python number for JSON: ints stay ints (0-d int tensors), floats keep NaN/Inf."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    return float(v)


def tensor_stats(t):
    if t.numel() == 0:
        return None, None, None, None
    if t.dtype == torch.bool:
        return bool(t.any()), bool(t.all()), None, None
    if t.dim() == 0:
        v = t.item()
        return num(v), num(v), num(v), num(v)
    f = t if t.is_floating_point() else t.float()
    return (num(f.max().item()), num(f.min().item()), num(f.mean().item()), num(torch.linalg.norm(f.flatten()).item()))


def raw_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:  # raw in-memory bytes (msprobe >= 2025-08, §10)
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def crc(t):
    return "%08x" % zlib.crc32(raw_bytes(t))


class Rank:
    def __init__(self, rel, task, level, summary="statistics", save_tensors=False):
        self.rel = rel
        self.dir = MS / rel
        self.task = task
        self.level = level
        self.summary = summary
        self.save_tensors = save_tensors
        self.data = {}
        self.debug = {}
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)

    def tensor(self, t, data_name=None, requires_grad=None, ttype="torch.Tensor", extra=None, save=True):
        mx, mn, mean, norm = tensor_stats(t)
        leaf = {"type": ttype, "dtype": str(t.dtype), "shape": list(t.shape), "Max": mx, "Min": mn, "Mean": mean,
                "Norm": norm, "requires_grad": bool(t.requires_grad if requires_grad is None else requires_grad)}
        if extra:
            leaf.update(extra)
        if self.save_tensors and data_name and save:
            d = self.dir / "dump_tensor_data"
            d.mkdir(exist_ok=True)
            torch.save(t.detach().clone().contiguous(), d / data_name)
            leaf["data_name"] = data_name
        if self.summary == "md5":
            leaf["md5"] = crc(t)
        elif self.summary == "xor":
            words = np.frombuffer(raw_bytes(t).ljust(8 * ((t.numel() * t.element_size() + 7) // 8), b"\0"), dtype="<u8")
            x = 0
            for w in words:
                x ^= int(w)
            leaf["md5"] = "0x%016x" % x
        return leaf

    def ndarray(self, a, data_name=None):
        leaf = {"type": "numpy.ndarray", "dtype": str(a.dtype), "shape": list(a.shape), "Max": float(a.max()),
                "Min": float(a.min()), "Mean": float(a.mean()), "Norm": float(np.linalg.norm(a))}
        if self.save_tensors and data_name:
            d = self.dir / "dump_tensor_data"
            d.mkdir(exist_ok=True)
            np.save(d / data_name, a)
            leaf["data_name"] = data_name
        return leaf


def scalar(v):
    return {"type": type(v).__name__, "value": v}


# ----------------------------------------------------------------------------
# The model run
# ----------------------------------------------------------------------------

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 2, 3, padding=1)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        y = self.conv1(x)
        r = torch.nn.functional.relu(y)
        f = r.flatten(1)
        return self.fc(f)


def run_model(seed):
    torch.manual_seed(seed)
    net = Net()
    x = torch.randn(1, 1, 2, 2, requires_grad=True)
    y = torch.nn.functional.conv2d(x, net.conv1.weight, net.conv1.bias, (1, 1), (1, 1))
    y.retain_grad()
    r = torch.nn.functional.relu(y)
    r.retain_grad()
    f = r.flatten(1)
    f.retain_grad()
    o = torch.nn.functional.linear(f, net.fc.weight, net.fc.bias)
    o.retain_grad()
    o.sum().backward()
    return dict(net=net, x=x, y=y, r=r, f=f, o=o)


def dn(entry, category, *path, ext=".pt"):
    """data_name rule of §3.6."""
    return ".".join([entry, category] + [str(p) for p in path]) + ext


def build_rank(rank, seed, params_grad_name, corrupt_parent=False):
    """Fills rank.data in execution order; returns (construct dict, stacks by entry, true parents)."""
    m = run_model(seed)
    net, x, y, r, f, o = m["net"], m["x"], m["y"], m["r"], m["f"], m["o"]
    T = rank.tensor
    data = rank.data
    construct = {}

    e = "Module.conv1.Conv2d.forward.0"
    data[e] = {"input_args": [T(x, dn(e, "input", 0))], "input_kwargs": {},
               "output": [T(y, dn(e, "output", 0))],
               "parameters": {"weight": T(net.conv1.weight, dn(e, "parameters", "weight")),
                              "bias": T(net.conv1.bias, dn(e, "parameters", "bias"))},
               "is_recompute": False}
    construct[e] = None
    e = "Functional.conv2d.0.forward"
    data[e] = {"input_args": [T(x, dn(e, "input", 0)), T(net.conv1.weight, dn(e, "input", 1)),
                              T(net.conv1.bias, dn(e, "input", 2)),
                              [scalar(1), scalar(1)], [scalar(1), scalar(1)]],
               "input_kwargs": {}, "output": [T(y, dn(e, "output", 0))], "is_recompute": False}
    construct[e] = "Module.conv1.Conv2d.forward.0"
    e = "Functional.relu.0.forward"
    data[e] = {"input_args": [T(y, dn(e, "input", 0))], "input_kwargs": {"inplace": scalar(False)},
               "output": [T(r, dn(e, "output", 0))]}
    construct[e] = None
    e = "Tensor.flatten.0.forward"
    data[e] = {"input_args": [T(r, dn(e, "input", 0)), scalar(1)], "input_kwargs": {},
               "output": [T(f, dn(e, "output", 0))]}
    construct[e] = None
    e = "Module.fc.Linear.forward.0"
    data[e] = {"input_args": [T(f, dn(e, "input", 0))], "input_kwargs": {},
               "output": [T(o, dn(e, "output", 0))],
               "parameters": {"weight": T(net.fc.weight, dn(e, "parameters", "weight")),
                              "bias": T(net.fc.bias, dn(e, "parameters", "bias"))}}
    construct[e] = None
    e = "Functional.linear.0.forward"
    data[e] = {"input_args": [T(f, dn(e, "input", 0)), T(net.fc.weight, dn(e, "input", 1)),
                              T(net.fc.bias, dn(e, "input", 2))],
               "input_kwargs": {}, "output": [T(o, dn(e, "output", 0))]}
    construct[e] = "Module.fc.Linear.forward.0"

    # Non-finite statistics, every leaf kind, nested containers.
    bad = torch.tensor([1.0, float("nan"), 2.0])
    inf = torch.tensor([1.0, float("inf"), 3.0])
    ninf = torch.tensor([float("-inf"), 2.0])
    clean = torch.nan_to_num(bad, nan=0.0)
    e = "Torch.nan_to_num.0.forward"
    data[e] = {"input_args": [T(bad, dn(e, "input", 0)), [T(inf, dn(e, "input", 1, 0)), T(ninf, dn(e, "input", 1, 1))]],
               "input_kwargs": {"nan": scalar(0.0), "posinf": scalar(float("inf")), "neginf": None,
                                "NaN": scalar("NaN"), "Infinity": scalar(-1), "weird": scalar(float("nan"))},
               "output": [T(clean, dn(e, "output", 0))]}
    construct[e] = None
    idx = torch.arange(6, dtype=torch.int64).reshape(2, 3)
    sl = idx[..., 0:3:2]
    e = "Tensor.__getitem__.0.forward"
    data[e] = {"input_args": [T(idx, dn(e, "input", 0)),
                              [{"type": "ellipsis", "value": "..."}, {"type": "slice", "value": [0, 3, 2]},
                               {"type": "slice", "value": [None, None, None]}]],
               "input_kwargs": {}, "output": [T(sl, dn(e, "output", 0))]}
    construct[e] = None
    z = torch.zeros(2, 2, dtype=torch.float16)
    e = "Torch.zeros.0.forward"
    data[e] = {"input_args": [{"type": "torch.Size", "value": [2, 2]}, {}],
               "input_kwargs": {"dtype": {"type": "torch.dtype", "value": "torch.float16"},
                                "device": {"type": "torch.device", "value": "cpu"},
                                "memory_format": {"type": "torch.memory_format", "format": "contiguous_format"},
                                "layout": None, "name": scalar("zeros"), "numpy_scalar": {"type": "int64", "value": 3}},
               "output": [T(z, dn(e, "output", 0))]}
    construct[e] = None
    flags = torch.tensor([True, False, True])
    empty = torch.empty(0, 3)
    scalar0 = torch.tensor(5, dtype=torch.int64)
    arr = np.arange(4, dtype=np.float32).reshape(2, 2) / 4
    e = "Tensor.add_.0.forward"
    data[e] = {"input_args": [T(scalar0, dn(e, "input", 0)), scalar(1)],
               "input_kwargs": {"alpha": scalar(2.5), "mask": T(flags, dn(e, "kwargs", "mask")),
                                "empty": T(empty, dn(e, "kwargs", "empty"), save=False),
                                "table": rank.ndarray(arr, dn(e, "kwargs", "table", ext=".npy"))},
               "output": [{"result": T(scalar0 + 2, dn(e, "output", 0, "result")),
                           "extras": [T(flags, dn(e, "output", 0, "extras", 0)),
                                      T(clean.bfloat16(), dn(e, "output", 0, "extras", 1))]}],
               "is_recompute": True}
    construct[e] = None
    g = torch.ones(4)
    e = "Distributed.all_reduce.0.forward"
    data[e] = {"input_args": [T(g, dn(e, "input", 0))],
               "input_kwargs": {"group": {"type": "torch.ProcessGroup", "group_ranks": [0, 1],
                                          "group_id": "%08x" % zlib.crc32(str([0, 1]).encode())},
                                "op": {"type": "torch.distributed.ReduceOp", "value": "RedOpType.SUM"},
                                "async_op": scalar(False)},
               "output": [T(g * 2, dn(e, "output", 0)), {"type": "torch.ProcessGroup", "group_ranks": [0, 1],
                                                       "group_id": "%08x" % zlib.crc32(str([0, 1]).encode())}]}
    construct[e] = None
    e = "Distributed.batch_isend_irecv.0.forward"
    data[e] = {"input_args": [[{"class_type": "torch.distributed.P2POp", "tensor": T(g, dn(e, "input", 0, 0, "tensor")),
                                "op": "isend", "peer": 1, "tag": 0, "group_id": "5f2a1c3d"}]],
               "input_kwargs": {}, "output": [None]}
    construct[e] = None
    e = "Module.fc.Linear.forward.1"
    data[e] = {"input_args": [T(f, dn(e, "input", 0), ttype="torch.distributed.tensor.DTensor",
                                extra={"device_mesh": [0, 1], "placements": [{"Shard": {"dim": 0}}, {"Replicate": {}}]})],
               "input_kwargs": {"fake": T(f, None, ttype="torch._subclasses.fake_tensor.FakeTensor", save=False)},
               "output": [T(o, dn(e, "output", 0))]}
    # The FakeTensor leaf has no statistics (§3.4 "meta or fake tensor: all null").
    for k in ("Max", "Min", "Mean", "Norm"):
        data[e]["input_kwargs"]["fake"][k] = None
    data[e]["input_kwargs"]["fake"].pop("md5", None)
    construct[e] = None

    # Backward (input = grads of the forward outputs, output = grads of the forward inputs).
    e = "Functional.linear.0.backward"
    data[e] = {"input": [T(o.grad, dn(e, "input", 0))],
               "output": [T(net.fc.bias.grad, dn(e, "output", 0)), T(f.grad, dn(e, "output", 1)),
                          T(net.fc.weight.grad, dn(e, "output", 2))]}
    construct[e] = "Module.fc.Linear.backward.0"
    e = "Module.fc.Linear.backward.0"
    data[e] = {"input": [T(o.grad, dn(e, "input", 0))], "output": [T(f.grad, dn(e, "output", 0))]}
    construct[e] = None
    e = "Tensor.flatten.0.backward"
    data[e] = {"input": [T(f.grad, dn(e, "input", 0))], "output": [T(r.grad, dn(e, "output", 0)), None]}
    construct[e] = None
    e = "Functional.relu.0.backward"
    data[e] = {"input": [T(r.grad, dn(e, "input", 0))], "output": [T(y.grad, dn(e, "output", 0))]}
    construct[e] = None
    e = "Functional.conv2d.0.backward"
    data[e] = {"input": [T(y.grad, dn(e, "input", 0))],
               "output": [T(x.grad, dn(e, "output", 0)), T(net.conv1.weight.grad, dn(e, "output", 1)),
                          T(net.conv1.bias.grad, dn(e, "output", 2))]}
    construct[e] = "Module.conv1.Conv2d.backward.0"
    e = "Module.conv1.Conv2d.backward.0"
    data[e] = {"input": [T(y.grad, dn(e, "input", 0))], "output": [T(x.grad, dn(e, "output", 0))]}
    construct[e] = None
    for mod, lin in (("Module.fc.Linear", net.fc), ("Module.conv1.Conv2d", net.conv1)):
        e = mod + "." + params_grad_name
        data[e] = {"bias": [T(lin.bias.grad, e + ".bias.pt")], "weight": [T(lin.weight.grad, e + ".weight.pt")]}

    true_parents = dict(construct)
    if corrupt_parent:
        # In-place module reuse gives the conv2d backward a wrong recorded parent (§5).
        construct["Functional.conv2d.0.backward"] = "Module.fc.Linear.backward.0"
    if rank.level == "L1":
        construct = {}
        true_parents = {}
    return construct, true_parents


def stack_lines(entry, n):
    if entry == "Tensor.flatten.0.forward":
        return ["The call stack retrieval failed."]
    return ["File /home/user/train.py, line %d, in forward, \n x = self.layer%d(x)" % (40 + n, n),
            "File /home/user/msprobe/core/data_dump/api_registry.py, line 120, in api_function, \n return func(*args, **kwargs)",
            "File /home/user/train.py, line 88, in <module>, \n out = net(batch)"]


def write_rank(rank, construct, stack_format, megatron=False):
    doc = {"task": rank.task, "level": rank.level, "framework": "pytorch",
           "dump_data_dir": str(Path("/data/dumps") / rank.rel / "dump_tensor_data") if rank.save_tensors else None,
           "data": rank.data}
    (rank.dir / "dump.json").write_text(json.dumps(doc, indent=1, allow_nan=True))
    stacks = {}
    if stack_format:
        fwd = [e for e in rank.data if e.endswith(".forward") or ".forward." in e]
        for n, e in enumerate(fwd):
            stacks[e] = stack_lines(e, n % 2)  # two distinct stacks (+ the failure line) repeat
        if stack_format == "old":
            out = stacks
        else:
            groups = {}
            for e, lines in stacks.items():
                groups.setdefault(tuple(lines), []).append(e)
            out = {str(i): [entries, list(lines)] for i, (lines, entries) in enumerate(groups.items())}
        (rank.dir / "stack.json").write_text(json.dumps(out, indent=1))
    if megatron:
        c = {k: [v, 0] for k, v in construct.items()}
        c["megatron_micro_step_number"] = 1
    else:
        c = construct
    (rank.dir / "construct.json").write_text(json.dumps(c, indent=1))
    return stacks


def write_debug(rank):
    """debug.json of single-point saves (§6), both tensor-file infixes."""
    x = torch.linspace(-1, 1, 4)
    nested = {"key1": x * 2, "key2": [x + 1, 3]}
    dbg = {}
    dbg["x.0.debug"] = rank.tensor(x, "x.0.debug.pt")
    dbg["x_grad.0.debug"] = rank.tensor(x.flip(0), "x_grad.0.tensor.pt")  # msprobe 1.3.0 infix
    dbg["state.0.debug"] = {"key1": rank.tensor(nested["key1"], "state.0.debug.key1.pt"),
                            "key2": [rank.tensor(nested["key2"][0], "state.0.debug.key2.0.pt"), scalar(3)]}
    rank.debug = dbg
    doc = {"task": rank.task, "level": "debug", "framework": "pytorch", "dump_data_dir": None, "data": dbg}
    (rank.dir / "debug.json").write_text(json.dumps(doc, indent=1, allow_nan=True))


# ----------------------------------------------------------------------------
# The oracle: flatten every entry the way the reader documents it
# ----------------------------------------------------------------------------

DTYPES = {"torch.float32": "float32", "torch.float16": "float16", "torch.bfloat16": "bfloat16",
          "torch.float64": "float64", "torch.int64": "int64", "torch.int32": "int32", "torch.bool": "bool",
          "torch.uint8": "uint8", "torch.int8": "int8", "float32": "float32", "float64": "float64",
          "int64": "int64"}


def stat_text(v):
    if v is None or isinstance(v, str):
        return None
    return repr(float(v))


def value_text(v):
    return v if isinstance(v, str) else json.dumps(v)


def is_tensor_type(t):
    return t.endswith("Tensor") or t == "numpy.ndarray"


class Flattener:
    def __init__(self, tensor_dir):
        self.tensor_dir = tensor_dir
        self.counters = {}
        self.leaves = []

    def add(self, io, name, **kw):
        idx = self.counters.get(io, 0)
        self.counters[io] = idx + 1
        row = {"io": io, "index": idx, "name": name, "storage": "value", "type": "", "value": "", "dtype": "undefined",
               "shape": [], "stats": {"Max": None, "Min": None, "Mean": None, "Norm": None}, "checksum": "",
               "location": ""}
        row.update(kw)
        self.leaves.append(row)

    def walk(self, v, io, path, top=False):
        if v is None:
            return self.add(io, path, type="None", value="null")
        if isinstance(v, bool):
            return self.add(io, path, type="bool", value=json.dumps(v))
        if isinstance(v, (int, float)):
            return self.add(io, path, type="int" if isinstance(v, int) else "float", value=json.dumps(v))
        if isinstance(v, str):
            return self.add(io, path, type="str", value=v)
        if isinstance(v, list):
            for i, c in enumerate(v):
                self.walk(c, io, path + "." + str(i))
            return
        assert isinstance(v, dict)
        if not top:
            if isinstance(v.get("class_type"), str):
                rest = {k: x for k, x in v.items() if k not in ("class_type", "tensor")}
                self.add(io, path, type=v["class_type"], value=self.rest_text(v, rest))
                if "tensor" in v:
                    self.walk(v["tensor"], io, path + ".tensor")
                return
            if isinstance(v.get("type"), str):
                if is_tensor_type(v["type"]) or ("dtype" in v and "shape" in v):
                    return self.tensor(v, io, path)
                rest = {k: x for k, x in v.items() if k != "type"}
                return self.add(io, path, type=v["type"], value=self.rest_text(v, rest))
            if not v:
                return self.add(io, path, type="opaque", value="{}")
        for k, c in v.items():
            self.walk(c, io, (path + "." if path else "") + k)

    @staticmethod
    def rest_text(v, rest):
        if "value" in v:
            return value_text(v["value"])
        if len(rest) == 1:
            return value_text(next(iter(rest.values())))
        return json.dumps(rest) if rest else ""

    def tensor(self, leaf, io, path):
        stats = {k: stat_text(leaf.get(k)) for k in ("Max", "Min", "Mean", "Norm")}
        for k in ("Max", "Min"):  # api_accuracy_checker: the *_origin values are the real ones
            if leaf.get(k + "_origin") is not None:
                stats[k] = stat_text(leaf[k + "_origin"])
        extra = {k: x for k, x in leaf.items() if k not in TENSOR_KEYS}
        storage, location = "absent", ""
        if leaf.get("data_name"):
            storage = "npy" if leaf["data_name"].endswith(".npy") else "pt"
            location = self.tensor_dir + leaf["data_name"]
        elif leaf.get("datapath"):  # forward_info real-data mode: relative to the info file
            storage = "npy"
            p = leaf["datapath"]
            location = self.tensor_dir + p[p.index("forward_real_data_"):]
        self.add(io, path, storage=storage, type=leaf["dtype"], value=json.dumps(extra) if extra else "",
                 dtype=DTYPES.get(leaf["dtype"], "undefined"), shape=leaf["shape"], stats=stats,
                 checksum=leaf.get("md5") or "", location=location)


IO_OF = {"input_args": "input", "input_kwargs": "input", "input": "input", "output": "output",
         "parameters": "parameter"}


def flatten_entry(name, body, tensor_dir):
    fl = Flattener(tensor_dir)
    if name.endswith(".debug"):
        fl.walk(body, "output", "debug")
    elif ".parameters_grad" in name:
        for k, v in body.items():
            if isinstance(v, list) and len(v) == 1:
                fl.walk(v[0], "parameter", k)
            else:
                fl.walk(v, "parameter", k, top=True)
    else:
        for k, v in body.items():
            if k not in IO_OF and not isinstance(v, (dict, list)):
                continue
            fl.walk(v, IO_OF.get(k, "input"), k, top=True)
    return fl.leaves


def rank_oracle(rank, stacks, stack_format, construct, true_parents):
    tensor_dir = rank.rel + "/dump_tensor_data/"
    ops = []
    entries = [(n, b, rank.rel + "/dump.json") for n, b in rank.data.items()]
    entries += [(n, b, rank.rel + "/debug.json") for n, b in rank.debug.items()]
    for seq, (name, body, file) in enumerate(entries):
        twin = None
        if name.endswith(".backward"):
            twin = name[:-len(".backward")] + ".forward"
        elif ".backward." in name:
            head, _, n = name.rpartition(".backward.")
            twin = head + ".forward." + n
        stack = stacks.get(name) if stacks else None
        if stack is None and twin and stacks:
            stack = stacks.get(twin)
        recorded = construct.get(name) if construct else None
        parent = true_parents.get(name) if true_parents else None
        ops.append({"name": name, "seq": seq, "file": file, "relPath": rank.rel + "/" + name,
                    "stack": stack, "parent": parent or "", "parentInferred": (parent or "") != (recorded or ""),
                    "leaves": flatten_entry(name, body, tensor_dir)})
    return {"task": rank.task, "level": rank.level, "framework": "pytorch", "stackFormat": stack_format,
            "ops": ops}


# ----------------------------------------------------------------------------
# ptdbg_ascend (Gen A): dump.pkl line-JSON + dump/*.npy (§9), overflow (overflow.md §12)
# ----------------------------------------------------------------------------

def ptdbg_summary(t):
    if t.numel() == 0 or t.dtype == torch.bool:
        return []
    f = t.float()
    norm = torch.linalg.norm(f.flatten()).item() if t.is_floating_point() else "Nan"
    return [f.max().item(), f.min().item(), f.mean().item(), norm]


def write_ptdbg():
    if PT.exists():
        shutil.rmtree(PT)
    oracle = {"ranks": {}, "info": {}}
    m = run_model(11)
    x, y, r, o, net = m["x"], m["y"], m["r"], m["o"], m["net"]

    def rows_for(delim):
        def nm(api, n, d, cat, *idx):
            if delim == ".":
                return ".".join([api, str(n), d, cat] + [str(i) for i in idx])
            return "_".join([api.replace(".", "_"), str(n), d, cat]) + "".join("." + str(i) for i in idx)
        rows = []
        rows.append((nm("Functional.conv2d", 0, "forward", "input", 0), x))
        rows.append((nm("Functional.conv2d", 0, "forward", "input", 1), net.conv1.weight))
        rows.append((nm("Functional.conv2d", 0, "forward", "input", 2), net.conv1.bias))
        rows.append((nm("Functional.conv2d", 0, "forward", "output", 0), y))
        rows.append((nm("Functional.relu", 0, "forward", "input", 0), y))
        rows.append((nm("Functional.relu", 0, "forward", "input", 1), 0))  # a Python scalar argument
        rows.append((nm("Functional.relu", 0, "forward", "output", 0), r))
        rows.append((nm("Tensor.__gt__", 0, "forward", "output", 0), r > 0))
        rows.append((nm("Tensor.max", 0, "forward", "output", 0, 1), torch.tensor([1, 2], dtype=torch.int64)))
        rows.append((nm("Functional.relu", 0, "backward", "input", 0), r.grad))
        rows.append((nm("Functional.relu", 0, "backward", "output", 0), y.grad))
        rows.append((nm("Functional.conv2d", 0, "backward", "input", 0), y.grad))
        rows.append((nm("Functional.conv2d", 0, "backward", "output", 0), x.grad))
        return rows, nm

    def write_pkl(path, rows, npy_dir, three_stats=False, md5=False, stack_for=()):
        lines = []
        expected = {}
        order = []
        for name, t in rows:
            if isinstance(t, int):
                line = [name, 0, [], "<class 'int'>", "[]", [t, t, t, t]]
            else:
                s = ptdbg_summary(t)
                if three_stats and s:
                    s = s[:3]
                line = [name, 0, crc(t.float() if t.dtype == torch.bfloat16 else t) if md5 else [], str(t.dtype),
                        list(t.shape), s]
                if npy_dir is not None:
                    npy_dir.mkdir(parents=True, exist_ok=True)
                    np.save(npy_dir / (name + ".npy"), t.detach().float().numpy() if t.dtype == torch.bfloat16
                            else t.detach().numpy())
            lines.append(json.dumps(line))
            # oracle row
            head = name.split(".", 1)[0] if "_" in name.split(".")[0] else None
            if head:  # old names: Type_api_n_dir_cat.i
                parts = head.split("_")
                cat, d, n = parts[-1], parts[-2], parts[-3]
                op = parts[0] + "." + "_".join(parts[1:-3]) + "." + n + "." + d
                idx = name.split(".")[1:]
            else:
                toks = name.split(".")
                k = max(i for i, tk in enumerate(toks) if tk in ("forward", "backward"))
                op, d, cat, idx = ".".join(toks[:k + 1]), toks[k], toks[k + 1], toks[k + 2:]
            if op not in expected:
                expected[op] = []
                order.append(op)
            io = "input" if cat == "input" else "output"
            leafname = ("input_args" if (cat == "input" and d == "forward") else cat) + "".join("." + i for i in idx)
            index = sum(1 for lf in expected[op] if lf["io"] == io)
            if isinstance(t, int):
                expected[op].append({"io": io, "index": index, "name": leafname, "storage": "value", "type": "int",
                                     "value": json.dumps(t), "stats": [None] * 4, "shape": [], "checksum": "",
                                     "location": ""})
            else:
                st = [None if (v == "Nan") else repr(float(v)) for v in line[5]] + [None] * (4 - len(line[5]))
                expected[op].append({"io": io, "index": index, "name": leafname,
                                     "storage": "npy" if npy_dir is not None else "absent", "type": str(t.dtype),
                                     "value": "", "stats": st, "shape": list(t.shape),
                                     "checksum": line[2] if md5 else "", "dtype": DTYPES[str(t.dtype)],
                                     "location": (str(npy_dir.relative_to(PT)) + "/" + name + ".npy") if npy_dir is not None else ""})
        stacks = {}
        for api in stack_for:
            frames = [["/home/user/train.py", "41", "forward", "x = self.conv1(x)"],
                      ["/home/user/train.py", "88", "<module>", "out = net(batch)"]]
            lines.append(json.dumps([api + ".stack_info", frames]))
            stacks[api] = ["File %s, line %s, in %s, \n %s" % tuple(f) for f in frames]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
        return [{"name": op, "leaves": expected[op],
                 "stack": stacks.get(op) or stacks.get(op.replace(".backward", ".forward"))} for op in order]

    base = PT / "ptdbg_dump_v6.0" / "step0"
    rows, nm = rows_for(".")
    oracle["ranks"]["ptdbg_dump_v6.0/step0/rank0"] = {
        "file": "ptdbg_dump_v6.0/step0/rank0/dump.pkl",
        "ops": write_pkl(base / "rank0" / "dump.pkl", rows, base / "rank0" / "dump", md5=True,
                         stack_for=["Functional.conv2d.0.forward", "Functional.relu.0.forward"])}
    # An overflow record: {api_type}_{api}_{n}_{dir}_{k}.pkl + same-name .npy directory.
    ov_rows = [("Functional_conv2d_1_backward_input.0", y.grad * 1e30), ("Functional_conv2d_1_backward_output.0", x.grad)]
    stem = "Functional_conv2d_1_backward_1"
    oracle["ranks"]["ptdbg_dump_v6.0/step0/rank0"]["overflow"] = {
        "file": "ptdbg_dump_v6.0/step0/rank0/" + stem + ".pkl", "relPathDir": "ptdbg_dump_v6.0/step0/rank0/" + stem,
        "ops": write_pkl(base / "rank0" / (stem + ".pkl"), ov_rows, base / "rank0" / stem)}
    rows_old, _ = rows_for("_")
    oracle["ranks"]["ptdbg_dump_v6.0/step0/rank1"] = {
        "file": "ptdbg_dump_v6.0/step0/rank1/api_stack_dump.pkl",
        "ops": write_pkl(base / "rank1" / "api_stack_dump.pkl", rows_old, None, three_stats=True)}

    # forward_info / backward_info (api_accuracy_checker), two concatenated objects each.
    def leaf(t, real=False):
        mx, mn = t.max().item(), t.min().item()
        d = {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape)}
        if real:
            d["datapath"] = "/home/user/run/forward_real_data_20240101/rank0/Functional.conv2d.0.forward.0.npy"
        else:
            d.update({"Max": mx if math.isfinite(mx) else 65504.0, "Min": mn if math.isfinite(mn) else -65504.0,
                      "Max_origin": mx, "Min_origin": mn})
        d["requires_grad"] = False
        return d
    big = torch.tensor([1.0, float("inf")], dtype=torch.float16)
    fwd1 = {"Functional_conv2d_0_forward": {"args": [leaf(x.detach(), real=True), scalar(1)], "kwargs": {"stride": scalar(1)}}}
    fwd2 = {"Tensor_mul_3_forward": {"args": [leaf(big)], "kwargs": {}}}
    (PT / "forward_info_4242.json").write_text(dumps(fwd1) + dumps(fwd2))
    bwd = {"Tensor_mul_3_backward": [leaf(big)]}
    (PT / "backward_info_4242.json").write_text(dumps(bwd))
    # stack_info_{pid}.json: api_accuracy_checker's forward call stacks, lines already formatted
    # ("File {path}, line {n}, in {func}, \n {code}"); backward APIs use their forward's stack.
    stack_info = {
        "Functional_conv2d_0_forward": ["File /home/user/model.py, line 17, in forward, \n x = F.conv2d(x, self.w, stride=1)",
                                        "File /home/user/train.py, line 88, in <module>, \n out = net(batch)"],
        "Tensor_mul_3_forward": ["File /home/user/model.py, line 23, in forward, \n y = x * scale"],
    }
    (PT / "stack_info_4242.json").write_text(json.dumps(stack_info, indent=4))
    info = {}
    for fname, objs, backward in (("forward_info_4242.json", [fwd1, fwd2], False), ("backward_info_4242.json", [bwd], True)):
        ops = []
        for obj in objs:
            for api, body in obj.items():
                fl = Flattener("")
                if backward:
                    fl.walk(body, "input", "input", top=True)
                else:
                    fl.walk(body["args"], "input", "input_args", top=True)
                    fl.walk(body["kwargs"], "input", "input_kwargs", top=True)
                ops.append({"name": api, "leaves": fl.leaves,
                            "stack": stack_info.get(api.replace("_backward", "_forward"))})
        info[fname] = ops
    oracle["info"] = info
    (PT / "expected.json").write_text(json.dumps(oracle, indent=1, allow_nan=False))


# ----------------------------------------------------------------------------

def main():
    if MS.exists():
        shutil.rmtree(MS)
    if MS_TRUNC.exists():
        shutil.rmtree(MS_TRUNC)
    oracle = {"ranks": {}}

    r0 = Rank("step0/rank0", "tensor", "mix", save_tensors=True)
    construct, parents = build_rank(r0, 1, "parameters_grad", corrupt_parent=True)
    write_debug(r0)
    stacks = write_rank(r0, construct, "old")
    oracle["ranks"][r0.rel] = rank_oracle(r0, stacks, "old", construct, parents)

    r1 = Rank("step0/rank1", "statistics", "mix", summary="md5")
    construct, parents = build_rank(r1, 2, "parameters_grad.0")
    stacks = write_rank(r1, construct, "new", megatron=True)
    oracle["ranks"][r1.rel] = rank_oracle(r1, stacks, "new", construct, parents)

    rn = Rank("step0/rank", "statistics", "L1")
    construct, parents = build_rank(rn, 3, "parameters_grad")
    stacks = write_rank(rn, construct, "old")
    oracle["ranks"][rn.rel] = rank_oracle(rn, stacks, "old", construct, parents)

    # Gen C: proc{pid}, xor checksums, no stack.json; only a few entries.
    rc = Rank("step0/proc2016", "statistics", "L1", summary="xor")
    m = run_model(4)
    e = "Functional.relu.0.forward"
    rc.data[e] = {"input_args": [rc.tensor(m["y"])], "input_kwargs": {}, "output": [rc.tensor(m["r"])]}
    e = "Functional.relu.0.backward"
    rc.data[e] = {"input": [rc.tensor(m["r"].grad)], "output": [rc.tensor(m["y"].grad)]}
    write_rank(rc, {}, None)
    oracle["ranks"][rc.rel] = rank_oracle(rc, {}, None, {}, {})

    # Truncated copy of rank0's dump.json, cut in the middle of an entry.
    text = (r0.dir / "dump.json").read_text()
    names = list(r0.data)
    cut_entry = names[9]
    start = text.index('"%s": {' % cut_entry)
    cut = start + len(cut_entry) + 200
    tdir = MS_TRUNC / "step0" / "rank0"
    tdir.mkdir(parents=True)
    (tdir / "dump.json").write_text(text[:cut])
    oracle["truncated"] = {"dir": "step0/rank0", "file": "step0/rank0/dump.json", "entry": cut_entry,
                           "salvaged": 9, "salvagedNames": names[:9]}

    (MS / "expected.json").write_text(json.dumps(oracle, indent=1, allow_nan=False))
    write_ptdbg()
    total = sum(p.stat().st_size for d in (MS, MS_TRUNC, PT) for p in d.rglob("*") if p.is_file())
    print("samples written: %d bytes" % total)


if __name__ == "__main__":
    main()
