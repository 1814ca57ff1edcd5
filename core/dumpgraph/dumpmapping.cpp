#include "dumpmapping.h"

#include "dump/dumpname.h"
#include "dump/dumpindex.h"

#include <QHash>
#include <QSet>

namespace ds {

bool isNeverDumpedType(const QString &type)
{
    // Control, data and data-flow operators that are never sent to the device. Concat/Split
    // from the seed's list are left out: their compute forms (ConcatD, SplitV ...) are dumped.
    static const QSet<QString> types{
        QStringLiteral("Data"), QStringLiteral("RefData"), QStringLiteral("AippData"), QStringLiteral("Const"),
        QStringLiteral("Constant"), QStringLiteral("Variable"), QStringLiteral("NetOutput"), QStringLiteral("If"),
        QStringLiteral("StatelessIf"), QStringLiteral("While"), QStringLiteral("StatelessWhile"), QStringLiteral("Case"),
        QStringLiteral("StatelessCase"), QStringLiteral("For"), QStringLiteral("PartitionedCall"),
        QStringLiteral("StatefulPartitionedCall"), QStringLiteral("StackPush"), QStringLiteral("StackPop"),
        QStringLiteral("Stack"),
    };
    return types.contains(type);
}

QStringList originalNames(const GraphNode &node)
{
    return node.originalOpNames.isEmpty() ? QStringList{node.name} : node.originalOpNames;
}

QString nodeDumpStateName(NodeDumpState s)
{
    switch (s) {
    case NodeDumpState::Dumped: return QStringLiteral("dumped");
    case NodeDumpState::Missing: return QStringLiteral("missing");
    case NodeDumpState::NoDumpExpected: return QStringLiteral("no dump expected");
    }
    return {};
}

DumpMapping mapDumpToGraph(const GraphModel &model, const DumpIndex &index, const QStringList &extraFolders)
{
    DumpMapping m;
    const size_t nGraphs = model.graphs.size();
    m.nodeOps.resize(nGraphs);
    m.nodeState.resize(nGraphs);
    m.opNode.resize(index.ops.size());
    m.opLink.resize(index.ops.size(), OpLink::None);

    // Keys over every graph; a folder named like a graph prefers that graph's nodes.
    QHash<QString, QList<GraphNodeRef>> bySanitized, byName, byOriginal;
    QHash<QString, int> graphOfFolder;
    for (size_t g = 0; g < nGraphs; ++g) {
        const Graph &graph = model.graphs[g];
        m.nodeOps[g].resize(graph.nodes.size());
        graphOfFolder.insert(cann::sanitizeName(graph.name), int(g));
        for (size_t n = 0; n < graph.nodes.size(); ++n) {
            const GraphNodeRef ref{int(g), NodeId{int(n)}};
            const GraphNode &node = graph.nodes[n];
            bySanitized[cann::sanitizeName(node.name)].append(ref);
            byName[node.name].append(ref);
            for (const QString &orig : node.originalOpNames)
                if (orig != node.name)
                    byOriginal[cann::sanitizeName(orig)].append(ref);
        }
    }
    QSet<QString> folders(extraFolders.begin(), extraFolders.end());
    for (auto it = graphOfFolder.cbegin(); it != graphOfFolder.cend(); ++it)
        folders.insert(it.key());

    auto preferGraph = [](QList<GraphNodeRef> refs, int graph) {
        if (graph < 0)
            return refs;
        QList<GraphNodeRef> inGraph;
        for (const auto &r : refs)
            if (r.graph == graph)
                inGraph << r;
        return inGraph.isEmpty() ? refs : inGraph;
    };

    QSet<QString> seenFolders;
    for (size_t o = 0; o < index.ops.size(); ++o) {
        const OpRecord &op = index.ops[o];
        if (op.opDebug || !folders.contains(op.levels->modelName))
            continue;
        m.consideredOps.push_back(int(o));
        seenFolders.insert(op.levels->modelName);
        const int preferred = graphOfFolder.value(op.levels->modelName, -1);
        QList<GraphNodeRef> cands = preferGraph(bySanitized.value(op.opName), preferred);
        OpLink link = OpLink::BySanitizedName;
        if (cands.size() > 1 && !op.headerOpName().isEmpty()) {
            QList<GraphNodeRef> exact;
            for (const auto &r : cands)
                if (model.graphs[size_t(r.graph)].nodes[r.node.index()].name == op.headerOpName())
                    exact << r;
            if (exact.size() == 1) {
                cands = exact;
                link = OpLink::ByHeaderName;
            }
        }
        if (cands.isEmpty() && !op.headerOpName().isEmpty()) {
            cands = preferGraph(byName.value(op.headerOpName()), preferred);
            link = OpLink::ByHeaderName;
        }
        if (cands.isEmpty()) {
            cands = preferGraph(byOriginal.value(op.opName), preferred);
            link = OpLink::ByOriginalName;
        }
        if (cands.isEmpty()) {
            m.unmappedOps.push_back(int(o));
            continue;
        }
        if (cands.size() > 1) {
            link = OpLink::Ambiguous;
            m.ambiguousOps.push_back(int(o));
        }
        m.opNode[o] = cands.front();
        m.opLink[o] = link;
        for (const auto &r : cands)
            m.nodeOps[size_t(r.graph)][r.node.index()].push_back(int(o));
        const GraphNode &node = model.graphs[size_t(cands.front().graph)].nodes[cands.front().node.index()];
        if (node.streamId >= 0 && op.streamId() >= 0 && node.streamId != op.streamId())
            m.streamMismatchOps.push_back(int(o));
    }
    m.modelFolders = QStringList(seenFolders.begin(), seenFolders.end());
    m.modelFolders.sort();

    for (size_t g = 0; g < nGraphs; ++g) {
        const Graph &graph = model.graphs[g];
        m.nodeState[g].resize(graph.nodes.size());
        for (size_t n = 0; n < graph.nodes.size(); ++n) {
            const GraphNodeRef ref{int(g), NodeId{int(n)}};
            const GraphNode &node = graph.nodes[n];
            NodeDumpState s = NodeDumpState::Dumped;
            if (m.nodeOps[g][n].empty()) {
                s = node.noTask || isNeverDumpedType(node.type) ? NodeDumpState::NoDumpExpected : NodeDumpState::Missing;
                (s == NodeDumpState::Missing ? m.missingNodes : m.noDumpExpectedNodes).push_back(ref);
            }
            m.nodeState[g][n] = s;
        }
    }
    return m;
}

} // namespace ds
