#!/usr/bin/python3
"""Each oracle can fail: it is run on a copy of samples/ whose expectations were tampered with
(an expected id, a reason, a count) and must exit 1 with a failure naming the tampered fact.

    /usr/bin/python3 tamper_oracles.py --cli build/dev/app/dumpscope-cli --samples samples --tmp /tmp/x [-v]

For every case: the copy is made fresh, one manifest is edited, the oracle runs, and its exit
status and output are checked. -v prints each oracle's command line and failure lines.
"""
import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def edit_json(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def first(items, pred):
    return next(x for x in items if pred(x))


# --- the tampers: (oracle, case name, extra args, edit(samples copy), text the failure must hold)


def msprobe_drop_leaf(s):
    def change(doc):
        op = doc["ranks"]["step0/rank0"]["ops"][0]
        op["leaves"] = [lf for lf in op["leaves"] if not (lf["io"] == "parameter" and lf["index"] == 1)]
    edit_json(s / "msprobe" / "expected.json", change)


def npy_reason(s):
    def change(doc):
        first(doc["npy"]["loose"]["errors"], lambda e: e["file"].endswith("bad_magic.npy"))["contains"] = "not a zip file"
    edit_json(s / "h5npy_manifest.json", change)


def npy_empty(s):
    def change(doc):
        doc["npy"]["convert"]["ops"] = doc["npy"]["convert"]["ops"][:2]
    edit_json(s / "h5npy_manifest.json", change)


def compare_rename_row(s):
    def change(doc):
        first(doc["compare"][0]["expected_rows"], lambda r: r["npu_name"] == "layer1/Relu.output.0")["npu_name"] = \
            "layer1/Relu.output.1"
    edit_json(s / "manifest.json", change)


def compare_drop_reason(s):
    def change(doc):
        first(doc["compare"][0]["expected_rows"], lambda r: r["npu_name"] == "head/Reshape.output.0")["reasons"] = []
    edit_json(s / "manifest.json", change)


def compare_no_warnings(s):
    def change(doc):
        for r in doc["compare"][0]["expected_rows"]:
            if r["verdict"] == "warning":
                r["verdict"] = "pass"
    edit_json(s / "manifest.json", change)


def cli_stat(s):
    def change(doc):
        sample = first(doc["samples"], lambda x: x["name"] == "cann_vectors")
        sample["tensors_expected"][0]["stats"]["max"] += 1.0
    edit_json(s / "manifest.json", change)


def cli_reason(s):
    def change(doc):
        sample = first(doc["samples"], lambda x: x["name"] == "cann_model_dump")
        sample["errors"][0]["contains"] = "no such reason"
    edit_json(s / "manifest.json", change)


def cli_counts(s):
    def change(doc):
        doc["samples"] = [x for x in doc["samples"] if x["name"] == "cann_vectors"]
    edit_json(s / "manifest.json", change)


def overflow_record(s):
    def change(doc):
        sample = first(doc["samples"], lambda x: x["name"] == "overflow_magic")
        rec = sample["overflow"]["records"][0]
        rec["file"] = rec["file"] + ".renamed"
    edit_json(s / "manifest.json", change)


def overflow_codes(s):
    def change(doc):
        sample = first(doc["samples"], lambda x: x["name"] == "overflow_legacy")
        block = first((b for r in sample["overflow"]["records"] for b in r["blocks"]), lambda b: b["codes"])
        block["codes"] = block["codes"] + [99]
    edit_json(s / "manifest.json", change)


def overflow_counts(s):
    def change(doc):
        doc["samples"] = [x for x in doc["samples"] if x["name"] != "overflow_software"]
    edit_json(s / "manifest.json", change)


def overflow_first(s):
    def change(doc):
        sample = first(doc["samples"], lambda x: x["name"] == "overflow_resnet")
        sample["overflow"]["first"]["source"] = "opdebug"  # the record's operator, as "hardware first" would say
    edit_json(s / "manifest.json", change)


def cli_only(name):
    return ["--only", name]


CASES = [
    ("formats_oracle", "ids: a parameter leaf dropped from msprobe/expected.json", [], msprobe_drop_leaf,
     "data ids differ from the manifest"),
    ("formats_oracle", "reason: bad_magic.npy expected to fail with another text", [], npy_reason,
     "no error for bad_magic.npy containing 'not a zip file'"),
    ("formats_oracle", "counts: npy/convert manifest cut to 2 operators", [], npy_empty,
     "npy/convert: 6 arrays compared, at least 21 required"),
    ("compare_oracle", "ids: an expected row renamed", [], compare_rename_row,
     "layer1/Relu.output.1: row missing"),
    ("compare_oracle", "reasons: SHAPE_MISMATCH dropped from an expected row", [], compare_drop_reason,
     "reasons ['SHAPE_MISMATCH'], expected []"),
    ("compare_oracle", "counts: no warning rows expected", [], compare_no_warnings,
     "the manifest expects 0 warning rows, at least 2 required"),
    ("cli_oracle", "values: an expected maximum changed", cli_only("cann_vectors"), cli_stat, "FAIL stats"),
    ("cli_oracle", "reasons: an expected error text changed", cli_only("cann_model_dump"), cli_reason,
     "lacks 'no such reason'"),
    ("cli_oracle", "counts: manifest cut to one sample", [], cli_counts, "samples checked, at least 9 required"),
    ("overflow_oracle", "ids: an expected record file renamed", [], overflow_record, "record files differ"),
    ("overflow_oracle", "reasons: a cause code added", cli_only("overflow_legacy"), overflow_codes, "cause codes"),
    ("overflow_oracle", "counts: one overflow sample dropped", [], overflow_counts,
     "4 samples, at least 5 required"),
    ("overflow_oracle", "values: the first overflow's source changed", cli_only("overflow_resnet"), overflow_first,
     "first.source 'software' != 'opdebug'"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("-v", action="store_true", help="print each command and its failure lines")
    a = ap.parse_args()
    samples, tmp = Path(a.samples).resolve(), Path(a.tmp).resolve()
    failures = 0
    for i, (oracle, what, extra, edit, expect) in enumerate(CASES):
        copy = tmp / f"samples_{i}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(samples, copy, ignore=shutil.ignore_patterns("generate_*.py", "__pycache__"))
        edit(copy)
        cmd = [sys.executable, str(HERE / f"{oracle}.py"), "--cli", a.cli, "--samples", str(copy), *extra]
        if oracle != "overflow_oracle":
            cmd += ["--tmp", str(tmp / f"out_{i}")]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        out = r.stdout + r.stderr
        ok = r.returncode == 1 and expect in out
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {oracle}: {what} -> exit {r.returncode}"
              f"{'' if expect in out else f', no line with {expect!r}'}")
        if a.v or not ok:
            print("     $ " + " ".join(cmd))
            for line in [ln for ln in out.splitlines() if ln.startswith("FAIL")][:4] + out.splitlines()[-1:]:
                print("     " + line)
        shutil.rmtree(copy, ignore_errors=True)
    print(f"{len(CASES) - failures} of {len(CASES)} tampered oracles failed as they must")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
