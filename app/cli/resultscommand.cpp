#include "resultscommand.h"

#include "compare/diffanalyze.h"
#include "index/buildindex.h"
#include "monitor/monitor.h"
#include "overflow/anomalyanalyze.h"
#include "overflow/overflowreport.h"
#include "precheck/precheck.h"
#include "run/firstdiffanswers.h"
#include "tensor/dtype.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ds {

namespace {

enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3 };

void out(const QString &text) { std::fputs(qPrintable(text), stdout); }
void out(const QJsonObject &o) { std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout); }
void err(const QString &text) { std::fprintf(stderr, "%s\n", qPrintable(text)); }
QString num(double v) { return QString::number(v, 'g', 8); }

} // namespace

int runPrecheckCommand(const QString &path, bool json)
{
    using namespace precheck;
    if (!QFileInfo::exists(path)) {
        err(QStringLiteral("no such file or directory: %1").arg(path));
        return NoPath;
    }
    auto doc = openPrecheck(path);
    if (!doc) {
        err(doc.errorText());
        return Failed;
    }
    std::vector<std::optional<Result<PairComparison>>> comparisons;
    for (const FailedPair &p : doc->failed)
        comparisons.emplace_back(compareFailedPair(doc->root, p));
    bool failed = !doc->errors.empty();
    for (const auto &c : comparisons)
        failed |= !*c;
    if (json) {
        out(precheckJson(*doc, comparisons));
        return failed ? Failed : Ok;
    }
    for (const PrecheckTable &t : doc->tables) {
        out(QStringLiteral("%1 (%2): %3 rows, %4 pass, %5 warning, %6 error, %7 SKIP\n")
                .arg(t.file, tableKindName(t.kind)).arg(t.rows.size()).arg(t.count(Status::Pass)).arg(t.count(Status::Warning))
                .arg(t.count(Status::Error)).arg(t.count(Status::Skip)));
        const int message = t.column(QStringLiteral("Message"));
        for (const PrecheckRow &r : t.rows) {
            if (r.status == Status::Pass || r.status == Status::None)
                continue;
            QString what = r.output.isEmpty() ? r.api : r.api + QLatin1Char('.') + r.output;
            if (!r.output.isEmpty() || r.forward == r.backward || r.backward == Status::None)
                what += QStringLiteral("  ") + statusWord(r.status);
            else
                what += QStringLiteral("  forward %1, backward %2").arg(statusWord(r.forward), statusWord(r.backward));
            const QString m = message >= 0 ? r.cells[message].simplified() : QString();
            out(QStringLiteral("  %1%2\n").arg(what, m.isEmpty() ? QString() : QStringLiteral("  (") + m + QLatin1Char(')')));
        }
    }
    for (size_t i = 0; i < doc->failed.size(); ++i) {
        const FailedPair &p = doc->failed[i];
        out(QStringLiteral("failed %1.%2: device %3, bench %4\n").arg(p.api, p.output(), p.deviceFile, p.benchFile));
        const auto &c = *comparisons[i];
        if (!c) {
            out(QStringLiteral("  error: %1\n").arg(c.errorText()));
            continue;
        }
        const PairMetrics &m = c->metrics;
        const double cosine = m.npuNorm > 0 && m.benchNorm > 0 ? m.dot / (m.npuNorm * m.benchNorm) : std::nan("");
        out(QStringLiteral("  %1 vs %2, %3 elements: cosine %4, max abs err %5, max rel err %6, rmse %7, %8 exactly equal\n")
                .arg(dataTypeName(c->deviceType), dataTypeName(c->benchType)).arg(m.count)
                .arg(num(cosine), num(m.maxAbsErr), num(m.maxRelErr), num(m.rmse)).arg(c->detail.exactlyEqual));
        if (!c->detail.worst.empty()) {
            const ElementDiff &d = c->detail.worst.front();
            out(QStringLiteral("  worst element %1: device %2, bench %3\n").arg(d.index).arg(num(d.npu), num(d.bench)));
        }
    }
    for (const Error &e : doc->errors)
        out(QStringLiteral("error: %1\n").arg(e.text()));
    return failed ? Failed : Ok;
}

