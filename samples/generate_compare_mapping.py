#!/usr/bin/env python3
"""Generate the user-mapping compare pair under samples/compare_mapping/.

    python3 samples/generate_compare_mapping.py

A tiny model run twice and written as two CANN model dumps (the encoder of
generate_samples.py), where the operator names differ so that only a user mapping pairs
them:

* compare_mapping/bench (float32): embed/MatMul, ffn/Gelu, head/MatMul, head/BiasAdd,
  head/Softmax;
* compare_mapping/npu (float16): embed/MatMul, npu_gelu_fast (= ffn/Gelu under another
  name), fused/MatMulAdd (head/MatMul and head/BiasAdd fused into one operator, its output
  perturbed), head/Softmax.

Without a mapping npu_gelu_fast and fused/MatMulAdd are unmatched and the bench keeps three
unmatched operators. The mapping {"npu_gelu_fast": "ffn/Gelu"} plus the group
[fused/MatMulAdd] -> [head/MatMul, head/BiasAdd] pairs them: the group's first inputs with
head/MatMul's inputs, its output with head/BiasAdd's output, its bias input has no
counterpart (FUSED_AWAY). fused/MatMulAdd then is the first divergence.

compare_mapping/mapping.json is that mapping as a user mapping file (dumpscope-cli compare
--mapping, the GUI's Load mapping…). compare_mapping/expected.json holds the numpy expectations (tests/oracle/compare_numpy.py)
for both situations, computed from the arrays as written, independently of the C++ code.
"""

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "oracle"))
import compare_numpy as ref  # noqa: E402
import generate_samples as gs  # noqa: E402

# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = Path(os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE)
OUT = ROOT / "compare_mapping"
MAPPING = {"map": {"npu_gelu_fast": "ffn/Gelu"},
           "groups": [{"npu": ["fused/MatMulAdd"], "bench": ["head/MatMul", "head/BiasAdd"]}]}


def gelu(v):
    return 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))


def softmax(v):
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def models():
    rng = np.random.default_rng(77)
    x = rng.standard_normal((4, 32)).astype(np.float32)
    w1 = (rng.standard_normal((32, 32)) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((32, 16)) * 0.3).astype(np.float32)
    b2 = (rng.standard_normal(16) * 0.1).astype(np.float32)
    f32 = lambda a: np.asarray(a, np.float32)  # noqa: E731
    h = f32(x @ w1)
    g = f32(gelu(h))
    m = f32(g @ w2)
    y = f32(m + b2)
    noise = np.random.default_rng(5).standard_normal(y.shape).astype(np.float32)
    y_npu = f32(y + noise * y.std())
    bench = [("MatMulV2", "embed/MatMul", [x, w1], [h]),
             ("Gelu", "ffn/Gelu", [h], [g]),
             ("MatMulV2", "head/MatMul", [g, w2], [m]),
             ("Add", "head/BiasAdd", [m, b2], [y]),
             ("SoftmaxV2", "head/Softmax", [y], [f32(softmax(y))])]
    npu = [("MatMulV2", "embed/MatMul", [x, w1], [h]),
           ("FastGelu", "npu_gelu_fast", [h], [g]),
           ("FusedMatMulAdd", "fused/MatMulAdd", [g, w2, b2], [y_npu]),
           ("SoftmaxV2", "head/Softmax", [y_npu], [f32(softmax(y_npu))])]
    return npu, bench


def write_run(root, time_dir, ops, dtype, base_ts):
    d = f"{time_dir}/0/ge_default_{time_dir}_1/1/0"
    conv = gs.f16 if dtype == "float16" else (lambda a: a)
    written = []
    for k, (op_type, name, ins, outs) in enumerate(ops):
        op = gs.Op(op_type, name, 10 + k, 1, base_ts + k, [gs.nd_tensor(conv(a), dtype) for a in ins],
                   [gs.nd_tensor(conv(a), dtype) for a in outs])
        path = root / d / op.file_name()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gs.encode_big_dump(op))
        written.append((name, [t.nd for t in op.inputs], [t.nd for t in op.outputs]))
    return written


