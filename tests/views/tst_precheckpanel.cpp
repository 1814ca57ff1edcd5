// The Precheck tab (views/precheckpanel, core/models/prechecktablemodel) on the real msprobe
// acc_check output (samples/msprobe_precheck): the tables and their verdicts, a header tooltip
// with the column's threshold, and a failed output's comparison; the model under
// QAbstractItemModelTester.
#include "models/prechecktablemodel.h"
#include "heatmapwidget.h"
#include "precheckpanel.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QHeaderView>
#include <QTableView>
#include <QTest>
#include <algorithm>

using namespace ds;

class TestPrecheckPanel : public QObject
{
    Q_OBJECT
private slots:
    void opensAndCompares();
    void badFolderSaysWhy();
    void nothingClipped();
};

void TestPrecheckPanel::opensAndCompares()
{
    PrecheckPanel panel;
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.resize(1000, 700);
    panel.show();
    panel.open(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_precheck/pytorch_bf16"));
    QTRY_COMPARE_WITH_TIMEOUT(panel.model()->rowCount(), 11, 10000); // accuracy_checking_result: 11 APIs
    const QModelIndex linear = panel.model()->index(2, 1);
    QCOMPARE(linear.data(PrecheckTableModel::ApiRole).toString(), QStringLiteral("Functional.linear.0"));
    QCOMPARE(precheck::Status(linear.data(PrecheckTableModel::StatusRole).toInt()), precheck::Status::Error);
    QVERIFY(panel.model()->headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString().contains(u"SKIP"));
    QVERIFY(panel.failedList()->count() >= 5);
    for (int i = 0; i < panel.failedList()->count(); ++i)
        if (panel.failedList()->item(i)->text() == u"Functional.linear.0.forward.output.0")
            panel.failedList()->setCurrentRow(i);
    QTRY_VERIFY_WITH_TIMEOUT(panel.detail()->text().contains(u"cosine"), 10000);
    // the heatmap shows |device - bench| of that output: its largest cell is the comparison's
    // max abs error (the same pair compared by the core here)
    precheck::FailedPair pair;
    const auto doc = precheck::openPrecheck(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_precheck/pytorch_bf16"));
    QVERIFY(doc);
    for (const precheck::FailedPair &p : doc->failed)
        if (panel.failedList()->currentItem() && p.api + QLatin1Char('.') + p.output() == panel.failedList()->currentItem()->text())
            pair = p;
    const auto c = precheck::compareFailedPair(doc->root, pair);
    QVERIFY2(c, qPrintable(c.errorText()));
    QVERIFY(c->absError);
    const auto *e = reinterpret_cast<const float *>(c->absError->view.data);
    QCOMPARE(double(*std::max_element(e, e + c->absError->view.count)), double(float(c->metrics.maxAbsErr)));
    QCOMPARE(c->absError->shape, c->deviceShape);
    QTRY_VERIFY_WITH_TIMEOUT(panel.errorHeatmap()->tensor() != nullptr, 10000);
    const auto shown = panel.errorHeatmap()->tensor();
    QCOMPARE(shown->view.count, c->absError->view.count);
    QVERIFY(std::equal(e, e + c->absError->view.count, reinterpret_cast<const float *>(shown->view.data)));
    QVERIFY(panel.detail()->text().contains(u"Functional.linear.0.forward.output.0.pt") || panel.detail()->text().contains(u"Functional.linear.0"));
}

void TestPrecheckPanel::badFolderSaysWhy()
{
    PrecheckPanel panel;
    QSignalSpy opened(&panel, &PrecheckPanel::opened);
    panel.open(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/logs"));
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
    QCOMPARE(panel.model()->rowCount(), 0);
}

/// In the width the tab has at 1280x800 (about 520 px between the docks): every column header is
/// readable ("Backward Test Success" was cut to "ackward Test Succes" at a fixed 130 px) and the
/// failed output's comparison fits its pane (its device and bench side by side cut the bench
/// column off).
void TestPrecheckPanel::nothingClipped()
{
    PrecheckPanel panel;
    panel.resize(520, 720);
    panel.show();
    panel.open(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_precheck/pytorch_bf16"));
    QTRY_COMPARE_WITH_TIMEOUT(panel.model()->rowCount(), 11, 10000);
    const QFontMetrics fm(panel.view()->horizontalHeader()->font());
    for (int c = 0; c < panel.model()->columnCount(); ++c) {
        const QString header = panel.model()->headerData(c, Qt::Horizontal).toString();
        if (fm.horizontalAdvance(header) < 300)
            QVERIFY2(panel.view()->columnWidth(c) >= fm.horizontalAdvance(header), qPrintable(header));
    }
    QTRY_VERIFY_WITH_TIMEOUT(panel.detail()->text().contains(u"bench (CPU)") && panel.detail()->text().contains(u"cosine"), 10000);
    QVERIFY(panel.detail()->text().contains(u".bench."));
    QWidget *pane = panel.detail()->parentWidget(); // what shows the comparison
    QVERIFY2(panel.detail()->minimumSizeHint().width() <= pane->width(),
             qPrintable(QStringLiteral("%1 > %2").arg(panel.detail()->minimumSizeHint().width()).arg(pane->width())));
}

QTEST_MAIN(TestPrecheckPanel)
#include "tst_precheckpanel.moc"
