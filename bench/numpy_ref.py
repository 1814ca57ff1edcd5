#!/usr/bin/env python3
"""numpy reference timing for the statistics benchmark.

    python3 numpy_ref.py FILE --dtype float32|float16 --repeat 3

FILE is a big-tensor dump written by `gen_tree.py --big-tensor`: u64 LE
header_len, the DumpData header, then the raw tensor.  The payload is mapped
with np.memmap (offset 8 + header_len) in its native dtype, and the best of
REPEAT runs of min, max, mean, std and a 256-bin histogram is reported as JSON:
{"dtype", "bytes", "seconds", "gbps"} plus the computed values for cross-checks
("values").  float16 mean/std accumulate in float32 (numpy's float16 std overflows).
"""

import argparse
import json
import os
import struct
import sys
import time

try:
    import numpy as np
except ImportError:  # a pyenv/venv python without numpy: retry with the system one
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise


def map_payload(path, dtype):
    with open(path, "rb") as fh:
        (header_len,) = struct.unpack("<Q", fh.read(8))
    offset = 8 + header_len
    itemsize = np.dtype(dtype).itemsize
    count = (os.path.getsize(path) - offset) // itemsize
    if count <= 0:
        raise SystemExit(f"{path}: no payload after a {header_len}-byte header")
    return np.memmap(path, dtype=np.dtype(dtype).newbyteorder("<"), mode="r", offset=offset, shape=(count,))


def finite_or_none(x):
    return float(x) if np.isfinite(x) else None


def run_once(a):
    # numpy already accumulates float16 means in float32; its float16 std does not
    # (the sum of squares overflows to inf on big arrays), so ask for float32 there.
    acc = np.float32 if a.dtype == np.float16 else None
    t0 = time.perf_counter()
    values = {"min": a.min(), "max": a.max(), "mean": a.mean(dtype=acc), "std": a.std(dtype=acc)}
    counts, _ = np.histogram(a, bins=256)
    seconds = time.perf_counter() - t0
    values = {k: finite_or_none(v) for k, v in values.items()}
    values["histogram_total"] = int(counts.sum())
    return seconds, values


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--dtype", choices=["float32", "float16"], default="float32")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    a = map_payload(args.file, args.dtype)
    best, values = min((run_once(a) for _ in range(max(1, args.repeat))), key=lambda r: r[0])
    nbytes = int(a.nbytes)
    print(json.dumps({"dtype": args.dtype, "bytes": nbytes, "seconds": best,
                      "gbps": nbytes / best / 1e9, "values": values}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
