#include "modulegraph.h"

#include "dump/dumpindex.h"
#include "formats/readers.h"

#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <algorithm>

namespace ds {

namespace {

bool isFrameworkOp(const OpRecord &op) { return formatReader(op.source).hasModules(); }

/// The rank directory of a framework op ("step0/rank0"), the step and rank levels when the
/// index root is the rank directory itself, else the root's name: the model name.
QString modelNameOf(const DumpIndex &index, const OpRecord &op)
{
    const QString suffix = QLatin1Char('/') + op.opName;
    QString dir = op.relPath.endsWith(suffix) ? op.relPath.chopped(suffix.size()) : Graph::scopeOf(op.relPath);
    if (!dir.isEmpty())
        return dir;
    QStringList levels;
    for (const QString &l : {op.levels->step, op.levels->rank})
        if (!l.isEmpty())
            levels << l;
    return levels.isEmpty() ? QFileInfo(index.rootDir).fileName() : levels.join(QLatin1Char('/'));
}

/// An entry name as one component of a node name ('/' separates the groups).
QString component(const QString &entry) { return QString(entry).replace(QLatin1Char('/'), QChar(0x2215)); }

/// "Functional" of "Functional.conv2d.0.forward" (ptdbg: "Functional_conv2d_0_forward").
QString prefixOf(const QString &entry)
{
    qsizetype cut = entry.indexOf(QLatin1Char('.'));
    if (cut <= 0)
        cut = entry.indexOf(QLatin1Char('_'));
    return cut > 0 ? component(entry.left(cut)) : QString();
}

GraphTensorDesc outputDesc(const TensorRecord &t)
{
    GraphTensorDesc d;
    d.name = t.name();
    d.dtype = t.dataType();
    d.dtypeName = t.typeName();
    d.shape.assign(t.shape().begin(), t.shape().end());
    return d;
}

/// Node names of the ops (sorted in execution order) of one rank directory.
QStringList nodeNames(const DumpIndex &index, const std::vector<int> &ops, bool *modules)
{
    QHash<QString, int> byName;
    QSet<QString> parents;
    for (size_t i = 0; i < ops.size(); ++i) {
        const OpRecord &op = index.ops[size_t(ops[i])];
        byName.insert(op.opName, int(i));
        if (!op.parent.isEmpty())
            parents.insert(op.parent);
    }
    *modules = !parents.isEmpty();
    // The group path of the module chain above an entry, memoised; a cycle ends the chain.
    std::vector<QString> scope(ops.size());
    std::vector<char> state(ops.size(), 0); // 0 to do, 1 in progress, 2 done
    auto scopeOf = [&](int i, auto &&self) -> QString {
        if (state[size_t(i)] != 0)
            return scope[size_t(i)];
        state[size_t(i)] = 1;
        const QString &parent = index.ops[size_t(ops[size_t(i)])].parent;
        if (!parent.isEmpty()) {
            const int p = byName.value(parent, -1);
            const QString outer = p >= 0 ? self(p, self) : QString();
            scope[size_t(i)] = (outer.isEmpty() ? QString() : outer + QLatin1Char('/')) + component(parent);
        }
        state[size_t(i)] = 2;
        return scope[size_t(i)];
    };
    QStringList names;
    for (size_t i = 0; i < ops.size(); ++i) {
        const QString &entry = index.ops[size_t(ops[i])].opName;
        QString own = component(entry), outer;
        if (*modules) {
            outer = scopeOf(int(i), scopeOf);
            if (parents.contains(entry))
                own = own + QLatin1Char('/') + own; // the module's group, and its own entry inside
        } else {
            outer = prefixOf(entry);
        }
        names << (outer.isEmpty() ? own : outer + QLatin1Char('/') + own);
    }
    return names;
}

/// Chains the members of every group in call order (see buildModuleGraphs).
void chainInCallOrder(Graph &g, bool chainTopLevel)
{
    struct Span { int first = -1, last = -1; };
    QHash<QString, Span> groups;
    for (size_t n = 0; n < g.nodes.size(); ++n)
        for (QString p = Graph::scopeOf(g.nodes[n].name); !p.isEmpty(); p = Graph::scopeOf(p)) {
            Span &s = groups[p];
            if (s.first < 0)
                s.first = int(n);
            s.last = int(n);
        }
    QHash<QString, std::vector<Span>> members; // group path -> its nodes and child groups
    for (size_t n = 0; n < g.nodes.size(); ++n)
        members[Graph::scopeOf(g.nodes[n].name)].push_back({int(n), int(n)});
    for (auto it = groups.cbegin(); it != groups.cend(); ++it)
        members[Graph::scopeOf(it.key())].push_back(*it);
    for (auto it = members.begin(); it != members.end(); ++it) {
        if (it.key().isEmpty() && !chainTopLevel)
            continue;
        std::vector<Span> &m = *it;
        std::sort(m.begin(), m.end(), [](const Span &a, const Span &b) { return a.first < b.first; });
        for (size_t i = 1; i < m.size(); ++i)
            g.nodes[size_t(m[i].first)].inputs << g.nodes[size_t(m[i - 1].last)].name + QStringLiteral(":0");
    }
}

GraphModel buildOne(const DumpIndex &index, const QString &name, std::vector<int> ops)
{
    std::stable_sort(ops.begin(), ops.end(),
                     [&](int a, int b) { return index.ops[size_t(a)].timestamp < index.ops[size_t(b)].timestamp; });
    GraphModel model;
    model.stage = QString::fromLatin1(kModuleGraphStage);
    model.modelName = name;
    const OpRecord &first = index.ops[size_t(ops.front())];
    const QString dir = Graph::scopeOf(first.dataFile.isEmpty() ? first.relPath : first.dataFile);
    const QString construct = index.absolute(dir.isEmpty() ? QStringLiteral("construct.json") : dir + QStringLiteral("/construct.json"));
    model.file = QFileInfo::exists(construct) ? construct : index.absolutePath(first);
    bool modules = false;
    const QStringList names = nodeNames(index, ops, &modules);
    Graph g;
    g.name = name;
    for (size_t i = 0; i < ops.size(); ++i) {
        const OpRecord &op = index.ops[size_t(ops[i])];
        GraphNode n;
        n.name = names[qsizetype(i)];
        n.type = op.opType;
        n.id = std::int64_t(i);
        n.attrs.push_back({QString::fromLatin1(kModuleEntryAttr), QStringLiteral("s"), op.relPath});
        if (!op.parent.isEmpty())
            n.attrs.push_back({QStringLiteral("parent"), QStringLiteral("s"), op.parent});
        for (const TensorRecord &t : op.tensors)
            if (t.io() == IoKind::Output && t.isTensor())
                n.outputDescs.push_back(outputDesc(t));
        g.nodes.push_back(std::move(n));
    }
    chainInCallOrder(g, modules);
    g.build();
    model.graphs.push_back(std::move(g));
    return model;
}

} // namespace

bool isModuleGraph(const GraphModel &model) { return model.stage == QLatin1String(kModuleGraphStage); }

std::vector<GraphModel> buildModuleGraphs(const DumpIndex &index)
{
    QStringList order;
    QHash<QString, std::vector<int>> opsOf;
    for (size_t o = 0; o < index.ops.size(); ++o) {
        if (!isFrameworkOp(index.ops[o]))
            continue;
        const QString name = modelNameOf(index, index.ops[o]);
        auto &ops = opsOf[name];
        if (ops.empty())
            order << name;
        ops.push_back(int(o));
    }
    std::vector<GraphModel> models;
    for (const QString &name : std::as_const(order))
        models.push_back(buildOne(index, name, opsOf.value(name)));
    return models;
}

DumpMapping mapModuleGraph(const GraphModel &model, const DumpIndex &index)
{
    DumpMapping m;
    m.modelFolders = QStringList{model.modelName};
    m.nodeOps.resize(model.graphs.size());
    m.nodeState.resize(model.graphs.size());
    m.opNode.resize(index.ops.size());
    m.opLink.resize(index.ops.size(), OpLink::None);
    for (size_t g = 0; g < model.graphs.size(); ++g) {
        const Graph &graph = model.graphs[g];
        m.nodeOps[g].resize(graph.nodes.size());
        m.nodeState[g].resize(graph.nodes.size(), NodeDumpState::Missing);
        for (size_t n = 0; n < graph.nodes.size(); ++n) {
            const GraphNodeRef ref{int(g), NodeId{int(n)}};
            const GraphAttr *entry = graph.nodes[n].attr(QString::fromLatin1(kModuleEntryAttr));
            const int op = entry ? index.opIndex(entry->value) : -1;
            if (op < 0 || m.opNode[size_t(op)].isValid()) {
                m.missingNodes.push_back(ref);
                continue;
            }
            m.nodeOps[g][n].push_back(op);
            m.nodeState[g][n] = NodeDumpState::Dumped;
            m.opNode[size_t(op)] = ref;
            m.opLink[size_t(op)] = OpLink::ByEntryName;
        }
    }
    for (size_t o = 0; o < index.ops.size(); ++o) {
        if (!isFrameworkOp(index.ops[o]) || modelNameOf(index, index.ops[o]) != model.modelName)
            continue;
        m.consideredOps.push_back(int(o));
        if (!m.opNode[o].isValid())
            m.unmappedOps.push_back(int(o));
    }
    return m;
}

} // namespace ds
