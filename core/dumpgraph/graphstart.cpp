#include "graphstart.h"

#include "dumpgraph/modulegraph.h"

#include <algorithm>
#include <deque>

namespace ds {

namespace {

bool isIteratorType(const QString &type)
{
    return type.contains(QLatin1String("Iterator")) || type == QLatin1String("GetNext") || type == QLatin1String("DynamicGetNext");
}

bool isDataType(const QString &type)
{
    return type == QLatin1String("Data") || type == QLatin1String("RefData") || type == QLatin1String("AippData");
}

} // namespace

NodeId entryNode(const Graph &graph)
{
    if (graph.nodes.empty())
        return {};
    if (isModuleHierarchy(graph)) {
        for (size_t n = 0; n < graph.nodes.size(); ++n)
            if (graph.nodes[n].name.startsWith(QLatin1String("forward/")) && graph.nodes[n].type != QLatin1String("Parameter"))
                return NodeId{int(n)};
        return NodeId{0};
    }
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        if (isIteratorType(graph.nodes[n].type))
            return NodeId{int(n)};
    for (const QString &in : graph.inputs) {
        QString producer;
        int index = 0;
        if (Graph::splitInput(in, &producer, &index))
            if (const NodeId id = graph.findNode(producer); id.isValid())
                return id;
    }
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        if (isDataType(graph.nodes[n].type))
            return NodeId{int(n)};
    std::vector<char> hasIn(graph.nodes.size(), 0), hasOut(graph.nodes.size(), 0);
    for (const GraphEdge &e : graph.edges) {
        hasOut[e.from.index()] = 1;
        hasIn[e.to.index()] = 1;
    }
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        if (!hasIn[n] && hasOut[n])
            return NodeId{int(n)};
    return NodeId{0};
}

GraphExpansion initialExpansion(const GraphHierarchy &h, NodeId focus, int budget)
{
    GraphExpansion open;
    int shown = int(h.topGroups.size() + h.topNodes.size());
    auto expand = [&](GroupId g) {
        if (open.insert(g).second)
            shown += h.group(g).memberCount - 1;
    };
    if (focus.isValid())
        for (GroupId g : h.ancestors(focus))
            expand(g);
    // Breadth first: a level's groups, largest first, while the boxes stay within budget.
    std::vector<GroupId> level(h.topGroups.begin(), h.topGroups.end());
    while (!level.empty()) {
        std::stable_sort(level.begin(), level.end(),
                         [&](GroupId a, GroupId b) { return h.group(a).nodeCount > h.group(b).nodeCount; });
        std::vector<GroupId> next;
        for (GroupId g : level) {
            const HierarchyGroup &hg = h.group(g);
            if (hg.kind == GroupKind::Fold || (hg.memberCount <= 1 && !open.count(g)))
                continue; // folds are the crowds; a frame around one box shows nothing more
            if (!open.count(g)) {
                if (shown + hg.memberCount - 1 > budget)
                    continue;
                expand(g);
            }
            next.insert(next.end(), hg.childGroups.begin(), hg.childGroups.end());
        }
        level = std::move(next);
    }
    return open;
}

} // namespace ds
