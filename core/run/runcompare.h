#pragma once

// Run compare and run overflow on top of the per-scope analyses (core/compare, core/overflow).
//
// Per scope: index the scope of each run (indexScope), compare them (compareIndexes), keep a
// ScopeSummary. The run-level answer is combineRun() over the summaries. The CLI works scope
// by scope this way, so that a distributed driver (issue 17) only has to hand out scopes and
// gather summaries and rows: runCompareCsv / runCompareJson write the same reports from scopes
// compared anywhere.

#include "compare/compare.h"
#include "compare/comparereport.h"
#include "overflow/overflowreport.h"
#include "runsummary.h"
#include "runtree.h"

#include <QByteArray>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

class QTemporaryFile;

namespace ds {

/// Summaries of a comparison, one per NPU scope (scopeIdOf), plus one for every bench scope
/// that has rows only on the bench side. Works on the result of a whole-run comparison as well
/// as on one scope's.
std::vector<ScopeSummary> summarizeCompare(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result);

/// Summaries of an overflow analysis, one per scope: anomalies = operators with a software
/// finding (a statistic overflow alone excepted) or an OpDebug record; software = the scope's
/// first operator with NaN/Inf/saturated values, any level (ScopeScan::first, what msprobe's
/// overflow_check names); hardware = the earliest operator an OpDebug record names (an unlinked
/// record: the record file itself); first = the earlier of the two (run/firstoverflow.h).
std::vector<ScopeSummary> summarizeOverflow(const DumpIndex &index, const OverflowReport &report);

/// Two runs' scopes paired by id. A bench run with a single scope pairs with every NPU scope
/// (the usual golden run); otherwise scopes found in one run only stay alone.
struct ScopePair
{
    QString id;
    const RunScope *npu = nullptr, *bench = nullptr;
};
std::vector<ScopePair> pairScopes(const RunInfo &npu, const RunInfo &bench);

/// One scope pair compared.
struct ScopeCompare
{
    QString id;
    std::shared_ptr<const DumpIndex> npu, bench; ///< the scope indexes (based at the opened folders)
    CompareResult result;
    ScopeSummary summary;
};

/// Indexes and compares one scope pair (a missing side compares against an empty index, so
/// that its rows are reported as unmatched or bench-only).
ScopeCompare compareScope(const RunTree &npuTree, const RunTree &benchTree, const ScopePair &pair,
                          const CompareOptions &options = {}, const JobControl *job = nullptr);

/// Gets every compared scope as soon as it is done, with its number in pair order (pairScopes):
/// keep what is needed (the summary, rendered rows) and let the indexes go. Called from worker
/// threads, possibly at the same time for different scopes.
using ScopeSink = std::function<void(size_t index, const ScopePair &pair, ScopeCompare &scope)>;
/// Compares every pair of pairScopes(npu, bench) (scopes in parallel, each comparison on all
/// cores); the job's progress is the overall share done (0..1000).
void compareRuns(const RunTree &npuTree, const RunInfo &npu, const RunTree &benchTree, const RunInfo &bench,
                 const CompareOptions &options, const JobControl *job, const ScopeSink &sink);
/// The same, keeping every scope (indexes and results) in pair order.
std::vector<ScopeCompare> compareRuns(const RunTree &npuTree, const RunInfo &npu, const RunTree &benchTree,
                                      const RunInfo &bench, const CompareOptions &options = {},
                                      const JobControl *job = nullptr);

/// The column set a scope's rows need: the forced mode, else the best mode its rows used
/// (None when no row was compared).
CompareMode scopeReportMode(const CompareResult &result, const CompareOptions &options);
/// The report's column set over all scopes: tensor, else summary, else md5 among `modes`; tensor
/// when none (as compareIndexes chooses it for one index).
CompareMode bestReportMode(const std::vector<CompareMode> &modes);
CompareMode runReportMode(const std::vector<ScopeCompare> &scopes, const CompareOptions &options);

/// One scope's CSV lines in `mode`'s columns (the header line first when `header`); sets the
/// scope result's column set (CompareResult::mode). A scope rendered in another mode than the
/// run's must be rendered again (compare it again: the comparison is deterministic).
QByteArray scopeCompareCsv(ScopeCompare &scope, CompareMode mode, bool header, ReportStyle style = ReportStyle::DumpScope);
/// The msprobe-compatible CSV of all scopes: one header, then every scope's rows in scope order.
QByteArray runCompareCsv(std::vector<ScopeCompare> &scopes, CompareMode mode);
/// The JSON report of `dumpscope-cli compare --json` from every scope's compareJson document (in
/// scope order; `npuOps` the number of NPU operators of each scope's index): rows, divergences
/// and bench-only rows of every scope, counts summed, operator and row numbers counted across
/// the scopes, and the `run` object (before `rows`).
QByteArray mergeCompareJson(const std::vector<QByteArray> &scopeDocs, const std::vector<int> &npuOps, CompareMode mode,
                            const QByteArray &run, const QString &npuPath, const QString &benchPath);
/// Receives the text of a report piece by piece.
using JsonWrite = std::function<void(const char *, size_t)>;
/// mergeCompareJson written piece by piece to `write` (the rows' texts are copied from the
/// documents, never parsed): what a report of millions of rows is written with.
void writeMergedCompareJson(const std::vector<QByteArray> &scopeDocs, const std::vector<int> &npuOps, CompareMode mode,
                            const QByteArray &run, const QString &npuPath, const QString &benchPath, const JsonWrite &write);

/// The scope documents of a `compare --json` kept until the run is compared (the `run` object
/// comes before the rows): their small parts in memory, their rows' text in a temporary file
/// (deleted with the spool), so that memory does not grow with the rows of the whole run.
class CompareJsonSpool
{
public:
    CompareJsonSpool();
    ~CompareJsonSpool();
    /// The compareJson document of the scope numbered `index` (pair order); thread-safe.
    /// False when the temporary file cannot be written (errorText()).
    bool add(size_t index, const QByteArray &doc, int npuOps);
    /// writeMergedCompareJson of the documents added, in index order. Once.
    bool write(CompareMode mode, const QByteArray &run, const QString &npuPath, const QString &benchPath,
               const JsonWrite &write);
    QString errorText() const;

private:
    struct Doc
    {
        std::string rest;
        int npuOps = 0;
        qint64 offset = 0, size = 0;
    };
    mutable std::mutex m_mutex;
    std::unique_ptr<QTemporaryFile> m_file;
    std::vector<Doc> m_docs;
    QString m_error;
};
QByteArray runCompareJson(const std::vector<ScopeCompare> &scopes, CompareMode mode, const QByteArray &run);

/// The `runs` array of `dumpscope-cli info --json` (compact JSON text): per run its path relative
/// to the opened folder ("." for the folder itself), name, format(s), steps, ranks and scope ids.
QByteArray runsJson(const RunTree &tree);
QByteArray runsJson(const std::vector<RunInfo> &runs);

} // namespace ds
