#pragma once

// The run cases of issue 16 over the real-producer corpus samples/msprobe_real: every compare
// pair of expected.json, and runs assembled from its runs in a temporary folder (real step/rank
// directories whose files are symbolic links to the committed ones). Every expected answer is
// taken from expected.json's "designed" half, written before any DumpScope code read the
// corpus; an assembled case maps the designed steps and ranks to where it put them.
// Shared by tst_runs (core), tst_runwindow (GUI); tests/oracle/runs_oracle.py does the same
// for the CLI.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <limits>
#include <optional>

namespace runcorpus {

inline QString corpusDir() { return QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real"); }

inline const QJsonObject &expected()
{
    static const QJsonObject doc = [] {
        QFile f(corpusDir() + QStringLiteral("/expected.json"));
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(f.fileName()));
        return QJsonDocument::fromJson(f.readAll()).object();
    }();
    return doc;
}

inline QJsonObject caseById(const QString &id)
{
    for (const QJsonValue &c : expected().value(QStringLiteral("cases")).toArray())
        if (c.toObject().value(QStringLiteral("id")).toString() == id)
            return c.toObject();
    qFatal("no case %s in expected.json", qPrintable(id));
    return {};
}

/// A run folder of the corpus ("dumps/npu_step1_statistics_mix"), absolute.
inline QString runDir(const QString &run)
{
    return corpusDir() + QLatin1Char('/') + expected().value(QStringLiteral("runs")).toObject().value(run).toObject().value(QStringLiteral("path")).toString();
}

/// Makes `target` (relative to `root`) a copy of the scope folder `source` whose files are
/// symbolic links (dump_tensor_data too): nothing of the corpus is copied or changed.
inline bool linkScope(const QString &root, const QString &target, const QString &source)
{
    const QString dir = root + QLatin1Char('/') + target;
    if (!QDir().mkpath(dir))
        return false;
    const QFileInfoList entries = QDir(source).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QFileInfo &e : entries)
        if (!QFile::link(e.absoluteFilePath(), dir + QLatin1Char('/') + e.fileName()))
            return false;
    return !entries.isEmpty();
}

/// The run-level answer a case must give.
struct Answer
{
    qint64 step = -1, rank = -1;
    QStringList ops;                 ///< the op (more than one where expected.json allows an alternative)
    std::optional<qint64> agreeUpTo; ///< "runs agree up to step N" / "no anomaly up to step N"
};

/// One case: two run folders (compare) or one (overflow), and the answer.
struct RunCase
{
    QString name;
    QString npu, bench; ///< bench empty: an overflow case
    Answer answer;
    QString knownFailure; ///< why this branch's per-scope analysis cannot give the answer yet
};

/// The designed run answer of a pair case, steps and ranks mapped through `stepMap` / `rankMap`.
inline Answer designedAnswer(const QJsonObject &c, const QMap<qint64, qint64> &stepMap = {}, const QMap<qint64, qint64> &rankMap = {})
{
    const QJsonObject d = c.value(QStringLiteral("designed")).toObject();
    const bool overflow = c.value(QStringLiteral("kind")).toString() == QLatin1String("overflow");
    const QJsonObject first = d.value(overflow ? QStringLiteral("run_first_anomaly") : QStringLiteral("run_first_divergence")).toObject();
    Answer a;
    const qint64 step = first.value(QStringLiteral("step")).toInteger(-1), rank = first.value(QStringLiteral("rank")).toInteger(-1);
    a.step = stepMap.value(step, step);
    a.rank = rankMap.value(rank, rank);
    a.ops << first.value(QStringLiteral("op")).toString();
    if (first.contains(QStringLiteral("alternative"))) // "Torch.exp.0.forward if a reader treats ..."
        a.ops << first.value(QStringLiteral("alternative")).toString().section(QLatin1Char(' '), 0, 0);
    if (d.contains(QStringLiteral("runs_agree_up_to_step"))) {
        const qint64 s = d.value(QStringLiteral("runs_agree_up_to_step")).toInteger();
        a.agreeUpTo = stepMap.value(s, s);
    } else if (overflow && d.contains(QStringLiteral("per_scope_first_anomaly"))) {
        // "no anomaly up to step N": the steps before the first one whose every designed scope
        // has no anomaly ("step0/rank1": null), when that first step is not the earliest.
        const QJsonObject per = d.value(QStringLiteral("per_scope_first_anomaly")).toObject();
        std::optional<qint64> quiet;
        bool anomalyBefore = false;
        for (auto it = per.begin(); it != per.end(); ++it) {
            const qint64 st = it.key().section(QLatin1Char('/'), 0, 0).mid(4).toLongLong();
            if (st < step && !it.value().isNull())
                anomalyBefore = true;
            if (st < step && (!quiet || st > *quiet))
                quiet = st;
        }
        if (quiet && !anomalyBefore)
            a.agreeUpTo = stepMap.value(*quiet, *quiet);
    }
    return a;
}

