// views/tensorinspector + histogramwidget on statistics-only tensors (msprobe task statistics):
// no empty plot with made-up axes, but the words "no values were dumped" and the statistics the
// dump recorded, read independently from dump.json with QJsonDocument (tests/core/runcorpus.h).
// A tensor with values still gets its histogram. The Headroom tab (issue 34) shows the counts
// the core computes for the same tensor (measureTensor, run here), and for a statistics-only leaf
// what headroomFromRecorded concludes from the max/min/norm read from dump.json.
#include "../core/runcorpus.h"

#include "documentcontext.h"
#include "headroomtable.h"
#include "histogramwidget.h"
#include "tensorinspector.h"
#include "dump/dumpindex.h"
#include "index/tensormeasure.h"

#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>
#include <qcustomplot.h>

#include <cmath>

using namespace ds;

namespace {

/// The text the inspector shows for a recorded statistic.
QString shown(double v)
{
    return std::isnan(v) ? QStringLiteral("NaN") : std::isinf(v) ? QString::fromLatin1(v > 0 ? "+Inf" : "-Inf") : QString::number(v, 'g', 8);
}

QString answer(const std::optional<bool> &a) { return a ? QString::fromLatin1(*a ? "yes" : "no") : QStringLiteral("cannot tell"); }

} // namespace

