#!/usr/bin/env python3
"""Independent oracle for the precision headroom of `dumpscope-cli stats --json` (issue 34).

    python3 headroom_oracle.py --cli build/app/dumpscope-cli --samples samples --tmp /tmp/x

numpy computes, for every target dtype, the counts of FINITE values that overflow
(|x| > max finite), underflow (0 < |x| < smallest subnormal / 2) and land subnormal
(smallest subnormal / 2 <= |x| < smallest normal), and the dynamic range
log2(max|x| / smallest nonzero |x|), on
  1. generated .npy files (float32, float64, float16 small and large) with values exactly at,
     just below and just above every boundary of every target, in each band, float32
     subnormals, zeros, NaN and Inf;
  2. the real msprobe tensor dumps in samples/msprobe_real (activations and gradients, fp32
     and the bf16 run), each .pt loaded by torch.
The limits come from formulas (ml_dtypes is not available): float16 is checked against
np.finfo(np.float16), bfloat16 against torch.finfo(torch.bfloat16), the float8 kinds against
torch.finfo where this torch has them (1.13 has not: said so in the output), and hifloat8 is
derived by decoding all 256 codes with the layout of cann-dump.md §6.2 written here in Python.
The plain-text `stats` output is checked against the same numpy counts for one rank.
One line per failed check, then "N passed, M failed"; exit status 1 on any failure.
"""

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from checker import Checker

try:
    import numpy as np
    import torch
except ImportError:  # a pyenv/venv python without numpy/torch: retry with the system one
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

TARGETS = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "hifloat8")
# Real msprobe tensor runs (tensor mode: every leaf's values are in a .pt).
REAL_RUNS = ("base_tensor_mix", "npu_bf16_tensor_mix", "npu_weight_tensor_mix", "overflow_tensor_mix")
MIN_REAL_TENSORS = 200


def ieee_limits(ebits, mbits, ocp_fn=False):
    """(max finite, min normal, min subnormal) of a binary format with ebits/mbits; ocp_fn: the
    top exponent holds numbers too and only the all-ones mantissa there is NaN (E4M3FN)."""
    bias = 2 ** (ebits - 1) - 1
    min_normal = 2.0 ** (1 - bias)
    min_sub = 2.0 ** (1 - bias - mbits)
    if ocp_fn:
        max_finite = 2.0 ** (2 ** ebits - 1 - bias) * (2 - 2.0 ** (1 - mbits))
    else:
        max_finite = 2.0 ** (2 ** ebits - 2 - bias) * (2 - 2.0 ** (-mbits))
    return max_finite, min_normal, min_sub


def hif8_decode(b):
    """HiFloat8 (cann-dump.md §6.2): prefix gives D, sign-magnitude exponent, denormal 2^(m-23)."""
    if b == 0x00:
        return 0.0, "zero"
    if b == 0x80:
        return math.nan, "nan"
    if b in (0x6F, 0xEF):
        return math.inf if b == 0x6F else -math.inf, "inf"
    sign = -1.0 if b & 0x80 else 1.0
    bits = format(b & 0x7F, "07b")
    if bits.startswith("11"):
        d, rest = 4, bits[2:]
    elif bits.startswith("10"):
        d, rest = 3, bits[2:]
    elif bits.startswith("01"):
        d, rest = 2, bits[2:]
    elif bits.startswith("001"):
        d, rest = 1, bits[3:]
    elif bits.startswith("0001"):
        d, rest = 0, bits[4:]
    else:
        m = int(bits[4:], 2)
        return sign * 2.0 ** (m - 23), "denormal"
    if d == 0:
        exp, mant = 0, rest
    else:
        ebits, mant = rest[:d], rest[d:]
        mag = 2 ** (d - 1) + (int(ebits[1:], 2) if d > 1 else 0)
        exp = -mag if ebits[0] == "1" else mag
    mbits = len(mant)
    frac = int(mant, 2) / 2 ** mbits if mbits else 0.0
    return sign * 2.0 ** exp * (1 + frac), "normal"


