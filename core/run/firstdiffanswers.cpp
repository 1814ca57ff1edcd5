#include "firstdiffanswers.h"

#include "compare/comparematch.h"
#include "compare/tabledumps.h"
#include "dump/dumpindex.h"
#include "index/buildindex.h"
#include "overflow/anomalyanalyze.h"
#include "overflow/overflowreport.h"
#include "runcompare.h"
#include "runtree.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace ds {

namespace {

/// "rank1" -> "rank_1" (the key msprobe's -da files use); no rank level -> "rank_0" (msprobe's
/// rank of a single-process dump).
QString rankKey(const QString &rank)
{
    static const QRegularExpression digits(QStringLiteral("(\\d+)$"));
    const QRegularExpressionMatch m = digits.match(rank);
    return QStringLiteral("rank_") + (m.hasMatch() ? m.captured(1) : QStringLiteral("0"));
}

Result<RunTree> oneRun(const QString &path, const char *what, const JobControl *job)
{
    using R = Result<RunTree>;
    auto found = discoverRuns(path, job);
    if (!found)
        return R::failure(QStringLiteral("%1 dump %2: %3").arg(QLatin1String(what), path, found.errorText()));
    if (found->runs.size() != 1)
        return R::failure(QStringLiteral("%1 dump %2 holds %3 runs; give one run folder").arg(QLatin1String(what), path).arg(found->runs.size()));
    return found;
}

} // namespace

QMap<QString, OwnFirstDiff> ownFirstDiffs(const QString &npuPath, const QString &benchPath, const QString &step,
                                          QStringList &errors, const JobControl *job)
{
    QMap<QString, OwnFirstDiff> out;
    auto npu = oneRun(npuPath, "NPU", job);
    auto bench = oneRun(benchPath, "bench", job);
    for (const auto *r : {&npu, &bench})
        if (!*r)
            errors << r->errorText();
    if (!npu || !bench)
        return out;
    const std::vector<ScopeCompare> scopes = compareRuns(*npu, npu->runs.front(), *bench, bench->runs.front(), CompareOptions{}, job);
    for (const ScopeCompare &s : scopes)
        for (const Divergence &d : s.result.divergences) {
            if (!step.isEmpty() && !d.levels.step.isEmpty() && d.levels.step != step)
                continue;
            const QString rank = rankKey(d.levels.rank);
            if (out.contains(rank) || d.originOp < 0)
                continue;
            out.insert(rank, {scopeIdOf(d.levels), opMatchKey(s.npu->ops[size_t(d.originOp)]), divergenceCauseName(d.cause), d.parameter});
        }
    return out;
}

FirstDiffAnswers firstDiffAnswers(const DiffAnalyzeFile &file, const QString &npuPath, const QString &benchPath, const JobControl *job)
{
    FirstDiffAnswers a;
    const QString step = compareTableLevels(file.path).step;
    if (!npuPath.isEmpty() && !benchPath.isEmpty()) {
        a.found = true;
        a.how = QStringLiteral("given: NPU %1, bench %2").arg(npuPath, benchPath);
        a.dumps << QStringLiteral("%1 vs %2").arg(npuPath, benchPath);
        a.ours = ownFirstDiffs(npuPath, benchPath, step, a.errors, job);
        return a;
    }
    // The per-rank tables whose rows tell the dumps apart: the file itself, or those -da wrote
    // beside its diff_analyze file (the same -o folder).
    std::vector<DiffAnalyzeFile> tables;
    if (file.kind == DiffAnalyzeFile::Kind::CompareResult) {
        tables.push_back(file);
    } else {
        const QDir dir = QFileInfo(file.path).dir();
        for (const QString &name : dir.entryList({QStringLiteral("compare_result_rank*.json")}, QDir::Files, QDir::Name)) {
            auto read = readFirstDiffFile(dir.filePath(name));
            if (read)
                tables.push_back(std::move(*read));
            else
                a.errors << read.errorText();
        }
        if (tables.empty()) {
            a.how = QStringLiteral("no compare_result_rank*.json beside %1 (msprobe's -da writes them into the same folder); "
                                   "the dumps it was computed from are not known: give them with --npu NPU --bench BENCH")
                        .arg(QFileInfo(file.path).fileName());
            return a;
        }
    }
    QStringList how;
    for (const DiffAnalyzeFile &t : tables) {
        const TableDumps found = findTableDumps(t.table, job);
        const QString rank = t.diffs.empty() ? QString() : t.diffs.front().rank;
        how << QStringLiteral("%1: %2").arg(QFileInfo(t.path).fileName(), found.how);
        if (!found.found())
            continue;
        a.found = true;
        a.dumps << QStringLiteral("%1 vs %2").arg(found.npu->openedPath, found.bench->openedPath);
        const QMap<QString, OwnFirstDiff> ours = ownFirstDiffs(found.npu->openedPath, found.bench->openedPath, step, a.errors, job);
        // the dumps of one rank's table are that rank's, whatever their folders are called
        static const QRegularExpression rankRe(QStringLiteral("compare_result_rank_?(\\d*)"));
        const QRegularExpressionMatch m = rankRe.match(QFileInfo(t.path).fileName());
        const QString key = rank.isEmpty() ? QStringLiteral("rank_") + (m.captured(1).isEmpty() ? QStringLiteral("0") : m.captured(1)) : rank;
        if (!ours.isEmpty())
            a.ours.insert(key, ours.first());
    }
    a.how = how.join(QStringLiteral("; "));
    return a;
}