int runMonitorCommand(const QString &path, bool json)
{
    using namespace monitor;
    if (!QFileInfo::exists(path)) {
        err(QStringLiteral("no such file or directory: %1").arg(path));
        return NoPath;
    }
    auto doc = openMonitor(path);
    if (!doc) {
        err(doc.errorText());
        return Failed;
    }
    const bool failed = !doc->errors.empty();
    if (json) {
        out(monitorJson(*doc));
        return failed ? Failed : Ok;
    }
    QStringList ranks;
    for (int r : doc->ranks())
        ranks << QString::number(r);
    if (!doc->tables.empty()) // an anomaly file opened alone has no series: its errors say why
        out(QStringLiteral("%1 monitor file(s), rank(s) %2\n").arg(doc->tables.size()).arg(ranks.join(QStringLiteral(", "))));
    for (const auto &[metric, stats] : doc->metrics()) {
        std::int64_t first = 0, last = 0;
        bool any = false;
        QStringList modules;
        for (const MonitorTable &t : doc->tables)
            for (const MonitorRow &r : t.rows)
                if (rowMetric(t, r) == metric) {
                    first = any ? std::min(first, r.step) : r.step;
                    last = any ? std::max(last, r.step) : r.step;
                    any = true;
                    if (!modules.contains(r.name))
                        modules << r.name;
                }
        out(QStringLiteral("%1: steps %2-%3, %4 module(s), statistics %5\n").arg(metric).arg(first).arg(last).arg(modules.size()).arg(stats.join(QStringLiteral(", "))));
    }
    out(QStringLiteral("%1 anomal%2 (msprobe's order)\n").arg(doc->anomalies.size()).arg(doc->anomalies.size() == 1 ? QStringLiteral("y") : QStringLiteral("ies")));
    for (const Anomaly &a : doc->anomalies)
        out(QStringLiteral("  rank %1 step %2 micro %3 %4 %5\n").arg(a.rank).arg(a.step).arg(a.microStep).arg(a.tagName, a.stat()));
    if (!doc->analysed.empty()) {
        out(QStringLiteral("anomaly_analyse.json: %1 first anomalies\n").arg(doc->analysed.size()));
        for (const Anomaly &a : doc->analysed)
            out(QStringLiteral("  rank %1 step %2 %3\n").arg(a.rank).arg(a.step).arg(a.tagName));
    }
    for (const Error &e : doc->errors)
        out(QStringLiteral("error: %1\n").arg(e.text()));
    return failed ? Failed : Ok;
}

