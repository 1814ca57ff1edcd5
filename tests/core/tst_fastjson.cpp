// FastJsonReader (RapidJSON SAX) against JsonStreamReader, the reference tokenizer: the same
// walk over an msprobe-shaped document (members of the top object, each value parsed into a
// tree) must give the same keys, the same trees (Python's json.dumps spelling), and on bad
// input the same error text, offset and truncation flag. Python's json module is the oracle
// of the serialised trees for the valid inputs.
//
// The dump.json reader streams entries into records straight from RapidJSON's events
// (EntryRecords); its records, warnings and errors must be those of the reference walk over
// each entry's JsonTree, with RapidJSON's trees and with the tokenizer's, on every dump.json
// and debug.json of samples/, on documents made of the unusual leaves, and on every cut of them.
#include "describepart.h"
#include "formats/msprobe/fastjson.h"
#include "formats/msprobe/jsonstream.h"
#include "formats/msprobe/msprobereader.h"

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <random>
#include <cstring>
#include <cmath>
#include <charconv>

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

/// `text` laid out as Python's json.dump(indent=1) lays out msprobe's dump.json (one value per
/// line, one more space per level, empty containers as `{}` / `[]`): the layout simdjson
/// windows are cut by. Tokens are copied as they are; only white space outside strings changes.
std::string indented(const std::string &text)
{
    std::string out;
    int depth = 0;
    bool inString = false;
    auto newline = [&] {
        out += '\n';
        out.append(size_t(std::max(depth, 0)), ' ');
    };
    auto nextToken = [&](size_t i) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
        return i < text.size() ? text[i] : '\0';
    };
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"': inString = true; out += c; break;
        case '{':
        case '[':
            out += c;
            if (nextToken(i + 1) == (c == '{' ? '}' : ']')) {
                i = text.find(c == '{' ? '}' : ']', i + 1);
                out += c == '{' ? '}' : ']';
                break;
            }
            ++depth;
            newline();
            break;
        case '}':
        case ']':
            --depth;
            newline();
            out += c;
            break;
        case ',':
            out += c;
            newline();
            break;
        case ':': out += ": "; break;
        default:
            if (!std::isspace(static_cast<unsigned char>(c)))
                out += c;
        }
    }
    return out;
}

QStringList readRecords(const std::string &text, JsonEngine engine)
{
    ds::IndexPart part;
    const bool complete = readDumpJsonText(text, QStringLiteral("step0/rank0"), QStringLiteral("step0/rank0/dump.json"),
                                           ds::DumpLevels{}, part, engine);
    return describe(part, complete);
}

