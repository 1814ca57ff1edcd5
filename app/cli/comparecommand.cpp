#include "comparecommand.h"

#include "compare/crossframework.h"
#include "compare/mappingexport.h"

#include "compare/comparereport.h"
#include "compare/comparexlsx.h"
#include "compare/resulttable.h"
#include "compare/resulttablepaged.h"
#include "compare/tabledumps.h"
#include "index/buildindex.h"
#include "run/runcompare.h"
#include "dump/dumpindex.h"
#include "util/keepfreed.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include <cmath>
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

/// A relative error as the text shows it: 4 significant digits, "inf".
QString relText(double v)
{
    return std::isinf(v) ? QStringLiteral("inf") : QString::number(v, 'g', 4);
}

/// "ops adding the most error" of every scope of a result (addederror.h), after its divergences.
QString addedErrorText(const DumpIndex &npu, const CompareResult &r)
{
    QString t;
    QStringList scopes;
    for (const AddedError &e : r.addedErrors)
        if (const QString scope = scopeKey(*npu.ops[size_t(e.op)].levels); !scopes.contains(scope))
            scopes << scope;
    for (const QString &scope : scopes) {
        const std::vector<size_t> ranked = addedErrorRanking(npu, r, scope, kAddedErrorShown);
        if (ranked.empty())
            continue;
        const OpRecord &first = npu.ops[size_t(r.addedErrors[ranked.front()].op)];
        t += QStringLiteral("\nops adding the most error%1 (output rel. err - max input rel. err):\n").arg(scopeText(*first.levels));
        for (size_t k : ranked) {
            const AddedError &e = r.addedErrors[k];
            const OpRecord &op = npu.ops[size_t(e.op)];
            QString inputs;
            switch (e.inputs) {
            case AddedInputs::None: inputs = QStringLiteral("no inputs"); break;
            case AddedInputs::Agree: inputs = QStringLiteral("inputs agree"); break;
            case AddedInputs::ParameterDiffers: inputs = QStringLiteral("parameter differs"); break;
            case AddedInputs::Differ: inputs = QStringLiteral("inputs differ"); break;
            }
            t += QStringLiteral("  +%1  %2 [%3] (out %4, in %5; %6%7)\n")
                     .arg(relText(e.added), opMatchKey(op), op.opType, relText(e.outputRelErr), relText(e.inputRelErr), inputs,
                          e.basis == CompareMode::Summary ? QStringLiteral("; from norms") : QString());
        }
    }
    return t;
}

} // namespace

/// One scope's rows of the msprobe table in `mode`'s columns: CSV lines and/or typed cells.
void renderScopeTable(ScopeCompare &s, CompareMode mode, ReportStyle style, bool csv, bool xlsx, ScopeOutput &o)
{
    o.tableMode = mode;
    o.stack = reportHasStack(*s.npu);
    if (csv)
        o.csv = scopeCompareCsv(s, mode, false, style);
    o.cells.clear();
    if (xlsx) {
        s.result.mode = mode;
        forEachReportRow(*s.npu, *s.bench, s.result, style, [&](const std::vector<MsCell> &row) { o.cells.push_back(row); });
    }
}

