#include "visdbgraph.h"

#include "dump/dumpindex.h"
#include "dumpgraph/graphlinks.h"
#include "formats/readers.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>
#include <thread>

namespace ds {

namespace {

constexpr int kApiGroupType = 9;
/// A graph of at least this many database nodes makes its nodes on two threads, and its chain
/// beside its start node and verdicts.
constexpr size_t kTwoThreadsFrom = 100000;

/// A node name as one component of a graph node name ('/' separates the groups).
QString component(const QString &name)
{
    return name.contains(QLatin1Char('/')) ? QString(name).replace(QLatin1Char('/'), QChar(0x2215)) : name;
}

/// Row name -> descriptor for an input_data / output_data JSON object, as QJsonObject gives it
/// (rows and their keys sorted by name).
std::vector<GraphTensorDesc> descsViaQJson(const QString &json)
{
    std::vector<GraphTensorDesc> out;
    const QJsonObject rows = QJsonDocument::fromJson(json.toUtf8()).object();
    for (auto it = rows.begin(); it != rows.end(); ++it) {
        const QJsonObject leaf = it.value().toObject();
        GraphTensorDesc d;
        d.name = it.key();
        d.dtypeName = leaf.value(QStringLiteral("dtype")).toString();
        for (const QString &key : leaf.keys())
            d.attrs.push_back({key, QStringLiteral("s"), leaf.value(key).toVariant().toString()});
        out.push_back(std::move(d));
    }
    return out;
}

/// The keys of a database's rows and the values that repeat (dtype, shape, type ...), one
/// QString each: a million nodes' rows share them instead of holding a copy per row.
class RowStrings
{
public:
    QString key(const char *data, size_t size) { return get(m_keys, data, size); }
    QString value(const QString &key, const char *data, size_t size)
    {
        static const QStringList repeating{QStringLiteral("type"), QStringLiteral("dtype"), QStringLiteral("shape"),
                                           QStringLiteral("requires_grad"), QStringLiteral("data_name")};
        if (size <= 64 && repeating.contains(key))
            return get(m_values, data, size);
        return QString::fromUtf8(data, qsizetype(size));
    }

private:
    static QString get(QHash<QByteArray, QString> &table, const char *data, size_t size)
    {
        const QByteArray probe = QByteArray::fromRawData(data, qsizetype(size));
        if (auto it = table.constFind(probe); it != table.cend())
            return *it;
        const QString s = QString::fromUtf8(data, qsizetype(size));
        table.insert(QByteArray(data, qsizetype(size)), s);
        return s;
    }
    QHash<QByteArray, QString> m_keys, m_values;
};

/// The same rows read by RapidJSON, for what msprobe writes: an object of objects whose values
/// are strings. Anything else (other value types, duplicate names, a syntax error) is left to
/// descsViaQJson, so the rows are always QJsonObject's.
std::vector<GraphTensorDesc> descs(const QString &json, RowStrings &strings)
{
    const QByteArray utf8 = json.toUtf8();
    rapidjson::Document doc;
    doc.Parse(utf8.constData(), size_t(utf8.size()));
    if (doc.HasParseError() || !doc.IsObject())
        return descsViaQJson(json);
    static const QString kString = QStringLiteral("s");
    std::vector<GraphTensorDesc> out;
    out.reserve(doc.MemberCount());
    for (const auto &row : doc.GetObject()) {
        if (!row.value.IsObject())
            return descsViaQJson(json);
        GraphTensorDesc d;
        d.name = QString::fromUtf8(row.name.GetString(), qsizetype(row.name.GetStringLength()));
        d.attrs.reserve(row.value.MemberCount());
        for (const auto &leaf : row.value.GetObject()) {
            if (!leaf.value.IsString())
                return descsViaQJson(json);
            const QString key = strings.key(leaf.name.GetString(), leaf.name.GetStringLength());
            d.attrs.push_back({key, kString, strings.value(key, leaf.value.GetString(), leaf.value.GetStringLength())});
        }
        std::sort(d.attrs.begin(), d.attrs.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; });
        for (size_t i = 0; i < d.attrs.size(); ++i) {
            if (i > 0 && d.attrs[i].key == d.attrs[i - 1].key)
                return descsViaQJson(json); // QJsonObject keeps one of them
            if (d.attrs[i].key == QLatin1String("dtype"))
                d.dtypeName = d.attrs[i].value;
        }
        out.push_back(std::move(d));
    }
    std::sort(out.begin(), out.end(), [](const GraphTensorDesc &a, const GraphTensorDesc &b) { return a.name < b.name; });
    for (size_t i = 1; i < out.size(); ++i)
        if (out[i].name == out[i - 1].name)
            return descsViaQJson(json);
    return out;
}

/// The run folder of a dump_data_dir ("…/dumps/npu_weight_tensor_mix/step0/rank0/dump_tensor_data"
/// -> "npu_weight_tensor_mix"): the component before the step level, else "".
QString runOfDumpDir(const QString &dir)
{
    static const QRegularExpression step(QStringLiteral("^step\\d+$"));
    const QStringList parts = QDir::fromNativeSeparators(dir).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (qsizetype i = 1; i < parts.size(); ++i)
        if (step.match(parts[i]).hasMatch())
            return parts[i - 1];
    return {};
}

/// The nodes of a graph by node_name: open addressing over their index (slot = index + 1,
/// 0 empty), hashed by qHash(QStringView), the high bits of each slot's hash kept beside it so
/// that a probe rarely reads another node's name: no copy of a name and no allocation per
/// entry (a million-node database built a QHash<QString, int> of them). A name given twice
/// finds the last node of that name, as QHash::insert did.
class NodeNames
{
public:
    explicit NodeNames(const std::vector<visdb::VisNode> &nodes)
        : m_nodes(nodes)
    {
        size_t capacity = 16;
        while (capacity < nodes.size() * 2)
            capacity *= 2;
        m_slots.assign(capacity, 0);
        m_hashes.assign(capacity, 0);
        for (size_t n = 0; n < nodes.size(); ++n) {
            const size_t hash = qHash(QStringView(nodes[n].name));
            const size_t s = find(nodes[n].name, hash);
            if (m_slots[s] != 0)
                m_unique = false;
            m_slots[s] = int(n) + 1;
            m_hashes[s] = std::uint32_t(hash >> 32);
        }
    }
    /// The index of the node of that name, -1 when none has it.
    int indexOf(QStringView name) const { return m_slots[find(name, qHash(name))] - 1; }
    /// No name is given to two nodes.
    bool unique() const { return m_unique; }

private:
    size_t find(QStringView name, size_t hash) const
    {
        const size_t mask = m_slots.size() - 1;
        for (size_t s = hash & mask;; s = (s + 1) & mask)
            if (m_slots[s] == 0 || (m_hashes[s] == std::uint32_t(hash >> 32) && m_nodes[size_t(m_slots[s] - 1)].name == name))
                return s;
    }
    const std::vector<visdb::VisNode> &m_nodes;
    std::vector<int> m_slots;
    std::vector<std::uint32_t> m_hashes;
    bool m_unique = true;
};

/// GraphNode::type of an API node: its name without the last two fields
/// ("Functional.linear.0.forward" -> "Functional.linear"), QString::section(u'.', 0, -3)
/// without splitting the name; consecutive nodes of one type share one string.
QString apiType(const QString &name, QString &last)
{
    const qsizetype dot = name.lastIndexOf(QLatin1Char('.'));
    const qsizetype before = dot > 0 ? name.lastIndexOf(QLatin1Char('.'), dot - 1) : -1;
    const QStringView type = before >= 0 ? QStringView(name).left(before) : QStringView();
    if (type != last)
        last = type.toString();
    return last;
}

GraphModel convert(const visdb::VisDatabase &db, const visdb::VisGraph &vg, const QString &runs)
{
    GraphModel model;
    model.file = db.file;
    model.stage = QString::fromLatin1(kVisDbStage);
    model.modelName = QStringLiteral("%1 step%2 rank%3").arg(vg.source).arg(vg.step).arg(vg.rank);
    // The hierarchy by node index, resolved once: a node's parent and its children (in
    // sub_nodes order, a name that is no node or the node itself left out).
    const size_t count = vg.nodes.size();
    const NodeNames names(vg.nodes);
    // Consecutive rows most often share their up_node string (the reader gives them one): it is
    // looked up once. With unique names, the k-th name of a node's sub_nodes is most often the
    // k-th node whose parent it is (msprobe writes both in node_order): checked before a lookup.
    std::vector<int> parentOf(count, -1), childStart(count + 1, 0), children;
    const QChar *lastParent = nullptr;
    int lastParentIndex = -1;
    for (size_t i = 0; i < count; ++i) {
        const QString &parent = vg.nodes[i].parent;
        if (i == 0 || parent.constData() != lastParent)
            lastParentIndex = names.indexOf(parent);
        lastParent = parent.constData();
        parentOf[i] = lastParentIndex;
    }
    std::vector<int> kidStart(count + 1, 0), kids(count);
    for (size_t i = 0; i < count; ++i)
        if (parentOf[i] >= 0)
            ++kidStart[size_t(parentOf[i]) + 1];
    for (size_t i = 0; i < count; ++i)
        kidStart[i + 1] += kidStart[i];
    {
        std::vector<int> fill(kidStart.begin(), kidStart.end() - 1);
        for (size_t i = 0; i < count; ++i)
            if (parentOf[i] >= 0)
                kids[size_t(fill[size_t(parentOf[i])]++)] = int(i);
    }
    for (size_t i = 0; i < count; ++i) {
        childStart[i] = int(children.size());
        const QStringList &childNames = vg.nodes[i].children;
        for (qsizetype k = 0; k < childNames.size(); ++k) {
            const int guess = kidStart[i] + int(k) < kidStart[i + 1] ? kids[size_t(kidStart[i] + int(k))] : -1;
            const int c = names.unique() && guess >= 0 && size_t(guess) != i && vg.nodes[size_t(guess)].name == childNames[k]
                            ? guess
                            : names.indexOf(childNames[k]);
            if (c >= 0 && size_t(c) != i)
                children.push_back(c);
        }
    }
    childStart[count] = int(children.size());
    // The group a module forms, as a path ("outer/Module.a/Module.b"): made once per module and
    // shared by its members. A node's scope is its parent's group below the root; a cycle or an
    // unknown parent ends the chain.
    std::vector<QString> groupPath(count), scope(count);
    std::vector<char> state(count, 0);
    auto scopeOf = [&](int i, auto &&self) -> const QString & {
        if (state[size_t(i)] != 0)
            return scope[size_t(i)];
        state[size_t(i)] = 1;
        const int p = parentOf[size_t(i)];
        if (p >= 0 && vg.nodes[size_t(i)].parent != vg.root) {
            if (groupPath[size_t(p)].isNull()) {
                const QString &outer = self(p, self);
                groupPath[size_t(p)] = outer.isEmpty() ? component(vg.nodes[size_t(p)].name)
                                                       : outer + QLatin1Char('/') + component(vg.nodes[size_t(p)].name);
            }
            scope[size_t(i)] = groupPath[size_t(p)];
        }
        state[size_t(i)] = 2;
        return scope[size_t(i)];
    };
    Graph g;
    g.name = model.modelName;
    g.attrs = {{QString::fromLatin1(kVisGraphTypeAttr), QStringLiteral("s"), db.graphType},
               {QString::fromLatin1(kVisOverflowCheckAttr), QStringLiteral("b"), db.overflowCheck ? QStringLiteral("true") : QStringLiteral("false")},
               {QString::fromLatin1(kVisRankAttr), QStringLiteral("i"), QString::number(vg.rank)},
               {QString::fromLatin1(kVisRowsFileAttr), QStringLiteral("s"), db.rowsDeferred ? db.file : QString()},
               {QString::fromLatin1(kVisRunsAttr), QStringLiteral("s"), runs},
               {QString::fromLatin1(kVisSourceAttr), QStringLiteral("s"), vg.source},
               {QString::fromLatin1(kVisStepAttr), QStringLiteral("i"), QString::number(vg.step)},
               {QString::fromLatin1(kVisTaskAttr), QStringLiteral("s"), db.task}};
    // Attribute keys and kinds, one string each for the million nodes.
    const QString nodeKey = QString::fromLatin1(kVisNodeAttr), precisionKey = QString::fromLatin1(kVisPrecisionAttr),
                  levelKey = QString::fromLatin1(kVisPrecisionLevelAttr), overflowKey = QString::fromLatin1(kVisOverflowAttr),
                  matchedKey = QString::fromLatin1(kVisMatchedAttr), kindS = QStringLiteral("s"), kindF = QStringLiteral("f"),
                  module = QStringLiteral("Module");
    const bool compare = db.graphType == QLatin1String("compare");
    // Which database nodes become graph nodes, and their scopes, first (the scope memo is for
    // one thread); then the nodes themselves, on two threads for a big graph.
    std::vector<int> nodeOf(count, -1); // database node -> graph node (-1: a group only)
    int made = 0;
    for (size_t i = 0; i < count; ++i) {
        const visdb::VisNode &vn = vg.nodes[i];
        if (vn.name == vg.root || vn.nodeType == kApiGroupType)
            continue;
        scopeOf(int(i), scopeOf);
        nodeOf[i] = made++;
    }
    g.nodes.resize(size_t(made));
    auto makeNodes = [&](size_t from, size_t to) {
        RowStrings strings;
        QString lastType;
        for (size_t i = from; i < to; ++i) {
            if (nodeOf[i] < 0)
                continue;
            const visdb::VisNode &vn = vg.nodes[i];
            const QString &outer = scope[i];
            GraphNode &n = g.nodes[size_t(nodeOf[i])];
            const QString own = component(vn.name);
            const bool group = !vn.children.isEmpty();
            if (outer.isEmpty() && !group)
                n.name = own;
            else if (outer.isEmpty())
                n.name = own + QLatin1Char('/') + own;
            else if (!group)
                n.name = outer + QLatin1Char('/') + own;
            else
                n.name = outer + QLatin1Char('/') + own + QLatin1Char('/') + own;
            n.type = vn.nodeType == 0 ? module : apiType(vn.name, lastType);
            n.id = vn.order;
            n.attrs.reserve(4);
            n.attrs.push_back({nodeKey, kindS, vn.name});
            if (vn.precisionIndex) {
                n.attrs.push_back({precisionKey, kindF, QString::number(*vn.precisionIndex)});
                n.attrs.push_back({levelKey, kindS, visdb::precisionLevel(db, *vn.precisionIndex)});
            }
            if (!vn.overflowLevel.isEmpty())
                n.attrs.push_back({overflowKey, kindS, vn.overflowLevel});
            if (compare)
                n.attrs.push_back({matchedKey, kindS, vn.matchedPath.isEmpty() ? QString() : vn.matchedPath.back()});
            std::sort(n.attrs.begin(), n.attrs.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; });
            if (!db.rowsDeferred) {
                n.inputDescs = descs(vn.inputData, strings);
                n.outputDescs = descs(vn.outputData, strings);
            }
        }
    };
    if (count >= kTwoThreadsFrom) {
        std::thread second(makeNodes, count / 2, count);
        makeNodes(0, count / 2);
        second.join();
    } else {
        makeNodes(0, count);
    }
    // Chain the members of every parent in node_order: from the last node of one member (a
    // node, or a whole child group) to the first node of the next. A member's span (its first
    // and last graph node by id) is computed once per node; a cycle ends at the node itself.
    // It reads the nodes' ids and writes the edges only: a big graph makes it on a thread of its
    // own beside the name index, the groups and the start node below.
    std::vector<std::pair<int, int>> chain; // (consumer, producer), in the order of their inputs
    auto makeChain = [&] {
        struct Span { int first = -1, last = -1; };
        std::vector<Span> span(count);
        std::vector<char> spanState(count, 0);
        auto spanOf = [&](int i, auto &&self, int depth) -> Span {
            if (spanState[size_t(i)] == 2)
                return span[size_t(i)];
            Span s{nodeOf[size_t(i)], nodeOf[size_t(i)]};
            if (spanState[size_t(i)] == 1 || depth > 256)
                return s; // a cycle, or a chain too deep to follow
            spanState[size_t(i)] = 1;
            for (int k = childStart[size_t(i)]; k < childStart[size_t(i) + 1]; ++k) {
                const Span cs = self(children[size_t(k)], self, depth + 1);
                if (cs.first >= 0 && (s.first < 0 || g.nodes[size_t(cs.first)].id < g.nodes[size_t(s.first)].id))
                    s.first = cs.first;
                if (cs.last >= 0 && (s.last < 0 || g.nodes[size_t(cs.last)].id > g.nodes[size_t(s.last)].id))
                    s.last = cs.last;
            }
            spanState[size_t(i)] = 2;
            span[size_t(i)] = s;
            return s;
        };
        std::vector<Span> members;
        chain.reserve(count);
        for (size_t i = 0; i < count; ++i) {
            members.clear();
            for (int k = childStart[i]; k < childStart[i + 1]; ++k)
                members.push_back(spanOf(children[size_t(k)], spanOf, 0));
            if (nodeOf[i] >= 0 && !vg.nodes[i].children.isEmpty())
                members.push_back({nodeOf[i], nodeOf[i]}); // the module's own node
            members.erase(std::remove_if(members.begin(), members.end(), [](const Span &s) { return s.first < 0; }), members.end());
            std::sort(members.begin(), members.end(), [&](const Span &a, const Span &b) {
                return g.nodes[size_t(a.first)].id < g.nodes[size_t(b.first)].id;
            });
            for (size_t m = 1; m < members.size(); ++m)
                chain.emplace_back(members[m].first, members[m - 1].last);
        }
        // The chain's edges by node index, as Graph::build would parse them from "name:0" inputs:
        // by consumer, then in the order added. That is the same graph only when no two nodes share
        // a name (an input names the last node of a name): else the inputs are parsed after all.
        setEdgesFromLinks(g, chain);
    };
    std::thread chaining;
    if (count >= kTwoThreadsFrom)
        chaining = std::thread(makeChain);
    else
        makeChain();
    // What the model list and the first view ask of every node, answered here on the reading
    // thread: a pass over a million nodes on the GUI thread stalled it (setGraphs, 0.8-1 s).
    const NodeId start = visDbStartNode(g);
    const NodeStatusColumn verdicts = visDbStatus(g, NodeStatusRole::CompareVerdict);
    g.buildWithEdges();
    if (chaining.joinable())
        chaining.join();
    rebuildFromLinksIfNamesRepeat(g, chain);
    g.attrs.push_back({QString::fromLatin1(kVisStartAttr), QStringLiteral("i"), QString::number(start.value)});
    g.attrs.push_back({QString::fromLatin1(kVisErrorNodesAttr), QStringLiteral("i"),
                       QString::number(std::count(verdicts.values.begin(), verdicts.values.end(), 3.0))});
    std::sort(g.attrs.begin(), g.attrs.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; });
    model.graphs.push_back(std::move(g));
    return model;
}

} // namespace

