// The software overflow check (overflow/softwarecheck.h) against msprobe 26.0.0's own
// `overflow_check` answers on the real-producer corpus (samples/msprobe_real): statistics
// dumps (no tensor data: recorded Max/Min/Mean/Norm only), a tensor dump, and the case where
// only the Norm statistic overflowed. Plus the recorded-statistics rules and msprobe's
// ignore rules on small dumps written here.
#include "index/buildindex.h"
#include "overflow/anomalyanalyze.h"
#include "overflow/inputorigin.h"
#include "overflow/overflowreport.h"
#include "tensor/dtype.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ds;

namespace {

const QString kReal = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QByteArray text = f.readAll();
    // msprobe writes Python's bare Infinity / NaN tokens; make them strings for QJsonDocument.
    static const QRegularExpression token(QStringLiteral("(:\\s*|\\[\\s*|,\\s*)(-?Infinity|NaN)(?=\\s*[,}\\]])"));
    text = QString::fromUtf8(text).replace(token, QStringLiteral("\\1\"\\2\"")).toUtf8();
    return QJsonDocument::fromJson(text).object();
}

QJsonObject expectedCase(const QString &id)
{
    for (const auto &c : readJson(kReal + QStringLiteral("/expected.json"))[QLatin1String("cases")].toArray())
        if (c[QLatin1String("id")].toString() == id)
            return c.toObject();
    return {};
}

QString opName(const DumpIndex &index, int op)
{
    const OpRecord &r = index.ops[size_t(op)];
    return r.headerOpName().isEmpty() ? r.opName.toString() : r.headerOpName();
}

const ScopeScan *scopeOf(const OverflowReport &r, const QString &step, const QString &rank)
{
    for (const auto &s : r.scopes)
        if (s.scope.levels->step == step && s.scope.levels->rank == rank)
            return &s;
    return nullptr;
}

double recordedOutputMax(const OverflowReport &r, int op)
{
    const auto it = r.checks.find(op);
    if (it == r.checks.end())
        return 0;
    for (const auto &t : it->second.tensors)
        if (t.io == IoKind::Output)
            return t.source == CheckSource::Recorded ? t.recorded.max : t.stats.posinf ? INFINITY : t.stats.max;
    return 0;
}

/// A minimal msprobe statistics dump: step0/rank0/dump.json with the given "data" entries.
bool writeDump(const QString &root, const QByteArray &data)
{
    if (!QDir().mkpath(root + QStringLiteral("/step0/rank0")))
        return false;
    QFile f(root + QStringLiteral("/step0/rank0/dump.json"));
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write("{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {" + data + "}}");
    return true;
}

QByteArray leaf(const char *dtype, const char *max, const char *min, const char *mean, const char *norm)
{
    return QByteArray("{\"type\": \"torch.Tensor\", \"dtype\": \"") + dtype + "\", \"shape\": [4], \"Max\": " + max + ", \"Min\": " + min
           + ", \"Mean\": " + mean + ", \"Norm\": " + norm + ", \"requires_grad\": false}";
}

} // namespace

