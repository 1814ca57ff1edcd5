#!/usr/bin/env python3
"""Generate the GE graph-dump sample under samples/graph/ and its manifest entry.

Deterministic; run it again to recreate the tree byte for byte:

    /usr/bin/python3 samples/generate_graph.py

The graph files are hand-written protobuf *text format* (no protobuf library), from the
field tables of shared/specs/ge-graph.md §3/§8, in GE's style (2-space indentation, one
field per line).  The CANN dump files next to them are encoded with generate_samples.py's
encoder.  The expectations written to the manifest (node/edge counts, the computation
graph, the unmapped lists) are derived here from the node table with the spec's rules, not
from DumpScope.

Tree:
    graph/dump_graph/12345_0/ge_proto_00000292_Build.txt   the computation graph (+ sub-graph)
    graph/dump_graph/12345_0/ge_proto_00000150_PreRunAfterOptimizeSubGraph.txt  earlier stage
    graph/dump_graph/12345_0/ge_onnx_00000292_graph_1_Build.pbtxt  same graph as ONNX text
    graph/dump/20240613143502/0/ge_default_20240613143502_1/1/0/*  CANN dump files

Files written: samples/graph/** and samples/manifest.json, in which only the entries named
"graph_*" are replaced.
"""

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate_samples as gs  # noqa: E402  (encoder, tensors, Sample, compact_json)

HERE = Path(__file__).resolve().parent
# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = Path(os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE)
GRAPH_NAME = "ge_default_20240613143502_1"
GRAPH_DIR = "dump_graph/12345_0"
DUMP_DIR = f"dump/20240613143502/0/{GRAPH_NAME}/1/0"
NEVER_DUMPED = {"Data", "RefData", "AippData", "Const", "Constant", "Variable", "NetOutput", "If",
                "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase", "For",
                "PartitionedCall", "StatefulPartitionedCall", "StackPush", "StackPop", "Stack"}


class Enum(str):
    """A bare identifier in text format (enum value)."""


def fmt_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Enum):
        return str(v)
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, bytes):
        return '"' + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:03o}" for b in v) + '"'
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def text_format(fields, indent=0):
    """fields: list of (name, value); value is a scalar or a list of fields (a message)."""
    pad = "  " * indent
    out = []
    for name, value in fields:
        if isinstance(value, list):
            out.append(f"{pad}{name} {{")
            out.append(text_format(value, indent + 1))
            out.append(f"{pad}}}")
        else:
            out.append(f"{pad}{name}: {fmt_scalar(value)}")
    return "\n".join(x for x in out if x)


def attr(key, *value):
    return ("attr", [("key", key), ("value", list(value))])


def lst(kind, values, val_type):
    return ("list", [(kind, v) for v in values] + [("val_type", Enum(val_type))])


def desc(dtype, layout, shape, origin_format=None, origin_shape=None, extra=()):
    f = [("dtype", Enum(dtype)), ("shape", [("dim", d) for d in shape]), ("layout", layout)]
    if origin_format:
        f.append(attr("origin_format", ("s", origin_format)))
    if origin_shape is not None:
        f.append(attr("origin_shape", lst("i", origin_shape, "VT_LIST_INT")))
    f.extend(extra)
    return f


# ----------------------------------------------------------------------------
# The computation graph: (name, type, inputs, extra OpDef fields, dumped?)
# ----------------------------------------------------------------------------

EVERY_KIND = [
    attr("a_s", ("s", "SAME")),
    attr("a_i", ("i", 6)),
    attr("a_f", ("f", 0.5)),
    attr("a_b", ("b", True)),
    attr("a_bt", ("bt", b"\x01\x02\xff")),
    attr("a_list", lst("i", [1, 2, 2, 1], "VT_LIST_INT")),
    attr("a_list_empty", ("list", [("val_type", Enum("VT_LIST_FLOAT"))])),
    attr("a_func", ("func", [("name", "fn"), attr("k", ("i", 3))])),
    attr("a_td", ("td", desc("DT_FLOAT", "ND", [2, 3]))),
    attr("a_t", ("t", [("desc", desc("DT_INT32", "ND", [2])), ("data", b"\x01\x00\x00\x00\x02\x00\x00\x00")])),
    attr("a_g", ("g", [("name", "inner"), ("op", [("name", "x"), ("type", "Data")])])),
    attr("a_list_list_int", ("list_list_int", [("list_list_i", [("list_i", 0), ("list_i", 1)]),
                                               ("list_list_i", [("list_i", 2)])])),
    attr("a_dt", ("dt", 1)),
    attr("a_list_list_float", ("list_list_float", [("list_list_f", [("list_f", 0.5), ("list_f", 1.5)])])),
]