int runAnomalyAnalyzeCommand(const QString &path, const QString &given, bool json)
{
    for (const QString &p : {path, given})
        if (!p.isEmpty() && !QFileInfo::exists(p)) {
            err(QStringLiteral("no such file or directory: %1").arg(p));
            return NoPath;
        }
    auto msprobe = readAnomalyAnalyze(path);
    if (!msprobe) {
        err(msprobe.errorText());
        return Failed;
    }
    // Without --npu: the step folder overflow_check read, found beside the file by its data.
    AnomalyDump found;
    if (given.isEmpty())
        found = findAnomalyDump(path, *msprobe);
    else
        found.how = QStringLiteral("given: %1").arg(given);
    const QString dump = given.isEmpty() ? found.path : given;
    // DumpScope's own answer on the dump: the first anomaly of each rank's scope ("rank1" <-> "rank_1").
    QMap<QString, QJsonObject> ours;
    if (!dump.isEmpty()) {
        QString error;
        const QMap<QString, OwnAnomaly> own = ownFirstAnomalies(dump, error);
        if (!error.isEmpty()) {
            err(error);
            return Failed;
        }
        for (auto it = own.begin(); it != own.end(); ++it)
            ours[it.key()] = QJsonObject{{QStringLiteral("scope"), it->scope}, {QStringLiteral("op_name"), it->opName},
                                         {QStringLiteral("level"), it->level}, {QStringLiteral("reason"), it->reason}};
    }
    if (json) {
        QJsonArray rows;
        for (const MsprobeAnomaly &a : *msprobe) {
            QJsonObject row{{QStringLiteral("rank"), a.rank}, {QStringLiteral("op_name"), a.opName},
                            {QStringLiteral("construct"), QJsonArray::fromStringList(a.construct)},
                            {QStringLiteral("stack"), QJsonArray::fromStringList(a.stack)}};
            if (!dump.isEmpty())
                row[QStringLiteral("dumpscope")] = ours.contains(a.rank) ? QJsonValue(ours[a.rank]) : QJsonValue();
            rows.append(row);
        }
        out(QJsonObject{{QStringLiteral("file"), path}, {QStringLiteral("kind"), QStringLiteral("msprobe overflow_check")},
                        {QStringLiteral("dump"), dump.isEmpty() ? QJsonValue() : QJsonValue(dump)}, {QStringLiteral("dump_how"), found.how},
                        {QStringLiteral("dump_notes"), QJsonArray::fromStringList(found.notes)}, {QStringLiteral("anomalies"), rows}});
        return Ok;
    }
    out(QStringLiteral("%1: msprobe overflow_check's answer, %2 anomaly node(s) (the first anomaly of each rank)\n")
            .arg(path).arg(msprobe->size()));
    if (msprobe->empty())
        out(QStringLiteral("  msprobe found no anomaly\n"));
    for (const MsprobeAnomaly &a : *msprobe) {
        out(QStringLiteral("  %1: %2\n").arg(a.rank, a.opName));
        if (!a.stack.isEmpty()) {
            QString where = a.stack.front().section(QLatin1Char('\n'), 0, 0).trimmed(); // "File f, line 70, in forward,"
            if (where.endsWith(QLatin1Char(',')))
                where.chop(1);
            out(QStringLiteral("      at %1\n").arg(where));
        }
        if (dump.isEmpty())
            continue;
        if (!ours.contains(a.rank))
            out(QStringLiteral("      DumpScope: no anomaly in this rank of %1\n").arg(dump));
        else
            out(QStringLiteral("      DumpScope: %1 [%2] in %3%4\n").arg(ours[a.rank][QStringLiteral("op_name")].toString(),
                                                                       ours[a.rank][QStringLiteral("level")].toString(),
                                                                       ours[a.rank][QStringLiteral("scope")].toString(),
                                                                       ours[a.rank][QStringLiteral("op_name")].toString() == a.opName
                                                                           ? QStringLiteral(" (the same)") : QStringLiteral(" (differs)")));
    }
    out(QStringLiteral("dump: %1\n").arg(found.how));
    for (const QString &n : std::as_const(found.notes))
        out(QStringLiteral("  note: %1\n").arg(n));
    return Ok;
}