def hif8_limits():
    vals = [hif8_decode(b) for b in range(256)]
    normals = [v for v, k in vals if k == "normal" and v > 0]
    denormals = [v for v, k in vals if k == "denormal" and v > 0]
    return max(normals), min(normals), min(denormals)


def limits(ck):
    lim = {
        "float16": ieee_limits(5, 10),
        "bfloat16": ieee_limits(8, 7),
        "float8_e4m3fn": ieee_limits(4, 3, ocp_fn=True),
        "float8_e5m2": ieee_limits(5, 2),
        "hifloat8": hif8_limits(),
    }
    f16 = np.finfo(np.float16)
    ck.check(lim["float16"] == (float(f16.max), float(f16.tiny), float(f16.smallest_subnormal)),
             "limits", f"float16 formula {lim['float16']} != np.finfo")
    bf = torch.finfo(torch.bfloat16)
    ck.check(lim["bfloat16"] == (bf.max, bf.tiny, bf.tiny * bf.eps), "limits", f"bfloat16 formula {lim['bfloat16']} != torch.finfo")
    for name, attr in (("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e5m2")):
        if hasattr(torch, attr):
            fi = torch.finfo(getattr(torch, attr))
            ck.check(lim[name] == (fi.max, fi.tiny, fi.tiny * fi.eps), "limits", f"{name} formula != torch.finfo")
        else:
            print(f"note: torch {torch.__version__} has no {attr}: {name} limits by formula only {lim[name]}")
    ck.check(lim["float8_e4m3fn"] == (448.0, 2.0 ** -6, 2.0 ** -9), "limits", "float8_e4m3fn (OCP: 448, 2^-6, 2^-9)")
    ck.check(lim["float8_e5m2"] == (57344.0, 2.0 ** -14, 2.0 ** -16), "limits", "float8_e5m2 (OCP: 57344, 2^-14, 2^-16)")
    return lim


def expected(values, lim):
    a = np.asarray(values, dtype=np.float64).ravel()
    a = np.abs(a[np.isfinite(a)])
    out = {}
    for name, (mx, mn, ms) in lim.items():
        half = ms / 2
        out[name] = {"overflow": int((a > mx).sum()),
                     "underflow": int(((a > 0) & (a < half)).sum()),
                     "subnormal": int(((a >= half) & (a < mn)).sum())}
    nz = a[a > 0]
    out["max_abs"] = float(a.max()) if a.size else None
    out["min_nonzero_abs"] = float(nz.min()) if nz.size else None
    out["dynamic_range_log2"] = float(math.log2(a.max()) - math.log2(nz.min())) if nz.size else None
    return out


def compare(ck, where, got, want, lim):
    if not ck.check(got is not None, where, "no headroom in the JSON"):
        return
    ck.check(got.get("from") == "values", where, f"from {got.get('from')!r}")
    for name in TARGETS:
        g = got.get(name, {})
        for key in ("overflow", "underflow", "subnormal"):
            ck.check(g.get(key) == want[name][key], where, f"{name}.{key} {g.get(key)} != numpy {want[name][key]}")
        mx, mn, ms = lim[name]
        ck.check((g.get("max_finite"), g.get("min_normal"), g.get("min_subnormal")) == (mx, mn, ms), where,
                 f"{name} limits {g.get('max_finite')}, {g.get('min_normal')}, {g.get('min_subnormal')} != {lim[name]}")
    ck.check("unconfirmed" in got.get("hifloat8", {}), where, "hifloat8 does not say which limits are unconfirmed")
    for key in ("max_abs", "min_nonzero_abs"):
        ck.check(got.get(key) == want[key], where, f"{key} {got.get(key)} != numpy {want[key]}")
    g, w = got.get("dynamic_range_log2"), want["dynamic_range_log2"]
    ck.check((g is None and w is None) or (g is not None and w is not None and math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-12)),
             where, f"dynamic_range_log2 {g} != numpy {w}")


def stats_json(ck, cli, where, path, ids=()):
    """stats --json PATH [IDS]; with ids, statistics-only leaves are errors (exit 1) by design."""
    p = subprocess.run([cli, "stats", "--json", str(path), *ids], capture_output=True, text=True, timeout=600)
    if not ck.check(p.returncode == 0 or (ids and p.returncode == 1 and p.stdout), where,
                    f"exit {p.returncode}: {p.stderr.strip()[:300]}"):
        return None
    return json.loads(p.stdout)


