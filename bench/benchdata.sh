# Sourced by bench_compare.sh and run_benchmarks.sh once their options are read (they set
# $keep, and $data_prefix, the scratch folder's name): picks $python (/usr/bin/python3 when
# present, as the tests do; it must have numpy) and makes the scratch folder $data, removed on
# exit, also on Ctrl-C, unless --keep-data ($keep = 1).
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
"$python" -c "import numpy" 2>/dev/null || { echo "numpy is needed ($python has none)" >&2; exit 1; }

data=$(mktemp -d "${TMPDIR:-/tmp}/$data_prefix.XXXXXX")
cleanup() {
    if [ "$keep" = 1 ]; then echo "data kept in $data"; else rm -rf "$data"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