int runDiffAnalyzeCommand(const QString &path, const QString &npu, const QString &bench, bool json)
{
    for (const QString &p : {path, npu, bench})
        if (!p.isEmpty() && !QFileInfo::exists(p)) {
            err(QStringLiteral("no such file or directory: %1").arg(p));
            return NoPath;
        }
    if (npu.isEmpty() != bench.isEmpty()) {
        err(QStringLiteral("--npu and --bench go together: the two dumps msprobe compared"));
        return Usage;
    }
    auto file = readFirstDiffFile(path);
    if (!file) {
        err(file.errorText());
        return Failed;
    }
    const FirstDiffAnswers answers = firstDiffAnswers(*file, npu, bench);
    const auto verdict = [&](const MsprobeFirstDiff &d) {
        return !answers.ours.contains(d.rank) ? QStringLiteral("no divergence")
               : answers.ours[d.rank].opName == d.opName ? QStringLiteral("the same") : QStringLiteral("differs");
    };
    const bool compareResult = file->kind == DiffAnalyzeFile::Kind::CompareResult;
    const QString kind = compareResult ? QStringLiteral("msprobe compare -da per-rank result") : QStringLiteral("msprobe compare -da");
    if (json) {
        QJsonArray rows;
        for (const MsprobeFirstDiff &d : file->diffs) {
            QJsonObject row{{QStringLiteral("rank"), d.rank}, {QStringLiteral("op_name"), d.opName},
                            {QStringLiteral("rows"), QJsonArray::fromStringList(d.rows)}, {QStringLiteral("stack"), QJsonArray::fromStringList(d.stack)}};
            if (answers.found) {
                QJsonValue ours;
                if (answers.ours.contains(d.rank)) {
                    const OwnFirstDiff &o = answers.ours[d.rank];
                    ours = QJsonObject{{QStringLiteral("scope"), o.scope}, {QStringLiteral("op_name"), o.opName}, {QStringLiteral("cause"), o.cause},
                                       {QStringLiteral("parameter"), o.parameter.isEmpty() ? QJsonValue() : QJsonValue(o.parameter)}};
                }
                row[QStringLiteral("dumpscope")] = ours;
                row[QStringLiteral("agree")] = verdict(d) == QLatin1String("the same");
            }
            rows.append(row);
        }
        // ranks where DumpScope finds a divergence and msprobe names none
        QJsonObject onlyOurs;
        for (auto it = answers.ours.begin(); it != answers.ours.end(); ++it)
            if (std::none_of(file->diffs.begin(), file->diffs.end(), [&](const MsprobeFirstDiff &d) { return d.rank == it.key(); }))
                onlyOurs[it.key()] = QJsonObject{{QStringLiteral("scope"), it->scope}, {QStringLiteral("op_name"), it->opName}, {QStringLiteral("cause"), it->cause}};
        QJsonObject o{{QStringLiteral("file"), path}, {QStringLiteral("kind"), kind}, {QStringLiteral("first_diffs"), rows},
                      {QStringLiteral("dumps_found"), answers.found}, {QStringLiteral("dumps"), answers.how},
                      {QStringLiteral("errors"), QJsonArray::fromStringList(answers.errors)}};
        if (compareResult) {
            o[QStringLiteral("entries")] = file->entries;
            o[QStringLiteral("differing")] = file->differing;
        }
        if (answers.found)
            o[QStringLiteral("dumpscope_only")] = onlyOurs;
        out(o);
        return answers.errors.isEmpty() ? Ok : Failed;
    }
    if (compareResult)
        out(QStringLiteral("%1: %2, %3 entries, %4 with is_same false; the first of them:\n").arg(path, kind).arg(file->entries).arg(file->differing));
    else
        out(QStringLiteral("%1: %2's answer, the first differing op of %3 rank(s)\n").arg(path, kind).arg(file->diffs.size()));
    if (file->diffs.empty())
        out(QStringLiteral("  msprobe found no differing op\n"));
    for (const MsprobeFirstDiff &d : file->diffs) {
        out(QStringLiteral("  %1: %2\n").arg(d.rank, d.opName));
        if (!d.stack.isEmpty()) {
            QString where = d.stack.front().section(QLatin1Char('\n'), 0, 0).trimmed(); // "File f, line 70, in forward,"
            if (where.endsWith(QLatin1Char(',')))
                where.chop(1);
            out(QStringLiteral("      at %1\n").arg(where));
        }
        if (!answers.found)
            continue;
        if (!answers.ours.contains(d.rank)) {
            out(QStringLiteral("      DumpScope: no divergence in this rank (differs)\n"));
            continue;
        }
        const OwnFirstDiff &o = answers.ours[d.rank];
        out(QStringLiteral("      DumpScope: %1 in %2 (%3%4) (%5)\n")
                .arg(o.opName, o.scope, o.cause, o.parameter.isEmpty() ? QString() : QStringLiteral(" ") + o.parameter, verdict(d)));
    }
    for (auto it = answers.ours.begin(); it != answers.ours.end(); ++it)
        if (std::none_of(file->diffs.begin(), file->diffs.end(), [&](const MsprobeFirstDiff &d) { return d.rank == it.key(); }))
            out(QStringLiteral("  %1: msprobe names none; DumpScope: %2 in %3 (%4) (differs)\n").arg(it.key(), it->opName, it->scope, it->cause));
    out(QStringLiteral("dumps: %1\n").arg(answers.how));
    for (const QString &e : answers.errors)
        out(QStringLiteral("error: %1\n").arg(e));
    return answers.errors.isEmpty() ? Ok : Failed;
}

} // namespace ds
