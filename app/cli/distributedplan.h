#pragma once

// The MPI-free half of the distributed compare (distributed.h): what every process tells rank 0
// about the scopes it sees (a catalog with a fingerprint per scope), rank 0's plan that hands
// every scope pair to one process, and the compact byte format of the messages (QDataStream);
// for `info` and `overflow` (scancommand.h) the units of work of one tree and their plan.

#include "compare/msprobecells.h"
#include "run/runcompare.h"

#include <QByteArray>
#include <QString>
#include <map>
#include <optional>
#include <vector>

namespace ds {

/// Who a process is, for the messages that name it.
struct PeerInfo
{
    QString host, npuPath, benchPath;
};

/// One scope a process sees: its id and labels (as RunScope), a fingerprint of its files and
/// their size.
struct CatalogScope
{
    QString id, step, rank;
    qint64 stepNumber = -1, rankNumber = -1;
    QByteArray fingerprint;
    quint64 bytes = 0;
};

/// The run one process sees under one path.
struct SideCatalog
{
    QString error;      ///< the path cannot be read or holds several runs
    qint32 code = 0;    ///< the exit code one process would return for it (2, 3)
    QString openedPath, rootDir;
    std::vector<CatalogScope> scopes;
};

/// What one process sees: the NPU and the bench run.
struct Catalog
{
    QString error; ///< the options could not be set up on this process (mapping, thresholds file)
    qint32 code = 0;
    SideCatalog npu, bench;
};
QByteArray encodeCatalog(const Catalog &c);
std::optional<Catalog> decodeCatalog(const QByteArray &bytes);

/// Fingerprint of a scope's files: SHA-1 over their paths relative to the run's root and their
/// sizes, and the first and last 64 KiB of every .json file (msprobe's dump.json, stack.json,
/// construct.json). `bytes` gets the size of all its files.
QByteArray scopeFingerprint(const RunTree &tree, const RunScope &scope, quint64 &bytes);

/// Walks `path` like `dumpscope-cli compare` does (a folder of several runs is refused) and
/// catalogs its run's scopes; `tree` and `run` get the walk (run: nullptr on error).
SideCatalog catalogSide(const QString &path, const QString &what, RunTree &tree, const RunInfo *&run);

/// One scope pair handed to a process; `pair` is its position in the pairs of the union (the
/// order of the reports).
struct Assignment
{
    qint32 pair = -1;
    QString id, npuId, benchId;
    bool hasNpu = false, hasBench = false;
};
QByteArray encodeAssignments(const std::vector<Assignment> &a);
std::optional<std::vector<Assignment>> decodeAssignments(const QByteArray &bytes);

/// Rank 0's plan: the pairs of the union of all catalogs (pairScopes, as one process would pair
/// them), each given to one process that sees both its sides with the same fingerprint as every
/// other process that sees them (largest scopes first, to the process with the fewest bytes so
/// far; ties to the lowest rank): deterministic for the same catalogs.
struct Plan
{
    std::vector<std::vector<Assignment>> byRank;
    size_t pairs = 0;
    QString error; ///< a scope seen with different contents, a pair no process sees whole
    qint32 code = 0;
};
Plan planCompare(const std::vector<Catalog> &catalogs, const std::vector<PeerInfo> &peers);

/// `info` / `overflow`: walks `path` (a folder of several runs too) and catalogs its units of
/// work: every run's scopes (overflow: a CANN device's scopes as one, since an OpDebug record is
/// linked to operators of the device's other iterations) and the claims no run holds. Unit ids
/// name the run and the scope ("run_a:step0/rank1"); `units` gets each unit's claims of `tree`.
SideCatalog catalogScan(const QString &path, bool overflow, RunTree &tree, std::map<QString, std::vector<size_t>> &units);
/// Rank 0's plan for `info` / `overflow`: the union of the catalogs' units (catalog.npu), each
/// given to one process that sees it (largest first, to the least loaded); an error when two
/// processes see a unit with different contents.
Plan planScan(const std::vector<Catalog> &catalogs, const std::vector<PeerInfo> &peers);

/// A process's compare of one pair: what rank 0 needs to choose the report's column set and
/// combine the run answer.
struct ComparedScope
{
    qint32 pair = -1;
    QByteArray summary; ///< ScopeSummary JSON
    quint8 mode = 0;    ///< the columns its rows need (scopeReportMode)
};
QByteArray encodeCompared(const std::vector<ComparedScope> &c);
std::optional<std::vector<ComparedScope>> decodeCompared(const QByteArray &bytes);

/// One pair's rendered part of the reports (ScopeOutput without the summary, sent before).
struct ScopePiece
{
    qint32 pair = -1;
    qint32 npuOps = 0;
    QByteArray csv, json;          ///< CSV rows in the report's columns (--csv), compareJson (--json)
    std::vector<std::vector<MsCell>> cells; ///< the same rows as typed cells (--xlsx)
    bool stack = false;            ///< the NPU dump holds call stacks (NPU_Stack_Info)
    QString divergences, notPass;  ///< the text report's parts
    QStringList warnings;
    bool reached = false;          ///< a row reached --fail-on
};
QByteArray encodePiece(const ScopePiece &p);
std::optional<ScopePiece> decodePiece(const QByteArray &bytes);

} // namespace ds
