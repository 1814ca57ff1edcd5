// views/tensorinspector + histogramwidget on statistics-only tensors (msprobe task statistics):
// no empty plot with made-up axes, but the words "no values were dumped" and the statistics the
// dump recorded, read independently from dump.json with QJsonDocument (tests/core/runcorpus.h).
// A tensor with values still gets its histogram.
#include "../core/runcorpus.h"

#include "documentcontext.h"
#include "histogramwidget.h"
#include "tensorinspector.h"
#include "dump/dumpindex.h"

#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <qcustomplot.h>

#include <cmath>

using namespace ds;

namespace {

/// The text the inspector shows for a recorded statistic.
QString shown(double v)
{
    return std::isnan(v) ? QStringLiteral("NaN") : std::isinf(v) ? QString::fromLatin1(v > 0 ? "+Inf" : "-Inf") : QString::number(v, 'g', 8);
}

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
};

QTEST_MAIN(TestTensorInspector)
#include "tst_tensorinspector.moc"
