#pragma once

// `dumpscope-cli info PATH [--json]` and `dumpscope-cli overflow PATH [--json] [--no-scan]`.
//
// Both are written in two steps so that they can be spread over processes (issue 17,
// docs/DISTRIBUTED.md): scanPart() is what one index contributes (core's InfoPart or
// OverflowPart, the run summaries of the overflow's run answer, the runs the walk found), and
// writeScanReport() merges any set of parts and prints the report. One process builds one part
// of the whole tree; under mpirun every process builds the part of the scopes it owns and rank 0
// writes: both through writeScanReport(), byte for byte the same report.

#include "index/infopart.h"
#include "overflow/overflowpart.h"
#include "run/runsummary.h"
#include "run/runtree.h"

#include <QString>
#include <optional>

namespace ds {

struct ScanCommand
{
    enum class Kind : quint8 { Info, Overflow };
    Kind kind = Kind::Info;
    QString path;
    bool json = false, quiet = false;
    bool scan = true; ///< overflow: the software scan (not --no-scan)
};

/// What one index contributes to the report of `Kind`.
struct ScanPart
{
    InfoPart info;                    ///< info
    std::vector<RunInfo> runs;        ///< info: the runs the walk found (scopes without claims)
    OverflowPart overflow;            ///< overflow
    std::vector<ScopeSummary> scopes; ///< overflow: per-scope summaries for the run answer
};

/// The part of `index` (the whole tree, or the scopes this process owns, indexed with
/// IndexLabels::Always); `runs`: the walk's runs (info).
ScanPart scanPart(const ScanCommand &c, const DumpIndex &index, const RunTree &runs, const JobControl *job = nullptr);
QByteArray encodeScanPart(const ScanCommand &c, const ScanPart &part);
std::optional<ScanPart> decodeScanPart(const ScanCommand &c, const QByteArray &bytes);

/// Merges `parts` (any order) and prints the report of their union as opened at `openedPath`;
/// returns the exit code.
int writeScanReport(const ScanCommand &c, std::vector<ScanPart> parts, const QString &openedPath);

/// The command in this process alone: indexes the whole tree, one part, writeScanReport().
int runScanCommand(const ScanCommand &c);

} // namespace ds
