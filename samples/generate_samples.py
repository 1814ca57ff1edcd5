#!/usr/bin/env python3
"""Generate the committed CANN dump samples and samples/manifest.json.

Deterministic (fixed seeds); run it again to recreate the trees byte for byte:

    python3 samples/generate_samples.py

The samples are meant to be an *independent oracle* for DumpScope's C++ reader,
so this script deliberately does not use any protobuf library and does not port
the C++ index formulas:

* the DumpData header is hand-encoded from the field tables of
  shared/specs/cann-dump.md section 5 (varints, length-delimited fields,
  packed Shape.dim);
* private layouts are produced host -> device from the logical (ND) numpy array
  with the spec's "array view" descriptions (pad, reshape, transpose).  Only the
  grouped FRACTAL_Z layout, which has no array-view form, runs the spec's
  section 8.6 loop.  Every worked example of section 8 is asserted on start-up.

Only the standard library and numpy are used.  Files written: samples/cann/**
and samples/manifest.json (entries of samples whose name does not start with
"cann_" are kept as they are).
"""

import hashlib
import json
import os
import math
import re
import shutil
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = Path(os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE)

# ----------------------------------------------------------------------------
# Enums (cann-dump.md section 6.1: proto numbering; section 7: ge::Format)
# ----------------------------------------------------------------------------

# name -> (proto data_type, numpy dtype of the raw elements or None, export descr)
DTYPES = {
    "float32": (1, "<f4", "<f4"),
    "float16": (2, "<f2", "<f2"),
    "int8": (3, "|i1", "|i1"),
    "uint8": (4, "|u1", "|u1"),
    "int16": (5, "<i2", "<i2"),
    "uint16": (6, "<u2", "<u2"),
    "int32": (7, "<i4", "<i4"),
    "int64": (8, "<i8", "<i8"),
    "uint32": (9, "<u4", "<u4"),
    "uint64": (10, "<u8", "<u8"),
    "bool": (11, "|b1", "|b1"),
    "float64": (12, "<f8", "<f8"),
    "bfloat16": (27, None, "<f4"),
}

FORMATS = {
    "NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4,
    "NC1HWC0_C04": 12, "HWCN": 16, "C1HWNCoC0": 25, "FRACTAL_NZ": 29,
    "NCDHW": 30, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33,
}

# ----------------------------------------------------------------------------
# Protobuf wire encoding (proto3: default values are not serialised)
# ----------------------------------------------------------------------------


