// msprobe 26's rows in the compare layer (names, order, value leaves, Python formatting, the
// Gen C Result rules) and the first divergence with parameters, model inputs and innermost
// operators, on indexes built in memory. The real msprobe's own outputs are the oracle of
// tests/oracle/compare_msprobe.py and compare_divergence.py; the expected texts here are what
// Python 3.11 / zlib print for the same values (noted per case).
#include "compare/compare.h"
#include "compare/comparereport.h"
#include "compare/msprobecells.h"
#include "compare/msprobenames.h"
#include "formats/readers.h"
#include "index/buildindex.h"

#include <QDir>

#include <QTest>
#include <cmath>

using namespace ds;

namespace {

TensorRecord leaf(IoKind io, const QString &name, std::array<double, 4> stats, const QString &grad = QStringLiteral("true"),
                  Shape shape = {4, 4})
{
    TensorFields t;
    t.io = io;
    t.name = name;
    t.shape = std::move(shape);
    t.dataType = int(DataType::Float32);
    t.typeName = QStringLiteral("torch.float32");
    t.storage = TensorStorage::Absent;
    t.value = QStringLiteral("{\"type\": \"torch.Tensor\", \"requires_grad\": %1}").arg(grad);
    t.recorded = {stats[0], stats[1], stats[2], stats[3], 0xF};
    return TensorRecord(t);
}

TensorRecord value(IoKind io, const QString &name, const QString &type, const QString &text)
{
    TensorFields t;
    t.io = io;
    t.name = name;
    t.storage = TensorStorage::Value;
    t.typeName = type;
    t.value = text;
    return TensorRecord(t);
}

OpRecord entry(const QString &name, std::vector<TensorRecord> tensors, const QString &parent = {})
{
    OpRecord op;
    op.source = *sourceFormatByName(u"msprobe");
    op.relPath = QStringLiteral("step0/rank0/") + name;
    op.opName = name;
    op.parent = parent;
    DumpLevels l;
    l.step = QStringLiteral("step0");
    l.rank = QStringLiteral("rank0");
    op.levels = SharedLevels(l);
    op.tensors = std::move(tensors);
    return op;
}

DumpIndex index(std::vector<OpRecord> ops, std::vector<QStringList> stacks = {})
{
    DumpIndex d;
    d.ops = std::move(ops);
    d.stacks = std::move(stacks);
    return d;
}

const std::array<double, 4> kX{1, -1, 0.25, 3}, kW{0.5, -0.5, 0.01, 2}, kWp{0.75, -0.5, 0.04, 2.2}, kY{2, -2, 0.5, 6},
    kY2{2.5, -2, 0.7, 7};

/// A tensor leaf with any dtype, statistics (NaN: the field is absent) and requires_grad.
TensorRecord tensor(IoKind io, const QString &name, const QString &dtype, DataType dt, std::array<double, 4> stats,
                    const QString &grad = QStringLiteral("true"), Shape shape = {4, 4})
{
    TensorFields t;
    t.io = io;
    t.name = name;
    t.shape = std::move(shape);
    t.dataType = int(dt);
    t.typeName = dtype;
    t.storage = TensorStorage::Absent;
    t.value = QStringLiteral("{\"type\": \"torch.Tensor\", \"requires_grad\": %1}").arg(grad);
    const std::uint8_t bits[] = {RecordedStats::Max, RecordedStats::Min, RecordedStats::Mean, RecordedStats::Norm};
    double *fields[] = {&t.recorded.max, &t.recorded.min, &t.recorded.mean, &t.recorded.norm};
    for (size_t i = 0; i < 4; ++i)
        if (!std::isnan(stats[i])) {
            *fields[i] = stats[i];
            t.recorded.present |= bits[i];
        }
    return TensorRecord(t);
}

/// Compares the statistics-mode Result facts of every row both ways (from the cells, from the
/// records where MsprobeSummaryFacts decides) and the Results of both paths; returns the rows
/// the records decided.
size_t checkSummaryFastPath(const DumpIndex &npu, const DumpIndex &bench, const QString &label)
{
    CompareOptions o;
    o.mode = CompareMode::Summary;
    const CompareResult fast = compareIndexes(npu, bench, o);
    if (fast.mode != CompareMode::Summary)
        return 0;
    MsprobeSummaryFacts facts(npu, bench);
    size_t decided = 0;
    for (const CompareRow &row : fast.rows) {
        const MsprobeCheckFacts cells = msprobeCheckFacts(msprobeRow(npu, bench, row, CompareMode::Summary), CompareMode::Summary);
        if (const auto f = facts.facts(row)) {
            ++decided;
            const QString what = QStringLiteral("%1 %2: records say infNan %3 reqGrad %4 dtype %5 shape %6 indicator %7 percent %8, cells %9 %10 %11 %12 %13 %14")
                                     .arg(label, row.npuName)
                                     .arg(f->infNanError).arg(f->reqGradError).arg(f->dtypeError).arg(f->shapeError)
                                     .arg(f->indicator[0] ? QString::number(*f->indicator[0], 'g', 17) : QStringLiteral("-"))
                                     .arg(f->percent, 0, 'g', 17)
                                     .arg(cells.infNanError).arg(cells.reqGradError).arg(cells.dtypeError).arg(cells.shapeError)
                                     .arg(cells.indicator[0] ? QString::number(*cells.indicator[0], 'g', 17) : QStringLiteral("-"))
                                     .arg(cells.percent, 0, 'g', 17);
            if (!(*f == cells))
                qWarning("%s", qPrintable(what));
            if (!(*f == cells))
                return size_t(-1);
        }
    }
    CompareResult slow = fast;
    const size_t slowDecided = applyMsprobeResults(npu, bench, slow, false);
    if (slowDecided != 0)
        return size_t(-1);
    for (size_t i = 0; i < fast.rows.size(); ++i)
        if (fast.rows[i].result != slow.rows[i].result || fast.rows[i].resultMessages != slow.rows[i].resultMessages) {
            qWarning("%s %s: Result %s %s vs cells %s %s", qPrintable(label), qPrintable(fast.rows[i].npuName),
                     qPrintable(fast.rows[i].result), qPrintable(fast.rows[i].resultMessages.join('|')),
                     qPrintable(slow.rows[i].result), qPrintable(slow.rows[i].resultMessages.join('|')));
            return size_t(-1);
        }
    return decided;
}

} // namespace

