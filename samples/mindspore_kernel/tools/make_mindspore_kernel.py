#!/usr/bin/env python3
"""Writes samples/mindspore_kernel: MindSpore kernel-level dumps (msprobe L2 / static graph
O0/O1, written by MindSpore's own E2E dump) rendered from a real torch run, and msprobe's own
MindSpore graph compare of them (the oracle).

MindSpore does not install here, so the trees are *renderings*: the numbers come from a real
torch run of a small MLP (Linear-ReLU-Linear, MSE loss, SGD), the layout follows MindSpore's
dump documentation (tutorials/source_en/debug/dump.md, "Introduction to Data Object Directory
and Data File") and MindSpore's writers as msprobe reads them
(python/msprobe/mindspore/compare/ms_graph_compare.py):

    rank_{id}/{net}/{graph_id}/{iteration}/statistic.csv            (saved_data "statistic")
    rank_{id}/{net}/{graph_id}/{iteration}/{op_type}.{op_name}.{task}.{stream}.{timestamp}
        .{input|output}.{slot}.{format}.{dtype}.npy                  (saved_data "tensor";
                                                                      bfloat16 saved as float32)
    rank_{id}/execution_order/ms_execution_order_graph_{graph_id}.csv (header
        NodeExecutionOrder-FullNameWithScope, then one full name per kernel: MindSpore's
        DumpGraphExeOrder)

statistic.csv: header `Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,
Shape,Max Value,Min Value,Avg Value,L2Norm Value` (the statistic_category msprobe configures:
max,min,avg,l2norm; kernel_kbyk_dump.py), shapes quoted `"(4,8)"`, one row per tensor with its
own timestamp, numbers printed like C++ streams (6 significant digits), rows ending in ','
(as in MindSpore's own test data, tests/st/dump). Kernel-by-kernel dumps have task id 0.

Both runs are float32 with the same weights and inputs; the NPU run computes its MatMul kernels
on bfloat16-rounded inputs (a reduced-precision matmul, as HF32/bf16 matmul modes do), the bench
in float32. msprobe's statistics compare skips every row whose dtypes differ, so both dump
float32. Two ranks (different inputs), two iterations (the weights after one SGD step).

Then msprobe's GraphMSComparator (the MindSpore graph compare, `msprobe compare` on two kernel
dump trees) is run on npu vs bench, in statistics mode and in npy mode, without MindSpore:
msprobe.mindspore/__init__ imports MindSpore, so the package is bypassed with an empty module
and the two helpers ms_graph_compare needs from msprobe.mindspore.common.utils
(convert_to_int, list_lowest_level_directories) are shimmed here with msprobe's own code
semantics. Its CSVs are copied into oracle/ with the absolute paths made relative.

    /usr/bin/python3 make_mindspore_kernel.py --msprobe /path/to/msprobe/checkout [--out DIR]
"""

import argparse
import csv
import glob
import io
import os
import shutil
import sys
import tempfile
import types

import numpy as np
import torch

NET = "Net"
GRAPH = "0"
BASE_TS = 1733905446819790


def g6(v):
    """A float as a C++ ostream prints it (precision 6)."""
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return "%g" % v