/// A dump.json of ten entries, each holding `number` as a value leaf, a list element, a shape
/// dimension and a recorded statistic: number tokens of every digit count on both sides of the
/// 8-byte steps of the window's digit scan, and spellings JSON or RapidJSON refuse.
std::string numberDocument(const std::string &number)
{
    std::string s = R"({"task": "statistics", "level": "mix", "data": {)";
    for (int i = 0; i < 10; ++i) {
        s += i ? ", " : "";
        s += "\"Torch.n." + std::to_string(i) + R"(.forward": {"input_args": [{"type": "float", "value": )" + number
             + "}, [" + number + R"(, 1], {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [)" + number
             + R"(, 2], "Max": )" + number + R"(, "Min": -1.5, "Mean": )" + number + R"(, "Norm": 2, "requires_grad": false}]})";
    }
    return s + "}}";
}

/// Number spellings of every digit count: integers, fractions, exponents.
std::vector<std::string> numberSpellings()
{
    std::vector<std::string> out = {"0", "-0", "0.0", "-0.5e-3", "1E+05", "1e-7", "2e01", "NaN", "Infinity", "-Infinity"};
    const std::string digits = "1234567890123456789012345";
    for (size_t n = 1; n <= 24; ++n) {
        out.push_back(digits.substr(0, n));
        out.push_back("-" + digits.substr(0, n));
        out.push_back("0." + digits.substr(0, n));
        out.push_back(digits.substr(0, n) + "." + digits.substr(0, 25 - n));
        out.push_back("-" + digits.substr(0, n) + "e-" + std::to_string(n % 10));
    }
    return out;
}

/// dump.json documents of the leaves the streaming reader must treat like the walk, common
/// and odd (each entry a case; the comments say what it exercises).
std::string oddLeaves()
{
    const std::string t = R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3], "Max": 1.5, "Min": -2, "Mean": 0.1, "Norm": 3.25, "requires_grad": true})";
    std::string s = R"({"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null, "data": {)";
    const std::pair<const char *, std::string> entries[] = {
        {"Torch.plain.0.forward", R"({"input_args": [)" + t + ", " + t + R"(], "input_kwargs": {}, "output": [)" + t + "]}"},
        {"Torch.files.0.forward", R"({"input_args": [{"type": "torch.Tensor", "dtype": "torch.bfloat16", "shape": [4], "Max": NaN, "Min": -Infinity, "Mean": Infinity, "Norm": null, "md5": "0a1b2c3d", "data_name": "Torch.files.0.forward.input.0.pt"}, {"type": "numpy.ndarray", "dtype": "float16", "shape": [], "md5": "not-a-crc", "data_name": "x.npy"}]})"},
        {"Torch.values.0.forward", R"({"input_args": [{"type": "int", "value": 3}, {"type": "float", "value": 1e-05}, {"type": "slice", "value": [0, 3, 2]}, {"type": "str", "value": "a\"b\u00e9\n"}, null, true, 7, 2.5, "text", {"type": "torch.dtype", "value": "torch.float32"}, {"type": "torch.memory_format", "format": "contiguous_format"}, {"type": "torch.distributed.ProcessGroup", "group_ranks": [0, 1], "group_id": "g\u4e2d"}, {"type": "list", "value": [[1, 2], [3]]}, {"type": "dict", "value": {"a": 1, "b": [true, null]}}, {"type": "x"}, {"type": "tuple", "value": [], "extra": {}}]})"},
        {"Torch.p2p.0.forward", R"({"input_args": [{"class_type": "torch.distributed.P2POp", "op": "isend", "peer": 1, "tag": 0, "tensor": )" + t + R"(}, {"class_type": "torch.distributed.P2POp", "op": "irecv"}, {"class_type": 5, "type": "int", "value": 1}]})"},
        {"Torch.containers.0.forward", R"({"input_args": [{}, [], [[)" + t + ", [" + t + R"(]]], {"a": 1, "b": {"type": "int", "value": 2}, "c": [)" + t + R"(]}], "output": 3, "input": "x", "parameters": {"weight": )" + t + R"(, "bias": null}, "is_recompute": true, "is_nan": 1, "extra": [)" + t + R"(], "more": {"k": )" + t + R"(}, "": [)" + t + R"(]})"},
        {"Module.fc.Linear.parameters_grad.0", R"({"weight": [)" + t + R"(], "bias": )" + t + R"(, "two": [)" + t + ", " + t + R"(], "none": [], "n": 5, "s": "x", "o": {"a": )" + t + "}}"},
        {"Torch.shapes.0.forward", R"({"input_args": [{"type": "torch.Tensor", "dtype": "torch.int8", "shape": [2.5]}, {"type": "torch.Tensor", "dtype": "torch.int8", "shape": [12345678901234567890]}, {"type": "torch.Tensor", "dtype": "torch.int8", "shape": [123456789012345]}, {"type": "torch.Tensor", "dtype": "torch.int8", "shape": [-3, -0, 0]}, {"type": "torch.Tensor", "dtype": "torch.int8", "shape": null}, {"type": "torch.Tensor", "dtype": "torch.int8", "shape": [NaN]}, {"type": "torch.Tensor", "dtype": "torch.int8", "shape": ["2"]}, {"type": "torch.Tensor", "shape": [[2]]}, {"type": "torch.Tensor", "dtype": "torch.int8", "shape": [)" + [] {
             std::string d;
             for (int i = 0; i < 65; ++i)
                 d += i ? ", 1" : "1";
             return d;
         }() + R"(]}, {"type": "custom", "dtype": "float32", "shape": [2]}, {"type": "custom", "dtype": "float32"}, {"dtype": "float32", "shape": [2]}]})"},
        {"Torch.stats.0.forward", R"({"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "Max": "nan", "Min": "-Infinity ", "Mean": "1.5", "Norm": "x"}, {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "Max": "stat_index", "Min": true, "Mean": false, "Norm": [1]}, {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "Max": 1, "Max_origin": 2, "Min": 1, "Min_origin": null}, {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "Max": 1, "Max_origin": "inf"}, {"type": "torch.Tensor", "dtype": "torch.float64", "shape": [1], "Max": 0.1, "Min": 1e308, "Mean": 1e-320, "Norm": 123456789012345678901234567890}]})"},
        {"Torch.dupes.0.forward", R"({"input_args": [{"type": "torch.Tensor", "type": 5, "value": 1}, {"type": 5, "type": "int", "value": 1, "value": 2}, {"type": "torch.Tensor", "dtype": "a", "dtype": "torch.float16", "shape": [1], "Max": 1, "Max": 2}], "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "tensor": 1, "value": "v", "class_type": null}]})"},
        {"Torch.odd.0.forward", R"({"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "datapath": "forward_real_data_x.pt"}, {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "datapath": 3, "data_name": 4}, {"type": "DTensor", "dtype": "torch.float32", "shape": [2], "device_mesh": {"mesh": [0, 1]}, "placements": ["Shard-0"]}, {"k\"ey": 1, "\u4e2d": {"type": "int", "value": 2}}]})"},
        {"x_grad.0.debug", R"({"a": 1, "b": {"type": "int", "value": 2}})"},
        {"y.0.debug", R"(5)"},
        {"Torch.notobject.0.forward", R"([1, {"type": "int", "value": 2}])"},
        {"Torch.scalar.0.forward", R"("just text")"},
        {"Torch.nullbody.0.forward", R"(null)"},
        {"Torch.empty.0.forward", R"({})"},
        {"Torch.last.0.backward", R"({"input": [)" + t + R"(], "output": [)" + t + "]}"},
    };
    bool first = true;
    for (const auto &[name, body] : entries) {
        s += first ? "\n  \"" : ",\n  \"";
        first = false;
        s += name;
        s += "\": ";
        s += body;
    }
    s += "\n }\n}\n";
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
    void recordsSameAsTree_data();
    void recordsSameAsTree();
    void recordsOnEveryCut();
    void windowMisledByLayout();
    void numbersAsFromChars();
    void numbersOutOfRangeAsPython();
    void recordsAcrossBlocks();
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

