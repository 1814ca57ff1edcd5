#!/usr/bin/env python3
"""`dumpscope-cli graph` on msprobe's graph databases and on framework dumps, against counts
made here from the files themselves (not from DumpScope):

- every committed `*.vis.db` (found by walking the samples), opened alone, through the folder
  holding it and through every folder above it up to the samples root: exit 0, the text and
  `--json` report list exactly the databases below that path, and per database its type, task,
  overflow flag and, per graph (side, step, rank), the node count and the overflow levels as
  Python's sqlite3 reads them from `tb_config` / `tb_nodes`;
- every msprobe rank folder (dump.json with operators) and every run folder above rank folders:
  `module_graphs` (the module hierarchy the GUI's Graph tab draws) has one graph per rank folder
  with the nodes, parameters, module groups, groups, call-order edges and linked operators that
  modulegraph.h specifies, computed here from dump.json, debug.json and construct.json.

    cli_graph.py --cli dumpscope-cli --samples DIR [--sanitized]
"""
import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from checker import Checker  # noqa: E402


def run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


# --- msprobe graph databases -------------------------------------------------------------

def db_expectation(path):
    """What sqlite3 reads from one database: config and per-graph node and level counts."""
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        graph_type, task, overflow_check = con.execute(
            "select graph_type, task, overflow_check from tb_config").fetchone()
        graphs = {}
        for graph_id, step, rank, count in con.execute(
                "select graph_id, step, rank, count(*) from tb_nodes group by graph_id, step, rank"):
            graphs[(graph_id.split("_")[0], int(step), int(rank))] = {"nodes": count, "levels": {}}
        for graph_id, step, rank, level, count in con.execute(
                "select graph_id, step, rank, overflow_level, count(*) from tb_nodes "
                "where overflow_level is not null and overflow_level != '' group by graph_id, step, rank, overflow_level"):
            graphs[(graph_id.split("_")[0], int(step), int(rank))]["levels"][level] = count
    finally:
        con.close()
    return {"graph_type": graph_type, "task": task or "", "overflow_check": bool(overflow_check), "graphs": graphs}


def check_visdb_path(ck, cli, path, dbs, samples):
    """`graph PATH` (text and --json) lists exactly the databases `dbs` below PATH."""
    where = os.path.relpath(path, samples)
    root = path if os.path.isdir(path) else os.path.dirname(path)
    code, out, err = run(cli, "graph", "--json", path)
    if not ck.check(code == 0, where, f"graph --json exit {code}: {err.strip()[:400]}"):
        return
    try:
        doc = json.loads(out)
    except ValueError as e:
        ck.check(False, where, f"graph --json is no JSON: {e}")
        return
    got = {e["file"]: e for e in doc.get("msprobe_graphs", [])}
    want = {os.path.relpath(db, root): db for db in dbs}
    ck.check(sorted(got) == sorted(want), where, f"databases {sorted(got)} != {sorted(want)}")
    for rel, db in want.items():
        entry = got.get(rel)
        if entry is None:
            continue
        exp = db_expectation(db)
        for key in ("graph_type", "task", "overflow_check"):
            ck.check(entry.get(key) == exp[key], f"{where}: {rel}", f"{key} {entry.get(key)!r} != {exp[key]!r}")
        graphs = {(g["source"], g["step"], g["rank"]): g for g in entry.get("graphs", [])}
        ck.check(sorted(graphs) == sorted(exp["graphs"]), f"{where}: {rel}",
                 f"graphs {sorted(graphs)} != {sorted(exp['graphs'])}")
        for key, want_graph in exp["graphs"].items():
            g = graphs.get(key)
            if g is None:
                continue
            ck.check(g["nodes"] == want_graph["nodes"], f"{where}: {rel} {key}", f"nodes {g['nodes']} != {want_graph['nodes']}")
            if exp["graph_type"] == "build":
                ck.check(g["levels"] == want_graph["levels"], f"{where}: {rel} {key}",
                         f"overflow levels {g['levels']} != {want_graph['levels']}")
            else:
                ck.check(sum(g["levels"].values()) <= g["nodes"], f"{where}: {rel} {key}",
                         f"{sum(g['levels'].values())} nodes with a level of {g['nodes']}")
    code, text, err = run(cli, "graph", path)
    if not ck.check(code == 0, where, f"graph exit {code}: {err.strip()[:400]}"):
        return
    ck.check(f"msprobe graph databases: {len(dbs)}\n" in text, where, "text: no 'msprobe graph databases: N' line")
    for rel, db in want.items():
        exp = db_expectation(db)
        ck.check(f"  {rel}  msprobe {exp['graph_type']} graph" in text, where, f"text does not name {rel}")
        for (source, step, rank), g in exp["graphs"].items():
            line = f"    {source} step {step} rank {rank}: {g['nodes']} nodes"
            ck.check(line in text, where, f"text lacks '{line.strip()}'")