class TestCompareMsprobe : public QObject
{
    Q_OBJECT
private slots:
    void pythonFloatRepr_data()
    {
        QTest::addColumn<double>("v");
        QTest::addColumn<QString>("python"); // repr(v) in Python 3.11
        QTest::addRow("one") << 1.0 << "1.0";
        QTest::addRow("1e-05") << 1e-05 << "1e-05";
        QTest::addRow("1e-4") << 0.0001 << "0.0001";
        QTest::addRow("1e16") << 1e16 << "1e+16";
        QTest::addRow("15 digits") << 123456789012345.0 << "123456789012345.0";
        QTest::addRow("17 digits") << 12345678901234567.0 << "1.2345678901234568e+16";
        QTest::addRow("negative") << -0.5 << "-0.5";
        QTest::addRow("small") << 4.842877388000488e-08 << "4.842877388000488e-08";
        QTest::addRow("max") << 1.7976931348623157e+308 << "1.7976931348623157e+308";
        QTest::addRow("denormal") << 5e-324 << "5e-324";
        QTest::addRow("sum") << 0.1 + 0.2 << "0.30000000000000004";
        QTest::addRow("inf") << HUGE_VAL << "inf";
        QTest::addRow("zero") << 0.0 << "0.0";
    }
    void pythonFloatRepr()
    {
        QFETCH(double, v);
        QFETCH(QString, python);
        QCOMPARE(ds::pythonFloatRepr(v), python);
    }

    void pythonTexts()
    {
        QCOMPARE(pythonStrRepr("File a.py, line 1, in f, \n x = 'y'"), QString(R"("File a.py, line 1, in f, \n x = 'y'")"));
        QCOMPARE(pythonStrRepr("plain"), QString("'plain'"));
        QCOMPARE(pythonStrOfJson("[0, 1]"), QString("[0, 1]"));
        QCOMPARE(pythonStrOfJson(R"([1.0, "x", null, true, 1E-5])"), QString("[1.0, 'x', None, True, 1e-05]"));
        QCOMPARE(pythonStrOfJson(R"({"a": false})"), QString("{'a': False}"));
        QCOMPARE(pythonStrOfJson("not json ["), QString("not json ["));
        // zlib.crc32 of the texts msprobe hashes; the first three are in msprobe's own md5 CSVs
        QCOMPARE(crc32Hex("1"), QString("83dcefb7"));
        QCOMPARE(crc32Hex("-1"), QString("302d482a"));
        QCOMPARE(crc32Hex("RedOpType.SUM"), QString("ba96e402"));
        QCOMPARE(crc32Hex(QString()), QString("00000000"));
    }

    void rowNamesAndOrder()
    {
        // dump.json order: input_kwargs before input_args, output before parameters
        OpRecord m = entry("Module.fc1.Linear.forward.0",
                           {leaf(IoKind::Output, "output.0", kY), value(IoKind::Input, "input_kwargs.dim", "int", "-1"),
                            leaf(IoKind::Input, "input_args.0", kX), value(IoKind::Input, "input_args.1.0", "int", "2"),
                            leaf(IoKind::Parameter, "parameters.weight", kW)});
        const std::vector<int> order = rowTensors(m);
        QStringList names;
        for (int t : order)
            names << rowName(m, m.tensors[size_t(t)]);
        QCOMPARE(names, QStringList({"Module.fc1.Linear.forward.0.input.0", "Module.fc1.Linear.forward.0.input.1.0",
                                     "Module.fc1.Linear.forward.0.input.dim", "Module.fc1.Linear.forward.0.parameters.weight",
                                     "Module.fc1.Linear.forward.0.output.0"}));
        // a leaf with a data file is named after it (msprobe: data_name without the extension)
        TensorFields ff = leaf(IoKind::Input, "input_args.0", kX).fields();
        ff.storage = TensorStorage::PtFile;
        ff.location = "step0/rank0/dump_tensor_data/Module.fc1.Linear.forward.0.input.0.pt";
        const TensorRecord f(ff);
        QCOMPARE(msprobeTensorKey("Module.fc1.Linear.forward.0", f), QString("input.0"));
        QCOMPARE(msprobeDataName(f), QString("Module.fc1.Linear.forward.0.input.0.pt"));
        QCOMPARE(msprobeRequiresGrad(f), QString("True"));
        QCOMPARE(msprobeRequiresGrad(value(IoKind::Input, "input_args.1", "int", "2")), QString("N/A"));
        const ModuleName mn = moduleNameOf("Module.layers.0.attn.Attention.forward.0");
        QCOMPARE(mn.path, QString("layers.0.attn"));
        QCOMPARE(mn.className, QString("Attention"));
        QVERIFY(!moduleNameOf("Functional.linear.0.forward").isModule());
    }

