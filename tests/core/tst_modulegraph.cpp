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
        int withModules = 0, withPrefixes = 0;
        for (const GraphModel &model : models) {
            QVERIFY(isModuleGraph(model));
            QVERIFY2(dirs.contains(model.modelName), qPrintable(model.modelName));
            QCOMPARE(model.graphs.size(), size_t(1));
            const Graph &g = *model.root();
            const DumpMapping map = mapModuleGraph(model, index);
            QVERIFY(map.unmappedOps.empty());
            QVERIFY(map.missingNodes.empty());
            QCOMPARE(map.consideredOps.size(), g.nodes.size());

            // Execution order: node order and the key order of dump.json (debug.json) agree.
            QHash<QString, QString> texts;
            QHash<QString, qsizetype> lastPos;
            for (size_t n = 0; n < g.nodes.size(); ++n) {
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
            // Call-order edges: forward in time, at most one input per node.
            for (const GraphEdge &e : g.edges) {
                QVERIFY(!e.isControl());
                QVERIFY(e.from.value < e.to.value);
                QCOMPARE(e.inIndex, 0);
            }
            QVERIFY(g.unresolvedInputs.isEmpty());

            // The group chains are the construct.json parent chains.
            const QHash<QString, QString> construct = readConstruct(root + QLatin1Char('/') + model.modelName + QStringLiteral("/construct.json"));
            // Parents of the dumped entries: construct.json's, or the inferred one ("parent
            // inferred", msprobe.md §5: the backward twin of the forward twin's parent).
            QHash<QString, QString> parentOf;
            for (const auto &ops : map.nodeOps[0]) {
                const OpRecord &op = index.ops[size_t(ops[0])];
                QString parent = construct.value(op.opName);
                if (parent != op.parent) {
                    const QString forward = twin(op.opName, ".backward", ".forward");
                    QVERIFY(forward != op.opName);
                    QCOMPARE(op.parent, twin(construct.value(forward), ".forward", ".backward"));
                    parent = op.parent;
                }
                parentOf.insert(op.opName, parent);
            }
            QSet<QString> parentSet;
            for (const QString &p : std::as_const(parentOf))
                if (!p.isEmpty())
                    parentSet.insert(p);
            QSet<QString> expectedGroups;
            for (size_t n = 0; n < g.nodes.size(); ++n) {
                const OpRecord &op = index.ops[size_t(map.nodeOps[0][n][0])];
                const QString parent = parentOf.value(op.opName);
                QStringList chain;
                for (QString p = parent; !p.isEmpty() && !chain.contains(p); p = parentOf.value(p))
                    chain.prepend(p);
                QString scope;
                if (parentSet.isEmpty()) {
                    scope = op.opName.section(QLatin1Char('.'), 0, 0); // L1: grouped by prefix
                } else {
                    if (parentSet.contains(op.opName))
                        chain << op.opName;
                    scope = chain.join(QLatin1Char('/'));
                }
                QCOMPARE(g.nodes[n].name, scope.isEmpty() ? op.opName : scope + QLatin1Char('/') + op.opName);
                for (QString s = scope; !s.isEmpty(); s = Graph::scopeOf(s))
                    expectedGroups.insert(s);
            }
            QSet<QString> groups;
            for (const NameGroup &grp : g.groups)
                groups.insert(grp.path);
            QCOMPARE(groups, expectedGroups);
            QVERIFY(!groups.isEmpty());
            // Every group and top level is one chain: nodes + groups items, one edge less per level.
            if (parentSet.isEmpty()) {
                ++withPrefixes;
                QCOMPARE(g.edges.size(), g.nodes.size() - g.groups.size());
            } else {
                ++withModules;
                QCOMPARE(g.edges.size(), g.nodes.size() - 1);
            }
        }
        QVERIFY(withModules >= 2 && withPrefixes >= 1);
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