std::vector<GraphModel> visDbGraphModels(const visdb::VisDatabase &db)
{
    QString npu, bench; // the runs the database was made from (tensor dumps record them)
    for (const visdb::VisGraph &g : db.graphs) {
        QString &run = g.source == QLatin1String("Bench") ? bench : npu;
        if (run.isEmpty())
            run = runOfDumpDir(g.dumpDataDir);
    }
    const QString runs = npu.isEmpty() ? QString() : bench.isEmpty() ? npu : npu + QStringLiteral(" vs ") + bench;
    std::vector<GraphModel> out;
    for (const visdb::VisGraph &g : db.graphs)
        out.push_back(convert(db, g, runs));
    return out;
}

namespace {

QString graphAttr(const Graph &g, const char *key)
{
    for (const GraphAttr &a : g.attrs)
        if (a.key == QLatin1String(key))
            return a.value;
    return {};
}

} // namespace

VisDbRowsKey visDbRowsKey(const Graph &graph, const GraphNode &node)
{
    VisDbRowsKey key;
    const GraphAttr *name = node.attr(QString::fromLatin1(kVisNodeAttr));
    if (!name)
        return key;
    key.file = graphAttr(graph, kVisRowsFileAttr);
    key.source = graphAttr(graph, kVisSourceAttr);
    key.step = graphAttr(graph, kVisStepAttr).toInt();
    key.rank = graphAttr(graph, kVisRankAttr).toInt();
    key.order = int(node.id);
    key.nodeName = name->value;
    return key;
}

