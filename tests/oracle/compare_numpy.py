#!/usr/bin/env python3
"""numpy reference of DumpScope's compare metrics (shared/specs/compare.md §3 and §9).

Written from the spec's formulas with plain numpy array operations, the way msprobe
(npy_compare.py) and msaccucmp (alg_*.py) compute them, in float64.  Used by

* tests/core/tst_compare.cpp (`compare_numpy.py cases`): hand-made tensor pairs and the
  metrics numpy computes for them, as JSON on stdout;
* samples/generate_compare.py: the expectations written to samples/manifest.json;
* bench/bench_compare.sh: the numpy timing reference (`compare_numpy.py bench FILE FILE`).
"""

import json
import os
import sys
import time

try:
    import numpy as np
except ImportError:  # a pyenv/venv python without numpy: retry with the system one
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

EPS = float(np.finfo(np.float64).eps)
EPS32 = float(np.finfo(np.float32).eps)


def finite_stats(a):
    f = a[np.isfinite(a)]
    if f.size == 0:
        return {"min": None, "max": None, "mean": None, "l2norm": None}
    return {"min": float(f.min()), "max": float(f.max()), "mean": float(f.mean()),
            "l2norm": float(np.sqrt(np.sum(f * f)))}


def gen_c_eps(npu_dtype, bench_dtype):
    """msprobe Gen C's epsilon where the bench is 0 (compare.md §3.2): that of
    numpy.result_type(npu, bench, float32), integers counted as float64, bfloat16 as float32."""
    narrow = {"float16", "float32", "bfloat16"}
    return EPS32 if npu_dtype in narrow and bench_dtype in narrow else EPS


