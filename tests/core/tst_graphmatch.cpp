// NPU and bench graphs paired through a comparison (graphmatch.h), on samples/graph_compare:
// an msprobe run and its bench run made by samples/generate_graph_compare.py, whose
// expected.json names the entries only one side has.
#include "compare/compare.h"
#include "dumpgraph/graphmatch.h"
#include "dumpgraph/modulegraph.h"
#include "index/buildindex.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ds;

namespace {

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const auto e : v.toArray())
        out << e.toString();
    return out;
}

QString entryOf(const Graph &g, int node) { return g.nodes[size_t(node)].name.section(QLatin1Char('/'), -1); }

} // namespace

class TestGraphMatch : public QObject
{
    Q_OBJECT
private slots:
    void msprobePair()
    {
        const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/graph_compare");
        QFile f(root + QStringLiteral("/expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(f.readAll()).object();
        auto npuBuilt = buildIndex(root + QStringLiteral("/npu")), benchBuilt = buildIndex(root + QStringLiteral("/bench"));
        QVERIFY(npuBuilt && benchBuilt);
        const DumpIndex &npu = **npuBuilt, &bench = **benchBuilt;
        QCOMPARE(int(npu.ops.size()), expected[QStringLiteral("entries")][QStringLiteral("npu")].toInt());
        const auto npuModels = buildModuleGraphs(npu), benchModels = buildModuleGraphs(bench);
        QCOMPARE(npuModels.size(), size_t(1));
        QCOMPARE(benchModels.size(), size_t(1));
        const DumpMapping npuMap = mapModuleGraph(npuModels[0], npu), benchMap = mapModuleGraph(benchModels[0], bench);
        // By names (the aligner off): the entries only one side has stay unmatched.
        CompareOptions byName;
        byName.align = false;
        const CompareResult result = compareIndexes(npu, bench, byName);
        const GraphMatch m = matchGraphs(result, npuMap, 0, benchMap, 0);
        const Graph &ng = npuModels[0].graphs[0], &bg = benchModels[0].graphs[0];

        // Unmatched: exactly the entries only one side has.
        QStringList npuOnly, benchOnly;
        for (size_t n = 0; n < ng.nodes.size(); ++n)
            if (m.npuUnmatched[n])
                npuOnly << entryOf(ng, int(n));
        for (size_t n = 0; n < bg.nodes.size(); ++n)
            if (m.benchUnmatched[n])
                benchOnly << entryOf(bg, int(n));
        npuOnly.sort();
        benchOnly.sort();
        QCOMPARE(npuOnly, strings(expected[QStringLiteral("npu_only")]));
        QCOMPARE(benchOnly, strings(expected[QStringLiteral("bench_only")]));
        QCOMPARE(m.unmatchedNpu, int(npuOnly.size()));
        QCOMPARE(m.unmatchedBench, int(benchOnly.size()));

        // With the structure aligner (comparematch.h rule 4, the default), those entries are one
        // region (NPU.npu_fast_gelu where the bench calls Functional.gelu, in the same module):
        // each NPU-only entry is paired with the bench-only entry of its direction.
        {
            const GraphMatch aligned = matchGraphs(compareIndexes(npu, bench), npuMap, 0, benchMap, 0);
            QCOMPARE(aligned.unmatchedNpu, 0);
            QCOMPARE(aligned.unmatchedBench, 0);
            for (size_t n = 0; n < ng.nodes.size(); ++n) {
                if (!npuOnly.contains(entryOf(ng, int(n))))
                    continue;
                const int b = aligned.npuPartner[n];
                QVERIFY2(b >= 0, qPrintable(entryOf(ng, int(n))));
                QVERIFY(benchOnly.contains(entryOf(bg, b)));
                QCOMPARE(entryOf(bg, b).section(QLatin1Char('.'), -1), entryOf(ng, int(n)).section(QLatin1Char('.'), -1));
            }
        }

        // Every other entry node is paired with the bench node of the same entry, both ways.
        int paired = 0;
        for (size_t n = 0; n < ng.nodes.size(); ++n) {
            if (npuMap.nodeOps[0][n].empty() || ng.nodes[n].attr(QString::fromLatin1(kModuleTensorAttr)))
                continue; // parameters: their module's op belongs to the module's own node
            if (m.npuUnmatched[n]) {
                QCOMPARE(m.npuPartner[n], -1);
                continue;
            }
            const int b = m.npuPartner[n];
            QVERIFY2(b >= 0, qPrintable(entryOf(ng, int(n))));
            QCOMPARE(entryOf(bg, b), entryOf(ng, int(n)));
            QCOMPARE(m.benchPartner[size_t(b)], int(n));
            ++paired;
        }
        QCOMPARE(paired, m.matchedNpu);
        QCOMPARE(m.matchedNpu, int(npu.ops.size()) - m.unmatchedNpu);

        // Verdicts: the perturbed module's output row disagrees; its node and its partner show it.
        const QString perturbed = expected[QStringLiteral("perturbed_module")].toString();
        int node = -1;
        for (size_t n = 0; n < ng.nodes.size(); ++n)
            if (entryOf(ng, int(n)) == perturbed)
                node = int(n);
        QVERIFY(node >= 0);
        QCOMPARE(m.npuVerdict[size_t(node)], int(Verdict::Error));
        QCOMPARE(m.benchVerdict[size_t(m.npuPartner[size_t(node)])], int(Verdict::Error));
        // The first divergence is the perturbed module's weight at its first use: the origin is
        // the call inside the module that reads it (innermost), the module is the parameter's.
        QVERIFY(!result.divergences.empty());
        const Divergence &d = result.divergences.front();
        QCOMPARE(d.cause, DivergenceCause::Parameter);
        QVERIFY(d.parameterModule >= 0);
        QCOMPARE(npuMap.opNode[size_t(d.parameterModule)].node, NodeId{node});
        QCOMPARE(npu.ops[size_t(d.originOp)].parent, perturbed);
        QVERIFY(!d.modules.empty() && d.modules.front() == d.parameterModule);
        const NodeId originNode = npuMap.opNode[size_t(d.originOp)].node;
        QVERIFY(originNode.isValid() && originNode != NodeId{node});
        QCOMPARE(entryOf(ng, originNode.index()), npu.ops[size_t(d.originOp)].opName);
    }
};

QTEST_GUILESS_MAIN(TestGraphMatch)
#include "tst_graphmatch.moc"