/// The text parts of one scope: its first divergences, and its rows that are not a pass.
void renderScopeText(const ScopeCompare &s, ScopeOutput &o)
{
    const DumpIndex &npu = *s.npu;
    const CompareResult &r = s.result;
    // files of the pair that could not be read: their operators are missing from the rows below
    for (const auto &[side, index] : {std::pair{QStringLiteral("npu"), s.npu.get()}, std::pair{QStringLiteral("bench"), s.bench.get()}}) {
        if (index->errors.empty())
            continue;
        o.divergences += QStringLiteral("\n%1 file(s) of the %2 side could not be read (their operators are not compared):\n")
                             .arg(index->errors.size())
                             .arg(side);
        for (const auto &e : index->errors)
            o.divergences += QStringLiteral("  %1: %2\n").arg(e.file, e.message);
    }
    // rule 4's structure regions: where the op streams differ, and whether that matters
    if (!r.structure.empty())
        o.divergences += QStringLiteral("\nstructure%1: the op streams do not line up by name; aligned by structure\n").arg(npu.ops.empty() ? QString() : scopeText(*npu.ops.front().levels));
    for (const StructureFinding &f : r.structure)
        o.divergences += QStringLiteral("  %1: %2\n")
                             .arg(f.text(), f.outcome == StructureFinding::Outcome::Equal     ? QStringLiteral("numerically equal")
                                            : f.outcome == StructureFinding::Outcome::Differs ? QStringLiteral("results differ")
                                                                                              : QStringLiteral("not compared"));
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
        o.divergences += QStringLiteral("\nfirst divergence%1: %2 [%3] (%4)\n  %5\n")
                             .arg(scopeText(d.levels), opMatchKey(op), op.opType, why, r.rows[size_t(d.originRow)].npuName);
        if (!d.modules.empty()) {
            QStringList modules;
            for (int m : d.modules)
                modules << opMatchKey(npu.ops[size_t(m)]);
            o.divergences += QStringLiteral("  in %1\n").arg(modules.join(QStringLiteral(" < ")));
        }
        if (d.cause == DivergenceCause::Parameter && d.parameterModule >= 0 && d.parameterModule != d.originOp
            && std::find(d.modules.begin(), d.modules.end(), d.parameterModule) == d.modules.end())
            o.divergences += QStringLiteral("  parameter row of %1\n").arg(opMatchKey(npu.ops[size_t(d.parameterModule)]));
        if (!d.chain.empty()) {
            // one operator per line, the first kChainShown of them (--json lists the whole chain)
            o.divergences += QStringLiteral("  then %1 more:\n").arg(d.chain.size());
            const size_t shown = d.chain.size() <= kChainShown + 1 ? d.chain.size() : kChainShown;
            for (size_t k = 0; k < shown; ++k)
                o.divergences += QStringLiteral("    %1\n").arg(opMatchKey(npu.ops[size_t(d.chain[k])]));
            if (shown < d.chain.size())
                o.divergences += QStringLiteral("    ... and %1 more (--json lists every one)\n").arg(d.chain.size() - shown);
        }
    }
    o.divergences += addedErrorText(npu, r);
    for (const CompareRow &row : r.rows) {
        if (row.verdict == Verdict::Pass)
            continue;
        QStringList why;
        for (ReasonCode c : row.reasons)
            why << reasonCodeName(c);
        o.notPass += QStringLiteral("  %1  %2  %3%4%5\n")
                         .arg(row.compared() ? verdictName(row.verdict) : QStringLiteral("-"), row.npuName, cellText(row),
                              why.isEmpty() ? QString() : QStringLiteral("  [") + why.join(QLatin1Char(',')) + QLatin1Char(']'),
                              row.highlights.isEmpty() ? QString() : QStringLiteral("  ") + row.highlights.join(QStringLiteral("; ")));
    }
}