class TestSoftwareCheck : public QObject
{
    Q_OBJECT
private slots:
    /// msprobe nan_check (samples/msprobe_fixtures/nan_check, written as msprobe's writer does):
    /// each entry's `is_nan` is read, every `is_nan: 1` is a finding, and the first of each rank
    /// is the first entry of its dump.json with `is_nan: 1` (read here from the file itself).
    void nanCheckIsNan_data()
    {
        QTest::addColumn<QString>("rank");
        QTest::addRow("rank0") << "rank0";
        QTest::addRow("rank1") << "rank1";
    }
    void nanCheckIsNan()
    {
        QFETCH(QString, rank);
        const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_fixtures/nan_check");
        const QJsonObject data = readJson(root + QStringLiteral("/step1/") + rank + QStringLiteral("/dump.json"))[QLatin1String("data")].toObject();
        QVERIFY(!data.isEmpty());
        auto index = buildIndex(root);
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        const DumpIndex &ix = **index;
        const OverflowReport r = analyzeOverflow(ix);
        const ScopeScan *scan = scopeOf(r, QStringLiteral("step1"), rank);
        QVERIFY(scan);
        QCOMPARE(scan->scope.end - scan->scope.begin, int(data.size()));
        QStringList expectedFindings, findings;
        QString expectedFirst;
        int unknown = 0;
        for (int o = scan->scope.begin; o < scan->scope.end; ++o) {
            const QString name = opName(ix, o);
            const QJsonValue isNan = data[name].toObject()[QLatin1String("is_nan")];
            QVERIFY2(!isNan.isUndefined(), qPrintable(name));
            const NanCheck want = isNan.isNull() ? NanCheck::Unknown : isNan.toInt() ? NanCheck::Overflow : NanCheck::Clear;
            QCOMPARE(int(ix.ops[size_t(o)].nanCheck), int(want));
            unknown += want == NanCheck::Unknown;
            if (want == NanCheck::Overflow) {
                expectedFindings << name;
                if (expectedFirst.isEmpty())
                    expectedFirst = name;
            }
        }
        for (const SoftwareFinding &f : scan->findings) {
            findings << opName(ix, f.op);
            QVERIFY(f.nanCheck);
            QVERIFY(f.reason.contains(QLatin1String("is_nan 1")));
        }
        QCOMPARE(findings, expectedFindings);
        QVERIFY(!expectedFirst.isEmpty());
        QVERIFY(scan->firstAnomaly());
        QCOMPARE(opName(ix, scan->firstAnomaly()->op), expectedFirst);
        QCOMPARE(scan->firstAnomaly()->level, OverflowLevel::Critical);
        for (const SoftwareFinding &f : scan->findings)
            if (&f != scan->firstAnomaly())
                QCOMPARE(f.level, OverflowLevel::High);
        QCOMPARE(unknown, rank == QLatin1String("rank0") ? 1 : 0); // the writer's null (make_nan_check.py)
    }

    /// msprobe overflow_check's own answer files (anomaly_analyze_*.json) read back: the ops of
    /// each rank are those collect_answers.py (Python's json) found in the same file.
    void anomalyAnalyzeFiles()
    {
        int files = 0;
        for (const QJsonValue c : readJson(kReal + QStringLiteral("/expected.json"))[QLatin1String("cases")].toArray()) {
            const QJsonObject msprobe = c[QLatin1String("msprobe")].toObject();
            for (auto it = msprobe.begin(); it != msprobe.end(); ++it) {
                const QString file = it.value()[QLatin1String("file")].toString();
                if (!file.startsWith(QLatin1String("overflow_check/")))
                    continue;
                QVERIFY(isAnomalyAnalyzeName(QFileInfo(file).fileName()));
                auto read = readAnomalyAnalyze(kReal + QLatin1Char('/') + file);
                QVERIFY2(read.ok(), qPrintable(read.errorText()));
                QJsonObject got;
                for (const MsprobeAnomaly &a : *read) {
                    QJsonArray ops = got[a.rank].toArray();
                    ops.append(a.opName);
                    got[a.rank] = ops;
                    QVERIFY2(!a.stack.isEmpty(), qPrintable(file));
                }
                QCOMPARE(got, it.value()[QLatin1String("ops_by_rank")].toObject());
                ++files;
            }
        }
        QVERIFY(files >= 5);
    }

