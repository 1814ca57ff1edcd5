// A whole run in the workbench (offscreen, real widgets): the run-level answer of every case of
// the real msprobe corpus and of runs assembled from it (tests/core/runcorpus.h; answers from
// samples/msprobe_real/expected.json) in the compare view, the runs overview and the trends;
// the first anomaly of a run in the runs overview; a folder of two runs in the tree.
#include "../core/runcorpus.h"

#include "compareview.h"
#include "index/buildindex.h"
#include "documentcontext.h"
#include "mainwindow.h"
#include "models/comparetablemodel.h"
#include "models/dumptreemodel.h"
#include "overflowpanel.h"
#include "runsetpanel.h"
#include "runspanel.h"
#include "trendspanel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace ds;

namespace {

constexpr int kTimeout = 60000;

/// Opens `path` and waits for its index and its runs.
void open(MainWindow &w, const QString &path)
{
    QSignalSpy runs(w.runsPanel(), &RunsPanel::runsFound);
    w.openPath(path);
    w.context()->waitForIndexing();
    QTRY_VERIFY_WITH_TIMEOUT(runs.count() > 0, kTimeout);
}

QString summaryText(const CompareView *view)
{
    for (const QLabel *l : view->findChildren<QLabel *>())
        if (l->text().startsWith(QLatin1String("Run: ")))
            return l->text();
    return {};
}

} // namespace

class TestRunWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::vector<runcorpus::RunCase> m_cases;

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeTest"));
        QVERIFY(m_tmp.isValid());
        for (runcorpus::RunCase &c : runcorpus::assembledCases(m_tmp.path()))
            m_cases.push_back(std::move(c));
        for (runcorpus::RunCase &c : runcorpus::corpusCases())
            m_cases.push_back(std::move(c));
    }

    void compareAnswer_data()
    {
        QTest::addColumn<int>("which");
        for (size_t i = 0; i < m_cases.size(); ++i)
            if (!m_cases[i].bench.isEmpty())
                QTest::addRow("%s", qPrintable(m_cases[i].name)) << int(i);
    }
    /// Open the NPU run, compare it with the bench run: the compare view, the runs overview, the
    /// status bar and the trends show the designed answer.
    void compareAnswer()
    {
        QFETCH(int, which);
        const runcorpus::RunCase &c = m_cases[size_t(which)];
        MainWindow w;
        w.resize(1400, 860);
        open(w, c.npu);
        QSignalSpy finished(w.compareView(), &CompareView::finished);
        QSignalSpy trend(w.trendsPanel(), &TrendsPanel::tableReady);
        w.compareWith(c.bench);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, kTimeout);
        const RunAnswer *a = w.compareView()->runAnswer();
        QVERIFY(a);
        const QString line = a->line();
        // the same line in the compare view, the runs overview and the status bar
        QCOMPARE(summaryText(w.compareView()).section(QLatin1Char('\n'), 0, 0), QStringLiteral("Run: ") + line);
        QCOMPARE(w.runsPanel()->compareAnswer(), line);
        const auto status = w.statusBar()->findChildren<QLabel *>();
        QVERIFY(std::any_of(status.begin(), status.end(), [&](const QLabel *l) { return l->text() == QStringLiteral("Run: ") + line; }));
        const bool right = a->first && a->first->step == c.answer.step && a->first->at.rankNumber == c.answer.rank
                           && c.answer.ops.contains(a->first->at.finding.op) && a->agreeUpTo == c.answer.agreeUpTo;
        if (!c.knownFailure.isEmpty()) {
            const QByteArray why = c.knownFailure.toUtf8();
            QEXPECT_FAIL("", why.constData(), Abort);
        }
        QVERIFY2(right, qPrintable(line));
        QVERIFY(line.contains(QStringLiteral("first divergence: step %1, rank %2, op %3").arg(c.answer.step).arg(c.answer.rank).arg(a->first->at.finding.op)));
        // the runs overview marks the cell of the first divergence
        RunGridModel *grid = w.runsPanel()->model();
        const QModelIndex cell = grid->indexOf(a->first->at.scope);
        QVERIFY(cell.isValid());
        QCOMPARE(RunGridModel::State(cell.data(RunGridModel::StateRole).toInt()), RunGridModel::State::FirstDivergence);
        QCOMPARE(grid->headerData(cell.row(), Qt::Vertical).toString(), QStringLiteral("step %1").arg(c.answer.step));
        QCOMPARE(grid->headerData(cell.column(), Qt::Horizontal).toString(), QStringLiteral("rank %1").arg(c.answer.rank));
        QVERIFY(cell.data().toString().contains(a->first->at.finding.op));
        // the trends: one column per step, "agrees until step N" marked
        QTRY_VERIFY_WITH_TIMEOUT(trend.count() > 0 && !w.trendsPanel()->isBusy(), kTimeout);
        const TrendTable *t = w.trendsPanel()->table();
        QVERIFY(t && !t->empty());
        QVERIFY(isCompareMetric(t->metric));
        QCOMPARE(t->steps.size(), a->steps.size());
        QVERIFY(t->rows.contains(a->first->at.finding.op));
        QCOMPARE(w.trendsPanel()->agreeMarkText(),
                 c.answer.agreeUpTo ? QStringLiteral("agrees until step %1").arg(*c.answer.agreeUpTo) : QString());
        // the first divergence's operator differs in the trend at its step, and nowhere before
        const int row = int(t->rows.indexOf(a->first->at.finding.op)), step = t->stepIndex(c.answer.step);
        // (by DumpScope's verdict, or by msprobe's Result: a model input whose dtype differs starts a
        // divergence that only the Result marks, docs/COMPARE.md)
        double atOrigin[2] = {0, 0};
        std::vector<double> before[2];
        for (int k = 0; k < 2; ++k) {
            const TrendMetric metric = k == 0 ? TrendMetric::Verdict : TrendMetric::Result;
            w.trendsPanel()->metricCombo()->setCurrentIndex(w.trendsPanel()->metricCombo()->findData(int(metric)));
            emit w.trendsPanel()->metricCombo()->activated(w.trendsPanel()->metricCombo()->currentIndex());
            QTRY_VERIFY_WITH_TIMEOUT(!w.trendsPanel()->isBusy() && w.trendsPanel()->table()->metric == metric, kTimeout);
            t = w.trendsPanel()->table();
            const int r = int(std::find(t->ranks.begin(), t->ranks.end(), c.answer.rank) - t->ranks.begin());
            atOrigin[k] = t->value(row, step, r);
            for (int s = 0; s < step; ++s)
                before[k].push_back(t->maxOverRanks(row, s));
        }
        QVERIFY2(atOrigin[0] >= 1 || atOrigin[1] >= 1, qPrintable(QStringLiteral("verdict %1, Result %2").arg(atOrigin[0]).arg(atOrigin[1])));
        for (int s = 0; s < step; ++s) {
            QCOMPARE(before[0][size_t(s)], 0.0);
            QVERIFY(!(before[1][size_t(s)] >= 1));
        }
    }

    void overflowAnswer_data()
    {
        QTest::addColumn<int>("which");
        for (size_t i = 0; i < m_cases.size(); ++i)
            if (m_cases[i].bench.isEmpty())
                QTest::addRow("%s", qPrintable(m_cases[i].name)) << int(i);
    }
    /// The first anomaly across the steps and ranks of a run, in the runs overview.
    void overflowAnswer()
    {
        QFETCH(int, which);
        const runcorpus::RunCase &c = m_cases[size_t(which)];
        MainWindow w;
        QSignalSpy analysed(w.overflow(), &OverflowPanel::analysisFinished);
        open(w, c.npu);
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() > 0, kTimeout);
        const QString line = w.runsPanel()->overflowAnswer();
        QString want = QStringLiteral("first anomaly: step %1, rank %2, op ").arg(c.answer.step).arg(c.answer.rank);
        const bool right = std::any_of(c.answer.ops.begin(), c.answer.ops.end(), [&](const QString &op) { return line.contains(want + op); })
                           && (!c.answer.agreeUpTo || line.startsWith(QStringLiteral("no anomaly up to step %1;").arg(*c.answer.agreeUpTo)));
        if (!c.knownFailure.isEmpty()) {
            const QByteArray why = c.knownFailure.toUtf8();
            QEXPECT_FAIL("", why.constData(), Abort);
        }
        QVERIFY2(right, qPrintable(line));
        bool marked = false;
        RunGridModel *grid = w.runsPanel()->model();
        for (int r = 0; r < grid->rowCount(); ++r)
            for (int k = 0; k < grid->columnCount(); ++k)
                if (grid->index(r, k).data(RunGridModel::OverflowRole).toInt() == 2) {
                    marked = true;
                    QCOMPARE(grid->headerData(r, Qt::Vertical).toString(), QStringLiteral("step %1").arg(c.answer.step));
                    QCOMPARE(grid->headerData(k, Qt::Horizontal).toString(), QStringLiteral("rank %1").arg(c.answer.rank));
                }
        QVERIFY(marked);
    }

    /// A folder holding two runs: each under its own tree node, the overview per run, a run of
    /// it compared alone, and a double-clicked cell showing its scope in the tree.
    void folderOfRuns()
    {
        QTemporaryDir tmp;
        const QString experiments = runcorpus::assembleExperiments(tmp.path());
        MainWindow w;
        w.resize(1400, 860);
        QAbstractItemModelTester tester(w.runsPanel()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy probed(w.runsPanel(), &RunsPanel::probed);
        open(w, experiments);
        DumpTreeModel *model = w.context()->treeModel();
        const QModelIndex root = model->index(0, 0);
        QCOMPARE(model->rowCount(root), 2);
        QModelIndex npuRun;
        for (int r = 0; r < 2; ++r) {
            const QModelIndex run = model->index(r, 0, root);
            QCOMPARE(DumpTreeModel::Kind(run.data(DumpTreeModel::KindRole).toInt()), DumpTreeModel::Kind::Run);
            if (run.data().toString() == QLatin1String("npu_bf16"))
                npuRun = run;
        }
        QVERIFY(npuRun.isValid());
        QCOMPARE(w.runsPanel()->runChooser()->count(), 2);
        // the overview follows the tree's run
        w.tree()->setCurrentIndex(model->index(0, 0, npuRun));
        QCOMPARE(w.runsPanel()->runPath(), QStringLiteral("npu_bf16"));
        QTRY_VERIFY_WITH_TIMEOUT(probed.count() > 0, kTimeout);
        RunGridModel *grid = w.runsPanel()->model();
        QCOMPARE(grid->rowCount(), 2);
        QCOMPARE(grid->columnCount(), 2);
        const QModelIndex cell = grid->indexOf(QStringLiteral("step1/rank1"));
        QVERIFY(cell.data(RunGridModel::BytesRole).toULongLong() > 0);
        // the operators per scope are counted on a worker once the index is there
        QTRY_VERIFY_WITH_TIMEOUT(cell.data().toString().contains(QStringLiteral("31 op")), kTimeout);
        QVERIFY(cell.data().toString().contains(QStringLiteral("statistics")));
        // compare that run alone with the folder's other run
        QSignalSpy finished(w.compareView(), &CompareView::finished);
        w.compareWith(experiments + QStringLiteral("/bench"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, kTimeout);
        auto alone = buildIndex(experiments + QStringLiteral("/npu_bf16"));
        QVERIFY(alone);
        QCOMPARE(w.compareView()->npuIndex()->ops.size(), (*alone)->ops.size());
        QCOMPARE(w.compareView()->model()->result()->rows.size(), [&] {
            size_t n = 0;
            for (const OpRecord &op : (*alone)->ops)
                for (const TensorRecord &t : op.tensors)
                    n += t.io() != IoKind::Buffer && t.io() != IoKind::Workspace;
            return n;
        }());
        QVERIFY(w.compareView()->runAnswer());
        QCOMPARE(w.runsPanel()->runPath(), QStringLiteral("npu_bf16"));
        QVERIFY(!w.runsPanel()->compareAnswer().isEmpty());
        // double-clicking a cell shows its scope in the tree
        emit w.runsPanel()->grid()->activated(cell);
        const QModelIndex current = w.tree()->currentIndex();
        QCOMPARE(current.data().toString(), QStringLiteral("rank1"));
        QCOMPARE(current.parent().data().toString(), QStringLiteral("step1"));
        QCOMPARE(current.parent().parent(), npuRun);
    }

    /// Issue 34 item 2: the runs x operators agreement is "shown as a matrix in Trends". The
    /// matrix lives on the Run Set tab; once a run set is compared, Trends names it (its runs
    /// and rows, from the run set's own result) with a link that opens that tab. Without a run
    /// set there is no such line.
    void trendsLinksToRunSetMatrix()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QLabel *link = w.trendsPanel()->findChild<QLabel *>(QStringLiteral("trendsRunSetLink"));
        QVERIFY(link);
        QVERIFY(!link->isVisibleTo(w.trendsPanel()));
        w.runSetPanel()->compareRunsIn(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_multirun/dumps/md5"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.runSetPanel()->isBusy() && w.runSetPanel()->result(), 60000);
        const RunSetResult &r = *w.runSetPanel()->result();
        QVERIFY(r.paths.size() >= 3);
        QTRY_VERIFY(link->isVisibleTo(w.trendsPanel()));
        QVERIFY2(link->text().contains(QStringLiteral("(%1 run").arg(r.paths.size())) && link->text().contains(QStringLiteral(", %1 row").arg(r.rows.size())),
                 qPrintable(link->text()));
        w.centralTabs()->setCurrentWidget(w.trendsPanel());
        if (const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS"); !dir.isEmpty())
            w.grab().save(dir + QStringLiteral("/trends_runset_link.png"));
        emit link->linkActivated(QStringLiteral("runset"));
        QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget *>(w.runSetPanel()));
    }
};

QTEST_MAIN(TestRunWindow)
#include "tst_runwindow.moc"