def varint(n):
    """Unsigned LEB128; negative int32/int64 values are 10-byte sign-extended."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_varint(num, value):
    return varint(num << 3) + varint(value) if value else b""


def f_bytes(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data if data else b""


def f_string(num, text):
    return f_bytes(num, text.encode("utf-8"))


def shape_msg(dims):
    """Shape { repeated uint64 dim = 1 [packed] }."""
    return f_bytes(1, b"".join(varint(d) for d in dims))


def original_op_msg(name, output_index=0, data_type=0, fmt=0):
    return (f_string(1, name) + f_varint(2, output_index)
            + f_varint(3, data_type) + f_varint(4, fmt))


# OpOutput and OpInput use different field numbers after `shape`.
OUT_FIELDS = dict(data_type=1, format=2, shape=3, original_op=4, data=5, size=6,
                  original_shape=7, sub_format=8, address=9)
IN_FIELDS = dict(data_type=1, format=2, shape=3, data=4, size=5,
                 original_shape=6, sub_format=7, address=8)


def encode_tensor_desc(t, is_output, original_op=b""):
    """Serialise one OpOutput / OpInput, fields in field-number order."""
    f = OUT_FIELDS if is_output else IN_FIELDS
    shape = shape_msg(t.shape)
    fields = [
        (f["data_type"], f_varint(f["data_type"], DTYPES[t.dtype][0])),
        (f["format"], f_varint(f["format"], FORMATS[t.fmt])),
        # `shape` is always present, even when it has no dims
        (f["shape"], varint(f["shape"] << 3 | 2) + varint(len(shape)) + shape),
        (f["data"], f_bytes(f["data"], t.raw if t.inline else b"")),
        (f["size"], f_varint(f["size"], t.size)),
        (f["original_shape"], f_bytes(f["original_shape"], shape_msg(t.original_shape or []))),
        (f["sub_format"], f_varint(f["sub_format"], t.sub_format)),
        (f["address"], f_varint(f["address"], t.address)),
    ]
    if is_output:
        fields.append((f["original_op"], f_bytes(f["original_op"], original_op)))
    return b"".join(data for _, data in sorted(fields, key=lambda x: x[0]))


def encode_header(op, version="2.0"):
    """DumpData: version(1), dump_time(2), output(3)*, input(4)*, op_name(6).

    Outputs (field 3) are serialised before inputs (field 4), as the writer does;
    the payload order is the opposite (inputs first)."""
    out = f_string(1, version) + f_varint(2, op.dump_time)
    for t in op.outputs:
        oop = original_op_msg(*t.original_op) if t.original_op else b""
        out += f_bytes(3, encode_tensor_desc(t, True, oop))
    for t in op.inputs:
        out += f_bytes(4, encode_tensor_desc(t, False))
    out += f_string(6, op.op_name)
    return out


def encode_big_dump(op):
    header = encode_header(op)
    payload = b"".join(t.raw for t in op.inputs) + b"".join(t.raw for t in op.outputs)
    return struct.pack("<Q", len(header)) + header + payload


# ----------------------------------------------------------------------------
# Tensors
# ----------------------------------------------------------------------------


class Tensor:
    """One dumped tensor: device description + raw bytes + logical ND values.

    `nd` holds the logical values in the export dtype (bfloat16 -> float32)."""

    def __init__(self, dtype, fmt, shape, raw, nd, original_shape=None,
                 sub_format=0, address=0, inline=False):
        self.dtype, self.fmt, self.shape = dtype, fmt, [int(d) for d in shape]
        self.raw, self.nd = raw, nd
        self.size = len(raw)  # the header's `size`; bench/gen_tree.py streams bigger payloads
        self.original_shape = None if original_shape is None else [int(d) for d in original_shape]
        self.sub_format, self.address, self.inline = sub_format, address, inline
        # outputs: (name, output_index, data_type, format); () = no OriginalOp
        self.original_op = None


class Op:
    def __init__(self, op_type, op_name, task_id, stream_id, timestamp, inputs, outputs):
        self.op_type, self.op_name = op_type, op_name
        self.task_id, self.stream_id, self.dump_time = task_id, stream_id, timestamp
        self.inputs, self.outputs = inputs, outputs
        for j, t in enumerate(outputs):
            if t.original_op is None:
                t.original_op = (op_name, j, DTYPES[t.dtype][0], 0)

    def file_name(self):
        return f"{self.op_type}.{sanitize(self.op_name)}.{self.task_id}.{self.stream_id}.{self.dump_time}"


def sanitize(name):
    """cann-dump.md 3.2: '.', '/', '\\' and space become '_'."""
    return re.sub(r"[./\\ ]", "_", name)


def rng_for(key):
    return np.random.default_rng(zlib.crc32(key.encode("utf-8")))


def f32_to_bf16_bits(x):
    """Round float32 to the upper 16 bits (round to nearest, ties to even)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16_bits_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def nd_tensor(values, dtype, fmt="ND", with_original_shape=True):
    """A tensor stored as is (ND / NCHW ...): the device shape is the logical shape."""
    if dtype == "bfloat16":
        bits = f32_to_bf16_bits(values)
        nd = bf16_bits_to_f32(bits)
        raw = bits.astype("<u2").tobytes()
    else:
        nd = np.ascontiguousarray(values, dtype=DTYPES[dtype][1])
        raw = nd.tobytes()
    orig = list(nd.shape) if with_original_shape else None
    return Tensor(dtype, fmt, nd.shape, raw, nd, orig)


# ----------------------------------------------------------------------------
# Host (logical) -> device layouts, as numpy array views (cann-dump.md 8.x)
# ----------------------------------------------------------------------------


def cube(dtype):
    return {"int8": 32, "uint8": 32, "int4": 64}.get(dtype, 16)


def pad_to(a, axis, size):
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, size - a.shape[axis])
    return np.pad(a, widths)  # zero padding, +0.0 for floats


def ceil_div(a, b):
    return -(-a // b)


def to_nc1hwc0(x, c0):
    """[N,C,H,W] -> [N,C1,H,W,C0]: pad C, reshape [N,C1,C0,H,W], permute."""
    n, c, h, w = x.shape
    c1 = ceil_div(c, c0)
    return pad_to(x, 1, c1 * c0).reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2)


