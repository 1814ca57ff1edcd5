#pragma once

// Three or more runs compared with each other (issue 34, item 2; docs/COMPARE.md "More than two
// runs").
//
// Every pair of runs is compared with the two-run engine (compareRuns, core/compare): each row
// (a tensor or leaf named the same in the runs) is then "the same" in two runs when the pair's
// row is identical (tensor data, CRC-32 or the four statistics, whatever the mode compared). The
// runs of a row fall into agreement classes (runs that are the same in it). From them:
//  - which run departs from the majority first: the first row (earliest step, then position in
//    the scope, then lowest rank) where a strict majority of the runs agree and some run does not;
//  - per phase (forward, backward, optimizer), the first operator whose recorded inputs agree in
//    every run while an output does not: a nondeterministic or order-dependent operator;
//  - which runs are identical in every row (bit-identical when tensors or CRCs were compared).

#include "compare/compare.h"
#include "runtree.h"
#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <array>
#include <optional>
#include <vector>

namespace ds {

/// Where an operator runs in a step: the forward pass, the backward pass (".backward" entries,
/// parameters_grad), or after the step's last backward entry (gradient synchronisation and the
/// optimizer's parameter updates, when the dump holds them).
enum class RunPhase : std::uint8_t { Forward, Backward, Optimizer };
QString runPhaseName(RunPhase p); ///< "forward", "backward", "optimizer"

/// One run of the set: the path it was opened from and what discoverRuns found there.
struct RunSetMember
{
    QString path;
    const RunTree *tree = nullptr;
    const RunInfo *run = nullptr;
};

/// One row across the runs.
struct RunSetRow
{
    QString scope, step, rank;   ///< scope id and labels
    qint64 stepNumber = -1, rankNumber = -1;
    int position = 0;            ///< the row's number in its scope (execution order)
    QString op, name;            ///< operator (opMatchKey) and row name
    IoKind io = IoKind::Input;
    RunPhase phase = RunPhase::Forward;
    /// Per run: its agreement class (the lowest run number of the class), -1 when the row is
    /// missing in that run or was not compared there.
    std::vector<int> cls;

    bool complete() const;       ///< present and compared in every run
    int classes() const;         ///< distinct classes of the runs that hold the row
};

/// One pair of runs (a < b).
struct RunSetPair
{
    int a = 0, b = 0;
    CompareMode mode = CompareMode::None; ///< the pair's report mode (bestReportMode of its scopes)
    qint64 rows = 0, identical = 0, differing = 0, notCompared = 0, benchOnly = 0;
    /// Every row of both runs matched and identical (and no scope missing on one side).
    bool same = false;
    std::optional<RunSetRow> firstDifference; ///< first row (set order) that is not identical
};

/// A row of the set where the runs disagree.
struct RunSetFinding
{
    RunSetRow row;
    std::vector<int> runs;            ///< departure: the runs outside the majority; else the runs outside run 0's class
    std::vector<std::vector<int>> groups; ///< the agreement classes of the row, each ascending
    /// Optimizer, seen across steps: `row` is a module's parameter row whose value differs at this
    /// step while the same parameter and its gradient (parameters_grad) agreed at the step
    /// before: the update between the steps, outside the dump, differs.
    bool betweenSteps = false;
};

struct RunSetResult
{
    std::vector<QString> paths;
    CompareMode mode = CompareMode::None;  ///< the best mode of the pairs
    std::vector<RunSetPair> pairs;         ///< (0,1), (0,2), ..., (1,2), ...
    std::vector<std::vector<int>> sameGroups; ///< runs the same in every row, groups of two or more
    std::vector<RunSetRow> rows;           ///< set order: step, position, rank
    std::optional<RunSetFinding> departure;
    /// Per phase (RunPhase order): the first operator whose inputs agree and an output differs;
    /// the finding's row is that output row. Optimizer, when no dumped operator is found: the
    /// first parameter update between two steps that differs (RunSetFinding::betweenSteps).
    std::array<std::optional<RunSetFinding>, 3> nondeterministic;
    bool cancelled = false;

    /// "bit-identical" (tensor or md5 compared), "identical statistics" (summary) for pair modes.
    static QString sameWords(CompareMode mode);
    QByteArray toJson() const;
    QString text() const;
};

/// Compares every pair of `runs` (two or more) and works out the answers above.
RunSetResult compareRunSet(const std::vector<RunSetMember> &runs, const CompareOptions &options = {},
                           const JobControl *job = nullptr);

/// The runs at `paths` (each one run folder: discoverRuns; a folder holding several runs is an
/// error naming it) compared with compareRunSet. Errors: a path missing (NotFound) or holding
/// several runs (Usage).
Result<RunSetResult> compareRunPaths(const QStringList &paths, const CompareOptions &options = {},
                                     const JobControl *job = nullptr);
/// The run folders under `path` (absolute paths, discoverRuns order).
Result<QStringList> runFoldersUnder(const QString &path, const JobControl *job = nullptr);

/// Runs x operators: one entry per operator of the set (scope and op; by step, rank, then the
/// op's first row in its scope), per run whether every row of the op is held by the run and in the majority class
/// of its row (run 0's class when no strict majority).
struct RunSetOp
{
    QString scope, op;
    qint64 stepNumber = -1, rankNumber = -1;
    RunPhase phase = RunPhase::Forward;
    std::vector<char> agree; ///< per run
    int position = 0;        ///< of the op's first row in its scope
};
std::vector<RunSetOp> runSetMatrix(const RunSetResult &result);

/// The answers from rows whose classes are filled (`result.rows`, pairs and paths set): the
/// departure, the nondeterministic operators and the same-groups. compareRunSet calls it.
void findRunSetAnswers(RunSetResult &result);

} // namespace ds
