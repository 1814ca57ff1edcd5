#include "benchoperatorspanel.h"
#include "compare/comparereport.h"
#include "compareview.h"
#include "index/buildindex.h"
#include "index/tensorloader.h"
#include "mappingpanel.h"
#include "models/comparetablemodel.h"

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
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

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
