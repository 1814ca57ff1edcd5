#!/usr/bin/env python3
"""Write a very large msprobe dump.json made of REAL msprobe entries, replicated (issue 35, item 1).

    python3 bench/gen_big_dumpjson.py OUT_DIR --gib 20 [--source DUMP_JSON]

Writes OUT_DIR/step0/rank0/dump.json of about --gib GiB (a float: 1 for the json.load slice).
The entries are those of a dump.json the real msprobe 26 wrote (default:
samples/msprobe_real/dumps/base_statistics_mix/step0/rank0/dump.json: statistics task, mix level,
31 entries of a small training step: convolutions, linear layers, layer norm, softmax, module
entries, backward entries, parameters_grad, all_reduce), written back with msprobe's own
json.dump(indent=1) formatting. Replica k renumbers each entry's call counter (the last
all-digit dot component of its name: "Functional.linear.1.forward", "Module.fc1.Linear.forward.0")
to k * 10**7 + r * 1000 + n so that every name stays unique and keeps msprobe's shape; the
statistics are the real ones. The same --source and a smaller --gib give a prefix of the same
entries (the 1 GiB slice of the 20 GiB file has the same entries as its first GiB).

Blocks of 1,024 replicas are formatted once and written with only the replica number changed,
so the file is written at close to the disk's rate (20 GiB in a few minutes). Nothing is written
into the repository: give an OUT_DIR under /tmp or a scratch folder, and delete it afterwards.
"""

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = HERE.parent / "samples/msprobe_real/dumps/base_statistics_mix/step0/rank0/dump.json"
BLOCK = 1024
MARK = "@K@"  # replaced by the replica-block number (no msprobe name holds "@")


def renamed(name, r, n):
    """The entry name with its call counter replaced by MARK + r (4 digits) + n (3 digits)."""
    parts = name.split(".")
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].isdigit():
            parts[i] = "%s%04d%03d" % (MARK, r, int(parts[i]))
            return ".".join(parts)
    raise SystemExit("entry name without a call counter: %s" % name)


def block_text(data):
    """One block of BLOCK replicas of the entries, as the lines msprobe writes inside "data"."""
    out = []
    for r in range(BLOCK):
        for n, (name, value) in enumerate(data.items()):
            body = json.dumps({renamed(name, r, n): value}, indent=1)
            # {"name": {...}} at indent=1 -> the member lines at the depth of "data"'s members
            inner = body[2:-2]
            out.append("\n".join(" " + line for line in inner.split("\n")))
    return ",\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--gib", type=float, required=True)
    ap.add_argument("--source", default=str(DEFAULT_SOURCE))
    a = ap.parse_args()
    src = json.load(open(a.source))
    data = src.pop("data")
    rank = Path(a.out) / "step0" / "rank0"
    rank.mkdir(parents=True, exist_ok=True)
    head = json.dumps(src, indent=1)[:-2] + ',\n "data": {\n'
    tail = "\n }\n}"
    template = block_text(data).encode()
    target = int(a.gib * (1 << 30))
    written = 0
    blocks = 0
    with open(rank / "dump.json", "wb") as f:
        f.write(head.encode())
        written += len(head)
        while written + len(template) + len(tail) <= target or blocks == 0:
            if blocks:
                f.write(b",\n")
                written += 2
            chunk = template.replace(MARK.encode(), str(blocks + 1).encode())
            f.write(chunk)
            written += len(chunk)
            blocks += 1
        f.write(tail.encode())
        written += len(tail)
    entries = blocks * BLOCK * len(data)
    print(json.dumps({"path": str(rank / "dump.json"), "bytes": written, "entries": entries,
                      "source": a.source, "source_entries": len(data)}))


if __name__ == "__main__":
    sys.exit(main())
