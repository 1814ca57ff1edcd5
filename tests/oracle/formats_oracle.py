#!/usr/bin/env python3
"""Every tensor of the framework-format samples, exported by dumpscope-cli, equals what the
producer wrote: torch.load for msprobe .pt files, numpy for .npy (msprobe, ptdbg, converted
folders), h5py for the dumper .h5 files. Run with /usr/bin/python3 (numpy, torch, h5py).

    /usr/bin/python3 formats_oracle.py --cli build/dev/app/dumpscope-cli --samples samples --tmp /tmp/x

Independent of the CLI's own listing: the tensor ids to export, their files and the files the
index must refuse come from the generators' manifests (samples/msprobe/expected.json and
samples/ptdbg/expected.json by samples/generate_msprobe.py, samples/h5npy_manifest.json by
samples/generate_h5npy.py). For every format:

* the ids of the CLI's `list` that hold data equal the manifest's ids (nothing missing, nothing
  extra), and the listing's errors are exactly the manifest's bad files, each with its reason;
* `export` of all manifest ids: written + errors == requested, the errors are exactly the ones
  named in EXPECTED_EXPORT_ERRORS (with their reason), every written array equals the
  producer's array read by the producer's library;
* at least MIN_CHECKED[format] arrays were compared, and at least MIN_CHECKS checks ran.

One line per failed check, then a JSON summary and "N passed, M failed"; exit 1 on failure.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import torch

from checker import Checker

FORMATS = ("msprobe", "ptdbg", "h5", "npy/convert", "npy/loose")

# Arrays compared per format at least (what the samples hold today, h5 export: two groups):
# an emptied or truncated manifest fails here.
MIN_CHECKED = {"msprobe": 62, "ptdbg": 14, "h5": 74, "npy/convert": 21, "npy/loose": 9, "h5 export": 2}
MIN_CHECKS = 480

# Export requests that must fail, by format and id: (a text the message must contain, whether
# `list` shows the id as a tensor with data).
EXPECTED_EXPORT_ERRORS = {
    # generate_msprobe.py writes an overflow info entry whose tensor lives in a
    # forward_real_data_* folder that an overflow run keeps elsewhere (not in the sample).
    "ptdbg": {"forward_info_4242.json/Functional.conv2d.0.forward.input.0": ("No such file", True)},
    # generate_h5npy.py: a unicode array is listed as a value, not a tensor.
    "npy/loose": {"names.npy.output.0": ("is a str ('<U5') value, not a tensor", False)},
}


def cli_json(ck, where, cli, *args):
    r = subprocess.run([cli, *args, "--json"], capture_output=True, text=True, timeout=600)
    if not ck.check(r.returncode in (0, 1), where, f"exit {r.returncode}: {r.stderr.strip()[:300]}"):
        return None
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        ck.check(False, where, f"stdout is not JSON ({e})")
        return None


# ---------------------------------------------------------------------------- expectations
# Each returns (root relative to --samples, {id: loader of the producer's array}, [(file, reason)])
# where file is relative to the root and reason a text the index error must contain.


def load_pt(path):
    value = torch.load(path, map_location="cpu")
    if value.dtype == torch.bfloat16:
        value = value.float()  # our export widens bf16 as well
    return value.numpy()


def leaf_loader(base, leaf):
    path = os.path.join(base, leaf["location"])
    if leaf["storage"] == "pt":
        return lambda: load_pt(path)
    return lambda: np.load(path, allow_pickle=False)


def expect_msprobe(samples):
    base = os.path.join(samples, "msprobe")
    with open(os.path.join(base, "expected.json")) as f:
        doc = json.load(f)
    ids = {}
    for rank in doc["ranks"].values():
        for op in rank["ops"]:
            for leaf in op["leaves"]:
                if leaf["storage"] in ("pt", "npy"):
                    ids[f"{op['relPath']}.{leaf['io']}.{leaf['index']}"] = leaf_loader(base, leaf)
    return "msprobe", ids, []


def expect_ptdbg(samples):
    base = os.path.join(samples, "ptdbg")
    with open(os.path.join(base, "expected.json")) as f:
        doc = json.load(f)
    ids = {}

    def add(prefix, name, leaves):
        for leaf in leaves:
            if leaf["storage"] in ("pt", "npy"):
                ids[f"{prefix}/{name}.{leaf['io']}.{leaf['index']}"] = leaf_loader(base, leaf)

    for rank_dir, rank in doc["ranks"].items():
        for op in rank["ops"]:
            add(rank_dir, op["name"], op["leaves"])
        if "overflow" in rank:
            for op in rank["overflow"]["ops"]:
                add(rank["overflow"]["relPathDir"], op["name"], op["leaves"])
    for info_file, ops in doc["info"].items():
        for op in ops:
            # overflow info files write API names with underscores; DumpScope's op names (and
            # ids) use the dotted form of every other ptdbg/msprobe file (msprobe.md §9)
            add(info_file, op["name"].replace("_", "."), op["leaves"])
    return "ptdbg", ids, []


def h5_loader(path, dataset):
    def load():
        with h5py.File(path, "r") as f:
            return f[dataset][()]
    return load


def expect_h5(samples):
    with open(os.path.join(samples, "h5npy_manifest.json")) as f:
        doc = json.load(f)
    ids, bad = {}, []
    for entry in doc["h5"]:
        path = os.path.join(samples, entry["file"])
        for op in entry["ops"]:
            for t in op["tensors"]:
                if t["storage"] == "h5":
                    ids[f"{op['relPath'][len('h5/'):]}.{t['io']}.{t['index']}"] = h5_loader(path, t["path"])
        bad += [(e["file"][len("h5/"):], e["contains"]) for e in entry["errors"]]
    return "h5", ids, bad


def expect_npy(samples, sub):
    with open(os.path.join(samples, "h5npy_manifest.json")) as f:
        part = json.load(f)["npy"][sub]
    prefix = part["dir"] + "/"
    ids = {}
    for op in part["ops"]:
        for t in op["tensors"]:
            path = os.path.join(samples, t["file"])
            ids[f"{op['relPath'][len(prefix):]}.{t['io']}.{t['index']}"] = \
                (lambda p: lambda: np.load(p, allow_pickle=False))(path)
    bad = [(e["file"][len(prefix):], e["contains"]) for e in part["errors"]]
    return part["dir"], ids, bad


EXPECT = {
    "msprobe": expect_msprobe,
    "ptdbg": expect_ptdbg,
    "h5": expect_h5,
    "npy/convert": lambda s: expect_npy(s, "convert"),
    "npy/loose": lambda s: expect_npy(s, "loose"),
}

# ---------------------------------------------------------------------------- comparisons


def same_values(ck, where, ours, expected):
    """True when our exported array holds the producer's values (shape, then bits/values)."""
    if expected.dtype.kind == "V" and ours.dtype.kind == "u" and ours.dtype.itemsize == expected.dtype.itemsize:
        # raw bytes (|V2: bfloat16 bits numpy has no type for) are exported as unsigned words
        expected = expected.view(ours.dtype)
    if not ck.check(expected.shape == ours.shape, where, f"shape {ours.shape} != {expected.shape}"):
        return False
    if ours.dtype.kind != expected.dtype.kind and ours.dtype.itemsize == expected.dtype.itemsize \
            and {ours.dtype.kind, expected.dtype.kind} <= set("uib"):
        # The dumper stores uint8 and bool as int8 (h5-dumper.md §3): same bytes.
        expected = expected.view(ours.dtype)
    pairs = [(ours, expected)]
    if expected.dtype.kind == "c":
        pairs = [(ours.real, expected.real), (ours.imag, expected.imag)]
    ok = all(np.array_equal(a, b, equal_nan=b.dtype.kind == "f") for a, b in pairs)
    return ck.check(ok, where, f"values differ ({ours.dtype} vs {expected.dtype})")


