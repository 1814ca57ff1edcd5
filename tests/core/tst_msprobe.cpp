// msprobe (dump.json, stack.json, construct.json, debug.json) and ptdbg_ascend (dump.pkl,
// overflow .pkl, forward_info) readers against the oracle samples/generate_msprobe.py wrote
// from the Python objects it serialised; plus tokenizer edge cases.
#include "formats/msprobe/jsonstream.h"
#include "formats/msprobe/msprobereader.h"
#include "tensor/dtype.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace ds;
using json = nlohmann::json;

namespace {
const QString kMsprobe = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe");
const QString kTruncated = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_truncated");
const QString kPtdbg = QStringLiteral(DUMPSCOPE_SAMPLES "/ptdbg");

json loadJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray b = f.readAll();
    return json::parse(b.constData(), b.constData() + b.size());
}

QString qs(const json &j) { return j.is_string() ? QString::fromStdString(j.get<std::string>()) : QString(); }

QString storageName(TensorStorage s)
{
    switch (s) {
    case TensorStorage::PtFile: return QStringLiteral("pt");
    case TensorStorage::NpyFile: return QStringLiteral("npy");
    case TensorStorage::Absent: return QStringLiteral("absent");
    case TensorStorage::Value: return QStringLiteral("value");
    default: return QStringLiteral("other");
    }
}

DumpLevels levelsFor(const QString &rel)
{
    DumpLevels l;
    const QStringList parts = rel.split(QLatin1Char('/'));
    l.step = parts.value(parts.size() - 2);
    l.rank = parts.value(parts.size() - 1);
    return l;
}

// Exact comparison of a recorded statistic with the oracle's repr() text (or null).
bool statMatches(const RecordedStats &s, RecordedStats::Field f, double v, const json &expected, QString &why)
{
    if (expected.is_null()) {
        if (s.has(f)) {
            why = QStringLiteral("present, expected null");
            return false;
        }
        return true;
    }
    if (!s.has(f)) {
        why = QStringLiteral("absent, expected %1").arg(qs(expected));
        return false;
    }
    const QString e = qs(expected);
    if (e == QLatin1String("nan"))
        return std::isnan(v) || (why = QStringLiteral("%1, expected nan").arg(v), false);
    if (e == QLatin1String("inf"))
        return (std::isinf(v) && v > 0) || (why = QStringLiteral("%1, expected inf").arg(v), false);
    if (e == QLatin1String("-inf"))
        return (std::isinf(v) && v < 0) || (why = QStringLiteral("%1, expected -inf").arg(v), false);
    const double d = e.toDouble();
    if (d != v) {
        why = QStringLiteral("%1, expected %2").arg(v, 0, 'g', 17).arg(e);
        return false;
    }
    return true;
}

// Compares one record with an oracle leaf; an empty return value means equal.
QString compareLeaf(const TensorRecord &t, const json &e)
{
    const QString name = qs(e["name"]);
    auto diff = [&](const char *field, const QString &got, const QString &want) {
        return QStringLiteral("%1.%2: got \"%3\", expected \"%4\"").arg(name, QLatin1String(field), got, want);
    };
    if (t.name() != name)
        return diff("name", t.name(), name);
    if (ioKindName(t.io()) != qs(e["io"]))
        return diff("io", ioKindName(t.io()), qs(e["io"]));
    if (t.index() != e["index"].get<std::uint32_t>())
        return diff("index", QString::number(t.index()), QString::number(e["index"].get<int>()));
    if (storageName(t.storage()) != qs(e["storage"]))
        return diff("storage", storageName(t.storage()), qs(e["storage"]));
    if (t.typeName() != qs(e["type"]))
        return diff("type", t.typeName(), qs(e["type"]));
    if (t.value() != qs(e["value"]))
        return diff("value", t.value(), qs(e["value"]));
    if (t.location() != qs(e["location"]))
        return diff("location", t.location(), qs(e["location"]));
    if (t.checksum() != qs(e["checksum"]))
        return diff("checksum", t.checksum(), qs(e["checksum"]));
    if (e.contains("dtype") && dataTypeName(t.dataType()) != qs(e["dtype"]) && t.storage() != TensorStorage::Value)
        return diff("dtype", dataTypeName(t.dataType()), qs(e["dtype"]));
    Shape shape;
    for (const auto &d : e["shape"])
        shape.push_back(d.get<std::uint64_t>());
    if (t.shape() != shape)
        return diff("shape", shapeToString(t.shape()), shapeToString(shape));
    const json &stats = e["stats"];
    const bool isList = stats.is_array();
    const RecordedStats::Field fields[4] = {RecordedStats::Max, RecordedStats::Min, RecordedStats::Mean, RecordedStats::Norm};
    const double values[4] = {t.recorded().max, t.recorded().min, t.recorded().mean, t.recorded().norm};
    const char *keys[4] = {"Max", "Min", "Mean", "Norm"};
    for (int k = 0; k < 4; ++k) {
        QString why;
        const json &want = isList ? stats[size_t(k)] : stats[keys[k]];
        if (!statMatches(t.recorded(), fields[k], values[k], want, why))
            return QStringLiteral("%1.%2: %3").arg(name, QLatin1String(keys[k]), why);
    }
    return {};
}

