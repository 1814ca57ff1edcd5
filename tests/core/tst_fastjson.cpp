// FastJsonReader (RapidJSON SAX) against JsonStreamReader, the reference tokenizer: the same
// walk over an msprobe-shaped document (members of the top object, each value parsed into a
// tree) must give the same keys, the same trees (Python's json.dumps spelling), and on bad
// input the same error text, offset and truncation flag. Python's json module is the oracle
// of the serialised trees for the valid inputs.
#include "formats/msprobe/fastjson.h"
#include "formats/msprobe/jsonstream.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <random>

using namespace ds::msprobe;

namespace {

/// What one reader saw: "key=value" lines, then "ERROR <text> @<offset> end=<0|1>" if it failed.
template<typename Reader>
QStringList walk(Reader &r)
{
    QStringList out;
    auto failed = [&] {
        out << QStringLiteral("ERROR %1 @%2 end=%3").arg(r.error()).arg(r.errorOffset()).arg(r.hitEnd() ? 1 : 0);
        return out;
    };
    if (!r.beginObject())
        return failed();
    std::string key;
    bool first = true;
    JsonTree tree;
    for (;;) {
        const int m = r.nextMember(key, first);
        if (m < 0)
            return failed();
        if (m == 0)
            break;
        if (!r.parseValue(tree))
            return failed();
        std::string text;
        tree.serialize(0, text);
        out << QString::fromStdString(key + "=" + text);
    }
    if (r.peekToken() != -1)
        out << QStringLiteral("TRAILING @%1").arg(r.offset());
    return out;
}

QStringList viaTokenizer(const std::string &text)
{
    JsonStreamReader r;
    r.setData(text);
    return walk(r);
}

QStringList viaFast(const std::string &text, std::uint64_t *fallbacks = nullptr)
{
    FastJsonReader r;
    r.setData(text);
    QStringList out = walk(r);
    if (fallbacks)
        *fallbacks = r.fallbacks();
    return out;
}

/// An msprobe-like dump.json with `n` entries (NaN/Infinity statistics, nested lists, escapes).
std::string bigDocument(int n)
{
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> u(-100, 100);
    // k + 0.25: exact in binary, so Python's repr prints it as written
    auto num = [&] { return std::to_string(u(rng)) + ".25"; };
    std::string s = "{\n \"task\": \"tensor\",\n \"level\": \"mix\",\n \"data\": {";
    for (int i = 0; i < n; ++i) {
        s += i ? ",\n" : "\n";
        s += "  \"Torch.add." + std::to_string(i) + ".forward\": {\n   \"input_args\": [\n    {\n     \"type\": \"torch.Tensor\",";
        s += "\n     \"dtype\": \"torch.float32\",\n     \"shape\": [\n      4,\n      " + std::to_string(i % 97) + "\n     ],";
        const char *special[] = {"NaN", "Infinity", "-Infinity"};
        s += "\n     \"Max\": " + (i % 50 == 0 ? std::string(special[i % 3]) : num());
        s += ",\n     \"Min\": " + num() + ",\n     \"Mean\": 0.001,\n     \"Norm\": 12345678901234567890,";
        s += "\n     \"requires_grad\": " + std::string(i % 2 ? "true" : "false") + ",\n     \"data_name\": null\n    },";
        s += "\n    {\n     \"type\": \"str\",\n     \"value\": \"a\\\"b\\\\c\\u00e9\\n" + std::to_string(i) + "\"\n    }\n   ]\n  }";
    }
    s += "\n }\n}";
    return s;
}

} // namespace

class TestFastJson : public QObject
{
    Q_OBJECT
private slots:
    void sameAsTokenizer_data();
    void sameAsTokenizer();
    void acrossBlocks();
    void fromFile();
    void pythonAgrees();
};