NODES = [
    ("IteratorGetNext", "IteratorV2", [], [], True),
    ("input_data", "Data", [], [], False),
    ("resnet/conv1/weights", "Const", [], [], False),
    ("atomic_addr_clean0_71", "AtomicAddrClean", [], [attr("_fe_imply_type", ("i", 6))], True),
    ("trans_TransData_17", "TransData", ["resnet/conv1/weights:0"], [], True),
    ("resnet/conv1/Conv2D", "Conv2D",
     ["IteratorGetNext:0", "trans_TransData_17:0", "", "atomic_addr_clean0_71:-1"],
     [attr("_datadump_original_op_names", lst("s", ["resnet/conv1/Conv2D", "resnet/conv1/Relu"], "VT_LIST_STRING"))],
     True),
    ("resnet/conv1/Reshape", "Reshape", ["resnet/conv1/Conv2D:0"], [attr("_no_task", ("b", True))], False),
    ("resnet/pool1/MaxPool", "MaxPool", ["resnet/conv1/Reshape:0"], [], True),
    ("resnet/block1/conv/Conv2D", "Conv2D", ["resnet/pool1/MaxPool:0", "input_data:0"], EVERY_KIND, True),
    ("resnet/block1/bn/BNInference", "BNInferenceD", ["resnet/block1/conv/Conv2D:0"], [], True),
    ("resnet/block1/add.1", "Add", ["resnet/block1/bn/BNInference:0", "resnet/pool1/MaxPool:0"], [], True),
    ("resnet/fc/MatMul", "MatMulV2", ["resnet/block1/add.1:0", "input_data:0"], [], False),  # missing dump
    ("resnet/fc/BiasAdd", "BiasAdd", ["resnet/fc/MatMul:0", "input_data:0", "resnet/block1/add.1:-1"], [], True),
    ("cond/If", "If", ["resnet/fc/BiasAdd:0"], [("subgraph_name", "then_branch")], False),
    ("loss_scale/Mul", "Mul", ["resnet/fc/BiasAdd:0", "cond/If:0"], [], True),
    ("output", "NetOutput", ["loss_scale/Mul:0", "IteratorGetNext:-1"], [], False),
]
SUB_NODES = [
    ("then_branch/arg0", "Data", [], [], False),
    ("then_branch/Cast", "Cast", ["then_branch/arg0:0"], [], True),
]


def op_def(i, name, op_type, inputs, extra):
    n_in = len(inputs) - sum(1 for s in inputs if s.endswith(":-1"))
    f = [("name", name), ("type", op_type)] + [("input", s) for s in inputs] + list(extra)
    f += [("id", i), ("stream_id", 0)]
    for k in range(n_in):
        if name == "resnet/conv1/Conv2D" and k == 0:
            f.append(("input_desc", desc("DT_FLOAT16", "NC1HWC0", [1, 1, 4, 4, 16], "NCHW", [1, 3, 4, 4])))
        else:
            f.append(("input_desc", desc("DT_FLOAT", "ND", [2, 3])))
    if op_type != "NetOutput":
        extra_out = []
        if name == "resnet/conv1/Conv2D":
            extra_out = [attr("_datadump_origin_name", ("s", "resnet/conv1/Relu")),
                         attr("_datadump_origin_output_index", ("i", 0))]
        f.append(("output_desc", desc("DT_FLOAT", "ND", [2, 3], "ND", [2, 3], extra_out)))
    return ("op", f)


def graph_def(name, nodes, io=True):
    f = [("name", name)]
    if io:
        f += [("input", "IteratorGetNext:0"), ("output", "loss_scale/Mul:0")]
    f += [op_def(i, *n[:4]) for i, n in enumerate(nodes)]
    return ("graph", f)


def edges_of(nodes):
    names = {n[0] for n in nodes}
    data = control = 0
    for n in nodes:
        for s in n[2]:
            if not s:
                continue
            producer, idx = s.rsplit(":", 1)
            if producer in names:
                if int(idx) < 0:
                    control += 1
                else:
                    data += 1
    return data, control


def groups_of(nodes):
    groups = set()
    for n in nodes:
        parts = n[0].split("/")[:-1]
        for k in range(1, len(parts) + 1):
            groups.add("/".join(parts[:k]))
    return sorted(groups)


def build_text():
    model = [("name", GRAPH_NAME), ("version", 1),
             # a field this reader does not know (skipped and counted)
             ("future_block", [("a", 1), ("nested", [("b", "x")])]),
             graph_def(GRAPH_NAME, NODES), graph_def("then_branch", SUB_NODES, io=False),
             attr("model_attr", ("s", "model"))]
    text = text_format(model) + "\n"
    # A second unknown field inside an op, a comment and an unknown (newer) data type name.
    text = text.replace('    name: "resnet/fc/BiasAdd"\n',
                        '    name: "resnet/fc/BiasAdd"\n    # added by a newer GE\n    future_op_field: 7\n', 1)
    marker = '    name: "loss_scale/Mul"\n'
    at = text.index(marker)
    text = text[:at] + text[at:].replace("dtype: DT_FLOAT\n", "dtype: DT_FUTURE_TYPE\n", 1)
    return text


def build_stage_text():
    """An earlier stage: also has the Iterator, is not the Build graph."""
    nodes = NODES[:6]
    return text_format([("name", GRAPH_NAME), graph_def(GRAPH_NAME, nodes)]) + "\n"


