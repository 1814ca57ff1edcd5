// The workbench on real widgets (offscreen): open a sample, click a tensor in the tree, and
// check the inspector against the numpy-computed expectations of samples/manifest.json.
#include "documentcontext.h"
#include "exportdialog.h"
#include "histogramwidget.h"
#include "mainwindow.h"
#include "compareview.h"
#include "graphpanel.h"
#include "optablepanel.h"
#include "overflowpanel.h"
#include "runspanel.h"
#include "trendspanel.h"
#include "models/comparetablemodel.h"
#include "models/dumptreemodel.h"
#include "models/rungridmodel.h"
#include "tensorinspector.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
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

/// `dumpscope-cli ARGS` as JSON (the CLI is the oracle of the GUI's answers: one rule in core).
QJsonObject cliJson(const QStringList &args)
{
    QProcess cli;
    cli.start(QStringLiteral(DUMPSCOPE_CLI), args);
    if (!cli.waitForFinished(120000) || cli.exitCode() != 0)
        return {};
    return QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
}

QLabel *overflowStatus(MainWindow &w) { return w.statusBar()->findChild<QLabel *>(QStringLiteral("overflowStatus")); }

/// The rows of the overflow list whose first column carries the star.
QList<QTreeWidgetItem *> starredRows(QTreeWidget *list)
{
    QList<QTreeWidgetItem *> rows;
    for (QTreeWidgetItemIterator it(list); *it; ++it)
        if ((*it)->text(0).contains(QChar(0x2605)))
            rows << *it;
    return rows;
}

/// What the CLI's overflow report counts for a dump: OpDebug records and software findings.
std::pair<int, int> cliOverflowCounts(const QString &path)
{
    const QJsonObject doc = cliJson({QStringLiteral("overflow"), path, QStringLiteral("--json")});
    return {int(doc[QLatin1String("records")].toArray().size()), int(doc[QLatin1String("software")][QLatin1String("findings")].toArray().size())};
}

/// The Overflow tab's header for these counts over `dumps` dumps (OverflowPanel::stateText's words).
QString overflowHeader(int records, int findings, int dumps)
{
    return QStringLiteral("%1 OpDebug record(s), %2 software finding(s)%3").arg(records).arg(findings)
        .arg(dumps > 1 ? QStringLiteral(" in %1 dump(s).").arg(dumps) : QStringLiteral("."));
}

/// Opens `paths` in order and waits until each is indexed, its overflow analysed and its runs read.
bool openAll(MainWindow &w, const QStringList &paths)
{
    QSignalSpy analyzed(w.overflow(), &OverflowPanel::analysisFinished);
    for (const QString &p : paths)
        w.openPath(p);
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 30000) {
        if (analyzed.count() >= paths.size() && !w.context()->isIndexing() && !w.runsPanel()->isBusy() && !w.overflow()->isRunning())
            return true;
        QTest::qWait(20);
    }
    qWarning("openAll: %lld of %lld analysed, indexing %d, runs busy %d, overflow running %d", qlonglong(analyzed.count()),
             qlonglong(paths.size()), int(w.context()->isIndexing()), int(w.runsPanel()->isBusy()), int(w.overflow()->isRunning()));
    return false;
}

