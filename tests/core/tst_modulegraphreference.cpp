// buildModuleGraphs (core/dumpgraph/modulegraph.cpp), which makes the chain and parameter edges
// by node index (Graph::buildWithEdges), against the build it replaced (modulegraphreference.cpp:
// "name:0" input strings parsed back by Graph::build): the same models, graphs, nodes, names,
// types, attributes, output descriptors, edges (the producers the old inputs named, in their
// order), groups, name lookups and dump mapping, on every committed sample folder and on the
// dump folders DS_MODULEGRAPH_REFERENCE_EXTRA names (':'-separated; e.g. a 100,000-entry
// bench/gen_msprobe_json.py --sidecars folder, to compare a big graph by hand).
#include "modulegraphreference.h"

#include "dump/dumpindex.h"
#include "dumpgraph/modulegraph.h"
#include "index/buildindex.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

namespace {

QStringList corpusFolders()
{
    QStringList out;
    const QDir samples(QStringLiteral(DUMPSCOPE_SAMPLES));
    for (const QString &d : samples.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        out << samples.filePath(d);
    out << qEnvironmentVariable("DS_MODULEGRAPH_REFERENCE_EXTRA").split(QLatin1Char(':'), Qt::SkipEmptyParts);
    return out;
}

/// A node field by field; the new graph keeps no input strings (its edges are made by index):
/// the old inputs must be exactly what its edges name.
void compareNode(const Graph &got, const Graph &want, size_t n)
{
    const GraphNode &a = got.nodes[n], &b = want.nodes[n];
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.type, b.type);
    QCOMPARE(a.id, b.id);
    QCOMPARE(a.streamId, b.streamId);
    QCOMPARE(a.attrs, b.attrs);
    QVERIFY(a.inputDescs == b.inputDescs);
    QVERIFY(a.outputDescs == b.outputDescs);
    QCOMPARE(a.originalOpNames, b.originalOpNames);
    QCOMPARE(a.noTask, b.noTask);
    QCOMPARE(a.l1FusionGroup, b.l1FusionGroup);
    QCOMPARE(a.subgraphNames, b.subgraphNames);
    QCOMPARE(a.group, b.group);
    QVERIFY(a.inputs.isEmpty());
}

void compareGraphs(const Graph &got, const Graph &want)
{
    QCOMPARE(got.name, want.name);
    QCOMPARE(got.inputs, want.inputs);
    QCOMPARE(got.outputs, want.outputs);
    QCOMPARE(got.attrs, want.attrs);
    QCOMPARE(got.nodes.size(), want.nodes.size());
    for (size_t n = 0; n < got.nodes.size(); ++n) {
        compareNode(got, want, n);
        if (QTest::currentTestFailed())
            QFAIL(qPrintable(QStringLiteral("node %1 (%2)").arg(n).arg(want.nodes[n].name)));
    }
    QCOMPARE(got.edges.size(), want.edges.size());
    for (size_t e = 0; e < got.edges.size(); ++e)
        if (!(got.edges[e] == want.edges[e]))
            QFAIL(qPrintable(QStringLiteral("edge %1 into %2").arg(e).arg(want.nodes[want.edges[e].to.index()].name)));
    std::vector<QStringList> named(got.nodes.size()); // the inputs the edges stand for
    for (const GraphEdge &e : got.edges)
        named[e.to.index()] << got.nodes[e.from.index()].name + QLatin1Char(':') + QString::number(e.outIndex);
    for (size_t n = 0; n < got.nodes.size(); ++n)
        QCOMPARE(named[n], want.nodes[n].inputs);
    QCOMPARE(got.unresolvedInputs, want.unresolvedInputs);
    QVERIFY(got.groups == want.groups);
    QCOMPARE(got.topGroups, want.topGroups);
    QCOMPARE(got.topNodes, want.topNodes);
    QCOMPARE(got.hasUniqueNames(), want.hasUniqueNames());
    for (const GraphNode &n : want.nodes)
        QCOMPARE(got.findNode(n.name), want.findNode(n.name));
    QCOMPARE(got.findNode(QStringLiteral("no such node")), NodeId{});
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

void compareMappings(const DumpMapping &a, const DumpMapping &b)
{
    QCOMPARE(a.modelFolders, b.modelFolders);
    QVERIFY(a.nodeOps == b.nodeOps);
    QVERIFY(a.nodeState == b.nodeState);
    QVERIFY(a.opNode == b.opNode);
    QVERIFY(a.opLink == b.opLink);
    QCOMPARE(a.consideredOps, b.consideredOps);
    QCOMPARE(a.unmappedOps, b.unmappedOps);
    QCOMPARE(a.ambiguousOps, b.ambiguousOps);
    QVERIFY(a.missingNodes == b.missingNodes);
}

/// Both builds of the module graphs of `folder`, compared; `repeated` counts the graphs with
/// repeated node names (those take the input-string path inside the new build too).
void compareFolder(const QString &folder, int *repeatedOut = nullptr)
{
    auto built = buildIndex(folder);
    QVERIFY2(built, qPrintable(folder));
    const DumpIndex &index = **built;
    const std::vector<GraphModel> got = buildModuleGraphs(index);
    const std::vector<GraphModel> want = reference::buildModuleGraphsByInputStrings(index);
    QCOMPARE(got.size(), want.size());
    for (size_t m = 0; m < got.size(); ++m) {
        QCOMPARE(got[m].file, want[m].file);
        QCOMPARE(got[m].stage, want[m].stage);
        QCOMPARE(got[m].modelName, want[m].modelName);
        QCOMPARE(got[m].graphs.size(), want[m].graphs.size());
        for (size_t g = 0; g < got[m].graphs.size(); ++g) {
            compareGraphs(got[m].graphs[g], want[m].graphs[g]);
            if (QTest::currentTestFailed())
                return;
        }
        compareMappings(mapModuleGraph(got[m], index), mapModuleGraph(want[m], index));
    }
    int nodes = 0, edges = 0, repeated = 0;
    for (const GraphModel &m : got) {
        nodes += m.nodeCount();
        edges += m.edgeCount();
        repeated += m.root() && !m.root()->hasUniqueNames();
    }
    if (repeatedOut)
        *repeatedOut = repeated;
    qInfo("%s: %zu module graph(s), %d nodes, %d edges, %d with repeated names", qPrintable(QFileInfo(folder).fileName()),
          got.size(), nodes, edges, repeated);
}

} // namespace

class TestModuleGraphReference : public QObject
{
    Q_OBJECT

private slots:
    void sameAsInputStringBuild_data()
    {
        QTest::addColumn<QString>("folder");
        for (const QString &f : corpusFolders())
            QTest::addRow("%s", qPrintable(QFileInfo(f).fileName())) << f;
    }
    void sameAsInputStringBuild()
    {
        QFETCH(QString, folder);
        compareFolder(folder);
    }