def onnx_text(nodes):
    f = [("ir_version", 3), ("producer_name", "GE"), ("unknown_model_field", "x")]
    g = [("name", GRAPH_NAME)]
    for name, op_type, inputs, _extra, _dumped in nodes:
        n = [("input", s) for s in inputs] + [("output", f"{name}:0"), ("name", name), ("op_type", "ge:" + op_type)]
        n.append(("attribute", [("name", "input_desc_dtype:0"), ("s", b"DT_FLOAT"), ("type", Enum("STRING"))]))
        n.append(("attribute", [("name", "input_desc_shape:0"), ("ints", 2), ("ints", 3), ("type", Enum("INTS"))]))
        n.append(("attribute", [("name", "stream_id"), ("i", 0), ("type", Enum("INT"))]))
        g.append(("node", n))
    g.append(("input", [("name", "IteratorGetNext:0")]))
    f.append(("graph", g))
    return text_format(f) + "\n"


def tiny_op(name, op_type, task, ts):
    r = gs.rng_for(f"graph.{name}")
    x = r.standard_normal((2, 3)).astype(np.float32)
    y = (x * np.float32(2) + np.float32(1)).astype(np.float32)
    return gs.Op(op_type, name, task, 0, ts, [gs.nd_tensor(x, "float32")], [gs.nd_tensor(y, "float32")])


def main():
    root = ROOT / "graph"
    if root.exists():
        shutil.rmtree(root)
    s = gs.Sample("graph_ge", "graph")
    base = 1718260502000000
    dumped = [n for n in NODES + SUB_NODES if n[4]]
    unmapped = []
    for k, (name, op_type, *_rest) in enumerate(dumped, start=1):
        s.add_op(DUMP_DIR, tiny_op(name, op_type, 10 + k, base + k))
    extra = tiny_op("extra/Add", "Add", 30, base + 30)  # a dump file without a graph node
    s.add_op(DUMP_DIR, extra)
    unmapped.append(f"{DUMP_DIR}/{extra.file_name()}")

    gdir = root / GRAPH_DIR
    gdir.mkdir(parents=True, exist_ok=True)
    build_file = f"{GRAPH_DIR}/ge_proto_00000292_Build.txt"
    (root / build_file).write_text(build_text())
    (gdir / "ge_proto_00000150_PreRunAfterOptimizeSubGraph.txt").write_text(build_stage_text())
    (gdir / "ge_onnx_00000292_graph_1_Build.pbtxt").write_text(onnx_text(NODES[:5]))

    data, control = edges_of(NODES)
    sub_data, sub_control = edges_of(SUB_NODES)
    all_nodes = NODES + SUB_NODES
    missing = sorted(n[0] for n in all_nodes
                     if not n[4] and n[1] not in NEVER_DUMPED and not any(a[1][0] == ("key", "_no_task") for a in n[3] if a[0] == "attr"))
    no_dump = sorted(n[0] for n in all_nodes if not n[4] and n[0] not in missing)
    st_data, st_control = edges_of(NODES[:6])
    ox_data, ox_control = edges_of(NODES[:5])
    entry = s.manifest()
    entry["graph"] = {
        "files": [
            {"file": f"{GRAPH_DIR}/ge_proto_00000150_PreRunAfterOptimizeSubGraph.txt", "kind": "ge_proto",
             "index": 150, "stage": "PreRunAfterOptimizeSubGraph", "graph": GRAPH_NAME, "nodes": 6,
             "data_edges": st_data, "control_edges": st_control, "subgraphs": 0, "unknown_fields": 0},
            {"file": build_file, "kind": "ge_proto", "index": 292, "stage": "Build", "graph": GRAPH_NAME,
             "nodes": len(NODES), "data_edges": data, "control_edges": control, "subgraphs": 1,
             "subgraph_nodes": len(SUB_NODES), "subgraph_edges": sub_data + sub_control,
             # future_block, future_op_field, DT_FUTURE_TYPE
             "unknown_fields": 3},
            {"file": f"{GRAPH_DIR}/ge_onnx_00000292_graph_1_Build.pbtxt", "kind": "ge_onnx", "index": 292,
             "stage": "Build", "graph": GRAPH_NAME, "nodes": 5, "data_edges": ox_data,
             "control_edges": ox_control, "subgraphs": 0, "unknown_fields": 1},
        ],
        "computation_graph": build_file,
        "groups": groups_of(NODES),
        "nodes_without_dump": missing,
        "no_dump_expected": no_dump,
        "dumps_without_node": unmapped,
    }
    manifest_path = ROOT / "manifest.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"version": 1, "samples": []}
    samples = [e for e in old.get("samples", []) if not e["name"].startswith("graph_")]
    old["samples"] = samples + [entry]
    manifest_path.write_text(gs.compact_json(old))
    print(f"graph/: {s.ops} dump files, {len(NODES)} + {len(SUB_NODES)} nodes; missing {missing}; unmapped {unmapped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
