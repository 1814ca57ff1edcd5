#!/bin/sh
# DumpScope performance benchmarks: one command, see docs/PERFORMANCE.md for the protocol.
#
#   bench/run_benchmarks.sh [--build-dir DIR] [--quick] [--baseline REV] [--keep-data]
#
# 1. builds the Release tree (GUI off) in DIR (default: build/release of this checkout);
# 2. generates the inputs in a temporary directory (removed on exit, also on Ctrl-C):
#    a 100,000-file model-dump tree and 256 MiB float32 and float16 single-tensor dumps
#    (bench/gen_tree.py, fixed seed);
# 3. runs, in the same run on the same files: bench_index (ds::buildIndex, warm cache, best of
#    3), bench_stats (ds::computeStatsAndHistogram, 256 bins, best of 3, plus a plain read loop
#    over the same mapped bytes), bench/numpy_ref.py (numpy min/max/mean/std/histogram on the
#    same payload, best of 3) and bench_layout (NC1HWC0 / FRACTAL_NZ fp16 to ND, best of 10,
#    against memcpy of the same size);
# 4. prints a table with the ratios and the targets, and checks that DumpScope and numpy agree
#    on min, max and the histogram total.
#
# --quick        10,000 files and 32 MiB tensors (a smoke test; the targets are for the full run)
# --baseline REV also builds git revision REV (with this checkout's bench/ sources) in
#                DIR-baseline and runs the same C++ benchmarks with it: a before/after column
# --keep-data    keep the generated data (its directory is printed)
#
# Files twice msprobe's caps (20 GiB dump.json, cold-disk statistics, 20 GiB .npy/.pt, a 2 GiB
# compare table) are measured apart, one big input at a time: bench/bench_big_files.py PART
# (inputs from bench/gen_big_dumpjson.py; figures in docs/scale/files.md).
#
# Needs: cmake, ninja, a C++20 compiler, and a Python 3 with numpy (/usr/bin/python3 is used
# when present, as tests do). The machine should be otherwise idle: timings are wall clock.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build="$repo/build/release"
files=100000
mib=256
baseline=""
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --build-dir) build=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --quick) files=10000; mib=32; shift ;;
    --baseline) baseline=$2; shift 2 ;;
    --keep-data) keep=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done

data_prefix=dumpscope-bench
. "$repo/bench/benchdata.sh"

build_tree() { # source-dir build-dir
    cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDUMPSCOPE_BUILD_GUI=OFF >"$data/cmake.log" 2>&1 \
        || { cat "$data/cmake.log" >&2; exit 1; }
    cmake --build "$2" --target bench_index bench_stats bench_layout >"$data/build.log" 2>&1 \
        || { tail -40 "$data/build.log" >&2; exit 1; }
}

