// The hand-written ge_proto text reader (core/formats/ge/getextfastparser.*) against protobuf's
// TextFormat, the oracle: every committed GE text graph, the bad-input corpus, generated graphs
// and malformed text give the same graphs (or the same error) through both paths.
#include "formats/ge/gegraphreader.h"
#include "graph/graph.h"
#include "graph/graphgenerator.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <random>

using namespace ds;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList geTextFiles(const QString &root)
{
    QStringList files;
    QDirIterator it(root, {QStringLiteral("ge_proto_*.txt")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

/// The fields a newer GE might add, which the samples carry to test that unknown fields are
/// tolerated (`future_block { ... }` at the top, `future_op_field: 7` in an op): removed so that
/// the rest must be read by the fast path.
QByteArray withoutUnknownFields(const QByteArray &text)
{
    static const QRegularExpression block(QStringLiteral("^future_[a-z_]+ \\{\\n(?:[ \\t].*\\n)*\\}\\n|^[ \\t]+future_[a-z_]+: .*\\n"),
                                          QRegularExpression::MultilineOption);
    QString t = QString::fromUtf8(text);
    t.remove(block);
    return t.toUtf8();
}

/// Everything the views use, compared field by field; "" when equal, else the first difference.
QString difference(const GraphModel &a, const GraphModel &b)
{
    if (a.modelName != b.modelName)
        return QStringLiteral("model name %1 vs %2").arg(a.modelName, b.modelName);
    if (a.unknownFields != b.unknownFields || a.warnings != b.warnings)
        return QStringLiteral("warnings %1 vs %2").arg(a.warnings.join(u'|'), b.warnings.join(u'|'));
    if (a.graphs.size() != b.graphs.size())
        return QStringLiteral("graph count %1 vs %2").arg(a.graphs.size()).arg(b.graphs.size());
    for (size_t g = 0; g < a.graphs.size(); ++g) {
        const Graph &x = a.graphs[g], &y = b.graphs[g];
        if (x.name != y.name || x.inputs != y.inputs || x.outputs != y.outputs || !(x.attrs == y.attrs))
            return QStringLiteral("graph %1 header").arg(g);
        if (x.nodes.size() != y.nodes.size())
            return QStringLiteral("graph %1: %2 vs %3 nodes").arg(g).arg(x.nodes.size()).arg(y.nodes.size());
        for (size_t n = 0; n < x.nodes.size(); ++n)
            if (!(x.nodes[n] == y.nodes[n]))
                return QStringLiteral("graph %1 node %2 (%3)").arg(g).arg(n).arg(x.nodes[n].name);
        if (!(x.edges == y.edges) || x.unresolvedInputs != y.unresolvedInputs)
            return QStringLiteral("graph %1 edges").arg(g);
        if (!(x.groups == y.groups) || x.topGroups != y.topGroups || x.topNodes != y.topNodes)
            return QStringLiteral("graph %1 groups").arg(g);
        for (const GraphNode &n : x.nodes)
            if (x.findNode(n.name) != y.findNode(n.name))
                return QStringLiteral("graph %1: %2 found at different nodes").arg(g).arg(n.name);
    }
    return {};
}

/// Both paths on the same text: the same graphs, or the same error. `splitAt`: where the fast
/// reader's second thread starts (-1: its own choice).
/// `reader`: FastOnly where the text is inside the fast subset (no fall-back to hide a mistake).
void compareReaders(const QByteArray &text, const QString &label, qsizetype splitAt = -1, bool *splitAdopted = nullptr,
                    ge::GeTextReader reader = ge::GeTextReader::Auto)
{
    const auto fast = ge::parseGeProtoText(text, label, reader, splitAt, splitAdopted);
    const auto slow = ge::parseGeProtoText(text, label, ge::GeTextReader::TextFormat);
    QCOMPARE(fast.ok(), slow.ok());
    if (!slow.ok()) {
        QCOMPARE(fast.errorText(), slow.errorText());
        return;
    }
    const QString diff = difference(*fast, *slow);
    QVERIFY2(diff.isEmpty(), qPrintable(label + QStringLiteral(": ") + diff));
}

/// A graph with every attribute kind, escapes, descriptors and sub-graphs, as GE writes them.
QByteArray everyKindText()
{
    return "name: \"m\\303\\251\"\nversion: 3\ngraph {\n  name: \"g\"\n  input: \"a:0\"\n  output: \"b:0\"\n"
           "  attr { key: \"ga\" value { s: \"x\\ty\\\\z\\\"\" } }\n"
           "  op {\n    name: \"a\"\n    type: \"Data\"\n    id: 0\n    stream_id: -1\n    has_out_attr: true\n"
           "    attr { key: \"_no_task\" value { b: true } }\n"
           "    attr { key: \"f\" value { f: -1.25e-3 } }\n"
           "    attr { key: \"i\" value { i: -9223372036854775808 } }\n"
           "    attr { key: \"dt\" value { dt: 27 } }\n"
           "    attr { key: \"bt\" value { bt: \"\\001\\002\\377\\x41\" } }\n"
           "    attr { key: \"l\" value { list { s: \"p\" s: \"q\" i: 1 f: 0.5 f: 3 b: false dt: 1 val_type: VT_LIST_INT } } }\n"
           "    attr { key: \"le\" value { list { val_type: VT_LIST_FLOAT } } }\n"
           "    attr { key: \"lli\" value { list_list_int { list_list_i { list_i: 1 list_i: 2 } list_list_i { } } } }\n"
           "    attr { key: \"llf\" value { list_list_float { list_list_f { list_f: 1.5 } } } }\n"
           "    attr { key: \"fn\" value { func { name: \"fn\" attr { key: \"k\" value { i: 3 } } } } }\n"
           "    attr { key: \"td\" value { td { dtype: DT_INT8 layout: \"ND\" shape { dim: 4 } } } }\n"
           "    attr { key: \"t\" value { t { desc { dtype: DT_INT32 } data: \"\\000\\001\" } } }\n"
           "    attr { key: \"g\" value { g { name: \"inner\" op { name: \"z\" type: \"Const\" } } } }\n"
           "    attr { key: \"_datadump_original_op_names\" value { list { s: \"orig1\" s: \"\" } } }\n"
           "    attr { key: \"_L1_fusion_sub_graph_no\" value { i: 4 } }\n"
           "    output_desc {\n      name: \"y\"\n      dtype: DT_FLOAT16\n      shape { dim: 1 dim: -1 }\n"
           "      layout: \"NC1HWC0\"\n      size: 64\n      real_dim_cnt: 2\n      output_tensor: true\n"
           "      attr { key: \"origin_format\" value { s: \"NCHW\" } }\n"
           "      attr { key: \"origin_shape\" value { list { i: 1 i: 16 } } }\n"
           "      attr { key: \"_datadump_origin_name\" value { s: \"orig\" } }\n"
           "      attr { key: \"_datadump_origin_output_index\" value { i: 2 } }\n    }\n  }\n"
           "  op { name: \"b\"; type: \"Relu\", input: \"a:0\" input: \"a:-1\" input_desc { dtype: DT_FLOAT16 }\n"
           "    subgraph_name: \"s1\" workspace: 8 is_input_const: false }\n}\n";
}

/// Byte offsets to start the second thread at: every `op` at a line start, and about 400
/// others spread over the text (inside strings, names, nested graphs, ...).
QList<qsizetype> splitPoints(const QByteArray &text)
{
    QList<qsizetype> at;
    for (qsizetype p = text.indexOf("\n"); p >= 0; p = text.indexOf('\n', p + 1)) {
        qsizetype q = p + 1;
        while (q < text.size() && (text[q] == ' ' || text[q] == '\t'))
            ++q;
        if (text.mid(q, 2) == "op")
            at << q;
    }
    const qsizetype step = std::max<qsizetype>(1, text.size() / 400);
    for (qsizetype p = 1; p < text.size(); p += step)
        at << p;
    return at;
}

} // namespace

class TestGeTextReader : public QObject
{
    Q_OBJECT

private slots:
    void samplesMatchTextFormat_data()
    {
        QTest::addColumn<QString>("path");
        const QStringList files = geTextFiles(QStringLiteral(DUMPSCOPE_SAMPLES)) + geTextFiles(QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/data/bad/graph"));
        QVERIFY(files.size() >= 13);
        for (const QString &f : files)
            QTest::addRow("%s", qPrintable(QFileInfo(f).fileName())) << f;
    }
    void samplesMatchTextFormat()
    {
        QFETCH(QString, path);
        compareReaders(readAll(path), QFileInfo(path).fileName());
    }

    // Each committed sample, without the unknown block it carries, is inside the fast subset:
    // the fast path alone reads it, and gives what TextFormat gives.
    void samplesReadByFastPath_data()
    {
        QTest::addColumn<QString>("path");
        const QStringList files = geTextFiles(QStringLiteral(DUMPSCOPE_SAMPLES));
        QVERIFY(!files.isEmpty());
        for (const QString &f : files)
            QTest::addRow("%s", qPrintable(QFileInfo(f).fileName())) << f;
    }
    void samplesReadByFastPath()
    {
        QFETCH(QString, path);
        const QByteArray text = withoutUnknownFields(readAll(path));
        const auto fast = ge::parseGeProtoText(text, QStringLiteral("s.txt"), ge::GeTextReader::FastOnly);
        QVERIFY2(fast.ok(), qPrintable(fast.errorText()));
        const auto slow = ge::parseGeProtoText(text, QStringLiteral("s.txt"), ge::GeTextReader::TextFormat);
        QVERIFY2(slow.ok(), qPrintable(slow.errorText()));
        QVERIFY(fast->nodeCount() > 0);
        QCOMPARE(difference(*fast, *slow), QString());
    }

    void everyKindMatchesTextFormat()
    {
        const QByteArray text = everyKindText();
        const auto fast = ge::parseGeProtoText(text, QStringLiteral("k.txt"), ge::GeTextReader::FastOnly);
        QVERIFY2(fast.ok(), qPrintable(fast.errorText()));
        const auto slow = ge::parseGeProtoText(text, QStringLiteral("k.txt"), ge::GeTextReader::TextFormat);
        QVERIFY2(slow.ok(), qPrintable(slow.errorText()));
        QCOMPARE(difference(*fast, *slow), QString());
        QCOMPARE(fast->modelName, QStringLiteral("m\u00e9"));
        const GraphNode &a = fast->root()->nodes.at(0);
        QCOMPARE(a.attr(QStringLiteral("bt"))->value, QStringLiteral("<4 bytes> 0102ff41"));
        QCOMPARE(a.attr(QStringLiteral("i"))->value, QStringLiteral("-9223372036854775808"));
        QCOMPARE(a.originalOpNames, QStringList{QStringLiteral("orig1")});
        QCOMPARE(fast->root()->edges.size(), size_t(2));
    }

    // Malformed or unusual text: the fast path gives up and TextFormat answers exactly as before,
    // with the file and line in any error.
    void malformedMatchesTextFormat_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("fails");
        const QByteArray op = "graph {\n  op {\n    name: \"a\"\n    type: \"Data\"\n";
        QTest::addRow("unterminated string") << QByteArray(op + "    input: \"x:0\n  }\n}\n") << true;
        QTest::addRow("missing brace") << QByteArray(op + "}\n") << true;
        QTest::addRow("extra brace") << QByteArray(op + "  }\n}\n}\n") << true;
        QTest::addRow("truncated") << QByteArray(op + "    attr { key: \"k\" val") << true;
        QTest::addRow("int64 overflow") << QByteArray(op + "    id: 9223372036854775808\n  }\n}\n") << true;
        QTest::addRow("huge integer") << QByteArray(op + "    id: 123456789012345678901234567890\n  }\n}\n") << true;
        QTest::addRow("float overflow") << QByteArray(op + "    attr { key: \"f\" value { f: 1e999 } }\n  }\n}\n") << false;
        QTest::addRow("float above FLT_MAX") << QByteArray(op + "    attr { key: \"f\" value { f: 3.5e38 } }\n  }\n}\n") << false;
        QTest::addRow("hex int") << QByteArray(op + "    id: 0x1F\n  }\n}\n") << false;
        QTest::addRow("int enum") << QByteArray(op + "    output_desc { dtype: 27 }\n  }\n}\n") << false;
        QTest::addRow("unknown enum") << QByteArray(op + "    output_desc { dtype: DT_NEW_ONE }\n  }\n}\n") << false;
        QTest::addRow("unknown field") << QByteArray(op + "    future { a: [1, 2] }\n  }\n}\n") << false;
        QTest::addRow("repeated singular") << QByteArray(op + "    id: 1\n    id: 2\n  }\n}\n") << true;
        QTest::addRow("oneof twice") << QByteArray(op + "    attr { key: \"k\" value { i: 1 s: \"x\" } }\n  }\n}\n") << true;
        QTest::addRow("angle brackets") << QByteArray(op + "    output_desc < dtype: DT_FLOAT >\n  }\n}\n") << false;
        QTest::addRow("list syntax") << QByteArray(op + "    input: [\"a\", \"b\"]\n  }\n}\n") << false;
        QTest::addRow("bad escape") << QByteArray(op + "    input: \"\\q\"\n  }\n}\n") << true;
        QTest::addRow("octal over 255") << QByteArray(op + "    input: \"\\777\"\n  }\n}\n") << false;
        QTest::addRow("value before key") << QByteArray(op + "    attr { value { i: 1 } key: \"k\" }\n  }\n}\n") << false;
        QTest::addRow("duplicate key") << QByteArray(op + "    attr { key: \"k\" value { i: 1 } }\n    attr { key: \"k\" value { i: 2 } }\n  }\n}\n") << false;
        QTest::addRow("bool as 1") << QByteArray(op + "    has_out_attr: 1\n  }\n}\n") << false;
        QTest::addRow("nan") << QByteArray(op + "    attr { key: \"f\" value { f: nan } }\n  }\n}\n") << false;
        QTest::addRow("garbage") << QByteArray("\x01\x02{{{{]]]") << true;
        QTest::addRow("deep") << QByteArray(QByteArray("graph { attr { key: \"k\" value { g { ").repeated(40)) << true;
    }
    void malformedMatchesTextFormat()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, fails);
        compareReaders(text, QStringLiteral("m.txt"));
        const auto r = ge::parseGeProtoText(text, QStringLiteral("m.txt"));
        QCOMPARE(!r.ok(), fails);
        if (fails)
            QVERIFY2(QRegularExpression(QStringLiteral("^m\\.txt:\\d+:\\d+: ")).match(r.errorText()).hasMatch(), qPrintable(r.errorText()));
    }

    // The file cut anywhere: both paths agree (an error with a line, or the same partial graph).
    void truncatedAnywhere()
    {
        const QByteArray text = everyKindText();
        for (qsizetype cut = 0; cut < text.size(); cut += 7)
            compareReaders(text.left(cut), QStringLiteral("cut%1.txt").arg(cut));
    }

    // Random edits of the every-kind text (fixed seed): both paths still agree on each.
    void mutationsMatchTextFormat()
    {
        const QByteArray text = everyKindText();
        const char alphabet[] = "{}:\"'\\#\n -0123456789.eExX_abz;,<>[]";
        std::mt19937 rng(35);
        for (int k = 0; k < 3000; ++k) {
            QByteArray t = text;
            for (int e = 0, edits = 1 + int(rng() % 3); e < edits; ++e) {
                const qsizetype at = qsizetype(rng() % size_t(t.size()));
                const char c = alphabet[rng() % (sizeof alphabet - 1)];
                if (rng() % 2)
                    t[at] = c;
                else
                    t.insert(at, c);
            }
            compareReaders(t, QStringLiteral("mut%1.txt").arg(k));
            if (QTest::currentTestFailed())
                qFatal("differs on: %s", t.constData());
        }
    }

    // The second thread may start anywhere: at a top-level op (its ops are adopted), inside a
    // string, a nested graph's op or a token (never adopted: the first thread reads on). Every
    // sample, the bad-input corpus and the every-kind text give TextFormat's graphs (or error).
    void splitAnywhereMatchesTextFormat_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("adopts"); // inside the fast subset: read by it alone, some split adopted
        const QStringList files = geTextFiles(QStringLiteral(DUMPSCOPE_SAMPLES)) + geTextFiles(QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/data/bad/graph"));
        for (const QString &f : files) {
            QTest::addRow("%s", qPrintable(QFileInfo(f).fileName())) << readAll(f) << false;
            if (f.startsWith(QStringLiteral(DUMPSCOPE_SAMPLES)))
                QTest::addRow("%s, fast subset", qPrintable(QFileInfo(f).fileName())) << withoutUnknownFields(readAll(f)) << true;
        }
        QTest::addRow("every kind") << everyKindText() << true;
        QTest::addRow("two graphs") << QByteArray(everyKindText() + "graph {\n  name: \"h\"\n  op {\n    name: \"x\"\n  }\n  op {\n    name: \"y\"\n"
                                                                     "    input: \"x:0\"\n  }\n}\n") << true;
        QTest::addRow("unknown dtype after the split")
            << QByteArray("graph {\n  op {\n    name: \"a\"\n  }\n  op {\n    name: \"b\"\n    output_desc { dtype: DT_NEW }\n  }\n}\n") << false;
        QTest::addRow("graph fields after the ops")
            << QByteArray("graph {\n  op {\n    name: \"a\"\n  }\n  op {\n    name: \"b\"\n  }\n  name: \"g\"\n  output: \"b:0\"\n}\n") << false;
        QTest::addRow("error after the split")
            << QByteArray("graph {\n  op {\n    name: \"a\"\n  }\n  op {\n    name: \"b\"\n    id: 1\n    id: 2\n  }\n}\n") << false;
    }
    void splitAnywhereMatchesTextFormat()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, adopts);
        int adopted = 0;
        for (qsizetype at : splitPoints(text)) {
            bool used = false;
            compareReaders(text, QStringLiteral("split%1.txt").arg(at), at, &used,
                           adopts ? ge::GeTextReader::FastOnly : ge::GeTextReader::Auto);
            if (QTest::currentTestFailed())
                qFatal("differs with the second thread at byte %lld", qlonglong(at));
            adopted += used ? 1 : 0;
        }
        if (adopts)
            QVERIFY(adopted > 0);
    }

    // A graph over 4 MB is read on two threads by itself, and gives TextFormat's graph.
    void largeGraphSplitByItself()
    {
        GeneratedGraphSpec spec{20, 20, 50, 0, 3};
        spec.atomicCleans = 200;
        spec.weightTransforms = 300;
        const Graph generated = generateScopedGraph(spec);
        const QByteArray text = geProtoText(generated); // as bench_graph --write-ge writes it
        QVERIFY(text.size() > (4 << 20));
        bool adopted = false;
        const auto fast = ge::parseGeProtoText(text, QStringLiteral("large.txt"), ge::GeTextReader::FastOnly, -1, &adopted);
        QVERIFY2(fast.ok(), qPrintable(fast.errorText()));
        QVERIFY(adopted);
        QCOMPARE(fast->root()->nodes.size(), generated.nodes.size());
        const auto slow = ge::parseGeProtoText(text, QStringLiteral("large.txt"), ge::GeTextReader::TextFormat);
        QVERIFY2(slow.ok(), qPrintable(slow.errorText()));
        QCOMPARE(difference(*fast, *slow), QString());
        QCOMPARE(fast->root()->edges.size(), generated.edges.size());
    }

    void fastOnlyNamesWhereItStopped()
    {
        const QByteArray text = "name: \"m\"\ngraph {\n  op {\n    future: 1\n  }\n}\n";
        const auto r = ge::parseGeProtoText(text, QStringLiteral("u.txt"), ge::GeTextReader::FastOnly);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().startsWith(QStringLiteral("u.txt:4:11: outside the fast reader's subset")), qPrintable(r.errorText()));
        const auto a = ge::parseGeProtoText(text, QStringLiteral("u.txt"));
        QVERIFY(a.ok());
        QCOMPARE(a->unknownFields, 1); // TextFormat's tolerance kept
    }
};

QTEST_GUILESS_MAIN(TestGeTextReader)
#include "tst_getextreader.moc"