/// Per-scope analyses that do not give the designed per-scope origin (their run answer is then
/// wrong too). Empty when the case is expected to pass: since the msprobe-exact compare (issue 15)
/// every case of the corpus does; a case added here must fail, or the test reports XPASS.
inline QString knownFailure(const QString &)
{
    return {};
}

/// Every pair and overflow case of expected.json, with the folders of the committed corpus.
inline std::vector<RunCase> corpusCases()
{
    std::vector<RunCase> out;
    for (const QJsonValue &v : expected().value(QStringLiteral("cases")).toArray()) {
        const QJsonObject c = v.toObject();
        const QString kind = c.value(QStringLiteral("kind")).toString(), id = c.value(QStringLiteral("id")).toString();
        // pairs designed without a divergence (align_*: run_first_divergence null) are checked by
        // tst_compare_align
        if (kind == QLatin1String("pair") && c.value(QStringLiteral("designed")).toObject().value(QStringLiteral("run_first_divergence")).isNull())
            continue;
        if (kind == QLatin1String("pair"))
            out.push_back({id, runDir(c.value(QStringLiteral("npu")).toString()), runDir(c.value(QStringLiteral("bench")).toString()),
                           designedAnswer(c), knownFailure(id)});
        else if (kind == QLatin1String("overflow"))
            out.push_back({id, runDir(c.value(QStringLiteral("run")).toString()), QString(), designedAnswer(c), knownFailure(id)});
    }
    return out;
}

