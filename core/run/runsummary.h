#pragma once

// Per-scope summaries and the run-level answer computed from them alone.
//
// A ScopeSummary is what one scope's work (compare or overflow check) leaves behind: counts,
// the scope's own first divergence (or first anomaly) and the scope's communication ops. It is
// small and round-trips through JSON, so that scopes can be worked on anywhere (one process per
// node, issue 17) and only summaries travel. combineRun() turns any set of them into the run's
// answer; it sorts its input first, so the answer does not depend on the order they arrive in.

#include "commclock.h"

#include <QJsonObject>
#include <map>
#include <optional>
#include <vector>

namespace ds {

/// A scope's first divergence (compare) or first anomaly (overflow).
struct ScopeFinding
{
    QString op;          ///< operator (entry) name: "Functional.linear.0.forward"
    QString row;         ///< the row (compare) or tensor (overflow) that shows it
    QString reason;      ///< why, in words
    int position = -1;   ///< the operator's position in the scope's execution order
    bool inputsAgree = true; ///< compare: its inputs agree (the scope's origin); false: inputs already differ
    // overflow only (firstoverflow.h: which source names the operator)
    QString file;        ///< the operator's file (DumpIndex relPath); an unlinked OpDebug record's own file
    QString record;      ///< the OpDebug record naming it (the earliest of several), "" none
    QString level;       ///< the software scan's level of its NaN/Inf/saturated values ("critical", ...), "" none
    bool operator==(const ScopeFinding &) const = default;
};

struct ScopeSummary
{
    QString run;                ///< DumpLevels::run when the index holds several runs, else empty
    QString id;                 ///< scopeIdOf(levels): "step0/rank1"
    QString step, rank;         ///< labels
    qint64 stepNumber = -1, rankNumber = -1;
    bool npu = true, bench = true; ///< compare: present on that side
    int ops = 0;                ///< operators of the (NPU) scope
    // compare rows (overflow: anomalies counts the operators with an anomaly)
    qint64 rows = 0, pass = 0, warning = 0, error = 0, notCompared = 0, benchOnly = 0, anomalies = 0;
    /// compare: the rows not compared by why (the row's first reason code, "UNMATCHED_BENCH",
    /// "MISSING_FILE", ...; "NOT_COMPARED" without one)
    std::map<QString, qint64> notComparedBy;
    std::optional<ScopeFinding> first;
    /// Overflow: the scope's earliest operator by each source alone, the OpDebug records
    /// (hardware) and the software scan; `first` is the earlier of the two (firstoverflow.h).
    std::optional<ScopeFinding> hardware, software;
    std::vector<CommOp> comm;   ///< the scope's communication ops in order

    QJsonObject toJson() const;
    static std::optional<ScopeSummary> fromJson(const QJsonObject &o);
    bool operator==(const ScopeSummary &) const = default;
};

/// What the run-level answer is about.
enum class RunAnswerKind : std::uint8_t { Compare, Overflow };

/// The run-level answer.
struct RunAnswer
{
    RunAnswerKind kind = RunAnswerKind::Compare;

    struct Step
    {
        qint64 number = -1;
        QString label;
        int scopes = 0, missing = 0; ///< scopes; of them present on one side only (compare)
        qint64 pass = 0, warning = 0, error = 0, notCompared = 0, anomalies = 0;
        std::map<QString, qint64> notComparedBy; ///< ScopeSummary::notComparedBy summed
        std::vector<qint64> divergedRanks; ///< ranks with a finding, ascending
    };
    std::vector<Step> steps; ///< ascending

    /// One rank's own finding in the step of the first divergence (found = false: it has none).
    struct RankFinding
    {
        QString scope, rank;
        qint64 rankNumber = -1;
        bool found = true;
        ScopeFinding finding;
        ClockPosition clock;
    };
    struct First
    {
        qint64 step = -1;
        QString stepLabel;
        RankFinding at;                 ///< the earliest on the clock (lowest rank on a tie)
        std::vector<qint64> tiedRanks;  ///< ranks at the same clock position (including at's)
        std::vector<RankFinding> ranks; ///< every rank of that step with its own finding (or none), rank order
        bool clockConsistent = true;
    };
    std::optional<First> first;
    /// The last step before the first divergence, when at least one step precedes it; with no
    /// divergence, the last step.
    std::optional<qint64> agreeUpTo;
    QString agreeUpToLabel;

    /// The answer in one line: "runs agree up to step 0; first divergence: step 1, rank 0, op
    /// Functional.linear.0.forward" (overflow: "no anomaly up to step 0; first anomaly: ...").
    /// A compare never claims agreement over rows it did not compare: with rows not compared it
    /// says how many and why ("runs agree on every compared row (step 0); 3 of 4 rows not
    /// compared: No bench data matched 3"), and "nothing was compared" when no row was.
    QString line() const;
    /// The `run` object of the JSON reports (docs/COMPARE-RUNS.md "Runs"), compact JSON text.
    QByteArray toJson(const std::vector<ScopeSummary> &scopes) const;
};

/// The run-level answer from per-scope summaries: the earliest step in which any rank has a
/// finding and, inside it, the earliest finding on the communication-op clock (lowest rank on
/// a tie), with every rank's own finding listed.
RunAnswer combineRun(std::vector<ScopeSummary> scopes, RunAnswerKind kind = RunAnswerKind::Compare);

/// Sorts summaries into step, rank, id order (the order combineRun and the reports use).
void sortScopes(std::vector<ScopeSummary> &scopes);
/// Summaries grouped by ScopeSummary::run (combineRun answers one run at a time).
std::map<QString, std::vector<ScopeSummary>> scopesByRun(std::vector<ScopeSummary> scopes);

} // namespace ds