# --- module graphs of framework dumps (modulegraph.h) ------------------------------------

def component(entry):
    return entry.replace("/", "\u2215")


def prefix_of(entry):
    cut = entry.find(".")
    if cut <= 0:
        cut = entry.find("_")
    return component(entry[:cut]) if cut > 0 else ""


def phase_name(entry):
    if entry.endswith(".debug"):
        return "debug"
    return "backward" if ".backward" in entry or ".parameters_grad" in entry else "forward"


def grad_module(entry):
    at = entry.find(".parameters_grad")
    return entry[:at] if at > 0 else ""


def is_module(name):
    return name.startswith("Module.") or name.startswith("Cell.")


def forward_twin(entry):
    if entry.endswith(".backward"):
        return entry[:-9] + ".forward"
    m = re.search(r"\.backward\.(\d+)$", entry)
    return entry[:m.start()] + ".forward." + m.group(1) if m else ""


def backward_twin(entry):
    if entry.endswith(".forward"):
        return entry[:-8] + ".backward"
    m = re.search(r"\.forward\.(\d+)$", entry)
    return entry[:m.start()] + ".backward." + m.group(1) if m else ""


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def rank_entries(rank_dir):
    """The entries of a rank folder (dump.json, then debug.json) or None when it is no
    readable msprobe dump."""
    dump = load_json(os.path.join(rank_dir, "dump.json"))
    if not isinstance(dump, dict) or not isinstance(dump.get("data"), dict) or not dump["data"]:
        return None
    records = dict(dump["data"])
    debug = load_json(os.path.join(rank_dir, "debug.json"))
    if isinstance(debug, dict) and isinstance(debug.get("data"), dict):
        records.update(debug["data"])
    return records


def parents_of(rank_dir, records):
    """construct.json's parents of the entries, with the backward-twin rule of the reader
    ("parent inferred", msprobe-dump spec): a backward call's parent is the backward twin of
    its forward twin's parent when that exists and differs."""
    construct = load_json(os.path.join(rank_dir, "construct.json"))
    parent, others, listed = {}, {}, set()
    if isinstance(construct, dict):
        for key, value in construct.items():
            if key == "megatron_micro_step_number":
                continue
            if isinstance(value, list):
                value = value[0] if value else None
            value = value if isinstance(value, str) else ""
            if key in records:
                parent[key] = value
                listed.add(key)
            else:
                others[key] = value
    for entry in records:
        if entry not in listed:
            continue
        fwd = forward_twin(entry)
        if not fwd:
            continue
        if fwd in records:
            if fwd not in listed:
                continue
            fwd_parent = parent.get(fwd, "")
        else:
            fwd_parent = others.get(fwd, "")
        if not fwd_parent:
            continue
        expected = backward_twin(fwd_parent)
        if not expected or expected == parent.get(entry, ""):
            continue
        if expected not in records and expected not in others:
            continue
        parent[entry] = expected
    return parent


