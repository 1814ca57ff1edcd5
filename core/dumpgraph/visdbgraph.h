#pragma once

#include "dumpgraph/nodestatus.h"
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

/// One GraphModel per side, step and rank of a database, in its order (NPU before Bench):
/// modelName "NPU step0 rank1", file the database, stage kVisDbStage, one root graph.
/// The module hierarchy becomes name-scope groups the way buildModuleGraphs makes them: a node
/// with children is a group, and its own node sits inside it (so its data stays reachable);
/// the root DefaultModel is not a group, and "Apis_Between_Modules.N" are groups only. Sibling
/// members are chained in node_order (msprobe records no data flow). Inputs and outputs keep
/// the database's row names; each node carries the attributes above.
std::vector<GraphModel> visDbGraphModels(const visdb::VisDatabase &db);

/// True for a model made by visDbGraphModels.
bool isVisDbGraph(const GraphModel &model);

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

} // namespace ds