namespace {

/// compareText piece by piece (`sink` gets them in order), the scopes' parts read back from
/// `reports` where they were spilled; false when the spool cannot be read.
bool emitCompareText(const QString &npuPath, const QString &benchPath, const std::vector<ScopeOutput> &scopes, CompareMode mode,
                     const RunAnswer &answer, const ReportSpool *reports, const std::function<void(const QByteArray &)> &sink)
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
    qint64 rows = 0, benchOnly = 0, pass = 0, warning = 0, error = 0, none = 0;
    QStringList warnings;
    for (const ScopeOutput &s : scopes) {
        rows += s.summary.rows;
        benchOnly += s.summary.benchOnly;
        pass += s.summary.pass;
        warning += s.summary.warning;
        error += s.summary.error;
        none += s.summary.notCompared;
        for (const QString &w : s.warnings)
            if (!warnings.contains(w))
                warnings << w;
    }
    t += QStringLiteral("\nnpu:    %1\nbench:  %2\nmode:   %3\nrows:   %4 (pass %5, warning %6, error %7, not compared %8); "
                        "bench only %9\n")
             .arg(npuPath, benchPath, compareModeName(mode))
             .arg(rows).arg(pass).arg(warning).arg(error).arg(none).arg(benchOnly);
    if (std::any_of(scopes.begin(), scopes.end(), [](const ScopeOutput &s) { return s.crossFramework; }))
        t += QStringLiteral("matching: MindSpore or MindTorch NPU names paired with PyTorch bench names through msprobe's "
                            "built-in table (ms_to_pt_api.yaml, %1 APIs) and its Mint/MintFunctional rules, "
                            "as msprobe compare -am does\n")
                 .arg(msToPtTableSize());
    for (const QString &w : std::as_const(warnings))
        t += QStringLiteral("warning: %1\n").arg(w);
    // every scope's divergences, then every scope's rows that are not a pass (spilled or not)
    bool ok = true;
    auto part = [&](const ScopeOutput &s, bool divergences) {
        if (s.textAt < 0) {
            sink((divergences ? s.divergences : s.notPass).toUtf8());
            return;
        }
        const qint64 at = s.textAt + (divergences ? 0 : s.divergenceBytes);
        ok = reports->read(at, divergences ? s.divergenceBytes : s.notPassBytes, sink) && ok;
    };
    auto any = [&](bool divergences) {
        return std::any_of(scopes.begin(), scopes.end(), [divergences](const ScopeOutput &s) {
            return s.textAt < 0 ? !(divergences ? s.divergences : s.notPass).isEmpty()
                                 : (divergences ? s.divergenceBytes : s.notPassBytes) > 0;
        });
    };
    if (any(true)) {
        sink(t.toUtf8());
        t.clear();
        for (const ScopeOutput &s : scopes)
            part(s, true);
    } else if (none == 0) {
        t += QStringLiteral("\nno divergence\n");
    } else if (none == rows) { // what was not compared cannot agree
        t += QStringLiteral("\nnothing was compared (%1 rows not compared)\n").arg(rows);
    } else {
        t += QStringLiteral("\nno divergence in the %1 compared rows (%2 of %3 rows not compared)\n").arg(rows - none).arg(none).arg(rows);
    }
    if (any(false)) {
        sink((t + QStringLiteral("\nrows that are not a pass:\n")).toUtf8());
        t.clear();
        for (const ScopeOutput &s : scopes)
            part(s, false);
    }
    if (!t.isEmpty())
        sink(t.toUtf8());
    return ok;
}

} // namespace

QString compareText(const QString &npuPath, const QString &benchPath, const std::vector<ScopeOutput> &scopes, CompareMode mode,
                    const RunAnswer &answer)
{
    QByteArray text;
    emitCompareText(npuPath, benchPath, scopes, mode, answer, nullptr, [&](const QByteArray &b) { text += b; });
    return QString::fromUtf8(text);
}

ReportSpool::ReportSpool() = default;
ReportSpool::~ReportSpool() = default;

qint64 ReportSpool::append(std::initializer_list<QByteArrayView> parts)
{
    if (!m_file) {
        m_file = std::make_unique<QTemporaryFile>();
        if (!m_file->open()) {
            m_file.reset();
            return -1;
        }
    }
    if (!m_file->seek(m_end))
        return -1;
    const qint64 at = m_end;
    for (const QByteArrayView &p : parts) {
        if (m_file->write(p.data(), p.size()) != p.size())
            return -1;
        m_end += p.size();
    }
    return at;
}

void ReportSpool::spill(ScopeOutput &o)
{
    const std::lock_guard lock(m_mutex);
    if (o.csvAt < 0 && !o.csv.isEmpty()) {
        if (const qint64 at = append({o.csv}); at >= 0) {
            o.csvAt = at;
            o.csvBytes = o.csv.size();
            o.csv = QByteArray();
        }
    }
    if (o.textAt < 0) {
        const QByteArray divergences = o.divergences.toUtf8(), notPass = o.notPass.toUtf8();
        if (const qint64 at = append({divergences, notPass}); at >= 0) {
            o.textAt = at;
            o.divergenceBytes = divergences.size();
            o.notPassBytes = notPass.size();
            o.divergences.clear();
            o.notPass.clear();
        }
    }
}