/// Runs assembled from the corpus under `root`:
///  - steps_late: steps 0 and 1 of the bench on both sides (agree), then the step1 case's steps
///    0 and 1 as steps 2 and 10 (numeric step order; agree up to 2, diverge in 10);
///  - ranks_swapped: the rank1 case with ranks 0 and 1 exchanged on both sides (the rank that
///    diverges earlier in communication order is now rank 0);
///  - four_ranks: the md5 step1 case on ranks 0-1 and the bench's ranks 0-1 again as ranks 2-3
///    on both sides (ranks 2 and 3 agree everywhere);
///  - weight_late: a step that agrees (bench against itself) followed by one that does not (the
///    weight case's step 0 as step 1);
///  - overflow_late: overflow_statistics_mix's step 0 (no anomaly) then overflow_tensor_mix's step 1.
inline std::vector<RunCase> assembledCases(const QString &root)
{
    std::vector<RunCase> out;
    auto place = [&](const QString &target, const QString &run, const QString &scope) {
        if (!linkScope(root, target, runDir(run) + QLatin1Char('/') + scope))
            qFatal("cannot assemble %s", qPrintable(target));
    };
    { // steps_late
        const QJsonObject c = caseById(QStringLiteral("step1_statistics_mix"));
        const QString npu = c.value(QStringLiteral("npu")).toString(), bench = c.value(QStringLiteral("bench")).toString();
        for (const QString &rank : {QStringLiteral("rank0"), QStringLiteral("rank1")}) {
            for (const QString &side : {QStringLiteral("npu"), QStringLiteral("bench")}) {
                place(QStringLiteral("steps_late/%1/step0/%2").arg(side, rank), bench, QStringLiteral("step0/") + rank);
                place(QStringLiteral("steps_late/%1/step1/%2").arg(side, rank), bench, QStringLiteral("step1/") + rank);
            }
            place(QStringLiteral("steps_late/npu/step2/") + rank, npu, QStringLiteral("step0/") + rank);
            place(QStringLiteral("steps_late/npu/step10/") + rank, npu, QStringLiteral("step1/") + rank);
            place(QStringLiteral("steps_late/bench/step2/") + rank, bench, QStringLiteral("step0/") + rank);
            place(QStringLiteral("steps_late/bench/step10/") + rank, bench, QStringLiteral("step1/") + rank);
        }
        out.push_back({QStringLiteral("steps_late"), root + QStringLiteral("/steps_late/npu"), root + QStringLiteral("/steps_late/bench"),
                       designedAnswer(c, {{0, 2}, {1, 10}}), knownFailure(c.value(QStringLiteral("id")).toString())});
    }
    { // ranks_swapped
        const QJsonObject c = caseById(QStringLiteral("rank1_statistics_mix"));
        const QString npu = c.value(QStringLiteral("npu")).toString(), bench = c.value(QStringLiteral("bench")).toString();
        for (const QString &step : {QStringLiteral("step0"), QStringLiteral("step1")})
            for (int r = 0; r < 2; ++r) {
                const QString target = QStringLiteral("%1/rank%2").arg(step).arg(r), source = QStringLiteral("%1/rank%2").arg(step).arg(1 - r);
                place(QStringLiteral("ranks_swapped/npu/") + target, npu, source);
                place(QStringLiteral("ranks_swapped/bench/") + target, bench, source);
            }
        out.push_back({QStringLiteral("ranks_swapped"), root + QStringLiteral("/ranks_swapped/npu"),
                       root + QStringLiteral("/ranks_swapped/bench"), designedAnswer(c, {}, {{0, 1}, {1, 0}}),
                       knownFailure(c.value(QStringLiteral("id")).toString())});
    }
    { // four_ranks
        const QJsonObject c = caseById(QStringLiteral("step1_md5_mix"));
        const QString npu = c.value(QStringLiteral("npu")).toString(), bench = c.value(QStringLiteral("bench")).toString();
        for (const QString &step : {QStringLiteral("step0"), QStringLiteral("step1")})
            for (int r = 0; r < 4; ++r) {
                const QString target = QStringLiteral("%1/rank%2").arg(step).arg(r), source = QStringLiteral("%1/rank%2").arg(step).arg(r % 2);
                place(QStringLiteral("four_ranks/npu/") + target, r < 2 ? npu : bench, source);
                place(QStringLiteral("four_ranks/bench/") + target, bench, source);
            }
        out.push_back({QStringLiteral("four_ranks"), root + QStringLiteral("/four_ranks/npu"), root + QStringLiteral("/four_ranks/bench"),
                       designedAnswer(c), knownFailure(c.value(QStringLiteral("id")).toString())});
    }
    { // weight_late
        const QJsonObject c = caseById(QStringLiteral("weight_statistics_mix"));
        const QString npu = c.value(QStringLiteral("npu")).toString(), bench = c.value(QStringLiteral("bench")).toString();
        for (const QString &rank : {QStringLiteral("rank0"), QStringLiteral("rank1")}) {
            place(QStringLiteral("weight_late/npu/step0/") + rank, bench, QStringLiteral("step0/") + rank);
            place(QStringLiteral("weight_late/npu/step1/") + rank, npu, QStringLiteral("step0/") + rank);
            place(QStringLiteral("weight_late/bench/step0/") + rank, bench, QStringLiteral("step0/") + rank);
            place(QStringLiteral("weight_late/bench/step1/") + rank, bench, QStringLiteral("step0/") + rank);
        }
        Answer a = designedAnswer(c, {{0, 1}});
        a.agreeUpTo = 0; // step 0 is the bench against itself
        out.push_back({QStringLiteral("weight_late"), root + QStringLiteral("/weight_late/npu"), root + QStringLiteral("/weight_late/bench"),
                       a, knownFailure(c.value(QStringLiteral("id")).toString())});
    }
    { // overflow_late
        const QJsonObject quiet = caseById(QStringLiteral("overflow_statistics_mix"));
        const QJsonObject c = caseById(QStringLiteral("overflow_tensor_mix"));
        const QJsonObject none = quiet.value(QStringLiteral("designed")).toObject().value(QStringLiteral("per_scope_first_anomaly")).toObject();
        if (!none.value(QStringLiteral("step0/rank0")).isNull() || !none.value(QStringLiteral("step0/rank1")).isNull())
            qFatal("expected.json: overflow_statistics_mix step 0 is no longer anomaly-free");
        for (const QString &rank : {QStringLiteral("rank0"), QStringLiteral("rank1")}) {
            place(QStringLiteral("overflow_late/run/step0/") + rank, quiet.value(QStringLiteral("run")).toString(), QStringLiteral("step0/") + rank);
            place(QStringLiteral("overflow_late/run/step1/") + rank, c.value(QStringLiteral("run")).toString(), QStringLiteral("step1/") + rank);
        }
        Answer a = designedAnswer(c);
        a.agreeUpTo = 0;
        out.push_back({QStringLiteral("overflow_late"), root + QStringLiteral("/overflow_late/run"), QString(), a,
                       knownFailure(c.value(QStringLiteral("id")).toString())});
    }
    return out;
}

/// A folder holding two runs side by side, each named by its folder (issue 16: "experiments/
/// npu_bf16/step*/rank* beside experiments/bench/step*/rank*"): returns the folder.
inline QString assembleExperiments(const QString &root)
{
    const QJsonObject c = caseById(QStringLiteral("bf16_statistics_mix"));
    for (const QString &side : {QStringLiteral("npu"), QStringLiteral("bench")}) {
        const QString run = c.value(side).toString();
        const QString dir = runDir(run);
        for (const QString &step : QDir(dir).entryList({QStringLiteral("step*")}, QDir::Dirs))
            for (const QString &rank : QDir(dir + QLatin1Char('/') + step).entryList({QStringLiteral("rank*")}, QDir::Dirs))
                if (!linkScope(root, QStringLiteral("experiments/%1/%2/%3").arg(side == QLatin1String("npu") ? QStringLiteral("npu_bf16") : QStringLiteral("bench"), step, rank),
                               dir + QLatin1Char('/') + step + QLatin1Char('/') + rank))
                    qFatal("cannot assemble experiments");
    }
    return root + QStringLiteral("/experiments");
}

