#include "modulegraph.h"

#include "dump/dumpindex.h"
#include "formats/readers.h"

#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>

namespace ds {

namespace {

bool isFrameworkOp(const OpRecord &op) { return formatReader(op.source).hasModuleGraph(); }

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

bool isBackwardEntry(const QString &entry)
{
    return entry.contains(QLatin1String(".backward")) || entry.contains(QLatin1String(".parameters_grad"));
}

/// The top-level group of an entry: "forward", "backward", or "debug" for the single-point
/// saves of debug.json (`{name}{_grad}.{count}.debug`).
QString phaseName(const QString &entry)
{
    if (entry.endsWith(QLatin1String(".debug")))
        return QStringLiteral("debug");
    return isBackwardEntry(entry) ? QStringLiteral("backward") : QStringLiteral("forward");
}

/// "Module.fc.Linear" of "Module.fc.Linear.parameters_grad" / "….parameters_grad.3".
QString gradModule(const QString &entry)
{
    const qsizetype at = entry.indexOf(QLatin1String(".parameters_grad"));
    return at > 0 ? entry.left(at) : QString();
}

/// The parent of an op is a name scope ("Default/network-WithLossCell/_backbone-Net/fc1-Dense",
/// MindSpore kernels), not an entry of the dump.
bool hasScopeParent(const OpRecord &op) { return !op.parent.isEmpty() && formatReader(op.source).parentIsScope(); }

/// Module calls get a node per parameter; a parameters_grad entry's tensors are its own.
bool hasParameterNodes(const OpRecord &op) { return gradModule(op.opName).isEmpty(); }
const std::vector<TensorRecord> noTensors;

/// One node to be: an entry of the dump, or a parameter of a module entry.
struct Planned
{
    QString name;
    int op = -1;      ///< position in the sorted ops of the rank directory
    QString tensor;   ///< parameter nodes: the tensor's name ("parameters.weight")
    int host = -1;    ///< parameters_grad entries: the module call (op position) they hang off
};

/// The nodes of the ops (sorted in execution order) of one rank directory (see
/// buildModuleGraphs for the naming); `*modules` tells whether construct.json had parents.
std::vector<Planned> planNodes(const DumpIndex &index, const std::vector<int> &ops, bool *modules)
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
    // Parameter gradients: in the module's backward call that ran last before them.
    std::vector<int> gradHost(ops.size(), -1);
    if (*modules) {
        QHash<QString, int> lastBackward; // "Module.fc.Linear" -> latest backward entry so far
        for (size_t i = 0; i < ops.size(); ++i) {
            const QString &entry = index.ops[size_t(ops[i])].opName;
            const qsizetype at = entry.lastIndexOf(QLatin1String(".backward."));
            if (entry.startsWith(QLatin1String("Module.")) || entry.startsWith(QLatin1String("Cell."))) {
                if (at > 0)
                    lastBackward.insert(entry.left(at), int(i));
            }
            const QString module = gradModule(entry);
            if (!module.isEmpty() && lastBackward.contains(module)) {
                gradHost[i] = lastBackward.value(module);
                parents.insert(index.ops[size_t(ops[size_t(gradHost[i])])].opName);
            }
        }
        // Modules with parameters hold them: they are groups too.
        for (size_t i = 0; i < ops.size(); ++i)
            for (const TensorRecord &t : hasParameterNodes(index.ops[size_t(ops[i])]) ? index.ops[size_t(ops[i])].tensors : noTensors)
                if (t.io() == IoKind::Parameter) {
                    parents.insert(index.ops[size_t(ops[i])].opName);
                    break;
                }
    }
    // The group path of the module chain above an entry, memoised; a cycle ends the chain.
    std::vector<QString> scope(ops.size());
    std::vector<char> state(ops.size(), 0); // 0 to do, 1 in progress, 2 done
    auto scopeOf = [&](int i, auto &&self) -> QString {
        if (state[size_t(i)] != 0)
            return scope[size_t(i)];
        state[size_t(i)] = 1;
        const OpRecord &op = index.ops[size_t(ops[size_t(i)])];
        const QString &parent = op.parent;
        if (hasScopeParent(op)) {
            // A name scope: each of its components is a group ("Default", "network-WithLossCell", ...).
            QStringList parts = parent.split(QLatin1Char('/'), Qt::SkipEmptyParts);
            for (QString &c : parts)
                c = component(c);
            scope[size_t(i)] = parts.join(QLatin1Char('/'));
        } else if (!parent.isEmpty()) {
            const int p = byName.value(parent, -1);
            const QString outer = p >= 0 ? self(p, self) : QString();
            scope[size_t(i)] = (outer.isEmpty() ? QString() : outer + QLatin1Char('/')) + component(parent);
        }
        state[size_t(i)] = 2;
        return scope[size_t(i)];
    };
    // The phase (top-level group) of an entry: forward or backward; entries under a parent
    // that is no entry of the dump ("optimizer", "clip_grad") keep that parent as their phase.
    auto phaseOf = [&](int i, const QString &outer) {
        const QString first = QString(outer.section(QLatin1Char('/'), 0, 0)).replace(QChar(0x2215), QLatin1Char('/'));
        if (!first.isEmpty() && !byName.contains(first) && !first.startsWith(QLatin1String("Module."))
            && !first.startsWith(QLatin1String("Cell.")))
            return QString(); // "optimizer", "clip_grad": a phase of their own
        return phaseName(index.ops[size_t(ops[size_t(i)])].opName);
    };
    std::vector<Planned> out;
    out.reserve(ops.size());
    std::vector<QString> groupOf(ops.size()); // the group a module entry's own node is in
    QHash<QString, int> seen; // node name -> times used: a kernel run twice in an iteration gets "#2"
    for (size_t i = 0; i < ops.size(); ++i) {
        const OpRecord &op = index.ops[size_t(ops[i])];
        const QString &entry = op.opName;
        QString own = component(hasScopeParent(op) ? scopedOwnName(op) : entry), outer;
        if (*modules) {
            if (gradHost[i] >= 0) {
                const int host = gradHost[i];
                outer = scopeOf(host, scopeOf);
                outer = (outer.isEmpty() ? QString() : outer + QLatin1Char('/')) + component(index.ops[size_t(ops[size_t(host)])].opName);
                outer = phaseOf(host, outer) + QLatin1Char('/') + outer;
            } else {
                outer = scopeOf(int(i), scopeOf);
                const QString phase = phaseOf(int(i), outer);
                if (parents.contains(entry))
                    own = own + QLatin1Char('/') + own; // the module's group, and its own entry inside
                outer = phase.isEmpty() ? outer : outer.isEmpty() ? phase : phase + QLatin1Char('/') + outer;
            }
        } else {
            const QString prefix = prefixOf(entry);
            outer = phaseName(entry);
            if (!prefix.isEmpty())
                outer += QLatin1Char('/') + prefix;
        }
        QString name = outer.isEmpty() ? own : outer + QLatin1Char('/') + own;
        if (const int n = seen[name]++; n > 0)
            name += QStringLiteral(" #%1").arg(n + 1);
        out.push_back({name, int(i), {}, gradHost[i]});
        groupOf[i] = Graph::scopeOf(out.back().name);
    }
    // Parameters of module entries: beside the module's own node, feeding it.
    for (size_t i = 0; *modules && i < ops.size(); ++i)
        for (const TensorRecord &t : hasParameterNodes(index.ops[size_t(ops[i])]) ? index.ops[size_t(ops[i])].tensors : noTensors)
            if (t.io() == IoKind::Parameter)
                out.push_back({groupOf[i] + QLatin1Char('/') + component(t.name()), int(i), t.name(), -1});
    return out;
}

/// Chains the members of every group in call order (see buildModuleGraphs); `attached` nodes
/// (parameters, parameter gradients) are left out: they hang off their module's own node.
void chainInCallOrder(Graph &g, const std::vector<char> &attached, bool chainPhases)
{
    struct Span { int first = -1, last = -1; };
    QHash<QString, Span> groups;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
        if (attached[n])
            continue;
        for (QString p = Graph::scopeOf(g.nodes[n].name); !p.isEmpty(); p = Graph::scopeOf(p)) {
            Span &s = groups[p];
            if (s.first < 0)
                s.first = int(n);
            s.last = int(n);
        }
    }
    QHash<QString, std::vector<Span>> members; // group path -> its nodes and child groups
    for (size_t n = 0; n < g.nodes.size(); ++n)
        if (!attached[n])
            members[Graph::scopeOf(g.nodes[n].name)].push_back({int(n), int(n)});
    for (auto it = groups.cbegin(); it != groups.cend(); ++it)
        members[Graph::scopeOf(it.key())].push_back(*it);
    for (auto it = members.begin(); it != members.end(); ++it) {
        if (it.key().isEmpty())
            continue; // the phases stand apart
        if (!chainPhases && !it.key().contains(QLatin1Char('/')))
            continue; // L1: the prefix groups of a phase are not chained to each other
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
    const QString statistics = index.absolute(dir.isEmpty() ? QStringLiteral("statistic.csv") : dir + QStringLiteral("/statistic.csv"));
    // A kernel's path is virtual ("MatMul.Default_..._MatMul-op12.0.0.<time>"): its folder's
    // statistic.csv (else the folder) names the graph.
    model.file = QFileInfo::exists(construct)                            ? construct
                 : !hasScopeParent(first)                                ? index.absolutePath(first)
                 : QFileInfo::exists(statistics)                         ? statistics
                                                                         : index.absolute(dir);
    bool modules = false;
    const std::vector<Planned> plan = planNodes(index, ops, &modules);
    Graph g;
    g.name = name;
    g.attrs.push_back({QString::fromLatin1(kHierarchyAttr), QStringLiteral("s"), QString::fromLatin1(kHierarchyModules)});
    if (std::any_of(ops.begin(), ops.end(), [&](int o) { return hasScopeParent(index.ops[size_t(o)]); }))
        g.attrs.push_back({QString::fromLatin1(kScopeGroupsAttr), QStringLiteral("s"), QStringLiteral("1")});
    std::vector<char> attached(plan.size(), 0);
    QHash<int, int> ownNode; // op position -> its node (parameters feed it, parameter gradients leave it)
    for (size_t i = 0; i < plan.size(); ++i) {
        const Planned &p = plan[i];
        const OpRecord &op = index.ops[size_t(ops[size_t(p.op)])];
        GraphNode n;
        n.name = p.name;
        n.id = std::int64_t(i);
        n.attrs.push_back({QString::fromLatin1(kModuleEntryAttr), QStringLiteral("s"), op.relPath});
        attached[i] = !p.tensor.isEmpty() || p.host >= 0;
        if (!p.tensor.isEmpty()) {
            n.type = QStringLiteral("Parameter");
            n.attrs.push_back({QString::fromLatin1(kModuleTensorAttr), QStringLiteral("s"), p.tensor});
            for (const TensorRecord &t : op.tensors)
                if (t.io() == IoKind::Parameter && t.name() == p.tensor && t.isTensor())
                    n.outputDescs.push_back(outputDesc(t));
            n.attrs.push_back({QStringLiteral("module"), QStringLiteral("s"), op.opName});
        } else {
            n.type = op.opType;
            if (!op.parent.isEmpty())
                n.attrs.push_back({QStringLiteral("parent"), QStringLiteral("s"), op.parent});
            for (const TensorRecord &t : op.tensors)
                if (t.io() == IoKind::Output && t.isTensor())
                    n.outputDescs.push_back(outputDesc(t));
            ownNode.insert(p.op, int(i));
        }
        std::sort(n.attrs.begin(), n.attrs.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; });
        g.nodes.push_back(std::move(n));
    }
    chainInCallOrder(g, attached, modules);
    for (size_t i = 0; i < plan.size(); ++i) {
        if (!plan[i].tensor.isEmpty()) // a parameter feeds its module's call
            g.nodes[size_t(ownNode.value(plan[i].op))].inputs << g.nodes[i].name + QStringLiteral(":0");
        else if (plan[i].host >= 0) // parameter gradients come out of the module's backward call
            g.nodes[i].inputs << g.nodes[size_t(ownNode.value(plan[i].host))].name + QStringLiteral(":0");
    }
    g.build();
    model.graphs.push_back(std::move(g));
    return model;
}

} // namespace

