// The graph colour mode "Underflows in <dtype>" (issue 34, item 1): per operator the fraction of
// its outputs' finite values that becomes zero in the target, on the module graph of a real
// msprobe tensor dump (samples/msprobe_real). The expected fraction of every operator is
// computed here from the core's per-tensor measurement (measureTensor, the statistics pass
// behind `stats --json` whose headroom counts tests/oracle checks against numpy), not from
// the overlay's own path (computeOpStats).
#include "../core/runcorpus.h"

#include "graphpanel.h"
#include "graphview.h"
#include "index/buildindex.h"
#include "index/tensormeasure.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace ds;

class TestUnderflowOverlay : public QObject
{
    Q_OBJECT

private slots:
    void levelsAreTheFractionsThatUnderflow_data()
    {
        QTest::addColumn<int>("target");
        for (const HeadroomLimits &l : headroomLimits())
            QTest::newRow(l.name) << int(l.target);
    }

    void levelsAreTheFractionsThatUnderflow()
    {
        QFETCH(int, target);
        const QString scope = runcorpus::runDir(QStringLiteral("base_tensor_mix")) + QStringLiteral("/step0/rank0");
        auto built = buildIndex(scope);
        QVERIFY2(built, qPrintable(scope));
        const std::shared_ptr<const DumpIndex> index = *built;

        GraphPanel panel;
        panel.resize(1100, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(index->openedPath, index, 0);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
        QTRY_VERIFY(panel.view()->currentLayout() && !panel.view()->isLayoutPending());

        const auto t = HeadroomTarget(target);
        const QString name = QString::fromLatin1(headroomLimits(t).name);
        panel.setUnderflowOverlay(t);
        QCOMPARE(panel.overlayKind(), GraphPanel::Overlay::UnderflowFraction);
        QCOMPARE(panel.underflowTarget(), t);
        QCOMPARE(panel.view()->legend().size(), size_t(4));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.legendLabel()->text().contains(QStringLiteral("computing")), 30000);
        QVERIFY2(panel.legendLabel()->text().contains(QStringLiteral("Underflows in %1:").arg(name)), qPrintable(panel.legendLabel()->text()));

        int checked = 0, underflowing = 0;
        const Graph &g = *panel.view()->graph();
        for (size_t n = 0; n < g.nodes.size(); ++n) {
            const auto ops = panel.opsOfNode(NodeId{int(n)});
            if (ops.size() != 1)
                continue;
            std::uint64_t finite = 0, under = 0;
            const auto &tensors = index->ops[size_t(ops[0])].tensors;
            for (size_t k = 0; k < tensors.size(); ++k) {
                if (tensors[k].io() != IoKind::Output || !tensors[k].isTensor() || tensors[k].storage() == TensorStorage::Absent)
                    continue;
                const TensorMeasure m = measureTensor(*index, {ops[0], int(k)});
                QVERIFY(!m.error);
                if (!m.stats.headroom.valid)
                    continue;
                finite += m.stats.finite;
                under += m.stats.headroom.at(t).underflow;
            }
            // Uncoloured without values; bands: 0, (0, 0.1 %), [0.1 %, 1 %), >= 1 %.
            const double f = finite ? double(under) / double(finite) : std::nan("");
            const int want = std::isnan(f) ? 0 : f == 0 ? 1 : f < 1e-3 ? 2 : f < 1e-2 ? 3 : 4;
            QCOMPARE(panel.view()->nodeLevel(NodeId{int(n)}), want);
            ++checked;
            underflowing += under > 0;
        }
        QVERIFY2(checked >= 10, qPrintable(QString::number(checked)));
        // Real gradients reach below float8's subnormals; float16's and bfloat16's too little.
        if (t == HeadroomTarget::Float8E4M3FN)
            QVERIFY(underflowing > 0);
        if (t == HeadroomTarget::Float8E4M3FN)
            QVERIFY(panel.grab().save(QStringLiteral("/tmp/dumpscope-underflow-graph.png")));
    }
};

QTEST_MAIN(TestUnderflowOverlay)
#include "tst_underflowoverlay.moc"