def module_graph_expectation(rank_dir):
    """nodes, parameters, modules, groups, edges, ops of the module graph of one rank folder."""
    records = rank_entries(rank_dir)
    if records is None:
        return None
    entries = list(records)
    parent = parents_of(rank_dir, records)
    modules_mode = any(parent.get(e) for e in entries)
    index = {e: i for i, e in enumerate(entries)}

    def params(entry):
        if grad_module(entry):
            return []
        p = records[entry].get("parameters") if isinstance(records[entry], dict) else None
        return list(p) if isinstance(p, dict) else []

    groups_of_parents = {parent[e] for e in entries if parent.get(e)}
    host = {}
    if modules_mode:
        last_backward = {}
        for i, e in enumerate(entries):
            at = e.rfind(".backward.")
            if is_module(e) and at > 0:
                last_backward[e[:at]] = i
            m = grad_module(e)
            if m and m in last_backward:
                host[i] = last_backward[m]
                groups_of_parents.add(entries[host[i]])
        for e in entries:
            if params(e):
                groups_of_parents.add(e)
    scope_memo = {}

    def scope(i):
        if i in scope_memo:
            return scope_memo[i]
        scope_memo[i] = ""
        p = parent.get(entries[i], "")
        if p:
            outer = scope(index[p]) if p in index else ""
            scope_memo[i] = (outer + "/" if outer else "") + component(p)
        return scope_memo[i]

    def phase_of(i, outer):
        first = outer.split("/")[0].replace("\u2215", "/")
        if first and first not in index and not is_module(first):
            return ""
        return phase_name(entries[i])

    nodes = []  # (path, attached)
    group_of = {}
    for i, e in enumerate(entries):
        own = component(e)
        if modules_mode:
            if i in host:
                h = host[i]
                outer = scope(h)
                outer = (outer + "/" if outer else "") + component(entries[h])
                outer = phase_of(h, outer) + "/" + outer
            else:
                outer = scope(i)
                phase = phase_of(i, outer)
                if e in groups_of_parents:
                    own = own + "/" + own
                outer = outer if not phase else (phase if not outer else phase + "/" + outer)
        else:
            outer = phase_name(e) + ("/" + prefix_of(e) if prefix_of(e) else "")
        name = own if not outer else outer + "/" + own
        nodes.append((name, i in host))
        group_of[i] = name.rsplit("/", 1)[0] if "/" in name else ""
    parameters = 0
    if modules_mode:
        for i, e in enumerate(entries):
            for p in params(e):
                nodes.append((group_of[i] + "/" + component("parameters." + p), True))
                parameters += 1
    groups = set()
    for name, _ in nodes:
        parts = name.split("/")
        for k in range(1, len(parts)):
            groups.add("/".join(parts[:k]))
    # Call-order chains: the members of every group below the root (L1: below the phases).
    members = {}
    live_groups = set()
    for name, attached in nodes:
        if attached:
            continue
        parts = name.split("/")
        members.setdefault("/".join(parts[:-1]), set()).add(name)
        for k in range(1, len(parts)):
            live_groups.add("/".join(parts[:k]))
    for g in live_groups:
        members.setdefault(g.rsplit("/", 1)[0] if "/" in g else "", set()).add(g + "/")
    edges = parameters + len(host)
    for g, m in members.items():
        if not g or (not modules_mode and "/" not in g):
            continue
        edges += len(m) - 1
    return {"nodes": len(nodes), "parameters": parameters,
            "modules": sum(1 for g in groups if is_module(g.rsplit("/", 1)[-1].replace("\u2215", "/"))),
            "groups": len(groups), "edges": edges, "ops": len(entries), "mapped_ops": len(entries),
            "nodes_with_data": len(nodes)}