def run(low_precision_matmul, rank, steps=2):
    """The kernels of each iteration: [(op_type, full_name, inputs, outputs)], float32 tensors."""
    dtype = torch.float32

    def mm(a, b):
        if low_precision_matmul:
            return (a.to(torch.bfloat16) @ b.to(torch.bfloat16)).to(torch.float32)
        return a @ b

    torch.manual_seed(1234)
    fc1 = torch.nn.Linear(4, 8)
    fc2 = torch.nn.Linear(8, 2)
    gen = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(3, 4, generator=gen)
    y = torch.randn(3, 2, generator=gen)
    w1, b1 = fc1.weight.detach().clone().to(dtype), fc1.bias.detach().clone().to(dtype)
    w2, b2 = fc2.weight.detach().clone().to(dtype), fc2.bias.detach().clone().to(dtype)
    x, y = x.to(dtype), y.to(dtype)
    scope = "Default/network-WithLossCell/_backbone-Net"
    grad = "Gradients/Default/network-WithLossCell/_backbone-Net"
    iterations = []
    for _ in range(steps):
        k = []
        h = mm(x, w1.t())
        k.append(("MatMul", f"{scope}/fc1-Dense/MatMul-op12", [x, w1], [h]))
        hb = h + b1
        k.append(("BiasAdd", f"{scope}/fc1-Dense/BiasAdd-op13", [h, b1], [hb]))
        r = torch.relu(hb)
        k.append(("ReLU", f"{scope}/relu-ReLU/ReLU-op14", [hb], [r]))
        o = mm(r, w2.t())
        k.append(("MatMul", f"{scope}/fc2-Dense/MatMul-op15", [r, w2], [o]))
        ob = o + b2
        k.append(("BiasAdd", f"{scope}/fc2-Dense/BiasAdd-op16", [o, b2], [ob]))
        d = ob - y
        loss = (d * d).mean()
        k.append(("MSELoss", "Default/network-WithLossCell/_loss_fn-MSELoss/MSELoss-op17", [ob, y], [loss]))
        # backward (by hand, same arithmetic in `dtype`)
        g_ob = (2.0 / d.numel()) * d
        g_w2 = mm(g_ob.t(), r)
        k.append(("MatMul", f"{grad}/fc2-Dense/gradMatMul/MatMul-op30", [g_ob, r], [g_w2]))
        g_r = mm(g_ob, w2)
        k.append(("MatMul", f"{grad}/fc2-Dense/gradMatMul/MatMul-op31", [g_ob, w2], [g_r]))
        g_hb = g_r * (hb > 0).to(dtype)
        k.append(("ReluGrad", f"{grad}/relu-ReLU/gradReLU/ReluGrad-op32", [g_r, r], [g_hb]))
        g_w1 = mm(g_hb.t(), x)
        k.append(("MatMul", f"{grad}/fc1-Dense/gradMatMul/MatMul-op33", [g_hb, x], [g_w1]))
        iterations.append(k)
        lr = 0.1
        w1 = w1 - lr * g_w1
        w2 = w2 - lr * g_w2
        b1 = b1 - lr * g_hb.sum(0)
        b2 = b2 - lr * g_ob.sum(0)
    return iterations


def ms_dtype(t):
    return {torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float16: "float16"}[t.dtype]


def write_tree(root, low_precision_matmul, mode, ranks=(0, 1), steps=2):
    for rank in ranks:
        rank_dir = os.path.join(root, f"rank_{rank}")
        iterations = run(low_precision_matmul, rank, steps)
        order = os.path.join(rank_dir, "execution_order")
        os.makedirs(order, exist_ok=True)
        with open(os.path.join(order, f"ms_execution_order_graph_{GRAPH}.csv"), "w", newline="") as f:
            f.write("NodeExecutionOrder-FullNameWithScope\n")
            for _, full, _, _ in iterations[0]:
                f.write(full + "\n")
        for it, kernels in enumerate(iterations):
            d = os.path.join(rank_dir, NET, GRAPH, str(it))
            os.makedirs(d, exist_ok=True)
            ts = BASE_TS + 10_000_000 * it + 1_000_000 * rank
            rows = []
            for op_type, full, ins, outs in kernels:
                name = full.replace("/", "_")
                for io_name, tensors in (("input", ins), ("output", outs)):
                    for slot, t in enumerate(tensors):
                        ts += 137
                        a = t.detach().float().numpy()
                        if mode == "statistic":
                            shape = "\"(" + ",".join(str(s) for s in t.shape) + ")\""
                            rows.append(",".join([op_type, name, "0", "0", str(ts), io_name, str(slot),
                                                  str(t.numel() * t.element_size()), ms_dtype(t), shape,
                                                  g6(a.max()), g6(a.min()), g6(a.mean()),
                                                  g6(np.linalg.norm(a.astype(np.float64)))]) + ",")
                        else:
                            fname = f"{op_type}.{name}.0.0.{ts}.{io_name}.{slot}.DefaultFormat.{ms_dtype(t)}.npy"
                            # bfloat16 is saved as float32 (dump.md: "dtype: the original data type")
                            np.save(os.path.join(d, fname), a if t.dtype == torch.bfloat16 else t.detach().numpy())
            if mode == "statistic":
                with open(os.path.join(d, "statistic.csv"), "w", newline="") as f:
                    f.write("Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,"
                            "Max Value,Min Value,Avg Value,L2Norm Value\n")
                    for r in rows:
                        f.write(r + "\n")


