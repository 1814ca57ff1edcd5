#!/usr/bin/env bash
# Every message in the Simplified Chinese translation must be finished:
#   - no <translation type="unfinished">,
#   - no empty <translation></translation> (or empty <numerusform> of a plural message),
#   - the same %-placeholders (%1..%99, %L1, %n) as the source, in any order.
# Prints the offending source texts and exits 1; otherwise prints
# "translations complete: N messages". An optional argument names another .ts file.
set -u
if [ $# -gt 0 ]; then ts=$(realpath -- "$1"); else ts=translations/dumpscope_zh_CN.ts; fi
cd "$(dirname "$0")/.." || exit 2
[ -f "$ts" ] || { echo "missing $ts"; exit 2; }
command -v python3 >/dev/null || { echo "python3 is required"; exit 2; }

python3 - "$ts" <<'PY'
import re
import sys
import xml.etree.ElementTree as ET

path = sys.argv[1]
try:
    root = ET.parse(path).getroot()
except ET.ParseError as e:
    print(f"{path}: not well-formed XML: {e}")
    sys.exit(1)

placeholder = re.compile(r"%(?:L?[1-9][0-9]?|n)")

def placeholders(s):
    return sorted(placeholder.findall(s or ""))

problems = []
count = 0
for ctx in root.iter("context"):
    cname = ctx.findtext("name", "")
    for msg in ctx.iter("message"):
        src = msg.findtext("source", "")
        tr = msg.find("translation")
        kind = tr.get("type") if tr is not None else None
        if kind in ("vanished", "obsolete"):
            continue  # not compiled into the .qm
        count += 1
        where = f"[{cname}] {src!r}"
        if tr is None:
            problems.append(f"no <translation>: {where}")
            continue
        if kind == "unfinished":
            problems.append(f'type="unfinished": {where}')
        forms = [f.text or "" for f in tr.findall("numerusform")]
        if msg.get("numerus") == "yes" or forms:
            texts = forms or [""]
        else:
            texts = [tr.text or ""]
        for t in texts:
            if t == "":
                problems.append(f"empty translation: {where}")
            elif placeholders(t) != placeholders(src):
                problems.append(f"placeholders {placeholders(src)} in source but {placeholders(t)} "
                                f"in translation {t!r}: {where}")

if problems:
    print(f"{path}: {len(problems)} problem(s) in {count} messages:")
    for p in problems:
        print("  " + p)
    sys.exit(1)
print(f"translations complete: {count} messages")
PY
