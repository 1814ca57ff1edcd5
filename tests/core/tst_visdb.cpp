// msprobe graph databases (.vis.db) written by the real msprobe 26.0.0 `graph_visualize`
// (samples/msprobe_real/graph): read through Qt SQL, checked against what Python's sqlite3
// read from the same files (samples/msprobe_real/expected.json "graphs", written by the corpus
// tools, not by DumpScope).
#include "dumpgraph/visdbgraph.h"
#include "formats/visdb/visdb.h"
#include "visdbcommand.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace ds;

namespace {

const QString kCorpus = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

QJsonObject expectedGraphs()
{
    QFile f(kCorpus + QStringLiteral("/expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("graphs")).toObject();
}

std::vector<int> ints(const QJsonValue &v)
{
    std::vector<int> out;
    for (const QJsonValue &x : v.toArray())
        out.push_back(x.toInt());
    return out;
}

const visdb::VisGraph *findGraph(const visdb::VisDatabase &db, const QString &source, int step, int rank)
{
    for (const auto &g : db.graphs)
        if (g.source == source && g.step == step && g.rank == rank)
            return &g;
    return nullptr;
}

QByteArray folderState(const QString &dir)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const QFileInfo &f : QDir(dir).entryInfoList(QDir::Files | QDir::Hidden, QDir::Name)) {
        h.addData(f.fileName().toUtf8());
        QFile file(f.absoluteFilePath());
        if (file.open(QIODevice::ReadOnly))
            h.addData(file.readAll());
    }
    return h.result();
}

} // namespace

class TestVisDb : public QObject
{
    Q_OBJECT
private slots:
    void readsEveryDatabase_data()
    {
        QTest::addColumn<QString>("key");
        const QJsonObject graphs = expectedGraphs();
        QVERIFY2(graphs.size() >= 3, "the corpus lists at least 3 graph databases");
        for (const QString &key : graphs.keys())
            QTest::addRow("%s", qPrintable(key)) << key;
    }
    void readsEveryDatabase()
    {
        QFETCH(QString, key);
        const QJsonObject want = expectedGraphs().value(key).toObject();
        const QString file = kCorpus + QLatin1Char('/') + want.value(QStringLiteral("file")).toString();
        const QString dir = QFileInfo(file).absolutePath();
        const QByteArray before = folderState(dir);
        const auto db = visdb::readVisDb(file);
        QVERIFY2(db.ok(), qPrintable(db.errorText()));
        // Read-only and immutable: nothing new beside the database (msprobe writes WAL databases).
        QCOMPARE(folderState(dir), before);

        const QJsonObject config = want.value(QStringLiteral("config")).toObject();
        QCOMPARE(db->graphType, config.value(QStringLiteral("graph_type")).toString());
        QCOMPARE(db->task, config.value(QStringLiteral("task")).toString());
        QCOMPARE(db->overflowCheck, config.value(QStringLiteral("overflow_check")).toInt() != 0);
        QCOMPARE(db->steps, ints(config.value(QStringLiteral("step_list"))));
        QCOMPARE(db->ranks, ints(config.value(QStringLiteral("rank_list"))));
        if (db->graphType == QLatin1String("compare")) {
            QCOMPARE(db->colors.size(), size_t(config.value(QStringLiteral("node_colors")).toObject().size()));
            QCOMPARE(visdb::precisionLevel(*db, 0.5), QStringLiteral("warning"));
        }

        // Node counts per step, rank and side.
        const QJsonObject nodes = want.value(QStringLiteral("nodes")).toObject();
        QCOMPARE(db->graphs.size(), size_t(nodes.size()));
        for (auto it = nodes.begin(); it != nodes.end(); ++it) {
            const QStringList parts = it.key().split(QLatin1Char('/')); // step0/rank1/NPU
            const auto *g = findGraph(*db, parts[2], parts[0].mid(4).toInt(), parts[1].mid(4).toInt());
            QVERIFY2(g, qPrintable(it.key()));
            QCOMPARE(int(g->nodes.size()), it.value().toInt());
            QCOMPARE(g->root, QStringLiteral("DefaultModel"));
        }

        // Overflow levels, exactly the nodes msprobe marked.
        std::set<std::tuple<int, int, QString, QString>> wantOverflow, gotOverflow;
        for (const QJsonValue &v : want.value(QStringLiteral("overflow_nodes")).toArray()) {
            const QJsonObject o = v.toObject();
            wantOverflow.insert({o.value(QStringLiteral("step")).toInt(), o.value(QStringLiteral("rank")).toInt(),
                                 o.value(QStringLiteral("node")).toString(), o.value(QStringLiteral("level")).toString()});
        }
        for (const auto &g : db->graphs)
            for (const auto &n : g.nodes)
                if (!n.overflowLevel.isEmpty())
                    gotOverflow.insert({g.step, g.rank, n.name, n.overflowLevel});
        QCOMPARE(gotOverflow, wantOverflow);

        // Precision index of every NPU node with one.
        const QJsonObject precision = want.value(QStringLiteral("npu_precision_index")).toObject();
        int checked = 0;
        for (auto it = precision.begin(); it != precision.end(); ++it) {
            const QStringList parts = it.key().split(QLatin1Char('/'));
            const auto *g = findGraph(*db, QStringLiteral("NPU"), parts[0].mid(4).toInt(), parts[1].mid(4).toInt());
            QVERIFY(g);
            const QJsonObject perNode = it.value().toObject();
            int withIndex = 0;
            for (const auto &n : g->nodes) {
                if (!n.precisionIndex)
                    continue;
                ++withIndex;
                QVERIFY2(perNode.contains(n.name), qPrintable(n.name));
                QCOMPARE(*n.precisionIndex, perNode.value(n.name).toDouble());
                ++checked;
            }
            QCOMPARE(withIndex, perNode.size());
        }
        if (db->graphType == QLatin1String("compare"))
            QVERIFY(checked >= 60);
    }

