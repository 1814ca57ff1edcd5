#!/bin/sh
# Writes samples/msprobe_precheck/{pytorch_fixture,pytorch_bf16} with the real msprobe 26.0.0
# (acc_check, api_precision_compare) run on the CPU through acc_check_cpu.py. See ../README.md.
#   sh tools/make_precheck.sh /path/to/msprobe-checkout
set -eu
MSPROBE=$1
HERE=$(cd "$(dirname "$0")/.." && pwd)
SHIMS=$HERE/../msprobe_real/tools/shims
WORK=${WORK:-/tmp/msprobe_precheck_work}
export PYTHONPATH=$SHIMS:$MSPROBE/python OMP_NUM_THREADS=1 PYTHONHASHSEED=0
run() { /usr/bin/python3 "$HERE/tools/acc_check_cpu.py" "$@"; }
rm -rf "$WORK" && mkdir -p "$WORK"

# 1. msprobe's own run_ut test fixture (samples/msprobe_fixtures/msprobe_test/run_ut/dump.json);
#    msprobe 26's acc_check wants a "framework" key the 2024 fixture predates: added, nothing else.
mkdir -p "$WORK/fixture" && cd "$WORK/fixture"
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump({'framework': 'pytorch', **d}, open('dump.json', 'w'), indent=1)" \
    "$HERE/../msprobe_fixtures/msprobe_test/run_ut/dump.json"
run --perturb __mul__=0.05 --perturb cat=0.0005 acc_check -api_info dump.json -o out -save_error_data

# 2. a real msprobe dump of our model (msprobe_real npu_bf16_statistics_mix, step0 rank0), twice:
#    "npu" with designed errors in linear and layer_norm, "gpu" with smaller ones; then
#    api_precision_compare of the two details tables.
for side in npu gpu; do
    mkdir -p "$WORK/bf16_$side" && cd "$WORK/bf16_$side"
    cp "$HERE/../msprobe_real/dumps/npu_bf16_statistics_mix/step0/rank0/dump.json" dump.json
    if [ $side = npu ]; then
        run --perturb linear=0.02 --perturb layer_norm=0.004 --perturb softmax=0.0005 acc_check -api_info dump.json -o out -save_error_data
    else
        run --perturb linear=0.001 --perturb layer_norm=0.001 acc_check -api_info dump.json -o out
    fi
done
cd "$WORK"
run api_precision_compare -npu bf16_npu/out/accuracy_checking_details_*.csv -gpu bf16_gpu/out/accuracy_checking_details_*.csv -o bf16_npu/precision

# copy back: the CSVs as written (time-stamped names kept) and the error tensors
rm -rf "$HERE/pytorch_fixture" "$HERE/pytorch_bf16"
mkdir -p "$HERE/pytorch_fixture" "$HERE/pytorch_bf16"
# the fixture's error tensors (2048x2x1x256, 9 MB) are not kept: its CSVs only
cp fixture/out/*.csv "$HERE/pytorch_fixture/"
cp bf16_npu/out/*.csv bf16_npu/precision/*.csv "$HERE/pytorch_bf16/" && cp -r bf16_npu/ut_error_data* "$HERE/pytorch_bf16/"