void TestFastJson::recordsSameAsTree_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("minOps"); // at least this many entries (the document is read at all)
    QTest::newRow("odd leaves") << QByteArray::fromStdString(oddLeaves()) << 17;
    QTest::newRow("big document") << QByteArray::fromStdString(bigDocument(500)) << 500;
    QTest::newRow("too deep in a list") << QByteArray(R"({"data": {"a.0.forward": {"input_args": )" + QByteArray(600, '[') + QByteArray(600, ']') + "}}}") << 0;
    QTest::newRow("too deep in a leaf") << QByteArray(R"({"data": {"a.0.forward": {"input_args": [{"type": "list", "value": )" + QByteArray(600, '[') + QByteArray(600, ']') + "}]}}}") << 0;
    QTest::newRow("just below the depth limit") << QByteArray(R"({"data": {"a.0.forward": {"input_args": )" + QByteArray(510, '[') + "1" + QByteArray(510, ']') + R"(, "output": [{"type": "list", "value": )" + QByteArray(508, '[') + QByteArray(508, ']') + "}]}}}") << 1;
    QTest::newRow("Inf in a leaf") << QByteArray(R"({"data": {"a.0.forward": {"input_args": [{"type": "torch.Tensor", "Max": 1}]}, "b.0.forward": {"input_args": [{"type": "torch.Tensor", "Max": Inf}]}}})") << 1;
    QTest::newRow("-NaN in a list") << QByteArray(R"({"data": {"a.0.forward": {"input_args": [1, -NaN]}}})") << 0;
    QTest::newRow("lone surrogate in a leaf") << QByteArray(R"({"data": {"a.0.forward": {"input_args": [{"type": "str", "value": "\ud800"}]}}})") << 1;
    QTest::newRow("number past double in stats") << QByteArray(R"({"data": {"a.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1], "Max": 1e400, "Min": -1e999}]}}})") << 1;
    QTest::newRow("syntax error in a leaf") << QByteArray(R"({"data": {"a.0.forward": {"input_args": [{"type": "int" "value": 1}]}}})") << 0;
    int row = 0;
    for (const std::string &n : numberSpellings())
        QTest::newRow(qPrintable(QStringLiteral("number %1: %2").arg(++row).arg(QString::fromStdString(n)))) << QByteArray::fromStdString(numberDocument(n)) << 10;
    // Refused by JSON or read differently by RapidJSON: a window must not take them.
    for (const char *bad : {"01", "-01", "00", "1.", ".5", "-.5", "1e", "1e+", "1e-", "1e123", "1E+123", "1.5x", "-", "--1", "+1", "1.5.5",
                            "0x10", "1e5e5", "1e400", "-1e999", "1e-400", "1e0000001", "NaNx", "Infinityy", "-NaN", "nan", "inf", "-Inf", "1.0e", "12345678901234567890123456789012345678901234567890123456789012345"})
        QTest::newRow(qPrintable(QStringLiteral("bad number %1").arg(QLatin1String(bad)))) << QByteArray::fromStdString(numberDocument(bad)) << 0;
    // Every dump.json / debug.json of samples/ (real msprobe outputs and the oracle's).
    QDirIterator it(QStringLiteral(DUMPSCOPE_SAMPLES), {QStringLiteral("dump.json"), QStringLiteral("debug.json")},
                    QDir::Files, QDirIterator::Subdirectories);
    int files = 0;
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QTest::newRow(qPrintable(QDir(QStringLiteral(DUMPSCOPE_SAMPLES)).relativeFilePath(path))) << f.readAll() << 0;
        ++files;
    }
    QVERIFY(files >= 100);
}

