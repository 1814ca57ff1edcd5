#!/usr/bin/python3
"""Writes the .npy and torch.utils.dumper .h5 samples and their oracle, h5npy_manifest.json.

Run with /usr/bin/python3 (numpy and h5py): `/usr/bin/python3 samples/generate_h5npy.py`.

- samples/npy/convert/: msaccucmp / MindSpore conversion output
  `{op_type}.{op_name}.{task}[.{stream}].{timestamp}.{input|output}.{n}[.{format}.{dtype}].npy`
  (cann-dump.md §3.1, §2.4), with a Fortran-order, big-endian, float16 and 0-d array and one
  truncated member.
- samples/npy/loose/: MindSpore `{name}_{dtype}_{count}.npy` and other names, format
  versions 2.0/3.0, a Python 2 header, unicode and |V2 arrays, and bad files.
- samples/h5/: model_npu.h5 / model_gpu.h5 in the dumper layout (h5-dumper.md §2-§4) and
  bad/ files.

The manifest is computed from the Python objects written: for every .npy the descr, shape
and the bytes numpy loads (C order, little-endian); for every .h5 dataset the bytes h5py
reads back, its shape and dtype, and for non-tensor values the text their Python value gives.
"""
import base64
import json
import os
import shutil

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE
NPY = os.path.join(ROOT, "npy")
H5 = os.path.join(ROOT, "h5")

# numpy dtype -> DumpScope dtype name (tensor/dtype.h)
NAMES = {"bool": "bool", "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16",
         "int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64",
         "float16": "float16", "float32": "float32", "float64": "float64",
         "complex64": "complex64", "complex128": "complex128"}


