// The error each operator adds (core/compare/addederror.h, issue 34 item 3): the row relative
// error of every kind of row, hand-computed statistics dumps (norms), and two real msprobe
// pairs with a designed answer: fc1 computed in bfloat16 (samples/msprobe_addederror) ranks
// first although later operators differ more in absolute terms (msprobe's own CSV says by how
// much), and a perturbed fc1.weight (samples/msprobe_real weight_tensor_mix) labels its consumer
// "parameter differs".
#include "compare/addederror.h"
#include "compare/compare.h"
#include "compare/comparereport.h"
#include "compare/msprobenames.h"
#include "index/buildindex.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ds;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// A statistics leaf of dump.json; max = min = mean = norm / 2 (only the norm matters here).
QJsonObject leaf(double norm)
{
    return {{"type", "torch.Tensor"}, {"dtype", "torch.float32"}, {"shape", QJsonArray{2}}, {"Max", norm / 2},
            {"Min", norm / 2}, {"Mean", norm / 2}, {"Norm", norm}, {"requires_grad", false}};
}

QJsonObject entry(const QList<double> &inputs, double output)
{
    QJsonArray in;
    for (double n : inputs)
        in.append(leaf(n));
    return {{"input_args", in}, {"input_kwargs", QJsonObject{}}, {"output", QJsonArray{leaf(output)}}};
}

bool writeDump(const QString &dir, const QJsonObject &data)
{
    QDir().mkpath(dir);
    QFile f(dir + QStringLiteral("/dump.json"));
    const QJsonObject doc{{"task", "statistics"}, {"level", "L1"}, {"framework", "pytorch"}, {"dump_data_dir", QJsonValue()},
                          {"data", data}};
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(doc).toJson()) > 0;
}

const AddedError *byName(const DumpIndex &npu, const CompareResult &r, const QString &entry)
{
    for (const AddedError &e : r.addedErrors)
        if (opMatchKey(npu.ops[size_t(e.op)]) == entry)
            return &e;
    return nullptr;
}

/// Splits one line of msprobe's CSV (fields with commas are quoted, "" inside quotes).
QStringList csvFields(const QString &line)
{
    QStringList out;
    QString cur;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == u'"' && i + 1 < line.size() && line[i + 1] == u'"')
                cur += c, ++i;
            else if (c == u'"')
                quoted = false;
            else
                cur += c;
        } else if (c == u'"') {
            quoted = true;
        } else if (c == u',') {
            out << cur;
            cur.clear();
        } else {
            cur += c;
        }
    }
    out << cur;
    return out;
}

/// MaxAbsErr of every row of msprobe's tensor-mode compare CSV, by NPU name (multi-line stack cells joined).
QHash<QString, double> msprobeMaxAbsErr(const QString &dir, const QString &rank)
{
    QHash<QString, double> out;
    const QStringList files = QDir(dir).entryList({QStringLiteral("compare_result_%1_*.csv").arg(rank)});
    if (files.size() != 1)
        return out;
    QFile f(dir + QLatin1Char('/') + files.front());
    if (!f.open(QIODevice::ReadOnly))
        return out;
    const QString text = QString::fromUtf8(f.readAll());
    QString record;
    int column = -1;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        record += record.isEmpty() ? line : QLatin1Char('\n') + line;
        if (record.count(QLatin1Char('"')) % 2 != 0)
            continue; // a quoted cell goes on
        const QStringList cells = csvFields(record);
        record.clear();
        if (column < 0) {
            column = int(cells.indexOf(QStringLiteral("MaxAbsErr")));
            continue;
        }
        bool ok = false;
        const double v = column < cells.size() ? cells[column].toDouble(&ok) : 0;
        if (ok)
            out.insert(cells[0], v);
    }
    return out;
}

} // namespace

