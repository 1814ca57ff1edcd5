#!/usr/bin/env python3
"""Every tensor of the framework-format samples, exported by dumpscope-cli, equals what the
producer wrote: torch.load for msprobe .pt files, numpy for .npy (msprobe, ptdbg, converted
folders), h5py for the dumper .h5 files. Run with /usr/bin/python3 (numpy, torch, h5py)."""
import argparse
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import torch


def cli_json(cli, *args):
    r = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return json.loads(r.stdout)


def producer_array(root, op, t):
    """What the producer wrote for one leaf, read by the producer's own library."""
    storage, location = t["storage"], t.get("location", "")
    if storage == "pt":
        value = torch.load(os.path.join(root, location), map_location="cpu")
        if value.dtype == torch.bfloat16:
            value = value.float()  # our export widens bf16 as well
        return value.numpy()
    if storage == "npy":
        return np.load(os.path.join(root, location), allow_pickle=False)
    if storage == "h5":
        with h5py.File(os.path.join(root, op["data_file"]), "r") as f:
            return f[location][()]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    checked = {}
    failures = []
    for fmt in ("msprobe", "ptdbg", "h5", "npy/convert", "npy/loose"):
        root = os.path.join(os.path.abspath(args.samples), fmt)
        listing = cli_json(args.cli, "list", root)
        out = os.path.join(args.tmp, fmt.replace("/", "_"))
        shutil.rmtree(out, ignore_errors=True)
        ids, leaves = [], {}
        for op in listing["ops"]:
            # The record file of h5 ops is the .h5 (the part of the path before the group).
            op["data_file"] = op["file"].split(".h5/")[0] + ".h5" if ".h5/" in op["file"] else ""
            for t in op["inputs"] + op["outputs"] + op.get("parameters", []):
                if t.get("storage") in ("pt", "npy", "h5"):
                    ids.append(t["id"])
                    leaves[t["id"]] = (op, t)
        if not ids:
            failures.append(f"{fmt}: no tensors with data")
            continue
        exported = cli_json(args.cli, "export", root, *ids, "--out", out)
        errors = {e["id"]: e["message"] for e in exported["errors"]}
        for w in exported["written"]:
            op, t = leaves[w["id"]]
            expected = producer_array(listing["path"], op, t)
            ours = np.load(w["file"], allow_pickle=False)
            if expected.dtype.kind in "UV":
                continue  # text is shown as a value; |V2 is raw bytes unless read as bf16 on request
            if expected.shape != ours.shape:
                failures.append(f"{w['id']}: shape {ours.shape} != {expected.shape}")
                continue
            if ours.dtype.kind != expected.dtype.kind and ours.dtype.itemsize == expected.dtype.itemsize \
                    and {ours.dtype.kind, expected.dtype.kind} <= set("uib"):
                # The dumper stores uint8 and bool as int8 (h5-dumper.md §3): same bytes.
                expected = expected.view(ours.dtype)
            pairs = [(ours, expected)]
            if expected.dtype.kind == "c":
                pairs = [(ours.real, expected.real), (ours.imag, expected.imag)]
            for a, b in pairs:
                if not np.array_equal(a, b, equal_nan=b.dtype.kind == "f"):
                    failures.append(f"{w['id']}: values differ ({ours.dtype} vs {expected.dtype})")
                    break
            checked[fmt] = checked.get(fmt, 0) + 1
        for i, message in errors.items():
            # Files the samples break on purpose are refused with a reason, and a tensor file
            # that is not in the sample (forward_real_data_* of an overflow run was not copied)
            # must be reported missing; nothing else may fail.
            location = os.path.join(listing["path"], leaves[i][1].get("location", ""))
            missing = not os.path.exists(location) and "No such file" in message
            if "bad" not in i and "truncated" not in message and not missing:
                failures.append(f"{i}: {message}")
    # `export --format h5`: two dumper operators into a new file, compared by h5py with the source.
    src = os.path.join(os.path.abspath(args.samples), "h5", "model_npu.h5")
    target = os.path.join(args.tmp, "two_ops.h5")
    if os.path.exists(target):
        os.remove(target)
    with h5py.File(src, "r") as f:
        groups = [f"{op}/{seq}" for op in f for seq in f[op]][:2]
    done = cli_json(args.cli, "export", os.path.dirname(src), *[f"model_npu.h5/{g}" for g in groups],
                    "--format", "h5", "--out", target)
    if done.get("ops") != len(groups):
        failures.append(f"h5 export: {done}")
    else:
        with h5py.File(src, "r") as a, h5py.File(target, "r") as b:
            if sorted(b.keys()) != sorted({g.split("/")[0] for g in groups}):
                failures.append(f"h5 export holds {sorted(b.keys())}")
            for g in groups:
                def same(name, obj):
                    other = b[g][name]
                    if sorted(obj.attrs) != sorted(other.attrs) or not all(
                            np.array_equal(obj.attrs[k], other.attrs[k]) for k in obj.attrs):
                        failures.append(f"h5 export {g}/{name}: attributes differ")
                    if isinstance(obj, h5py.Dataset) and not np.array_equal(obj[()], other[()]):
                        failures.append(f"h5 export {g}/{name}: data differs")
                a[g].visititems(same)
                checked["h5 export"] = checked.get("h5 export", 0) + 1
    print(json.dumps(checked))
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    if sum(checked.values()) < 40:
        sys.exit(f"too few tensors checked: {checked}")


if __name__ == "__main__":
    main()
