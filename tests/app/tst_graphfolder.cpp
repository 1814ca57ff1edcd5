// Graphs beside dumps (issue 18, item 5) in the real main window: GE writes its graph files
// into the training job's working directory, so users open the dump and the graph folder as
// two paths, or add the folder with File -> Add Graph Folder. Either way the Graph tab links
// them by the CLI's rules (`dumpscope-cli graph DUMP GRAPH_DIR` is the oracle) and says how
// many operators are linked; the graph folder does not stay in the dump tree as an empty dump.
#include "documentcontext.h"
#include "dumpgraph/visdbgraph.h"
#include "graphpanel.h"
#include "graphview.h"
#include "mainwindow.h"
#include "models/dumptreemodel.h"
#include "../core/copytree.h"

#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;
using ds::testing::copyTree;

namespace {

int cliMappedOps(const QString &dump, const QString &graphs)
{
    QProcess cli;
    cli.start(QStringLiteral(DUMPSCOPE_CLI), {QStringLiteral("graph"), dump, graphs, QStringLiteral("--json")});
    if (!cli.waitForFinished(60000))
        return -1;
    return QJsonDocument::fromJson(cli.readAllStandardOutput()).object()[QStringLiteral("dump")][QStringLiteral("mapped_ops")].toInt(-1);
}

} // namespace