def check_module_graphs(ck, cli, path, rank_dirs, samples):
    """`graph --json PATH` has one module graph per rank folder, with the counts above."""
    where = os.path.relpath(path, samples)
    code, out, err = run(cli, "graph", "--json", path)
    if not ck.check(code == 0, where, f"graph --json exit {code}: {err.strip()[:400]}"):
        return
    doc = json.loads(out)
    got = {g["graph"]: g for g in doc.get("module_graphs", [])}
    want = {os.path.relpath(d, path) if d != path else None: d for d in rank_dirs}
    if None in want:  # the rank folder opened itself: the graph is named by its step/rank levels
        ck.check(len(got) == 1, where, f"{len(got)} module graphs for one rank folder")
        want = {next(iter(got), ""): want[None]}
    ck.check(sorted(got) == sorted(want), where, f"module graphs {sorted(got)} != {sorted(want)}")
    for name, rank_dir in want.items():
        g = got.get(name)
        exp = module_graph_expectation(rank_dir)
        if g is None or exp is None:
            continue
        for key, value in exp.items():
            ck.check(g.get(key) == value, f"{where}: {name}", f"{key} {g.get(key)} != {value}")
    code, text, _ = run(cli, "graph", path)
    ck.check(code == 0 and f"module graphs of the framework dump (as the GUI's Graph tab draws them): {len(want)}\n" in text, where,
             f"text (exit {code}) does not announce {len(want)} module graph(s)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--sanitized", action="store_true", help="fewer folders (sanitizer build)")
    args = ap.parse_args()
    samples = os.path.abspath(args.samples)
    ck = Checker()

    dbs, rank_dirs = [], []
    for dirpath, dirnames, filenames in os.walk(samples):
        dirnames.sort()
        dbs += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".vis.db")]
        if "dump.json" in filenames and module_graph_expectation(dirpath) is not None:
            rank_dirs.append(dirpath)
    ck.check(len(dbs) >= 3, "samples", f"{len(dbs)} .vis.db files found, at least 3 expected")
    ck.check(len(rank_dirs) >= 20, "samples", f"{len(rank_dirs)} msprobe rank folders found, at least 20 expected")

    # Every database alone and through every folder above it.
    paths = {}
    for db in dbs:
        paths.setdefault(db, set()).add(db)
        d = os.path.dirname(db)
        while True:
            paths.setdefault(d, set()).add(db)
            if d == samples or not d.startswith(samples):
                break
            d = os.path.dirname(d)
    for path in sorted(paths):
        if args.sanitized and os.path.isdir(path) and path != os.path.dirname(sorted(paths[path])[0]) and path != samples:
            continue
        check_visdb_path(ck, cli=args.cli, path=path, dbs=sorted(paths[path]), samples=samples)

    # Module graphs: every rank folder alone, and every run folder (the parent of step folders).
    runs = {}
    for r in rank_dirs:
        run_dir = os.path.dirname(os.path.dirname(r))
        runs.setdefault(run_dir, []).append(r)
    chosen = rank_dirs if not args.sanitized else rank_dirs[::8]
    for r in chosen:
        check_module_graphs(ck, args.cli, r, [r], samples)
    for run_dir in sorted(runs):
        if args.sanitized and run_dir not in {os.path.dirname(os.path.dirname(r)) for r in chosen}:
            continue
        # Every rank folder below it, also those at other depths (msprobe_fixtures keeps
        # single-rank dumps two levels down beside step/rank runs).
        ranks = [r for r in rank_dirs if r.startswith(run_dir + os.sep)]
        if any(db.startswith(run_dir + os.sep) for db in dbs):
            continue  # graph databases below it are what `graph` shows there (check_visdb_path)
        # A run folder with graph databases or GE graphs next to it shows those instead.
        check_module_graphs(ck, args.cli, run_dir, ranks, samples)
    return ck.finish(min_checks=100 if args.sanitized else 400)


if __name__ == "__main__":
    sys.exit(main())
