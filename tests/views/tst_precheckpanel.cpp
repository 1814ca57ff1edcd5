// The Precheck tab (views/precheckpanel, core/models/prechecktablemodel) on the real msprobe
// acc_check output (samples/msprobe_precheck): the tables and their verdicts, a header tooltip
// with the column's threshold, and a failed output's comparison; the model under
// QAbstractItemModelTester.
#include "models/prechecktablemodel.h"
#include "precheckpanel.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QHeaderView>
#include <QTableView>
#include <QTest>

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
