#!/bin/sh
# Rewrites samples/msprobe_monitor/{monitor_output,monitor_v2_output} (see ../README.md).
#   sh tools/make_monitor.sh /path/to/msprobe-checkout
set -eu
MSPROBE=$1
HERE=$(cd "$(dirname "$0")/.." && pwd)
export PYTHONPATH=$HERE/../msprobe_real/tools/shims:$MSPROBE/python OMP_NUM_THREADS=1 PYTHONHASHSEED=0
rm -rf "$HERE/monitor_output" "$HERE/monitor_v2_output"
/usr/bin/python3 "$HERE/tools/render_monitor.py" "$HERE"
# msprobe's own ranking of the first anomalies (core/monitor/anomaly_processor.py _anomaly_analyse)
/usr/bin/python3 -c "import torch113_compat, runpy, sys; sys.argv = ['anomaly_processor', '-d', sys.argv[1]]; runpy.run_module('msprobe.core.monitor.anomaly_processor', run_name='__main__')" \
    "$HERE/monitor_output/anomaly_detected"
