#include "runcompare.h"

#include "compare/comparereport.h"
#include "dump/levels.h"
#include "steporder.h"
#include "util/parallel.h"

#include <QCoreApplication>
#include <QTemporaryFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <nlohmann/json.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <utility>

namespace ds {

namespace {

QString entryOf(const OpRecord &op) { return opMatchKey(op); }

/// Summaries keyed by scope id, in the order of the index's scopes; op -> (scope, position).
struct ScopeTable
{
    std::vector<ScopeSummary> summaries;
    std::vector<std::vector<int>> ops;
    std::vector<int> scopeOfOp, positionOfOp;
    QHash<QString, size_t> byId;

    explicit ScopeTable(const DumpIndex &index)
        : scopeOfOp(index.ops.size(), -1), positionOfOp(index.ops.size(), -1)
    {
        for (auto &[key, opList] : opsByScope(index)) {
            const DumpLevels &l = *index.ops[size_t(opList.front())].levels;
            ScopeSummary s;
            s.run = l.run;
            s.id = scopeIdOf(l);
            s.step = scopeStepLabel(l);
            s.rank = scopeRankLabel(l);
            s.stepNumber = levelNumber(s.step);
            s.rankNumber = levelNumber(s.rank, true);
            s.ops = int(opList.size());
            s.comm = communicationOps(index, opList);
            for (size_t p = 0; p < opList.size(); ++p) {
                scopeOfOp[size_t(opList[p])] = int(summaries.size());
                positionOfOp[size_t(opList[p])] = int(p);
            }
            byId.insert(key, summaries.size());
            summaries.push_back(std::move(s));
            ops.push_back(std::move(opList));
        }
    }
};

QString divergenceReason(const Divergence &d, const CompareRow &row)
{
    QString why;
    switch (d.cause) {
    case DivergenceCause::Output: why = QCoreApplication::translate("RunCompare", "inputs agree, outputs differ"); break;
    case DivergenceCause::Input: why = QCoreApplication::translate("RunCompare", "inputs already differ"); break;
    case DivergenceCause::Parameter:
        why = d.parameter.isEmpty() ? QCoreApplication::translate("RunCompare", "a parameter differs at its first use")
                                    : QCoreApplication::translate("RunCompare", "parameter %1 differs at its first use").arg(d.parameter);
        break;
    }
    if (!row.highlights.isEmpty())
        why += QStringLiteral(": ") + row.highlights.join(QStringLiteral("; "));
    return why;
}

/// The first anomalous output tensor of an operator (or its first anomalous tensor).
QString anomalousTensor(const DumpIndex &index, const OverflowReport &report, int op)
{
    const auto it = report.checks.find(op);
    if (it == report.checks.end())
        return {};
    const OpRecord &rec = index.ops[size_t(op)];
    const TensorCheck *pick = nullptr;
    for (const TensorCheck &t : it->second.tensors)
        if (t.anomalous() && (!pick || (t.io == IoKind::Output && pick->io != IoKind::Output)))
            pick = &t;
    if (!pick)
        return {};
    const TensorRecord *t = rec.tensor(pick->io, pick->index);
    const QString name = t && !t->name().isEmpty() ? t->name() : ioKindName(pick->io) + QLatin1Char('.') + QString::number(pick->index);
    return entryOf(rec) + QLatin1Char('.') + name;
}

} // namespace

std::vector<ScopeSummary> summarizeCompare(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result)
{
    ScopeTable table(npu);
    for (const CompareRow &row : result.rows) {
        if (row.npu.op < 0 || size_t(row.npu.op) >= table.scopeOfOp.size())
            continue;
        ScopeSummary &s = table.summaries[size_t(table.scopeOfOp[size_t(row.npu.op)])];
        ++s.rows;
        switch (row.compared() ? row.verdict : Verdict::None) {
        case Verdict::Pass: ++s.pass; break;
        case Verdict::Warning: ++s.warning; break;
        case Verdict::Error: ++s.error; break;
        case Verdict::None:
            ++s.notCompared;
            ++s.notComparedBy[row.reasons.empty() ? QStringLiteral("NOT_COMPARED") : reasonCodeName(row.reasons.front())];
            break;
        }
    }
    for (const BenchOnlyRow &b : result.benchOnly) {
        const DumpLevels &l = *bench.op(b.bench).levels;
        const QString id = scopeIdOf(l);
        auto it = table.byId.find(id);
        if (it == table.byId.end()) { // a scope of the bench run only
            ScopeSummary s;
            s.run = l.run;
            s.id = id;
            s.step = scopeStepLabel(l);
            s.rank = scopeRankLabel(l);
            s.stepNumber = levelNumber(s.step);
            s.rankNumber = levelNumber(s.rank, true);
            s.npu = false;
            it = table.byId.insert(id, table.summaries.size());
            table.summaries.push_back(std::move(s));
        }
        ++table.summaries[*it].benchOnly;
    }
    for (const Divergence &d : result.divergences) {
        if (d.originOp < 0 || size_t(d.originOp) >= table.scopeOfOp.size() || d.originRow < 0)
            continue;
        ScopeSummary &s = table.summaries[size_t(table.scopeOfOp[size_t(d.originOp)])];
        if (s.first)
            continue; // one divergence per scope; a second would come from a coarser scope key
        const CompareRow &row = result.rows[size_t(d.originRow)];
        s.first = ScopeFinding{entryOf(npu.ops[size_t(d.originOp)]), row.npuName, divergenceReason(d, row),
                               table.positionOfOp[size_t(d.originOp)], d.inputsAgree, {}, {}, {}};
    }
    return std::move(table.summaries);
}

std::vector<ScopeSummary> summarizeOverflow(const DumpIndex &index, const OverflowReport &report)
{
    ScopeTable table(index);
    const size_t n = table.summaries.size();
    std::vector<QSet<int>> anomalous(n);
    // Per scope, the earliest operator by each source: (op, reason).
    std::vector<std::pair<int, QString>> hardware(n, {-1, QString()}), software(n, {-1, QString()});
    QHash<int, QString> levelOf, recordOf; // op -> its software level / the earliest record naming it
    auto earlier = [&](std::pair<int, QString> &best, int op, const QString &reason) {
        if (best.first < 0 || table.positionOfOp[size_t(op)] < table.positionOfOp[size_t(best.first)])
            best = {op, reason};
    };
    for (const SoftwareFinding &f : report.findings) {
        if (f.op < 0 || size_t(f.op) >= table.scopeOfOp.size())
            continue;
        if (!f.valueAnomaly && f.level == OverflowLevel::None)
            continue; // a statistic overflow alone (finite values) is a precursor, not an anomaly
        const size_t s = size_t(table.scopeOfOp[size_t(f.op)]);
        anomalous[s].insert(f.op);
        // The scope's first anomaly as analyzeOverflow defines it (ScopeScan::first): the first
        // operator with NaN/Inf/saturated values, any level (msprobe overflow_check's answer).
        if (f.valueAnomaly) {
            levelOf.insert(f.op, overflowLevelName(f.level));
            earlier(software[s], f.op, f.reason);
        }
    }
    // OpDebug records (sorted by overflow.md §8): the operators they name; a record whose
    // operator cannot be found (or whose payload cannot be decoded) stands at its own place.
    for (const OverflowEntry &e : report.records) {
        const QString name = index.ops[size_t(e.op)].relPath.section(QLatin1Char('/'), -1);
        std::vector<std::pair<int, QString>> named;
        for (const auto &link : e.links)
            named.emplace_back(link.op >= 0 ? link.op : e.op,
                               link.op >= 0 ? QCoreApplication::translate("RunCompare", "overflow record %1").arg(name)
                                            : QCoreApplication::translate("RunCompare", "overflow record %1: %2").arg(name, link.note));
        if (e.links.empty())
            named.emplace_back(e.op, e.error.isEmpty() ? QCoreApplication::translate("RunCompare", "overflow record %1: no triggered block").arg(name)
                                                       : QCoreApplication::translate("RunCompare", "overflow record %1: %2").arg(name, e.error));
        for (const auto &[op, reason] : named) {
            if (op < 0 || size_t(op) >= table.scopeOfOp.size())
                continue;
            const size_t s = size_t(table.scopeOfOp[size_t(op)]);
            anomalous[s].insert(op);
            if (!recordOf.contains(op))
                recordOf.insert(op, index.ops[size_t(e.op)].relPath);
            earlier(hardware[s], op, reason);
        }
    }
    auto finding = [&](int op, const QString &reason) {
        return ScopeFinding{entryOf(index.ops[size_t(op)]), anomalousTensor(index, report, op), reason, table.positionOfOp[size_t(op)],
                            true, index.ops[size_t(op)].relPath, recordOf.value(op), levelOf.value(op)};
    };
    for (size_t s = 0; s < n; ++s) {
        ScopeSummary &sum = table.summaries[s];
        sum.anomalies = anomalous[s].size();
        if (hardware[s].first >= 0)
            sum.hardware = finding(hardware[s].first, hardware[s].second);
        if (software[s].first >= 0)
            sum.software = finding(software[s].first, software[s].second);
        // The scope's first: the earlier of the two sources (one operator when both name it).
        if (sum.hardware && sum.software && sum.hardware->file == sum.software->file) {
            sum.first = *sum.software;
            sum.first->reason = sum.hardware->reason + QStringLiteral("; ") + sum.software->reason;
        } else if (sum.hardware && (!sum.software || sum.hardware->position < sum.software->position)) {
            sum.first = sum.hardware;
        } else if (sum.software) {
            sum.first = sum.software;
        }
    }
    return std::move(table.summaries);
}

std::vector<ScopePair> pairScopes(const RunInfo &npu, const RunInfo &bench)
{
    std::vector<ScopePair> pairs;
    const bool oneBench = bench.scopes.size() == 1;
    // Scopes by id (RunInfo::scope is a linear search: quadratic for 100,000 scopes). The
    // first scope of an id wins, as RunInfo::scope finds it.
    QHash<QString, const RunScope *> benchById, npuById;
    for (const RunScope &b : bench.scopes)
        if (!benchById.contains(b.id))
            benchById.insert(b.id, &b);
    for (const RunScope &s : npu.scopes)
        if (!npuById.contains(s.id))
            npuById.insert(s.id, &s);
    for (const RunScope &s : npu.scopes) {
        const RunScope *b = oneBench ? &bench.scopes.front() : benchById.value(s.id);
        pairs.push_back({s.id, &s, b});
    }
    if (!oneBench)
        for (const RunScope &b : bench.scopes)
            if (!npuById.contains(b.id))
                pairs.push_back({b.id, nullptr, &b});
    // Scope order: step, then rank (the order of the reports).
    std::stable_sort(pairs.begin(), pairs.end(), [](const ScopePair &x, const ScopePair &y) {
        const RunScope &a = x.npu ? *x.npu : *x.bench, &b = y.npu ? *y.npu : *y.bench;
        if (int c = compareStepRank(a, b))
            return c < 0;
        return x.id < y.id;
    });
    return pairs;
}

ScopeCompare compareScope(const RunTree &npuTree, const RunTree &benchTree, const ScopePair &pair,
                          const CompareOptions &options, const JobControl *job)
{
    static const RunScope none;
    ScopeCompare out;
    out.id = pair.id;
    out.npu = indexScope(npuTree, pair.npu ? *pair.npu : none, job);
    out.bench = indexScope(benchTree, pair.bench ? *pair.bench : none, job);
    out.result = compareIndexes(*out.npu, *out.bench, options, job);
    auto summaries = summarizeCompare(*out.npu, *out.bench, out.result);
    ScopeSummary s;
    for (ScopeSummary &x : summaries) // one scope; the bench side may name it differently (a single golden scope)
        if (x.npu == bool(pair.npu) || summaries.size() == 1) {
            s = std::move(x);
            break;
        }
    for (const ScopeSummary &x : summaries)
        if (!x.npu && pair.npu)
            s.benchOnly += x.benchOnly;
    const RunScope &scope = pair.npu ? *pair.npu : *pair.bench;
    s.id = pair.id;
    s.step = scope.step;
    s.rank = scope.rank;
    s.stepNumber = scope.stepNumber;
    s.rankNumber = scope.rankNumber;
    s.npu = pair.npu != nullptr;
    s.bench = pair.bench != nullptr;
    out.summary = std::move(s);
    return out;
}

void compareRuns(const RunTree &npuTree, const RunInfo &npu, const RunTree &benchTree, const RunInfo &bench,
                 const CompareOptions &options, const JobControl *job, const ScopeSink &sink)
{
    const std::vector<ScopePair> pairs = pairScopes(npu, bench);
    // Each pair's share done, and their sum kept as they change: summing every pair's share per
    // report was quadratic (10^10 loads at 102,400 pairs, each pair reporting several times).
    std::vector<std::atomic<int>> done(pairs.size());
    std::atomic<long long> sum{0};
    std::atomic<int> reported{-1};
    auto report = [&](size_t i, int permille) {
        const int before = done[i].exchange(permille);
        const long long now = sum.fetch_add(permille - before) + (permille - before);
        if (!job || pairs.empty())
            return;
        const int overall = int(now / qint64(pairs.size()));
        if (overall > reported.exchange(overall))
            job->report(overall);
    };
    // Many pairs take the cores by themselves: each pair's reading and comparing then stays on
    // its thread (no threads started per pair; a few pairs keep their inner parallelism).
    const unsigned inner = pairs.size() >= 4 * size_t(workerCount()) ? 1u : t_parallelLimit;
    parallelChunks(pairs.size(), 1, [&](size_t i, size_t, size_t) {
        const ParallelLimit limit(inner);
        JobControl sub;
        sub.cancelFlag = job ? job->cancelFlag : nullptr;
        sub.progress = [&, i](int permille) { report(i, permille); };
        ScopeCompare scope = compareScope(npuTree, benchTree, pairs[i], options, &sub);
        sink(i, pairs[i], scope);
        recycleRows(std::move(scope.result.rows)); // what the sink kept is not the rows vector
        report(i, 1000);
        return !(job && job->cancelled());
    });
    releaseRowStorage(); // the calling thread's (the workers' went with them)
}

std::vector<ScopeCompare> compareRuns(const RunTree &npuTree, const RunInfo &npu, const RunTree &benchTree,
                                      const RunInfo &bench, const CompareOptions &options, const JobControl *job)
{
    std::vector<ScopeCompare> out(pairScopes(npu, bench).size());
    compareRuns(npuTree, npu, benchTree, bench, options, job,
                [&](size_t i, const ScopePair &, ScopeCompare &scope) { out[i] = std::move(scope); });
    return out;
}

CompareMode scopeReportMode(const CompareResult &result, const CompareOptions &options)
{
    if (options.mode == CompareMode::Tensor || options.mode == CompareMode::Summary || options.mode == CompareMode::Md5)
        return options.mode;
    if (result.taskMode != CompareMode::None)
        return result.taskMode; // msprobe's table for the producers' task, whatever the rows
    for (CompareMode m : {CompareMode::Tensor, CompareMode::Summary, CompareMode::Md5})
        if (std::any_of(result.rows.begin(), result.rows.end(), [&](const CompareRow &r) { return r.mode == m; }))
            return m;
    return CompareMode::None;
}

CompareMode bestReportMode(const std::vector<CompareMode> &modes)
{
    for (CompareMode m : {CompareMode::Tensor, CompareMode::Summary, CompareMode::Md5})
        if (std::find(modes.begin(), modes.end(), m) != modes.end())
            return m;
    return CompareMode::Tensor; // as compareIndexes: no compared row gives tensor columns
}

QByteArray scopeCompareCsv(ScopeCompare &scope, CompareMode mode, bool header, ReportStyle style)
{
    scope.result.mode = mode;
    QByteArray csv = compareCsv(*scope.npu, *scope.bench, scope.result, style);
    if (!header)
        csv.remove(0, csv.indexOf('\n') + 1);
    return csv;
}

CompareMode runReportMode(const std::vector<ScopeCompare> &scopes, const CompareOptions &options)
{
    std::vector<CompareMode> modes;
    for (const ScopeCompare &s : scopes)
        modes.push_back(scopeReportMode(s.result, options));
    return bestReportMode(modes);
}

QByteArray runCompareCsv(std::vector<ScopeCompare> &scopes, CompareMode mode)
{
    QByteArray out;
    for (size_t i = 0; i < scopes.size(); ++i)
        out += scopeCompareCsv(scopes[i], mode, i == 0);
    if (scopes.empty()) {
        CompareResult empty;
        empty.mode = mode;
        out = compareCsv(DumpIndex{}, DumpIndex{}, empty);
    }
    return out;
}

namespace {

const std::string_view kRowsKey = "\n  \"rows\": [";

/// A compareJson document cut in two: its text with an empty "rows" array (small, parsed) and
/// the text of its row elements (copied as they are: the merged report holds them at the same
/// depth), found in the text by the indentation dump(2) gives the top-level key.
struct DocParts
{
    std::string rest;
    const char *rows = nullptr;
    size_t rowsSize = 0;
};

DocParts splitDoc(const QByteArray &doc)
{
    DocParts p;
    const std::string_view text(doc.constData(), size_t(doc.size()));
    const size_t at = text.find(kRowsKey);
    if (at == std::string_view::npos || at + kRowsKey.size() >= text.size() || text[at + kRowsKey.size()] == ']') {
        p.rest = std::string(text);
        return p;
    }
    const size_t begin = at + kRowsKey.size() + 1; // after "[\n"
    const size_t end = text.find("\n  ]", begin);
    if (end == std::string_view::npos) {
        p.rest = std::string(text);
        return p;
    }
    p.rows = text.data() + begin;
    p.rowsSize = end - begin;
    p.rest.reserve(text.size() - p.rowsSize);
    p.rest.append(text.substr(0, begin - 1)).append("]").append(text.substr(end + 4));
    return p;
}

} // namespace

namespace {

/// The merged report from every document's small part (`rest(i)`, "rows" empty) and its rows'
/// text (`rows(i, write)` writes it; `hasRows(i)` says whether there is any).
void writeMerged(size_t count, const std::function<std::string(size_t)> &rest, const std::function<bool(size_t)> &hasRows,
                 const std::function<void(size_t, const JsonWrite &)> &rows, const std::vector<int> &npuOps,
                 CompareMode mode, const QByteArray &run, const QString &npuPath, const QString &benchPath,
                 const JsonWrite &write)
{
    using json = nlohmann::ordered_json;
    json merged;
    json divergences = json::array(), benchOnly = json::array(), warnings = json::array(), structure = json::array();
    json added = json::array(), ranking = json::array(); // addederrorjson.h
    std::vector<size_t> withRows; // the documents that have rows, in order
    std::map<std::string, long long> counts;
    bool cancelled = false;
    long long opBase = 0, rowBase = 0; // operator and row numbers count across the scopes
    for (size_t i = 0; i < count; ++i) {
        json j = json::parse(rest(i));
        if (merged.is_null())
            merged = j;
        cancelled = cancelled || j.value("cancelled", false);
        for (auto &[key, value] : j["summary"].items())
            counts[key] += value.get<long long>();
        for (auto &d : j["first_divergence"]) {
            d["origin"]["op"] = d["origin"]["op"].get<long long>() + opBase;
            d["origin"]["row"] = d["origin"]["row"].get<long long>() + rowBase;
            for (auto &c : d["chain"])
                c["op"] = c["op"].get<long long>() + opBase;
            if (d.contains("modules"))
                for (auto &m : d["modules"])
                    m["op"] = m["op"].get<long long>() + opBase;
            if (d.contains("parameter") && d["parameter"].is_object() && d["parameter"]["module"].is_object())
                d["parameter"]["module"]["op"] = d["parameter"]["module"]["op"].get<long long>() + opBase;
            divergences.push_back(std::move(d));
        }
        for (auto &e : j["added_error"]) { // operator numbers count across the scopes too
            e["op"] = e["op"].get<long long>() + opBase;
            added.push_back(std::move(e));
        }
        for (auto &scope : j["added_error_ranking"]) {
            for (auto &e : scope["ops"])
                e["op"] = e["op"].get<long long>() + opBase;
            ranking.push_back(std::move(scope));
        }
        opBase += i < npuOps.size() ? npuOps[i] : 0;
        rowBase += j["summary"].value("rows", 0LL); // the number of row elements of the document
        if (hasRows(i))
            withRows.push_back(i);
        for (auto &b : j["bench_only"])
            benchOnly.push_back(std::move(b));
        if (j.contains("structure"))
            for (auto &r : j["structure"])
                structure.push_back(std::move(r));
        for (auto &w : j["warnings"])
            if (std::find(warnings.begin(), warnings.end(), w) == warnings.end())
                warnings.push_back(w);
    }
    if (merged.is_null()) {
        CompareResult empty;
        merged = json::parse(compareJson(DumpIndex{}, DumpIndex{}, empty).toStdString());
    }
    json out;
    for (auto &[key, value] : merged.items()) {
        if (key == "npu_path")
            out[key] = npuPath.toStdString();
        else if (key == "bench_path")
            out[key] = benchPath.toStdString();
        else if (key == "mode")
            out[key] = compareModeName(mode).toStdString();
        else if (key == "cancelled")
            out[key] = cancelled;
        else if (key == "summary") {
            json sum;
            for (auto &[k, v] : value.items())
                sum[k] = counts.count(k) ? counts[k] : v.get<long long>();
            out[key] = sum;
        } else if (key == "first_divergence")
            out[key] = divergences;
        else if (key == "added_error")
            out[key] = added;
        else if (key == "added_error_ranking")
            out[key] = ranking;
        else if (key == "warnings")
            out[key] = warnings;
        else if (key == "rows") {
            out["run"] = json::parse(run.toStdString());
            out[key] = json::array(); // the rows' texts are written into it below
        } else if (key == "bench_only")
            out[key] = benchOnly;
        else if (key == "structure")
            out[key] = structure;
        else
            out[key] = value;
    }
    // As out.dump(2) with every row in "rows", written piece by piece.
    const std::string text = out.dump(2);
    const size_t at = text.find(kRowsKey);
    if (at == std::string::npos || withRows.empty()) {
        write(text.data(), text.size());
        write("\n", 1);
        return;
    }
    const size_t close = at + kRowsKey.size(); // the ']' of "[]"
    write(text.data(), close);
    write("\n", 1);
    for (size_t i = 0; i < withRows.size(); ++i) {
        if (i > 0)
            write(",\n", 2);
        rows(withRows[i], write);
    }
    write("\n  ", 3);
    write(text.data() + close, text.size() - close);
    write("\n", 1);
}

} // namespace

void writeMergedCompareJson(const std::vector<QByteArray> &docs, const std::vector<int> &npuOps, CompareMode mode,
                            const QByteArray &run, const QString &npuPath, const QString &benchPath, const JsonWrite &write)
{
    std::vector<DocParts> parts;
    for (const QByteArray &d : docs)
        parts.push_back(splitDoc(d));
    writeMerged(
        parts.size(), [&](size_t i) { return std::exchange(parts[i].rest, std::string()); },
        [&](size_t i) { return parts[i].rowsSize > 0; }, [&](size_t i, const JsonWrite &w) { w(parts[i].rows, parts[i].rowsSize); },
        npuOps, mode, run, npuPath, benchPath, write);
}

CompareJsonSpool::CompareJsonSpool() = default;
CompareJsonSpool::~CompareJsonSpool() = default;

bool CompareJsonSpool::add(size_t index, const QByteArray &doc, int npuOps)
{
    DocParts parts = splitDoc(doc);
    std::lock_guard lock(m_mutex);
    if (!m_file) {
        m_file = std::make_unique<QTemporaryFile>();
        if (!m_file->open()) {
            m_error = m_file->errorString();
            return false;
        }
    }
    if (m_docs.size() <= index)
        m_docs.resize(index + 1);
    Doc &d = m_docs[index];
    d.rest = std::move(parts.rest);
    d.npuOps = npuOps;
    d.offset = m_file->size();
    d.size = qint64(parts.rowsSize);
    if (!m_file->seek(d.offset) || (d.size > 0 && m_file->write(parts.rows, d.size) != d.size)) {
        m_error = m_file->errorString();
        return false;
    }
    return true;
}

bool CompareJsonSpool::write(CompareMode mode, const QByteArray &run, const QString &npuPath, const QString &benchPath,
                             const JsonWrite &write)
{
    std::lock_guard lock(m_mutex);
    if (!m_error.isEmpty())
        return false;
    if (m_file && !m_file->flush()) {
        m_error = m_file->errorString();
        return false;
    }
    std::vector<int> ops;
    for (const Doc &d : m_docs)
        ops.push_back(d.npuOps);
    QByteArray buffer;
    writeMerged(
        m_docs.size(), [&](size_t i) { return std::exchange(m_docs[i].rest, std::string()); },
        [&](size_t i) { return m_docs[i].size > 0; },
        [&](size_t i, const JsonWrite &w) {
            const Doc &d = m_docs[i];
            if (!m_file->seek(d.offset)) {
                m_error = m_file->errorString();
                return;
            }
            for (qint64 done = 0; done < d.size;) { // 4 MiB at a time
                buffer.resize(qsizetype(std::min<qint64>(d.size - done, qint64(4) << 20)));
                const qint64 got = m_file->read(buffer.data(), buffer.size());
                if (got <= 0) {
                    m_error = m_file->errorString();
                    return;
                }
                w(buffer.constData(), size_t(got));
                done += got;
            }
        },
        ops, mode, run, npuPath, benchPath, write);
    return m_error.isEmpty();
}

QString CompareJsonSpool::errorText() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

QByteArray mergeCompareJson(const std::vector<QByteArray> &docs, const std::vector<int> &npuOps, CompareMode mode,
                            const QByteArray &run, const QString &npuPath, const QString &benchPath)
{
    QByteArray out;
    writeMergedCompareJson(docs, npuOps, mode, run, npuPath, benchPath,
                           [&](const char *data, size_t size) { out.append(data, qsizetype(size)); });
    return out;
}

QByteArray runCompareJson(const std::vector<ScopeCompare> &scopes, CompareMode mode, const QByteArray &run)
{
    std::vector<QByteArray> docs;
    std::vector<int> ops;
    for (const ScopeCompare &s : scopes) {
        docs.push_back(compareJson(*s.npu, *s.bench, s.result));
        ops.push_back(int(s.npu->ops.size()));
    }
    return mergeCompareJson(docs, ops, mode, run, scopes.empty() ? QString() : scopes.front().npu->openedPath,
                            scopes.empty() ? QString() : scopes.front().bench->openedPath);
}

QByteArray runsJson(const RunTree &tree) { return runsJson(tree.runs); }

QByteArray runsJson(const std::vector<RunInfo> &runList)
{
    using json = nlohmann::ordered_json;
    json runs = json::array();
    for (const RunInfo &r : runList) {
        auto labels = [&](bool steps) {
            json a = json::array();
            QStringList seen;
            for (const RunScope &s : r.scopes) {
                const qint64 n = steps ? s.stepNumber : s.rankNumber;
                const QString label = steps ? s.step : s.rank;
                const QString key = n >= 0 ? QString::number(n) : label;
                if (key.isEmpty() || seen.contains(key))
                    continue;
                seen << key;
                a.push_back(n >= 0 ? json(n) : json(label.toStdString()));
            }
            return a;
        };
        json scopes = json::array();
        for (const RunScope &s : r.scopes)
            scopes.push_back(s.id.toStdString());
        runs.push_back(json{{"path", r.relPath.isEmpty() ? std::string(".") : r.relPath.toStdString()},
                            {"name", r.name.toStdString()},
                            {"format", r.formats.join(QLatin1Char(',')).toStdString()},
                            {"steps", labels(true)},
                            {"ranks", labels(false)},
                            {"scopes", scopes}});
    }
    return QByteArray::fromStdString(runs.dump());
}

} // namespace ds
