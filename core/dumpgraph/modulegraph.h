#pragma once

#include "dumpgraph/dumpmapping.h"

#include <vector>

namespace ds {

class DumpIndex;

/// GraphModel::stage of the graphs made by buildModuleGraphs.
inline constexpr char kModuleGraphStage[] = "construct";
/// GraphNode attribute holding the OpRecord::relPath of the entry a node stands for.
inline constexpr char kModuleEntryAttr[] = "dump_entry";

/// True for a model made by buildModuleGraphs.
bool isModuleGraph(const GraphModel &model);

/// The module hierarchy of the framework dumps (msprobe, ptdbg) in `index`: one GraphModel
/// per rank directory (one step and rank), in the order of the index, with one root graph.
/// - `file` is `<rank dir>/construct.json` (dump.json or the record file without one),
///   `stage` is kModuleGraphStage, `modelName` and the graph name are the rank directory
///   ("step0/rank0").
/// - Every entry of the dump is one node of type OpRecord::opType. Its name is the chain of
///   its construct.json parents (outermost first) joined by '/', then the entry name, so
///   Graph::build() turns the modules into name-scope groups. A module that has children is a
///   group, and its own entry is a node inside that group ("<chain>/<module>/<module>"), so
///   its tensors stay reachable. Parents that are not entries of the dump end the chain.
/// - Without any parent (level L1, construct.json "{}", ptdbg) entries are grouped by their
///   prefix (Functional, Tensor, Torch, Distributed, Module ...).
/// - Edges: msprobe records no data flow, so the edges show the call order. In every group
///   the members (nodes, and child groups taken as a whole) are chained in execution order
///   by data edges (input "<previous>:0"): from the last-called node of one member to the
///   first-called node of the next. The prefix groups of an L1 dump are not chained to each
///   other. Outputs carry the recorded dtype and shape of the entry's output tensors.
std::vector<GraphModel> buildModuleGraphs(const DumpIndex &index);

/// Maps the ops of `index` onto the nodes of a model made by buildModuleGraphs (through
/// kModuleEntryAttr): every op of the model's rank directory gets exactly its node, linked
/// OpLink::ByEntryName; nodes without an op of the index are Missing.
DumpMapping mapModuleGraph(const GraphModel &model, const DumpIndex &index);

} // namespace ds
