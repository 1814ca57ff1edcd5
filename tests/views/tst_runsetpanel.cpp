// The Run Set tab (views/runsetpanel, issue 34 item 2) on real msprobe runs (samples/msprobe_multirun):
// three repeated runs agree in every operator, the fourth (fc1.weight changed) departs at the
// linear that receives the weight and not before; a folder of fewer than three runs is refused.
#include "runsetpanel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ds;

class TestRunSetPanel : public QObject
{
    Q_OBJECT
private slots:
    void fourRuns();
    void tooFewRuns();
};

void TestRunSetPanel::fourRuns()
{
    RunSetPanel panel;
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.resize(1000, 700);
    panel.show();
    const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_multirun/dumps/md5");
    panel.compareRunsIn(root);
    QVERIFY(panel.isBusy());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
    QVERIFY(panel.result());
    // one matrix row per dump.json entry of every scope (read here, not by DumpScope)
    int entries = 0;
    for (const char *scope : {"step0/rank0", "step0/rank1", "step1/rank0", "step1/rank1"}) {
        QFile f(root + QStringLiteral("/run1/") + QLatin1String(scope) + QStringLiteral("/dump.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        entries += int(QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("data")).toObject().size());
    }
    const RunSetMatrixModel *m = panel.model();
    QCOMPARE(m->rowCount(), entries);
    QCOMPARE(m->columnCount(), RunSetMatrixModel::FirstRunColumn + 4);
    QCOMPARE(m->headerData(RunSetMatrixModel::FirstRunColumn + 3, Qt::Horizontal).toString(), QStringLiteral("Run 4"));
    auto agree = [m](int row, int run) { return m->index(row, RunSetMatrixModel::FirstRunColumn + run).data(RunSetMatrixModel::AgreeRole).toInt(); };
    for (int r = 0; r < m->rowCount(); ++r)
        for (int run = 0; run < 3; ++run)
            QCOMPARE(agree(r, run), 1); // the repeated runs: bit-identical everywhere
    const int conv = m->rowOf(QStringLiteral("step0/rank0"), QStringLiteral("Functional.conv2d.0.forward"));
    const int linear = m->rowOf(QStringLiteral("step0/rank0"), QStringLiteral("Functional.linear.0.forward"));
    QVERIFY(conv >= 0 && linear > conv);
    QCOMPARE(agree(conv, 3), 1);   // before the changed weight is used
    QCOMPARE(agree(linear, 3), 0); // the op receiving fc1.weight
    QCOMPARE(m->index(linear, RunSetMatrixModel::FirstRunColumn + 3).data().toString(), QStringLiteral("\u2260"));
    QVERIFY(m->index(linear, RunSetMatrixModel::OpColumn).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(panel.answerText().contains(QStringLiteral("runs 1, 2, 3 are bit-identical")));
    QVERIFY(panel.answerText().contains(QStringLiteral("departs first: run 4 at step 0, rank 0, Functional.linear.0.forward")));
}

void TestRunSetPanel::tooFewRuns()
{
    RunSetPanel panel;
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.compareRunsIn(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_md5_mix"));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
    QVERIFY(!panel.result());
    QCOMPARE(panel.model()->rowCount(), 0);
    QVERIFY2(panel.answerText().contains(QStringLiteral("three or more")), qPrintable(panel.answerText()));
}

QTEST_MAIN(TestRunSetPanel)
#include "tst_runsetpanel.moc"