echo "== building $build (Release)"
build_tree "$repo" "$build"
if [ -n "$baseline" ]; then
    # The baseline's sources live next to its build (kept between runs, re-extracted only when
    # the revision changes); the benchmark sources are always this checkout's.
    rev=$(git -C "$repo" rev-parse --verify "$baseline^{commit}")
    base="$build-baseline"
    echo "== building baseline $baseline ($rev) in $base"
    if [ "$(cat "$base/REVISION" 2>/dev/null)" != "$rev" ]; then
        rm -rf "$base"
        mkdir -p "$base/src"
        git -C "$repo" archive "$rev" | tar -x -C "$base/src"
        echo "$rev" >"$base/REVISION"
    fi
    mkdir -p "$base/src/bench"
    for f in "$repo"/bench/*.cpp "$repo"/bench/*.h "$repo"/bench/CMakeLists.txt; do
        cmp -s "$f" "$base/src/bench/$(basename "$f")" || cp "$f" "$base/src/bench/"
    done
    build_tree "$base/src" "$base/build"
fi

echo "== generating data in $data ($files files, $mib MiB tensors)"
"$python" "$repo/bench/gen_tree.py" "$data/tree" --files "$files"
"$python" "$repo/bench/gen_tree.py" --big-tensor "$data/f32.bin" --dtype float32 --mib "$mib"
"$python" "$repo/bench/gen_tree.py" --big-tensor "$data/f16.bin" --dtype float16 --mib "$mib"

run_cpp() { # bin-dir tag
    echo "== C++ benchmarks ($2)"
    "$1/bench_index" "$data/tree" | tee "$data/$2-index.json"
    "$1/bench_stats" "$data/f32.bin" | tee "$data/$2-stats-f32.json"
    "$1/bench_stats" "$data/f16.bin" | tee "$data/$2-stats-f16.json"
    "$1/bench_layout" | tee "$data/$2-layout.json"
}
run_cpp "$build/bench" new
[ -n "$baseline" ] && run_cpp "$build-baseline/build/bench" base
echo "== numpy reference"
"$python" "$repo/bench/numpy_ref.py" "$data/f32.bin" --dtype float32 --repeat 3 | tee "$data/numpy-f32.json"
"$python" "$repo/bench/numpy_ref.py" "$data/f16.bin" --dtype float16 --repeat 3 | tee "$data/numpy-f16.json"

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" | head -1)
echo
echo "machine: ${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr); $($compiler --version | head -1)"
echo "revision: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
"$python" - "$data" "$files" "$mib" "$baseline" <<'EOF'
import json, sys
data, files, mib, baseline = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def load(name):
    with open(f"{data}/{name}.json") as fh:
        return [json.loads(line) for line in fh if line.startswith("{")]

def results(tag):
    idx, f32, f16, lay = (load(f"{tag}-{n}") for n in ("index", "stats-f32", "stats-f16", "layout"))
    return {"index": idx[0], "float32": f32[0], "float16": f16[0], "layout": {r["layout"]: r for r in lay}}

new = results("new")
base = results("base") if baseline else None
npy = {"float32": load("numpy-f32")[0], "float16": load("numpy-f16")[0]}
targets = {"float32": 10.0, "float16": 50.0}
rows = []
ok = True

def row(metric, value, ref, ratio, target, status, before=""):
    rows.append((metric, value, ref, ratio, target, status, before))

n = new["index"]
passed = n["files_per_s"] >= 30000
ok &= passed
row(f"index, {n['files']:,} files", f"{n['files_per_s']:,.0f} files/s", f"{n['seconds']:.3f} s", "", ">= 30,000 files/s",
    "ok" if passed else "MISSED", f"{base['index']['files_per_s']:,.0f} files/s" if base else "")
for dt in ("float32", "float16"):
    s, r = new[dt], npy[dt]
    ratio = s["gbps"] / r["gbps"]
    agree = (s["values"]["min"] == r["values"]["min"] and s["values"]["max"] == r["values"]["max"]
             and s["values"]["histogram_total"] == r["values"]["histogram_total"])
    passed = ratio >= targets[dt] and agree
    ok &= passed
    before = ""
    if base:
        b = base[dt]
        before = f"{b['gbps']:.2f} GB/s = {b['gbps'] / r['gbps']:.1f}x"
    row(f"stats+histogram {dt}, {mib} MiB", f"{s['gbps']:.2f} GB/s", f"numpy {r['gbps']:.3f} GB/s",
        f"{ratio:.1f}x", f">= {targets[dt]:.0f}x numpy", ("ok" if passed else "MISSED") + ("" if agree else " (values differ!)"),
        before)
    row(f"  read loop, same bytes", f"{s['read_loop_gbps']:.2f} GB/s", f"{s['gbps'] / s['read_loop_gbps']:.0%} of it", "", "", "")
for name, l in new["layout"].items():
    before = f"{base['layout'][name]['gbps']:.2f} GB/s" if base else ""
    row(f"layout {name} fp16 {l['host_shape']}", f"{l['gbps']:.2f} GB/s", f"memcpy {l['memcpy_gbps']:.2f} GB/s",
        f"{l['gbps'] / l['memcpy_gbps']:.2f}x", "", "correct" if l["correct"] else "WRONG", before)
    ok &= bool(l["correct"])

head = ("metric", "DumpScope", "reference", "ratio", "target", "status") + (("before (" + baseline + ")",) if base else ())
table = [head] + [r[:len(head)] for r in rows]
widths = [max(len(str(r[i])) for r in table) for i in range(len(head))]
print()
for i, r in enumerate(table):
    print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    if i == 0:
        print("  ".join("-" * w for w in widths))
print()
print("all targets met" if ok else "SOME TARGETS MISSED")
if files != 100000 or mib != 256:
    print("(--quick run: the targets are defined for 100,000 files and 256 MiB)")
EOF
