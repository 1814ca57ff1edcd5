#!/usr/bin/env python3
"""Benchmark inputs: a large generated CANN model-dump tree, or one big tensor file.

    python3 gen_tree.py OUT_DIR --files 100000
        N small valid big-dump files (2 inputs + 1 output, a few hundred bytes each)
        under OUT_DIR/20240315101500/{0,1}/ge_default_20240315101512_1/1/{0..4}/

    python3 gen_tree.py --big-tensor FILE --dtype float32|float16 --mib 256
        one dump file with a single ND output of MIB MiB of standard-normal values
        (fixed seed), readable by DumpScope and by numpy_ref.py alike.

Headers are hand-encoded with the same protobuf helpers as the committed samples
(samples/generate_samples.py); per-operator byte templates are built once and
only the op name and dump_time are encoded per file.
"""

import argparse
import os
import struct
import sys
import time
from pathlib import Path

try:
    import numpy as np
except ImportError:  # a pyenv/venv python without numpy: retry with the system one
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
from generate_samples import (DTYPES, Op, Tensor, encode_header, encode_tensor_desc,  # noqa: E402
                              f_bytes, f_string, f_varint, nd_tensor, original_op_msg,
                              private_tensor, sanitize)

SEED = 20240315
MODEL_DIR = "20240315101500/{dev}/ge_default_20240315101512_1/1/{idx}"
BASE_TS = 1710490512000000


def small_templates():
    """(op_type, scope suffix, inputs, outputs) of a transformer-like layer."""
    r = np.random.default_rng(SEED)

    def h(*shape):
        return r.standard_normal(shape).astype(np.float16)

    def f(*shape):
        return r.standard_normal(shape).astype(np.float32)

    return [
        ("MatMulV2", "attention/self/query/MatMul",
         [private_tensor(h(8, 12), "float16", "FRACTAL_NZ"), nd_tensor(h(12, 8), "float16")],
         [nd_tensor(h(8, 8), "float16")]),
        ("Add", "attention/self/query/BiasAdd", [nd_tensor(h(8, 8), "float16"), nd_tensor(h(8), "float16")],
         [nd_tensor(h(8, 8), "float16")]),
        ("Mul", "attention/self/Mul", [nd_tensor(h(4, 16), "float16"), nd_tensor(h(4, 16), "float16")],
         [nd_tensor(h(4, 16), "float16")]),
        ("SoftmaxV2", "attention/self/Softmax", [nd_tensor(f(4, 16), "float32"), nd_tensor(f(4), "float32")],
         [nd_tensor(f(4, 16), "float32")]),
        ("Conv2D", "conv/Conv2D", [private_tensor(h(1, 3, 2, 2), "float16", "NC1HWC0"),
                                   private_tensor(h(2, 3, 1, 1), "float16", "FRACTAL_Z")],
         [private_tensor(h(1, 2, 2, 2), "float16", "NC1HWC0")]),
        ("Cast", "output/Cast", [nd_tensor(f(8, 8), "float32"), nd_tensor(f(2), "float32")],
         [nd_tensor(f(8, 8), "bfloat16")]),
    ]


class Template:
    """Pre-encoded header fields 3/4 and payload of one operator kind."""

    def __init__(self, op_type, scope, inputs, outputs):
        self.op_type, self.scope = op_type, scope
        outs = b"".join(f_bytes(3, encode_tensor_desc(t, True, original_op_msg(scope, j, DTYPES[t.dtype][0])))
                        for j, t in enumerate(outputs))
        ins = b"".join(f_bytes(4, encode_tensor_desc(t, False)) for t in inputs)
        self.io = outs + ins
        self.payload = b"".join(t.raw for t in inputs) + b"".join(t.raw for t in outputs)
        self.version = f_string(1, "2.0")

    def file_bytes(self, op_name, dump_time):
        header = self.version + f_varint(2, dump_time) + self.io + f_string(6, op_name)
        return struct.pack("<Q", len(header)) + header + self.payload


def write_tree(out_dir, n_files):
    templates = [Template(*t) for t in small_templates()]
    dirs = []
    for dev in range(2):
        for idx in range(5):
            d = Path(out_dir) / MODEL_DIR.format(dev=dev, idx=idx)
            d.mkdir(parents=True, exist_ok=True)
            dirs.append(str(d))
    n_dirs, n_tmpl = len(dirs), len(templates)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    for i in range(n_files):
        d, k = i % n_dirs, i // n_dirs  # directory, position of the file inside it
        tmpl = templates[k % n_tmpl]
        op_name = f"bert/encoder/layer_{k // n_tmpl}/{tmpl.scope}"
        ts = BASE_TS + k * 10 + d // 5  # 16 digits, unique inside a directory
        name = f"{tmpl.op_type}.{sanitize(op_name)}.{k % 65536}.{2 + k % 3}.{ts}"
        fd = os.open(os.path.join(dirs[d], name), flags, 0o644)
        try:
            os.write(fd, tmpl.file_bytes(op_name, ts))
        finally:
            os.close(fd)


def write_big_tensor(path, dtype, mib):
    """One ND output of `mib` MiB; the payload is streamed in chunks (fixed seed)."""
    np_dtype = np.dtype(DTYPES[dtype][1])
    n = mib * (1 << 20) // np_dtype.itemsize
    t = Tensor(dtype, "ND", [n], b"", None, original_shape=[n])
    t.size = n * np_dtype.itemsize
    header = encode_header(Op("BigTensor", "bench/big_tensor", 1, 0, BASE_TS, [], [t]))
    rng = np.random.default_rng(SEED)
    chunk = 1 << 22
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(header)) + header)
        done = 0
        while done < n:
            m = min(chunk, n - done)
            fh.write(rng.standard_normal(m, dtype=np.float32).astype(np_dtype).tobytes())
            done += m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", nargs="?", help="root of the generated tree")
    ap.add_argument("--files", type=int, default=100000)
    ap.add_argument("--big-tensor", metavar="FILE")
    ap.add_argument("--dtype", choices=["float32", "float16", "float64"], default="float32")
    ap.add_argument("--mib", type=int, default=256)
    args = ap.parse_args()
    if not args.out_dir and not args.big_tensor:
        ap.error("give OUT_DIR and/or --big-tensor FILE")
    t0 = time.perf_counter()
    if args.out_dir:
        write_tree(args.out_dir, args.files)
        print(f"{args.files} files in {time.perf_counter() - t0:.1f} s under {args.out_dir}")
    if args.big_tensor:
        t0 = time.perf_counter()
        write_big_tensor(args.big_tensor, args.dtype, args.mib)
        print(f"{args.big_tensor}: {args.mib} MiB {args.dtype} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
