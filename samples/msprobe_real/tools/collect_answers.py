#!/usr/bin/env python3
"""Fill the "msprobe" half of expected.json from the files msprobe wrote in this folder.

Reads only committed files (dumps/, compare/, overflow_check/, graph/, logs/); never runs
msprobe. For every case it records the exact output file names and what they say:
  pair      per step: per-rank compare CSV (rows, header, Result counts, the first row whose
            Result is not pass, and the first row whose NPU and Bench values differ), the
            xlsx files, and the op(s) that `compare -da` names per rank;
  overflow  per step: the op(s) that `overflow_check` names per rank (or "no anomaly");
  matrix    per run and scope: entry counts and the Distributed.* entries in dump.json.
Graph databases are summarised under "graphs" (config row, node counts, marked nodes).
"""

import csv
import glob
import json
import os
import re
import sqlite3
import sys
from collections import Counter, OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
csv.field_size_limit(sys.maxsize)


def rel(path):
    return os.path.relpath(path, ROOT)


def rank_of(path):
    m = re.search(r"rank(\d+)", os.path.basename(path))
    return int(m.group(1)) if m else None


def load_json(path):
    with open(path) as f:
        return json.load(f, object_pairs_hook=OrderedDict)


def numeric(text):
    try:
        return float(str(text).rstrip("%"))
    except ValueError:
        return None


def values_differ(row, header):
    """True when msprobe's row shows NPU and Bench data that are not identical."""
    if row["NPU Dtype"] != row["Bench Dtype"]:
        return True
    if "NPU MD5" in header:
        return row["NPU MD5"] != row["BENCH MD5"]
    if "MaxAbsErr" in header:
        v = numeric(row["MaxAbsErr"])
        if v is not None:
            return v != 0.0
    # statistics mode, and tensor rows without a tensor metric (non-tensor args): the recorded values
    for side in ("max", "min", "mean", "l2norm"):
        if row.get(f"NPU {side}") != row.get(f"Bench {side}"):
            return True
    return False


def summarize_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames
        rows = list(reader)
    first_not_pass = next((r for r in rows if r["Result"] != "pass"), None)
    first_diff = next((r for r in rows if values_differ(r, header)), None)
    out = OrderedDict(file=rel(path), rows=len(rows), header=header,
                      result_counts=OrderedDict(sorted(Counter(r["Result"] for r in rows).items())))
    out["first_not_pass"] = None if first_not_pass is None else OrderedDict(
        row=first_not_pass["NPU Name"], result=first_not_pass["Result"], err_message=first_not_pass["Err_message"])
    out["first_values_differ"] = None if first_diff is None else first_diff["NPU Name"]
    return out


def names_by_rank(path):
    data = load_json(path)
    return OrderedDict((k, [item.get("op_name") for item in v]) for k, v in data.items())


def log_section(path, *needles):
    """The lines of one command in a per-case log: the section whose "$ ..." line has all needles."""
    if not os.path.exists(path):
        return None
    sections, current = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("$ "):
                current = [line]
                sections.append(current)
            elif current is not None:
                current.append(line)
    for lines in sections:
        if all(n in lines[0] for n in needles):
            return lines
    return None


def log_says(lines, pattern):
    for line in lines or []:
        if pattern in line:
            return line.split("] ", 1)[-1].strip()
    return None


def pair_answers(case):
    out = OrderedDict()
    for step in (0, 1):
        base = os.path.join(ROOT, "compare", case["id"], f"step{step}")
        if not os.path.isdir(base):
            continue  # step not dumped for these runs (the align_* runs dump step 0 only)
        s = OrderedDict()
        s["compare_csv"] = OrderedDict(
            (f"rank{rank_of(p)}", summarize_csv(p)) for p in sorted(glob.glob(os.path.join(base, "csv", "*.csv")),
                                                                  key=rank_of))
        xlsx = sorted(glob.glob(os.path.join(base, "xlsx", "*.xlsx")), key=rank_of)
        if xlsx:
            s["compare_xlsx"] = OrderedDict((f"rank{rank_of(p)}", rel(p)) for p in xlsx)
        da = sorted(glob.glob(os.path.join(base, "diff_analyze", "diff_analyze_*.json")))
        full = sorted(glob.glob(os.path.join(base, "diff_analyze", "compare_result_rank*.json")), key=rank_of)
        log = os.path.join(ROOT, "logs", "compare", case["id"] + ".log")
        da_log = log_section(log, " -da", f"/step{step} ")
        s["diff_analyze"] = OrderedDict(
            file=rel(da[0]) if da else None,
            ops_by_rank=names_by_rank(da[0]) if da else None,
            log_line=log_says(da_log, "Cannot find any diff node") or log_says(da_log, "analyze result is saved"),
            compare_result_json=[rel(p) for p in full] or None)
        s["log"] = rel(log)
        out[f"step{step}"] = s
    return out