QString compareOp(const OpRecord &op, const json &e)
{
    const QString name = qs(e["name"]);
    if (op.opName != name)
        return QStringLiteral("op name %1, expected %2").arg(op.opName, name);
    if (op.tensors.size() != e["leaves"].size())
        return QStringLiteral("%1: %2 leaves, expected %3").arg(name).arg(op.tensors.size()).arg(e["leaves"].size());
    for (size_t i = 0; i < op.tensors.size(); ++i) {
        const QString d = compareLeaf(op.tensors[i], e["leaves"][i]);
        if (!d.isEmpty())
            return name + QStringLiteral(": ") + d;
    }
    return {};
}

QStringList stackOf(const IndexPart &part, const OpRecord &op)
{
    return op.stack >= 0 && size_t(op.stack) < part.stacks.size() ? part.stacks[size_t(op.stack)] : QStringList();
}

// JSON test texts written with ' for " (moc does not parse raw string literals).
QString J(const char *text)
{
    return QString::fromUtf8(text).replace(QLatin1Char('\''), QLatin1Char('"'));
}

QStringList toList(const json &j)
{
    QStringList l;
    if (j.is_array())
        for (const auto &s : j)
            l << qs(s);
    return l;
}
} // namespace

class TestMsprobe : public QObject
{
    Q_OBJECT
private slots:
    void ranks_data()
    {
        QTest::addColumn<QString>("rel");
        const json oracle = loadJson(kMsprobe + QStringLiteral("/expected.json"));
        QVERIFY2(oracle.contains("ranks"), "samples/msprobe/expected.json missing: run samples/generate_msprobe.py");
        for (auto it = oracle["ranks"].begin(); it != oracle["ranks"].end(); ++it)
            QTest::addRow("%s", it.key().c_str()) << QString::fromStdString(it.key());
    }
    void ranks()
    {
        QFETCH(QString, rel);
        const json oracle = loadJson(kMsprobe + QStringLiteral("/expected.json"));
        const json &want = oracle["ranks"][rel.toStdString()];
        QVERIFY(msprobe::looksLikeMsprobeRankDir(kMsprobe + QLatin1Char('/') + rel));
        QVERIFY(!ptdbg::looksLikePtdbgRankDir(kMsprobe + QLatin1Char('/') + rel));
        QCOMPARE(msprobe::isGenerationC(kMsprobe + QLatin1Char('/') + rel), rel.endsWith(QLatin1String("proc2016")));
        const DumpLevels levels = levelsFor(rel);
        auto part = msprobe::indexRankDir(kMsprobe, rel, levels);
        QVERIFY2(part.ok(), qPrintable(part.errorText()));
        for (const FileError &e : part->errors)
            qWarning() << e.file << e.message;
        QVERIFY(part->errors.empty());
        QCOMPARE(part->task, qs(want["task"]));
        QCOMPARE(part->level, qs(want["level"]));
        QCOMPARE(part->framework, qs(want["framework"]));
        const json &ops = want["ops"];
        QCOMPARE(part->ops.size(), ops.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            const OpRecord &op = part->ops[i];
            const json &e = ops[i];
            const QString d = compareOp(op, e);
            QVERIFY2(d.isEmpty(), qPrintable(d));
            QCOMPARE(op.timestamp, e["seq"].get<std::uint64_t>());
            QCOMPARE(op.relPath.toString(), qs(e["relPath"]));
            QCOMPARE(op.dataFile.toString(), qs(e["file"]));
            QCOMPARE(op.levels->step, levels.step);
            QCOMPARE(op.levels->rank, levels.rank);
            QVERIFY(op.warnings().isEmpty());
            QCOMPARE(op.parent.toString(), qs(e["parent"]));
            const bool inferred = std::find(part->parentInferred.begin(), part->parentInferred.end(), int(i))
                != part->parentInferred.end();
            QCOMPARE(inferred, e["parentInferred"].get<bool>());
            QCOMPARE(stackOf(*part, op), toList(e["stack"]));
        }
    }