def to_ndc1hwc0(x, c0):
    """[N,C,D,H,W] -> [N,D,C1,H,W,C0]."""
    n, c, d, h, w = x.shape
    c1 = ceil_div(c, c0)
    return pad_to(x, 1, c1 * c0).reshape(n, c1, c0, d, h, w).transpose(0, 3, 1, 4, 5, 2)


def to_fractal_z(x, c0):
    """[N,C,H,W] -> [C1*H*W, N1, 16, C0] (element order [C1][H][W][N1*16][C0])."""
    n, c, h, w = x.shape
    c1, n1 = ceil_div(c, c0), ceil_div(n, 16)
    p = pad_to(pad_to(x, 0, n1 * 16), 1, c1 * c0)
    return p.reshape(n1, 16, c1, c0, h, w).transpose(2, 4, 5, 0, 1, 3).reshape(c1 * h * w, n1, 16, c0)


def to_fractal_z_3d(x, c0):
    """[N,C,D,H,W] -> [D*C1*H*W, N1, 16, C0] (element order [D][C1][H][W][N1*16][C0])."""
    n, c, d, h, w = x.shape
    c1, n1 = ceil_div(c, c0), ceil_div(n, 16)
    p = pad_to(pad_to(x, 0, n1 * 16), 1, c1 * c0)
    return (p.reshape(n1, 16, c1, c0, d, h, w).transpose(4, 2, 5, 6, 0, 1, 3)
            .reshape(d * c1 * h * w, n1, 16, c0))


def to_fractal_nz(x, c0):
    """[..., H, W] -> [..., W1, H1, 16, C0]: column blocks of width C0 holding all padded rows."""
    *lead, h, w = x.shape
    h1, w1 = ceil_div(h, 16), ceil_div(w, c0)
    p = pad_to(pad_to(x, x.ndim - 2, h1 * 16), x.ndim - 1, w1 * c0)
    p = p.reshape(*lead, h1 * 16, w1, c0)
    return np.swapaxes(p, -3, -2).reshape(*lead, w1, h1, 16, c0)


def to_c1hwncoc0(x, c0):
    """[N,C,H,W] -> [C1,H,W,N,Co,C0]; only the Co == C0 diagonal carries data."""
    n, c, h, w = x.shape
    c1 = ceil_div(c, c0)
    t = pad_to(x, 1, c1 * c0).reshape(n, c1, c0, h, w).transpose(1, 3, 4, 0, 2)
    dev = np.zeros((c1, h, w, n, c0, c0), dtype=x.dtype)
    k = np.arange(c0)
    dev[..., k, k] = t
    return dev


