// The Monitor tab (views/monitorpanel, core/models/monitortrendmodel) on msprobe monitor output
// rendered by msprobe's own writers (samples/msprobe_monitor): it starts on the metric of
// msprobe's first anomaly, outlines the anomaly's cell, and an anomaly of the list selects it.
#include "models/monitortrendmodel.h"
#include "monitorpanel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QListWidget>
#include <QTableView>
#include <QTest>

using namespace ds;

class TestMonitorPanel : public QObject
{
    Q_OBJECT
private slots:
    void opensOnFirstAnomaly();
};

void TestMonitorPanel::opensOnFirstAnomaly()
{
    MonitorPanel panel;
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.resize(1000, 700);
    panel.show();
    panel.open(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_monitor/monitor_output"));
    QTRY_VERIFY_WITH_TIMEOUT(panel.model()->rowCount() > 0, 10000);
    // msprobe's first anomaly: rank 1's fc2.weight unreduced gradient norm at step 4
    QCOMPARE(panel.metrics()->currentText(), QStringLiteral("grad_unreduced"));
    QCOMPARE(panel.stats()->currentText(), QStringLiteral("norm"));
    QCOMPARE(panel.model()->rowCount(), 4);    // fc1, fc2 x 2 ranks
    QCOMPARE(panel.model()->columnCount(), 6); // steps 0-5
    int marked = 0;
    for (int r = 0; r < panel.model()->rowCount(); ++r)
        for (int c = 0; c < panel.model()->columnCount(); ++c)
            if (panel.model()->index(r, c).data(MonitorTrendModel::AnomalyRole).toBool()) {
                ++marked;
                QCOMPARE(panel.model()->index(r, c).data(MonitorTrendModel::RankRole).toInt(), 1);
                QCOMPARE(panel.model()->index(r, c).data(MonitorTrendModel::StepRole).toLongLong(), 4);
            }
    QCOMPARE(marked, 1);
    QCOMPARE(panel.anomalies()->count(), 4);
    // the NaN activation: selecting it switches to actv and selects its cell
    panel.anomalies()->setCurrentRow(2);
    QCOMPARE(panel.metrics()->currentText(), QStringLiteral("actv"));
    const QModelIndex current = panel.findChild<QTableView *>()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(current.data(MonitorTrendModel::StepRole).toLongLong(), 5);
    QCOMPARE(current.data(MonitorTrendModel::NormalizedRole).toDouble(), -1.0); // NaN
}

QTEST_MAIN(TestMonitorPanel)
#include "tst_monitorpanel.moc"
