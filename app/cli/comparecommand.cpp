#include "comparecommand.h"

#include "compare/comparereport.h"
#include "run/runcompare.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QSaveFile>

#include <cstdio>
#include <unistd.h>

namespace ds {

namespace {

enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3, Reached = 4 };

void out(const QString &text) { std::fputs(text.toUtf8().constData(), stdout); }
void err(const QString &text) { std::fprintf(stderr, "%s\n", text.toUtf8().constData()); }

bool progressShown(bool quiet) { return !quiet && isatty(fileno(stderr)); }

/// The one run under `path` (a folder holding several runs is refused: name one of them).
bool openRun(const QString &path, const char *what, bool quiet, RunTree &tree, const RunInfo *&run)
{
    JobControl job;
    if (progressShown(quiet))
        job.progress = [what](int permille) { std::fprintf(stderr, "\rwalking %s %5.1f%%", what, permille / 10.0); };
    auto found = discoverRuns(path, &job);
    if (progressShown(quiet))
        std::fprintf(stderr, "\r                            \r");
    if (!found) {
        err(QStringLiteral("%1 path: %2").arg(QLatin1String(what), found.errorText()));
        return false;
    }
    tree = std::move(*found);
    if (tree.runs.size() > 1) {
        QStringList names;
        for (const RunInfo &r : tree.runs)
            names << (r.relPath.isEmpty() ? QStringLiteral(".") : r.relPath);
        err(QStringLiteral("%1 path %2 holds %3 runs (%4); compare one run folder with another")
                .arg(QLatin1String(what), path).arg(tree.runs.size()).arg(names.join(QStringLiteral(", "))));
        return false;
    }
    static const RunInfo empty;
    run = tree.runs.empty() ? &empty : &tree.runs.front();
    return true;
}

/// True when `file` would be written below `dir` (the dump must stay untouched).
bool inside(const QString &file, const QString &dir)
{
    const QString f = QFileInfo(file).absoluteFilePath(), d = QDir(dir).absolutePath();
    return f.startsWith(d + QLatin1Char('/'));
}

QString cellText(const CompareRow &row)
{
    QStringList parts;
    for (Metric m : {Metric::Cosine, Metric::MaxAbsErr, Metric::MaxRelativeErr})
        if (row.mode == CompareMode::Tensor)
            parts << metricColumn(m) + QLatin1Char(' ') + formatMetric(row.metrics[size_t(m)]);
    if (!row.result.isEmpty())
        parts << row.result;
    return parts.join(QStringLiteral("  "));
}

QString levelsText(const DumpLevels &l)
{
    QStringList parts;
    const std::pair<const char *, QString> levels[] = {{"step", l.step}, {"rank", l.rank}, {"device", l.device}, {"iteration", l.dataIndex}};
    for (const auto &[name, value] : levels)
        if (!value.isEmpty())
            parts << QLatin1String(name) + QLatin1Char(' ') + value;
    return parts.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
}

} // namespace

ScopeText scopeText(const ScopeCompare &s, Verdict failOn)
{
    ScopeText t;
    const DumpIndex &npu = *s.npu;
    const CompareResult &r = s.result;
    t.rows = qint64(r.rows.size());
    t.benchOnly = qint64(r.benchOnly.size());
    for (Verdict v : {Verdict::None, Verdict::Pass, Verdict::Warning, Verdict::Error})
        t.counts[int(v)] = qint64(r.count(v));
    t.warnings = r.warnings;
    t.reached = failOn != Verdict::None && r.any(failOn);
    for (const Divergence &d : r.divergences) {
        const OpRecord &op = npu.ops[size_t(d.originOp)];
        t.divergences += QStringLiteral("\nfirst divergence%1: %2 [%3] (%4)\n  %5\n")
                             .arg(levelsText(d.levels), opMatchKey(op), op.opType,
                                  d.inputsAgree ? QStringLiteral("inputs agree, outputs differ") : QStringLiteral("inputs already differ"),
                                  r.rows[size_t(d.originRow)].npuName);
        if (!d.chain.empty()) {
            QStringList chain;
            for (int o : d.chain)
                chain << opMatchKey(npu.ops[size_t(o)]);
            t.divergences += QStringLiteral("  then %1 more: %2\n").arg(d.chain.size()).arg(chain.join(QStringLiteral(" -> ")));
        }
    }
    for (const CompareRow &row : r.rows) {
        if (row.verdict == Verdict::Pass)
            continue;
        QStringList why;
        for (ReasonCode c : row.reasons)
            why << reasonCodeName(c);
        t.notPass += QStringLiteral("  %1  %2  %3%4%5\n")
                         .arg(row.compared() ? verdictName(row.verdict) : QStringLiteral("-"), row.npuName, cellText(row),
                              why.isEmpty() ? QString() : QStringLiteral("  [") + why.join(QLatin1Char(',')) + QLatin1Char(']'),
                              row.highlights.isEmpty() ? QString() : QStringLiteral("  ") + row.highlights.join(QStringLiteral("; ")));
    }
    return t;
}

