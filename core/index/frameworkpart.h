#pragma once

#include "records.h"

#include <QStringList>
#include <vector>

namespace ds {

/// What one framework-dump reader (msprobe dump.json, .h5, folder of .npy files) found in its
/// part of an opened tree. The integrator appends the parts to the DumpIndex; `stacks` are
/// indexed by OpRecord::stack. `task`, `level` and `framework` are empty when the format does
/// not record them.
struct FrameworkPart
{
    std::vector<OpRecord> ops;
    std::vector<FileError> errors;
    std::vector<QStringList> stacks;
    QString task, level, framework;
    QString dumpDataDir; ///< msprobe dump.json `dump_data_dir` as written (fallback only)
    /// Ops whose construct.json parent was replaced by the one derived from the forward twin
    /// (msprobe.md §5, "parent inferred"); indexes into `ops`, ascending.
    std::vector<int> parentInferred;
};

} // namespace ds
