#include "modulegraph.h"

#include "dump/dumpindex.h"
#include "dumpgraph/graphlinks.h"
#include "formats/readers.h"
#include "util/parallel.h"

#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <string_view>
#include <thread>

namespace ds {

namespace {

/// Entries per chunk of the work on all cores (parallelChunks): a smaller dump runs on the
/// calling thread alone.
constexpr size_t kChunk = 16384;

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

/// The parent of an op is a name scope ("Default/network-WithLossCell/_backbone-Net/fc1-Dense",
/// MindSpore kernels), not an entry of the dump.
bool hasScopeParent(const OpRecord &op) { return !op.parent.isEmpty() && formatReader(op.source).parentIsScope(); }

/// One node to be: an entry of the dump, or a parameter of a module entry.
struct Planned
{
    QString name;
    int op = -1;      ///< position in the sorted ops of the rank directory
    QString tensor;   ///< parameter nodes: the tensor's name ("parameters.weight")
    int host = -1;    ///< parameters_grad entries: the module call (op position) they hang off
};

/// Hash maps over the entry names as the index holds them (UTF-8, views into its text): a
/// million-entry dump would otherwise convert every name to a QString several times over.
template <typename T>
using ByView = QHash<QByteArrayView, T>;
QByteArrayView key(std::string_view s) { return QByteArrayView(s.data(), qsizetype(s.size())); }

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
QString toQString(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

/// gradModule on UTF-8: "Module.fc.Linear" of "Module.fc.Linear.parameters_grad", else empty.
std::string_view gradModuleOf(std::string_view entry)
{
    const size_t at = entry.find(".parameters_grad");
    return at != std::string_view::npos && at > 0 ? entry.substr(0, at) : std::string_view();
}

/// phaseName on UTF-8 (the three names are static strings: no allocation per entry).
QString phaseOfEntry(std::string_view entry)
{
    static const QString debug = QStringLiteral("debug"), backward = QStringLiteral("backward"),
                         forward = QStringLiteral("forward");
    if (endsWith(entry, ".debug"))
        return debug;
    const bool isBackward = entry.find(".backward") != std::string_view::npos
                            || entry.find(".parameters_grad") != std::string_view::npos;
    return isBackward ? backward : forward;
}

/// The nodes of the ops (sorted in execution order) of one rank directory (see
/// buildModuleGraphs for the naming); `*modules` tells whether construct.json had parents.
std::vector<Planned> planNodes(const DumpIndex &index, const std::vector<int> &ops, bool *modules)
{
    const size_t count = ops.size();
    auto opAt = [&](size_t i) -> const OpRecord & { return index.ops[size_t(ops[i])]; };
    std::vector<std::string_view> entry(count);
    ByView<int> byName;
    byName.reserve(qsizetype(count));
    ByView<char> parents;
    for (size_t i = 0; i < count; ++i) {
        entry[i] = opAt(i).opName.utf8();
        byName[key(entry[i])] = int(i); // the last of equal names, as a QHash insert keeps
        if (!opAt(i).parent.isEmpty())
            parents.insert(key(opAt(i).parent.utf8()), 0);
    }
    *modules = !parents.isEmpty();
    // Parameter gradients: in the module's backward call that ran last before them.
    std::vector<int> gradHost(count, -1);
    std::vector<char> hasParameters(count, 0);
    if (*modules) {
        ByView<int> lastBackward; // "Module.fc.Linear" -> latest backward entry so far
        for (size_t i = 0; i < count; ++i) {
            const std::string_view name = entry[i];
            const size_t at = name.rfind(".backward.");
            if ((startsWith(name, "Module.") || startsWith(name, "Cell.")) && at != std::string_view::npos && at > 0)
                lastBackward[key(name.substr(0, at))] = int(i);
            const std::string_view module = gradModuleOf(name);
            if (module.empty())
                continue;
            if (auto it = lastBackward.constFind(key(module)); it != lastBackward.cend()) {
                gradHost[i] = *it;
                parents.insert(key(entry[size_t(gradHost[i])]), 0);
            }
        }
        // Modules with parameters hold them: they are groups too.
        for (size_t i = 0; i < count; ++i)
            if (gradModuleOf(entry[i]).empty())
                for (const TensorRecord &t : opAt(i).tensors)
                    if (t.io() == IoKind::Parameter) {
                        parents.insert(key(entry[i]), 0);
                        hasParameters[i] = 1;
                        break;
                    }
    }
    // The group path of the module chain above an entry, memoised per entry and per parent
    // (the children of a module share its path's text); a cycle ends the chain.
    std::vector<QString> scope(count), childScope(count);
    std::vector<char> state(count, 0), childDone(count, 0); // state: 0 to do, 1 in progress, 2 done
    ByView<QString> nameScopePath, outsidePath; // parents that are name scopes / no entry of the dump
    auto scopeOf = [&](int i, auto &&self) -> QString {
        if (state[size_t(i)] != 0)
            return scope[size_t(i)];
        state[size_t(i)] = 1;
        const OpRecord &op = opAt(size_t(i));
        const std::string_view parent = op.parent.utf8();
        const auto memo = [&](ByView<QString> &paths, auto &&make) {
            auto it = paths.constFind(key(parent));
            return it != paths.cend() ? *it : *paths.insert(key(parent), make());
        };
        if (hasScopeParent(op)) {
            // A name scope: each of its components is a group ("Default", "network-WithLossCell", ...).
            scope[size_t(i)] = memo(nameScopePath, [&] {
                QStringList parts = toQString(parent).split(QLatin1Char('/'), Qt::SkipEmptyParts);
                for (QString &c : parts)
                    c = component(c);
                return parts.join(QLatin1Char('/'));
            });
        } else if (!parent.empty()) {
            const int p = byName.value(key(parent), -1);
            if (p < 0) {
                scope[size_t(i)] = memo(outsidePath, [&] { return component(toQString(parent)); });
            } else if (childDone[size_t(p)]) {
                scope[size_t(i)] = childScope[size_t(p)];
            } else {
                const QString outer = self(p, self);
                QString path = (outer.isEmpty() ? QString() : outer + QLatin1Char('/')) + component(toQString(parent));
                if (state[size_t(p)] == 2) { // not inside a cycle: every child gets the same path
                    childScope[size_t(p)] = path;
                    childDone[size_t(p)] = 1;
                }
                scope[size_t(i)] = path;
            }
        }
        state[size_t(i)] = 2;
        return scope[size_t(i)];
    };
    // The phase (top-level group) of an entry: forward or backward; entries under a parent
    // that is no entry of the dump ("optimizer", "clip_grad") keep that parent as their phase.
    // Whether the first group of a path is such a parent is remembered (per thread) for the
    // last path seen.
    struct LastPath
    {
        QString outer;
        bool ownPhase = false;
    };
    auto phaseOf = [&](LastPath &last, int i, const QString &outer) {
        QString &lastOuter = last.outer;
        bool &lastOwnPhase = last.ownPhase;
        if (outer.isEmpty() || outer != lastOuter) {
            const QString first = QString(outer.section(QLatin1Char('/'), 0, 0)).replace(QChar(0x2215), QLatin1Char('/'));
            const QByteArray utf8 = first.toUtf8();
            lastOwnPhase = !first.isEmpty() && !byName.contains(QByteArrayView(utf8))
                           && !first.startsWith(QLatin1String("Module.")) && !first.startsWith(QLatin1String("Cell."));
            lastOuter = outer;
        }
        return lastOwnPhase ? QString() : phaseOfEntry(entry[size_t(i)]); // "optimizer", "clip_grad": a phase of their own
    };
    std::vector<Planned> out;
    out.reserve(count);
    // A node name ends with its entry's name (component() of it): with distinct entry names
    // free of '/' and no name-scope parent, no two names can be equal, and the hash of every
    // name that finds repeats is not needed.
    const bool mayRepeat = byName.size() != qsizetype(count)
                           || std::any_of(entry.begin(), entry.end(), [](std::string_view e) { return e.find('/') != std::string_view::npos; })
                           || std::any_of(ops.begin(), ops.end(), [&](int o) { return hasScopeParent(index.ops[size_t(o)]); });
    // The module chains' paths first (memoised, in entry order): the names below only read them.
    if (*modules)
        for (size_t i = 0; i < count; ++i)
            scopeOf(gradHost[i] >= 0 ? gradHost[i] : int(i), scopeOf);
    out.resize(count);
    // The names of the entries [from, to): each depends on its entry and the paths only.
    auto nameEntries = [&](size_t from, size_t to) {
        LastPath last;
        for (size_t i = from; i < to; ++i) {
            const OpRecord &op = opAt(i);
            QString own = component(hasScopeParent(op) ? scopedOwnName(op) : toQString(entry[i])), outer;
            if (*modules) {
                if (gradHost[i] >= 0) {
                    const int host = gradHost[i];
                    outer = scopeOf(host, scopeOf);
                    outer = (outer.isEmpty() ? QString() : outer + QLatin1Char('/')) + component(toQString(entry[size_t(host)]));
                    outer = phaseOf(last, host, outer) + QLatin1Char('/') + outer;
                } else {
                    outer = scopeOf(int(i), scopeOf);
                    const QString phase = phaseOf(last, int(i), outer);
                    if (parents.contains(key(entry[i])))
                        own = own + QLatin1Char('/') + own; // the module's group, and its own entry inside
                    outer = phase.isEmpty() ? outer : outer.isEmpty() ? phase : phase + QLatin1Char('/') + outer;
                }
            } else {
                const QString prefix = prefixOf(toQString(entry[i]));
                outer = phaseOfEntry(entry[i]);
                if (!prefix.isEmpty())
                    outer += QLatin1Char('/') + prefix;
            }
            out[i] = {outer.isEmpty() ? own : outer + QLatin1Char('/') + own, int(i), {}, gradHost[i]};
        }
    };
    parallelChunks(count, kChunk, [&](size_t, size_t from, size_t to) {
        nameEntries(from, to);
        return true;
    });
    if (mayRepeat) {
        QHash<QString, int> seen; // node name -> times used: a kernel run twice in an iteration gets "#2"
        seen.reserve(qsizetype(count));
        for (size_t i = 0; i < count; ++i)
            if (const int n = seen[out[i].name]++; n > 0)
                out[i].name += QStringLiteral(" #%1").arg(n + 1);
    }
    // Parameters of module entries: beside the module's own node (in the group its node is
    // in), feeding it.
    for (size_t i = 0; i < count; ++i) {
        if (!hasParameters[i])
            continue;
        const QString group = Graph::scopeOf(out[i].name);
        for (const TensorRecord &t : opAt(i).tensors)
            if (t.io() == IoKind::Parameter)
                out.push_back({group + QLatin1Char('/') + component(t.name()), int(i), t.name(), -1});
    }
    return out;
}

/// Chains the members of every group in call order (see buildModuleGraphs); `attached` nodes
/// (parameters, parameter gradients) are left out: they hang off their module's own node.
/// Groups are found by their path as a view into the planned names (node i is plan[i]): no
/// string per level, and no node needs to exist yet.
/// Appends each link to `chain` as (consumer, producer) node indices.
void chainInCallOrder(const std::vector<Planned> &plan, const std::vector<char> &attached, bool chainPhases, std::vector<std::pair<int, int>> &chain)
{
    struct Group
    {
        QStringView path;
        int parent = -1;            ///< the enclosing group, -1 for a phase
        int first = -1, last = -1;  ///< its first and last member node
        std::vector<std::pair<int, int>> members; ///< (first, last) of its nodes and child groups
    };
    std::vector<Group> groups;
    QHash<QStringView, int> ids;
    ids.reserve(qsizetype(plan.size() / 4 + 16));
    const auto scopeView = [](QStringView name) {
        const qsizetype slash = name.lastIndexOf(QLatin1Char('/'));
        return slash > 0 ? name.left(slash) : QStringView();
    };
    // The group of `path` (non-empty), made with its ancestors on first sight.
    const auto groupOf = [&](QStringView path, auto &&self) -> int {
        if (auto it = ids.constFind(path); it != ids.cend())
            return *it;
        const QStringView outer = scopeView(path);
        const int parent = outer.isEmpty() ? -1 : self(outer, self);
        const int id = int(groups.size());
        groups.push_back({path, parent, -1, -1, {}});
        ids.insert(path, id);
        return id;
    };
    std::vector<int> nodeGroup(plan.size(), -1);
    for (size_t n = 0; n < plan.size(); ++n) {
        if (attached[n])
            continue;
        const QStringView scope = scopeView(plan[n].name);
        if (scope.isEmpty())
            continue;
        nodeGroup[n] = groupOf(scope, groupOf);
        for (int p = nodeGroup[n]; p >= 0; p = groups[size_t(p)].parent) {
            Group &s = groups[size_t(p)];
            if (s.first < 0)
                s.first = int(n);
            s.last = int(n);
        }
    }
    for (size_t n = 0; n < plan.size(); ++n)
        if (nodeGroup[n] >= 0)
            groups[size_t(nodeGroup[n])].members.push_back({int(n), int(n)});
    for (const Group &s : groups)
        if (s.parent >= 0)
            groups[size_t(s.parent)].members.push_back({s.first, s.last});
    for (Group &s : groups) {
        if (!chainPhases && s.parent < 0)
            continue; // L1: the prefix groups of a phase are not chained to each other
        auto &m = s.members;
        std::sort(m.begin(), m.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        for (size_t i = 1; i < m.size(); ++i)
            chain.emplace_back(m[i].first, m[i - 1].second);
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
    g.nodes.reserve(plan.size());
    std::vector<char> attached(plan.size(), 0);
    for (size_t i = 0; i < plan.size(); ++i)
        attached[i] = !plan[i].tensor.isEmpty() || plan[i].host >= 0;
    std::vector<int> ownNode(ops.size(), 0); // op position -> its node (parameters feed it, parameter gradients leave it)
    // Attribute keys and kinds shared by every node; a parent's name converted once for its
    // consecutive children.
    const QString entryKey = QString::fromLatin1(kModuleEntryAttr), tensorKey = QString::fromLatin1(kModuleTensorAttr),
                  kindText = QStringLiteral("s"), moduleKey = QStringLiteral("module"), parentKey = QStringLiteral("parent"),
                  parameterType = QStringLiteral("Parameter");
    g.nodes.resize(plan.size());
    // The nodes [from, to): each depends on its plan entry and op only.
    auto makeNodes = [&](size_t from, size_t to) {
        std::string_view lastParent;
        QString lastParentText;
        QHash<QByteArrayView, QString> typeText; // the few op types, converted once
        for (size_t i = from; i < to; ++i) {
            const Planned &p = plan[i];
            const OpRecord &op = index.ops[size_t(ops[size_t(p.op)])];
            GraphNode &n = g.nodes[i];
            n.name = p.name;
            n.id = std::int64_t(i);
            n.attrs.reserve(p.tensor.isEmpty() ? 2 : 3);
            n.attrs.push_back({entryKey, kindText, op.relPath});
            if (!p.tensor.isEmpty()) {
                n.type = parameterType;
                n.attrs.push_back({tensorKey, kindText, p.tensor});
                for (const TensorRecord &t : op.tensors)
                    if (t.io() == IoKind::Parameter && t.name() == p.tensor && t.isTensor())
                        n.outputDescs.push_back(outputDesc(t));
                n.attrs.push_back({moduleKey, kindText, op.opName});
            } else {
                auto type = typeText.constFind(key(op.opType.utf8()));
                n.type = type != typeText.cend() ? *type : *typeText.insert(key(op.opType.utf8()), op.opType.toString());
                if (!op.parent.isEmpty()) {
                    if (op.parent.utf8() != lastParent) {
                        lastParent = op.parent.utf8();
                        lastParentText = op.parent.toString();
                    }
                    n.attrs.push_back({parentKey, kindText, lastParentText});
                }
                for (const TensorRecord &t : op.tensors)
                    if (t.io() == IoKind::Output && t.isTensor())
                        n.outputDescs.push_back(outputDesc(t));
                ownNode[size_t(p.op)] = int(i);
            }
            // Pushed in key order (dump_entry, dump_tensor, module, parent): sorted as GraphNode wants.
            Q_ASSERT(std::is_sorted(n.attrs.begin(), n.attrs.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; }));
        }
    };
    // The chain only reads the planned names (the nodes' names to be): a big graph makes it on
    // a thread of its own while the nodes are made (in chunks, on all cores).
    std::vector<std::pair<int, int>> chain;
    chain.reserve(plan.size());
    std::thread chaining;
    if (plan.size() > kChunk)
        chaining = std::thread([&] { chainInCallOrder(plan, attached, modules, chain); });
    parallelChunks(plan.size(), kChunk, [&](size_t, size_t from, size_t to) {
        makeNodes(from, to);
        return true;
    });
    if (chaining.joinable())
        chaining.join();
    else
        chainInCallOrder(plan, attached, modules, chain);
    // The edges by node index, (consumer, producer) in the order the inputs were once written
    // as "name:0" strings: the chain, then parameters into their module's call and parameter
    // gradients out of the module's backward call.
    for (size_t i = 0; i < plan.size(); ++i) {
        if (!plan[i].tensor.isEmpty()) // a parameter feeds its module's call
            chain.emplace_back(ownNode[size_t(plan[i].op)], int(i));
        else if (plan[i].host >= 0) // parameter gradients come out of the module's backward call
            chain.emplace_back(int(i), ownNode[size_t(plan[i].host)]);
    }
    // As Graph::build would parse them: by consumer, then in the order added. That is the same
    // graph only when no two nodes share a name (an input names the last node of a name): else
    // the inputs are written and parsed after all.
    setEdgesFromLinks(g, chain);
    g.buildWithEdges();
    rebuildFromLinksIfNamesRepeat(g, chain);
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
