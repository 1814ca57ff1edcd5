#!/usr/bin/env python3
"""Independent oracle for `dumpscope-cli overflow`, driven by samples/manifest.json.

    /usr/bin/python3 overflow_oracle.py --cli build/dev/app/dumpscope-cli --samples samples

For every manifest sample whose name starts with "overflow_" it runs

    dumpscope-cli overflow <sample> --json      and      dumpscope-cli info <sample> --json

and compares them with the entry's "overflow" object, which samples/generate_overflow.py
computed with its own decoder of shared/specs/overflow.md (never by running DumpScope):

* the set of OpDebug record files and, per record, its layout, the "first" flag and the
  triggered blocks (kind, model/stream/task id, status, overflow, cause codes, linked_op);
* "first_overflow" (per device);
* the software scan: {finding file: level} and "first_producer";
* info: the ops and tensors counts;
* the one first overflow (README "Overflow"): the JSON's "first" (operator file, source
  opdebug/software/both, the record naming it, the software level, and each source's own
  first) equals the generator's "first", computed by its decoder with the rule written
  there; the text report's "first overflow:" line names it and, when the sources disagree,
  says what the other one names; sub-folders of a sample opened alone ("first_in") too;
* OpDebug units whose status bits have no documented meaning (AIV, AICPU, SDMA): the block
  says so ("status_documented": false, a note), lists the set bits of the status and gives
  the AI Core reading of each bit as a hint (the bits computed here from the status).

Then, against the real msprobe 26.0.0 corpus (samples/msprobe_real, its expected.json names
msprobe's output files), for every overflow run: `dumpscope-cli overflow <run> --json` and
its text report must name, per step and rank, the first anomaly msprobe's own
`overflow_check` named in its anomaly_analyze_*.json (read here, Infinity/NaN tokens and all);
steps where msprobe found nothing have none; ranks msprobe does not list start with a
communication op (NaN/Inf received from another rank). The levels of every node of msprobe's
`graph_visualize -oc` database (read with sqlite3, immutable) equal ours.

One line is printed per failed check, then "N passed, M failed".  The exit status is 1 when
any check fails (argparse exits 2 on usage errors).  A missing CLI, an unknown command, a
non-zero exit status or non-JSON output each count as failures.  A full run (without --only)
must cover at least MIN_SAMPLES samples and MIN_RECORDS OpDebug records and make at least
MIN_CHECKS checks: an emptied or truncated manifest fails.
"""

import argparse
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from checker import Checker

LEGACY_KINDS = ("AI Core", "DHA Atomic Add", "L2 Atomic Add")
INFO_KEYS = ("model_id", "stream_id", "task_id", "task_type", "pc_start", "para_base")
# a missing device level: the manifest writes "", the CLI may spell it differently
NO_DEVICE = {"", "-", "\u2014", "null", "none"}
# What samples/manifest.json holds today (generate_overflow.py): 5 overflow_* samples with 18
# OpDebug records, about 400 checks.
MIN_SAMPLES = 5
MIN_RECORDS = 18
MIN_CHECKS = 400


def run_json(ck, where, exe, *args):
    """Run the CLI and parse its stdout; any failure is one failed check and returns None."""
    try:
        p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        ck.check(False, where, f"cannot run {exe}: {e}")
        return None
    if not ck.check(p.returncode == 0, where,
                    f"exit {p.returncode} for {' '.join(map(str, args))}: {p.stderr.strip()[:300]}"):
        return None
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        ck.check(False, where, f"stdout is not JSON ({e}): {p.stdout[:200]!r}")
        return None
    if not ck.check(isinstance(doc, dict), where, "JSON output is not an object"):
        return None
    return doc


class Paths:
    """The CLI may report paths relative to the sample root or absolute; normalise to relative."""

    def __init__(self, root):
        self.prefixes = sorted({str(root).replace("\\", "/").rstrip("/") + "/",
                                os.path.realpath(root).replace("\\", "/").rstrip("/") + "/"},
                               key=len, reverse=True)

    def rel(self, p):
        if p is None:
            return None
        p = str(p).replace("\\", "/")
        for pre in self.prefixes:
            if p.startswith(pre):
                return p[len(pre):]
        return p[2:] if p.startswith("./") else p


def device_key(d):
    d = "" if d is None else str(d)
    return "" if d.strip().lower() in NO_DEVICE else d


