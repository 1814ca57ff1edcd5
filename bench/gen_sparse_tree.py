#!/usr/bin/env python3
"""A ~20 GB CANN model-dump tree that costs almost no disk: sparse big tensors + small files.

    python3 gen_sparse_tree.py OUT_DIR [--big 19] [--gib 1] [--files 20000]

Writes OUT_DIR/20240315101500/... with --files small valid operator dumps (bench/gen_tree.py's
templates) and --big operator dumps holding one float16 ND output of --gib GiB each, shaped
[rows, 16384]. The big payloads are holes (ftruncate): they read as zeros, take no disk
space, and make the tree's apparent size big * gib GiB.
"""
import argparse
import os
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_tree import BASE_TS, write_tree  # noqa: E402
from generate_samples import Op, Tensor, encode_header  # noqa: E402  (gen_tree put samples/ on the path)

COLS = 16384


def write_big(path, op_name, gib, ts):
    rows = gib * (1 << 30) // (2 * COLS)
    t = Tensor("float16", "ND", [rows, COLS], b"", None, original_shape=[rows, COLS])
    t.size = rows * COLS * 2
    header = encode_header(Op("MatMulV2", op_name, 7, 3, ts, [], [t]))
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(header)) + header)
        fh.truncate(8 + len(header) + t.size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--big", type=int, default=19)
    ap.add_argument("--gib", type=int, default=1)
    ap.add_argument("--files", type=int, default=20000)
    a = ap.parse_args()
    write_tree(a.out, a.files)
    d = Path(a.out) / "20240315101500/0/ge_default_20240315101512_1/1/0"
    for i in range(a.big):
        ts = BASE_TS + 900000000 + i
        name = f"bench/big/layer_{i}/MatMul"
        write_big(d / f"MatMulV2.bench_big_layer_{i}_MatMul.7.3.{ts}", name, a.gib, ts)
    total = sum(f.stat().st_size for f in Path(a.out).rglob("*") if f.is_file())
    used = sum(f.stat().st_blocks * 512 for f in Path(a.out).rglob("*") if f.is_file())
    print(f"{a.out}: apparent {total / 1e9:.1f} GB, on disk {used / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