    /// Without --npu: the step folder overflow_check read is found beside its answer, the one
    /// the producer's command gave as -i (expected.json producer.commands), for every answer file;
    /// a copy of the file alone finds none and says how to give it; a changed data_info finds none.
    void anomalyDumpBeside()
    {
        const QJsonObject e = readJson(kReal + QStringLiteral("/expected.json"));
        QMap<QString, QString> inputOf; // -o folder -> -i folder
        static const QRegularExpression cmd(QStringLiteral(R"(overflow_check -i (\S+) -o (\S+))"));
        for (const QJsonValue c : e[QLatin1String("producer")][QLatin1String("commands")].toArray())
            if (const auto m = cmd.match(c.toString()); m.hasMatch())
                inputOf[m.captured(2)] = m.captured(1);
        int files = 0;
        for (const QJsonValue c : e[QLatin1String("cases")].toArray()) {
            const QJsonObject msprobe = c[QLatin1String("msprobe")].toObject();
            for (auto it = msprobe.begin(); it != msprobe.end(); ++it) {
                const QString file = it.value()[QLatin1String("file")].toString();
                if (!file.startsWith(QLatin1String("overflow_check/")))
                    continue;
                const QString path = kReal + QLatin1Char('/') + file;
                auto read = readAnomalyAnalyze(path);
                QVERIFY2(read.ok(), qPrintable(read.errorText()));
                const AnomalyDump found = findAnomalyDump(path, *read);
                const QString input = inputOf.value(QFileInfo(file).path());
                QVERIFY2(!input.isEmpty(), qPrintable(file));
                QCOMPARE(found.path, QDir::cleanPath(QFileInfo(kReal + QLatin1Char('/') + input).absoluteFilePath()));
                QVERIFY2(found.how.startsWith(QLatin1String("found beside the file")), qPrintable(found.how));
                ++files;
                if (files > 1)
                    continue;
                QTemporaryDir alone;
                const QString copy = alone.filePath(QFileInfo(file).fileName());
                QVERIFY(QFile::copy(path, copy));
                const AnomalyDump none = findAnomalyDump(copy, *read);
                QVERIFY(none.path.isEmpty());
                QVERIFY2(none.how.contains(QLatin1String("--npu DUMP")), qPrintable(none.how));
                std::vector<MsprobeAnomaly> changed = *read;
                changed.front().data.front().second += ' ';
                QVERIFY(findAnomalyDump(path, changed).path.isEmpty());
            }
        }
        QVERIFY(files >= 5);
    }

