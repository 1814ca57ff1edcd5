#!/usr/bin/env python3
"""Generate the compare sample pair under samples/compare/ and its manifest entry.

    python3 samples/generate_compare.py

One small MLP run twice and written as two CANN model dumps (the encoder of
generate_samples.py, no protobuf library):

* compare/bench: the float32 reference run;
* compare/npu:   the same run stored in float16, with the output of layer2/MatMul
  perturbed (noise of the size of the output), so every operator after it diverges;
  it also holds a TransData the bench does not have (NPU_ONLY), aux/Transpose stores its
  output as FRACTAL_NZ without original_shape (FORMAT_UNCONVERTED), and head/Reshape
  writes a flat output where the bench keeps two dimensions (SHAPE_MISMATCH).  The bench has an
  extra loss/Identity (bench only).
* two side operators at the end of both runs, outside the divergence chain, give `warning`
  rows: aux/Scale's NPU output carries 7 % relative noise (cosine still above 0.99, relative
  Euclidean distance above 0.05: a row-level warning); aux/Sigmoid's 0.09 % (every row metric
  passes, but far fewer of its output elements than of its input elements are within 0.1 %: the
  operator-level rule of compare.md §7 makes it a warning).

The expectations under the manifest's top-level key "compare" (per-row metrics and
verdicts, the first divergence) are computed here with numpy through
tests/oracle/compare_numpy.py from the arrays as written, independently of the C++ code.
Files written: samples/compare/** and samples/manifest.json (only its "compare" key).
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
OUT = ROOT / "compare"
PERTURBED = "layer2/MatMul"


def forward(x, w, perturb):
    """The model as a list of (type, name, inputs, outputs) in execution order (float32)."""
    ops = []
    h = x @ w["w1"]
    ops.append(("MatMulV2", "layer1/MatMul", [x, w["w1"]], [h]))
    h2 = h + w["b1"]
    ops.append(("Add", "layer1/BiasAdd", [h, w["b1"]], [h2]))
    h3 = np.maximum(h2, 0)
    ops.append(("Relu", "layer1/Relu", [h2], [h3]))
    h4 = h3 @ w["w2"]
    if perturb:
        noise = np.random.default_rng(7).standard_normal(h4.shape).astype(np.float32)
        h4 = (h4 + noise * h4.std()).astype(np.float32)
    ops.append(("MatMulV2", PERTURBED, [h3, w["w2"]], [h4]))
    h5 = h4 + w["b2"]
    ops.append(("Add", "layer2/BiasAdd", [h4, w["b2"]], [h5]))
    h6 = np.maximum(h5, 0)
    ops.append(("Relu", "layer2/Relu", [h5], [h6]))
    logits = h6 @ w["w3"]
    ops.append(("MatMulV2", "head/MatMul", [h6, w["w3"]], [logits]))
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    ops.append(("SoftmaxV2", "head/Softmax", [logits], [probs]))
    ops.append(("Reshape", "head/Reshape", [probs], [probs.reshape(-1) if perturb else probs]))
    return [(t, n, [np.asarray(a, np.float32) for a in i], [np.asarray(a, np.float32) for a in o]) for t, n, i, o in ops]


UNCONVERTED = "aux/Transpose"  # NPU output in FRACTAL_NZ without original_shape
WARNINGS = {"aux/Scale.output.0", "aux/Sigmoid.output.0"}


def side_ops(x, noisy):
    """aux/Scale and aux/Sigmoid on x; with noisy=True their outputs carry relative noise of
    7 % and 0.09 % (a seed of their own: the other arrays stay as they were)."""
    scale = (x * np.float32(0.5)).astype(np.float32)
    sigmoid = (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)
    if noisy:
        rng = np.random.default_rng(11)
        scale = (scale * (1 + 0.07 * rng.standard_normal(x.shape))).astype(np.float32)
        sigmoid = (sigmoid * (1 + 0.0009 * rng.standard_normal(x.shape))).astype(np.float32)
    return [("Mul", "aux/Scale", [x], [scale]), ("Sigmoid", "aux/Sigmoid", [x], [sigmoid])]


def write_run(root, time_dir, ops, dtype, base_ts):
    d = f"{time_dir}/0/ge_default_{time_dir}_1/1/0"
    written = []
    for k, (op_type, name, ins, outs) in enumerate(ops):
        conv = (lambda a: gs.f16(a)) if dtype == "float16" else (lambda a: a)
        outputs = [gs.nd_tensor(conv(a), dtype) for a in outs]
        if name == UNCONVERTED and dtype == "float16":
            outputs = [gs.private_tensor(conv(outs[0]), dtype, "FRACTAL_NZ")]
            outputs[0].original_shape = None
        op = gs.Op(op_type, name, 10 + k, 1, base_ts + k, [gs.nd_tensor(conv(a), dtype) for a in ins], outputs)
        path = root / d / op.file_name()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gs.encode_big_dump(op))
        written.append((name, op, [t.nd for t in op.inputs], [t.nd for t in op.outputs]))
    return written


def main():
    rng = np.random.default_rng(2026)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    w = {"w1": (rng.standard_normal((64, 64)) * 0.2).astype(np.float32),
         "b1": (rng.standard_normal(64) * 0.1).astype(np.float32),
         "w2": (rng.standard_normal((64, 64)) * 0.2).astype(np.float32),
         "b2": (rng.standard_normal(64) * 0.1).astype(np.float32),
         "w3": (rng.standard_normal((64, 10)) * 0.3).astype(np.float32)}
    if OUT.exists():
        shutil.rmtree(OUT)
    aux = ("Transpose", UNCONVERTED, [x], [np.ascontiguousarray(x.T)])
    npu_ops = forward(x, w, perturb=True)
    npu_ops[0:0] = [("TransData", "trans_TransData_1", [x], [x]), aux]
    bench_ops = forward(x, w, perturb=False)
    bench_ops.insert(0, aux)
    bench_ops.append(("Identity", "loss/Identity", [bench_ops[-1][3][0]], [bench_ops[-1][3][0]]))
    npu_ops += side_ops(x, noisy=True)
    bench_ops += side_ops(x, noisy=False)
    npu = write_run(OUT / "npu", "20261101120000", npu_ops, "float16", 1761998400000001)
    bench = write_run(OUT / "bench", "20261101110000", bench_ops, "float32", 1761994800000001)
    bench_by_name = {name: (ins, outs) for name, _, ins, outs in bench}

    rows, by_op = [], []
    for name, op, ins, outs in npu:
        op_rows = []
        for io, arrays in (("input", ins), ("output", outs)):
            for i, a in enumerate(arrays):
                row = {"npu_name": f"{name}.{io}.{i}", "io": io}
                if name not in bench_by_name:
                    row.update(verdict="none", reasons=["NPU_ONLY"])
                elif name == UNCONVERTED and io == "output":
                    row.update(verdict="none", reasons=["FORMAT_UNCONVERTED"])
                else:
                    b = bench_by_name[name][0 if io == "input" else 1][i]
                    if list(a.shape) != list(b.shape):
                        row.update(verdict="error", reasons=["SHAPE_MISMATCH"])
                    else:
                        m = ref.metrics(a.astype(np.float64), b.astype(np.float64), eps=ref.gen_c_eps(str(a.dtype), str(b.dtype)))
                        row.update(metrics=m, verdict=ref.verdict(m), reasons=[])
                op_rows.append(row)
        ins_rows = [r for r in op_rows if r["io"] == "input" and "metrics" in r]
        outs_rows = [r for r in op_rows if r["io"] == "output" and "metrics" in r]
        for r, v in zip(outs_rows, ref.operator_rules(ins_rows, outs_rows)):
            r["verdict"] = v
        rows += op_rows
        by_op.append((name, op_rows))

    # First divergence: the first operator whose inputs agree (no error) and whose outputs do not.
    origin, chain = None, []
    for name, op_rows in by_op:
        bad_in = any(r["io"] == "input" and r["verdict"] == "error" for r in op_rows)
        bad_out = any(r["io"] == "output" and r["verdict"] == "error" for r in op_rows)
        if origin is None and bad_out and not bad_in:
            origin = name
        elif origin is not None and (bad_in or bad_out):
            chain.append(name)
    if origin != PERTURBED:
        raise SystemExit(f"first divergence {origin}, expected {PERTURBED}")
    names = [o[1] for o in npu_ops if not o[1].startswith(("aux/Scale", "aux/Sigmoid"))]
    if chain != names[names.index(PERTURBED) + 1:]:  # everything after it diverges
        raise SystemExit(f"chain {chain}")
    before = [r for r in rows if r["npu_name"].split(".")[0] in names[:names.index(PERTURBED)] and "metrics" in r]
    if not all(r["verdict"] == "pass" for r in before):
        raise SystemExit(f"rows before the divergence: {[(r['npu_name'], r['verdict']) for r in before]}")
    warned = {r["npu_name"] for r in rows if r["verdict"] == "warning"}
    if warned != WARNINGS:
        raise SystemExit(f"warning rows {sorted(warned)}, expected {sorted(WARNINGS)}")

    expected_rows = []
    keep = ("cosine", "max_abs_err", "max_relative_err", "one_thousandth_err_ratio", "five_thousandths_err_ratio",
            "euc_dist", "relative_euclidean_distance", "kl_divergence", "rmse", "mean_relative_err")
    for r in rows:
        e = {"npu_name": r["npu_name"], "verdict": r["verdict"], "reasons": r["reasons"]}
        if "metrics" in r:
            m = r["metrics"]
            e["metrics"] = {k: (ref.cosine(m) if k == "cosine" else m[k]) for k in keep}
        expected_rows.append(e)
    entry = [{
        "name": "compare_mlp_fp16_vs_fp32",
        "npu_path": "compare/npu",
        "bench_path": "compare/bench",
        "rows": len(rows),
        "bench_only": ["loss/Identity.input.0", "loss/Identity.output.0"],
        "first_divergence": {"origin": origin, "row": f"{origin}.output.0", "inputs_agree": True, "chain": chain},
        "expected_rows": expected_rows,
    }]

    manifest_path = ROOT / "manifest.json"
    old = json.loads(manifest_path.read_text())
    old["compare"] = entry
    manifest_path.write_text(gs.compact_json(old))
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    if total >= 300 * 1024:
        raise SystemExit(f"compare/ holds {total} bytes")
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("pass", "warning", "error", "none")}
    print(f"compare/: {len(npu)} NPU ops, {len(bench)} bench ops, {len(rows)} rows {counts}; "
          f"first divergence {origin} then {len(chain)} more; {total} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