def expected_rows(npu, pairs):
    """pairs: npu row name -> (bench row name, bench array) for the matched rows."""
    rows, by_op = [], []
    for name, ins, outs in npu:
        op_rows = []
        for io, arrays in (("input", ins), ("output", outs)):
            for i, a in enumerate(arrays):
                row = {"npu_name": f"{name}.{io}.{i}", "io": io}
                if row["npu_name"] in pairs:
                    bench_name, b = pairs[row["npu_name"]]
                    m = ref.metrics(a.astype(np.float64), b.astype(np.float64), eps=ref.gen_c_eps(str(a.dtype), str(b.dtype)))
                    row.update(bench_name=bench_name, metrics=m, verdict=ref.verdict(m))
                else:
                    row.update(bench_name=None, verdict="none")
                op_rows.append(row)
        ins_rows = [r for r in op_rows if r["io"] == "input" and "metrics" in r]
        outs_rows = [r for r in op_rows if r["io"] == "output" and "metrics" in r]
        for r, v in zip(outs_rows, ref.operator_rules(ins_rows, outs_rows)):
            r["verdict"] = v
        rows += op_rows
        by_op.append((name, op_rows))
    origin, chain, inputs_agree = None, [], True
    for name, op_rows in by_op:
        bad_in = any(r["io"] == "input" and r["verdict"] == "error" for r in op_rows)
        bad_out = any(r["io"] == "output" and r["verdict"] == "error" for r in op_rows)
        if origin is None and (bad_in or bad_out):
            origin, inputs_agree = name, bad_out and not bad_in
        elif origin is not None and (bad_in or bad_out):
            chain.append(name)
    keep = ("cosine", "max_abs_err", "max_relative_err", "one_thousandth_err_ratio", "five_thousandths_err_ratio",
            "euc_dist", "relative_euclidean_distance", "kl_divergence", "rmse", "mean_relative_err")
    out = []
    for r in rows:
        e = {"npu_name": r["npu_name"], "bench_name": r["bench_name"], "verdict": r["verdict"]}
        if "metrics" in r:
            e["metrics"] = {k: (ref.cosine(r["metrics"]) if k == "cosine" else r["metrics"][k]) for k in keep}
        out.append(e)
    return {"rows": out, "first_divergence": {"origin": origin, "inputs_agree": inputs_agree, "chain": chain}}


def main():
    npu_ops, bench_ops = models()
    if OUT.exists():
        shutil.rmtree(OUT)
    npu = write_run(OUT / "npu", "20261102120000", npu_ops, "float16", 1762084800000001)
    bench = write_run(OUT / "bench", "20261102110000", bench_ops, "float32", 1762081200000001)
    b = {name: (ins, outs) for name, ins, outs in bench}

    def row(name, io, i):
        return f"{name}.{io}.{i}", b[name][0 if io == "input" else 1][i]

    plain = {}
    for name in ("embed/MatMul", "head/Softmax"):
        for io, n in (("input", len(b[name][0])), ("output", len(b[name][1]))):
            for i in range(n):
                plain[f"{name}.{io}.{i}"] = row(name, io, i)
    mapped = dict(plain)
    mapped["npu_gelu_fast.input.0"] = row("ffn/Gelu", "input", 0)
    mapped["npu_gelu_fast.output.0"] = row("ffn/Gelu", "output", 0)
    mapped["fused/MatMulAdd.input.0"] = row("head/MatMul", "input", 0)
    mapped["fused/MatMulAdd.input.1"] = row("head/MatMul", "input", 1)
    mapped["fused/MatMulAdd.output.0"] = row("head/BiasAdd", "output", 0)

    expected = {
        "npu_path": "compare_mapping/npu",
        "bench_path": "compare_mapping/bench",
        "mapping": MAPPING,
        "unmapped": expected_rows(npu, plain),
        "unmapped_bench_ops": ["ffn/Gelu", "head/MatMul", "head/BiasAdd"],
        "mapped": expected_rows(npu, mapped),
    }
    fd = expected["mapped"]["first_divergence"]
    assert fd["origin"] == "fused/MatMulAdd" and fd["inputs_agree"] and fd["chain"] == ["head/Softmax"], fd
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    (OUT / "mapping.json").write_text(json.dumps(MAPPING, indent=4) + "\n")
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    assert total < 64 * 1024, total
    print(f"compare_mapping/: {len(npu)} NPU ops, {len(bench)} bench ops; mapped first divergence "
          f"{fd['origin']}; {total} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
