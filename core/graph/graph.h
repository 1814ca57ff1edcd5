#pragma once

#include "tensor/shape.h"

#include <QDebug>
#include <QHash>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <utility>
#include <vector>

namespace ds {

/// Typed index of a node inside one Graph (heaptrack-style `Index<Base>`).
struct NodeId
{
    int value = -1;
    bool isValid() const { return value >= 0; }
    size_t index() const { return size_t(value); }
    bool operator==(const NodeId &) const = default;
    auto operator<=>(const NodeId &) const = default;
};
inline size_t qHash(NodeId id, size_t seed = 0) { return ::qHash(id.value, seed); }

/// Typed index of a name-scope group inside one Graph.
struct GroupId
{
    int value = -1;
    bool isValid() const { return value >= 0; }
    size_t index() const { return size_t(value); }
    bool operator==(const GroupId &) const = default;
    auto operator<=>(const GroupId &) const = default;
};

/// One attribute, reduced to what a view shows: the kind of the AttrDef oneof and a text.
struct GraphAttr
{
    QString key;
    QString kind;  ///< "s", "i", "f", "b", "bt", "list", "func", "td", "t", "g", "list_list_int", "dt", "list_list_float" or "" (unset)
    QString value; ///< display text
    bool operator==(const GraphAttr &) const = default;
};

/// A GE TensorDescriptor (an input or output anchor of a node).
struct GraphTensorDesc
{
    QString name;
    int dtype = 0;        ///< proto DataType numbering (same as the dump header)
    QString dtypeName;    ///< as written in the file, e.g. "DT_FLOAT16" (or the number)
    QString layout;       ///< device format string, e.g. "NC1HWC0"
    std::vector<std::int64_t> shape; ///< device shape; -1/-2 are dynamic dims
    QString originFormat; ///< attr origin_format ("" when absent)
    std::vector<std::int64_t> originShape;
    bool hasOriginShape = false;
    QString datadumpOriginName;        ///< attr _datadump_origin_name
    int datadumpOriginOutputIndex = -1; ///< attr _datadump_origin_output_index
    std::int64_t size = 0;
    std::vector<GraphAttr> attrs; ///< all attributes, sorted by key
    bool operator==(const GraphTensorDesc &) const = default;
};

struct GraphNode
{
    QString name; ///< unsanitised
    QString type;
    std::int64_t id = -1, streamId = -1;
    QStringList inputs;            ///< raw OpDef.input strings
    std::vector<GraphTensorDesc> inputDescs, outputDescs;
    std::vector<GraphAttr> attrs;  ///< sorted by key
    QStringList originalOpNames;   ///< _datadump_original_op_names without "" entries
    bool noTask = false;           ///< attr _no_task == true
    QString l1FusionGroup;         ///< attr _L1_fusion_sub_graph_no
    QStringList subgraphNames;
    GroupId group;                 ///< deepest name-scope group (invalid at top level)

    const GraphAttr *attr(const QString &key) const;
    bool operator==(const GraphNode &) const = default;
};

/// `producer:outIndex -> consumer:inIndex`; outIndex == -1 is a control edge (inIndex then
/// counts the control inputs of the consumer from 0).
struct GraphEdge
{
    NodeId from;
    int outIndex = 0;
    NodeId to;
    int inIndex = 0;
    bool isControl() const { return outIndex < 0; }
    bool operator==(const GraphEdge &) const = default;
};

/// A name scope: "a/b/c/Conv2D" lives in group "a/b/c", whose parent is "a/b".
struct NameGroup
{
    QString path;   ///< "a/b/c"
    QString label;  ///< "c"
    GroupId parent; ///< invalid for top-level groups
    std::vector<GroupId> childGroups;
    std::vector<NodeId> nodes; ///< direct member nodes
    int depth = 0;
    bool operator==(const NameGroup &) const = default;
};

/// One GraphDef as plain data. Fill `name`, `nodes`, `inputs`, `outputs`, then call build().
class Graph
{
public:
    QString name;
    QStringList inputs, outputs; ///< GraphDef.input / output
    std::vector<GraphAttr> attrs;
    std::vector<GraphNode> nodes;
    std::vector<GraphEdge> edges;    ///< built
    std::vector<NameGroup> groups;   ///< built, parents before children
    std::vector<GroupId> topGroups;  ///< built
    std::vector<NodeId> topNodes;    ///< built: nodes outside any group
    QStringList unresolvedInputs;    ///< built: "node <- input" whose producer is not in the graph