void TestFastJson::recordsSameAsTree()
{
    QFETCH(QByteArray, text);
    QFETCH(int, minOps);
    const std::string s = text.toStdString();
    const QStringList streamed = readRecords(s, JsonEngine::RapidJson);
    QCOMPARE(streamed, readRecords(s, JsonEngine::RapidJsonTree));
    QCOMPARE(streamed, readRecords(s, JsonEngine::Tokenizer));
    QCOMPARE(readRecords(s, JsonEngine::SimdJson), streamed);
    QVERIFY(streamed.filter(QRegularExpression(QStringLiteral("^op "))).size() >= minOps);
    // Laid out as msprobe writes (the layout simdjson windows need): the same records again,
    // and windows took entries whenever there are more than a few.
    const std::string laidOut = indented(s);
    const QStringList laidOutRecords = readRecords(laidOut, JsonEngine::RapidJson);
    const std::uint64_t before = ds::msprobe::simdWindowEntries();
    QCOMPARE(readRecords(laidOut, JsonEngine::SimdJson), laidOutRecords);
    const qsizetype ops = laidOutRecords.filter(QRegularExpression(QStringLiteral("^op "))).size();
    if (ops >= 8 && laidOutRecords.first().startsWith(QLatin1String("complete=true")))
        QVERIFY2(ds::msprobe::simdWindowEntries() > before, "no entry was read through a simdjson window");
}

