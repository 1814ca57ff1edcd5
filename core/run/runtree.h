#pragma once

// A training run as DumpScope sees it: steps x ranks of scopes (issue 16).
//
// A run is the folder above the step/rank levels of a framework dump (msprobe step{N}/rank{R})
// or above the time level of a CANN tree (time/device/.../data_index). A scope is one step of
// one rank (CANN: one iteration of one device). Scopes are named by an id built from their
// levels ("step0/rank1", "device0/iteration3"), the same in every run, so that the scopes of
// two runs pair up and the per-scope work can run anywhere (issue 17: one process per node).

#include "dump/levels.h"
#include "index/buildindex.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace ds {

/// The step label of a scope: its step level, else the CANN iteration (data_index).
QString scopeStepLabel(const DumpLevels &levels);
/// The rank label of a scope: its rank level, else the CANN device.
QString scopeRankLabel(const DumpLevels &levels);
/// The number in a level value: "step12" -> 12, "rank" -> 0 (msprobe's rank folder without a
/// number), "7" -> 7; -1 for "proc1234" (a process id, not a rank) and for no digits.
qint64 levelNumber(const QString &value, bool rankLevel = false);

/// One scope of a run, as found by the walk (nothing indexed yet).
struct RunScope
{
    QString id;               ///< scopeIdOf(levels)
    QString step, rank;       ///< labels: "step0", "rank1"; CANN: data_index, device ("" when absent)
    qint64 stepNumber = -1;   ///< -1: no step level
    qint64 rankNumber = -1;   ///< -1: no rank level (or a process id)
    QStringList dirs;         ///< claimed directories or files, relative to the opened folder
    std::vector<size_t> claims; ///< into RunTree::walk.claims
    QStringList formats;      ///< reader names
};

/// One run: its scopes in step, then rank order.
struct RunInfo
{
    QString relPath;          ///< the run folder relative to the opened one ("" = the opened folder)
    QString name;             ///< the run folder's name
    QStringList formats;      ///< reader names ("msprobe", "cann", ...)
    std::vector<RunScope> scopes;
    std::vector<qint64> steps, ranks; ///< distinct step and rank numbers, ascending (-1 when absent)

    const RunScope *scope(const QString &id) const;
    bool multiScope() const { return scopes.size() > 1; }
};

/// What a path holds: every run under it, and the walk the scopes are indexed from.
struct RunTree
{
    TreeWalk walk;
    std::vector<RunInfo> runs; ///< ordered by relPath
    const RunInfo *run(const QString &relPath) const;
};

/// Walks `path` (cheap: names, no record is read) and groups what the readers claimed into
/// runs and scopes. Claims that hold nothing a reader can index (stray files) are left out.
Result<RunTree> discoverRuns(const QString &path, const JobControl *job = nullptr);
/// The same from a walk already made (e.g. the one an index was built from).
RunTree runsOfWalk(TreeWalk walk);

/// The runs of several walks of one tree (processes that see different parts of it, issue 17)
/// as one walk of the whole would list them: runs by relPath (the name and the formats' order of
/// the first list holding the run), scopes united by id in step, rank order, steps and ranks
/// recomputed. Scopes keep their labels; their claims and dirs are dropped (they index one walk).
std::vector<RunInfo> mergeRuns(const std::vector<std::vector<RunInfo>> &lists);

/// Indexes one scope of a discovered run: an index over the opened folder (tensor ids and
/// operator paths are those of the whole tree) holding only that scope's operators.
std::shared_ptr<DumpIndex> indexScope(const RunTree &tree, const RunScope &scope, const JobControl *job = nullptr);

/// The operators of `index` (indexes into index.ops, execution order) grouped by scope: the
/// key is the scope id, "<run>:<scope id>" when the index holds several runs (DumpLevels::run);
/// the scopes in the order of their first operator.
std::vector<std::pair<QString, std::vector<int>>> opsByScope(const DumpIndex &index);

/// A copy of `index` that keeps only the operators of the run `runLevel` (DumpLevels::run, as
/// set when the opened folder holds several runs), with levels.run cleared: one run of a
/// multi-run folder, for comparing it with another.
std::shared_ptr<DumpIndex> runSubIndex(const DumpIndex &index, const QString &runLevel);

} // namespace ds
