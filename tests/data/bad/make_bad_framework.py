#!/usr/bin/python3
"""Writes the framework part of the bad-input corpus (tests/data/bad/framework/): msprobe
dump.json / stack.json / construct.json, torch.save `.pt` (ZIP + pickle), `.npy` and torch
dumper `.h5` files that are broken in one way each, next to valid files of the same kinds.

cases.json (edited by hand) says what each file must give; tst_badinput checks it. NOTHING here
loads a malicious file: this script only writes bytes.

Deterministic; needs numpy, torch and h5py (the Debian interpreter has them):
    /usr/bin/python3 tests/data/bad/make_bad_framework.py
"""
import io
import json
import shutil
import struct
import sys
import zlib
from pathlib import Path

import h5py
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent / "samples"))
from generate_torch import (archive, entries_of, op_global, op_str, save_bytes, tensor_pickle,  # noqa: E402
                            zip_bytes)
import torch  # noqa: E402

OUT = HERE / "framework"


def w(rel, data):
    p = OUT / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data if isinstance(data, bytes) else data.encode())


def tensor_leaf(shape, data_name=None, dtype="torch.float32"):
    leaf = {"type": "torch.Tensor", "dtype": dtype, "shape": list(shape), "Max": 1.0, "Min": 0.0,
            "Mean": 0.5, "Norm": 1.0, "requires_grad": False}
    if data_name:
        leaf["data_name"] = data_name
    return leaf


def dump_json(entries, task="tensor"):
    return json.dumps({"task": task, "level": "L1", "framework": "pytorch", "dump_data_dir": None,
                       "data": entries}, indent=1)


def forward(name, shape=(2, 3), data_name=None):
    """One forward API entry with one input tensor."""
    return {name: {"input_args": [tensor_leaf(shape, data_name)], "input_kwargs": {}, "output": []}}


