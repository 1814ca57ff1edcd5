#!/usr/bin/env python3
"""Independent oracle for dumpscope-cli, driven by samples/manifest.json.

    python3 cli_oracle.py --cli build/app/dumpscope-cli --samples samples --tmp /tmp/x

The expected values in the manifest are computed by numpy from the ND arrays the
sample generator started from; this script only runs the CLI and compares.  One
line is printed per failed check, then "N passed, M failed".  Exit status is 1
when any check fails (argparse exits 2 on usage errors).  A full run (without --only) must
cover at least MIN_SAMPLES samples and MIN_TENSORS expected tensors and make at least
MIN_CHECKS checks: an emptied or truncated manifest fails. With --sanitized (an ASan build, where
each CLI run takes seconds) every sample is checked on one tensor of each kind (kind_of), and
the minimum is that every kind of every sample was checked.
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

from checker import Checker

try:
    import numpy as np
except ImportError:  # a pyenv/venv python without numpy: retry with the system one
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

NATIVE = {"float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
          "int64", "uint32", "uint64", "bool", "complex64", "complex128"}
COUNTERS = ("count", "nan", "posinf", "neginf", "zero")
# What samples/manifest.json holds today (generate_samples.py, generate_overflow.py,
# generate_graph.py): 9 samples, 163 tensors with expectations, about 6,600 checks.
MIN_SAMPLES = 9
MIN_TENSORS = 163
MIN_CHECKS = 6500


class Cli:
    def __init__(self, exe):
        self.exe = exe

    def run(self, *args):
        try:
            p = subprocess.run([self.exe, *map(str, args)], capture_output=True, text=True, timeout=600)
            return p.returncode, p.stdout, p.stderr
        except (OSError, subprocess.TimeoutExpired) as e:
            return -1, "", str(e)

    def json(self, ck, where, *args):
        """Run and parse JSON stdout; a failure counts as one failed check."""
        rc, out, err = self.run(*args)
        if not ck.check(rc == 0, where, f"exit {rc} for {' '.join(map(str, args))}: {err.strip()[:300]}"):
            return None
        try:
            return json.loads(out)
        except ValueError as e:
            ck.check(False, where, f"stdout is not JSON ({e}): {out[:200]!r}")
            return None


def same_exact(a, b):
    if a is None or b is None:
        return a is None and b is None
    return float(a) == float(b)


def same_close(a, b, rel=1e-9, abs_tol=1e-12):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_tol)


def split_id(tensor_id):
    """'<rel path>.<input|output>.<index>' -> (basename of the dump file, io, index)."""
    path, io, index = tensor_id.rsplit(".", 2)
    return path.rsplit("/", 1)[-1], io, index


def same_file(reported, rel):
    """The CLI may report the path relative to the sample root or absolute."""
    reported = str(reported or "").replace("\\", "/")
    return reported == rel or reported.endswith("/" + rel)


def sha256_file(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def tree_snapshot(root):
    files, dirs = {}, set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirs.update(os.path.relpath(os.path.join(dirpath, d), root) for d in dirnames)
        for f in filenames:
            p = os.path.join(dirpath, f)
            files[os.path.relpath(p, root)] = sha256_file(p)
    return files, dirs


def pick_tensor(doc, tensor_id):
    tensors = (doc or {}).get("tensors") or []
    for t in tensors:
        if t.get("id") == tensor_id:
            return t
    return tensors[0] if len(tensors) == 1 else None


# ---------------------------------------------------------------------------- checks


def check_stats(ck, cli, root, exp):
    where = f"stats {exp['id']}"
    t = pick_tensor(cli.json(ck, where, "stats", root, exp["id"], "--json"), exp["id"])
    if not ck.check(t is not None, where, "tensor missing from 'tensors'"):
        return
    for key in ("dtype", "format", "shape", "original_shape"):
        ck.check(t.get(key) == exp[key], where, f"{key} {t.get(key)!r} != {exp[key]!r}")
    st = exp["stats"]
    for key in COUNTERS:
        ck.check(t.get(key) == st[key], where, f"{key} {t.get(key)!r} != {st[key]!r}")
    for key in ("min", "max"):
        ck.check(same_exact(t.get(key), st[key]), where, f"{key} {t.get(key)!r} != {st[key]!r}")
    for key in ("mean", "std", "l2norm"):
        ck.check(same_close(t.get(key), st[key]), where, f"{key} {t.get(key)!r} !~ {st[key]!r}")


def check_histogram(ck, cli, root, exp):
    where = f"stats --bins {exp['id']}"
    t = pick_tensor(cli.json(ck, where, "stats", root, exp["id"], "--json", "--bins", 16), exp["id"])
    h = (t or {}).get("histogram")
    if not ck.check(isinstance(h, dict), where, "no histogram object"):
        return
    want = exp["histogram"]
    ck.check(h.get("bins") == 16, where, f"bins {h.get('bins')!r} != 16")
    ck.check(h.get("counts") == want["counts"], where, f"counts {h.get('counts')} != {want['counts']}")
    rng = h.get("range") or [None, None]
    ck.check(len(rng) == 2 and all(same_exact(a, b) for a, b in zip(rng, want["range"])),
             where, f"range {rng} != {want['range']}")
    for key in ("nan", "posinf", "neginf"):
        ck.check(h.get(key) == exp["stats"][key], where, f"histogram {key} {h.get(key)!r}")


def export(cli, root, exp, out_dir, fmt, *extra):
    out_dir.mkdir(parents=True, exist_ok=True)
    base, io, index = split_id(exp["id"])
    rc, _, err = cli.run("export", root, exp["id"], "--format", fmt, "--out", out_dir, *extra)
    return rc, err, out_dir / f"{base}.{io}.{index}.{fmt}"


def load_npy(ck, where, path):
    try:
        return np.load(path, allow_pickle=False)
    except Exception as e:  # noqa: BLE001 - any load failure is a failed check
        ck.check(False, where, f"np.load({path}) failed: {e}")
        return None


def check_npy(ck, where, path, exp):
    a = load_npy(ck, where, path)
    if a is None:
        return None
    ok = ck.check(a.dtype.str == exp["export_descr"], where, f"descr {a.dtype.str} != {exp['export_descr']}")
    ok &= ck.check(list(a.shape) == exp["nd_shape"], where, f"shape {list(a.shape)} != {exp['nd_shape']}")
    digest = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
    ok &= ck.check(digest == exp["nd_sha256"], where, "ND values differ (sha256)")
    return a if ok else None


def check_export_npy(ck, cli, root, exp, tmp):
    where = f"export npy {exp['id']}"
    rc, err, path = export(cli, root, exp, tmp / "npy", "npy")
    if not ck.check(rc == 0 and path.is_file(), where, f"exit {rc}, {path.name} missing: {err.strip()[:300]}"):
        return None
    ref = check_npy(ck, where, path, exp)
    # Overwrite protection: without --force the existing file must survive untouched.
    path.write_bytes(b"sentinel")
    rc, _, _ = export(cli, root, exp, tmp / "npy", "npy")
    ck.check(rc != 0, where, "export over an existing file without --force succeeded")
    ck.check(path.read_bytes() == b"sentinel", where, "existing file modified without --force")
    rc, err, _ = export(cli, root, exp, tmp / "npy", "npy", "--force")
    if ck.check(rc == 0, where, f"export --force failed: exit {rc} {err.strip()[:300]}"):
        check_npy(ck, where + " --force", path, exp)
    return ref


def check_export_raw(ck, cli, root, exp, tmp):
    if exp["dtype"] not in NATIVE:
        return  # bf16 / fp8 / int4: no native numpy type for the raw bytes
    where = f"export npy --raw {exp['id']}"
    rc, err, path = export(cli, root, exp, tmp / "raw", "npy", "--raw")
    if not ck.check(rc == 0 and path.is_file(), where, f"exit {rc}, {path.name} missing: {err.strip()[:300]}"):
        return
    a = load_npy(ck, where, path)
    if a is not None:
        digest = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
        ck.check(digest == exp["raw_sha256"], where, "raw device bytes differ (sha256)")


def check_export_txt(ck, cli, root, exp, tmp, ref):
    where = f"export txt {exp['id']}"
    rc, err, path = export(cli, root, exp, tmp / "txt", "txt")
    if not ck.check(rc == 0 and path.is_file(), where, f"exit {rc}, {path.name} missing: {err.strip()[:300]}"):
        return
    if not ck.check(ref is not None, where, "no verified .npy to compare the text against"):
        return
    try:
        got = np.loadtxt(path, dtype=np.float64, ndmin=1).reshape(-1)
    except Exception as e:  # noqa: BLE001
        ck.check(False, where, f"np.loadtxt failed: {e}")
        return
    want = ref.astype(np.float64).reshape(-1)
    if ck.check(got.size == want.size, where, f"{got.size} values, expected {want.size}"):
        ck.check(bool(np.all(np.isclose(got, want, rtol=1e-15, atol=0, equal_nan=True))),
                 where, "text values differ from the ND values")


def check_list(ck, cli, root, sample):
    where = f"list {sample['name']}"
    doc = cli.json(ck, where, "list", root, "--json")
    if doc is None:
        return
    ops = doc.get("ops") or []
    ck.check(len(ops) == sample["ops"], where, f"{len(ops)} ops, expected {sample['ops']}")
    errors = doc.get("errors") or []
    for want in sample["errors"]:
        hits = [e for e in errors if same_file(e.get("file"), want["file"])]
        if ck.check(hits, where, f"no error reported for {want['file']}"):
            msg = " ".join(str(e.get("message", "")) for e in hits).lower()
            ck.check(want["contains"] in msg, where,
                     f"error for {want['file']} lacks '{want['contains']}': {msg[:200]!r}")


def check_info(ck, cli, root, sample):
    where = f"info {sample['name']}"
    doc = cli.json(ck, where, "info", root, "--json")
    if doc is None:
        return
    errors = doc.get("errors")
    n_errors = len(errors) if isinstance(errors, list) else errors
    for key, got, want in (("ops", doc.get("ops"), sample["ops"]),
                           ("tensors", doc.get("tensors"), sample["tensors"]),
                           ("errors", n_errors, len(sample["errors"]))):
        ck.check(got == want, where, f"{key} {got!r} != {want!r}")


def kind_of(exp):
    """What selects a different decoding path: dtype, layout, rank, and special values."""
    stats = exp["stats"]
    return (exp["dtype"], exp["format"], len(exp["shape"]), tuple(stats.get(k, 0) > 0 for k in ("nan", "posinf", "neginf")))


def one_of_each_kind(tensors):
    seen, picked = set(), []
    for exp in tensors:
        if kind_of(exp) not in seen:
            seen.add(kind_of(exp))
            picked.append(exp)
    return picked


def check_sample(ck, cli, samples_dir, sample, tmp_root, sanitized=False):
    """Returns the number of expected tensors checked."""
    root = samples_dir / sample["path"]
    tmp = tmp_root / sample["name"]
    if tmp.exists():
        shutil.rmtree(tmp)
    before = tree_snapshot(root)
    check_list(ck, cli, root, sample)
    check_info(ck, cli, root, sample)
    tensors = one_of_each_kind(sample["tensors_expected"]) if sanitized else sample["tensors_expected"]
    for exp in tensors:
        check_stats(ck, cli, root, exp)
        check_histogram(ck, cli, root, exp)
        ref = check_export_npy(ck, cli, root, exp, tmp)
        check_export_raw(ck, cli, root, exp, tmp)
        check_export_txt(ck, cli, root, exp, tmp, ref)
    after = tree_snapshot(root)
    ck.check(after[0] == before[0], f"read-only {sample['name']}",
             f"files changed/added/removed: {sorted(set(after[0].items()) ^ set(before[0].items()))[:5]}")
    ck.check(after[1] == before[1], f"read-only {sample['name']}", "directories added/removed")
    return len(tensors)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="path to dumpscope-cli")
    ap.add_argument("--samples", required=True, help="samples directory (holds manifest.json)")
    ap.add_argument("--tmp", required=True, help="scratch directory for exports")
    ap.add_argument("--only", help="run only the sample with this name")
    ap.add_argument("--sanitized", action="store_true", help="a sanitizer build: one tensor of each kind per sample")
    args = ap.parse_args()
    samples_dir = Path(args.samples).resolve()
    manifest = json.loads((samples_dir / "manifest.json").read_text())
    ck, cli = Checker(), Cli(os.path.abspath(args.cli))
    tmp_root = Path(args.tmp).resolve() / "cli_oracle"
    samples = tensors = 0
    if ck.check(os.access(args.cli, os.X_OK), "setup", f"dumpscope-cli not executable: {args.cli}"):
        for sample in manifest["samples"]:
            if not args.only or sample["name"] == args.only:
                tensors += check_sample(ck, cli, samples_dir, sample, tmp_root, args.sanitized)
                samples += 1
    if args.sanitized and not args.only:
        kinds = sum(len({kind_of(e) for e in s["tensors_expected"]}) for s in manifest["samples"])
        ck.check(samples >= MIN_SAMPLES and tensors == kinds, "minimum",
                 f"{samples} samples and {tensors} tensors checked: at least {MIN_SAMPLES} and {kinds} required")
    elif not args.only:
        ck.check(samples >= MIN_SAMPLES, "minimum", f"{samples} samples checked, at least {MIN_SAMPLES} required")
        ck.check(tensors >= MIN_TENSORS, "minimum", f"{tensors} tensors checked, at least {MIN_TENSORS} required")
        total = ck.passed + ck.failed
        ck.check(total >= MIN_CHECKS, "minimum", f"{total} checks ran, at least {MIN_CHECKS} required")
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
