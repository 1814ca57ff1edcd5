// File -> Export Tensors on msprobe dumps: the action is disabled while the selection holds no
// leaf with values (a statistics-only dump: every tensor "statistics only", the int/None
// arguments not tensors) and says why; enabled on a tensor dump. The counts come from the
// leaves' records (tst_tensorexport checks them against dump.json).
#include "documentcontext.h"
#include "exportdialog.h"
#include "mainwindow.h"
#include "models/dumptreemodel.h"

#include <QAction>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>

using namespace ds;

namespace {

QAction *exportAction(MainWindow &w)
{
    for (QAction *a : w.findChildren<QAction *>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E))
            return a;
    return nullptr;
}

} // namespace

class TestExportAction : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void followsTheSelection_data()
    {
        QTest::addColumn<QString>("dump");
        QTest::addColumn<bool>("values");
        QTest::newRow("statistics") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0/rank0") << false;
        QTest::newRow("tensor") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix/step0/rank0") << true;
    }
    void followsTheSelection()
    {
        QFETCH(QString, dump);
        QFETCH(bool, values);
        MainWindow w;
        w.show();
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(dump);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QAction *action = exportAction(w);
        QVERIFY(action);
        const auto index = w.context()->index(0);
        const QModelIndex op = w.context()->treeModel()->findOp(0, index->ops.front().relPath.toString());
        QVERIFY(op.isValid());
        w.tree()->selectionModel()->select(op, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        const auto items = w.selectedTensors();
        ExportCounts want;
        for (const ExportItem &i : items)
            want.add(exportBlock(i.index->tensor(i.ref)));
        QVERIFY(want.notTensors > 0); // conv2d's None bias and int arguments
        QCOMPARE(want.exportable > 0, values);
        QCOMPARE(action->isEnabled(), values);
        if (!values)
            QVERIFY2(action->toolTip().contains(want.text()), qPrintable(action->toolTip()));
    }
};

QTEST_MAIN(TestExportAction)
#include "tst_exportaction.moc"