Result<VisDbNodeRows> readVisDbNodeRows(const VisDbRowsKey &key)
{
    const auto data = visdb::readVisNodeData(key.file, key.source, key.step, key.rank, key.order, key.nodeName);
    if (!data)
        return data.error();
    RowStrings strings;
    return VisDbNodeRows{descs(data->inputData, strings), descs(data->outputData, strings)};
}

bool isVisDbGraph(const GraphModel &model) { return model.stage == QLatin1String(kVisDbStage); }

QString visDbAttr(const GraphModel &model, const char *key)
{
    const Graph *g = model.root();
    return g ? graphAttr(*g, key) : QString();
}

bool isVisDbCompare(const GraphModel &model) { return visDbAttr(model, kVisGraphTypeAttr) == QLatin1String("compare"); }

QString visDbModelTitle(const GraphModel &model)
{
    QString kind;
    if (isVisDbCompare(model)) {
        const QString task = visDbAttr(model, kVisTaskAttr);
        const QString what = task == QLatin1String("summary") ? QCoreApplication::translate("VisDb", "statistics")
                           : task == QLatin1String("all")     ? QCoreApplication::translate("VisDb", "tensors")
                                                              : task;
        kind = QCoreApplication::translate("VisDb", "compare (%1)").arg(what);
    } else {
        kind = visDbAttr(model, kVisOverflowCheckAttr) == QLatin1String("true") ? QCoreApplication::translate("VisDb", "build with overflow check")
                                                                                : QCoreApplication::translate("VisDb", "build");
    }
    const QString runs = visDbAttr(model, kVisRunsAttr);
    QStringList parts{kind, runs.isEmpty() ? QFileInfo(model.file).dir().dirName() : runs, model.modelName,
                      QCoreApplication::translate("VisDb", "%n node(s)", nullptr, model.nodeCount())};
    if (const Graph *g = model.root()) {
        const NodeId start = visDbStartNode(*g);
        if (!isVisDbCompare(model) && start.isValid()) {
            parts << QCoreApplication::translate("VisDb", "critical: %1").arg(g->node(start).attr(QString::fromLatin1(kVisNodeAttr))->value);
        } else if (isVisDbCompare(model)) {
            const int errors = graphAttr(*g, kVisErrorNodesAttr).toInt();
            if (errors)
                parts << QCoreApplication::translate("VisDb", "%n error node(s)", nullptr, int(errors));
        }
    }
    static const QRegularExpression stamp(QStringLiteral("_(\\d{4})(\\d{2})(\\d{2})(\\d{2})(\\d{2})(\\d{2})\\.vis\\.db$"));
    const QRegularExpressionMatch m = stamp.match(model.file);
    const QString when = m.hasMatch() ? QStringLiteral("%1-%2-%3 %4:%5:%6").arg(m.captured(1), m.captured(2), m.captured(3), m.captured(4),
                                                                             m.captured(5), m.captured(6))
                                      : QFileInfo(model.file).fileName();
    return parts.join(QStringLiteral(" \u00b7 ")) + QStringLiteral(" \u2014 ") + when;
}