    // moduleNameOf scans the name without splitting it: the answers of the split (the rule
    // written plainly here) on names of every shape.
    void moduleNamesAsSplit()
    {
        auto bySplit = [](const QString &entry) {
            const QStringList t = entry.split('.');
            if (t.size() < 4 || (t[0] != "Module" && t[0] != "Cell"))
                return ModuleName{};
            for (qsizetype d = 3; d < t.size(); ++d)
                if (t[d] == "forward" || t[d] == "backward" || t[d] == "parameters_grad")
                    return ModuleName{t.mid(1, d - 2).join('.'), t[d - 1]};
            return ModuleName{};
        };
        QStringList deep{"Module"};
        for (int i = 0; i < 70; ++i)
            deep << QString::number(i);
        const QStringList names{
            "Module.fc1.Linear.forward.0", "Cell.a.B.backward.1", "Module.a.b.c.D.parameters_grad", "Module.x.forward",
            "Module.x.Y.forward", "Module..X.forward.0", "Module.a.B.forwardx.0", "Module.a.B.C.forward.forward.1", "Module",
            "Module.", "Modules.a.B.forward.0", "Cell.l.0.attn.Attention.backward.2", "Module.a.B.forward.", "Functional.x.0.forward",
            deep.join('.') + ".Linear.forward.0", deep.join('.'), "Module.Ω.Ümlaut.forward.0"};
        for (const QString &n : names) {
            const ModuleName a = moduleNameOf(n), b = bySplit(n);
            QVERIFY2(a.path == b.path && a.className == b.className, qPrintable(n + ": " + a.path + " / " + a.className));
        }
        QCOMPARE(moduleNameOf(deep.join('.') + ".Linear.forward.0").className, QString("Linear"));
    }