def grouped_fractal_z_params(n, c, h, w, groups, cb=16):
    cin, cout = c, n // groups
    e_mult = min(math.lcm(math.lcm(cin, cb) // cin, math.lcm(cout, 16) // cout), groups)
    c1 = ceil_div(e_mult * cin, cb)
    cout_opt = ceil_div(e_mult * cout, 16) * 16
    shape = [ceil_div(groups, e_mult) * c1 * h * w, ceil_div(cout * e_mult, cb), 16, cb]
    return cin, cout, e_mult, c1, cout_opt, shape


def to_fractal_z_grouped(x, groups, cb=16):
    """Grouped FRACTAL_Z (sub_format = groups): the spec's section 8.6 loop."""
    n, c, h, w = x.shape
    cin, cout, e_mult, c1, cout_opt, shape = grouped_fractal_z_params(n, c, h, w, groups, cb)
    dev = np.zeros(int(np.prod(shape)), dtype=x.dtype)
    host = x.reshape(-1)
    for g in range(groups):
        e = g % e_mult
        for ci in range(cin):
            dst_ci = e * cin + ci
            for hh in range(h):
                for ww in range(w):
                    for co in range(cout):
                        dst_co, src_co = e * cout + co, g * cout + co
                        d = ((g // e_mult) * c1 * h * w * cout_opt * cb
                             + (dst_ci // cb) * h * w * cout_opt * cb
                             + hh * w * cout_opt * cb + ww * cout_opt * cb
                             + dst_co * cb + dst_ci % cb)
                        dev[d] = host[src_co * c * h * w + ci * h * w + hh * w + ww]
    return dev.reshape(shape)


CONVERTERS = {
    "NC1HWC0": to_nc1hwc0,
    "NC1HWC0_C04": lambda x, c0: to_nc1hwc0(x, 4),
    "NDC1HWC0": to_ndc1hwc0,
    "FRACTAL_Z": to_fractal_z,
    "FRACTAL_Z_3D": to_fractal_z_3d,
    "FRACTAL_NZ": to_fractal_nz,
    "C1HWNCoC0": to_c1hwncoc0,
}


def private_tensor(host, dtype, fmt, groups=0):
    """Store the logical array `host` in a private device layout."""
    host = np.ascontiguousarray(host, dtype=DTYPES[dtype][1])
    if fmt == "FRACTAL_Z" and groups > 1:
        dev = to_fractal_z_grouped(host, groups)
    else:
        dev = CONVERTERS[fmt](host, cube(dtype))
    dev = np.ascontiguousarray(dev)
    return Tensor(dtype, fmt, dev.shape, dev.tobytes(), host, host.shape, sub_format=groups)


def check_worked_examples():
    """Every worked example of cann-dump.md 8.2-8.9, as host -> device round trips."""

    def check(fmt, host_shape, dev_shape, dst, src, groups=0):
        host = np.arange(1, int(np.prod(host_shape)) + 1, dtype=np.float16).reshape(host_shape)
        t = private_tensor(host, "float16", fmt, groups)
        assert t.shape == dev_shape, (fmt, t.shape, dev_shape)
        dev = np.frombuffer(t.raw, dtype="<f2")
        assert dev[src] == host.reshape(-1)[dst], (fmt, dst, src)
        assert np.count_nonzero(dev) == host.size, fmt  # everything else is padding

    check("NC1HWC0", [1, 20, 1, 2], [1, 2, 1, 2, 16], 35, 49)
    check("NC1HWC0_C04", [1, 3, 1, 2], [1, 1, 1, 2, 4], 5, 6)
    check("NDC1HWC0", [1, 3, 2, 1, 1], [1, 2, 1, 1, 1, 16], 5, 18)
    check("FRACTAL_Z", [2, 3, 1, 2], [2, 1, 16, 16], 11, 274)
    check("FRACTAL_Z", [2, 1, 1, 1], [1, 1, 16, 16], 0, 0, groups=2)
    check("FRACTAL_Z", [2, 1, 1, 1], [1, 1, 16, 16], 1, 17, groups=2)
    check("FRACTAL_Z", [32, 8, 1, 1], [2, 1, 16, 16], 253, 509, groups=4)
    check("FRACTAL_NZ", [3, 18], [2, 1, 16, 16], 53, 289)
    check("C1HWNCoC0", [2, 3, 1, 1], [1, 1, 1, 2, 16, 16], 5, 290)
    check("FRACTAL_Z_3D", [2, 3, 2, 1, 1], [2, 1, 16, 16], 11, 274)


# ----------------------------------------------------------------------------
# Statistics and manifest entries (the conventions DumpScope follows)
# ----------------------------------------------------------------------------


def tensor_stats(nd):
    v = nd.astype(np.float64).reshape(-1)
    fin = v[np.isfinite(v)]
    s = {"count": int(v.size)}
    if fin.size:
        s.update(min=float(fin.min()), max=float(fin.max()), mean=float(fin.mean()),
                 std=float(fin.std()), l2norm=float(np.sqrt(np.sum(fin * fin))))
    else:
        s.update(min=None, max=None, mean=None, std=None, l2norm=None)
    s.update(nan=int(np.isnan(v).sum()), posinf=int(np.isposinf(v).sum()),
             neginf=int(np.isneginf(v).sum()), zero=int((v == 0).sum()))
    hist = None
    if fin.size:
        assert fin.min() < fin.max(), "keep sample tensors non-constant"
        counts, _ = np.histogram(fin, bins=16, range=(fin.min(), fin.max()))
        hist = {"bins": 16, "range": [float(fin.min()), float(fin.max())],
                "counts": [int(c) for c in counts]}
    return s, hist


def manifest_entry(tensor_id, t):
    stats, hist = tensor_stats(t.nd)
    export = np.ascontiguousarray(t.nd.astype(DTYPES[t.dtype][2]))
    return {
        "id": tensor_id, "dtype": t.dtype, "format": t.fmt, "shape": t.shape,
        "original_shape": t.original_shape or [], "nd_shape": list(t.nd.shape),
        "export_descr": DTYPES[t.dtype][2],
        "nd_sha256": hashlib.sha256(export.tobytes()).hexdigest(),
        "raw_sha256": hashlib.sha256(t.raw).hexdigest(),
        "stats": stats, "histogram": hist,
    }


class Sample:
    def __init__(self, name, path):
        self.name, self.path, self.root = name, path, ROOT / path
        self.ops, self.tensors, self.errors, self.expected = 0, 0, [], []
        if self.root.exists():
            shutil.rmtree(self.root)

    def write(self, reldir, file_name, data):
        p = self.root / reldir / file_name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return p

    def add_op(self, reldir, op, file_name=None, data=None):
        """Write a valid dump file and record its tensors as expected."""
        file_name = file_name or op.file_name()
        self.write(reldir, file_name, encode_big_dump(op) if data is None else data)
        rel = f"{reldir}/{file_name}" if reldir else file_name
        self.ops += 1
        for io, tensors in (("input", op.inputs), ("output", op.outputs)):
            for i, t in enumerate(tensors):
                self.expected.append(manifest_entry(f"{rel}.{io}.{i}", t))
                self.tensors += 1

    def add_error(self, reldir, file_name, data, word):
        self.write(reldir, file_name, data)
        self.errors.append({"file": f"{reldir}/{file_name}", "contains": word})

    def manifest(self):
        return {"name": self.name, "path": self.path, "format": "cann", "ops": self.ops,
                "tensors": self.tensors, "errors": self.errors,
                "tensors_expected": self.expected}


ADDR = [0x12C040000000]


def addr(t):
    """Give a tensor a plausible device address (exercises long varints)."""
    t.address = ADDR[0]
    ADDR[0] += 0x10000
    return t


def f16(a):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(a).astype(np.float16)


def conv2d(x, w):
    win = np.lib.stride_tricks.sliding_window_view(x.astype(np.float32), w.shape[2:], axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", win, w.astype(np.float32))


# ----------------------------------------------------------------------------
# Operators of the samples
# ----------------------------------------------------------------------------


def op_conv2d(ts, task, name="resnet/conv1/Conv2D"):
    r = rng_for(f"{name}.{ts}")
    x = f16(r.standard_normal((1, 20, 7, 7)))
    w = f16(r.standard_normal((8, 20, 3, 3)) * 0.1)
    y = f16(conv2d(x, w))
    ins = [addr(private_tensor(x, "float16", "NC1HWC0")), addr(private_tensor(w, "float16", "FRACTAL_Z"))]
    return Op("Conv2D", name, task, 3, ts, ins, [addr(private_tensor(y, "float16", "NC1HWC0"))])


def op_relu(ts, task, name="resnet/relu1/Relu"):
    r = rng_for(f"{name}.{ts}")
    x = r.standard_normal((2, 150)).astype(np.float32)
    return Op("Relu", name, task, 3, ts, [addr(nd_tensor(x, "float32"))],
              [addr(nd_tensor(np.maximum(x, np.float32(0)), "float32"))])


def op_matmul(ts, task, name="fc/MatMul"):
    r = rng_for(f"{name}.{ts}")
    a = f16(r.standard_normal((20, 40)))
    b = f16(r.standard_normal((40, 24)) * 0.2)
    y = f16(a.astype(np.float32) @ b.astype(np.float32))
    ins = [private_tensor(a, "float16", "FRACTAL_NZ"), private_tensor(b, "float16", "FRACTAL_NZ")]
    return Op("MatMulV2", name, task, 3, ts, ins, [private_tensor(y, "float16", "FRACTAL_NZ")])


def op_batch_matmul(ts, task):
    name = "attn/BatchMatMul"
    r = rng_for(f"{name}.{ts}")
    a = f16(r.standard_normal((2, 18, 33)))
    b = f16(r.standard_normal((2, 33, 20)) * 0.2)
    y = f16(np.matmul(a.astype(np.float32), b.astype(np.float32)))
    ins = [private_tensor(a, "float16", "FRACTAL_NZ"), nd_tensor(b, "float16")]
    return Op("BatchMatMulV2", name, task, 3, ts, ins, [nd_tensor(y, "float16")])


def op_cast_bf16(ts, task):
    name = "head/cast.bf16 out"  # '.', '/' and ' ' are sanitised in the file name
    x = (rng_for(f"{name}.{ts}").standard_normal((4, 64)) * 3).astype(np.float32)
    return Op("Cast", name, task, 3, ts, [nd_tensor(x, "float32")], [nd_tensor(x, "bfloat16")])


def op_quant(ts, task):
    name = "quant/AscendQuant"
    x = rng_for(f"{name}.{ts}").standard_normal(256) * 50
    x[:2] = [200.0, -300.0]  # saturate to 127 / -128
    x = f16(x)
    q = np.clip(np.rint(x.astype(np.float32)), -128, 127).astype(np.int8)
    return Op("AscendQuant", name, task, 3, ts, [nd_tensor(x, "float16")], [nd_tensor(q, "int8")])


def op_cast_int(ts, task):
    name = "cast_int/Cast"
    x = rng_for(f"{name}.{ts}").integers(-1000, 1000, size=(1, 3, 10, 10)).astype(np.int32)
    # NCHW = 0 is the proto3 default, so the format field is absent on the wire;
    # the output carries no original_shape at all.
    return Op("Cast", name, task, 3, ts, [nd_tensor(x, "int32", fmt="NCHW")],
              [nd_tensor(x.astype(np.float32), "float32", with_original_shape=False)])


def long_op_name():
    scopes = "/".join(f"transformer_block_{i}/multi_head_attention_{i}" for i in range(8))
    return f"model/{scopes}/loss_scale/Mul"


def op_mul_special(ts, task):
    name = long_op_name()
    r = rng_for(f"{name}.{ts}")
    x = f16(r.standard_normal((16, 40)) * 100)
    y = f16(r.standard_normal((16, 40)) * 100)
    out = (x.astype(np.float32) * y.astype(np.float32)).reshape(-1)
    special = {0: np.nan, 1: np.nan, 77: np.nan, 5: np.inf, 200: np.inf, 7: -np.inf,
               300: -np.inf, 9: 0.0, 10: 0.0, 11: 0.0, 12: -0.0, 13: 65504.0, 14: 65504.0,
               15: -65504.0, 16: 2.0 ** -24, 17: -(2.0 ** -20)}
    for k, v in special.items():
        out[k] = v
    out = f16(out.reshape(16, 40))  # products > 65504 become +-Inf as well
    return Op("Mul", name, task, 3, ts, [nd_tensor(x, "float16"), nd_tensor(y, "float16")],
              [nd_tensor(out, "float16")])


def op_add_single(ts, task):
    r = rng_for(f"Add.{ts}")
    a, b = f16(r.standard_normal((16, 32))), f16(r.standard_normal((16, 32)))
    return Op("Add", "Add", task, 0, ts, [nd_tensor(a, "float16"), nd_tensor(b, "float16")],
              [nd_tensor(f16(a.astype(np.float32) + b.astype(np.float32)), "float16")])


def op_conv2d_c04(ts, task):
    r = rng_for(f"Conv2D.{ts}")
    x = f16(r.standard_normal((1, 3, 10, 10)))
    w = f16(r.standard_normal((16, 3, 3, 3)) * 0.2)
    y = f16(conv2d(x, w))
    return Op("Conv2D", "Conv2D", task, 0, ts,
              [private_tensor(x, "float16", "NC1HWC0_C04"), private_tensor(w, "float16", "FRACTAL_Z")],
              [private_tensor(y, "float16", "NC1HWC0")])


def op_conv3d_single(ts, task):
    r = rng_for(f"Conv3D.{ts}")
    x = f16(r.standard_normal((1, 20, 4, 5, 5)))
    y = f16(r.standard_normal((1, 8, 2, 3, 3)))
    return Op("Conv3D", "Conv3D", task, 0, ts, [private_tensor(x, "float16", "NDC1HWC0")],
              [private_tensor(y, "float16", "NDC1HWC0")])


def op_group_conv(ts, task):
    name = "group_conv/Conv2D"
    r = rng_for(f"{name}.{ts}")
    x = f16(r.standard_normal((1, 32, 4, 4)))
    w = f16(r.standard_normal((32, 8, 2, 2)))  # groups = 4: Cin = Cout = 8 per group
    y = f16(r.standard_normal((1, 32, 3, 3)))
    return Op("Conv2D", name, task, 1, ts,
              [private_tensor(x, "float16", "NC1HWC0"), private_tensor(w, "float16", "FRACTAL_Z", groups=4)],
              [private_tensor(y, "float16", "NC1HWC0")])


def op_conv3d_weight(ts, task):
    name = "conv3d/Conv3D"
    r = rng_for(f"{name}.{ts}")
    x = f16(r.standard_normal((1, 18, 3, 3, 3)))
    w = f16(r.standard_normal((20, 18, 2, 2, 2)))
    y = f16(r.standard_normal((1, 20, 2, 2, 2)))
    return Op("Conv3D", name, task, 1, ts,
              [private_tensor(x, "float16", "NDC1HWC0"), private_tensor(w, "float16", "FRACTAL_Z_3D")],
              [private_tensor(y, "float16", "NDC1HWC0")])


def op_depthwise(ts, task):
    name = "dw/DepthwiseConv2D"
    r = rng_for(f"{name}.{ts}")
    x = f16(r.standard_normal((1, 20, 5, 5)))
    w = f16(r.standard_normal((2, 20, 3, 3)))
    y = f16(r.standard_normal((1, 40, 3, 3)))
    return Op("DepthwiseConv2D", name, task, 1, ts,
              [private_tensor(x, "float16", "NC1HWC0"), private_tensor(w, "float16", "C1HWNCoC0")],
              [nd_tensor(y, "float16", fmt="NCHW")])


def op_relu_f32_5d(ts, task):
    name = "f32/Relu"
    x = rng_for(f"{name}.{ts}").standard_normal((2, 20, 3, 3)).astype(np.float32)
    return Op("Relu", name, task, 1, ts, [private_tensor(x, "float32", "NC1HWC0")],
              [private_tensor(np.maximum(x, np.float32(0)), "float32", "NC1HWC0")])


def op_maxpool_int8(ts, task):
    name = "int8/MaxPool"
    x = rng_for(f"{name}.{ts}").integers(-128, 128, size=(1, 40, 4, 4)).astype(np.int8)
    y = x.reshape(1, 40, 2, 2, 2, 2).max(axis=(3, 5))
    return Op("MaxPool", name, task, 1, ts, [private_tensor(x, "int8", "NC1HWC0")],
              [private_tensor(y, "int8", "NC1HWC0")])


# ----------------------------------------------------------------------------
# Sample trees
# ----------------------------------------------------------------------------

MODEL_DIR = "20240315101500/0/ge_default_20240315101512_1/1"


def build_model_dump():
    s = Sample("cann_model_dump", "cann/model_dump")
    d0, d1 = f"{MODEL_DIR}/0", f"{MODEL_DIR}/1"
    base0, base1 = 1710490512000000, 1710490513000000
    for k, make in enumerate([op_conv2d, op_relu, op_matmul, op_batch_matmul,
                              op_cast_bf16, op_quant, op_cast_int], start=1):
        s.add_op(d0, make(base0 + k, 11 + k))

    # Name longer than the OS limit: numeric file + header-less mapping.csv row.
    mul = op_mul_special(base0 + 8, 19)
    assert len(mul.file_name()) > 255
    s.add_op(d0, mul, file_name="1234567890")
    s.write(d0, "mapping.csv", f"1234567890,{mul.file_name()}\n".encode())

    conv, relu = op_conv2d(base1 + 1, 12), op_relu(base1 + 2, 13)
    for op in (conv, relu, op_matmul(base1 + 3, 14)):
        s.add_op(d1, op)

    # Broken files; every name parses as a dump name.
    good = encode_big_dump(relu)
    s.add_error(d1, f"Relu.relu_trunc.9.2.{base1 + 9}", good[:len(good) - 100], "truncated")
    junk = bytearray(rng_for("garbage").integers(0, 256, size=300, dtype=np.uint8).tobytes())
    junk[0] = (junk[0] & 0xF8) | 7  # wire type 7: the whole-file protobuf parse fails too
    junk[7] |= 0x80                  # absurd u64 header_len
    s.add_error(d1, f"Garbage.garbage_op.10.2.{base1 + 10}", bytes(junk), "unrecognised")
    s.add_error(d1, f"Empty.empty_op.11.2.{base1 + 11}", b"", "empty")
    hdr = encode_header(relu)
    bad_len = 0x10007  # > file size; first byte 0x07 is an invalid protobuf tag
    payload = b"".join(t.raw for t in relu.inputs + relu.outputs)
    s.add_error(d1, f"Relu.bad_header_len.12.2.{base1 + 12}",
                struct.pack("<Q", bad_len) + hdr + payload, "header")
    short = encode_big_dump(op_relu(base1 + 13, 20, name="size/mismatch/Relu"))
    s.add_error(d1, f"Relu.size_mismatch.13.2.{base1 + 13}", short[:-8], "truncated")
    return s


def build_single_op():
    s = Sample("cann_single_op", "cann/single_op")
    d = "20240315102000/0/0/0"
    base = 1710490520000000
    s.add_op(d, op_add_single(base + 1, 45))
    s.add_op(d, op_conv2d_c04(base + 2, 46))
    s.add_op(d, op_conv3d_single(base + 3, 47))
    return s


def build_layouts():
    s = Sample("cann_layouts", "cann/layouts")
    d = "20240315103000/0/layouts/1/0"
    base = 1710490530000000
    for k, make in enumerate([op_group_conv, op_conv3d_weight, op_depthwise,
                              op_relu_f32_5d, op_maxpool_int8], start=1):
        s.add_op(d, make(base + k, 20 + k))
    return s


# Byte-exact test vectors of cann-dump.md 11.1 and 11.2.
VECTOR_ADD = """
5a 00 00 00 00 00 00 00 0a 03 32 2e 30 10 80 80 f9 c0 c1 c4 82 03 1a 1b 08 02 10 02 1a 04 0a 02
02 02 22 07 0a 05 61 64 64 5f 31 30 08 3a 04 0a 02 02 02 22 12 08 02 10 02 1a 04 0a 02 02 02 28
08 32 04 0a 02 02 02 22 12 08 02 10 02 1a 04 0a 02 02 02 28 08 32 04 0a 02 02 02 32 05 61 64 64
5f 31 00 3c 00 40 00 42 00 44 00 38 00 38 00 bc 00 c0 00 3e 00 41 00 40 00 40
"""
VECTOR_RELU = """
0a 03 31 2e 30 10 80 80 f9 c0 c1 c4 82 03 1a 15 08 01 10 02 1a 03 0a 01 02 2a 08 00 00 00 00 00
00 00 40 30 08 22 15 08 01 10 02 1a 03 0a 01 02 22 08 00 00 80 bf 00 00 00 40 28 08 32 04 72 65
6c 75
"""


def build_vectors():
    s = Sample("cann_vectors", "cann/vectors")
    add_bytes, relu_bytes = bytes.fromhex(VECTOR_ADD), bytes.fromhex(VECTOR_RELU)
    assert len(add_bytes) == 122 and len(relu_bytes) == 66

    def fp16(vals):
        return nd_tensor(np.array(vals, dtype=np.float16).reshape(2, 2), "float16")

    add = Op("Add", "add_1", 3, 2, 1700000000000000,
             [fp16([1, 2, 3, 4]), fp16([0.5, 0.5, -1, -2])], [fp16([1.5, 2.5, 2, 2])])
    add.outputs[0].original_op = ("add_1",)
    # Our encoder must reproduce the spec's bytes exactly.
    assert encode_big_dump(add) == add_bytes, "encoder disagrees with spec 11.1"
    s.add_op("", add, data=add_bytes)

    def f32(vals):
        t = nd_tensor(np.array(vals, dtype=np.float32), "float32", with_original_shape=False)
        t.inline = True
        return t

    relu = Op("Relu", "relu", 5, None, 1700000000000000, [f32([-1, 2])], [f32([0, 2])])
    relu.outputs[0].original_op = ()  # the legacy vector has no OriginalOp
    # Legacy layout: the whole file is one DumpData with inline data.
    assert encode_header(relu, version="1.0") == relu_bytes, "encoder disagrees with spec 11.2"
    s.add_op("", relu, file_name="Relu.relu.5.1700000000000000", data=relu_bytes)
    return s


# ----------------------------------------------------------------------------


def compact_json(obj):
    """Indented JSON with number lists kept on one line."""
    text = json.dumps(obj, indent=1)
    return re.sub(r"\[\s*([-0-9.eE+,\s]*?)\s*\]",
                  lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",") if x.strip()) + "]",
                  text) + "\n"


def main():
    check_worked_examples()
    samples = [build_model_dump(), build_single_op(), build_layouts(), build_vectors()]
    manifest_path = ROOT / "manifest.json"
    kept = []
    if manifest_path.exists():
        old = json.loads(manifest_path.read_text())
        kept = [e for e in old.get("samples", []) if not e["name"].startswith("cann_")]
    manifest = {"version": 1, "samples": [s.manifest() for s in samples] + kept}
    manifest_path.write_text(compact_json(manifest))
    total = sum(p.stat().st_size for p in (ROOT / "cann").rglob("*") if p.is_file())
    for s in samples:
        print(f"{s.path}: {s.ops} ops, {s.tensors} tensors, {len(s.errors)} error files")
    print(f"cann/ total {total} bytes; manifest {manifest_path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