bool ReportSpool::read(qint64 at, qint64 bytes, const std::function<void(const QByteArray &)> &sink) const
{
    if (bytes <= 0)
        return true;
    const std::lock_guard lock(m_mutex);
    if (!m_file || !m_file->flush() || !m_file->seek(at))
        return false;
    while (bytes > 0) {
        const QByteArray chunk = m_file->read(std::min<qint64>(bytes, qint64(1) << 20));
        if (chunk.isEmpty())
            return false;
        sink(chunk);
        bytes -= chunk.size();
    }
    return true;
}



int compareSetup(const CompareCommand &c, CompareOptions &options, Verdict &failOn, ReportStyle &style)
{
    options.fuzzy = c.fuzzy;
    options.align = !c.noAlign;
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
    style = ReportStyle::DumpScope;
    if (c.style == QLatin1String("msprobe")) {
        style = ReportStyle::Msprobe;
        options.align = false; // msprobe's rows: its pairing by names (docs/COMPARE.md)
    }
    else if (!c.style.isEmpty() && c.style != QLatin1String("dumpscope")) {
        err(QStringLiteral("--style must be dumpscope or msprobe"));
        return Usage;
    }
    if (!c.mappingFile.isEmpty()) {
        MappingKind kind = MappingKind::Auto;
        if (!c.mappingKind.isEmpty() && !parseMappingKind(c.mappingKind, kind)) {
            err(QStringLiteral("--mapping-kind must be auto, flat, api, cell, data or layer"));
            return Usage;
        }
        auto m = UserMapping::load(c.mappingFile, kind);
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
    // The text report shows msprobe's Result only beside the rows that are not a pass.
    if (!c.json && c.csvFile.isEmpty() && c.xlsxFile.isEmpty())
        options.msprobeResults = CompareOptions::MsprobeResults::NotPassOps;
    return Ok;
}

QString reportInsideDump(const CompareCommand &c, const QString &dumpRoot)
{
    for (const auto &[option, file] : {std::pair{"--csv", c.csvFile}, std::pair{"--xlsx", c.xlsxFile}})
        if (!file.isEmpty() && inside(file, dumpRoot))
            return QStringLiteral("%1 %2 lies inside a dump directory; DumpScope never writes there").arg(QLatin1String(option), file);
    return {};
}

Result<MappingTarget> mappingTargetOf(const QString &path, const std::vector<ScopePair> &pairs, const QStringList &dumpRoots)
{
    using R = Result<MappingTarget>;
    const QFileInfo info(path);
    const bool folder = info.isDir() || path.endsWith(QLatin1Char('/'));
    const QString where = folder ? QDir(path).absolutePath() : info.absoluteFilePath();
    for (const QString &root : dumpRoots)
        if (!root.isEmpty() && (inside(where, root) || where == QDir(root).absolutePath()))
            return R::failure(QStringLiteral("--write-mapping %1 lies inside a dump directory; DumpScope never writes there").arg(path));
    MappingTarget t;
    if (!folder) {
        if (pairs.size() > 1) {
            QStringList ids;
            for (const ScopePair &p : pairs)
                ids << p.id;
            return R::failure(QStringLiteral("--write-mapping %1: the compare covers %2 scopes (%3) and a data_mapping file holds "
                                             "one (msprobe applies it to each rank alike); give a folder outside the dumps "
                                             "(ending in /) for one file per scope")
                                  .arg(path).arg(pairs.size()).arg(ids.join(QStringLiteral(", "))));
        }
        t.files = QStringList(qsizetype(pairs.size()), where);
        return t;
    }
    t.folder = where;
    for (const ScopePair &p : pairs) {
        QString id = p.id;
        id.replace(QLatin1Char('/'), QLatin1Char('_'));
        t.files.push_back(QDir(where).filePath(QStringLiteral("data_mapping%1.yaml").arg(id.isEmpty() ? QString() : QLatin1Char('_') + id)));
    }
    return t;
}

int runCompareCommand(const CompareCommand &c)
{
    keepFreedMemory(); // scope after scope: each scope's indexes and rows reuse the last one's pages
    CompareOptions options;
    Verdict failOn = Verdict::None;
    ReportStyle style = ReportStyle::DumpScope;
    if (const int setup = compareSetup(c, options, failOn, style); setup != Ok)
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
    for (const QString &dumpRoot : {npuTree.walk.rootDir, benchTree.walk.rootDir})
        if (const QString inDump = reportInsideDump(c, dumpRoot); !inDump.isEmpty()) {
            err(inDump);
            return Usage;
        }
    const std::vector<ScopePair> pairs = pairScopes(*npuRun, *benchRun);
    MappingTarget mappingTarget;
    if (!c.writeMapping.isEmpty()) {
        const auto target = mappingTargetOf(c.writeMapping, pairs, {npuTree.walk.rootDir, benchTree.walk.rootDir});
        if (!target) {
            err(target.errorText());
            return Usage;
        }
        mappingTarget = *target;
    }
    JobControl job;
    if (progressShown(quiet))
        job.progress = [](int permille) { std::fprintf(stderr, "\rcomparing %5.1f%%", permille / 10.0); };
    // Scope by scope (core/run): each step/rank of the NPU run with the same of the bench run.
    // What the reports need of a scope is kept as soon as it is compared; its indexes go.
    std::vector<ScopeOutput> outputs(pairs.size());
    std::vector<QByteArray> mappings(mappingTarget.files.size());
    CompareJsonSpool spool; // --json: the scopes' rows wait in a temporary file, not in memory
    ReportSpool reports;
    compareRuns(npuTree, *npuRun, benchTree, *benchRun, options, &job, [&](size_t i, const ScopePair &, ScopeCompare &s) {
        ScopeOutput &o = outputs[i];
        o.summary = s.summary;
        o.mode = scopeReportMode(s.result, options);
        o.npuOps = int(s.npu->ops.size());
        o.warnings = s.result.warnings;
        o.crossFramework = s.result.crossFramework;
        if (i < mappings.size())
            mappings[i] = dataMappingYaml(*s.bench, s.result,
                                          QStringLiteral("NPU %1, bench %2, scope %3")
                                              .arg(c.npuPath, c.benchPath,
                                                   pairs[i].id.isEmpty() ? QStringLiteral("(the only one)") : pairs[i].id));
        o.reached = failOn != Verdict::None && s.result.any(failOn);
        if (!c.csvFile.isEmpty() || !c.xlsxFile.isEmpty())
            renderScopeTable(s, o.mode == CompareMode::None ? CompareMode::Tensor : o.mode, style, !c.csvFile.isEmpty(),
                             !c.xlsxFile.isEmpty(), o);
        if (c.json)
            spool.add(i, compareJson(*s.npu, *s.bench, s.result), int(s.npu->ops.size()));
        else
            renderScopeText(s, o);
        reports.spill(o); // the scope's CSV and text wait in a temporary file, not in memory
    });
    if (progressShown(quiet))
        std::fprintf(stderr, "\r                  \r");
    std::vector<CompareMode> modes;
    for (const ScopeOutput &o : outputs)
        modes.push_back(o.mode);
    const CompareMode mode = bestReportMode(modes);
    if (!c.csvFile.isEmpty() || !c.xlsxFile.isEmpty())
        for (size_t i = 0; i < outputs.size(); ++i)
            if (outputs[i].tableMode != mode && outputs[i].summary.rows > 0) {
                // Rendered in other columns than the run's: compare it again (deterministic).
                ScopeCompare again = compareScope(npuTree, benchTree, pairs[i], options);
                outputs[i].csvAt = -1; // rendered anew in memory
                renderScopeTable(again, mode, style, !c.csvFile.isEmpty(), !c.xlsxFile.isEmpty(), outputs[i]);
                reports.spill(outputs[i]);
            }
    for (size_t i = 0; i < mappings.size(); ++i) {
        if (!mappingTarget.folder.isEmpty() && !QDir().mkpath(mappingTarget.folder)) {
            err(QStringLiteral("cannot create the folder %1 for --write-mapping").arg(mappingTarget.folder));
            return Failed;
        }
        QSaveFile f(mappingTarget.files[i]);
        if (!f.open(QIODevice::WriteOnly) || f.write(mappings[i]) < 0 || !f.commit()) {
            err(QStringLiteral("cannot write %1: %2").arg(mappingTarget.files[i], f.errorString()));
            return Failed;
        }
    }
    return writeCompareReports(c, npuTree.walk.openedPath, benchTree.walk.openedPath, mode, style, outputs,
                               c.json ? &spool : nullptr, &reports);
}

int writeCompareReports(const CompareCommand &c, const QString &npuPath, const QString &benchPath, CompareMode mode,
                        ReportStyle style, const std::vector<ScopeOutput> &outputs, CompareJsonSpool *spool,
                        const ReportSpool *reports)
{
    std::vector<ScopeSummary> summaries;
    for (const ScopeOutput &o : outputs)
        summaries.push_back(o.summary);
    const RunAnswer answer = combineRun(summaries, RunAnswerKind::Compare);
    if (!c.csvFile.isEmpty() || !c.xlsxFile.isEmpty()) {
        bool stack = false;
        for (const ScopeOutput &o : outputs)
            stack = stack || (o.stack && o.summary.rows > 0);
        const QStringList header = compareCsvHeader(mode, style, stack);
        if (!c.csvFile.isEmpty()) { // written scope by scope (from the spool where spilled)
            QSaveFile f(c.csvFile);
            bool ok = f.open(QIODevice::WriteOnly) && f.write(csvLine(header)) >= 0;
            for (size_t i = 0; i < outputs.size() && ok; ++i) {
                const ScopeOutput &o = outputs[i];
                if (o.csvAt < 0)
                    ok = f.write(o.csv) >= 0;
                else
                    ok = reports && reports->read(o.csvAt, o.csvBytes, [&](const QByteArray &b) { ok = ok && f.write(b) >= 0; }) && ok;
            }
            if (!ok || !f.commit()) {
                err(QStringLiteral("cannot write %1: %2").arg(c.csvFile, f.errorString()));
                return Failed;
            }
        }
        if (!c.xlsxFile.isEmpty()) {
            size_t rows = 0;
            for (const ScopeOutput &o : outputs)
                rows += o.cells.size();
            const QString error = writeCompareXlsx(c.xlsxFile, header, rows, [&](const ReportRowSink &sink) {
                for (const ScopeOutput &o : outputs)
                    for (const std::vector<MsCell> &row : o.cells)
                        sink(row);
            });
            if (!error.isEmpty()) {
                err(error);
                return Failed;
            }
        }
    }
    const JsonWrite toStdout = [](const char *data, size_t size) { std::fwrite(data, 1, size, stdout); };
    if (c.json && spool) {
        if (!spool->write(mode, answer.toJson(summaries), npuPath, benchPath, toStdout)) {
            err(QStringLiteral("cannot write the JSON report: %1").arg(spool->errorText()));
            return Failed;
        }
    } else if (c.json) {
        std::vector<QByteArray> docs;
        std::vector<int> ops;
        for (const ScopeOutput &o : outputs) {
            docs.push_back(o.json);
            ops.push_back(o.npuOps);
        }
        // written piece by piece: the report of a large run is several GB
        writeMergedCompareJson(docs, ops, mode, answer.toJson(summaries), npuPath, benchPath, toStdout);
    } else if (!emitCompareText(npuPath, benchPath, outputs, mode, answer, reports,
                                [](const QByteArray &b) { std::fwrite(b.constData(), 1, size_t(b.size()), stdout); })) {
        err(QStringLiteral("cannot read back the text report's temporary file"));
        return Failed;
    }
    const bool reached = std::any_of(outputs.begin(), outputs.end(), [](const ScopeOutput &o) { return o.reached; });
    return reached ? Reached : Ok;
}

bool isCompareTablePath(const QString &path)
{
    const QFileInfo info(path);
    return info.isFile()
           && (info.suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0
               || info.suffix().compare(QLatin1String("xlsx"), Qt::CaseInsensitive) == 0);
}

int runCompareTableCommand(const CompareCommand &c, const QString &npuDump, const QString &benchDump)
{
    CompareOptions options;
    Verdict failOn = Verdict::None;
    ReportStyle style = ReportStyle::DumpScope;
    if (const int setup = compareSetup(c, options, failOn, style); setup != Ok)
        return setup;
    if (npuDump.isEmpty() != benchDump.isEmpty()) {
        err(QStringLiteral("--npu and --bench go together: the two dumps the table was written from"));
        return Usage;
    }
    // a large CSV table is read paged and summarized from its own cells (issue 35, item 5)
    if (const QFileInfo info(c.npuPath); info.suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0
                                         && info.size() >= pagedTableThreshold()) {
        if (!npuDump.isEmpty() || !c.csvFile.isEmpty() || !c.xlsxFile.isEmpty() || !c.writeMapping.isEmpty()) {
            err(QStringLiteral("%1 is %2 MiB: a table of %3 MiB or more is read paged and summarized; --npu/--bench, --csv, "
                               "--xlsx and --write-mapping need the whole table in memory (DS_PAGED_TABLE_BYTES above its "
                               "size reads it whole)")
                    .arg(c.npuPath).arg(info.size() >> 20).arg(pagedTableThreshold() >> 20));
            return Usage;
        }
        auto paged = openPagedCompareTable(info.absoluteFilePath());
        if (!paged) {
            err(paged.errorText());
            return Failed;
        }
        out(c.json ? QString::fromUtf8(pagedTableJson(*paged)) : pagedTableText(*paged));
        const auto &counts = paged->table->verdictCounts();
        const bool reached = (failOn == Verdict::Warning && counts[size_t(Verdict::Warning)] + counts[size_t(Verdict::Error)] > 0)
                             || (failOn == Verdict::Error && counts[size_t(Verdict::Error)] > 0);
        return reached ? Reached : Ok;
    }
    std::shared_ptr<const DumpIndex> npu, bench;
    for (const auto &[path, what, index] : {std::tuple{npuDump, "NPU", &npu}, std::tuple{benchDump, "bench", &bench}}) {
        if (path.isEmpty())
            continue;
        if (!QFileInfo::exists(path)) {
            err(QStringLiteral("no such file or directory: %1").arg(path));
            return NoPath;
        }
        auto built = buildIndex(path);
        if (!built) {
            err(QStringLiteral("%1 dump: %2").arg(QLatin1String(what), built.errorText()));
            return Failed;
        }
        *index = *built;
        if (const QString inDump = reportInsideDump(c, (*index)->rootDir); !inDump.isEmpty()) {
            err(inDump);
            return Usage;
        }
    }
    auto opened = openCompareTableWithDumps(c.npuPath, npu, bench);
    if (!opened) {
        err(opened.errorText());
        return Failed;
    }
    ScopeCompare s;
    s.npu = opened->npu;
    s.bench = opened->bench;
    s.result = *opened->result;
    const std::vector<ScopeSummary> summaries = summarizeCompare(*s.npu, *s.bench, s.result);
    std::vector<ScopeOutput> outputs(std::max<size_t>(summaries.size(), 1));
    for (size_t i = 0; i < summaries.size(); ++i)
        outputs[i].summary = summaries[i];
    ScopeOutput &o = outputs.front();
    o.mode = s.result.mode;
    o.npuOps = int(s.npu->ops.size());
    o.warnings = s.result.warnings;
    o.reached = failOn != Verdict::None && s.result.any(failOn);
    if (!c.csvFile.isEmpty() || !c.xlsxFile.isEmpty())
        renderScopeTable(s, s.result.mode, style, !c.csvFile.isEmpty(), !c.xlsxFile.isEmpty(), o);
    if (c.json)
        o.json = compareJson(*s.npu, *s.bench, s.result);
    else
        renderScopeText(s, o);
    const QString table = QFileInfo(c.npuPath).absoluteFilePath();
    const QString npuPath = opened->linked ? opened->npu->openedPath : QStringLiteral("%1 (msprobe's compare table)").arg(table);
    QString benchPath = opened->linked ? opened->bench->openedPath : QStringLiteral("%1 (msprobe's compare table)").arg(table);
    if (!c.json && !s.result.tableDumps.isEmpty()) // text: which dumps the rows link to and how they were found (JSON: table_dumps)
        benchPath += QStringLiteral("\ndumps:  ") + s.result.tableDumps;
    return writeCompareReports(c, npuPath, benchPath, s.result.mode, style, outputs);
}

} // namespace ds