def as_int(v):
    """Ints may come as numbers or as "0x.." / decimal strings."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return None
    return None


def triggered(kind, block):
    """Legacy blocks whose six info fields and status are all zero are not triggered (§4)."""
    if "triggered" in block:
        return bool(block["triggered"])
    if kind not in LEGACY_KINDS:
        return True
    vals = [as_int(block.get(k)) for k in INFO_KEYS + ("status",)]
    return any(v for v in vals if v is not None)


# overflow.md section 6.1: the AI Core status bits with a documented meaning
AI_CORE_BITS = {0x8, 0x10, 0x20, 0x80, 0x100, 0x400}
UNDOCUMENTED_UNITS = ("AIV", "AICPU", "SDMA")


def check_undocumented(ck, where, got, kind, status):
    documented = kind not in UNDOCUMENTED_UNITS
    ck.check(got.get("status_documented") is documented, where,
             f"status_documented {got.get('status_documented')!r} for {kind}")
    if documented:
        return
    bits = [1 << b for b in range(64) if status >> b & 1]
    ck.check(got.get("status_bits") == [hex(b) for b in bits], where,
             f"status_bits {got.get('status_bits')!r} != {[hex(b) for b in bits]}")
    note = str(got.get("status_note", ""))
    ck.check(note.startswith(f"meaning not documented for this unit ({kind})"), where, f"status_note {note!r}")
    hint = got.get("ai_core_hint")
    if ck.check(isinstance(hint, list), where, f"ai_core_hint is not a list: {hint!r}"):
        ck.check([as_int(h.get("code")) for h in hint] == bits, where, f"ai_core_hint codes {hint!r} != {bits}")
        ck.check([bool(h.get("known")) for h in hint] == [b in AI_CORE_BITS for b in bits], where,
                 f"ai_core_hint known flags {hint!r}")


def check_block(ck, where, got, want, paths):
    check_undocumented(ck, where, got, want["kind"], want["status"])
    for key in ("model_id", "stream_id", "task_id", "status"):
        ck.check(as_int(got.get(key)) == want[key], where, f"{key} {got.get(key)!r} != {want[key]!r}")
    ck.check(got.get("overflow") is want["overflow"], where,
             f"overflow {got.get('overflow')!r} != {want['overflow']!r}")
    causes = got.get("causes")
    if ck.check(isinstance(causes, list), where, f"causes is not a list: {causes!r}"):
        codes = [as_int(c.get("code")) if isinstance(c, dict) else None for c in causes]
        ck.check(codes == want["codes"], where, f"cause codes {codes} != {want['codes']}")
    ck.check(paths.rel(got.get("linked_op")) == want["linked_op"], where,
             f"linked_op {got.get('linked_op')!r} != {want['linked_op']!r} ({got.get('link_note', '')!r})")


def check_record(ck, where, got, want, first_files, paths):
    ck.check(got.get("layout") == want["layout"], where, f"layout {got.get('layout')!r} != {want['layout']!r}")
    want_first = want["file"] in first_files
    ck.check(got.get("first") is want_first, where, f"first {got.get('first')!r} != {want_first!r}")
    blocks = got.get("blocks")
    if not ck.check(isinstance(blocks, list), where, f"blocks is not a list: {blocks!r}"):
        return
    trig = [b for b in blocks if isinstance(b, dict) and triggered(b.get("kind"), b)]
    got_kinds = [b.get("kind") for b in trig]
    want_kinds = [b["kind"] for b in want["blocks"]]
    if not ck.check(sorted(map(str, got_kinds)) == sorted(want_kinds), where,
                    f"triggered blocks {got_kinds} != {want_kinds}"):
        return
    for wb in want["blocks"]:
        gb = next(b for b in trig if b.get("kind") == wb["kind"])
        check_block(ck, f"{where} [{wb['kind']}]", gb, wb, paths)


def check_overflow(ck, exe, root, sample):
    name, want = sample["name"], sample["overflow"]
    where = f"overflow {name}"
    paths = Paths(root)
    doc = run_json(ck, where, exe, "overflow", root, "--json")
    if doc is None:
        return
    errors = doc.get("errors")
    ck.check(errors in ([], None), where, f"errors {str(errors)[:300]}")

    # records ----------------------------------------------------------------
    records = doc.get("records")
    if ck.check(isinstance(records, list), where, f"records is not a list: {str(records)[:200]}"):
        got = {}
        for r in records:
            f = paths.rel((r or {}).get("file"))
            ck.check(f not in got, where, f"record {f} listed twice")
            got[f] = r
        wanted = {r["file"]: r for r in want["records"]}
        ck.check(set(got) == set(wanted), where,
                 f"record files differ: missing {sorted(set(wanted) - set(got))}, "
                 f"unexpected {sorted(set(got) - set(wanted))}")
        first_files = set(want["first_overflow"].values())
        for f, w in wanted.items():
            if f in got:
                check_record(ck, f"{where} {f}", got[f], w, first_files, paths)

    # first overflow per device ----------------------------------------------
    first = doc.get("first_overflow")
    if ck.check(isinstance(first, dict), where, f"first_overflow is not an object: {first!r}"):
        got_first = {device_key(k): paths.rel(v) for k, v in first.items()}
        ck.check(got_first == want["first_overflow"], where,
                 f"first_overflow {got_first} != {want['first_overflow']}")

    # software scan ------------------------------------------------------------
    sw = doc.get("software")
    if ck.check(isinstance(sw, dict), where, f"software is not an object: {sw!r}"):
        findings = sw.get("findings")
        if ck.check(isinstance(findings, list), where, f"software.findings is not a list: {findings!r}"):
            levels = {}
            for fnd in findings:
                if isinstance(fnd, dict) and fnd.get("level"):
                    f = paths.rel(fnd.get("file"))
                    ck.check(f not in levels, where, f"software finding {f} listed twice")
                    levels[f] = fnd["level"]
            want_levels = want["software"]["levels"]
            for f in sorted(set(levels) | set(want_levels)):
                ck.check(levels.get(f) == want_levels.get(f), f"{where} software {f}",
                         f"level {levels.get(f)!r} != {want_levels.get(f)!r}")
        producer = paths.rel(sw.get("first_producer"))
        ck.check(producer == want["software"]["first_producer"], where,
                 f"first_producer {producer!r} != {want['software']['first_producer']!r}")

    # the one first overflow -----------------------------------------------------
    check_first(ck, f"{where} first", doc.get("first"), want["first"], paths)
    check_first_text(ck, f"{where} text", exe, root, want["first"])
    for sub, sub_want in (want.get("first_in") or {}).items():
        sub_doc = run_json(ck, f"{where} {sub}", exe, "overflow", root / sub, "--json")
        if sub_doc is not None:
            check_first(ck, f"{where} {sub} first", sub_doc.get("first"), sub_want, Paths(root / sub))


def check_first(ck, where, got, want, paths):
    """The JSON's "first" object against the generator's (both may be null)."""
    if want is None:
        ck.check(got is None, where, f"first {got!r}, the generator found no overflow")
        return
    if not ck.check(isinstance(got, dict), where, f"first is not an object: {got!r}"):
        return
    ck.check(paths.rel(got.get("file")) == want["file"], where, f"first.file {got.get('file')!r} != {want['file']!r}")
    ck.check(got.get("op") == want["op"], where, f"first.op {got.get('op')!r} != {want['op']!r}")
    ck.check(got.get("source") == want["source"], where, f"first.source {got.get('source')!r} != {want['source']!r}")
    ck.check(paths.rel(got.get("record")) == want["record"], where, f"first.record {got.get('record')!r} != {want['record']!r}")
    ck.check(got.get("level") == want["level"], where, f"first.level {got.get('level')!r} != {want['level']!r}")
    for key, extra in (("opdebug_first", "record"), ("software_first", "level")):
        g, w = got.get(key), want[key]
        if w is None:
            ck.check(g is None, where, f"{key} {g!r}, the generator has none")
            continue
        if ck.check(isinstance(g, dict), where, f"{key} is not an object: {g!r}"):
            ck.check(paths.rel(g.get("file")) == w["file"], where, f"{key}.file {g.get('file')!r} != {w['file']!r}")
            got_extra = paths.rel(g.get(extra)) if extra == "record" else g.get(extra)
            ck.check(got_extra == w[extra], where, f"{key}.{extra} {got_extra!r} != {w[extra]!r}")
    # the sources disagree: the note names the other source's operator
    other = want["opdebug_first"] if want["source"] == "software" else want["software_first"]
    note = str(got.get("note", ""))
    if want["source"] != "both" and other is not None and other["file"] != want["file"]:
        ck.check(other["op"] in note, where, f"note {note!r} does not name {other['op']!r}")


def check_first_text(ck, where, exe, root, want):
    """The text report's "first overflow:" line names the operator (and the note the other source's)."""
    try:
        text = subprocess.run([exe, "overflow", str(root)], capture_output=True, text=True, timeout=600).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        text = str(e)
    lines = [l for l in text.splitlines() if l.startswith("first overflow: ")]
    if want is None:
        ck.check(not lines, where, f"text names a first overflow: {lines}")
        return
    if ck.check(len(lines) == 1, where, f"{len(lines)} 'first overflow:' lines in the text report"):
        ck.check(lines[0].startswith(f"first overflow: {want['op']} ("), where, f"text line {lines[0]!r}")
    if want["record"]:
        marked = [l for l in text.splitlines() if l.endswith("<== first overflow")]
        ck.check(len(marked) == 1 and marked[0].split()[0].endswith(want["record"].rsplit("/", 1)[-1]), where,
                 f"records marked first overflow: {marked}")


def check_info(ck, exe, root, sample):
    where = f"info {sample['name']}"
    doc = run_json(ck, where, exe, "info", root, "--json")
    if doc is None:
        return
    for key in ("ops", "tensors"):
        ck.check(doc.get(key) == sample[key], where, f"{key} {doc.get(key)!r} != {sample[key]!r}")


def msprobe_findings(doc):
    """{(step, rank, op name): level} of the software scan, from the CLI's JSON."""
    out = {}
    for f in (doc.get("software") or {}).get("findings") or []:
        parts = str(f.get("file", "")).split("/")
        if len(parts) >= 3 and f.get("level"):
            out[(parts[0], parts[1], "/".join(parts[2:]))] = f["level"]
    return out