def write_bad(root):
    """Bad input: each folder breaks one thing; the rest of each file must still load."""
    head = ("Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,"
            "Max Value,Min Value,Avg Value,L2Norm Value\n")
    good = 'ReLU,Default_relu-ReLU_ReLU-op1,0,0,1733905446819790,input,0,12,float32,"(3)",2,-1,0.5,3,\n'
    good2 = 'ReLU,Default_relu-ReLU_ReLU-op1,0,0,1733905446819800,output,0,12,float32,"(3)",2,0,1,2.5,\n'
    cases = {
        "missing_columns": "Op Type,Op Name,Task ID,IO,Slot,Data Type,Max Value\nReLU,x,0,input,0,float32,1\n",
        "short_row": head + good + "ReLU,Default_relu-ReLU_ReLU-op1,0,0,1733905446819795,output\n" + good2,
        "non_numeric": head + good
                       + 'ReLU,Default_relu-ReLU_ReLU-op1,0,0,1733905446819800,output,0,12,float32,"(3)",big,0,1,2.5,\n'
                       + 'Add,Default_Add-op2,zero,0,1733905446819900,input,0,12,float32,"(3)",1,1,1,1,\n',
        "header_only": head,
    }
    for case, text in cases.items():
        d = os.path.join(root, case, "rank_0", NET, GRAPH, "0")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "statistic.csv"), "w", newline="") as f:
            f.write(text)
    d = os.path.join(root, "bad_npy_name", "rank_0", NET, GRAPH, "0")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "ReLU.Default_ReLU-op1.0.0.1733905446819790.input.0.DefaultFormat.float32.npy"),
            np.array([1.0, -2.0], dtype=np.float32))
    np.save(os.path.join(d, "not_a_kernel_name.npy"), np.array([3.0], dtype=np.float32))


def shim_msprobe_mindspore(msprobe_python):
    """Lets msprobe.mindspore.compare.ms_graph_compare import without MindSpore."""
    sys.path.insert(0, msprobe_python)
    import msprobe  # noqa: F401  (the real package)
    pkg = types.ModuleType("msprobe.mindspore")
    pkg.__path__ = [os.path.join(msprobe_python, "msprobe", "mindspore")]
    sys.modules["msprobe.mindspore"] = pkg
    common = types.ModuleType("msprobe.mindspore.common")
    common.__path__ = [os.path.join(msprobe_python, "msprobe", "mindspore", "common")]
    sys.modules["msprobe.mindspore.common"] = common
    utils = types.ModuleType("msprobe.mindspore.common.utils")

    # The two helpers, as msprobe.mindspore.common.utils defines them (that module imports
    # MindSpore at its top).
    def convert_to_int(value):
        try:
            return int(value)
        except Exception:
            return -1

    def list_lowest_level_directories(root_dir):
        lowest = []
        for dirpath, dirnames, _ in os.walk(root_dir):
            if not dirnames:
                lowest.append(dirpath)
        return lowest

    utils.convert_to_int = convert_to_int
    utils.list_lowest_level_directories = list_lowest_level_directories
    sys.modules["msprobe.mindspore.common.utils"] = utils
    from msprobe.mindspore.compare.ms_graph_compare import GraphMSComparator
    return GraphMSComparator


def run_oracle(GraphMSComparator, npu, bench, out_dir, name, root):
    tmp = tempfile.mkdtemp()
    args = argparse.Namespace(target_path=npu, golden_path=bench, output_path=tmp, xlsx=False, rank=None, step=None)
    GraphMSComparator(args).compare_core()
    os.makedirs(out_dir, exist_ok=True)
    for f in sorted(glob.glob(os.path.join(tmp, "compare_result_*.csv"))):
        rank_step = "_".join(os.path.basename(f).split("_")[2:4])
        with open(f, newline="") as src:
            text = src.read().replace(os.path.abspath(root) + os.sep, "")
        with open(os.path.join(out_dir, f"{name}_compare_result_{rank_step}.csv"), "w", newline="") as dst:
            dst.write(text)
    shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--msprobe", required=True, help="msprobe checkout (the repository root)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    for sub in ("statistic", "tensor", "bad", "oracle"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    write_tree(os.path.join(out, "statistic", "npu"), True, "statistic")
    write_tree(os.path.join(out, "statistic", "bench"), False, "statistic")
    write_tree(os.path.join(out, "tensor", "npu"), True, "tensor", ranks=(0,), steps=1)
    write_tree(os.path.join(out, "tensor", "bench"), False, "tensor", ranks=(0,), steps=1)
    write_bad(os.path.join(out, "bad"))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    comparator = shim_msprobe_mindspore(os.path.join(a.msprobe, "python"))
    for mode in ("statistic", "tensor"):
        run_oracle(comparator, os.path.join(out, mode, "npu"), os.path.join(out, mode, "bench"),
                   os.path.join(out, "oracle"), mode, out)


if __name__ == "__main__":
    main()