    void stackGroupsShared()
    {
        // New format: entries of one group share one stack; backward entries use their
        // forward twin's (module `.backward.0` and API `.backward`).
        auto part = msprobe::indexRankDir(kMsprobe, QStringLiteral("step0/rank1"), levelsFor(QStringLiteral("step0/rank1")));
        QVERIFY(part.ok());
        QHash<QString, int> stack;
        for (const auto &op : part->ops)
            stack.insert(op.opName, op.stack);
        QVERIFY(stack[QStringLiteral("Module.conv1.Conv2d.forward.0")] >= 0);
        QCOMPARE(stack[QStringLiteral("Module.conv1.Conv2d.forward.0")], stack[QStringLiteral("Functional.relu.0.forward")]);
        QCOMPARE(stack[QStringLiteral("Module.conv1.Conv2d.backward.0")], stack[QStringLiteral("Module.conv1.Conv2d.forward.0")]);
        QCOMPARE(stack[QStringLiteral("Functional.linear.0.backward")], stack[QStringLiteral("Functional.linear.0.forward")]);
        QCOMPARE(stack[QStringLiteral("Module.fc.Linear.parameters_grad.0")], -1);
        // A failed retrieval is kept as its single line.
        const QStringList failed = part->stacks[size_t(stack[QStringLiteral("Tensor.flatten.0.forward")])];
        QCOMPARE(failed, QStringList{QStringLiteral("The call stack retrieval failed.")});
        QVERIFY(!parseStackLine(failed.first()));
        const auto frame = parseStackLine(part->stacks[size_t(stack[QStringLiteral("Functional.relu.0.forward")])].first());
        QVERIFY(frame);
        QCOMPARE(frame->path, QStringLiteral("/home/user/train.py"));
        QCOMPARE(frame->line, 40);
        QCOMPARE(frame->func, QStringLiteral("forward"));
        QCOMPARE(frame->code, QStringLiteral("x = self.layer0(x)"));
    }

    void construct()
    {
        auto part = msprobe::indexRankDir(kMsprobe, QStringLiteral("step0/rank0"), levelsFor(QStringLiteral("step0/rank0")));
        QVERIFY(part.ok());
        QHash<QString, const OpRecord *> by;
        for (const auto &op : part->ops)
            by.insert(op.opName, &op);
        QCOMPARE(by[QStringLiteral("Functional.conv2d.0.forward")]->parent, QStringLiteral("Module.conv1.Conv2d.forward.0"));
        QCOMPARE(by[QStringLiteral("Module.conv1.Conv2d.forward.0")]->parent, QString());
        // Recorded as Module.fc.Linear.backward.0 (in-place reuse); re-derived from the twin.
        QCOMPARE(by[QStringLiteral("Functional.conv2d.0.backward")]->parent, QStringLiteral("Module.conv1.Conv2d.backward.0"));
        QCOMPARE(part->parentInferred.size(), size_t(1));
        // Megatron [parent, micro_step] values.
        auto mega = msprobe::indexRankDir(kMsprobe, QStringLiteral("step0/rank1"), levelsFor(QStringLiteral("step0/rank1")));
        QVERIFY(mega.ok());
        for (const auto &op : mega->ops)
            if (op.opName == QLatin1String("Functional.linear.0.forward"))
                QCOMPARE(op.parent.toString(), QStringLiteral("Module.fc.Linear.forward.0"));
        QVERIFY(mega->parentInferred.empty());
    }

    void debugJson()
    {
        auto part = msprobe::indexRankDir(kMsprobe, QStringLiteral("step0/rank0"), levelsFor(QStringLiteral("step0/rank0")));
        QVERIFY(part.ok());
        QStringList locations;
        for (const auto &op : part->ops)
            if (op.dataFile.endsWith(QLatin1String("debug.json")))
                for (const auto &t : op.tensors)
                    locations << t.location();
        QVERIFY(locations.contains(QStringLiteral("step0/rank0/dump_tensor_data/x.0.debug.pt")));
        QVERIFY(locations.contains(QStringLiteral("step0/rank0/dump_tensor_data/x_grad.0.tensor.pt")));
        QVERIFY(locations.contains(QStringLiteral("step0/rank0/dump_tensor_data/state.0.debug.key2.0.pt")));
        for (const QString &l : std::as_const(locations))
            if (!l.isEmpty())
                QVERIFY2(QFile::exists(kMsprobe + QLatin1Char('/') + l), qPrintable(l));
    }

    void tensorFilesExist()
    {
        // Every data_name of the tensor-mode rank resolves next to its dump.json.
        auto part = msprobe::indexRankDir(kMsprobe, QStringLiteral("step0/rank0"), levelsFor(QStringLiteral("step0/rank0")));
        QVERIFY(part.ok());
        int files = 0;
        for (const auto &op : part->ops)
            for (const auto &t : op.tensors)
                if (t.storage() == TensorStorage::PtFile || t.storage() == TensorStorage::NpyFile) {
                    ++files;
                    QVERIFY2(QFile::exists(kMsprobe + QLatin1Char('/') + t.location()), qPrintable(t.location()));
                }
        QVERIFY(files > 50);
        QVERIFY(part->dumpDataDir.endsWith(QLatin1String("step0/rank0/dump_tensor_data")));
    }