int visDbFirstModel(const std::vector<GraphModel> &models)
{
    // The earliest finding: the lowest step, then the lowest node_order (the ranks of a step run
    // side by side; the NaN a collective spreads comes after the operator that made it).
    int best = -1;
    std::pair<int, std::int64_t> bestAt;
    for (size_t i = 0; i < models.size(); ++i) {
        if (!isVisDbGraph(models[i]) || !models[i].root())
            continue;
        const NodeId start = visDbStartNode(*models[i].root());
        if (!start.isValid())
            continue;
        const std::pair<int, std::int64_t> at{visDbAttr(models[i], kVisStepAttr).toInt(), models[i].root()->node(start).id};
        if (best < 0 || at < bestAt)
            best = int(i), bestAt = at;
    }
    return std::max(best, 0);
}

namespace {

/// The number of a "step3" / "rank1" level, -1 when it has none.
int levelValue(const QString &level, QLatin1String prefix)
{
    bool ok = false;
    const int v = level.startsWith(prefix) ? level.mid(prefix.size()).toInt(&ok) : -1;
    return ok ? v : -1;
}

} // namespace

DumpMapping mapVisDbGraph(const GraphModel &model, const DumpIndex &index)
{
    if (!model.root() || visDbAttr(model, kVisSourceAttr) != QLatin1String("NPU"))
        return {};
    DumpMapping m;
    m.modelFolders = QStringList{model.modelName};
    m.nodeOps.resize(model.graphs.size());
    m.nodeState.resize(model.graphs.size());
    for (size_t g = 0; g < model.graphs.size(); ++g) {
        m.nodeOps[g].resize(model.graphs[g].nodes.size());
        m.nodeState[g].resize(model.graphs[g].nodes.size(), NodeDumpState::Missing);
    }
    m.opNode.resize(index.ops.size());
    m.opLink.resize(index.ops.size(), OpLink::None);
    const Graph &graph = *model.root();
    const int step = visDbAttr(model, kVisStepAttr).toInt(), rank = visDbAttr(model, kVisRankAttr).toInt();
    QHash<QString, int> nodeOf;
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        if (const GraphAttr *a = graph.nodes[n].attr(QString::fromLatin1(kVisNodeAttr)))
            nodeOf.insert(a->value, int(n));
    for (size_t o = 0; o < index.ops.size(); ++o) {
        const OpRecord &op = index.ops[o];
        if (!formatReader(op.source).hasModules())
            continue;
        const int s = levelValue(op.levels->step, QLatin1String("step")), r = levelValue(op.levels->rank, QLatin1String("rank"));
        if ((s >= 0 && s != step) || (r >= 0 && r != rank))
            continue;
        m.consideredOps.push_back(int(o));
        const int n = nodeOf.value(op.opName.toString(), -1);
        if (n < 0 || !m.nodeOps[0][size_t(n)].empty()) {
            m.unmappedOps.push_back(int(o));
            continue;
        }
        m.nodeOps[0][size_t(n)].push_back(int(o));
        m.nodeState[0][size_t(n)] = NodeDumpState::Dumped;
        m.opNode[o] = GraphNodeRef{0, NodeId{n}};
        m.opLink[o] = OpLink::ByEntryName;
    }
    if (m.consideredOps.size() == m.unmappedOps.size()) { // nothing linked: no mapping
        DumpMapping none;
        none.consideredOps = std::move(m.consideredOps);
        none.unmappedOps = std::move(m.unmappedOps);
        return none;
    }
    return m;
}