def check_format(ck, args, fmt, checked):
    rel, expected, bad = EXPECT[fmt](args.samples)
    root = os.path.join(args.samples, rel)
    where = fmt
    ck.check(expected, where, "the manifest lists no tensors with data")
    listing = cli_json(ck, f"{where} list", args.cli, "list", root)
    if listing is None:
        return
    listed = {t["id"] for op in listing["ops"] for t in op["inputs"] + op["outputs"] + op.get("parameters", [])
              if t.get("storage") in ("pt", "npy", "h5")}
    want_failed = EXPECTED_EXPORT_ERRORS.get(fmt, {})
    want_listed = {i for i in expected if want_failed.get(i, ("", True))[1]}
    ck.check(listed == want_listed, f"{where} list",
             f"data ids differ from the manifest: missing {sorted(want_listed - listed)[:5]}, "
             f"unexpected {sorted(listed - want_listed)[:5]}")
    # The listing's errors are exactly the manifest's bad files, each with its reason.
    errors = [(e["file"], e["message"]) for e in listing["errors"]]
    for file, reason in bad:
        ck.check(any(f == file and reason in m for f, m in errors), f"{where} list",
                 f"no error for {file} containing {reason!r}; errors for it: {[m for f, m in errors if f == file]}")
    unexpected = [(f, m) for f, m in errors if not any(f == b and r in m for b, r in bad)]
    ck.check(not unexpected, f"{where} list", f"errors the manifest does not name: {unexpected[:5]}")

    out = os.path.join(args.tmp, fmt.replace("/", "_"))
    shutil.rmtree(out, ignore_errors=True)
    requested = sorted(expected)
    exported = cli_json(ck, f"{where} export", args.cli, "export", root, *requested, "--out", out)
    if exported is None:
        return
    written = {w["id"]: w for w in exported["written"]}
    failed = {e["id"]: e["message"] for e in exported["errors"]}
    ck.check(len(written) + len(failed) == len(requested) and set(written) | set(failed) == set(requested),
             f"{where} export", f"{len(written)} written + {len(failed)} errors != {len(requested)} requested")
    ck.check(set(failed) == set(want_failed), f"{where} export",
             f"failed ids {sorted(failed)} != expected {sorted(want_failed)}")
    for i, (reason, _) in want_failed.items():
        ck.check(reason in failed.get(i, ""), f"{where} export {i}", f"message {failed.get(i)!r} lacks {reason!r}")
    for i, w in sorted(written.items()):
        ours = np.load(w["file"], allow_pickle=False)
        if same_values(ck, f"{where} {i}", ours, expected[i]()):
            checked[fmt] = checked.get(fmt, 0) + 1