    // The statistics-mode Result facts read from the records must be the ones read from the
    // cells, on every row of the real msprobe samples (forced into statistics mode).
    void summaryFactsFromRecordsOnSamples()
    {
        const QDir dumps(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps"));
        const QStringList npus = dumps.entryList({QStringLiteral("npu_*"), QStringLiteral("overflow_*")}, QDir::Dirs);
        QVERIFY(npus.size() >= 10);
        size_t decided = 0, rows = 0;
        for (const QString &n : npus) {
            const QString mode = n.contains("_md5_")      ? QStringLiteral("md5")
                                 : n.contains("_tensor_") ? QStringLiteral("tensor")
                                                          : QStringLiteral("statistics");
            const QString level = n.section('_', -1);
            const QString b = QStringLiteral("base_%1_%2").arg(mode, level);
            for (const QString step : {"step0", "step1"})
                for (const QString rank : {"rank0", "rank1"}) {
                    const QString np = dumps.filePath(n + '/' + step + '/' + rank), bp = dumps.filePath(b + '/' + step + '/' + rank);
                    if (!QDir(np).exists() || !QDir(bp).exists())
                        continue;
                    auto a = buildIndex(np), c = buildIndex(bp);
                    QVERIFY2(a && c, qPrintable(np));
                    const size_t k = checkSummaryFastPath(**a, **c, n + ' ' + step + ' ' + rank);
                    QVERIFY2(k != size_t(-1), qPrintable(np));
                    decided += k;
                    rows += compareIndexes(**a, **c).rows.size();
                }
        }
        // most rows are tensors with plain statistics: the records decide them
        QVERIFY2(decided * 2 > rows, qPrintable(QStringLiteral("%1 of %2").arg(decided).arg(rows)));
    }

    // CompareOptions::MsprobeResults::NotPassOps (the CLI's text report): on the real msprobe
    // samples, the operators holding a row that is not a pass get the Result and Err_message of
    // a full comparison, the others none; verdicts and first divergences are the same.
    void msprobeResultsOfNotPassOpsOnSamples()
    {
        const QDir dumps(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps"));
        const QStringList npus = dumps.entryList({QStringLiteral("npu_*"), QStringLiteral("overflow_*")}, QDir::Dirs);
        QVERIFY(npus.size() >= 10);
        size_t kept = 0, skipped = 0;
        for (const QString &n : npus) {
            const QString mode = n.contains("_md5_")      ? QStringLiteral("md5")
                                 : n.contains("_tensor_") ? QStringLiteral("tensor")
                                                          : QStringLiteral("statistics");
            const QString b = QStringLiteral("base_%1_%2").arg(mode, n.section('_', -1));
            const QString np = dumps.filePath(n + QStringLiteral("/step0/rank0")), bp = dumps.filePath(b + QStringLiteral("/step0/rank0"));
            if (!QDir(np).exists() || !QDir(bp).exists())
                continue;
            auto a = buildIndex(np), c = buildIndex(bp);
            QVERIFY2(a && c, qPrintable(np));
            CompareOptions some;
            some.msprobeResults = CompareOptions::MsprobeResults::NotPassOps;
            const CompareResult all = compareIndexes(**a, **c), part = compareIndexes(**a, **c, some);
            QCOMPARE(part.rows.size(), all.rows.size());
            QCOMPARE(part.divergences.size(), all.divergences.size());
            for (size_t i = 0; i < all.divergences.size(); ++i)
                QCOMPARE(part.divergences[i].originRow, all.divergences[i].originRow);
            for (size_t i = 0; i < all.rows.size();) {
                const int op = all.rows[i].npu.op;
                size_t end = i;
                bool notPass = false;
                for (; end < all.rows.size() && all.rows[end].npu.op == op; ++end)
                    notPass = notPass || all.rows[end].verdict != Verdict::Pass;
                for (; i < end; ++i) {
                    const CompareRow &x = all.rows[i], &y = part.rows[i];
                    const QString what = n + QLatin1Char(' ') + x.npuName;
                    QVERIFY2(x.verdict == y.verdict, qPrintable(what));
                    QVERIFY2(!x.result.isEmpty(), qPrintable(what)); // a full comparison gives every row one
                    QCOMPARE(y.result, notPass ? x.result : QString());
                    QCOMPARE(y.resultMessages, notPass ? x.resultMessages : QStringList());
                    ++(notPass ? kept : skipped);
                }
            }
        }
        // both kinds occur in the samples: operators with a disagreeing row, and passing ones
        QVERIFY2(kept > 0 && skipped > 0, qPrintable(QStringLiteral("%1 kept, %2 skipped").arg(kept).arg(skipped)));
    }

    // parameterOfKey skips building the key for leaves that cannot name a parameter: on every
    // leaf of the real msprobe samples (statistics, md5 and tensor mode with .pt files, and
    // parameters_grad entries) it must say what the key itself says.
    void parameterOfKeyAsTheKeySays()
    {
        const QDir dumps(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps"));
        size_t leaves = 0, parameters = 0, files = 0;
        for (const QString &d : dumps.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            auto index = buildIndex(dumps.filePath(d));
            QVERIFY2(index, qPrintable(d));
            for (const OpRecord &op : (*index)->ops)
                for (const TensorRecord &t : op.tensors) {
                    const QString key = tensorMatchKey(op, t);
                    const std::optional<QString> expected = key.startsWith(QLatin1String("parameters."))
                                                                ? std::optional<QString>(key.mid(11))
                                                                : std::nullopt;
                    QVERIFY2(parameterOfKey(op, t) == expected, qPrintable(d + ' ' + op.opName + ' ' + key));
                    ++leaves;
                    parameters += expected.has_value();
                    files += t.storage() == TensorStorage::PtFile;
                }
        }
        QVERIFY2(leaves > 5000 && parameters > 100 && files > 1000,
                 qPrintable(QStringLiteral("%1 leaves, %2 parameters, %3 .pt").arg(leaves).arg(parameters).arg(files)));
        // Leaves the samples do not have, on a real msprobe entry: a .pt file named as a
        // parameter under another leaf name, names near the prefix, an empty parameter name.
        auto run = buildIndex(dumps.filePath(QStringLiteral("base_tensor_mix/step0/rank0")));
        QVERIFY(run && !(*run)->ops.empty());
        const OpRecord &op = (*run)->ops.front();
        const QString entry = op.relPath.toString().section('/', -1);
        struct Leaf
        {
            QString name, file;
        };
        const Leaf edges[] = {{"input_args.0", entry + ".parameters.weight.pt"}, {"parameters.weight", entry + ".input.0.pt"},
                              {"parametersweight", {}}, {"parameters", {}}, {"parameters.", {}}, {"Parameters.w", {}}, {{}, {}}};
        for (const Leaf &l : edges) {
            TensorFields f;
            f.name = l.name;
            f.io = IoKind::Parameter;
            f.storage = l.file.isEmpty() ? TensorStorage::DumpPayload : TensorStorage::PtFile;
            f.location = l.file.isEmpty() ? QString() : "dump_tensor_data/" + l.file;
            const TensorRecord t(f);
            const QString key = tensorMatchKey(op, t);
            const std::optional<QString> expected = key.startsWith(QLatin1String("parameters."))
                                                        ? std::optional<QString>(key.mid(11))
                                                        : std::nullopt;
            QVERIFY2(parameterOfKey(op, t) == expected, qPrintable(l.name + ' ' + l.file + " -> " + key));
        }
        QCOMPARE(tensorMatchKey(op, TensorRecord([&] {
                     TensorFields f;
                     f.name = "input_args.0";
                     f.storage = TensorStorage::PtFile;
                     f.location = "dump_tensor_data/" + edges[0].file;
                     return f;
                 }())),
                 QString("parameters.weight")); // the edge the file branch exists for
    }

    // The same on rows made for the edges: zero, signed-zero, NaN, infinite, overflowing,
    // integer and boolean statistics, absent fields, dtype and shape and requires_grad
    // mismatches, unmatched rows, values, and output rows that trip the relative checkers.
    void summaryFactsFromRecordsOnEdges()
    {
        const double nan = std::nan(""), inf = HUGE_VAL;
        const QString f32 = QStringLiteral("torch.float32"), f16 = QStringLiteral("torch.float16"),
                      i64 = QStringLiteral("torch.int64"), b8 = QStringLiteral("torch.bool");
        struct Side
        {
            QString dtype;
            DataType dt;
            std::array<double, 4> stats;
            QString grad = QStringLiteral("true");
            Shape shape = {4, 4};
        };
        struct Case
        {
            Side npu, bench;
        };
        const std::vector<Case> cases{
            {{f32, DataType::Float32, {1, -1, 0.5, 3}}, {f32, DataType::Float32, {1, -1, 0.5, 3}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 3}}, {f32, DataType::Float32, {1.5, -1, 0.25, 2.5}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 3}}, {f32, DataType::Float32, {1, -1, 0.5, 0}}},
            {{f32, DataType::Float32, {0, 0, 0, 0}}, {f32, DataType::Float32, {0, -0.0, 0, -0.0}}},
            {{f32, DataType::Float32, {inf, -1, 0.5, inf}}, {f32, DataType::Float32, {1, -1, 0.5, 3}}},
            {{f32, DataType::Float32, {1, -inf, 0.5, 3}}, {f32, DataType::Float32, {inf, -inf, 0.5, -inf}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 1e308}}, {f32, DataType::Float32, {1, -1, 0.5, -1e308}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 1e-300}}, {f32, DataType::Float32, {1, -1, 0.5, 1e-310}}},
            {{f32, DataType::Float32, {nan, -1, 0.5, nan}}, {f32, DataType::Float32, {1, -1, 0.5, 3}}},
            {{f32, DataType::Float32, {1, -1, nan, 3}}, {f32, DataType::Float32, {1, -1, 0.5, 3}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 3}}, {f32, DataType::Float32, {1, -1, 0.5, nan}}},
            {{i64, DataType::Int64, {7, -3, 1.5, 12}}, {i64, DataType::Int64, {7, -3, 1.5, 13}}},
            {{i64, DataType::Int64, {7, -3, 1.5, 12}}, {f32, DataType::Float32, {7, -3, 1.5, 12}}},
            {{i64, DataType::Int64, {1e19, -3, 1.5, 12}}, {i64, DataType::Int64, {1e19, -3, 1.5, 12}}},
            {{b8, DataType::Bool, {1, 0, 0.5, 2}}, {b8, DataType::Bool, {1, 0, 0.5, 2}}},
            {{f16, DataType::Float16, {1, -1, 0.5, 3}}, {f32, DataType::Float32, {1, -1, 0.5, 4}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 3}, QStringLiteral("false")}, {f32, DataType::Float32, {1, -1, 0.5, 3}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 3}, QStringLiteral("true"), {2, 8}}, {f32, DataType::Float32, {1, -1, 0.5, 3}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 3}}, {f32, DataType::Float32, {1, -1, 0.5, 3}, QStringLiteral("true"), {}}},
            {{f32, DataType::Float32, {1, -1, 0.5, 3}}, {f32, DataType::Float32, {nan, nan, nan, nan}}},
        };
        std::vector<OpRecord> npuOps, benchOps;
        for (size_t i = 0; i < cases.size(); ++i) {
            const Case &c = cases[i];
            const QString op = QStringLiteral("Functional.op%1.0.forward").arg(i);
            // the same pair as input and as output, and an output 1000 times further off
            auto rows = [&](const Side &s, double scale) {
                std::array<double, 4> far = s.stats;
                far[3] *= scale;
                return std::vector<TensorRecord>{tensor(IoKind::Input, "input_args.0", s.dtype, s.dt, s.stats, s.grad, s.shape),
                                                 tensor(IoKind::Output, "output.0", s.dtype, s.dt, s.stats, s.grad, s.shape),
                                                 tensor(IoKind::Output, "output.1", s.dtype, s.dt, far, s.grad, s.shape)};
            };
            npuOps.push_back(entry(op, rows(c.npu, 1000)));
            benchOps.push_back(entry(op, rows(c.bench, 1)));
        }
        // an entry the bench lacks, a value row, and bench names msprobe's dtype check skips
        npuOps.push_back(entry("Functional.lonely.0.forward", {leaf(IoKind::Input, "input_args.0", kX), leaf(IoKind::Output, "output.0", kY)}));
        npuOps.push_back(entry("Functional.scaled.0.forward",
                               {leaf(IoKind::Input, "input_args.0", kX), value(IoKind::Input, "input_kwargs.eps", "float", "1e-05"),
                                leaf(IoKind::Output, "output.0", kY)}));
        benchOps.push_back(entry("Functional.scaled.0.forward",
                                 {leaf(IoKind::Input, "input_args.0", kW), value(IoKind::Input, "input_kwargs.eps", "float", "1e-06"),
                                  leaf(IoKind::Output, "output.0", kY2)}));
        // values: the same leaves (one pool) in several rows, a dtype msprobe does not pair, and
        // a value without a bench row
        LeafPool pool;
        auto pooled = [&](const QString &name, const QString &type, const QString &text) {
            TensorFields t;
            t.io = IoKind::Input;
            t.name = name;
            t.storage = TensorStorage::Value;
            t.typeName = type;
            t.value = text;
            return pool.make(t);
        };
        for (const char *op : {"Functional.pooled.0.forward", "Functional.pooled.1.forward", "Functional.qkv_pooled.0.forward"}) {
            npuOps.push_back(entry(op, {pooled("input_kwargs.dim", "int", "1"), pooled("input_kwargs.eps", "float", "1e-05"),
                                        pooled("input_kwargs.flag", "bool", "true"), leaf(IoKind::Output, "output.0", kY)}));
            benchOps.push_back(entry(op, {pooled("input_kwargs.dim", "float", "1.0"), pooled("input_kwargs.eps", "float", "1e-06"),
                                          pooled("input_kwargs.flag", "bool", "true"), leaf(IoKind::Output, "output.0", kY)}));
        }
        npuOps.push_back(entry("Functional.pooled_alone.0.forward", {pooled("input_kwargs.dim", "int", "1"), leaf(IoKind::Output, "output.0", kY)}));
        npuOps.push_back(entry("Functional.qkv_proj.0.forward", {tensor(IoKind::Input, "input_args.0", f16, DataType::Float16, kX),
                                                                  leaf(IoKind::Output, "output.0", kY)}));
        benchOps.push_back(entry("Functional.qkv_proj.0.forward", {tensor(IoKind::Input, "input_args.0", f32, DataType::Float32, kX),
                                                                    leaf(IoKind::Output, "output.0", kY2)}));
        const DumpIndex npu = index(std::move(npuOps)), bench = index(std::move(benchOps));
        const size_t decided = checkSummaryFastPath(npu, bench, QStringLiteral("edges"));
        QVERIFY(decided != size_t(-1));
        // the records decide the plain rows and leave the NaN, boolean, huge-int, absent-field,
        // value and overflowing rows to the cells
        QVERIFY2(decided >= 40 && decided < compareIndexes(npu, bench).rows.size(), qPrintable(QString::number(decided)));
        CompareOptions o;
        o.mode = CompareMode::Summary;
        const CompareResult r = compareIndexes(npu, bench, o);
        QStringList messages;
        for (const CompareRow &row : r.rows)
            messages << row.resultMessages;
        // the cases reach every per-row checker and both relative checkers
        for (const char *m : {"nan/inf/-inf in the maximum", "Required_Grad", "dtype of NPU", "shape of NPU", "NormRelativeErr of output",
                              "10 times", "scalar parameters"})
            QVERIFY2(messages.join('|').contains(QLatin1String(m)), m);
    }

    void valueRowsAsMsprobe()
    {
        auto npuIdx = index({entry("Functional.softmax.0.forward",
                                   {leaf(IoKind::Input, "input_args.0", kX), value(IoKind::Input, "input_kwargs.dim", "int", "-1"),
                                    value(IoKind::Input, "input_kwargs.op", "torch.distributed.ReduceOp", "RedOpType.SUM"),
                                    value(IoKind::Input, "input_kwargs.group", "torch.ProcessGroup",
                                          R"({"group_ranks": [0, 1], "group_id": "77849d8c"})"),
                                    value(IoKind::Input, "input_args.1", "None", "null"),
                                    value(IoKind::Input, "input_kwargs.eps", "float", "1e-05"),
                                    leaf(IoKind::Output, "output.0", kY)})});
        CompareResult r = compareIndexes(npuIdx, npuIdx);
        QCOMPARE(r.mode, CompareMode::Summary);
        auto row = [&](const QString &suffix) {
            for (const CompareRow &c : r.rows)
                if (c.npuName.endsWith(suffix))
                    return msprobeRow(npuIdx, npuIdx, c, CompareMode::Summary);
            return MsprobeRow{};
        };
        const MsprobeRow dim = row(".input.dim");
        QCOMPARE(dim.npuDtype, QString("<class 'int'>"));
        QCOMPARE(dim.npuShape, QString("[]"));
        QCOMPARE(dim.stats[0].csv(), QString("-1"));
        QCOMPARE(dim.compare[0].csv(), QString("0"));
        QCOMPARE(row(".input.op").npuDtype, QString("<class 'str'>"));
        QCOMPARE(row(".input.group").npuDtype, QString("torch.ProcessGroup"));
        QCOMPARE(row(".input.group").stats[4].csv(), QString("[0, 1]"));
        const MsprobeRow none = row(".input.1");
        QCOMPARE(none.npuDtype, QString("None"));
        QCOMPARE(none.npuShape, QString("None"));
        QCOMPARE(none.stats[0].csv(), QString("None"));
        QCOMPARE(row(".input.eps").stats[0].csv(), QString("1e-05"));
        // msprobe's order: positional arguments (the None too), then keyword arguments
        QCOMPARE(r.rows[1].npuName, QString("Functional.softmax.0.forward.input.1"));
        QCOMPARE(r.rows[2].npuName, QString("Functional.softmax.0.forward.input.dim"));
        // tensor mode: non-tensor arguments are "unsupported" with their value in the statistics
        const MsprobeRow t = msprobeRow(npuIdx, npuIdx, r.rows[2], CompareMode::Tensor);
        QCOMPARE(t.compare[0].csv(), QString("unsupported"));
        QCOMPARE(t.stats[0].csv(), QString("-1"));
        QCOMPARE(t.dataName, QString("['-1', '-1']"));
        // md5 mode: CRC-32 of str(value); None has none; the ProcessGroup's "md5" is its ranks
        QCOMPARE(msprobeRow(npuIdx, npuIdx, r.rows[2], CompareMode::Md5).compare[0].csv(), crc32Hex("-1"));
        QCOMPARE(msprobeRow(npuIdx, npuIdx, r.rows[1], CompareMode::Md5).compare[0].csv(), QString("N/A"));
        QCOMPARE(msprobeRow(npuIdx, npuIdx, r.rows[4], CompareMode::Md5).compare[0].csv(), QString("[0, 1]"));
    }

    void dtypeAndScalarResults()
    {
        TensorFields nbf = leaf(IoKind::Input, "input_args.0", kX, "false").fields();
        nbf.typeName = "torch.bfloat16";
        nbf.dataType = int(DataType::BFloat16);
        const TensorRecord nb(nbf);
        auto npuIdx = index({entry("Functional.linear.0.forward",
                                   {nb, value(IoKind::Input, "input_args.1", "int", "3"), leaf(IoKind::Output, "output.0", kY)})});
        auto benchIdx = index({entry("Functional.linear.0.forward",
                                     {leaf(IoKind::Input, "input_args.0", kX, "false"), value(IoKind::Input, "input_args.1", "int", "4"),
                                      leaf(IoKind::Output, "output.0", kY)})});
        const CompareResult r = compareIndexes(npuIdx, benchIdx);
        QCOMPARE(r.rows[0].result, QString("error"));
        QCOMPARE(r.rows[0].resultMessages, QStringList{"error: The dtype of NPU and Bench are inconsistent."});
        QCOMPARE(r.rows[1].resultMessages, QStringList{"error: The scalar parameters of NPU and Bench are inconsistent."});
        QCOMPARE(r.rows[2].result, QString("pass"));
        // DumpScope's own verdict judges the values: bf16 vs fp32 with equal statistics passes
        QCOMPARE(r.rows[0].verdict, Verdict::Pass);
        QVERIFY(r.rows[0].dtypeDiffers);
        QCOMPARE(msprobeErrMessage(r.rows[0].resultMessages), QString(R"(["error: The dtype of NPU and Bench are inconsistent."])"));
    }

    void parameterAtFirstUse()
    {
        // mix level: the API reads the weight (input.1); the module entry after it holds it as
        // parameters.weight (same NPU statistics). Only the weight differs, a little.
        auto run = [](const std::array<double, 4> &w, const std::array<double, 4> &y) {
            return std::vector<OpRecord>{
                entry("Functional.relu.0.forward", {leaf(IoKind::Input, "input_args.0", kX, "false"), leaf(IoKind::Output, "output.0", kX)}),
                entry("Functional.linear.0.forward",
                      {leaf(IoKind::Input, "input_args.0", kX), leaf(IoKind::Input, "input_args.1", w), leaf(IoKind::Output, "output.0", y)},
                      "Module.fc1.Linear.forward.0"),
                entry("Module.fc1.Linear.forward.0",
                      {leaf(IoKind::Input, "input_args.0", kX), leaf(IoKind::Output, "output.0", y),
                       leaf(IoKind::Parameter, "parameters.weight", w)}),
                entry("Functional.softmax.0.forward", {leaf(IoKind::Input, "input_args.0", y), leaf(IoKind::Output, "output.0", y)})};
        };
        auto npuIdx = index(run(kWp, kY2)), benchIdx = index(run(kW, kY));
        const CompareResult r = compareIndexes(npuIdx, benchIdx);
        QCOMPARE(r.divergences.size(), size_t(1));
        const Divergence &d = r.divergences[0];
        QCOMPARE(d.originOp, 1);
        QCOMPARE(d.cause, DivergenceCause::Parameter);
        QCOMPARE(d.parameter, QString("fc1.weight"));
        QCOMPARE(d.parameterModule, 2);
        QCOMPARE(r.rows[size_t(d.originRow)].npuName, QString("Functional.linear.0.forward.input.1"));
        QCOMPARE(d.modules, std::vector<int>{2});
        QVERIFY(std::find(d.chain.begin(), d.chain.end(), 2) == d.chain.end()); // the module is the origin's, not the chain's
        // the same weight difference with no output change is still the origin (parameters differ at all)
        auto quiet = index(run(kWp, kY));
        QCOMPARE(compareIndexes(quiet, benchIdx).divergences.at(0).cause, DivergenceCause::Parameter);
        // identical runs: no divergence
        QVERIFY(compareIndexes(benchIdx, benchIdx).divergences.empty());
    }

    void parameterWhateverItsFlagsAndHistory()
    {
        // A frozen weight (requires_grad false) read by the API inside its module, and a weight
        // whose statistics an earlier row already showed (an op outside the module read it
        // first): both are fc1.weight, judged as a parameter (no tolerance), not as a model
        // input or as data (whose verdict would let this tiny difference pass).
        const std::array<double, 4> kWs{0.5, -0.5, 0.0100001, 2};
        auto run = [](const std::array<double, 4> &w, bool frozen, bool readBefore) {
            const QString grad = frozen ? QStringLiteral("false") : QStringLiteral("true");
            std::vector<OpRecord> ops;
            ops.push_back(entry("Functional.relu.0.forward", {leaf(IoKind::Input, "input_args.0", kX, "false"), leaf(IoKind::Output, "output.0", kX)}));
            if (readBefore)
                ops.push_back(entry("Tensor.detach.0.forward", {leaf(IoKind::Input, "input_args.0", w, grad), leaf(IoKind::Output, "output.0", w, "false")}));
            ops.push_back(entry("Functional.linear.0.forward",
                                {leaf(IoKind::Input, "input_args.0", kX), leaf(IoKind::Input, "input_args.1", w, grad), leaf(IoKind::Output, "output.0", kY)},
                                "Module.fc1.Linear.forward.0"));
            ops.push_back(entry("Module.fc1.Linear.forward.0",
                                {leaf(IoKind::Input, "input_args.0", kX), leaf(IoKind::Output, "output.0", kY),
                                 leaf(IoKind::Parameter, "parameters.weight", w, grad)}));
            return ops;
        };
        for (const bool readBefore : {false, true}) {
            const bool frozen = !readBefore;
            auto npuIdx = index(run(kWs, frozen, readBefore)), benchIdx = index(run(kW, frozen, readBefore));
            const CompareResult r = compareIndexes(npuIdx, benchIdx);
            const int linear = readBefore ? 2 : 1;
            QCOMPARE(r.divergences.size(), size_t(1));
            const Divergence &d = r.divergences[0];
            const CompareRow &row = r.rows[size_t(d.originRow)];
            QCOMPARE(row.npuName, QString("Functional.linear.0.forward.input.1"));
            QCOMPARE(row.verdict, Verdict::Pass); // as data or a model input it would not start anything
            QVERIFY(!row.identical);
            QCOMPARE(d.originOp, linear);
            QCOMPARE(d.cause, DivergenceCause::Parameter);
            QCOMPARE(d.parameter, QString("fc1.weight"));
            QCOMPARE(d.parameterModule, linear + 1);
            if (readBefore) // the earlier reader is data: its pass does not make it the origin
                QVERIFY(std::find(d.chain.begin(), d.chain.end(), 1) == d.chain.end());
        }
    }

    void parameterNamedFromTheStack()
    {
        // level L1: no module entries; the call stack names the module attribute and the parameter
        auto run = [](const std::array<double, 4> &w) {
            OpRecord op = entry("Functional.conv2d.0.forward",
                                {leaf(IoKind::Input, "input_args.0", kX, "false"), leaf(IoKind::Input, "input_args.1", w),
                                 leaf(IoKind::Output, "output.0", kY)});
            op.stack = 0;
            return op;
        };
        const QStringList stack{
            "File /usr/lib/python3/dist-packages/torch/nn/modules/conv.py, line 459, in _conv_forward, \n return F.conv2d(input, weight, bias, self.stride,",
            "File /usr/lib/python3/dist-packages/torch/nn/modules/conv.py, line 463, in forward, \n return self._conv_forward(input, self.weight, self.bias)",
            "File /usr/lib/python3/dist-packages/torch/nn/modules/module.py, line 1194, in _call_impl, \n return forward_call(*input, **kwargs)",
            "File /work/train.py, line 53, in body, \n h = F.relu(self.conv(x))"};
        auto npuIdx = index({run(kWp)}, {stack}), benchIdx = index({run(kW)}, {stack});
        const CompareResult r = compareIndexes(npuIdx, benchIdx);
        QCOMPARE(r.divergences.size(), size_t(1));
        QCOMPARE(r.divergences[0].cause, DivergenceCause::Parameter);
        QCOMPARE(r.divergences[0].parameter, QString("conv.weight"));
        QVERIFY(r.divergences[0].parameterFromStack);
        QCOMPARE(r.divergences[0].parameterModule, -1);
        // without a stack the row is an ordinary input, judged by its verdict (statistics: the
        // mean moved by 75 %, a warning): the same origin, but as an input nobody names
        auto bare = index({run(kWp)}), bareBench = index({run(kW)});
        const CompareResult b = compareIndexes(bare, bareBench);
        QCOMPARE(b.divergences.size(), size_t(1));
        QCOMPARE(b.divergences[0].cause, DivergenceCause::Input);
        QVERIFY(b.divergences[0].parameter.isEmpty());
    }

    void modelInputAndInnermost()
    {
        // the module entry comes first here (another producer's order) and disagrees; the API
        // call inside it disagrees too: the origin is the innermost call, with its module
        auto nested = [](const std::array<double, 4> &y) {
            return std::vector<OpRecord>{
                entry("Module.net.Net.forward.0", {leaf(IoKind::Input, "input_args.0", kX, "false"), leaf(IoKind::Output, "output.0", y)}),
                entry("Torch.exp.0.forward", {leaf(IoKind::Input, "input_args.0", kX, "false"), leaf(IoKind::Output, "output.0", y)},
                      "Module.net.Net.forward.0")};
        };
        auto npuIdx = index(nested(kY2)), benchIdx = index(nested(kY));
        const CompareResult r = compareIndexes(npuIdx, benchIdx);
        QCOMPARE(r.divergences.size(), size_t(1));
        QCOMPARE(r.divergences[0].originOp, 1);
        QCOMPARE(r.divergences[0].cause, DivergenceCause::Output);
        QCOMPARE(r.divergences[0].modules, std::vector<int>{0});
        QVERIFY(r.divergences[0].chain.empty());

        // a model input (first seen, requires_grad false) whose dtype differs starts it: bf16 vs fp32
        auto run = [](const QString &dtype) {
            TensorFields xf = leaf(IoKind::Input, "input_args.0", kX, "false").fields();
            xf.typeName = dtype;
            const TensorRecord x(xf);
            return std::vector<OpRecord>{entry("Torch.exp.0.forward", {x, leaf(IoKind::Output, "output.0", kY)})};
        };
        auto bf = index(run("torch.bfloat16")), fp = index(run("torch.float32"));
        const CompareResult d = compareIndexes(bf, fp);
        QCOMPARE(d.divergences.size(), size_t(1));
        QCOMPARE(d.divergences[0].cause, DivergenceCause::Input);
        QVERIFY(!d.divergences[0].inputsAgree);
        QCOMPARE(d.rows[size_t(d.divergences[0].originRow)].npuName, QString("Torch.exp.0.forward.input.0"));
    }

    void identicalInputsOutputDiffers()
    {
        // statistics: a communication op with identical inputs whose output differs by 7 %
        // (another rank's value): a DumpScope warning, and the origin of its scope
        auto run = [](double out) {
            return std::vector<OpRecord>{entry("Distributed.all_reduce.0.forward",
                                               {leaf(IoKind::Input, "input_args.0", kX, "false", {}),
                                                value(IoKind::Input, "input_kwargs.op", "torch.distributed.ReduceOp", "RedOpType.SUM"),
                                                leaf(IoKind::Output, "output.0", {out, out, out, out}, "false", {})})};
        };
        auto npuIdx = index(run(2.82)), benchIdx = index(run(3.03));
        const CompareResult r = compareIndexes(npuIdx, benchIdx);
        QCOMPARE(r.rows[2].verdict, Verdict::Warning);
        QCOMPARE(r.rows[2].result, QString("pass")); // msprobe: 7 % < 10 % (its warning needs 0.1)
        QCOMPARE(r.divergences.at(0).cause, DivergenceCause::Output);
        QCOMPARE(r.rows[size_t(r.divergences[0].originRow)].npuName, QString("Distributed.all_reduce.0.forward.output.0"));
        CompareThresholds loose;
        loose.summaryNewDiff = 0.1;
        CompareOptions o;
        o.thresholds = loose;
        QVERIFY(compareIndexes(npuIdx, benchIdx, o).divergences.empty());
    }
};

QTEST_GUILESS_MAIN(TestCompareMsprobe)
#include "tst_compare_msprobe.moc"