    void anomalyAnalyzeBadInput_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("what");
        QTest::addRow("not JSON") << QByteArray("rank_1: Torch.exp") << "not JSON";
        QTest::addRow("truncated") << QByteArray("{\"rank_1\": [{\"op_name\": \"Torch.exp.0.forward\"") << "not JSON";
        QTest::addRow("a list") << QByteArray("[1, 2]") << "expected an object of rank_N lists";
        QTest::addRow("rank not a list") << QByteArray("{\"rank_0\": 3}") << "rank_0 is not a list";
        QTest::addRow("no op_name") << QByteArray("{\"rank_0\": [{\"data_info\": {}}]}") << "without op_name";
    }
    void anomalyAnalyzeBadInput()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, what);
        const auto r = parseAnomalyAnalyze(text, QStringLiteral("out/anomaly_analyze_1.json"));
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().startsWith(QLatin1String("out/anomaly_analyze_1.json: ")), qPrintable(r.errorText()));
        QVERIFY2(r.errorText().contains(what), qPrintable(r.errorText()));
    }

    /// Every scope of every committed overflow run: our first anomaly is msprobe's.
    void msprobeOverflowCheck_data()
    {
        QTest::addColumn<QString>("caseId");
        QTest::addColumn<QString>("source"); // how the tensors were judged
        QTest::addRow("statistics") << "overflow_statistics_mix" << "recorded";
        QTest::addRow("tensor") << "overflow_tensor_mix" << "data";
        QTest::addRow("norm only") << "overflow_norm_statistics_mix" << "recorded";
    }
    void msprobeOverflowCheck()
    {
        QFETCH(QString, caseId);
        QFETCH(QString, source);
        const QJsonObject c = expectedCase(caseId);
        QVERIFY2(!c.isEmpty(), qPrintable(caseId));
        auto index = buildIndex(kReal + QLatin1Char('/') + c[QLatin1String("run")].toString().prepend(QStringLiteral("dumps/")));
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        const DumpIndex &ix = **index;
        QVERIFY(ix.errors.empty());
        const OverflowReport r = analyzeOverflow(ix);
        QVERIFY(r.scanned);
        const QJsonObject msprobe = c[QLatin1String("msprobe")].toObject();
        QVERIFY(!msprobe.isEmpty());
        QStringList runAnswers; // every op msprobe lists, "stepN/rank_R op"
        for (auto it = msprobe.begin(); it != msprobe.end(); ++it) {
            const QString step = it.key(); // "step0", "step1"
            const QJsonValue file = it.value()[QLatin1String("file")];
            std::vector<const ScopeScan *> scopes;
            for (const auto &s : r.scopes)
                if (s.scope.levels->step == step)
                    scopes.push_back(&s);
            QVERIFY2(!scopes.empty(), qPrintable(step));
            if (file.isNull()) {
                // msprobe: "Cannot find any anomaly node" for this step.
                QVERIFY2(it.value()[QLatin1String("log_line")].toString().startsWith(QLatin1String("Cannot find any anomaly node")),
                         qPrintable(step));
                for (const ScopeScan *s : scopes)
                    QVERIFY2(s->first < 0, qPrintable(s->scope.label()));
                continue;
            }
            // msprobe's own answer file, read directly.
            const QJsonObject answer = readJson(kReal + QLatin1Char('/') + file.toString());
            QVERIFY2(!answer.isEmpty(), qPrintable(file.toString()));
            for (const ScopeScan *s : scopes) {
                const QString rank = s->scope.levels->rank; // "rank1"
                const QJsonArray listed = answer[QStringLiteral("rank_") + rank.mid(4)].toArray();
                if (listed.isEmpty()) {
                    // Not a root-cause rank for msprobe: our first anomaly there (if any) is a
                    // communication op, i.e. NaN/Inf received from another rank.
                    if (s->first >= 0)
                        QVERIFY2(s->firstIsCommunication(ix), qPrintable(opName(ix, s->firstAnomaly()->op)));
                    continue;
                }
                QVERIFY2(s->first >= 0, qPrintable(s->scope.label()));
                const QJsonObject node = listed.first().toObject();
                const QString want = node[QLatin1String("op_name")].toString();
                QCOMPARE(opName(ix, s->firstAnomaly()->op), want);
                QCOMPARE(s->firstAnomaly()->level, OverflowLevel::Critical); // normal inputs, abnormal outputs
                QVERIFY(!s->firstIsCommunication(ix));
                // The statistic that made it anomalous is the one msprobe's file shows.
                const QJsonObject out0 = node[QLatin1String("data_info")][QLatin1String("output")].toArray().first().toObject();
                const QString max = out0[QLatin1String("Max")].toVariant().toString();
                const double ours = recordedOutputMax(r, s->firstAnomaly()->op);
                if (max == QLatin1String("Infinity"))
                    QVERIFY2(std::isinf(ours) && ours > 0, qPrintable(QString::number(ours)));
                else if (max == QLatin1String("NaN"))
                    QVERIFY2(std::isnan(ours), qPrintable(QString::number(ours)));
                const auto check = r.checks.find(s->firstAnomaly()->op);
                QVERIFY(check != r.checks.end());
                for (const auto &t : check->second.tensors)
                    QCOMPARE(t.source == CheckSource::Recorded ? QStringLiteral("recorded") : QStringLiteral("data"), source);
                runAnswers << s->scope.label() + QLatin1Char(' ') + want;
            }
        }
        // The dump's first anomaly is one msprobe names.
        const SoftwareFinding *first = r.firstAnomaly();
        QVERIFY(first);
        const QString ours = r.scopes[size_t(r.firstScope)].scope.label() + QLatin1Char(' ') + opName(ix, first->op);
        QVERIFY2(runAnswers.contains(ours), qPrintable(ours + QStringLiteral(" not in ") + runAnswers.join(QStringLiteral(", "))));
        QCOMPARE(r.firstProducer, first->op);

        // The norm-only case: msprobe judges Max/Min only; the op whose Norm statistic
        // overflowed before (the designed answer, written before any code) is our precursor.
        const QString before = c[QLatin1String("designed")][QLatin1String("per_scope_first_anomaly")][QLatin1String("step1/rank1")]
                                   [QLatin1String("statistic_only_anomaly_before")].toString();
        const ScopeScan *rank1 = scopeOf(r, QStringLiteral("step1"), QStringLiteral("rank1"));
        QVERIFY(rank1);
        if (before.isEmpty()) {
            QCOMPARE(rank1->precursor, -1);
        } else {
            QVERIFY(rank1->precursor >= 0 && rank1->precursor < rank1->first);
            const SoftwareFinding &p = rank1->findings[size_t(rank1->precursor)];
            QCOMPARE(opName(ix, p.op), before.section(QLatin1Char(':'), 0, 0));
            QVERIFY(p.statisticOverflow && !p.valueAnomaly);
        }
    }

    /// Issue 30: step 0's optimizer wrote NaN into fc1.weight (real msprobe runs, optimizer
    /// outside and inside the dump). Step 1's first anomaly has the NaN among its inputs with no
    /// operator of step 1 before it: its origin names the parameter, the rank's previous step and
    /// the operator there that wrote it, or (not dumped) where it was last seen normal, as the
    /// designed half of expected.json says; msprobe names the module holding the parameter.
    void parameterNaNFromThePreviousStep_data()
    {
        QTest::addColumn<QString>("caseId");
        QTest::addRow("optimizer not dumped") << "optnan_statistics_mix";
        QTest::addRow("optimizer dumped") << "optnan_dumped_statistics_mix";
    }
    void parameterNaNFromThePreviousStep()
    {
        QFETCH(QString, caseId);
        const QJsonObject c = expectedCase(caseId);
        QVERIFY2(!c.isEmpty(), qPrintable(caseId));
        auto index = buildIndex(kReal + QStringLiteral("/dumps/") + c[QLatin1String("run")].toString());
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        const DumpIndex &ix = **index;
        const OverflowReport r = analyzeOverflow(ix);
        const QJsonObject designed = c[QLatin1String("designed")][QLatin1String("per_scope_first_anomaly")].toObject();
        const QJsonObject msprobe = c[QLatin1String("msprobe")].toObject();
        int explained = 0;
        for (const QString &rank : {QStringLiteral("rank0"), QStringLiteral("rank1")}) {
            const QJsonObject want = designed[QStringLiteral("step1/") + rank].toObject();
            const QJsonObject origin = want[QLatin1String("origin")].toObject();
            const ScopeScan *s = scopeOf(r, QStringLiteral("step1"), rank);
            QVERIFY(s && s->first >= 0);
            const SoftwareFinding &f = *s->firstAnomaly();
            QCOMPARE(opName(ix, f.op), want[QLatin1String("op")].toString());
            QCOMPARE(f.level, OverflowLevel::High); // the parameter counts as an input
            QCOMPARE(f.origins.size(), size_t(1));
            const InputOrigin &o = f.origins.front();
            QCOMPARE(o.parameter, origin[QLatin1String("parameter")].toString());
            QCOMPARE(o.module, want[QLatin1String("module")].toString());
            QCOMPARE(o.previousScope, origin[QLatin1String("previous_step")].toString());
            QCOMPARE(o.writer, origin[QLatin1String("written_by")].toString()); // "" when not dumped
            if (origin[QLatin1String("written_by")].isNull())
                QCOMPARE(o.lastNormal, origin[QLatin1String("last_seen_normal_at")].toArray().first().toString());
            else
                QVERIFY(o.lastNormal.isEmpty());
            QVERIFY2(f.reason.startsWith(QLatin1String("inputs and outputs abnormal: propagated from upstream; ")) && f.reason.endsWith(o.text),
                     qPrintable(f.reason));
            QVERIFY2(o.text.contains(o.parameter) && o.text.contains(o.previousScope), qPrintable(o.text));
            // the flat list carries the same finding
            QVERIFY(std::any_of(r.findings.begin(), r.findings.end(), [&](const SoftwareFinding &x) { return x.op == f.op && x.reason == f.reason; }));
            // msprobe's overflow_check names the module that holds the parameter (it does not count parameters as inputs)
            const QJsonArray listed = msprobe[QLatin1String("step1")][QLatin1String("ops_by_rank")][QStringLiteral("rank_") + rank.mid(4)].toArray();
            QCOMPARE(listed.first().toString(), o.module);
            ++explained;
        }
        QCOMPARE(explained, 2);
        // a first anomaly produced in its own step has no origin
        for (const ScopeScan &s : r.scopes)
            if (s.first >= 0 && s.firstAnomaly()->level == OverflowLevel::Critical)
                QVERIFY(s.firstAnomaly()->origins.empty());
    }

    void recordedStatistics_data()
    {
        QTest::addColumn<int>("dataType");
        QTest::addColumn<double>("max");
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("norm");
        QTest::addColumn<bool>("anomalous");
        QTest::addColumn<bool>("saturated");
        QTest::addColumn<bool>("statisticOverflow");
        const double inf = INFINITY, nan = NAN;
        QTest::addRow("finite") << int(DataType::Float32) << 3.0 << -1.0 << 0.5 << 4.0 << false << false << false;
        QTest::addRow("max inf") << int(DataType::Float32) << inf << 0.0 << inf << inf << true << false << false;
        QTest::addRow("min -inf") << int(DataType::Float32) << 1.0 << -inf << -inf << inf << true << false << false;
        QTest::addRow("nan") << int(DataType::Float32) << nan << nan << nan << nan << true << false << false;
        QTest::addRow("norm only") << int(DataType::Float32) << 1.86e28 << 0.0 << 1.1e27 << inf << false << false << true;
        QTest::addRow("mean only") << int(DataType::Float32) << 3.0e38 << 3.0e38 << inf << inf << false << false << true;
        // Saturation mode: the dtype's finite extreme (overflow.md §9).
        QTest::addRow("fp16 saturated max") << int(DataType::Float16) << 65504.0 << -3.0 << 100.0 << 70000.0 << true << true << false;
        QTest::addRow("fp16 saturated min") << int(DataType::Float16) << 3.0 << -65504.0 << -100.0 << 70000.0 << true << true << false;
        QTest::addRow("fp16 near max") << int(DataType::Float16) << 65472.0 << -3.0 << 100.0 << 70000.0 << false << false << false;
        QTest::addRow("bf16 saturated") << int(DataType::BFloat16) << 3.3895313892515355e38 << 0.0 << 1.0 << inf << true << true << false;
        QTest::addRow("fp32 saturated") << int(DataType::Float32) << 3.4028234663852886e38 << 0.0 << 1.0 << inf << true << true << false;
        QTest::addRow("int64 never saturates") << int(DataType::Int64) << 65504.0 << 0.0 << 1.0 << 2.0 << false << false << false;
    }
    void recordedStatistics()
    {
        QFETCH(int, dataType);
        QFETCH(double, max);
        QFETCH(double, min);
        QFETCH(double, mean);
        QFETCH(double, norm);
        QFETCH(bool, anomalous);
        QFETCH(bool, saturated);
        QFETCH(bool, statisticOverflow);
        TensorFields t;
        t.io = IoKind::Output;
        t.storage = TensorStorage::Absent;
        t.dataType = dataType;
        t.recorded = {max, min, mean, norm, RecordedStats::Max | RecordedStats::Min | RecordedStats::Mean | RecordedStats::Norm};
        const TensorCheck c = checkRecorded(TensorRecord(t));
        QCOMPARE(c.source, CheckSource::Recorded);
        QCOMPARE(c.anomalous(), anomalous);
        QCOMPARE(c.saturated != 0, saturated);
        QCOMPARE(c.statisticOverflow, statisticOverflow);
        // Nothing recorded: nothing to judge.
        t.recorded = {};
        QCOMPARE(checkRecorded(TensorRecord(t)).source, CheckSource::None);
        QVERIFY(!checkRecorded(TensorRecord(t)).anomalous());
    }

    /// msprobe's scenes and ignore rules on a small statistics dump, one scope.
    void levelsAndIgnoreRules()
    {
        QTemporaryDir dir;
        const QByteArray ok = leaf("torch.float32", "1.0", "-1.0", "0.0", "2.0");
        const QByteArray inf = leaf("torch.float32", "Infinity", "0.0", "Infinity", "Infinity");
        const QByteArray nan = leaf("torch.float32", "NaN", "NaN", "NaN", "NaN");
        const QByteArray big = leaf("torch.float32", "900.0", "-900.0", "0.0", "5000.0");
        QVERIFY(writeDump(dir.path(),
                          "\"Torch.empty.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": [" + nan + "]},"
                          "\"Torch.add.0.forward\": {\"input_args\": [" + ok + ", " + ok + "], \"input_kwargs\": {}, \"output\": [" + ok + "]},"
                          "\"Torch.exp.0.forward\": {\"input_args\": [" + ok + "], \"input_kwargs\": {}, \"output\": [" + inf + "]},"
                          "\"Torch.mul.0.forward\": {\"input_args\": [" + inf + ", " + ok + "], \"input_kwargs\": {}, \"output\": [" + inf + "]},"
                          "\"Torch.isfinite.0.forward\": {\"input_args\": [" + inf + "], \"input_kwargs\": {}, \"output\": [" + ok + "]},"
                          "\"Torch.scale.0.forward\": {\"input_args\": [" + ok + "], \"input_kwargs\": {}, \"output\": [" + big + "]},"
                          "\"Distributed.recv.0.forward\": {\"input_args\": [" + nan + "], \"input_kwargs\": {}, \"output\": [" + ok + "]},"
                          "\"Module.fc.Linear.parameters_grad.0\": {\"weight\": [" + nan + "]}"));
        auto index = buildIndex(dir.path());
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        const DumpIndex &ix = **index;
        QVERIFY2(ix.errors.empty(), ix.errors.empty() ? "" : qPrintable(ix.errors.front().message));
        const auto scopes = overflowScopes(ix);
        QCOMPARE(scopes.size(), size_t(1));
        QCOMPARE(scopes.front().label(), QStringLiteral("step0/rank0"));
        std::map<int, OpCheck> checks;
        const ScopeScan scan = scanScope(ix, scopes.front(), &checks);
        QMap<QString, QString> levels;
        for (const auto &f : scan.findings)
            levels[opName(ix, f.op)] = overflowLevelName(f.level);
        const QMap<QString, QString> expected{{QStringLiteral("Torch.exp.0.forward"), QStringLiteral("critical")},
                                              {QStringLiteral("Torch.mul.0.forward"), QStringLiteral("high")},
                                              {QStringLiteral("Torch.isfinite.0.forward"), QStringLiteral("medium")},
                                              {QStringLiteral("Torch.scale.0.forward"), QStringLiteral("high")}}; // norm 5000 / 2 > 100
        QCOMPARE(levels, expected); // torch.empty's NaN output and recv's NaN input buffer are expected; parameters_grad is not judged
        QVERIFY(scan.first >= 0);
        QCOMPARE(opName(ix, scan.firstAnomaly()->op), QStringLiteral("Torch.exp.0.forward"));
        QCOMPARE(opName(ix, scan.findings[size_t(scan.producer)].op), QStringLiteral("Torch.exp.0.forward"));
        // Only operators with a finding keep their checks; every check there is from recorded statistics.
        QCOMPARE(checks.size(), scan.findings.size());
        for (const auto &[op, c] : checks)
            for (const auto &t : c.tensors)
                QCOMPARE(t.source, CheckSource::Recorded);
        const int empty = ix.opIndex(QStringLiteral("step0/rank0/Torch.empty.0.forward"));
        QVERIFY(empty >= 0);
        const OpCheck emptyCheck = checkOp(ix, empty);
        QCOMPARE(emptyCheck.tensors.size(), size_t(1));
        QVERIFY(emptyCheck.tensors.front().ignored);
        QVERIFY(!emptyCheck.anyOutputAnomalous());
    }

    /// An abnormal input at the very first op: the scope's first anomaly is that op (medium
    /// or high), and there is no producer in the scope.
    void firstAnomalyWithoutProducer()
    {
        QTemporaryDir dir;
        const QByteArray ok = leaf("torch.float16", "1.0", "-1.0", "0.0", "2.0");
        const QByteArray nan = leaf("torch.float16", "NaN", "NaN", "NaN", "NaN");
        QVERIFY(writeDump(dir.path(), "\"Torch.add.0.forward\": {\"input_args\": [" + nan + ", " + ok + "], \"input_kwargs\": {}, \"output\": [" + nan + "]},"
                                      "\"Torch.sum.0.forward\": {\"input_args\": [" + nan + "], \"input_kwargs\": {}, \"output\": [" + ok + "]}"));
        auto index = buildIndex(dir.path());
        QVERIFY(index.ok());
        const OverflowReport r = analyzeOverflow(**index);
        QCOMPARE(r.scopes.size(), size_t(1));
        QVERIFY(r.firstAnomaly());
        QCOMPARE(opName(**index, r.firstAnomaly()->op), QStringLiteral("Torch.add.0.forward"));
        QCOMPARE(r.firstAnomaly()->level, OverflowLevel::High);
        QCOMPARE(r.firstProducer, -1);
        QCOMPARE(r.findings.size(), size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestSoftwareCheck)
#include "tst_softwarecheck.moc"