    void truncated()
    {
        const json oracle = loadJson(kMsprobe + QStringLiteral("/expected.json"));
        const json &want = oracle["truncated"];
        const QString rel = qs(want["dir"]);
        auto part = msprobe::indexRankDir(kTruncated, rel, levelsFor(rel));
        QVERIFY2(part.ok(), qPrintable(part.errorText()));
        QCOMPARE(part->errors.size(), size_t(1));
        const FileError &e = part->errors.front();
        QCOMPARE(e.file, qs(want["file"]));
        const QString entry = qs(want["entry"]);
        QVERIFY2(e.message.startsWith(QStringLiteral("file ends inside entry ") + entry), qPrintable(e.message));
        QVERIFY2(e.message.contains(QStringLiteral("%1 complete entries salvaged").arg(want["salvaged"].get<int>())), qPrintable(e.message));
        QFile file(kTruncated + QLatin1Char('/') + e.file);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        const QByteArray key = '"' + entry.toUtf8() + "\":";
        QCOMPARE(e.offset, quint64(text.indexOf(key) + key.size()));
        QCOMPARE(part->ops.size(), want["salvaged"].get<size_t>());
        for (size_t i = 0; i < part->ops.size(); ++i)
            QCOMPARE(part->ops[i].opName.toString(), qs(want["salvagedNames"][i]));
        // The salvaged entries are complete: identical to the intact file's.
        const json full = oracle["ranks"]["step0/rank0"]["ops"];
        for (size_t i = 0; i < part->ops.size(); ++i) {
            json e2 = full[i];
            const QString d = compareOp(part->ops[i], e2);
            QVERIFY2(d.isEmpty(), qPrintable(d));
        }
        QCOMPARE(part->task, QStringLiteral("tensor"));
    }

    void ptdbg_data()
    {
        QTest::addColumn<QString>("rel");
        QTest::addRow("v6 dots, tensors, overflow") << QStringLiteral("ptdbg_dump_v6.0/step0/rank0");
        QTest::addRow("old underscores, 3 stats") << QStringLiteral("ptdbg_dump_v6.0/step0/rank1");
    }
    void ptdbg()
    {
        QFETCH(QString, rel);
        const json oracle = loadJson(kPtdbg + QStringLiteral("/expected.json"));
        const json &want = oracle["ranks"][rel.toStdString()];
        QVERIFY(!want.is_null());
        QVERIFY(ptdbg::looksLikePtdbgRankDir(kPtdbg + QLatin1Char('/') + rel));
        QVERIFY(!msprobe::looksLikeMsprobeRankDir(kPtdbg + QLatin1Char('/') + rel));
        auto part = ptdbg::indexRankDir(kPtdbg, rel, levelsFor(rel));
        QVERIFY2(part.ok(), qPrintable(part.errorText()));
        QVERIFY(part->errors.empty());
        std::vector<json> ops(want["ops"].begin(), want["ops"].end());
        std::vector<QString> files(ops.size(), qs(want["file"]));
        std::vector<QString> dirs(ops.size(), rel);
        if (want.contains("overflow"))
            for (const auto &o : want["overflow"]["ops"]) {
                ops.push_back(o);
                files.push_back(qs(want["overflow"]["file"]));
                dirs.push_back(qs(want["overflow"]["relPathDir"]));
            }
        QCOMPARE(part->ops.size(), ops.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            const OpRecord &op = part->ops[i];
            const QString d = compareOp(op, ops[i]);
            QVERIFY2(d.isEmpty(), qPrintable(d));
            QCOMPARE(op.timestamp, quint64(i));
            QCOMPARE(op.dataFile.toString(), files[i]);
            QCOMPARE(op.relPath.toString(), QString(dirs[i] + QLatin1Char('/') + op.opName));
            QCOMPARE(stackOf(*part, op), toList(ops[i]["stack"]));
            for (const auto &t : op.tensors)
                if (t.storage() == TensorStorage::NpyFile)
                    QVERIFY2(QFile::exists(kPtdbg + QLatin1Char('/') + t.location()), qPrintable(t.location()));
        }
    }

