#pragma once

#include "graph/graph.h"
#include "graph/graphhierarchy.h"

#include <QDebug>
#include <QPointF>
#include <QRectF>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace ds {

/// The groups shown open (GraphHierarchy ids: name scopes and folds). Only groups whose
/// ancestors are all expanded matter; the layout engine normalises a state before using it as
/// a cache key.
using GraphExpansion = std::set<GroupId>;

/// One box of a layout: an operator, a collapsed group (one box for everything below it) or
/// the frame of an expanded group (its children are separate items inside it).
struct LayoutItem
{
    enum class Kind : std::uint8_t { Node, Group, ExpandedGroup };
    Kind kind = Kind::Node;
    int id = -1;         ///< NodeId::value or GroupId::value
    GroupId container;   ///< the expanded group it is laid out in (invalid: top level)
    int layer = 0;       ///< layer inside its container
    int row = 0;         ///< sub-row of its layer (a layer wider than maxRowWidth wraps into rows)
    QRectF rect;         ///< scene coordinates (y grows downward)

    NodeId node() const { return kind == Kind::Node ? NodeId{id} : NodeId{}; }
    GroupId group() const { return kind == Kind::Node ? GroupId{} : GroupId{id}; }
    bool isVisibleItem() const { return kind != Kind::ExpandedGroup; }
    bool operator==(const LayoutItem &) const = default;
};

/// A graph edge lifted to the nearest visible items (deduplicated). An edge between a member
/// of an open fold and a node outside it joins the fold's frame (ExpandedGroup item) instead
/// of the member: the crowd has one edge per neighbour.
struct LayoutEdge
{
    int from = -1, to = -1;       ///< indices into GraphLayout::items (visible items only)
    int graphEdge = -1;           ///< one underlying Graph::edges index (tooltips)
    int count = 0;                ///< underlying graph edges
    bool control = false;         ///< every underlying edge is a control edge
    bool reversed = false;        ///< a back edge: reversed to break a cycle (drawn upward)
    std::vector<QPointF> points;  ///< polyline from the producer's box to the consumer's
    bool operator==(const LayoutEdge &) const = default;
};

/// The layout of one expansion state: plain data, shared read-only between threads.
struct GraphLayout
{
    std::vector<int> expanded; ///< the normalised expansion state (sorted GroupId values)
    std::vector<LayoutItem> items;
    std::vector<LayoutEdge> edges;
    QRectF bounds;
    std::vector<int> nodeItem;  ///< per graph node: its own item, or -1 when hidden in a collapsed group
    std::vector<int> groupItem; ///< per hierarchy group: its item (box or frame), or -1 when hidden
    std::vector<int> nodeShownIn; ///< per graph node: its own item or the collapsed group box hiding it
    int wrappedLayers = 0;      ///< layers split into several rows (wider than maxRowWidth)

    /// The item a node is drawn in: its own box or the collapsed group that hides it.
    int visibleItemOf(NodeId node) const
    {
        return node.isValid() && node.index() < nodeShownIn.size() ? nodeShownIn[node.index()] : -1;
    }
    bool operator==(const GraphLayout &) const = default;
};

/// Box sizes and spacing of a layout (scene units = pixels at zoom 1).
struct GraphLayoutOptions
{
    double nodeHeight = 34, groupHeight = 42;
    double minWidth = 90, maxWidth = 240, charWidth = 7.0, textPadding = 22;
    double layerGap = 46, nodeGap = 24;
    double dummyGap = 6; ///< between long edges passing a layer side by side
    double framePadding = 14, frameHeader = 26;
    /// A layer whose boxes are wider than this together is split into rows of at most this
    /// width (a screen at zoom 1), so no container grows wider than a screen; 0: never.
    double maxRowWidth = 1600;
    double rowGap = 14; ///< between the rows of a split layer
    int sweeps = 4; ///< barycenter sweeps (down + up) for crossing reduction
    bool operator==(const GraphLayoutOptions &) const = default;
};

/// Layered (Sugiyama-style) layout of a Graph's display hierarchy (name scopes and folded
/// crowds, GraphHierarchy): each expanded group is laid out on its own (cycle breaking by
/// reversing DFS back edges, longest-path layering, barycenter ordering, over-wide layers
/// split into rows, simple x assignment) and placed as one box in its parent. Results are
/// cached per expansion state. Thread-safe: layouts are computed on worker threads; the
/// constructor builds the hierarchy (folding needs the whole graph), so construct engines
/// of big graphs on a worker thread too.
class GraphLayoutEngine
{
public:
    explicit GraphLayoutEngine(std::shared_ptr<const Graph> graph, GraphLayoutOptions options = {}, FoldOptions folds = {});

    const Graph &graph() const { return *m_graph; }
    std::shared_ptr<const Graph> graphPtr() const { return m_graph; }
    const GraphHierarchy &hierarchy() const { return m_hierarchy; }
    const GraphLayoutOptions &options() const { return m_options; }

    /// The layout of `expansion` (from the cache when it was computed before).
    std::shared_ptr<const GraphLayout> layout(const GraphExpansion &expansion) const;
    /// The cached layout, or null (never computes).
    std::shared_ptr<const GraphLayout> cached(const GraphExpansion &expansion) const;
    /// Drops groups that are hidden by a collapsed ancestor; sorted GroupId values.
    std::vector<int> normalize(const GraphExpansion &expansion) const;
    int cacheSize() const;
    int cacheHits() const;
    void clearCache();

    /// The groups containing a node, outermost first.
    std::vector<GroupId> ancestors(NodeId node) const;
    /// Box label of a node or a group (a collapsed group shows its label and size).
    QString nodeLabel(NodeId node) const;
    QString groupLabel(GroupId group) const;
    int groupNodeCount(GroupId group) const { return m_hierarchy.group(group).nodeCount; }
    bool isFold(GroupId group) const { return m_hierarchy.group(group).kind == GroupKind::Fold; }

private:
    std::shared_ptr<GraphLayout> compute(const std::vector<int> &expanded) const;

    std::shared_ptr<const Graph> m_graph;
    GraphLayoutOptions m_options;
    GraphHierarchy m_hierarchy;
    mutable std::mutex m_mutex;
    mutable std::map<std::vector<int>, std::shared_ptr<const GraphLayout>> m_cache;
    mutable int m_hits = 0;
};

} // namespace ds

QDebug operator<<(QDebug dbg, const ds::LayoutItem &item);
