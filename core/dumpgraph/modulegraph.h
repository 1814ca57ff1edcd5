#pragma once

#include "dumpgraph/dumpmapping.h"

#include <vector>

namespace ds {

class DumpIndex;

/// GraphModel::stage of the graphs made by buildModuleGraphs.
inline constexpr char kModuleGraphStage[] = "construct";
/// GraphNode attribute holding the OpRecord::relPath of the entry a node stands for.
inline constexpr char kModuleEntryAttr[] = "dump_entry";
/// GraphNode attribute of a parameter node: the TensorRecord::name of the parameter
/// ("parameters.weight") in its module's entry (kModuleEntryAttr).
inline constexpr char kModuleTensorAttr[] = "dump_tensor";
/// Graph attribute naming how the hierarchy was made; kHierarchyModules for module graphs.
inline constexpr char kHierarchyAttr[] = "hierarchy";
inline constexpr char kHierarchyModules[] = "modules";

/// Graph attribute set (to "1") when the groups are the name scopes of MindSpore kernels
/// (OpRecord::parent "Default/network-WithLossCell/_backbone-Net/fc1-Dense"), not modules.
inline constexpr char kScopeGroupsAttr[] = "scope_groups";

/// True for a model made by buildModuleGraphs.
bool isModuleGraph(const GraphModel &model);
/// True for a model made by buildModuleGraphs from MindSpore kernels (kScopeGroupsAttr).
bool hasScopeGroups(const GraphModel &model);
/// True for a graph made by buildModuleGraphs (its groups are modules, its edges call order).
bool isModuleHierarchy(const Graph &graph);
/// The box label of a module group: "Module.layer1.0.Bottleneck.forward.0" ->
/// "layer1.0 · Bottleneck" (also for fold patterns of modules); other labels unchanged.
QString moduleDisplayLabel(const QString &label);
/// The box label of a node of a module graph whose group is labelled `groupLabel`: the
/// module's own entry "Conv2d.forward.0", a parameter "weight", else moduleDisplayLabel.
QString moduleNodeLabel(const QString &label, const QString &groupLabel);

/// The module hierarchy of the framework dumps (msprobe, ptdbg) in `index`: one GraphModel
/// per rank directory (one step and rank), in the order of the index, with one root graph
/// (graph attribute kHierarchyAttr = kHierarchyModules).
/// - `file` is `<rank dir>/construct.json` (dump.json or the record file without one),
///   `stage` is kModuleGraphStage, `modelName` and the graph name are the rank directory
///   ("step0/rank0").
/// - Forward and backward apart: the top-level groups are the phases "forward" and
///   "backward" (entries named `.backward` or `.parameters_grad`), and "debug" for the
///   single-point saves of debug.json; entries below a parent that is no entry of the dump
///   ("optimizer", "clip_grad") are under that parent instead.
/// - Every entry of the dump is one node of type OpRecord::opType. Its name is the phase,
///   the chain of its construct.json parents (outermost first) and the entry name, joined by
///   '/', so Graph::build() turns the modules into name-scope groups. A module that has
///   children (or parameters) is a group, and its own entry is a node inside that group
///   ("<chain>/<module>/<module>"), so its tensors stay reachable.
/// - Parameters are attached to their module: every parameter tensor of a module entry
///   ("parameters.weight") is a node of type "Parameter" in the module's group feeding the
///   module's own node (attributes kModuleEntryAttr = the module entry, kModuleTensorAttr =
///   the tensor); a `parameters_grad` entry sits in the group of its module's backward call
///   that ran last before it, fed by that call's own node.
/// - MindSpore kernel dumps (DumpReader::parentIsScope): the parent is a name scope; each of
///   its components is a group ("Default/network-WithLossCell/_backbone-Net/fc1-Dense"), the
///   top-level scopes (Default, Gradients) take the place of the phases, a node is named by the
///   kernel's own name ("MatMul-op12"; "MatMul-op12 #2" for its next run in the iteration),
///   and the graph carries kScopeGroupsAttr.
/// - Without any parent (level L1, construct.json "{}", ptdbg) entries are grouped by their
///   prefix (Functional, Tensor, Torch, Distributed, Module ...) inside the phases.
/// - Edges: msprobe records no data flow, so the edges show the call order. In every group
///   below the phases the members (nodes, and child groups taken as a whole; not the
///   parameters and parameter gradients) are chained in execution order by data edges (input "<previous>:0"): from
///   the last-called node of one member to the first-called node of the next. The prefix
///   groups of an L1 dump are not chained to each other. Outputs carry the recorded dtype
///   and shape of the entry's output tensors (a parameter node: the parameter's).
std::vector<GraphModel> buildModuleGraphs(const DumpIndex &index);

/// Maps the ops of `index` onto the nodes of a model made by buildModuleGraphs (through
/// kModuleEntryAttr): every op of the model's rank directory gets exactly its node, linked
/// OpLink::ByEntryName; a parameter node lists its module's op (which stays mapped to the
/// module's own node); nodes without an op of the index are Missing.
DumpMapping mapModuleGraph(const GraphModel &model, const DumpIndex &index);

} // namespace ds
