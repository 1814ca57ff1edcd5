// The workbench on real widgets (offscreen): open a sample, click a tensor in the tree, and
// check the inspector against the numpy-computed expectations of samples/manifest.json.
#include "documentcontext.h"
#include "exportdialog.h"
#include "histogramwidget.h"
#include "mainwindow.h"
#include "optablepanel.h"
#include "overflowpanel.h"
#include "models/dumptreemodel.h"
#include "tensorinspector.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDialogButtonBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QDockWidget>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cmath>
#include <set>

using namespace ds;

namespace {

QJsonObject manifestTensor(const QString &sample, const QString &id)
{
    QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const auto samples = QJsonDocument::fromJson(f.readAll())[QLatin1String("samples")].toArray();
    for (const auto &s : samples)
        if (s[QLatin1String("name")].toString() == sample)
            for (const auto &t : s[QLatin1String("tensors_expected")].toArray())
                if (t[QLatin1String("id")].toString() == id)
                    return t.toObject();
    return {};
}

const TensorId kTensor = *TensorId::parse(u"20240315101500/0/ge_default_20240315101512_1/1/0/Conv2D.resnet_conv1_Conv2D.12.3.1710490512000001.input.0");

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void init() { QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeTest")); }

    void treeModelPassesTester()
    {
        MainWindow w;
        QAbstractItemModelTester tester(w.context()->treeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/single_op"));
        QTRY_COMPARE_WITH_TIMEOUT(w.context()->treeModel()->rowCount(), 2, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.context()->isIndexing(), 10000);
        QVERIFY(w.context()->index(0) && w.context()->index(1));
    }

    /// A path that cannot be opened is named in a message box that does not hold up the paths
    /// opened after it: they index while the box is shown.
    void openFailureDoesNotBlockTheNextPath()
    {
        MainWindow w;
        w.show();
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        QTimer::singleShot(15000, &w, [] { // a box with an event loop of its own would hang the test
            if (QWidget *modal = QApplication::activeModalWidget())
                modal->close();
        });
        const QString missing = QDir::temp().filePath(QStringLiteral("dumpscope_no_such_dump_%1").arg(QCoreApplication::applicationPid()));
        w.openPath(missing);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QVERIFY(finished.first().at(2).toInt() > 0);
        auto *box = w.findChild<QMessageBox *>();
        QVERIFY(box && box->isVisible());
        QVERIFY2(box->text().contains(missing), qPrintable(box->text()));
        box->accept();
    }

    /// Statistics reach the table in batches, not one notification per operator (a level of
    /// 175,000 operators flooded the GUI thread with as many queued calls); every row gets its
    /// recorded Max.
    void opTableStatisticsInBatches()
    {
        MainWindow w;
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/npu_bf16_statistics_mix"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        const auto index = w.context()->index(0);
        QVERIFY(index && index->ops.size() >= 100);
        const QModelIndex anyOp = w.context()->treeModel()->findOp(0, 0);
        const QModelIndex dumpItem = w.context()->treeModel()->index(0, 0);
        QVERIFY(anyOp.isValid() && dumpItem.isValid());
        auto *m = w.opTable()->model();
        int statsNotices = 0;
        connect(m, &QAbstractItemModel::dataChanged, m, [&](const QModelIndex &a, const QModelIndex &b) {
            statsNotices += a.column() <= OpTableModel::Max && b.column() >= OpTableModel::Max;
        });
        w.tree()->setCurrentIndex(dumpItem); // every operator of the run
        QCOMPARE(m->rowCount(), int(index->ops.size()));
        QTRY_VERIFY_WITH_TIMEOUT(!w.opTable()->statsRunning(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!m->index(m->rowCount() - 1, OpTableModel::Max).data().toString().isEmpty(), 10000);
        QVERIFY2(statsNotices >= 1 && statsNotices * 10 <= m->rowCount(), qPrintable(QString::number(statsNotices)));
        int withMax = 0;
        for (int r = 0; r < m->rowCount(); ++r)
            withMax += !m->index(r, OpTableModel::Max).data().toString().isEmpty();
        int expected = 0; // operators with an output whose recorded Max and Min are finite
        for (const OpRecord &op : index->ops)
            expected += std::any_of(op.tensors.begin(), op.tensors.end(), [](const TensorRecord &t) {
                const RecordedStats r = t.recorded();
                return t.io() == IoKind::Output && t.isTensor() && r.has(RecordedStats::Max) && r.has(RecordedStats::Min)
                       && std::isfinite(r.max) && std::isfinite(r.min);
            });
        QCOMPARE(withMax, expected);
        // The type filter lists the level's op types (found in the background), sorted, and
        // shows one type's operators.
        std::set<QString> types;
        for (const OpRecord &op : index->ops)
            types.insert(op.opType.toString());
        auto *typeFilter = w.opTable()->findChild<QComboBox *>();
        QVERIFY(typeFilter && types.size() >= 2);
        QCOMPARE(typeFilter->count(), int(types.size()) + 1);
        QStringList listed;
        for (int i = 1; i < typeFilter->count(); ++i)
            listed << typeFilter->itemData(i).toString();
        QCOMPARE(listed, QStringList(types.begin(), types.end()));
        const QString picked = listed.last();
        typeFilter->setCurrentIndex(typeFilter->count() - 1);
        const auto ofType = std::count_if(index->ops.begin(), index->ops.end(), [&](const OpRecord &op) { return op.opType == picked; });
        QCOMPARE(m->rowCount(), int(ofType));
    }

    void opTableFiltersAndFillsStatistics()
    {
        MainWindow w;
        QAbstractItemModelTester tableTester(w.opTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        // Selecting the step-0 level lists its 8 operators.
        const QModelIndex op = w.context()->treeModel()->findOp(0, QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0/Relu.resnet_relu1_Relu.13.3.1710490512000002"));
        w.tree()->setCurrentIndex(op.parent());
        auto *m = w.opTable()->model();
        QCOMPARE(m->rowCount(), 8);
        w.opTable()->filterEdit()->setText(QStringLiteral("matmul"));
        QCOMPARE(m->rowCount(), 2); // MatMulV2 and BatchMatMulV2, case-insensitive
        w.opTable()->filterEdit()->setText(QStringLiteral("^Cast$"));
        QCOMPARE(m->rowCount(), 0); // not a regex yet
        m->setFilter(OpFilter{{}, QStringLiteral("^Cast$"), true});
        QCOMPARE(m->rowCount(), 2);
        w.opTable()->filterEdit()->clear();
        QCOMPARE(m->rowCount(), 8);
        // Statistics are filled in the background; the Relu row's max equals numpy's.
        const int row = m->rowOf(w.context()->index(0)->opIndex(QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0/Relu.resnet_relu1_Relu.13.3.1710490512000002")));
        QVERIFY(row >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(!m->index(row, OpTableModel::Max).data().toString().isEmpty(), 10000);
        const QJsonObject out = manifestTensor(QStringLiteral("cann_model_dump"),
            QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0/Relu.resnet_relu1_Relu.13.3.1710490512000002.output.0"));
        QCOMPARE(m->index(row, OpTableModel::Max).data(OpTableModel::SortRole).toDouble(),
                 out[QLatin1String("stats")][QLatin1String("max")].toDouble());
        // Selecting a row selects the operator in the tree and its output in the inspector.
        w.opTable()->view()->setCurrentIndex(m->index(row, 0));
        QCOMPARE(w.context()->selectedTensor().toString(), out[QLatin1String("id")].toString());
    }

    void clickTensorShowsNumpyStatistics()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);

        const QModelIndex item = w.context()->treeModel()->findTensor(0, kTensor);
        QVERIFY(item.isValid());
        w.tree()->scrollTo(item);
        const QRect rect = w.tree()->visualRect(item);
        QVERIFY(rect.isValid());
        QSignalSpy ready(w.inspector(), &TensorInspector::reportReady);
        QTest::mouseClick(w.tree()->viewport(), Qt::LeftButton, {}, rect.center());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);

        const auto report = w.inspector()->report();
        QVERIFY(report && !report->error);
        const QJsonObject expected = manifestTensor(QStringLiteral("cann_model_dump"), kTensor.toString());
        QVERIFY(!expected.isEmpty());
        const QJsonObject st = expected[QLatin1String("stats")].toObject();
        QCOMPARE(report->stats.min, st[QLatin1String("min")].toDouble());
        QCOMPARE(report->stats.max, st[QLatin1String("max")].toDouble());
        QVERIFY(qAbs(report->stats.mean - st[QLatin1String("mean")].toDouble()) < 1e-9);
        QCOMPARE(qint64(report->stats.count), st[QLatin1String("count")].toInteger());

        // Histogram with the manifest's 16 bins must reproduce numpy's counts exactly.
        auto *bins = w.inspector()->histogram()->findChild<QSpinBox *>();
        QVERIFY(bins);
        bins->setValue(16);
        emit bins->editingFinished();
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, 10000);
        const QJsonArray counts = expected[QLatin1String("histogram")].toObject()[QLatin1String("counts")].toArray();
        QVERIFY(w.inspector()->report()->histogram);
        const auto &h = *w.inspector()->report()->histogram;
        QCOMPARE(qsizetype(h.counts.size()), counts.size());
        for (qsizetype i = 0; i < counts.size(); ++i)
            QCOMPARE(qint64(h.counts[size_t(i)]), counts[i].toInteger());
    }

    void exportDialogWritesSelectedTensors()
    {
        MainWindow w;
        w.show();
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        // Multi-select: one tensor and a whole operator (its 3 tensors) in the tree, instead of
        // the first operator the window opens on.
        QTRY_VERIFY(w.tree()->currentIndex().isValid());
        w.tree()->selectionModel()->clearSelection();
        auto *model = w.context()->treeModel();
        const QModelIndex tensor = model->findTensor(0, kTensor);
        const QModelIndex op = model->findOp(0, QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0/MatMulV2.fc_MatMul.14.3.1710490512000003"));
        QVERIFY(tensor.isValid() && op.isValid());
        w.tree()->selectionModel()->select(tensor, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        w.tree()->selectionModel()->select(op, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        auto items = w.selectedTensors();
        QCOMPARE(items.size(), size_t(4));

        QTemporaryDir out;
        ExportDialog dialog(std::move(items));
        dialog.setTargetDir(out.path());
        dialog.show();
        QSignalSpy done(&dialog, &ExportDialog::exportFinished);
        QPushButton *run = nullptr;
        for (auto *b : dialog.findChildren<QPushButton *>())
            if (b->text() == QCoreApplication::translate("ds::ExportDialog", "Export"))
                run = b;
        QVERIFY(run);
        QTest::mouseClick(run, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
        QCOMPARE(dialog.results().size(), size_t(4));
        for (const auto &r : dialog.results())
            QVERIFY2(!r.error, qPrintable(r.error ? r.error->text() : QString()));

        // The exported ND bytes equal what numpy recorded for this tensor in the manifest.
        QFile f(out.filePath(QStringLiteral("Conv2D.resnet_conv1_Conv2D.12.3.1710490512000001.input.0.npy")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray all = f.readAll();
        const int headerLen = 10 + (quint8(all[8]) | (quint8(all[9]) << 8));
        const QJsonObject expected = manifestTensor(QStringLiteral("cann_model_dump"), kTensor.toString());
        QCOMPARE(QCryptographicHash::hash(all.mid(headerLen), QCryptographicHash::Sha256).toHex(),
                 expected[QLatin1String("nd_sha256")].toString().toLatin1());
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("MatMulV2.fc_MatMul.14.3.1710490512000003.output.0.npy"))));

        // A second run without "overwrite" keeps the files and reports every tensor as failed.
        QTest::mouseClick(run, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 10000);
        for (const auto &r : dialog.results())
            QVERIFY(r.error && r.error->message.contains(QLatin1String("exists")));
    }

    void exportDialogWritesH5Operators()
    {
        MainWindow w;
        w.show();
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/h5"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        // Two operators of model_npu.h5, selected in the tree (instead of the first operator
        // the window opens on).
        QTRY_VERIFY(w.tree()->currentIndex().isValid());
        w.tree()->selectionModel()->clearSelection();
        const auto index = w.context()->index(0);
        QVERIFY(index);
        QStringList groups;
        for (const OpRecord &op : index->ops)
            if (op.dataFile == QLatin1String("model_npu.h5") && groups.size() < 2) {
                const QModelIndex node = w.context()->treeModel()->findOp(0, op.relPath);
                QVERIFY2(node.isValid(), qPrintable(op.relPath));
                w.tree()->selectionModel()->select(node, QItemSelectionModel::Select | QItemSelectionModel::Rows);
                groups << op.relPath.mid(op.dataFile.size());
            }
        QCOMPARE(groups.size(), 2);
        ExportDialog dialog(w.selectedTensors());
        QVERIFY(dialog.offersH5());
        QSignalSpy done(&dialog, &ExportDialog::exportFinished);

        // Never into the opened dump.
        dialog.setTargetDir(QStringLiteral(DUMPSCOPE_SAMPLES "/h5"));
        dialog.chooseH5(QStringLiteral("two_ops.h5"));
        dialog.start();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
        QVERIFY2(dialog.h5Outcome().error.contains(QLatin1String("refusing to write inside")), qPrintable(dialog.h5Outcome().error));
        QVERIFY(!QFile::exists(QStringLiteral(DUMPSCOPE_SAMPLES "/h5/two_ops.h5")));

        QTemporaryDir out;
        dialog.setTargetDir(out.path());
        dialog.start();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 10000);
        QVERIFY2(dialog.h5Outcome().error.isEmpty(), qPrintable(dialog.h5Outcome().error));
        QCOMPARE(dialog.h5Outcome().written, 2);

        // h5py: the new file holds exactly these groups, with the source's datasets and attributes.
        const QString check = QStringLiteral(R"(
import sys, h5py, numpy as np
src, dst, groups = sys.argv[1], sys.argv[2], sys.argv[3:]
with h5py.File(src, "r") as a, h5py.File(dst, "r") as b:
    got = []
    b.visit(lambda n: got.append("/" + n) if isinstance(b[n], h5py.Dataset) else None)
    want = []
    for g in groups:
        a[g].visit(lambda n, g=g: want.append(g + "/" + n) if isinstance(a[g][n], h5py.Dataset) else None)
    assert sorted(got) == sorted(want), (got, want)
    for n in want:
        assert np.array_equal(a[n][()], b[n][()]), n
        assert sorted(a[n].attrs) == sorted(b[n].attrs), n
        assert all(np.array_equal(a[n].attrs[k], b[n].attrs[k]) for k in a[n].attrs), n
print(len(want))
)");
        QProcess py;
        py.start(QStringLiteral("/usr/bin/python3"), QStringList{QStringLiteral("-c"), check, QStringLiteral(DUMPSCOPE_SAMPLES "/h5/model_npu.h5"),
                                                          out.filePath(QStringLiteral("two_ops.h5"))} + groups);
        QVERIFY(py.waitForFinished(60000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        QVERIFY(py.readAllStandardOutput().trimmed().toInt() > 0);
    }

    void overflowRecordShowsDecodedCauses()
    {
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy analyzed(w.overflow(), &OverflowPanel::analysisFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/vector"));
        QTRY_COMPARE_WITH_TIMEOUT(analyzed.count(), 1, 10000);
        w.centralTabs()->setCurrentWidget(w.overflow());
        // Click the record: the spec's vector, AI Core status 272 = 0x10 + 0x100.
        QTreeWidget *list = w.overflow()->list();
        QTreeWidgetItem *record = nullptr;
        for (QTreeWidgetItemIterator it(list); *it; ++it)
            if ((*it)->toolTip(0) == QLatin1String("Opdebug.Node_OpDebug.9.3.1700000000000123"))
                record = *it;
        QVERIFY(record);
        list->scrollToItem(record);
        QTRY_VERIFY(list->isVisible() && list->visualItemRect(record).isValid());
        const QRect rect = list->visualItemRect(record);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, QPoint(rect.left() + 20, rect.center().y()));
        QCOMPARE(list->currentItem(), record);
        const QString html = w.overflow()->details()->toPlainText();
        QVERIFY2(html.contains(QLatin1String("272 = 0x110")), qPrintable(html));
        QVERIFY(html.contains(QLatin1String("0x10 Integer addition, subtraction, multiplication or multiply-add overflow")));
        QVERIFY(html.contains(QStringLiteral("FP32转FP16或32符号整数转FP16中出现溢出")));
        QVERIFY(html.contains(QLatin1String("Add.add_57.57.3.1700000000000100")));
        QVERIFY(html.contains(QLatin1String("first overflow")));
        // "Show operator" selects the linked operator's output in the inspector.
        QPushButton *show = nullptr;
        for (auto *b : w.overflow()->findChildren<QPushButton *>())
            if (b->text() == QCoreApplication::translate("ds::OverflowPanel", "Show operator"))
                show = b;
        QVERIFY(show && show->isEnabled());
        QTest::mouseClick(show, Qt::LeftButton);
        QCOMPARE(w.context()->selectedTensor().toString(), QStringLiteral("Add.add_57.57.3.1700000000000100.output.0"));
        // The tree marks the operator named by the record (mark 4).
        const QModelIndex op = w.context()->treeModel()->findOp(0, QStringLiteral("Add.add_57.57.3.1700000000000100"));
        QCOMPARE(op.data(DumpTreeModel::OverflowRole).toInt(), 4);
    }

    void overflowFromRecordedStatistics()
    {
        // A msprobe statistics dump (no tensor data) written by the real msprobe 26.0.0: the
        // operator msprobe's own overflow_check names must be the first overflow here too.
        QFile expected(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/expected.json"));
        QVERIFY(expected.open(QIODevice::ReadOnly));
        QString answer;
        for (const auto &c : QJsonDocument::fromJson(expected.readAll())[QLatin1String("cases")].toArray())
            if (c[QLatin1String("id")].toString() == QLatin1String("overflow_statistics_mix"))
                answer = c[QLatin1String("msprobe")][QLatin1String("step1")][QLatin1String("ops_by_rank")][QLatin1String("rank_1")][0].toString();
        QVERIFY(!answer.isEmpty());
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy analyzed(w.overflow(), &OverflowPanel::analysisFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/overflow_statistics_mix"));
        QTRY_COMPARE_WITH_TIMEOUT(analyzed.count(), 1, 20000);
        QVERIFY(w.goToFirstOverflow());
        QCOMPARE(w.centralTabs()->currentWidget(), w.overflow());
        const QString html = w.overflow()->details()->toPlainText();
        QVERIFY2(html.contains(QStringLiteral("Operator: ") + answer), qPrintable(html));
        QVERIFY2(html.contains(QLatin1String("Scope: step1/rank1")), qPrintable(html));
        QVERIFY(html.contains(QLatin1String("No tensor data was saved")));
        QVERIFY(html.contains(QLatin1String("Infinity")));
        QVERIFY(w.overflow()->list()->currentItem()->text(0).contains(answer));
        // The tree marks it critical (3) and "First Overflow" selected it.
        const QString path = QStringLiteral("step1/rank1/") + answer;
        const QModelIndex op = w.context()->treeModel()->findOp(0, path);
        QVERIFY(op.isValid());
        QCOMPARE(op.data(DumpTreeModel::OverflowRole).toInt(), 3);
        QCOMPARE(w.tree()->currentIndex().siblingAtColumn(0).data(DumpTreeModel::OpPathRole).toString(), path);
        QVERIFY(w.statusBar()->findChild<QLabel *>()->text().contains(answer));
        // The operator table (the ops of step1/rank1) marks the same row critical.
        const int opIndex = w.context()->index(0)->opIndex(path);
        OpTableModel *table = w.opTable()->model();
        int marked = -1;
        for (int r = 0; r < table->rowCount(); ++r)
            if (table->index(r, 0).data(OpTableModel::OpRole).toInt() == opIndex)
                marked = table->index(r, 0).data(OpTableModel::OverflowRole).toInt();
        QCOMPARE(marked, 3);
        // Step 0 had no anomaly: nothing below it is marked.
        const QModelIndex step0 = w.context()->treeModel()->findOp(0, QStringLiteral("step0/rank1/Torch.exp.0.forward"));
        QVERIFY(step0.isValid());
        QCOMPARE(step0.data(DumpTreeModel::OverflowRole).toInt(), 0);
    }

    void undocumentedUnitShowsHint()
    {
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy analyzed(w.overflow(), &OverflowPanel::analysisFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/magic"));
        QTRY_COMPARE_WITH_TIMEOUT(analyzed.count(), 1, 10000);
        QTreeWidget *list = w.overflow()->list();
        QStringList seen;
        for (QTreeWidgetItemIterator it(list); *it; ++it) {
            const QString kind = (*it)->text(1);
            if (kind != QLatin1String("AIV") && kind != QLatin1String("AICPU") && kind != QLatin1String("SDMA") && kind != QLatin1String("AIC"))
                continue;
            list->setCurrentItem(*it);
            const QString html = w.overflow()->details()->toPlainText();
            if (kind == QLatin1String("AIC")) {
                QVERIFY2(!html.contains(QLatin1String("Meaning not documented")), qPrintable(html));
                continue;
            }
            QVERIFY2(html.contains(QStringLiteral("Meaning not documented for this unit (%1)").arg(kind)), qPrintable(html));
            QVERIFY(html.contains(QLatin1String("Set bits: 0x")));
            QVERIFY(html.contains(QLatin1String("Hint, the AI Core reading of the same bits")));
            seen << kind;
        }
        seen.sort();
        QCOMPARE(seen, (QStringList{"AICPU", "AIV", "SDMA"}));
    }

    void warningsAreListedInProblems()
    {
        // A CANN dump file (DumpData header by hand, cann-dump.md §5) whose input declares
        // shape [4] x float32 (16 bytes) but size 8.
        QTemporaryDir dir;
        const QByteArray input("\x08\x01\x10\x02\x1a\x03\x0a\x01\x04\x28\x08", 11);
        const QByteArray header = QByteArray("\x22", 1) + char(input.size()) + input + QByteArray("\x32\x03\x61\x64\x64", 5);
        const quint64 len = quint64(header.size());
        QFile f(dir.filePath(QStringLiteral("Add.add.1.1.1700000000000001")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(reinterpret_cast<const char *>(&len), 8) + header + QByteArray(8, 0));
        f.close();
        MainWindow w;
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(dir.path());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(finished.first().at(3).toInt(), 0); // read, not a bad file
        QListWidget *problems = w.problems();
        QCOMPARE(problems->count(), 1);
        const QString text = problems->item(0)->text();
        QVERIFY2(text.startsWith(QLatin1String("Add.add.1.1.1700000000000001")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("input 0: shape [4] x float32 is 16 bytes but the header declares size 8")), qPrintable(text));
        QVERIFY(problems->parentWidget()->isVisibleTo(&w));
        emit problems->itemActivated(problems->item(0));
        QCOMPARE(w.tree()->currentIndex().siblingAtColumn(0).data(DumpTreeModel::OpPathRole).toString(), QStringLiteral("Add.add.1.1.1700000000000001"));
    }

    void chineseTranslationApplies()
    {
        // The expected text comes from the committed .ts file, not from the code.
        QFile ts(QStringLiteral(DUMPSCOPE_SOURCE_DIR "/translations/dumpscope_zh_CN.ts"));
        QVERIFY(ts.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&ts);
        QString context, source, expected;
        while (!xml.atEnd() && expected.isEmpty()) {
            xml.readNext();
            if (!xml.isStartElement())
                continue;
            if (xml.name() == QLatin1String("name"))
                context = xml.readElementText();
            else if (xml.name() == QLatin1String("source"))
                source = xml.readElementText();
            else if (xml.name() == QLatin1String("translation") && context == QLatin1String("ds::MainWindow")
                     && source == QLatin1String("Dump tree"))
                expected = xml.readElementText();
        }
        QVERIFY2(!expected.isEmpty() && expected != QLatin1String("Dump tree"), "no Chinese translation for 'Dump tree'");
        QTranslator translator;
        QVERIFY(translator.load(QStringLiteral(":/i18n/dumpscope_zh_CN.qm")));
        QCoreApplication::installTranslator(&translator);
        {
            MainWindow w;
            QStringList titles;
            for (auto *dock : w.findChildren<QDockWidget *>())
                titles << dock->windowTitle();
            QVERIFY2(titles.contains(expected), qPrintable(titles.join(QLatin1Char('|'))));
        }
        QCoreApplication::removeTranslator(&translator);
        MainWindow english;
        QStringList titles;
        for (auto *dock : english.findChildren<QDockWidget *>())
            titles << dock->windowTitle();
        QVERIFY(titles.contains(QStringLiteral("Dump tree")));
    }

    void badFilesAreListed()
    {
        MainWindow w;
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        auto *model = w.context()->treeModel();
        const QModelIndex root = model->index(0, 0);
        QModelIndex errors;
        for (int r = 0; r < model->rowCount(root); ++r)
            if (model->index(r, 0, root).data(DumpTreeModel::KindRole).toInt() == int(DumpTreeModel::Kind::ErrorGroup))
                errors = model->index(r, 0, root);
        QVERIFY(errors.isValid());
        QCOMPARE(model->rowCount(errors), 5);
        QCOMPARE(finished.first().at(2).toInt(), 11); // the good files still load
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
