// A run opened scope by scope in the workbench (issue 35, item 3; DocumentContext's threshold
// set to 1 so that the small runs of the real msprobe corpus open that way): the Runs overview
// takes the document's walk; Compare runs the CLI's run compare pair by pair on a worker and
// its answer and per-scope verdicts equal `dumpscope-cli compare --json`'s; closing a dump or
// opening another while it compares leaves no stale answer.
#include "../core/runcorpus.h"

#include "documentcontext.h"
#include "mainwindow.h"
#include "graphpanel.h"
#include "optablepanel.h"
#include "dump/dumpindex.h"
#include "models/dumptreemodel.h"
#include "models/optablemodel.h"
#include "models/rungridmodel.h"
#include "runspanel.h"
#include "trendspanel.h"

#include "run/trend.h"

#include <QComboBox>
#include <QTableView>
#include <QTreeView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace ds;

namespace {

constexpr int kTimeout = 60000;

/// Opens `path` scope by scope and waits for its runs; returns its dump number.
int openScopeByScope(MainWindow &w, const QString &path)
{
    w.context()->setScopeByScopeAbove(1);
    QSignalSpy runs(w.runsPanel(), &RunsPanel::runsFound);
    w.openPath(path);
    w.context()->waitForIndexing();
    if (!QTest::qWaitFor([&] { return runs.count() > 0; }, kTimeout))
        return -1;
    return runs.last().at(0).toInt();
}

/// The `run` object of `dumpscope-cli compare --json NPU BENCH`, per-scope `comm_ops` left out
/// (the grid keeps no communication ops; the answer's clock is compared in full).
QJsonObject cliRun(const QString &npu, const QString &bench)
{
    QProcess cli;
    cli.start(QStringLiteral(DUMPSCOPE_CLI), {QStringLiteral("compare"), QStringLiteral("--json"), npu, bench});
    if (!cli.waitForFinished(120000))
        return {};
    return QJsonDocument::fromJson(cli.readAllStandardOutput()).object().value(QStringLiteral("run")).toObject();
}

QJsonObject withoutCommCounts(QJsonObject run)
{
    QJsonArray scopes = run.value(QStringLiteral("scopes")).toArray();
    for (qsizetype i = 0; i < scopes.size(); ++i) {
        QJsonObject s = scopes[i].toObject();
        s.remove(QStringLiteral("comm_ops"));
        scopes[i] = s;
    }
    run.insert(QStringLiteral("scopes"), scopes);
    return run;
}

bool compareDone(const QSignalSpy &spy)
{
    return std::any_of(spy.begin(), spy.end(), [](const QList<QVariant> &args) { return args.at(4).toBool(); });
}

} // namespace

