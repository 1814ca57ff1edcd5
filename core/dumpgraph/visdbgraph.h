#pragma once

#include "dump/records.h"
#include "dumpgraph/nodestatus.h"
#include "util/error.h"
#include "formats/visdb/visdb.h"
#include "graph/graph.h"

#include <vector>

namespace ds {

/// GraphModel::stage of the graphs read from msprobe graph databases (.vis.db).
inline constexpr char kVisDbStage[] = "vis.db";
/// Node attributes carrying a database node's state (GraphNode::attrs):
inline constexpr char kVisNodeAttr[] = "vis_node";               ///< s: the node_name in the database
inline constexpr char kVisPrecisionAttr[] = "precision_index";   ///< f: 0 (pass) .. 1 (error), compare graphs
inline constexpr char kVisPrecisionLevelAttr[] = "precision_level"; ///< s: "pass", "warning", "error"
inline constexpr char kVisOverflowAttr[] = "overflow_level";     ///< s: "medium", "high", "critical"
inline constexpr char kVisMatchedAttr[] = "matched_node";         ///< s: the other side's node_name ("" unmatched)
/// Graph attributes (Graph::attrs of the root graph) carrying what the database is:
inline constexpr char kVisGraphTypeAttr[] = "vis_graph_type";         ///< s: "build" or "compare" (tb_config.graph_type)
inline constexpr char kVisTaskAttr[] = "vis_task";                    ///< s: compare "summary", "all", "md5"; build ""
inline constexpr char kVisOverflowCheckAttr[] = "vis_overflow_check"; ///< b: built with -oc
inline constexpr char kVisSourceAttr[] = "vis_source";                ///< s: "NPU" or "Bench"
inline constexpr char kVisStepAttr[] = "vis_step";                    ///< i
inline constexpr char kVisRankAttr[] = "vis_rank";                    ///< i
inline constexpr char kVisRunsAttr[] = "vis_runs";                    ///< s: "npu_run vs bench_run" from dump_data_dir, or ""
inline constexpr char kVisStartAttr[] = "vis_start_node";            ///< i: visDbStartNode's node index (-1: none)
inline constexpr char kVisErrorNodesAttr[] = "vis_error_nodes";       ///< i: nodes whose precision level is "error"
inline constexpr char kVisRowsFileAttr[] = "vis_rows_file";           ///< s: the database to read a node's rows from
                                                                      ///<    (visDbRowsKey), "" when the nodes hold them

/// One GraphModel per side, step and rank of a database, in its order (NPU before Bench):
/// modelName "NPU step0 rank1", file the database, stage kVisDbStage, one root graph.
/// The module hierarchy becomes name-scope groups the way buildModuleGraphs makes them: a node
/// with children is a group, and its own node sits inside it (so its data stays reachable);
/// the root DefaultModel is not a group, and "Apis_Between_Modules.N" are groups only. Sibling
/// members are chained in node_order (msprobe records no data flow): Graph::edges made by node
/// index, GraphNode::inputs left empty. Inputs and outputs keep
/// the database's row names; each node carries the attributes above.
/// A database read with deferred rows (db.rowsDeferred) gives nodes without inputDescs /
/// outputDescs and the root graph's kVisRowsFileAttr names the database: readVisDbNodeRows
/// reads a node's rows when it is shown.
std::vector<GraphModel> visDbGraphModels(const visdb::VisDatabase &db);

/// A node's input and output rows, as a GraphNode of an eager read holds them (inputDescs,
/// outputDescs: rows sorted by name, each row's values as "s" attributes sorted by key).
struct VisDbNodeRows
{
    std::vector<GraphTensorDesc> inputs, outputs;
};

/// Where a node of a graph read with deferred rows (visdb::VisDbRead) finds its rows.
struct VisDbRowsKey
{
    QString file, source, nodeName;
    int step = 0, rank = 0, order = 0;
    /// False for a node that holds its rows (an eager read) or is not a database node.
    bool isValid() const { return !file.isEmpty(); }
};
VisDbRowsKey visDbRowsKey(const Graph &graph, const GraphNode &node);

/// Reads one node's rows from its database and parses them as an eager read does (the same
/// rows, equal field by field). For a worker thread: it opens the database and queries it.
Result<VisDbNodeRows> readVisDbNodeRows(const VisDbRowsKey &key);

/// True for a model made by visDbGraphModels.
bool isVisDbGraph(const GraphModel &model);
/// A graph attribute of such a model's root graph ("" when absent).
QString visDbAttr(const GraphModel &model, const char *key);
/// True for a model of a compare database (msprobe's precision levels), false for a build one.
bool isVisDbCompare(const GraphModel &model);

/// How such a model is listed, by what it is first and when it was written last:
/// "build with overflow check · build_overflow_statistics_mix · NPU step1 rank1 · 18 nodes ·
/// critical: Torch.exp.0.forward — 2026-11-24 15:21:27". The name is the runs the database was
/// made from when it records them (tensor dumps), else the database's folder (msprobe's -o);
/// the finding is the first critical overflow node (build) or the number of error nodes
/// (compare). The time stamp comes from msprobe's file name (build_<YYYYMMDDhhmmss>.vis.db).
QString visDbModelTitle(const GraphModel &model);

/// The model to show first: the one with the earliest finding (visDbStartNode; the lowest
/// step, then the lowest node_order), else 0.
int visDbFirstModel(const std::vector<GraphModel> &models);

/// Links the operators of an open msprobe dump to the nodes of such a model: an operator of
/// the model's step and rank (or of a dump without step/rank levels) whose entry name is a
/// node's node_name. Only the NPU side of a database is linked (the open dump is the NPU run);
/// a model without any linked operator gives an empty mapping (no nodeOps).
DumpMapping mapVisDbGraph(const GraphModel &model, const DumpIndex &index);

/// The state msprobe stored on the nodes of such a graph as node status values: OverflowLevel
/// from overflow_level (medium 1, high 2, critical 3), CompareVerdict from the precision level
/// of the database's colour bands (pass 1, warning 2, error 3). Other roles: all NaN.
NodeStatusColumn visDbStatus(const Graph &graph, NodeStatusRole role);

/// One input or output row of such a node in one line: "<row>: torch.float32 [2, 8]  max 1.7
/// min -0.29  mean 0.024  norm 1.9" and, in compare graphs, msprobe's Result and error text.
QString visDbRowSummary(const GraphTensorDesc &row);

/// Where such a graph starts: its first critical overflow node, else its first node whose
/// precision level is "error", else invalid (the entry).
NodeId visDbStartNode(const Graph &graph);

/// The recorded statistics of such a node's row (its "Max", "Min", "Mean", "Norm" strings).
RecordedStats visDbRowStats(const GraphTensorDesc &row);

} // namespace ds
