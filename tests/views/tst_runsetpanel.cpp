// The Run Set tab (views/runsetpanel, issue 34 item 2) on real msprobe runs (samples/msprobe_multirun):
// three repeated runs agree in every operator, the fourth (fc1.weight changed) departs at the
// linear that receives the weight and not before; a folder of fewer than three runs is refused.
// At the width the tab has in a 1280x800 window every run column is in view, and in Chinese the
// Phase column and the answers are Chinese (expectations from the committed .ts).
#include "runsetpanel.h"

#include "tsfile.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTableView>
#include <QTest>
#include <QTranslator>

using namespace ds;

namespace {

const QString kMd5Runs = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_multirun/dumps/md5");

} // namespace

class TestRunSetPanel : public QObject
{
    Q_OBJECT
private slots:
    void fourRuns();
    void tooFewRuns();
    void everyRunColumnInView();
    void chinese();
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

/// The Run Set tab is about 515 pixels wide in a 1280x800 window (docks at their default
/// sizes): every run column lies inside the matrix's viewport, not behind a horizontal scroll.
void TestRunSetPanel::everyRunColumnInView()
{
    RunSetPanel panel;
    panel.resize(515, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.compareRunsIn(kMd5Runs);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
    QVERIFY(panel.result());
    const QHeaderView *header = panel.view()->horizontalHeader();
    const int width = panel.view()->viewport()->width();
    for (int run = 0; run < 4; ++run) {
        const int c = RunSetMatrixModel::FirstRunColumn + run;
        const int left = header->sectionViewportPosition(c), right = left + header->sectionSize(c);
        QVERIFY2(left >= 0 && right <= width, qPrintable(QStringLiteral("run %1: [%2, %3) of %4").arg(run + 1).arg(left).arg(right).arg(width)));
    }
    // the Operator column is left, and a long name stays whole in its tooltip
    const int linear = panel.model()->rowOf(QStringLiteral("step0/rank0"), QStringLiteral("Module.ln.LayerNorm.parameters_grad.0"));
    if (linear >= 0)
        QVERIFY(panel.model()->index(linear, RunSetMatrixModel::OpColumn).data(Qt::ToolTipRole).toString().endsWith(QStringLiteral("parameters_grad.0")));
    QVERIFY(panel.view()->textElideMode() == Qt::ElideMiddle);
}

void TestRunSetPanel::chinese()
{
    const QString forward = tsTranslation(QStringLiteral("ds::RunSetPanel"), QStringLiteral("forward"));
    const QString same = tsTranslation(QStringLiteral("ds::RunSetPanel"), QStringLiteral("bit-identical"));
    const QString departs = tsTranslation(QStringLiteral("ds::RunSetPanel"), QStringLiteral("departs first: run %1 at %2; majority: runs %3"));
    QVERIFY(!forward.isEmpty() && !same.isEmpty() && !departs.isEmpty());
    QTranslator translator;
    QVERIFY(translator.load(QStringLiteral(DUMPSCOPE_QM)));
    QCoreApplication::installTranslator(&translator);
    const auto restore = qScopeGuard([&translator] { QCoreApplication::removeTranslator(&translator); });
    RunSetPanel panel;
    panel.compareRunsIn(kMd5Runs);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
    QVERIFY(panel.result());
    const int conv = panel.model()->rowOf(QStringLiteral("step0/rank0"), QStringLiteral("Functional.conv2d.0.forward"));
    QVERIFY(conv >= 0);
    QCOMPARE(panel.model()->index(conv, RunSetMatrixModel::PhaseColumn).data().toString(), forward);
    const QString text = panel.answerText();
    QVERIFY2(text.contains(same), qPrintable(text));
    QVERIFY2(text.contains(departs.left(departs.indexOf(QLatin1String("%1")))), qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("departs first")));
}

QTEST_MAIN(TestRunSetPanel)
#include "tst_runsetpanel.moc"
