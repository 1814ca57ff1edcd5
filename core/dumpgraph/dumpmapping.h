#pragma once

#include "graph/graph.h"

#include <QStringList>
#include <vector>

namespace ds {

class DumpIndex;

/// A node of one of the graphs of a GraphModel (graphs[0] = root, then sub-graphs).
struct GraphNodeRef
{
    int graph = -1;
    NodeId node;
    bool isValid() const { return graph >= 0 && node.isValid(); }
    bool operator==(const GraphNodeRef &) const = default;
};

enum class NodeDumpState : std::uint8_t {
    Dumped,         ///< at least one dump file belongs to the node
    Missing,        ///< a dump was expected but no file was found
    NoDumpExpected, ///< _no_task, or a type that never runs on the device (cann-dump.md §2.5)
};

/// How a dump file found its node (ge-graph.md §6).
enum class OpLink : std::uint8_t {
    None,           ///< not considered (other model folder, OpDebug) or no node found
    BySanitizedName,///< sanitize(node.name) == file op_name
    ByHeaderName,   ///< node.name == DumpData.op_name (collision resolved, or fallback)
    ByOriginalName, ///< the name is one of the node's _datadump_original_op_names
    Ambiguous,      ///< several nodes share the sanitised key; attached to all of them
    ByEntryName,    ///< framework dump entry of a module graph (modulegraph.h)
};

/// Graph nodes <-> dump files of a DumpIndex. Plain data; indices are DumpIndex::ops positions.
struct DumpMapping
{
    QStringList modelFolders; ///< the dump model_name folders that were matched
    std::vector<std::vector<std::vector<int>>> nodeOps; ///< [graph][node] -> op indices
    std::vector<std::vector<NodeDumpState>> nodeState;  ///< [graph][node]
    std::vector<GraphNodeRef> opNode; ///< per op; invalid when unmapped or not considered
    std::vector<OpLink> opLink;       ///< per op
    std::vector<int> consideredOps;   ///< ops in the matched model folders
    std::vector<int> unmappedOps;     ///< considered ops without a node
    std::vector<int> ambiguousOps;
    std::vector<int> streamMismatchOps; ///< OpDef.stream_id != the file name's stream id (warning)
    std::vector<GraphNodeRef> missingNodes;
    std::vector<GraphNodeRef> noDumpExpectedNodes;

    const std::vector<int> &ops(GraphNodeRef ref) const { return nodeOps[size_t(ref.graph)][ref.node.index()]; }
    NodeDumpState state(GraphNodeRef ref) const { return nodeState[size_t(ref.graph)][ref.node.index()]; }
};

/// Node types that never produce a dump file (cann-dump.md §2.5, ge-graph.md §6).
bool isNeverDumpedType(const QString &type);
/// The names a fused node stands for: _datadump_original_op_names, else its own name.
QStringList originalNames(const GraphNode &node);

/// Maps the dump files of `index` whose model_name folder is the sanitised name of the root
/// graph or of a sub-graph (plus `extraFolders`, for a user override) onto the nodes of `model`.
DumpMapping mapDumpToGraph(const GraphModel &model, const DumpIndex &index, const QStringList &extraFolders = {});

QString nodeDumpStateName(NodeDumpState s); ///< "dumped", "missing", "no dump expected"

} // namespace ds
