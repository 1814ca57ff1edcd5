#include "compareview.h"
#include "index/dumpindex.h"
#include "models/comparetablemodel.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

using namespace ds;

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

        // Verdict filter: errors only (the pinned row stays).
        view.proxy()->setText({});
        view.proxy()->setMinimumVerdict(Verdict::Error);
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            QCOMPARE(Verdict(view.proxy()->index(r, 0).data(CompareTableModel::VerdictRole).toInt()), Verdict::Error);
        QVERIFY(view.grab().save(QStringLiteral("/tmp/compareview.png")));
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
