// Graphs beside dumps (issue 18, item 5) in the real main window: GE writes its graph files
// into the training job's working directory, so users open the dump and the graph folder as
// two paths, or add the folder with File -> Add Graph Folder. Either way the Graph tab links
// them by the CLI's rules (`dumpscope-cli graph DUMP GRAPH_DIR` is the oracle) and says how
// many operators are linked; the graph folder does not stay in the dump tree as an empty dump.
#include "documentcontext.h"
#include "graphpanel.h"
#include "graphview.h"
#include "mainwindow.h"
#include "models/dumptreemodel.h"

#include <QDir>
#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

namespace {

bool copyTree(const QString &from, const QString &to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString f = it.next();
        const QString target = to + QLatin1Char('/') + QDir(from).relativeFilePath(f);
        if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(f, target))
            return false;
    }
    return true;
}

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

private:
    QTemporaryDir m_tmp;
    QString m_dump, m_graphs;
    int m_mapped = -1;
};

QTEST_MAIN(TestGraphFolder)
#include "tst_graphfolder.moc"
