#!/usr/bin/env python3
"""Benchmark input for overflow analysis: N OpDebug records, each naming (by payload stream and
task id) one of N small operator dump files, spread over 10 data_index directories.

    /usr/bin/python3 gen_overflow_tree.py OUT_DIR --records 10000
"""

import argparse
import os
import sys
from pathlib import Path

try:
    import numpy as np
except ImportError:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
import generate_samples as gs  # noqa: E402
import generate_overflow as go  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--records", type=int, default=10000)
    args = ap.parse_args()
    root = Path(args.out_dir)
    x = go.t16(np.linspace(-1, 1, 64).reshape(4, 16))
    y = go.t16(np.full((4, 16), 65504.0))
    base = 1711944000000000
    for i in range(args.records):
        d = root / "20240401120000" / "0" / "ge_default_1" / "1" / str(i % 10)
        d.mkdir(parents=True, exist_ok=True)
        task, stream = 1000 + i, i % 8
        ts = base + 10 * i
        op = gs.Op("MatMulV2", "layer%d_MatMul" % i, task, stream, ts, [x], [y])
        (d / ("MatMulV2.layer%d_MatMul.%d.%d.%d" % (i, task, stream, ts))).write_bytes(gs.encode_big_dump(op))
        payload = go.legacy_payload(go.ai_core(1, stream, task, 0x20))
        rec = go.opdebug_op(payload, ts + 5)
        (d / ("Opdebug.Node_OpDebug.%d.%d.%d" % (i, stream, ts + 5))).write_bytes(gs.encode_big_dump(rec))


if __name__ == "__main__":
    main()
