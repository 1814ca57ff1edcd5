// GE graph dumps: text-format reading (every AttrDef kind, unknown fields, syntax errors),
// the ONNX reader, edges and name-scope hierarchy, the computation-graph choice, dump <->
// node mapping and the `graph` CLI report - against samples/graph and the expectations
// samples/generate_graph.py wrote to samples/manifest.json.
#include "formats/ge/gegraphreader.h"
#include "dumpgraph/dumpmapping.h"
#include "graph/graph.h"
#include "dumpgraph/graphdiscovery.h"
#include "graphcommand.h"
#include "index/buildindex.h"
#include "copytree.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <random>

using namespace ds;
using ds::testing::copyTree;

namespace {

const QString kRoot = QDir(QStringLiteral(DUMPSCOPE_SAMPLES "/graph")).absolutePath();
const QString kBuild = kRoot + QStringLiteral("/dump_graph/12345_0/ge_proto_00000292_Build.txt");
const QString kOnnx = kRoot + QStringLiteral("/dump_graph/12345_0/ge_onnx_00000292_graph_1_Build.pbtxt");

QJsonObject graphManifest()
{
    QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const auto samples = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("samples")).toArray();
    for (const auto &s : samples)
        if (s.toObject().value(QStringLiteral("name")).toString() == QStringLiteral("graph_ge"))
            return s.toObject().value(QStringLiteral("graph")).toObject();
    return {};
}

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const auto &x : v.toArray())
        out << x.toString();
    return out;
}

GraphModel load(const QString &path)
{
    auto r = ge::readGraphFile(path);
    if (!r)
        qWarning() << r.errorText();
    return r ? *r : GraphModel{};
}

QStringList names(const GraphModel &m, const std::vector<GraphNodeRef> &refs)
{
    QStringList out;
    for (const auto &r : refs)
        out << m.graphs[size_t(r.graph)].node(r.node).name;
    out.sort();
    return out;
}

} // namespace