def boundary_values(lim, dtype):
    """Every boundary of every target, exactly and one ulp (of dtype) either side, both signs."""
    dt = np.dtype(dtype)
    info = np.finfo(dt)
    vals = [0.0, -0.0, 1.0, np.nan, np.inf, -np.inf]
    for mx, mn, ms in lim.values():
        for b in (mx, mn, ms, ms / 2, (ms / 2 + mn) / 2, mx * 2, ms / 4):
            v = dt.type(b)
            if not np.isfinite(v) or v == 0:
                continue
            vals += [v, np.nextafter(v, dt.type(np.inf)), np.nextafter(v, dt.type(0))]
    if dt == np.float32 or dt == np.float64:
        vals += [info.smallest_subnormal, info.smallest_subnormal * 3, info.tiny / 2, dt.type(2.0 ** -134), info.max]
    a = np.array(vals, dtype=dt)
    return np.concatenate([a, -a])


def check_generated(ck, cli, tmp, lim):
    rng = np.random.default_rng(34)
    cases = {}
    for dtype in ("float32", "float64", "float16"):
        cases[f"bounds_{dtype}"] = boundary_values(lim, dtype)
    # Big enough for the float32 block kernel (several 4096-element blocks, mixed bands) and the
    # float16 code-table path (>= 4 * 65536 elements).
    n = 300_000
    mixed = rng.standard_normal(n) * np.exp2(rng.uniform(-30, 20, n))
    mixed[rng.integers(0, n, 2000)] = 0
    b32 = boundary_values(lim, "float32")
    cases["mixed_float32"] = np.concatenate([mixed.astype(np.float32), np.tile(b32, 50)]).astype(np.float32)
    cases["mixed_float64"] = np.concatenate([mixed, np.exp2(rng.uniform(-1070, 1020, 5000))])
    cases["mixed_float16"] = np.concatenate([mixed.astype(np.float16), boundary_values(lim, "float16")])
    # A float32 tensor whose blocks are all in the normal band but for one subnormal element.
    quiet = np.full(3 * 4096, 1.5, dtype=np.float32)
    quiet[5000] = np.float32(2.0 ** -140)
    quiet[9000] = np.float32(65504.0)
    quiet[9001] = np.nextafter(np.float32(65504.0), np.float32(np.inf))
    cases["quiet_float32"] = quiet
    for name, arr in cases.items():
        folder = Path(tmp) / name  # one file per folder: the CLI opens a file's folder
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.npy"
        np.save(path, arr)
        doc = stats_json(ck, cli, name, path)
        if not doc:
            continue
        ts = doc.get("tensors", [])
        if not ck.check(len(ts) == 1, name, f"{len(ts)} tensors"):
            continue
        compare(ck, name, ts[0].get("headroom"), expected(arr, lim), lim)
        # The boundary cases must really put values on every boundary (the test checks itself).
        if name.startswith("bounds_float32"):
            want = expected(arr, lim)
            for t in TARGETS:
                for key in ("overflow", "underflow", "subnormal"):
                    ck.check(want[t][key] > 0, name, f"generated values leave {t}.{key} empty")


def check_real(ck, cli, samples, lim):
    root = Path(samples) / "msprobe_real" / "dumps"
    checked = 0
    grads = 0
    for run in REAL_RUNS:
        for rank_dir in sorted(root.glob(f"{run}/step*/rank*")):
            doc = stats_json(ck, cli, str(rank_dir), rank_dir)
            if not doc:
                continue
            pts = {p.stem: p for p in (rank_dir / "dump_tensor_data").glob("*.pt")}
            for t in doc.get("tensors", []):
                pt = pts.get(t["id"])
                if pt is None or t.get("headroom") is None:
                    continue
                arr = torch.load(pt, map_location="cpu")
                if not torch.is_tensor(arr) or not arr.is_floating_point():
                    continue
                where = f"{rank_dir.relative_to(root)}/{pt.name}"
                compare(ck, where, t["headroom"], expected(arr.double().numpy(), lim), lim)
                checked += 1
                grads += ".backward." in pt.name
    ck.check(checked >= MIN_REAL_TENSORS, "real", f"only {checked} real tensors checked")
    ck.check(grads >= 20, "real", f"only {grads} gradients (backward) checked")
    print(f"real msprobe tensors checked: {checked} ({grads} from backward)")


