#include "formats/readers.h"
#include "dumpgraph/modulegraph.h"
#include "index/buildindex.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

using namespace ds;

namespace {

/// construct.json read independently: child -> parent ("" for null); Megatron [parent, step].
QHash<QString, QString> readConstruct(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QHash<QString, QString> parents;
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    for (auto it = o.begin(); it != o.end(); ++it)
        if (it.key() != QLatin1String("megatron_micro_step_number"))
            parents.insert(it.key(), it->isArray() ? it->toArray().at(0).toString() : it->toString());
    return parents;
}

QString twin(QString name, const char *from, const char *to)
{
    return name.replace(QLatin1String(from), QLatin1String(to));
}

} // namespace

class TestModuleGraph : public QObject
{
    Q_OBJECT
private slots:
    void msprobeSample()
    {
        const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe");
        auto built = buildIndex(root);
        QVERIFY(built);
        const DumpIndex &index = **built;
        const auto models = buildModuleGraphs(index);
        QSet<QString> dirs;
        for (const OpRecord &op : index.ops)
            dirs.insert(op.relPath.section(QLatin1Char('/'), 0, -2));
        QCOMPARE(int(models.size()), int(dirs.size())); // one graph per step/rank directory
        std::vector<int> nodesOfOp(index.ops.size(), 0);
        int withModules = 0, withPrefixes = 0, attachedGrads = 0, attachedParams = 0;
        for (const GraphModel &model : models) {
            QVERIFY(isModuleGraph(model));
            QVERIFY2(dirs.contains(model.modelName), qPrintable(model.modelName));
            QCOMPARE(model.graphs.size(), size_t(1));
            const Graph &g = *model.root();
            const DumpMapping map = mapModuleGraph(model, index);
            QVERIFY(map.unmappedOps.empty());
            QVERIFY(map.missingNodes.empty());
            QVERIFY(isModuleHierarchy(g));
            // Entry nodes first (one per op), then one node per parameter tensor of a module.
            size_t entries = 0;
            while (entries < g.nodes.size() && !g.nodes[entries].attr(QString::fromLatin1(kModuleTensorAttr)))
                ++entries;
            QCOMPARE(map.consideredOps.size(), entries);
            size_t paramTensors = 0;
            for (int o : map.consideredOps) // a module call's parameters (a parameters_grad entry's tensors are its own)
                if (!index.ops[size_t(o)].opName.contains(QStringLiteral(".parameters_grad")))
                    for (const TensorRecord &t : index.ops[size_t(o)].tensors)
                        paramTensors += t.io() == IoKind::Parameter ? 1 : 0;

            // Execution order: node order and the key order of dump.json (debug.json) agree.
            QHash<QString, QString> texts;
            QHash<QString, qsizetype> lastPos;
            for (size_t n = 0; n < entries; ++n) {
                const auto &ops = map.nodeOps[0][n];
                QCOMPARE(ops.size(), size_t(1));
                const OpRecord &op = index.ops[size_t(ops[0])];
                ++nodesOfOp[size_t(ops[0])];
                QCOMPARE(map.opNode[size_t(ops[0])], (GraphNodeRef{0, NodeId{int(n)}}));
                QCOMPARE(g.nodes[n].type, op.opType);
                const QString file = index.absolutePath(op);
                if (!texts.contains(file)) {
                    QFile f(file);
                    QVERIFY(f.open(QIODevice::ReadOnly));
                    texts.insert(file, QString::fromUtf8(f.readAll()));
                }
                const qsizetype pos = texts[file].indexOf(QLatin1Char('"') + op.opName + QStringLiteral("\": {"));
                QVERIFY2(pos > lastPos.value(file, -1), qPrintable(op.opName));
                lastPos[file] = pos;
            }
            QVERIFY(g.unresolvedInputs.isEmpty());

            // The group chains are the construct.json parent chains.
            const QHash<QString, QString> construct = readConstruct(root + QLatin1Char('/') + model.modelName + QStringLiteral("/construct.json"));
            // Parents of the dumped entries: construct.json's, or the inferred one ("parent
            // inferred", msprobe.md §5: the backward twin of the forward twin's parent).
            QHash<QString, QString> parentOf;
            QHash<QString, int> entryNode;
            for (size_t n = 0; n < entries; ++n) {
                const OpRecord &op = index.ops[size_t(map.nodeOps[0][n][0])];
                QString parent = construct.value(op.opName);
                if (parent != op.parent) {
                    const QString forward = twin(op.opName, ".backward", ".forward");
                    QVERIFY(forward != op.opName);
                    QCOMPARE(op.parent, twin(construct.value(forward), ".forward", ".backward"));
                    parent = op.parent;
                }
                parentOf.insert(op.opName, parent);
                entryNode.insert(op.opName, int(n));
            }
            QSet<QString> parentSet;
            for (const QString &p : std::as_const(parentOf))
                if (!p.isEmpty())
                    parentSet.insert(p);
            const bool modules = !parentSet.isEmpty();
            // parameters_grad entries sit in the group of their module's last backward call
            // before them; modules with parameters (and those hosts) are groups too.
            QHash<QString, QString> gradHost;
            if (modules) {
                QHash<QString, QString> lastBackward;
                for (size_t n = 0; n < entries; ++n) {
                    const OpRecord &op = index.ops[size_t(map.nodeOps[0][n][0])];
                    const qsizetype at = op.opName.toString().lastIndexOf(QStringLiteral(".backward."));
                    if (op.opName.startsWith(QStringLiteral("Module.")) && at > 0)
                        lastBackward.insert(op.opName.left(at), op.opName);
                    const qsizetype pg = op.opName.toString().indexOf(QStringLiteral(".parameters_grad"));
                    if (pg > 0 && lastBackward.contains(op.opName.left(pg))) {
                        gradHost.insert(op.opName, lastBackward.value(op.opName.left(pg)));
                        parentSet.insert(lastBackward.value(op.opName.left(pg)));
                    }
                    for (const TensorRecord &t : op.tensors)
                        if (t.io() == IoKind::Parameter && pg < 0)
                            parentSet.insert(op.opName);
                }
            }
            auto chainOf = [&](const QString &entry) {
                QStringList chain;
                for (QString p = parentOf.value(entry); !p.isEmpty() && !chain.contains(p); p = parentOf.value(p))
                    chain.prepend(p);
                return chain;
            };
            auto phaseOf = [](const QString &entry) {
                if (entry.endsWith(QStringLiteral(".debug"))) // debug.json's single-point saves
                    return QStringLiteral("debug");
                return entry.contains(QStringLiteral(".backward")) || entry.contains(QStringLiteral(".parameters_grad"))
                           ? QStringLiteral("backward")
                           : QStringLiteral("forward");
            };
            QSet<QString> expectedGroups;
            QHash<QString, QString> groupOfEntry; // the group a module entry's own node is in
            for (size_t n = 0; n < entries; ++n) {
                const OpRecord &op = index.ops[size_t(map.nodeOps[0][n][0])];
                QString scope;
                if (!modules) {
                    scope = phaseOf(op.opName) + QLatin1Char('/') + op.opName.section(QLatin1Char('.'), 0, 0); // L1: by prefix
                } else if (gradHost.contains(op.opName)) {
                    const QString host = gradHost.value(op.opName);
                    scope = QStringList(QStringList{phaseOf(host)} + chainOf(host) + QStringList{host}).join(QLatin1Char('/'));
                } else {
                    QStringList chain = QStringList{phaseOf(op.opName)} + chainOf(op.opName);
                    if (parentSet.contains(op.opName))
                        chain << op.opName;
                    scope = chain.join(QLatin1Char('/'));
                }
                QCOMPARE(g.nodes[n].name, QString(scope + QLatin1Char('/') + op.opName));
                groupOfEntry.insert(op.opName, scope);
                for (QString s = scope; !s.isEmpty(); s = Graph::scopeOf(s))
                    expectedGroups.insert(s);
            }
            // Parameter nodes: in their module's group, feeding the module's own node.
            QCOMPARE(g.nodes.size() - entries, modules ? paramTensors : size_t(0));
            for (size_t n = entries; n < g.nodes.size(); ++n) {
                const GraphNode &pn = g.nodes[n];
                QCOMPARE(pn.type, QStringLiteral("Parameter"));
                const OpRecord &op = index.ops[size_t(map.nodeOps[0][n][0])];
                QCOMPARE(map.nodeOps[0][n].size(), size_t(1));
                QCOMPARE(map.opNode[size_t(map.nodeOps[0][n][0])].node, NodeId{entryNode.value(op.opName)}); // the op keeps its own node
                const QString tensor = pn.attr(QString::fromLatin1(kModuleTensorAttr))->value;
                QVERIFY(tensor.startsWith(QStringLiteral("parameters.")));
                QCOMPARE(pn.name, groupOfEntry.value(op.opName) + QLatin1Char('/') + tensor);
                const auto in = std::find_if(g.edges.begin(), g.edges.end(), [&](const GraphEdge &e) { return e.from == NodeId{int(n)}; });
                QVERIFY(in != g.edges.end());
                QCOMPARE(in->to, NodeId{entryNode.value(op.opName)});
            }
            QSet<QString> groups;
            for (const NameGroup &grp : g.groups)
                groups.insert(grp.path);
            QCOMPARE(groups, expectedGroups);
            QVERIFY(!groups.isEmpty());
            // Call-order edges: forward in time, one input per node; every group below the
            // phases is one chain (L1: only the prefix groups): one edge less than members.
            int chainEdges = 0, gradEdges = 0;
            for (const GraphEdge &e : g.edges) {
                QVERIFY(!e.isControl());
                if (e.from.index() >= entries)
                    continue; // a parameter
                QVERIFY(e.from.value < e.to.value);
                QCOMPARE(e.inIndex, 0);
                const QString to = index.ops[size_t(map.nodeOps[0][e.to.index()][0])].opName;
                if (gradHost.contains(to)) { // a parameter gradient hangs off its module's backward call
                    QCOMPARE(g.node(e.from).name, groupOfEntry.value(gradHost.value(to)) + QLatin1Char('/') + gradHost.value(to));
                    ++gradEdges;
                    continue;
                }
                ++chainEdges;
            }
            QCOMPARE(gradEdges, int(gradHost.size()));
            attachedGrads += gradEdges;
            attachedParams += int(g.nodes.size() - entries);
            QHash<QString, int> members;
            for (size_t n = 0; n < entries; ++n)
                if (!gradHost.contains(index.ops[size_t(map.nodeOps[0][n][0])].opName))
                    ++members[Graph::scopeOf(g.nodes[n].name)];
            for (const QString &grp : std::as_const(groups))
                ++members[Graph::scopeOf(grp)];
            int expectedChain = 0;
            for (auto it = members.cbegin(); it != members.cend(); ++it)
                if (!it.key().isEmpty() && (modules || it.key().contains(QLatin1Char('/'))))
                    expectedChain += it.value() - 1;
            QCOMPARE(chainEdges, expectedChain);
            QCOMPARE(int(g.edges.size()) - chainEdges - gradEdges, int(g.nodes.size() - entries));
            ++(modules ? withModules : withPrefixes);
        }
        QVERIFY(withModules >= 2 && withPrefixes >= 1);
        QVERIFY(attachedGrads >= 2 && attachedParams >= 4); // the sample has both: the checks above ran
        for (size_t o = 0; o < index.ops.size(); ++o)
            QCOMPARE(nodesOfOp[o], 1);
    }

    void ptdbgSample()
    {
        auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/ptdbg"));
        QVERIFY(built);
        const DumpIndex &index = **built;
        const auto models = buildModuleGraphs(index);
        QVERIFY(!models.empty());
        size_t nodes = 0;
        for (const GraphModel &model : models) {
            const DumpMapping map = mapModuleGraph(model, index);
            QVERIFY(map.unmappedOps.empty() && map.missingNodes.empty());
            QVERIFY(!model.root()->groups.empty());
            nodes += model.root()->nodes.size();
        }
        size_t framework = 0;
        for (const OpRecord &op : index.ops)
            framework += formatReader(op.source).hasModules() ? 1 : 0;
        QCOMPARE(nodes, framework);
    }
};

QTEST_MAIN(TestModuleGraph)
#include "tst_modulegraph.moc"