void TestFastJson::recordsOnEveryCut()
{
    // Truncated at every few bytes: the same salvaged records and the same error (text and
    // offset) from all three.
    const std::string doc = oddLeaves();
    int cuts = 0;
    for (size_t cut = 0; cut < doc.size(); cut += cut < 200 ? 1 : 7) {
        const std::string part = doc.substr(0, cut);
        const QStringList streamed = readRecords(part, JsonEngine::RapidJson);
        QCOMPARE(streamed, readRecords(part, JsonEngine::RapidJsonTree));
        QCOMPARE(streamed, readRecords(part, JsonEngine::Tokenizer));
        QVERIFY2(streamed.last().startsWith(QLatin1String("error ")), qPrintable(streamed.last()));
        ++cuts;
    }
    QVERIFY(cuts > 500);
    // The same laid out as msprobe writes: windows end wherever the cut leaves whole entries.
    const std::string laidOut = indented(doc);
    const std::uint64_t before = ds::msprobe::simdWindowEntries();
    int laidOutCuts = 0;
    for (size_t cut = 0; cut < laidOut.size(); cut += cut < 200 ? 1 : 7) {
        const std::string part = laidOut.substr(0, cut);
        QCOMPARE(readRecords(part, JsonEngine::SimdJson), readRecords(part, JsonEngine::RapidJson));
        ++laidOutCuts;
    }
    QVERIFY(laidOutCuts > 500);
    QVERIFY(ds::msprobe::simdWindowEntries() > before);
}

void TestFastJson::windowMisledByLayout()
{
    // "\n  }," also ends entry b's input_kwargs: the window ends there, so b walked up to it
    // (`{"input_kwargs": {...}}`) looks complete and the window's '}' closes b, not the
    // window (both guards of readEntryWindow catch it). b must not be taken: only a comes from
    // the window; b (with its output) and c
    // are read entry by entry, with the records RapidJSON gives.
    const std::string doc = "{\n \"task\": \"statistics\",\n \"data\": {\n"
                            "  \"Torch.a.0.forward\": {\n   \"input_args\": [\n    {\"type\": \"int\", \"value\": 1}\n   ]\n  },\n"
                            "  \"Torch.b.0.forward\": {\n   \"input_kwargs\": {\"x\": {\"type\": \"int\", \"value\": 2}\n  },"
                            " \"output\": [{\"type\": \"int\", \"value\": 3}]},\n"
                            "  \"Torch.c.0.forward\": {\n   \"input_args\": [\n    {\"type\": \"str\", \"value\": \""
        + std::string(200, 'c') + "\"}\n   ]\n  }\n }\n}";
    const QStringList expected = readRecords(doc, JsonEngine::RapidJson);
    QVERIFY2(expected.filter(QRegularExpression(QStringLiteral("^op "))).size() == 3, qPrintable(expected.join('\n')));
    QVERIFY2(expected.join('\n').contains(QLatin1String("output")), qPrintable(expected.join('\n')));
    const std::uint64_t before = ds::msprobe::simdWindowEntries();
    QCOMPARE(readRecords(doc, JsonEngine::SimdJson), expected);
    QCOMPARE(ds::msprobe::simdWindowEntries() - before, std::uint64_t(1));
}

void TestFastJson::recordsAcrossBlocks()
{
    // Entries cross the reader's 4 MiB blocks (the streaming reader parses such an entry again
    // from its start after reading on); read from a file, as indexing does.
    const std::string doc = bigDocument(40000);
    QVERIFY(doc.size() > size_t(10) << 20);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dump.json"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(doc.data(), qint64(doc.size())), qint64(doc.size()));
    }
    ds::IndexPart part;
    const std::uint64_t before = ds::msprobe::simdWindowEntries();
    const bool complete = readDumpJson(path, QStringLiteral("step0/rank0"), QStringLiteral("step0/rank0/dump.json"),
                                       ds::DumpLevels{}, part);
    const QStringList fromFile = describe(part, complete);
    QCOMPARE(part.ops.size(), size_t(40000));
    // Every entry but the last of the file came through simdjson windows (SimdJson, the default).
    QCOMPARE(ds::msprobe::simdWindowEntries() - before, std::uint64_t(39999));
    QCOMPARE(fromFile, readRecords(doc, JsonEngine::Tokenizer));
    ds::IndexPart viaTokenizer;
    const bool tokenizerComplete = readDumpJson(path, QStringLiteral("step0/rank0"), QStringLiteral("step0/rank0/dump.json"),
                                                ds::DumpLevels{}, viaTokenizer, nullptr, JsonEngine::Tokenizer);
    QCOMPARE(describe(viaTokenizer, tokenizerComplete), fromFile);
}