class TestScopesCompare : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::vector<runcorpus::RunCase> m_cases, m_overflowCases;

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeTest"));
        QVERIFY(m_tmp.isValid());
        for (runcorpus::RunCase &c : runcorpus::assembledCases(m_tmp.path()))
            (c.bench.isEmpty() ? m_overflowCases : m_cases).push_back(std::move(c));
        for (runcorpus::RunCase &c : runcorpus::corpusCases())
            (c.bench.isEmpty() ? m_overflowCases : m_cases).push_back(std::move(c));
        QVERIFY(!m_overflowCases.empty());
        QVERIFY(m_cases.size() >= 4);
    }

    /// The Runs overview shows the runs of the document's own walk: the folder is walked once.
    void walkedOnce()
    {
        MainWindow w;
        const int dump = openScopeByScope(w, m_cases.front().npu);
        QVERIFY(dump >= 0);
        QVERIFY(w.context()->isScopeByScope(dump));
        QVERIFY(w.context()->scopeByScopeRuns(dump));
        QCOMPARE(w.runsPanel()->runs(dump).get(), w.context()->scopeByScopeRuns(dump).get());
    }

    /// Trends of a run opened scope by scope: one rank read, chosen in "Read rank" (the lowest
    /// at first); another choice reads that rank's scopes, the title and the table say which.
    void trendsRankChooser()
    {
        const auto c = std::find_if(m_cases.begin(), m_cases.end(), [](const runcorpus::RunCase &rc) { return rc.name == QLatin1String("four_ranks"); });
        QVERIFY(c != m_cases.end());
        MainWindow w;
        w.resize(1280, 800);
        TrendsPanel *trends = w.trendsPanel();
        QSignalSpy ready(trends, &TrendsPanel::tableReady);
        const int dump = openScopeByScope(w, c->npu);
        QVERIFY(dump >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() && !trends->isBusy() && trends->table(), kTimeout);
        QComboBox *ranks = trends->readRankCombo();
        QVERIFY(ranks->isVisibleTo(trends));
        QCOMPARE(ranks->count(), 4);
        QCOMPARE(ranks->currentData().toLongLong(), 0);
        QCOMPARE(trends->table()->rankLabels, QStringList{QStringLiteral("rank0")});
        const qsizetype steps = trends->table()->steps.size();
        QCOMPARE(steps, qsizetype(2));
        ready.clear();
        ranks->setCurrentIndex(2);
        emit ranks->activated(2);
        QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() && !trends->isBusy(), kTimeout);
        QCOMPARE(trends->table()->rankLabels, QStringList{QStringLiteral("rank2")});
        QCOMPARE(qsizetype(trends->table()->steps.size()), steps);
        const auto labels = trends->findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel *l) { return l->text().contains(QLatin1String("(rank2: 2 of 8 scopes read")); }));
    }

    void overflowEqualsCli_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<unsigned>("lanes"); // RunsPanel::setScanLanes: 0 = a lane per core (at least 2)
        for (size_t i = 0; i < m_overflowCases.size(); ++i) {
            QTest::addRow("%s", qPrintable(m_overflowCases[i].name)) << int(i) << 0u;
            if (i < 2) { // the answer does not depend on the lanes, nor on which finishes first
                QTest::addRow("%s, one lane", qPrintable(m_overflowCases[i].name)) << int(i) << 1u;
                QTest::addRow("%s, 3 lanes", qPrintable(m_overflowCases[i].name)) << int(i) << 3u;
            }
        }
    }
    /// The overflow of a run opened scope by scope (Go to First Overflow scans it scope by
    /// scope): the same `run` answer and per-scope anomalies as `dumpscope-cli overflow --json`,
    /// the designed first anomaly in the Runs overview's Overflow line and the status bar.
    void overflowEqualsCli()
    {
        QFETCH(int, which);
        QFETCH(unsigned, lanes);
        const runcorpus::RunCase &c = m_overflowCases[size_t(which)];
        MainWindow w;
        w.runsPanel()->setScanLanes(lanes);
        const int dump = openScopeByScope(w, c.npu);
        QVERIFY(dump >= 0);
        QVERIFY(w.context()->isScopeByScope(dump));
        QSignalSpy scanned(w.runsPanel(), &RunsPanel::scanUpdated);
        QVERIFY(!w.goToFirstOverflow());
        QVERIFY(w.runsPanel()->isScanning());
        QTRY_VERIFY_WITH_TIMEOUT(!scanned.isEmpty() && scanned.last().at(3).toBool(), kTimeout);
        QCOMPARE(scanned.last().at(5).toString(), QString());
        const QJsonObject gui = QJsonDocument::fromJson(w.runsPanel()->overflowRunJson(dump, w.runsPanel()->runPath())).object();
        QProcess cli;
        cli.start(QStringLiteral(DUMPSCOPE_CLI), {QStringLiteral("overflow"), QStringLiteral("--json"), c.npu});
        QVERIFY(cli.waitForFinished(120000));
        const QJsonObject doc = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        const QJsonObject run = doc.value(QStringLiteral("run")).toObject();
        QVERIFY(!run.isEmpty());
        QVERIFY(!gui.isEmpty());
        // A rank's steps are scanned together, as the CLI splits a run: the reasons say in which
        // earlier step a value that arrives abnormal was written or last normal, word for word.
        QCOMPARE(QJsonDocument(withoutCommCounts(gui)).toJson(), QJsonDocument(withoutCommCounts(run)).toJson());
        const QString line = w.runsPanel()->overflowAnswer();
        QVERIFY2(line.contains(QStringLiteral("first anomaly: step %1, rank %2, op ").arg(c.answer.step).arg(c.answer.rank)), qPrintable(line));
        const QString first = doc.value(QStringLiteral("first")).toObject().value(QStringLiteral("op")).toString();
        const auto status = w.statusBar()->findChildren<QLabel *>();
        QVERIFY(std::any_of(status.begin(), status.end(), [&](const QLabel *l) { return l->text().startsWith(QLatin1String("First overflow: ")) && l->text().contains(first); }));
    }

    /// The operator table and the Graph tab of a run opened scope by scope: a level above
    /// several scopes says why they are empty and what to do; selecting an unread scope reads
    /// it, and then the table lists exactly the operators the whole index lists for that scope
    /// (the oracle: the same folder opened with the whole index), the graph is that scope's,
    /// and a row of the table selects its operator in the dump tree.
    void scopeTableAndGraph()
    {
        const auto c = std::find_if(m_cases.begin(), m_cases.end(), [](const runcorpus::RunCase &rc) { return rc.name == QLatin1String("four_ranks"); });
        QVERIFY(c != m_cases.end());
        MainWindow w;
        w.resize(1280, 800);
        const int dump = openScopeByScope(w, c->npu);
        QVERIFY(dump >= 0);
        // the status bar says what is read, fits a 1280-px window, and names no unreadable files when there are none
        const auto labels = w.statusBar()->findChildren<QLabel *>();
        const auto said = std::find_if(labels.begin(), labels.end(), [](const QLabel *l) { return l->text().startsWith(QLatin1String("Opened scope by scope: ")); });
        QVERIFY(said != labels.end());
        QVERIFY2(!(*said)->text().contains(QLatin1String("unreadable")), qPrintable((*said)->text()));
        QVERIFY2((*said)->sizeHint().width() < w.width() - 200, qPrintable((*said)->text()));
        DumpTreeModel *model = w.context()->treeModel();
        const QModelIndex top = model->dumpItem(dump);
        QVERIFY(top.isValid());
        // the first unread scope, and the labels leading to it
        QModelIndex scope;
        QStringList path;
        std::function<bool(const QModelIndex &)> find = [&](const QModelIndex &parent) {
            for (int r = 0; r < model->rowCount(parent); ++r) {
                const QModelIndex i = model->index(r, 0, parent);
                path << i.data().toString();
                if (model->isUnreadScope(i) || find(i)) {
                    if (!scope.isValid())
                        scope = i;
                    return true;
                }
                path.removeLast();
            }
            return false;
        };
        // a level above the scopes, one of them read (the first unread one, read as expanding it
        // does): nothing listed, and the reason (not that scope's operators as the level's)
        QVERIFY(find(top));
        model->requestScope(scope); // false when the window reads it already (the tree expands its first path)
        QTRY_VERIFY_WITH_TIMEOUT(!model->isUnreadScope(scope), kTimeout);
        QVERIFY(model->scopesUnder(top).first > 1 && model->scopesUnder(top).second >= 1);
        w.tree()->setCurrentIndex(top);
        QVERIFY2(w.opTable()->note().contains(QLatin1String("select a scope")), qPrintable(w.opTable()->note()));
        QCOMPARE(w.opTable()->model()->rowCount(), 0);
        QVERIFY(w.graph()->statusLabel()->text().contains(QLatin1String("select a scope")));
        scope = {};
        path.clear();
        QVERIFY(find(top));
        QVERIFY(model->isUnreadScope(scope));
        w.tree()->setCurrentIndex(scope); // selecting it reads it
        QVERIFY2(w.opTable()->note().startsWith(QLatin1String("Reading")), qPrintable(w.opTable()->note()));
        QTRY_VERIFY_WITH_TIMEOUT(!model->isUnreadScope(scope) && w.opTable()->note().isEmpty(), kTimeout);
        const auto tableNames = [](const OpTablePanel *t) {
            QStringList names;
            for (int r = 0; r < t->model()->rowCount(); ++r)
                names << t->model()->index(r, OpTableModel::Name).data().toString();
            return names;
        };
        const QStringList names = tableNames(w.opTable());
        QVERIFY(!names.isEmpty());
        // the oracle: the same scope of the whole index
        MainWindow whole;
        whole.context()->setScopeByScopeAbove(0);
        whole.openPath(c->npu);
        whole.context()->waitForIndexing();
        QTRY_VERIFY_WITH_TIMEOUT(whole.context()->index(0) || !whole.context()->treeModel()->dumpIds().isEmpty(), kTimeout);
        const int wholeDump = whole.context()->treeModel()->dumpIds().value(0, -1);
        QTRY_VERIFY_WITH_TIMEOUT(whole.context()->index(wholeDump), kTimeout);
        QVERIFY(!whole.context()->isScopeByScope(wholeDump));
        QModelIndex same = whole.context()->treeModel()->dumpItem(wholeDump);
        for (const QString &label : std::as_const(path)) {
            QModelIndex next;
            for (int r = 0; r < whole.context()->treeModel()->rowCount(same) && !next.isValid(); ++r)
                if (whole.context()->treeModel()->index(r, 0, same).data().toString() == label)
                    next = whole.context()->treeModel()->index(r, 0, same);
            QVERIFY2(next.isValid(), qPrintable(label));
            same = next;
        }
        whole.tree()->setCurrentIndex(same);
        QTRY_VERIFY_WITH_TIMEOUT(whole.opTable()->model()->rowCount() > 0, kTimeout);
        QCOMPARE(names, tableNames(whole.opTable()));
        // the graph is that scope's (its own index), not a note
        QCOMPARE(w.graph()->dump(), dump);
        QVERIFY(w.graph()->loadedIndex());
        QCOMPARE(w.graph()->loadedIndex().get(), w.opTable()->model()->dumpIndex().get());
        QVERIFY(!w.graph()->statusLabel()->text().contains(QLatin1String("select a scope")));
        // a row of the table selects its operator in the tree
        const int row = int(names.size()) - 1;
        w.opTable()->view()->setCurrentIndex(w.opTable()->model()->index(row, 0));
        const int op = w.opTable()->model()->index(row, 0).data(OpTableModel::OpRole).toInt();
        QCOMPARE(w.tree()->currentIndex().siblingAtColumn(0).data(DumpTreeModel::OpPathRole).toString(),
                 w.opTable()->model()->dumpIndex()->ops[size_t(op)].relPath.toString());
    }

    void compareEqualsCli_data()
    {
        QTest::addColumn<int>("which");
        for (size_t i = 0; i < m_cases.size(); ++i)
            QTest::addRow("%s", qPrintable(m_cases[i].name)) << int(i);
    }
    /// Compare of a run opened scope by scope: the same `run` answer and per-scope verdicts as
    /// the CLI's run compare of the same pair, the designed first divergence, the grid's cell.
    void compareEqualsCli()
    {
        QFETCH(int, which);
        const runcorpus::RunCase &c = m_cases[size_t(which)];
        MainWindow w;
        w.resize(1280, 800);
        const int dump = openScopeByScope(w, c.npu);
        QVERIFY(dump >= 0);
        QVERIFY(w.context()->isScopeByScope(dump));
        QVERIFY(!w.context()->index(dump));
        QSignalSpy updated(w.runsPanel(), &RunsPanel::compareUpdated);
        w.compareWith(c.bench);
        QVERIFY(w.runsPanel()->isComparing() || compareDone(updated));
        QTRY_VERIFY_WITH_TIMEOUT(compareDone(updated), kTimeout);
        QCOMPARE(updated.last().at(5).toString(), QString()); // no error
        const QString runPath = w.runsPanel()->runPath();
        const QJsonObject gui = QJsonDocument::fromJson(w.runsPanel()->compareRunJson(dump, runPath)).object();
        const QJsonObject cli = cliRun(c.npu, c.bench);
        QVERIFY(!cli.isEmpty());
        QVERIFY(!gui.isEmpty());
        QCOMPARE(QJsonDocument(withoutCommCounts(gui)).toJson(), QJsonDocument(withoutCommCounts(cli)).toJson());
        // the designed answer (expected.json), in the overview, the status bar and the grid
        const QString line = w.runsPanel()->compareAnswer();
        QVERIFY(line.contains(QStringLiteral("first divergence: step %1, rank %2, op ").arg(c.answer.step).arg(c.answer.rank)));
        const auto status = w.statusBar()->findChildren<QLabel *>();
        QVERIFY(std::any_of(status.begin(), status.end(), [&](const QLabel *l) { return l->text() == QStringLiteral("Run: ") + line; }));
        const QString firstScope = cli.value(QStringLiteral("first_divergence")).toObject().value(QStringLiteral("scope")).toString();
        const QModelIndex cell = w.runsPanel()->model()->indexOf(firstScope);
        QVERIFY(cell.isValid());
        QCOMPARE(RunGridModel::State(cell.data(RunGridModel::StateRole).toInt()), RunGridModel::State::FirstDivergence);
    }

    /// Another dump opened and the compared one closed while the compare runs: no crash, the
    /// compare stops, nothing of it reaches the panels afterwards; then the other dump compares.
    void closeWhileComparing()
    {
        const runcorpus::RunCase &a = m_cases.front();
        const runcorpus::RunCase &b = m_cases.back();
        MainWindow w;
        const int first = openScopeByScope(w, a.npu);
        QVERIFY(first >= 0);
        QSignalSpy updated(w.runsPanel(), &RunsPanel::compareUpdated);
        QSignalSpy runs(w.runsPanel(), &RunsPanel::runsFound);
        w.compareWith(a.bench);
        QVERIFY(w.runsPanel()->isComparing());
        // no event delivered in between: the compare's updates are still queued or to come
        w.openPath(b.npu); // a second dump opened while the first compares
        QCOMPARE(updated.count(), 0);
        w.closeDump(first);
        QVERIFY(!w.runsPanel()->isComparing());
        w.context()->waitForIndexing();
        QTRY_VERIFY_WITH_TIMEOUT(runs.count() > 0, kTimeout);
        const int second = runs.last().at(0).toInt();
        QVERIFY(second != first);
        QTest::qWait(500);
        QCOMPARE(updated.count(), 0); // nothing of the closed dump's compare arrives
        QVERIFY(!w.runsPanel()->runs(first));
        QVERIFY(w.runsPanel()->compareRunJson(first, QString()).isEmpty());
        // the other dump is shown and compares as if alone
        QTRY_COMPARE_WITH_TIMEOUT(w.runsPanel()->dump(), second, kTimeout);
        QVERIFY(w.runsPanel()->compareAnswer().isEmpty());
        w.compareWith(b.bench);
        QTRY_VERIFY_WITH_TIMEOUT(compareDone(updated), kTimeout);
        QCOMPARE(updated.last().at(0).toInt(), second);
        const QJsonObject gui = QJsonDocument::fromJson(w.runsPanel()->compareRunJson(second, w.runsPanel()->runPath())).object();
        QCOMPARE(QJsonDocument(withoutCommCounts(gui)).toJson(), QJsonDocument(withoutCommCounts(cliRun(b.npu, b.bench))).toJson());
        // closing the window while a compare runs: the destructor stops and waits for it
        w.compareWith(b.bench);
    }
};

QTEST_MAIN(TestScopesCompare)
#include "tst_scopescompare.moc"
