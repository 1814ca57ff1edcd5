// The node tree of a .vis.db read on two threads (visdb::VisDbRead::twoThreadsFrom, splitAt):
// the same VisDatabase and the same Graphs as one thread's walk, wherever the split falls.
#include "dumpgraph/visdbgraph.h"
#include "formats/visdb/visdb.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace ds;
using visdb::VisDbRead;

namespace {

const QString kGraphs = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/graph");
constexpr qint64 kNever = std::numeric_limits<qint64>::max();

/// "" when equal, else where they first differ.
QString difference(const visdb::VisDatabase &a, const visdb::VisDatabase &b)
{
    if (a.graphType != b.graphType || a.task != b.task || a.overflowCheck != b.overflowCheck || a.steps != b.steps
        || a.ranks != b.ranks || a.stackCount != b.stackCount || a.rowsDeferred != b.rowsDeferred || a.colors.size() != b.colors.size())
        return QStringLiteral("database fields");
    if (a.graphs.size() != b.graphs.size())
        return QStringLiteral("graph count %1 vs %2").arg(a.graphs.size()).arg(b.graphs.size());
    for (size_t g = 0; g < a.graphs.size(); ++g) {
        const visdb::VisGraph &x = a.graphs[g], &y = b.graphs[g];
        if (x.source != y.source || x.step != y.step || x.rank != y.rank || x.root != y.root || x.dumpDataDir != y.dumpDataDir)
            return QStringLiteral("graph %1 fields").arg(g);
        if (x.nodes.size() != y.nodes.size())
            return QStringLiteral("graph %1: %2 vs %3 nodes").arg(g).arg(x.nodes.size()).arg(y.nodes.size());
        for (size_t n = 0; n < x.nodes.size(); ++n) {
            const visdb::VisNode &p = x.nodes[n], &q = y.nodes[n];
            if (p.name != q.name || p.nodeType != q.nodeType || p.parent != q.parent || p.children != q.children || p.order != q.order
                || p.microStep != q.microStep || p.precisionIndex != q.precisionIndex || p.overflowLevel != q.overflowLevel
                || p.matchedPath != q.matchedPath || p.stackId != q.stackId || p.distributed != q.distributed
                || p.inputData != q.inputData || p.outputData != q.outputData)
                return QStringLiteral("graph %1 node %2 (%3)").arg(g).arg(n).arg(p.name);
        }
    }
    return {};
}

void compareGraphs(const visdb::VisDatabase &one, const visdb::VisDatabase &two)
{
    const std::vector<GraphModel> a = visDbGraphModels(one), b = visDbGraphModels(two);
    QCOMPARE(a.size(), b.size());
    for (size_t m = 0; m < a.size(); ++m) {
        QCOMPARE(a[m].modelName, b[m].modelName);
        QCOMPARE(a[m].graphs.size(), b[m].graphs.size());
        for (size_t g = 0; g < a[m].graphs.size(); ++g) {
            const Graph &x = a[m].graphs[g], &y = b[m].graphs[g];
            QCOMPARE(x.attrs, y.attrs);
            QVERIFY(x.nodes == y.nodes);
            QCOMPARE(x.edges, y.edges);
            QCOMPARE(x.groups, y.groups);
            QCOMPARE(x.topGroups, y.topGroups);
            QCOMPARE(x.topNodes, y.topNodes);
        }
    }
}

} // namespace

class TestVisDbSplit : public QObject
{
    Q_OBJECT
private slots:
    // Every committed database, eager and deferred, split at every row (and past the end).
    void everySplitOfTheCommittedDatabases_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("rowsUpTo");
        const QStringList files = visdb::findVisDbFiles(kGraphs);
        QVERIFY(files.size() >= 3);
        for (const QString &f : files) {
            QTest::addRow("%s eager", qPrintable(QFileInfo(f).fileName())) << f << kNever;
            QTest::addRow("%s deferred", qPrintable(QFileInfo(f).fileName())) << f << qint64(0);
        }
    }
    void everySplitOfTheCommittedDatabases()
    {
        QFETCH(QString, file);
        QFETCH(qint64, rowsUpTo);
        const auto one = visdb::readVisDb(file, nullptr, VisDbRead{rowsUpTo, kNever, -1});
        QVERIFY2(one.ok(), qPrintable(one.errorText()));
        qint64 rows = 0;
        for (const visdb::VisGraph &g : one->graphs)
            rows += qint64(g.nodes.size());
        QVERIFY(rows >= 10);
        for (qint64 split = 0; split <= rows + 1; ++split) {
            const auto two = visdb::readVisDb(file, nullptr, VisDbRead{rowsUpTo, kNever, split});
            QVERIFY2(two.ok(), qPrintable(two.errorText()));
            const QString diff = difference(*two, *one);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("split at %1: %2").arg(split).arg(diff)));
        }
        compareGraphs(*one, *visdb::readVisDb(file, nullptr, VisDbRead{rowsUpTo, kNever, rows / 2}));
        // The default bound splits a table of that size or more: a bound of 1 splits these.
        const auto byBound = visdb::readVisDb(file, nullptr, VisDbRead{rowsUpTo, 1, -1});
        QVERIFY2(byBound.ok(), qPrintable(byBound.errorText()));
        QCOMPARE(difference(*byBound, *one), QString());
    }

    // A 100,101-node bench/gen_vis_db.py database (deferred, as the Graph tab reads a big one),
    // split inside a run of API rows sharing their parent module, and at the default middle.
    void generatedDatabaseSplitInsideARun()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("g100k.vis.db"));
        QProcess gen;
        gen.start(QStringLiteral("python3"), {QStringLiteral(DUMPSCOPE_SOURCE_DIR "/bench/gen_vis_db.py"), QStringLiteral("--layers"),
                                              QStringLiteral("100"), file});
        QVERIFY2(gen.waitForFinished(120000) && gen.exitCode() == 0, gen.readAllStandardError().constData());
        const auto one = visdb::readVisDb(file, nullptr, VisDbRead{0, kNever, -1});
        QVERIFY2(one.ok(), qPrintable(one.errorText()));
        QCOMPARE(one->graphs.size(), size_t(1));
        const std::vector<visdb::VisNode> &nodes = one->graphs[0].nodes;
        QCOMPARE(nodes.size(), size_t(100101));
        qint64 inRun = qint64(nodes.size() / 2) + 7;
        while (nodes[size_t(inRun - 1)].parent != nodes[size_t(inRun)].parent || nodes[size_t(inRun)].parent != nodes[size_t(inRun + 1)].parent)
            ++inRun;
        QVERIFY(!nodes[size_t(inRun)].parent.isEmpty());
        for (const qint64 split : {inRun, qint64(-1)}) {
            const auto two = visdb::readVisDb(file, nullptr, VisDbRead{0, split < 0 ? 1 : kNever, split});
            QVERIFY2(two.ok(), qPrintable(two.errorText()));
            QCOMPARE(difference(*two, *one), QString());
            compareGraphs(*one, *two);
        }
    }
};

QTEST_GUILESS_MAIN(TestVisDbSplit)
#include "tst_visdbsplit.moc"