def overflow_answers(case):
    out = OrderedDict()
    log = os.path.join(ROOT, "logs", "overflow_check", case["run"] + ".log")
    for step in (0, 1):
        lines = log_section(log, "overflow_check", f"/step{step} ")
        if lines is None:
            continue  # step not dumped for this run
        files = sorted(glob.glob(os.path.join(ROOT, "overflow_check", case["run"], f"step{step}",
                                              "anomaly_analyze_*.json")))
        out[f"step{step}"] = OrderedDict(
            file=rel(files[0]) if files else None,
            ops_by_rank=names_by_rank(files[0]) if files else None,
            log_line=log_says(lines, "Cannot find any anomaly node") or log_says(lines, "analyze result is saved"),
            log=rel(log))
    return out


def matrix_answers(case, runs):
    out = OrderedDict()
    for name in case["runs"]:
        scopes = OrderedDict()
        for path in sorted(glob.glob(os.path.join(ROOT, runs[name]["path"], "step*", "rank*", "dump.json"))):
            data = load_json(path)
            entries = list(data["data"].keys())
            scope = "/".join(path.split(os.sep)[-3:-1])
            tensor_dir = os.path.join(os.path.dirname(path), "dump_tensor_data")
            scopes[scope] = OrderedDict(
                task=data.get("task"), level=data.get("level"), entries=len(entries),
                modules=sum(1 for e in entries if e.startswith("Module.")),
                distributed=[e for e in entries if e.startswith("Distributed.")],
                tensor_files=len(os.listdir(tensor_dir)) if os.path.isdir(tensor_dir) else 0,
                construct_entries=len(load_json(os.path.join(os.path.dirname(path), "construct.json"))))
        out[name] = scopes
    return out


def graph_summary(path):
    # immutable=1: read without creating -wal/-shm files next to the committed database
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    con.row_factory = sqlite3.Row
    cfg = dict(con.execute("select * from tb_config").fetchone())
    for key in ("node_colors", "rank_list", "step_list", "tool_tip"):
        if cfg.get(key):
            try:
                cfg[key] = json.loads(cfg[key])
            except (TypeError, ValueError):
                pass
    counts = OrderedDict()
    for r in con.execute("select step, rank, data_source, count(*) n from tb_nodes group by step, rank, data_source "
                         "order by step, rank, data_source"):
        counts[f"step{r['step']}/rank{r['rank']}/{r['data_source']}"] = r["n"]
    overflow = [OrderedDict(step=r["step"], rank=r["rank"], node=r["node_name"], level=r["overflow_level"])
                for r in con.execute("select step, rank, node_name, overflow_level from tb_nodes "
                                     "where overflow_level is not null and overflow_level != '' "
                                     "order by step, rank, node_order")]
    precision = OrderedDict()
    for r in con.execute("select step, rank, node_name, precision_index from tb_nodes where data_source = 'NPU' "
                         "and precision_index is not null order by step, rank, node_order"):
        precision.setdefault(f"step{r['step']}/rank{r['rank']}", OrderedDict())[r["node_name"]] = r["precision_index"]
    tables = [r[0] for r in con.execute("select name from sqlite_master where type = 'table' order by name")]
    con.close()
    return OrderedDict(file=rel(path), tables=tables, config=cfg, nodes=counts, overflow_nodes=overflow,
                       npu_precision_index=precision or None)


def design_check(case):
    """Does the first row whose values differ (per msprobe's CSV) belong to the designed op?"""
    out = OrderedDict()
    for scope, origin in case["designed"]["per_scope_origin"].items():
        step, rank = scope.split("/")
        csv_info = case["msprobe"].get(step, {}).get("compare_csv", {}).get(rank)
        if csv_info is None:
            continue
        first = csv_info["first_values_differ"]
        if origin is None:
            out[scope] = first is None
        else:
            out[scope] = first is not None and first.startswith(origin["op"] + ".") and \
                first == origin.get("row", first)
    return out


def main():
    path = os.path.join(ROOT, "expected.json")
    expected = load_json(path)
    for case in expected["cases"]:
        if case["kind"] == "pair":
            case["msprobe"] = pair_answers(case)
            case["design_matches_compare_csv"] = design_check(case)
            bad = [s for s, ok in case["design_matches_compare_csv"].items() if not ok]
            if bad:
                print(f"WARNING {case['id']}: designed origin differs from msprobe's CSV in {bad}")
        elif case["kind"] == "overflow":
            case["msprobe"] = overflow_answers(case)
        elif case["kind"] == "single runs":
            case["msprobe"] = matrix_answers(case, expected["runs"])
    graphs = OrderedDict()
    for db in sorted(glob.glob(os.path.join(ROOT, "graph", "*", "*.vis.db"))):
        graphs[os.path.basename(os.path.dirname(db))] = graph_summary(db)
    expected["graphs"] = graphs
    with open(path, "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print("updated", rel(path))


if __name__ == "__main__":
    main()