    /// Parses inputs into edges, builds the name lookup and the name-scope hierarchy.
    void build();
    /// The same with `edges` given by the caller (by consumer, then input position) instead of
    /// parsed from inputs: for a graph that makes its edges by node index (vis.db's chains).
    void buildWithEdges();
    /// No two nodes have the same name (after build()).
    bool hasUniqueNames() const { return m_uniqueNames; }

    /// The node of that name (the last one when names repeat); invalid before build().
    NodeId findNode(QStringView nodeName) const;
    NodeId findNode(const QString &nodeName) const { return findNode(QStringView(nodeName)); }
    const GraphNode &node(NodeId id) const { return nodes[id.index()]; }
    const NameGroup &group(GroupId id) const { return groups[id.index()]; }
    int dataEdgeCount() const;
    int controlEdgeCount() const { return int(edges.size()) - dataEdgeCount(); }

    /// The group path of a node name ("a/b/c/Conv2D" -> "a/b/c", "Conv2D" -> "").
    static QString scopeOf(const QString &nodeName);
    /// Splits an OpDef.input at the LAST ':' -> (producer, index). "" gives {"", 0} and false.
    static bool splitInput(const QString &input, QString *producer, int *index);
    /// The same, giving a view into `input` (no copy).
    static bool splitInput(QStringView input, QStringView *producer, int *index);

private:
    /// Name index: open addressing over `nodes` (slot = node index + 1, 0 = empty), hashed by
    /// qHash(QStringView), so that neither the index nor a lookup copies a name; the high bits
    /// of each slot's hash spare reading other nodes' names on collisions.
    std::vector<int> m_nameSlots;
    std::vector<std::uint32_t> m_nameHashes;
    bool m_uniqueNames = true; ///< no name repeats (a node's nearest producers may be checked first)
    void indexNames();
    void buildGroups();
};

/// A whole ge_proto (or ge_onnx) file: graphs[0] is the root, the rest are sub-graphs.
struct GraphModel
{
    QString file;          ///< path as found
    QString stage;         ///< file-name suffix ("Build", "PreRunAfterBuild" ...)
    qint64 fileIndex = -1; ///< the number in the file name
    QString modelName;     ///< ModelDef.name
    std::vector<Graph> graphs;
    int unknownFields = 0; ///< fields the reader did not know (skipped)
    QStringList warnings;  ///< reader warnings, "line N: ..."
    bool reducedFidelity = false; ///< read from ONNX (ge-graph.md §8)

    const Graph *root() const { return graphs.empty() ? nullptr : &graphs.front(); }
    int nodeCount() const;
    int edgeCount() const;
};

/// One candidate in the computation-graph choice (ge-graph.md §2), best first.
struct GraphCandidate
{
    int model = -1;          ///< index into the list of models given
    bool isBuild = false;
    bool fromOnnx = false;   ///< ge_onnx file: ranked after ge_proto files of the same stage
    bool matchesDumpModel = false;
    bool hasIterator = false;
    int opCount = 0;
    QString reason;          ///< in words
};

/// Ranks the models as computation-graph candidates. `dumpModelNames` are the
/// levels.modelName values of an opened dump (may be empty). Build graphs come first, then
/// ge_proto before ge_onnx, then a root-graph name matching a dump model folder, then an Iterator op, then the op count.
std::vector<GraphCandidate> rankComputationGraphs(const std::vector<GraphModel> &models, const QStringList &dumpModelNames);

} // namespace ds

QDebug operator<<(QDebug dbg, const ds::NodeId &id);
QDebug operator<<(QDebug dbg, const ds::GraphEdge &e);

Q_DECLARE_METATYPE(ds::NodeId)
