#!/usr/bin/env bash
# Runs every libFuzzer harness one after another for SECONDS each (default 600) over a
# working copy of its seed corpus, then prints libFuzzer's final stats line per harness.
#   cmake --preset fuzz && cmake --build build/fuzz && bash tests/fuzz/run_all.sh [SECONDS] [HARNESS...]
# Crashes are written to build/fuzz/findings/<harness>/; logs to build/fuzz/logs/<harness>.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-600}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(dumpdata opdebug gegraph_text getext_fast onnx_text mappingcsv dumpname \
    msprobe_dumpjson msprobe_sidecar torch_pt pickle npy h5dumper comparetable)
out=build/fuzz
mkdir -p "$out/logs"
for h in "${harnesses[@]}"; do
  work="$out/work/$h"
  mkdir -p "$work" "$out/findings/$h"
  cp -n tests/fuzz/corpus/"$h"/* "$work"/ 2>/dev/null
  [ -d tests/fuzz/regressions/"$h" ] && cp -n tests/fuzz/regressions/"$h"/* "$work"/ 2>/dev/null
  dict=()
  [ -f tests/fuzz/"$h".dict ] && dict=(-dict=tests/fuzz/"$h".dict)
  maxlen=65536
  env=()
  extra=()
  if [ "$h" = h5dumper ]; then
    maxlen=131072 # the sample .h5 files are 72 KB
    # libhdf5 has no frame pointers: unwind with DWARF so the suppression sees HDF5's own leak.
    # Its own out-of-bounds reads, seen by ASan's interceptors, are suppressed (asan_hdf5.supp).
    env=(ASAN_OPTIONS=fast_unwind_on_malloc=0:suppressions=tests/fuzz/asan_hdf5.supp
         LSAN_OPTIONS=suppressions=tests/fuzz/lsan_hdf5.supp)
    # libhdf5 1.10.8 still crashes (SIGSEGV, huge malloc) on some damaged files: keep fuzzing
    # in a forked worker and collect those crashes; triage_h5.sh sorts them by where they
    # crashed (the product contains them: libhdf5 runs in a child process).
    extra=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  echo "== $h ($secs s)"
  env "${env[@]}" "$out/tests/fuzz/fuzz_$h" "$work" "${dict[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
      -max_len=$maxlen -print_final_stats=1 -artifact_prefix="$out/findings/$h/" "${extra[@]}" >"$out/logs/$h.log" 2>&1
  echo "exit $?"
  grep -E "^#[0-9]+.*(DONE|cov:)" "$out/logs/$h.log" | tail -1 # fork mode: "#N: cov: ... exec/s"
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/logs/$h.log"
done