def b64(a):
    """C-order little-endian bytes of an array as numpy holds it."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "V":
        a = a.view("<u2")
    elif a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return base64.b64encode(a.tobytes()).decode()


def rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, "/")


def npy_entry(path, original=None):
    """Manifest entry of a good .npy file, from what numpy loads."""
    a = np.load(path, allow_pickle=False)
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        np.lib.format._check_version(version)
        shape, fortran, dtype = np.lib.format._read_array_header(f, version)
    e = {"file": rel(path), "descr": np.lib.format.dtype_to_descr(dtype), "shape": list(shape),
         "fortran": bool(fortran), "version": "%d.%d" % version}
    if dtype.kind == "U":
        e["dtype"] = "string"
        flat = [str(s) for s in a.reshape(-1)]
        e["value"] = flat[0] if a.ndim == 0 else "[" + ", ".join("'%s'" % s for s in flat) + "]"
    elif dtype.kind == "V":
        e["dtype"] = "uint16"
        e["bytes"] = b64(a)
    else:
        e["dtype"] = NAMES[dtype.name]
        e["bytes"] = b64(a)
        if original and original != e["dtype"]:
            e["typeName"] = "%s (stored as %s)" % (original, e["dtype"])
        else:
            e["typeName"] = e["dtype"]
    return e


def write_header(path, header_dict_text, body, version=(1, 0), declared_len=None):
    """A .npy file with a hand-made header (for files numpy cannot write)."""
    text = header_dict_text.encode("latin1")
    prefix = 10 if version[0] == 1 else 12
    pad = 64 - (prefix + len(text) + 1) % 64
    text = text + b" " * (pad % 64) + b"\n"
    n = len(text) if declared_len is None else declared_len
    lenbytes = n.to_bytes(2 if version[0] == 1 else 4, "little")
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes(version) + lenbytes + text + body)


def gen_npy():
    shutil.rmtree(NPY, ignore_errors=True)
    conv = os.path.join(NPY, "convert")
    loose = os.path.join(NPY, "loose")
    os.makedirs(conv)
    os.makedirs(loose)
    rng = np.random.default_rng(20261122)
    manifest = {"convert": {"dir": "npy/convert", "ops": [], "errors": []},
                "loose": {"dir": "npy/loose", "ops": [], "errors": []}}

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    # (op_type, op_name, task, stream, timestamp, [(io, n, array, suffix, original dtype)])
    ops = [
        ("Conv2D", "conv1", 12, None, 1589195081588018, [
            ("input", 0, f32(1, 2, 4, 4), "", None),
            ("input", 1, np.asfortranarray(f32(3, 2, 3, 3)), "", None),
            ("output", 0, f32(1, 3, 2, 2).astype(np.float16), "", None)]),
        ("Add", "add_1", 13, None, 1589195081588100, [
            ("input", 0, f32(2, 3).astype(">f4"), "", None),
            ("input", 1, np.asfortranarray(rng.integers(-9, 9, (2, 3)).astype(">i8")), "", None),
            ("output", 0, f32(2, 3), "", None)]),
        ("ReduceSum", "sum", 14, None, 1589195081588200, [
            ("input", 0, rng.standard_normal((3, 4)), "", None),
            ("output", 0, np.array(2.5, dtype=np.float32), "", None)]),
        ("Cast", "Default_network-Cast-op1", 15, 0, 1589195081588300, [
            ("input", 0, f32(4), ".DefaultFormat.bfloat16", "bfloat16"),
            ("output", 0, f32(4).astype(np.float16), ".DefaultFormat.float16", "float16")]),
        ("Mul", "mul", 18, 2, 1589195081588600, [
            ("input", 0, (f32(2) + 1j * f32(2)).astype(">c16"), "", None),
            ("input", 1, rng.integers(-300, 300, (2, 2)).astype("<i2"), "", None),
            ("input", 2, rng.integers(-100, 100, (3,)).astype("|i1"), "", None),
            ("input", 3, (f32(2) - 1j * f32(2)).astype("<c8"), "", None),
            ("output", 0, rng.integers(0, 2**32, (2,), dtype=np.uint64).astype("<u4"), "", None),
            ("output", 1, rng.integers(0, 2**63, (2,), dtype=np.uint64).astype(">u8"), "", None),
            ("output", 2, rng.integers(-2**40, 2**40, (2,)).astype("<i4"), "", None)]),
        ("Less", "less", 17, None, 1589195081588500, [
            ("input", 0, rng.integers(0, 255, (2, 2)).astype("|u1"), "", None),
            ("input", 1, rng.integers(0, 65535, (2, 2)).astype(">u2"), "", None),
            ("output", 0, np.array([[True, False], [False, True]]), "", None)]),
    ]
    for op_type, op_name, task, stream, ts, tensors in ops:
        base = ".".join(str(x) for x in [op_type, op_name, task] + ([stream] if stream is not None else []) + [ts])
        entry = {"relPath": "npy/convert/" + base, "opType": op_type, "opName": op_name, "taskId": task,
                 "streamId": -1 if stream is None else stream, "timestamp": ts, "tensors": []}
        for io, n, arr, suffix, original in tensors:
            path = os.path.join(conv, "%s.%s.%d%s.npy" % (base, io, n, suffix))
            np.save(path, arr)
            t = npy_entry(path, original)
            t.update({"io": io, "index": n, "name": "%s.%d" % (io, n)})
            entry["tensors"].append(t)
        manifest["convert"]["ops"].append(entry)

    # An operator with a good input and a truncated output: the input still indexes.
    base = "Relu.relu.16.1589195081588400"
    good = os.path.join(conv, base + ".input.0.npy")
    np.save(good, f32(3, 3))
    t = npy_entry(good)
    t.update({"io": "input", "index": 0, "name": "input.0"})
    manifest["convert"]["ops"].append({"relPath": "npy/convert/" + base, "opType": "Relu", "opName": "relu",
                                       "taskId": 16, "streamId": -1, "timestamp": 1589195081588400,
                                       "tensors": [t]})
    bad = os.path.join(conv, base + ".output.0.npy")
    np.save(bad, f32(3, 3))
    with open(bad, "r+b") as f:
        f.truncate(os.path.getsize(bad) - 7)
    manifest["convert"]["errors"].append({"file": rel(bad), "contains": "needs 36 data bytes but the file holds 29"})
    manifest["convert"]["ops"].sort(key=lambda o: (o["timestamp"], o["relPath"]))

    # Loose files: one operator each.
    loose_files = []

    def add_loose(name, arr=None, writer=None, original=None, op_name=None, count=0, **kw):
        path = os.path.join(loose, name)
        if writer:
            writer(path)
        else:
            np.save(path, arr)
        e = npy_entry(path, original)
        loose_files.append((name, e, op_name if op_name is not None else name[:-4], count))

    add_loose("Tensor_float32_0.npy", f32(2, 3), original="float32", op_name="Tensor", count=0)
    add_loose("grad_bfloat16_2.npy", f32(3), original="bfloat16", op_name="grad", count=2)
    add_loose("mask_bool_1.npy", np.array([True, False, True, True]), original="bool", op_name="mask", count=1)
    add_loose("weights.npy", rng.standard_normal((2, 2)))
    add_loose("empty.npy", np.zeros((0, 3), dtype=np.float32))

    def v2(path):
        with open(path, "wb") as f:
            np.lib.format.write_array(f, np.arange(3, dtype="<i4") - 1, version=(2, 0))

    def v3(path):
        with open(path, "wb") as f:
            np.lib.format.write_array(f, np.array([1.5, -2.0], dtype="<f4"), version=(3, 0))

    def py2(path):
        body = np.arange(6, dtype="<f4").tobytes()
        write_header(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", body)

    add_loose("format_v2.npy", writer=v2)
    add_loose("format_v3.npy", writer=v3)
    add_loose("python2_header.npy", writer=py2)
    add_loose("names.npy", np.array(["ab", "cde", "fghij"]))
    add_loose("bf16_bits.npy", np.array([0x3F80, 0xC000, 0x3F00], dtype="<u2").view("V2"))
    for name, e, op_name, count in loose_files:
        t = dict(e)
        t.update({"io": "output", "index": 0, "name": name[:-4]})
        manifest["loose"]["ops"].append({"relPath": "npy/loose/" + name, "opType": "", "opName": op_name,
                                         "taskId": -1, "streamId": -1, "timestamp": count, "tensors": [t]})
    manifest["loose"]["ops"].sort(key=lambda o: (o["timestamp"], o["relPath"]))

    # Bad files beside the good ones, each with the error text DumpScope must give.
    bad_files = []
    p = os.path.join(loose, "bad_object.npy")
    np.save(p, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    bad_files.append((p, "object array"))
    p = os.path.join(loose, "bad_truncated.npy")
    np.save(p, np.arange(100, dtype=np.float64))
    with open(p, "r+b") as f:
        f.truncate(200)
    bad_files.append((p, "needs 800 data bytes but the file holds 72"))
    p = os.path.join(loose, "bad_header_length.npy")
    write_header(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", b"\0" * 8, declared_len=60000)
    bad_files.append((p, "header length 60000 runs past the end of the file"))
    p = os.path.join(loose, "bad_absurd_shape.npy")
    write_header(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000000), }", b"\0" * 16)
    bad_files.append((p, "needs 4000000000000000000 data bytes but the file holds 16"))
    p = os.path.join(loose, "bad_overflow_shape.npy")
    write_header(p, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }", b"\0" * 16)
    bad_files.append((p, "is too large (the byte count overflows)"))
    p = os.path.join(loose, "bad_eval.npy")
    write_header(p, "{'descr': __import__('os').system('true'), 'fortran_order': False, 'shape': (1,), }", b"\0" * 4)
    bad_files.append((p, "'__import__' is not a literal"))
    p = os.path.join(loose, "bad_magic.npy")
    with open(p, "wb") as f:
        f.write(b"PK\x03\x04 this is a zip, not a .npy file")
    bad_files.append((p, "not a .npy file"))
    for p, text in bad_files:
        manifest["loose"]["errors"].append({"file": rel(p), "contains": text})
    return manifest


# ---------------------------------------------------------------------------------------------
# torch.utils.dumper .h5

# h5-dumper.md §3: dumper DataType codes by the tensor dtype; float16 is stored as float32.
CODES = {"float32": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 6, "int64": 7, "bool": 9,
         "float16": 10, "float64": 11}
STORED = {"float32": "<f4", "uint8": "<i1", "int8": "<i1", "int16": "<i2", "int32": "<i4", "int64": "<i8",
          "bool": "<i1", "float16": "<f4", "float64": "<f8"}
SAVE_NAMES = {2: "int[] (VEC_I64)", 3: "int (I64)", 4: "bool (BOOL)", 5: "float (DOUBLE)", 6: "float? (OPT_DOUBLE)",
              7: "Scalar (SCALAR)", 9: "int? (OPT_INT64)", 10: "Scalar? (OPT_SCALAR)", 13: "size_t (SIZE)",
              14: "ScalarType", 15: "pair (PAIR)", 16: "long[] (AR_LONG_INT)", 17: "MemoryFormat (OPT_MEM_FMT)",
              18: "TensorOptions (TENSOR_OPTS)"}
CODE_NAMES = {v: k for k, v in CODES.items()}


class T:
    """A tensor argument: logical dtype name and values."""

    def __init__(self, dtype, values, device=None, fmt=0, **kw):
        self.dtype, self.values, self.device, self.fmt, self.kw = dtype, np.asarray(values), device, fmt, kw


class V:
    """A non-tensor argument: SaveType code, stored numpy value, expected text."""

    def __init__(self, save, value, stored, text, attrs=None):
        self.save, self.value, self.stored, self.text, self.attrs = save, value, stored, text, attrs or {}


def pyrepr(v):
    return repr(float(v)) if isinstance(v, (float, np.floating)) else str(v)


def ops_for(device, rng, conv_name, fmt_weight):
    def f(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    return [
        ("AddmmBackward", 4,
         {"grad": T("float32", f(4, 3)), "mat1": T("float32", f(4, 5)), "mat2": T("float32", f(5, 3)),
          "mat1_sizes": V(2, [4, 5], "<i8", "[4, 5]"), "mat2_sizes": V(2, [5, 3], "<i8", "[5, 3]"),
          "alpha": V(7, 1.0, "<f8", "1.0"), "beta": V(7, 0.5, "<f8", "0.5")},
         {"result0": T("float32", f(4, 5)), "result1": T("float32", f(5, 3))}),
        ("numpy_T", 1,
         {"self": T("float16", f(3, 2).astype(np.float16))},
         {"result": T("float16", f(2, 3).astype(np.float16))}),
        ("cat", 2,
         {"tensors": [T("float32", f(1, 2)) for _ in range(11)], "dim": V(3, 0, "<i8", "0")},
         {"result": T("float32", f(11, 2))}),
        (conv_name, 5,
         {"input": T("float32", f(1, 2, 5, 5)), "grad_output": T("float32", f(1, 4, 3, 3)),
          "weight": T("float32", f(4, 2, 3, 3), fmt=fmt_weight, chunks=(2, 2, 3, 3), compression="gzip"),
          "stride": V(2, [1, 1], "<i8", "[1, 1]"), "padding": V(16, [0, 0], "<i8", "[0, 0]"),
          "dilation": V(2, [1, 1], "<i8", "[1, 1]"), "groups": V(3, 1, "<i8", "1"),
          "transposed": V(4, 0, "<i1", "False")},
         {"result0": T("float32", f(1, 2, 5, 5)), "result1": T("float32", f(4, 2, 3, 3)),
          "result2": T("float32", f(4))}),
        ("ne", 6,
         {"self": T("int64", rng.integers(-2**40, 2**40, 6)), "other": V(7, 3, "<i8", "3")},
         {"result": T("bool", rng.integers(0, 2, 6).astype(bool))}),
        ("to", 7,
         {"self": T("int32", rng.integers(-1000, 1000, 4)),
          "options": V(18, None, "<f4", "device=%s, dtype=float64, requires_grad=False" % ("NPU" if device > 1 else "CUDA"),
                       attrs={"DeviceType": device, "DataType": 11, "RequiresGrad": 0}),
          "dtype": V(14, 11, "<i4", "float64"), "non_blocking": V(4, 1, "<i1", "True"),
          "memory_format": V(17, 2, "<i4", "ChannelsLast (2)")},
         {"result": T("float64", rng.standard_normal(4))}),
        ("add", 8,
         {"self": T("float16", f(2, 2).astype(np.float16), device=0), "other": T("int8", rng.integers(-128, 127, (2, 2))),
          "alpha": V(7, 1, "<i1", "True")},
         {"result": T("float32", f(2, 2))}),
        ("sum", 9,
         {"self": T("uint8", np.array([0, 100, 200, 250, 255])), "dim": V(2, [0], "<i8", "[0]"),
          "keepdim": V(4, 0, "<i1", "False"), "size": V(13, 5, "<i8", "5"), "pair": V(15, [2, 3], "<i8", "(2, 3)")},
         {"result": T("int64", np.array(805))}),
        ("eq", 10,
         {"self": T("int16", rng.integers(-3000, 3000, 3)), "other": V(6, 2.5, "<f8", "2.5"),
          "eps": V(5, 1e-05, "<f8", "1e-05"), "opt": V(9, -1, "<i8", "-1"), "scal": V(10, 0.25, "<f8", "0.25")},
         {"result": T("bool", np.array([True, False, True]), h5py_bool=True)}),
    ]


def c_strides(shape):
    s, out = 1, []
    for d in reversed(shape):
        out.append(s)
        s *= max(d, 1)
    return list(reversed(out))


def write_tensor(group, name, t, device, path):
    stored = t.values.astype(np.bool_) if t.kw.get("h5py_bool") else t.values.astype(STORED[t.dtype])
    kw = {k: v for k, v in t.kw.items() if k in ("chunks", "compression")}
    ds = group.create_dataset(name, data=stored, **kw)
    dev = device if t.device is None else t.device
    ds.attrs.create("DeviceType", dev, dtype="<i4")
    ds.attrs.create("DataType", CODES[t.dtype], dtype="<i4")
    ds.attrs.create("FormatType", t.fmt if dev > 1 else 0, dtype="<i4")
    ds.attrs.create("Type", 0, dtype="<i4")
    ds.attrs.create("Stride", np.array(c_strides(stored.shape), dtype="<i8"))
    back = ds[()]
    if back.dtype == np.bool_:
        back = back.astype(np.int8)
    dtype = t.dtype
    stored_name = NAMES[back.dtype.name]
    if dtype == "float16":
        type_name = "float16 (stored as float32)"
        our = "float32"
    else:
        type_name, our = dtype, dtype
    return {"path": path, "storage": "h5", "dtype": our, "typeName": type_name, "shape": list(back.shape),
            "stored": stored_name, "format": t.fmt if dev > 1 else 0, "bytes": b64(back)}


def write_value(group, name, v, path):
    if v.save == 18:
        ds = group.create_dataset(name, shape=(), dtype="<f4")
    else:
        ds = group.create_dataset(name, data=np.array(v.value, dtype=v.stored))
    ds.attrs.create("Type", v.save, dtype="<i4")
    for k, a in v.attrs.items():
        ds.attrs.create(k, a, dtype="<i4")
    return {"path": path, "storage": "value", "typeName": SAVE_NAMES[v.save], "value": v.text}


def write_h5(path, device, seed, conv_name, fmt_weight):
    rng = np.random.default_rng(seed)
    ops = ops_for(device, rng, conv_name, fmt_weight)
    entries = []
    with h5py.File(path, "w") as f:
        for op, seq, inputs, outputs in ops:
            entry = {"relPath": "%s/%s/%d" % (rel(path), op, seq), "opName": op, "seqId": seq, "tensors": []}
            for io, args in (("input", inputs), ("output", outputs)):
                g = f.require_group("/%s/%d/%s" % (op, seq, io))
                index = 0
                for name in sorted(args):  # HDF5 lists links by name when creation order is not tracked
                    a = args[name]
                    members = [(name, a)] if not isinstance(a, list) else None
                    if members is None:
                        lg = g.create_group(name)
                        for i, t in enumerate(a):
                            p = "/%s/%d/%s/%s/%s_%d" % (op, seq, io, name, name, i)
                            e = write_tensor(lg, "%s_%d" % (name, i), t, device, p)
                            e.update({"io": io, "index": index, "name": "%s.%d" % (name, i)})
                            entry["tensors"].append(e)
                            index += 1
                        continue
                    p = "/%s/%d/%s/%s" % (op, seq, io, name)
                    e = write_tensor(g, name, a, device, p) if isinstance(a, T) else write_value(g, name, a, p)
                    e.update({"io": io, "index": index, "name": name})
                    entry["tensors"].append(e)
                    index += 1
            entry["warnings"] = []
            for t in entry["tensors"]:
                if t.get("typeName") == "float16 (stored as float32)":
                    ds = f[t["path"]]
                    if int(ds.attrs["DeviceType"]) == 0:
                        entry["warnings"].append(t["path"] + ": CPU float16 tensor written as float32")
            entries.append(entry)
    entries.sort(key=lambda e: (e["seqId"], e["opName"]))
    return {"file": rel(path), "ops": entries, "errors": []}


def write_bad_h5():
    bad = os.path.join(H5, "bad")
    os.makedirs(bad)
    p = os.path.join(bad, "not_hdf5.h5")
    with open(p, "w") as f:
        f.write("this is a text file with an .h5 name\n" * 20)
    not_hdf5 = {"file": rel(p), "ops": [], "errors": [{"file": rel(p), "contains": "not an HDF5 file"}]}

    p = os.path.join(bad, "unexpected_layout.h5")
    rng = np.random.default_rng(7)
    ok_values = rng.standard_normal(3).astype(np.float32)
    with h5py.File(p, "w") as f:
        f.create_dataset("stray", data=np.arange(3))
        f.create_group("relu/abc")
        g = f.create_group("relu/3/input")
        ds = g.create_dataset("self", data=ok_values)
        ds.attrs.create("Type", 0, dtype="<i4")
        ds.attrs.create("DataType", 1, dtype="<i4")
        ds = g.create_dataset("names", data=np.array([b"a", b"b"]))
        ds.attrs.create("Type", 0, dtype="<i4")
        g.create_group("tensors/tensors_0")
        f.create_group("relu/3/extra")
        g = f.create_group("relu/4/input")
        g.create_dataset("self", data=np.arange(4, dtype="<i4"))  # no Type attribute
        f.create_dataset("relu/5", data=np.arange(2))
        f["relu/6"] = h5py.SoftLink("/relu/3")
    layout = {
        "file": rel(p),
        "ops": [
            {"relPath": rel(p) + "/relu/3", "opName": "relu", "seqId": 3, "warnings": [], "tensors": [
                {"io": "input", "index": 0, "name": "self", "path": "/relu/3/input/self", "storage": "h5",
                 "dtype": "float32", "typeName": "float32", "shape": [3], "stored": "float32", "format": 2,
                 "bytes": b64(ok_values)}]},
            {"relPath": rel(p) + "/relu/4", "opName": "relu", "seqId": 4,
             "warnings": ["/relu/4/input/self: no Type attribute"], "tensors": [
                {"io": "input", "index": 0, "name": "self", "path": "/relu/4/input/self", "storage": "h5",
                 "dtype": "int32", "typeName": "unknown (no Type attribute): int32", "shape": [4], "stored": "int32",
                 "format": 2, "bytes": b64(np.arange(4, dtype="<i4"))}]},
        ],
        "errors": [
            {"file": rel(p), "contains": "/stray: expected an operator group, found a dataset"},
            {"file": rel(p), "contains": "/relu/abc: expected a numbered call group (seqId)"},
            {"file": rel(p), "contains": "/relu/3/extra: expected 'input' or 'output'"},
            {"file": rel(p), "contains": "/relu/3/input/names: the dataset type is not a number type"},
            {"file": rel(p), "contains": "/relu/3/input/tensors/tensors_0: expected a dataset inside the list argument tensors"},
            {"file": rel(p), "contains": "/relu/5: expected a call group, found a dataset"},
            {"file": rel(p), "contains": "/relu/6: is a soft or external link"},
        ]}
    return [not_hdf5, layout]


def gen_h5():
    shutil.rmtree(H5, ignore_errors=True)
    os.makedirs(H5)
    files = [write_h5(os.path.join(H5, "model_npu.h5"), 10, 1, "NpuConvolutionBackward", 4),
             write_h5(os.path.join(H5, "model_gpu.h5"), 1, 2, "CudnnConvolutionBackward", 4)]
    return files + write_bad_h5()


def main():
    manifest = {"generator": "samples/generate_h5npy.py", "numpy": np.__version__, "h5py": h5py.__version__,
                "npy": gen_npy(), "h5": gen_h5()}
    with open(os.path.join(ROOT, "h5npy_manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    total = 0
    for root in (NPY, H5):
        for d, _, names in os.walk(root):
            total += sum(os.path.getsize(os.path.join(d, n)) for n in names)
    print("samples: %d bytes in npy/ and h5/" % total)


if __name__ == "__main__":
    main()