QJsonObject ScopeText::toJson() const
{
    QJsonArray c, w;
    for (qint64 n : counts)
        c.append(n);
    for (const QString &x : warnings)
        w.append(x);
    return QJsonObject{{QStringLiteral("rows"), rows}, {QStringLiteral("bench_only"), benchOnly}, {QStringLiteral("counts"), c},
                       {QStringLiteral("warnings"), w}, {QStringLiteral("divergences"), divergences},
                       {QStringLiteral("not_pass"), notPass}, {QStringLiteral("reached"), reached}};
}

ScopeText ScopeText::fromJson(const QJsonObject &o)
{
    ScopeText t;
    t.rows = o.value(QStringLiteral("rows")).toInteger();
    t.benchOnly = o.value(QStringLiteral("bench_only")).toInteger();
    const QJsonArray c = o.value(QStringLiteral("counts")).toArray();
    for (int i = 0; i < 4 && i < c.size(); ++i)
        t.counts[i] = c[i].toInteger();
    for (const QJsonValue &w : o.value(QStringLiteral("warnings")).toArray())
        t.warnings << w.toString();
    t.divergences = o.value(QStringLiteral("divergences")).toString();
    t.notPass = o.value(QStringLiteral("not_pass")).toString();
    t.reached = o.value(QStringLiteral("reached")).toBool();
    return t;
}

QString compareText(const QString &npuPath, const QString &benchPath, const std::vector<ScopeText> &scopes, CompareMode mode,
                    const RunAnswer &answer)
{
    QString t = answer.line() + QLatin1Char('\n');
    if (answer.first && !answer.first->at.scope.isEmpty()) {
        const auto &f = *answer.first;
        for (const RunAnswer::RankFinding &r : f.ranks) {
            if (!r.found) {
                t += QStringLiteral("  %1: no divergence\n").arg(r.scope);
                continue;
            }
            const bool first = r.scope == f.at.scope;
            t += QStringLiteral("  %1: %2, %3%4\n")
                     .arg(r.scope, r.finding.op, r.clock.describe(),
                          !first ? QString() : f.tiedRanks.size() > 1 ? QStringLiteral("  <- first (tie on the clock: lowest rank)")
                                                                       : QStringLiteral("  <- first"));
        }
        if (!f.clockConsistent)
            t += QStringLiteral("  note: the ranks' communication ops do not line up; each rank's ops are counted on their own\n");
    }
    qint64 rows = 0, benchOnly = 0, counts[4] = {};
    QStringList warnings;
    for (const ScopeText &s : scopes) {
        rows += s.rows;
        benchOnly += s.benchOnly;
        for (int v = 0; v < 4; ++v)
            counts[v] += s.counts[v];
        for (const QString &w : s.warnings)
            if (!warnings.contains(w))
                warnings << w;
    }
    t += QStringLiteral("\nnpu:    %1\nbench:  %2\nmode:   %3\nrows:   %4 (pass %5, warning %6, error %7, not compared %8); "
                        "bench only %9\n")
             .arg(npuPath, benchPath, compareModeName(mode))
             .arg(rows).arg(counts[int(Verdict::Pass)]).arg(counts[int(Verdict::Warning)]).arg(counts[int(Verdict::Error)])
             .arg(counts[int(Verdict::None)]).arg(benchOnly);
    for (const QString &w : std::as_const(warnings))
        t += QStringLiteral("warning: %1\n").arg(w);
    bool anyDivergence = false;
    for (const ScopeText &s : scopes) {
        anyDivergence = anyDivergence || !s.divergences.isEmpty();
        t += s.divergences;
    }
    if (!anyDivergence)
        t += QStringLiteral("\nno divergence\n");
    bool header = false;
    for (const ScopeText &s : scopes) {
        if (s.notPass.isEmpty())
            continue;
        if (!header)
            t += QStringLiteral("\nrows that are not a pass:\n");
        header = true;
        t += s.notPass;
    }
    return t;
}

