#!/usr/bin/python3
"""The committed samples are what their generators write: every samples/generate_*.py runs
again into a temporary folder (DUMPSCOPE_SAMPLES_OUT) and the result must equal samples/
file for file, byte for byte.

    /usr/bin/python3 tests/check_samples.py --samples samples [--keep DIR]

Documented exceptions (EXCEPTIONS below), each still checked as far as it can be:

* torch/legacy_format.pt: torch's pre-1.6 format names each storage by its memory address,
  so the key strings change on every run; the two files must be equal once every all-digit
  pickle string (the keys) is replaced by the same placeholder.
* the library versions the h5npy and torch manifests record (numpy, h5py, torch): they
  describe the machine that ran the generator; the manifests must be equal without them (a
  new library version that changes the data still fails on the data files).

* msprobe_real/, msprobe_fixtures/, msprobe_crossframework/: not written by a generator of ours but by the real
  msprobe 26.0.0 (their tools/make_corpus.py and tools/make_fixtures.py need an msprobe
  checkout and take minutes); they are the oracles for the msprobe tests and are left out of
  the comparison (their READMEs record how they were made). So are msprobe_precheck/ (msprobe's
  acc_check and api_precision_compare, run on the CPU) and msprobe_monitor/ (msprobe's monitor
  writer classes fed designed statistics), msprobe_mindspore/ and mindspore_kernel/ (rendered
  from real torch runs as MindSpore writes them, with msprobe's own comparators' CSVs): their
  tools need an msprobe checkout. msprobe_multirun/ (four runs for `compare A B C D`) likewise.

The generators run in the order that builds samples/manifest.json (each replaces its own
entries): generate_samples, generate_overflow, generate_graph, generate_compare, then the
ones with manifests of their own. One line per difference, then "N files compared, M
differences"; exit 1 on any difference or failed generator.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GENERATORS = ["generate_samples.py", "generate_overflow.py", "generate_graph.py", "generate_compare.py",
              "generate_compare_mapping.py", "generate_h5npy.py", "generate_msprobe.py", "generate_torch.py",
              "generate_graph_compare.py"]
# Files compared at least: a generator that writes nothing, or a samples/ folder that lost its
# files, fails here (the samples hold 351 files).
MIN_FILES = 350


def legacy_keys_removed(data):
    """A pre-1.6 torch file with every all-digit BINUNICODE string (the storage keys) replaced."""
    out, i = bytearray(), 0
    while i < len(data):
        if data[i] == ord("X") and i + 5 <= len(data):
            n = int.from_bytes(data[i + 1:i + 5], "little")
            key = data[i + 5:i + 5 + n]
            if 0 < n < 32 and len(key) == n and key.isdigit():
                out += b"X<key>"
                i += 5 + n
                continue
        out.append(data[i])
        i += 1
    return bytes(out)


def without_versions(data, keys):
    doc = json.loads(data)
    for k in keys:
        doc.pop(k, None)
    return doc


EXCEPTIONS = {
    "torch/legacy_format.pt": ("storage keys are memory addresses", legacy_keys_removed),
    "h5npy_manifest.json": ("records the numpy and h5py versions", lambda d: without_versions(d, ("numpy", "h5py"))),
    "torch/manifest.json": ("records the torch and numpy versions", lambda d: without_versions(d, ("torch", "numpy"))),
}


# Folders written by real producers, not by samples/generate_*.py (see the docstring).
PRODUCER_FOLDERS = ("msprobe_real/", "msprobe_fixtures/", "msprobe_crossframework/", "msprobe_mindspore/",
                    "mindspore_kernel/", "msprobe_precheck/", "msprobe_monitor/", "msprobe_multirun/",
                    "msprobe_addederror/")


def tree(root, skip_generators):
    files = {}
    for p in sorted(Path(root).rglob("*")):
        rel = p.relative_to(root).as_posix()
        if "__pycache__" in rel.split("/") or not p.is_file() or rel.startswith(PRODUCER_FOLDERS):
            continue
        if skip_generators and "/" not in rel and rel.startswith("generate_") and rel.endswith(".py"):
            continue
        files[rel] = p
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", required=True, help="the committed samples/ folder (holds the generators)")
    ap.add_argument("--keep", help="regenerate into this folder (emptied first) and keep it")
    args = ap.parse_args()
    samples = Path(args.samples).resolve()
    scratch = None
    if args.keep:
        out = Path(args.keep).resolve()
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
    else:
        scratch = tempfile.TemporaryDirectory(prefix="dumpscope-samples-")
        out = Path(scratch.name)
    env = dict(os.environ, DUMPSCOPE_SAMPLES_OUT=str(out), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONOPTIMIZE", None)  # the generators' self-checks are asserts: keep them
    failures = 0
    for g in GENERATORS:
        r = subprocess.run([sys.executable, str(samples / g)], env=env, capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            failures += 1
            print(f"FAIL {g}: exit {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    committed, regenerated = tree(samples, True), tree(out, False)
    for rel in sorted(set(committed) - set(regenerated)):
        failures += 1
        print(f"FAIL {rel}: committed, but no generator writes it")
    for rel in sorted(set(regenerated) - set(committed)):
        failures += 1
        print(f"FAIL {rel}: written by a generator, but not committed")
    compared = 0
    for rel in sorted(set(committed) & set(regenerated)):
        a, b = committed[rel].read_bytes(), regenerated[rel].read_bytes()
        compared += 1
        if rel in EXCEPTIONS:
            why, normalise = EXCEPTIONS[rel]
            if normalise(a) != normalise(b):
                failures += 1
                print(f"FAIL {rel}: differs beyond its documented exception ({why})")
        elif a != b:
            failures += 1
            print(f"FAIL {rel}: the committed file differs from what its generator writes now")
    if compared < MIN_FILES:
        failures += 1
        print(f"FAIL minimum: {compared} files compared, at least {MIN_FILES} required")
    for rel in EXCEPTIONS:
        if rel not in committed:
            failures += 1
            print(f"FAIL {rel}: a documented exception that no longer exists (update EXCEPTIONS)")
    print(f"{compared} files compared, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
