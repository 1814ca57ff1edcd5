#pragma once
// DumpScope's own first divergence beside msprobe's `compare -da` answer (issue 33, item 1;
// compare/diffanalyze.h reads the files; docs/COMPARE.md "msprobe's -da answers").

#include "compare/diffanalyze.h"

#include <QMap>
#include <QString>
#include <QStringList>

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

} // namespace ds
