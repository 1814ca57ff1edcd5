#pragma once

// Run compare and run overflow on top of the per-scope analyses (core/compare, core/overflow).
//
// Per scope: index the scope of each run (indexScope), compare them (compareIndexes), keep a
// ScopeSummary. The run-level answer is combineRun() over the summaries. The CLI works scope
// by scope this way, so that a distributed driver (issue 17) only has to hand out scopes and
// gather summaries and rows: runCompareCsv / runCompareJson write the same reports from scopes
// compared anywhere.

#include "compare/compare.h"
#include "overflow/overflowreport.h"
#include "runsummary.h"
#include "runtree.h"

#include <QByteArray>
#include <functional>

namespace ds {

/// Summaries of a comparison, one per NPU scope (scopeIdOf), plus one for every bench scope
/// that has rows only on the bench side. Works on the result of a whole-run comparison as well
/// as on one scope's.
std::vector<ScopeSummary> summarizeCompare(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result);

/// Summaries of an overflow analysis, one per scope: anomalies = operators with a software
/// finding or an OpDebug record; first = the scope's first operator that produced an anomaly
/// (a "critical" finding: normal inputs, abnormal outputs) or that an OpDebug record names.
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

/// Compares the given pairs (scopes in parallel, each comparison on all cores), in their order:
/// a share of pairScopes' pairs chosen elsewhere (issue 17: one share per process).
/// `progress` gets the overall share done (0..1000).
std::vector<ScopeCompare> compareScopePairs(const RunTree &npuTree, const RunTree &benchTree, const std::vector<ScopePair> &pairs,
                                            const CompareOptions &options = {}, const JobControl *job = nullptr);

/// Compares every pair of pairScopes(npu, bench) (compareScopePairs).
std::vector<ScopeCompare> compareRuns(const RunTree &npuTree, const RunInfo &npu, const RunTree &benchTree,
                                      const RunInfo &bench, const CompareOptions &options = {},
                                      const JobControl *job = nullptr);

/// The report's column set: the forced mode, else the best mode any scope used (as
/// compareIndexes chooses it for one index).
CompareMode runReportMode(const std::vector<ScopeCompare> &scopes, const CompareOptions &options);

/// One scope's part of the run reports, rendered where the scope was compared (only these bytes
/// need to travel, never tensors or indexes).
struct ScopeReport
{
    QByteArray csv;   ///< compareCsv in the report's column set (with its header line)
    QByteArray json;  ///< compareJson
    qint64 npuOps = 0; ///< operators of the NPU scope index (numbers in the JSON count across scopes)
};
/// Renders what `wantCsv` / `wantJson` ask for; sets the result's column set to `mode`.
ScopeReport scopeReport(ScopeCompare &scope, CompareMode mode, bool wantCsv, bool wantJson);

/// The msprobe-compatible CSV of all scopes: one header, then every scope's rows in scope order.
/// Sets every scope result's column set (CompareResult::mode) to `mode`.
QByteArray runCompareCsv(std::vector<ScopeCompare> &scopes, CompareMode mode);
QByteArray runCompareCsv(const std::vector<ScopeReport> &scopes, CompareMode mode);
/// The JSON report of `dumpscope-cli compare --json` over all scopes (compareJson's fields with
/// rows, divergences and bench-only rows of every scope, counts summed) and the `run` object.
QByteArray runCompareJson(const std::vector<ScopeCompare> &scopes, CompareMode mode, const QByteArray &run);
QByteArray runCompareJson(const std::vector<ScopeReport> &scopes, CompareMode mode, const QByteArray &run);

/// The `runs` array of `dumpscope-cli info --json` (compact JSON text): per run its path relative
/// to the opened folder ("." for the folder itself), name, format(s), steps, ranks and scope ids.
QByteArray runsJson(const RunTree &tree);

} // namespace ds
