// From msprobe's answer to the dump (issue 33, item 5): double-clicking a rank on the msprobe
// Answer tab selects msprobe's op of that step and rank in the open dump, the one overflow_check
// read (samples/msprobe_real: overflow_statistics_mix step 1, msprobe's rank_1 Torch.exp.0.forward);
// with no such dump open the status bar says how to get it. A monitor anomaly selects the module
// entry of its step and rank (forward for activations, backward for gradients).
#include "documentcontext.h"
#include "monitor/monitor.h"
#include "mainwindow.h"
#include "msprobeanswerpanel.h"

#include <QLabel>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace ds;

namespace {

const QString kReal = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");
const QString kAnswer = kReal + QStringLiteral("/overflow_check/overflow_statistics_mix/step1/anomaly_analyze_1795533675421375096.json");

MsprobeAnswerPanel *openAnswer(MainWindow &w)
{
    w.openPath(kAnswer);
    auto *panel = w.findChild<MsprobeAnswerPanel *>(QStringLiteral("msprobeAnswerPanel"));
    for (int i = 0; panel && !panel->isReady() && i < 3000; ++i)
        QTest::qWait(10);
    return panel && panel->isReady() ? panel : nullptr;
}

/// The tree item's text and its ancestors', innermost first.
QStringList path(const QModelIndex &i)
{
    QStringList out;
    for (QModelIndex p = i; p.isValid(); p = p.parent())
        out << p.data().toString();
    return out;
}

} // namespace

class TestAnswerLink : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void selectsTheOpOfTheRank()
    {
        MainWindow w;
        w.show();
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(kReal + QStringLiteral("/dumps/overflow_statistics_mix/step1"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        MsprobeAnswerPanel *panel = openAnswer(w);
        QVERIFY(panel);
        QCOMPARE(panel->model()->index(0, MsprobeAnswerPanel::RankColumn).data().toString(), QStringLiteral("rank_1"));
        emit panel->view()->activated(panel->model()->index(0, 0));
        const QStringList selected = path(w.tree()->currentIndex());
        QVERIFY2(!selected.isEmpty() && selected.front().contains(u"Torch.exp.0.forward"), qPrintable(selected.join(" < ")));
        QVERIFY2(selected.filter(QStringLiteral("rank1")).size() == 1 && selected.filter(QStringLiteral("rank0")).isEmpty(), qPrintable(selected.join(" < ")));
        // rank_0: msprobe names none, DumpScope's own first anomaly is selected on rank 0
        emit panel->view()->activated(panel->model()->index(1, 0));
        const QStringList rank0 = path(w.tree()->currentIndex());
        QVERIFY2(!rank0.isEmpty() && rank0.front().contains(panel->model()->index(1, MsprobeAnswerPanel::DumpScopeColumn).data().toString()),
                 qPrintable(rank0.join(" < ")));
        QVERIFY2(rank0.filter(QStringLiteral("rank0")).size() == 1, qPrintable(rank0.join(" < ")));
    }

    void monitorAnomalySelectsItsModule_data()
    {
        QTest::addColumn<QString>("tag");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("want"); // the dump.json entry (empty: none)
        QTest::newRow("activation") << "0:fc1.output:0/rank1/actv" << 1 << "Module.fc1.Linear.forward.0";
        QTest::newRow("gradient") << "0:fc2.weight/rank1/post_grad" << 1 << "Module.fc2.Linear.backward.0";
        QTest::newRow("rank 0") << "0:ln.input:0/rank0/actv" << 0 << "Module.ln.LayerNorm.forward.0";
        QTest::newRow("no such rank") << "0:fc1.output:0/rank5/actv" << 5 << "";
        QTest::newRow("no such module") << "0:fc9.output:0/rank1/actv" << 1 << "";
    }
    void monitorAnomalySelectsItsModule()
    {
        QFETCH(QString, tag);
        QFETCH(int, rank);
        QFETCH(QString, want);
        MainWindow w;
        w.show();
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(kReal + QStringLiteral("/dumps/base_statistics_mix"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        monitor::Anomaly a;
        a.rank = rank;
        a.step = 1;
        a.tagName = tag;
        QCOMPARE(w.selectMonitorAnomaly(a), !want.isEmpty());
        if (want.isEmpty())
            return;
        const QStringList selected = path(w.tree()->currentIndex());
        QVERIFY2(!selected.isEmpty() && selected.front().contains(want), qPrintable(selected.join(" < ")));
        QVERIFY2(selected.contains(QStringLiteral("step1")) && selected.contains(QStringLiteral("rank%1").arg(rank)), qPrintable(selected.join(" < ")));
    }

    void noDumpOpenSaysHow()
    {
        MainWindow w;
        w.show();
        MsprobeAnswerPanel *panel = openAnswer(w);
        QVERIFY(panel);
        emit panel->view()->activated(panel->model()->index(0, 0));
        QVERIFY(!w.tree()->currentIndex().isValid());
        QVERIFY(!w.selectAnswerOp(QStringLiteral("rank_1"), QStringLiteral("step1"), QStringLiteral("Torch.exp.0.forward")));
    }
};

QTEST_MAIN(TestAnswerLink)
#include "tst_answerlink.moc"
