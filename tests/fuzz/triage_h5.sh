#!/usr/bin/env bash
# Sorts the crashes fuzz_h5dumper collected (default build/fuzz/findings/h5dumper) by where they
# happened: the first stack frame outside the sanitizer runtime, the C library and libFuzzer is
# in libhdf5 (contained in the product, which runs libhdf5 in a child process) or in DumpScope
# (a finding to fix). Exit status 1 when any crash is in DumpScope or does not reproduce.
#   bash tests/fuzz/triage_h5.sh [DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=build/fuzz/tests/fuzz/fuzz_h5dumper
dir=${1:-build/fuzz/findings/h5dumper}
[ -d "$dir" ] || { echo "no such directory: $dir" >&2; exit 2; }
lib=0 ours=0 norepro=0
for f in "$dir"/*; do
  [ -f "$f" ] || continue
  out=$(ASAN_OPTIONS=fast_unwind_on_malloc=0:suppressions=tests/fuzz/asan_hdf5.supp \
        LSAN_OPTIONS=suppressions=tests/fuzz/lsan_hdf5.supp \
        timeout 120 "$bin" -timeout=20 -rss_limit_mb=2048 "$f" 2>&1)
  if ! printf '%s\n' "$out" | grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|ALARM:|deadly signal'; then
    norepro=$((norepro + 1))
    printf '%-8s %s\n' no-repro "$(basename "$f")"
    continue
  fi
  frame=$(printf '%s\n' "$out" | grep -E '^ +#[0-9]+ ' \
          | grep -vE ' in (__interceptor_|__asan|__sanitizer|__lsan|__ubsan|malloc|calloc|realloc|free|operator new|raise|abort|fuzzer::)|libclang_rt|/libc\.so|sysdeps/|/libstdc\+\+' \
          | head -1)
  if printf '%s' "$frame" | grep -q 'libhdf5'; then
    lib=$((lib + 1)); where=libhdf5
  else
    ours=$((ours + 1)); where=DumpScope
  fi
  printf '%-9s %s  %s\n' "$where" "$(basename "$f")" "$(printf '%s' "$frame" | sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ //' | cut -c1-110)"
done
echo "in libhdf5: $lib, in DumpScope: $ours, not reproduced: $norepro"
[ "$ours" -eq 0 ] && [ "$norepro" -eq 0 ]
