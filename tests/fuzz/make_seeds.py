#!/usr/bin/env python3
"""Writes the seed corpora (tests/fuzz/corpus/<harness>/) from the committed samples.

Deterministic: run again after the samples change. Seeds are named after their source so a
finding can be traced back to a sample.

    python3 tests/fuzz/make_seeds.py                 # every harness
    python3 tests/fuzz/make_seeds.py npy torch_pt    # only these corpora are rewritten
"""
import hashlib
import io
import pathlib
import shutil
import struct
import sys
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "samples"
OUT = HERE / "corpus"


SELECTED = set()  # harnesses to write; empty = all


def write(harness, name, data):
    if SELECTED and harness not in SELECTED:
        return
    d = OUT / harness
    d.mkdir(parents=True, exist_ok=True)
    # Short, unique, stable names (sample paths are long).
    tag = hashlib.sha1(name.encode()).hexdigest()[:8]
    (d / f"{pathlib.Path(name).name[:60]}-{tag}").write_bytes(data)


def pickles_of(data):
    """The data.pkl records of a .pt archive (none when it is no readable ZIP)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return [z.read(n) for n in z.namelist() if n.endswith("data.pkl")]
    except Exception:  # the malicious samples: truncated, bombs, bad directories
        return []


def small_h5_seeds():
    """Compact dumper-layout .h5 files (new-style object headers, a few hundred bytes each), so
    the h5dumper harness mutates small inputs too. Needs h5py (/usr/bin/python3 on Debian)."""
    try:
        import h5py
        import numpy as np
    except ImportError:
        print("h5py not found: only the sample .h5 files are seeds (run with /usr/bin/python3)")
        return
    tensor = {"DataType": 1, "DeviceType": 10, "FormatType": 0, "Type": 0}
    # Object headers of the newer format (and tracked link order) record creation times: only
    # the old format gives the same bytes on every run. The second seed has compact storage.
    for layout in ("contiguous", "compact"):
        buf = io.BytesIO()
        with h5py.File(buf, "w", libver="earliest") as f:
            g = f.create_group("addmm/3/input")
            mat = np.arange(6, dtype=np.float32).reshape(2, 3)
            if layout == "compact":
                dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
                dcpl.set_layout(h5py.h5d.COMPACT)
                dcpl.set_obj_track_times(False)
                space = h5py.h5s.create_simple(mat.shape)
                h5py.h5d.create(g.id, b"mat1", h5py.h5t.IEEE_F32LE, space, dcpl=dcpl).write(
                    h5py.h5s.ALL, h5py.h5s.ALL, mat)
                d = g["mat1"]
            else:
                d = g.create_dataset("mat1", data=mat)
            d.attrs.update(tensor)
            d.attrs["Stride"] = np.array([3, 1], dtype=np.int64)
            g.create_dataset("sizes", data=np.array([2, 3], dtype=np.int64)).attrs["Type"] = 2
            g.create_dataset("alpha", data=np.float64(1.5)).attrs["Type"] = 7
            lst = g.create_group("tensors")
            for i in range(2):
                x = lst.create_dataset(f"tensors_{i}", data=np.ones(3, dtype=np.float16), chunks=(2,), compression="gzip")
                x.attrs.update(tensor)
                x.attrs["DataType"] = 10
            o = f.create_group("addmm/3/output")
            r = o.create_dataset("result0", data=np.zeros((2, 2), dtype=np.int8))
            r.attrs.update(tensor)
            r.attrs["DataType"] = 9
        write("h5dumper", f"small_{layout}.h5", buf.getvalue())


def main():
    SELECTED.update(sys.argv[1:])
    for d in (OUT.iterdir() if OUT.exists() else []):
        if not SELECTED or d.name in SELECTED:
            shutil.rmtree(d)
    names = set()
    for f in sorted(SAMPLES.rglob("*")):
        if not f.is_file() or f.suffix == ".py" or f.name == "manifest.json":
            continue
        rel = str(f.relative_to(SAMPLES))
        data = f.read_bytes()
        names.add(f.name)
        if f.name.endswith(".vis.db"):
            write("visdb", rel, data)  # and, as every other file, to dumpdata below
        if f.name in ("dump.json", "debug.json"):
            write("msprobe_dumpjson", rel, data)
        elif f.name in ("stack.json", "construct.json"):
            write("msprobe_sidecar", rel, data)
        elif f.suffix == ".pt":
            write("torch_pt", rel, data)
            for i, pkl in enumerate(pickles_of(data)):
                write("pickle", f"{rel}.{i}.data.pkl", pkl)
        elif f.suffix == ".npy":
            write("npy", rel, data)
        elif f.suffix == ".h5":
            write("h5dumper", rel, data)
        elif f.name.startswith("ge_proto_"):
            write("gegraph_text", rel, data)
        elif f.name.startswith("ge_onnx_"):
            write("onnx_text", rel, data)
        elif f.name == "mapping.csv":
            write("mappingcsv", rel, data)
            for line in data.decode("utf-8", "replace").splitlines():
                names.update(p.strip() for p in line.split(",") if p.strip())
        else:
            write("dumpdata", rel, data)
            if f.name.lower().startswith("opdebug.node_opdebug") and len(data) >= 8:
                (h,) = struct.unpack_from("<Q", data)
                if 8 + h <= len(data):
                    write("opdebug", rel, data[8 + h:])
    small_h5_seeds()
    for n in sorted(names):
        write("dumpname", n, n.encode())
    for h in sorted(p.name for p in OUT.iterdir() if not SELECTED or p.name in SELECTED):
        print(f"{h}: {len(list((OUT / h).iterdir()))} seeds")


if __name__ == "__main__":
    main()