QMap<QString, OwnAnomaly> ownFirstAnomalies(const QString &path, QString &error, const JobControl *job)
{
    QMap<QString, OwnAnomaly> out;
    auto index = buildIndex(path, job);
    if (!index) {
        error = index.errorText();
        return out;
    }
    const OverflowReport report = analyzeOverflow(**index, {}, job);
    for (const ScopeScan &s : report.scopes) {
        const SoftwareFinding *f = s.firstAnomaly();
        const QString rank = rankKey(s.scope.levels->rank);
        if (!f || out.contains(rank))
            continue;
        const OpRecord &op = (*index)->ops[size_t(f->op)];
        out.insert(rank, {s.scope.label(), op.opName.toString(), overflowLevelName(f->level), f->reason});
    }
    return out;
}

bool isMsprobeAnswerName(const QString &fileName)
{
    return isAnomalyAnalyzeName(fileName) || isFirstDiffJsonName(fileName);
}

Result<AnswerDocument> openMsprobeAnswer(const QString &path, const QString &npu, const QString &bench, const JobControl *job)
{
    using R = Result<AnswerDocument>;
    AnswerDocument doc;
    doc.path = path;
    doc.step = compareTableLevels(path).step;
    const auto agreement = [](const QString &theirs, const QString &ours) {
        return ours.isEmpty() && theirs.isEmpty() ? AnswerRow::Agreement::NoDump
               : ours == theirs                   ? AnswerRow::Agreement::Same
                                                  : AnswerRow::Agreement::Differs;
    };
    if (isAnomalyAnalyzeName(QFileInfo(path).fileName())) {
        auto msprobe = readAnomalyAnalyze(path);
        if (!msprobe)
            return R::failure(msprobe.error());
        AnomalyDump found;
        if (npu.isEmpty())
            found = findAnomalyDump(path, *msprobe);
        else
            found = {npu, QStringLiteral("given: %1").arg(npu), {}};
        doc.dumpsFound = !found.path.isEmpty();
        doc.dumpsHow = found.how;
        doc.notes = found.notes;
        QMap<QString, OwnAnomaly> ours;
        if (doc.dumpsFound) {
            QString error;
            ours = ownFirstAnomalies(found.path, error, job);
            if (!error.isEmpty())
                doc.errors << error;
        }
        for (const MsprobeAnomaly &a : *msprobe) {
            AnswerRow row{a.rank, a.opName, a.stack, {}, {}, {}, {}, AnswerRow::Agreement::NoDump};
            if (doc.dumpsFound) {
                const OwnAnomaly o = ours.value(a.rank);
                row.oursOp = o.opName;
                row.oursScope = o.scope;
                row.oursDetail = o.level.isEmpty() ? QString() : QStringLiteral("%1: %2").arg(o.level, o.reason);
                row.agreement = agreement(a.opName, o.opName);
            }
            doc.rows.push_back(std::move(row));
        }
        for (auto it = ours.begin(); it != ours.end(); ++it)
            if (std::none_of(doc.rows.begin(), doc.rows.end(), [&](const AnswerRow &r) { return r.rank == it.key(); }))
                doc.rows.push_back({it.key(), {}, {}, {}, it->opName, it->scope, QStringLiteral("%1: %2").arg(it->level, it->reason),
                                    AnswerRow::Agreement::Differs});
        return doc;
    }
    auto file = readFirstDiffFile(path);
    if (!file)
        return R::failure(file.error());
    doc.kind = file->kind == DiffAnalyzeFile::Kind::CompareResult ? AnswerDocument::Kind::CompareResult : AnswerDocument::Kind::DiffAnalyze;
    doc.entries = file->entries;
    doc.differing = file->differing;
    const FirstDiffAnswers answers = firstDiffAnswers(*file, npu, bench, job);
    doc.dumpsFound = answers.found;
    doc.dumpsHow = answers.how;
    doc.errors = answers.errors;
    for (const MsprobeFirstDiff &d : file->diffs) {
        AnswerRow row{d.rank, d.opName, d.stack, d.rows, {}, {}, {}, AnswerRow::Agreement::NoDump};
        if (answers.found) {
            const OwnFirstDiff o = answers.ours.value(d.rank);
            row.oursOp = o.opName;
            row.oursScope = o.scope;
            row.oursDetail = o.cause.isEmpty() ? QString() : o.cause + (o.parameter.isEmpty() ? QString() : QLatin1Char(' ') + o.parameter);
            row.agreement = agreement(d.opName, o.opName);
        }
        doc.rows.push_back(std::move(row));
    }
    for (auto it = answers.ours.begin(); it != answers.ours.end(); ++it)
        if (std::none_of(doc.rows.begin(), doc.rows.end(), [&](const AnswerRow &r) { return r.rank == it.key(); }))
            doc.rows.push_back({it.key(), {}, {}, {}, it->opName, it->scope, it->cause, AnswerRow::Agreement::Differs});
    return doc;
}

} // namespace ds
