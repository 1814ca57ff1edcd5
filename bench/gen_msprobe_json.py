#!/usr/bin/env python3
"""Write a large msprobe dump.json for bench_msprobe (not a sample: it goes to /tmp).

    python3 bench/gen_msprobe_json.py [OUT_DIR] [--entries N] [--no-nan] [--sidecars | --sidecars-only]

Default: /tmp/msprobe_bench/step0/rank0/dump.json with 1,000,000 entries (~500 MB),
statistics task, mix level, written the way msprobe writes it (json indent=1, bare
NaN / Infinity tokens). Entries cycle through realistic shapes: API forward entries with
a tensor argument, a scalar and kwargs; module forward entries with parameters;
backward entries; parameters_grad. About 1 % of the statistics are NaN or +-Infinity;
every 7th tensor carries an md5. Deterministic (fixed seed); no tensor files. --no-nan
writes finite statistics only (strict JSON), for the tokenizer comparison with nlohmann.
--sidecars also writes stack.json (new grouped format, 1,000 distinct 5-line stacks) and
construct.json (every forward/backward entry with a module parent); --sidecars-only writes
just those two next to an existing dump.json (the entry names do not depend on the seed).

    python3 bench/gen_msprobe_json.py --run OUT [--ranks 8] [--steps 1] [--mb 160] [--seed 1] [--md5]
                                      [--sidecars] [--diverge-pass K] [--jobs 2] [--check]

writes a whole run instead (OUT/step*/rank*/dump.json, each about --mb MB), shaped like a
Megatron mix-level dump and checked against the real msprobe 26 dumps' format; see
bench/gen_msprobe_run.py.
"""

import json
import random
import sys
from pathlib import Path

APIS = ["Functional.linear", "Tensor.add", "Torch.matmul", "Functional.gelu", "Tensor.mul", "NPU.npu_rms_norm",
        "Functional.dropout", "Tensor.view", "Torch.softmax", "Distributed.all_reduce"]
DTYPES = ["torch.float16", "torch.bfloat16", "torch.float32"]


NO_NAN = "--no-nan" in sys.argv


def stat(rng):
    r = rng.random()
    if NO_NAN:
        return rng.uniform(-8, 8)
    if r < 0.004:
        return float("nan")
    if r < 0.007:
        return float("inf")
    if r < 0.01:
        return float("-inf")
    return rng.uniform(-8, 8)


def tensor(rng, k):
    shape = rng.choice([[4096, 4096], [4096], [], [11008], [8, 4096]])
    leaf = {"type": "torch.Tensor", "dtype": rng.choice(DTYPES), "shape": shape,
            "Max": stat(rng), "Min": stat(rng), "Mean": stat(rng), "Norm": abs(stat(rng)),
            "requires_grad": rng.random() < 0.5}
    if k % 7 == 0:
        leaf["md5"] = "%08x" % rng.getrandbits(32)
    return leaf


def entry_names(n):
    fwd, bwd = {}, {}
    for i in range(n):
        kind = i % 10
        api = APIS[(i // 10) % len(APIS)]
        if kind < 6:
            c = fwd.get(api, 0)
            fwd[api] = c + 1
            yield i, "%s.%d.forward" % (api, c)
        elif kind < 9:
            c = bwd.get(api, 0)
            bwd[api] = c + 1
            yield i, "%s.%d.backward" % (api, c)
        else:
            yield i, "Module.layers.%d.mlp.Linear.parameters_grad" % (i // 10)


def write_sidecars(d, n):
    groups = {}
    construct = {}
    for i, name in entry_names(n):
        if name.endswith(".forward"):
            groups.setdefault((i // 10) % 1000, []).append(name)
            construct[name] = "Module.layers.%d.Block.forward.%d" % ((i // 10) % 32, i // 320)
        elif name.endswith(".backward"):
            construct[name] = "Module.layers.%d.Block.backward.%d" % ((i // 10) % 32, i // 320)
    stacks = {}
    for g, names in groups.items():
        lines = ["File /home/user/megatron/model.py, line %d, in forward, \n x = self.layer%d(x)" % (100 + k, g)
                 for k in range(4)] + ["File /home/user/pretrain.py, line 88, in <module>, \n loss = model(batch)"]
        stacks[str(len(stacks))] = [names, lines]
    (d / "stack.json").write_text(json.dumps(stacks, indent=1))
    (d / "construct.json").write_text(json.dumps(construct, indent=1))


def main():
    if "--run" in sys.argv:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import gen_msprobe_run
        gen_msprobe_run.main(sys.argv)
        return
    out = Path(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else Path("/tmp/msprobe_bench")
    n = 1_000_000
    if "--entries" in sys.argv:
        n = int(sys.argv[sys.argv.index("--entries") + 1])
    rng = random.Random(1234)
    d = out / "step0" / "rank0"
    d.mkdir(parents=True, exist_ok=True)
    if "--sidecars" in sys.argv or "--sidecars-only" in sys.argv:
        write_sidecars(d, n)
    if "--sidecars-only" in sys.argv:
        return
    with open(d / "dump.json", "w") as f:
        f.write('{\n "task": "statistics",\n "level": "mix",\n "framework": "pytorch",\n "dump_data_dir": null,\n "data": {')
        k = 0
        for i, name in entry_names(n):
            kind = i % 10
            if kind < 6:
                body = {"input_args": [tensor(rng, k), {"type": "int", "value": rng.randint(-1, 3)}],
                        "input_kwargs": {"alpha": {"type": "float", "value": 1.0}} if kind % 2 else {},
                        "output": [tensor(rng, k + 1)]}
                k += 2
            elif kind < 9:
                body = {"input": [tensor(rng, k)], "output": [tensor(rng, k + 1)] if kind < 8 else [None]}
                k += 2
            else:
                body = {"weight": [tensor(rng, k)], "bias": [tensor(rng, k + 1)]}
                k += 2
            text = json.dumps({name: body}, indent=1, allow_nan=True)
            # Re-indent the one-entry object as a member of "data" (indent 2).
            inner = text[2:-2].replace("\n", "\n ")
            f.write(("\n " if i == 0 else ",\n ") + inner)
        f.write("\n }\n}")
    print(d / "dump.json", (d / "dump.json").stat().st_size, "bytes,", n, "entries,", k, "tensors")


if __name__ == "__main__":
    main()
