#!/usr/bin/env python3
"""Write a whole msprobe run (step*/rank*/dump.json) shaped like a Megatron mix-level dump.

    python3 bench/gen_msprobe_json.py --run OUT [--ranks 8] [--steps 1] [--mb 160] [--seed 1]
                                      [--md5] [--sidecars] [--diverge-pass K] [--no-nan] [--jobs 2]

Used by gen_msprobe_json.py --run (see there); this module does the work. Each rank's dump.json
is written exactly the way msprobe 26 writes it (`json.dump(data, indent=1)`, bare NaN /
Infinity / -Infinity), which `--check` verifies on a small run by re-encoding the file with
Python's json module. Entries follow what the real msprobe 26 wrote for the models in
samples/msprobe_real/dumps (same leaf kinds, key order and entry-name grammar), scaled up to a
transformer: per layer and micro-batch, module entries (RMSNorm, Column/RowParallelLinear,
TransformerLayer) with their parameters after the API calls inside them (npu_rms_norm,
linear, view, split, npu_rotary_mul, npu_fusion_attention with its int/float/str/None
arguments and kwargs, npu_swiglu, all_reduce with a ProcessGroup, __add__), then the backward
entries in reverse order with parameters_grad.{k}. Statistics are float32 values (as msprobe
computes them), about 0.1 % non-finite (none with `--no-nan`: strict JSON, for parsers
that reject NaN); `--md5` adds a CRC-32 to every tensor leaf.

The files do not depend on the machine: one numpy generator per (seed, step, rank).
`--diverge-pass K` writes a "bench" run: identical to the same seed's run up to the K-th
layer pass of every rank, with statistics scaled by 1.001 from there on (for compare).
"""

import json
import sys
import zlib
from multiprocessing import Pool
from pathlib import Path

import numpy as np

S, B, H, HEADS, FFN, TP = 4096, 1, 4096, 32, 11008, 1
LAYERS = 32


class T:
    """A tensor leaf placeholder."""

    def __init__(self, shape, dtype="torch.bfloat16", rg=False):
        self.shape, self.dtype, self.rg = list(shape), dtype, rg


def I(v):
    return {"type": "int", "value": v}


def F(v):
    return {"type": "float", "value": v}


def Str(v):
    return {"type": "str", "value": v}


def Bool(v):
    return {"type": "bool", "value": v}


def process_group(ranks):
    return {"type": "torch.ProcessGroup", "group_ranks": list(range(ranks)),
            "group_id": "%08x" % (zlib.crc32(str(list(range(ranks))).encode()) & 0xffffffff)}


HID = [S, B, H]


