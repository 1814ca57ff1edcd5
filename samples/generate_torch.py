#!/usr/bin/python3
"""Generate the committed PyTorch `.pt` samples of samples/torch/ and their oracles.

Run with the Debian interpreter, which has python3-torch and numpy:

    /usr/bin/python3 samples/generate_torch.py

Good samples are written by `torch.save` itself (plus re-zipped variants: deflated,
zip64, big-endian). Next to each tensor the script writes the oracle `<name>.npy`
with numpy from `tensor.numpy()` (bfloat16 via `.float()`), so the expected values
come from torch/numpy and never from the C++ reader. samples/torch/manifest.json
lists every file: good ones with their tensors (key path, dtype name, shape, oracle)
and bad ones with what is wrong with them.

Malicious and damaged samples are built by hand (pickle opcodes inside a zip) or by
`torch.save` of objects whose pickle would execute code when loaded. NOTHING here ever
loads one of them: this script only writes bytes. The os.system payloads would create
/tmp/dumpscope_pt_pwned; the C++ test asserts that file never appears.

Output is byte-for-byte reproducible except legacy_format.pt: the pre-1.6 format names
storages by their memory address, so that file changes on every run.
"""

import io
import json
import os
import shutil
import struct
import sys
import zipfile
import zlib
from collections import OrderedDict
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = Path(os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE)
OUT = ROOT / "torch"
MARKER = "/tmp/dumpscope_pt_pwned"

manifest = {"version": 1, "torch": torch.__version__, "numpy": np.__version__,
            "marker": MARKER, "good": [], "bad": []}


def save_bytes(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf, **kw)
    return buf.getvalue()


def write(name, data):
    (OUT / name).write_bytes(data)


def oracle(stem, path, t):
    """Writes the numpy oracle of tensor `t` and returns its manifest record."""
    t = t.detach()
    a = (t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()
    fname = stem + (("." + path) if path else "") + ".npy"
    np.save(OUT / fname, a, allow_pickle=False)
    return {"path": path, "dtype": str(t.dtype).replace("torch.", ""),
            "shape": list(t.shape), "oracle": fname}


def tensors_of(obj, path=""):
    if isinstance(obj, torch.Tensor):
        return [(path, obj)]
    out = []
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        return out
    for k, v in items:
        out += tensors_of(v, (path + "." if path else "") + str(k))
    return out


def good(name, obj, data=None, note=""):
    """A good sample: `data` (default: torch.save(obj)) and the oracles of obj's tensors."""
    if data is None:
        torch.save(obj, OUT / name)  # to a path: records live under "<name without .pt>/"
    else:
        write(name, data)
    stem = name[:-3]
    rec = {"file": name, "tensors": [oracle(stem, p, t) for p, t in tensors_of(obj)]}
    if note:
        rec["note"] = note
    manifest["good"].append(rec)


def bad(name, data, what):
    write(name, data)
    manifest["bad"].append({"file": name, "what": what})


# ----------------------------------------------------------------------------
# A small ZIP writer (STORED/DEFLATE, optional zip64 central directory) for samples
# whose sizes or offsets must be exactly wrong. Python's zipfile writes the real ones.

def zip_bytes(entries, zip64=False, eocd_cd_offset=None, local_offset_override=None):
    """entries: list of dicts {name, data, method(0|8), declared(optional uncompressed size)}."""
    out = bytearray()
    central = bytearray()
    for i, e in enumerate(entries):
        name = e["name"].encode()
        raw = e["data"]
        method = e.get("method", 0)
        if method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            payload = c.compress(raw) + c.flush()
        else:
            payload = raw
        crc = zlib.crc32(raw)
        usize = e.get("declared", len(raw))
        csize = len(payload)
        offset = len(out)
        if zip64:
            lextra = struct.pack("<HHQQ", 1, 16, usize, csize)
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0, crc,
                               0xFFFFFFFF, 0xFFFFFFFF, len(name), len(lextra)) + name + lextra
        else:
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc,
                               csize, usize, len(name), 0) + name
        out += payload
        if local_offset_override is not None and i == local_offset_override[0]:
            offset = local_offset_override[1]
        if zip64:
            cextra = struct.pack("<HHQQQ", 1, 24, usize, csize, offset)
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0, crc,
                                   0xFFFFFFFF, 0xFFFFFFFF, len(name), len(cextra), 0, 0, 0, 0,
                                   0xFFFFFFFF) + name + cextra
        else:
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc,
                                   csize, usize, len(name), 0, 0, 0, 0, 0, offset) + name
    cd_offset = len(out)
    out += central
    n = len(entries)
    if eocd_cd_offset is not None:
        cd_offset = eocd_cd_offset
    if zip64:
        z64 = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(central), cd_offset)
        out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    else:
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central), cd_offset, 0)
    return bytes(out)


