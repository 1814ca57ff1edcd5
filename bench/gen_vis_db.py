#!/usr/bin/env python3
"""Write a large msprobe graph database (.vis.db) for bench_graph_scale (not a sample).

    python3 bench/gen_vis_db.py OUT.vis.db [--layers 1000] [--modules 8] [--apis 124]

A "build" database (one NPU side, step 0, rank 0) with the schema, indexes and row format the
real msprobe 26 wrote in samples/msprobe_real/graph/build_overflow_statistics_mix (tb_nodes,
tb_stack, tb_config; input_data / output_data as msprobe's JSON strings of statistics). The
module tree of a deep transformer: the root DefaultModel holds LAYERS layer modules
`Module.layers.{L}.TransformerLayer.forward.0`, each MODULES sub-modules
`Module.layers.{L}.sub{M}.Block{M}.forward.0`, each APIS API calls
`Functional.linear.{k}.forward` (node_type 1; modules are node_type 0). Nodes: 1 + LAYERS x
(1 + MODULES x (1 + APIS)); the defaults give 1,001,001. Every 5,000th API call has an
overflow level (medium / high / critical in turn). Deterministic (no randomness).
"""

import argparse
import json
import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE tb_nodes (
    id TEXT PRIMARY KEY, graph_id TEXT NOT NULL, node_order INTEGER NOT NULL, node_name TEXT NOT NULL,
    node_type TEXT NOT NULL, up_node TEXT, sub_nodes TEXT, precision_index INTEGER, overflow_level TEXT,
    micro_step_id INTEGER NOT NULL, matched_node_link TEXT, stack_id TEXT, parallel_merge_info TEXT,
    matched_distributed TEXT, modified INTEGER NOT NULL, input_data TEXT, output_data TEXT, data_source TEXT,
    dump_data_dir TEXT, step INTEGER NOT NULL, rank INTEGER NOT NULL, is_distributed INTEGER);
CREATE TABLE tb_stack (id TEXT PRIMARY KEY, stack_info TEXT);
CREATE TABLE tb_config (id TEXT PRIMARY KEY, graph_type TEXT NOT NULL, task TEXT, tool_tip TEXT, micro_steps INTEGER,
    overflow_check INTEGER, node_colors TEXT NOT NULL, rank_list TEXT NOT NULL, step_list TEXT NOT NULL);
"""
INDEXES = """
CREATE INDEX index1 ON tb_nodes (step, rank, data_source, up_node, node_order);
CREATE INDEX index2 ON tb_nodes (step, rank, data_source, node_name);
CREATE INDEX index3 ON tb_nodes (step, rank, data_source, node_order);
CREATE INDEX index4 ON tb_nodes (step, rank, node_order);
CREATE INDEX index5 ON tb_nodes (step, rank, micro_step_id, node_order);
CREATE INDEX index6 ON tb_nodes (step, rank, modified, matched_node_link);
CREATE INDEX index7 ON tb_nodes (is_distributed);
"""
LEVELS = ["medium", "high", "critical"]


def tensor(name, k):
    return json.dumps({name: {"type": "torch.Tensor", "dtype": "torch.bfloat16", "shape": "[4096, 4096]",
                              "Max": str(1.0 + k % 97 / 100), "Min": str(-1.0 - k % 89 / 100), "Mean": str(k % 13 / 1000),
                              "Norm": str(60.0 + k % 31), "requires_grad": "True", "data_name": "-1"}})


def rows(layers, modules, apis):
    order = 0

    def row(name, node_type, up, subs, k, overflow=None):
        nonlocal order
        r = ("NPU_0_0_" + name, "NPU_0_0", order, name, str(node_type), up, json.dumps(subs) if subs else "", None,
             overflow, 0, "[]", "NPU_0_0_0", "", "{}", 0, tensor(name + ".input.0", k), tensor(name + ".output.0", k + 1),
             "NPU", None, 0, 0, 0)
        order += 1
        return r

    layer_names = ["Module.layers.%d.TransformerLayer.forward.0" % i for i in range(layers)]
    yield row("DefaultModel", 0, "", layer_names, 0)
    api = 0
    for i, lname in enumerate(layer_names):
        mod_names = ["Module.layers.%d.sub%d.Block%d.forward.0" % (i, m, m) for m in range(modules)]
        yield row(lname, 0, "DefaultModel", mod_names, i)
        for mname in mod_names:
            calls = ["Functional.linear.%d.forward" % (api + a) for a in range(apis)]
            yield row(mname, 0, lname, calls, i)
            for c in calls:
                yield row(c, 1, mname, None, api, LEVELS[(api // 5000) % 3] if api % 5000 == 4999 else None)
                api += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=1000)
    ap.add_argument("--modules", type=int, default=8)
    ap.add_argument("--apis", type=int, default=124)
    a = ap.parse_args()
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    db = sqlite3.connect(out)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO tb_stack VALUES ('NPU_0_0_0', ?)", (json.dumps(["File /home/user/pretrain.py, line 88, in <module>, \n loss = model(batch)"]),))
    db.execute("INSERT INTO tb_config VALUES ('1', 'build', '', NULL, 1, 1, 'null', '[0]', '[0]')")
    db.executemany("INSERT INTO tb_nodes VALUES (" + ",".join("?" * 22) + ")", rows(a.layers, a.modules, a.apis))
    db.executescript(INDEXES)
    db.commit()
    n = db.execute("SELECT COUNT(*) FROM tb_nodes").fetchone()[0]
    db.close()
    print(json.dumps({"file": str(out), "nodes": n, "bytes": out.stat().st_size}))


if __name__ == "__main__":
    main()