    void graphModelsKeepHierarchyAndState()
    {
        const QJsonObject graphs = expectedGraphs();
        for (const QString &key : graphs.keys()) {
            const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/') + graphs.value(key).toObject().value(QStringLiteral("file")).toString());
            QVERIFY(db.ok());
            const auto models = visDbGraphModels(*db);
            QCOMPARE(models.size(), db->graphs.size());
            for (size_t m = 0; m < models.size(); ++m) {
                const visdb::VisGraph &vg = db->graphs[m];
                const Graph &g = *models[m].root();
                QCOMPARE(models[m].stage, QString::fromLatin1(kVisDbStage));
                QCOMPARE(models[m].modelName, QStringLiteral("%1 step%2 rank%3").arg(vg.source).arg(vg.step).arg(vg.rank));
                // Every database node but the root and the API groups is one graph node.
                int expectedNodes = 0;
                for (const auto &n : vg.nodes)
                    expectedNodes += n.name != vg.root && n.nodeType != 9;
                QCOMPARE(int(g.nodes.size()), expectedNodes);
                for (const GraphNode &n : g.nodes) {
                    const GraphAttr *vis = n.attr(QString::fromLatin1(kVisNodeAttr));
                    QVERIFY(vis);
                    const auto it = std::find_if(vg.nodes.begin(), vg.nodes.end(), [&](const visdb::VisNode &v) { return v.name == vis->value; });
                    QVERIFY(it != vg.nodes.end());
                    // Its parent (below the root) is the innermost group of the node.
                    if (it->parent != vg.root) {
                        QVERIFY(n.group.isValid());
                        QCOMPARE(g.group(n.group).label, it->children.isEmpty() ? it->parent : it->name);
                    }
                    const GraphAttr *overflow = n.attr(QString::fromLatin1(kVisOverflowAttr));
                    QCOMPARE(overflow ? overflow->value : QString(), it->overflowLevel);
                    const GraphAttr *precision = n.attr(QString::fromLatin1(kVisPrecisionAttr));
                    QCOMPARE(bool(precision), bool(it->precisionIndex));
                    // Inputs and outputs keep msprobe's row names.
                    if (!it->outputData.isEmpty() && it->outputData != QLatin1String("{}")) {
                        QVERIFY(!n.outputDescs.empty());
                        QVERIFY2(n.outputDescs.front().name.startsWith(it->name + QLatin1Char('.')), qPrintable(n.outputDescs.front().name));
                    }
                }
                // Call-order edges: every node but the first of the graph is reached.
                QVERIFY(g.edges.size() + 1 >= g.nodes.size());
            }
        }
    }