void TestFastJson::numbersAsFromChars()
{
    // numberFromText (statistics, number nodes): the same double as from_chars (the correctly
    // rounded reading) for numbers written as Python's repr and printf write them, across
    // magnitudes, and for hand-picked edges (2^53, 1e22, subnormals, the largest double).
    std::mt19937_64 rng(16);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::uniform_int_distribution<int> scale(-30, 30);
    std::vector<std::string> texts{"0.0", "-0.0", "1e22", "1e23", "9007199254740993.0", "9007199254740992.5",
                                   "0.1", "1.7976931348623157e308", "5e-324", "123456789012345678.5", "1.5E+3",
                                   "2.5e-0", "0.00000000000000000000000001", "4.9406564584124654e-324"};
    char buf[64];
    for (int i = 0; i < 100000; ++i) {
        const double v = unit(rng) * std::pow(10.0, scale(rng));
        texts.emplace_back(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); // shortest round trip
        texts.emplace_back(buf, size_t(std::snprintf(buf, sizeof buf, "%.17g", v)));
        texts.emplace_back(buf, size_t(std::snprintf(buf, sizeof buf, "%.6f", v)));
    }
    int checked = 0;
    for (const std::string &t : texts) {
        if (t.find_first_of(".eE") == std::string::npos)
            continue; // integers take their own path
        const bool neg = t[0] == '-';
        double expected = 0;
        std::from_chars(t.data() + neg, t.data() + t.size(), expected);
        expected = neg ? -expected : expected;
        const double got = ds::msprobe::numberFromText(t, false);
        QVERIFY2(std::memcmp(&got, &expected, sizeof got) == 0, t.c_str());
        ++checked;
    }
    QVERIFY(checked > 200000);
}

void TestFastJson::numbersOutOfRangeAsPython()
{
    // Numbers past a double's range read as Python's json module reads them (inf, -inf, 0 or
    // the nearest subnormal), whichever way they are written: Python itself is the oracle.
    const std::vector<std::string> texts{"1e400", "-1e400", "1E+400", "1e-400", "-1e-400", "2.4e-324", "2.5e-324",
                                         "4.9e-324", "1.7976931348623159e308", "1.7976931348623157e308",
                                         "1" + std::string(400, '0') + ".0", "0." + std::string(400, '0') + "1",
                                         "-1" + std::string(400, '0') + ".5"};
    QStringList args{QStringLiteral("-c"), QStringLiteral("import json,sys\nfor t in sys.argv[1:]: print(float.hex(float(json.loads(t))))")};
    for (const std::string &t : texts)
        args << QString::fromStdString(t);
    QProcess py;
    py.start(QStringLiteral("/usr/bin/python3"), args);
    QVERIFY(py.waitForFinished(60000));
    QCOMPARE(py.exitCode(), 0);
    const QStringList expected = QString::fromUtf8(py.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(size_t(expected.size()), texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
        const std::string &t = texts[i];
        const double got = ds::msprobe::numberFromText(t, false);
        char hex[64];
        std::snprintf(hex, sizeof hex, "%a", got);
        // Python's float.hex ("0x1.8p+1", "-0x0.0p+0", "0x0.0000000000001p-1022") read back
        const double want = expected[int(i)].startsWith(QLatin1String("inf")) ? HUGE_VAL
                            : expected[int(i)].startsWith(QLatin1String("-inf")) ? -HUGE_VAL
                                                                                : std::strtod(expected[int(i)].toLatin1().constData(), nullptr);
        QVERIFY2(std::memcmp(&got, &want, sizeof got) == 0, qPrintable(QString::fromStdString(t.substr(0, 40)) + " -> " + QString::fromLatin1(hex) + ", Python " + expected[int(i)]));
    }
}

QTEST_GUILESS_MAIN(TestFastJson)
#include "tst_fastjson.moc"