namespace {

double levelValue(const GraphNode &n, NodeStatusRole role)
{
    static const QString overflowKey = QString::fromLatin1(kVisOverflowAttr), precisionKey = QString::fromLatin1(kVisPrecisionLevelAttr);
    const GraphAttr *a = n.attr(role == NodeStatusRole::OverflowLevel ? overflowKey : precisionKey);
    if (!a || role == NodeStatusRole::MetricValue)
        return std::nan("");
    static const QStringList overflow{QStringLiteral("medium"), QStringLiteral("high"), QStringLiteral("critical")};
    static const QStringList precision{QStringLiteral("pass"), QStringLiteral("warning"), QStringLiteral("error")};
    const qsizetype i = (role == NodeStatusRole::OverflowLevel ? overflow : precision).indexOf(a->value);
    return i < 0 ? std::nan("") : double(i + 1);
}

} // namespace

NodeStatusColumn visDbStatus(const Graph &graph, NodeStatusRole role)
{
    NodeStatusColumn column;
    column.role = role;
    column.values.reserve(graph.nodes.size());
    for (const GraphNode &n : graph.nodes)
        column.values.push_back(levelValue(n, role));
    return column;
}

QString visDbRowSummary(const GraphTensorDesc &row)
{
    auto value = [&](const char *key) {
        for (const GraphAttr &a : row.attrs)
            if (a.key == QLatin1String(key))
                return a.value;
        return QString();
    };
    auto number = [](const QString &text) {
        bool ok = false;
        const double v = text.toDouble(&ok);
        return ok ? QString::number(v, 'g', 5) : text;
    };
    QStringList parts{row.name + QLatin1Char(':')};
    const QString type = value("type");
    if (!row.dtypeName.isEmpty())
        parts << row.dtypeName << value("shape");
    else if (!type.isEmpty())
        parts << type << value("value");
    for (const char *key : {"Max", "Min", "Mean", "Norm"})
        if (const QString v = value(key); !v.isEmpty() && v != QLatin1String("None"))
            parts << QString::fromLatin1(key).toLower() + QLatin1Char(' ') + number(v);
    if (const QString md5 = value("md5"); !md5.isEmpty())
        parts << QStringLiteral("md5 ") + md5;
    if (const QString result = value("Result"); !result.isEmpty()) {
        const QString err = value("Err_message");
        parts << QStringLiteral("(%1%2)").arg(result, err.isEmpty() || err == QLatin1String("[]") ? QString() : QStringLiteral(": ") + err);
    }
    parts.removeAll(QString());
    return parts.join(QLatin1Char(' '));
}