    void cliSectionMatchesTheDatabases()
    {
        const VisDbSection section = visDbSection(kCorpus + QStringLiteral("/graph"), kCorpus + QStringLiteral("/graph"));
        const QJsonObject graphs = expectedGraphs();
        QCOMPARE(section.readable, graphs.size());
        QCOMPARE(section.json.size(), graphs.size());
        for (const QJsonValue &v : section.json) {
            const QJsonObject entry = v.toObject();
            QString key;
            for (const QString &k : graphs.keys())
                if (graphs.value(k).toObject().value(QStringLiteral("file")).toString() == QStringLiteral("graph/") + entry.value(QStringLiteral("file")).toString())
                    key = k;
            QVERIFY2(!key.isEmpty(), qPrintable(entry.value(QStringLiteral("file")).toString()));
            const QJsonObject want = graphs.value(key).toObject();
            int critical = 0, high = 0;
            for (const QJsonValue &o : want.value(QStringLiteral("overflow_nodes")).toArray())
                (o.toObject().value(QStringLiteral("level")).toString() == QLatin1String("critical") ? critical : high) += 1;
            int gotCritical = 0, gotHigh = 0, nodes = 0;
            for (const QJsonValue &g : entry.value(QStringLiteral("graphs")).toArray()) {
                const QJsonObject levels = g.toObject().value(QStringLiteral("levels")).toObject();
                gotCritical += levels.value(QStringLiteral("critical")).toInt();
                gotHigh += levels.value(QStringLiteral("high")).toInt();
                nodes += g.toObject().value(QStringLiteral("nodes")).toInt();
            }
            QCOMPARE(gotCritical, critical);
            QCOMPARE(gotHigh, high);
            int wantNodes = 0;
            for (const QJsonValue &n : want.value(QStringLiteral("nodes")).toObject())
                wantNodes += n.toInt();
            QCOMPARE(nodes, wantNodes);
        }
    }

    void badDatabases()
    {
        QTemporaryDir dir;
        const QString garbage = dir.filePath(QStringLiteral("garbage.vis.db"));
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a database");
        f.close();
        auto r = visdb::readVisDb(garbage);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, ErrorKind::Corrupt);
        QCOMPARE(r.error().file, garbage);
        QVERIFY2(r.error().message.contains(QLatin1String("not an SQLite database")), qPrintable(r.errorText()));

        // A real SQLite database that is not msprobe's.
        const QString other = dir.filePath(QStringLiteral("other.vis.db"));
        {
            auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("maker"));
            db.setDatabaseName(other);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("CREATE TABLE t (x INTEGER)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("maker"));
        r = visdb::readVisDb(other);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(QLatin1String("without msprobe's tb_nodes table")), qPrintable(r.errorText()));

        r = visdb::readVisDb(dir.filePath(QStringLiteral("missing.vis.db")));
        QCOMPARE(r.error().kind, ErrorKind::NotFound);
        QVERIFY(visdb::findVisDbFiles(dir.path()).size() == 2);
    }
};

QTEST_GUILESS_MAIN(TestVisDb)
#include "tst_visdb.moc"
