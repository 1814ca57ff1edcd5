#include "benchoperatorspanel.h"
#include "compare/comparereport.h"
#include "comparehistograms.h"
#include "compareview.h"
#include "index/buildindex.h"
#include "index/tensorloader.h"
#include "mappingpanel.h"
#include "models/comparetablemodel.h"

#include "tsfile.h"
#include "../core/testcsv.h"
#include "../core/runcorpus.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDrag>
#include <QMouseEvent>
#include <QFile>
#include <QJsonArray>
#include <QLabel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QTranslator>
#include <qcustomplot.h>

using namespace ds;

namespace {

/// The source row of an NPU row name, or -1.
int rowOf(const CompareView &view, const QString &npuName)
{
    const auto result = view.model()->result();
    for (size_t i = 0; result && i < result->rows.size(); ++i)
        if (result->rows[i].npuName == npuName)
            return int(i);
    return -1;
}

/// Selects the table rows of an NPU operator and returns what dragging them carries.
std::unique_ptr<QMimeData> dragOperator(CompareView &view, const QString &op)
{
    view.table()->clearSelection();
    for (int r = 0; r < view.proxy()->rowCount(); ++r)
        if (view.model()->npuOperator(view.proxy()->mapToSource(view.proxy()->index(r, 0)).row()) == op)
            view.table()->selectionModel()->select(view.proxy()->index(r, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    return std::unique_ptr<QMimeData>(view.proxy()->mimeData(view.table()->selectionModel()->selectedIndexes()));
}

/// A drop as the widget receives it from the window system: enter, move and drop at the
/// centre of `target` (an index of the view's model).
bool dropOn(QAbstractItemView *view, const QModelIndex &target, const QMimeData *mime)
{
    view->scrollTo(target);
    const QPoint pos = view->visualRect(target).center();
    const Qt::DropActions actions = Qt::CopyAction | Qt::LinkAction;
    QDragEnterEvent enter(pos, actions, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &enter);
    QDragMoveEvent move(pos, actions, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &move);
    if (!enter.isAccepted() || !move.isAccepted())
        return false;
    QDropEvent drop(QPointF(pos), actions, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &drop);
    return drop.isAccepted();
}

QModelIndex benchRow(const CompareView &view, const QString &name)
{
    const BenchOperatorsPanel *panel = view.benchPanel();
    return panel->proxy()->mapFromSource(panel->model()->index(panel->model()->rowOf(name), 0));
}

/// Where a screenshot goes: DUMPSCOPE_SCREENSHOTS=<dir> if set (to look at it), otherwise a
/// temporary directory removed when the test ends.
QString screenshotPath(const QString &name)
{
    static QTemporaryDir scratch;
    const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS");
    return (dir.isEmpty() ? scratch.path() : dir) + QLatin1Char('/') + name;
}

/// The expected (numpy) row of a name.
QJsonObject expectedRow(const QJsonObject &situation, const QString &npuName)
{
    for (const auto r : situation[QStringLiteral("rows")].toArray())
        if (r[QStringLiteral("npu_name")].toString() == npuName)
            return r.toObject();
    return {};
}

/// Starts the comparison of an msprobe_real case's whole runs and waits for it.
bool compareCase(CompareView &view, const QJsonObject &c)
{
    const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/");
    auto npu = buildIndex(root + c[QStringLiteral("npu")].toString());
    if (!npu)
        return false;
    QSignalSpy finished(&view, &CompareView::finished);
    view.start(*npu, 0, root + c[QStringLiteral("bench")].toString());
    return finished.wait(60000) || finished.count() > 0;
}

/// Tick labels of an axis as drawn: each label's extent along the axis (pixels), in order.
std::vector<std::pair<double, double>> tickLabelSpans(QCPAxis *axis)
{
    std::vector<std::pair<double, double>> spans;
    const QFontMetrics fm(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    for (qsizetype i = 0; i < ticks.size() && i < labels.size(); ++i) {
        if (!axis->range().contains(ticks[i]))
            continue;
        const double at = axis->coordToPixel(ticks[i]);
        const double half = axis->orientation() == Qt::Horizontal ? fm.horizontalAdvance(labels[i]) / 2.0 : fm.height() / 2.0;
        spans.emplace_back(std::min(at - half, at + half), std::max(at - half, at + half));
    }
    std::sort(spans.begin(), spans.end());
    return spans;
}

} // namespace

/// The compare view on the sample pair: rows and the first divergence as the manifest (numpy)
/// says, the divergence pinned on top, and a row's worst element equal to numpy's MaxAbsErr.
class TestCompareView : public QObject
{
    Q_OBJECT
private slots:
    void samplePair()
    {
        QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/manifest.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(f.readAll())[QStringLiteral("compare")].toArray().first().toObject();
        QVERIFY(!expected.isEmpty());
        auto npu = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/") + expected[QStringLiteral("npu_path")].toString());
        QVERIFY(npu);

        CompareView view;
        view.resize(1200, 800);
        view.show();
        QSignalSpy finished(&view, &CompareView::finished);
        QSignalSpy detail(&view, &CompareView::detailReady);
        view.start(*npu, 0, QStringLiteral(DUMPSCOPE_SAMPLES "/") + expected[QStringLiteral("bench_path")].toString());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QCOMPARE(view.model()->rowCount(), expected[QStringLiteral("rows")].toInt());

        // The first divergence is pinned on top and selected.
        const QString origin = expected[QStringLiteral("first_divergence")].toObject()[QStringLiteral("row")].toString();
        const QModelIndex top = view.proxy()->index(0, CompareTableModel::NpuName);
        QCOMPARE(top.data().toString(), origin);
        QVERIFY(top.data(CompareTableModel::PinnedRole).toBool());
        QTRY_COMPARE_WITH_TIMEOUT(detail.count(), 1, 30000);
        QVERIFY(view.statsTable()->item(0, 0));
        view.proxy()->setText(QStringLiteral("layer1/MatMul.output"));
        QCOMPARE(view.proxy()->index(0, CompareTableModel::NpuName).data().toString(), origin); // still pinned

        // A compared row: its worst element is numpy's MaxAbsErr.
        QJsonObject row;
        for (const auto r : expected[QStringLiteral("expected_rows")].toArray())
            if (r[QStringLiteral("npu_name")].toString() == QStringLiteral("layer1/MatMul.output.0"))
                row = r.toObject();
        QVERIFY(!row.isEmpty());
        const double maxAbs = row[QStringLiteral("metrics")].toObject()[QStringLiteral("max_abs_err")].toDouble();
        QCOMPARE(view.proxy()->rowCount(), 2);
        view.table()->setCurrentIndex(view.proxy()->index(1, 0));
        QTRY_COMPARE_WITH_TIMEOUT(detail.count(), 2, 30000);
        QVERIFY(view.detail() && !view.detail()->worst.empty());
        QVERIFY2(std::abs(view.detail()->worst.front().absErr - maxAbs) <= 1e-6 * maxAbs,
                 qPrintable(QStringLiteral("%1 vs %2").arg(view.detail()->worst.front().absErr).arg(maxAbs)));
        QCOMPARE(view.worstTable()->rowCount(), int(view.detail()->worst.size()));
        // The heatmap's error tensors: their maxima are numpy's MaxAbsErr and MaxRelativeErr.
        auto maxOf = [](const std::shared_ptr<const LoadedTensor> &t) {
            double m = -1;
            for (size_t i = 0; t && i < t->view.count; ++i)
                m = std::max(m, double(reinterpret_cast<const float *>(t->view.data)[i]));
            return m;
        };
        QCOMPARE(view.heatmapKindCombo()->currentIndex(), 0);
        QVERIFY2(std::abs(maxOf(view.heatmapTensor()) - maxAbs) <= 1e-6 * maxAbs, qPrintable(QString::number(maxOf(view.heatmapTensor()))));
        view.heatmapKindCombo()->setCurrentIndex(1);
        const double maxRel = row[QStringLiteral("metrics")].toObject()[QStringLiteral("max_relative_err")].toDouble();
        QVERIFY2(std::abs(maxOf(view.heatmapTensor()) - maxRel) <= 1e-6 * maxRel,
                 qPrintable(QStringLiteral("%1 vs numpy %2").arg(maxOf(view.heatmapTensor())).arg(maxRel)));

        // Verdict filter: errors only (the pinned row stays).
        view.proxy()->setText({});
        view.proxy()->setMinimumVerdict(Verdict::Error);
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            QCOMPARE(Verdict(view.proxy()->index(r, 0).data(CompareTableModel::VerdictRole).toInt()), Verdict::Error);
        QVERIFY(view.grab().save(screenshotPath(QStringLiteral("compareview.png"))));
    }

    /// A real mouse drag (press on a row, move past the start distance) starts a QDrag that
    /// carries the row's NPU operator. The offscreen platform ends every QDrag at once, so the
    /// drop itself is delivered as window-system events in mappingEdits().
    /// A pair written by the real msprobe 26 (samples/msprobe_real): the view pins the origin the
    /// CLI's JSON names (compareJson of the same comparison) and says why: the parameter, its
    /// module; the msprobe Result column shows msprobe's verdict.
    void msprobeRealPairOrigin()
    {
        const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/");
        auto npu = buildIndex(root + QStringLiteral("npu_weight_statistics_mix/step1/rank0"));
        auto bench = buildIndex(root + QStringLiteral("base_statistics_mix/step1/rank0"));
        QVERIFY(npu && bench);
        const QJsonObject report =
            QJsonDocument::fromJson(compareJson(**npu, **bench, compareIndexes(**npu, **bench))).object();
        const QJsonObject d = report[QStringLiteral("first_divergence")].toArray().first().toObject();
        const QString row = d[QStringLiteral("origin")].toObject()[QStringLiteral("row_name")].toString();
        const QString parameter = d[QStringLiteral("parameter")].toObject()[QStringLiteral("name")].toString();
        const QString module = d[QStringLiteral("modules")].toArray().first().toObject()[QStringLiteral("name")].toString();
        QCOMPARE(row, QStringLiteral("Functional.conv2d.0.forward.input.1")); // expected.json's designed answer
        QCOMPARE(parameter, QStringLiteral("conv.weight"));

        CompareView view;
        view.resize(1200, 800);
        view.show();
        QSignalSpy finished(&view, &CompareView::finished);
        view.start(*npu, 0, root + QStringLiteral("base_statistics_mix/step1/rank0"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        const QModelIndex top = view.proxy()->index(0, CompareTableModel::NpuName);
        QCOMPARE(top.data().toString(), row);
        QVERIFY(top.data(CompareTableModel::PinnedRole).toBool());
        QCOMPARE(view.proxy()->headerData(CompareTableModel::MsprobeResult, Qt::Horizontal).toString(), QStringLiteral("msprobe Result"));
        const int source = view.proxy()->mapToSource(top).row();
        QCOMPARE(view.proxy()->index(0, CompareTableModel::MsprobeResult).data().toString(),
                 view.model()->result()->rows[size_t(source)].result);
        bool said = false;
        for (const QLabel *label : view.findChildren<QLabel *>())
            said = said || (label->text().contains(QStringLiteral("parameter %1 differs at its first use").arg(parameter))
                            && label->text().contains(module) && label->text().contains(QStringLiteral("Functional.conv2d.0.forward")));
        QVERIFY2(said, "the summary does not name the origin, its parameter and module");
    }

    /// Issue 30: DumpScope's verdict and msprobe's Result on a pair written by the real msprobe.
    /// Both are columns with headers that say whose they are; the summary counts both from the
    /// rows; msprobe's counts equal those of msprobe's own CSVs; every row where the two differ
    /// says why (msprobe's rule from its Err_message, DumpScope's from its highlights), the
    /// others say nothing.
    void bothVerdicts_data()
    {
        QTest::addColumn<QString>("caseId");
        for (const char *id : {"weight_tensor_mix", "rank1_statistics_mix", "bf16_tensor_mix", "bf16_statistics_mix"})
            QTest::addRow("%s", id) << QString::fromLatin1(id);
    }
    void bothVerdicts()
    {
        QFETCH(QString, caseId);
        QStandardPaths::setTestModeEnabled(true); // default thresholds
        const QJsonObject c = runcorpus::caseById(caseId);
        QVERIFY(!c.isEmpty());
        CompareView view;
        if (!(view.thresholds() == CompareThresholds{}))
            view.setThresholds({});
        view.resize(1200, 800);
        view.show();
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(compareCase(view, c));
        const CompareTableModel *model = view.model();
        QCOMPARE(model->headerData(CompareTableModel::Verdict, Qt::Horizontal).toString(), QStringLiteral("DumpScope verdict"));
        QCOMPARE(model->headerData(CompareTableModel::MsprobeResult, Qt::Horizontal).toString(), QStringLiteral("msprobe Result"));
        QVERIFY(model->headerData(CompareTableModel::Verdict, Qt::Horizontal, Qt::ToolTipRole).toString().startsWith(QStringLiteral("DumpScope's own verdict")));
        QVERIFY(model->headerData(CompareTableModel::MsprobeResult, Qt::Horizontal, Qt::ToolTipRole).toString().startsWith(QStringLiteral("msprobe 26's Result")));

        // Both verdicts counted from the table's cells.
        std::map<QString, qint64> mine, theirs;
        qint64 differ = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QString d = verdictName(Verdict(model->index(r, CompareTableModel::Verdict).data(CompareTableModel::VerdictRole).toInt()));
            const QString m = model->index(r, CompareTableModel::MsprobeResult).data().toString();
            ++mine[d];
            ++theirs[m];
            differ += d != m;
        }
        // msprobe's counts: its own CSVs of every step and rank (expected.json).
        std::map<QString, qint64> csvCounts;
        const QJsonObject ms = c[QStringLiteral("msprobe")].toObject();
        for (const QString &step : ms.keys())
            for (const auto rank : ms[step][QStringLiteral("compare_csv")].toObject()) {
                const QJsonObject counts = rank[QStringLiteral("result_counts")].toObject();
                for (auto it = counts.begin(); it != counts.end(); ++it)
                    csvCounts[it.key()] += it.value().toInteger();
            }
        for (const QString &v : {QStringLiteral("pass"), QStringLiteral("warning"), QStringLiteral("error")})
            QVERIFY2(theirs[v] == csvCounts[v], qPrintable(QStringLiteral("%1: %2 rows vs %3 in msprobe's CSVs").arg(v).arg(theirs[v]).arg(csvCounts[v])));
        QVERIFY2(differ > 0, "the case is chosen for rows where the two disagree");
        const QString summary = view.summary()->text();
        const QString dumpscopeLine = QStringLiteral("DumpScope verdict: %1 pass, %2 warning, %3 error, %4 not compared.")
                                          .arg(mine[QStringLiteral("pass")]).arg(mine[QStringLiteral("warning")]).arg(mine[QStringLiteral("error")]).arg(mine[QStringLiteral("none")]);
        const QString msprobeLine = QStringLiteral("msprobe Result: %1 pass, %2 warning, %3 error \u2014 differs from DumpScope's verdict on %4 row(s).")
                                        .arg(csvCounts[QStringLiteral("pass")]).arg(csvCounts[QStringLiteral("warning")]).arg(csvCounts[QStringLiteral("error")]).arg(differ);
        QVERIFY2(summary.contains(dumpscopeLine), qPrintable(summary));
        QVERIFY2(summary.contains(msprobeLine), qPrintable(summary));
        QCOMPARE(model->differingRows(), differ);

        // Rows of step 0 / rank 0 against msprobe's own CSV of that rank: its Result as it wrote
        // it, and where the two differ, the row says why.
        const QJsonObject csvInfo = ms[QStringLiteral("step0")][QStringLiteral("compare_csv")][QStringLiteral("rank0")].toObject();
        const QList<QStringList> csv = testcsv::readFile(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/") + csvInfo[QStringLiteral("file")].toString());
        QCOMPARE(csv.size() - 1, csvInfo[QStringLiteral("rows")].toInt());
        const QStringList header = csv.front();
        const int name = int(header.indexOf(QStringLiteral("NPU Name"))), result = int(header.indexOf(QStringLiteral("Result"))),
                  message = int(header.indexOf(QStringLiteral("Err_message"))), npuDtype = int(header.indexOf(QStringLiteral("NPU Dtype"))),
                  benchDtype = int(header.indexOf(QStringLiteral("Bench Dtype")));
        QVERIFY(name >= 0 && result >= 0 && message >= 0 && npuDtype >= 0 && benchDtype >= 0);
        std::map<QString, QStringList> byName;
        for (qsizetype i = 1; i < csv.size(); ++i)
            byName[csv[i][name]] = csv[i];
        const auto rows = model->result();
        int checked = 0, explained = 0;
        for (size_t i = 0; i < rows->rows.size(); ++i) {
            const CompareRow &row = rows->rows[i];
            const DumpLevels &l = *view.npuIndex()->op(row.npu).levels;
            if (l.step != QLatin1String("step0") || l.rank != QLatin1String("rank0"))
                continue;
            const auto it = byName.find(row.npuName);
            QVERIFY2(it != byName.end(), qPrintable(row.npuName));
            const QStringList &m = it->second;
            QCOMPARE(model->index(int(i), CompareTableModel::MsprobeResult).data().toString(), m[result]);
            ++checked;
            const QString why = model->index(int(i), CompareTableModel::VerdictsDiffer).data().toString();
            if (m[result] == verdictName(row.verdict)) {
                QVERIFY2(why.isEmpty(), qPrintable(row.npuName + QStringLiteral(": ") + why));
                continue;
            }
            QVERIFY2(!why.isEmpty(), qPrintable(row.npuName));
            ++explained;
            const int theirLevel = m[result] == QLatin1String("error") ? 3 : m[result] == QLatin1String("warning") ? 2 : 1;
            if (theirLevel > int(row.verdict)) { // msprobe's rule decided: named from its Err_message
                const QString err = m[message];
                if (err.contains(QLatin1String("dtype")))
                    QVERIFY2(why.contains(QStringLiteral("(%1 vs %2)").arg(m[npuDtype], m[benchDtype])), qPrintable(why));
                if (err.contains(QLatin1String("norm relative error")) || err.contains(QLatin1String("NormRelativeErr")))
                    QVERIFY2(why.contains(QLatin1String("NormRelativeErr")), qPrintable(why));
                if (err.contains(QLatin1String("Cosine")))
                    QVERIFY2(why.contains(QLatin1String("cosine")), qPrintable(why));
                QVERIFY2(why.contains(QLatin1String("msprobe")) && why.contains(QLatin1String("DumpScope")), qPrintable(why));
            } else { // DumpScope's rule decided: its own reasons are named
                for (const QString &h : row.highlights) // §5's Gen B phrase is said in words
                    QVERIFY2(why.contains(h == QLatin1String("Need double check api accuracy.")
                                              ? QStringLiteral("a recorded statistic differs by more than 50 % of the larger value")
                                              : h),
                             qPrintable(why + QStringLiteral(" lacks ") + h));
                QVERIFY2(why.contains(QLatin1String("msprobe")), qPrintable(why));
            }
        }
        QCOMPARE(checked, csvInfo[QStringLiteral("rows")].toInt());
        QVERIFY(explained > 0);
        // The filter keeps the rows that differ (and the pinned first divergence).
        view.proxy()->setDifferingOnly(true);
        int shown = 0;
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            shown += view.proxy()->index(r, 0).data(CompareTableModel::DiffersRole).toBool();
        QCOMPARE(qint64(shown), differ);
    }

    /// Issue 30: the pinned row is the first divergence the run-level answer names (the earliest
    /// step, then the earliest on the communication-op clock), as designed in expected.json; its
    /// verdict cell and the detail show that row's own verdicts and numbers, not a default.
    void pinnedRowIsTheRunsFirstDivergence_data()
    {
        QTest::addColumn<QString>("caseId");
        for (const char *id : {"rank1_statistics_mix", "bf16_tensor_mix", "weight_tensor_mix", "step1_statistics_mix"})
            QTest::addRow("%s", id) << QString::fromLatin1(id);
    }
    void pinnedRowIsTheRunsFirstDivergence()
    {
        QFETCH(QString, caseId);
        QStandardPaths::setTestModeEnabled(true);
        const QJsonObject c = runcorpus::caseById(caseId);
        const QJsonObject designed = c[QStringLiteral("designed")].toObject();
        const QJsonObject first = designed[QStringLiteral("run_first_divergence")].toObject();
        const QString scope = QStringLiteral("step%1/rank%2").arg(first[QStringLiteral("step")].toInt()).arg(first[QStringLiteral("rank")].toInt());
        const QString origin = designed[QStringLiteral("per_scope_origin")][scope][QStringLiteral("row")].toString();
        QVERIFY(!origin.isEmpty());
        CompareView view;
        if (!(view.thresholds() == CompareThresholds{}))
            view.setThresholds({});
        view.resize(1200, 800);
        view.show();
        QSignalSpy detail(&view, &CompareView::detailReady);
        QVERIFY(compareCase(view, c));
        QTRY_VERIFY_WITH_TIMEOUT(detail.count() > 0, 30000);

        const QModelIndex top = view.proxy()->index(0, CompareTableModel::NpuName);
        QVERIFY(top.data(CompareTableModel::PinnedRole).toBool());
        QCOMPARE(view.table()->currentIndex().row(), 0); // selected: the detail is its
        const int source = view.proxy()->mapToSource(top).row();
        const CompareRow &row = view.model()->result()->rows[size_t(source)];
        const DumpLevels &levels = *view.npuIndex()->op(row.npu).levels;
        QCOMPARE(levels.step + QLatin1Char('/') + levels.rank, scope);
        QCOMPARE(row.npuName, origin);
        QVERIFY(row.npuName.startsWith(first[QStringLiteral("op")].toString() + QLatin1Char('.')));
        QCOMPARE(view.model()->firstDivergence()->originRow, source);
        QVERIFY(view.summary()->text().contains(QStringLiteral("First divergence: ") + first[QStringLiteral("op")].toString()));

        // The verdict cell: the row's own verdict first, then why it starts the divergence.
        const QString cell = view.proxy()->index(0, CompareTableModel::Verdict).data().toString();
        QVERIFY2(cell.startsWith(CompareTableModel::verdictText(row.verdict) + QStringLiteral(" \u00b7 first divergence: ")), qPrintable(cell));
        // The detail: that row's verdicts, why it is the first divergence, its numbers.
        const QString text = view.detailStatus()->text();
        QVERIFY2(text.contains(QStringLiteral("DumpScope verdict: %1 \u00b7 msprobe Result: %2").arg(CompareTableModel::verdictText(row.verdict), row.result)),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("first divergence: ") + view.model()->firstDivergenceReason()), qPrintable(text));
        if (designed.contains(QStringLiteral("dtype_pair"))) {
            const QJsonArray pair = designed[QStringLiteral("dtype_pair")].toArray();
            QVERIFY2(text.contains(QStringLiteral("%1 vs %2").arg(pair[0].toString(), pair[1].toString())), qPrintable(text));
        }
        if (!row.resultMessages.isEmpty() || verdictName(row.verdict) != row.result)
            QVERIFY2(text.contains(QStringLiteral("They differ: ") + view.model()->verdictDifference(source)), qPrintable(text));
        if (row.mode == CompareMode::Tensor) { // numbers of this pair, counted here from both tensors
            auto a = loadTensor(*view.npuIndex(), row.npu, LayoutChoice::Logical);
            auto b = loadTensor(*view.model()->benchIndex(), row.bench, LayoutChoice::Logical);
            QVERIFY(a && b && (*a)->view.count == (*b)->view.count);
            std::uint64_t equal = 0;
            for (size_t i = 0; i < (*a)->view.count; ++i)
                equal += elemToDouble((*a)->view.elem, (*a)->view.data, i) == elemToDouble((*b)->view.elem, (*b)->view.data, i);
            QVERIFY2(text.contains(QStringLiteral("%1 of %2 elements exactly equal").arg(equal).arg((*a)->view.count)), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("Cosine %1, MaxAbsErr %2")
                                       .arg(QString::number(row.metrics[size_t(Metric::Cosine)].value, 'g', 6),
                                            QString::number(row.metrics[size_t(Metric::MaxAbsErr)].value, 'g', 6))),
                     qPrintable(text));
        } else {
            QVERIFY2(text.contains(QStringLiteral("statistics only")), qPrintable(text));
        }
    }

    /// Issue 30: the side-by-side histograms are readable where the Compare tab sits beside the
    /// docks: 400 x 690 (the tab in a 1280 x 800 window with the default docks) and 620 x 790
    /// (1600 x 900). Each plot keeps a readable axis rect, the legend is outside the bars, no two
    /// tick labels touch, the row's text ends above the plots. Screenshots: docs/screenshots/compare-*.png.
    void histogramsReadable_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addRow("tab at 1280x800") << QSize(400, 690);
        QTest::addRow("tab at 1600x900") << QSize(620, 790);
        QTest::addRow("wide") << QSize(1400, 900);
    }
    void histogramsReadable()
    {
        QFETCH(QSize, size);
        auto npu = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/compare/npu"));
        QVERIFY(npu);
        CompareView view;
        view.resize(size);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.width(), size.width());
        QSignalSpy detail(&view, &CompareView::detailReady);
        view.start(*npu, 0, QStringLiteral(DUMPSCOPE_SAMPLES "/compare/bench"));
        QTRY_VERIFY_WITH_TIMEOUT(detail.count() > 0, 30000);
        QCOMPARE(view.isNarrow(), size.width() < 1000);
        QTRY_VERIFY(view.histograms()->isVisible()); // the first tab of the detail
        QCoreApplication::sendPostedEvents(); // the layouts after the detail's text
        QCoreApplication::processEvents();
        // The row's text ends above the histograms (it scrolls when longer than its lines).
        const QRect text(view.detailStatus()->mapTo(&view, QPoint()), view.detailStatus()->visibleRegion().boundingRect().size());
        QVERIFY2(text.bottom() < view.histograms()->mapTo(&view, QPoint()).y(),
                 qPrintable(QStringLiteral("text bottom %1, histograms top %2").arg(text.bottom()).arg(view.histograms()->mapTo(&view, QPoint()).y())));
        for (QCustomPlot *plot : {view.histograms()->valuePlot(), view.histograms()->errorPlot()}) {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const QRect axis = plot->axisRect()->rect();
            QVERIFY2(axis.width() >= 120 && axis.height() >= 110,
                     qPrintable(QStringLiteral("plot area %1 x %2").arg(axis.width()).arg(axis.height())));
            if (plot->legend->visible()) {
                QVERIFY(plot->legend->itemCount() == 2);
                QVERIFY2(!plot->legend->outerRect().intersects(axis), "the legend covers the bars");
            }
            for (QCPAxis *a : {plot->xAxis, plot->yAxis}) {
                const auto spans = tickLabelSpans(a);
                QVERIFY2(spans.size() >= 2, qPrintable(QStringLiteral("%1 tick labels").arg(spans.size())));
                for (size_t i = 1; i < spans.size(); ++i)
                    QVERIFY2(spans[i].first - spans[i - 1].second >= 4,
                             qPrintable(QStringLiteral("tick labels %1 and %2 touch").arg(a->tickVectorLabels().value(qsizetype(i) - 1), a->tickVectorLabels().value(qsizetype(i)))));
            }
        }
        const QString name = QStringLiteral("compare_%1x%2.png").arg(size.width()).arg(size.height());
        QVERIFY(view.grab().save(screenshotPath(name)));
    }

    /// The tick labels of the compare histograms never touch, down to the plots of the old
    /// layout (about 120 px each, where "0.05 0.1 0.15" ran together), on the ranges of the
    /// real pairs: |NPU - bench| up to 0.25 (weight_tensor_mix) and values from -8.4 to 12.2
    /// (samples/compare), counts up to hundreds.
    void histogramTicksNeverTouch_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        for (const QSize size : {QSize(360, 150), QSize(300, 300), QSize(420, 230), QSize(620, 300), QSize(900, 300)}) {
            QTest::addRow("%dx%d error 0..0.25", size.width(), size.height()) << size << 0.0 << 0.25;
            QTest::addRow("%dx%d values -8.45..12.2", size.width(), size.height()) << size << -8.4453125 << 12.210938;
            QTest::addRow("%dx%d values -0.176..0.41", size.width(), size.height()) << size << -0.17585821 << 0.40964866;
        }
    }
    void histogramTicksNeverTouch()
    {
        QFETCH(QSize, size);
        QFETCH(double, lo);
        QFETCH(double, hi);
        CompareHistograms plots;
        plots.resize(size);
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        Histogram npu, bench;
        npu.lo = bench.lo = lo;
        npu.hi = bench.hi = hi;
        for (int i = 0; i < 64; ++i) {
            npu.counts.push_back(std::uint64_t(200 - std::abs(i - 32) * 6));
            bench.counts.push_back(std::uint64_t(180 - std::abs(i - 30) * 5));
        }
        plots.setValues(npu, bench);
        plots.setError(npu);
        for (QCustomPlot *plot : {plots.valuePlot(), plots.errorPlot()}) {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            for (QCPAxis *a : {plot->xAxis, plot->yAxis}) {
                const auto spans = tickLabelSpans(a);
                QVERIFY2(spans.size() >= 2, qPrintable(QStringLiteral("%1 tick labels").arg(spans.size())));
                for (size_t i = 1; i < spans.size(); ++i)
                    QVERIFY2(spans[i].first - spans[i - 1].second >= 4, qPrintable(QStringLiteral("tick labels %1 touch on a %2 px plot")
                                                                                      .arg(a->tickVectorLabels().join(QLatin1Char(' ')))
                                                                                      .arg(plot->width())));
            }
            if (plot->legend->visible())
                QVERIFY(!plot->legend->outerRect().intersects(plot->axisRect()->rect()));
        }
    }

