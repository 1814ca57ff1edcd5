// CompareView::openTable (issue 33, item 1): an msprobe compare table opened by itself finds
// the dumps it was written from beside it (core/compare/tabledumps.h) and links its rows, so a
// row shows both tensors side by side and the error heatmap. Oracle: the MaxAbsErr cell msprobe
// 26 wrote for that row in samples/msprobe_real.
#include "compare/comparereport.h"
#include "benchoperatorspanel.h"
#include "compare/resulttable.h"
#include "compareview.h"
#include "index/tensorloader.h"
#include "models/comparetablemodel.h"
#include "models/pagedcomparetablemodel.h"

#include <QCheckBox>
#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace ds;

namespace {

const QString kReal = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

QString tableIn(const QString &dir, const QString &pattern)
{
    return QDir(kReal + QLatin1Char('/') + dir).entryInfoList({pattern}, QDir::Files).value(0).absoluteFilePath();
}

} // namespace

class TestCompareTableView : public QObject
{
    Q_OBJECT
private slots:
    void linkedToTheDumpsBeside()
    {
        const QString table = tableIn(QStringLiteral("compare/weight_tensor_mix/step0/csv"), QStringLiteral("*rank0*.csv"));
        QVERIFY(!table.isEmpty());
        const auto plain = openCompareTable(table); // msprobe's own cells, the oracle
        QVERIFY(plain);
        const QString rowName = QStringLiteral("Functional.linear.0.forward.output.0");
        double maxAbs = -1;
        for (const CompareRow &r : plain->result->rows)
            if (r.npuName == rowName)
                maxAbs = r.metrics[size_t(Metric::MaxAbsErr)].value;
        QVERIFY(maxAbs > 0);

        CompareView view;
        view.resize(1200, 800);
        view.show();
        QSignalSpy finished(&view, &CompareView::finished);
        QSignalSpy detail(&view, &CompareView::detailReady);
        view.openTable(table);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        const QString summary = view.summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("dumps/npu_weight_tensor_mix/step0/rank0"))
                     && summary.contains(QStringLiteral("dumps/base_tensor_mix/step0/rank0")),
                 qPrintable(summary));
        int row = -1;
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            if (view.proxy()->index(r, CompareTableModel::NpuName).data().toString() == rowName)
                row = r;
        QVERIFY(row >= 0);
        const int before = int(detail.count());
        view.table()->setCurrentIndex(view.proxy()->index(row, 0));
        QTRY_VERIFY_WITH_TIMEOUT(detail.count() > before && view.detail() && !view.detail()->worst.empty(), 30000);
        // the tensors were loaded from the dumps: the worst element is msprobe's MaxAbsErr
        QVERIFY2(std::abs(view.detail()->worst.front().absErr - maxAbs) <= 1e-9 + 1e-6 * maxAbs,
                 qPrintable(QStringLiteral("%1 vs msprobe %2").arg(view.detail()->worst.front().absErr).arg(maxAbs)));
        const auto heat = view.heatmapTensor();
        QVERIFY(heat && heat->view.count > 0);
        double m = 0;
        for (size_t i = 0; i < heat->view.count; ++i)
            m = std::max(m, double(reinterpret_cast<const float *>(heat->view.data)[i]));
        QVERIFY2(std::abs(m - maxAbs) <= 1e-6 * maxAbs, qPrintable(QString::number(m)));
    }

    void tableAloneSaysHowToGiveTheDumps()
    {
        const QString table = tableIn(QStringLiteral("compare/weight_statistics_mix/step1/csv"), QStringLiteral("*rank1*.csv"));
        // below a HOME of its own, where the table's dump search stops: the system's temporary
        // folder may hold other tests' copies of these dumps, which the search would rightly find
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QByteArray oldHome = qgetenv("HOME");
        qputenv("HOME", home.path().toUtf8());
        const auto restoreHome = qScopeGuard([&] { qputenv("HOME", oldHome); });
        QTemporaryDir tmp(home.filePath(QStringLiteral("t-XXXXXX")));
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("x/y")));
        const QString copy = tmp.filePath(QStringLiteral("x/y/") + QFileInfo(table).fileName());
        QVERIFY(QFile::copy(table, copy));
        CompareView view;
        QSignalSpy finished(&view, &CompareView::finished);
        view.openTable(copy);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QVERIFY2(view.summary()->text().contains(QStringLiteral("--npu PATH --bench PATH")), qPrintable(view.summary()->text()));
    }

    /// A table of DS_PAGED_TABLE_BYTES or more opens paged (issue 35, item 5): msprobe's cells as
    /// the file holds them, its Results counted, the rows that are not a pass on a click; then a
    /// small table brings the comparison's rows back. Oracle: the full parser and openedTableFrom.
    void largeTableOpensPaged()
    {
        const QString table = tableIn(QStringLiteral("compare/bf16_statistics_mix/step0/csv"), QStringLiteral("compare_result_rank0_*.csv"));
        const auto whole = openCompareTable(table);
        QVERIFY2(whole, qPrintable(whole.errorText()));
        const auto cells = readCsvTable(table);
        QVERIFY(cells);
        int notPass = 0;
        for (const CompareRow &row : whole->result->rows)
            notPass += row.verdict == Verdict::Warning || row.verdict == Verdict::Error;
        QVERIFY(notPass > 0 && notPass < int(whole->result->rows.size()));
        qputenv("DS_PAGED_TABLE_BYTES", "10000"); // the committed table (50 KB) counts as large
        CompareView view;
        view.resize(1200, 800);
        view.show();
        QSignalSpy finished(&view, &CompareView::finished);
        view.openTable(table);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        qunsetenv("DS_PAGED_TABLE_BYTES");
        QVERIFY(view.isPaged());
        QVERIFY(view.pagedTable()->isVisible());
        QVERIFY(!view.table()->isVisible());
        // no pair to detail: the bench operators and the selected pair's panes are not shown empty
        QVERIFY(!view.benchPanel()->isVisible());
        QVERIFY(!view.findChild<QWidget *>(QStringLiteral("compareDetailPane"))->isVisible());
        QCOMPARE(view.tablePath(), table);
        QCOMPARE(view.pagedModel()->rowCount(), int(cells->rows.size()));
        QCOMPARE(view.pagedModel()->columnCount(), int(cells->header.size()));
        // the cells are parsed off the GUI thread: asked for, they arrive a page at a time
        for (int r = 0; r < view.pagedModel()->rowCount(); r += int(PagedCompareTableModel::kPageRows))
            (void)view.pagedModel()->index(r, 0).data();
        QTRY_COMPARE_WITH_TIMEOUT(view.pagedModel()->pagesLoading(), 0, 30000);
        for (int r = 0; r < view.pagedModel()->rowCount(); r += 7)
            for (int c = 0; c < view.pagedModel()->columnCount(); ++c)
                QCOMPARE(view.pagedModel()->index(r, c).data(Qt::ToolTipRole).toString(), cells->rows[size_t(r)][c]);
        QVERIFY(view.pagedTable()->columnWidth(0) > 110); // the name column sized to the first page's names
        const QString summary = view.summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("error %1").arg(notPass)), qPrintable(summary));
        auto *box = view.findChild<QCheckBox *>();
        QVERIFY(box && box->isEnabled());
        box->click();
        QCOMPARE(view.pagedModel()->rowCount(), notPass);
        // a small table: the comparison's rows again
        view.openTable(table);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 30000);
        QVERIFY(!view.isPaged());
        QVERIFY(view.table()->isVisible());
        QVERIFY(view.benchPanel()->isVisible());
        QVERIFY(view.findChild<QWidget *>(QStringLiteral("compareDetailPane"))->isVisible());
        QCOMPARE(view.proxy()->rowCount(), int(whole->result->rows.size()));
    }
};

QTEST_MAIN(TestCompareTableView)
#include "tst_comparetableview.moc"
