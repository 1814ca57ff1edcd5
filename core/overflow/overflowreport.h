#pragma once

#include "dump/dumpindex.h"
#include "opdebug.h"
#include "softwarecheck.h"

#include <map>

namespace ds {

/// An OpDebug file, decoded and linked to the operators its triggered blocks name.
struct OverflowEntry
{
    int op = -1; ///< the OpDebug file in DumpIndex::ops
    OpDebugRecord record;
    QString error; ///< payload could not be decoded
    struct Link
    {
        const OverflowBlock *block = nullptr;
        int op = -1;  ///< linked operator, -1 if none
        QString note; ///< why it is unmatched, or how it was matched
    };
    std::vector<Link> links; ///< one per triggered block
    bool firstOnDevice = false, firstOverall = false;
};

struct OverflowReport
{
    std::vector<OverflowEntry> records;      ///< sorted: device, data_index, timestamp, file name
    std::vector<ScopeScan> scopes;           ///< software scan per scope (step x rank), index order
    std::vector<SoftwareFinding> findings;   ///< every scope's findings, execution order
    /// The scope whose first anomaly is reported as the dump's first (see firstScopeOf());
    /// -1 when no scope has one.
    int firstScope = -1;
    int firstProducer = -1;                  ///< op of the first "critical" finding of firstScope, -1 none
    std::map<int, OpCheck> checks;           ///< op -> tensor checks (linked ops and ops with findings)
    bool scanned = false, cancelled = false;

    /// The first anomaly of firstScope (any level), or null.
    const SoftwareFinding *firstAnomaly() const;
};

/// The scope reported first: the earliest scope with an anomaly, where among the scopes of
/// the same step (same levels but rank/device) one whose first anomaly is not a
/// communication op wins (a NaN that an all_reduce receives was made on another rank).
/// A simple rule for one dump; the run-level analysis across steps and ranks is separate.
int firstScopeOf(const DumpIndex &index, const std::vector<ScopeScan> &scopes);

/// Numeric-aware order of directory level labels (overflow.md §8), as analyzeOverflow sorts
/// the records: numerically when both parse as unsigned numbers of different values, else as
/// text. (Unlike compareNumericAware() in dump/levels.h, "007" and "7" compare as text.)
int compareLevel(const QString &a, const QString &b);

struct OverflowOptions
{
    bool softwareScan = true;
};

/// Decodes every OpDebug record of the index, links it to its operator by the payload's
/// stream and task ids (never the file name's), orders the records and marks the first
/// overflow; then (optionally) scans every operator's tensors for NaN/Inf/saturation and
/// classifies it critical / high / medium (overflow.md §7, §8, §14), one scope (step x rank)
/// at a time (scanScope()). Tensors saved without data are judged from recorded statistics.
OverflowReport analyzeOverflow(const DumpIndex &index, const OverflowOptions &options = {}, const JobControl *job = nullptr);

/// The reports of `dumpscope-cli overflow` (README): overflowJson / overflowText of an
/// OverflowDocument (overflowpart.h); one index's document with its first-overflow answer is
/// run/firstoverflow.h's overflowDocument().

} // namespace ds