def check_origin(ck, where, doc, scope, op, want):
    """The first anomaly's "origins" (an abnormal input no op of the step produced) against the
    designed origin: the parameter, the rank's previous step, and the op that wrote it there or,
    when the write is not in the dump, an entry where it was last seen normal."""
    finding = next((f for f in doc["software"].get("findings") or []
                    if f.get("scope") == scope and f.get("op_name") == op), None)
    origins = (finding or {}).get("origins") or []
    if not ck.check(len(origins) == 1, where, f"origins {origins!r}"):
        return
    o = origins[0]
    ck.check(o.get("parameter") == want["parameter"], where, f"parameter {o.get('parameter')!r} != {want['parameter']!r}")
    ck.check(o.get("previous_scope") == want["previous_step"], where, f"previous_scope {o.get('previous_scope')!r}")
    written = (o.get("written_by") or {}).get("op")
    ck.check(written == want["written_by"], where, f"written_by {written!r} != {want['written_by']!r}")
    if want["written_by"] is None:
        seen = (o.get("last_seen_normal") or {}).get("op")
        ck.check(seen == want["last_seen_normal_at"][0], where, f"last_seen_normal {seen!r} != {want['last_seen_normal_at'][0]!r}")
    ck.check(o.get("text", "") in finding.get("reason", ""), where, "the reason does not carry the origin")