def check_h5_export(ck, args, checked):
    """`export --format h5`: two dumper operators into a new file, compared by h5py with the source."""
    src = os.path.join(args.samples, "h5", "model_npu.h5")
    target = os.path.join(args.tmp, "two_ops.h5")
    if os.path.exists(target):
        os.remove(target)
    with h5py.File(src, "r") as f:
        groups = [f"{op}/{seq}" for op in f for seq in f[op]][:2]
    done = cli_json(ck, "h5 export", args.cli, "export", os.path.dirname(src),
                    *[f"model_npu.h5/{g}" for g in groups], "--format", "h5", "--out", target)
    if done is None or not ck.check(done.get("ops") == len(groups), "h5 export", f"{done}"):
        return
    with h5py.File(src, "r") as a, h5py.File(target, "r") as b:
        ck.check(sorted(b.keys()) == sorted({g.split("/")[0] for g in groups}), "h5 export",
                 f"file holds {sorted(b.keys())}")
        for g in groups:
            ok = [True]

            def same(name, obj):
                other = b[g].get(name)
                if not ck.check(other is not None, f"h5 export {g}/{name}", "missing"):
                    ok[0] = False
                    return
                ok[0] &= ck.check(sorted(obj.attrs) == sorted(other.attrs) and all(
                    np.array_equal(obj.attrs[k], other.attrs[k]) for k in obj.attrs), f"h5 export {g}/{name}",
                    "attributes differ")
                if isinstance(obj, h5py.Dataset):
                    ok[0] &= ck.check(np.array_equal(obj[()], other[()]), f"h5 export {g}/{name}", "data differs")

            a[g].visititems(same)
            if ok[0]:
                checked["h5 export"] = checked.get("h5 export", 0) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    args.samples = os.path.abspath(args.samples)
    os.makedirs(args.tmp, exist_ok=True)
    ck = Checker()
    checked = {}
    for fmt in FORMATS:
        check_format(ck, args, fmt, checked)
    check_h5_export(ck, args, checked)
    print(json.dumps(checked))
    for fmt, least in MIN_CHECKED.items():
        ck.check(checked.get(fmt, 0) >= least, "minimum", f"{fmt}: {checked.get(fmt, 0)} arrays compared, "
                                                         f"at least {least} required")
    return ck.finish(min_checks=MIN_CHECKS)


if __name__ == "__main__":
    sys.exit(main())
