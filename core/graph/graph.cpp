#include "graph.h"

#include "dump/dumpname.h"

#include <QSet>
#include <algorithm>
#include <thread>

namespace ds {

const GraphAttr *GraphNode::attr(const QString &key) const
{
    auto it = std::lower_bound(attrs.begin(), attrs.end(), key, [](const GraphAttr &a, const QString &k) { return a.key < k; });
    return it != attrs.end() && it->key == key ? &*it : nullptr;
}

QString Graph::scopeOf(const QString &nodeName)
{
    const qsizetype slash = nodeName.lastIndexOf(QLatin1Char('/'));
    return slash > 0 ? nodeName.left(slash) : QString();
}

bool Graph::splitInput(QStringView input, QStringView *producer, int *index)
{
    if (input.isEmpty()) {
        *producer = {};
        *index = 0;
        return false;
    }
    const qsizetype colon = input.lastIndexOf(QLatin1Char(':'));
    bool ok = false;
    const int idx = colon > 0 ? input.mid(colon + 1).toInt(&ok) : 0;
    if (!ok) { // "name" without an index: output 0
        *producer = input;
        *index = 0;
        return true;
    }
    *producer = input.left(colon);
    *index = idx;
    return true;
}

bool Graph::splitInput(const QString &input, QString *producer, int *index)
{
    if (input.isEmpty()) {
        *producer = QString();
        *index = 0;
        return false;
    }
    const qsizetype colon = input.lastIndexOf(QLatin1Char(':'));
    bool ok = false;
    const int idx = colon > 0 ? QStringView(input).mid(colon + 1).toInt(&ok) : 0;
    if (!ok) { // "name" without an index: output 0
        *producer = input;
        *index = 0;
        return true;
    }
    *producer = input.left(colon);
    *index = idx;
    return true;
}

int Graph::dataEdgeCount() const
{
    return int(std::count_if(edges.begin(), edges.end(), [](const GraphEdge &e) { return !e.isControl(); }));
}

void Graph::indexNames()
{
    size_t capacity = 16;
    while (capacity < nodes.size() * 2)
        capacity *= 2;
    m_nameSlots.assign(capacity, 0);
    m_nameHashes.assign(capacity, 0);
    m_uniqueNames = true;
    const size_t mask = capacity - 1;
    for (size_t n = 0; n < nodes.size(); ++n) {
        const QString &name = nodes[n].name;
        const size_t hash = qHash(QStringView(name));
        for (size_t s = hash & mask;; s = (s + 1) & mask) {
            int &slot = m_nameSlots[s];
            if (slot == 0) {
                slot = int(n) + 1;
                m_nameHashes[s] = std::uint32_t(hash >> 32);
                break;
            }
            if (m_nameHashes[s] == std::uint32_t(hash >> 32) && nodes[size_t(slot - 1)].name == name) {
                slot = int(n) + 1; // a duplicate name: the last one wins lookups
                m_uniqueNames = false;
                break;
            }
        }
    }
}

NodeId Graph::findNode(QStringView nodeName) const
{
    if (m_nameSlots.empty())
        return {};
    const size_t mask = m_nameSlots.size() - 1;
    const size_t hash = qHash(nodeName);
    for (size_t s = hash & mask;; s = (s + 1) & mask) {
        const int slot = m_nameSlots[s];
        if (slot == 0)
            return {};
        if (m_nameHashes[s] == std::uint32_t(hash >> 32) && nodes[size_t(slot - 1)].name == nodeName)
            return NodeId{slot - 1};
    }
}

void Graph::buildWithEdges()
{
    unresolvedInputs.clear();
    // The name index and the groups both only read the names (buildGroups writes each node's
    // group): a big graph makes them side by side.
    if (nodes.size() >= 100000) {
        std::thread names([this] { indexNames(); });
        buildGroups();
        names.join();
    } else {
        indexNames();
        buildGroups();
    }
}

void Graph::build()
{
    indexNames();

    edges.clear();
    size_t inputCount = 0;
    for (const GraphNode &node : nodes)
        inputCount += size_t(node.inputs.size());
    edges.reserve(inputCount);
    unresolvedInputs.clear();
    for (size_t n = 0; n < nodes.size(); ++n) {
        int dataIn = 0, controlIn = 0;
        for (const QString &in : std::as_const(nodes[n].inputs)) {
            QStringView producer;
            int out = 0;
            if (!splitInput(in, &producer, &out)) {
                ++dataIn; // "" keeps the anchor position
                continue;
            }
            // GE writes an op after its producers, most often right after: with unique names
            // the few nodes before this one are checked first (in cache, no hashing).
            NodeId from;
            if (m_uniqueNames)
                for (size_t back = 1; back <= 4 && back <= n && !from.isValid(); ++back)
                    if (nodes[n - back].name == producer)
                        from = NodeId{int(n - back)};
            if (!from.isValid())
                from = findNode(producer);
            const bool control = out < 0;
            if (!from.isValid()) {
                unresolvedInputs << nodes[n].name + QLatin1String(" <- ") + in;
                ++(control ? controlIn : dataIn);
                continue;
            }
            edges.push_back({from, control ? -1 : out, NodeId{int(n)}, control ? controlIn++ : dataIn++});
        }
    }

    buildGroups();
}

void Graph::buildGroups()
{
    // Name-scope hierarchy: every prefix of a node name's scope is a group.
    groups.clear();
    topGroups.clear();
    topNodes.clear();
    QHash<QString, int> groupByPath;
    auto groupFor = [&](const QString &path, auto &&self) -> GroupId {
        if (path.isEmpty())
            return {};
        if (auto it = groupByPath.constFind(path); it != groupByPath.cend())
            return GroupId{*it};
        const QString parentPath = scopeOf(path);
        const GroupId parent = self(parentPath, self);
        NameGroup g;
        g.path = path;
        g.label = parentPath.isEmpty() ? path : path.mid(parentPath.size() + 1);
        g.parent = parent;
        g.depth = parent.isValid() ? groups[parent.index()].depth + 1 : 0;
        const GroupId id{int(groups.size())};
        groups.push_back(std::move(g));
        groupByPath.insert(path, id.value);
        if (parent.isValid())
            groups[parent.index()].childGroups.push_back(id);
        else
            topGroups.push_back(id);
        return id;
    };
    // Neighbours mostly share a scope (GE writes a scope's ops together): reuse the last one's
    // group without building its path again.
    QStringView lastScope;
    GroupId lastGroup;
    bool haveLast = false;
    for (size_t n = 0; n < nodes.size(); ++n) {
        const QString &name = nodes[n].name;
        const qsizetype slash = name.lastIndexOf(QLatin1Char('/'));
        const QStringView scope = slash > 0 ? QStringView(name).left(slash) : QStringView();
        const GroupId g = haveLast && scope == lastScope ? lastGroup : groupFor(scope.toString(), groupFor);
        lastScope = scope;
        lastGroup = g;
        haveLast = true;
        nodes[n].group = g;
        if (g.isValid())
            groups[g.index()].nodes.push_back(NodeId{int(n)});
        else
            topNodes.push_back(NodeId{int(n)});
    }
}

int GraphModel::nodeCount() const
{
    int n = 0;
    for (const auto &g : graphs)
        n += int(g.nodes.size());
    return n;
}

int GraphModel::edgeCount() const
{
    int n = 0;
    for (const auto &g : graphs)
        n += int(g.edges.size());
    return n;
}

namespace {

bool hasIteratorOp(const Graph &g)
{
    return std::any_of(g.nodes.begin(), g.nodes.end(), [](const GraphNode &n) {
        return n.type.contains(QLatin1String("Iterator")) || n.name.contains(QLatin1String("Iterator"));
    });
}

} // namespace

std::vector<GraphCandidate> rankComputationGraphs(const std::vector<GraphModel> &models, const QStringList &dumpModelNames)
{
    QSet<QString> dumpNames(dumpModelNames.begin(), dumpModelNames.end());
    std::vector<GraphCandidate> out;
    for (size_t m = 0; m < models.size(); ++m) {
        const GraphModel &model = models[m];
        GraphCandidate c;
        c.model = int(m);
        c.fromOnnx = model.reducedFidelity;
        c.isBuild = model.stage == QLatin1String("Build") || model.stage.endsWith(QLatin1String("_Build"));
        if (const Graph *root = model.root()) {
            c.matchesDumpModel = dumpNames.contains(cann::sanitizeName(root->name));
            c.hasIterator = hasIteratorOp(*root);
            c.opCount = int(root->nodes.size());
        }
        out.push_back(c);
    }
    std::stable_sort(out.begin(), out.end(), [&](const GraphCandidate &a, const GraphCandidate &b) {
        if (a.isBuild != b.isBuild)
            return a.isBuild;
        if (a.fromOnnx != b.fromOnnx) // ge_onnx files are only a fallback (ge-graph.md §8)
            return !a.fromOnnx;
        if (a.matchesDumpModel != b.matchesDumpModel)
            return a.matchesDumpModel;
        if (a.hasIterator != b.hasIterator)
            return a.hasIterator;
        if (a.opCount != b.opCount)
            return a.opCount > b.opCount;
        return models[size_t(a.model)].fileIndex < models[size_t(b.model)].fileIndex;
    });
    for (size_t i = 0; i < out.size(); ++i) {
        GraphCandidate &c = out[i];
        QStringList why;
        why << (c.isBuild ? QStringLiteral("a Build graph") : QStringLiteral("not a Build graph"));
        if (c.fromOnnx)
            why << QStringLiteral("ONNX text (reduced fidelity)");
        if (!dumpNames.isEmpty())
            why << (c.matchesDumpModel ? QStringLiteral("its name matches a dump model_name folder")
                                       : QStringLiteral("no dump model_name folder has its name"));
        why << (c.hasIterator ? QStringLiteral("contains an Iterator op") : QStringLiteral("no Iterator op"));
        why << QStringLiteral("%1 ops").arg(c.opCount);
        c.reason = (i == 0 ? QStringLiteral("chosen: ") : QStringLiteral("candidate: ")) + why.join(QStringLiteral(", "));
    }
    return out;
}

} // namespace ds

QDebug operator<<(QDebug dbg, const ds::NodeId &id)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "NodeId(" << id.value << ')';
    return dbg;
}

QDebug operator<<(QDebug dbg, const ds::GraphEdge &e)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "GraphEdge(" << e.from.value << ':' << e.outIndex << " -> " << e.to.value << ':' << e.inIndex << ')';
    return dbg;
}
