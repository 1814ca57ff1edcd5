#pragma once

#include "runtree.h"

namespace ds {

/// What one scope holds on disk, found without indexing it (file names, sizes and the first
/// bytes of msprobe's dump.json): for the runs overview, one scope at a time.
struct ScopeProbe
{
    quint64 bytes = 0;      ///< all files of the scope (dump.json, stack.json, tensors, dump files)
    int files = 0;
    int tensorFiles = 0;    ///< msprobe dump_tensor_data/*, CANN dump files, .npy files
    QString task, level, framework; ///< msprobe dump.json header ("statistics", "mix", "pytorch")
    QStringList contents;   ///< "dump.json", "stack.json", "construct.json", "27 tensor files", ...
    QString error;          ///< a folder that could not be read

    /// "statistics · mix · 27 tensor files" (what was dumped, in a few words).
    QString what() const;
};

ScopeProbe probeScope(const RunTree &tree, const RunScope &scope);

} // namespace ds
