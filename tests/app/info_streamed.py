#!/usr/bin/env python3
"""`info` of a many-scope run keeps no operator index (issue 35, item 3).

    info_streamed.py --cli DUMPSCOPE_CLI --tmp DIR

Generates two statistics runs with bench/gen_scale_run.py, 32 ranks x 10 steps (320 scopes)
and 256 x 10 (2,560 scopes, 79,360 operators), and runs `info --json` on each NPU side. Oracle:
the operators are the entries of every scope's dump.json (json.load here), the steps and ranks
those of the folders written. Memory: the peak RSS (getrusage of the child) may grow by at most
12 KB per added scope between the two runs. When info indexed the whole run it grew by 50 KB
per scope (41 -> 154 MB: every operator's record kept); batches of scopes, each indexed,
counted and dropped (run/streamedinfo.h), grow by about 3 KB (the walk and the scopes' levels).
The bytes of the report equal the whole index's: tst_reportmerge streamedInfo. Not a timing test.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from scaletest import fresh_tmp, gen_run, parse_args  # noqa: E402
KB_PER_SCOPE = 12


def peak_rss(cmd):
    """Runs cmd in a child of its own (a fresh ru_maxrss) and returns (stdout, peak RSS bytes)."""
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
             "sys.stderr.write(p.stderr.decode(errors='replace')[-500:])\n"
             "sys.stdout.buffer.write(p.stdout)\n"
             "sys.stdout.buffer.write(b'\\n%d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(p.returncode)\n")
    p = subprocess.run([sys.executable, "-c", probe] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace")))
    body, rss = p.stdout.rstrip(b"\n").rsplit(b"\n", 1)
    return body, int(rss) * 1024


def expected(run):
    ops, steps, ranks = 0, set(), set()
    for dump in run.glob("step*/rank*/dump.json"):
        ops += len(json.loads(dump.read_text())["data"])
        steps.add(dump.parent.parent.name)
        ranks.add(dump.parent.name)
    return ops, sorted(steps), sorted(ranks)


def main():
    a = parse_args("cli")
    with fresh_tmp(a.tmp) as tmp:
        rss = {}
        for ranks in (32, 256):
            out = tmp / ("r%d" % ranks)
            gen_run(str(out), ranks)
            run = out / "npu"
            body, rss[ranks] = peak_rss([a.cli, "info", str(run), "--json"])
            doc = json.loads(body)
            ops, steps, ranks_seen = expected(run)
            got = (doc["ops"], doc["steps"], doc["ranks"], doc["errors"], doc["warnings"])
            if got != (ops, steps, ranks_seen, 0, 0):
                sys.exit("info of %d ranks: ops/steps/ranks/errors/warnings %r, expected %r" % (ranks, got, (ops, steps, ranks_seen, 0, 0)))
            if len(doc["runs"]) != 1 or len(doc["runs"][0]["scopes"]) != ranks * 10:
                sys.exit("info of %d ranks: runs %r" % (ranks, doc["runs"]))
            print("%d ranks x 10 steps: %d operators, peak RSS %.1f MB" % (ranks, ops, rss[ranks] / 1e6))
            shutil.rmtree(out)
        per_scope = (rss[256] - rss[32]) / (2560 - 320)
        print("growth: %.1f KB per scope (at most %d)" % (per_scope / 1024, KB_PER_SCOPE))
        if per_scope > KB_PER_SCOPE * 1024:
            sys.exit("info's peak RSS grows by %.1f KB per scope (more than %d KB): it keeps the operators"
                     % (per_scope / 1024, KB_PER_SCOPE))
    print("ok")


if __name__ == "__main__":
    main()
