#!/usr/bin/python3
"""Generate the graph-compare sample under samples/graph_compare/: an msprobe NPU run and its
bench run of the same small network, for the Graph tab's side-by-side view.

Run with the Debian interpreter (torch lives there); deterministic:

    /usr/bin/python3 samples/generate_graph_compare.py

A real torch network (a stem, two stages of two residual blocks, a head with GELU) runs
forward and backward once per side.  Hooks record the entries the way msprobe's mix level
does (shared/specs/msprobe.md §3, §5): module entries `Module.{path}.{Class}.{forward|backward}.{n}`
from forward pre-/post-hooks and full backward hooks, API entries
`{Functional|Torch|Tensor}.{api}.{n}.{forward|backward}` from wrappers of the torch functions
the modules call (backward entries from gradient hooks on the API's output and inputs),
`parameters_grad` entries after the backward, construct.json child -> parent.  Statistics mode:
Max/Min/Mean/Norm computed by torch, no tensor files.

The two sides differ on purpose:
  - the NPU side runs its GELU as a fused custom operator named `NPU.npu_fast_gelu` (the bench:
    `Functional.gelu`): one unmatched entry on each side, to pair by hand;
  - the NPU side's `stage2.1.conv2` weights are tripled: its outputs are the first to disagree.

Written: samples/graph_compare/{npu,bench}/step0/rank0/{dump.json, construct.json} and
samples/graph_compare/expected.json (entry counts, the unmatched names, the perturbed module).
"""

import json
import shutil
import sys
import os
from pathlib import Path

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = Path(os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE) / "graph_compare"
PERTURBED = "stage2.1.conv2"


def num(v):
    return v if isinstance(v, (bool, int)) else float(v)


def leaf(t):
    if not isinstance(t, torch.Tensor):
        if t is None:
            return None
        return {"type": type(t).__name__, "value": t}
    t = t.detach()
    f = t.float()
    return {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape),
            "Max": num(f.max().item()), "Min": num(f.min().item()), "Mean": num(f.mean().item()),
            "Norm": num(torch.linalg.norm(f.flatten()).item()), "requires_grad": bool(t.requires_grad)}


class Block(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(c)
        self.conv2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(c)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + x)


class Head(torch.nn.Module):
    def __init__(self, c, npu):
        super().__init__()
        self.fc1 = torch.nn.Linear(c, 16)
        self.fc2 = torch.nn.Linear(16, 10)
        self.npu = npu

    def forward(self, x):
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        h = self.fc1(x)
        h = npu_fast_gelu(h) if self.npu else F.gelu(h)
        return self.fc2(h)


class Net(torch.nn.Module):
    def __init__(self, npu):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.stage1 = torch.nn.Sequential(Block(8), Block(8))
        self.stage2 = torch.nn.Sequential(Block(8), Block(8))
        self.head = Head(8, npu)

    def forward(self, x):
        return self.head(self.stage2(self.stage1(F.relu(self.stem(x)))))