void TestFastJson::sameAsTokenizer_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("clean"); // RapidJSON alone must handle it (no fallback)
    QTest::newRow("empty object") << QByteArray("{}") << true;
    QTest::newRow("msprobe entry") << QByteArray(R"({"task": "statistics", "data": {"Torch.add.0.forward": {"input_args": [{"type": "torch.Tensor", "Max": NaN, "Min": -Infinity, "Mean": Infinity, "shape": [2, 3]}]}}})") << true;
    QTest::newRow("numbers as written") << QByteArray(R"({"a": [1.0, 1e5, -0, 0.1, 123456789012345678901234567890, 1E-7]})") << true;
    QTest::newRow("escapes and unicode") << QByteArray(R"({"s": "tab\t quote\" slash\/ \u4e2d\u6587 \ud83d\ude00", "t": "中文"})") << true;
    QTest::newRow("literals") << QByteArray(R"({"a": true, "b": false, "c": null, "d": [], "e": {}})") << true;
    QTest::newRow("duplicate keys kept") << QByteArray(R"({"a": 1, "a": 2})") << true;
    QTest::newRow("number past double") << QByteArray(R"({"a": 1e400, "b": -1e400})") << false;
    QTest::newRow("rapidjson-only Inf") << QByteArray(R"({"a": Inf})") << false;
    QTest::newRow("rapidjson-only -NaN") << QByteArray(R"({"a": -NaN})") << false;
    QTest::newRow("lone surrogate") << QByteArray(R"({"a": "\ud800"})") << false;
    QTest::newRow("escaped key") << QByteArray(R"({"a\"b": 1})") << false;
    QTest::newRow("syntax error") << QByteArray(R"({"a": [1, 2,, 3]})") << false;
    QTest::newRow("missing colon") << QByteArray(R"({"a" 1})") << false;
    QTest::newRow("truncated in value") << QByteArray(R"({"data": {"x": {"Max": 1.5, "Min": )") << false;
    QTest::newRow("truncated in string") << QByteArray(R"({"data": {"x": "abc)") << false;
    QTest::newRow("not an object") << QByteArray("[1, 2]") << false;
    QTest::newRow("trailing garbage") << QByteArray(R"({"a": 1} x)") << true;
    QTest::newRow("too deep") << QByteArray(R"({"a": )" + QByteArray(600, '[') + QByteArray(600, ']') + "}") << false;
}

void TestFastJson::sameAsTokenizer()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, clean);
    const std::string s = text.toStdString();
    std::uint64_t fallbacks = 0;
    const QStringList fast = viaFast(s, &fallbacks);
    QCOMPARE(fast, viaTokenizer(s));
    QCOMPARE(fast.isEmpty(), text == "{}");
    if (clean)
        QCOMPARE(fallbacks, std::uint64_t(0));
}

void TestFastJson::acrossBlocks()
{
    // Values cross the reader's 4 MiB blocks; every value must still come out whole, without
    // the tokenizer's help, and a cut at any of a few points must fail like the tokenizer.
    const std::string doc = bigDocument(40000);
    QVERIFY(doc.size() > size_t(10) << 20);
    std::uint64_t fallbacks = 1;
    const QStringList fast = viaFast(doc, &fallbacks);
    QCOMPARE(fallbacks, std::uint64_t(0));
    QCOMPARE(fast.size(), 3);
    QCOMPARE(fast, viaTokenizer(doc));
    for (size_t cut : {size_t(4) << 20, (size_t(4) << 20) + 1, doc.size() / 2 + 3, doc.size() - 2}) {
        const std::string part = doc.substr(0, cut);
        const QStringList f = viaFast(part);
        QCOMPARE(f, viaTokenizer(part));
        QVERIFY2(f.last().startsWith(QLatin1String("ERROR")) && f.last().endsWith(QLatin1String("end=1")), qPrintable(f.last()));
    }
}

void TestFastJson::fromFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dump.json"));
    const std::string doc = bigDocument(20000);
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(doc.data(), qint64(doc.size())), qint64(doc.size()));
    }
    FastJsonReader r;
    QVERIFY(r.open(path));
    QCOMPARE(r.size(), std::uint64_t(doc.size()));
    QCOMPARE(walk(r), viaTokenizer(doc));
    FastJsonReader missing;
    QVERIFY(!missing.open(dir.filePath(QStringLiteral("nope.json"))));
    QVERIFY(!missing.error().isEmpty());
}

void TestFastJson::pythonAgrees()
{
    // Python's json module reads the same document; its json.dumps of every member must be
    // what both readers serialised.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dump.json"));
    const std::string doc = bigDocument(300);
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(doc.data(), qint64(doc.size()));
    }
    QProcess py;
    py.start(QStringLiteral("/usr/bin/python3"),
             {QStringLiteral("-c"), QStringLiteral("import json,sys\nd=json.load(open(sys.argv[1]))\n"
                                                   "for k,v in d.items(): print(k+'='+json.dumps(v))"),
              path});
    QVERIFY(py.waitForFinished(60000));
    QCOMPARE(py.exitCode(), 0);
    const QStringList expected = QString::fromUtf8(py.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(expected.size(), 3);
    QCOMPARE(viaFast(doc), expected);
}

QTEST_GUILESS_MAIN(TestFastJson)
#include "tst_fastjson.moc"