def layer_forward(ranks):
    """(kind, name pattern, body) of one layer's forward entries, in dump order. Module names
    use {L} for the layer; APIs are numbered per name by the writer."""
    pg = process_group(ranks)
    norm = lambda sub: [
        ("api", "NPU.npu_rms_norm", {"input_args": [T(HID, rg=True), T([H], rg=True)], "input_kwargs": {"epsilon": F(1e-05)},
                                     "output": [T(HID, rg=True), T([S, B, 1], "torch.float32")]}),
        ("module", "Module.module.module.decoder.layers.{L}.%s.RMSNorm" % sub,
         {"input_args": [T(HID, rg=True)], "input_kwargs": {}, "output": [T(HID, rg=True)], "parameters": {"weight": T([H], rg=True)}}),
    ]
    linear = lambda sub, cls, n_out, n_in: [
        ("api", "Functional.linear", {"input_args": [T([S, B, n_in], rg=True), T([n_out, n_in], rg=True), None], "input_kwargs": {},
                                      "output": [T([S, B, n_out], rg=True)]}),
    ] + ([("api", "Distributed.all_reduce", {"input_args": [T([S, B, n_out])], "input_kwargs": {"group": pg, "async_op": Bool(False)},
                                              "output": [T([S, B, n_out]), pg, Bool(False)]})] if cls == "RowParallelLinear" else []) + [
        ("module", "Module.module.module.decoder.layers.{L}.%s.%s" % (sub, cls),
         {"input_args": [T([S, B, n_in], rg=True)], "input_kwargs": {}, "output": [T([S, B, n_out], rg=True), None],
          "parameters": {"weight": T([n_out, n_in], rg=True)}}),
    ]
    qkv = [S, B, 3 * H]
    attn = [
        ("api", "Tensor.view", {"input_args": [T(qkv, rg=True), I(S), I(B), I(HEADS), I(3 * H // HEADS)], "input_kwargs": {},
                                "output": [T([S, B, HEADS, 3 * H // HEADS], rg=True)]}),
        ("api", "Torch.split", {"input_args": [T([S, B, HEADS, 3 * H // HEADS], rg=True), [I(128), I(128), I(128)]],
                                "input_kwargs": {"dim": I(3)}, "output": [T([S, B, HEADS, 128], rg=True)] * 3}),
        ("api", "NPU.npu_rotary_mul", {"input_args": [T([S, B, HEADS, 128], rg=True), T([S, 1, 1, 128]), T([S, 1, 1, 128])],
                                       "input_kwargs": {}, "output": [T([S, B, HEADS, 128], rg=True)]}),
        ("api", "NPU.npu_rotary_mul", {"input_args": [T([S, B, HEADS, 128], rg=True), T([S, 1, 1, 128]), T([S, 1, 1, 128])],
                                       "input_kwargs": {}, "output": [T([S, B, HEADS, 128], rg=True)]}),
        ("api", "NPU.npu_fusion_attention",
         {"input_args": [T(HID, rg=True), T(HID, rg=True), T(HID, rg=True), I(HEADS), Str("SBH")],
          "input_kwargs": {"pse": None, "padding_mask": None, "atten_mask": T([S, S], "torch.bool"), "scale": F(0.08838834764831845),
                           "keep_prob": F(1.0), "pre_tockens": I(65536), "next_tockens": I(0), "inner_precise": I(0), "sparse_mode": I(0)},
          "output": [T(HID, rg=True), T([B, HEADS, S, 8], "torch.float32"), T([B, HEADS, S, 8], "torch.float32"), T([0]), I(0), I(0), I(0)]}),
    ]
    add = ("api", "Tensor.__add__", {"input_args": [T(HID, rg=True), T(HID, rg=True)], "input_kwargs": {}, "output": [T(HID, rg=True)]})
    mlp = [("api", "NPU.npu_swiglu", {"input_args": [T([S, B, 2 * FFN], rg=True)], "input_kwargs": {"dim": I(-1)},
                                      "output": [T([S, B, FFN], rg=True)]})]
    layer = ("module", "Module.module.module.decoder.layers.{L}.TransformerLayer",
             {"input_args": [T(HID, rg=True)], "input_kwargs": {"attention_mask": T([1, 1, S, S], "torch.bool"),
                                                                 "rotary_pos_emb": T([S, 1, 1, 128], "torch.float32")},
              "output": [T(HID, rg=True), None]})
    return (norm("input_layernorm") + linear("self_attention.linear_qkv", "ColumnParallelLinear", 3 * H, H) + attn
            + linear("self_attention.linear_proj", "RowParallelLinear", H, H) + [add] + norm("pre_mlp_layernorm")
            + linear("mlp.linear_fc1", "ColumnParallelLinear", 2 * FFN, H) + mlp
            + linear("mlp.linear_fc2", "RowParallelLinear", H, FFN) + [add, layer])


def tensors_of(x):
    if isinstance(x, T):
        return [x]
    if isinstance(x, list):
        return [t for e in x for t in tensors_of(e)]
    if isinstance(x, dict):
        return [t for e in x.values() for t in tensors_of(e)]
    return []


def grad(t):
    return T(t.shape, t.dtype if t.dtype != "torch.bool" else "torch.float32")


def layer_backward(fwd):
    """Backward entries (reverse order): input = gradients of the outputs, output = gradients of
    the inputs; modules with parameters add parameters_grad.{k}."""
    out = []
    for kind, name, body in reversed(fwd):
        outs = [grad(t) for t in tensors_of(body["output"]) if t.rg]
        ins = [grad(t) for t in tensors_of(body["input_args"]) if t.rg]
        out.append((kind, name, {"input": outs or [None], "output": ins}))
        if kind == "module" and "parameters" in body:
            out.append(("pgrad", name, {k: [T(v.shape)] for k, v in body["parameters"].items()}))
    return out


class Template:
    """One entry as a str.format template: slot 0 = entry name, then 4 statistics (and an
    md5) per tensor leaf, in file order."""

    def __init__(self, body, md5):
        self.tensors = 0
        self.md5 = md5

        def conv(x):
            if isinstance(x, T):
                leaf = {"type": "torch.Tensor", "dtype": x.dtype, "shape": x.shape}
                base = 1 + self.tensors * (5 if md5 else 4)
                for k, key in enumerate(("Max", "Min", "Mean", "Norm")):
                    leaf[key] = "@@N%d@@" % (base + k)
                leaf["requires_grad"] = x.rg
                if md5:
                    leaf["md5"] = "@@S%d@@" % (base + 4)
                self.tensors += 1
                return leaf
            if isinstance(x, list):
                return [conv(e) for e in x]
            if isinstance(x, dict) and "type" not in x:
                return {k: conv(v) for k, v in x.items()}
            return x

        text = json.dumps({"@@S0@@": conv(body)}, indent=1)
        inner = text[2:-2].replace("\n", "\n ")  # a member of "data" (one more level)
        inner = inner.replace("{", "{{").replace("}", "}}")
        import re
        inner = re.sub(r'"@@N(\d+)@@"', r"{\1}", inner)
        self.text = re.sub(r'"@@S(\d+)@@"', r'"{\1}"', inner)


def fmt_float(v):
    if v != v:
        return "NaN"
    if v == float("inf"):
        return "Infinity"
    if v == float("-inf"):
        return "-Infinity"
    return repr(v)


def write_rank(args):
    out, step, rank, ranks, mb, seed, md5, sidecars, diverge, no_nan = args
    rng = np.random.default_rng([seed, step, rank])
    fwd = layer_forward(ranks)
    bwd = layer_backward(fwd)
    tf = [(k, n, Template(b, md5)) for k, n, b in fwd]
    tb = [(k, n, Template(b, md5)) for k, n, b in bwd]
    d = Path(out) / ("step%d" % step) / ("rank%d" % rank)
    d.mkdir(parents=True, exist_ok=True)
    limit = int(mb * 1e6)
    api_fwd, api_bwd, mod_calls, pgrad_calls = {}, {}, {}, {}
    names, parents = [], {}
    written = 0
    passes = 0
    with open(d / "dump.json", "w") as f:
        head = '{\n "task": "statistics",\n "level": "mix",\n "framework": "pytorch",\n "dump_data_dir": null,\n "data": {'
        f.write(head)
        written += len(head)
        first = True
        micro = 0
        while written < limit:
            for phase, seq, layers in (("forward", tf, range(LAYERS)), ("backward", tb, reversed(range(LAYERS)))):
                for layer in layers:
                    perturb = diverge is not None and passes >= diverge
                    passes += 1
                    n_slots = sum(t.tensors for _, _, t in seq) * 4
                    v = rng.standard_normal(n_slots).astype(np.float32)
                    v = v.reshape(-1, 4)
                    v[:, 0] = np.abs(v[:, 0]) * 4
                    v[:, 1] = -np.abs(v[:, 1]) * 4
                    v[:, 2] *= np.float32(0.01)
                    v[:, 3] = np.abs(v[:, 3]) * 300
                    bad = rng.random(v.shape) < (0.0 if no_nan else 0.00025)
                    if bad.any():
                        v[bad] = rng.choice(np.array([np.nan, np.inf, -np.inf], np.float32), int(bad.sum()))
                    if perturb:
                        v = (v * np.float32(1.001)).astype(np.float32)
                    vals = [fmt_float(x) for x in v.astype(np.float64).ravel().tolist()]
                    sums = rng.integers(0, 2**32, size=n_slots // 4).tolist() if md5 else None
                    pos = 0
                    for kind, pattern, tpl in seq:
                        base = pattern.replace("{L}", str(layer))
                        if kind == "api":
                            counters = api_fwd if phase == "forward" else api_bwd
                            c = counters.get(base, 0)
                            counters[base] = c + 1
                            name = "%s.%d.%s" % (base, c, phase)
                        elif kind == "module":
                            c = mod_calls.get((base, phase), 0)
                            mod_calls[(base, phase)] = c + 1
                            name = "%s.%s.%d" % (base, phase, c)
                        else:
                            c = pgrad_calls.get(base, 0)
                            pgrad_calls[base] = c + 1
                            name = "%s.parameters_grad.%d" % (base, c)
                        slots = [name]
                        for t in range(tpl.tensors):
                            slots += vals[pos:pos + 4]
                            if md5:
                                slots.append("%08x" % sums[pos // 4])
                            pos += 4
                        text = tpl.text.format(*slots)
                        f.write(("\n " if first else ",\n ") + text)
                        written += len(text) + 3
                        first = False
                        if sidecars:
                            names.append(name)
                            if kind == "api":
                                parents[name] = "Module.module.module.decoder.layers.%d.TransformerLayer.%s.%d" % (
                                    layer, phase, mod_calls.get(("Module.module.module.decoder.layers.%d.TransformerLayer" % layer, phase), 0))
                            elif kind == "module" and not base.endswith("TransformerLayer"):
                                parents[name] = "Module.module.module.decoder.layers.%d.TransformerLayer.%s.%d" % (
                                    layer, phase, mod_calls.get(("Module.module.module.decoder.layers.%d.TransformerLayer" % layer, phase), 0))
                            elif kind == "module":
                                parents[name] = None
            micro += 1
        f.write("\n }\n}")
    if sidecars:
        groups = {}
        for i, name in enumerate(names):
            if ".forward" in name:
                groups.setdefault(hash(name.split(".forward")[0].rsplit(".", 1)[0]) % 997, []).append(name)
        stacks = {}
        for g, members in sorted(groups.items()):
            lines = ["File /home/user/megatron/core/transformer/layer.py, line %d, in forward, \n x = self.op%d(x)" % (100 + k, g)
                     for k in range(4)] + ["File /home/user/pretrain_gpt.py, line 88, in <module>, \n loss = model(batch)"]
            stacks[str(len(stacks))] = [members, lines]
        (d / "stack.json").write_text(json.dumps(stacks, indent=1))
        (d / "construct.json").write_text(json.dumps(parents, indent=1))
    return str(d / "dump.json"), (d / "dump.json").stat().st_size


def main(argv):
    def opt(name, default, conv=int):
        return conv(argv[argv.index(name) + 1]) if name in argv else default

    out = opt("--run", "/tmp/msprobe_run", str)
    ranks, steps, mb = opt("--ranks", 8), opt("--steps", 1), opt("--mb", 160.0, float)
    seed, jobs = opt("--seed", 1), opt("--jobs", 2)
    diverge = opt("--diverge-pass", None)
    md5, sidecars, no_nan = "--md5" in argv, "--sidecars" in argv, "--no-nan" in argv
    work = [(out, s, r, ranks, mb, seed, md5, sidecars, diverge, no_nan) for s in range(steps) for r in range(ranks)]
    with Pool(jobs) as pool:
        for path, size in pool.imap(write_rank, work):
            print(path, size, "bytes", flush=True)
    if "--check" in argv:
        for s in range(steps):
            for r in range(ranks):
                p = Path(out) / ("step%d" % s) / ("rank%d" % r) / "dump.json"
                text = p.read_text()
                assert json.dumps(json.loads(text), indent=1) == text, p
        print("check: every dump.json is byte for byte json.dumps(json.load(f), indent=1)")


if __name__ == "__main__":
    main(sys.argv)
