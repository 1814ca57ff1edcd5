#!/usr/bin/env python3
"""The structure aligner's cost on an exact-name compare (issue 31 item 2): the same
`dumpscope-cli compare NPU BENCH --mode summary --quiet` with the aligner on (default) and off
(`--no-align`), alternating, each timed as its own process under /usr/bin/time.

    python3 bench/bench_align.py --cli build/release/app/dumpscope-cli --dir /tmp/msprobe_run8 [--repeat 3]

DIR/npu and DIR/bench: an 8-rank run and its bench as bench_msprobe_run.py writes them
(gen_msprobe_json.py --run DIR/npu --ranks 8 ...; DIR/bench with --diverge-pass 20), whose op
streams line up by name, so rule 4 takes the exact-name fast path. Prints every run, the medians
and on / off (target: at most 1.5).
"""
import json
import statistics
import subprocess
import sys
import tempfile


def opt(name, default, conv=str):
    return conv(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def timed(cmd):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        out = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%e %U %S %M"] + cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if out.returncode != 0:
            raise SystemExit("failed (%d): %s" % (out.returncode, " ".join(cmd)))
        wall, user, sys_, rss = t.read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss) * 1024


def main():
    cli, root, repeat = opt("--cli", "build/release/app/dumpscope-cli"), opt("--dir", "/tmp/msprobe_run8"), opt("--repeat", 3, int)
    base = [cli, "compare", root + "/npu", root + "/bench", "--mode", "summary", "--quiet"]
    runs = {"on": [], "off": []}
    timed(base)  # warm the page cache
    for i in range(repeat):
        for name, extra in (("on", []), ("off", ["--no-align"])) if i % 2 == 0 else (("off", ["--no-align"]), ("on", [])):
            wall, cpu, rss = timed(base + extra)
            runs[name].append({"wall_s": wall, "cpu_s": cpu, "rss": rss})
            print(json.dumps({"aligner": name, "wall_s": wall, "cpu_s": cpu, "rss": rss}), flush=True)
    med = {k: {m: statistics.median(r[m] for r in v) for m in ("wall_s", "cpu_s", "rss")} for k, v in runs.items()}
    print(json.dumps({"median": med, "wall_on_vs_off": med["on"]["wall_s"] / med["off"]["wall_s"],
                      "cpu_on_vs_off": med["on"]["cpu_s"] / med["off"]["cpu_s"]}))


if __name__ == "__main__":
    main()