/// Sends a mouse move to the heatmap at the centre of cell (step, row).
void hoverCell(TrendsPanel *trends, int step, int row)
{
    auto *heat = trends->findChild<QWidget *>(QStringLiteral("trendsHeatmap"));
    const QPointF at = trends->cellPosition(step, row);
    QMouseEvent move(QEvent::MouseMove, at, heat->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(heat, &move);
}

/// The hover line the heatmap must show for cell (step, row) of the table shown now.
QString expectedHover(const TrendTable &t, int step, int row)
{
    QStringList ranks;
    for (size_t r = 0; r < t.ranks.size() && r < 8; ++r) {
        const double v = t.value(row, step, int(r));
        ranks << QStringLiteral("%1 %2").arg(t.rankLabels[qsizetype(r)], std::isnan(v) ? QStringLiteral("\u2014") : QString::number(v, 'g', 5));
    }
    return QStringLiteral("%1, %2: %3").arg(t.stepLabels[step], t.rows[row], ranks.join(QStringLiteral(", ")));
}

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
        QVERIFY(overflowStatus(w)->text().contains(answer));
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


    // ---- issue 30 (h4): one first overflow; summaries that follow the open dumps; close ----

    /// The status bar, First Overflow (Ctrl+F1), the Overflow panel's one starred row and
    /// `dumpscope-cli overflow --json` name the same operator, and say why when the OpDebug
    /// records and the software scan disagree (overflow/resnet: the scan's layer2/block0/conv2
    /// runs before the record's layer4/block0/conv3; its iteration 1 alone: the record first).
    void firstOverflowIsOneAnswer_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("source");
        QTest::addRow("scan before record") << QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/resnet") << QStringLiteral("software");
        QTest::addRow("record before scan") << QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/resnet/20240401150000/0/resnet50/1/1")
                                            << QStringLiteral("opdebug");
        QTest::addRow("both agree") << QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/legacy") << QStringLiteral("both");
        QTest::addRow("msprobe statistics") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/overflow_statistics_mix")
                                            << QStringLiteral("software");
    }
    void firstOverflowIsOneAnswer()
    {
        QFETCH(QString, path);
        QFETCH(QString, source);
        const QJsonObject first = cliJson({QStringLiteral("overflow"), path, QStringLiteral("--json")})[QLatin1String("first")].toObject();
        QVERIFY2(!first.isEmpty(), "the CLI gives no first overflow");
        QCOMPARE(first[QLatin1String("source")].toString(), source);
        const QString file = first[QLatin1String("file")].toString(), line = first[QLatin1String("line")].toString(),
                      note = first[QLatin1String("note")].toString();
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy analyzed(w.overflow(), &OverflowPanel::analysisFinished);
        w.openPath(path);
        QTRY_COMPARE_WITH_TIMEOUT(analyzed.count(), 1, 20000);
        // the status bar
        QLabel *status = overflowStatus(w);
        QVERIFY(status && status->isVisible());
        QVERIFY2(status->text().startsWith(QStringLiteral("First overflow: ") + line), qPrintable(status->text()));
        if (source != QLatin1String("both")) { // the sources disagree (or one has nothing): the why is shown
            QVERIFY2(status->text().contains(note), qPrintable(status->text()));
            QVERIFY(!note.isEmpty() || !first[QLatin1String("opdebug_first")].isObject());
        }
        // First Overflow (Ctrl+F1) selects it in the panel and its operator in the tree
        w.centralTabs()->setCurrentWidget(w.opTable());
        QTest::keyClick(&w, Qt::Key_F1, Qt::ControlModifier);
        QCOMPARE(w.centralTabs()->currentWidget(), w.overflow());
        QTRY_COMPARE(w.tree()->currentIndex().siblingAtColumn(0).data(DumpTreeModel::OpPathRole).toString(), file);
        // exactly one starred row: the selected one, the record or the finding the CLI names
        QTreeWidget *list = w.overflow()->list();
        const QList<QTreeWidgetItem *> stars = starredRows(list);
        QCOMPARE(stars.size(), 1);
        QCOMPARE(list->currentItem(), stars.front());
        QVERIFY(stars.front()->data(0, OverflowPanel::FirstOverflowRole).toBool());
        if (source == QLatin1String("software"))
            QCOMPARE(stars.front()->text(3), file.section(QLatin1Char('/'), -1));
        else
            QCOMPARE(stars.front()->toolTip(0), first[QLatin1String("record")].toString());
        const QString details = w.overflow()->details()->toPlainText();
        QVERIFY2(details.contains(QStringLiteral("This is the first overflow: ") + line), qPrintable(details));
        QVERIFY2(details.contains(note), qPrintable(details));
        // the graph and the runs overview take the same operator
        QCOMPARE(w.overflow()->firstOverflowOp(0), w.context()->index(0)->opIndex(file));
    }


    /// Step 1 of a run whose step-0 optimizer wrote NaN into fc1.weight (real msprobe runs):
    /// the first anomaly's row, its details, First Overflow and the CLI name the parameter and the
    /// step-0 operator that wrote it (or where it was last seen normal), in the same words.
    void firstAnomalyNamesTheParameter_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("words");
        QTest::addRow("optimizer not dumped") << QStringLiteral("optnan_statistics_mix")
                                              << QStringLiteral("last seen normal in step0/rank0 at Module.fc1.Linear.forward.0");
        QTest::addRow("optimizer dumped") << QStringLiteral("optnan_dumped_statistics_mix")
                                          << QStringLiteral("written in step0/rank0 by Tensor.add_.5.forward");
    }
    void firstAnomalyNamesTheParameter()
    {
        QFETCH(QString, run);
        QFETCH(QString, words);
        const QString path = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/") + run;
        const QJsonObject doc = cliJson({QStringLiteral("overflow"), path, QStringLiteral("--json")});
        QJsonObject finding;
        for (const auto &f : doc[QLatin1String("software")][QLatin1String("findings")].toArray())
            if (f[QLatin1String("file")].toString() == QLatin1String("step1/rank0/Functional.linear.0.forward"))
                finding = f.toObject();
        const QString reason = finding[QLatin1String("reason")].toString();
        QVERIFY2(reason.contains(QLatin1String("fc1.weight")) && reason.contains(words), qPrintable(reason));
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAll(w, {path}));
        QTreeWidget *list = w.overflow()->list();
        QTreeWidgetItem *row = nullptr;
        for (QTreeWidgetItemIterator it(list); *it; ++it)
            if ((*it)->text(3) == QLatin1String("Functional.linear.0.forward") && (*it)->parent()
                && (*it)->parent()->text(0).startsWith(QLatin1String("step1/rank0")))
                row = *it;
        QVERIFY(row);
        QCOMPARE(row->toolTip(0), reason); // the same words as the CLI
        list->setCurrentItem(row);
        QVERIFY2(w.overflow()->details()->toPlainText().contains(reason), qPrintable(w.overflow()->details()->toPlainText()));
        // where the run-level first overflow is step 1's, First Overflow shows the same explanation
        if (doc[QLatin1String("first")][QLatin1String("scope")].toString() == QLatin1String("step1/rank0")) {
            QVERIFY(w.goToFirstOverflow());
            QCOMPARE(list->currentItem(), row);
            QVERIFY2(overflowStatus(w)->toolTip().contains(reason), qPrintable(overflowStatus(w)->toolTip()));
        }
    }

    /// Two open dumps, the second without any overflow: the Overflow header counts both (the
    /// CLI's records and findings summed), the status bar keeps the first dump's first overflow,
    /// the Runs footer says every scope was read once both walks are done.
    void summariesFollowTheOpenDumps()
    {
        const QString a = QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/resnet");
        const QString b = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix");
        const auto [recordsA, findingsA] = cliOverflowCounts(a);
        const auto [recordsB, findingsB] = cliOverflowCounts(b);
        QVERIFY(recordsA > 0 && findingsA > 0 && recordsB == 0 && findingsB == 0);
        const QString lineA = cliJson({QStringLiteral("overflow"), a, QStringLiteral("--json")})[QLatin1String("first")][QLatin1String("line")].toString();
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAll(w, {a, b}));
        // the header: both dumps, not the last one analysed
        const QString header = overflowHeader(recordsA + recordsB, findingsA + findingsB, 2);
        QCOMPARE(w.overflow()->stateText(), header);
        QVERIFY(w.overflow()->findChildren<QLabel *>().size() > 0);
        bool shown = false;
        for (QLabel *l : w.overflow()->findChildren<QLabel *>())
            shown |= l->text() == header;
        QVERIFY(shown);
        // the status bar: the first dump's first overflow, not "No overflow found"
        QVERIFY2(overflowStatus(w)->text().startsWith(QStringLiteral("First overflow: ") + lineA), qPrintable(overflowStatus(w)->text()));
        QVERIFY(overflowStatus(w)->text().contains(QDir(a).absolutePath()));
        // the list holds both dumps' top items
        QCOMPARE(w.overflow()->list()->topLevelItemCount(), 2);
        // the Runs footer: every walk is done, whichever run is shown
        QTRY_COMPARE(w.runsPanel()->statusText(), QStringLiteral("All scopes read."));
        QVERIFY(!w.runsPanel()->statusText().contains(QLatin1String("Looking for runs")));
    }

    /// The Trends hover line names a cell of the table shown now: after the trends move to
    /// another dump's run it is recomputed (a row of the previous dump is never named).
    void trendsHoverFollowsTheTable()
    {
        const QString a = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/overflow_statistics_mix");
        const QString b = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix");
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAll(w, {a, b}));
        TrendsPanel *trends = w.trendsPanel();
        w.centralTabs()->setCurrentWidget(trends);
        const QList<int> dumps = w.context()->treeModel()->dumpIds();
        QCOMPARE(dumps.size(), 2);
        QSignalSpy ready(trends, &TrendsPanel::tableReady);
        w.tree()->setCurrentIndex(w.context()->treeModel()->dumpItem(dumps[0]));
        QTRY_VERIFY_WITH_TIMEOUT(trends->table() && !trends->isBusy() && trends->table()->rows.contains(QStringLiteral("Torch.exp.0.forward")), 20000);
        QTest::qWait(100); // the heatmap's axes are set on the next (queued) replot
        const int rowA = int(trends->table()->rows.indexOf(QStringLiteral("Torch.exp.0.forward")));
        hoverCell(trends, 1, rowA);
        QCOMPARE(trends->hoverText(), expectedHover(*trends->table(), 1, rowA));
        QVERIFY(trends->hoverText().contains(QLatin1String("Torch.exp.0.forward")));
        // the other dump's run: TinyNet has no Torch.exp; the same cell is now its row
        ready.clear();
        w.tree()->setCurrentIndex(w.context()->treeModel()->dumpItem(dumps[1]));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !trends->isBusy(), 20000);
        QVERIFY(!trends->table()->rows.contains(QStringLiteral("Torch.exp.0.forward")));
        QLabel *hover = nullptr;
        for (QLabel *l : trends->findChildren<QLabel *>())
            if (l->text() == trends->hoverText())
                hover = l;
        QVERIFY(hover);
        QVERIFY2(!hover->text().contains(QLatin1String("Torch.exp")), qPrintable(hover->text()));
        // the same mouse position over the new table's axes: a cell of the new table, with its values
        bool ofNewTable = false;
        for (int r = 0; r < trends->table()->rows.size(); ++r)
            ofNewTable |= hover->text() == expectedHover(*trends->table(), 1, r);
        QVERIFY2(ofNewTable, qPrintable(hover->text()));
    }

    /// File -> Close on one of two dumps: every summary follows the remaining dump (overflow
    /// header and status, tree, op table, runs and their footer, trends, the comparison made on
    /// the closed dump); closing the other leaves the empty state.
    void closeDumpFollowsEverywhere()
    {
        const QString a = QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/resnet");
        const QString b = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix");
        const auto [recordsB, findingsB] = cliOverflowCounts(b);
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAll(w, {a, b}));
        DumpTreeModel *model = w.context()->treeModel();
        const QList<int> dumps = model->dumpIds();
        QCOMPARE(dumps.size(), 2);
        const int dumpA = dumps[0], dumpB = dumps[1];
        // a comparison made on dump A (with itself), and its marks in the tree
        QSignalSpy compared(w.compareView(), &CompareView::finished);
        w.tree()->setCurrentIndex(model->dumpItem(dumpA));
        w.compareWith(a);
        QTRY_VERIFY_WITH_TIMEOUT(compared.count() > 0, 30000);
        QVERIFY(w.compareView()->model()->result());
        QCOMPARE(w.compareView()->npuDump(), dumpA);
        QVERIFY(w.overflow()->firstOverflow(dumpA));
        QVERIFY(w.closeDumpAction() && w.closeDumpAction()->isEnabled());
        QCOMPARE(w.closeDumpAction()->objectName(), QStringLiteral("closeDumpAction"));

        // close A through File -> Close (the tree's current item is in A)
        w.tree()->setCurrentIndex(model->dumpItem(dumpA));
        QSignalSpy closed(w.context(), &DocumentContext::dumpClosed);
        w.closeDumpAction()->trigger();
        QCOMPARE(closed.count(), 1);
        QCOMPARE(closed.first().at(0).toInt(), dumpA);
        // the tree: B only, still dump B
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->dumpIds(), QList<int>{dumpB});
        QCOMPARE(model->index(0, 0).data(DumpTreeModel::DumpRole).toInt(), dumpB);
        QVERIFY(!model->index(dumpA));
        // overflow: B's counts and B's answer (none)
        QCOMPARE(w.overflow()->stateText(), overflowHeader(recordsB, findingsB, 1));
        QCOMPARE(w.overflow()->list()->topLevelItemCount(), 1);
        QVERIFY(!w.overflow()->firstOverflow(dumpA));
        QCOMPARE(overflowStatus(w)->text(), QStringLiteral("No overflow found in the open dumps."));
        QVERIFY(starredRows(w.overflow()->list()).isEmpty());
        QVERIFY(!w.goToFirstOverflow());
        // op table, runs, trends: B's
        QTRY_COMPARE(w.opTable()->model()->dump(), dumpB);
        QCOMPARE(w.runsPanel()->dump(), dumpB);
        QCOMPARE(w.runsPanel()->runChooser()->count(), 1);
        QTRY_COMPARE(w.runsPanel()->statusText(), QStringLiteral("All scopes read."));
        QTRY_VERIFY_WITH_TIMEOUT(w.trendsPanel()->table() && !w.trendsPanel()->isBusy(), 20000);
        bool trendsOfB = false;
        for (QLabel *l : w.trendsPanel()->findChildren<QLabel *>())
            trendsOfB |= l->text().contains(QDir(b).absolutePath());
        QVERIFY(trendsOfB);
        // the comparison of A went with it
        QVERIFY(!w.compareView()->model()->result());
        QCOMPARE(w.compareView()->npuDump(), -1);
        for (QLabel *l : w.statusBar()->findChildren<QLabel *>())
            QVERIFY2(!l->isVisible() || !l->text().startsWith(QLatin1String("Run: ")), qPrintable(l->text()));
        QVERIFY(w.context()->selectedDump() != dumpA);
        QVERIFY(w.graph()->dump() != dumpA);

        // close B: the empty state
        w.closeDump(dumpB);
        QCOMPARE(model->rowCount(), 0);
        QCOMPARE(w.overflow()->list()->topLevelItemCount(), 0);
        QVERIFY(w.overflow()->stateText().startsWith(QLatin1String("Open a dump")));
        QVERIFY(!overflowStatus(w)->isVisible());
        QCOMPARE(w.opTable()->model()->rowCount(), 0);
        QCOMPARE(w.runsPanel()->model()->rowCount(), 0);
        QCOMPARE(w.runsPanel()->runChooser()->count(), 0);
        QCOMPARE(w.runsPanel()->statusText(), QString());
        QTRY_VERIFY(!w.trendsPanel()->isBusy());
        QVERIFY(!w.trendsPanel()->table() || w.trendsPanel()->table()->empty());
        QCOMPARE(w.trendsPanel()->hoverText(), QString());
        QCOMPARE(w.context()->selectedDump(), -1);
        QCOMPARE(w.graph()->dump(), -1);
        QVERIFY(!w.closeDumpAction()->isEnabled());
        // a dump opened now gets a new number and its own answer
        QVERIFY(openAll(w, {a}));
        QCOMPARE(model->dumpIds().size(), 1);
        QVERIFY(model->dumpIds().front() > dumpB);
        QVERIFY(overflowStatus(w)->text().startsWith(QLatin1String("First overflow: resnet/layer2/block0/conv2/Conv2D")));
    }

    /// Closing a dump while it indexes: the indexing stops, nothing of it appears afterwards.
    void closeWhileIndexing()
    {
        MainWindow w;
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps"));
        QTRY_VERIFY(w.context()->indexingDump() >= 0);
        const int dump = w.context()->indexingDump();
        w.closeDump(dump);
        QCOMPARE(w.context()->treeModel()->rowCount(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!w.context()->isIndexing(), 30000);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(w.context()->treeModel()->rowCount(), 0);
        QCOMPARE(w.overflow()->list()->topLevelItemCount(), 0);
        w.openPath(QStringLiteral(DUMPSCOPE_SAMPLES "/overflow/vector")); // the next one loads as usual
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(w.context()->treeModel()->rowCount(), 1);
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