def check_msprobe_real(ck, exe, real):
    expected = json.loads((real / "expected.json").read_text())
    cases = [c for c in expected["cases"] if c.get("kind") == "overflow"]
    ck.check(len(cases) >= 5, "msprobe_real", f"only {len(cases)} overflow cases in expected.json")
    docs = {}
    for case in cases:
        run = case["run"]
        where = f"msprobe_real {case['id']}"
        doc = run_json(ck, where, exe, "overflow", real / "dumps" / run, "--json")
        if doc is None:
            continue
        docs[run] = doc
        scopes = {s.get("scope"): s for s in doc["software"].get("scopes") or []}
        listed_all = []
        for step, answer in case["msprobe"].items():
            step_scopes = {k: v for k, v in scopes.items() if k and k.split("/")[0] == step}
            ck.check(bool(step_scopes), where, f"no scope for {step} in {sorted(scopes)}")
            if answer["file"] is None:
                for name, sc in step_scopes.items():
                    ck.check(sc.get("first_anomaly") is None, f"{where} {name}",
                             f"msprobe found no anomaly, we name {sc.get('first_anomaly')}")
                continue
            anomaly = json.loads((real / answer["file"]).read_text())  # Python reads Infinity/NaN
            designed = case["designed"].get("per_scope_first_anomaly") or {}
            for name, sc in sorted(step_scopes.items()):
                rank = name.split("/")[1]
                listed = anomaly.get("rank_" + rank[len("rank"):], [])
                first = sc.get("first_anomaly")
                if not listed:
                    ck.check(first is None or sc.get("first_is_communication") is True, f"{where} {name}",
                             f"msprobe lists no op; ours {first} is not a communication op")
                    continue
                op = listed[0]["op_name"]
                got = (first or {}).get("op_name")
                want = designed.get(name) or {}
                if want.get("origin") and op == want.get("module"):
                    # A parameter NaN before the step began: msprobe does not count parameters as
                    # inputs and names the module holding it (README "Overflow"); ours is the first
                    # op with the NaN, at level high, with where the parameter came from.
                    listed_all.append(f"{name} {got}")
                    ck.check(got == want["op"], f"{where} {name}", f"first anomaly {got!r} != designed {want['op']!r}")
                    ck.check((first or {}).get("level") == "high", f"{where} {name}", f"level {first}")
                    check_origin(ck, f"{where} {name}", doc, name, got, want["origin"])
                    continue
                listed_all.append(f"{name} {op}")
                ck.check(got == op, f"{where} {name}", f"first anomaly {got!r} != msprobe's {op!r}")
                ck.check((first or {}).get("level") == "critical", f"{where} {name}", f"level {first}")
        fa = doc["software"].get("first_anomaly") or {}
        ours = f"{fa.get('scope')} {fa.get('op_name')}"
        ck.check(ours in listed_all, where, f"dump's first anomaly {ours!r} not among msprobe's {listed_all}")
        # The one answer: no OpDebug record in an msprobe dump, so the software scan's operator.
        first = doc.get("first") or {}
        ck.check(f"{first.get('scope')} {first.get('op')}" in listed_all and first.get("source") == "software", where,
                 f"first {first.get('scope')} {first.get('op')} ({first.get('source')}) not among msprobe's {listed_all}")
        # The text report names the operator.
        try:
            text = subprocess.run([exe, "overflow", str(real / "dumps" / run)], capture_output=True, text=True,
                                  timeout=600).stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            text = str(e)
        ck.check(f"first anomaly: {fa.get('scope')}: {fa.get('op_name')} [{fa.get('level')}]" in text, where,
                 f"text report does not name {ours}")
        # ... and where a parameter that was NaN before its step began came from (as the JSON says)
        for f in doc["software"].get("findings") or []:
            for o in f.get("origins") or []:
                ck.check(o.get("text") and o["text"] in text, where, f"text report lacks the origin {o.get('text')!r}")

    # msprobe's graph build with -oc: the level of every node it holds.
    for name, graph in expected.get("graphs", {}).items():
        if not name.startswith("build_overflow_"):
            continue
        run = name[len("build_"):]
        doc = docs.get(run)
        if not ck.check(doc is not None, f"graph {name}", f"no overflow report for run {run}"):
            continue
        ours = msprobe_findings(doc)
        con = sqlite3.connect(f"file:{real / graph['file']}?immutable=1", uri=True)
        rows = con.execute("SELECT step, rank, node_name, node_type, overflow_level FROM tb_nodes "
                           "WHERE data_source = 'NPU'").fetchall()
        con.close()
        ck.check(len(rows) > 0, f"graph {name}", "no nodes")
        for step, rank, node, node_type, level in rows:
            if node_type == 9 or node == "DefaultModel":  # groups and the root hold no data
                continue
            got = ours.get((f"step{step}", f"rank{rank}", node))
            ck.check(got == level, f"graph {name} step{step}/rank{rank} {node}", f"level {got!r} != msprobe's {level!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="path to dumpscope-cli")
    ap.add_argument("--samples", required=True, help="samples directory (holds manifest.json)")
    ap.add_argument("--only", help="run only the sample with this name")
    args = ap.parse_args()
    samples_dir = Path(args.samples).resolve()
    manifest = json.loads((samples_dir / "manifest.json").read_text())
    exe = os.path.abspath(args.cli)
    ck = Checker()
    chosen = [s for s in manifest["samples"]
              if s["name"].startswith("overflow_") and (not args.only or s["name"] == args.only)]
    ck.check(bool(chosen), "setup", "no overflow_* sample in the manifest")
    if ck.check(os.path.isfile(exe) and os.access(exe, os.X_OK), "setup", f"dumpscope-cli not executable: {exe}"):
        for sample in chosen:
            root = samples_dir / sample["path"]
            check_info(ck, exe, root, sample)
            check_overflow(ck, exe, root, sample)
        if not args.only:
            check_msprobe_real(ck, exe, samples_dir / "msprobe_real")
    if not args.only:
        records = sum(len(s["overflow"]["records"]) for s in chosen)
        ck.check(len(chosen) >= MIN_SAMPLES, "minimum", f"{len(chosen)} samples, at least {MIN_SAMPLES} required")
        ck.check(records >= MIN_RECORDS, "minimum", f"{records} records expected, at least {MIN_RECORDS} required")
        total = ck.passed + ck.failed
        ck.check(total >= MIN_CHECKS, "minimum", f"{total} checks ran, at least {MIN_CHECKS} required")
    return ck.finish()


if __name__ == "__main__":
    sys.exit(main())