/// A dump.json read with QJsonDocument (not DumpScope's reader); the bare NaN / Infinity /
/// -Infinity tokens msprobe writes, which QJsonDocument refuses, become strings first.
inline QJsonObject readDumpJson(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    QString text = QString::fromUtf8(f.readAll());
    text.replace(QRegularExpression(QStringLiteral(":\\s*(-?Infinity|NaN)\\b")), QStringLiteral(": \"\\1\""));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &error);
    if (doc.isNull())
        qFatal("%s: %s", qPrintable(file), qPrintable(error.errorString()));
    return doc.object();
}

/// A statistic of a dump.json leaf (a number, or one of the strings readDumpJson made), NaN
/// when absent.
inline double statistic(const QJsonObject &leaf, const QString &key)
{
    const QJsonValue v = leaf.value(key);
    if (v.isString())
        return v.toString() == QLatin1String("NaN") ? std::numeric_limits<double>::quiet_NaN()
             : v.toString().startsWith(QLatin1Char('-')) ? -std::numeric_limits<double>::infinity()
                                                         : std::numeric_limits<double>::infinity();
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

/// One parameter gradient a parameters_grad entry of a dump.json records.
struct RecordedGradient
{
    QString entry; ///< "Module.fc1.Linear.parameters_grad.0"
    QString base;  ///< "Module.fc1.Linear.parameters_grad" (the entry without its counter)
    QString parameter;
    QJsonObject leaf;
};

/// The parameter gradients of a dump.json, in its order.
inline std::vector<RecordedGradient> recordedGradients(const QString &dumpJson)
{
    static const QRegularExpression name(QStringLiteral("^(.+\\.parameters_grad)(\\.\\d+)?$"));
    std::vector<RecordedGradient> out;
    const QJsonObject data = readDumpJson(dumpJson).value(QStringLiteral("data")).toObject();
    for (auto e = data.begin(); e != data.end(); ++e) {
        const QRegularExpressionMatch m = name.match(e.key());
        if (!m.hasMatch() || !e.value().isObject())
            continue;
        const QJsonObject params = e.value().toObject();
        for (auto p = params.begin(); p != params.end(); ++p) {
            const QJsonValue leaf = p.value().isArray() ? p.value().toArray().first() : p.value();
            if (leaf.isObject())
                out.push_back({e.key(), m.captured(1), p.key(), leaf.toObject()});
        }
    }
    return out;
}

/// A copy of a run under `root`/`target` whose parameters_grad entries carry a trigger counter
/// that differs per step ("….parameters_grad.<2 * step + 1>", as msprobe writes it where the
/// counter is not reset every step): dump.json rewritten, the other files linked.
inline QString assembleCountedGradients(const QString &root, const QString &target, const QString &run)
{
    const QString dir = runDir(run);
    for (const QString &step : QDir(dir).entryList({QStringLiteral("step*")}, QDir::Dirs))
        for (const QString &rank : QDir(dir + QLatin1Char('/') + step).entryList({QStringLiteral("rank*")}, QDir::Dirs)) {
            const QString source = dir + QLatin1Char('/') + step + QLatin1Char('/') + rank;
            const QString to = root + QLatin1Char('/') + target + QLatin1Char('/') + step + QLatin1Char('/') + rank;
            if (!QDir().mkpath(to))
                qFatal("cannot make %s", qPrintable(to));
            for (const QFileInfo &e : QDir(source).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
                if (e.fileName() != QLatin1String("dump.json")) {
                    if (!QFile::link(e.absoluteFilePath(), to + QLatin1Char('/') + e.fileName()))
                        qFatal("cannot link %s", qPrintable(e.absoluteFilePath()));
                    continue;
                }
                QFile in(e.absoluteFilePath()), out(to + QStringLiteral("/dump.json"));
                if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly))
                    qFatal("cannot copy %s", qPrintable(e.absoluteFilePath()));
                QByteArray text = in.readAll();
                const QByteArray counter = QByteArray::number(2 * step.mid(4).toInt() + 1);
                text.replace(QByteArrayLiteral(".parameters_grad.0\""), QByteArray(QByteArrayLiteral(".parameters_grad.") + counter + QByteArrayLiteral("\"")));
                out.write(text);
            }
        }
    return root + QLatin1Char('/') + target;
}

} // namespace runcorpus