class TestGraphFolder : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeTest"));
        QVERIFY(m_tmp.isValid());
        m_dump = m_tmp.filePath(QStringLiteral("run/dump"));
        m_graphs = m_tmp.filePath(QStringLiteral("workdir/graphs"));
        QVERIFY(copyTree(QStringLiteral(DUMPSCOPE_SAMPLES "/graph/dump"), m_dump));
        QVERIFY(copyTree(QStringLiteral(DUMPSCOPE_SAMPLES "/graph/dump_graph"), m_graphs));
        m_mapped = cliMappedOps(m_dump, m_graphs);
        QVERIFY(m_mapped > 0);
    }

    void openedAsTwoPaths_data()
    {
        QTest::addColumn<bool>("graphsFirst");
        QTest::addRow("dump, then graph folder") << false;
        QTest::addRow("graph folder, then dump") << true;
    }
    void openedAsTwoPaths()
    {
        QFETCH(bool, graphsFirst);
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        for (const QString &path : graphsFirst ? QStringList{m_graphs, m_dump} : QStringList{m_dump, m_graphs})
            w.openPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(!w.context()->isIndexing(), 20000);
        // The graph folder is no dump: only the dump stays in the tree.
        QTRY_COMPARE_WITH_TIMEOUT(w.context()->treeModel()->dumpCount(), 1, 10000);
        QCOMPARE(w.context()->index(0)->openedPath, QFileInfo(m_dump).absoluteFilePath());
        QTRY_VERIFY_WITH_TIMEOUT(w.graph()->view()->graph() && w.graph()->linkedOps() == m_mapped, 20000);
        QCOMPARE(w.centralTabs()->currentWidget(), w.graph());
        const QString links = w.graph()->linkLabel()->text();
        QVERIFY2(links.contains(QStringLiteral("Linked: %1 of %2").arg(m_mapped).arg(w.context()->index(0)->ops.size())), qPrintable(links));
        QVERIFY(w.graph()->graphPaths().contains(QFileInfo(m_graphs).absoluteFilePath()));
    }

    /// A job's working directory: graph files among other files. Indexed (nothing found), then
    /// recognised as holding graphs: linked too, and no empty dump stays in the tree.
    void workingDirectory()
    {
        QTemporaryDir work;
        QVERIFY(copyTree(m_graphs, work.path()));
        QFile log(work.filePath(QStringLiteral("train.log")));
        QVERIFY(log.open(QIODevice::WriteOnly) && log.write("epoch 1\n") > 0);
        log.close();
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openPath(m_dump);
        QTRY_VERIFY_WITH_TIMEOUT(!w.context()->isIndexing() && w.graph()->dump() == 0, 20000);
        w.openPath(work.path());
        QTRY_VERIFY_WITH_TIMEOUT(w.graph()->view()->graph() && w.graph()->linkedOps() == m_mapped, 20000);
        QTRY_COMPARE(w.context()->treeModel()->dumpCount(), 1);
    }

    /// File -> Add Graph Folder, with the dump open.
    void addGraphFolder()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openPath(m_dump);
        QTRY_VERIFY_WITH_TIMEOUT(!w.context()->isIndexing() && w.graph()->dump() == 0, 20000);
        QTRY_VERIFY(w.graph()->statusLabel()->text().contains(QStringLiteral("No GE graph files")));
        QCOMPARE(w.graph()->linkedOps(), 0);
        w.addGraphFolder(m_graphs);
        QTRY_VERIFY_WITH_TIMEOUT(w.graph()->view()->graph() && w.graph()->linkedOps() == m_mapped, 20000);
        QCOMPARE(w.context()->treeModel()->dumpCount(), 1);
    }

    /// msprobe's graph databases (.vis.db, samples/msprobe_real: written by the real msprobe
    /// 26.0.0): a folder holding one opens in the Graph tab, one graph per side, step and rank,
    /// coloured by the levels msprobe stored (expected.json "graphs", read by Python's sqlite3),
    /// starting at the first critical node.
    void msprobeGraphDatabase()
    {
        const QString folder = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/graph/build_overflow_statistics_mix");
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        w.openPath(folder);
        QTRY_VERIFY_WITH_TIMEOUT(w.graph()->view()->graph() && shown.count() > 0, 20000);
        QCOMPARE(w.context()->treeModel()->dumpCount(), 0); // a graph folder, not a dump
        QComboBox *selector = w.graph()->graphSelector();
        QCOMPARE(selector->count(), 4); // NPU x steps 0, 1 x ranks 0, 1
        const int step1rank1 = selector->findText(QStringLiteral("NPU step1 rank1"), Qt::MatchContains);
        QVERIFY(step1rank1 >= 0);
        const qsizetype before = shown.count();
        selector->setCurrentIndex(step1rank1);
        emit selector->activated(step1rank1); // what a user's pick sends
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > before, 20000);
        QCOMPARE(w.graph()->shownModel(), selector->itemData(step1rank1).toInt());
        const Graph *g = w.graph()->view()->graph();
        // The oracle: every node msprobe marked, with its level; none other coloured.
        QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray marked = QJsonDocument::fromJson(f.readAll())
                                      .object()[QStringLiteral("graphs")][QStringLiteral("build_overflow_statistics_mix")]
                                      [QStringLiteral("overflow_nodes")].toArray();
        const QStringList levels{QString(), QStringLiteral("medium"), QStringLiteral("high"), QStringLiteral("critical")};
        int checked = 0, coloured = 0;
        for (size_t n = 0; n < g->nodes.size(); ++n) {
            const QString name = g->nodes[n].attr(QStringLiteral("vis_node"))->value;
            QString want;
            for (const QJsonValue &v : marked) {
                const QJsonObject o = v.toObject();
                if (o[QStringLiteral("step")].toInt() == 1 && o[QStringLiteral("rank")].toInt() == 1 && o[QStringLiteral("node")].toString() == name)
                    want = o[QStringLiteral("level")].toString();
            }
            const int level = w.graph()->view()->nodeLevel(NodeId{int(n)});
            QCOMPARE(levels.value(level), want);
            coloured += level > 0;
            ++checked;
        }
        QVERIFY(checked >= 15);
        QVERIFY(coloured >= 5);
        // It starts where the overflow was produced.
        QTRY_COMPARE_WITH_TIMEOUT(w.graph()->statusLabel()->isVisible(), true, 5000);
        const NodeId start = visDbStartNode(*g);
        QVERIFY(start.isValid());
        QCOMPARE(g->node(start).attr(QStringLiteral("vis_node"))->value, QStringLiteral("Torch.exp.0.forward"));
        // Nothing written beside the database.
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

private:
    QTemporaryDir m_tmp;
    QString m_dump, m_graphs;
    int m_mapped = -1;
};

QTEST_MAIN(TestGraphFolder)
#include "tst_graphfolder.moc"
