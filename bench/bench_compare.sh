#!/bin/sh
# Compare benchmark: ds::computePairMetrics against the same metrics in numpy, in the same run.
#
#   bench/bench_compare.sh [--build-dir DIR] [--mib N] [--repeat N] [--keep-data]
#
# 1. builds bench_compare in DIR (default build/release), configured as Release with the GUI off
#    (an existing tree of another type is reconfigured);
# 2. writes two float32 single-tensor dumps of N MiB each (default 256) in a temporary
#    directory: the "NPU" tensor from gen_tree.py --big-tensor (standard normal, fixed seed)
#    and a "bench" tensor = NPU + N(0, 1e-3) noise with every 1000th value set to 0;
# 3. runs bench_compare (all cores, best of REPEAT after a warm-up, files in the page cache)
#    and tests/oracle/compare_numpy.py bench (numpy float64, single-threaded, best of REPEAT)
#    on the same files, checks that both computed the same values, and prints GB/s of the
#    combined input and the ratio against the targets (>= 2 GB/s, >= 20x numpy), and against a
#    plain parallel read of both tensors in the same run (two such reads bound a two-pass
#    computation: the KL divergence needs the min/max of the first pass).
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build="$repo/build/release"
mib=256
repeat=3
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --build-dir) build=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --keep-data) keep=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done

data_prefix=dumpscope-bench-compare
. "$repo/bench/benchdata.sh"

echo "== building bench_compare in $build (Release)"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDUMPSCOPE_BUILD_GUI=OFF >"$data/cmake.log" 2>&1 \
    || { cat "$data/cmake.log" >&2; exit 1; }
cmake --build "$build" --target bench_compare >"$data/build.log" 2>&1 || { tail -40 "$data/build.log" >&2; exit 1; }

echo "== generating two $mib MiB float32 tensors in $data"
"$python" "$repo/bench/gen_tree.py" --big-tensor "$data/npu.bin" --dtype float32 --mib "$mib"
"$python" - "$data/npu.bin" "$data/bench.bin" <<'PY'
import struct, sys
import numpy as np
src, dst = sys.argv[1], sys.argv[2]
with open(src, "rb") as fh:
    (hl,) = struct.unpack("<Q", fh.read(8))
    head = struct.pack("<Q", hl) + fh.read(hl)
a = np.memmap(src, dtype="<f4", mode="r", offset=8 + hl)
rng = np.random.default_rng(1)
with open(dst, "wb") as out:
    out.write(head)
    step = 1 << 22
    for i in range(0, a.size, step):
        b = (a[i:i + step] + rng.standard_normal(min(step, a.size - i)).astype(np.float32) * np.float32(1e-3)).astype("<f4")
        b[(-i) % 1000::1000] = 0
        out.write(b.tobytes())
PY

echo "== bench_compare"
"$build/bench/bench_compare" "$data/npu.bin" "$data/bench.bin" --repeat "$repeat" | tee "$data/cpp.json"
echo "== numpy"
"$python" "$repo/tests/oracle/compare_numpy.py" bench "$data/npu.bin" "$data/bench.bin" "$repeat" | tee "$data/numpy.json"

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
echo
echo "machine: ${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr)"
echo "revision: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
"$python" - "$data/cpp.json" "$data/numpy.json" <<'PY'
import json, sys
c, n = (json.load(open(p)) for p in sys.argv[1:3])
ratio = c["gbps"] / n["gbps"]
cv, nv = c["values"], n["values"]
agree = (abs(cv["dot"] - nv["dot"]) <= 1e-9 * abs(nv["dot"]) and cv["max_abs_err"] == nv["max_abs_err"]
         and abs(cv["kl_divergence"] - nv["kl_divergence"]) <= 1e-6 * abs(nv["kl_divergence"]) + 1e-15
         and cv["one_thousandth_err_ratio"] == nv["one_thousandth_err_ratio"])
ok = c["gbps"] >= 2.0 and ratio >= 20 and agree
print(f"| compare metrics, 2 x {c['bytes'] / 2 / 2**20:.0f} MiB float32 | {c['gbps']:.2f} GB/s ({c['seconds'] * 1e3:.0f} ms, "
      f"first pass alone {c['first_pass_seconds'] * 1e3:.0f} ms, {c['threads']} threads; memory read loop {c['read_gbps']:.2f} GB/s, "
      f"{c['two_pass_bound_fraction'] * 100:.0f} % of two reads) | numpy {n['gbps']:.3f} GB/s "
      f"({n['seconds']:.2f} s) | {ratio:.1f}x | >= 2 GB/s, >= 20x numpy | {'ok' if ok else 'MISSED'}"
      f"{'' if agree else ' (values disagree)'} |")
sys.exit(0 if ok else 1)
PY