class TestGeGraph : public QObject
{
    Q_OBJECT
private slots:
    void fileNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("onnx");
        QTest::addColumn<qint64>("index");
        QTest::addColumn<int>("digits");
        QTest::addColumn<QString>("graphId");
        QTest::addColumn<QString>("suffix");
        QTest::addRow("build") << "ge_proto_00000292_Build.txt" << true << false << qint64(292) << 8 << "" << "Build";
        QTest::addRow("5 digits") << "ge_proto_00292_Build.txt" << true << false << qint64(292) << 5 << "" << "Build";
        QTest::addRow("graph id") << "ge_proto_00000012_graph_3_Build.txt" << true << false << qint64(12) << 8 << "3" << "Build";
        QTest::addRow("stage") << "ge_proto_00000150_PreRunAfterOptimizeSubGraph.txt" << true << false << qint64(150) << 8 << ""
                               << "PreRunAfterOptimizeSubGraph";
        QTest::addRow("onnx") << "ge_onnx_00000292_graph_1_Build.pbtxt" << true << true << qint64(292) << 8 << "1" << "Build";
        QTest::addRow("dump file") << "Conv2D.conv1_Conv2D.12.3.1710490512000001" << false << false << qint64(0) << 0 << "" << "";
        QTest::addRow("no index") << "ge_proto_Build.txt" << false << false << qint64(0) << 0 << "" << "";
    }
    void fileNames()
    {
        QFETCH(QString, name);
        QFETCH(bool, ok);
        const auto n = ge::parseGraphFileName(name);
        QCOMPARE(n.has_value(), ok);
        if (!ok)
            return;
        QFETCH(bool, onnx);
        QFETCH(qint64, index);
        QFETCH(int, digits);
        QFETCH(QString, graphId);
        QFETCH(QString, suffix);
        QCOMPARE(n->kind == ge::GraphFileKind::GeOnnx, onnx);
        QCOMPARE(n->index, index);
        QCOMPARE(n->indexDigits, digits);
        QCOMPARE(n->graphId, graphId);
        QCOMPARE(n->suffix, suffix);
    }

    void everyAttrKind_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("value");
        QTest::addRow("s") << "a_s" << "s" << "SAME";
        QTest::addRow("i") << "a_i" << "i" << "6";
        QTest::addRow("f") << "a_f" << "f" << "0.5";
        QTest::addRow("b") << "a_b" << "b" << "true";
        QTest::addRow("bt") << "a_bt" << "bt" << "<3 bytes> 0102ff";
        QTest::addRow("list") << "a_list" << "list" << "[1, 2, 2, 1]";
        QTest::addRow("empty list") << "a_list_empty" << "list" << "[] (VT_LIST_FLOAT)";
        QTest::addRow("func") << "a_func" << "func" << "fn{k=3}";
        QTest::addRow("td") << "a_td" << "td" << "DT_FLOAT ND [2, 3]";
        QTest::addRow("t") << "a_t" << "t" << "DT_INT32 ND [2] <8 bytes> 0100000002000000";
        QTest::addRow("g") << "a_g" << "g" << "graph inner (1 ops)";
        QTest::addRow("list_list_int") << "a_list_list_int" << "list_list_int" << "[[0, 1], [2]]";
        QTest::addRow("dt") << "a_dt" << "dt" << "DT_FLOAT16"; // ge::DataType numbering: 1 = float16
        QTest::addRow("list_list_float") << "a_list_list_float" << "list_list_float" << "[[0.5, 1.5]]";
    }
    void everyAttrKind()
    {
        QFETCH(QString, key);
        QFETCH(QString, kind);
        QFETCH(QString, value);
        const GraphModel m = load(kBuild);
        QVERIFY(m.root());
        const NodeId id = m.root()->findNode(QStringLiteral("resnet/block1/conv/Conv2D"));
        QVERIFY(id.isValid());
        const GraphAttr *a = m.root()->node(id).attr(key);
        QVERIFY2(a, qPrintable(key));
        QCOMPARE(a->kind, kind);
        QCOMPARE(a->value, value);
    }

    void typedFields()
    {
        const GraphModel m = load(kBuild);
        QCOMPARE(m.modelName, QStringLiteral("ge_default_20240613143502_1"));
        QCOMPARE(m.stage, QStringLiteral("Build"));
        QCOMPARE(m.fileIndex, 292);
        QCOMPARE(int(m.graphs.size()), 2);
        QCOMPARE(m.graphs[1].name, QStringLiteral("then_branch"));
        const Graph &g = *m.root();
        const GraphNode &conv = g.node(g.findNode(QStringLiteral("resnet/conv1/Conv2D")));
        QCOMPARE(conv.originalOpNames, (QStringList{QStringLiteral("resnet/conv1/Conv2D"), QStringLiteral("resnet/conv1/Relu")}));
        QCOMPARE(conv.inputDescs.size(), size_t(3));
        QCOMPARE(conv.inputDescs[0].dtype, 2);
        QCOMPARE(conv.inputDescs[0].dtypeName, QStringLiteral("DT_FLOAT16"));
        QCOMPARE(conv.inputDescs[0].layout, QStringLiteral("NC1HWC0"));
        QCOMPARE(conv.inputDescs[0].shape, (std::vector<std::int64_t>{1, 1, 4, 4, 16}));
        QCOMPARE(conv.inputDescs[0].originFormat, QStringLiteral("NCHW"));
        QCOMPARE(conv.inputDescs[0].originShape, (std::vector<std::int64_t>{1, 3, 4, 4}));
        QCOMPARE(conv.outputDescs[0].datadumpOriginName, QStringLiteral("resnet/conv1/Relu"));
        QCOMPARE(conv.outputDescs[0].datadumpOriginOutputIndex, 0);
        QCOMPARE(conv.streamId, 0);
        QVERIFY(g.node(g.findNode(QStringLiteral("resnet/conv1/Reshape"))).noTask);
        QCOMPARE(g.node(g.findNode(QStringLiteral("cond/If"))).subgraphNames, QStringList{QStringLiteral("then_branch")});
        // A data type name newer than our schema is kept by name and counted as unknown.
        QCOMPARE(g.node(g.findNode(QStringLiteral("loss_scale/Mul"))).inputDescs[0].dtypeName, QStringLiteral("DT_FUTURE_TYPE"));
    }

    void edges()
    {
        const GraphModel m = load(kBuild);
        const Graph &g = *m.root();
        const NodeId conv = g.findNode(QStringLiteral("resnet/conv1/Conv2D"));
        std::vector<GraphEdge> in;
        for (const auto &e : g.edges)
            if (e.to == conv)
                in.push_back(e);
        QCOMPARE(in.size(), size_t(3)); // the "" bias input makes no edge
        QCOMPARE(in[0], (GraphEdge{g.findNode(QStringLiteral("IteratorGetNext")), 0, conv, 0}));
        QCOMPARE(in[1], (GraphEdge{g.findNode(QStringLiteral("trans_TransData_17")), 0, conv, 1}));
        QCOMPARE(in[2], (GraphEdge{g.findNode(QStringLiteral("atomic_addr_clean0_71")), -1, conv, 0}));
        QVERIFY(in[2].isControl());
        QVERIFY(g.unresolvedInputs.isEmpty());

        QString producer;
        int idx = 0;
        QVERIFY(Graph::splitInput(QStringLiteral("a:b/c:2"), &producer, &idx));
        QCOMPARE(producer, QStringLiteral("a:b/c"));
        QCOMPARE(idx, 2);
        QVERIFY(!Graph::splitInput(QString(), &producer, &idx));
    }

    // The name index (open addressing over the nodes' own names): every name found where a
    // QHash filled in node order (the last of repeated names wins) finds it, absent names and
    // views into longer strings are not copied to be looked up, and a rebuild re-indexes.
    void nameIndex()
    {
        Graph g;
        QCOMPARE(g.findNode(QStringLiteral("a")), NodeId{}); // before build()
        std::mt19937 rng(35);
        QHash<QString, int> oracle;
        for (int n = 0; n < 5000; ++n) {
            GraphNode node;
            node.name = QStringLiteral("s%1/op_%2").arg(rng() % 40).arg(rng() % 3000); // repeats
            if (n > 0)
                node.inputs << g.nodes[rng() % size_t(n)].name + QStringLiteral(":0");
            oracle.insert(node.name, n);
            g.nodes.push_back(std::move(node));
        }
        g.nodes.push_back(GraphNode{}); // an empty name is a name too
        oracle.insert(QString(), 5000);
        g.build();
        QVERIFY(size_t(oracle.size()) < g.nodes.size());
        for (auto it = oracle.cbegin(); it != oracle.cend(); ++it)
            QCOMPARE(g.findNode(it.key()), NodeId{it.value()});
        for (const GraphEdge &e : g.edges) // producers resolved to the last of their name
            QCOMPARE(e.from, NodeId{oracle.value(g.node(e.from).name)});
        QCOMPARE(g.edges.size(), g.nodes.size() - 2);
        const QString longer = QStringLiteral("xx") + g.nodes[7].name + QStringLiteral(":3");
        QCOMPARE(g.findNode(QStringView(longer).mid(2, g.nodes[7].name.size())), NodeId{oracle.value(g.nodes[7].name)});
        QCOMPARE(g.findNode(QStringView(longer).mid(2)), NodeId{});
        QCOMPARE(g.findNode(QStringLiteral("s999/op_1")), NodeId{});
        g.nodes.emplace_back().name = QStringLiteral("late");
        QCOMPARE(g.findNode(QStringLiteral("late")), NodeId{});
        g.build();
        QCOMPARE(g.findNode(QStringLiteral("late")), NodeId{int(g.nodes.size()) - 1});

        // Unique names (the nearest producers are tried first): inputs from the previous
        // nodes, from far back, from later nodes and from nowhere resolve as the oracle says.
        Graph u;
        for (int n = 0; n < 3000; ++n) {
            GraphNode node;
            node.name = QStringLiteral("b%1/op_%2").arg(n % 7).arg(n);
            for (int k = 0; k < 3; ++k)
                node.inputs << QStringLiteral("b%1/op_%2:%3").arg((n - 1 - k + 3000) % 7).arg(n - 1 - k).arg(k);
            node.inputs << QStringLiteral("b%1/op_%2").arg(int(rng() % 7)).arg(int(rng() % 3000)); // far, later or absent
            u.nodes.push_back(std::move(node));
        }
        u.build();
        QHash<QString, int> names;
        for (size_t n = 0; n < u.nodes.size(); ++n)
            names.insert(u.nodes[n].name, int(n));
        size_t resolved = 0;
        for (size_t n = 0; n < u.nodes.size(); ++n)
            for (const QString &in : u.nodes[n].inputs) {
                QString producer;
                int index = 0;
                QVERIFY(Graph::splitInput(in, &producer, &index));
                resolved += names.contains(producer) ? 1 : 0;
            }
        QCOMPARE(u.edges.size(), resolved);
        for (const GraphEdge &e : u.edges) {
            const QString &in = u.node(e.to).inputs[e.inIndex];
            QCOMPARE(e.from, NodeId{names.value(in.left(in.lastIndexOf(QLatin1Char(':'))), names.value(in, -1))});
        }
    }

    void countsMatchManifest()
    {
        const QJsonObject man = graphManifest();
        QVERIFY2(!man.isEmpty(), "graph_ge missing from samples/manifest.json (run samples/generate_graph.py)");
        for (const auto &v : man.value(QStringLiteral("files")).toArray()) {
            const QJsonObject f = v.toObject();
            const QString file = f.value(QStringLiteral("file")).toString();
            auto r = ge::readGraphFile(kRoot + QLatin1Char('/') + file);
            QVERIFY2(r.ok(), qPrintable(r.errorText()));
            const Graph &g = *r->root();
            QCOMPARE(g.name, f.value(QStringLiteral("graph")).toString());
            QCOMPARE(int(g.nodes.size()), f.value(QStringLiteral("nodes")).toInt());
            QCOMPARE(g.dataEdgeCount(), f.value(QStringLiteral("data_edges")).toInt());
            QCOMPARE(g.controlEdgeCount(), f.value(QStringLiteral("control_edges")).toInt());
            QCOMPARE(int(r->graphs.size()) - 1, f.value(QStringLiteral("subgraphs")).toInt());
            QVERIFY2(r->unknownFields == f.value(QStringLiteral("unknown_fields")).toInt(),
                     qPrintable(file + QLatin1String(": ") + r->warnings.join(QStringLiteral("; "))));
            QCOMPARE(r->reducedFidelity, f.value(QStringLiteral("kind")).toString() == QStringLiteral("ge_onnx"));
            if (f.contains(QStringLiteral("subgraph_nodes"))) {
                QCOMPARE(int(r->graphs[1].nodes.size()), f.value(QStringLiteral("subgraph_nodes")).toInt());
                QCOMPARE(int(r->graphs[1].edges.size()), f.value(QStringLiteral("subgraph_edges")).toInt());
            }
        }
    }

    void syntaxError()
    {
        const QByteArray bad = "name: \"m\"\ngraph {\n  op {\n    name: \"a\" }}}\n";
        auto r = ge::parseGeProtoText(bad, QStringLiteral("bad.txt"));
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().startsWith(QStringLiteral("bad.txt:4:")), qPrintable(r.errorText()));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ge_proto_00000001_Build.txt"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("name: \"m\"\ngraph {\n  name: \"unterminated\n}\n");
        f.close();
        auto r2 = ge::readGraphFile(path);
        QVERIFY(!r2.ok());
        QVERIFY2(r2.errorText().startsWith(QStringLiteral("ge_proto_00000001_Build.txt:3:")), qPrintable(r2.errorText()));
    }

    void textFormatGrammar()
    {
        // Comments, optional ':' before '{', concatenated strings, escapes, inf, 'f' suffix,
        // integer enum values and unknown fields with nested braces.
        const QByteArray text = "# header comment\n"
                                "name: \"m\"\n"
                                "graph: {\n"
                                "  name: \"g\" \"1\"\n"
                                "  unknown { a { b: [1, 2] } c: \"}\" }\n"
                                "  op { name: \"x\\\"y\" type: \"Data\"\n"
                                "    attr { key: \"f\" value { f: inf } }\n"
                                "    attr { key: \"g\" value { f: 1.5f } }\n"
                                "    output_desc { dtype: 27 layout: \"ND\" }\n"
                                "  }\n"
                                "}\n";
        auto r = ge::parseGeProtoText(text, QStringLiteral("t.txt"));
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QCOMPARE(r->root()->name, QStringLiteral("g1"));
        QCOMPARE(r->unknownFields, 1);
        const GraphNode &n = r->root()->nodes.at(0);
        QCOMPARE(n.name, QStringLiteral("x\"y"));
        QCOMPARE(n.attr(QStringLiteral("f"))->value, QStringLiteral("inf"));
        QCOMPARE(n.attr(QStringLiteral("g"))->value, QStringLiteral("1.5"));
        QCOMPARE(n.outputDescs.at(0).dtypeName, QStringLiteral("DT_BF16"));
    }

    void onnxReader()
    {
        const GraphModel m = load(kOnnx);
        QVERIFY(m.reducedFidelity);
        QCOMPARE(m.stage, QStringLiteral("Build"));
        const Graph &g = *m.root();
        QCOMPARE(g.name, QStringLiteral("ge_default_20240613143502_1"));
        const GraphNode &t = g.node(g.findNode(QStringLiteral("trans_TransData_17")));
        QCOMPARE(t.type, QStringLiteral("TransData"));
        QCOMPARE(t.streamId, 0);
        QCOMPARE(t.inputDescs.size(), size_t(1));
        QCOMPARE(t.inputDescs[0].dtypeName, QStringLiteral("DT_FLOAT"));
        QCOMPARE(t.inputDescs[0].dtype, 1);
        QCOMPARE(t.inputDescs[0].shape, (std::vector<std::int64_t>{2, 3}));
        QCOMPARE(g.edges.size(), size_t(1));
        QCOMPARE(g.edges[0].from, g.findNode(QStringLiteral("resnet/conv1/weights")));
    }

    void hierarchy()
    {
        const GraphModel m = load(kBuild);
        const Graph &g = *m.root();
        QStringList paths;
        for (const auto &grp : g.groups)
            paths << grp.path;
        paths.sort();
        QCOMPARE(paths, strings(graphManifest().value(QStringLiteral("groups"))));
        const GraphNode &conv = g.node(g.findNode(QStringLiteral("resnet/block1/conv/Conv2D")));
        const NameGroup &leaf = g.group(conv.group);
        QCOMPARE(leaf.path, QStringLiteral("resnet/block1/conv"));
        QCOMPARE(leaf.label, QStringLiteral("conv"));
        QCOMPARE(leaf.depth, 2);
        const NameGroup &block = g.group(leaf.parent);
        QCOMPARE(block.path, QStringLiteral("resnet/block1"));
        QCOMPARE(block.childGroups.size(), size_t(2)); // bn, conv
        QCOMPARE(block.nodes.size(), size_t(1));       // add.1
        QCOMPARE(g.node(block.nodes[0]).name, QStringLiteral("resnet/block1/add.1"));
        const NameGroup &resnet = g.group(block.parent);
        QVERIFY(!resnet.parent.isValid());
        QVERIFY(std::find(g.topGroups.begin(), g.topGroups.end(), block.parent) != g.topGroups.end());
        QStringList top;
        for (NodeId n : g.topNodes)
            top << g.node(n).name;
        QCOMPARE(top, (QStringList{QStringLiteral("IteratorGetNext"), QStringLiteral("input_data"), QStringLiteral("atomic_addr_clean0_71"),
                                   QStringLiteral("trans_TransData_17"), QStringLiteral("output")}));
    }

    void computationGraphChoice()
    {
        const QStringList files = ge::findGraphFiles(kRoot);
        QCOMPARE(files.size(), 3);
        QVERIFY(files[0].endsWith(QStringLiteral("ge_proto_00000150_PreRunAfterOptimizeSubGraph.txt")));
        QCOMPARE(ge::findGraphFiles(kBuild), QStringList{kBuild});
        // Next to an opened dump directory: dump/ has no graph file, its parent's tree has.
        QCOMPARE(ge::findGraphFiles(kRoot + QStringLiteral("/dump")).size(), 3);
        std::vector<GraphModel> models;
        for (const auto &f : files)
            models.push_back(load(f));
        const auto ranked = rankComputationGraphs(models, {QStringLiteral("ge_default_20240613143502_1")});
        QCOMPARE(ranked.size(), size_t(3));
        const QString expected = graphManifest().value(QStringLiteral("computation_graph")).toString();
        QVERIFY(models[size_t(ranked[0].model)].file.endsWith(expected));
        QVERIFY(ranked[0].isBuild && ranked[0].matchesDumpModel && ranked[0].hasIterator);
        QVERIFY2(ranked[0].reason.startsWith(QStringLiteral("chosen: a Build graph")), qPrintable(ranked[0].reason));
        QVERIFY(ranked[1].fromOnnx);     // same stage, ONNX is the fallback
        QVERIFY(!ranked[2].isBuild);     // has an Iterator, but is not the Build graph
        QVERIFY(ranked[2].hasIterator);

        // Without the proto Build graph, Iterator + dump-folder match decide between equals.
        std::vector<GraphModel> two{models[0], models[0]};
        two[1].graphs[0].name = QStringLiteral("other");
        const auto r2 = rankComputationGraphs(two, {QStringLiteral("ge_default_20240613143502_1")});
        QCOMPARE(r2[0].model, 0);
        QVERIFY(!r2[1].matchesDumpModel);
    }

    void dumpMapping()
    {
        const QJsonObject man = graphManifest();
        auto built = buildIndex(kRoot);
        QVERIFY2(built.ok(), qPrintable(built.errorText()));
        const DumpIndex &index = **built;
        QVERIFY(index.errors.empty());
        const GraphModel m = load(kBuild);
        const DumpMapping map = mapDumpToGraph(m, index);
        QCOMPARE(map.modelFolders, QStringList{QStringLiteral("ge_default_20240613143502_1")});
        QCOMPARE(names(m, map.missingNodes), strings(man.value(QStringLiteral("nodes_without_dump"))));
        QCOMPARE(names(m, map.noDumpExpectedNodes), strings(man.value(QStringLiteral("no_dump_expected"))));
        QStringList unmapped;
        for (int o : map.unmappedOps)
            unmapped << index.ops[size_t(o)].relPath;
        QCOMPARE(unmapped, strings(man.value(QStringLiteral("dumps_without_node"))));
        QVERIFY(map.ambiguousOps.empty());
        QVERIFY(map.streamMismatchOps.empty());

        const Graph &g = *m.root();
        const GraphNodeRef add{0, g.findNode(QStringLiteral("resnet/block1/add.1"))}; // '.' sanitised
        QCOMPARE(map.state(add), NodeDumpState::Dumped);
        QCOMPARE(map.ops(add).size(), size_t(1));
        QCOMPARE(map.opLink[size_t(map.ops(add)[0])], OpLink::BySanitizedName);
        QCOMPARE(map.opNode[size_t(map.ops(add)[0])], add);
        const GraphNodeRef cast{1, m.graphs[1].findNode(QStringLiteral("then_branch/Cast"))}; // sub-graph node
        QCOMPARE(map.state(cast), NodeDumpState::Dumped);
        QCOMPARE(map.state(GraphNodeRef{0, g.findNode(QStringLiteral("resnet/conv1/Reshape"))}), NodeDumpState::NoDumpExpected);
        QCOMPARE(map.state(GraphNodeRef{0, g.findNode(QStringLiteral("resnet/fc/MatMul"))}), NodeDumpState::Missing);
        QCOMPARE(originalNames(g.node(g.findNode(QStringLiteral("resnet/conv1/Conv2D")))).size(), 2);
    }

    void collisionsAndOriginalNames()
    {
        // "a/b" and "a_b" share the dump key "a_b": the header op_name decides, else ambiguous.
        GraphModel m;
        Graph g;
        g.name = QStringLiteral("model");
        for (const char *n : {"a/b", "a_b", "fused"}) {
            GraphNode node;
            node.name = QLatin1String(n);
            node.type = QStringLiteral("Relu");
            g.nodes.push_back(node);
        }
        g.nodes[2].originalOpNames = {QStringLiteral("orig/x"), QStringLiteral("orig/y")};
        g.build();
        m.graphs.push_back(g);
        DumpIndex index;
        DumpLevels levels;
        levels.modelName = QStringLiteral("model");
        const SharedLevels model(levels);
        auto op = [&](const QString &name, const QString &header) {
            OpRecord r;
            r.relPath = QStringLiteral("t/0/model/1/0/Relu.") + name;
            r.levels = model;
            r.opName = name;
            r.extra().headerOpName = header;
            return r;
        };
        index.ops = {op(QStringLiteral("a_b"), QStringLiteral("a/b")), op(QStringLiteral("a_b"), QString()),
                     op(QStringLiteral("orig_y"), QString())};
        const DumpMapping map = mapDumpToGraph(m, index);
        QCOMPARE(map.opLink[0], OpLink::ByHeaderName);
        QCOMPARE(map.opNode[0].node, NodeId{0});
        QCOMPARE(map.opLink[1], OpLink::Ambiguous);
        QCOMPARE(map.ambiguousOps, std::vector<int>{1});
        QCOMPARE(map.opLink[2], OpLink::ByOriginalName);
        QCOMPARE(map.opNode[2].node, NodeId{2});
        QVERIFY(map.missingNodes.empty());
    }

    void cliReport()
    {
        const QJsonObject man = graphManifest();
        int code = -1;
        const QByteArray json = graphReport(kRoot, {}, true, &code);
        QCOMPARE(code, 0);
        QJsonParseError err;
        const QJsonObject doc = QJsonDocument::fromJson(json, &err).object();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        const QJsonArray graphs = doc.value(QStringLiteral("graphs")).toArray();
        const QJsonArray want = man.value(QStringLiteral("files")).toArray();
        QCOMPARE(graphs.size(), want.size());
        for (qsizetype i = 0; i < want.size(); ++i) {
            const QJsonObject g = graphs[i].toObject(), w = want[i].toObject();
            QCOMPARE(g.value(QStringLiteral("file")).toString(), w.value(QStringLiteral("file")).toString());
            QCOMPARE(g.value(QStringLiteral("kind")).toString(), w.value(QStringLiteral("kind")).toString());
            QCOMPARE(g.value(QStringLiteral("stage")).toString(), w.value(QStringLiteral("stage")).toString());
            QCOMPARE(g.value(QStringLiteral("nodes")).toInt(), w.value(QStringLiteral("nodes")).toInt());
            QCOMPARE(g.value(QStringLiteral("edges")).toInt(),
                     w.value(QStringLiteral("data_edges")).toInt() + w.value(QStringLiteral("control_edges")).toInt());
            QCOMPARE(g.value(QStringLiteral("unknown_fields")).toInt(), w.value(QStringLiteral("unknown_fields")).toInt());
        }
        const QJsonObject cg = doc.value(QStringLiteral("computation_graph")).toObject();
        QCOMPARE(cg.value(QStringLiteral("file")).toString(), man.value(QStringLiteral("computation_graph")).toString());
        QCOMPARE(cg.value(QStringLiteral("candidates")).toArray().size(), 3);
        const QJsonObject dump = doc.value(QStringLiteral("dump")).toObject();
        QStringList missing;
        for (const auto &n : dump.value(QStringLiteral("nodes_without_dump")).toArray())
            missing << n.toObject().value(QStringLiteral("node")).toString();
        QCOMPARE(missing, strings(man.value(QStringLiteral("nodes_without_dump"))));
        QCOMPARE(strings(dump.value(QStringLiteral("dumps_without_node"))), strings(man.value(QStringLiteral("dumps_without_node"))));

        const QByteArray text = graphReport(kRoot, {}, false, &code);
        QVERIFY(text.contains("computation graph: dump_graph/12345_0/ge_proto_00000292_Build.txt"));
        QVERIFY(text.contains("resnet/fc/MatMul [MatMulV2]"));
        graphReport(kRoot + QStringLiteral("/does-not-exist"), {}, true, &code);
        QCOMPARE(code, 3);
    }

    /// The one graph-discovery function: GE graph files in, below or next to the dump, plus
    /// graph folders given apart (GE writes into the job's working directory); the CLI with
    /// `graph DUMP GRAPH_DIR` links them like the sample laid out side by side.
    void discovery()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dump = tmp.filePath(QStringLiteral("run/dump")), graphs = tmp.filePath(QStringLiteral("workdir/graphs"));
        QVERIFY(copyTree(kRoot + QStringLiteral("/dump"), dump));
        QVERIFY(copyTree(kRoot + QStringLiteral("/dump_graph"), graphs));
        auto built = buildIndex(dump);
        QVERIFY(built);
        const DumpIndex &index = **built;
        QCOMPARE(dumpModelNames(index), QStringList{QStringLiteral("ge_default_20240613143502_1")});
        QVERIFY(!holdsGraphFiles(dump));
        QVERIFY(holdsGraphFiles(graphs));
        QVERIFY(isGraphOnlyFolder(graphs));
        QVERIFY(isGraphOnlyFolder(graphs + QStringLiteral("/12345_0/ge_proto_00000292_Build.txt")));
        QVERIFY(!isGraphOnlyFolder(dump));
        QVERIFY(!isGraphOnlyFolder(kRoot));                 // a dump beside its graphs: a dump
        QVERIFY(!isGraphOnlyFolder(graphs, 2));             // gives up after 2 entries (3 files)
        QVERIFY(!isGraphOnlyFolder(tmp.filePath(QStringLiteral("nowhere"))));
        QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("empty"))));
        QVERIFY(!isGraphOnlyFolder(tmp.filePath(QStringLiteral("empty"))));
        QVERIFY(holdsGraphFiles(graphs + QStringLiteral("/12345_0/ge_proto_00000292_Build.txt")));

        // The dump alone: nothing in, below or next to it (and no module fallback for CANN).
        const DiscoveredGraphs alone = discoverGraphs(dump, {}, &index);
        QVERIFY(alone.files.empty() && alone.models.empty() && !alone.moduleGraphs);
        // With the graph folder: the sample's three files, in index order, read.
        const DiscoveredGraphs found = discoverGraphs(dump, {graphs}, &index);
        const QJsonArray want = graphManifest().value(QStringLiteral("files")).toArray();
        QCOMPARE(int(found.files.size()), int(want.size()));
        for (qsizetype i = 0; i < want.size(); ++i) {
            QVERIFY(found.files[size_t(i)].path.endsWith(want[i].toObject().value(QStringLiteral("file")).toString().section(QLatin1Char('/'), 1)));
            QCOMPARE(found.files[size_t(i)].model, int(i));
        }
        // Given twice (folder and one of its files): no duplicates.
        QCOMPARE(discoverGraphs(dump, {graphs, graphs + QStringLiteral("/12345_0/ge_proto_00000292_Build.txt")}, &index).files.size(),
                 found.files.size());
        // The graphs alone (no dump yet).
        QCOMPARE(discoverGraphs(QString(), {graphs}, nullptr).models.size(), found.models.size());

        // The CLI: the same links as the sample whose graph folder sits next to the dump.
        int code = -1;
        const QJsonObject apart = QJsonDocument::fromJson(graphReport(dump, {graphs}, true, &code)).object();
        QCOMPARE(code, 0);
        const QJsonObject beside = QJsonDocument::fromJson(graphReport(kRoot, {}, true, &code)).object();
        const QJsonObject a = apart.value(QStringLiteral("dump")).toObject(), b = beside.value(QStringLiteral("dump")).toObject();
        QVERIFY(a.value(QStringLiteral("mapped_ops")).toInt() > 0);
        QCOMPARE(a.value(QStringLiteral("mapped_ops")).toInt(), b.value(QStringLiteral("mapped_ops")).toInt());
        QCOMPARE(a.value(QStringLiteral("nodes_without_dump")), b.value(QStringLiteral("nodes_without_dump")));
        QCOMPARE(apart.value(QStringLiteral("computation_graph")).toObject().value(QStringLiteral("graph")),
                 beside.value(QStringLiteral("computation_graph")).toObject().value(QStringLiteral("graph")));
        graphReport(dump, {tmp.filePath(QStringLiteral("nowhere"))}, true, &code);
        QCOMPARE(code, 3);

        // A framework dump without GE graphs gets its module graphs.
        auto ms = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe/step0/rank0"));
        QVERIFY(ms);
        const DiscoveredGraphs modules = discoverGraphs((*ms)->openedPath, {}, ms->get());
        QVERIFY(modules.moduleGraphs && modules.models.size() == 1);
        DiscoveryOptions geOnly;
        geOnly.moduleFallback = false;
        QVERIFY(discoverGraphs((*ms)->openedPath, {}, ms->get(), geOnly).models.empty());
    }
};

QTEST_GUILESS_MAIN(TestGeGraph)
#include "tst_gegraph.moc"