def check_statistics_only(ck, cli, samples):
    """A statistics-mode run says only what its recorded max/min/norm allow: every true/false
    answer agrees with the counts of the same leaf in the tensor-mode run of the same model
    (same seeds), and underflow is left open unless all values share a sign."""
    root = Path(samples) / "msprobe_real" / "dumps"
    answered = agreed = 0
    for rank_dir in sorted(root.glob("base_statistics_mix/step*/rank*")):
        tensor_dir = root / "base_tensor_mix" / rank_dir.relative_to(root / "base_statistics_mix")
        tensor_doc = stats_json(ck, cli, str(tensor_dir), tensor_dir)
        if not tensor_doc:
            continue
        # Without ids `stats` skips leaves with no values: name them to get their answers.
        stats_doc = stats_json(ck, cli, str(rank_dir), rank_dir, [t["id"] for t in tensor_doc.get("tensors", [])])
        if not stats_doc:
            continue
        counts = {t["id"]: t.get("headroom") for t in tensor_doc.get("tensors", [])}
        for e in stats_doc.get("errors", []):
            h = e.get("headroom")
            if h is None or counts.get(e.get("id")) is None:
                continue
            where = f"{rank_dir.relative_to(root)}/{e['id']}"
            ck.check(h.get("from") == "statistics", where, f"from {h.get('from')!r}")
            for name in TARGETS:
                for key in ("overflow", "underflow", "subnormal"):
                    said, n = h[name][key], counts[e["id"]][name][key]
                    if said is None:
                        continue
                    answered += 1
                    agreed += ck.check(said == (n > 0), where, f"{name}.{key}: statistics say {said}, the values count {n}")
    ck.check(answered >= 100, "statistics", f"only {answered} answers from recorded statistics")
    print(f"statistics-only answers checked against the tensor run: {answered} ({agreed} agree)")


def check_text(ck, cli, samples, lim):
    """`stats` without --json prints, per tensor, one line per target with numpy's counts."""
    root = Path(samples) / "msprobe_real" / "dumps"
    rank_dir = root / "base_tensor_mix" / "step0" / "rank0"
    p = subprocess.run([cli, "stats", str(rank_dir)], capture_output=True, text=True, timeout=600)
    if not ck.check(p.returncode == 0, "text", f"exit {p.returncode}: {p.stderr.strip()[:300]}"):
        return
    pts = {q.stem: q for q in (rank_dir / "dump_tensor_data").glob("*.pt")}
    current, rows, checked = None, {}, 0

    def flush():
        nonlocal checked
        if current in pts and rows:
            arr = torch.load(pts[current], map_location="cpu")
            if torch.is_tensor(arr) and arr.is_floating_point():
                want = expected(arr.double().numpy(), lim)
                for name in TARGETS:
                    got = rows.get(name)
                    ck.check(got == [want[name][k] for k in ("overflow", "underflow", "subnormal")], f"text {current}",
                             f"{name}: printed {got} != numpy {want[name]}")
                checked += 1

    for line in p.stdout.splitlines():
        if line and not line.startswith(" "):
            flush()
            current, rows = line.strip(), {}
            continue
        parts = line.split()
        if len(parts) >= 4 and parts[0] in TARGETS and all(x.isdigit() for x in parts[1:4]):
            rows[parts[0]] = [int(x) for x in parts[1:4]]
    flush()
    ck.check(checked >= 20, "text", f"only {checked} tensors' printed headroom checked")
    print(f"text output checked for {checked} tensors")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    ck = Checker()
    lim = limits(ck)
    check_generated(ck, args.cli, args.tmp, lim)
    check_real(ck, args.cli, args.samples, lim)
    check_statistics_only(ck, args.cli, args.samples)
    check_text(ck, args.cli, args.samples, lim)
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
