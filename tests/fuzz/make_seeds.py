#!/usr/bin/env python3
"""Writes the seed corpora (tests/fuzz/corpus/<harness>/) from the committed samples.

Deterministic: run again after the samples change. Seeds are named after their source so a
finding can be traced back to a sample.
"""
import hashlib
import pathlib
import shutil
import struct

HERE = pathlib.Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "samples"
OUT = HERE / "corpus"


def write(harness, name, data):
    d = OUT / harness
    d.mkdir(parents=True, exist_ok=True)
    # Short, unique, stable names (sample paths are long).
    tag = hashlib.sha1(name.encode()).hexdigest()[:8]
    (d / f"{pathlib.Path(name).name[:60]}-{tag}").write_bytes(data)


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    names = set()
    for f in sorted(SAMPLES.rglob("*")):
        if not f.is_file() or f.suffix == ".py" or f.name == "manifest.json":
            continue
        rel = str(f.relative_to(SAMPLES))
        data = f.read_bytes()
        names.add(f.name)
        if f.name.startswith("ge_proto_"):
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
    for n in sorted(names):
        write("dumpname", n, n.encode())
    for h in sorted(p.name for p in OUT.iterdir()):
        print(f"{h}: {len(list((OUT / h).iterdir()))} seeds")


if __name__ == "__main__":
    main()