int compareSetup(const CompareCommand &c, CompareOptions &options, Verdict &failOn)
{
    options.fuzzy = c.fuzzy;
    failOn = Verdict::None;
    if (!c.failOn.isEmpty() && (!parseVerdict(c.failOn, failOn) || failOn < Verdict::Warning)) {
        err(QStringLiteral("--fail-on must be error or warning"));
        return Usage;
    }
    if (!c.mode.isEmpty()) {
        const QStringList modes{QStringLiteral("tensor"), QStringLiteral("summary"), QStringLiteral("md5")};
        if (!modes.contains(c.mode)) {
            err(QStringLiteral("--mode must be tensor, summary or md5"));
            return Usage;
        }
        options.mode = c.mode == modes[0] ? CompareMode::Tensor : c.mode == modes[1] ? CompareMode::Summary : CompareMode::Md5;
    }
    if (!c.mappingFile.isEmpty()) {
        auto m = UserMapping::load(c.mappingFile);
        if (!m) {
            err(m.errorText());
            return Usage;
        }
        options.mapping = std::move(*m);
    }
    if (!c.thresholdsFile.isEmpty()) {
        auto t = CompareThresholds::load(c.thresholdsFile);
        if (!t) {
            err(t.errorText());
            return Usage;
        }
        options.thresholds = *t;
    }
    return Ok;
}

bool csvInsideDump(const QString &csvFile, const QString &dumpRoot)
{
    return !csvFile.isEmpty() && inside(csvFile, dumpRoot);
}

int runCompareCommand(const CompareCommand &c)
{
    CompareOptions options;
    Verdict failOn = Verdict::None;
    if (const int setup = compareSetup(c, options, failOn); setup != Ok)
        return setup;
    for (const QString &p : {c.npuPath, c.benchPath})
        if (!QFileInfo::exists(p)) {
            err(QStringLiteral("no such file or directory: %1").arg(p));
            return NoPath;
        }
    const bool quiet = c.quiet || c.json;
    RunTree npuTree, benchTree;
    const RunInfo *npuRun = nullptr, *benchRun = nullptr;
    if (!openRun(c.npuPath, "NPU", quiet, npuTree, npuRun))
        return npuTree.walk.openedPath.isEmpty() ? NoPath : Usage;
    if (!openRun(c.benchPath, "bench", quiet, benchTree, benchRun))
        return benchTree.walk.openedPath.isEmpty() ? NoPath : Usage;
    for (const QString &root : {npuTree.walk.rootDir, benchTree.walk.rootDir})
        if (csvInsideDump(c.csvFile, root)) {
            err(QStringLiteral("--csv %1 lies inside a dump directory; DumpScope never writes there").arg(c.csvFile));
            return Usage;
        }
    JobControl job;
    if (progressShown(quiet))
        job.progress = [](int permille) { std::fprintf(stderr, "\rcomparing %5.1f%%", permille / 10.0); };
    // Scope by scope (core/run): each step/rank of the NPU run with the same of the bench run.
    std::vector<ScopeCompare> scopes = compareRuns(npuTree, *npuRun, benchTree, *benchRun, options, &job);
    if (progressShown(quiet))
        std::fprintf(stderr, "\r                  \r");
    std::vector<ScopeSummary> summaries;
    for (const ScopeCompare &s : scopes)
        summaries.push_back(s.summary);
    const CompareMode mode = runReportMode(scopes, options);
    std::vector<ScopeReport> reports;
    std::vector<ScopeText> texts;
    for (ScopeCompare &s : scopes) {
        reports.push_back(scopeReport(s, mode, !c.csvFile.isEmpty(), c.json));
        if (!c.json)
            texts.push_back(scopeText(s, failOn));
    }
    return writeCompareReports(c, npuTree.walk.openedPath, benchTree.walk.openedPath, mode, std::move(summaries), reports, texts,
                               failOn != Verdict::None && std::any_of(scopes.begin(), scopes.end(), [&](const ScopeCompare &s) {
                                   return s.result.any(failOn);
                               }));
}

int writeCompareReports(const CompareCommand &c, const QString &npuPath, const QString &benchPath, CompareMode mode,
                        std::vector<ScopeSummary> summaries, const std::vector<ScopeReport> &reports,
                        const std::vector<ScopeText> &texts, bool reached)
{
    const RunAnswer answer = combineRun(summaries, RunAnswerKind::Compare);
    if (!c.csvFile.isEmpty()) {
        QSaveFile f(c.csvFile);
        if (!f.open(QIODevice::WriteOnly) || f.write(runCompareCsv(reports, mode)) < 0 || !f.commit()) {
            err(QStringLiteral("cannot write %1: %2").arg(c.csvFile, f.errorString()));
            return Failed;
        }
    }
    if (c.json) {
        const QByteArray j = runCompareJson(reports, mode, answer.toJson(summaries));
        std::fwrite(j.constData(), 1, size_t(j.size()), stdout);
    } else {
        out(compareText(npuPath, benchPath, texts, mode, answer));
    }
    return reached ? Reached : Ok;
}

} // namespace ds