class Recorder:
    """msprobe's mix-level hooks, reduced to what the files need."""

    def __init__(self):
        self.data = {}       # entry -> body, in insertion (execution) order
        self.construct = {}  # entry -> parent entry or None
        self.stack = []      # module entries being run (forward)
        self.counts = {}
        self.busy = False

    def count(self, key):
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        return n

    def parent(self):
        return self.stack[-1] if self.stack else None

    # --- APIs ---------------------------------------------------------------
    def api(self, prefix, name, fn):
        rec = self

        def wrapper(*args, **kwargs):
            if rec.busy:
                return fn(*args, **kwargs)
            entry = f"{prefix}.{name}.{rec.count(prefix + '.' + name)}.forward"
            parent = rec.parent()
            rec.construct[entry] = parent
            body = rec.data.setdefault(entry, {})
            rec.busy = True
            try:
                out = fn(*args, **kwargs)
            finally:
                rec.busy = False
            body["input_args"] = [leaf(a) for a in args]
            body["input_kwargs"] = {k: leaf(v) for k, v in kwargs.items()}
            body["output"] = [leaf(out)]
            if isinstance(out, torch.Tensor) and out.requires_grad:
                back = entry.replace(".forward", ".backward")
                twin = parent.replace(".forward.", ".backward.") if parent else None

                def on_grad_out(g, back=back, twin=twin):
                    rec.construct[back] = twin
                    rec.data.setdefault(back, {})["input"] = [leaf(g)]
                    rec.data[back].setdefault("output", [])
                out.register_hook(on_grad_out)
                for a in args:
                    if isinstance(a, torch.Tensor) and a.requires_grad and not a.is_leaf:
                        a.register_hook(lambda g, back=back: rec.data.setdefault(back, {}).setdefault("output", []).append(leaf(g)))
            return out
        return wrapper

    # --- modules ------------------------------------------------------------
    def attach(self, net):
        for path, module in net.named_modules():
            if not path:
                continue
            cls = type(module).__name__

            def pre(mod, inputs, path=path, cls=cls):
                entry = f"Module.{path}.{cls}.forward.{self.count('f:' + path)}"
                self.construct[entry] = self.parent()
                self.data.setdefault(entry, {})["input_args"] = [leaf(i) for i in inputs]
                self.stack.append(entry)

            def post(mod, inputs, output, path=path):
                entry = self.stack.pop()
                body = self.data[entry]
                body["input_kwargs"] = {}
                body["output"] = [leaf(output)]
                params = {k: leaf(p) for k, p in mod.named_parameters(recurse=False)}
                if params:
                    body["parameters"] = params

            def back(mod, grad_input, grad_output, path=path, cls=cls):
                n = self.count('b:' + path)
                entry = f"Module.{path}.{cls}.backward.{n}"
                # Backward calls run in reverse: the twin of forward call (calls - 1 - n).
                calls = self.counts.get('f:' + path, 1)
                parent_fwd = self.construct.get(f"Module.{path}.{cls}.forward.{calls - 1 - n}")
                self.construct[entry] = parent_fwd.replace(".forward.", ".backward.") if parent_fwd else None
                self.data[entry] = {"input": [leaf(g) for g in grad_output], "output": [leaf(g) for g in grad_input]}

            module.register_forward_pre_hook(pre)
            module.register_forward_hook(post)
            module.register_full_backward_hook(back)

    def parameter_grads(self, net):
        for path, module in net.named_modules():
            params = {k: p for k, p in module.named_parameters(recurse=False) if p.grad is not None}
            if path and params:
                entry = f"Module.{path}.{type(module).__name__}.parameters_grad"
                self.data[entry] = {k: [leaf(p.grad)] for k, p in params.items()}


def npu_fast_gelu(x):
    return recorder_npu_gelu(x)


recorder_npu_gelu = None


def run(side):
    global recorder_npu_gelu
    torch.manual_seed(20261201)
    npu = side == "npu"
    net = Net(npu)
    net.train()
    x = torch.randn(2, 3, 8, 8)
    if npu:
        with torch.no_grad():
            w = dict(net.named_modules())[PERTURBED].weight
            w.mul_(3.0)
    rec = Recorder()
    rec.attach(net)
    patched = {}
    for prefix, owner, names in (("Functional", F, ["conv2d", "batch_norm", "relu", "adaptive_avg_pool2d", "linear", "gelu"]),
                                 ("Torch", torch, ["flatten"])):
        for name in names:
            patched[(owner, name)] = getattr(owner, name)
            setattr(owner, name, rec.api(prefix, name, getattr(owner, name)))
    add = torch.Tensor.__add__
    torch.Tensor.__add__ = rec.api("Tensor", "__add__", add)
    recorder_npu_gelu = rec.api("NPU", "npu_fast_gelu", lambda t: F.gelu(t, approximate="tanh"))
    try:
        out = net(x)
        out.square().mean().backward()
    finally:
        for (owner, name), fn in patched.items():
            setattr(owner, name, fn)
        torch.Tensor.__add__ = add
    rec.parameter_grads(net)
    d = ROOT / side / "step0" / "rank0"
    d.mkdir(parents=True)
    dump = {"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": rec.data}
    (d / "dump.json").write_text(json.dumps(dump, separators=(",", ":"), allow_nan=True))
    (d / "construct.json").write_text(json.dumps(rec.construct, separators=(",", ":")))
    return rec


def main():
    if ROOT.exists():
        shutil.rmtree(ROOT)
    sides = {s: run(s) for s in ("npu", "bench")}
    npu, bench = set(sides["npu"].data), set(sides["bench"].data)
    expected = {
        "entries": {s: len(r.data) for s, r in sides.items()},
        "npu_only": sorted(npu - bench),
        "bench_only": sorted(bench - npu),
        "perturbed_module": f"Module.{PERTURBED}.Conv2d.forward.0",
    }
    (ROOT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(json.dumps(expected))
    return 0


if __name__ == "__main__":
    sys.exit(main())