def entries_of(pt):
    z = zipfile.ZipFile(io.BytesIO(pt))
    return [{"name": i.filename, "data": z.read(i.filename)} for i in z.infolist()]


def rezip(pt, compression=zipfile.ZIP_STORED, force_zip64=False, replace=None):
    """Re-writes a torch.save archive with Python's zipfile (optionally replacing records)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as z:
        for e in entries_of(pt):
            data = e["data"]
            if replace and e["name"].split("/", 1)[1] in replace:
                data = replace.pop(e["name"].split("/", 1)[1])
            if data is None:
                continue
            info = zipfile.ZipInfo(e["name"])
            info.compress_type = compression
            with z.open(info, "w", force_zip64=force_zip64) as f:
                f.write(data)
        for rest, data in (replace or {}).items():
            if data is not None:
                with z.open(zipfile.ZipInfo("archive/" + rest), "w") as f:
                    f.write(data)
    return buf.getvalue()


# ----------------------------------------------------------------------------
# Hand-assembled pickles (protocol 2 opcodes of msprobe.md §7.2/§7.3)

def op_global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def op_str(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def op_int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if 0 <= v < 65536:
        return b"M" + struct.pack("<H", v)
    return b"J" + struct.pack("<i", v)


def op_tuple(values):
    return b"(" + b"".join(op_int(v) for v in values) + b"t"


def tensor_pickle(storage_cls, key, numel, offset, size, stride, dtype_global=None):
    """The `_rebuild_tensor_v2` (or v3 with `dtype_global`) stream torch.save writes."""
    fn = "_rebuild_tensor_v3" if dtype_global else "_rebuild_tensor_v2"
    p = b"\x80\x02" + op_global("torch._utils", fn) + b"((" + op_str("storage")
    p += op_global("torch", storage_cls) + op_str(key) + op_str("cpu") + op_int(numel) + b"tQ"
    p += op_int(offset) + op_tuple(size) + op_tuple(stride) + b"\x89"
    p += op_global("collections", "OrderedDict") + b")R"
    if dtype_global:
        p += op_global("torch", dtype_global)
    return p + b"tR."


def archive(pkl, storages=None, extra=None):
    entries = [{"name": "archive/data.pkl", "data": pkl}]
    for k, v in (storages or {}).items():
        entries.append({"name": "archive/data/" + k, "data": v})
    entries.append({"name": "archive/version", "data": b"3\n"})
    for e in extra or []:
        entries.append(e)
    return entries


class RunsSystem:
    """Pickles to `posix.system(...)`: torch.save writes it; loading it would run the command."""

    def __reduce__(self):
        return (os.system, ("touch " + MARKER,))


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    torch.manual_seed(6)

    # --- good: one tensor per dtype, written by torch.save --------------------------------
    relu = torch.tensor([[0.5, -1.25, float("nan")], [float("inf"), -float("inf"), 3.0]])
    good("Functional.relu.0.forward.output.0.pt", relu, note="msprobe-style name, float32 with NaN/Inf")
    good("float16.pt", (torch.randn(5) * 100).half())
    good("bfloat16.pt", torch.tensor([[1.0, -2.5], [3.140625, 1e30]], dtype=torch.bfloat16))
    good("float64.pt", torch.randn(2, 2, 2, dtype=torch.float64))
    good("int8.pt", torch.tensor([-128, -1, 0, 1, 127], dtype=torch.int8))
    good("uint8.pt", torch.tensor([0, 1, 200, 255], dtype=torch.uint8))
    good("int16.pt", torch.tensor([-32768, -2, 300, 32767], dtype=torch.int16))
    good("int32.pt", torch.tensor([[-2147483648, 7], [65536, 2147483647]], dtype=torch.int32))
    good("int64.pt", torch.tensor([-(2 ** 63), -1, 2 ** 40, 2 ** 63 - 1], dtype=torch.int64))
    good("bool.pt", torch.tensor([[True, False, True], [False, False, True]]))
    good("complex64.pt", torch.tensor([1 + 2j, -0.5 + 0j, 3.25 - 4j], dtype=torch.complex64))
    good("complex128.pt", torch.tensor([[1e-300 + 1j, -2 - 2j]], dtype=torch.complex128))
    good("scalar_0d.pt", torch.tensor(2.75), note="0-d: EMPTY_TUPLE size and stride")
    good("empty.pt", torch.zeros(0, 3), note="no elements")

    # --- good: views of a larger storage -------------------------------------------------
    good("view_slice.pt", torch.arange(10)[3:7:2], note="storage numel 10, offset 3, stride (2,)")
    good("view_transposed.pt", torch.arange(12, dtype=torch.float32).reshape(3, 4).t(),
         note="strides (1, 4)")
    good("view_offset_2d.pt", torch.arange(30, dtype=torch.int32).reshape(5, 6)[1:4, 2:5],
         note="offset 8, strides (6, 1)")
    base = torch.arange(8, dtype=torch.float32)
    good("shared_storage.pt", [base, base[2:6].view(2, 2)], note="two tensors on one storage")

    # --- good: containers, parameters, variants ----------------------------------------
    good("dict_of_tensors.pt", {"weight": torch.randn(2, 3), "bias": torch.randn(2),
                                "steps": [torch.tensor([1, 2, 3]), torch.tensor(True)], "lr": 0.1})
    lin = torch.nn.Linear(3, 2)
    good("state_dict.pt", lin.state_dict(), note="OrderedDict with _metadata (BUILD)")
    param = torch.nn.Parameter(torch.randn(3))
    good("parameter.pt", param, note="_rebuild_parameter")
    t = torch.randn(4, 2)
    good("explicit_new_zipfile.pt", t, data=save_bytes(t, _use_new_zipfile_serialization=True),
         note="_use_new_zipfile_serialization=True (the default)")
    t = torch.randn(3)
    good("protocol4.pt", t, data=save_bytes(t, pickle_protocol=4),
         note="FRAME, STACK_GLOBAL, MEMOIZE, SHORT_BINUNICODE")
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 7
    good("deflated.pt", t, data=rezip(save_bytes(t), compression=zipfile.ZIP_DEFLATED),
         note="every record DEFLATE compressed by zipfile")
    t = torch.arange(5, dtype=torch.int16) - 2
    good("zip64_local.pt", t, data=rezip(save_bytes(t), force_zip64=True),
         note="zipfile force_zip64: zip64 extra fields in the local headers")
    t = torch.tensor([0.25, -8.0, 1e-3], dtype=torch.float64)
    good("zip64_central.pt", t, data=zip_bytes(entries_of(save_bytes(t)), zip64=True),
         note="zip64 sizes and offsets in the central directory")
    t = torch.tensor([[1.5, -2.0], [1e-5, 65504.0]], dtype=torch.float16)
    le = entries_of(save_bytes(t))
    for e in le:
        if "/data/" in e["name"]:
            e["data"] = np.frombuffer(e["data"], dtype="<f2").astype(">f2").tobytes()
    le.append({"name": "archive/byteorder", "data": b"big"})
    good("byteorder_big.pt", t, data=zip_bytes(le), note="byteorder record \"big\", storage bytes swapped")
    t = torch.tensor([3, 1, 4], dtype=torch.int32)
    good("byteorder_little.pt", t, data=zip_bytes(entries_of(save_bytes(t)) + [{"name": "archive/byteorder", "data": b"little"}]))

    # --- bad: code execution attempts (never loaded here) -------------------------------
    payload = op_str("touch " + MARKER)
    bad("mal_os_system.pt", zip_bytes(archive(b"\x80\x02" + op_global("os", "system") + payload + b"\x85R.")),
        "GLOBAL os.system + REDUCE")
    bad("mal_reduce_posix.pt", save_bytes(RunsSystem()), "torch.save of an object whose __reduce__ returns os.system")
    bad("mal_numpy_global.pt", save_bytes(np.arange(3)), "numpy array: numpy.core.multiarray._reconstruct")
    bad("mal_stack_global.pt", zip_bytes(archive(b"\x80\x04" + b"\x8c\x08builtins\x8c\x04eval" + b"\x93" + payload + b"\x85R.")),
        "STACK_GLOBAL builtins.eval")
    bad("mal_inst.pt", zip_bytes(archive(b"\x80\x02(" + payload + b"ios\nsystem\n.")), "INST os system")
    bad("mal_obj.pt", zip_bytes(archive(b"\x80\x02(" + op_global("os", "system") + payload + b"o.")),
        "OBJ (global refused first)")
    bad("mal_newobj.pt", zip_bytes(archive(b"\x80\x02" + op_global("collections", "OrderedDict") + b")\x81.")),
        "NEWOBJ on an allowlisted class")
    bad("mal_ext1.pt", zip_bytes(archive(b"\x80\x02\x82\x01" + payload + b"\x85R.")), "EXT1")
    bad("mal_build_global.pt", zip_bytes(archive(b"\x80\x02" + op_global("collections", "OrderedDict") + b"}b.")),
        "BUILD on a global")
    bad("mal_call_storage.pt", zip_bytes(archive(b"\x80\x02" + op_global("torch", "FloatStorage") + b")R.")),
        "REDUCE on a storage class")

    # --- bad: damaged containers -------------------------------------------------------
    six = torch.arange(6, dtype=torch.float32)
    good_pt = save_bytes(six)
    bad("truncated.pt", good_pt[: len(good_pt) // 2], "first half of a good file")
    bad("cd_outside.pt", zip_bytes(entries_of(good_pt), eocd_cd_offset=0x7FFFFFF0), "EOCD points past the end")
    bad("local_outside.pt", zip_bytes(entries_of(good_pt), local_offset_override=(1, 0x00FFFFFF)),
        "central directory entry points its local header outside the file")
    bad("legacy_format.pt", save_bytes(six, _use_new_zipfile_serialization=False), "pre-1.6 format")
    bad("not_a_tensor.pt", save_bytes(42), "torch.save(42)")
    bad("missing_record.pt", zip_bytes([e for e in entries_of(good_pt) if "/data/" not in e["name"]]),
        "storage record removed")
    stor = six.numpy().tobytes()
    bad("storage_too_big.pt", zip_bytes(archive(tensor_pickle("FloatStorage", "0", 1000, 0, [6], [1]), {"0": stor})),
        "storage numel 1000 with a 24-byte record")
    bad("view_past_storage.pt", zip_bytes(archive(tensor_pickle("FloatStorage", "0", 6, 4, [3], [1]), {"0": stor})),
        "offset 4 + 3 elements in a storage of 6")
    bad("broadcast.pt", zip_bytes(archive(tensor_pickle("FloatStorage", "0", 6, 0, [1000, 6], [0, 1]), {"0": stor})),
        "stride-0 view with more elements than the record")
    bad("unknown_byteorder.pt", zip_bytes(entries_of(good_pt) + [{"name": "archive/byteorder", "data": b"middle"}]),
        "byteorder record `middle`")

    # --- bad: zip bombs --------------------------------------------------------------------
    pkl = tensor_pickle("FloatStorage", "0", 6, 0, [6], [1])
    bad("bomb_declared.pt", zip_bytes(archive(pkl, extra=None) [:1] + [
        {"name": "archive/data/0", "data": stor, "method": 8, "declared": 1 << 30},
        {"name": "archive/version", "data": b"3\n"}]), "storage record declares 1 GiB from a few compressed bytes")
    bad("bomb_overflow.pt", zip_bytes(archive(pkl, extra=None)[:1] + [
        {"name": "archive/data/0", "data": bytes(1 << 20), "method": 8, "declared": 24},
        {"name": "archive/version", "data": b"3\n"}]), "storage record inflates to 1 MiB but declares 24 bytes")
    bad("bomb_pickle.pt", zip_bytes([{"name": "archive/data.pkl", "data": pkl, "method": 8, "declared": 3 << 30}]),
        "data.pkl declares 3 GiB")

    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(f.stat().st_size for f in OUT.iterdir())
    print(f"{len(manifest['good'])} good and {len(manifest['bad'])} bad samples, {total} bytes in {OUT}")
    if os.path.exists(MARKER):
        sys.exit(f"{MARKER} exists: something executed a payload")


if __name__ == "__main__":
    main()