RecordedStats visDbRowStats(const GraphTensorDesc &row)
{
    RecordedStats r;
    const std::pair<const char *, std::pair<RecordedStats::Field, double RecordedStats::*>> fields[] = {
        {"Max", {RecordedStats::Max, &RecordedStats::max}},
        {"Min", {RecordedStats::Min, &RecordedStats::min}},
        {"Mean", {RecordedStats::Mean, &RecordedStats::mean}},
        {"Norm", {RecordedStats::Norm, &RecordedStats::norm}},
    };
    for (const auto &[key, field] : fields)
        for (const GraphAttr &a : row.attrs)
            if (a.key == QLatin1String(key)) {
                bool ok = false;
                QString text = a.value.trimmed().toLower();
                double v = text.toDouble(&ok); // "inf", "-inf", "nan" are read too
                if (!ok && (text == QLatin1String("infinity") || text == QLatin1String("-infinity")))
                    v = text.startsWith(QLatin1Char('-')) ? -INFINITY : INFINITY, ok = true;
                if (ok) {
                    r.*field.second = v;
                    r.present |= field.first;
                }
            }
    return r;
}

NodeId visDbStartNode(const Graph &graph)
{
    if (const QString known = graphAttr(graph, kVisStartAttr); !known.isEmpty())
        return NodeId{known.toInt()};
    for (auto [role, level] : {std::pair{NodeStatusRole::OverflowLevel, 3.0}, std::pair{NodeStatusRole::CompareVerdict, 3.0}}) {
        NodeId best;
        for (size_t n = 0; n < graph.nodes.size(); ++n)
            if (levelValue(graph.nodes[n], role) == level && (!best.isValid() || graph.nodes[n].id < graph.node(best).id))
                best = NodeId{int(n)};
        if (best.isValid())
            return best;
    }
    return {};
}

} // namespace ds
