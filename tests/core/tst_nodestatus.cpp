// Node status roles lifted from per-op values and their colour bands (nodestatus.h).
#include "dumpgraph/nodestatus.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace ds;

class TestNodeStatus : public QObject
{
    Q_OBJECT
private slots:
    void bands_data()
    {
        QTest::addColumn<QList<double>>("edges");
        QTest::addColumn<bool>("descending");
        QTest::addColumn<double>("value");
        QTest::addColumn<bool>("undefined");
        QTest::addColumn<int>("level");
        const QList<double> cosine{0.99, 0.999, 0.9999}, error{1e-4, 1e-2, 1}, magnitude{1, 1e2, 1e4, 65504};
        const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
        // Cosine: 1 >= 0.9999, 2 >= 0.999, 3 >= 0.99, 4 below or undefined (NaN).
        QTest::addRow("cosine 1") << cosine << true << 1.0 << false << 1;
        QTest::addRow("cosine edge 0.9999") << cosine << true << 0.9999 << false << 1;
        QTest::addRow("cosine 0.9995") << cosine << true << 0.9995 << false << 2;
        QTest::addRow("cosine edge 0.999") << cosine << true << 0.999 << false << 2;
        QTest::addRow("cosine 0.995") << cosine << true << 0.995 << false << 3;
        QTest::addRow("cosine 0.5") << cosine << true << 0.5 << false << 4;
        QTest::addRow("cosine undefined") << cosine << true << nan << true << 4;
        QTest::addRow("cosine missing") << cosine << true << nan << false << 0;
        // Errors: 1 below 1e-4, 2 below 1e-2, 3 below 1, 4 from 1 or undefined.
        QTest::addRow("error 5e-5") << error << false << 5e-5 << false << 1;
        QTest::addRow("error edge 1e-4") << error << false << 1e-4 << false << 2;
        QTest::addRow("error 0.5") << error << false << 0.5 << false << 3;
        QTest::addRow("error 7") << error << false << 7.0 << false << 4;
        QTest::addRow("error undefined") << error << false << nan << true << 4;
        // Magnitudes: float16's largest finite value bounds the top band; Inf is in it.
        QTest::addRow("max 0.5") << magnitude << false << 0.5 << false << 1;
        QTest::addRow("max 65503") << magnitude << false << 65503.0 << false << 4;
        QTest::addRow("max 65504") << magnitude << false << 65504.0 << false << 5;
        QTest::addRow("max inf") << magnitude << false << inf << false << 5;
    }
    void bands()
    {
        QFETCH(QList<double>, edges);
        QFETCH(bool, descending);
        QFETCH(double, value);
        QFETCH(bool, undefined);
        QFETCH(int, level);
        const StatusBands b{std::vector<double>(edges.begin(), edges.end()), descending};
        QCOMPARE(b.level(value, undefined), level);
    }

    /// Per-op values reach the nodes through the mapping: a fused node takes its worst op, a
    /// parameter node its module's op, an undefined (NaN) value wins over numbers.
    void lift()
    {
        DumpMapping m;
        m.nodeOps = {{{0}, {1, 2}, {3}, {}, {0}, {4, 5}}};
        const std::unordered_map<int, double> values{{0, 0.9}, {1, 0.5}, {2, 0.7}, {3, std::nan("")}, {4, 0.99}};
        std::vector<char> undefined;
        const NodeStatusColumn low = liftOpStatus(m, 0, NodeStatusRole::MetricValue, values, StatusWorst::Lowest, &undefined);
        QCOMPARE(low.values.size(), size_t(6));
        QCOMPARE(low.values[0], 0.9);
        QCOMPARE(low.values[1], 0.5);  // the worst of the fused node's ops
        QVERIFY(std::isnan(low.values[2]) && undefined[2]); // undefined
        QVERIFY(!low.has(NodeId{3}) && !undefined[3]);     // no data
        QCOMPARE(low.values[4], 0.9);  // a parameter node: its module's op
        QCOMPARE(low.values[5], 0.99); // op 5 has no value
        const NodeStatusColumn high = liftOpStatus(m, 0, NodeStatusRole::CompareVerdict, values, StatusWorst::Highest);
        QCOMPARE(high.values[1], 0.7);
        QCOMPARE(high.role, NodeStatusRole::CompareVerdict);
        QVERIFY(liftOpStatus(m, 3, NodeStatusRole::MetricValue, values, StatusWorst::Highest).values.empty()); // no such graph
    }
};

QTEST_GUILESS_MAIN(TestNodeStatus)
#include "tst_nodestatus.moc"