class TestTensorInspector : public QObject
{
    Q_OBJECT
private slots:
    void statisticsOnlyTensorsShowWhatWasRecorded_data()
    {
        QTest::addColumn<QString>("scope");
        QTest::newRow("statistics") << runcorpus::runDir(QStringLiteral("base_statistics_mix")) + QStringLiteral("/step0/rank0");
        QTest::newRow("overflow (Inf, NaN)") << runcorpus::runDir(QStringLiteral("overflow_statistics_mix")) + QStringLiteral("/step1/rank1");
    }
    void statisticsOnlyTensorsShowWhatWasRecorded()
    {
        QFETCH(QString, scope);
        DocumentContext context;
        QSignalSpy finished(&context, &DocumentContext::indexingFinished);
        context.openDump(scope);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 60000);
        const auto index = context.index(0);
        QVERIFY(index);
        TensorInspector inspector(&context);
        inspector.resize(700, 800);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        HistogramWidget *hist = inspector.histogram();
        QVERIFY(!hist->plot()->isVisible()); // nothing selected: no empty plot either
        const QJsonObject data = runcorpus::readDumpJson(scope + QStringLiteral("/dump.json")).value(QStringLiteral("data")).toObject();
        int checked = 0;
        for (size_t o = 0; o < index->ops.size(); ++o) {
            const OpRecord &op = index->ops[o];
            const QJsonArray outputs = data.value(op.opName.toString()).toObject().value(QStringLiteral("output")).toArray();
            for (size_t t = 0; t < op.tensors.size(); ++t) {
                const TensorRecord &r = op.tensors[t];
                if (r.io() != IoKind::Output || r.storage() != TensorStorage::Absent || r.index() >= uint32_t(outputs.size()))
                    continue;
                const QJsonObject leaf = outputs[qsizetype(r.index())].toObject();
                QCOMPARE(leaf.value(QStringLiteral("type")).toString(), QStringLiteral("torch.Tensor"));
                context.selectTensor(0, index->tensorId({int(o), int(t)}));
                const QString what = index->tensorId({int(o), int(t)}).toString();
                QVERIFY2(!hist->plot()->isVisible(), qPrintable(what));
                const QString text = hist->messageText();
                QVERIFY2(text.contains(QStringLiteral("No values were dumped for this tensor (msprobe task: statistics): no histogram.")),
                         qPrintable(text));
                for (const char *key : {"Max", "Min", "Mean", "Norm"})
                    QVERIFY2(text.contains(shown(runcorpus::statistic(leaf, QLatin1String(key)))),
                             qPrintable(QStringLiteral("%1 %2: %3").arg(what, QLatin1String(key), text)));
                QVERIFY(!hist->findChild<QSpinBox *>()->isEnabled()); // no bins to choose
                // Headroom: what the recorded max/min/norm allow, per target.
                const RecordedHeadroom want = headroomFromRecorded(runcorpus::statistic(leaf, QStringLiteral("Max")),
                                                                   runcorpus::statistic(leaf, QStringLiteral("Min")),
                                                                   runcorpus::statistic(leaf, QStringLiteral("Norm")));
                QTreeWidget *table = inspector.headroom()->table();
                QCOMPARE(table->topLevelItemCount(), kHeadroomTargets);
                for (int k = 0; k < kHeadroomTargets; ++k) {
                    const auto &a = want.targets[size_t(k)];
                    const QTreeWidgetItem *row = table->topLevelItem(k);
                    QVERIFY(row->text(HeadroomTable::TargetColumn).startsWith(QLatin1String(headroomLimits()[size_t(k)].name)));
                    QCOMPARE(row->text(HeadroomTable::OverflowColumn), answer(a.overflow));
                    QCOMPARE(row->text(HeadroomTable::UnderflowColumn), answer(a.underflow));
                    QCOMPARE(row->text(HeadroomTable::SubnormalColumn), answer(a.subnormal));
                }
                QVERIFY(inspector.headroom()->noteText().contains(QStringLiteral("cannot be told")));
                ++checked;
            }
        }
        QVERIFY(checked >= 20);
    }

    /// A tensor with values (msprobe task tensor) still draws its histogram.
    void tensorWithValuesHasAHistogram()
    {
        const QString scope = runcorpus::runDir(QStringLiteral("base_tensor_mix")) + QStringLiteral("/step0/rank0");
        DocumentContext context;
        QSignalSpy finished(&context, &DocumentContext::indexingFinished);
        context.openDump(scope);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 60000);
        const auto index = context.index(0);
        TensorInspector inspector(&context);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        QSignalSpy ready(&inspector, &TensorInspector::reportReady);
        for (size_t o = 0; o < index->ops.size(); ++o)
            for (size_t t = 0; t < index->ops[o].tensors.size(); ++t)
                if (index->ops[o].tensors[t].storage() == TensorStorage::PtFile) {
                    context.selectTensor(0, index->tensorId({int(o), int(t)}));
                    QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0, 30000);
                    QVERIFY(inspector.histogram()->plot()->isVisible());
                    QVERIFY(inspector.histogram()->messageText().isEmpty());
                    return;
                }
        QFAIL("no .pt tensor in base_tensor_mix");
    }

    /// The Headroom tab shows, for real msprobe tensors, the counts core computes for the same
    /// tensor (measureTensor here), with the dynamic range; the histogram's bands name them too.
    void headroomTableShowsTheCoresCounts()
    {
        const QString scope = runcorpus::runDir(QStringLiteral("base_tensor_mix")) + QStringLiteral("/step0/rank0");
        DocumentContext context;
        QSignalSpy finished(&context, &DocumentContext::indexingFinished);
        context.openDump(scope);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 60000);
        const auto index = context.index(0);
        QVERIFY(index);
        TensorInspector inspector(&context);
        inspector.resize(900, 700);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        QSignalSpy ready(&inspector, &TensorInspector::reportReady);
        int checked = 0;
        std::uint64_t small = 0;
        for (size_t o = 0; o < index->ops.size() && checked < 12; ++o)
            for (size_t t = 0; t < index->ops[o].tensors.size() && checked < 12; ++t) {
                if (index->ops[o].tensors[t].storage() != TensorStorage::PtFile)
                    continue;
                const DumpIndex::TensorRef ref{int(o), int(t)};
                const QString what = index->tensorId(ref).toString();
                ready.clear();
                context.selectTensor(0, index->tensorId(ref));
                QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0, 30000);
                const TensorMeasure m = measureTensor(*index, ref);
                QVERIFY2(!m.error, qPrintable(what));
                const Headroom &h = m.stats.headroom;
                if (!h.valid)
                    continue; // an integer tensor
                QTreeWidget *table = inspector.headroom()->table();
                QCOMPARE(table->topLevelItemCount(), kHeadroomTargets);
                for (int k = 0; k < kHeadroomTargets; ++k) {
                    const QTreeWidgetItem *row = table->topLevelItem(k);
                    const HeadroomCounts &c = h.targets[size_t(k)];
                    QVERIFY(row->text(HeadroomTable::TargetColumn).startsWith(QLatin1String(headroomLimits()[size_t(k)].name)));
                    const std::pair<int, std::uint64_t> cells[] = {{HeadroomTable::OverflowColumn, c.overflow},
                                                                   {HeadroomTable::UnderflowColumn, c.underflow},
                                                                   {HeadroomTable::SubnormalColumn, c.subnormal}};
                    for (const auto &[column, count] : cells) {
                        QVERIFY2(row->data(column, Qt::UserRole).toULongLong() == count, qPrintable(what));
                        QVERIFY(row->text(column).startsWith(QString::number(count)));
                    }
                    small += c.underflow + c.subnormal;
                }
                QVERIFY2(inspector.headroom()->noteText().contains(QString::number(h.dynamicRangeLog2(), 'f', 2)),
                         qPrintable(inspector.headroom()->noteText()));
                // The histogram's float8_e4m3fn bands: four shaded ranges and the same counts.
                HistogramWidget *hist = inspector.histogram();
                hist->setBandTarget(int(HeadroomTarget::Float8E4M3FN));
                QCOMPARE(hist->plot()->itemCount(), 4);
                const HeadroomCounts &e4m3 = h.at(HeadroomTarget::Float8E4M3FN);
                const QStringList legend = hist->bandText().split(QLatin1Char('\n'));
                QCOMPARE(legend.size(), 4);
                QVERIFY2(legend[0].endsWith(QStringLiteral(": %1").arg(e4m3.overflow)), qPrintable(legend[0]));
                QVERIFY2(legend[1].endsWith(QStringLiteral(": %1").arg(e4m3.subnormal)), qPrintable(legend[1]));
                QVERIFY2(legend[2].endsWith(QStringLiteral(": %1").arg(e4m3.underflow)), qPrintable(legend[2]));
                hist->setBandTarget(-1);
                QCOMPARE(hist->plot()->itemCount(), 0);
                ++checked;
            }
        QCOMPARE(checked, 12);
        QVERIFY(small > 0); // real activations and gradients do reach the small ranges
    }
};

QTEST_MAIN(TestTensorInspector)
#include "tst_tensorinspector.moc"