    /// A child entry named like its module's parameter ("parameters.weight" under a module
    /// with a weight): two nodes of one name, whose edges an input string resolves to the last;
    /// and an entry name twice (dump.json and debug.json): "#2".
    void repeatedNamesAsInputStrings()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("step0/rank0")));
        const QByteArray t = R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0})";
        const QByteArray call = R"({"input_args": [)" + t + R"(], "input_kwargs": {}, "output": [)" + t + "]";
        writeFile(dir.filePath(QStringLiteral("step0/rank0/dump.json")),
                  R"({"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null, "data": {
 "Module.fc.Linear.forward.0": )" + call + R"(, "parameters": {"weight": )" + t + R"(}},
 "parameters.weight": )" + call + R"(},
 "Functional.linear.0.forward": )" + call + R"(},
 "Functional.relu.0.forward": )" + call + "}}}");
        // The same entry name in debug.json: its node is "... #2".
        writeFile(dir.filePath(QStringLiteral("step0/rank0/debug.json")),
                  R"({"task": "statistics", "level": "debug", "framework": "pytorch", "dump_data_dir": null, "data": {
 "Functional.relu.0.forward": )" + t + "}}");
        writeFile(dir.filePath(QStringLiteral("step0/rank0/construct.json")),
                  R"({"Module.fc.Linear.forward.0": null, "parameters.weight": "Module.fc.Linear.forward.0",
 "Functional.linear.0.forward": "Module.fc.Linear.forward.0"})");
        int repeated = 0;
        compareFolder(dir.path(), &repeated);
        QCOMPARE(repeated, 1);
        auto built = buildIndex(dir.path());
        QVERIFY(built);
        const std::vector<GraphModel> models = buildModuleGraphs(**built);
        QCOMPARE(models.size(), size_t(1));
        QVERIFY(models[0].root()->findNode(QStringLiteral("forward/Functional.relu.0.forward #2")).isValid());
    }
};

QTEST_GUILESS_MAIN(TestModuleGraphReference)
#include "tst_modulegraphreference.moc"