bool isModuleGraph(const GraphModel &model) { return model.stage == QLatin1String(kModuleGraphStage); }

bool hasScopeGroups(const GraphModel &model)
{
    if (!isModuleGraph(model) || model.graphs.empty())
        return false;
    for (const GraphAttr &a : model.graphs.front().attrs)
        if (a.key == QLatin1String(kScopeGroupsAttr))
            return true;
    return false;
}

bool isModuleHierarchy(const Graph &graph)
{
    for (const GraphAttr &a : graph.attrs)
        if (a.key == QLatin1String(kHierarchyAttr))
            return a.value == QLatin1String(kHierarchyModules);
    return false;
}

QString moduleNodeLabel(const QString &label, const QString &groupLabel)
{
    // The module's own entry inside its group: "Conv2d.forward.0" (the group says "stem · Conv2d").
    static const QRegularExpression own(QStringLiteral("^(?:Module|Cell)\\..+\\.([A-Za-z_][A-Za-z0-9_]*\\.(?:forward|backward)\\.[0-9]+)$"));
    if (label == groupLabel)
        if (const auto m = own.match(label); m.hasMatch())
            return m.captured(1);
    if (label.startsWith(QLatin1String("parameters.")))
        return label.mid(11); // a parameter node: "weight"
    return moduleDisplayLabel(label);
}

QString moduleDisplayLabel(const QString &label)
{
    // "Module.layer1.0.Bottleneck.forward.0" -> "layer1.0 · Bottleneck"; folds keep their
    // '#' and '*' ("Module.layers.#.Block.forward*" -> "layers.# · Block").
    static const QRegularExpression re(QStringLiteral("^(?:Module|Cell)\\.(.+)\\.([A-Za-z_][A-Za-z0-9_]*)\\.(?:forward|backward)(?:\\.[0-9#]+)?\\*?$"));
    const auto m = re.match(label);
    if (!m.hasMatch())
        return label;
    return m.captured(1) + QStringLiteral(" \u00b7 ") + m.captured(2);
}

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
            if (op >= 0 && graph.nodes[n].attr(QString::fromLatin1(kModuleTensorAttr))) {
                m.nodeOps[g][n].push_back(op); // a parameter: its module's op, which keeps its own node
                m.nodeState[g][n] = NodeDumpState::Dumped;
                continue;
            }
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
