#pragma once
// DumpScope's own first divergence beside msprobe's `compare -da` answer (issue 33, item 1;
// compare/diffanalyze.h reads the files; docs/COMPARE-TABLES.md "msprobe's -da answers").

#include "compare/diffanalyze.h"

#include <QMap>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace ds {

struct JobControl;

/// DumpScope's own first divergence of one rank.
struct OwnFirstDiff
{
    QString scope;  ///< "step0/rank0"
    QString opName; ///< the origin op
    QString cause;  ///< "output", "parameter", "input"
    QString parameter;
};

/// The dumps a -da file was computed from and DumpScope's answer on them, per rank ("rank_0").
struct FirstDiffAnswers
{
    bool found = false;  ///< dumps were given or found
    QString how;         ///< where the dumps came from, or why none were found and how to give them
    QStringList dumps;   ///< "NPU vs bench" folder pairs that were compared
    QMap<QString, OwnFirstDiff> ours; ///< ranks with a divergence
    QStringList errors;  ///< dumps that could not be read or compared
};

/// DumpScope's first divergence of every rank of the run at `npuPath` against the run at
/// `benchPath` (compared scope by scope as `dumpscope-cli compare NPU BENCH` does, default
/// options), keyed "rank_0"; `step` ("step0", empty: any) keeps the scopes of that step (the one
/// the -da file was written for). Folders that cannot be read are said in `errors`.
QMap<QString, OwnFirstDiff> ownFirstDiffs(const QString &npuPath, const QString &benchPath, const QString &step,
                                          QStringList &errors, const JobControl *job = nullptr);

/// The answers beside a -da file: with `npuPath` and `benchPath` those dumps; else, for a
/// compare_result_rank file, the dumps found beside it by its rows (findTableDumps); for a
/// diff_analyze file, the dumps of the compare_result_rank*.json files -da wrote into the same
/// folder. Reads only.
FirstDiffAnswers firstDiffAnswers(const DiffAnalyzeFile &file, const QString &npuPath = {}, const QString &benchPath = {},
                                  const JobControl *job = nullptr);


/// DumpScope's first anomaly of every rank of the dump at `path` (the overflow scan, the first
/// software finding of each scope), keyed "rank_1"; errors in `error`.
struct OwnAnomaly
{
    QString scope, opName, level, reason;
};
QMap<QString, OwnAnomaly> ownFirstAnomalies(const QString &path, QString &error, const JobControl *job = nullptr);

/// Either msprobe answer file (overflow_check's anomaly_analyze, compare -da's diff_analyze or
/// per-rank compare_result) as rows of msprobe's op per rank beside DumpScope's own answer on the
/// dumps given or found beside it: what the GUI's answer view lists.
struct AnswerRow
{
    enum class Agreement : std::uint8_t { NoDump, Same, Differs };
    QString rank;          ///< "rank_1"
    QString msprobeOp;     ///< empty: msprobe names none for this rank (DumpScope does)
    QStringList stack, rows; ///< msprobe's stack of the op; the rows it lists (data_info / op_items)
    QString oursOp, oursScope, oursDetail; ///< empty oursOp: no answer of DumpScope's for the rank
    Agreement agreement = Agreement::NoDump;
};
struct AnswerDocument
{
    enum class Kind : std::uint8_t { OverflowCheck, DiffAnalyze, CompareResult };
    Kind kind = Kind::OverflowCheck;
    QString path;
    QString step;               ///< the step the file was written for (a step{N} folder above it), empty: unknown
    bool dumpsFound = false;
    QString dumpsHow;           ///< where the dumps came from, or why none were found
    QStringList notes, errors;
    std::vector<AnswerRow> rows; ///< msprobe's order, then ranks only DumpScope names
    int entries = 0, differing = 0; ///< CompareResult: entries and entries with is_same false
};
bool isMsprobeAnswerName(const QString &fileName); ///< anomaly_analyze_*, diff_analyze_*, compare_result_rank*.json
/// Reads the file, finds its dumps (given: `npu` for overflow_check; `npu` and `bench` for -da)
/// and computes DumpScope's answer on them. Errors: the file cannot be read (named).
Result<AnswerDocument> openMsprobeAnswer(const QString &path, const QString &npu = {}, const QString &bench = {},
                                         const JobControl *job = nullptr);

} // namespace ds