def metrics(n, b, genb_fp16=False, eps=EPS):
    """Raw metrics of two equally long arrays (NPU n, bench b), decoded to float64.

    Non-finite values at equal positions (NaN mask and Inf mask equal) become 0 on both
    sides (msprobe); "inf_nan_mismatch" counts the positions where the masks differ."""
    n = np.asarray(n, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    count = n.size
    mismatch = int(np.count_nonzero((np.isnan(n) != np.isnan(b)) | (np.isinf(n) != np.isinf(b))))
    bad = ~np.isfinite(n) | ~np.isfinite(b)
    x = np.where(bad, 0.0, n)
    y = np.where(bad, 0.0, b)
    out = {"count": count, "inf_nan_mismatch": mismatch, "npu": finite_stats(n), "bench": finite_stats(b)}
    if count == 0:
        return out
    d = x - y
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if genb_fp16:
            re = np.where(y == 0, np.where(x != 0, np.inf, np.nan), np.abs(d) / np.abs(y))
        elif eps == EPS32:
            # msprobe Gen C (get_relative_err): numpy.result_type(npu, bench, float32) is float32
            # here, so RE is computed on float32 arrays (exact copies of float16/bfloat16/float32
            # values), each step rounded to float32, and compared with 0.001 in float32
            x32, y32 = x.astype(np.float32), y.astype(np.float32)
            m = y32 == 0
            x32[m] += np.float32(eps)
            y32[m] += np.float32(eps)
            re = np.abs((x32 - y32) / y32)
        else:
            m = y == 0
            yy = np.where(m, y + eps, y)
            xx = np.where(m, x + eps, x)
            re = np.abs((xx - yy) / yy)
        acc = np.where(np.abs(y) > EPS, np.abs(x / y - 1), 0.0)
    sdd = float(np.sum(d * d))
    syy = float(np.sum(y * y))

    def normalised(v):
        rng = v.max() - v.min()
        p = (v - v.min()) / rng if rng > 0 else v
        return np.maximum(p, EPS32)

    p, q = normalised(x), normalised(y)
    p, q = p / p.sum(), q / q.sum()
    kl = float(np.sum(p * np.log(p / q)))
    out.update({
        "dot": float(np.sum(x * y)),
        "npu_norm": float(np.sqrt(np.sum(x * x))),
        "bench_norm": float(np.sqrt(syy)),
        "euc_dist": float(np.sqrt(sdd)),
        "max_abs_err": float(np.max(np.abs(d))),
        "max_relative_err": float(np.max(re)),
        "one_thousandth_err_ratio": float(np.sum(re < 0.001) / count),
        "five_thousandths_err_ratio": float(np.sum(re < 0.005) / count),
        "mean_abs_err": float(np.mean(np.abs(d))),
        "rmse": float(np.sqrt(np.mean(d * d))),
        "relative_euclidean_distance": 0.0 if np.sqrt(syy) <= EPS else float(np.sqrt(sdd / syy)),
        "accumulated_relative_err": float(np.sum(acc)),
        "msaccucmp_max_relative_err": float(np.max(acc)),
        "mean_relative_err": float(np.sum(acc) / count),
        "kl_divergence": 0.0 if abs(kl) < EPS else kl,
        "npu_compared_mean": float(x.mean()), "npu_compared_std": float(x.std()),
        "bench_compared_mean": float(y.mean()), "bench_compared_std": float(y.std()),
    })
    return out


def cosine(m):
    """msprobe's cosine cell (§3.3) from metrics(): a float, "Nan" or "unsupported"."""
    if m["count"] == 1:
        return "unsupported"
    if m["npu_norm"] <= EPS and m["bench_norm"] <= EPS:
        return 1.0
    if m["npu_norm"] <= EPS or m["bench_norm"] <= EPS:
        return "Nan"
    return m["dot"] / (m["npu_norm"] * m["bench_norm"])


def accuracy_reached(cos, max_abs, strict_nan=False):
    """§4 with the default thresholds; strict_nan: a NaN cosine is "No" (DumpScope)."""
    if cos == "unsupported":
        return "None"
    if cos == "Nan":
        if strict_nan:
            return "No"
        cos = float("nan")
    if (cos < 0.99 and max_abs > 0.001) or cos < 0.9 or max_abs > 1:
        return "No"
    return "Yes"


def verdict(m):
    """DumpScope's verdict of one tensor row from metrics(), default thresholds, without the
    operator-level rules (docs/COMPARE.md "Verdicts")."""
    if m["inf_nan_mismatch"]:
        return "error"
    cos = cosine(m)
    if accuracy_reached(cos, m["max_abs_err"], strict_nan=True) == "No" or m["max_abs_err"] > 1e10:
        return "error"
    c = cos if isinstance(cos, float) else 1.0
    if (c < 0.99 or m["relative_euclidean_distance"] > 0.05 or m["kl_divergence"] > 0.005
            or m["rmse"] > 1.0 or m["mean_relative_err"] > 1.0):
        return "warning"
    return "pass"


def operator_rules(inputs, outputs):
    """§7 rules between one operator's input rows and its output rows (default thresholds),
    applied to outputs whose verdict is "pass".  Rows are dicts with "metrics" and "verdict";
    returns the outputs' new verdicts."""
    def ratio(r):
        return r["metrics"]["one_thousandth_err_ratio"]

    def cos(r):
        c = cosine(r["metrics"])
        return c if isinstance(c, float) else float("nan")

    ins = [r for r in inputs if r["verdict"] != "none"]
    in_ratio = max([ratio(r) for r in ins], default=-1)
    in_cos = max([cos(r) for r in ins], default=-2)
    in_abs = max([r["metrics"]["max_abs_err"] for r in ins], default=-1)
    out = []
    for r in outputs:
        v = r["verdict"]
        if v == "pass":
            a = r["metrics"]["max_abs_err"]
            if in_ratio > 0.9 and ratio(r) < 0.6:
                v = "error"
            elif in_abs > 1 and a > 1 and in_abs <= a and np.log10(a) - np.log10(in_abs) >= 1:
                v = "warning"
            elif in_ratio - ratio(r) > 0.1 or in_cos - cos(r) > 0.1:
                v = "warning"
        out.append(v)
    return out


# ----------------------------------------------------------------------------
# Hand-made cases for tst_compare
# ----------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")


def cases():
    rng = np.random.default_rng(20261122)
    big = rng.standard_normal((1 << 20) + 5000).astype(np.float32)  # spans several parallel tasks
    big_b = (big + rng.standard_normal(big.size).astype(np.float32) * 1e-3).astype(np.float32)
    big_b[::977] = 0.0  # bench zeros: eps rule
    h = rng.standard_normal(5000).astype(np.float16)
    nanpos = rng.standard_normal(6000).astype(np.float32)
    nanpos_b = nanpos + np.float32(0.01)
    nanpos[[5, 2500, 5999]] = [np.nan, np.inf, -np.inf]
    nanpos_b[[5, 2500, 5999]] = [np.nan, np.inf, np.inf]  # same masks (the sign of Inf is not compared)
    mism = rng.standard_normal(3000).astype(np.float32)
    mism_b = mism.copy()
    mism[7] = np.nan
    mism_b[8] = np.inf
    bf = rng.standard_normal(4099).astype(np.float32)
    bf_bits = ((bf.view(np.uint32).astype(np.uint64) + 0x7FFF + ((bf.view(np.uint32) >> 16) & 1)) >> 16).astype(np.uint16)
    # every fifth ratio far from 1: KL lanes of both kinds (series and full logarithm) in most vectors
    mixed = rng.standard_normal(20000).astype(np.float32)
    mixed_b = (mixed * np.where(np.arange(mixed.size) % 5 == 0, 1.5, 1.0001)).astype(np.float32)
    # one block (2048 elements) with non-finite values among finite ones: both block paths
    oneblk = rng.standard_normal(10000).astype(np.float32)
    oneblk_b = (oneblk * np.float32(1.001)).astype(np.float32)
    oneblk[9000] = np.nan
    oneblk_b[9001] = np.inf
    wide = rng.standard_normal(5000)
    # finite values whose squared difference overflows: the block takes the fix-up path
    huge = rng.standard_normal(3000) * 1e-3
    huge_b = huge.copy()
    huge[2100], huge_b[2100] = 1e200, -1e200
    c = [
        ("kl_mixed_ratios", mixed, mixed_b),
        ("non_finite_in_one_block", oneblk, oneblk_b),
        ("f32_vs_f64", wide.astype(np.float32), wide * 1.0001),
        ("f64_vs_f32", wide * 1.0001, wide.astype(np.float32)),
        ("huge_f64_difference", huge, huge_b),
        ("random_f32", rng.standard_normal(10000).astype(np.float32), rng.standard_normal(10000).astype(np.float32)),
        ("close_f32_big", big, big_b),
        ("f16_vs_f32", h, (h.astype(np.float32) * np.float32(1.0001)).astype(np.float32)),
        ("bf16_vs_f32", ("bfloat16", bf_bits), bf),
        ("zeros_both", np.zeros(100, np.float32), np.zeros(100, np.float32)),
        ("zeros_npu", np.zeros(100, np.float32), np.arange(100, dtype=np.float32)),
        ("zeros_bench", np.arange(100, dtype=np.float32) - 50, np.zeros(100, np.float32)),
        ("bench_some_zero", np.array([1, 0, 1e-20, -3, 5], np.float64), np.array([0, 0, 0, -3, 4], np.float64)),
        ("constant_both", np.full(64, 3.5, np.float32), np.full(64, 3.5, np.float32)),
        ("constant_vs_ramp", np.full(64, -2.0, np.float32), np.linspace(-1, 1, 64).astype(np.float32)),
        ("nan_inf_same_positions", nanpos, nanpos_b),
        ("nan_inf_positions_differ", mism, mism_b),
        ("nan_both_all", np.full(10, np.nan, np.float32), np.full(10, np.nan, np.float32)),
        ("length_1", np.array([2.0], np.float32), np.array([2.5], np.float32)),
        ("int32_vs_f32", np.arange(-50, 50, dtype=np.int32), np.arange(-50, 50, dtype=np.float32) * np.float32(1.01)),
        ("odd_length_f64", rng.standard_normal(2049), rng.standard_normal(2049)),
    ]
    out = []
    for name, n, b in c:
        entry = {"name": name}
        vals = []
        for side, a in (("npu", n), ("bench", b)):
            if isinstance(a, tuple):
                dtype, bits = a
                raw = bits.astype("<u2").tobytes()
                decoded = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            else:
                dtype = {np.float32: "float32", np.float16: "float16", np.float64: "float64",
                         np.int32: "int32"}[a.dtype.type]
                raw = a.astype(a.dtype.newbyteorder("<")).tobytes()
                decoded = a.astype(np.float64)
            entry[side] = {"dtype": dtype, "count": int(decoded.size), "hex": raw.hex()}
            vals.append(decoded)
        entry["expected"] = metrics(vals[0], vals[1], eps=gen_c_eps(entry["npu"]["dtype"], entry["bench"]["dtype"]))
        out.append(entry)
    # msprobe Gen B float16 quirk: bench zeros give inf (npu != 0) and NaN (npu == 0)
    n16 = np.array([1, 0, 2, 3], np.float16)
    b16 = np.array([0, 0, 2, 3.5], np.float16)
    out.append({"name": "genb_fp16_quirk", "genb": True,
                "npu": {"dtype": "float16", "count": 4, "hex": n16.tobytes().hex()},
                "bench": {"dtype": "float16", "count": 4, "hex": b16.tobytes().hex()},
                "expected": metrics(n16, b16, genb_fp16=True)})
    return out


def to_json(obj):
    """JSON with NaN/Inf as the strings "nan", "inf", "-inf" (strict JSON parsers reject them)."""
    def fix(v):
        if isinstance(v, float) and not np.isfinite(v):
            return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v
    return json.dumps(fix(obj))


# ----------------------------------------------------------------------------
# Benchmark reference
# ----------------------------------------------------------------------------


def map_payload(path, dtype):
    import struct
    with open(path, "rb") as fh:
        (header_len,) = struct.unpack("<Q", fh.read(8))
    offset = 8 + header_len
    count = (os.path.getsize(path) - offset) // np.dtype(dtype).itemsize
    return np.memmap(path, dtype=np.dtype(dtype).newbyteorder("<"), mode="r", offset=offset, shape=(count,))


def bench(npu_file, bench_file, repeat):
    a, b = map_payload(npu_file, np.float32), map_payload(bench_file, np.float32)
    best, values = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        values = metrics(a, b, eps=gen_c_eps("float32", "float32"))
        best = min(best, time.perf_counter() - t0)
    nbytes = a.nbytes + b.nbytes
    return {"bytes": nbytes, "seconds": best, "gbps": nbytes / best / 1e9,
            "values": {k: values[k] for k in ("dot", "max_abs_err", "kl_divergence", "one_thousandth_err_ratio")}}


def main(argv):
    if len(argv) >= 2 and argv[1] == "cases":
        print(to_json(cases()))
        return 0
    if len(argv) >= 4 and argv[1] == "bench":
        repeat = int(argv[4]) if len(argv) > 4 else 3
        print(json.dumps(bench(argv[2], argv[3], repeat)))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