    /// Beside the docks the bench operators are a tab below the rows: dragging rows over that
    /// tab opens it, so a drop on a bench operator stays one gesture.
    void narrowDragOpensBenchOperators()
    {
        auto npu = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/compare_mapping/npu"));
        QVERIFY(npu);
        CompareView view;
        view.resize(500, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy finished(&view, &CompareView::finished);
        view.start(*npu, 0, QStringLiteral(DUMPSCOPE_SAMPLES "/compare_mapping/bench"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QVERIFY(view.isNarrow());
        QTabWidget *tabs = view.sideTabs();
        QVERIFY(tabs->currentWidget() != view.benchPanel()); // the selected row's detail first
        auto mime = dragOperator(view, QStringLiteral("npu_gelu_fast"));
        QVERIFY(mime);
        QTabBar *bar = tabs->tabBar();
        const QPoint pos = bar->tabRect(tabs->indexOf(view.benchPanel())).center();
        QDragEnterEvent enter(pos, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(bar, &enter);
        QDragMoveEvent move(pos, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(bar, &move);
        QTRY_VERIFY_WITH_TIMEOUT(tabs->currentWidget() == view.benchPanel(), 5000);
        QDragLeaveEvent leave;
        QCoreApplication::sendEvent(bar, &leave);
        // Wide again: the panels beside the rows, the detail below them.
        view.resize(1300, 800);
        QTRY_VERIFY(!view.isNarrow());
        QCOMPARE(tabs->count(), 2);
        QVERIFY(view.histograms()->isVisible() || view.histograms()->parentWidget()->isVisible());
    }

    /// Issue 30: the verdict words and the summary are translated (expectations from the .ts).
    void verdictWordsInChinese()
    {
        const QString pass = tsTranslation(QStringLiteral("ds::CompareTableModel"), QStringLiteral("pass"));
        const QString notCompared = tsTranslation(QStringLiteral("ds::CompareTableModel"), QStringLiteral("not compared"));
        const QString line = tsTranslation(QStringLiteral("ds::CompareView"), QStringLiteral("DumpScope verdict: %1 pass, %2 warning, %3 error, %4 not compared."));
        QVERIFY(!pass.isEmpty() && pass != QLatin1String("pass") && !notCompared.isEmpty() && !line.isEmpty());
        QTranslator translator;
        QVERIFY(translator.load(QStringLiteral(DUMPSCOPE_QM)));
        QCoreApplication::installTranslator(&translator);
        QCOMPARE(CompareTableModel::verdictText(Verdict::Pass), pass);
        QCOMPARE(CompareTableModel::verdictText(Verdict::None), notCompared);
        for (Verdict v : {Verdict::Warning, Verdict::Error})
            QVERIFY(CompareTableModel::verdictText(v) != verdictName(v));
        {
            auto npu = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/compare/npu"));
            QVERIFY(npu);
            CompareView view;
            view.resize(1200, 800);
            view.show();
            QSignalSpy finished(&view, &CompareView::finished);
            view.start(*npu, 0, QStringLiteral(DUMPSCOPE_SAMPLES "/compare/bench"));
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
            const VerdictCounts n = view.model()->dumpscopeCounts();
            QVERIFY2(view.summary()->text().contains(line.arg(n.pass).arg(n.warning).arg(n.error).arg(n.none)), qPrintable(view.summary()->text()));
            QCOMPARE(view.model()->headerData(CompareTableModel::Verdict, Qt::Horizontal).toString(),
                     tsTranslation(QStringLiteral("ds::CompareTableModel"), QStringLiteral("DumpScope verdict")));
        }
        QCoreApplication::removeTranslator(&translator);
        QCOMPARE(CompareTableModel::verdictText(Verdict::Pass), QStringLiteral("pass"));
    }

    void mouseDragCarriesNpuOperator()
    {
        auto npu = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/compare_mapping/npu"));
        QVERIFY(npu);
        CompareView view;
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy finished(&view, &CompareView::finished);
        view.start(*npu, 0, QStringLiteral(DUMPSCOPE_SAMPLES "/compare_mapping/bench"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        view.proxy()->setText(QStringLiteral("npu_gelu_fast.output"));
        QModelIndex row;
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            if (view.proxy()->index(r, CompareTableModel::NpuName).data().toString() == QStringLiteral("npu_gelu_fast.output.0"))
                row = view.proxy()->index(r, CompareTableModel::NpuName);
        QVERIFY(row.isValid());
        QWidget *viewport = view.table()->viewport();
        const QPoint from = view.table()->visualRect(row).center();
        QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, from);
        QVERIFY(view.table()->selectionModel()->isRowSelected(row.row(), {}));
        const int step = QApplication::startDragDistance() + 2;
        QDrag *drag = nullptr;
        for (int i = 1; i <= 4 && !drag; ++i) {
            const QPoint to = from + QPoint(0, step * i);
            QMouseEvent move(QEvent::MouseMove, QPointF(to), viewport->mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton,
                             Qt::NoModifier);
            QCoreApplication::sendEvent(viewport, &move);
            drag = view.table()->findChild<QDrag *>(); // ended at once offscreen; deleted on the next loop turn
        }
        QVERIFY(drag && drag->mimeData());
        QCOMPARE(npuOperatorsFromMime(drag->mimeData()), QStringList{QStringLiteral("npu_gelu_fast")});
        QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, from);
    }

    /// samples/compare_mapping: two NPU operators have other names than their bench
    /// counterparts. They are mapped by a drop on a table row (a wrong target), corrected with
    /// the "Map to bench operator…" chooser, and a fused operator is mapped to two bench
    /// operators by a drop on a multi-selection (an N:M group). After each edit the rows are
    /// compared in the background and must equal numpy's values; the saved mapping reads back
    /// and gives the CLI the same rows.
    void mappingEdits()
    {
        QStandardPaths::setTestModeEnabled(true); // default thresholds, nothing from the user's settings
        QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/compare_mapping/expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(f.readAll()).object();
        const QString npuPath = QStringLiteral(DUMPSCOPE_SAMPLES "/") + expected[QStringLiteral("npu_path")].toString();
        const QString benchPath = QStringLiteral(DUMPSCOPE_SAMPLES "/") + expected[QStringLiteral("bench_path")].toString();
        const QJsonObject unmapped = expected[QStringLiteral("unmapped")].toObject(), mapped = expected[QStringLiteral("mapped")].toObject();
        auto npu = buildIndex(npuPath);
        QVERIFY(npu);

        CompareView view;
        if (!(view.thresholds() == CompareThresholds{}))
            view.setThresholds({});
        view.resize(1200, 800);
        view.show();
        // the models stay consistent through the re-matches (updateResult, resets, filters)
        using Tester = QAbstractItemModelTester;
        Tester t1(view.model(), Tester::FailureReportingMode::QtTest), t2(view.proxy(), Tester::FailureReportingMode::QtTest);
        Tester t3(view.benchPanel()->model(), Tester::FailureReportingMode::QtTest);
        Tester t4(view.benchPanel()->proxy(), Tester::FailureReportingMode::QtTest);
        QSignalSpy finished(&view, &CompareView::finished);
        QSignalSpy applied(&view, &CompareView::mappingApplied);
        view.start(*npu, 0, benchPath);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);

        // Unmatched NPU rows are listed without a bench tensor; the bench operators nothing
        // matched are highlighted in the list beside.
        const int gelu = rowOf(view, QStringLiteral("npu_gelu_fast.output.0"));
        QVERIFY(gelu >= 0);
        QCOMPARE(view.model()->index(gelu, CompareTableModel::BenchName).data().toString(), QString());
        QCOMPARE(view.model()->index(gelu, CompareTableModel::Reasons).data().toString(), QStringLiteral("UNMATCHED_BENCH"));
        BenchOperatorsPanel *panel = view.benchPanel();
        QCOMPARE(panel->model()->rowCount(), 5);
        QStringList unmatchedOps;
        for (int r = 0; r < panel->model()->rowCount(); ++r)
            if (BenchOperatorModel::State(panel->model()->index(r, 0).data(BenchOperatorModel::StateRole).toInt())
                == BenchOperatorModel::State::Unmatched)
                unmatchedOps << panel->model()->name(r);
        QCOMPARE(unmatchedOps, expected[QStringLiteral("unmapped_bench_ops")].toVariant().toStringList());
        panel->unmatchedOnly()->setChecked(true);
        QCOMPARE(panel->proxy()->rowCount(), 3);
        QTest::keyClicks(panel->filter(), QStringLiteral("gelu"));
        QCOMPARE(panel->proxy()->rowCount(), 1);
        panel->filter()->clear();
        panel->unmatchedOnly()->setChecked(false);
        QCOMPARE(unmapped[QStringLiteral("first_divergence")].toObject()[QStringLiteral("origin")].toString(), QStringLiteral("head/Softmax"));

        // 1. NPU rows dropped on a table row map to that row's bench operator; rows without a
        //    bench tensor take no drop.
        auto mime = dragOperator(view, QStringLiteral("npu_gelu_fast"));
        QVERIFY(mime);
        QCOMPARE(npuOperatorsFromMime(mime.get()), QStringList{QStringLiteral("npu_gelu_fast")});
        const QModelIndex noBench = view.proxy()->mapFromSource(view.model()->index(rowOf(view, QStringLiteral("fused/MatMulAdd.output.0")), 0));
        QVERIFY(!view.proxy()->canDropMimeData(mime.get(), Qt::CopyAction, -1, -1, noBench));
        const QModelIndex softmax = view.proxy()->mapFromSource(view.model()->index(rowOf(view, QStringLiteral("head/Softmax.output.0")), 0));
        QVERIFY(view.proxy()->dropMimeData(mime.get(), Qt::CopyAction, -1, -1, softmax));
        QVERIFY(view.isRemapping());
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 30000);
        QCOMPARE(view.mapping().names, (std::vector<std::pair<QString, QString>>{{"npu_gelu_fast", "head/Softmax"}}));
        QCOMPARE(view.model()->index(gelu, CompareTableModel::BenchName).data().toString(), QStringLiteral("head/Softmax.output.0"));
        QCOMPARE(view.model()->index(gelu, CompareTableModel::Reasons).data().toString(), QStringLiteral("SHAPE_MISMATCH"));
        QCOMPARE(view.model()->index(rowOf(view, QStringLiteral("head/Softmax.output.0")), CompareTableModel::BenchName).data().toString(),
                 QString()); // its bench tensors are taken
        QCOMPARE(view.mappingPanel()->table()->rowCount(), 1);

        // 2. Corrected with the chooser (the way without a mouse): npu_gelu_fast -> ffn/Gelu.
        view.table()->clearSelection();
        view.table()->setCurrentIndex(view.proxy()->mapFromSource(view.model()->index(gelu, 0)));
        bool chose = false;
        QTimer::singleShot(0, this, [&] {
            auto *chooser = qobject_cast<BenchOperatorChooser *>(QApplication::activeModalWidget());
            if (!chooser)
                return;
            QPushButton *ok = chooser->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
            const bool startsDisabled = !ok->isEnabled();
            QTest::keyClicks(chooser->panel()->filter(), QStringLiteral("ffn/"));
            chooser->panel()->table()->selectRow(0);
            chose = startsDisabled && chooser->panel()->proxy()->rowCount() == 1 && chooser->chosen() == QStringList{QStringLiteral("ffn/Gelu")}
                    && ok->isEnabled();
            if (chose)
                QTest::mouseClick(ok, Qt::LeftButton);
            else
                chooser->reject();
        });
        view.chooseBenchForSelection();
        QVERIFY(chose);
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 2, 30000);
        QCOMPARE(view.mapping().names, (std::vector<std::pair<QString, QString>>{{"npu_gelu_fast", "ffn/Gelu"}}));

        // 3. An N:M group: the fused NPU operator dropped on one of two selected bench operators.
        mime = dragOperator(view, QStringLiteral("fused/MatMulAdd"));
        QVERIFY(mime);
        panel->table()->clearSelection();
        for (const QString &name : {QStringLiteral("head/MatMul"), QStringLiteral("head/BiasAdd")})
            panel->table()->selectionModel()->select(benchRow(view, name), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QVERIFY(dropOn(panel->table(), benchRow(view, QStringLiteral("head/BiasAdd")), mime.get()));
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 3, 30000);
        QCOMPARE(view.mapping().groups.size(), size_t(1));
        QCOMPARE(view.mapping().groups[0].npu, QStringList{QStringLiteral("fused/MatMulAdd")});
        QCOMPARE(view.mapping().groups[0].bench, (QStringList{QStringLiteral("head/MatMul"), QStringLiteral("head/BiasAdd")}));
        QVERIFY(!view.isRemapping());

        // Every row now as numpy computed it with the mapping (names, metrics, verdicts).
        auto checkRows = [&](const QJsonObject &situation) {
            const auto result = view.model()->result();
            QCOMPARE(result->rows.size(), size_t(situation[QStringLiteral("rows")].toArray().size()));
            for (const CompareRow &row : result->rows) {
                const QJsonObject want = expectedRow(situation, row.npuName);
                QVERIFY2(!want.isEmpty(), qPrintable(row.npuName));
                QCOMPARE(row.benchName, want[QStringLiteral("bench_name")].toString());
                QCOMPARE(verdictName(row.verdict), want[QStringLiteral("verdict")].toString());
                const QJsonObject m = want[QStringLiteral("metrics")].toObject();
                for (Metric k : {Metric::Cosine, Metric::MaxAbsErr, Metric::MaxRelativeErr, Metric::EucDist,
                                 Metric::OneThousandthErrRatio, Metric::RootMeanSquareError}) {
                    if (m.isEmpty())
                        break;
                    const double got = row.metrics[size_t(k)].value, numpy = m[metricKey(k)].toDouble();
                    QVERIFY2(row.metrics[size_t(k)].isNumber() && std::abs(got - numpy) <= 1e-6 * std::max(1.0, std::abs(numpy)),
                             qPrintable(QStringLiteral("%1 %2: %3 vs numpy %4").arg(row.npuName, metricKey(k)).arg(got).arg(numpy)));
                }
            }
        };
        checkRows(mapped);
        if (QTest::currentTestFailed())
            return;
        const int fusedOut = rowOf(view, QStringLiteral("fused/MatMulAdd.output.0"));
        QCOMPARE(view.model()->index(fusedOut, CompareTableModel::Cosine).data().toString(),
                 formatMetric(view.model()->result()->rows[size_t(fusedOut)].metrics[size_t(Metric::Cosine)]));
        QCOMPARE(view.model()->index(rowOf(view, QStringLiteral("fused/MatMulAdd.input.2")), CompareTableModel::Reasons).data().toString(),
                 QStringLiteral("FUSED_AWAY"));
        QCOMPARE(view.model()->index(fusedOut, 0).data(CompareTableModel::SourceRole).toInt(), int(MatchSource::User));
        // The first divergence moved to the fused operator, pinned on top.
        const QJsonObject fd = mapped[QStringLiteral("first_divergence")].toObject();
        QCOMPARE(view.proxy()->index(0, CompareTableModel::NpuName).data().toString(), fd[QStringLiteral("origin")].toString() + QStringLiteral(".output.0"));
        QVERIFY(view.proxy()->index(0, 0).data(CompareTableModel::PinnedRole).toBool());
        QCOMPARE(int(view.model()->result()->divergences.front().chain.size()), int(fd[QStringLiteral("chain")].toArray().size()));
        // Nothing of the bench is left unmatched but head/MatMul's output (inside the group).
        QCOMPARE(panel->model()->count(BenchOperatorModel::State::Unmatched), 0);
        QCOMPARE(view.mappingPanel()->table()->rowCount(), 2);

        // Save: refused inside an opened dump, YAML cannot hold the group, JSON round-trips.
        QTemporaryDir dir;
        const QString inside = QDir(npuPath).filePath(QStringLiteral("mapping.json"));
        QVERIFY(!view.saveMapping(inside));
        QVERIFY(!QFile::exists(inside));
        auto yaml = view.saveMapping(dir.filePath(QStringLiteral("m.yaml")));
        QVERIFY(!yaml && yaml.errorText().contains(QStringLiteral("JSON")));
        const QString saved = dir.filePath(QStringLiteral("mapping.json"));
        auto ok = view.saveMapping(saved);
        QVERIFY2(ok, qPrintable(ok.errorText()));
        auto back = UserMapping::load(saved);
        QVERIFY2(back, qPrintable(back.errorText()));
        QVERIFY(*back == view.mapping());
        auto reference = UserMapping::parse(QJsonDocument(expected[QStringLiteral("mapping")].toObject()).toJson(), QStringLiteral("m.json"));
        QVERIFY(reference && *back == *reference);

        // The CLI with the saved mapping pairs and measures the rows as the view shows them.
        QProcess cli;
        cli.start(QStringLiteral(DUMPSCOPE_CLI), {QStringLiteral("compare"), npuPath, benchPath, QStringLiteral("--mapping"), saved,
                                                  QStringLiteral("--json"), QStringLiteral("--quiet")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject report = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        const QJsonArray cliRows = report[QStringLiteral("rows")].toArray();
        const auto result = view.model()->result();
        QCOMPARE(size_t(cliRows.size()), result->rows.size());
        for (size_t i = 0; i < result->rows.size(); ++i) {
            const QJsonObject c = cliRows[qsizetype(i)].toObject();
            const CompareRow &row = result->rows[i];
            QCOMPARE(c[QStringLiteral("npu_name")].toString(), row.npuName);
            QCOMPARE(c[QStringLiteral("bench_name")].toString(), row.benchName);
            QCOMPARE(c[QStringLiteral("verdict")].toString(), verdictName(row.verdict));
            QCOMPARE(c[QStringLiteral("match_source")].toString(), row.benchName.isEmpty() ? QString() : matchSourceName(row.source));
            const QJsonObject m = c[QStringLiteral("metrics")].toObject();
            for (size_t k = 0; k < kMetricCount && row.mode == CompareMode::Tensor; ++k)
                if (row.metrics[k].isNumber() && std::isfinite(row.metrics[k].value))
                    QCOMPARE(m[metricKey(Metric(k))].toDouble(), row.metrics[k].value);
        }
        QCOMPARE(report[QStringLiteral("first_divergence")].toArray().first()[QStringLiteral("origin")][QStringLiteral("row_name")].toString(),
                 fd[QStringLiteral("origin")].toString() + QStringLiteral(".output.0"));
        QVERIFY(view.grab().save(screenshotPath(QStringLiteral("compareview_mapping.png"))));

        // Remove the group in the mapping panel (a click): its rows are unmatched again.
        MappingPanel *mp = view.mappingPanel();
        view.showMappingPanel();
        QVERIFY(view.sideTabs()->currentWidget() == mp);
        mp->table()->selectRow(1);
        QCOMPARE(mp->selectedEntries(), QList<int>{1});
        QTest::mouseClick(mp->removeButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 4, 30000);
        QVERIFY(view.mapping().groups.empty());
        QCOMPARE(view.model()->index(fusedOut, CompareTableModel::BenchName).data().toString(), QString());
        QCOMPARE(view.proxy()->index(0, CompareTableModel::NpuName).data().toString(), QStringLiteral("head/Softmax.input.0"));
        // and the saved file brings everything back
        ok = view.loadMapping(saved);
        QVERIFY2(ok, qPrintable(ok.errorText()));
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 5, 30000);
        checkRows(mapped);
        view.setMapping({});
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 6, 30000);
        checkRows(unmapped);
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
