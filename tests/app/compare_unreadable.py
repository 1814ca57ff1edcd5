#!/usr/bin/env python3
"""A compare names the files it could not read, per side, and compares the rest.

    compare_unreadable.py --cli DUMPSCOPE_CLI --tmp DIR

Copies two msprobe runs of samples/msprobe_multirun (md5, two steps x two ranks), then damages
three dump.json files: the NPU run's step0/rank0 truncated to its first 300 bytes, its
step1/rank0 emptied, the bench run's step1/rank0 replaced by bytes that are not JSON. The text
report of `compare NPU BENCH` must name each damaged file under its side with the reader's reason
("could not be read"), still report the undamaged scopes' first divergences, end with a report
exit code, and write nothing into either run (every file's bytes and the file list unchanged).
Before this check a compare of such runs said nothing about the three files (their operators
were silently missing). Not a timing test.
"""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "samples" / "msprobe_multirun" / "dumps" / "md5"


class Checker:
    def __init__(self):
        self.failed = 0

    def check(self, ok, what):
        if not ok:
            self.failed += 1
            print("FAIL: " + what)


def snapshot(root):
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def main():
    args = sys.argv[1:]
    cli, tmp = Path(args[args.index("--cli") + 1]), Path(args[args.index("--tmp") + 1])
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    npu, bench = tmp / "npu", tmp / "bench"
    shutil.copytree(SAMPLES / "run1", npu)
    shutil.copytree(SAMPLES / "run4", bench)
    damaged = {
        ("npu", "step0/rank0/dump.json"): lambda b: b[:300],
        ("npu", "step1/rank0/dump.json"): lambda b: b"",
        ("bench", "step1/rank0/dump.json"): lambda b: bytes((i * 37 + 11) % 256 for i in range(2000)),
    }
    for (side, rel), damage in damaged.items():
        path = (npu if side == "npu" else bench) / rel
        path.write_bytes(damage(path.read_bytes()))
    before = (snapshot(npu), snapshot(bench))
    c = Checker()

    p = subprocess.run([str(cli), "compare", str(npu), str(bench)], capture_output=True, text=True)
    c.check(p.returncode in (0, 4), "exit code %d (stderr: %s)" % (p.returncode, p.stderr[-300:]))
    text = p.stdout
    for (side, rel) in damaged:
        header = "file(s) of the %s side could not be read" % side
        at = text.find(header)
        c.check(at >= 0, "no '%s' section" % header)
        c.check(("  %s: " % rel) in text, "%s (%s side) is not named in the report" % (rel, side))
    c.check("step0/rank0/dump.json: file ends inside entry" in text, "the truncated file's reason is not the reader's")
    c.check("first divergence (step step0, rank rank1)" in text, "the undamaged scope step0/rank1 is not reported")

    j = subprocess.run([str(cli), "compare", str(npu), str(bench), "--json"], capture_output=True, text=True)
    try:
        json.loads(j.stdout)
    except ValueError as e:
        c.check(False, "--json does not parse: %s" % e)
    c.check((snapshot(npu), snapshot(bench)) == before, "a file of the runs changed or was added")

    if c.failed:
        print("%d check(s) failed" % c.failed)
        return 1
    print("compare_unreadable: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