def npy_bytes(header, payload=b"", version=(1, 0), header_len=None):
    """A .npy file with a hand-written header dict (padded to 64 bytes as numpy does)."""
    h = header.encode("latin1")
    pad = (64 - (10 + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    n = len(h) if header_len is None else header_len
    return b"\x93NUMPY" + bytes(version) + struct.pack("<H", n) + h + payload


def np_save(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def cd_offset(z):
    """Offset of the central directory from the (non-zip64) end record."""
    eocd = z.rindex(b"PK\x05\x06")
    return struct.unpack_from("<I", z, eocd + 16)[0], eocd


def small_h5(track_bad=False):
    """A torch dumper file: /addmm/3/{input,output}; with track_bad, attributes that are wrong."""
    buf = io.BytesIO()
    with h5py.File(buf, "w", libver="earliest") as f:
        g = f.create_group("addmm/3/input")
        d = g.create_dataset("mat1", data=np.arange(6, dtype=np.float32).reshape(2, 3))
        d.attrs.update({"DataType": 1, "DeviceType": 10, "FormatType": 0, "Type": 0})
        d.attrs["Stride"] = np.array([3, 1], dtype=np.int64)
        g.create_dataset("alpha", data=np.float64(1.5)).attrs["Type"] = 7
        o = f.create_group("addmm/3/output")
        r = o.create_dataset("result0", data=np.arange(4, dtype=np.float32).reshape(2, 2))
        r.attrs.update({"DataType": 1, "DeviceType": 10, "FormatType": 0, "Type": 0})
        if track_bad:
            # A Type attribute that is a string, a DataType code nobody defines and a Stride
            # of the wrong length.
            d.attrs["Type"] = np.bytes_(b"tensor")
            r.attrs["DataType"] = 42
            r.attrs["Stride"] = np.array([1, 2, 3], dtype=np.int64)
    return buf.getvalue()


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()

    # --- msprobe dump.json (each in its own rank directory) ----------------------------------
    good = dump_json({**forward("Functional.a.0.forward"), **forward("Functional.b.0.forward")})
    w("json_valid/dump.json", good)
    w("json_truncated/dump.json", good[: good.index('"Functional.b.0.forward"') + 60])
    w("json_nan_key/dump.json", good.replace('"Functional.b.0.forward"', "NaN"))
    w("json_nan_data/dump.json", dump_json({}).replace('"data": {}', '"data": NaN'))
    w("json_deep/dump.json", dump_json({}).replace('"data": {}', '"data": {"Functional.deep.0.forward": {"input_args": '
                                                   + "[" * 100000 + "]" * 100000 + "}}"))
    w("json_not_object/dump.json", '[{"task": "tensor"}]\n')
    # Empty dumps: an empty object, the header without "data", "data" without operators.
    w("json_empty_object/dump.json", "{}\n")
    w("json_no_data/dump.json", json.dumps({"task": "statistics", "level": "L1", "framework": "pytorch",
                                            "dump_data_dir": None}, indent=1))
    w("json_empty_data/dump.json", dump_json({}))
    # Absurd shapes: 2^62 x 2^62 x 16 elements recorded for a 2 x 3 tensor file, and a dimension
    # that 64 bits cannot hold.
    w("json_absurd_shape/dump.json",
      dump_json({**forward("Functional.absurd.0.forward", (2 ** 62, 2 ** 62, 16), "Functional.absurd.0.forward.input.0.pt"),
                 **forward("Functional.out_of_range.0.forward", (10 ** 20, 3)),
                 **forward("Functional.fine.0.forward", (2, 3), "Functional.fine.0.forward.input.0.pt")}))
    small = save_bytes(torch.arange(6, dtype=torch.float32).reshape(2, 3))
    w("json_absurd_shape/dump_tensor_data/Functional.absurd.0.forward.input.0.pt", small)
    w("json_absurd_shape/dump_tensor_data/Functional.fine.0.forward.input.0.pt", small)
    # stack.json / construct.json beside a valid dump.json: the entries still index.
    w("json_sidecars/dump.json", good)
    w("json_sidecars/stack.json", '{"0": [["Functional.a.0.forward"], ["File a.py, line 1, in f, \\n x"]], "1": [[')
    w("json_sidecars/construct.json", '{"Functional.a.0.forward": null, "Functional.b.0.forward": [NaN')

    # --- torch .pt tensors referenced by a dump.json ----------------------------------------
    pt = "pt/dump_tensor_data/"
    valid_pt = save_bytes(torch.arange(6, dtype=torch.float32).reshape(2, 3))
    w(pt + "valid.pt", valid_pt)
    stor = np.arange(6, dtype=np.float32).tobytes()
    pkl = tensor_pickle("FloatStorage", "0", 6, 0, [2, 3], [3, 1])
    w(pt + "os_system.pt", zip_bytes(archive(b"\x80\x02" + op_global("os", "system") + op_str("true")
                                             + b"\x85R.")))
    w(pt + "unknown_opcode.pt", zip_bytes(archive(b"\x80\x02\xf0" + pkl[2:], {"0": stor})))
    # DEFLATE cannot expand more than 1032:1; this record declares 1 GiB from a few bytes.
    w(pt + "zip_bomb.pt", zip_bytes(archive(pkl)[:1] + [
        {"name": "archive/data/0", "data": stor, "method": 8, "declared": 1 << 30},
        {"name": "archive/version", "data": b"3\n"}]))
    # The storage entry's compressed size (central directory) runs past the end of the file.
    z = bytearray(zip_bytes(archive(pkl, {"0": stor})))
    cd, _ = cd_offset(bytes(z))
    rec = z.index(b"PK\x01\x02", cd)
    while z[rec + 46: rec + 46 + 14] != b"archive/data/0":
        rec = z.index(b"PK\x01\x02", rec + 4)
    struct.pack_into("<II", z, rec + 20, 0x7FFF0000, 0x7FFF0000)
    w(pt + "entry_past_end.pt", bytes(z))
    # The file ends inside the central directory (no end record), and a central directory
    # that the end record says is longer than what is there.
    cd, eocd = cd_offset(valid_pt)
    w(pt + "cd_cut.pt", valid_pt[: cd + (eocd - cd) // 2])
    short = valid_pt[:cd] + valid_pt[cd + 46:]  # first central record removed, end record kept
    w(pt + "cd_short.pt", short)
    w("pt/dump.json", dump_json({
        **forward("Functional.valid.0.forward", (2, 3), "valid.pt"),
        **forward("Functional.os_system.0.forward", (2, 3), "os_system.pt"),
        **forward("Functional.unknown_opcode.0.forward", (2, 3), "unknown_opcode.pt"),
        **forward("Functional.zip_bomb.0.forward", (6,), "zip_bomb.pt"),
        **forward("Functional.entry_past_end.0.forward", (2, 3), "entry_past_end.pt"),
        **forward("Functional.cd_cut.0.forward", (2, 3), "cd_cut.pt"),
        **forward("Functional.cd_short.0.forward", (2, 3), "cd_short.pt"),
    }))

    # --- .npy files (one folder) -------------------------------------------------------------
    w("npy/valid.npy", np_save(np.arange(6, dtype=np.float32).reshape(2, 3)))
    w("npy/header_past_end.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                           header_len=60000))
    w("npy/object.npy", npy_bytes("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", b"\x80\x02N." * 2))
    w("npy/shape_overflow.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
                                          "4294967296, 16), }", bytes(16)))
    w("npy/negative_dim.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 3), }", bytes(12)))
    w("npy/zero_width_unicode.npy", npy_bytes("{'descr': '<U0', 'fortran_order': True, 'shape': (100000, 100000), }"))
    w("npy/data_truncated.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }", bytes(8)))

    # --- torch dumper .h5 files (one folder) ---------------------------------------------------
    h5 = small_h5()
    w("h5/valid.h5", h5)
    w("h5/truncated.h5", h5[: len(h5) // 2])
    w("h5/bad_attributes.h5", small_h5(track_bad=True))

    # A 2^40 x 2^40 chunked dataset that was never written (a few hundred bytes of file) with a
    # wrong Stride attribute: checking it computes C-order strides that do not fit 64 bits.
    buf = io.BytesIO()
    with h5py.File(buf, "w", libver="earliest") as f:
        d = f.create_dataset("huge/1/input/x", shape=(2 ** 40, 2 ** 40), dtype="f4", chunks=(1, 16))
        d.attrs.update({"DataType": 1, "DeviceType": 10, "FormatType": 0, "Type": 0})
        d.attrs["Stride"] = np.array([1, 1], dtype=np.int64)
    w("h5/huge_unallocated.h5", buf.getvalue())

    files = sorted(p.relative_to(OUT) for p in OUT.rglob("*") if p.is_file())
    print(f"framework: {len(files)} files")


if __name__ == "__main__":
    main()
