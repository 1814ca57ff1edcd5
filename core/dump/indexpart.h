#pragma once

#include "records.h"

#include <QStringList>
#include <vector>

namespace ds {

/// What one reader found in the part of an opened tree it claimed. The index builder appends
/// the parts to the DumpIndex; `stacks` are indexed by OpRecord::stack. `task`, `level` and
/// `framework` are empty when the format does not record them.
struct IndexPart
{
    std::vector<OpRecord> ops;
    std::vector<FileError> errors;
    std::vector<QStringList> stacks;
    std::uint64_t otherFiles = 0; ///< files of the claim that turned out not to be dump files
    QString task, level, framework;
    QString dumpDataDir; ///< msprobe dump.json `dump_data_dir` as written (fallback only)
    /// Ops whose construct.json parent was replaced by the one derived from the forward twin
    /// (msprobe.md §5, "parent inferred"); indexes into `ops`, ascending.
    std::vector<int> parentInferred;
};

} // namespace ds
