#include "comparecommand.h"

#include "compare/comparereport.h"
#include "compare/comparexlsx.h"
#include "index/buildindex.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include <cstdio>
#include <unistd.h>

namespace ds {

namespace {

enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3, Reached = 4 };

void out(const QString &text) { std::fputs(text.toUtf8().constData(), stdout); }
void err(const QString &text) { std::fprintf(stderr, "%s\n", text.toUtf8().constData()); }

bool progressShown(bool quiet) { return !quiet && isatty(fileno(stderr)); }

std::shared_ptr<DumpIndex> open(const QString &path, const char *what, bool quiet)
{
    JobControl job;
    if (progressShown(quiet))
        job.progress = [what](int permille) { std::fprintf(stderr, "\rindexing %s %5.1f%%", what, permille / 10.0); };
    auto index = buildIndex(path, &job);
    if (progressShown(quiet))
        std::fprintf(stderr, "\r                            \r");
    if (!index) {
        err(QStringLiteral("%1 path: %2").arg(QLatin1String(what), index.errorText()));
        return nullptr;
    }
    return *index;
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
        parts << QStringLiteral("Result ") + row.result;
    return parts.join(QStringLiteral("  "));
}

QString scopeText(const DumpLevels &l)
{
    QStringList parts;
    const std::pair<const char *, QString> levels[] = {{"step", l.step}, {"rank", l.rank}, {"device", l.device}, {"iteration", l.dataIndex}};
    for (const auto &[name, value] : levels)
        if (!value.isEmpty())
            parts << QLatin1String(name) + QLatin1Char(' ') + value;
    return parts.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
}

QString text(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &r)
{
    QString t = QStringLiteral("npu:    %1\nbench:  %2\nmode:   %3\nrows:   %4 (pass %5, warning %6, error %7, not compared %8); "
                               "bench only %9\n")
                    .arg(npu.openedPath, bench.openedPath, compareModeName(r.mode))
                    .arg(r.rows.size()).arg(r.count(Verdict::Pass)).arg(r.count(Verdict::Warning)).arg(r.count(Verdict::Error))
                    .arg(r.count(Verdict::None)).arg(r.benchOnly.size());
    for (const QString &w : r.warnings)
        t += QStringLiteral("warning: %1\n").arg(w);
    if (r.divergences.empty())
        t += QStringLiteral("\nno divergence\n");
    for (const Divergence &d : r.divergences) {
        const OpRecord &op = npu.ops[size_t(d.originOp)];
        QString why;
        switch (d.cause) {
        case DivergenceCause::Output: why = QStringLiteral("inputs agree, outputs differ"); break;
        case DivergenceCause::Input: why = QStringLiteral("an input already differs"); break;
        case DivergenceCause::Parameter:
            why = QStringLiteral("parameter %1 differs at its first use%2")
                      .arg(d.parameter.isEmpty() ? QStringLiteral("(unnamed)") : d.parameter,
                           d.parameterFromStack ? QStringLiteral(" (name from the call stack)") : QString());
            break;
        }
        t += QStringLiteral("\nfirst divergence%1: %2 [%3] (%4)\n  %5\n")
                 .arg(scopeText(d.levels), opMatchKey(op), op.opType, why, r.rows[size_t(d.originRow)].npuName);
        if (!d.modules.empty()) {
            QStringList modules;
            for (int m : d.modules)
                modules << opMatchKey(npu.ops[size_t(m)]);
            t += QStringLiteral("  in %1\n").arg(modules.join(QStringLiteral(" < ")));
        }
        if (d.cause == DivergenceCause::Parameter && d.parameterModule >= 0 && d.parameterModule != d.originOp
            && std::find(d.modules.begin(), d.modules.end(), d.parameterModule) == d.modules.end())
            t += QStringLiteral("  parameter row of %1\n").arg(opMatchKey(npu.ops[size_t(d.parameterModule)]));
        if (!d.chain.empty()) {
            QStringList chain;
            for (int o : d.chain)
                chain << opMatchKey(npu.ops[size_t(o)]);
            t += QStringLiteral("  then %1 more: %2\n").arg(d.chain.size()).arg(chain.join(QStringLiteral(" -> ")));
        }
    }
    bool header = false;
    for (const CompareRow &row : r.rows) {
        if (row.verdict == Verdict::Pass)
            continue;
        if (!header)
            t += QStringLiteral("\nrows that are not a pass:\n");
        header = true;
        QStringList why;
        for (ReasonCode c : row.reasons)
            why << reasonCodeName(c);
        t += QStringLiteral("  %1  %2  %3%4%5\n")
                 .arg(row.compared() ? verdictName(row.verdict) : QStringLiteral("-"), row.npuName, cellText(row),
                      why.isEmpty() ? QString() : QStringLiteral("  [") + why.join(QLatin1Char(',')) + QLatin1Char(']'),
                      row.highlights.isEmpty() ? QString() : QStringLiteral("  ") + row.highlights.join(QStringLiteral("; ")));
    }
    return t;
}

} // namespace

int runCompareCommand(const CompareCommand &c)
{
    CompareOptions options;
    options.fuzzy = c.fuzzy;
    Verdict failOn = Verdict::None;
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
    ReportStyle style = ReportStyle::DumpScope;
    if (c.style == QLatin1String("msprobe"))
        style = ReportStyle::Msprobe;
    else if (!c.style.isEmpty() && c.style != QLatin1String("dumpscope")) {
        err(QStringLiteral("--style must be dumpscope or msprobe"));
        return Usage;
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
    for (const QString &p : {c.npuPath, c.benchPath})
        if (!QFileInfo::exists(p)) {
            err(QStringLiteral("no such file or directory: %1").arg(p));
            return NoPath;
        }
    const bool quiet = c.quiet || c.json;
    auto npu = open(c.npuPath, "NPU", quiet);
    auto bench = npu ? open(c.benchPath, "bench", quiet) : nullptr;
    if (!npu || !bench)
        return NoPath;
    for (const auto &[option, file] : {std::pair{"--csv", c.csvFile}, std::pair{"--xlsx", c.xlsxFile}})
        if (!file.isEmpty() && (inside(file, npu->rootDir) || inside(file, bench->rootDir))) {
            err(QStringLiteral("%1 %2 lies inside a dump directory; DumpScope never writes there").arg(QLatin1String(option), file));
            return Usage;
        }
    JobControl job;
    if (progressShown(quiet))
        job.progress = [](int permille) { std::fprintf(stderr, "\rcomparing %5.1f%%", permille / 10.0); };
    const CompareResult result = compareIndexes(*npu, *bench, options, &job);
    if (progressShown(quiet))
        std::fprintf(stderr, "\r                  \r");
    if (!c.csvFile.isEmpty()) {
        QSaveFile f(c.csvFile);
        if (!f.open(QIODevice::WriteOnly) || f.write(compareCsv(*npu, *bench, result, style)) < 0 || !f.commit()) {
            err(QStringLiteral("cannot write %1: %2").arg(c.csvFile, f.errorString()));
            return Failed;
        }
    }
    if (!c.xlsxFile.isEmpty()) {
        const QString error = writeCompareXlsx(c.xlsxFile, *npu, *bench, result, style);
        if (!error.isEmpty()) {
            err(error);
            return Failed;
        }
    }
    if (c.json) {
        const QByteArray j = compareJson(*npu, *bench, result);
        std::fwrite(j.constData(), 1, size_t(j.size()), stdout);
    } else {
        out(text(*npu, *bench, result));
    }
    return failOn != Verdict::None && result.any(failOn) ? Reached : Ok;
}

} // namespace ds