    void overflowInfo_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("forward") << QStringLiteral("forward_info_4242.json");
        QTest::addRow("backward") << QStringLiteral("backward_info_4242.json");
    }
    void overflowInfo()
    {
        QFETCH(QString, file);
        QVERIFY(ptdbg::isOverflowInfoFile(file));
        const json oracle = loadJson(kPtdbg + QStringLiteral("/expected.json"));
        const json &want = oracle["info"][file.toStdString()];
        auto part = ptdbg::indexOverflowInfo(kPtdbg, file, DumpLevels{});
        QVERIFY2(part.ok(), qPrintable(part.errorText()));
        QVERIFY(part->errors.empty());
        QCOMPARE(part->ops.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            json e = want[i];
            // Names are normalised to dots; the written name stays in headerOpName.
            const QString written = qs(e["name"]);
            QCOMPARE(part->ops[i].headerOpName(), written);
            e["name"] = part->ops[i].opName.toStdString();
            QVERIFY(part->ops[i].opName.endsWith(QLatin1String(".forward")) || part->ops[i].opName.endsWith(QLatin1String(".backward")));
            const QString d = compareOp(part->ops[i], e);
            QVERIFY2(d.isEmpty(), qPrintable(d));
            // stack_info_4242.json: the forward stack, for the backward API too
            QVERIFY(!e["stack"].is_null());
            QCOMPARE(stackOf(*part, part->ops[i]), toList(e["stack"]));
        }
    }

    // --- tokenizer and small-input cases -------------------------------------------------

    void nanTokens_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("value");
        QTest::addColumn<double>("max");
        auto leaf = [](const char *max) {
            return J("{'task':'statistics','level':'L1','framework':'pytorch','dump_data_dir':null,'data':{'A.a.0.forward':{'input_args':[{'type':'torch.Tensor','dtype':'torch.float32','shape':[2],'Max':%1,'Min':0,'Mean':0,'Norm':0}]}}}").arg(QLatin1String(max));
        };
        const double inf = std::numeric_limits<double>::infinity();
        // Tensor leaves keep their other fields (type, requires_grad, DTensor ...) as JSON.
        const QString kPlain = QStringLiteral("{\"type\": \"torch.Tensor\"}");
        QTest::addRow("NaN") << leaf("NaN") << "input_args.0" << "torch.float32" << kPlain << std::nan("");
        QTest::addRow("Infinity") << leaf("Infinity") << "input_args.0" << "torch.float32" << kPlain << inf;
        QTest::addRow("-Infinity") << leaf("-Infinity") << "input_args.0" << "torch.float32" << kPlain << -inf;
        QTest::addRow("-1") << leaf("-1") << "input_args.0" << "torch.float32" << kPlain << -1.0;
        QTest::addRow("-1e5") << leaf("-1e5") << "input_args.0" << "torch.float32" << kPlain << -1e5;
        QTest::addRow("nan string") << leaf("\"nan\"") << "input_args.0" << "torch.float32" << kPlain << std::nan("");
        QTest::addRow("-inf string") << leaf("\"-inf\"") << "input_args.0" << "torch.float32" << kPlain << -inf;
        QTest::addRow("true") << leaf("true") << "input_args.0" << "torch.float32" << kPlain << 1.0;
        QTest::addRow("1e400 overflows to inf") << leaf("1e400") << "input_args.0" << "torch.float32" << kPlain << inf;
        const QString head = J("{'data':{'A.a.0.forward':{'input_kwargs':%1}}}");
        QTest::addRow("string NaN stays a string")
            << head.arg(J("{'x':{'type':'str','value':'NaN'}}")) << "input_kwargs.x" << "str" << "NaN" << 0.0;
        QTest::addRow("key named NaN")
            << head.arg(J("{'NaN':{'type':'float','value':NaN}}")) << "input_kwargs.NaN" << "float" << "NaN" << 0.0;
        QTest::addRow("key named -Infinity")
            << head.arg(J("{'-Infinity':{'type':'float','value':-Infinity}}")) << "input_kwargs.-Infinity" << "float" << "-Infinity" << 0.0;
        QTest::addRow("Infinity inside a list value")
            << head.arg(J("{'s':{'type':'slice','value':[Infinity, -1, NaN]}}")) << "input_kwargs.s" << "slice" << "[Infinity, -1, NaN]" << 0.0;
        QTest::addRow("escapes")
            << head.arg(QStringLiteral("{\"s\":{\"type\":\"str\",\"value\":\"a\\\"b\\\\c\\u00e9\\n\"}}")) << "input_kwargs.s" << "str" << QStringLiteral("a\"b\\c\u00e9\n") << 0.0;
        // Lone surrogates become U+FFFD (UTF-8 cannot hold them), also when another escape follows
        // ("\ud800\ud800" kept the second one as CESU bytes; the round-trip check of
        // fuzz_msprobe_dumpjson fails on it).
        QTest::addRow("two high surrogates")
            << head.arg(QStringLiteral("{\"s\":{\"type\":\"str\",\"value\":\"\\ud800\\ud800x\"}}")) << "input_kwargs.s" << "str" << QStringLiteral("\ufffd\ufffdx") << 0.0;
        QTest::addRow("high surrogate then \\n")
            << head.arg(QStringLiteral("{\"s\":{\"type\":\"str\",\"value\":\"\\ud800\\n\"}}")) << "input_kwargs.s" << "str" << QStringLiteral("\ufffd\n") << 0.0;
    }

    /// Values that are not strings are shown as Python's json.dumps writes them; bytes that are
    /// not UTF-8 (an encoded surrogate, a cut 3-byte sequence, a lead byte 0xFC) are written as
    /// \ufffd, one per byte that starts no valid sequence (the old decoder turned ED A0 80 into
    /// "\ud800", which does not read back: the round-trip check of fuzz_msprobe_dumpjson).
    void invalidUtf8InValues()
    {
        const std::string text = "{\"data\":{\"A.a.0.forward\":{\"input_kwargs\":{\"s\":{\"type\":\"slice\",\"value\":"
                                 "[\"\xed\xa0\x80\", \"\xe2\x82\", \"\xfc\x84\x80\x80\", \"\xe2\x82\xac\xf0\x9f\x98\x80\"]}}}}}";
        IndexPart part;
        QVERIFY(msprobe::readDumpJsonText(text, QStringLiteral("r"), QStringLiteral("r/dump.json"), DumpLevels{}, part));
        QCOMPARE(part.ops.size(), size_t(1));
        QCOMPARE(part.ops[0].tensors.size(), size_t(1));
        QCOMPARE(part.ops[0].tensors[0].value(),
                 QStringLiteral("[\"\\ufffd\\ufffd\\ufffd\", \"\\ufffd\\ufffd\", \"\\ufffd\\ufffd\\ufffd\\ufffd\", \"\\u20ac\\ud83d\\ude00\"]"));
    }

    /// Shape dimensions past what 64 bits hold are refused with a warning (converting them was
    /// undefined behaviour, reported by UBSan in fuzz_msprobe_dumpjson).
    void shapeOutOfRange()
    {
        const QString text = J("{'data':{'A.a.0.forward':{'input_args':[{'type':'torch.Tensor','dtype':'torch.float32','shape':[2, 100000000000000000000]}],"
                               "'output':[{'type':'torch.Tensor','dtype':'torch.float32','shape':[18446744073709551615, -1]}]}}}");
        IndexPart part;
        QVERIFY(msprobe::readDumpJsonText(text.toStdString(), QStringLiteral("r"), QStringLiteral("r/dump.json"), DumpLevels{}, part));
        QCOMPARE(part.ops.size(), size_t(1));
        const OpRecord &op = part.ops[0];
        QCOMPARE(op.tensors.size(), size_t(2));
        QVERIFY(op.tensors[0].shape().empty());
        QCOMPARE(op.warnings().size(), qsizetype(2));
        QCOMPARE(op.warnings()[0], QStringLiteral("input_args.0: shape has a dimension out of range (100000000000000000000)"));
        // 2^64 - 1 rounds to 2^64 as a double: also out of range.
        QVERIFY(op.tensors[1].shape().empty());
        QCOMPARE(op.warnings()[1], QStringLiteral("output.0: shape has a dimension out of range (18446744073709551615)"));
    }
    void nanTokens()
    {
        QFETCH(QString, text);
        QFETCH(QString, name);
        QFETCH(QString, type);
        QFETCH(QString, value);
        QFETCH(double, max);
        IndexPart part;
        QVERIFY(msprobe::readDumpJsonText(text.toStdString(), QStringLiteral("r"), QStringLiteral("r/dump.json"), DumpLevels{}, part));
        QVERIFY(part.errors.empty());
        QCOMPARE(part.ops.size(), size_t(1));
        QCOMPARE(part.ops[0].tensors.size(), size_t(1));
        const TensorRecord &t = part.ops[0].tensors[0];
        QCOMPARE(t.name(), name);
        QCOMPARE(t.typeName(), type);
        QCOMPARE(t.value(), value);
        if (t.isTensor()) {
            QVERIFY(t.recorded().has(RecordedStats::Max));
            if (std::isnan(max))
                QVERIFY(std::isnan(t.recorded().max));
            else
                QCOMPARE(t.recorded().max, max);
        }
    }

    void syntaxErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("salvaged");
        const QString two = J("{'task':'tensor','data':{'A.a.0.forward':{'output':[null]},'B.b.0.forward':{'output':[%1]}}}");
        QTest::addRow("bare nan is no token") << two.arg(QStringLiteral("nan")) << "syntax error inside entry B.b.0.forward: unknown literal \"nan\"" << 1;
        QTest::addRow("truncated NaN") << QString(two.arg(QStringLiteral("Na"))).left(two.indexOf(QLatin1String("%1")) + 2)
                                       << "file ends inside entry B.b.0.forward" << 1;
        QTest::addRow("truncated -Infinity") << QString(two.arg(QStringLiteral("-Inf"))).left(two.indexOf(QLatin1String("%1")) + 4)
                                             << "file ends inside entry B.b.0.forward" << 1;
        QTest::addRow("truncated in key") << J("{'data':{'A.a.0.forward':{'output':[]},'B.b")
                                          << "file ends after entry A.a.0.forward" << 1;
        QTest::addRow("missing closing braces") << J("{'data':{'A.a.0.forward':{'output':[]}")
                                                << "file ends after entry A.a.0.forward; 1 complete entries salvaged" << 1;
        QTest::addRow("missing comma") << J("{'data':{'A.a.0.forward':{'output':[]} 'B':{}}}")
                                       << "syntax error after entry A.a.0.forward: unexpected '\"'" << 1;
        QTest::addRow("not an object") << QStringLiteral("[1]") << "not a dump.json object" << 0;
        QTest::addRow("empty") << QString() << "not a dump.json object: unexpected end of file" << 0;
        QTest::addRow("control char in string") << QStringLiteral("{\"data\":{\"A.a.0.forward\":{\"x\":\"a\x01\"}}}")
                                                << "syntax error inside entry A.a.0.forward: control character" << 0;
    }
    void syntaxErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QFETCH(int, salvaged);
        IndexPart part;
        QVERIFY(!msprobe::readDumpJsonText(text.toStdString(), QString(), QStringLiteral("dump.json"), DumpLevels{}, part));
        QCOMPARE(part.errors.size(), size_t(1));
        QVERIFY2(part.errors[0].message.startsWith(message), qPrintable(part.errors[0].message));
        QCOMPARE(part.errors[0].file, QStringLiteral("dump.json"));
        QCOMPARE(int(part.ops.size()), salvaged);
    }

    void truncatedEverywhere()
    {
        // Cut rank0's dump.json at many offsets: always one "file ends ..." error, never a
        // crash, and the salvaged entries never decrease as the cut moves on.
        QFile f(kMsprobe + QStringLiteral("/step0/rank0/dump.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        size_t previous = 0;
        for (qsizetype cut = 0; cut < text.size(); cut += 53) {
            IndexPart part;
            QVERIFY(!msprobe::readDumpJsonText(text.left(cut).toStdString(), QString(), QStringLiteral("dump.json"),
                                               DumpLevels{}, part));
            QCOMPARE(part.errors.size(), size_t(1));
            const QString &m = part.errors[0].message;
            QVERIFY2(m.contains(QLatin1String("end of file")) || m.startsWith(QLatin1String("file ends")), qPrintable(m));
            QVERIFY(part.ops.size() >= previous);
            previous = part.ops.size();
        }
        IndexPart whole;
        QVERIFY(msprobe::readDumpJsonText(text.toStdString(), QString(), QStringLiteral("dump.json"), DumpLevels{}, whole));
        QVERIFY(previous + 1 >= whole.ops.size());
    }

    void corruptedBytes()
    {
        // Overwrite single bytes with characters that matter to the grammar: an error or a
        // (different) valid document, never a crash.
        QFile f(kMsprobe + QStringLiteral("/step0/rank1/dump.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        const char bytes[] = {'{', '}', '[', ']', '"', ',', ':', '\\', 'N', '-', '\0', '\x01'};
        int failures = 0;
        for (qsizetype at = 7; at < text.size(); at += 211) {
            QByteArray bad = text;
            bad[at] = bytes[size_t(at) % sizeof bytes];
            IndexPart part;
            if (!msprobe::readDumpJsonText(bad.toStdString(), QString(), QStringLiteral("dump.json"), DumpLevels{}, part)) {
                ++failures;
                QCOMPARE(part.errors.size(), size_t(1));
                QVERIFY(!part.errors[0].message.isEmpty());
            }
        }
        QVERIFY(failures > 0);
    }

    void deepNesting()
    {
        std::string text = J("{'data':{'A.a.0.forward':{'input_args':").toStdString();
        text += std::string(2000, '[');
        text += std::string(2000, ']');
        text += "}}}";
        IndexPart part;
        QVERIFY(!msprobe::readDumpJsonText(text, QString(), QStringLiteral("dump.json"), DumpLevels{}, part));
        QVERIFY2(part.errors[0].message.contains(QLatin1String("nesting deeper than")), qPrintable(part.errors[0].message));
    }

    void names()
    {
        QCOMPARE(msprobe::forwardTwin(QStringLiteral("Functional.relu.0.backward")), QStringLiteral("Functional.relu.0.forward"));
        QCOMPARE(msprobe::forwardTwin(QStringLiteral("Module.fc.Linear.backward.3")), QStringLiteral("Module.fc.Linear.forward.3"));
        QCOMPARE(msprobe::forwardTwin(QStringLiteral("Module.fc.Linear.parameters_grad.1")), QString());
        QCOMPARE(msprobe::dataTypeFromText(u"torch.bfloat16"), int(DataType::BFloat16));
        QCOMPARE(msprobe::dataTypeFromText(u"BFloat16"), int(DataType::BFloat16));
        QCOMPARE(msprobe::dataTypeFromText(u"Float32"), int(DataType::Float32));
        QCOMPARE(msprobe::dataTypeFromText(u"float16"), int(DataType::Float16));
        QCOMPARE(msprobe::dataTypeFromText(u"torch.float8_e4m3fn"), int(DataType::Float8E4M3FN));
        QCOMPARE(msprobe::dataTypeFromText(u"torch.complex64"), int(DataType::Complex64));
        QCOMPARE(msprobe::dataTypeFromText(u"torch.what"), int(DataType::Undefined));
        QVERIFY(!ptdbg::isOverflowInfoFile(QStringLiteral("forward_info.json")));
        QVERIFY(ptdbg::isOverflowInfoFile(QStringLiteral("backward_info_17.json")));
    }

    void ptdbgBadLines()
    {
        IndexPart part;
        const QByteArray text = "[\"Functional.relu.0.forward.input.0\", 0, [], \"torch.float32\", [2], [1, 0, 0.5, \"Nan\"]]\n"
                                "not json\n"
                                "[\"x\", 1]\n";
        ptdbg::readDumpPkl(text, QStringLiteral("r"), QStringLiteral("r/dump.pkl"), QString(), DumpLevels{}, part);
        QCOMPARE(part.ops.size(), size_t(1));
        QCOMPARE(part.ops[0].tensors[0].storage(), TensorStorage::Absent);
        QVERIFY(!part.ops[0].tensors[0].recorded().has(RecordedStats::Norm));
        QCOMPARE(part.ops[0].tensors[0].recorded().mean, 0.5);
        QCOMPARE(part.errors.size(), size_t(1));
        QVERIFY2(part.errors[0].message.startsWith(QStringLiteral("2 unreadable line(s), first: line 2:")), qPrintable(part.errors[0].message));
    }

    void notARankDir()
    {
        auto r = msprobe::indexRankDir(kMsprobe, QStringLiteral("step0"), DumpLevels{});
        QVERIFY(!r.ok());
        QVERIFY(r.errorText().endsWith(QLatin1String("no dump.json or debug.json")));
        auto p = ptdbg::indexRankDir(kMsprobe, QStringLiteral("step0/rank0"), DumpLevels{});
        QVERIFY(!p.ok());
    }

    void stacksSharedAcrossRanks()
    {
        // Every rank of a run holds the same stacks: read on one thread, the second rank's
        // stacks are the first one's lists (implicitly shared), not copies, and read the same.
        QTemporaryDir dir;
        const QString real = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0/rank0/");
        for (const QString &rank : {QStringLiteral("step0/rank0"), QStringLiteral("step0/rank1")}) {
            QVERIFY(QDir().mkpath(dir.filePath(rank)));
            for (const QString &file : {QStringLiteral("dump.json"), QStringLiteral("stack.json")})
                QVERIFY(QFile::copy(real + file, dir.filePath(rank + QLatin1Char('/') + file)));
        }
        auto a = msprobe::indexRankDir(dir.path(), QStringLiteral("step0/rank0"), DumpLevels{});
        auto b = msprobe::indexRankDir(dir.path(), QStringLiteral("step0/rank1"), DumpLevels{});
        QVERIFY(a.ok() && b.ok());
        QVERIFY(a->stacks.size() > 3);
        QCOMPARE(b->stacks, a->stacks);
        QVERIFY(a->stacks[0].constFirst().startsWith(QLatin1String("File ")));
        for (size_t i = 0; i < a->stacks.size(); ++i)
            QVERIFY2(b->stacks[i].constData() == a->stacks[i].constData(), "each rank holds its own copy of a stack");
        for (size_t i = 0; i < a->ops.size(); ++i)
            QCOMPARE(b->ops[i].stack, a->ops[i].stack);
    }

    void cancel()
    {
        std::atomic<bool> flag{true};
        JobControl job;
        job.cancelFlag = &flag;
        auto r = msprobe::indexRankDir(kMsprobe, QStringLiteral("step0/rank0"), DumpLevels{}, &job);
        QVERIFY(!r.ok());
        QCOMPARE(r.errorText(), QStringLiteral("indexing cancelled"));
    }
};

QTEST_GUILESS_MAIN(TestMsprobe)
#include "tst_msprobe.moc"