class TestAddedError : public QObject
{
    Q_OBJECT

private slots:
    // ---- one row's relative error, hand-computed
    void rowRelativeError_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<bool>("compared");
        QTest::addColumn<bool>("identical");
        QTest::addColumn<double>("eucDist");
        QTest::addColumn<double>("benchNorm");
        QTest::addColumn<int>("infNanMismatch");
        QTest::addColumn<double>("expected");
        const int t = int(CompareMode::Tensor), md5 = int(CompareMode::Md5), value = int(CompareMode::Value);
        QTest::addRow("||n-b|| / ||b||") << t << true << false << 1.0 << 4.0 << 0 << 0.25;
        QTest::addRow("both zero") << t << true << false << 0.0 << 0.0 << 0 << 0.0;
        QTest::addRow("bench zero, npu not") << t << true << false << 1.0 << 0.0 << 0 << kInf;
        QTest::addRow("NaN/Inf positions differ") << t << true << false << 1.0 << 4.0 << 3 << kInf;
        QTest::addRow("identical") << t << true << true << 0.0 << 4.0 << 0 << 0.0;
        QTest::addRow("not compared") << t << false << false << 1.0 << 4.0 << 0 << double(NAN);
        QTest::addRow("md5 differs: unknown") << md5 << true << false << 0.0 << 0.0 << 0 << double(NAN);
        QTest::addRow("md5 equal") << md5 << true << true << 0.0 << 0.0 << 0 << 0.0;
        QTest::addRow("value differs: unknown") << value << true << false << 0.0 << 0.0 << 0 << double(NAN);
    }
    void rowRelativeError()
    {
        QFETCH(int, mode);
        QFETCH(bool, compared);
        QFETCH(bool, identical);
        QFETCH(double, eucDist);
        QFETCH(double, benchNorm);
        QFETCH(int, infNanMismatch);
        QFETCH(double, expected);
        CompareRow row;
        row.mode = CompareMode(mode);
        row.verdict = compared ? Verdict::Pass : Verdict::None;
        row.identical = identical;
        if (row.mode == CompareMode::Tensor) {
            row.metrics.raw().count = 4;
            row.metrics.raw().eucDist = eucDist;
            row.metrics.raw().benchNorm = benchNorm;
            row.metrics.raw().infNanMismatch = std::uint64_t(infNanMismatch);
        }
        const double got = ds::rowRelativeError(row);
        if (std::isnan(expected))
            QVERIFY2(std::isnan(got), qPrintable(QString::number(got)));
        else
            QCOMPARE(got, expected);
    }

    // ---- statistics dumps written here: relative errors of the norms, computed by hand
    void statisticsDumpByHand()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        // entry: ({input norms}, output norm) on each side
        QJsonObject npu, bench;
        // relu: inputs equal; output 6 vs 2 -> out 2, in 0, added 2, ratio inf
        npu["Functional.relu.0.forward"] = entry({4}, 6);
        bench["Functional.relu.0.forward"] = entry({4}, 2);
        // mul: inputs 6 vs 2 (2; a warning by DumpScope's statistics rule: it differs) and 1 vs 1;
        // output 6 vs 5 (0.2): added -1.8, ratio 0.1
        npu["Functional.mul.0.forward"] = entry({6, 1}, 6);
        bench["Functional.mul.0.forward"] = entry({2, 1}, 5);
        // add: everything equal: added 0, ratio NaN (0 / 0)
        npu["Functional.add.0.forward"] = entry({5}, 5);
        bench["Functional.add.0.forward"] = entry({5}, 5);
        // its backward: gradient equal, output 2.2 vs 2 (0.1); the forward's inputs (2) count: added -1.9
        npu["Functional.mul.0.backward"] = entry({1}, 2.2);
        bench["Functional.mul.0.backward"] = entry({1}, 2);
        // div: input 0 on both sides (0), output 1 vs 0 (inf): added inf
        npu["Functional.div.0.forward"] = entry({0}, 1);
        bench["Functional.div.0.forward"] = entry({0}, 0);
        QVERIFY(writeDump(tmp.filePath("npu"), npu));
        QVERIFY(writeDump(tmp.filePath("bench"), bench));
        auto n = buildIndex(tmp.filePath("npu"));
        auto b = buildIndex(tmp.filePath("bench"));
        QVERIFY(n && b);
        const CompareResult r = compareIndexes(**n, **b);
        QCOMPARE(r.addedErrors.size(), size_t(5));

        const AddedError *relu = byName(**n, r, "Functional.relu.0.forward");
        QVERIFY(relu);
        QCOMPARE(relu->basis, CompareMode::Summary);
        QCOMPARE(relu->inputRelErr, 0.0);
        QCOMPARE(relu->outputRelErr, 2.0);
        QCOMPARE(relu->added, 2.0);
        QCOMPARE(relu->ratio, kInf);
        QCOMPARE(relu->inputs, AddedInputs::Agree);

        const AddedError *mul = byName(**n, r, "Functional.mul.0.forward");
        QVERIFY(mul);
        QCOMPARE(mul->inputRelErr, 2.0);
        QCOMPARE(mul->outputRelErr, 0.2);
        QVERIFY(std::fabs(mul->added - -1.8) < 1e-15);
        QVERIFY(std::fabs(mul->ratio - 0.1) < 1e-15);
        QCOMPARE(mul->inputs, AddedInputs::Differ);
        QCOMPARE(r.rows[size_t(mul->worstInputRow)].npuName, QStringLiteral("Functional.mul.0.forward.input.0"));

        const AddedError *add = byName(**n, r, "Functional.add.0.forward");
        QVERIFY(add);
        QCOMPARE(add->added, 0.0);
        QVERIFY(std::isnan(add->ratio));

        const AddedError *back = byName(**n, r, "Functional.mul.0.backward");
        QVERIFY(back);
        QCOMPARE(back->inputRelErr, 2.0); // the forward's input.0, not only its own gradient
        QVERIFY(std::fabs(back->outputRelErr - 0.1) < 1e-15);
        QVERIFY(std::fabs(back->added - -1.9) < 1e-15);
        QCOMPARE(back->inputs, AddedInputs::Differ);
        QCOMPARE(r.rows[size_t(back->worstInputRow)].npuName, QStringLiteral("Functional.mul.0.forward.input.0"));

        const AddedError *div = byName(**n, r, "Functional.div.0.forward");
        QVERIFY(div);
        QCOMPARE(div->inputRelErr, 0.0);
        QCOMPARE(div->added, kInf);

        // ranking: only added > 0, largest first (inf first)
        const std::vector<size_t> ranked = addedErrorRanking(**n, r);
        QCOMPARE(ranked.size(), size_t(2));
        QCOMPARE(&r.addedErrors[ranked[0]], div);
        QCOMPARE(&r.addedErrors[ranked[1]], relu);

        // JSON: numbers, "inf", null
        const QJsonObject j = QJsonDocument::fromJson(compareJson(**n, **b, r)).object();
        const QJsonArray added = j["added_error"].toArray();
        QCOMPARE(added.size(), 5);
        QJsonObject reluJson;
        for (const QJsonValue &v : added)
            if (v["name"].toString() == "Functional.relu.0.forward")
                reluJson = v.toObject();
        QCOMPARE(reluJson["added"].toDouble(), 2.0);
        QCOMPARE(reluJson["ratio"].toString(), QStringLiteral("inf"));
        QCOMPARE(reluJson["basis"].toString(), QStringLiteral("norm"));
        QCOMPARE(reluJson["inputs"].toString(), QStringLiteral("agree"));
        const QJsonArray ranking = j["added_error_ranking"].toArray();
        QCOMPARE(ranking.size(), 1);
        QCOMPARE(ranking[0].toObject()["ops"].toArray()[0].toObject()["name"].toString(), QStringLiteral("Functional.div.0.forward"));
        QCOMPARE(ranking[0].toObject()["ops"].toArray()[0].toObject()["added"].toString(), QStringLiteral("inf"));
    }

    // ---- (a) real msprobe pair: fc1 alone in bfloat16
    void lowerPrecisionOpRanksFirst_data()
    {
        QTest::addColumn<QString>("rank");
        QTest::addRow("rank0") << "rank0";
        QTest::addRow("rank1") << "rank1";
    }
    void lowerPrecisionOpRanksFirst()
    {
        QFETCH(QString, rank);
        const QString npuDir = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_addederror/dumps/npu_fc1bf16_tensor_mix/step0/") + rank;
        auto n = buildIndex(npuDir);
        auto b = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix/step0/") + rank);
        QVERIFY(n && b);
        const CompareResult r = compareIndexes(**n, **b);
        const std::vector<size_t> ranked = addedErrorRanking(**n, r);
        QVERIFY(!ranked.empty());
        // the ops run under autocast (fc1's forward and the backward of the same call) add the most
        const QString top = opMatchKey(n.value()->ops[size_t(r.addedErrors[ranked.front()].op)]);
        QVERIFY2(top.startsWith(QLatin1String("Functional.linear.0.")), qPrintable(top));
        // among forward operators, fc1's call is first; its inputs (and weights) are the bench's
        const AddedError *fc1 = nullptr;
        for (size_t k : ranked)
            if (isForwardEntry(opMatchKey(n.value()->ops[size_t(r.addedErrors[k].op)]))) {
                fc1 = &r.addedErrors[k];
                break;
            }
        QVERIFY(fc1);
        QCOMPARE(opMatchKey(n.value()->ops[size_t(fc1->op)]), QStringLiteral("Functional.linear.0.forward"));
        QCOMPARE(fc1->inputRelErr, 0.0);
        QCOMPARE(fc1->inputs, AddedInputs::Agree);
        QVERIFY(fc1->outputRelErr > 1e-3 && fc1->outputRelErr < 1e-2); // bfloat16 rounding (2^-8)
        // although a later operator differs more in absolute terms (msprobe's own MaxAbsErr)
        const QHash<QString, double> maxAbs =
            msprobeMaxAbsErr(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_addederror/compare/fc1bf16_tensor_mix/step0/csv"), rank);
        QVERIFY(!maxAbs.isEmpty());
        const double fc1Abs = maxAbs.value(QStringLiteral("Functional.linear.0.forward.output.0"), -1);
        QVERIFY(fc1Abs > 0);
        bool later = false;
        for (const QString &row : {QStringLiteral("Functional.layer_norm.0.forward.output.0"), QStringLiteral("Tensor.__mul__.0.forward.output.0"),
                                   QStringLiteral("Functional.linear.1.forward.output.0")})
            later = later || maxAbs.value(row, 0) > fc1Abs;
        QVERIFY2(later, "no later forward output differs more than fc1's in msprobe's CSV");
    }

    // ---- (b) real msprobe pair: fc1.weight perturbed
    void parameterDiffersIsLabelled()
    {
        for (const QString &rank : {QStringLiteral("rank0"), QStringLiteral("rank1")}) {
            auto n = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/npu_weight_tensor_mix/step0/") + rank);
            auto b = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix/step0/") + rank);
            QVERIFY(n && b);
            const CompareResult r = compareIndexes(**n, **b);
            for (const QString &op : {QStringLiteral("Functional.linear.0.forward"), QStringLiteral("Module.fc1.Linear.forward.0")}) {
                const AddedError *e = byName(**n, r, op);
                QVERIFY2(e, qPrintable(op));
                QCOMPARE(e->inputs, AddedInputs::ParameterDiffers);
                QVERIFY(e->known() && e->added > 0);
            }
            // the operators before it: inputs agree and they add nothing
            for (const QString &op : {QStringLiteral("Functional.conv2d.0.forward"), QStringLiteral("Functional.relu.0.forward")}) {
                const AddedError *e = byName(**n, r, op);
                QVERIFY2(e, qPrintable(op));
                QCOMPARE(e->inputs, AddedInputs::Agree);
                QCOMPARE(e->added, 0.0);
            }
            // the layer norm after it: its data input differs
            const AddedError *ln = byName(**n, r, QStringLiteral("Functional.layer_norm.0.forward"));
            QVERIFY(ln);
            QCOMPARE(ln->inputs, AddedInputs::Differ);
        }
    }
};

QTEST_GUILESS_MAIN(TestAddedError)
#include "tst_addederror.moc"
