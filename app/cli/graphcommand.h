#pragma once

// `dumpscope-cli graph PATH [GRAPH_PATH...] [--json]`: the GE graph dumps found for PATH, the
// computation graph and why it was chosen, and - when PATH also holds a CANN dump - the graph
// nodes without dump data and the dump files without a graph node.
//
// PATH is a graph file, or a directory searched recursively for ge_proto_* / ge_onnx_* files
// (DUMP_GRAPH_PATH/{pid}_{deviceid} folders included; when none is below PATH, the graph files
// next to it). GE writes its graph files into the training job's working directory, not into
// the dump: GRAPH_PATHs (graph files or folders) are searched too, the same way
// (discoverGraphs, the function the GUI's Graph tab uses). The dump part indexes PATH like
// `info` does.
//
// Without a readable GE graph file, what the GUI's Graph tab shows instead: msprobe's graph
// databases (*.vis.db, visdbcommand.h), else the module graphs of a framework dump
// (dumpgraph/modulegraph.h: one per rank folder).
//
// Exit codes: 0 at least one graph (GE file, graph database or module graph) was read; 1 none
// found or none readable; 3 PATH or a GRAPH_PATH does not exist.
//
// JSON (--json), one object:
// {
//   "path": "/abs/PATH",
//   "graphs": [                              // every graph file, sorted by the file-name index
//     {
//       "file": "graphs/123_0/ge_proto_00000292_Build.txt", // relative to PATH when below it
//       "kind": "ge_proto" | "ge_onnx",
//       "index": 292,                        // the number in the file name
//       "stage": "Build",                    // the file-name suffix (compilation stage)
//       "model_name": "...",                 // ModelDef.name
//       "graph": "ge_default_20240613143502_1", // root GraphDef.name
//       "nodes": 15, "edges": 17,            // root graph; edges = data + control
//       "data_edges": 14, "control_edges": 3,
//       "subgraphs": [{"name": "...", "nodes": 2, "edges": 1}],
//       "unknown_fields": 1,                 // fields the reader skipped
//       "reduced_fidelity": false,           // true for ge_onnx files
//       "error": "file:line:col: message"    // only when the file could not be read; the
//     }                                      // counts are then absent
//   ],
//   "computation_graph": null | {            // the first candidate
//     "file": "...", "graph": "...", "reason": "chosen: a Build graph, ...",
//     "candidates": [{"file": "...", "graph": "...", "reason": "..."}]  // all readable graphs, best first
//   },
//   "dump": null | {                         // null when PATH holds no CANN dump files
//     "ops": 10,                             // dump files indexed at PATH
//     "model_folders": ["ge_default_20240613143502_1"], // model_name folders matched to the graph
//     "mapped_ops": 9,
//     "nodes_without_dump": [{"node": "resnet/fc/MatMul", "type": "MatMulV2", "graph": "ge_default_..."}],
//     "no_dump_expected": [{"node": "...", "type": "...", "graph": "..."}], // _no_task, Data, Const ...
//     "dumps_without_node": ["20240613143502/0/ge_default_.../1/0/Add.extra_Add.30.0.1718260502000030"],
//     "ambiguous": ["<rel path>"],           // files matching several nodes
//     "stream_mismatch": ["<rel path>"]      // OpDef.stream_id differs from the file name's
//   },
//   "msprobe_graphs": [...],                 // visdbcommand.h
//   "module_graphs": [                       // empty unless the Graph tab would show them
//     {"graph": "step0/rank0", "file": "step0/rank0/construct.json",
//      "nodes": 37, "parameters": 6,         // entries + one node per module parameter
//      "modules": 9, "groups": 11,           // groups that are module calls; all groups
//      "edges": 35,                          // call order (msprobe records no data flow)
//      "ops": 31, "mapped_ops": 31, "nodes_with_data": 37} // the Graph tab's "Linked" line
//   ]
// }

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace ds {

/// Builds the report (text or JSON) and sets the exit code.
QByteArray graphReport(const QString &path, const QStringList &graphPaths, bool asJson, int *exitCode);

/// Prints graphReport() to stdout and returns the exit code.
int runGraphCommand(const QString &path, const QStringList &graphPaths, bool asJson);

} // namespace ds
